// File: generators/modelzoo.cpp
// -----------------------------------------------------------------------------
// ShapeImages (the 10-class procedural image task) and TrainModelZoo (a zoo
// of small MLPs and CNNs trained on it with SGD), their content hashes and
// the zoo writer; contracts in modelzoo.h.
//
// The zoo exists to give ProbeGen's predictor accuracies to rank, so the
// hyper-parameter ranges are chosen for spread, not for good models. The
// default zoo (500 models, 1000 / 500 images, up to 6 epochs, seed 1) has
// test accuracies min 0.046, quartiles 0.122 / 0.212 / 0.386, max 0.744:
// short or low-lr runs stay at chance (0.1), while MLPs spread evenly up to
// ~0.75 and CNNs given 4+ epochs at lr >~ 0.05 reach 0.3-0.6 (a CNN under
// PyTorch's default init sits on a plateau for its first ~3 epochs).
#include "generators/modelzoo.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <mutex>
#include <span>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/atomic_file.h"
#include "harness/parallel.h"
#include "harness/random.h"
#include "reference/probegen/zoo_io.h"

namespace cb::gen {
namespace {

namespace h = cb::harness;
namespace pg = cb::ref::probegen;

constexpr double kPi = 3.14159265358979323846;

// ---------------------------------------------------------------------------
// Shapes.

enum Shape {
  kDisc, kRing, kSquare, kHollowSquare, kTriangle, kPlus, kCross, kHBars, kVBars, kDiagonal
};
static_assert(kDiagonal + 1 == kShapeClasses);

double Uniform(h::Rng& rng, double lo, double hi) { return lo + (hi - lo) * rng.Uniform(); }

// Whether the point (u, v) of the shape's own frame (centre 0, "radius" 1,
// v pointing down the image) lies inside shape `label`.
bool Inside(int label, double u, double v) {
  const double au = std::abs(u), av = std::abs(v);
  const double rho2 = u * u + v * v;
  switch (label) {
    case kDisc: return rho2 <= 1.0;
    case kRing: return rho2 <= 1.0 && rho2 >= 0.5 * 0.5;
    case kSquare: return std::max(au, av) <= 0.8;
    case kHollowSquare: {
      const double m = std::max(au, av);
      return m <= 0.85 && m >= 0.45;
    }
    case kTriangle: {
      // Equilateral, circumradius 1, so each edge lies at distance 1/2 from
      // the centre along its outward normal (angles 90, 210 and 330 degrees).
      for (double deg : {90.0, 210.0, 330.0}) {
        const double a = deg * kPi / 180.0;
        if (u * std::cos(a) + v * std::sin(a) > 0.5) return false;
      }
      return true;
    }
    case kPlus:
    case kCross:  // a plus turned by about 45 degrees (the caller's angle)
      return (au <= 0.22 && av <= 0.9) || (av <= 0.22 && au <= 0.9);
    case kHBars:
    case kVBars: {
      // Five bands of 0.36 across [-0.9, 0.9]; bands 0, 2 and 4 are ink.
      const double along = label == kHBars ? v : u;
      if (au > 0.9 || av > 0.9) return false;
      const int band = std::min(4, static_cast<int>((along + 0.9) / 0.36));
      return band % 2 == 0;
    }
    case kDiagonal: return av <= 0.3 && au <= 1.1;
  }
  return false;
}

// The rotation a class is drawn at, in radians, from u ~ U(0, 1) and a
// fair coin. Shapes whose identity depends on orientation (plus vs cross,
// horizontal vs vertical bars, the stripe) only get +-15 degrees of jitter
// around their own orientation; the others turn freely.
double Angle(int label, double u, bool flip) {
  const double jitter = (2.0 * u - 1.0) * 15.0 * kPi / 180.0;
  switch (label) {
    case kSquare:
    case kHollowSquare: return u * kPi / 2.0;        // 4-fold symmetric
    case kTriangle: return u * 2.0 * kPi / 3.0;      // 3-fold symmetric
    case kPlus:
    case kHBars:
    case kVBars: return jitter;
    case kCross: return kPi / 4.0 + jitter;
    case kDiagonal: return (flip ? -kPi / 4.0 : kPi / 4.0) + jitter;
    default: return 0.0;  // disc, ring: rotation changes nothing
  }
}

void AppendU64Le(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

void AppendText(std::string& out, const std::string& text) {
  AppendU64Le(out, text.size());
  out += text;
}

// Hashes `values` as little-endian fp64 bit patterns, in chunks.
void HashDoubleArray(h::Hasher& hasher, const std::vector<double>& values) {
  std::string chunk;
  AppendU64Le(chunk, values.size());
  for (double x : values) {
    AppendU64Le(chunk, std::bit_cast<uint64_t>(x));
    if (chunk.size() >= 8 * 1024) {
      hasher.Update(chunk);
      chunk.clear();
    }
  }
  if (!chunk.empty()) hasher.Update(chunk);
}

// The shortest decimal text that parses back to exactly v.
std::string ExactText(double v) {
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, end) : std::string("?");
}

std::string JoinInts(const std::vector<int>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s;
}

// ---------------------------------------------------------------------------
// One zoo member.

// Rejecting any update that would take a parameter past this magnitude keeps
// every weight finite in fp32 and every logit finite in fp64 (bounded inputs,
// at most ~1e4 * 1024 per layer), so a diverging run stops with usable,
// finite weights instead of NaNs. Healthy runs stay below ~10.
constexpr double kMaxAbsParam = 1e4;
constexpr int kBatch = 32;
constexpr double kMomentum = 0.9;
constexpr std::array<double, 4> kWeightDecays = {0.0, 1e-4, 1e-3, 1e-2};
constexpr std::array<double, 4> kLabelNoises = {0.0, 0.1, 0.3, 0.6};
constexpr std::array<int, 3> kMlpWidths = {8, 16, 32};
constexpr std::array<int, 3> kCnnWidths = {4, 8, 16};
// Learning rates are log-uniform in [low, 0.3]. A CNN here (PyTorch init,
// global average pool, <= 192 SGD steps in the default zoo) stays on its
// initial plateau below lr ~0.03 (trial zoos: three CNNs in four at chance
// with low = 1e-3), so the CNNs' range starts higher; an MLP learns from
// ~2e-3 up.
constexpr double kLrLow = 1e-3, kCnnLrLow = 1e-2, kLrHigh = 0.3;

// The index of the largest of n values (the first on ties).
int ArgMax(const double* v, int n) {
  int best = 0;
  for (int c = 1; c < n; ++c) {
    if (v[c] > v[best]) best = c;
  }
  return best;
}

double Accuracy(const pg::ZooModel& model, const ImageSet& set) {
  const int64_t image = int64_t{set.channels} * set.size * set.size;
  const int classes = set.classes;
  std::vector<double> logits;
  pg::ZooTrace trace;  // reused between chunks, so its buffers are allocated once
  int correct = 0;
  constexpr int kChunk = 64;
  for (int begin = 0; begin < set.n; begin += kChunk) {
    const int count = std::min(kChunk, set.n - begin);
    logits.resize(static_cast<size_t>(count) * classes);
    pg::ZooForward(model, count, &set.x[static_cast<size_t>(begin * image)], logits.data(), &trace);
    for (int i = 0; i < count; ++i) {
      correct += ArgMax(&logits[static_cast<size_t>(i) * classes], classes) == set.y[begin + i] ? 1 : 0;
    }
  }
  return static_cast<double>(correct) / static_cast<double>(set.n);
}

// Trains member `index` single-threaded; every draw comes from
// Rng(seed, 100 + index) in a fixed order (hyper-parameters, label noise,
// then one shuffle per epoch), so the result depends on nothing else.
ZooMember TrainMember(const ZooParams& params, int index, const ImageSet& train, const ImageSet& test) {
  h::Rng rng(params.seed, 100 + static_cast<uint64_t>(index));
  const bool cnn = rng.UniformInt(0, 1) == 1;
  const int depth = static_cast<int>(cnn ? rng.UniformInt(2, 3) : rng.UniformInt(1, 2));
  std::vector<int> widths;
  for (int d = 0; d < depth; ++d) {
    widths.push_back(cnn ? kCnnWidths[rng.UniformInt(0, 2)] : kMlpWidths[rng.UniformInt(0, 2)]);
  }
  const double lr_low = cnn ? kCnnLrLow : kLrLow;
  const double lr = std::exp(std::log(lr_low) + rng.Uniform() * (std::log(kLrHigh) - std::log(lr_low)));
  const int epochs = static_cast<int>(rng.UniformInt(1, static_cast<uint64_t>(params.max_epochs)));
  const double weight_decay = kWeightDecays[rng.UniformInt(0, 3)];
  const double label_noise = kLabelNoises[rng.UniformInt(0, 3)];
  const uint64_t init_seed = rng.NextU64();

  // Label noise: each training label, with probability label_noise, is
  // replaced by a uniform class (which may be the true one again).
  std::vector<int> labels = train.y;
  for (int& y : labels) {
    const double u = rng.Uniform();
    const int replacement = static_cast<int>(rng.UniformInt(0, static_cast<uint64_t>(train.classes - 1)));
    if (u < label_noise) y = replacement;  // both drawn always: consumption fixed per image
  }

  const pg::ZooArch arch = cnn ? pg::MakeCnnArch(train.channels, train.size, widths, train.classes)
                               : pg::MakeMlpArch(train.channels, train.size, widths, train.classes);
  pg::ZooModel model = pg::InitZooModel(arch, init_seed);
  pg::ZooModel velocity = model;  // momentum buffers, zero at the start
  for (auto& w : velocity.w) std::fill(w.begin(), w.end(), 0.0);
  for (auto& b : velocity.b) std::fill(b.begin(), b.end(), 0.0);

  const int64_t image = int64_t{train.channels} * train.size * train.size;
  const int classes = train.classes;
  std::vector<int> order(static_cast<size_t>(train.n));
  std::vector<double> xb;      // (batch, c, s, s)
  std::vector<double> logits;  // (batch, classes)
  std::vector<double> dlogits;  // (batch, classes)
  pg::ZooTrace trace;
  pg::ZooModel grad;
  pg::ZooModel next_w = model, next_v = velocity;
  int64_t steps = 0;
  bool diverged = false;
  for (int epoch = 0; epoch < epochs && !diverged; ++epoch) {
    for (int i = 0; i < train.n; ++i) order[static_cast<size_t>(i)] = i;
    rng.Shuffle(std::span<int>(order));
    for (int begin = 0; begin < train.n && !diverged; begin += kBatch) {
      const int count = std::min(kBatch, train.n - begin);
      xb.resize(static_cast<size_t>(count * image));
      for (int i = 0; i < count; ++i) {
        const double* src = &train.x[static_cast<size_t>(order[static_cast<size_t>(begin + i)] * image)];
        std::copy(src, src + image, &xb[static_cast<size_t>(i * image)]);
      }
      logits.resize(static_cast<size_t>(count) * classes);
      dlogits.resize(logits.size());
      pg::ZooForward(model, count, xb.data(), logits.data(), &trace);

      // Mean softmax cross-entropy; dlogits = (softmax - onehot) / count.
      double loss = 0.0;
      for (int i = 0; i < count; ++i) {
        const double* z = &logits[static_cast<size_t>(i) * classes];
        double* dz = &dlogits[static_cast<size_t>(i) * classes];
        double zmax = z[0];
        for (int c = 1; c < classes; ++c) zmax = std::max(zmax, z[c]);
        double sum = 0.0;
        for (int c = 0; c < classes; ++c) sum += std::exp(z[c] - zmax);
        const int y = labels[static_cast<size_t>(order[static_cast<size_t>(begin + i)])];
        loss += (std::log(sum) + zmax - z[y]) / count;
        for (int c = 0; c < classes; ++c) {
          dz[c] = (std::exp(z[c] - zmax) / sum - (c == y ? 1.0 : 0.0)) / count;
        }
      }
      if (!std::isfinite(loss)) {
        diverged = true;  // the current weights are finite (checked when set); keep them
        break;
      }
      pg::ZooBackward(model, count, trace, dlogits.data(), &grad, nullptr);

      // SGD as torch.optim.SGD(momentum=0.9, weight_decay=wd): g += wd * w
      // (biases included, as PyTorch does by default), v = 0.9 v + g,
      // w -= lr * v. Written to next_* first, so a step that would leave the
      // safe range is dropped whole and training stops there.
      for (size_t l = 0; l < model.w.size() && !diverged; ++l) {
        for (int t = 0; t < 2 && !diverged; ++t) {
          const std::vector<double>& w = t == 0 ? model.w[l] : model.b[l];
          const std::vector<double>& g = t == 0 ? grad.w[l] : grad.b[l];
          const std::vector<double>& v = t == 0 ? velocity.w[l] : velocity.b[l];
          std::vector<double>& nw = t == 0 ? next_w.w[l] : next_w.b[l];
          std::vector<double>& nv = t == 0 ? next_v.w[l] : next_v.b[l];
          for (size_t q = 0; q < w.size(); ++q) {
            nv[q] = kMomentum * v[q] + g[q] + weight_decay * w[q];
            nw[q] = w[q] - lr * nv[q];
            if (!(std::abs(nw[q]) <= kMaxAbsParam)) {  // NaN fails this too
              diverged = true;
              break;
            }
          }
        }
      }
      if (diverged) break;
      std::swap(model.w, next_w.w);
      std::swap(model.b, next_w.b);
      std::swap(velocity.w, next_v.w);
      std::swap(velocity.b, next_v.b);
      ++steps;
    }
  }

  // What a zoo file stores; the accuracy is measured on exactly these values.
  for (auto& w : model.w) for (double& v : w) v = static_cast<double>(static_cast<float>(v));
  for (auto& b : model.b) for (double& v : b) v = static_cast<double>(static_cast<float>(v));

  ZooMember member;
  member.test_accuracy = Accuracy(model, test);
  member.model = std::move(model);
  member.hparams = {
      {"family", cnn ? "cnn" : "mlp"},
      {"widths", JoinInts(widths)},
      {"lr", ExactText(lr)},
      {"epochs", std::to_string(epochs)},
      {"weight_decay", ExactText(weight_decay)},
      {"label_noise", ExactText(label_noise)},
      {"init_seed", std::to_string(init_seed)},
      {"steps", std::to_string(steps)},
      {"diverged", diverged ? "1" : "0"},
  };
  return member;
}

}  // namespace

ImageSet ShapeImages(uint64_t seed, int n, int size) {
  if (n < 1 || size < 8) throw std::invalid_argument("ShapeImages: needs n >= 1 and size >= 8");
  h::Rng rng(seed, 90);
  ImageSet set;
  set.n = n;
  set.channels = 1;
  set.size = size;
  set.classes = kShapeClasses;
  set.x.resize(static_cast<size_t>(n) * size * size);
  set.y.resize(static_cast<size_t>(n));
  const double s = size;
  std::array<int, kShapeClasses> block{};
  for (int i = 0; i < n; ++i) {
    // Labels come in blocks of 10, each a random permutation of the classes:
    // every class count is within one of n / 10, and the order is random.
    if (i % kShapeClasses == 0) {
      for (int c = 0; c < kShapeClasses; ++c) block[static_cast<size_t>(c)] = c;
      rng.Shuffle(std::span<int>(block));
    }
    const int label = block[static_cast<size_t>(i % kShapeClasses)];
    set.y[static_cast<size_t>(i)] = label;

    // The ranges were set by trial zoos in the default budget (1000 images,
    // up to 6 epochs): with centres anywhere in the middle 40%, radii from
    // 0.2 s, either polarity and contrast down to 0.3, almost no model got
    // past 0.3 accuracy; with these the best reach ~0.75. Shapes are always
    // brighter than their background.
    const double radius = s * Uniform(rng, 0.3, 0.45);
    const double cx = s * Uniform(rng, 0.4, 0.6);
    const double cy = s * Uniform(rng, 0.4, 0.6);
    const double angle_u = rng.Uniform();  // separate statements: argument order is unspecified
    const bool mirror = rng.UniformInt(0, 1) == 1;
    const double angle = Angle(label, angle_u, mirror);
    const double ink = Uniform(rng, 1.0, 1.6);             // the contrast (clipped at 1 below)
    const double background = Uniform(rng, -0.8, -0.5);
    const double slope = Uniform(rng, 0.0, 0.1);           // a background ramp across the image
    const double slope_dir = Uniform(rng, 0.0, 2.0 * kPi);
    const double noise = Uniform(rng, 0.02, 0.25);         // pixel noise sigma

    const double ca = std::cos(angle), sa = std::sin(angle);
    const double gx = slope * std::cos(slope_dir), gy = slope * std::sin(slope_dir);
    double* img = &set.x[static_cast<size_t>(i) * size * size];  // (1, size, size)
    for (int py = 0; py < size; ++py) {
      for (int px = 0; px < size; ++px) {
        // Coverage from 2x2 sub-pixel samples: soft edges, so a shape's
        // pixels do not flip between all-or-nothing at small scales.
        int hits = 0;
        for (int sy = 0; sy < 2; ++sy) {
          for (int sx = 0; sx < 2; ++sx) {
            const double dx = px + 0.25 + 0.5 * sx - cx;
            const double dy = py + 0.25 + 0.5 * sy - cy;
            const double u = (ca * dx + sa * dy) / radius;
            const double v = (-sa * dx + ca * dy) / radius;
            hits += Inside(label, u, v) ? 1 : 0;
          }
        }
        const double ramp = (gx * (px - s / 2) + gy * (py - s / 2)) / (s / 2);
        const double value = background + ramp + ink * (hits / 4.0) + noise * rng.Normal();
        img[py * size + px] = std::clamp(value, -1.0, 1.0);
      }
    }
  }
  return set;
}

harness::Hash128 HashImageSet(const ImageSet& set) {
  h::Hasher hasher;
  std::string header;
  AppendText(header, "shape_images");
  AppendU64Le(header, kShapeImagesVersion);
  for (int v : {set.n, set.channels, set.size, set.classes}) AppendU64Le(header, static_cast<uint64_t>(v));
  hasher.Update(header);
  HashDoubleArray(hasher, set.x);
  std::string labels;
  AppendU64Le(labels, set.y.size());
  for (int y : set.y) AppendU64Le(labels, static_cast<uint64_t>(y));
  hasher.Update(labels);
  return hasher.Digest();
}

std::string ZooParams::Canonical() const {
  return "models=" + std::to_string(models) + ";train=" + std::to_string(train_images) +
         ";test=" + std::to_string(test_images) + ";max_epochs=" + std::to_string(max_epochs) +
         ";seed=" + std::to_string(seed);
}

ModelZoo TrainModelZoo(const ZooParams& params, int threads, const std::function<void(int, int)>& progress) {
  if (params.models < 1 || params.train_images < 1 || params.test_images < 1 || params.max_epochs < 1) {
    throw std::invalid_argument("TrainModelZoo: needs models, train_images, test_images, max_epochs >= 1 (got " +
                                params.Canonical() + ")");
  }
  const ImageSet train = ShapeImages(params.seed, params.train_images);
  const ImageSet test = ShapeImages(params.seed + 1, params.test_images);
  ModelZoo zoo;
  zoo.params = params;
  zoo.members.resize(static_cast<size_t>(params.models));

  // One part per thread, each taking the next untrained model: members
  // differ in cost by ~100x (a 1-epoch MLP against a 6-epoch 3-conv CNN), so
  // fixed contiguous ranges would leave threads idle. Which thread trains a
  // model changes nothing in it.
  std::atomic<int> next{0};
  std::mutex progress_mutex;
  int done = 0;
  const int parts = h::ParallelParts(params.models, threads);
  h::ParallelFor(parts, parts, [&](int, int64_t, int64_t) {
    for (int i = next++; i < params.models; i = next++) {
      zoo.members[static_cast<size_t>(i)] = TrainMember(params, i, train, test);
      if (progress) {
        std::lock_guard<std::mutex> lock(progress_mutex);
        progress(++done, params.models);
      }
    }
  });
  zoo.hash = HashModelZoo(zoo);
  return zoo;
}

harness::Hash128 HashModelZoo(const ModelZoo& zoo) {
  h::Hasher hasher;
  std::string header;
  AppendText(header, "modelzoo");
  AppendU64Le(header, kModelZooVersion);
  AppendU64Le(header, kShapeImagesVersion);  // the zoo is trained on these images
  AppendText(header, zoo.params.Canonical());
  AppendU64Le(header, zoo.members.size());
  hasher.Update(header);
  for (const ZooMember& member : zoo.members) {
    std::string head;
    AppendText(head, pg::ArchToString(member.model.arch));
    AppendU64Le(head, std::bit_cast<uint64_t>(member.test_accuracy));
    AppendU64Le(head, member.hparams.size());
    for (const auto& [key, value] : member.hparams) {
      AppendText(head, key);
      AppendText(head, value);
    }
    hasher.Update(head);
    for (size_t l = 0; l < member.model.w.size(); ++l) {
      HashDoubleArray(hasher, member.model.w[l]);
      HashDoubleArray(hasher, member.model.b[l]);
    }
  }
  return hasher.Digest();
}

void WriteModelZoo(const ModelZoo& zoo, const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create '" + dir + "': " + ec.message());
  // At least 4 digits, more for a zoo of 10000 or more, so that the byte-wise
  // name order ReadZooDir uses is the index order.
  const int digits = std::max<int>(4, static_cast<int>(std::to_string(zoo.members.size() - 1).size()));
  std::vector<std::string> names;
  for (size_t i = 0; i < zoo.members.size(); ++i) {
    std::string index = std::to_string(i);
    index.insert(0, static_cast<size_t>(std::max<int>(0, digits - static_cast<int>(index.size()))), '0');
    names.push_back("model_" + index + ".safetensors");
  }
  // ReadZooDir reads every *.safetensors in the folder, so a model left from
  // another zoo would silently join this one.
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (entry.path().extension() == ".safetensors" && std::find(names.begin(), names.end(), name) == names.end()) {
      throw std::runtime_error("cannot write the zoo to '" + dir + "': it holds '" + name +
                               "', which is not part of this zoo (use an empty folder)");
    }
  }
  nlohmann::json files = nlohmann::json::array();
  for (size_t i = 0; i < zoo.members.size(); ++i) {
    const ZooMember& member = zoo.members[i];
    pg::WriteZooModel((fs::path(dir) / names[i]).string(), member.model, member.test_accuracy, member.hparams);
    files.push_back(names[i]);
  }
  const nlohmann::json manifest = {
      {"generator", "modelzoo"},
      {"version", kModelZooVersion},
      {"shape_images_version", kShapeImagesVersion},
      {"params",
       {{"models", zoo.params.models},
        {"train_images", zoo.params.train_images},
        {"test_images", zoo.params.test_images},
        {"max_epochs", zoo.params.max_epochs},
        {"seed", zoo.params.seed}}},
      {"canonical_params", zoo.params.Canonical()},
      {"count", zoo.members.size()},
      {"hash", zoo.hash.Hex()},
      {"files", files},
  };
  // Written last: a folder with a manifest holds every model it lists.
  h::WriteFileAtomically((fs::path(dir) / "manifest.json").string(), manifest.dump(2) + "\n");
}

}  // namespace cb::gen
