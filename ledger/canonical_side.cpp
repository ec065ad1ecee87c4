// File: ledger/canonical_side.cpp
// -----------------------------------------------------------------------------
// The canonical encodings and content hashes of the side tables' rows:
// ceiling/1, artifact/1, decision/1 and cache/1 (byte-level specification in
// canonical.h). Kept apart from canonical.cpp, which encodes a run and its
// rows; both write through CanonicalWriter, so the field format is one.
#include "ledger/canonical.h"

namespace cb::ledger {

Hash128 CeilingHash(const CeilingView& c, std::string* scratch) {
  scratch->clear();
  CanonicalWriter w(scratch);
  w.Text("record", "ceiling/1");
  w.Text("platform_hash", c.platform_hash);
  w.Text("name", c.name);
  w.Real("value", c.value);
  w.Text("unit", c.unit);
  w.Json("detail", c.detail_json);
  w.Text("measured_at", c.measured_at);
  return cb::harness::Xxh3_128(*scratch);
}

Hash128 ArtifactHash(const ArtifactView& a, std::string* scratch) {
  scratch->clear();
  CanonicalWriter w(scratch);
  w.Text("record", "artifact/1");
  w.Text("hash", a.hash);
  w.Text("generator", a.generator);
  w.Int("version", a.version);
  w.Json("params", a.params_json);
  w.Int("size", a.size);
  w.Text("path", a.path);
  w.Text("created_at", a.created_at);
  return cb::harness::Xxh3_128(*scratch);
}

Hash128 DecisionHash(const DecisionView& d, std::string* scratch) {
  scratch->clear();
  CanonicalWriter w(scratch);
  w.Text("record", "decision/1");
  w.Int("run_id", d.run_id);
  w.Text("baseline", d.baseline);
  w.Text("suite", d.suite);
  w.Text("case_name", d.case_name);
  w.Text("metric", d.metric);
  w.Text("verdict", d.verdict);
  w.Text("test", d.test);
  w.OptInt("n", d.n);
  w.Real("p", d.p);
  w.Real("effect", d.effect);
  w.Real("ci_low", d.ci_low);
  w.Real("ci_high", d.ci_high);
  w.Real("threshold", d.threshold);
  w.Text("policy_version", d.policy_version);
  w.Json("detail", d.detail_json);
  w.Text("created_at", d.created_at);
  return cb::harness::Xxh3_128(*scratch);
}

Hash128 CacheEntryHash(const CacheEntryView& e, std::string* scratch) {
  scratch->clear();
  CanonicalWriter w(scratch);
  w.Text("record", "cache/1");
  w.Text("key", e.key);
  w.Blob("response", e.response);
  w.Text("created_at", e.created_at);
  return cb::harness::Xxh3_128(*scratch);
}

}  // namespace cb::ledger
