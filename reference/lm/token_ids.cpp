// File: reference/lm/token_ids.cpp
// -----------------------------------------------------------------------------
// JSON Lines token-id reader (contract in token_ids.h).
#include "reference/lm/token_ids.h"

#include <cstdint>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "harness/jsonl.h"

namespace cb::ref::lm {

std::vector<std::vector<int>> ReadTokenIds(const std::string& path, int vocab_size) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot read");
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw std::runtime_error(path + ": cannot read");
  const std::string text = ss.str();

  std::vector<std::vector<int>> out;
  harness::ForEachJsonlObject(text, path, [&](const nlohmann::json& row, const std::string& where) {
    if (!row.contains("ids")) throw std::runtime_error(where + "no \"ids\"");
    const nlohmann::json& ids = row.at("ids");
    if (!ids.is_array()) throw std::runtime_error(where + "\"ids\" is not an array: " + ids.dump());
    if (ids.empty()) throw std::runtime_error(where + "\"ids\" is empty");
    std::vector<int> seq;
    seq.reserve(ids.size());
    for (size_t i = 0; i < ids.size(); ++i) {
      const nlohmann::json& v = ids[i];
      const std::string at = where + "ids[" + std::to_string(i) + "] = " + v.dump();
      if (!v.is_number_integer()) throw std::runtime_error(at + " is not an integer");
      if (v.is_number_unsigned()) {
        if (v.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int>::max()))
          throw std::runtime_error(at + " is larger than 2^31 - 1");
      } else if (v.get<int64_t>() < 0) {
        throw std::runtime_error(at + " is negative");
      } else if (v.get<int64_t>() > std::numeric_limits<int>::max()) {
        throw std::runtime_error(at + " is larger than 2^31 - 1");
      }
      const int id = static_cast<int>(v.get<int64_t>());
      if (vocab_size > 0 && id >= vocab_size)
        throw std::runtime_error(at + " is not below the vocabulary size " + std::to_string(vocab_size));
      seq.push_back(id);
    }
    out.push_back(std::move(seq));
  });
  if (out.empty()) throw std::runtime_error(path + ": no token sequences (expected lines like {\"ids\": [1, 2]})");
  return out;
}

}  // namespace cb::ref::lm
