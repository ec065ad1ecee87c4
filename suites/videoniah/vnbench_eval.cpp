// File: suites/videoniah/vnbench_eval.cpp
// VNBench on a model endpoint; see vnbench_eval.h.
#include "suites/videoniah/vnbench_eval.h"

#include "harness/hash.h"
#include "suites/videoniah/media.h"

namespace cb::videoniah {

namespace gv = cb::gen::videoniah;
namespace vb = cb::ref::vnbench;
namespace h = cb::harness;

EndpointEvalOutput EvaluateEndpoint(const EndpointEvalConfig& c, h::ResponseCache* cache,
                                    const std::function<void(int, int)>& progress) {
  h::ModelClient client(c.client, cache);
  gv::Renderer renderer(c.gen);
  std::vector<h::ChatRequest> requests;
  struct Ref {
    std::string qid, type;
    int gt;
  };
  std::vector<Ref> refs;
  size_t k = 0;
  for (gv::Task t : c.tasks) {
    for (int i = 0; i < c.count; ++i, ++k) {
      const gv::HaystackSource* hay = c.haystacks.empty() ? nullptr : c.haystacks[k % c.haystacks.size()];
      renderer.SetHaystack(hay);
      const gv::Item item = gv::MakeItem(t, i, c.gen, hay ? hay->frames() : 0);
      // K uniform frames in time order, the same for the 4 tries.
      std::vector<h::ChatPart> frames;
      gv::Frame fr;
      for (int f : gv::SampledFrameIndices(item.total_frames, c.frames)) {
        renderer.ItemFrame(item, f, &fr);
        frames.push_back(h::ChatPart::Image("data:image/png;base64," + h::Base64(EncodePng(fr))));
      }
      for (int tr = 0; tr < 4; ++tr) {
        h::ChatRequest r;
        r.model = c.model;
        r.max_tokens = c.max_tokens;
        r.temperature = 0;
        r.seed = c.request_seed;
        std::vector<h::ChatPart> parts = frames;
        parts.push_back(h::ChatPart::Text(item.Prompt(tr)));
        r.messages.push_back(h::ChatMessage::User(std::move(parts)));
        requests.push_back(std::move(r));
        refs.push_back({item.video + "_" + std::string(gv::TaskKey(t)) + "_" + std::to_string(tr),
                        std::string(gv::TaskKey(t)), item.tries[tr].gt_index});
      }
    }
  }
  EndpointEvalOutput out;
  int done = 0;
  const auto outcomes = client.CompleteAll(requests, [&](size_t, const h::ChatOutcome&) {
    if (progress) progress(++done, static_cast<int>(requests.size()));
  });
  out.requests_sent = client.requests_sent();
  for (size_t i = 0; i < outcomes.size(); i += 4) {
    ++out.items;
    bool all = true;
    for (size_t k = i; k < i + 4; ++k) {
      out.cache_hits += outcomes[k].from_cache;
      ++out.requests;
      if (!outcomes[k].ok) {
        all = false;
        ++out.requests_unanswered;
        if (out.errors.size() < 5) out.errors.push_back(refs[k].qid + ": " + outcomes[k].error);
      }
    }
    if (!all) {
      ++out.items_failed;
      continue;
    }
    for (size_t k = i; k < i + 4; ++k)
      out.predictions.push_back({refs[k].qid, outcomes[k].text, refs[k].gt, refs[k].type});
  }
  out.strict = vb::Score(out.predictions, vb::Mode::kStrict);
  out.paper = vb::Score(out.predictions, vb::Mode::kPaperCompatible);
  return out;
}

std::vector<h::Result> ScoreRows(const vb::Scores& s, vb::Mode mode, const nlohmann::json& params,
                                 const std::string& input_hash) {
  std::vector<h::Result> rows;
  auto row = [&](const std::string& case_name, const std::string& metric, double value, int64_t n,
                 const nlohmann::json& extra) {
    h::Result r;
    r.suite = "videoniah";
    r.case_name = case_name;
    r.params = params;
    r.params["scorer_mode"] = vb::ModeName(mode);
    for (auto it = extra.begin(); it != extra.end(); ++it) r.params[it.key()] = it.value();
    r.metric = metric;
    r.unit = "%";
    r.direction = "higher";
    r.value = value;
    r.n = n;
    r.input_hash = input_hash;
    r.output_hash = h::Xxh3_128(nlohmann::json(value).dump()).Hex();
    rows.push_back(r);
  };
  int64_t items = 0;
  for (const auto& [task, ts] : s.tasks) {
    row("vnbench_task", "four_try_accuracy", ts.FourTry(), ts.items, {{"task", task}});
    row("vnbench_task", "single_try_accuracy", ts.SingleTry(), ts.tries, {{"task", task}});
    items += ts.items;
  }
  row("vnbench_overall", "four_try_accuracy_task_mean", s.overall_task_mean, items, nlohmann::json::object());
  row("vnbench_overall", "four_try_accuracy_group_mean", s.overall_group_mean, items, nlohmann::json::object());
  row("vnbench_overall", "single_try_accuracy_task_mean", s.overall_single_try, items, nlohmann::json::object());
  return rows;
}

}  // namespace cb::videoniah
