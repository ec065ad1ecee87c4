// File: suites/lm/bpe_tokenizer_test.cpp
// -----------------------------------------------------------------------------
// Tests of reference/lm/bpe_tokenizer.h: GPT-2's byte alphabet, the chunk
// rule, byte round trips, training against hand-computed merges and against a
// naive trainer that recounts every pair each round, encoding against a naive
// GPT-2 Encoder.bpe, Save/Load round trips and the refusal of malformed
// files, determinism, and a corpus-sized timing (printed, not asserted).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

#include <nlohmann/json.hpp>

#include "fixtures/fresh_seed.h"
#include "harness/hash.h"
#include "harness/random.h"
#include "reference/lm/bpe_tokenizer.h"

namespace cb::ref::lm {
namespace {

namespace fs = std::filesystem;
using Merge = BpeTokenizer::Merge;

// ---------------------------------------------------------------------------
// Random text

// Words over a small alphabet (so pairs repeat and merges are learned),
// separated mostly by one space, sometimes by several or by none at the end.
std::string RandomWords(harness::Rng& rng, int words, std::string_view alphabet) {
  std::string out;
  for (int w = 0; w < words; ++w) {
    if (w > 0) out.append(rng.UniformInt(0, 9) == 0 ? rng.UniformInt(2, 3) : 1, ' ');
    const int len = static_cast<int>(rng.UniformInt(1, 7));
    for (int i = 0; i < len; ++i) out += alphabet[rng.UniformInt(0, alphabet.size() - 1)];
  }
  if (rng.UniformInt(0, 3) == 0) out += ' ';
  return out;
}

// Any bytes, with spaces and newlines over-represented so that chunks vary.
std::string RandomBytes(harness::Rng& rng, size_t max_len) {
  const size_t n = rng.UniformInt(0, max_len);
  std::string out(n, '\0');
  for (char& c : out) {
    const uint64_t k = rng.UniformInt(0, 9);
    c = k == 0 ? ' ' : k == 1 ? '\n' : static_cast<char>(rng.UniformInt(0, 255));
  }
  return out;
}

std::vector<std::string> RandomTexts(harness::Rng& rng, int count, std::string_view alphabet) {
  std::vector<std::string> texts;
  for (int i = 0; i < count; ++i) texts.push_back(RandomWords(rng, static_cast<int>(rng.UniformInt(1, 40)), alphabet));
  return texts;
}

// ---------------------------------------------------------------------------
// Naive references

// The chunks, written independently of SplitChunks: cut before every space.
// A space followed by a space (or the end) then stands alone and a space
// followed by a non-space byte leads its word, which is the documented rule.
std::vector<std::string> NaiveChunks(std::string_view text) {
  std::vector<std::string> out;
  for (const char c : text) {
    if (c == ' ' || out.empty()) out.emplace_back();
    out.back() += c;
  }
  return out;
}

// GPT-2's Encoder.bpe on ids: while some adjacent pair is a merge, take the
// lowest-rank one and merge all its occurrences left to right.
std::vector<int> NaiveEncode(const BpeTokenizer& tok, std::string_view text) {
  std::map<std::pair<int, int>, int> rank;
  for (size_t r = 0; r < tok.merges().size(); ++r)
    rank[{tok.merges()[r].left, tok.merges()[r].right}] = static_cast<int>(r);
  std::vector<int> out;
  for (const std::string& chunk : NaiveChunks(text)) {
    std::vector<int> word;
    for (const char c : chunk) word.push_back(static_cast<uint8_t>(c));
    while (word.size() >= 2) {
      int best = -1;
      for (size_t i = 0; i + 1 < word.size(); ++i) {
        const auto it = rank.find({word[i], word[i + 1]});
        if (it != rank.end() && (best < 0 || it->second < best)) best = it->second;
      }
      if (best < 0) break;
      const Merge m = tok.merges()[best];
      std::vector<int> merged;
      for (size_t i = 0; i < word.size();) {
        if (i + 1 < word.size() && word[i] == m.left && word[i + 1] == m.right) {
          merged.push_back(256 + best);
          i += 2;
        } else {
          merged.push_back(word[i++]);
        }
      }
      word = std::move(merged);
    }
    out.insert(out.end(), word.begin(), word.end());
  }
  return out;
}

// The training rule with nothing incremental: each round recount every
// adjacent pair of every distinct chunk (weighted by frequency), take the
// highest count, the smallest (left, right) on ties, stop below 2.
std::vector<Merge> NaiveTrain(const std::vector<std::string>& texts, int vocab_size) {
  std::map<std::string, int64_t> chunk_counts;
  for (const std::string& t : texts)
    for (const std::string& c : NaiveChunks(t)) ++chunk_counts[c];
  std::vector<std::pair<std::vector<int>, int64_t>> words;
  for (const auto& [c, f] : chunk_counts) {
    std::vector<int> w;
    for (const char ch : c) w.push_back(static_cast<uint8_t>(ch));
    words.emplace_back(std::move(w), f);
  }
  std::vector<Merge> merges;
  while (256 + static_cast<int>(merges.size()) < vocab_size) {
    std::map<std::pair<int, int>, int64_t> counts;
    for (const auto& [w, f] : words)
      for (size_t i = 0; i + 1 < w.size(); ++i) counts[{w[i], w[i + 1]}] += f;
    std::pair<int, int> best{-1, -1};
    int64_t best_count = 1;
    for (const auto& [p, c] : counts)  // ascending pairs: strict > keeps the smallest
      if (c > best_count) best = p, best_count = c;
    if (best.first < 0) break;
    const int x = 256 + static_cast<int>(merges.size());
    merges.push_back({best.first, best.second});
    for (auto& [w, f] : words) {
      std::vector<int> merged;
      for (size_t i = 0; i < w.size();) {
        if (i + 1 < w.size() && w[i] == best.first && w[i + 1] == best.second) {
          merged.push_back(x);
          i += 2;
        } else {
          merged.push_back(w[i++]);
        }
      }
      w = std::move(merged);
    }
  }
  return merges;
}

std::string MergesString(const std::vector<Merge>& merges) {
  std::string s;
  for (const Merge& m : merges) s += "(" + std::to_string(m.left) + "," + std::to_string(m.right) + ")";
  return s;
}

// ---------------------------------------------------------------------------
// Alphabet and chunks

TEST(BpeTokenizerTest, ByteAlphabetIsGpt2BytesToUnicode) {
  // Known symbols of GPT-2's vocabulary: "Ġ" (space), "Ċ" (newline), "ĉ" (tab).
  EXPECT_EQ(BpeTokenizer::ByteSymbol(' '), "\xC4\xA0");   // U+0120
  EXPECT_EQ(BpeTokenizer::ByteSymbol('\n'), "\xC4\x8A");  // U+010A
  EXPECT_EQ(BpeTokenizer::ByteSymbol('\t'), "\xC4\x89");  // U+0109
  EXPECT_EQ(BpeTokenizer::ByteSymbol(0x00), "\xC4\x80");  // U+0100: the first non-printable byte
  EXPECT_EQ(BpeTokenizer::ByteSymbol(0x7F), "\xC4\xA1");  // U+0121: DEL follows the 33 bytes 0..32
  EXPECT_EQ(BpeTokenizer::ByteSymbol(0xA0), "\xC5\x82");  // U+0142
  EXPECT_EQ(BpeTokenizer::ByteSymbol(0xAD), "\xC5\x83");  // U+0143: the 68th and last
  EXPECT_EQ(BpeTokenizer::ByteSymbol('!'), "!");
  EXPECT_EQ(BpeTokenizer::ByteSymbol('~'), "~");
  EXPECT_EQ(BpeTokenizer::ByteSymbol(0xA1), "\xC2\xA1");  // U+00A1 stands for itself
  EXPECT_EQ(BpeTokenizer::ByteSymbol(0xFF), "\xC3\xBF");
  // A bijection onto printable, space-free symbols that round-trips.
  std::set<std::string> seen;
  for (int b = 0; b < 256; ++b) {
    const std::string s(BpeTokenizer::ByteSymbol(static_cast<uint8_t>(b)));
    EXPECT_TRUE(seen.insert(s).second) << b;
    EXPECT_EQ(s.find(' '), std::string::npos) << b;
    EXPECT_EQ(BpeTokenizer::SymbolsToBytes(s), std::string(1, static_cast<char>(b))) << b;
  }
  EXPECT_EQ(BpeTokenizer::SymbolsToBytes("\xC4\xA0the"), " the");
  EXPECT_EQ(BpeTokenizer::SymbolsToBytes(""), "");
  EXPECT_FALSE(BpeTokenizer::SymbolsToBytes("a b"));           // a raw space is no symbol
  EXPECT_FALSE(BpeTokenizer::SymbolsToBytes("\t"));            // nor a raw tab
  EXPECT_FALSE(BpeTokenizer::SymbolsToBytes("\xC4"));          // truncated UTF-8
  EXPECT_FALSE(BpeTokenizer::SymbolsToBytes("\xE2\x82\xAC"));  // U+20AC, three bytes
  EXPECT_FALSE(BpeTokenizer::SymbolsToBytes("\xC5\x84"));      // U+0144, past the table
  EXPECT_FALSE(BpeTokenizer::SymbolsToBytes("\xC2\xAD"));      // U+00AD: byte 0xAD is U+0143
  EXPECT_FALSE(BpeTokenizer::SymbolsToBytes("\xC1\xA1"));      // overlong 'a'
}

TEST(BpeTokenizerTest, ChunksKeepOneLeadingSpace) {
  using V = std::vector<std::string_view>;
  EXPECT_EQ(BpeTokenizer::SplitChunks(""), V{});
  EXPECT_EQ(BpeTokenizer::SplitChunks("a b"), (V{"a", " b"}));
  EXPECT_EQ(BpeTokenizer::SplitChunks("a   b"), (V{"a", " ", " ", " b"}));
  EXPECT_EQ(BpeTokenizer::SplitChunks(" x "), (V{" x", " "}));
  EXPECT_EQ(BpeTokenizer::SplitChunks("  "), (V{" ", " "}));
  EXPECT_EQ(BpeTokenizer::SplitChunks("the cat .\nA dog"), (V{"the", " cat", " .\nA", " dog"}));
}

TEST(BpeTokenizerTest, ChunksMatchNaiveSplitOnRandomBytes) {
  CB_FRESH_SEED(seed);
  harness::Rng rng(seed, 0);
  for (int t = 0; t < 300; ++t) {
    const std::string s = RandomBytes(rng, 64);
    const std::vector<std::string_view> got = BpeTokenizer::SplitChunks(s);
    const std::vector<std::string> want = NaiveChunks(s);
    ASSERT_EQ(std::vector<std::string>(got.begin(), got.end()), want) << "case " << t;
  }
}

// ---------------------------------------------------------------------------
// Round trips and encoding

TEST(BpeTokenizerTest, RoundTripsRandomBytes) {
  CB_FRESH_SEED(seed);
  harness::Rng rng(seed, 0);
  const BpeTokenizer bytes_only;
  const BpeTokenizer trained = BpeTokenizer::Train(RandomTexts(rng, 200, "ab \n\xC3\xA9"), 400);
  ASSERT_GT(trained.merges().size(), 20u);
  for (const BpeTokenizer* tok : {&bytes_only, &trained}) {
    EXPECT_TRUE(tok->Encode("").empty());
    for (int t = 0; t < 300; ++t) {
      const std::string s = t % 2 ? RandomBytes(rng, 300) : RandomWords(rng, 30, "ab \n\xC3\xA9");
      const std::vector<int> ids = tok->Encode(s);
      ASSERT_EQ(tok->Decode(ids), s) << "case " << t;
      for (const int id : ids) ASSERT_TRUE(id >= 0 && id < tok->vocab_size());
    }
  }
  // The byte-level tokenizer is the identity on bytes.
  const std::string s = RandomBytes(rng, 100);
  const std::vector<int> ids = bytes_only.Encode(s);
  ASSERT_EQ(ids.size(), s.size());
  for (size_t i = 0; i < s.size(); ++i) EXPECT_EQ(ids[i], static_cast<uint8_t>(s[i]));
}

TEST(BpeTokenizerTest, EncodeEqualsNaiveGpt2Bpe) {
  CB_FRESH_SEED(seed);
  harness::Rng rng(seed, 0);
  for (int round = 0; round < 5; ++round) {
    const BpeTokenizer tok = BpeTokenizer::Train(RandomTexts(rng, 100, "aab c"), 256 + 150);
    const BpeTokenizer copy = tok;  // a fresh cache
    for (int t = 0; t < 200; ++t) {
      const std::string s = t % 3 == 0 ? RandomBytes(rng, 80) : RandomWords(rng, 20, "aab c");
      const std::vector<int> want = NaiveEncode(tok, s);
      ASSERT_EQ(tok.Encode(s), want) << "round " << round << " case " << t;
      ASSERT_EQ(tok.Encode(s), want) << "cached, round " << round << " case " << t;
      ASSERT_EQ(copy.Encode(s), want) << "copy, round " << round << " case " << t;
    }
  }
  // A chunk too long for the cache takes the same path's result.
  const BpeTokenizer tok = BpeTokenizer::Train(RandomTexts(rng, 100, "ab"), 300);
  std::string long_chunk;
  for (size_t i = 0; i < 3 * BpeTokenizer::kMaxCachedChunkBytes; ++i) long_chunk += "ab"[rng.UniformInt(0, 1)];
  EXPECT_EQ(tok.Encode(long_chunk), NaiveEncode(tok, long_chunk));
}

TEST(BpeTokenizerTest, EncodeIsSafeFromSeveralThreads) {
  CB_FRESH_SEED(seed);
  harness::Rng rng(seed, 0);
  const BpeTokenizer tok = BpeTokenizer::Train(RandomTexts(rng, 200, "abcd"), 512);
  std::vector<std::string> texts = RandomTexts(rng, 200, "abcde");
  std::vector<std::vector<int>> want;
  for (const std::string& t : texts) want.push_back(NaiveEncode(tok, t));
  std::vector<int> mismatches(4, 0);
  std::vector<std::thread> threads;
  for (int k = 0; k < 4; ++k)
    threads.emplace_back([&, k] {
      for (size_t i = 0; i < texts.size(); ++i)
        if (tok.Encode(texts[(i + 50 * k) % texts.size()]) != want[(i + 50 * k) % texts.size()]) ++mismatches[k];
    });
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(mismatches, std::vector<int>(4, 0));
}

// ---------------------------------------------------------------------------
// Training

// Chunks "ab", " ab", " abc". Counts: (a,b) 3, (' ',a) 2, (b,c) 1.
// Round 1 merges (a,b) -> 256 "ab"; the chunks become [256], [' ',256],
// [' ',256,c]: (' ',256) 2, (256,c) 1. Round 2 merges (' ',256) -> 257 " ab";
// then only (257,c) is left, once: stop.
TEST(BpeTokenizerTest, TrainsHandComputedMerges) {
  const std::vector<std::string> texts = {"ab ab abc"};
  const BpeTokenizer tok = BpeTokenizer::Train(texts, 1000);
  EXPECT_EQ(tok.merges(), (std::vector<Merge>{{'a', 'b'}, {' ', 256}}));
  ASSERT_EQ(tok.vocab_size(), 258);
  EXPECT_EQ(tok.TokenBytes(256), "ab");
  EXPECT_EQ(tok.TokenBytes(257), " ab");
  EXPECT_EQ(tok.Encode("ab ab abc"), (std::vector<int>{256, 257, 257, 'c'}));
  EXPECT_EQ(tok.Symbol(257), "\xC4\xA0" "ab");
}

// Chunks "aaa", " aaa": overlapping positions both count, (a,a) = 2 + 2.
// (a,a) -> 256 merges left to right: [256,a], [' ',256,a], so (256,a) is 2
// and (' ',256) is 1: (256,a) -> 257 "aaa", then (' ',257) once: stop.
TEST(BpeTokenizerTest, TrainsOverlappingPairsLeftToRight) {
  const std::vector<std::string> texts = {"aaa aaa"};
  const BpeTokenizer tok = BpeTokenizer::Train(texts, 1000);
  EXPECT_EQ(tok.merges(), (std::vector<Merge>{{'a', 'a'}, {256, 'a'}}));
  EXPECT_EQ(tok.Encode("aaaa"), (std::vector<int>{256, 256}));
  EXPECT_EQ(tok.Encode("aaaaa"), (std::vector<int>{256, 257}));
}

// Chunks "ab", " ab", " cd", " cd": (a,b) 2, (' ',a) 1, (' ',c) 2, (c,d) 2.
// The three-way tie at 2 goes to the smallest pair (32,99); then (a,b) = (97,98)
// and (256,100) tie at 2 and the smaller left id (97) wins; then (256,100).
TEST(BpeTokenizerTest, BreaksTiesBySmallestPair) {
  const std::vector<std::string> texts = {"ab ab cd cd"};
  EXPECT_EQ(BpeTokenizer::Train(texts, 1000).merges(),
            (std::vector<Merge>{{' ', 'c'}, {'a', 'b'}, {256, 'd'}}));
  // vocab_size stops it early, after the first merge.
  EXPECT_EQ(BpeTokenizer::Train(texts, 257).merges(), (std::vector<Merge>{{' ', 'c'}}));
  EXPECT_TRUE(BpeTokenizer::Train(texts, 256).merges().empty());
  // Frequency counts: three copies make " cd" (count 3) beat "ab" (count 2).
  const std::vector<std::string> weighted = {"ab ab", " cd cd", " cd"};
  EXPECT_EQ(BpeTokenizer::Train(weighted, 1000).merges(),
            (std::vector<Merge>{{' ', 'c'}, {256, 'd'}, {'a', 'b'}}));
}

TEST(BpeTokenizerTest, TrainEqualsNaiveRecountingTrainer) {
  CB_FRESH_SEED(seed);
  harness::Rng rng(seed, 0);
  for (int round = 0; round < 8; ++round) {
    const std::string alphabet = round % 2 ? "abc" : "ab\n";
    const std::vector<std::string> texts = RandomTexts(rng, 60, alphabet);
    const int vocab = 256 + static_cast<int>(rng.UniformInt(1, 200));
    const std::vector<Merge> want = NaiveTrain(texts, vocab);
    ASSERT_EQ(MergesString(BpeTokenizer::Train(texts, vocab).merges()), MergesString(want))
        << "round " << round << " vocab " << vocab;
  }
}

TEST(BpeTokenizerTest, TrainIsDeterministicAndOrderFree) {
  CB_FRESH_SEED(seed);
  harness::Rng rng(seed, 0);
  std::vector<std::string> texts = RandomTexts(rng, 300, "abcdef ");
  const BpeTokenizer a = BpeTokenizer::Train(texts, 700);
  const BpeTokenizer b = BpeTokenizer::Train(texts, 700);
  rng.Shuffle(std::span<std::string>(texts));
  const BpeTokenizer c = BpeTokenizer::Train(texts, 700);
  ASSERT_GT(a.merges().size(), 100u);
  EXPECT_EQ(a.merges(), b.merges());
  EXPECT_EQ(a.merges(), c.merges());
  EXPECT_EQ(a.ContentHash(), c.ContentHash());
}

TEST(BpeTokenizerTest, RejectsInvalidArguments) {
  const std::vector<std::string> texts = {"ab ab"};
  EXPECT_THROW(BpeTokenizer::Train(texts, 255), std::invalid_argument);
  // A merge must use earlier ids only ...
  EXPECT_THROW(BpeTokenizer(std::vector<Merge>{{'a', 256}}), std::invalid_argument);
  EXPECT_THROW(BpeTokenizer(std::vector<Merge>{{-1, 'a'}}), std::invalid_argument);
  // ... and make a new token: "abc" as (ab, c) and again as (a, bc).
  try {
    BpeTokenizer(std::vector<Merge>{{'a', 'b'}, {'b', 'c'}, {256, 'c'}, {'a', 257}});
    ADD_FAILURE() << "duplicate token accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("merge 3"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("'abc', which is already a token"), std::string::npos) << e.what();
  }
  const BpeTokenizer tok(std::vector<Merge>{{'a', 'b'}});
  EXPECT_THROW(tok.Decode(std::vector<int>{1, 257}), std::invalid_argument);
  EXPECT_THROW(tok.Decode(std::vector<int>{-1}), std::invalid_argument);
  EXPECT_EQ(tok.Decode(std::vector<int>{256, 'c'}), "abc");
}

// ---------------------------------------------------------------------------
// Files

class BpeFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("cb_bpe_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string Read(const char* name) const {
    std::ifstream in(dir_ / name, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  void Write(const char* name, const std::string& text) const {
    std::ofstream out(dir_ / name, std::ios::binary | std::ios::trunc);
    out << text;
  }
  // Load must throw one line containing `where` (file, maybe ":LINE") and `what`.
  void ExpectLoadError(const std::string& where, const std::string& what) const {
    try {
      BpeTokenizer::Load(dir_.string());
      ADD_FAILURE() << "accepted; expected " << what;
    } catch (const std::runtime_error& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find((dir_ / where).string()), std::string::npos) << msg;
      EXPECT_NE(msg.find(what), std::string::npos) << msg;
      EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    }
  }
  fs::path dir_;
};

TEST_F(BpeFilesTest, SaveLoadRoundTrips) {
  CB_FRESH_SEED(seed);
  harness::Rng rng(seed, 0);
  const BpeTokenizer tok = BpeTokenizer::Train(RandomTexts(rng, 300, "ab\"\\\n\xC3\xA9"), 600);
  ASSERT_GT(tok.merges().size(), 50u);
  tok.Save(dir_.string());

  // merges.txt is what MergesText says and what ContentHash hashes.
  const std::string merges = Read("merges.txt");
  EXPECT_EQ(merges, tok.MergesText());
  EXPECT_EQ(merges.substr(0, 14), "#version: 0.2\n");
  EXPECT_EQ(merges.back(), '\n');
  EXPECT_EQ(static_cast<size_t>(std::count(merges.begin(), merges.end(), '\n')), tok.merges().size() + 1);
  EXPECT_EQ(tok.ContentHash(), harness::Xxh3_128(merges).Hex());
  // vocab.json maps each token's symbols to its id.
  const nlohmann::json vocab = nlohmann::json::parse(Read("vocab.json"));
  ASSERT_EQ(static_cast<int>(vocab.size()), tok.vocab_size());
  EXPECT_EQ(vocab.at("\xC4\xA0").get<int>(), ' ');
  EXPECT_EQ(vocab.at("\"").get<int>(), '"');
  EXPECT_EQ(vocab.at("\\").get<int>(), '\\');
  for (int id = 0; id < tok.vocab_size(); ++id) ASSERT_EQ(vocab.at(tok.Symbol(id)).get<int>(), id);

  const BpeTokenizer back = BpeTokenizer::Load(dir_.string());
  EXPECT_EQ(back.merges(), tok.merges());
  EXPECT_EQ(back.ContentHash(), tok.ContentHash());
  for (int t = 0; t < 100; ++t) {
    const std::string s = t % 2 ? RandomBytes(rng, 100) : RandomWords(rng, 20, "ab\"\\\n\xC3\xA9");
    ASSERT_EQ(back.Encode(s), tok.Encode(s)) << "case " << t;
  }
  // Saving over existing files replaces them; nothing else is left behind.
  BpeTokenizer().Save(dir_.string());
  EXPECT_EQ(Read("merges.txt"), "#version: 0.2\n");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 2);
  EXPECT_TRUE(BpeTokenizer::Load(dir_.string()).merges().empty());
  EXPECT_NE(BpeTokenizer().ContentHash(), tok.ContentHash());
  EXPECT_THROW(tok.Save((dir_ / "missing").string()), std::invalid_argument);
}

TEST_F(BpeFilesTest, LoadRejectsMalformedFiles) {
  // A valid pair to corrupt: merges (a,b) -> 256, (' ',256) -> 257.
  const BpeTokenizer tok(std::vector<Merge>{{'a', 'b'}, {' ', 256}});
  tok.Save(dir_.string());
  const std::string merges = Read("merges.txt");
  const std::string vocab = Read("vocab.json");
  ASSERT_EQ(merges, "#version: 0.2\na b\n\xC4\xA0 ab\n");
  EXPECT_EQ(BpeTokenizer::Load(dir_.string()).merges(), tok.merges());

  auto with_merges = [&](const std::string& text) { Write("merges.txt", text); };
  with_merges("#version: 0.3\na b\n");
  ExpectLoadError("merges.txt:1: ", "expected the header \"#version: 0.2\"");
  with_merges("");
  ExpectLoadError("merges.txt:1: ", "empty file");
  with_merges("#version: 0.2\na b\n\n\xC4\xA0 ab\n");
  ExpectLoadError("merges.txt:3: ", "expected two symbol strings separated by one space");
  with_merges("#version: 0.2\na b c\n");
  ExpectLoadError("merges.txt:2: ", "expected two symbol strings separated by one space");
  with_merges("#version: 0.2\na  b\n");
  ExpectLoadError("merges.txt:2: ", "expected two symbol strings separated by one space");
  with_merges("#version: 0.2\na b\n\xE2\x82\xAC" " ab\n");
  ExpectLoadError("merges.txt:3: ", "outside GPT-2's byte alphabet");
  with_merges("#version: 0.2\nab c\n");
  ExpectLoadError("merges.txt:2: ", "\"ab\" is not a token");
  with_merges("#version: 0.2\na b\nb c\nab c\na bc\n");
  ExpectLoadError("merges.txt:5: ", "the merge makes 'abc', which is already token 258");

  with_merges(merges);
  Write("vocab.json", "{\"a\": 97,");
  ExpectLoadError("vocab.json: ", "not valid JSON");
  Write("vocab.json", "[1, 2]");
  ExpectLoadError("vocab.json: ", "not a JSON object");
  nlohmann::json v = nlohmann::json::parse(vocab);
  v.erase("\xC4\xA0" "ab");
  Write("vocab.json", v.dump());
  ExpectLoadError("vocab.json: ", "has 257 entries, but merges.txt defines 258 tokens");
  v = nlohmann::json::parse(vocab);
  v["ab"] = 257;
  v["\xC4\xA0" "ab"] = 256;
  Write("vocab.json", v.dump());
  ExpectLoadError("vocab.json: ", "entry \"ab\" has id 257, but merges.txt's order gives 256");
  v = nlohmann::json::parse(vocab);
  v["ab"] = "256";
  Write("vocab.json", v.dump());
  ExpectLoadError("vocab.json: ", "entry \"ab\" has id \"256\"");
  v = nlohmann::json::parse(vocab);
  v.erase("ab");
  v["abab"] = 256;
  Write("vocab.json", v.dump());
  ExpectLoadError("vocab.json: ", "entry \"abab\" is not a token of merges.txt");
  v = nlohmann::json::parse(vocab);
  v.erase("ab");
  v["a b"] = 256;
  Write("vocab.json", v.dump());
  ExpectLoadError("vocab.json: ", "entry \"a b\" holds a character outside GPT-2's byte alphabet");

  fs::remove(dir_ / "vocab.json");
  ExpectLoadError("vocab.json", "cannot read");
  fs::remove(dir_ / "merges.txt");
  ExpectLoadError("merges.txt", "cannot read");
}

// ---------------------------------------------------------------------------
// Speed (printed only): ~1 MB of corpus-like text, Zipfian words of
// lowercase letters with "." sentence ends, single spaces, as
// generators/corpora renders it (this suite does not link generators/; the
// README gives the time on MakeMiaCorpus itself).

TEST(BpeTokenizerTest, CorpusSizedTrainingSpeed) {
  CB_FRESH_SEED(seed);
  harness::Rng rng(seed, 0);
  constexpr int kWords = 4096;
  std::vector<std::string> lexicon = {"."};
  while (static_cast<int>(lexicon.size()) < kWords) {
    std::string w;
    const int len = static_cast<int>(rng.UniformInt(2, 9));
    for (int i = 0; i < len; ++i) w += static_cast<char>('a' + rng.UniformInt(0, 25));
    lexicon.push_back(w);
  }
  std::vector<double> cdf(kWords);
  double total = 0;
  for (int i = 0; i < kWords; ++i) cdf[i] = total += 1.0 / std::pow(i + 1.0, 1.05);
  std::vector<std::string> texts;
  size_t bytes = 0;
  while (bytes < (1u << 20)) {
    std::string doc;
    for (int w = 0; w < 200; ++w) {
      const double u = rng.Uniform() * total;
      const size_t k = std::min<size_t>(std::lower_bound(cdf.begin(), cdf.end(), u) - cdf.begin(), kWords - 1);
      if (w) doc += ' ';
      doc += lexicon[k];
    }
    bytes += doc.size();
    texts.push_back(std::move(doc));
  }

  const auto t0 = std::chrono::steady_clock::now();
  const BpeTokenizer tok = BpeTokenizer::Train(texts, 4096);
  const auto t1 = std::chrono::steady_clock::now();
  size_t tokens = 0;
  for (const std::string& t : texts) tokens += tok.Encode(t).size();
  const auto t2 = std::chrono::steady_clock::now();
  const double train_s = std::chrono::duration<double>(t1 - t0).count();
  const double encode_s = std::chrono::duration<double>(t2 - t1).count();
  std::printf("[ bpe ] train %zu bytes (%zu texts) -> vocab %d in %.3f s; encode %zu tokens in %.3f s (%.1f MB/s)\n",
              bytes, texts.size(), tok.vocab_size(), train_s, tokens, encode_s, bytes / 1e6 / encode_s);
  EXPECT_EQ(tok.vocab_size(), 4096);
  for (size_t i = 0; i < texts.size(); i += 97) ASSERT_EQ(tok.Decode(tok.Encode(texts[i])), texts[i]);
}

}  // namespace
}  // namespace cb::ref::lm
