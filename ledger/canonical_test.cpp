// File: ledger/canonical_test.cpp
// -----------------------------------------------------------------------------
// The canonical encoding against an independently computed golden vector
// (fixtures/ledger/golden_row.txt, made by golden_row.py), and the property
// that every field of a row reaches its hash.
#include "ledger/canonical.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <string>

#include "fixtures/paths.h"
#include "ledger/ledger_test_util.h"
#include "ledger/rows.h"

namespace cb::ledger {
namespace {

std::string ToHex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  for (unsigned char c : bytes) {
    hex.push_back(kDigits[c >> 4]);
    hex.push_back(kDigits[c & 0xf]);
  }
  return hex;
}

// "key value" lines of golden_row.txt.
std::map<std::string, std::string> ReadGolden() {
  std::ifstream in(cb::testing::FixturePath("ledger/golden_row.txt"));
  std::map<std::string, std::string> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const size_t space = line.find(' ');
    out[line.substr(0, space)] = line.substr(space + 1);
  }
  return out;
}

// The row golden_row.py encodes, built the way callers build rows.
Result GoldenRow() {
  Result r;
  r.suite = "harness";
  r.case_name = "ledger_insert/1000";
  r.backend = "cpu";
  r.params = {{"rows", 1000}, {"name", "x"}, {"alpha", 0.5}};
  r.metric = "real_time";
  r.unit = "ns";
  r.direction = "lower";
  r.value = 1234.5;
  r.ci_low = 1200.25;
  r.ci_high = 1300.0;
  r.n = 3;
  r.samples = {1234.5, 1200.25, 1300.0};
  r.input_hash = "";
  r.output_hash = "0123456789abcdef0123456789abcdef";
  r.energy_j = std::nullopt;
  r.energy_source = "unavailable: no meter";
  r.energy_window_s = std::nullopt;
  r.threads = 2;
  return r;
}

// golden_row.txt holds the result/2 encoding (seq 3).
std::string Encode(const Result& r, int64_t seq = 3, int version = 2) {
  CanonicalResult row(r, seq);
  ResultView v = row.view();
  v.hash_version = version;
  std::string bytes;
  EncodeResult(v, &bytes);
  return bytes;
}

Hash128 HashOf(const Result& r, int64_t seq = 3, int version = kResultHashVersion) {
  CanonicalResult row(r, seq);
  ResultView v = row.view();
  v.hash_version = version;
  std::string scratch;
  return ResultHash(v, &scratch);
}

TEST(CanonicalTest, GoldenRowEncodingAndHash) {
  const auto golden = ReadGolden();
  ASSERT_EQ(golden.count("encoding_hex"), 1u) << "fixtures/ledger/golden_row.txt missing or broken";
  ASSERT_EQ(golden.count("content_hash"), 1u);
  EXPECT_EQ(ToHex(Encode(GoldenRow())), golden.at("encoding_hex"));
  EXPECT_EQ(HashOf(GoldenRow(), 3, 2).Hex(), golden.at("content_hash"));
}

// result/3 is result/2 with the record tag "result/3" and without the seq
// field: derived here from the golden bytes, not from our encoder.
TEST(CanonicalTest, VersionThreeIsVersionTwoWithoutSeq) {
  const auto golden = ReadGolden();
  ASSERT_EQ(golden.count("encoding_hex"), 1u);
  std::string expected = golden.at("encoding_hex");
  const std::string v2 = Encode(GoldenRow(), 3, 2), v3 = Encode(GoldenRow(), 3, 3);
  ASSERT_EQ(ToHex(v2), expected);
  // Rebuild v3 from the v2 bytes: swap the record tag, cut the seq field.
  const std::string tag2 = "result/2", tag3 = "result/3";
  std::string rebuilt = v2;
  const size_t tag_at = rebuilt.find(tag2);
  ASSERT_NE(tag_at, std::string::npos);
  rebuilt.replace(tag_at, tag2.size(), tag3);
  const size_t seq_at = rebuilt.find("seq");
  const size_t suite_at = rebuilt.find("suite");
  ASSERT_NE(seq_at, std::string::npos);
  ASSERT_LT(seq_at, suite_at);
  // A field is [name length byte][name][type byte][u32 length][payload], so the
  // seq field spans from the byte before "seq" to the byte before "suite".
  rebuilt.erase(seq_at - 1, suite_at - seq_at);
  EXPECT_EQ(ToHex(v3), ToHex(rebuilt));
  EXPECT_EQ(HashOf(GoldenRow(), 3), HashOf(GoldenRow(), 999)) << "result/3 hashes seq";
}

TEST(CanonicalTest, EveryFieldChangesTheHash) {
  const Hash128 base = HashOf(GoldenRow());
  using Edit = std::function<void(Result&)>;
  const std::map<std::string, Edit> edits = {
      {"suite", [](Result& r) { r.suite = "harnesS"; }},
      {"case_name", [](Result& r) { r.case_name += "x"; }},
      {"backend", [](Result& r) { r.backend = "cuda"; }},
      {"a param value", [](Result& r) { r.params["rows"] = 1001; }},
      {"a param's type", [](Result& r) { r.params["rows"] = 1000.0; }},
      {"an extra param", [](Result& r) { r.params["z"] = nullptr; }},
      {"metric", [](Result& r) { r.metric = "cpu_time"; }},
      {"unit", [](Result& r) { r.unit = "us"; }},
      {"direction", [](Result& r) { r.direction = "higher"; }},
      {"value by one ulp", [](Result& r) { r.value = std::nextafter(r.value, 2e3); }},
      {"ci_low", [](Result& r) { r.ci_low = 1200.0; }},
      {"ci_high missing", [](Result& r) { r.ci_high.reset(); }},
      {"n", [](Result& r) { r.n = 4; }},
      {"a sample", [](Result& r) { r.samples[1] = 1200.5; }},
      {"sample order", [](Result& r) { std::swap(r.samples[0], r.samples[1]); }},
      {"one sample fewer", [](Result& r) { r.samples.pop_back(); }},
      {"input_hash", [](Result& r) { r.input_hash = "0"; }},
      {"output_hash", [](Result& r) { r.output_hash[0] = '1'; }},
      {"threads", [](Result& r) { r.threads = 1; }},
      {"energy NULL -> 0", [](Result& r) { r.energy_j = 0.0; }},
      {"energy_source", [](Result& r) { r.energy_source = "rapl"; }},
      {"energy_window NULL -> 0", [](Result& r) { r.energy_window_s = 0.0; }},
      {"kind", [](Result& r) { r.kind = cb::harness::ResultKind::kTiming; }},
  };
  for (const auto& [what, edit] : edits) {
    Result r = GoldenRow();
    edit(r);
    EXPECT_FALSE(HashOf(r) == base) << "changing " << what << " did not change the hash";
  }
  EXPECT_FALSE(HashOf(GoldenRow(), 4, 2) == HashOf(GoldenRow(), 3, 2)) << "result/2 must hash seq";
  EXPECT_TRUE(HashOf(GoldenRow(), 4) == base) << "result/3 must not hash seq";
}

TEST(CanonicalTest, EveryClaimFieldChangesTheHash) {
  ClaimRow claim = testutil::SampleClaim(1);
  claim.own_results = 3;
  auto hash_of = [](const ClaimRow& c, int64_t seq = 1) {
    CanonicalClaim row(c, seq);
    std::string scratch;
    return ClaimHash(row.view(), &scratch);
  };
  const Hash128 base = hash_of(claim);
  using Edit = std::function<void(ClaimRow&)>;
  const std::map<std::string, Edit> edits = {
      {"claim_id", [](ClaimRow& c) { c.claim_id += "x"; }},
      {"suite", [](ClaimRow& c) { c.suite += "x"; }},
      {"paper", [](ClaimRow& c) { c.paper += "x"; }},
      {"section", [](ClaimRow& c) { c.section += "x"; }},
      {"statement", [](ClaimRow& c) { c.statement += "x"; }},
      {"paper_value", [](ClaimRow& c) { c.paper_value += "x"; }},
      {"paper_setting", [](ClaimRow& c) { c.paper_setting += "x"; }},
      {"our_setting", [](ClaimRow& c) { c.our_setting += "x"; }},
      {"metric", [](ClaimRow& c) { c.metric += "x"; }},
      {"criterion", [](ClaimRow& c) { c.criterion += "x"; }},
      {"scale", [](ClaimRow& c) { c.scale = "paper-scale"; }},
      {"verdict", [](ClaimRow& c) { c.verdict = "INCONCLUSIVE"; }},
      {"value missing", [](ClaimRow& c) { c.value.reset(); }},
      {"ci_low", [](ClaimRow& c) { c.ci_low = 0.5; }},
      {"ci_high", [](ClaimRow& c) { c.ci_high = 2.0; }},
      {"confidence", [](ClaimRow& c) { c.confidence = 0.99; }},
      {"reason", [](ClaimRow& c) { c.reason = "because"; }},
      {"requirements", [](ClaimRow& c) { c.requirements["gpu"] = true; }},
  };
  for (const auto& [what, edit] : edits) {
    ClaimRow c = claim;
    edit(c);
    EXPECT_FALSE(hash_of(c) == base) << "changing " << what << " did not change the hash";
  }
  EXPECT_TRUE(hash_of(claim, 2) == base) << "claim/2 must not hash seq";
  ClaimRow clocked = claim;
  clocked.depends_on_clock = !claim.depends_on_clock.value_or(false);
  EXPECT_FALSE(hash_of(clocked) == base) << "changing depends_on_clock did not change the hash";
  ClaimRow counted = claim;
  counted.own_results = claim.own_results.value_or(0) + 1;
  EXPECT_FALSE(hash_of(counted) == base) << "changing own_results did not change the hash";
  // claim/5: what the claim is and what it rests on.
  for (const auto& [what, edit] : std::vector<std::pair<std::string, std::function<void(ClaimRow&)>>>{
           {"kind", [](ClaimRow& c) { c.kind = "prerequisite"; }},
           {"criterion_hash", [](ClaimRow& c) { c.criterion_hash = std::string(32, 'f'); }},
           {"inputs", [](ClaimRow& c) {
              c.inputs = nlohmann::json::array({{{"role", "endpoint"}, {"content_hash", "00"}}});
            }}}) {
    ClaimRow c = claim;
    edit(c);
    EXPECT_FALSE(hash_of(c) == base) << "changing " << what << " did not change the hash";
  }
  CanonicalClaim v1_row(claim, 1), v1_moved(claim, 2);
  ClaimView v1 = v1_row.view(), moved = v1_moved.view();
  EXPECT_EQ(v1.hash_version, 5);
  EXPECT_EQ(v1.kind, "paper");  // written as a paper claim when left unset
  EXPECT_TRUE(v1.depends_on_clock.has_value());
  EXPECT_TRUE(v1.own_results.has_value());
  v1.hash_version = 4;
  EXPECT_EQ(ClaimViewProblem(v1),
            "kind, criterion_hash or inputs set on a hash_version 4 claim (its hash would not cover them)");
  v1.kind.reset();
  v1.criterion_hash.reset();
  v1.inputs_json.reset();
  moved.kind.reset();
  moved.criterion_hash.reset();
  moved.inputs_json.reset();
  EXPECT_TRUE(ClaimViewProblem(v1).empty());
  v1.hash_version = 3;
  EXPECT_EQ(ClaimViewProblem(v1), "own_results set on a hash_version 3 claim (its hash would not cover it)");
  v1.own_results.reset();
  moved.own_results.reset();
  EXPECT_TRUE(ClaimViewProblem(v1).empty());
  v1.hash_version = moved.hash_version = 1;
  EXPECT_FALSE(ClaimViewProblem(v1).empty()) << "a claim/1 row cannot carry depends_on_clock";
  v1.depends_on_clock.reset();
  moved.depends_on_clock.reset();
  EXPECT_TRUE(ClaimViewProblem(v1).empty());
  std::string scratch;
  EXPECT_FALSE(ClaimHash(v1, &scratch) == ClaimHash(moved, &scratch)) << "claim/1 must hash seq";
  EXPECT_FALSE(ClaimHash(v1, &scratch) == base) << "claim/1 and claim/2 must differ";
  v1.hash_version = 4;
  EXPECT_FALSE(ClaimViewProblem(v1).empty());
  v1.hash_version = 5;
  EXPECT_FALSE(ClaimViewProblem(v1).empty()) << "a claim/5 row needs its kind";
  v1.hash_version = 6;
  EXPECT_EQ(ClaimViewProblem(v1), "unknown hash_version 6");
}

TEST(CanonicalTest, EmptyTextAndNullDiffer) {
  std::string with_null, with_empty;
  CanonicalWriter(&with_null).OptText("x", std::nullopt);
  CanonicalWriter(&with_empty).OptText("x", std::string_view(""));
  EXPECT_NE(with_null, with_empty);
}

TEST(CanonicalTest, FieldBoundariesCannotShift) {
  // "ab" + "c" and "a" + "bc" must not encode alike: lengths are prefixed.
  std::string one, two;
  CanonicalWriter w1(&one), w2(&two);
  w1.Text("a", "ab");
  w1.Text("b", "c");
  w2.Text("a", "a");
  w2.Text("b", "bc");
  EXPECT_NE(one, two);
}

TEST(CanonicalTest, ParamsAreCanonicalWhateverTheirInsertionOrder) {
  // JSON text written in any key order canonicalises, once parsed, to keys
  // sorted at every depth.
  const auto params = nlohmann::json::parse(R"({"rows": 1000, "name": "x", "alpha": 0.5})");
  EXPECT_EQ(CanonicalJson(params), R"({"alpha":0.5,"name":"x","rows":1000})");
  EXPECT_EQ(CanonicalJson(params), CanonicalJson(GoldenRow().params));
  EXPECT_EQ(CanonicalJson(nlohmann::json::parse(R"({"b": {"y": 1, "x": 2}, "a": 1})")),
            R"({"a":1,"b":{"x":2,"y":1}})");
}

TEST(CanonicalTest, InvalidUtf8ParamsAreRefused) {
  nlohmann::json bad = {{"name", std::string("\xff\xfe")}};
  EXPECT_THROW(CanonicalJson(bad), LedgerError);
}

TEST(CanonicalTest, RealsAreCanonicalised) {
  EXPECT_FALSE(CanonicalReal(std::numeric_limits<double>::quiet_NaN()).has_value());
  const auto zero = CanonicalReal(-0.0);
  ASSERT_TRUE(zero.has_value());
  EXPECT_FALSE(std::signbit(*zero));
  Result a = GoldenRow(), b = GoldenRow();
  a.value = -0.0;
  b.value = 0.0;
  EXPECT_EQ(HashOf(a), HashOf(b));
  a.value = std::numeric_limits<double>::quiet_NaN();
  b.value = 0.0;
  EXPECT_FALSE(HashOf(a) == HashOf(b)) << "NaN (NULL) must differ from 0";
}

TEST(CanonicalTest, SamplesRoundTripWithNanFolded) {
  const double payload_nan = std::bit_cast<double>(0x7ff8000000000123ULL);
  const std::vector<double> in = {1.5, -0.0, std::numeric_limits<double>::infinity(), payload_nan};
  const std::string blob = SamplesBlob(in);
  ASSERT_EQ(blob.size(), 32u);
  const std::vector<double> out = SamplesFromBlob(blob);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0], 1.5);
  EXPECT_TRUE(std::signbit(out[1]));  // samples keep their bits
  EXPECT_TRUE(std::isinf(out[2]));
  EXPECT_EQ(std::bit_cast<uint64_t>(out[3]), 0x7ff8000000000000ULL);
}

TEST(CanonicalTest, VersionOneRowsOmitEnergyAndRefuseIt) {
  const Result golden = GoldenRow();
  CanonicalResult row(golden, 3);
  ResultView v1 = row.view();
  v1.hash_version = 1;
  v1.energy_source.reset();
  v1.kind.reset();
  EXPECT_TRUE(ResultViewProblem(v1).empty());
  std::string bytes;
  EncodeResult(v1, &bytes);
  EXPECT_EQ(bytes.find("energy"), std::string::npos);
  EXPECT_NE(bytes.find("result/1"), std::string::npos);
  v1.energy_j = 1.0;
  EXPECT_FALSE(ResultViewProblem(v1).empty());
  v1.energy_j.reset();
  v1.hash_version = 5;
  EXPECT_FALSE(ResultViewProblem(v1).empty());
}

// result/4 is result/3 followed by one TEXT field "kind": derived here from
// the golden result/2 bytes, not from our encoder.
TEST(CanonicalTest, VersionFourIsVersionThreePlusKind) {
  const auto golden = ReadGolden();
  ASSERT_EQ(golden.count("encoding_hex"), 1u);
  Result r = GoldenRow();
  r.kind = cb::harness::ResultKind::kTiming;
  std::string rebuilt = Encode(r, 3, 3);
  const size_t tag_at = rebuilt.find("result/3");
  ASSERT_NE(tag_at, std::string::npos);
  rebuilt[tag_at + 7] = '4';
  // u8 name length, name, u8 type 0x01 (TEXT), u32 LE length, bytes.
  rebuilt += std::string("\x04kind\x01\x06\x00\x00\x00timing", 16);
  EXPECT_EQ(ToHex(Encode(r, 3, 4)), ToHex(rebuilt));
  // Every kind reaches the hash; a result/3 row cannot carry one.
  Result exact = r, estimate = r;
  exact.kind = cb::harness::ResultKind::kExact;
  estimate.kind = cb::harness::ResultKind::kEstimate;
  EXPECT_FALSE(HashOf(r) == HashOf(exact));
  EXPECT_FALSE(HashOf(exact) == HashOf(estimate));
  CanonicalResult row(r, 3);
  ResultView v = row.view();
  EXPECT_EQ(v.hash_version, 4);
  EXPECT_TRUE(ResultViewProblem(v).empty());
  v.hash_version = 3;
  EXPECT_FALSE(ResultViewProblem(v).empty()) << "a kind its hash does not cover";
  v.hash_version = 4;
  v.kind = "fast";
  EXPECT_FALSE(ResultViewProblem(v).empty());
  v.kind.reset();
  EXPECT_FALSE(ResultViewProblem(v).empty());
}

TEST(CanonicalTest, RunAndChainHashesDependOnOrderAndContent) {
  RunView run;
  run.run_uuid = "u";
  run.status = "complete";
  run.started_at = "t";
  run.platform_json = "{}";
  run.build_json = "{}";
  const Hash128 a{1, 2}, b{3, 4};
  const std::vector<Hash128> ab = {a, b}, ba = {b, a}, just_a = {a};
  const Hash128 h = RunHash(run, ab, {});
  EXPECT_FALSE(h == RunHash(run, ba, {}));
  EXPECT_FALSE(h == RunHash(run, just_a, {}));
  // Moving a row hash from results to claims is a change too.
  EXPECT_FALSE(RunHash(run, just_a, std::vector<Hash128>{b}) == h);
  RunView failed = run;
  failed.status = "failed";
  EXPECT_FALSE(h == RunHash(failed, ab, {}));
  EXPECT_FALSE(ChainHash(Hash128{}, a) == ChainHash(Hash128{}, b));
  EXPECT_FALSE(ChainHash(a, b) == ChainHash(b, a));
}

TEST(CanonicalTest, HashHexMatchesHarnessHex) {
  const Hash128 h = cb::harness::Xxh3_128("abc");
  char hex[32];
  HashHex(h, hex);
  EXPECT_EQ(std::string(hex, 32), h.Hex());
}

}  // namespace
}  // namespace cb::ledger
