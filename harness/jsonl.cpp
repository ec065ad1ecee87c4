// File: harness/jsonl.cpp
#include "harness/jsonl.h"

#include <stdexcept>

namespace cb::harness {

void ForEachJsonlObject(std::string_view text, const std::string& source,
                        const std::function<void(const nlohmann::json& object,
                                                 const std::string& where)>& row) {
  size_t line_no = 0, pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    const std::string where = source + ":" + std::to_string(line_no) + ": ";
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object()) throw std::runtime_error(where + "not a JSON object");
    row(j, where);
  }
}

}  // namespace cb::harness
