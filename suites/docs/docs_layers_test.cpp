// File: suites/docs/docs_layers_test.cpp
// -----------------------------------------------------------------------------
// The layer analysis (docs_layers.h, docs_layer_rows.h): the adjacency
// summary and its permutation p-value on hand-made matrices, the chance
// floor against the fp64 reference, sharded checkpoints whose shards split
// the layers out of order, and one-line errors for bad checkpoints.
#include "suites/docs/docs_layers.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "generators/tensors.h"
#include "harness/safetensors.h"
#include "reference/docs.h"
#include "suites/docs/docs_layer_rows.h"

namespace cb::docs {
namespace {

namespace h = cb::harness;
namespace fs = std::filesystem;

// (L, L) with S(i, j) = f(|i - j|), 1 on the diagonal.
SimilarityMatrix ByDistance(int L, double (*f)(int)) {
  SimilarityMatrix s;
  for (int i = 0; i < L; ++i) s.names.push_back("l" + std::to_string(i));
  s.score.assign(L * L, 1.0);
  for (int i = 0; i < L; ++i)
    for (int j = 0; j < L; ++j)
      if (i != j) s.score[i * L + j] = f(std::abs(i - j));
  return s;
}

ChanceFloor Constant(double v, int draws) {
  ChanceFloor c;
  c.scores.assign(draws, v);
  c.mean = c.max = v;
  c.ci = {v, v};
  return c;
}

TEST(Summarise, AdjacentMeansGapsAndAnExactPermutationP) {
  // Similarity falls with distance: 0.5, 0.4, 0.3 for distance 1, 2, 3.
  const auto sim = ByDistance(4, [](int d) { return 0.6 - 0.1 * d; });
  const Adjacency a = Summarise({0, 1, 2, 3}, sim, Constant(0.2, 5), 7);
  EXPECT_EQ(a.adjacent_pairs, 3);
  EXPECT_EQ(a.non_adjacent_pairs, 3);
  EXPECT_DOUBLE_EQ(a.adjacent_mean, 0.5);
  EXPECT_DOUBLE_EQ(a.non_adjacent_mean, (0.4 + 0.4 + 0.3) / 3);
  EXPECT_DOUBLE_EQ(a.gap_far, 0.5 - 1.1 / 3);
  EXPECT_DOUBLE_EQ(a.gap_chance, 0.3);
  // Every adjacent pair is 0.5, every chance draw 0.2: no spread to resample.
  EXPECT_DOUBLE_EQ(a.gap_chance_ci.low, 0.3);
  EXPECT_DOUBLE_EQ(a.gap_chance_ci.high, 0.3);
  EXPECT_LE(a.gap_far_ci.low, a.gap_far);
  EXPECT_GE(a.gap_far_ci.high, a.gap_far);
  EXPECT_GT(a.gap_far_ci.low, 0.0);
  // Only the order and its reverse put all three 0.5 pairs side by side.
  EXPECT_EQ(a.permutations, 24);
  EXPECT_DOUBLE_EQ(a.permutation_p, 2.0 / 24);
}

TEST(Summarise, NoStructureGivesAGapOfZeroAndPOfOne) {
  const auto flat = ByDistance(5, [](int) { return 0.25; });
  const Adjacency a = Summarise({0, 1, 2, 3, 4}, flat, Constant(0.25, 3), 1);
  EXPECT_NEAR(a.gap_far, 0.0, 1e-15);
  EXPECT_NEAR(a.gap_chance, 0.0, 1e-15);
  EXPECT_EQ(a.permutation_p, 1.0);  // every relabelling ties
  EXPECT_EQ(a.permutations, 120);
}

TEST(Summarise, TwoLayersHaveNoNonAdjacentPairsAndGapsInNumberingNoP) {
  const auto two = ByDistance(2, [](int) { return 0.4; });
  const Adjacency a = Summarise({0, 1}, two, Constant(0.1, 2), 1);
  EXPECT_EQ(a.non_adjacent_pairs, 0);
  EXPECT_TRUE(std::isnan(a.non_adjacent_mean));
  EXPECT_TRUE(std::isnan(a.gap_far));
  EXPECT_TRUE(std::isnan(a.permutation_p));
  EXPECT_DOUBLE_EQ(a.gap_chance, 0.3);

  // Layers 0, 1, 3: adjacency by layer number (only 0-1), no permutation p.
  const auto three = ByDistance(3, [](int d) { return 0.6 - 0.1 * d; });
  const Adjacency b = Summarise({0, 1, 3}, three, Constant(0.1, 2), 1);
  EXPECT_EQ(b.adjacent_pairs, 1);
  EXPECT_EQ(b.non_adjacent_pairs, 2);
  EXPECT_TRUE(std::isnan(b.permutation_p));
  EXPECT_THROW(Summarise({0, 2}, two, Constant(0.1, 2), 1), std::invalid_argument);
}

TEST(ChanceFloor, MatchesTheReferenceOnTheSameGaussianPairsAndIsDeterministic) {
  const ChanceFloor c = ChanceFloorOf(h::Backend::kCpu, 32, 48, 4, 99);
  ASSERT_EQ(c.scores.size(), 4u);
  for (int d = 0; d < 4; ++d) {
    const auto x = cb::gen::GaussianMatrix(32, 48, 99, 2 * d).matrix;
    const auto y = cb::gen::GaussianMatrix(32, 48, 99, 2 * d + 1).matrix;
    EXPECT_NEAR(c.scores[d], cb::ref::docs::Docs(x, y).score, 1e-5);
  }
  EXPECT_GT(c.sd, 0.0);
  EXPECT_LE(c.ci.low, c.mean);
  EXPECT_GE(c.ci.high, c.mean);
  EXPECT_EQ(c.max, *std::max_element(c.scores.begin(), c.scores.end()));
  EXPECT_EQ(ChanceFloorOf(h::Backend::kCpu, 32, 48, 4, 99).scores, c.scores);
  EXPECT_NE(ChanceFloorOf(h::Backend::kCpu, 32, 48, 4, 100).scores, c.scores);
  EXPECT_THROW(ChanceFloorOf(h::Backend::kCpu, 32, 48, 0, 99), std::invalid_argument);
}

TEST(Transposed, SwapsTheAxesSoDocsComparesRows) {
  ProjectionLayers p;
  p.proj = "q_proj";
  p.layer = {0, 1};
  for (int l = 0; l < 2; ++l) {
    NamedTensor t;
    t.name = "l" + std::to_string(l);
    t.rows = 6;
    t.cols = 9;
    const auto g = cb::gen::GaussianMatrix(6, 9, 3, l).matrix.data;
    t.data.assign(g.begin(), g.end());
    p.tensors.push_back(t);
  }
  const ProjectionLayers t = Transposed(p);
  ASSERT_EQ(t.tensors[0].rows, 9);
  ASSERT_EQ(t.tensors[0].cols, 6);
  EXPECT_EQ(t.tensors[1].data[4 * 6 + 5], p.tensors[1].data[5 * 9 + 4]);  // (4, 5) of the transpose
  EXPECT_NE(t.tensors[0].content_hash, t.tensors[1].content_hash);
  cb::ref::Matrix x(9, 6), y(9, 6);
  for (int r = 0; r < 9; ++r)
    for (int c = 0; c < 6; ++c) x(r, c) = p.tensors[0].data[c * 9 + r], y(r, c) = p.tensors[1].data[c * 9 + r];
  const auto sim = LayerSimilarity(h::Backend::kCpu, t.tensors, nullptr);
  EXPECT_NEAR(sim.at(0, 1), cb::ref::docs::Docs(x, y).score, 1e-5);
}

class CheckpointDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("cb_docs_layers_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static std::pair<std::string, h::SafetensorsWriteTensor> QProj(int layer, int rows = 12, int cols = 8) {
    return {"model.layers." + std::to_string(layer) + ".self_attn.q_proj.weight",
            {"F32", {rows, cols}, cb::gen::GaussianMatrix(rows, cols, 5, layer).matrix.data}};
  }
  fs::path dir_;
};

TEST_F(CheckpointDirTest, ShardsSplittingLayersOutOfOrderAreReadInLayerOrder) {
  // Layers 10 and 2 in shard 1, layer 0 and 1 in shard 2: the index names both.
  h::WriteSafetensors((dir_ / "model-00001-of-00002.safetensors").string(), {QProj(10), QProj(2)});
  h::WriteSafetensors((dir_ / "model-00002-of-00002.safetensors").string(), {QProj(1), QProj(0)});
  std::ofstream(dir_ / "model.safetensors.index.json")
      << R"({"metadata": {}, "weight_map": {
           "model.layers.10.self_attn.q_proj.weight": "model-00001-of-00002.safetensors",
           "model.layers.2.self_attn.q_proj.weight": "model-00001-of-00002.safetensors",
           "model.layers.1.self_attn.q_proj.weight": "model-00002-of-00002.safetensors",
           "model.layers.0.self_attn.q_proj.weight": "model-00002-of-00002.safetensors"}})";
  const auto files = CheckpointFiles(dir_.string());
  ASSERT_EQ(files.size(), 2u);
  const ProjectionLayers q = LoadProjection(files, LlamaProjections()[0]);
  EXPECT_EQ(q.layer, (std::vector<int>{0, 1, 2, 10}));
  ASSERT_EQ(q.tensors.size(), 4u);
  EXPECT_EQ(q.tensors[3].name, "model.layers.10.self_attn.q_proj.weight");
  // Layer 2 and 10 are not adjacent, so the summary sees 2 adjacent pairs (0-1, 1-2).
  const auto sim = LayerSimilarity(h::Backend::kCpu, q.tensors, nullptr);
  const Adjacency a = Summarise(q.layer, sim, ChanceFloorOf(h::Backend::kCpu, 12, 8, 2, 1), 1);
  EXPECT_EQ(a.adjacent_pairs, 2);
  EXPECT_EQ(a.non_adjacent_pairs, 4);

  // Its ledger rows: one per pair with the heatmap keys, then the summary.
  const auto rows = LayerRows("c", {{"proj", "q_proj"}}, "q DOCS", q, sim, a);
  int cells = 0;
  for (const auto& r : rows) {
    if (r.metric != "docs_score") continue;
    ++cells;
    EXPECT_EQ(r.params.at("heatmap"), "q DOCS");
    EXPECT_LT(r.params.at("heatmap_row").get<int>(), r.params.at("heatmap_col").get<int>());
  }
  EXPECT_EQ(cells, 6);
  EXPECT_EQ(rows.size(), 6u + 4u);  // no permutation_p: the numbering has a gap
  EXPECT_EQ(ScanProjection(files, LlamaProjections()[0]), q.layer);
  // The other six types are absent: one line naming the type.
  try {
    ScanProjection(files, LlamaProjections()[6]);
    ADD_FAILURE() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("down_proj: 0 layer(s) found", 0), 0u) << e.what();
  }
}

TEST_F(CheckpointDirTest, BadCheckpointsAreOneLineErrors) {
  auto expect_error = [](auto&& f, const std::string& words) {
    try {
      f();
      ADD_FAILURE() << "no error for: " << words;
    } catch (const std::runtime_error& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
      EXPECT_NE(what.find(words), std::string::npos) << what;
    }
  };
  expect_error([&] { CheckpointFiles((dir_ / "nope").string()); }, "not a folder");
  expect_error([&] { CheckpointFiles(dir_.string()); }, "no model.safetensors");
  std::ofstream(dir_ / "model.safetensors.index.json") << "{\"weight_map\": {\"a\": \"../x\"}}";
  expect_error([&] { CheckpointFiles(dir_.string()); }, "is not a file name");
  std::ofstream(dir_ / "model.safetensors.index.json") << "{";
  expect_error([&] { CheckpointFiles(dir_.string()); }, "not JSON");
  h::WriteSafetensors((dir_ / "model.safetensors").string(), {QProj(0), QProj(1, 12, 9)});
  expect_error([&] { CheckpointFiles(dir_.string()); }, "ambiguous");
  fs::remove(dir_ / "model.safetensors.index.json");
  const auto files = CheckpointFiles(dir_.string());
  expect_error([&] { ScanProjection(files, LlamaProjections()[0]); }, "must have one shape");
}

}  // namespace
}  // namespace cb::docs
