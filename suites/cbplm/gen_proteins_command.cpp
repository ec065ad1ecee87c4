// File: suites/cbplm/gen_proteins_command.cpp
// `claimbench gen proteins --out FILE.fasta`: procedural protein sequences
// (generators/proteins.h) as FASTA, written whole or not at all; the content
// hash on stderr. `claimbench eval protparam --fasta FILE.fasta` reads them.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>

#include "generators/proteins.h"
#include "harness/atomic_file.h"
#include "harness/cli/commands.h"
#include "harness/interrupt.h"

namespace cb::cli {
namespace {

struct GenProteinsOptions {
  std::string out;
  cb::gen::ProteinParams params;
};

int RunGenProteins(const GenProteinsOptions& o) {
  if (std::filesystem::exists(o.out)) throw UsageError("--out " + o.out + ": already exists");
  cb::gen::ProteinSet set;
  try {
    set = cb::gen::MakeProteins(o.params);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  const std::string text = cb::gen::ProteinsFasta(set);
  cb::harness::ThrowIfInterrupted();  // the check point before the one write
  cb::harness::WriteFileAtomically(o.out, text);
  std::fprintf(stderr, "%zu sequences -> %s (proteins v%d, content hash %s)\n", set.proteins.size(), o.out.c_str(),
               cb::gen::kProteinsVersion, set.content_hash.c_str());
  return kExitOk;
}

}  // namespace

void AddGenProteinsCommand(CLI::App& app, const CommandLine&, int* exit_code) {
  CLI::App* gen = CommandGroup(app, "gen", "Write procedural data sets");
  auto o = std::make_shared<GenProteinsOptions>();
  CLI::App* c = gen->add_subcommand("proteins", "Procedural protein sequences in six families (CB-pLM), as FASTA");
  c->add_option("--out", o->out, "FASTA file to write (must not exist)")->required();
  c->add_option("--count", o->params.count, "Number of sequences")->capture_default_str();
  c->add_option("--min-length", o->params.min_length, "Shortest sequence")->capture_default_str();
  c->add_option("--max-length", o->params.max_length, "Longest sequence")->capture_default_str();
  c->add_option("--median-length", o->params.median_length, "Median of the log-normal lengths")->capture_default_str();
  c->add_option("--seed", o->params.seed, "Generator seed")->capture_default_str();
  c->callback([o, exit_code] { *exit_code = RunGenProteins(*o); });
}

CB_REGISTER_COMMAND(gen_proteins, AddGenProteinsCommand);

}  // namespace cb::cli
