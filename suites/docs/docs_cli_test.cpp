// File: suites/docs/docs_cli_test.cpp
// `claimbench docs --checkpoint DIR` end to end on the shipped Hugging Face
// checkpoints: fixtures/lm/draft (2 layers: every projection type, one
// adjacent pair each, the chance floor) as CSV and JSON, its ledger rows
// rendered as heatmaps by `claimbench report`; fixtures/lm/smoke (1 layer)
// and other bad input: one error line, exit 3, no ledger.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fixtures/cli_test_util.h"
#include "fixtures/paths.h"
#include "ledger/ledger.h"

namespace {

namespace fs = std::filesystem;
using cb::cli::testing::ClaimbenchTest;
using cb::cli::testing::Output;

const char* const kTypes[] = {"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"};

class DocsCheckpointCliTest : public ClaimbenchTest {
 protected:
  static std::string Draft() { return cb::testing::FixturePath("lm/draft"); }
};

TEST_F(DocsCheckpointCliTest, EveryProjectionTypeWithTheChanceFloorInOneRun) {
  const Output o = Run({"docs", "--checkpoint", Draft(), "--chance-draws", "3", "--ledger", "l.db"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  std::istringstream lines(o.out);
  std::string line;
  std::getline(lines, line);
  EXPECT_EQ(line, "proj,what,layer_i,layer_j,value,ci_low,ci_high");
  int pairs = 0, chance = 0;
  while (std::getline(lines, line)) {
    if (line.find(",docs_score,0,1,") != std::string::npos) {
      const double v = std::stod(line.substr(line.rfind(",1,") + 3));
      EXPECT_GT(v, 0.0) << line;
      EXPECT_LT(v, 1.0) << line;
      ++pairs;
    }
    chance += line.find(",chance_mean,,,") != std::string::npos;
  }
  EXPECT_EQ(pairs, 7) << o.out;  // one pair (layers 0 and 1) per type
  EXPECT_EQ(chance, 7) << o.out;

  auto ledger = cb::ledger::Ledger::OpenReadOnly(Path("l.db"));
  const auto rows = ledger.GetResults(ledger.ResolveRun("latest"));
  for (const char* proj : kTypes) {
    SCOPED_TRACE(proj);
    int cells = 0, floors = 0;
    for (const auto& r : rows) {
      if (r.params.value("proj", "") != proj) continue;
      if (r.case_name == "checkpoint_layers" && r.metric == "docs_score") {
        EXPECT_EQ(r.params.at("heatmap"), std::string(proj) + " DOCS, columns");
        EXPECT_EQ(r.params.at("heatmap_row"), 0);
        EXPECT_EQ(r.params.at("heatmap_col"), 1);
        EXPECT_EQ(r.input_hash.size(), 32u);
        ++cells;
      }
      if (r.case_name == "checkpoint_chance_floor" && r.metric == "chance_mean") {
        ASSERT_TRUE(r.ci_low && r.ci_high);
        EXPECT_LE(*r.ci_low, r.value);
        EXPECT_GE(*r.ci_high, r.value);
        EXPECT_EQ(r.n, 3);
        ++floors;
      }
      // Two layers: no non-adjacent pair, so no such rows.
      EXPECT_NE(r.metric, "non_adjacent_mean");
    }
    EXPECT_EQ(cells, 1);
    EXPECT_EQ(floors, 1);
  }

  // The same run as JSON: the 2 x 2 matrix per type, reflexive diagonal.
  const Output j = Run({"docs", "--checkpoint", Draft(), "--chance-draws", "2", "--format", "json",
                        "--vectors", "rows", "--ledger", "l.db"});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  const auto doc = nlohmann::json::parse(j.out);
  ASSERT_EQ(doc.at("projections").size(), 7u);
  for (const auto& p : doc["projections"]) {
    EXPECT_EQ(p.at("layers"), nlohmann::json({0, 1}));
    EXPECT_EQ(p["docs"][0][0], 1.0);
    EXPECT_EQ(p["docs"][0][1], p["docs"][1][0]);
    EXPECT_TRUE(p["non_adjacent_mean"].is_null());
    EXPECT_EQ(p["chance"]["draws"], 2);
  }
  EXPECT_EQ(doc["projections"][4]["proj"], "gate_proj");
  EXPECT_EQ(doc["vectors"], "rows");
  EXPECT_EQ(doc["projections"][4]["shape"], nlohmann::json({128, 352}));  // gate (352, 128), transposed

  // The report draws one heatmap per type: run 1 compared columns, run 2 rows.
  for (const auto& [run, vectors] : {std::pair{"1", "columns"}, std::pair{"2", "rows"}}) {
    const Output md = Run({"report", "--ledger", "l.db", "--format", "md", "--run", run});
    ASSERT_EQ(md.exit_code, 0) << md.err;
    for (const char* proj : kTypes) {
      EXPECT_NE(md.out.find(std::string("### Heatmap: docs/checkpoint_layers [cpu] ") + proj + " DOCS, " + vectors +
                            "\n\n| docs_score | 1 |\n|---|---|\n| 0 | 0."),
                std::string::npos)
          << md.out;
    }
  }
}

TEST_F(DocsCheckpointCliTest, BadInputIsOneLineAndNoLedger) {
  const std::string smoke = cb::testing::FixturePath("lm/smoke");  // one layer
  for (const auto& [args, words] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--checkpoint", smoke}, "q_proj: 1 layer(s) found"},
           {{"--checkpoint", Path("missing")}, "not a folder"},
           {{"--checkpoint", Path(".")}, "no model.safetensors"},
           {{"--checkpoint", Draft(), "--match", "q_proj"}, "--match selects tensors"},
           {{"--checkpoint", Draft(), "--chance-draws", "0"}, "--chance-draws must be >= 1"},
           {{"--checkpoint", Draft(), "--vectors", "diagonal"}, "--vectors 'diagonal'"},
           {{}, "give exactly one of"},
           {{"--checkpoint", Draft(), "--safetensors", smoke + "/model.safetensors"}, "give exactly one of"},
       }) {
    std::vector<std::string> full = {"docs"};
    full.insert(full.end(), args.begin(), args.end());
    full.insert(full.end(), {"--ledger", "never.db"});
    const Output o = Run(full);
    EXPECT_EQ(o.exit_code, 3) << words << ": " << o.err;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
    EXPECT_NE(o.err.find(words), std::string::npos) << o.err;
    EXPECT_FALSE(fs::exists(Path("never.db"))) << words;
  }
}

}  // namespace
