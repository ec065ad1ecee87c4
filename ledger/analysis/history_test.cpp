// File: ledger/analysis/history_test.cpp
// -----------------------------------------------------------------------------
// History over a real ledger: a planted +20% step at run 15 of 30 is found and
// named by its first run; a flat noisy series has no step; series split by backend.
#include "ledger/analysis/history.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <unistd.h>

#include "harness/random.h"

namespace cb::ledger {
namespace {

TEST(History, FindsAPlantedStepAndNamesTheFirstRunAfterIt) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("cb_history_test_" + std::to_string(getpid()) + ".db")).string();
  std::filesystem::remove(path);
  std::vector<int64_t> ids;
  {
    Ledger ledger = Ledger::Open(path);
    cb::harness::Rng rng(3, 4);
    for (int run = 0; run < 30; ++run) {
      RunMeta meta;
      meta.platform_hash = "pf";
      const int64_t id = ledger.BeginRun(meta);
      ids.push_back(id);
      for (const char* backend : {"cpu", "cuda"}) {
        Result r;
        r.suite = "s";
        r.case_name = "c";
        r.backend = backend;
        r.metric = "seconds";
        r.direction = "lower";
        const double level = std::string(backend) == "cpu" && run >= 15 ? 1.2 : 1.0;
        for (int i = 0; i < 5; ++i) r.samples.push_back(level * (1 + 0.01 * rng.Normal()));
        r.n = 5;
        r.value = r.samples[0];
        ledger.AddResult(id, r);
      }
      ledger.FinishRun(id, RunStatus::kComplete);
    }
    const auto series = History(ledger, "s", "c", "seconds");
    ASSERT_EQ(series.size(), 2u);
    const HistorySeries& cpu = series[0].backend == "cpu" ? series[0] : series[1];
    const HistorySeries& cuda = series[0].backend == "cpu" ? series[1] : series[0];
    EXPECT_EQ(cpu.points.size(), 30u);
    ASSERT_EQ(cpu.steps.size(), 1u);
    EXPECT_EQ(cpu.steps[0].first_run_id, ids[15]);
    EXPECT_NEAR(cpu.steps[0].relative, 0.2, 0.02);
    EXPECT_TRUE(cuda.steps.empty());
    HistoryOptions only_cuda;
    only_cuda.backend = "cuda";
    EXPECT_EQ(History(ledger, "s", "c", "seconds", only_cuda).size(), 1u);
    EXPECT_TRUE(History(ledger, "s", "nope", "seconds").empty());
    EXPECT_NE(HistoryTable(series).find("first run after it"), std::string::npos);
    EXPECT_EQ(HistoryJson(series)[0]["points"].size(), 30u);
  }
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
}

}  // namespace
}  // namespace cb::ledger
