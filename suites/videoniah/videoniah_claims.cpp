// File: suites/videoniah/videoniah_claims.cpp
// -----------------------------------------------------------------------------
// VideoNIAH / VNBench claims (Zhao et al., ICLR 2025); ids, criteria and
// settings are listed in suites/videoniah/README.md.
//   V1-V6  prerequisites: the benchmark's construction, checked on our
//          generator and scorer: determinism, answer keys, letter balance,
//          needle visibility under K-frame sampling, an oracle that answers
//          from the frames alone, and the chance level of the 4-try rule
//   P1-P2  the paper's model numbers, decided on VNBench itself (the paper's
//          number +- 0.1): UNMEASURABLE here. With an endpoint
//          (CLAIMBENCH_ENDPOINT + CLAIMBENCH_MODEL) the model is run on our
//          procedural items and its scores recorded, but our items are not
//          VNBench (other videos, other needles), so nothing comparable exists.
//   P3     Cnt-E2 <= 14.6 for every model: a bound on the task, judged on our
//          cnt_edit2 items with an endpoint (Wilson interval over items).
//   P4     the released LLaVA-OV-7B result file scores 51.8: judged on that
//          file, named by CLAIMBENCH_VNBENCH_PREDICTIONS.
// Criteria and thresholds were fixed before the first run; P1, P2, P4 and
// P3's item count were changed in issue 49 (their criterion_reason).
#include <unistd.h>

#include <array>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "generators/videoniah.h"
#include "harness/claim.h"
#include "harness/hash.h"
#include "harness/random.h"
#include "harness/stats.h"
#include "harness/strings.h"
#include "reference/vnbench/vnbench.h"
#include "suites/videoniah/media.h"
#include "suites/videoniah/video_io.h"
#include "suites/videoniah/vnbench_eval.h"

namespace cb::videoniah {
namespace {

namespace h = cb::harness;
namespace gv = cb::gen::videoniah;
namespace vb = cb::ref::vnbench;

CB_CLAIM_DEFAULTS({.paper = "VideoNIAH / VNBench (Zhao et al.)", .paper_setting = "VNBench release"});

gv::Params ClaimParams(const h::ClaimContext& ctx) {
  gv::Params p;
  p.seed = ctx.seed();
  p.width = ctx.ByProfile(192, 320, 640);
  p.height = ctx.ByProfile(108, 180, 360);
  p.fps = ctx.ByProfile(4, 4, 8);
  p.min_seconds = ctx.ByProfile(4, 8, 10);
  p.max_seconds = ctx.ByProfile(8, 16, 60);
  p.needle_seconds = ctx.ByProfile(1.0, 1.0, 1.5);
  p.sample_frames = 16;
  return p;
}

nlohmann::json Setting(const gv::Params& p, int per_task) {
  nlohmann::json j = gv::CanonicalParams(p);
  j["items_per_task"] = per_task;
  j["generator_version"] = gv::kVideoNiahVersion;
  return j;
}

// k successes of n in %, with the Wilson 95% interval over the n items.
h::Estimate Percent(int64_t k, int64_t n) {
  const h::Interval ci = h::WilsonInterval(static_cast<double>(k), static_cast<double>(n));
  return h::Estimate::Ci(n ? 100.0 * k / n : 0.0, 100 * ci.low, 100 * ci.high, h::IntervalMethod::kWilson, n);
}

// Records ok / n as an exact fraction row and returns it (exactly 1 iff ok == n > 0).
h::Estimate Fraction(h::ClaimContext& ctx, const std::string& case_name, const std::string& metric, int64_t ok,
                     int64_t n, const nlohmann::json& params, const std::string& output_hash) {
  const double v = n ? static_cast<double>(ok) / n : 0.0;
  ctx.RecordExact({.case_name = case_name, .backend = "cpu", .params = params, .metric = metric,
                   .unit = "fraction", .direction = "higher", .value = v, .n = n,
                   .input_hash = h::Xxh3_128(params.dump()).Hex(), .output_hash = output_hash});
  return h::Estimate::Exact(v);
}

void RecordScoreRow(h::ClaimContext& ctx, const h::Result& r) {
  r.ci_low ? ctx.RecordEstimate(r) : ctx.RecordExact(r);
}

// V1: two independent renderers give the same content hash for every item;
// and each item written as lossless MP4 (the `gen videoniah` default) decodes
// to exactly the I420 frames written (a second row; skipped, with a note,
// when this libavcodec has no libx264).
h::Outcome Determinism(h::ClaimContext& ctx) {
  const gv::Params p = ClaimParams(ctx);
  const int per_task = ctx.ByProfile(1, 1, 3);
  gv::Renderer a(p), b(p);
  int64_t ok = 0, n = 0, mp4_ok = 0;
  h::Hasher all, all_mp4;
  const bool mp4 = H264EncoderAvailable();
  const std::string mp4_path =
      (std::filesystem::temp_directory_path() / ("cb_claim_videoniah_" + std::to_string(::getpid()) + ".mp4")).string();
  for (gv::Task t : gv::AllTasks()) {
    for (int i = 0; i < per_task; ++i) {
      const gv::Item it = gv::MakeItem(t, i, p);
      const std::string ha = gv::ContentHash(a, it);
      const std::string hb = gv::ContentHash(b, gv::MakeItem(t, i, p));
      ok += ha == hb;
      ++n;
      all.Update(ha);
      if (mp4) {
        h::Hasher written;
        std::string i420;
        Mp4Writer w(mp4_path, p.width, p.height, p.fps);
        gv::RenderItem(a, it, [&](int, const gv::Frame& fr) {
          RgbToI420(fr, &i420);
          written.Update(i420);
          w.WriteI420(i420);
        });
        w.Close();
        const DecodedHash d = HashDecodedI420(mp4_path);
        mp4_ok += d.hex == written.Digest().Hex() && d.frames == it.total_frames;
        all_mp4.Update(d.hex);
      }
      ctx.Progress(static_cast<double>(n) / (9.0 * per_task));
    }
  }
  std::error_code ec;
  std::filesystem::remove(mp4_path, ec);
  std::string setting = std::to_string(n) + " items rendered twice by separate renderers";
  const nlohmann::json params = Setting(p, per_task);
  if (mp4) {
    ctx.RecordExact({.case_name = "determinism", .backend = "cpu", .params = params,
                     .metric = "lossless_mp4_decodes_to_written_frames_fraction", .unit = "fraction",
                     .direction = "higher", .value = static_cast<double>(mp4_ok) / n, .n = n,
                     .input_hash = h::Xxh3_128(params.dump()).Hex(), .output_hash = all_mp4.Digest().Hex()});
    setting += "; each also as lossless MP4 (libx264 qp 0), decoded";
  } else {
    setting += "; MP4 round trip not checked (this libavcodec has no libx264)";
  }
  return ctx.Judge({Fraction(ctx, "determinism", "identical_content_hash_fraction", ok, n, params, all.Digest().Hex()),
                    h::Estimate::Check(!mp4 || mp4_ok == n)},
                   setting);
}

// V2: 4 distinct options, one correct, same set in all 4 tries; orderings are
// permutations of the truth; counts in range.
h::Outcome KeyIntegrity(h::ClaimContext& ctx) {
  const gv::Params p = ClaimParams(ctx);
  const int per_task = ctx.ByProfile(50, 300, 150);
  int64_t ok = 0, n = 0;
  h::Hasher all;
  for (gv::Task t : gv::AllTasks()) {
    const std::string key(gv::TaskKey(t));
    for (int i = 0; i < per_task; ++i) {
      const gv::Item it = gv::MakeItem(t, i, p);
      const std::multiset<std::string> set0(it.tries[0].options.begin(), it.tries[0].options.end());
      bool good = std::set<std::string>(set0.begin(), set0.end()).size() == 4;
      for (const auto& r : it.tries)
        good = good && std::multiset<std::string>(r.options.begin(), r.options.end()) == set0 &&
               r.options[r.gt_index] == it.gt;
      auto sorted_parts = [](const std::string& s) {
        std::multiset<std::string> parts;
        size_t start = 0;
        for (size_t k; (k = s.find(", ", start)) != std::string::npos; start = k + 2) parts.insert(s.substr(start, k - start));
        parts.insert(s.substr(start));
        return parts;
      };
      for (const auto& o : it.tries[0].options) {
        if (key.rfind("ord", 0) == 0) good = good && sorted_parts(o) == sorted_parts(it.gt) && sorted_parts(o).size() == 4;
        if (t == gv::Task::kCntEdit2) good = good && std::stoi(o) >= 1 && std::abs(std::stoi(o) - std::stoi(it.gt)) <= 3;
        if (t == gv::Task::kCntEdit1 || t == gv::Task::kCntInsert1) good = good && std::stoi(o) >= 1 && std::stoi(o) <= 6;
      }
      if (t == gv::Task::kCntEdit2) good = good && std::stoi(it.gt) >= 4 && std::stoi(it.gt) <= 16;
      ok += good;
      ++n;
      for (int tr = 0; tr < 4; ++tr) all.Update(it.Annotation(tr, p.fps).dump());
    }
  }
  return ctx.Judge({Fraction(ctx, "answer_keys", "valid_key_fraction", ok, n, Setting(p, per_task), all.Digest().Hex())},
                   std::to_string(n) + " items, 4 tries each");
}

// V3: answer letters uniform per subtask (chi-square, 3 df); the smallest
// p-value over the nine subtasks must exceed 0.001 / 9 (Bonferroni).
h::Outcome LetterBalance(h::ClaimContext& ctx) {
  const gv::Params p = ClaimParams(ctx);
  const int per_task = ctx.ByProfile(100, 400, 150);
  double min_p = 1;
  std::string worst;
  for (gv::Task t : gv::AllTasks()) {
    std::array<int64_t, 4> counts{};
    for (int i = 0; i < per_task; ++i)
      for (const auto& r : gv::MakeItem(t, i, p).tries) ++counts[r.gt_index];
    const double e = per_task;  // 4 * per_task answers / 4 letters
    double chi2 = 0;
    for (int64_t c : counts) chi2 += (c - e) * (c - e) / e;
    const double pv = h::ChiSquareSurvival(chi2, 3);
    nlohmann::json params = Setting(p, per_task);
    params["task"] = gv::TaskKey(t);
    ctx.RecordExact({.case_name = "letter_balance", .backend = "cpu", .params = params, .metric = "chi2_p_value",
                     .unit = "p", .value = pv, .n = 4 * per_task, .input_hash = h::Xxh3_128(params.dump()).Hex(),
                     .output_hash = h::Xxh3_128(nlohmann::json(counts).dump()).Hex()});
    if (pv < min_p) min_p = pv, worst = std::string(gv::TaskKey(t));
  }
  return ctx.Judge({h::Estimate::Exact(min_p)},
                   std::to_string(per_task) + " items x 4 tries per subtask; smallest p at " + worst);
}

// V4: every needle covers at least one of the K uniformly sampled frames.
h::Outcome Visibility(h::ClaimContext& ctx) {
  const gv::Params base = ClaimParams(ctx);
  const int per_task = ctx.ByProfile(30, 150, 150);
  int64_t ok = 0, n = 0;
  for (int k : {8, 16, 32}) {
    gv::Params p = base;
    p.sample_frames = k;
    for (gv::Task t : gv::AllTasks()) {
      for (int i = 0; i < per_task; ++i) {
        const gv::Item it = gv::MakeItem(t, i, p);
        const auto idx = gv::SampledFrameIndices(it.total_frames, k);
        for (int s : it.needle_start) {
          bool seen = false;
          for (int f : idx) seen = seen || (f >= s && f < s + it.needle_frames);
          ok += seen;
          ++n;
        }
      }
    }
  }
  return ctx.Judge({Fraction(ctx, "needle_visibility", "visible_needle_fraction", ok, n, Setting(base, per_task), "")},
                   std::to_string(n) + " needles, K in {8, 16, 32}");
}

// V5: the oracle answers every try from the rendered frames alone.
h::Outcome OracleSolves(h::ClaimContext& ctx) {
  const gv::Params p = ClaimParams(ctx);
  const int per_task = ctx.ByProfile(1, 2, 10);
  gv::Renderer gen(p), solver(p);
  std::vector<vb::Prediction> preds;
  int done = 0;
  for (gv::Task t : gv::AllTasks()) {
    for (int i = 0; i < per_task; ++i) {
      const gv::Item it = gv::MakeItem(t, i, p);
      std::vector<gv::Oracle> oracles;
      for (int tr = 0; tr < 4; ++tr)
        oracles.emplace_back(solver, gv::OracleInput{t, it.question, it.tries[tr].options}, gv::Renderer::VideoSeed(it, p));
      gv::RenderItem(gen, it, [&](int f, const gv::Frame& fr) {
        for (auto& o : oracles) o.Observe(f, fr);
      });
      for (int tr = 0; tr < 4; ++tr) {
        const int a = oracles[tr].Answer();
        preds.push_back({it.video + "_" + std::to_string(tr), a < 0 ? "none" : std::string(1, char('A' + a)),
                         it.tries[tr].gt_index, std::string(gv::TaskKey(t))});
      }
      ctx.Progress(++done / (9.0 * per_task));
    }
  }
  const vb::Scores s = vb::Score(preds, vb::Mode::kStrict);
  const nlohmann::json params = Setting(p, per_task);
  for (const auto& r : ScoreRows(s, vb::Mode::kStrict, params, h::Xxh3_128(params.dump()).Hex())) {
    h::Result row = r;
    row.case_name = "oracle_" + r.case_name;
    RecordScoreRow(ctx, row);
  }
  int64_t items = 0;
  for (const auto& [k, ts] : s.tasks) items += ts.items;
  // The mean of the subtasks' 4-try accuracies is exactly 100 iff every item is solved.
  return ctx.Judge({h::Estimate::Exact(s.overall_task_mean)},
                   std::to_string(items) + " items x 4 tries at " + std::to_string(p.width) + "x" +
                       std::to_string(p.height) + ", strict scorer");
}

// V6: a uniformly random predictor scores (1/4)^4 = 0.39% under the 4-try
// rule; its Wilson 95% interval must lie within [0.5, 1.5] x chance.
h::Outcome RandomChance(h::ClaimContext& ctx) {
  const gv::Params p = ClaimParams(ctx);
  const int per_task = ctx.ByProfile(500, 4000, 10000);
  h::Rng rng(ctx.seed(), 0x7a6e);
  std::vector<vb::Prediction> preds;
  for (gv::Task t : gv::AllTasks()) {
    for (int i = 0; i < per_task; ++i) {
      const gv::Item it = gv::MakeItem(t, i, p);
      for (int tr = 0; tr < 4; ++tr)
        preds.push_back({it.video + "_" + std::to_string(tr), std::string(1, char('A' + rng.UniformInt(0, 3))),
                         it.tries[tr].gt_index, std::string(gv::TaskKey(t))});
    }
    ctx.Progress(static_cast<double>(preds.size()) / (36.0 * per_task));
  }
  const vb::Scores s = vb::Score(preds, vb::Mode::kStrict);
  int64_t items = 0, correct = 0, tries = 0, tries_ok = 0;
  for (const auto& [k, ts] : s.tasks) items += ts.items, correct += ts.items_correct, tries += ts.tries, tries_ok += ts.tries_correct;
  const nlohmann::json params = Setting(p, per_task);
  const std::string in = h::Xxh3_128(params.dump()).Hex();
  const h::Estimate four = Percent(correct, items), single = Percent(tries_ok, tries);
  for (const auto& [metric, e, k, n] : {std::tuple{"four_try_accuracy", four, correct, items},
                                        {"single_try_accuracy", single, tries_ok, tries}}) {
    ctx.RecordEstimate({.case_name = "random_predictor", .backend = "cpu", .params = params, .metric = metric,
                        .unit = "%", .value = e.value, .ci_low = e.ci_low, .ci_high = e.ci_high, .n = n,
                        .input_hash = in, .output_hash = h::Xxh3_128(std::to_string(k)).Hex()});
  }
  return ctx.Judge({four}, h::StrFormat("%lld items x 4 tries, uniform random letters; single-try %.2f%%",
                                        static_cast<long long>(items), single.value));
}

// P1-P3: the model on our items, when an endpoint is configured. P3 asks only
// cnt_edit2 items (`items` of them), the others every subtask.
h::Outcome ModelOnEndpoint(h::ClaimContext& ctx, const std::string& which, int items) {
  const char* model = std::getenv("CLAIMBENCH_MODEL");
  if (model == nullptr || *model == '\0') {
    return h::Unmeasurable("CLAIMBENCH_ENDPOINT is set but CLAIMBENCH_MODEL (the model name) is not");
  }
  const bool count_only = which == "cnt_edit2";
  const EndpointEvalConfig c{.client = {.endpoint = std::getenv("CLAIMBENCH_ENDPOINT")}, .model = model,
                             .frames = 16, .gen = ClaimParams(ctx),
                             .tasks = count_only ? std::vector<gv::Task>{gv::Task::kCntEdit2} : gv::AllTasks(),
                             .count = items};
  const auto out = EvaluateEndpoint(c, nullptr, [&](int d, int n) { ctx.Progress(static_cast<double>(d) / n); });
  nlohmann::json params = Setting(c.gen, c.count);
  params["endpoint"] = c.client.endpoint;
  params["model"] = c.model;
  params["frames"] = c.frames;
  params["max_tokens"] = c.max_tokens;
  params["temperature"] = 0;
  if (count_only) params["tasks"] = "cnt_edit2";
  for (auto mode : {vb::Mode::kStrict, vb::Mode::kPaperCompatible})
    for (const auto& r : ScoreRows(mode == vb::Mode::kStrict ? out.strict : out.paper, mode, params, ""))
      RecordScoreRow(ctx, r);
  std::string setting = std::string("model ") + model + " on " + std::to_string(out.items) +
                        " procedural items, K = 16, " + std::to_string(out.items_failed) + " items without an answer";
  if (count_only) {
    // No cnt_edit2 item answered: 0 of 0, which the Wilson leaf calls too few trials (INCONCLUSIVE).
    const auto it = out.strict.tasks.find("cnt_edit2");
    const bool any = it != out.strict.tasks.end() && it->second.items > 0;
    if (!any) setting += "; no cnt_edit2 item answered";
    return ctx.Judge({any ? Percent(it->second.items_correct, it->second.items) : Percent(0, 0)}, setting);
  }
  // The rows above are what was measured; the paper's number is over VNBench's own clips, which our items are
  // not (procedural haystacks, emoji needles), so nothing comparable exists to judge.
  return h::Unmeasurable(h::StrFormat("our procedural items are not VNBench; the paper's number needs the real "
                                      "benchmark (measured here, recorded: overall %.1f)",
                                      out.strict.overall_task_mean),
                         setting);
}

// P4: the released LLaVA-OV-7B result file (eval.py's input format), named by
// CLAIMBENCH_VNBENCH_PREDICTIONS, scored as eval.py does (paper-compatible
// mode: the 51.8 was recomputed that way from the release).
constexpr size_t kReleasedRows = 5400;  // 1,350 items x 4 tries

h::Outcome ReleasedFile(h::ClaimContext& ctx) {
  const char* path = std::getenv("CLAIMBENCH_VNBENCH_PREDICTIONS");
  if (path == nullptr || *path == '\0') {
    return h::Unmeasurable("needs the released LLaVA-OV-7B VNBench result file: set CLAIMBENCH_VNBENCH_PREDICTIONS "
                           "(our procedural items are not VNBench, so an endpoint cannot stand in for it)");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return h::Unmeasurable(std::string("CLAIMBENCH_VNBENCH_PREDICTIONS=") + path + ": cannot read");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  std::vector<vb::Prediction> preds;
  vb::Scores strict, paper;
  try {
    preds = vb::ParsePredictions(text, path);
    strict = vb::Score(preds, vb::Mode::kStrict);
    paper = vb::Score(preds, vb::Mode::kPaperCompatible);
  } catch (const std::exception& e) {
    return h::Unmeasurable(e.what());
  }
  const std::string hash = h::Xxh3_128(text).Hex();
  ctx.UseInput({.role = "predictions", .name = std::filesystem::path(path).filename().string(), .content_hash = hash});
  const nlohmann::json params = {{"predictions", std::filesystem::path(path).filename().string()},
                                 {"rows", preds.size()}};
  for (auto mode : {vb::Mode::kStrict, vb::Mode::kPaperCompatible})
    for (const auto& r : ScoreRows(mode == vb::Mode::kStrict ? strict : paper, mode, params, hash))
      RecordScoreRow(ctx, r);
  const std::string setting = h::StrFormat("%s: %zu rows, eval.py's rule (paper-compatible); strict %.1f",
                                           path, preds.size(), strict.overall_task_mean);
  if (preds.size() != kReleasedRows || paper.tasks.size() != 9) {
    return h::Unmeasurable(h::StrFormat("the released file has 5,400 rows over 9 subtasks; this one has %zu rows "
                                        "over %zu (paper-compatible %.1f, recorded)",
                                        preds.size(), paper.tasks.size(), paper.overall_task_mean),
                           setting);
  }
  return ctx.Judge({h::Estimate::Exact(paper.overall_task_mean)}, setting);
}

const char* kVnbenchReason =
    "was Holds(..., INCONCLUSIVE), a verdict that could not change (issue 49 item 1); now the paper's number +- "
    "0.1 on VNBench, and UNMEASURABLE on our procedural items, which are not VNBench";
const h::Requirements kEndpoint{.endpoint = true};

CB_REGISTER_CLAIM(kDeterminism,
                  {.id = "videoniah.V1", .kind = h::ClaimKind::kPrerequisite, .section = "§3 (construction)",
                   .statement = "the generated benchmark is reproducible: same seed and version give identical items "
                                "and frames (and the lossless MP4 files decode to exactly those frames)",
                   .paper_value = "(construction property; the release ships fixed files)",
                   .paper_setting = "VNBench release, 1,350 items x 4 tries",
                   .metric = "fraction of items whose content hash repeats",
                   .criterion = h::AllOf({h::Equals(1, "fraction of items whose content hash repeats"),
                                          h::Holds("every lossless MP4 decodes to the frames written (when "
                                                   "libx264 is present)")})},
                  Determinism);

CB_REGISTER_CLAIM(kKeys,
                  {.id = "videoniah.V2", .kind = h::ClaimKind::kPrerequisite, .section = "§3, Table 1 (release)",
                   .statement = "every item has 4 distinct options with one correct, the same set in all 4 tries; "
                                "ordering options are permutations of the truth; counts 1-6 (cnt_edit2: 4-16, "
                                "distractors within +-3)",
                   .paper_value = "by construction (release format)",
                   .metric = "fraction of items with a valid key",
                   .criterion = h::Equals(1, "fraction of items with a valid key")},
                  KeyIntegrity);

CB_REGISTER_CLAIM(kBalance,
                  {.id = "videoniah.V3", .kind = h::ClaimKind::kPrerequisite, .section = "§3 (4 shuffles)",
                   .statement = "the correct letter is uniform over A-D in every subtask",
                   .paper_value = "4 independent shuffles per item",
                   .metric = "smallest chi-square p-value over the 9 subtasks",
                   .criterion = h::AtLeast(0.001 / 9, "smallest chi-square p (0.001 / 9, Bonferroni)")},
                  LetterBalance);

CB_REGISTER_CLAIM(kVisibility,
                  {.id = "videoniah.V4", .kind = h::ClaimKind::kPrerequisite, .section = "§4 (evaluation)",
                   .statement = "every needle is visible to a model that samples K uniform frames",
                   .paper_value = "reference inference: 64 uniform frames",
                   .metric = "fraction of needles covering a sampled frame",
                   .criterion = h::Equals(1, "fraction of needles covering a sampled frame, K in {8, 16, 32}")},
                  Visibility);

CB_REGISTER_CLAIM(kOracle,
                  {.id = "videoniah.V5", .kind = h::ClaimKind::kPrerequisite, .section = "§3",
                   .statement = "every answer follows from the video alone (needles are unrelated to the haystack)",
                   .paper_value = "by construction",
                   .metric = "oracle 4-try accuracy, % (answers from rendered frames only)",
                   .criterion = h::Equals(100, "oracle 4-try accuracy, %")},
                  OracleSolves);

CB_REGISTER_CLAIM(kChance,
                  {.id = "videoniah.V6", .kind = h::ClaimKind::kPrerequisite, .section = "§4 (4-try rule)",
                   .statement = "our 4-try scorer gives uniform random letters (1/4)^4 = 0.39% on our items (a "
                                "check of the scorer and the shuffles: it holds by construction)",
                   .paper_value = "0.39%",
                   .paper_setting = "4 shuffles per item, all must be right",
                   .metric = "4-try accuracy of a uniform random predictor, % [Wilson 95%]",
                   .criterion = h::Within(0.5 * vb::kChanceFourTry, 1.5 * vb::kChanceFourTry,
                                          "4-try accuracy, Wilson 95% CI (0.5-1.5 x chance)")},
                  RandomChance);

CB_REGISTER_CLAIM(kGemini,
                  {.id = "videoniah.P1", .section = "Table 2",
                   .statement = "Gemini 1.5 Pro leads VNBench",
                   .paper_value = "overall 66.7; Ret E/I1/I2 100/96.0/76.0, Ord 90.7/95.3/32.7, Cnt E1/E2/I "
                                  "60.7/7.3/42.0",
                   .paper_setting = "VNBench, 4-try accuracy",
                   .metric = "overall 4-try accuracy (mean of 9 subtasks), % on VNBench",
                   .criterion = h::Within(66.6, 66.8, "overall 4-try accuracy on VNBench, % (paper 66.7 +- 0.1)"),
                   .criterion_reason = kVnbenchReason,
                   .requirements = kEndpoint},
                  [](h::ClaimContext& ctx) { return ModelOnEndpoint(ctx, "overall", ctx.ByProfile(1, 4, 150)); });

CB_REGISTER_CLAIM(kGpt4o,
                  {.id = "videoniah.P2", .section = "Table 2",
                   .statement = "GPT-4o scores second on VNBench",
                   .paper_value = "overall 64.4; Ret 100/98.0/87.3, Ord 88.4/86.6/45.2, Cnt 36.8/0.0/36.1; "
                                  "GPT-4-turbo 48.9, ST-LLM 22.7, LLaVA-NeXT-Video 20.1, VideoChatGPT 4.1",
                   .paper_setting = "VNBench, 4-try accuracy",
                   .metric = "overall 4-try accuracy, % on VNBench",
                   .criterion = h::Within(64.3, 64.5, "overall 4-try accuracy on VNBench, % (paper 64.4 +- 0.1)"),
                   .criterion_reason = kVnbenchReason,
                   .requirements = kEndpoint},
                  [](h::ClaimContext& ctx) { return ModelOnEndpoint(ctx, "overall", ctx.ByProfile(1, 4, 150)); });

CB_REGISTER_CLAIM(kCountHard,
                  {.id = "videoniah.P3", .section = "Table 2",
                   .statement = "counting pasted objects (Cnt-E2) defeats every model",
                   .paper_value = "Cnt-E2 <= 14.6 for every model",
                   .paper_setting = "VNBench, 4-try accuracy",
                   .metric = "cnt_edit2 4-try accuracy, % [Wilson 95%] on our items",
                   .criterion = h::AtMost(14.6, "cnt_edit2 4-try accuracy, Wilson 95% CI"),
                   .criterion_setting = "cnt_edit2 items only: 1 / 30 / 150 (smoke / quick / full), K = 16",
                   .criterion_reason = "asked 1 / 4 / 150 cnt_edit2 items among all nine subtasks, below the Wilson "
                                       "interval's 30 trials at quick; now only cnt_edit2, 30 at quick (fewer "
                                       "requests than before)",
                   .requirements = kEndpoint},
                  [](h::ClaimContext& ctx) { return ModelOnEndpoint(ctx, "cnt_edit2", ctx.ByProfile(1, 30, 150)); });

CB_REGISTER_CLAIM(kLlavaOv,
                  {.id = "videoniah.P4", .section = "released result file",
                   .statement = "the released LLaVA-OneVision-7B VNBench result file scores 51.8 overall under "
                                "eval.py's rule",
                   .paper_value = "51.8 (recomputed from the released file; Ret 88.7/87.3/55.3, Ord 70.0/50.0/37.3, "
                                  "Cnt 41.3/8.7/27.3; Ord-I2 single-try 67.0 vs 4-try 37.3)",
                   .paper_setting = "official LLaVA-OV-7B result file, 5,400 rows; `claimbench eval vnbench "
                                    "--predictions` scores it",
                   .metric = "overall 4-try accuracy (mean of 9 subtasks, paper-compatible), % of the released file",
                   .criterion = h::Within(51.7, 51.9, "overall 4-try accuracy of the released file, % (51.8 +- 0.1)"),
                   .criterion_setting = "the file named by CLAIMBENCH_VNBENCH_PREDICTIONS, 5,400 rows",
                   .criterion_reason = "was Holds(..., INCONCLUSIVE) on an endpoint run on our items, which the "
                                       "statement is not about (issue 49 items 1, 4); now judged on the released "
                                       "file itself"},
                  ReleasedFile);

}  // namespace
}  // namespace cb::videoniah
