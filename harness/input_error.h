// File: harness/input_error.h
// -----------------------------------------------------------------------------
// One error path for every reader of user input (prediction and statistics
// files, exports, benchmark JSON, checkpoints): an error about an input names
// it, as "SOURCE:LINE: what" for line-based formats and "SOURCE: what"
// otherwise, whatever raised it (a reader's own check, nlohmann's parser,
// std::stoi). claimbench prints it as one line and exits 3.
//
//   for each line:
//     const std::string where = InputWhere(path, line_no);
//     NamingInput(where, [&] { ... parse and check the line ... });
#ifndef CB_HARNESS_INPUT_ERROR_H_
#define CB_HARNESS_INPUT_ERROR_H_

#include <cstdint>
#include <exception>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace cb::harness {

// "SOURCE:LINE: " when line > 0, else "SOURCE: ".
std::string InputWhere(std::string_view source, int64_t line = 0);

// `what` with `where` in front, unless it already starts with it (a reader
// that named the input itself is not named twice).
std::string NameInput(const std::string& where, std::string_view what);

// Calls fn() and returns what it returns; a std::exception from it leaves as
// std::runtime_error(NameInput(where, e.what())). Anything else (Interrupted,
// which is no std::exception) passes through unchanged.
template <class F>
decltype(auto) NamingInput(const std::string& where, F&& fn) {
  try {
    return std::forward<F>(fn)();
  } catch (const std::exception& e) {
    throw std::runtime_error(NameInput(where, e.what()));
  }
}

}  // namespace cb::harness

#endif  // CB_HARNESS_INPUT_ERROR_H_
