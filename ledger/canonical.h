// File: ledger/canonical.h
// -----------------------------------------------------------------------------
// The canonical byte encoding of ledger rows and the hashes built on it
// (DESIGN §7). Every hash in the ledger is XXH3-128 (harness/hash.h) of bytes
// produced here, so this file *is* the hash specification; the golden vector
// in fixtures/ledger/golden_row.txt pins it. Changing an encoding on purpose
// means a new record version (see kResultHashVersion), never an edit in place.
//
// Encoding of one record: a sequence of fields, in the fixed order listed
// below, each
//
//   u8  name_len | name bytes (ASCII) | u8 type | u32 LE payload_len | payload
//
// with types
//
//   0x00 NULL      no payload (distinct from an empty text)
//   0x01 TEXT      the UTF-8 bytes as stored
//   0x02 INT       8 bytes, two's complement, little-endian
//   0x03 REAL      8 bytes, IEEE-754 binary64 bits, little-endian. Reals are
//                  canonical before they are stored: -0.0 becomes +0.0 and NaN
//                  becomes NULL (SQLite cannot store NaN; it would turn it into
//                  NULL behind our back, so we do it visibly).
//   0x04 JSON      canonical JSON text: nlohmann::json dump(), object keys
//                  sorted bytewise, no whitespace, UTF-8 (not \u-escaped)
//   0x05 F64ARRAY  raw samples: n x 8-byte IEEE-754 LE doubles, NaNs folded
//                  to the one quiet NaN 0x7ff8000000000000
//   0x06 HASHES    n x 16 bytes, each a Hash128 as high word then low word,
//                  both big-endian (the byte order of its hex string)
//   0x07 BLOB      the bytes as stored (cache/1's response)
//
// The first field of every record is `record` (TEXT) naming the record kind
// and its encoding version: "result/1".."result/4", "claim/1".."claim/5",
// "run/1".
//
//   result/4: result/3 followed by kind (TEXT "exact" | "estimate" |
//             "timing", harness ResultKind), the row's own declaration of
//             what its value is (schema version 4)
//   result/3: result/2 without seq (the row's position is left out)
//   result/2: record seq suite case_name backend params(JSON) metric unit
//             direction value ci_low ci_high n(INT) samples(F64ARRAY)
//             input_hash output_hash threads(INT) energy_j energy_source
//             energy_window_s
//   result/1: the same without the three energy fields (rows written before
//             schema version 2, which added them; their energy columns stay
//             NULL and are checked to be NULL by Verify)
//   claim/5:  claim/4 followed by kind (TEXT "paper" | "prerequisite"),
//             criterion_hash (TEXT: 32 hex, "" when not recorded) and inputs (JSON array of the
//             user's inputs; [] for none) (schema version 7)
//   claim/4:  claim/3 followed by own_results (INT: how many result rows
//             the claim recorded, the run's rows after the previous claim's;
//             a count, not a position, so the hash stays the same when the
//             run is narrowed or sharded; schema version 6)
//   claim/3:  claim/2 followed by depends_on_clock (INT 0/1: the verdict
//             rests on a clock or meter; schema version 4)
//   claim/2:  claim/1 without seq
//   claim/1:  record seq claim_id suite paper section statement paper_value
//             paper_setting our_setting metric criterion scale verdict value
//             ci_low ci_high confidence reason requirements(JSON)
//   run/1:    record run_uuid status command profile seed(INT, the uint64's
//             bits) git_commit git_dirty(INT 0/1) source_hash platform_hash
//             platform(JSON) build(JSON) started_at finished_at(TEXT|NULL)
//
// The side tables' rows (schema version 5), each hashed on its own and not
// part of any run_hash (ledger.h says why; README "what verify covers"):
//
//   ceiling/1:  record platform_hash name value unit detail(JSON) measured_at
//   artifact/1: record hash generator version(INT) params(JSON) size(INT)
//               path created_at
//   decision/1: record run_id(INT: the candidate run's local id; decisions
//               are never exported, so a local id is stable) baseline suite
//               case_name metric verdict test n(INT|NULL) p effect ci_low
//               ci_high threshold policy_version detail(JSON) created_at
//   cache/1:    record key response(BLOB) created_at
//
// Unlisted fields have the type their column has (TEXT, or REAL/NULL).
// Local row ids, run ids, host and pid are deliberately not encoded: a row
// must hash the same in every ledger it is merged into. A row's seq (its
// position within its run) is encoded, so reordering rows changes hashes.
//
//   content_hash = XXH3-128(encoding of the row)
//   run_hash     = XXH3-128(encoding of run/1 meta
//                           ‖ field "results" HASHES (content hashes by seq)
//                           ‖ field "claims"  HASHES (content hashes by seq))
//   chain_hash   = XXH3-128(previous sealed run's chain_hash (16 zero bytes
//                           for the first) ‖ run_hash), 32 raw bytes, in
//                           seal order (runs.chain_seq)
#ifndef CB_LEDGER_CANONICAL_H_
#define CB_LEDGER_CANONICAL_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/hash.h"
#include "harness/result.h"

namespace cb::ledger {

using cb::harness::Hash128;

// The result encoding new rows use. Version 1 rows (from schema version 1
// ledgers) keep verifying under result/1, version 2 rows under result/2; rows
// carry their version in results.hash_version. result/3 (and claim/2) leave
// the row's position (seq) out of its content_hash: a row then hashes the same
// whichever rows precede it, so a run split into shards (`run --shard`) or
// narrowed by --suite produces the same row hashes as one whole run. The order
// of rows is still covered by run_hash, which hashes them in seq order.
// result/4 (schema version 4) adds the row's kind; rows of versions 1-3 have
// none (results.kind NULL), and Verify requires it to stay NULL on them, since
// their hash does not cover it.
inline constexpr int kResultHashVersion = 4;
// The claim encoding new rows use; claims.hash_version (schema step 3) holds it,
// version 1 rows (claim/1, seq included) keep verifying. claim/3 (schema
// version 4) adds depends_on_clock; older claims have it NULL. claim/4 (schema
// version 6) adds own_results, which tells which result rows a claim
// produced (`run --resume` copies them); older claims have it NULL.
inline constexpr int kClaimHashVersion = 5;

// The stored names of cb::harness::ResultKind ("exact", "estimate", "timing").
std::optional<cb::harness::ResultKind> ParseResultKind(std::string_view name);

enum class FieldType : uint8_t {
  kNull = 0x00,
  kText = 0x01,
  kInt = 0x02,
  kReal = 0x03,
  kJson = 0x04,
  kF64Array = 0x05,
  kHashes = 0x06,
  kBlob = 0x07,
};

// Appends fields to a byte string. Cheap: no allocation once `out` has
// capacity, which is what keeps Verify near memory speed.
class CanonicalWriter {
 public:
  explicit CanonicalWriter(std::string* out) : out_(out) {}

  void Null(std::string_view name);
  void Text(std::string_view name, std::string_view value);
  void OptText(std::string_view name, std::optional<std::string_view> value);
  void Int(std::string_view name, int64_t value);
  void OptInt(std::string_view name, std::optional<int64_t> value);  // nullopt: NULL
  void Blob(std::string_view name, std::string_view bytes);
  // Canonicalises on the way in (-0.0 -> +0.0, NaN -> NULL).
  void Real(std::string_view name, std::optional<double> value);
  // REQUIRES: `canonical_json` came from CanonicalJson().
  void Json(std::string_view name, std::string_view canonical_json);
  // REQUIRES: `raw` came from SamplesBlob() (checked only by hashing).
  void F64Array(std::string_view name, std::string_view raw);
  void Hashes(std::string_view name, std::span<const Hash128> hashes);

 private:
  void Header(std::string_view name, FieldType type, size_t payload_len);
  std::string* out_;
};

// --- canonical values --------------------------------------------------------

// NaN -> nullopt, -0.0 -> +0.0, anything else unchanged.
std::optional<double> CanonicalReal(double v);
std::optional<double> CanonicalReal(std::optional<double> v);
// Sorted keys, no whitespace. Throws LedgerError (no file named) when a string
// is not valid UTF-8.
std::string CanonicalJson(const nlohmann::json& j);
// The samples column: little-endian doubles, NaNs folded to one bit pattern.
std::string SamplesBlob(std::span<const double> samples);
// The inverse of SamplesBlob. A length that is not a multiple of 8 drops the
// tail (such a blob never verifies anyway).
std::vector<double> SamplesFromBlob(std::string_view blob);

// 16 bytes, high word then low word, big-endian.
void AppendHashBytes(const Hash128& h, std::string* out);
// 32 lower-case hex digits into `out` (no allocation).
void HashHex(const Hash128& h, char out[32]);

// --- the hashed records ------------------------------------------------------

// A result row as stored: every field in its canonical stored form.
struct ResultView {
  int hash_version = kResultHashVersion;
  int64_t seq = 0;
  std::string_view suite, case_name, backend;
  std::string_view params_json;  // canonical JSON text
  std::string_view metric, unit, direction;
  std::optional<double> value, ci_low, ci_high;
  int64_t n = 0;
  std::string_view samples;  // SamplesBlob bytes
  std::string_view input_hash, output_hash;
  int64_t threads = 1;
  std::optional<double> energy_j;                 // result/2 only
  std::optional<std::string_view> energy_source;  // result/2 only (NULL on v1 rows)
  std::optional<double> energy_window_s;          // result/2 only
  // result/4 only: "exact" | "estimate" | "timing". NULL on rows of hash
  // versions 1-3, which were written before rows declared their kind.
  std::optional<std::string_view> kind;
};

struct ClaimView {
  int hash_version = kClaimHashVersion;
  int64_t seq = 0;
  std::string_view claim_id, suite, paper, section, statement;
  std::string_view paper_value, paper_setting, our_setting;
  std::string_view metric, criterion, scale, verdict;
  std::optional<double> value, ci_low, ci_high, confidence;
  std::string_view reason;
  std::string_view requirements_json;  // canonical JSON text
  // claim/3 and later: 0 or 1. NULL on claim/1 and claim/2 rows.
  std::optional<int64_t> depends_on_clock;
  // claim/4 and later: how many result rows the claim recorded (>= 0). NULL
  // on claim/1-3 rows.
  std::optional<int64_t> own_results;
  // claim/5 only; NULL on claim/1-4 rows.
  std::optional<std::string_view> kind, criterion_hash;
  std::optional<std::string_view> inputs_json;  // canonical JSON array
};

struct RunView {
  std::string_view run_uuid, status, command, profile;
  int64_t seed = 0;  // the uint64 seed's bit pattern
  std::string_view git_commit;
  int64_t git_dirty = 0;
  std::string_view source_hash, platform_hash;
  std::string_view platform_json, build_json;  // canonical JSON text
  std::string_view started_at;
  std::optional<std::string_view> finished_at;
};

// Why a result row cannot be encoded under its hash_version, or empty: an
// unknown version, energy data on a result/1 row or a kind on a row before
// result/4 (which its hash would not cover), or a result/4 row whose kind is
// missing or not one of the three names.
std::string ResultViewProblem(const ResultView& r);

// Each Encode* clears `out` and writes the record. REQUIRES for results:
// ResultViewProblem(r) is empty.
void EncodeResult(const ResultView& r, std::string* out);
// Why a claim row cannot be encoded under its hash_version, or empty: an
// unknown version, depends_on_clock set before claim/3, or missing or not
// 0/1 on a claim/3-4 row, own_results set before claim/4, or missing or
// negative on a claim/4 row.
std::string ClaimViewProblem(const ClaimView& c);
void EncodeClaim(const ClaimView& c, std::string* out);
void EncodeRunMeta(const RunView& run, std::string* out);

// content_hash of a row; `scratch` is reused to avoid allocation.
Hash128 ResultHash(const ResultView& r, std::string* scratch);
Hash128 ClaimHash(const ClaimView& c, std::string* scratch);

// --- the side tables' records (canonical.cpp's companion canonical_side.cpp)

struct CeilingView {
  std::string_view platform_hash, name;
  std::optional<double> value;
  std::string_view unit;
  std::string_view detail_json;  // canonical JSON text
  std::string_view measured_at;
};

struct ArtifactView {
  std::string_view hash, generator;
  int64_t version = 0;
  std::string_view params_json;  // canonical JSON text
  int64_t size = 0;
  std::string_view path, created_at;
};

struct DecisionView {
  int64_t run_id = 0;
  std::string_view baseline, suite, case_name, metric, verdict, test;
  std::optional<int64_t> n;
  std::optional<double> p, effect, ci_low, ci_high, threshold;
  std::string_view policy_version;
  std::string_view detail_json;  // canonical JSON text
  std::string_view created_at;
};

struct CacheEntryView {
  std::string_view key, response, created_at;
};

// content_hash of a side-table row (ceiling/1, artifact/1, decision/1,
// cache/1); `scratch` is reused to avoid allocation.
Hash128 CeilingHash(const CeilingView& c, std::string* scratch);
Hash128 ArtifactHash(const ArtifactView& a, std::string* scratch);
Hash128 DecisionHash(const DecisionView& d, std::string* scratch);
Hash128 CacheEntryHash(const CacheEntryView& e, std::string* scratch);

// One row's position in its run and its content_hash.
struct SeqHash {
  int64_t seq = 0;
  Hash128 hash;
};
// The hashes of `rows` in seq order, the order RunHash() wants (sorts `rows`).
// When `duplicate_seq` is given, it receives a seq that two rows share, if any.
std::vector<Hash128> HashesInSeqOrder(std::vector<SeqHash>& rows,
                                      std::optional<int64_t>* duplicate_seq = nullptr);

// REQUIRES: `results` and `claims` are the rows' content hashes in seq order.
Hash128 RunHash(const RunView& run, std::span<const Hash128> results,
                std::span<const Hash128> claims);
Hash128 ChainHash(const Hash128& previous, const Hash128& run_hash);

}  // namespace cb::ledger

#endif  // CB_LEDGER_CANONICAL_H_
