// File: harness/jsonl.h
// Reading JSON Lines input (prediction files of the model evaluations): one
// JSON object per line, blank lines skipped, every error naming its line.
#ifndef CB_HARNESS_JSONL_H_
#define CB_HARNESS_JSONL_H_

#include <functional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace cb::harness {

// Calls `row(object, where)` for each non-blank line of `text`, in order, with
// where = "SOURCE:LINE: " so the callback's own errors can start with it.
// Throws std::runtime_error(where + "not a JSON object") for a line that is
// not one JSON object; any std::exception the callback throws leaves with
// `where` in front (harness/input_error.h), unless its message has it.
void ForEachJsonlObject(std::string_view text, const std::string& source,
                        const std::function<void(const nlohmann::json& object,
                                                 const std::string& where)>& row);

}  // namespace cb::harness

#endif  // CB_HARNESS_JSONL_H_
