// File: suites/docs/docs_layers_command.h
// -----------------------------------------------------------------------------
// `claimbench docs --checkpoint DIR`: the layer analysis of docs_layers.h on
// every projection type of a Llama-family checkpoint in Hugging Face layout
// (model.safetensors, or model.safetensors.index.json and its shards), all
// layers, with the chance floor, in one ledger run (docs_layer_rows.h: case
// "checkpoint_layers" and "checkpoint_chance_floor", params + {"checkpoint":
// DIR, "proj": type, "vectors": columns|rows}). The option parsing lives in
// docs_command.cpp.
#ifndef CB_SUITES_DOCS_DOCS_LAYERS_COMMAND_H_
#define CB_SUITES_DOCS_DOCS_LAYERS_COMMAND_H_

#include <cstdint>
#include <string>

#include "harness/backend.h"
#include "harness/cli/commands.h"

namespace cb::docs {

struct CheckpointLayersOptions {
  std::string dir;
  cb::harness::Backend backend = cb::harness::Backend::kCpu;
  std::string backend_name = "cpu";
  std::string format = "csv";   // csv (long: proj,what,layer_i,layer_j,value,ci_low,ci_high) | json
  std::string out;              // "" = stdout; written through a temporary file
  std::string ledger;
  std::string vectors = "columns";  // columns as stored | rows (docs_layers.h, Transposed())
  int chance_draws = 5;
  uint64_t seed = 20250101;
};

// Every header (all seven types) is checked before the ledger is opened, so
// a missing type, a shape mismatch or a malformed file records nothing; the
// tensor values (dtype, NaN/Inf, zero columns) are checked as each type is
// loaded, so at most one type's matrices are held at a time. Each type's
// rows are committed when it is done. Throws std::runtime_error /
// cb::cli::UsageError (one line) on bad input. The caller has checked that
// --out is writable.
int RunCheckpointLayers(const CheckpointLayersOptions& options, const cb::cli::CommandLine& cmdline);

}  // namespace cb::docs

#endif  // CB_SUITES_DOCS_DOCS_LAYERS_COMMAND_H_
