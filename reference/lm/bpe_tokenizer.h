// File: reference/lm/bpe_tokenizer.h
// -----------------------------------------------------------------------------
// A deterministic byte-level BPE tokenizer (issue 18: "a byte-level BPE trained
// on the corpus, its merges saved beside the checkpoint"), GPT-2 compatible in
// format: its merges.txt and vocab.json open in Hugging Face's
// GPT2Tokenizer(vocab_file, merges_file).
//
// Vocabulary. Ids 0..255 are the 256 single bytes, in byte order (id b is
// byte b; GPT-2's own vocab.json orders them differently, which the format
// allows). Then one id per merge, in merge order: merge r (0-based rank)
// joins tokens (left, right) into token 256 + r, whose bytes are the
// concatenation. Every merge makes a byte string that is not yet a token (see
// Train), so vocab.json maps each symbol to exactly one id. No special tokens.
//
// Pre-tokenization (SplitChunks). Only the space byte 0x20 separates; every
// other byte (newline, tab, NUL, UTF-8 continuation bytes, ...) is part of a
// word. A chunk is one optional leading space followed by a maximal run of
// non-space bytes, so " word" keeps its space (GPT-2's "Ġword"). A space
// that is not directly followed by a non-space byte (the first spaces of a
// run of several, or a trailing space) is a chunk " " of its own:
//   "a b"  -> "a", " b"        "a   b" -> "a", " ", " ", " b"
//   " x "  -> " x", " "        ""      -> (no chunks)
// The chunks concatenate back to the text. Merges never cross a chunk
// boundary. On our corpora (words of letters and "." joined by single
// spaces, generators/corpora.h Lexicon::Render) these are exactly the pieces
// GPT-2's pre-tokenizer regex makes, so GPT2Tokenizer gives the same ids
// there; on other text (letters next to digits or punctuation inside one
// space-free run, runs of spaces, newlines) GPT-2's regex cuts differently.
//
// Encoding (Encode) is the GPT-2 BPE algorithm (openai/gpt-2 src/encoder.py,
// Encoder.bpe) applied to each chunk: starting from its bytes, repeatedly
// merge the lowest-rank adjacent pair present, every non-overlapping
// occurrence left to right, until no adjacent pair is a merge. Decode(Encode(s))
// == s for every byte string s.
//
// Files (Save / Load), in GPT-2's symbol alphabet (ByteSymbol: bytes_to_unicode
// of openai/gpt-2 src/encoder.py; '!'..'~', U+00A1..U+00AC and U+00AE..U+00FF
// stand for their own byte, the other 68 bytes for U+0100.. in byte order, so
// the space is "Ġ" U+0120 and '\n' is "Ċ" U+010A; symbols are written as
// UTF-8):
//   merges.txt  "#version: 0.2\n", then one line per merge in rank order: the
//               left and right token's symbol strings, one space between,
//               each line ending in '\n'.
//   vocab.json  one JSON object {symbol string: id} over all vocab_size()
//               tokens, written in id order.
//
// Usage:
//   std::vector<std::string> texts = ...;          // e.g. rendered documents
//   BpeTokenizer tok = BpeTokenizer::Train(texts, 4096);
//   std::vector<int> ids = tok.Encode("the cat sat .");
//   assert(tok.Decode(ids) == "the cat sat .");
//   tok.Save(checkpoint_dir);                      // merges.txt + vocab.json
//   BpeTokenizer again = BpeTokenizer::Load(checkpoint_dir);
//
// Thread safety: a BpeTokenizer is immutable after construction except for
// Encode's chunk cache, which a mutex guards, so every const method may be
// called from several threads at once. Train is a pure function.
//
// Errors: invalid arguments throw std::invalid_argument; Load throws
// std::runtime_error with one line naming the file (and, in merges.txt, the
// line) and what is wrong; Save throws std::runtime_error naming the file it
// could not write.
#ifndef CB_REFERENCE_LM_BPE_TOKENIZER_H_
#define CB_REFERENCE_LM_BPE_TOKENIZER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace cb::ref::lm {

inline constexpr char kBpeMergesFile[] = "merges.txt";
inline constexpr char kBpeVocabFile[] = "vocab.json";
inline constexpr char kBpeMergesHeader[] = "#version: 0.2";

class BpeTokenizer {
 public:
  // One merge: tokens `left` and `right` (ids) join into a new token.
  struct Merge {
    int left = 0;
    int right = 0;
    friend bool operator==(const Merge&, const Merge&) = default;
  };

  // The byte-level tokenizer with no merges (vocab_size() == 256).
  BpeTokenizer();

  // A tokenizer with these merges, merge r making id 256 + r.
  // REQUIRES (else std::invalid_argument naming the merge): both ids of merge
  // r are < 256 + r, and its result's bytes are not already a token.
  explicit BpeTokenizer(std::vector<Merge> merges);

  BpeTokenizer(const BpeTokenizer& other);
  BpeTokenizer& operator=(const BpeTokenizer& other);
  BpeTokenizer(BpeTokenizer&& other) noexcept;
  BpeTokenizer& operator=(BpeTokenizer&& other) noexcept;
  ~BpeTokenizer();

  // Train()
  //
  // Learns merges from the chunks (SplitChunks) of every text, each distinct
  // chunk weighted by how often it occurs. A pair's count is the number of
  // adjacent positions holding it, over all chunks, times the chunk's
  // frequency (overlapping positions both count: "aaa" holds (a, a) twice).
  // Each round merges the pair with the highest count, ties broken by the
  // smallest (left id, right id); the merge is applied to every chunk, left to
  // right, non-overlapping. Stops when vocab_size() reaches `vocab_size` or
  // no pair occurs at least twice. Deterministic: a pure function of the
  // multiset of chunks (so not of the order of `texts`).
  // Every merge makes a new token: two pairs with the same joined bytes T,
  // say (a, bc) and (ab, c), cannot both occur, since merges never cross a
  // token boundary, so the current tokens covering any occurrence of T are
  // T's own encoding by the merges so far (the guard in the code that skips
  // such a pair is never reached by this procedure).
  // Cost: pair counts are updated incrementally, touching only the distinct
  // chunks that hold the merged pair (one core: 0.02 s for a 4096 vocabulary
  // on the default MakeMiaCorpus, 1.3 s on 1 MB of all-distinct words;
  // suites/lm/README.md).
  // REQUIRES: vocab_size >= 256 (else std::invalid_argument).
  static BpeTokenizer Train(std::span<const std::string> texts, int vocab_size);

  // Load()
  //
  // Reads `dir`/merges.txt and `dir`/vocab.json (the format in the file
  // comment). Throws std::runtime_error, one line starting "PATH:LINE: " for
  // merges.txt or "PATH: " for vocab.json, when a file cannot be read, the
  // header is not "#version: 0.2", a merges line is not two symbol strings
  // separated by one space, a symbol is not in GPT-2's alphabet, a merge uses
  // a token not defined by the bytes or an earlier merge or repeats an
  // existing token, or vocab.json is not one JSON object mapping exactly the
  // tokens of merges.txt to the ids their merge order gives.
  static BpeTokenizer Load(const std::string& dir);

  // Save()
  //
  // Writes `dir`/merges.txt and `dir`/vocab.json, each atomically (a
  // temporary file beside it, then a rename; harness/atomic_file.h). A crash
  // between the two renames leaves a mismatched pair, which Load refuses.
  // REQUIRES: `dir` is an existing directory (else std::invalid_argument).
  // Throws std::runtime_error naming the file when writing fails.
  void Save(const std::string& dir) const;

  // Encode()
  //
  // The token ids of `text`: each chunk's BPE encoding (file comment), in
  // order. Distinct chunks' encodings are cached (up to kMaxCachedChunks
  // chunks of at most kMaxCachedChunkBytes bytes), so text with a small
  // working vocabulary encodes at hash-lookup speed.
  std::vector<int> Encode(std::string_view text) const;

  // Decode()
  //
  // The bytes of the tokens `ids`, concatenated.
  // REQUIRES: 0 <= id < vocab_size() for every id (else std::invalid_argument
  // naming the position and id).
  std::string Decode(std::span<const int> ids) const;

  // The bytes token `id` stands for.
  // REQUIRES: 0 <= id < vocab_size() (else std::invalid_argument).
  const std::string& TokenBytes(int id) const;

  // vocab.json's key of token `id`: its bytes in GPT-2's symbol alphabet.
  std::string Symbol(int id) const { return BytesToSymbols(TokenBytes(id)); }

  int vocab_size() const { return static_cast<int>(tokens_.size()); }
  const std::vector<Merge>& merges() const { return merges_; }

  // ContentHash()
  //
  // XXH3-128 (harness/hash.h), as 32 hex digits, of the exact bytes Save
  // writes to merges.txt (vocab.json is a function of them), so it equals
  // the XXH3-128 of that file.
  std::string ContentHash() const;

  // The merges.txt text of this tokenizer (what Save writes).
  std::string MergesText() const;

  // SplitChunks()
  //
  // The pre-tokenization chunks of `text` (file comment), as views into it.
  static std::vector<std::string_view> SplitChunks(std::string_view text);

  // GPT-2's bytes_to_unicode: the symbol (UTF-8, 1 or 2 bytes) of byte b.
  static std::string_view ByteSymbol(uint8_t b);
  // The symbols of `bytes`, concatenated.
  static std::string BytesToSymbols(std::string_view bytes);
  // The inverse: the bytes of a string of symbols, or nullopt when it holds
  // anything that is not a symbol (invalid UTF-8 included).
  static std::optional<std::string> SymbolsToBytes(std::string_view symbols);

  static constexpr size_t kMaxCachedChunks = size_t{1} << 18;
  static constexpr size_t kMaxCachedChunkBytes = 256;

 private:
  struct Cache;

  // Appends the BPE ids of one chunk (no cache).
  void EncodeChunk(std::string_view chunk, std::vector<int>& out) const;

  std::vector<Merge> merges_;                   // (merges) in rank order
  std::vector<std::string> tokens_;             // (vocab_size) id -> bytes
  std::unordered_map<uint64_t, int> pair_rank_;  // (left << 32 | right) -> rank
  std::unique_ptr<Cache> cache_;                // chunk -> ids, mutex-guarded
};

}  // namespace cb::ref::lm

#endif  // CB_REFERENCE_LM_BPE_TOKENIZER_H_
