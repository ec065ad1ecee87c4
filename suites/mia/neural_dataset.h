// File: suites/mia/neural_dataset.h
// -----------------------------------------------------------------------------
// `claimbench eval mia --checkpoint DIR --dataset FILE.jsonl [--finetune-on
// FILE.jsonl]`'s input and its statistics: every text of the dataset scored
// under a user's Llama-family checkpoint in Hugging Face layout
// (reference/lm/hf_checkpoint.h) by the substrate (neural_stats.h: fp32
// forward, scoring kernel; CPU or CUDA), giving the StatsFile that `eval mia
// --stats` evaluates; with a fine-tuning set, FSD's LoRA fine-tune
// (neural_finetune.h) and ll under the tuned model too (FSD methods).
//
// Dataset lines (JSON Lines, blank lines skipped), one text each:
//   {"label": 1, "ids": [1, 450, ...]}          token ids of the model's tokenizer
//   {"label": 0, "text": "..."}                 encoded with DIR's claimbench BPE
//                                               (merges.txt + vocab.json)
//   {"label": 1, "ids": [...], "text": "..."}   ids scored, text kept for Zlib
// "input" (WikiMIA's field) is read as "text" when "text" is absent.
// Fine-tuning lines: the same without "label" (any label is ignored); a text
// is encoded with "\n" appended, as the substrate's training stream has it.
//
// Errors (std::runtime_error, one line): "FILE:LINE: ..." for a line that is
// not an object, lacks "label" (dataset) or both "ids" and "text", has an id
// outside the vocabulary, fewer than 2 tokens (dataset) or more than
// max_position_embeddings, a "text" when DIR has no tokenizer; "FILE: ..."
// for an unreadable or empty file or a dataset with one class; the
// checkpoint's own errors as LoadCheckpoint gives them. Everything is read
// and checked before any model work.
#ifndef CB_SUITES_MIA_NEURAL_DATASET_H_
#define CB_SUITES_MIA_NEURAL_DATASET_H_

#include <string>

#include "harness/backend.h"
#include "suites/mia/neural_finetune.h"
#include "suites/mia/stats_file.h"

namespace cb::mia {

struct CheckpointEvalReport {
  int64_t parameters = 0;
  int64_t positions = 0;
  bool finetuned = false;
  FsdFineTuneReport finetune;
  double seconds = 0;
};

// REQUIRES: finetune_path empty or a fine-tuning file. The StatsFile's path
// and content_hash are the dataset's (the hash also covers the fine-tuning
// file and the checkpoint's config.json, so a different model or set gives a
// different input hash).
StatsFile StatsFromCheckpoint(const std::string& checkpoint_dir, const std::string& dataset_path,
                              const std::string& finetune_path, cb::harness::Backend backend,
                              const FsdFineTuneOptions& options, CheckpointEvalReport* report = nullptr);

}  // namespace cb::mia

#endif  // CB_SUITES_MIA_NEURAL_DATASET_H_
