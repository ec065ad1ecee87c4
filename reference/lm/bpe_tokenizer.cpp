// File: reference/lm/bpe_tokenizer.cpp
// -----------------------------------------------------------------------------
// Byte-level BPE: training with incremental pair counts, GPT-2 BPE encoding
// with a heap, GPT-2 merges.txt / vocab.json I/O (contract in bpe_tokenizer.h).
#include "reference/lm/bpe_tokenizer.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <queue>
#include <sstream>
#include <stdexcept>
#include <unordered_set>
#include <utility>

#include <nlohmann/json.hpp>

#include "harness/atomic_file.h"
#include "harness/hash.h"

namespace cb::ref::lm {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr int kBytes = 256;

uint64_t PairKey(int left, int right) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(left)) << 32) | static_cast<uint32_t>(right);
}
int KeyLeft(uint64_t key) { return static_cast<int>(key >> 32); }
int KeyRight(uint64_t key) { return static_cast<int>(key & 0xffffffffu); }

// GPT-2's bytes_to_unicode (openai/gpt-2 src/encoder.py):
//   bs = list(range(ord("!"), ord("~")+1)) + list(range(ord("¡"), ord("¬")+1))
//        + list(range(ord("®"), ord("ÿ")+1))
//   cs = bs[:]; n = 0
//   for b in range(2**8):
//       if b not in bs: bs.append(b); cs.append(2**8+n); n += 1
// i.e. printable bytes stand for themselves and the 68 others (controls, the
// space, DEL, 0x80..0xA0, the soft hyphen 0xAD) take U+0100.. in byte order.
// Why: the symbols are then printable, contain no whitespace (so merges.txt
// can split a line on its space) and are reversible.
struct SymbolTable {
  std::array<std::string, kBytes> symbol;  // byte -> UTF-8 of its code point
  std::array<int, 0x100 + 68> byte_of;     // code point -> byte, -1 if none
  SymbolTable() {
    byte_of.fill(-1);
    int n = 0;
    for (int b = 0; b < kBytes; ++b) {
      const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
      const int cp = printable ? b : 0x100 + n++;
      byte_of[cp] = b;
      if (cp < 0x80) {
        symbol[b] = std::string(1, static_cast<char>(cp));
      } else {  // two-byte UTF-8 (cp < 0x800)
        symbol[b] = {static_cast<char>(0xC0 | (cp >> 6)), static_cast<char>(0x80 | (cp & 0x3F))};
      }
    }
  }
};

const SymbolTable& Symbols() {
  static const SymbolTable table;
  return table;
}

// Calls f(chunk) for each pre-tokenization chunk of `text`, in order (rules in
// bpe_tokenizer.h): a space starts a chunk and takes the following run of
// non-space bytes, or stands alone when the next byte is a space or the end.
template <class F>
void ForEachChunk(std::string_view text, F&& f) {
  const size_t n = text.size();
  size_t i = 0;
  while (i < n) {
    size_t j = i;
    if (text[j] == ' ') ++j;
    while (j < n && text[j] != ' ') ++j;
    f(text.substr(i, j - i));
    i = j;
  }
}

std::string ReadText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path.string() + ": cannot read");
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw std::runtime_error(path.string() + ": cannot read");
  return ss.str();
}

// A token's bytes for messages: its GPT-2 symbols, quoted.
std::string Quoted(std::string_view bytes) { return "'" + BpeTokenizer::BytesToSymbols(bytes) + "'"; }

struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

}  // namespace

struct BpeTokenizer::Cache {
  std::mutex mu;
  std::unordered_map<std::string, std::vector<int>, StringHash, std::equal_to<>> ids;
};

// -----------------------------------------------------------------------------
// Construction

BpeTokenizer::BpeTokenizer() : BpeTokenizer(std::vector<Merge>{}) {}

BpeTokenizer::BpeTokenizer(std::vector<Merge> merges)
    : merges_(std::move(merges)), cache_(std::make_unique<Cache>()) {
  tokens_.reserve(kBytes + merges_.size());
  for (int b = 0; b < kBytes; ++b) tokens_.emplace_back(1, static_cast<char>(b));
  std::unordered_set<std::string> seen(tokens_.begin(), tokens_.end());
  pair_rank_.reserve(merges_.size());
  for (size_t r = 0; r < merges_.size(); ++r) {
    const Merge m = merges_[r];
    const int id = kBytes + static_cast<int>(r);
    const std::string where = "BpeTokenizer: merge " + std::to_string(r) + " (" + std::to_string(m.left) +
                              ", " + std::to_string(m.right) + ")";
    if (m.left < 0 || m.left >= id || m.right < 0 || m.right >= id)
      throw std::invalid_argument(where + " uses an id that is not below its own id " + std::to_string(id));
    std::string bytes = tokens_[m.left] + tokens_[m.right];
    if (!seen.insert(bytes).second)
      throw std::invalid_argument(where + " makes " + Quoted(bytes) + ", which is already a token");
    tokens_.push_back(std::move(bytes));
    pair_rank_.emplace(PairKey(m.left, m.right), static_cast<int>(r));
  }
}

BpeTokenizer::BpeTokenizer(const BpeTokenizer& other)
    : merges_(other.merges_), tokens_(other.tokens_), pair_rank_(other.pair_rank_),
      cache_(std::make_unique<Cache>()) {}

BpeTokenizer& BpeTokenizer::operator=(const BpeTokenizer& other) {
  if (this != &other) {
    BpeTokenizer copy(other);
    *this = std::move(copy);
  }
  return *this;
}

BpeTokenizer::BpeTokenizer(BpeTokenizer&& other) noexcept = default;
BpeTokenizer& BpeTokenizer::operator=(BpeTokenizer&& other) noexcept = default;
BpeTokenizer::~BpeTokenizer() = default;

// -----------------------------------------------------------------------------
// Symbols and chunks

std::string_view BpeTokenizer::ByteSymbol(uint8_t b) { return Symbols().symbol[b]; }

std::string BpeTokenizer::BytesToSymbols(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size() * 2);
  for (const char c : bytes) out += Symbols().symbol[static_cast<uint8_t>(c)];
  return out;
}

std::optional<std::string> BpeTokenizer::SymbolsToBytes(std::string_view symbols) {
  const SymbolTable& t = Symbols();
  std::string out;
  out.reserve(symbols.size());
  for (size_t i = 0; i < symbols.size();) {
    const auto b0 = static_cast<uint8_t>(symbols[i]);
    int cp;
    if (b0 < 0x80) {
      cp = b0;
      i += 1;
    } else if (b0 >= 0xC2 && b0 <= 0xDF && i + 1 < symbols.size() &&
               (static_cast<uint8_t>(symbols[i + 1]) & 0xC0) == 0x80) {
      cp = ((b0 & 0x1F) << 6) | (static_cast<uint8_t>(symbols[i + 1]) & 0x3F);
      i += 2;
    } else {
      return std::nullopt;  // not a 1- or 2-byte UTF-8 sequence: no symbol is
    }
    if (cp >= static_cast<int>(t.byte_of.size()) || t.byte_of[cp] < 0) return std::nullopt;
    out += static_cast<char>(t.byte_of[cp]);
  }
  return out;
}

std::vector<std::string_view> BpeTokenizer::SplitChunks(std::string_view text) {
  std::vector<std::string_view> out;
  ForEachChunk(text, [&](std::string_view c) { out.push_back(c); });
  return out;
}

// -----------------------------------------------------------------------------
// Training

BpeTokenizer BpeTokenizer::Train(std::span<const std::string> texts, int vocab_size) {
  if (vocab_size < kBytes)
    throw std::invalid_argument("BpeTokenizer::Train: vocab_size " + std::to_string(vocab_size) +
                                " is below the 256 byte tokens");

  // Distinct chunks and their frequencies. Sorted, so that word indices (and
  // everything derived from them) never depend on hash-table order; the
  // merges would not anyway, since every choice below is a total order on
  // (count, pair).
  std::vector<std::pair<std::string_view, int64_t>> chunk_counts;
  {
    std::unordered_map<std::string_view, int64_t> counts;
    for (const std::string& text : texts) ForEachChunk(text, [&](std::string_view c) { ++counts[c]; });
    chunk_counts.assign(counts.begin(), counts.end());
    std::sort(chunk_counts.begin(), chunk_counts.end());
  }

  struct Word {
    std::vector<int> syms;  // (current length) token ids
    int64_t freq;
  };
  std::vector<Word> words;
  for (const auto& [chunk, freq] : chunk_counts) {
    if (chunk.size() < 2) continue;  // holds no pair
    Word w{std::vector<int>(chunk.size()), freq};
    for (size_t i = 0; i < chunk.size(); ++i) w.syms[i] = static_cast<uint8_t>(chunk[i]);
    words.push_back(std::move(w));
  }

  // pair_count[key]: frequency-weighted number of adjacent positions holding
  // the pair (entries reaching 0 are erased). where[key]: indices of words
  // that hold or held it (duplicates and stale entries are fine: checked on
  // use). Only pairs containing the newly merged token can be created, so an
  // existing pair's count never rises: that is what lets the heap below be
  // lazy.
  std::unordered_map<uint64_t, int64_t> pair_count;
  std::unordered_map<uint64_t, std::vector<int>> where;
  for (int w = 0; w < static_cast<int>(words.size()); ++w) {
    const std::vector<int>& s = words[w].syms;
    for (size_t i = 0; i + 1 < s.size(); ++i) {
      const uint64_t key = PairKey(s[i], s[i + 1]);
      pair_count[key] += words[w].freq;
      std::vector<int>& ws = where[key];
      if (ws.empty() || ws.back() != w) ws.push_back(w);
    }
  }

  // Max-heap on (count, then the smaller pair key first). Entries may be
  // stale (count since lowered): a popped entry whose count differs from the
  // true one is pushed back with the true count. Since true <= stored for
  // every entry, the first popped entry that is up to date is the true best.
  struct Entry {
    int64_t count;
    uint64_t key;
  };
  auto worse = [](const Entry& a, const Entry& b) {
    return a.count != b.count ? a.count < b.count : a.key > b.key;
  };
  std::priority_queue<Entry, std::vector<Entry>, decltype(worse)> heap(worse);
  for (const auto& [key, count] : pair_count)
    if (count >= 2) heap.push({count, key});

  std::vector<std::string> tokens;
  for (int b = 0; b < kBytes; ++b) tokens.emplace_back(1, static_cast<char>(b));
  std::unordered_set<std::string> token_set(tokens.begin(), tokens.end());
  std::vector<Merge> merges;

  auto count_of = [&](uint64_t key) -> int64_t {
    const auto it = pair_count.find(key);
    return it == pair_count.end() ? 0 : it->second;
  };
  auto add = [&](uint64_t key, int64_t delta) {
    const auto it = pair_count.try_emplace(key, 0).first;
    it->second += delta;
    if (it->second == 0) pair_count.erase(it);
  };

  std::vector<uint64_t> new_keys;
  while (static_cast<int>(tokens.size()) < vocab_size && !heap.empty()) {
    const Entry top = heap.top();
    heap.pop();
    const int64_t count = count_of(top.key);
    if (count != top.count) {
      if (count >= 2) heap.push({count, top.key});
      continue;
    }
    const int a = KeyLeft(top.key), b = KeyRight(top.key);
    std::string bytes = tokens[a] + tokens[b];
    // Already a token (made by another pair): cannot happen here (see Train
    // in the header); guarded so that a token always has exactly one id.
    if (token_set.contains(bytes)) continue;

    const int x = static_cast<int>(tokens.size());
    token_set.insert(bytes);
    tokens.push_back(std::move(bytes));
    merges.push_back({a, b});

    std::vector<int> ws = std::move(where[top.key]);
    where.erase(top.key);
    std::sort(ws.begin(), ws.end());
    ws.erase(std::unique(ws.begin(), ws.end()), ws.end());
    new_keys.clear();
    for (const int w : ws) {
      std::vector<int>& s = words[w].syms;
      const int64_t f = words[w].freq;
      bool holds = false;
      for (size_t i = 0; i + 1 < s.size() && !holds; ++i) holds = s[i] == a && s[i + 1] == b;
      if (!holds) continue;
      // Words are short (one chunk), so take the whole word's pairs out and
      // put the merged word's back: simpler than patching each site, and the
      // same counts.
      for (size_t i = 0; i + 1 < s.size(); ++i) add(PairKey(s[i], s[i + 1]), -f);
      size_t j = 0;
      for (size_t i = 0; i < s.size();) {
        if (i + 1 < s.size() && s[i] == a && s[i + 1] == b) {
          s[j++] = x;
          i += 2;
        } else {
          s[j++] = s[i++];
        }
      }
      s.resize(j);
      for (size_t i = 0; i + 1 < s.size(); ++i) {
        const uint64_t key = PairKey(s[i], s[i + 1]);
        add(key, f);
        if (s[i] == x || s[i + 1] == x) {
          std::vector<int>& list = where[key];
          if (list.empty() || list.back() != w) list.push_back(w);
          new_keys.push_back(key);
        }
      }
    }
    std::sort(new_keys.begin(), new_keys.end());
    new_keys.erase(std::unique(new_keys.begin(), new_keys.end()), new_keys.end());
    for (const uint64_t key : new_keys) {
      const int64_t c = count_of(key);
      if (c >= 2) heap.push({c, key});
    }
  }
  return BpeTokenizer(std::move(merges));
}

// -----------------------------------------------------------------------------
// Encoding

void BpeTokenizer::EncodeChunk(std::string_view chunk, std::vector<int>& out) const {
  const int n = static_cast<int>(chunk.size());
  if (n == 0) return;
  // sym[i]: the token starting at original byte i (-1 once merged into its
  // left neighbour); next/prev link the live positions.
  std::vector<int> sym(n), next(n), prev(n);
  for (int i = 0; i < n; ++i) {
    sym[i] = static_cast<uint8_t>(chunk[i]);
    next[i] = i + 1 < n ? i + 1 : -1;
    prev[i] = i - 1;
  }
  auto rank_of = [&](int left, int right) {
    const auto it = pair_rank_.find(PairKey(left, right));
    return it == pair_rank_.end() ? -1 : it->second;
  };
  // Min-heap on (rank, position): the lowest-rank pair first and, within a
  // rank, leftmost first, which is GPT-2's left-to-right non-overlapping pass.
  // A merge only creates pairs with the new token, whose ranks are all higher
  // (a merge's ids are below its own id), so no later push can undercut the
  // rank being applied: the order equals Encoder.bpe's round by round.
  using Item = std::pair<int, int>;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> heap;
  for (int i = 0; i + 1 < n; ++i)
    if (const int r = rank_of(sym[i], sym[i + 1]); r >= 0) heap.push({r, i});
  while (!heap.empty()) {
    const auto [r, i] = heap.top();
    heap.pop();
    const int j = sym[i] < 0 ? -1 : next[i];
    if (j < 0 || rank_of(sym[i], sym[j]) != r) continue;  // stale
    sym[i] = kBytes + r;
    sym[j] = -1;
    next[i] = next[j];
    if (next[j] >= 0) prev[next[j]] = i;
    if (prev[i] >= 0)
      if (const int rr = rank_of(sym[prev[i]], sym[i]); rr >= 0) heap.push({rr, prev[i]});
    if (next[i] >= 0)
      if (const int rr = rank_of(sym[i], sym[next[i]]); rr >= 0) heap.push({rr, i});
  }
  for (int i = 0; i >= 0; i = next[i]) out.push_back(sym[i]);
}

std::vector<int> BpeTokenizer::Encode(std::string_view text) const {
  std::vector<int> out;
  out.reserve(text.size() / 3 + 1);
  ForEachChunk(text, [&](std::string_view chunk) {
    if (!cache_ || chunk.size() > kMaxCachedChunkBytes) {
      EncodeChunk(chunk, out);
      return;
    }
    {
      std::lock_guard<std::mutex> lock(cache_->mu);
      if (const auto it = cache_->ids.find(chunk); it != cache_->ids.end()) {
        out.insert(out.end(), it->second.begin(), it->second.end());
        return;
      }
    }
    const size_t start = out.size();
    EncodeChunk(chunk, out);
    std::lock_guard<std::mutex> lock(cache_->mu);
    if (cache_->ids.size() < kMaxCachedChunks)
      cache_->ids.emplace(std::string(chunk), std::vector<int>(out.begin() + start, out.end()));
  });
  return out;
}

std::string BpeTokenizer::Decode(std::span<const int> ids) const {
  std::string out;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] < 0 || ids[i] >= vocab_size())
      throw std::invalid_argument("BpeTokenizer::Decode: ids[" + std::to_string(i) + "] = " +
                                  std::to_string(ids[i]) + " is not in [0, " + std::to_string(vocab_size()) +
                                  ")");
    out += tokens_[ids[i]];
  }
  return out;
}

const std::string& BpeTokenizer::TokenBytes(int id) const {
  if (id < 0 || id >= vocab_size())
    throw std::invalid_argument("BpeTokenizer::TokenBytes: id " + std::to_string(id) + " is not in [0, " +
                                std::to_string(vocab_size()) + ")");
  return tokens_[id];
}

// -----------------------------------------------------------------------------
// Files

std::string BpeTokenizer::MergesText() const {
  std::string out = std::string(kBpeMergesHeader) + "\n";
  for (const Merge& m : merges_) out += Symbol(m.left) + " " + Symbol(m.right) + "\n";
  return out;
}

std::string BpeTokenizer::ContentHash() const { return harness::Xxh3_128(MergesText()).Hex(); }

void BpeTokenizer::Save(const std::string& dir) const {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw std::invalid_argument("BpeTokenizer::Save: '" + dir + "' is not an existing directory");
  // vocab.json: one entry per line, in id order (json::dump escapes '"', '\\').
  std::string vocab = "{\n";
  for (int id = 0; id < vocab_size(); ++id) {
    vocab += "  " + json(Symbol(id)).dump() + ": " + std::to_string(id);
    vocab += id + 1 < vocab_size() ? ",\n" : "\n";
  }
  vocab += "}\n";
  harness::WriteFileAtomically((fs::path(dir) / kBpeMergesFile).string(), MergesText());
  harness::WriteFileAtomically((fs::path(dir) / kBpeVocabFile).string(), vocab);
}

BpeTokenizer BpeTokenizer::Load(const std::string& dir) {
  const fs::path merges_path = fs::path(dir) / kBpeMergesFile;
  const fs::path vocab_path = fs::path(dir) / kBpeVocabFile;

  // merges.txt: the header, then "LEFT RIGHT" lines; the final '\n' is optional.
  const std::string text = ReadText(merges_path);
  std::vector<Merge> merges;
  std::unordered_map<std::string, int> id_of;  // bytes -> id
  for (int b = 0; b < kBytes; ++b) id_of.emplace(std::string(1, static_cast<char>(b)), b);
  size_t pos = 0;
  for (int line_no = 1; pos < text.size(); ++line_no) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    const std::string_view line = std::string_view(text).substr(pos, end - pos);
    pos = end + 1;
    const std::string at = merges_path.string() + ":" + std::to_string(line_no) + ": ";
    if (line_no == 1) {
      if (line != kBpeMergesHeader)
        throw std::runtime_error(at + "expected the header \"" + kBpeMergesHeader + "\", got \"" +
                                 std::string(line.substr(0, 40)) + "\"");
      continue;
    }
    const size_t space = line.find(' ');
    if (line.empty() || space == std::string_view::npos || space == 0 || space + 1 == line.size() ||
        line.find(' ', space + 1) != std::string_view::npos)
      throw std::runtime_error(at + "expected two symbol strings separated by one space, got \"" +
                               std::string(line.substr(0, 80)) + "\"");
    int ids[2];
    std::string bytes;  // the merged token's
    for (int k = 0; k < 2; ++k) {
      const std::string_view part = k == 0 ? line.substr(0, space) : line.substr(space + 1);
      const std::optional<std::string> part_bytes = SymbolsToBytes(part);
      if (!part_bytes)
        throw std::runtime_error(at + "\"" + std::string(part) + "\" holds a character outside GPT-2's byte alphabet");
      const auto it = id_of.find(*part_bytes);
      if (it == id_of.end())
        throw std::runtime_error(at + "\"" + std::string(part) +
                                 "\" is not a token (neither a byte nor made by an earlier merge)");
      ids[k] = it->second;
      bytes += *part_bytes;
    }
    const int id = kBytes + static_cast<int>(merges.size());
    if (const auto it = id_of.find(bytes); it != id_of.end())
      throw std::runtime_error(at + "the merge makes " + Quoted(bytes) + ", which is already token " +
                               std::to_string(it->second));
    id_of.emplace(std::move(bytes), id);
    merges.push_back({ids[0], ids[1]});
  }
  if (pos == 0)
    throw std::runtime_error(merges_path.string() + ":1: empty file (expected \"" + kBpeMergesHeader + "\")");

  // vocab.json: exactly the tokens of merges.txt with their ids.
  const std::string vtext = ReadText(vocab_path);
  const std::string vat = vocab_path.string() + ": ";
  json vocab;
  try {
    vocab = json::parse(vtext);
  } catch (const json::exception& e) {  // parse_error, and out_of_range for 1e999
    throw std::runtime_error(vat + "not valid JSON: " + e.what());
  }
  if (!vocab.is_object()) throw std::runtime_error(vat + "not a JSON object");
  if (vocab.size() != id_of.size())
    throw std::runtime_error(vat + "has " + std::to_string(vocab.size()) + " entries, but merges.txt defines " +
                             std::to_string(id_of.size()) + " tokens (256 bytes + " +
                             std::to_string(merges.size()) + " merges)");
  for (const auto& [key, value] : vocab.items()) {
    const std::string entry = "entry " + json(key).dump();
    const std::optional<std::string> bytes = SymbolsToBytes(key);
    if (!bytes) throw std::runtime_error(vat + entry + " holds a character outside GPT-2's byte alphabet");
    const auto it = id_of.find(*bytes);
    if (it == id_of.end()) throw std::runtime_error(vat + entry + " is not a token of merges.txt");
    if (!value.is_number_integer() || value.get<int64_t>() != it->second)
      throw std::runtime_error(vat + entry + " has id " + value.dump() + ", but merges.txt's order gives " +
                               std::to_string(it->second));
  }
  return BpeTokenizer(std::move(merges));
}

}  // namespace cb::ref::lm
