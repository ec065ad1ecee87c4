// File: reference/probegen/zoo_io.h
// -----------------------------------------------------------------------------
// A zoo model on disk: one safetensors file (harness/safetensors.h) per model,
// the layout `claimbench gen modelzoo` writes and `claimbench eval probegen
// --zoo DIR` reads (documented in suites/probegen/README.md):
//   tensors   "layers.<l>.weight", "layers.<l>.bias" (F32, or F16/BF16/F64),
//             shapes as zoo_model.h, one pair per conv / linear layer index l
//   metadata  "arch"            ArchToString() of the architecture
//             "test_accuracy"   the model's measured test accuracy in [0, 1]
//             any other entries (hyper-parameters) are kept as they are.
#ifndef CB_REFERENCE_PROBEGEN_ZOO_IO_H_
#define CB_REFERENCE_PROBEGEN_ZOO_IO_H_

#include <map>
#include <string>
#include <vector>

#include "reference/probegen/zoo_model.h"

namespace cb::ref::probegen {

struct StoredZooModel {
  std::string path;
  ZooModel model;
  double test_accuracy = 0.0;
  std::map<std::string, std::string> metadata;  // everything in __metadata__
};

// Writes F32 tensors (atomically, by WriteSafetensors). metadata's "arch" and
// "test_accuracy" are set from the arguments.
void WriteZooModel(const std::string& path, const ZooModel& model, double test_accuracy,
                   const std::map<std::string, std::string>& metadata = {});

// Throws std::runtime_error, one line naming the file, when: the file is not
// safetensors; "arch" or "test_accuracy" is missing or malformed (accuracy
// must parse whole as a finite number in [0, 1]); a tensor the architecture
// needs is missing or has another shape; a tensor is left over; a value is
// not finite.
StoredZooModel ReadZooModel(const std::string& path);

// Every *.safetensors directly in `dir`, in byte-wise name order. Throws
// std::runtime_error naming the directory when it cannot be read or holds
// none, and naming the file when two models disagree on channels, size or
// classes (the probes must fit them all).
std::vector<StoredZooModel> ReadZooDir(const std::string& dir);

}  // namespace cb::ref::probegen

#endif  // CB_REFERENCE_PROBEGEN_ZOO_IO_H_
