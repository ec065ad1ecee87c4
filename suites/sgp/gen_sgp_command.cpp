// File: suites/sgp/gen_sgp_command.cpp
// `claimbench gen sgp --count N --seed S [--variants K] --out DIR`: writes SGP
// programs (generators/sgp.h) in SGP-Bench's schema:
//   svg.jsonl                 every question (Question with the code, A-D, Answer, Subject)
//   inv.jsonl                 the rotation-invariant questions of the originals
//   inv_t<k>.jsonl, inv_r<k>.jsonl   the same rows on translated / SE(2) copies
//                             (only Semantics, Color and Count, by design: see
//                             kInvarianceNote)
//   meta/<split>.jsonl        per row: program, category, motion, oracle query
//   programs/<index>.svg      each original program
//   cad.jsonl, meta/cad.jsonl, cad/<index>.cad, cad/<index>.views.svg
//                             with --cad N: CAD programs (generators/sgp_cad.h),
//                             their rows and their three-view drawings
//   manifest.json             generator, version, params, content hash, file hashes
// The folder is written under a temporary name and renamed, so it appears
// complete or not at all; an existing DIR is refused.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "generators/sgp.h"
#include "generators/sgp_cad.h"
#include "harness/atomic_file.h"
#include "harness/cli/commands.h"
#include "harness/hash.h"

namespace cb::cli {
namespace {

namespace fs = std::filesystem;
namespace gs = cb::gen::sgp;

struct GenSgpOptions {
  gs::Params params;
  int cad = 0;
  std::string out;
};

// Shown by `gen sgp --help`. Which subjects reach the invariance splits is
// decided per question by the generator (Question::rotation_invariant,
// generators/sgp.h); the CLI test checks this text against the files.
constexpr const char* kInvarianceNote =
    "The invariance splits (inv.jsonl, inv_t<k>.jsonl, inv_r<k>.jsonl) hold only the rotation-invariant subjects "
    "(Semantics, Color, Count), by design: a Shape or Reasoning (symmetry) answer can change when the drawing "
    "turns (a turned square reads as a diamond), so those questions are in svg.jsonl only.";

std::string WriteText(const fs::path& p, const std::string& text) {
  std::ofstream f(p, std::ios::binary);
  f << text;
  if (!f) throw std::runtime_error("cannot write " + p.string());
  return cb::harness::Xxh3_128(text).Hex();
}

std::string Lines(const std::vector<nlohmann::json>& rows) {
  std::string s;
  for (const auto& r : rows) s += r.dump() + "\n";
  return s;
}

int RunGenSgp(const GenSgpOptions& o) {
  try {
    gs::Validate(o.params);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--") + e.what());
  }
  if (o.cad < 0 || o.cad > 1000000) throw UsageError("--cad must be in [0, 1000000]");
  if (o.out.empty()) throw UsageError("--out DIR is required");
  fs::path out(o.out);
  if (!out.has_filename() && out.has_parent_path()) out = out.parent_path();
  if (fs::exists(out)) throw UsageError("--out " + o.out + ": already exists (refusing to overwrite)");
  const fs::path parent = out.has_parent_path() ? out.parent_path() : fs::path(".");
  if (!fs::is_directory(parent)) throw UsageError("--out " + o.out + ": parent folder does not exist");

  const gs::Dataset d = gs::Generate(o.params);
  cb::harness::WriteDirectoryAtomically(out, [&](const fs::path& tmp) {
    fs::create_directories(tmp / "meta");
    fs::create_directories(tmp / "programs");
    nlohmann::json files = nlohmann::json::object(), counts = nlohmann::json::object();
    for (const auto& [split, rows] : gs::Splits(d)) {
      files[split + ".jsonl"] = WriteText(tmp / (split + ".jsonl"), Lines(rows));
      counts[split] = rows.size();
    }
    for (const auto& [split, rows] : gs::SplitMeta(d))
      files["meta/" + split + ".jsonl"] = WriteText(tmp / "meta" / (split + ".jsonl"), Lines(rows));
    for (const auto& p : d.programs) {
      char name[32];
      std::snprintf(name, sizeof name, "%06d.svg", p.index);
      WriteText(tmp / "programs" / name, p.svg + "\n");
    }
    std::string cad_hash;
    if (o.cad > 0) {
      const std::vector<gs::CadItem> items = gs::GenerateCad(o.params.seed, o.cad);
      fs::create_directories(tmp / "cad");
      std::vector<nlohmann::json> rows, meta;
      for (const gs::CadItem& it : items) {
        for (size_t q = 0; q < it.questions.size(); ++q) {
          rows.push_back(gs::CadRow(it, it.questions[q]));
          meta.push_back(gs::CadMeta(it, q));
        }
        char name[32];
        std::snprintf(name, sizeof name, "%06d", it.index);
        WriteText(tmp / "cad" / (std::string(name) + ".cad"), it.code);
        WriteText(tmp / "cad" / (std::string(name) + ".views.svg"), it.views + "\n");
      }
      files["cad.jsonl"] = WriteText(tmp / "cad.jsonl", Lines(rows));
      files["meta/cad.jsonl"] = WriteText(tmp / "meta" / "cad.jsonl", Lines(meta));
      counts["cad"] = rows.size();
      cad_hash = gs::CadContentHash(o.params.seed, items);
    }
    nlohmann::json manifest = {{"generator", gs::kSgpName},
                                     {"version", gs::kSgpVersion},
                                     {"params", gs::CanonicalParams(o.params)},
                                     {"content_hash", gs::ContentHash(d)},
                                     {"rows", counts},
                                     {"file_hashes", files}};
    if (o.cad > 0) manifest["cad"] = {{"count", o.cad}, {"content_hash", cad_hash}};
    WriteText(tmp / "manifest.json", manifest.dump(2) + "\n");
  });
  size_t questions = 0;
  for (const auto& p : d.programs) questions += p.questions.size();
  std::printf("%s: %d programs, %zu questions (svg.jsonl), %d translated and %d SE(2) variants each, content hash %s\n",
              o.out.c_str(), o.params.count, questions, o.params.variants, o.params.variants,
              gs::ContentHash(d).c_str());
  if (o.cad > 0) std::printf("%s: %d CAD programs (cad.jsonl)\n", o.out.c_str(), o.cad);
  return kExitOk;
}

}  // namespace

void AddGenSgpCommand(CLI::App& app, const CommandLine&, int* exit_code) {
  CLI::App* gen = CommandGroup(app, "gen", "Write procedural data sets");
  auto o = std::make_shared<GenSgpOptions>();
  CLI::App* c = gen->add_subcommand("sgp", "Symbolic graphics programs (SVG) with SGP-Bench questions and invariance splits");
  c->add_option("--count", o->params.count, "Programs")->capture_default_str();
  c->add_option("--seed", o->params.seed, "Seed")->capture_default_str();
  c->add_option("--variants", o->params.variants, "Translated and SE(2) copies per program (0-5)")
      ->capture_default_str();
  c->add_option("--cad", o->cad, "Also write this many CAD programs (cad.jsonl)")->capture_default_str();
  c->add_option("--out", o->out, "Output folder (must not exist)")->required();
  c->footer(kInvarianceNote);
  c->callback([o, exit_code] { *exit_code = RunGenSgp(*o); });
}

CB_REGISTER_COMMAND(gen_sgp, AddGenSgpCommand);

}  // namespace cb::cli
