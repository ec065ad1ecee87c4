// File: suites/regenesis/gen_reasoning_command.cpp
// `claimbench gen reasoning --out FILE.jsonl [--seed S] [--count N]`: writes
// the procedural reasoning tasks (generators/reasoning.h) as an items file
// for `regenesis synthesize --items` (id, task, family, question, gold, and
// the worked rationale and options), plus "<FILE>.manifest.json" with the
// generator, version, params and content hash. Both are written whole or not
// at all; an existing FILE is refused.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "generators/reasoning.h"
#include "harness/atomic_file.h"
#include "harness/cli/commands.h"

namespace cb::cli {
namespace {

namespace gr = cb::gen::reasoning;

struct GenReasoningOptions {
  std::string out;
  uint64_t seed = 20250101;
  int count = 100;
};

int RunGenReasoning(const GenReasoningOptions& o) {
  if (std::filesystem::exists(o.out)) throw UsageError("--out " + o.out + ": already exists");
  if (o.count < 1 || o.count > 100000) throw UsageError("--count must be in [1, 100000]");
  const gr::Params p{.seed = o.seed, .arith = o.count, .order = o.count, .compare = o.count};
  const auto items = gr::Generate(p);
  std::string text;
  for (const auto& it : items)
    text += nlohmann::json{{"id", it.id},         {"task", it.task},       {"family", it.family},
                           {"question", it.question}, {"gold", it.answer}, {"rationale", it.rationale},
                           {"options", it.options}}
                .dump() +
            "\n";
  const std::string hash = gr::ContentHash(items);
  cb::harness::WriteFileAtomically(o.out + ".manifest.json",
                                   nlohmann::json{{"generator", gr::kReasoningName},
                                                  {"version", gr::kReasoningVersion},
                                                  {"seed", o.seed},
                                                  {"count_per_task", o.count},
                                                  {"items", items.size()},
                                                  {"content_hash", hash}}
                                           .dump(2) +
                                       "\n");
  cb::harness::WriteFileAtomically(o.out, text);
  std::printf("%zu items (arith, order, compare x %d) -> %s, content hash %s\n", items.size(), o.count, o.out.c_str(),
              hash.c_str());
  return kExitOk;
}

}  // namespace

void AddGenReasoningCommand(CLI::App& app, const CommandLine&, int* exit_code) {
  CLI::App* gen = CommandGroup(app, "gen", "Write procedural data sets");
  auto o = std::make_shared<GenReasoningOptions>();
  CLI::App* c = gen->add_subcommand("reasoning", "Procedural reasoning tasks with exact answers (ReGenesis items)");
  c->add_option("--out", o->out, "Items file to write (JSONL; must not exist)")->required();
  c->add_option("--seed", o->seed, "Generator seed")->capture_default_str();
  c->add_option("--count", o->count, "Items per task")->capture_default_str();
  c->callback([o, exit_code] { *exit_code = RunGenReasoning(*o); });
}

CB_REGISTER_COMMAND(gen_reasoning, AddGenReasoningCommand);

}  // namespace cb::cli
