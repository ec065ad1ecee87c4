// File: harness/atomic_file.h
// -----------------------------------------------------------------------------
// Writing outputs all or nothing (DESIGN §8: bad input or a crash leaves no
// partial files): every file or folder a command produces is
// built under a temporary name beside its target and renamed into place, so
// a reader (or a rerun after a crash) sees the old state or the whole new
// one, never a part. On failure the temporary is removed and the target is
// left as it was.
//
//   WriteFileAtomically(path, text)       one file from a string
//   WriteFileAtomically(path, fill)       one file streamed by fill(out)
//   WriteDirectoryAtomically(path, fill)  a folder filled by fill(tmp_dir)
//
// Temporary names: "<path>.tmp.<pid>.<n>" for files, "<path>.tmp-<random>"
// for folders (n counts up within the process, so threads never share one).
#ifndef CB_HARNESS_ATOMIC_FILE_H_
#define CB_HARNESS_ATOMIC_FILE_H_

#include <filesystem>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>

namespace cb::harness {

// Throws std::runtime_error("cannot write '<path>'[: <reason>]").
void WriteFileAtomically(const std::string& path, std::string_view text);
// As above; fill writes the bytes to `out` (an exception from fill removes
// the temporary file and propagates unchanged).
void WriteFileAtomically(const std::string& path, const std::function<void(std::ostream& out)>& fill);

// Creates an empty temporary folder beside `path`, calls fill(tmp) to write
// into it, then renames it to `path`. An exception from fill or the rename
// removes the temporary folder and propagates (the rename's as
// std::filesystem::filesystem_error). REQUIRES: path's parent exists and
// `path` does not (checked by the caller, who words the usage error).
void WriteDirectoryAtomically(const std::filesystem::path& path,
                              const std::function<void(const std::filesystem::path& tmp)>& fill);

}  // namespace cb::harness

#endif  // CB_HARNESS_ATOMIC_FILE_H_
