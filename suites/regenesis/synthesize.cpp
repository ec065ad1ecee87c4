// File: suites/regenesis/synthesize.cpp
// The self-synthesis pipeline and the STaR baseline; see synthesize.h.
#include "suites/regenesis/synthesize.h"

#include <stdexcept>

#include "generators/reasoning.h"
#include "harness/jsonl.h"
#include "reference/regenesis/vote.h"

namespace cb::regenesis {

namespace h = cb::harness;
using nlohmann::json;

const char* const kSeedGuidelines =
    "1. How could I simplify the problem so that it is easier to solve?\n"
    "2. What are the key assumptions underlying this problem?\n"
    "3. How can I break down this problem into smaller, more manageable parts?\n"
    "4. Critical thinking: analyse the problem from different perspectives and question assumptions.\n"
    "5. Let's think step by step.\n"
    "6. Let's make a step-by-step plan and implement it with good notation and explanation.\n"
    "7. What is the core issue or problem that needs to be addressed?\n"
    "8. Is the problem one that requires a calculation, a comparison or a logical deduction?\n"
    "9. What are the relevant data, and what is asked?\n"
    "10. How can the answer be checked once it is found?";

const char* MethodName(Method m) { return m == Method::kRegenesis ? "regenesis" : "star"; }

std::vector<SynthItem> ParseItems(std::string_view text, const std::string& source) {
  std::vector<SynthItem> items;
  h::ForEachJsonlObject(text, source, [&](const json& o, const std::string& where) {
    SynthItem it;
    for (const char* k : {"id", "task", "question"})
      if (!o.contains(k) || !o[k].is_string()) throw std::runtime_error(where + "missing field '" + k + "' (a string)");
    it.id = o["id"];
    it.task = rr::CanonicalTask(o["task"].get<std::string>());
    it.question = o["question"];
    it.family = rr::TaskFamily(it.task);
    if (o.contains("family")) {
      const auto f = o["family"].is_string() ? rr::ParseFamily(o["family"].get<std::string>()) : std::nullopt;
      if (!f) throw std::runtime_error(where + "'family' must be number, letter, yesno or label");
      it.family = *f;
    }
    if (o.contains("gold") && !o["gold"].is_null()) {
      const json& g = o["gold"];
      it.gold = g.is_string() ? g.get<std::string>() : g.dump();
      if (!rr::Normalize(*it.gold, it.family))
        throw std::runtime_error(where + "gold '" + *it.gold + "' is not a " + rr::FamilyName(it.family) + " answer");
    }
    items.push_back(std::move(it));
  });
  if (items.empty()) throw std::runtime_error(source + ": no items");
  return items;
}

std::vector<SynthItem> GeneratedItems(uint64_t seed, int per_task) {
  std::vector<SynthItem> out;
  for (const auto& g : cb::gen::reasoning::Generate({.seed = seed, .arith = per_task, .order = per_task, .compare = per_task}))
    out.push_back({g.id, g.task, g.question, *rr::ParseFamily(g.family), g.answer});
  return out;
}

std::string GuidelinesPrompt(const SynthItem& item) {
  return std::string("Seed reasoning guidelines:\n") + kSeedGuidelines + "\n\nTask: " + item.question +
         "\n\nAdapt the seed guidelines above into guidelines specific to this task. Do not solve the task.";
}

std::string StructurePrompt(const SynthItem& item, const std::string& guidelines) {
  return "Task: " + item.question + "\n\nTask-specific guidelines:\n" + guidelines +
         "\n\nTurn these guidelines into a reasoning structure: a numbered step-by-step plan for this task. Do not "
         "solve the task.";
}

std::string PathPrompt(const SynthItem& item, const std::string& structure, bool hint) {
  std::string p = "Task: " + item.question + "\n\nReasoning structure:\n" + structure +
                  "\n\nFollow the reasoning structure to solve the task step by step. End with \"The answer is X.\"";
  if (hint && item.gold) p += "\nHint: the correct answer is " + *item.gold + ".";
  return p;
}

std::string StarPrompt(const SynthItem& item, bool hint) {
  std::string p = "Q: " + item.question;
  if (hint && item.gold) p += " (The correct answer is " + *item.gold + ".)";
  return p + "\nA: Let's think step by step, and end with \"The answer is X.\"";
}

namespace {

struct Batch {
  h::ModelClient* client;
  SynthOutput* out;
  int* done;
  int total;
  const std::function<void(int, int)>* progress;
  // Sends `reqs`; outcomes in order, failures counted.
  std::vector<h::ChatOutcome> Send(const std::vector<h::ChatRequest>& reqs, const std::vector<std::string>& names) {
    auto outcomes = client->CompleteAll(reqs, [&](size_t, const h::ChatOutcome&) {
      if (*progress) (*progress)(++*done, total);
    });
    out->requests += static_cast<int64_t>(reqs.size());
    for (size_t i = 0; i < outcomes.size(); ++i) {
      out->cache_hits += outcomes[i].from_cache;
      if (!outcomes[i].ok) {
        ++out->failed;
        if (out->errors.size() < 5) out->errors.push_back(names[i] + ": " + outcomes[i].error);
      }
    }
    return outcomes;
  }
};

h::ChatRequest Req(const SynthConfig& c, const std::string& prompt, uint64_t seed) {
  h::ChatRequest r{.model = c.model, .temperature = c.temperature, .max_tokens = c.max_tokens, .seed = seed};
  r.messages.push_back(h::ChatMessage::User({h::ChatPart::Text(prompt)}));
  return r;
}

}  // namespace

SynthOutput Synthesize(const SynthConfig& c, const std::vector<SynthItem>& items, h::ResponseCache* cache,
                       const std::function<void(int, int)>& progress) {
  if (c.samples < 1) throw std::invalid_argument("synthesize: samples must be >= 1");
  if (!(c.temperature > 0)) throw std::invalid_argument("synthesize: temperature must be > 0 (sampling)");
  for (const auto& it : items)
    if (c.use_gold && !it.gold) throw std::invalid_argument("synthesize: item " + it.id + " has no gold answer");
  h::ModelClient client(c.client, cache);
  SynthOutput out;
  out.items = static_cast<int>(items.size());
  const size_t n = items.size(), k = static_cast<size_t>(c.samples);
  int done = 0;
  const int rounds = c.method == Method::kRegenesis ? 3 : 1;
  Batch batch{&client, &out, &done, static_cast<int>(n * k) * rounds, &progress};
  // paths[i][s]: the path of item i, sample s ("" when its chain failed).
  std::vector<std::vector<std::optional<std::string>>> paths(n, std::vector<std::optional<std::string>>(k));
  std::vector<std::string> names;
  for (size_t i = 0; i < n; ++i)
    for (size_t s = 0; s < k; ++s) names.push_back(items[i].id + " sample " + std::to_string(s));
  if (c.method == Method::kRegenesis) {
    std::vector<h::ChatRequest> reqs;
    for (size_t i = 0; i < n; ++i)
      for (size_t s = 0; s < k; ++s) reqs.push_back(Req(c, GuidelinesPrompt(items[i]), c.seed + s));
    const auto g = batch.Send(reqs, names);
    reqs.clear();
    std::vector<size_t> idx;
    for (size_t j = 0; j < g.size(); ++j)
      if (g[j].ok) {
        reqs.push_back(Req(c, StructurePrompt(items[j / k], g[j].text), c.seed + j % k));
        idx.push_back(j);
      }
    std::vector<std::string> sub;
    for (size_t j : idx) sub.push_back(names[j]);
    const auto st = batch.Send(reqs, sub);
    reqs.clear();
    std::vector<size_t> idx2;
    std::vector<std::string> sub2;
    for (size_t m = 0; m < st.size(); ++m)
      if (st[m].ok) {
        const size_t j = idx[m];
        reqs.push_back(Req(c, PathPrompt(items[j / k], st[m].text, c.gt_hint), c.seed + j % k));
        idx2.push_back(j);
        sub2.push_back(names[j]);
      }
    const auto p = batch.Send(reqs, sub2);
    for (size_t m = 0; m < p.size(); ++m)
      if (p[m].ok) paths[idx2[m] / k][idx2[m] % k] = p[m].text;
  } else {
    std::vector<h::ChatRequest> reqs;
    for (size_t i = 0; i < n; ++i)
      for (size_t s = 0; s < k; ++s) reqs.push_back(Req(c, StarPrompt(items[i], false), c.seed + s));
    const auto p = batch.Send(reqs, names);
    for (size_t j = 0; j < p.size(); ++j)
      if (p[j].ok) paths[j / k][j % k] = p[j].text;
  }
  // Filter per item; STaR rationalises the items with nothing kept.
  std::vector<std::vector<size_t>> kept_idx(n);
  std::vector<std::vector<std::string>> texts(n);
  for (size_t i = 0; i < n; ++i) {
    std::vector<std::string> have;
    std::vector<size_t> where;
    for (size_t s = 0; s < k; ++s)
      if (paths[i][s]) {
        have.push_back(*paths[i][s]);
        where.push_back(s);
      }
    out.paths += static_cast<int>(have.size());
    const auto f = rr::FilterPaths(have, c.use_gold ? items[i].gold : std::nullopt, items[i].family);
    out.duplicates += f.duplicates;
    out.wrong += f.wrong;
    out.no_answer += f.no_answer;
    for (size_t q : f.kept) texts[i].push_back(have[q]);
  }
  if (c.method == Method::kStar && c.use_gold) {
    std::vector<h::ChatRequest> reqs;
    std::vector<size_t> which;
    std::vector<std::string> sub;
    for (size_t i = 0; i < n; ++i)
      if (texts[i].empty()) {
        reqs.push_back(Req(c, StarPrompt(items[i], true), c.seed));
        which.push_back(i);
        sub.push_back(items[i].id + " rationalisation");
      }
    batch.total += static_cast<int>(reqs.size());
    const auto r = batch.Send(reqs, sub);
    for (size_t m = 0; m < r.size(); ++m) {
      if (!r[m].ok) continue;
      const size_t i = which[m];
      ++out.paths;
      const auto got = rr::ExtractAnswer(r[m].text, items[i].family);
      if (got && *got == *rr::Normalize(*items[i].gold, items[i].family)) {
        texts[i].push_back(r[m].text);
        ++out.rationalised;
      } else if (!got) {
        ++out.no_answer;
      } else {
        ++out.wrong;
      }
    }
  }
  for (size_t i = 0; i < n; ++i) {
    if (!texts[i].empty()) ++out.items_with_kept;
    for (const auto& t : texts[i]) {
      ++out.kept;
      out.sft.push_back({{"messages", json::array({{{"role", "user"}, {"content", items[i].question}},
                                                   {{"role", "assistant"}, {"content", t}}})},
                         {"id", items[i].id},
                         {"task", items[i].task},
                         {"method", MethodName(c.method)},
                         {"answer", rr::ExtractAnswer(t, items[i].family).value_or("")}});
    }
  }
  out.requests_sent = client.requests_sent();
  return out;
}

}  // namespace cb::regenesis
