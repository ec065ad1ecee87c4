// File: ledger/canonical.cpp
// -----------------------------------------------------------------------------
// The canonical encoding and the row, run and chain hashes (see canonical.h
// for the byte-level specification).
#include "ledger/canonical.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "ledger/ledger.h"

namespace cb::ledger {
namespace {

static_assert(std::numeric_limits<double>::is_iec559, "the encoding stores IEEE-754 doubles");

constexpr uint64_t kCanonicalNan = 0x7ff8000000000000ULL;

void AppendLe64(uint64_t v, std::string* out) {
  char bytes[8];
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>((v >> (8 * i)) & 0xff);
  out->append(bytes, 8);
}

void AppendBe64(uint64_t v, std::string* out) {
  char bytes[8];
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>((v >> (56 - 8 * i)) & 0xff);
  out->append(bytes, 8);
}

uint64_t LoadLe64(const char* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(static_cast<unsigned char>(p[i])) << (8 * i);
  return v;
}

}  // namespace

// --- CanonicalWriter ---------------------------------------------------------

void CanonicalWriter::Header(std::string_view name, FieldType type, size_t payload_len) {
  // Names are our own short constants; a payload over 4 GiB cannot come from a
  // SQLite value (1 GB limit), so both narrowings are safe.
  char head[1 + 255 + 1 + 4];
  size_t k = 0;
  head[k++] = static_cast<char>(name.size());
  std::memcpy(head + k, name.data(), name.size());
  k += name.size();
  head[k++] = static_cast<char>(type);
  const auto len = static_cast<uint32_t>(payload_len);
  for (int i = 0; i < 4; ++i) head[k++] = static_cast<char>((len >> (8 * i)) & 0xff);
  out_->append(head, k);
}

void CanonicalWriter::Null(std::string_view name) { Header(name, FieldType::kNull, 0); }

void CanonicalWriter::Text(std::string_view name, std::string_view value) {
  Header(name, FieldType::kText, value.size());
  out_->append(value);
}

void CanonicalWriter::OptText(std::string_view name, std::optional<std::string_view> value) {
  if (value) {
    Text(name, *value);
  } else {
    Null(name);
  }
}

void CanonicalWriter::Int(std::string_view name, int64_t value) {
  Header(name, FieldType::kInt, 8);
  AppendLe64(static_cast<uint64_t>(value), out_);
}

void CanonicalWriter::OptInt(std::string_view name, std::optional<int64_t> value) {
  if (value) {
    Int(name, *value);
  } else {
    Null(name);
  }
}

void CanonicalWriter::Blob(std::string_view name, std::string_view bytes) {
  Header(name, FieldType::kBlob, bytes.size());
  out_->append(bytes);
}

void CanonicalWriter::Real(std::string_view name, std::optional<double> value) {
  const std::optional<double> v = CanonicalReal(value);
  if (!v) {
    Null(name);
    return;
  }
  Header(name, FieldType::kReal, 8);
  AppendLe64(std::bit_cast<uint64_t>(*v), out_);
}

void CanonicalWriter::Json(std::string_view name, std::string_view canonical_json) {
  Header(name, FieldType::kJson, canonical_json.size());
  out_->append(canonical_json);
}

void CanonicalWriter::F64Array(std::string_view name, std::string_view raw) {
  Header(name, FieldType::kF64Array, raw.size());
  out_->append(raw);
}

void CanonicalWriter::Hashes(std::string_view name, std::span<const Hash128> hashes) {
  Header(name, FieldType::kHashes, hashes.size() * 16);
  for (const Hash128& h : hashes) AppendHashBytes(h, out_);
}

// --- canonical values --------------------------------------------------------

std::optional<double> CanonicalReal(double v) {
  if (std::isnan(v)) return std::nullopt;
  if (v == 0.0) return 0.0;  // folds -0.0: SQLite may store it as integer 0
  return v;
}

std::optional<double> CanonicalReal(std::optional<double> v) {
  if (!v) return std::nullopt;
  return CanonicalReal(*v);
}

std::string CanonicalJson(const nlohmann::json& j) {
  // nlohmann::json objects are std::maps, so dump() already sorts keys; strict
  // UTF-8 handling makes invalid strings an error instead of silently altered
  // text that would hash differently after a round trip.
  try {
    return j.dump(-1, ' ', /*ensure_ascii=*/false, nlohmann::json::error_handler_t::strict);
  } catch (const nlohmann::json::exception& e) {
    throw LedgerError(std::string("JSON value cannot be canonicalised: ") + e.what());
  }
}

std::string SamplesBlob(std::span<const double> samples) {
  std::string blob;
  blob.reserve(samples.size() * 8);
  for (double s : samples) {
    const uint64_t bits = std::isnan(s) ? kCanonicalNan : std::bit_cast<uint64_t>(s);
    AppendLe64(bits, &blob);
  }
  return blob;
}

std::vector<double> SamplesFromBlob(std::string_view blob) {
  std::vector<double> samples(blob.size() / 8);
  for (size_t i = 0; i < samples.size(); ++i) {
    samples[i] = std::bit_cast<double>(LoadLe64(blob.data() + 8 * i));
  }
  return samples;
}

void AppendHashBytes(const Hash128& h, std::string* out) {
  AppendBe64(h.high, out);
  AppendBe64(h.low, out);
}

void HashHex(const Hash128& h, char out[32]) {
  static constexpr char kDigits[] = "0123456789abcdef";
  for (int i = 0; i < 16; ++i) {
    out[i] = kDigits[(h.high >> (60 - 4 * i)) & 0xf];
    out[16 + i] = kDigits[(h.low >> (60 - 4 * i)) & 0xf];
  }
}

// --- records -----------------------------------------------------------------

std::optional<cb::harness::ResultKind> ParseResultKind(std::string_view name) {
  using cb::harness::ResultKind;
  for (ResultKind k : {ResultKind::kExact, ResultKind::kEstimate, ResultKind::kTiming}) {
    if (name == cb::harness::ResultKindName(k)) return k;
  }
  return std::nullopt;
}

std::string ResultViewProblem(const ResultView& r) {
  if (r.hash_version < 1 || r.hash_version > 4) {
    return "unknown hash_version " + std::to_string(r.hash_version);
  }
  if (r.hash_version == 1 && (r.energy_j || r.energy_source || r.energy_window_s)) {
    return "energy fields set on a hash_version 1 row (its hash would not cover them)";
  }
  if (r.hash_version <= 3) {
    if (r.kind) {
      return "kind set on a hash_version " + std::to_string(r.hash_version) +
             " row (its hash would not cover it)";
    }
    return {};
  }
  if (!r.kind) return "kind missing on a hash_version 4 row";
  if (!ParseResultKind(*r.kind)) {
    return "kind '" + std::string(*r.kind) + "' is not exact, estimate or timing";
  }
  return {};
}

void EncodeResult(const ResultView& r, std::string* out) {
  out->clear();
  CanonicalWriter w(out);
  w.Text("record", r.hash_version == 1   ? "result/1"
                   : r.hash_version == 2 ? "result/2"
                   : r.hash_version == 3 ? "result/3"
                                         : "result/4");
  if (r.hash_version <= 2) w.Int("seq", r.seq);
  w.Text("suite", r.suite);
  w.Text("case_name", r.case_name);
  w.Text("backend", r.backend);
  w.Json("params", r.params_json);
  w.Text("metric", r.metric);
  w.Text("unit", r.unit);
  w.Text("direction", r.direction);
  w.Real("value", r.value);
  w.Real("ci_low", r.ci_low);
  w.Real("ci_high", r.ci_high);
  w.Int("n", r.n);
  w.F64Array("samples", r.samples);
  w.Text("input_hash", r.input_hash);
  w.Text("output_hash", r.output_hash);
  w.Int("threads", r.threads);
  if (r.hash_version == 1) return;
  w.Real("energy_j", r.energy_j);
  w.OptText("energy_source", r.energy_source);
  w.Real("energy_window_s", r.energy_window_s);
  if (r.hash_version <= 3) return;
  w.OptText("kind", r.kind);
}

std::string ClaimViewProblem(const ClaimView& c) {
  const std::string version = std::to_string(c.hash_version);
  if (c.hash_version < 1 || c.hash_version > 5) return "unknown hash_version " + version;
  if (c.hash_version <= 2 && c.depends_on_clock) {
    return "depends_on_clock set on a hash_version " + version + " claim (its hash would not cover it)";
  }
  if (c.hash_version >= 3) {
    if (!c.depends_on_clock) return "depends_on_clock missing on a hash_version " + version + " claim";
    if (*c.depends_on_clock != 0 && *c.depends_on_clock != 1) {
      return "depends_on_clock " + std::to_string(*c.depends_on_clock) + " is not 0 or 1";
    }
  }
  if (c.hash_version <= 3 && c.own_results) {
    return "own_results set on a hash_version " + version + " claim (its hash would not cover it)";
  }
  if (c.hash_version <= 4 && (c.kind || c.criterion_hash || c.inputs_json)) {
    return "kind, criterion_hash or inputs set on a hash_version " + version +
           " claim (its hash would not cover them)";
  }
  if (c.hash_version == 5) {
    if (!c.kind || (*c.kind != "paper" && *c.kind != "prerequisite")) {
      return "kind missing or not 'paper' or 'prerequisite' on a hash_version 5 claim";
    }
    if (!c.criterion_hash || (!c.criterion_hash->empty() && c.criterion_hash->size() != 32)) {
      return "criterion_hash missing or neither empty nor 32 hex digits on a hash_version 5 claim";
    }
    if (!c.inputs_json) return "inputs missing on a hash_version 5 claim";
  }
  if (c.hash_version >= 4) {
    if (!c.own_results) return "own_results missing on a hash_version " + version + " claim";
    if (*c.own_results < 0) {
      return "own_results " + std::to_string(*c.own_results) + " is negative";
    }
  }
  return {};
}

void EncodeClaim(const ClaimView& c, std::string* out) {
  out->clear();
  CanonicalWriter w(out);
  w.Text("record", c.hash_version == 1   ? "claim/1"
                   : c.hash_version == 2 ? "claim/2"
                   : c.hash_version == 3 ? "claim/3"
                   : c.hash_version == 4 ? "claim/4"
                                         : "claim/5");
  if (c.hash_version == 1) w.Int("seq", c.seq);
  w.Text("claim_id", c.claim_id);
  w.Text("suite", c.suite);
  w.Text("paper", c.paper);
  w.Text("section", c.section);
  w.Text("statement", c.statement);
  w.Text("paper_value", c.paper_value);
  w.Text("paper_setting", c.paper_setting);
  w.Text("our_setting", c.our_setting);
  w.Text("metric", c.metric);
  w.Text("criterion", c.criterion);
  w.Text("scale", c.scale);
  w.Text("verdict", c.verdict);
  w.Real("value", c.value);
  w.Real("ci_low", c.ci_low);
  w.Real("ci_high", c.ci_high);
  w.Real("confidence", c.confidence);
  w.Text("reason", c.reason);
  w.Json("requirements", c.requirements_json);
  if (c.hash_version <= 2) return;
  w.Int("depends_on_clock", c.depends_on_clock.value_or(0));
  if (c.hash_version == 3) return;
  w.Int("own_results", c.own_results.value_or(0));
  if (c.hash_version == 4) return;
  w.Text("kind", c.kind.value_or(""));
  w.Text("criterion_hash", c.criterion_hash.value_or(""));
  w.Json("inputs", c.inputs_json.value_or("[]"));
}

void EncodeRunMeta(const RunView& run, std::string* out) {
  out->clear();
  CanonicalWriter w(out);
  w.Text("record", "run/1");
  w.Text("run_uuid", run.run_uuid);
  w.Text("status", run.status);
  w.Text("command", run.command);
  w.Text("profile", run.profile);
  w.Int("seed", run.seed);
  w.Text("git_commit", run.git_commit);
  w.Int("git_dirty", run.git_dirty);
  w.Text("source_hash", run.source_hash);
  w.Text("platform_hash", run.platform_hash);
  w.Json("platform", run.platform_json);
  w.Json("build", run.build_json);
  w.Text("started_at", run.started_at);
  w.OptText("finished_at", run.finished_at);
}

Hash128 ResultHash(const ResultView& r, std::string* scratch) {
  EncodeResult(r, scratch);
  return cb::harness::Xxh3_128(*scratch);
}

Hash128 ClaimHash(const ClaimView& c, std::string* scratch) {
  EncodeClaim(c, scratch);
  return cb::harness::Xxh3_128(*scratch);
}

std::vector<Hash128> HashesInSeqOrder(std::vector<SeqHash>& rows,
                                      std::optional<int64_t>* duplicate_seq) {
  std::sort(rows.begin(), rows.end(),
            [](const SeqHash& a, const SeqHash& b) { return a.seq < b.seq; });
  std::vector<Hash128> hashes;
  hashes.reserve(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    if (duplicate_seq != nullptr && i > 0 && rows[i].seq == rows[i - 1].seq) {
      *duplicate_seq = rows[i].seq;
    }
    hashes.push_back(rows[i].hash);
  }
  return hashes;
}

Hash128 RunHash(const RunView& run, std::span<const Hash128> results,
                std::span<const Hash128> claims) {
  std::string bytes;
  EncodeRunMeta(run, &bytes);
  CanonicalWriter w(&bytes);
  w.Hashes("results", results);
  w.Hashes("claims", claims);
  return cb::harness::Xxh3_128(bytes);
}

Hash128 ChainHash(const Hash128& previous, const Hash128& run_hash) {
  std::string bytes;
  bytes.reserve(32);
  AppendHashBytes(previous, &bytes);
  AppendHashBytes(run_hash, &bytes);
  return cb::harness::Xxh3_128(bytes);
}

}  // namespace cb::ledger
