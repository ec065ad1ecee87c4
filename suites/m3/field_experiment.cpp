// File: suites/m3/field_experiment.cpp
#include "suites/m3/field_experiment.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <stdexcept>

#include "harness/parallel.h"
#include "harness/random.h"
#include "harness/strings.h"
#include "reference/m3/gma.h"
#include "reference/m3/metrics.h"
#include "reference/m3/psc.h"
#include "reference/m3/splat.h"
#include "reference/probegen/adam.h"

namespace cb::m3 {
namespace {

namespace h = cb::harness;
namespace rm = cb::ref::m3;
using gen::Extractor;
using gen::FeatureScene;
using rm::View;

constexpr int kGeometryPerGaussian = 6;  // x, y, sx, sy, rotation, opacity
constexpr double kOpacity = 0.7;

std::vector<rm::Gaussian2D> LatticeGaussians(int canvas, int lattice, uint64_t seed) {
  h::Rng rng(seed, 11);
  std::vector<rm::Gaussian2D> g;
  for (int y = -lattice / 2; y < canvas + lattice; y += lattice)
    for (int x = -lattice / 2; x < canvas + lattice; x += lattice) {
      const double jx = (rng.Uniform() - 0.5) * lattice * 0.5, jy = (rng.Uniform() - 0.5) * lattice * 0.5;
      g.push_back({.x = x + jx, .y = y + jy, .sx = lattice * (0.6 + 0.5 * rng.Uniform()),
                   .sy = lattice * (0.6 + 0.5 * rng.Uniform()), .rot = rng.Uniform() * 3.14159265358979,
                   .opacity = kOpacity});
    }
  rng.Shuffle(std::span<rm::Gaussian2D>(g));  // depth order
  return g;
}

// The rows `pixels` of a view's compositing weights.
rm::SplatWeights SelectRows(const rm::SplatWeights& w, const std::vector<int64_t>& pixels) {
  rm::SplatWeights out;
  out.pixels = int64_t(pixels.size());
  out.offset.push_back(0);
  for (int64_t p : pixels) {
    for (int64_t e = w.offset[p]; e < w.offset[p + 1]; ++e) {
      out.gaussian.push_back(w.gaussian[e]);
      out.weight.push_back(w.weight[e]);
    }
    out.offset.push_back(int64_t(out.gaussian.size()));
  }
  return out;
}

// GMA over fixed blocks of pixels, in parallel: pixels are independent, and
// the blocks do not depend on the thread count, so neither do the sums of
// W_m's gradient over them (added in block order).
constexpr int64_t kGmaBlock = 64;

struct GmaBlocks {
  std::vector<rm::GmaCache> caches;  // one per block
};

int64_t BlockCount(int64_t pixels) { return (pixels + kGmaBlock - 1) / kGmaBlock; }

void ParallelGma(const rm::GmaShape& s, const double* q, const double* wm, const double* mem, double* out,
                 GmaBlocks* blocks, int threads) {
  const int64_t n = BlockCount(s.pixels);
  if (blocks) blocks->caches.assign(size_t(n), {});
  h::ParallelFor(n, threads, [&](int, int64_t begin, int64_t end) {
    for (int64_t b = begin; b < end; ++b) {
      const int64_t p0 = b * kGmaBlock;
      rm::GmaShape sub = s;
      sub.pixels = std::min(kGmaBlock, s.pixels - p0);
      rm::GmaForward(sub, q + p0 * s.query, wm, mem, rm::kGmaTemperature, out + p0 * s.dim,
                     blocks ? &blocks->caches[b] : nullptr);
    }
  });
}

// dq (P, c) and dwm (c, D) accumulated.
void ParallelGmaBackward(const rm::GmaShape& s, const double* q, const double* wm, const double* mem,
                         const GmaBlocks& blocks, const double* dout, double* dq, double* dwm, int threads) {
  const int64_t n = BlockCount(s.pixels);
  std::vector<std::vector<double>> dw(size_t(n), std::vector<double>(size_t(s.query) * s.dim, 0.0));
  h::ParallelFor(n, threads, [&](int, int64_t begin, int64_t end) {
    for (int64_t b = begin; b < end; ++b) {
      const int64_t p0 = b * kGmaBlock;
      rm::GmaShape sub = s;
      sub.pixels = std::min(kGmaBlock, s.pixels - p0);
      rm::GmaBackward(sub, q + p0 * s.query, wm, mem, rm::kGmaTemperature, blocks.caches[b], dout + p0 * s.dim,
                      dq + p0 * s.query, dw[b].data());
    }
  });
  for (const auto& d : dw)
    for (size_t i = 0; i < d.size(); ++i) dwm[i] += d[i];
}

// One extractor's state.
struct Field {
  Extractor ex;
  int c = 0, offset = 0;            // query slice [offset, offset + c)
  double theta = 0;
  std::vector<double> memory;       // (K, D)
  int k = 0, tokens = 0, dropped = 0, unrepresented = 0;
  std::vector<double> wm;           // (c, D)
  std::vector<double> feature;      // F-3DGS (G, D)
  std::vector<std::vector<double>> train_tokens, test_tokens;
};

std::vector<double> Slice(const std::vector<double>& q, int64_t rows, int width, int offset, int c) {
  std::vector<double> out(size_t(rows) * c);
  for (int64_t r = 0; r < rows; ++r)
    for (int i = 0; i < c; ++i) out[r * c + i] = q[r * width + offset + i];
  return out;
}

// M3's rendered features of a whole view for one extractor.
std::vector<double> RenderM3(const Field& f, const rm::SplatWeights& w, const std::vector<double>& queries,
                             int width, int threads) {
  std::vector<double> all(size_t(w.pixels) * width);
  rm::Composite(w, queries.data(), width, all.data());
  const std::vector<double> q = Slice(all, w.pixels, width, f.offset, f.c);
  std::vector<double> out(size_t(w.pixels) * f.ex.dim);
  ParallelGma({w.pixels, f.c, f.ex.dim, f.k}, q.data(), f.wm.data(), f.memory.data(), out.data(), nullptr, threads);
  return out;
}

std::vector<double> RenderF3dgs(const Field& f, const rm::SplatWeights& w) {
  std::vector<double> out(size_t(w.pixels) * f.ex.dim);
  rm::Composite(w, f.feature.data(), f.ex.dim, out.data());
  return out;
}

std::vector<double> MeanRow(const std::vector<double>& x, int64_t rows, int d) {
  std::vector<double> m(d, 0.0);
  for (int64_t r = 0; r < rows; ++r)
    for (int k = 0; k < d; ++k) m[k] += x[r * d + k] / double(rows);
  return m;
}

double Cos(const double* a, const double* b, int d) {
  double ab = 0, aa = 0, bb = 0;
  for (int k = 0; k < d; ++k) ab += a[k] * b[k], aa += a[k] * a[k], bb += b[k] * b[k];
  return ab / (std::sqrt(aa) * std::sqrt(bb) + 1e-12);
}

std::vector<double> Caption(const Extractor& e, const std::vector<double>& shares) {
  std::vector<double> c(e.dim, 0.0);
  for (int k = 0; k <= e.classes; ++k) {
    if (shares[k] == 0) continue;
    const std::vector<double> t = gen::TextEmbedding(e, k);
    for (int d = 0; d < e.dim; ++d) c[d] += shares[k] * t[d];
  }
  return c;
}

std::vector<double> Shares(const std::vector<uint8_t>& labels, int classes) {
  std::vector<double> s(classes + 1, 0.0);
  for (uint8_t l : labels) s[l] += 1.0 / double(labels.size());
  return s;
}

// images (n, D) each a mean feature; captions (n + negatives, D).
RetrievalScores Retrieval(const std::vector<std::vector<double>>& images,
                          const std::vector<std::vector<double>>& captions, int d) {
  const int64_t n = int64_t(images.size()), m = int64_t(captions.size());
  std::vector<double> i2t(size_t(n * m)), t2i(size_t(n * n));
  std::vector<int64_t> correct(n);
  for (int64_t i = 0; i < n; ++i) {
    correct[i] = i;
    for (int64_t j = 0; j < m; ++j) i2t[i * m + j] = Cos(images[i].data(), captions[j].data(), d);
    for (int64_t j = 0; j < n; ++j) t2i[i * n + j] = Cos(captions[i].data(), images[j].data(), d);
  }
  return {rm::RecallAtK(i2t, n, m, correct, 1), rm::RecallAtK(t2i, n, n, correct, 1)};
}

void Ground(const std::vector<double>& features, const std::vector<uint8_t>& labels, const Extractor& e,
            rm::GroundingScore* score) {
  const int64_t pixels = int64_t(labels.size());
  const std::vector<double> shares = Shares(labels, e.classes);
  for (int k = 1; k <= e.classes; ++k) {
    if (shares[k] < 0.02) continue;
    const std::vector<double> t = gen::TextEmbedding(e, k);
    std::vector<double> sim(pixels);
    for (int64_t p = 0; p < pixels; ++p) sim[p] = Cos(&features[p * e.dim], t.data(), e.dim);
    const double thr = rm::OtsuThreshold(sim);
    std::vector<char> pred(pixels), gt(pixels);
    for (int64_t p = 0; p < pixels; ++p) pred[p] = sim[p] > thr, gt[p] = labels[p] == k;
    score->Add(pred, gt);
  }
}

// The trivial grounding: every pixel is the queried class, for the classes
// Ground() queries.
void GroundAll(const std::vector<uint8_t>& labels, const Extractor& e, rm::GroundingScore* score) {
  const std::vector<double> shares = Shares(labels, e.classes);
  for (int k = 1; k <= e.classes; ++k) {
    if (shares[k] < 0.02) continue;
    std::vector<char> pred(labels.size(), 1), gt(labels.size());
    for (size_t p = 0; p < labels.size(); ++p) gt[p] = labels[p] == k;
    score->Add(pred, gt);
  }
}

GroundingScores ScoresOf(const rm::GroundingScore& g) { return {g.MIoU(), g.CIoU(), g.Ap50(), g.queries()}; }

}  // namespace

double PscThetaOf(const std::string& e) {
  if (e == "clip") return 0.80;
  if (e == "siglip") return 0.85;
  if (e == "dinov2") return 0.75;
  throw std::invalid_argument("PscThetaOf: unknown extractor '" + e + "'");
}

int QueryChannelsOf(const std::string& e) {
  if (e == "clip") return 16;
  if (e == "siglip" || e == "dinov2") return 32;
  throw std::invalid_argument("QueryChannelsOf: unknown extractor '" + e + "'");
}

std::string FieldSetting::Describe() const {
  return h::StrFormat("scene %s; widths x%.3g; lattice %d px; %d steps x %d pixels; lr q %.3g W_m %.3g f %.3g",
                      scene.Canonical().c_str(), width_scale, lattice, iterations, sample_pixels, lr_query, lr_proj,
                      lr_feature);
}

FieldOutcome RunField(const FieldSetting& st, const std::function<void(double)>& progress) {
  if (st.lattice < 1 || st.iterations < 1 || st.sample_pixels < 1 || !(st.lr_query > 0) || !(st.lr_proj > 0) ||
      !(st.lr_feature > 0))
    throw std::invalid_argument("RunField: needs lattice, iterations, sample_pixels >= 1 and positive rates");
  const int threads = st.threads > 0 ? st.threads : h::HardwareThreads();
  const FeatureScene scene = gen::MakeFeatureScene(st.scene);
  const std::vector<rm::Gaussian2D> gaussians = LatticeGaussians(st.scene.canvas, st.lattice, st.seed);
  const int64_t g = int64_t(gaussians.size());
  h::Rng rng(st.seed, 12);

  std::vector<Field> fields;
  int width = 0;
  for (const Extractor& e : gen::StandInExtractors(st.width_scale, st.scene.classes, st.scene.seed)) {
    Field f;
    f.ex = e;
    f.c = QueryChannelsOf(e.name);
    f.offset = width;
    width += f.c;
    f.theta = PscThetaOf(e.name);
    std::vector<double> all;
    for (const View& v : scene.train_views) {
      f.train_tokens.push_back(gen::ExtractTokens(e, scene, v));
      all.insert(all.end(), f.train_tokens.back().begin(), f.train_tokens.back().end());
    }
    for (const View& v : scene.test_views) f.test_tokens.push_back(gen::ExtractTokens(e, scene, v));
    const rm::PscResult psc = rm::PrincipalSceneComponents(all.data(), int64_t(all.size() / e.dim), e.dim, f.theta);
    f.memory = rm::GatherRows(all.data(), e.dim, psc.selected);
    f.k = int(psc.selected.size());
    f.tokens = int(all.size() / e.dim);
    f.dropped = int(psc.dropped.size());
    f.unrepresented = int(psc.unrepresented.size());
    f.wm.resize(size_t(f.c) * e.dim);
    for (double& x : f.wm) x = rng.Normal();
    f.feature.assign(size_t(g) * e.dim, 0.0);
    fields.push_back(std::move(f));
  }
  std::vector<double> queries(size_t(g) * width);
  for (double& x : queries) x = rng.Normal();

  FieldOutcome out;
  out.gaussians = g;
  out.params_m3 = g * (kGeometryPerGaussian + width);
  out.params_f3dgs = g * kGeometryPerGaussian;
  for (const Field& f : fields) {
    out.params_m3 += int64_t(f.c + f.k) * f.ex.dim;
    out.params_f3dgs += g * f.ex.dim;
  }

  std::vector<rm::SplatWeights> train_w;
  for (const View& v : scene.train_views) train_w.push_back(rm::ComputeSplatWeights(gaussians, v));

  ref::probegen::Adam adam;
  const int p = st.sample_pixels;
  for (int it = 0; it < st.iterations; ++it) {
    const size_t vi = size_t(it) % scene.train_views.size();
    const View& view = scene.train_views[vi];
    std::vector<int64_t> pixels(p);
    for (int64_t& x : pixels) x = int64_t(rng.UniformInt(0, uint64_t(view.Pixels() - 1)));
    const rm::SplatWeights w = SelectRows(train_w[vi], pixels);
    std::vector<double> rendered(size_t(p) * width), drendered(size_t(p) * width, 0.0);
    rm::Composite(w, queries.data(), width, rendered.data());
    std::vector<double> dqueries(queries.size(), 0.0);
    out.final_loss_m3 = out.final_loss_f3dgs = 0.0;
    for (size_t fi = 0; fi < fields.size(); ++fi) {
      Field& f = fields[fi];
      const int d = f.ex.dim;
      std::vector<double> gt(size_t(p) * d);
      gen::FeaturesAt(f.ex, view, f.train_tokens[vi], pixels, gt.data());
      // M3: rendered query slice -> GMA -> loss, back to the queries and W_m.
      const std::vector<double> q = Slice(rendered, p, width, f.offset, f.c);
      const rm::GmaShape shape{p, f.c, d, f.k};
      std::vector<double> pred(size_t(p) * d), dpred(size_t(p) * d), dq(size_t(p) * f.c, 0.0),
          dwm(f.wm.size(), 0.0);
      GmaBlocks blocks;
      ParallelGma(shape, q.data(), f.wm.data(), f.memory.data(), pred.data(), &blocks, threads);
      const rm::FeatureDistance l = rm::CosineMseLoss(pred.data(), gt.data(), p, d, true, dpred.data());
      out.final_loss_m3 += l.cosine + l.mse;
      ParallelGmaBackward(shape, q.data(), f.wm.data(), f.memory.data(), blocks, dpred.data(), dq.data(),
                          dwm.data(), threads);
      for (int64_t r = 0; r < p; ++r)
        for (int i = 0; i < f.c; ++i) drendered[r * width + f.offset + i] = dq[r * f.c + i];
      adam.Update(int(2 * fi), f.wm, dwm, st.lr_proj, it);
      // F-3DGS: features composited directly.
      std::vector<double> fpred(size_t(p) * d), dfpred(size_t(p) * d), dfeature(f.feature.size(), 0.0);
      rm::Composite(w, f.feature.data(), d, fpred.data());
      const rm::FeatureDistance lf = rm::CosineMseLoss(fpred.data(), gt.data(), p, d, true, dfpred.data());
      out.final_loss_f3dgs += lf.cosine + lf.mse;
      rm::CompositeTranspose(w, dfpred.data(), d, dfeature.data());
      adam.Update(int(2 * fi + 1), f.feature, dfeature, st.lr_feature, it);
    }
    rm::CompositeTranspose(w, drendered.data(), width, dqueries.data());
    adam.Update(int(2 * fields.size()), queries, dqueries, st.lr_query, it);
    if (progress) progress(0.9 * double(it + 1) / st.iterations);
  }

  // Evaluation on the held-out views.
  rm::GroundingScore ground_raw, ground_m3, ground_f3dgs, ground_all;
  std::vector<std::vector<double>> img_raw, img_m3, img_f3dgs, captions;
  for (const Field& f : fields) {
    ExtractorOutcome eo{.name = f.ex.name, .dim = f.ex.dim, .query_channels = f.c, .theta = f.theta};
    eo.tokens = f.tokens, eo.memory_rows = f.k, eo.dropped = f.dropped, eo.unrepresented = f.unrepresented;
    out.extractors.push_back(eo);
  }
  for (size_t vi = 0; vi < scene.test_views.size(); ++vi) {
    const View& view = scene.test_views[vi];
    const rm::SplatWeights w = rm::ComputeSplatWeights(gaussians, view);
    const std::vector<uint8_t> labels = gen::ViewLabels(scene, view);
    std::vector<int64_t> all(size_t(view.Pixels()));
    std::iota(all.begin(), all.end(), int64_t{0});
    for (size_t fi = 0; fi < fields.size(); ++fi) {
      const Field& f = fields[fi];
      const int d = f.ex.dim;
      std::vector<double> gt(size_t(view.Pixels()) * d);
      gen::FeaturesAt(f.ex, view, f.test_tokens[vi], all, gt.data());
      const std::vector<double> m3 = RenderM3(f, w, queries, width, threads), f3 = RenderF3dgs(f, w);
      const double n = double(scene.test_views.size());
      ExtractorOutcome& eo = out.extractors[fi];
      const rm::FeatureDistance a = rm::CosineMseLoss(m3.data(), gt.data(), view.Pixels(), d, false);
      const rm::FeatureDistance b = rm::CosineMseLoss(f3.data(), gt.data(), view.Pixels(), d, false);
      eo.m3.cosine += a.cosine / n, eo.m3.mse += a.mse / n, eo.m3.valid += a.valid;
      eo.f3dgs.cosine += b.cosine / n, eo.f3dgs.mse += b.mse / n, eo.f3dgs.valid += b.valid;
      if (f.ex.name == "siglip") {
        img_raw.push_back(MeanRow(gt, view.Pixels(), d));
        img_m3.push_back(MeanRow(m3, view.Pixels(), d));
        img_f3dgs.push_back(MeanRow(f3, view.Pixels(), d));
        captions.push_back(Caption(f.ex, Shares(labels, f.ex.classes)));
      }
      if (f.ex.name == "clip") {
        Ground(gt, labels, f.ex, &ground_raw);
        Ground(m3, labels, f.ex, &ground_m3);
        Ground(f3, labels, f.ex, &ground_f3dgs);
        GroundAll(labels, f.ex, &ground_all);
      }
    }
    if (progress) progress(0.9 + 0.1 * double(vi + 1) / double(scene.test_views.size()));
  }
  // Negative captions: random class shares over random class subsets.
  for (const Field& f : fields) {
    if (f.ex.name != "siglip") continue;
    const size_t negatives = 3 * scene.test_views.size();
    for (size_t i = 0; i < negatives; ++i) {
      std::vector<double> shares(f.ex.classes + 1, 0.0);
      double total = 0.0;
      for (double& s : shares) total += s = rng.Uniform() < 0.5 ? rng.Exponential() : 0.0;
      if (total == 0.0) shares[0] = total = 1.0;
      for (double& s : shares) s /= total;
      captions.push_back(Caption(f.ex, shares));
    }
    out.retrieval_raw = Retrieval(img_raw, captions, f.ex.dim);
    out.retrieval_m3 = Retrieval(img_m3, captions, f.ex.dim);
    out.retrieval_f3dgs = Retrieval(img_f3dgs, captions, f.ex.dim);
  }
  out.grounding_raw = ScoresOf(ground_raw);
  out.grounding_m3 = ScoresOf(ground_m3);
  out.grounding_f3dgs = ScoresOf(ground_f3dgs);
  out.grounding_all = ScoresOf(ground_all);
  return out;
}

const std::vector<FieldOutcome>& SharedFieldRuns(const FieldSetting& setting, int seeds,
                                                 const std::function<void(double)>& progress) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<std::vector<FieldOutcome>>> done;
  const std::string key = setting.Describe() + ";seed=" + std::to_string(setting.seed) +
                          ";seeds=" + std::to_string(seeds);
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = done.find(key); it != done.end()) return *it->second;
  auto runs = std::make_unique<std::vector<FieldOutcome>>();
  for (int k = 0; k < seeds; ++k) {
    FieldSetting s = setting;
    s.seed += uint64_t(k);
    s.scene.seed += uint64_t(k);
    runs->push_back(RunField(s, [&](double f) {
      if (progress) progress((k + f) / seeds);
    }));
  }
  return *done.emplace(key, std::move(runs)).first->second;
}

}  // namespace cb::m3
