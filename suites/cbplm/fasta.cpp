// File: suites/cbplm/fasta.cpp
#include "suites/cbplm/fasta.h"

#include <algorithm>
#include <stdexcept>

#include "harness/input_error.h"

namespace cb::cbplm {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

}  // namespace

std::vector<FastaRecord> ParseFasta(std::string_view text, const std::string& source) {
  std::vector<FastaRecord> records;
  auto close_last = [&] {
    if (!records.empty() && records.back().sequence.empty())
      throw std::runtime_error(harness::InputWhere(source, records.back().line) + "record '" + records.back().id +
                               "' has no residues");
  };
  int line_no = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t end = std::min(text.find('\n', pos), text.size());
    const std::string_view raw = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    for (char c : raw) {
      const auto u = static_cast<unsigned char>(c);
      if ((u < 0x20 && !IsSpace(c)) || u >= 0x7f)
        throw std::runtime_error(harness::InputWhere(source, line_no) +
                                 "a byte outside printable ASCII (" + std::to_string(u) + ")");
    }
    const std::string_view line = Trim(raw);
    if (line.empty()) continue;
    if (line.front() == '>') {
      close_last();
      const std::string_view header = Trim(line.substr(1));
      size_t word = 0;
      while (word < header.size() && !IsSpace(header[word])) ++word;
      if (word == 0) throw std::runtime_error(harness::InputWhere(source, line_no) + "a header without an id");
      records.push_back({std::string(header.substr(0, word)), std::string(Trim(header.substr(word))), "", line_no});
      continue;
    }
    if (records.empty())
      throw std::runtime_error(harness::InputWhere(source, line_no) + "sequence text before the first '>' header");
    for (char c : line) {
      if (!IsSpace(c)) records.back().sequence += c;
    }
  }
  close_last();
  if (records.empty()) throw std::runtime_error(harness::InputWhere(source) + "no FASTA records");
  return records;
}

}  // namespace cb::cbplm
