// File: suites/probegen/probe_training_test.cpp
// The predictor training on a zoo whose "accuracy" is a known function of the
// weights (the scale of each model's output layer), so a working pipeline
// must rank held-out models well; plus determinism, the split and the
// above-median score, and the FLOPs accounting by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include "reference/probegen/zoo_model.h"
#include "suites/probegen/flops.h"
#include "suites/probegen/probe_training.h"

namespace cb::probegen {
namespace {

namespace rp = cb::ref::probegen;

// 40 copies of one MLP 1024 -> 4 -> 10 that differ only in the bias of
// logit 0, 4 s_i with s_i in [0.2, 2], and whose "accuracy" is s_i / 2: logit
// 0 of any probe tells it, so a working pipeline must rank the held-out
// copies nearly perfectly.
struct ScaledZoo {
  std::vector<rp::ZooModel> models;
  ZooTask task;
};

ScaledZoo MakeScaledZoo(int n = 40) {
  ScaledZoo z;
  for (int i = 0; i < n; ++i) {
    rp::ZooModel m = rp::InitZooModel(rp::MakeMlpArch(1, 32, {4}, 10), 100);
    const double s = 0.2 + 1.8 * ((i * 7) % n) / double(n - 1);
    m.b.back()[0] = 4 * s;
    z.models.push_back(m);
    z.task.accuracy.push_back(s / 2);
  }
  for (const auto& m : z.models) z.task.models.push_back(&m);
  SplitZoo(&z.task, 0.25, 3);
  return z;
}

ProbeTrainOptions Small(ProbeMethod m, int threads = 1) {
  return {.method = m, .probes = 2, .epochs = 20, .batch = 8, .lr = 3e-3, .hidden = 32, .seed = 5,
          .threads = threads};
}

TEST(ProbeTrainingTest, EveryMethodRanksAZooWhoseAccuracyIsReadableFromTheLogits) {
  const ScaledZoo z = MakeScaledZoo();
  for (ProbeMethod m : {ProbeMethod::kProbeGen, ProbeMethod::kVanilla, ProbeMethod::kRandom}) {
    SCOPED_TRACE(ProbeMethodName(m));
    const ProbeRunResult r = TrainAndEvaluate(z.task, Small(m));
    EXPECT_EQ(r.predicted.size(), z.task.test.size());
    EXPECT_LT(r.last_loss, r.first_loss);
    EXPECT_GT(r.kendall_tau, 0.8);
    EXPECT_GE(r.above_median_accuracy, 0.8);
    EXPECT_EQ(r.steps, 20 * ((int(z.task.train.size()) + 7) / 8));
  }
}

TEST(ProbeTrainingTest, ResultsDoNotDependOnTheThreadCount) {
  const ScaledZoo z = MakeScaledZoo(16);
  ProbeTrainOptions one = Small(ProbeMethod::kProbeGen, 1), two = Small(ProbeMethod::kProbeGen, 2);
  one.epochs = two.epochs = 3;
  const ProbeRunResult a = TrainAndEvaluate(z.task, one), b = TrainAndEvaluate(z.task, two);
  EXPECT_EQ(a.predicted, b.predicted);  // bit for bit: per-model gradients summed in batch order
  EXPECT_EQ(a.last_loss, b.last_loss);
}

TEST(ProbeTrainingTest, SplitIsDeterministicDisjointAndComplete) {
  ScaledZoo z = MakeScaledZoo(20);
  ZooTask again = z.task;
  SplitZoo(&again, 0.25, 3);
  EXPECT_EQ(again.test, z.task.test);
  EXPECT_EQ(z.task.test.size(), 5u);
  std::set<int> all(z.task.train.begin(), z.task.train.end());
  for (int i : z.task.test) EXPECT_TRUE(all.insert(i).second) << i << " in both";
  EXPECT_EQ(all.size(), 20u);
  SplitZoo(&again, 0.25, 4);
  EXPECT_NE(again.test, z.task.test);
  ZooTask tiny;
  tiny.models = {z.task.models[0], z.task.models[1], z.task.models[2]};
  tiny.accuracy = {0.1, 0.2, 0.3};
  EXPECT_THROW(SplitZoo(&tiny, 0.25, 1), std::invalid_argument);
}

TEST(ProbeTrainingTest, AboveMedianAccuracyCountsSidesOfBothMedians) {
  // actual median 2.5: {1, 2} below, {3, 4} above; predicted median 25.
  EXPECT_EQ(AboveMedianAccuracy({10, 20, 30, 40}, {1, 2, 3, 4}), 1.0);
  EXPECT_EQ(AboveMedianAccuracy({40, 30, 20, 10}, {1, 2, 3, 4}), 0.0);
  EXPECT_EQ(AboveMedianAccuracy({10, 30, 20, 40}, {1, 2, 3, 4}), 0.5);
}

TEST(FlopsTest, GraphAndCostsByHand) {
  // conv 1->2 (k3), conv 2->3 (k3), gap, linear 3->4.
  const rp::ZooArch cnn = rp::MakeCnnArch(1, 8, {2, 3}, 4);
  const GraphSize g = ComputationGraph(cnn);
  EXPECT_EQ(g.nodes, 1 + 2 + 3 + 4);
  EXPECT_EQ(g.edges, 1 * 2 + 2 * 3 + 3 * 4);
  EXPECT_EQ(g.edge_features, 9);
  // d = 2, 1 round: messages 20 edges x (2*2 + 9) x 2 = 520, updates 10 x 4 x 2 = 80,
  // readout 2: 2 x (520 + 80 + 2) = 1204.
  EXPECT_EQ(MetanetFlops(cnn, {.hidden = 2, .layers = 1}), 1204);
  // Per image: conv1 4x4 out x 2 x 9 = 288, conv2 2x2 x 3 x 2 x 9 = 216, linear 12: 516.
  ASSERT_EQ(rp::ZooMacsPerImage(cnn), 516);
  // 3 probes; predictor in 12 -> 5 -> 5 -> 1 (3 layers): 60 + 25 + 5 = 90.
  EXPECT_EQ(ProbeGenFlops(cnn, 3, 5, 3), 2 * (3 * 516 + 90));
  const rp::ZooArch mlp = rp::MakeMlpArch(1, 4, {3}, 2);
  const GraphSize gm = ComputationGraph(mlp);
  EXPECT_EQ(gm.nodes, 16 + 3 + 2);
  EXPECT_EQ(gm.edges, 16 * 3 + 3 * 2);
  EXPECT_EQ(gm.edge_features, 1);
}

}  // namespace
}  // namespace cb::probegen
