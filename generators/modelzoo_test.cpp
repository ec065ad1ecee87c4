// File: generators/modelzoo_test.cpp
// -----------------------------------------------------------------------------
// Tests of generators/modelzoo.h: ShapeImages is deterministic, seed-dependent,
// balanced, in range and draws the shapes it names (bar orientation read off
// the pixels); TrainModelZoo does not depend on the thread count, stores
// fp32-exact finite weights whose recomputed test accuracy is the recorded
// one, and learns; WriteModelZoo + ReadZooDir (reference/probegen/zoo_io.h)
// give the zoo back exactly; bad parameters are refused; golden content
// hashes in fixtures/generators/modelzoo_golden.txt.
#include "generators/modelzoo.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <vector>

#include <nlohmann/json.hpp>

#include "fixtures/fresh_seed.h"
#include "fixtures/golden.h"
#include "reference/probegen/zoo_io.h"
#include "reference/probegen/zoo_model.h"

namespace cb::gen {
namespace {

namespace fs = std::filesystem;
namespace pg = cb::ref::probegen;

// The tiny zoo of the golden file and the thread test: 6 models, 2 SGD steps each.
ZooParams TinyZoo() {
  return {.models = 6, .train_images = 64, .test_images = 64, .max_epochs = 1, .seed = 1};
}

// ---------------------------------------------------------------------------
// ShapeImages

TEST(ShapeImages, DeterministicAndSeedDependent) {
  CB_FRESH_SEED(seed);
  const ImageSet a = ShapeImages(seed, 30);
  const ImageSet b = ShapeImages(seed, 30);
  EXPECT_EQ(a.x, b.x);
  EXPECT_EQ(a.y, b.y);
  EXPECT_EQ(HashImageSet(a), HashImageSet(b));
  EXPECT_NE(HashImageSet(ShapeImages(seed + 1, 30)), HashImageSet(a));
  // A prefix of a longer draw is the shorter draw (images are drawn in order).
  const ImageSet longer = ShapeImages(seed, 31);
  EXPECT_TRUE(std::equal(a.x.begin(), a.x.end(), longer.x.begin()));
  EXPECT_NE(HashImageSet(longer), HashImageSet(a));
}

TEST(ShapeImages, BalancedLabelsAndValuesInRange) {
  CB_FRESH_SEED(seed);
  const ImageSet set = ShapeImages(seed, 64, 16);
  ASSERT_EQ(set.n, 64);
  ASSERT_EQ(set.channels, 1);
  ASSERT_EQ(set.size, 16);
  ASSERT_EQ(set.classes, kShapeClasses);
  ASSERT_EQ(set.x.size(), 64u * 16 * 16);
  ASSERT_EQ(set.y.size(), 64u);
  std::vector<int> count(kShapeClasses, 0);
  for (int y : set.y) {
    ASSERT_GE(y, 0);
    ASSERT_LT(y, kShapeClasses);
    ++count[static_cast<size_t>(y)];
  }
  for (int c = 0; c < kShapeClasses; ++c) {
    EXPECT_GE(count[static_cast<size_t>(c)], 6) << "class " << c;  // 64 / 10, within one
    EXPECT_LE(count[static_cast<size_t>(c)], 7) << "class " << c;
  }
  double lo = 1.0, hi = -1.0;
  for (double v : set.x) {
    ASSERT_TRUE(v >= -1.0 && v <= 1.0) << v;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  EXPECT_GT(hi - lo, 0.5);  // shapes show up against the background
  // The labels are not in a fixed cycle: some block of 10 is not 0..9 in order.
  bool shuffled = false;
  for (int i = 0; i + 1 < 60; ++i) shuffled |= set.y[i + 1] != (set.y[i] + 1) % kShapeClasses;
  EXPECT_TRUE(shuffled);
}

// Mean squared difference between vertically / horizontally adjacent pixels:
// horizontal bars change along y, vertical bars along x.
void EdgeEnergy(const ImageSet& set, int i, double* along_y, double* along_x) {
  const int s = set.size;
  const double* img = &set.x[static_cast<size_t>(i) * s * s];
  *along_y = *along_x = 0.0;
  for (int y = 0; y + 1 < s; ++y) {
    for (int x = 0; x + 1 < s; ++x) {
      *along_y += std::pow(img[(y + 1) * s + x] - img[y * s + x], 2);
      *along_x += std::pow(img[y * s + x + 1] - img[y * s + x], 2);
    }
  }
}

TEST(ShapeImages, BarsAreOrientedAsTheirLabelSays) {
  CB_FRESH_SEED(seed);
  const ImageSet set = ShapeImages(seed, 200);
  constexpr int kHBars = 7, kVBars = 8;  // the header's order
  int checked = 0;
  for (int i = 0; i < set.n; ++i) {
    if (set.y[i] != kHBars && set.y[i] != kVBars) continue;
    double ey = 0.0, ex = 0.0;
    EdgeEnergy(set, i, &ey, &ex);
    if (set.y[i] == kHBars) {
      EXPECT_GT(ey, ex) << "image " << i << " (horizontal bars)";
    } else {
      EXPECT_GT(ex, ey) << "image " << i << " (vertical bars)";
    }
    ++checked;
  }
  EXPECT_EQ(checked, 40);
}

TEST(ShapeImages, RejectsBadArguments) {
  EXPECT_THROW(ShapeImages(1, 0), std::invalid_argument);
  EXPECT_THROW(ShapeImages(1, 4, 7), std::invalid_argument);
}

// ---------------------------------------------------------------------------
// TrainModelZoo

TEST(TrainModelZoo, SameZooWithOneAndTwoThreads) {
  const ModelZoo one = TrainModelZoo(TinyZoo(), 1);
  std::vector<int> seen;
  const ModelZoo two = TrainModelZoo(TinyZoo(), 2, [&](int done, int total) {
    EXPECT_EQ(total, 6);
    seen.push_back(done);
  });
  EXPECT_EQ(one.hash, two.hash);
  EXPECT_EQ(HashModelZoo(two), two.hash);
  EXPECT_EQ(seen, (std::vector<int>{1, 2, 3, 4, 5, 6}));
  ASSERT_EQ(one.members.size(), two.members.size());
  for (size_t i = 0; i < one.members.size(); ++i) {
    EXPECT_EQ(one.members[i].model.w, two.members[i].model.w) << "model " << i;
    EXPECT_EQ(one.members[i].test_accuracy, two.members[i].test_accuracy) << "model " << i;
  }
  // The hash covers the parameters and the weights.
  ZooParams other = TinyZoo();
  other.seed = 2;
  EXPECT_NE(TrainModelZoo(other, 2).hash, one.hash);
  ModelZoo edited = one;
  edited.members[3].model.w[0][0] += 1.0;
  EXPECT_NE(HashModelZoo(edited), one.hash);
}

TEST(TrainModelZoo, MembersAreFiniteFp32AndScoredOnTheirStoredWeights) {
  const ZooParams params = TinyZoo();
  const ModelZoo zoo = TrainModelZoo(params, 2);
  ASSERT_EQ(zoo.members.size(), 6u);
  const ImageSet test = ShapeImages(params.seed + 1, params.test_images);
  std::vector<double> accuracies;
  for (const ZooMember& m : zoo.members) {
    for (const char* key : {"family", "widths", "lr", "epochs", "weight_decay", "label_noise", "init_seed"}) {
      EXPECT_TRUE(m.hparams.count(key)) << key;
    }
    EXPECT_EQ(m.hparams.at("epochs"), "1");  // max_epochs = 1
    EXPECT_EQ(pg::ArchToString(m.model.arch).substr(0, 3), m.hparams.at("family"));
    for (const auto& w : m.model.w) {
      for (double v : w) {
        ASSERT_TRUE(std::isfinite(v));
        ASSERT_EQ(v, static_cast<double>(static_cast<float>(v)));
      }
    }
    // The recorded accuracy is the stored weights' accuracy on the test images.
    std::vector<double> logits(static_cast<size_t>(test.n) * test.classes);
    pg::ZooForward(m.model, test.n, test.x.data(), logits.data(), nullptr);
    int correct = 0;
    for (int i = 0; i < test.n; ++i) {
      const double* z = &logits[static_cast<size_t>(i) * test.classes];
      correct += std::max_element(z, z + test.classes) - z == test.y[i] ? 1 : 0;
    }
    EXPECT_EQ(m.test_accuracy, static_cast<double>(correct) / test.n);
    EXPECT_GE(m.test_accuracy, 0.0);
    EXPECT_LE(m.test_accuracy, 1.0);
    accuracies.push_back(m.test_accuracy);
  }
  EXPECT_NE(*std::min_element(accuracies.begin(), accuracies.end()),
            *std::max_element(accuracies.begin(), accuracies.end()));
}

TEST(TrainModelZoo, LearnsTheTaskBeyondChance) {
  // 6 members with up to 4 epochs of 200 images (28 SGD steps): the draws
  // include a usable learning rate, and the best member must beat chance
  // (0.1; its standard deviation on 200 test images is ~0.02) by a wide
  // margin. (Seeds 1, 2, 3 give 0.54, 0.34, 0.46.)
  const ModelZoo zoo =
      TrainModelZoo({.models = 6, .train_images = 200, .test_images = 200, .max_epochs = 4, .seed = 1}, 2);
  double best = 0.0;
  for (const ZooMember& m : zoo.members) best = std::max(best, m.test_accuracy);
  EXPECT_GT(best, 0.3);
}

TEST(TrainModelZoo, RejectsBadParams) {
  for (ZooParams p : {ZooParams{.models = 0}, ZooParams{.train_images = 0}, ZooParams{.test_images = 0},
                      ZooParams{.max_epochs = 0}, ZooParams{.models = -3}}) {
    EXPECT_THROW(TrainModelZoo(p, 1), std::invalid_argument) << p.Canonical();
  }
  EXPECT_EQ(ZooParams{}.Canonical(), "models=500;train=1000;test=500;max_epochs=6;seed=1");
}

// ---------------------------------------------------------------------------
// WriteModelZoo

TEST(WriteModelZoo, ReadZooDirGivesTheZooBackExactly) {
  const fs::path dir = fs::temp_directory_path() / ("cb_modelzoo_" + std::to_string(::getpid())) / "zoo";
  fs::remove_all(dir.parent_path());
  const ModelZoo zoo = TrainModelZoo(TinyZoo(), 2);
  WriteModelZoo(zoo, dir.string());  // creates the folder and its parent

  const std::vector<pg::StoredZooModel> back = pg::ReadZooDir(dir.string());
  ASSERT_EQ(back.size(), zoo.members.size());
  for (size_t i = 0; i < back.size(); ++i) {
    const ZooMember& m = zoo.members[i];
    EXPECT_EQ(fs::path(back[i].path).filename().string(), "model_000" + std::to_string(i) + ".safetensors");
    EXPECT_EQ(back[i].model.w, m.model.w) << "model " << i;
    EXPECT_EQ(back[i].model.b, m.model.b) << "model " << i;
    EXPECT_EQ(back[i].test_accuracy, m.test_accuracy) << "model " << i;
    EXPECT_EQ(pg::ArchToString(back[i].model.arch), pg::ArchToString(m.model.arch));
    for (const auto& [key, value] : m.hparams) EXPECT_EQ(back[i].metadata.at(key), value) << key;
  }

  std::ifstream in(dir / "manifest.json");
  const nlohmann::json manifest = nlohmann::json::parse(in);
  EXPECT_EQ(manifest.at("generator"), "modelzoo");
  EXPECT_EQ(manifest.at("version"), kModelZooVersion);
  EXPECT_EQ(manifest.at("count"), 6);
  EXPECT_EQ(manifest.at("hash"), zoo.hash.Hex());
  EXPECT_EQ(manifest.at("params").at("train_images"), 64);
  EXPECT_EQ(manifest.at("files").size(), 6u);
  int leftovers = 0;  // no temporary files stay behind
  for (const auto& entry : fs::directory_iterator(dir)) {
    leftovers += entry.path().filename().string().find(".tmp") != std::string::npos ? 1 : 0;
  }
  EXPECT_EQ(leftovers, 0);

  // Rewriting the same zoo is fine; a smaller zoo over it would leave models
  // of the old one that ReadZooDir would mix in, so it is refused untouched.
  WriteModelZoo(zoo, dir.string());
  ModelZoo smaller = zoo;
  smaller.members.resize(2);
  smaller.params.models = 2;
  smaller.hash = HashModelZoo(smaller);
  try {
    WriteModelZoo(smaller, dir.string());
    ADD_FAILURE() << "a smaller zoo was written over a larger one";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("not part of this zoo"), std::string::npos) << e.what();
  }
  std::ifstream again(dir / "manifest.json");
  EXPECT_EQ(nlohmann::json::parse(again).at("hash"), zoo.hash.Hex());
  fs::remove_all(dir.parent_path());
}

// ---------------------------------------------------------------------------
// Golden hashes

TEST(Golden, ModelZooHashesMatchFixture) {
  cb::testing::ExpectMatchesGolden("generators/modelzoo_golden.txt",
                                   {{"shape_images_s1_n64", HashImageSet(ShapeImages(1, 64)).Hex()},
                                    {"modelzoo_m6_tr64_te64_e1_s1", TrainModelZoo(TinyZoo(), 2).hash.Hex()}});
}

}  // namespace
}  // namespace cb::gen
