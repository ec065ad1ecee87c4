// File: harness/input_error.cpp
#include "harness/input_error.h"

namespace cb::harness {

std::string InputWhere(std::string_view source, int64_t line) {
  std::string where(source);
  if (line > 0) where += ":" + std::to_string(line);
  return where + ": ";
}

std::string NameInput(const std::string& where, std::string_view what) {
  if (what.substr(0, where.size()) == where) return std::string(what);
  // A message naming the source with another line ("F:7: ..." inside
  // "F: ...") is kept as it is: it is the more precise one.
  const std::string_view source = std::string_view(where).substr(0, where.find(':'));
  if (!source.empty() && what.substr(0, source.size() + 1) == std::string(source) + ":") return std::string(what);
  return where + std::string(what);
}

}  // namespace cb::harness
