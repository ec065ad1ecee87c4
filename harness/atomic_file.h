// File: harness/atomic_file.h
// -----------------------------------------------------------------------------
// Writing a file so that a reader never sees a partial one (DESIGN §8: bad
// input or a crash leaves no partial files): write a temporary file in the
// same folder, then rename it over the target.
#ifndef CB_HARNESS_ATOMIC_FILE_H_
#define CB_HARNESS_ATOMIC_FILE_H_

#include <string>
#include <string_view>

namespace cb::harness {

// Writes `text` to `path` through "<path>.tmp.<pid>" and a rename. Throws
// std::runtime_error("cannot write '<path>': ...") and leaves `path` as it
// was on any failure.
void WriteFileAtomically(const std::string& path, std::string_view text);

}  // namespace cb::harness

#endif  // CB_HARNESS_ATOMIC_FILE_H_
