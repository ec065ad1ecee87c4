// File: suites/cbplm/eval_protparam_command.cpp
// `claimbench eval protparam --fasta FILE`: the 14 CB-pLM concepts of a
// user's protein sequences (reference/protparam), one row per FASTA record.
//   --format csv|json       default csv; numbers as %.17g (exact round trip)
//   --out FILE              write there (atomically; must not exist), else stdout
//   --secondary-structure   biopython-1.82 (default) or biopython-1.81
//   --lobster               lobster's preprocessing first: whitespace
//                           removed, characters outside ARNDCEQGHILKMFPSTWYV.-
//                           become A, the first 512 kept
//   --normalize             lobster's min-max scaling (not clipped)
// Residues outside the 20 standard letters are reported per record
// ("nonstandard": letter -> count, before any preprocessing); a concept
// Biopython cannot compute for them (molecular weight, instability, GRAVY) is
// left empty (null in JSON) with the reason, never dropped. Computes and
// writes; records nothing in a ledger.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/atomic_file.h"
#include "harness/cli/commands.h"
#include "harness/interrupt.h"
#include "reference/protparam/protparam.h"
#include "reference/protparam/tables.h"
#include "suites/cbplm/fasta.h"

namespace cb::cli {
namespace {

namespace pp = cb::ref::protparam;

struct EvalProtparamOptions {
  std::string fasta, out, format = "csv", secondary_structure = "biopython-1.82";
  bool lobster = false, normalize = false;
};

struct Row {
  cb::cbplm::FastaRecord record;
  std::string analysed;                  // the sequence the concepts were computed on
  std::map<char, int> nonstandard;       // of the sequence as read
  pp::ConceptValues concepts;
};

std::string Number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// RFC 4180: quoted when it holds a comma, a quote or a line break.
std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string NonstandardText(const std::map<char, int>& m) {
  std::string s;
  for (const auto& [c, n] : m) s += (s.empty() ? "" : " ") + std::string(1, c) + ":" + std::to_string(n);
  return s;
}

std::string Csv(const std::vector<Row>& rows) {
  std::string text = "id,length,nonstandard";
  for (std::string_view name : pp::ConceptNames()) text += "," + std::string(name);
  text += ",errors\n";
  for (const Row& r : rows) {
    text += CsvField(r.record.id) + "," + std::to_string(r.analysed.size()) + "," +
            CsvField(NonstandardText(r.nonstandard));
    std::string errors;
    for (int k = 0; k < pp::kNumConcepts; ++k) {
      text += ",";
      if (r.concepts.error[k].empty()) text += Number(r.concepts.value[k]);
      else errors += (errors.empty() ? "" : "; ") + std::string(pp::ConceptNames()[k]) + ": " + r.concepts.error[k];
    }
    text += "," + CsvField(errors) + "\n";
  }
  return text;
}

std::string Json(const std::vector<Row>& rows, const EvalProtparamOptions& o) {
  nlohmann::json seqs = nlohmann::json::array();
  for (const Row& r : rows) {
    nlohmann::json concepts = nlohmann::json::object(), errors = nlohmann::json::object(),
                   nonstandard = nlohmann::json::object();
    for (int k = 0; k < pp::kNumConcepts; ++k) {
      const std::string name(pp::ConceptNames()[k]);
      if (r.concepts.error[k].empty()) {
        concepts[name] = r.concepts.value[k];
      } else {
        concepts[name] = nullptr;
        errors[name] = r.concepts.error[k];
      }
    }
    for (const auto& [c, n] : r.nonstandard) nonstandard[std::string(1, c)] = n;
    seqs.push_back({{"id", r.record.id},
                    {"description", r.record.description},
                    {"length", r.analysed.size()},
                    {"nonstandard", nonstandard},
                    {"concepts", concepts},
                    {"errors", errors}});
  }
  const nlohmann::json j = {{"secondary_structure", o.secondary_structure},
                            {"preprocessing", o.lobster ? "lobster" : "none"},
                            {"normalized", o.normalize},
                            {"sequences", seqs}};
  return j.dump(1) + "\n";
}

int RunEvalProtparam(const EvalProtparamOptions& o) {
  if (o.format != "csv" && o.format != "json") throw UsageError("--format must be csv or json, not '" + o.format + "'");
  if (!o.out.empty() && std::filesystem::exists(o.out)) throw UsageError("--out " + o.out + ": already exists");
  pp::SecondaryStructure convention;
  try {
    convention = pp::ParseSecondaryStructure(o.secondary_structure);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--secondary-structure: ") + e.what());
  }
  std::ifstream in(o.fasta, std::ios::binary);
  if (!in) throw UsageError("--fasta " + o.fasta + ": cannot read");
  std::stringstream ss;
  ss << in.rdbuf();
  std::vector<cb::cbplm::FastaRecord> records;
  try {
    records = cb::cbplm::ParseFasta(ss.str(), o.fasta);
  } catch (const std::runtime_error& e) {
    throw UsageError(e.what());
  }

  std::vector<Row> rows;
  int with_nonstandard = 0, missing = 0;
  for (cb::cbplm::FastaRecord& rec : records) {
    cb::harness::ThrowIfInterrupted();
    Row r;
    for (char c : rec.sequence) {
      const char upper = (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c;
      if (!pp::StandardIndex(upper)) ++r.nonstandard[c];
    }
    r.analysed = o.lobster ? pp::LobsterSequence(rec.sequence) : rec.sequence;
    r.concepts = pp::ComputeConcepts(r.analysed, convention);  // non-empty: ParseFasta refuses empty records
    for (int k = 0; k < pp::kNumConcepts; ++k) {
      if (!r.concepts.error[k].empty()) ++missing;
      else if (o.normalize) r.concepts.value[k] = pp::LobsterNormalize(r.concepts.value[k], k);
    }
    with_nonstandard += r.nonstandard.empty() ? 0 : 1;
    r.record = std::move(rec);
    rows.push_back(std::move(r));
  }
  const std::string text = o.format == "csv" ? Csv(rows) : Json(rows, o);
  cb::harness::ThrowIfInterrupted();  // the check point before the one write
  if (o.out.empty()) {
    std::fwrite(text.data(), 1, text.size(), stdout);
  } else {
    cb::harness::WriteFileAtomically(o.out, text);
  }
  std::fprintf(stderr, "%zu sequences, %d with residues outside the 20 standard ones; %d concepts not computable%s\n",
               rows.size(), with_nonstandard, missing, o.out.empty() ? "" : (" -> " + o.out).c_str());
  return kExitOk;
}

}  // namespace

void AddEvalProtparamCommand(CLI::App& app, const CommandLine&, int* exit_code) {
  CLI::App* eval = CommandGroup(app, "eval", "Evaluate methods on statistics from real models");
  auto o = std::make_shared<EvalProtparamOptions>();
  CLI::App* c = eval->add_subcommand("protparam", "CB-pLM's 14 Biopython concepts of the sequences in a FASTA file");
  c->add_option("--fasta", o->fasta, "Protein sequences (FASTA)")->required();
  c->add_option("--format", o->format, "csv or json")->capture_default_str();
  c->add_option("--out", o->out, "Write here (must not exist); default stdout");
  c->add_option("--secondary-structure", o->secondary_structure,
                "Helix/turn/sheet letters: biopython-1.82 or biopython-1.81 (helix and sheet swapped)")
      ->capture_default_str();
  c->add_flag("--lobster", o->lobster, "lobster's preprocessing: non-alphabet characters -> A, first 512 residues");
  c->add_flag("--normalize", o->normalize, "lobster's min-max scaling of each concept (not clipped)");
  c->callback([o, exit_code] { *exit_code = RunEvalProtparam(*o); });
}

CB_REGISTER_COMMAND(eval_protparam, AddEvalProtparamCommand);

}  // namespace cb::cli
