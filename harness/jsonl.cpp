// File: harness/jsonl.cpp
#include "harness/jsonl.h"

#include <stdexcept>
#include <string>

#include "harness/input_error.h"

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
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(line);
    } catch (const nlohmann::json::parse_error& e) {
      throw std::runtime_error(where + "not a JSON object (invalid JSON at column " + std::to_string(e.byte) + ")");
    } catch (const nlohmann::json::exception& e) {  // out_of_range: a number beyond double (1e999)
      const std::string what = e.what();  // "[json.exception.out_of_range.406] number overflow parsing '1e999'"
      throw std::runtime_error(where + "not a JSON object (invalid JSON: " + what.substr(what.find("] ") + 2) + ")");
    }
    if (!j.is_object()) throw std::runtime_error(where + "not a JSON object");
    NamingInput(where, [&] { row(j, where); });  // a callback's stoi, json.at() or check names the line
  }
}

}  // namespace cb::harness
