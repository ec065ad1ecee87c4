// File: suites/mia/gen_corpus_command.cpp
// `claimbench gen corpus --split ... --seed ... --out DIR`: writes a synthetic
// membership-inference corpus (generators/corpora.h) as JSON Lines in the
// public benchmarks' schemas, plus a manifest with its content hash:
//   wikimia.jsonl      {"input": text, "label": 1|0}     (WikiMIA's schema)
//   mimir.jsonl        {"member": text, "nonmember": text} (MIMIR's pairs)
//   train.jsonl        {"text": ...}  the target model's training data (B + e x D_m)
//   background.jsonl   {"text": ...}  B alone (the Ref model's data)
//   fsd_aux.jsonl      {"input", "label": 0}  FSD's in-domain fine-tuning set
//   ood_aux.jsonl      {"input", "label": 0}  the out-of-domain control set
//   manifest.json      generator, version, params, content_hash, counts, file hashes
// Everything is written into a temporary folder next to DIR, then renamed, so
// DIR appears complete or not at all; an existing DIR is refused.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "generators/corpora.h"
#include "harness/atomic_file.h"
#include "harness/cli/commands.h"
#include "harness/hash.h"

namespace cb::cli {
namespace {

namespace fs = std::filesystem;

struct GenCorpusOptions {
  std::string split = "wikimia";
  uint64_t seed = 20250101;
  std::string out;
  int length = 64;
  int per_class = 200;
  int repeats = 1;
  int vocab = 4096;
  int background_docs = 400;
  std::string ngram = "13_0.8";
};

std::string WriteFile(const fs::path& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!f) throw std::runtime_error("cannot write " + path.string());
  return cb::harness::Xxh3_128(bytes).Hex();
}

std::string Lines(const std::vector<nlohmann::json>& rows) {
  std::string out;
  for (const auto& r : rows) out += r.dump() + "\n";
  return out;
}

int RunGenCorpus(const GenCorpusOptions& o) {
  cb::gen::CorpusParams p;
  if (o.split == "wikimia") {
    p.kind = cb::gen::SplitKind::kWikiMia;
    if (o.length != 32 && o.length != 64 && o.length != 128 && o.length != 256) {
      throw UsageError("--length " + std::to_string(o.length) + ": expected 32, 64, 128 or 256");
    }
  } else if (o.split == "mimir") {
    p.kind = cb::gen::SplitKind::kMimir;
    if (o.ngram == "13_0.8") {
      p.ngram_n = 13, p.ngram_max = 0.8;
    } else if (o.ngram == "7_0.2") {
      p.ngram_n = 7, p.ngram_max = 0.2;
    } else {
      throw UsageError("--ngram '" + o.ngram + "': expected 13_0.8 or 7_0.2");
    }
  } else {
    throw UsageError("--split '" + o.split + "': expected wikimia or mimir");
  }
  if (o.repeats != 1 && o.repeats != 2 && o.repeats != 4) throw UsageError("--repeats: expected 1, 2 or 4");
  if (o.per_class < 1 || o.background_docs < 1) throw UsageError("--per-class and --background-docs must be >= 1");
  if (o.vocab < 1024 || o.vocab > (1 << 20)) throw UsageError("--vocab must be in [1024, 2^20]");
  if (o.out.empty()) throw UsageError("--out DIR is required");
  fs::path out(o.out);
  if (!out.has_filename() && out.has_parent_path()) out = out.parent_path();  // "dir/" -> "dir"
  if (fs::exists(out)) throw UsageError("--out " + o.out + ": already exists (refusing to overwrite)");
  const fs::path parent = out.has_parent_path() ? out.parent_path() : fs::path(".");
  if (!fs::is_directory(parent)) throw UsageError("--out " + o.out + ": parent folder does not exist");
  p.seed = o.seed;
  p.length = o.length;
  p.per_class = o.per_class;
  p.member_repeats = o.repeats;
  p.vocab_size = o.vocab;
  p.background_docs = o.background_docs;

  const cb::gen::MiaCorpus c = cb::gen::MakeMiaCorpus(p);
  auto text = [&](const cb::ref::lm::Document& d) { return c.lexicon.Render(d); };
  std::vector<nlohmann::json> wikimia, mimir, train, background, aux, ood;
  for (const auto& d : c.members) wikimia.push_back({{"input", text(d)}, {"label", 1}});
  for (const auto& d : c.nonmembers) wikimia.push_back({{"input", text(d)}, {"label", 0}});
  for (size_t i = 0; i < c.members.size(); ++i) {
    mimir.push_back({{"member", text(c.members[i])}, {"nonmember", text(c.nonmembers[i])}});
  }
  for (const auto& d : c.TrainingSet()) train.push_back({{"text", text(d)}});
  for (const auto& d : c.background) background.push_back({{"text", text(d)}});
  for (const auto& d : c.aux_nonmembers) aux.push_back({{"input", text(d)}, {"label", 0}});
  for (const auto& d : c.ood) ood.push_back({{"input", text(d)}, {"label", 0}});

  cb::harness::WriteDirectoryAtomically(out, [&](const fs::path& tmp) {
    nlohmann::json files = nlohmann::json::object();
    files["wikimia.jsonl"] = WriteFile(tmp / "wikimia.jsonl", Lines(wikimia));
    files["mimir.jsonl"] = WriteFile(tmp / "mimir.jsonl", Lines(mimir));
    files["train.jsonl"] = WriteFile(tmp / "train.jsonl", Lines(train));
    files["background.jsonl"] = WriteFile(tmp / "background.jsonl", Lines(background));
    files["fsd_aux.jsonl"] = WriteFile(tmp / "fsd_aux.jsonl", Lines(aux));
    files["ood_aux.jsonl"] = WriteFile(tmp / "ood_aux.jsonl", Lines(ood));
    const nlohmann::json manifest = {
        {"generator", cb::gen::kCorporaName}, {"version", cb::gen::kCorporaVersion},
        {"split", c.SplitName()}, {"params", cb::gen::CanonicalParams(p)},
        {"content_hash", c.content_hash}, {"files", files},
        {"counts", {{"members", c.members.size()}, {"nonmembers", c.nonmembers.size()},
                    {"background", c.background.size()}, {"fsd_aux", c.aux_nonmembers.size()},
                    {"ood_aux", c.ood.size()}, {"filtered_out", c.filtered_out}}}};
    WriteFile(tmp / "manifest.json", manifest.dump(2) + "\n");
  });
  std::printf("%s: %s, %zu members + %zu non-members, content_hash %s\n", o.out.c_str(), c.SplitName().c_str(),
              c.members.size(), c.nonmembers.size(), c.content_hash.c_str());
  return kExitOk;
}

}  // namespace

void AddGenCorpusCommand(CLI::App& app, const CommandLine&, int* exit_code) {
  CLI::App* gen = CommandGroup(app, "gen", "Write procedural data sets");
  auto o = std::make_shared<GenCorpusOptions>();
  CLI::App* corpus = gen->add_subcommand("corpus", "Synthetic member/non-member corpus (WikiMIA/MIMIR schemas)");
  corpus->add_option("--split", o->split, "wikimia (shifted non-members) or mimir (iid, n-gram filtered)")
      ->capture_default_str();
  corpus->add_option("--seed", o->seed, "Seed")->capture_default_str();
  corpus->add_option("--out", o->out, "Output folder (must not exist)")->required();
  corpus->add_option("--length", o->length, "wikimia: words per text (32, 64, 128, 256)")->capture_default_str();
  corpus->add_option("--per-class", o->per_class, "Members and non-members each")->capture_default_str();
  corpus->add_option("--repeats", o->repeats, "Times each member is in the training data (1, 2, 4)")
      ->capture_default_str();
  corpus->add_option("--ngram", o->ngram, "mimir: n-gram filter 13_0.8 or 7_0.2")->capture_default_str();
  corpus->add_option("--vocab", o->vocab, "Vocabulary size")->capture_default_str();
  corpus->add_option("--background-docs", o->background_docs, "Background documents (500 words each)")
      ->capture_default_str();
  corpus->callback([o, exit_code] { *exit_code = RunGenCorpus(*o); });
}

CB_REGISTER_COMMAND(gen_corpus, AddGenCorpusCommand);

}  // namespace cb::cli
