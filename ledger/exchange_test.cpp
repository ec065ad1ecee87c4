// File: ledger/exchange_test.cpp
// -----------------------------------------------------------------------------
// Export / Import / Merge: round trips keep every run_hash and row, both are
// idempotent, and a tampered or malformed export is refused whole, naming the
// line, with the target ledger left as it was.
#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <limits>
#include <sstream>

#include <nlohmann/json.hpp>

#include "ledger/ledger.h"
#include "ledger/ledger_test_util.h"

namespace cb::ledger {
namespace {

using testutil::AddSealedRun;
using testutil::OneLine;
using testutil::RunHashes;
using testutil::SampleMeta;
using testutil::SampleResult;
using testutil::TempDir;

std::string ExportAll(Ledger& ledger) {
  std::ostringstream out;
  ledger.Export(out);
  return out.str();
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

template <typename F>
std::string ErrorOf(F&& f) {
  try {
    f();
  } catch (const LedgerError& e) {
    return e.what();
  }
  return "";
}

class ExchangeTest : public ::testing::Test {
 protected:
  // Source ledger: three sealed runs (one with awkward values) and one
  // unsealed run, which is never exported.
  void SetUp() override {
    source_path_ = dir_.File("source.db");
    Ledger source = Ledger::Open(source_path_);
    AddSealedRun(source, 5, 2, 0);
    const int64_t odd = source.BeginRun(SampleMeta("odd values"));
    Result r = SampleResult(7);
    r.value = std::numeric_limits<double>::quiet_NaN();
    r.ci_low = -std::numeric_limits<double>::infinity();
    r.ci_high = std::numeric_limits<double>::infinity();
    r.samples = {-0.0, std::numeric_limits<double>::quiet_NaN(), 1e-310, 1.0 / 3.0};
    r.params = {{"unicode", "ε≈0 ✓"}, {"nested", {{"b", 1}, {"a", {1, 2.5, "x"}}}}};
    source.AddResult(odd, r);
    source.FinishRun(odd, RunStatus::kFailed);
    AddSealedRun(source, 3, 0, 100);
    const int64_t open_run = source.BeginRun(SampleMeta("still running"));
    source.AddResult(open_run, SampleResult(1));
  }

  TempDir dir_;
  std::string source_path_;
};

TEST_F(ExchangeTest, ExportImportKeepsEveryRunHashAndRow) {
  Ledger source = Ledger::Open(source_path_);
  const std::string text = ExportAll(source);
  EXPECT_EQ(Lines(text).size(), 3u) << "one line per sealed run";

  Ledger target = Ledger::Open(dir_.File("target.db"));
  std::istringstream in(text);
  const ImportReport rep = target.Import(in, "export.jsonl");
  EXPECT_EQ(rep.runs_added, 3);
  EXPECT_EQ(rep.runs_skipped, 0);
  EXPECT_EQ(RunHashes(target), RunHashes(source));
  const VerifyReport v = target.Verify();
  EXPECT_TRUE(v.ok) << v.first_error;
  EXPECT_EQ(v.results, 5 + 1 + 3);
  EXPECT_EQ(v.claims, 2);

  // The awkward row survives exactly.
  const int64_t odd = target.ResolveRun(source.GetRun(2).run_hash.substr(0, 12));
  const auto rows = target.GetResults(odd);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_TRUE(std::isnan(rows[0].value));
  EXPECT_EQ(rows[0].ci_low, -std::numeric_limits<double>::infinity());
  EXPECT_EQ(rows[0].ci_high, std::numeric_limits<double>::infinity());
  ASSERT_EQ(rows[0].samples.size(), 4u);
  EXPECT_TRUE(std::signbit(rows[0].samples[0]));
  EXPECT_TRUE(std::isnan(rows[0].samples[1]));
  EXPECT_EQ(rows[0].samples[2], 1e-310);
  EXPECT_EQ(rows[0].samples[3], 1.0 / 3.0);
  EXPECT_EQ(rows[0].params, source.GetResults(2)[0].params);
  EXPECT_EQ(target.GetRun(odd).status, "failed");
}

TEST_F(ExchangeTest, ExportImportKeepsKindAndDependsOnClock) {
  Ledger source = Ledger::Open(source_path_);
  const std::string text = ExportAll(source);
  const nlohmann::json first = nlohmann::json::parse(Lines(text).at(0));
  EXPECT_EQ(first["results"][0]["kind"], "timing");
  EXPECT_EQ(first["results"][1]["kind"], "exact");
  EXPECT_EQ(first["results"][2]["kind"], "estimate");
  EXPECT_EQ(first["claims"][0]["depends_on_clock"], false);
  EXPECT_EQ(first["claims"][1]["depends_on_clock"], true);

  Ledger target = Ledger::Open(dir_.File("target.db"));
  std::istringstream in(text);
  target.Import(in, "export.jsonl");
  const int64_t run = target.ResolveRun(source.GetRun(1).run_hash.substr(0, 12));
  std::vector<std::optional<cb::harness::ResultKind>> kinds, source_kinds;
  target.GetResults(run, &kinds);
  source.GetResults(1, &source_kinds);
  EXPECT_EQ(kinds, source_kinds);
  ASSERT_EQ(kinds.size(), 5u);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(kinds[i], SampleResult(i).kind) << i;
  const auto claims = target.GetClaims(run);
  ASSERT_EQ(claims.size(), 2u);
  EXPECT_EQ(claims[0].depends_on_clock, std::optional<bool>(false));
  EXPECT_EQ(claims[1].depends_on_clock, std::optional<bool>(true));
  // The export of the import is the same text: nothing was lost or added.
  std::ostringstream again;
  const int64_t ids[] = {run};
  target.Export(again, ids);
  nlohmann::json a = nlohmann::json::parse(again.str()), b = first;
  for (auto* j : {&a, &b}) (*j)["run"].erase("chain_hash");
  EXPECT_EQ(a, b);
}

TEST_F(ExchangeTest, KindIsCoveredByTheImportCheck) {
  Ledger source = Ledger::Open(source_path_);
  nlohmann::json line = nlohmann::json::parse(Lines(ExportAll(source)).at(0));
  line["results"][1]["kind"] = "timing";
  Ledger target = Ledger::Open(dir_.File("target.db"));
  std::istringstream in(line.dump() + "\n");
  const std::string what = ErrorOf([&] { target.Import(in, "x.jsonl"); });
  EXPECT_NE(what.find("results[1] (seq 2): content_hash mismatch"), std::string::npos) << what;
  // A current row without its kind (as an older export of it cannot be:
  // older rows have an older hash_version) is refused as such.
  line = nlohmann::json::parse(Lines(ExportAll(source)).at(0));
  line["claims"][0].erase("depends_on_clock");
  std::istringstream in2(line.dump() + "\n");
  const std::string what2 = ErrorOf([&] { target.Import(in2, "x.jsonl"); });
  EXPECT_NE(what2.find("depends_on_clock missing on a hash_version 5 claim"), std::string::npos)
      << what2;
  // Likewise own_results (claim/4), which says which results are the claim's.
  line = nlohmann::json::parse(Lines(ExportAll(source)).at(0));
  ASSERT_TRUE(line["claims"][0]["own_results"].is_number_integer()) << line["claims"][0].dump();
  line["claims"][0].erase("own_results");
  std::istringstream in3(line.dump() + "\n");
  const std::string what3 = ErrorOf([&] { target.Import(in3, "x.jsonl"); });
  EXPECT_NE(what3.find("own_results missing on a hash_version 5 claim"), std::string::npos) << what3;
  line = nlohmann::json::parse(Lines(ExportAll(source)).at(0));
  line["claims"][0]["own_results"] = line["claims"][0]["own_results"].get<int64_t>() + 1;
  std::istringstream in4(line.dump() + "\n");
  const std::string what4 = ErrorOf([&] { target.Import(in4, "x.jsonl"); });
  EXPECT_NE(what4.find("claims[0] (seq 1): content_hash mismatch"), std::string::npos) << what4;
}

TEST_F(ExchangeTest, AnImportFileWithNoRunsIsAnError) {
  Ledger target = Ledger::Open(dir_.File("target.db"));
  for (const std::string text : {"", "\n  \n\t\n"}) {
    std::istringstream in(text);
    const std::string what = ErrorOf([&] { target.Import(in, "empty.jsonl"); });
    EXPECT_NE(what.find("import 'empty.jsonl': holds no runs"), std::string::npos) << what;
  }
  EXPECT_EQ(target.Verify().runs, 0);
}

TEST_F(ExchangeTest, ImportTwiceAddsNothingTheSecondTime) {
  Ledger source = Ledger::Open(source_path_);
  const std::string text = ExportAll(source);
  Ledger target = Ledger::Open(dir_.File("target.db"));
  std::istringstream first(text), second(text);
  target.Import(first, "a.jsonl");
  const ImportReport again = target.Import(second, "a.jsonl");
  EXPECT_EQ(again.runs_added, 0);
  EXPECT_EQ(again.runs_skipped, 3);
  const VerifyReport v = target.Verify();
  EXPECT_TRUE(v.ok) << v.first_error;
  EXPECT_EQ(v.runs, 3);
  EXPECT_EQ(v.results, 9);
}

TEST_F(ExchangeTest, ImportedRunsAreAppendedToTheLocalChain) {
  Ledger target = Ledger::Open(dir_.File("target.db"));
  AddSealedRun(target, 2, 0, 500);  // the target has history of its own
  Ledger source = Ledger::Open(source_path_);
  std::istringstream in(ExportAll(source));
  target.Import(in, "a.jsonl");
  const VerifyReport v = target.Verify();
  EXPECT_TRUE(v.ok) << v.first_error;
  EXPECT_EQ(v.runs, 4);
  EXPECT_EQ(v.chain_head, target.GetRun(4).chain_hash);
  // Same run_hash, different chain position: chain hashes are per ledger.
  EXPECT_EQ(target.GetRun(2).run_hash, source.GetRun(1).run_hash);
  EXPECT_NE(target.GetRun(2).chain_hash, source.GetRun(1).chain_hash);
}

TEST_F(ExchangeTest, MergeTwiceEqualsMergeOnce) {
  Ledger target = Ledger::Open(dir_.File("target.db"));
  AddSealedRun(target, 2, 1, 900);
  const ImportReport once = target.Merge(source_path_);
  EXPECT_EQ(once.runs_added, 3);
  const VerifyReport after_once = target.Verify();
  const auto hashes_once = RunHashes(target);
  const ImportReport twice = target.Merge(source_path_);
  EXPECT_EQ(twice.runs_added, 0);
  EXPECT_EQ(twice.runs_skipped, 3);
  const VerifyReport after_twice = target.Verify();
  EXPECT_TRUE(after_twice.ok) << after_twice.first_error;
  EXPECT_EQ(after_twice.runs, after_once.runs);
  EXPECT_EQ(after_twice.results, after_once.results);
  EXPECT_EQ(after_twice.claims, after_once.claims);
  EXPECT_EQ(after_twice.chain_head, after_once.chain_head);
  EXPECT_EQ(RunHashes(target), hashes_once);
  EXPECT_EQ(hashes_once.size(), 4u);
  // Merging back the other way is idempotent too, and the unsealed source run
  // never travels.
  Ledger source = Ledger::Open(source_path_);
  const ImportReport back = source.Merge(dir_.File("target.db"));
  EXPECT_EQ(back.runs_added, 1);
  EXPECT_EQ(back.runs_skipped, 3);
  EXPECT_TRUE(source.Verify().ok);
}

// The source's export with one value changed on line 3 (run 3, whose results
// have value 1100..1102); lines 1 and 2 are untouched.
std::string TamperedExport(Ledger& source) {
  std::vector<std::string> lines = Lines(ExportAll(source));
  EXPECT_EQ(lines.size(), 3u);
  const std::string from = "\"value\":1101.0", to = "\"value\":1101.5";
  const size_t at = lines.at(2).find(from);
  EXPECT_NE(at, std::string::npos) << lines.at(2);
  if (at != std::string::npos) lines[2].replace(at, from.size(), to);
  return lines[0] + "\n" + lines[1] + "\n" + lines[2] + "\n";
}

TEST_F(ExchangeTest, TamperedLineIsRefusedWithItsNumberAndNothingIsWritten) {
  Ledger source = Ledger::Open(source_path_);
  Ledger target = Ledger::Open(dir_.File("target.db"));
  AddSealedRun(target, 2, 0, 700);
  const VerifyReport before = target.Verify();
  std::istringstream in(TamperedExport(source));
  try {
    target.Import(in, "tampered.jsonl");
    FAIL() << "a tampered export was imported";
  } catch (const LedgerError& e) {
    const std::string what = e.what();
    EXPECT_TRUE(OneLine(what)) << what;
    EXPECT_NE(what.find("'tampered.jsonl' line 3"), std::string::npos) << what;
    EXPECT_NE(what.find("content_hash mismatch"), std::string::npos) << what;
  }
  // Lines 1 and 2 were fine, yet nothing of the file may remain.
  const VerifyReport after = target.Verify();
  EXPECT_TRUE(after.ok) << after.first_error;
  EXPECT_EQ(after.runs, before.runs);
  EXPECT_EQ(after.results, before.results);
  EXPECT_EQ(after.chain_head, before.chain_head);
}

TEST_F(ExchangeTest, TamperedImportInsideACallersTransactionLeavesNothing) {
  // The caller's own write in the same transaction is kept when it commits;
  // the refused file's first two runs are not.
  Ledger source = Ledger::Open(source_path_);
  Ledger target = Ledger::Open(dir_.File("target.db"));
  target.BeginTransaction();
  AddSealedRun(target, 2, 0, 700);
  std::istringstream in(TamperedExport(source));
  EXPECT_THROW(target.Import(in, "tampered.jsonl"), LedgerError);
  target.Commit();
  const VerifyReport after = target.Verify();
  EXPECT_TRUE(after.ok) << after.first_error;
  EXPECT_EQ(after.runs, 1);
  EXPECT_EQ(after.results, 2);
}

TEST_F(ExchangeTest, ImportedHashesAreStoredInLowerCase) {
  // Hash128::FromHex reads either case, so an export whose content_hash was
  // upper-cased still verifies; the ledger must store the canonical form.
  Ledger source = Ledger::Open(source_path_);
  std::string text = ExportAll(source);
  const std::string hash =
      nlohmann::json::parse(Lines(text).at(0)).at("results").at(0).at("content_hash");
  std::string upper = hash;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  ASSERT_NE(upper, hash);
  text.replace(text.find(hash), hash.size(), upper);
  Ledger target = Ledger::Open(dir_.File("target.db"));
  std::istringstream in(text);
  EXPECT_EQ(target.Import(in, "upper.jsonl").runs_added, 3);
  const std::string again = ExportAll(target);
  EXPECT_NE(again.find(hash), std::string::npos);
  EXPECT_EQ(again.find(upper), std::string::npos) << "the upper-case text was stored as given";
}

TEST_F(ExchangeTest, TamperedRunMetaIsRefused) {
  Ledger source = Ledger::Open(source_path_);
  std::string text = ExportAll(source);
  const std::string from = "\"profile\":\"smoke\"";
  const size_t at = text.find(from);
  ASSERT_NE(at, std::string::npos);
  text.replace(at, from.size(), "\"profile\":\"quick\"");
  Ledger target = Ledger::Open(dir_.File("target.db"));
  std::istringstream in(text);
  try {
    target.Import(in, "x.jsonl");
    FAIL() << "changed run meta was imported";
  } catch (const LedgerError& e) {
    EXPECT_NE(std::string(e.what()).find("line 1: run.run_hash: mismatch"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(target.Verify().runs, 0);
}

TEST_F(ExchangeTest, DroppedOrRepeatedRowsAreRefused) {
  // Edits that leave every remaining row's own content_hash valid: a row
  // taken out is caught by the run_hash, a row given twice by its seq.
  Ledger source = Ledger::Open(source_path_);
  const nlohmann::json line = nlohmann::json::parse(Lines(ExportAll(source)).at(0));
  ASSERT_GE(line.at("results").size(), 2u);
  nlohmann::json dropped = line, repeated = line, moved = line;
  dropped["results"].erase(1);
  repeated["results"].push_back(line["results"][0]);
  // The last row's seq moved past the end: its row hash and the run_hash
  // (which covers the order only) still match; the numbering does not.
  const size_t last = line["results"].size() - 1;
  moved["results"][last]["seq"] = 99;
  const struct {
    nlohmann::json line;
    std::string expected;
  } cases[] = {
      {dropped, "line 1: run.run_hash: mismatch"},
      {repeated, "line 1: results: seq 1 appears twice"},
      {moved, "line 1: results: seq 99 where " + std::to_string(last + 1) + " was expected"},
  };
  Ledger target = Ledger::Open(dir_.File("target.db"));
  for (const auto& c : cases) {
    std::istringstream in(c.line.dump() + "\n");
    try {
      target.Import(in, "edited.jsonl");
      ADD_FAILURE() << "imported: " << c.expected;
    } catch (const LedgerError& e) {
      EXPECT_NE(std::string(e.what()).find(c.expected), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(target.Verify().runs, 0);
  // The same line re-serialised but unedited is accepted: the refusals above
  // are about the edits, not about the JSON having been rewritten.
  std::istringstream unedited(line.dump() + "\n");
  EXPECT_EQ(target.Import(unedited, "unedited.jsonl").runs_added, 1);
}

TEST_F(ExchangeTest, MalformedLinesNameTheLine) {
  Ledger source = Ledger::Open(source_path_);
  const std::vector<std::string> lines = Lines(ExportAll(source));
  Ledger target = Ledger::Open(dir_.File("target.db"));
  const struct {
    std::string text;
    std::string expected;
  } cases[] = {
      {lines[0] + "\n\n{not json\n", "line 3: not valid JSON"},
      {lines[0] + "\n[1, 2]\n", "line 2: expected a JSON object"},
      {"{\"format\":\"claimbench-ledger-run\",\"format_version\":7}\n",
       "line 1: format_version: 7 is newer than this build reads (1)"},
      {"{\"format\":\"something else\",\"format_version\":1}\n", "line 1: format: expected"},
  };
  for (const auto& c : cases) {
    std::istringstream in(c.text);
    try {
      target.Import(in, "bad.jsonl");
      ADD_FAILURE() << "imported: " << c.text;
    } catch (const LedgerError& e) {
      EXPECT_NE(std::string(e.what()).find(c.expected), std::string::npos) << e.what();
      EXPECT_TRUE(OneLine(e.what())) << e.what();
    }
  }
  EXPECT_EQ(target.Verify().runs, 0);
}

TEST_F(ExchangeTest, ExportOfSelectedRunsAndUnsealedRefusal) {
  Ledger source = Ledger::Open(source_path_);
  std::ostringstream out;
  const int64_t ids[] = {3};
  source.Export(out, ids);
  ASSERT_EQ(Lines(out.str()).size(), 1u);
  EXPECT_NE(out.str().find(source.GetRun(3).run_hash), std::string::npos);
  const int64_t unsealed[] = {4};
  std::ostringstream ignored;
  EXPECT_THROW(source.Export(ignored, unsealed), LedgerError);
}

}  // namespace
}  // namespace cb::ledger
