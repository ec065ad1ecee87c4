// File: suites/eagle/gen_docvqa_command.cpp
// `claimbench gen docvqa --out DIR`: the generated documents and charts as
// PNG files with their questions, ready for any model:
//   images/<item>.png     640 x 480 RGB
//   questions.jsonl       one question a line: question_id, task, image,
//                         question (the prompt sent by `eval eagle
//                         --endpoint`) and the answer fields of the
//                         prediction format (reference/eagle/bench.h), so
//                         adding "pred" to each line gives a file for
//                         `eval eagle --predictions`
//   manifest.json         generator, version, params, content hash, file hashes
// The folder is written under a temporary name and renamed, so it appears
// whole or not at all; an existing folder is refused.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "generators/docvqa.h"
#include "harness/atomic_file.h"
#include "harness/cli/commands.h"
#include "harness/hash.h"
#include "suites/eagle/png.h"

namespace cb::cli {
namespace {

namespace fs = std::filesystem;
namespace gd = cb::gen::docvqa;

struct GenDocVqaOptions {
  gd::Params params;
  std::string out;
};

std::string WriteBytes(const fs::path& p, const std::string& bytes) {
  std::ofstream f(p, std::ios::binary);
  f << bytes;
  if (!f) throw std::runtime_error("cannot write " + p.string());
  return cb::harness::Xxh3_128(bytes).Hex();
}

int RunGenDocVqa(const GenDocVqaOptions& o) {
  if (o.params.count < 1 || o.params.count > 100000) throw UsageError("--count must be in [1, 100000]");
  if (o.out.empty()) throw UsageError("--out DIR is required");
  fs::path out(o.out);
  if (!out.has_filename() && out.has_parent_path()) out = out.parent_path();
  if (fs::exists(out)) throw UsageError("--out " + o.out + ": already exists (refusing to overwrite)");
  const fs::path parent = out.has_parent_path() ? out.parent_path() : fs::path(".");
  if (!fs::is_directory(parent)) throw UsageError("--out " + o.out + ": parent folder does not exist");
  const gd::Generator g(o.params);  // the font opens, or one line naming it
  const auto items = g.All();
  size_t questions = 0;
  cb::harness::WriteDirectoryAtomically(out, [&](const fs::path& tmp) {
    fs::create_directories(tmp / "images");
    nlohmann::json files = nlohmann::json::object();
    std::string lines;
    for (const auto& item : items) {
      const std::string image = "images/" + item.id + ".png";
      files[image] = WriteBytes(tmp / image, cb::eagle::EncodePng(item.image));
      for (const auto& q : item.questions) {
        nlohmann::json row = {{"question_id", q.id}, {"task", q.task}, {"image", image}, {"question", q.text}};
        if (q.task == "docvqa") {
          row["answers"] = {q.answer};
        } else {
          row["answer"] = q.answer;
        }
        if (q.task == "chartqa") row["type"] = "augmented_test";
        if (q.task == "mcq") row["options"] = q.options;
        lines += row.dump() + "\n";
        ++questions;
      }
    }
    files["questions.jsonl"] = WriteBytes(tmp / "questions.jsonl", lines);
    const nlohmann::json manifest = {{"generator", gd::kDocVqaName},
                                     {"version", gd::kDocVqaVersion},
                                     {"params", gd::CanonicalParams(o.params)},
                                     {"content_hash", gd::ContentHash(items)},
                                     {"items", items.size()},
                                     {"questions", questions},
                                     {"file_hashes", files}};
    WriteBytes(tmp / "manifest.json", manifest.dump(2) + "\n");
  });
  std::printf("%s: %zu items (documents, bar and line charts), %zu questions, content hash %s\n", o.out.c_str(),
              items.size(), questions, gd::ContentHash(items).c_str());
  return kExitOk;
}

}  // namespace

void AddGenDocVqaCommand(CLI::App& app, const CommandLine&, int* exit_code) {
  CLI::App* gen = CommandGroup(app, "gen", "Write procedural data sets");
  auto o = std::make_shared<GenDocVqaOptions>();
  CLI::App* c = gen->add_subcommand(
      "docvqa", "Rendered documents, bar and line charts with DocVQA/ChartQA/multiple-choice questions (Eagle)");
  c->add_option("--count", o->params.count, "Items per kind")->capture_default_str();
  c->add_option("--seed", o->params.seed, "Seed")->capture_default_str();
  c->add_option("--out", o->out, "Output folder (must not exist)")->required();
  c->callback([o, exit_code] { *exit_code = RunGenDocVqa(*o); });
}

CB_REGISTER_COMMAND(gen_docvqa, AddGenDocVqaCommand);

}  // namespace cb::cli
