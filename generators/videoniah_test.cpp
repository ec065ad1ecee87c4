// File: generators/videoniah_test.cpp
// VideoNIAH generator checks (brief §4): determinism and golden hashes,
// answer-key integrity, letter balance, needle visibility under K-frame
// sampling, and the oracle answering every item from the frames alone.
#include "generators/videoniah.h"

#include <map>
#include <set>

#include <gtest/gtest.h>

#include "fixtures/golden.h"
#include "harness/stats.h"

namespace cb::gen::videoniah {
namespace {

// Small frames and short videos: every rule still applies.
Params Small(uint64_t seed = 1) {
  Params p;
  p.seed = seed;
  p.width = 192;
  p.height = 108;
  p.fps = 4;
  p.min_seconds = 4;
  p.max_seconds = 8;
  p.needle_seconds = 1.0;
  p.sample_frames = 16;
  return p;
}

std::vector<std::string> Split(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t k = s.find(", ", start);
    out.push_back(s.substr(start, k == std::string::npos ? std::string::npos : k - start));
    if (k == std::string::npos) return out;
    start = k + 2;
  }
}

TEST(VideoNiah, TaskKeysRoundTrip) {
  for (Task t : AllTasks()) EXPECT_EQ(ParseTask(TaskKey(t)), t);
  EXPECT_FALSE(ParseTask("ret_edit3").has_value());
  EXPECT_EQ(AllTasks().size(), 9u);
}

TEST(VideoNiah, ReleaseQuestionStrings) {
  const Params p = Small();
  EXPECT_EQ(MakeItem(Task::kRetEdit1, 0, p).question, "What is the secret word?");
  EXPECT_EQ(MakeItem(Task::kRetInsert1, 0, p).question, "What kind of fruit appears in this video?");
  EXPECT_EQ(MakeItem(Task::kRetInsert2, 0, p).question, "What is the name of the landmark in the picture?");
  EXPECT_EQ(MakeItem(Task::kOrdEdit1, 0, p).question,
            "What is the order of the secret words that appeared in the video?");
  EXPECT_EQ(MakeItem(Task::kOrdInsert1, 0, p).question, "What is the order of fruits appearing in the video?");
  EXPECT_EQ(MakeItem(Task::kOrdInsert2, 0, p).question, "What is the order of images appearing in the video?");
  EXPECT_EQ(MakeItem(Task::kCntEdit1, 0, p).question, "How many secret words appeared in the video?");
  const Item c2 = MakeItem(Task::kCntEdit2, 0, p);
  const std::string pl = VocPlural(c2.needle_label[0]);
  EXPECT_EQ(c2.question, "Some " + pl + " were inserted into 4 small sections of the video. How many " + pl +
                             " appeared in the video in total?");
  const Item ci = MakeItem(Task::kCntInsert1, 0, p);
  EXPECT_EQ(ci.question, "How many " + VocPlural(ci.needle_label[0]) + " appeared in the video?");
  const std::string prompt = MakeItem(Task::kRetEdit1, 0, p).Prompt(0);
  EXPECT_NE(prompt.find("\nA. "), std::string::npos);
  EXPECT_NE(prompt.find("\nD. "), std::string::npos);
  EXPECT_EQ(prompt.substr(prompt.size() - std::string(kPromptSuffix).size()), kPromptSuffix);
}

TEST(VideoNiah, AnswerKeyIntegrity) {
  const Params p = Small(7);
  for (Task t : AllTasks()) {
    for (int i = 0; i < 60; ++i) {
      const Item it = MakeItem(t, i, p);
      const std::multiset<std::string> set0(it.tries[0].options.begin(), it.tries[0].options.end());
      EXPECT_EQ(std::set<std::string>(set0.begin(), set0.end()).size(), 4u) << it.video;
      for (const TryRow& r : it.tries) {
        EXPECT_EQ(std::multiset<std::string>(r.options.begin(), r.options.end()), set0) << it.video;
        EXPECT_EQ(r.options[r.gt_index], it.gt) << it.video;
      }
      const std::string key(TaskKey(t));
      if (key.rfind("ord", 0) == 0) {
        std::vector<std::string> truth = Split(it.gt);
        ASSERT_EQ(truth.size(), 4u);
        std::sort(truth.begin(), truth.end());
        for (const auto& o : it.tries[0].options) {
          std::vector<std::string> perm = Split(o);
          std::sort(perm.begin(), perm.end());
          EXPECT_EQ(perm, truth) << it.video << ": '" << o << "' is not a permutation of the truth";
        }
      } else if (t == Task::kCntEdit2) {
        const int gt = std::stoi(it.gt);
        EXPECT_GE(gt, 4);
        EXPECT_LE(gt, 16);
        int sprites = 0;
        for (const auto& s : it.sprite_xy) sprites += static_cast<int>(s.size());
        EXPECT_EQ(sprites, gt);
        for (const auto& o : it.tries[0].options) {
          const int v = std::stoi(o);
          EXPECT_GE(v, 1);
          EXPECT_LE(std::abs(v - gt), 3);
        }
      } else if (key.rfind("cnt", 0) == 0) {
        for (const auto& o : it.tries[0].options) {
          EXPECT_GE(std::stoi(o), 1);
          EXPECT_LE(std::stoi(o), 6);
        }
        EXPECT_EQ(static_cast<int>(it.needle_start.size()), std::stoi(it.gt));
      }
    }
  }
}

TEST(VideoNiah, ShufflesAreIndependentNotRotations) {
  // Over many items, some try pairs must differ by a non-rotation.
  const Params p = Small(3);
  int non_rotation = 0;
  for (int i = 0; i < 40; ++i) {
    const Item it = MakeItem(Task::kRetInsert1, i, p);
    for (int t = 1; t < 4; ++t) {
      bool is_rotation = false;
      for (int k = 0; k < 4 && !is_rotation; ++k) {
        bool all = true;
        for (int j = 0; j < 4; ++j) all = all && it.tries[t].options[j] == it.tries[0].options[(j + k) % 4];
        is_rotation = all;
      }
      non_rotation += !is_rotation;
    }
  }
  EXPECT_GT(non_rotation, 40);
}

TEST(VideoNiah, LetterBalance) {
  // Chi-square of the answer letters per subtask (3 df); 800 answers each.
  const Params p = Small(11);
  for (Task t : AllTasks()) {
    std::array<int, 4> counts{};
    for (int i = 0; i < 200; ++i) {
      const Item it = MakeItem(t, i, p);
      for (const TryRow& r : it.tries) ++counts[r.gt_index];
    }
    double chi2 = 0;
    for (int c : counts) chi2 += (c - 200.0) * (c - 200.0) / 200.0;
    EXPECT_GT(cb::harness::ChiSquareSurvival(chi2, 3), 1e-3) << TaskKey(t) << " chi2 " << chi2;
  }
}

TEST(VideoNiah, NeedlesVisibleUnderKFrameSampling) {
  for (int k : {8, 16, 32}) {
    Params p = Small(5);
    p.sample_frames = k;
    for (Task t : AllTasks()) {
      for (int i = 0; i < 20; ++i) {
        const Item it = MakeItem(t, i, p);
        std::set<int> sampled;
        for (int j = 0; j < k; ++j)
          sampled.insert(static_cast<int>(std::llround(static_cast<double>(j) * (it.total_frames - 1) / (k - 1))));
        for (size_t n = 0; n < it.needle_start.size(); ++n) {
          const int s = it.needle_start[n];
          bool seen = false;
          for (int f = s; f < s + it.needle_frames; ++f) seen = seen || sampled.count(f);
          EXPECT_TRUE(seen) << it.video << " needle " << n << " K=" << k;
          if (n > 0) {
            EXPECT_GE(s - it.needle_start[n - 1], 2 * it.needle_frames) << it.video;
          }
        }
      }
    }
  }
}

TEST(VideoNiah, DeterministicAndSeedSensitive) {
  Renderer r(Small(1));
  const Item a = MakeItem(Task::kOrdEdit1, 0, Small(1));
  const std::string h1 = ContentHash(r, a);
  Renderer r2(Small(1));
  EXPECT_EQ(ContentHash(r2, MakeItem(Task::kOrdEdit1, 0, Small(1))), h1);
  Renderer r3(Small(2));
  EXPECT_NE(ContentHash(r3, MakeItem(Task::kOrdEdit1, 0, Small(2))), h1);
}

TEST(VideoNiah, InsertsLengthenTheVideo) {
  const Item it = MakeItem(Task::kOrdInsert1, 0, Small());
  EXPECT_EQ(it.total_frames, it.haystack_frames + 4 * it.needle_frames);
  const Item e = MakeItem(Task::kOrdEdit1, 0, Small());
  EXPECT_EQ(e.total_frames, e.haystack_frames);
}

TEST(VideoNiah, NeedlesChangePixelsOnlyWhereTheyAre) {
  Params p = Small();
  Renderer r(p);
  const Item it = MakeItem(Task::kRetEdit1, 0, p);
  Frame fr, hay;
  const uint64_t vs = Renderer::VideoSeed(it, p);
  for (int f = 0; f < it.total_frames; ++f) {
    r.ItemFrame(it, f, &fr);
    r.Haystack(vs, f, &hay);
    const bool in_needle = f >= it.needle_start[0] && f < it.needle_start[0] + it.needle_frames;
    EXPECT_EQ(fr == hay, !in_needle) << "frame " << f;
  }
  // Consecutive haystack frames move (it is a video, not a still).
  Frame a, b;
  r.Haystack(vs, 0, &a);
  r.Haystack(vs, 1, &b);
  EXPECT_FALSE(a == b);
}

TEST(VideoNiah, OracleAnswersEveryItemFromFrames) {
  const Params p = Small(9);
  Renderer r(p);
  Renderer oracle_renderer(p);  // its own glyph caches: nothing shared with the generator
  for (Task t : AllTasks()) {
    for (int i = 0; i < 3; ++i) {
      const Item it = MakeItem(t, i, p);
      for (int tr = 0; tr < 4; ++tr) {
        Oracle o(oracle_renderer, {t, it.question, it.tries[tr].options}, Renderer::VideoSeed(it, p));
        RenderItem(r, it, [&](int f, const Frame& fr) { o.Observe(f, fr); });
        EXPECT_EQ(o.Answer(), it.tries[tr].gt_index) << it.video << " try " << tr;
        if (t != Task::kRetEdit1 && tr > 0) break;  // one try suffices to show the key; ret_edit1 all 4
      }
    }
  }
}

TEST(VideoNiah, OracleRefusesAnAnswerNotInTheVideo) {
  // Options that do not contain the truth: the oracle must not pick one.
  const Params p = Small(4);
  Renderer r(p), ro(p);
  const Item it = MakeItem(Task::kRetInsert1, 0, p);
  std::array<std::string, 4> wrong;
  int k = 0;
  for (const auto& f : Fruits())
    if (f != it.gt && k < 4) wrong[k++] = f;
  Oracle o(ro, {Task::kRetInsert1, it.question, wrong}, Renderer::VideoSeed(it, p));
  RenderItem(r, it, [&](int f, const Frame& fr) { o.Observe(f, fr); });
  EXPECT_EQ(o.Answer(), -1);
}

TEST(VideoNiah, RejectsBadParams) {
  Params p = Small();
  p.width = 63;
  EXPECT_THROW(MakeItem(Task::kRetEdit1, 0, p), std::invalid_argument);
  p = Small();
  p.sample_frames = 1;
  EXPECT_THROW(MakeItem(Task::kRetEdit1, 0, p), std::invalid_argument);
  p = Small();
  p.needle_seconds = 0;
  EXPECT_THROW(MakeItem(Task::kRetEdit1, 0, p), std::invalid_argument);
  p = Small();
  p.sample_frames = 2;  // 2 sampled frames cannot show 6 needles
  bool threw = false;
  for (int i = 0; i < 30 && !threw; ++i) {
    try {
      MakeItem(Task::kCntEdit1, i, p);
    } catch (const std::invalid_argument&) {
      threw = true;
    }
  }
  EXPECT_TRUE(threw);
}

TEST(VideoNiah, MissingFontIsAClearError) {
  ::setenv("CB_EMOJI_FONT", "/nonexistent/emoji.ttf", 1);
  try {
    Renderer r(Small());
    ADD_FAILURE() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("fonts-noto-color-emoji"), std::string::npos);
  }
  ::unsetenv("CB_EMOJI_FONT");
}

// Golden content hashes (fixtures/generators/videoniah_golden.txt, see
// fixtures/PROVENANCE.md): annotation rows and every frame's RGB bytes.
TEST(VideoNiah, ContentHashesMatchFixture) {
  std::map<std::string, std::string> actual;
  Renderer r(Small(1));
  for (Task t : AllTasks())
    actual[std::string(TaskKey(t)) + "_small_seed1_item0"] = ContentHash(r, MakeItem(t, 0, Small(1)));
  cb::testing::ExpectMatchesGolden("generators/videoniah_golden.txt", actual);
}

}  // namespace
}  // namespace cb::gen::videoniah
