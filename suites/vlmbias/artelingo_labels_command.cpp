// File: suites/vlmbias/artelingo_labels_command.cpp
// `claimbench vlmbias labels --csv artelingo_release.csv --out labels.jsonl`:
// the ArtELingo majority labels per (annotator language, image)
// (reference/vlmbias/artelingo.h, as benchmarks/artelingo.py builds them), one
// row per label in the authors' example order: {"task": "artelingo", "id":
// image_file, "language": en|zh|ar, "label", "label_zh", "agreement",
// "annotators"}. Merge them with a model's generations to make a generation
// file ("language" en/zh is the region there). Written whole or not at all.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/atomic_file.h"
#include "harness/cli/commands.h"
#include "harness/interrupt.h"
#include "reference/vlmbias/artelingo.h"

namespace cb::cli {
namespace {

namespace rv = cb::ref::vlmbias;

struct LabelsOptions {
  std::string csv, out;
  std::vector<std::string> ann_langs = {"en", "zh"}, splits = {"test"}, skip_labels;
  int required_agreement = 0;
};

int RunLabels(const LabelsOptions& o) {
  if (std::filesystem::exists(o.out)) throw UsageError("--out " + o.out + ": already exists");
  if (o.required_agreement < 0) throw UsageError("--required-agreement must be >= 0");
  std::ifstream in(o.csv, std::ios::binary);
  if (!in) throw UsageError("--csv " + o.csv + ": cannot read");
  std::stringstream ss;
  ss << in.rdbuf();
  std::vector<rv::MajorityLabel> labels;
  try {
    labels = rv::MajorityLabels(rv::ReadAnnotationsCsv(ss.str(), o.csv),
                                {.ann_langs = o.ann_langs, .splits = o.splits, .skip_labels = o.skip_labels,
                                 .required_agreement = o.required_agreement});
  } catch (const std::exception& e) {
    throw UsageError(e.what());
  }
  const auto& en = rv::EmotionLabelsEn();
  std::string text;
  for (const auto& l : labels) {
    const size_t k = static_cast<size_t>(std::find(en.begin(), en.end(), l.label) - en.begin());
    text += nlohmann::json{{"task", "artelingo"},
                           {"id", l.image_file},
                           {"language", l.ann_lang},
                           {"label", l.label},
                           {"label_zh", k < en.size() ? rv::EmotionLabelsZh()[k] : ""},
                           {"agreement", l.agreement},
                           {"annotators", l.annotators}}
                .dump() +
            "\n";
  }
  cb::harness::ThrowIfInterrupted();  // the check point before the one write
  cb::harness::WriteFileAtomically(o.out, text);
  std::printf("%zu labels -> %s\n", labels.size(), o.out.c_str());
  return kExitOk;
}

}  // namespace

void AddVlmbiasCommand(CLI::App& app, const CommandLine&, int* exit_code) {
  CLI::App* group = CommandGroup(app, "vlmbias", "VLM cultural bias: data preparation (CPU only)");
  auto o = std::make_shared<LabelsOptions>();
  CLI::App* c = group->add_subcommand("labels", "ArtELingo majority labels per (annotator language, image)");
  c->add_option("--csv", o->csv, "artelingo_release.csv")->required();
  c->add_option("--out", o->out, "Labels to write (JSONL; must not exist)")->required();
  c->add_option("--ann-langs", o->ann_langs, "Annotator languages (en, zh, ar)")->capture_default_str();
  c->add_option("--splits", o->splits, "Splits (train, val, test)")->capture_default_str();
  c->add_option("--skip-labels", o->skip_labels, "Drop images whose majority is one of these");
  c->add_option("--required-agreement", o->required_agreement, "Drop images whose majority has fewer annotators (0: none)")
      ->capture_default_str();
  c->callback([o, exit_code] { *exit_code = RunLabels(*o); });
}

CB_REGISTER_COMMAND(vlmbias_labels, AddVlmbiasCommand);

}  // namespace cb::cli
