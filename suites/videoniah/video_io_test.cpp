// File: suites/videoniah/video_io_test.cpp
// MP4 through libx264 and decoding through libavcodec (video_io.h): a lossless
// MP4 decodes to exactly the I420 bytes written (the decoded-frame hash the
// manifest records), a lossy one stays within a stated PSNR bound; a user's
// video (an MP4 this test encodes, at another size and frame rate) becomes a
// haystack in which the oracle still finds every answer from the frames; bad
// files are one-line errors naming the file. Videos are tiny and made here.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "harness/hash.h"
#include "suites/videoniah/media.h"
#include "suites/videoniah/video_io.h"

namespace cb::videoniah {
namespace {

namespace fs = std::filesystem;
namespace gv = cb::gen::videoniah;

class VideoIoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!H264EncoderAvailable()) GTEST_SKIP() << "this libavcodec has no libx264 encoder";
    dir_ = fs::temp_directory_path() / ("cb_vniah_io_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  fs::path dir_;
};

gv::Params Tiny() {
  gv::Params p;
  p.seed = 3;
  p.width = 128;
  p.height = 72;
  p.fps = 4;
  p.min_seconds = 4;
  p.max_seconds = 6;
  p.needle_seconds = 0.5;  // D = 2 frames
  p.sample_frames = 16;
  return p;
}

// Luma PSNR of b against a (I420 buffers of one frame each).
double LumaPsnr(const std::string& a, const std::string& b, size_t luma) {
  double se = 0;
  for (size_t i = 0; i < luma; ++i) {
    const double d = static_cast<uint8_t>(a[i]) - static_cast<uint8_t>(b[i]);
    se += d * d;
  }
  return se == 0 ? 99.0 : 10 * std::log10(255.0 * 255.0 / (se / luma));
}

TEST_F(VideoIoTest, LosslessMp4DecodesToTheFramesWritten) {
  const gv::Params p = Tiny();
  gv::Renderer r(p);
  const gv::Item it = gv::MakeItem(gv::Task::kCntEdit1, 0, p);  // haystack plus subtitles
  const std::string path = (dir_ / "a.mp4").string();
  cb::harness::Hasher written;
  std::vector<std::string> frames;
  {
    Mp4Writer w(path, p.width, p.height, p.fps);
    gv::RenderItem(r, it, [&](int, const gv::Frame& fr) {
      std::string i420;
      RgbToI420(fr, &i420);
      written.Update(i420);
      frames.push_back(i420);
      w.Write(fr);
    });
    w.Close();
  }
  const DecodedHash d = HashDecodedI420(path);
  EXPECT_EQ(d.frames, it.total_frames);
  EXPECT_EQ(d.hex, written.Digest().Hex());
  // Frame by frame, and in order (a hash match of the whole could hide nothing
  // else, but this names the first bad frame).
  VideoReader rd(path);
  EXPECT_EQ(rd.width(), p.width);
  EXPECT_EQ(rd.height(), p.height);
  std::string got;
  for (size_t f = 0; f < frames.size(); ++f) {
    ASSERT_TRUE(rd.NextI420(&got)) << "frame " << f;
    ASSERT_EQ(got, frames[f]) << "frame " << f;
  }
  EXPECT_FALSE(rd.NextI420(&got));
}

TEST_F(VideoIoTest, DecodedRgbHonoursFullRange) {
  // Flat colours through our full-range BT.601 I420 and back through
  // libswscale: within rounding (2 levels). Read as limited range, (40, 200,
  // 90) would come back about (28, 214, 86).
  const gv::Params p = Tiny();
  const std::string path = (dir_ / "flat.mp4").string();
  const uint8_t colours[3][3] = {{40, 200, 90}, {230, 30, 120}, {128, 128, 128}};
  Mp4Writer w(path, p.width, p.height, p.fps);
  for (const auto& c : colours) {
    gv::Frame fr{p.width, p.height, std::vector<uint8_t>(static_cast<size_t>(p.width) * p.height * 3)};
    for (size_t i = 0; i < fr.rgb.size(); ++i) fr.rgb[i] = c[i % 3];
    w.Write(fr);
  }
  w.Close();
  VideoReader rd(path);
  gv::Frame got;
  double t = -1;
  for (int k = 0; k < 3; ++k) {
    ASSERT_TRUE(rd.NextRgb(p.width, p.height, &got, &t));
    EXPECT_NEAR(t, static_cast<double>(k) / p.fps, 1e-9);
    int worst = 0;
    for (size_t i = 0; i < got.rgb.size(); ++i) worst = std::max(worst, std::abs(got.rgb[i] - colours[k][i % 3]));
    EXPECT_LE(worst, 2) << "colour " << k;
  }
}

TEST_F(VideoIoTest, LossyMp4StaysAboveAStatedPsnr) {
  // crf 18 is x264's "visually lossless" setting; the bound (30 dB luma, every
  // frame) is a sanity floor for frames full of per-pixel noise, not a tuned value.
  const gv::Params p = Tiny();
  gv::Renderer r(p);
  const gv::Item it = gv::MakeItem(gv::Task::kRetEdit1, 0, p);
  const std::string path = (dir_ / "lossy.mp4").string();
  std::vector<std::string> frames;
  Mp4Writer w(path, p.width, p.height, p.fps, Mp4Options{18, "veryfast", 1});
  gv::RenderItem(r, it, [&](int, const gv::Frame& fr) {
    std::string i420;
    RgbToI420(fr, &i420);
    frames.push_back(i420);
    w.Write(fr);
  });
  w.Close();
  VideoReader rd(path);
  std::string got;
  size_t n = 0;
  bool any_loss = false;
  while (rd.NextI420(&got)) {
    ASSERT_LT(n, frames.size());
    any_loss |= got != frames[n];
    EXPECT_GE(LumaPsnr(frames[n], got, static_cast<size_t>(p.width) * p.height), 30.0) << "frame " << n;
    ++n;
  }
  EXPECT_EQ(n, frames.size());
  EXPECT_TRUE(any_loss) << "crf 18 should not be lossless; is --crf reaching the encoder?";
}

// A "user video": a different procedural scene at 160x120 and 6 fps, so the
// haystack path scales (160x120 -> 128x72) and resamples (6 -> 4 fps).
std::string MakeUserVideo(const fs::path& dir, int seconds, const std::string& name) {
  gv::Params up = Tiny();
  up.seed = 99;
  up.width = 160;
  up.height = 120;
  gv::Renderer r(up);
  const std::string path = (dir / name).string();
  Mp4Writer w(path, up.width, up.height, 6, Mp4Options{18, "veryfast", 1});  // lossy, as users' videos are
  gv::Frame fr;
  for (int f = 0; f < seconds * 6; ++f) {
    r.Haystack(12345, f, &fr);
    w.Write(fr);
  }
  w.Close();
  return path;
}

TEST_F(VideoIoTest, UserHaystackIsScaledAndResampled) {
  const std::string path = MakeUserVideo(dir_, 5, "user.mp4");  // 30 frames at 6 fps, last at 29/6 s
  const gv::Params p = Tiny();
  DecodedHaystack h(path, p);
  EXPECT_EQ(h.frames(), static_cast<int>(std::floor(29.0 / 6 * p.fps)) + 1);  // 20
  gv::Frame a, b;
  h.Get(0, &a);
  EXPECT_EQ(a.width, p.width);
  EXPECT_EQ(a.height, p.height);
  h.Get(1, &b);
  EXPECT_FALSE(a == b);  // it moves
  // Decoding is deterministic on one machine.
  EXPECT_EQ(DecodedHaystack(path, p).ContentHash(), h.ContentHash());
}

TEST_F(VideoIoTest, OracleAnswersEveryTaskInAUserHaystack) {
  const gv::Params p = Tiny();
  const std::string path = MakeUserVideo(dir_, 14, "user.mp4");
  DecodedHaystack gen_hay(path, p), oracle_hay(path, p);  // the oracle decodes the file itself
  ASSERT_GE(gen_hay.frames(), gv::MinHaystackFrames(gv::Task::kCntEdit1, p));
  gv::Renderer r(p), ro(p), procedural(p);
  r.SetHaystack(&gen_hay);
  ro.SetHaystack(&oracle_hay);
  // The user's frames are what the renderer draws on, not the procedural scene.
  gv::Frame a, b, c;
  r.Haystack(1, 0, &a);
  gen_hay.Get(0, &b);
  procedural.Haystack(1, 0, &c);
  EXPECT_TRUE(a == b);
  EXPECT_FALSE(a == c);
  for (gv::Task t : gv::AllTasks()) {
    for (int i = 0; i < 2; ++i) {
      const gv::Item it = gv::MakeItem(t, i, p, gen_hay.frames());
      EXPECT_EQ(it.haystack_frames, gen_hay.frames());
      const int tr = i % 4;
      gv::Oracle o(ro, {t, it.question, it.tries[tr].options}, gv::Renderer::VideoSeed(it, p));
      gv::RenderItem(r, it, [&](int f, const gv::Frame& fr) { o.Observe(f, fr); });
      EXPECT_EQ(o.Answer(), it.tries[tr].gt_index) << it.video << " try " << tr;
    }
  }
}

TEST_F(VideoIoTest, BadHaystacksAreOneLineErrorsNamingTheFile) {
  const gv::Params p = Tiny();
  auto error_of = [&](const std::string& path) -> std::string {
    try {
      DecodedHaystack h(path, p);
    } catch (const std::runtime_error& e) {
      return e.what();
    }
    return "(no error)";
  };
  const std::string missing = (dir_ / "missing.mp4").string();
  EXPECT_EQ(error_of(missing), missing + ": no such file");
  const std::string text = (dir_ / "notes.mp4").string();
  std::ofstream(text) << "this is not a video\n";
  EXPECT_EQ(error_of(text).rfind(text + ": not a video libavformat can read", 0), 0u) << error_of(text);
  const std::string empty = (dir_ / "empty.mp4").string();
  {
    Mp4Writer w(empty, p.width, p.height, p.fps);
    w.Close();  // a valid MP4 with no frames
  }
  const std::string e = error_of(empty);
  EXPECT_TRUE(e.rfind(empty + ": ", 0) == 0 && e != "(no error)") << e;
  for (const std::string& m : {error_of(missing), error_of(text), e}) EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  // Too short for the needles: MakeItem says so (the CLI prefixes the file).
  const std::string shortv = MakeUserVideo(dir_, 2, "short.mp4");
  DecodedHaystack h(shortv, p);
  try {
    gv::MakeItem(gv::Task::kCntEdit1, 0, p, h.frames());
    ADD_FAILURE() << "expected an error";
  } catch (const std::invalid_argument& ex) {
    EXPECT_NE(std::string(ex.what()).find("too short"), std::string::npos) << ex.what();
  }
}

}  // namespace
}  // namespace cb::videoniah
