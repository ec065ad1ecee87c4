// File: suites/videoniah/videoniah_bench.cpp
// Google Benchmark cases for VideoNIAH: generation throughput (the issue's
// target is >= 200 frames/s at 640x360 to Y4M on 2 cores; the MP4 rate is
// stated beside it), PNG encoding of a
// frame for endpoint requests, and the model client's overhead for a cached
// request (target < 1 ms).
//
// Napkin math: a 640x360 RGB frame is 691 KB; its Y4M 4:2:0 payload is 346 KB,
// so 200 frames/s is ~70 MB/s of output.
#include <unistd.h>

#include <filesystem>
#include <map>

#include <benchmark/benchmark.h>

#include "generators/videoniah.h"
#include "harness/model_client.h"
#include "suites/videoniah/media.h"
#include "suites/videoniah/video_io.h"

namespace cb::videoniah {
namespace {

namespace gv = cb::gen::videoniah;

gv::Params BenchParams() {
  gv::Params p;
  p.width = 640;
  p.height = 360;
  p.fps = 8;
  p.min_seconds = 10;
  p.max_seconds = 10;
  return p;
}

// One haystack frame per iteration.
void BM_HaystackFrame(benchmark::State& state) {
  gv::Renderer r(BenchParams());
  gv::Frame fr;
  int f = 0;
  for (auto _ : state) {
    r.Haystack(12345, f++, &fr);
    benchmark::DoNotOptimize(fr.rgb.data());
  }
  state.counters["frames_per_s"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(fr.rgb.size()));
}
BENCHMARK(BM_HaystackFrame)->Name("videoniah/haystack_frame/640x360")->UseRealTime()->Unit(benchmark::kMillisecond);

// A whole item (subtitles: cnt_edit1; pictures: ord_insert1) rendered and
// written as Y4M to /dev/null; the counter is frames per second.
void BM_ItemToY4m(benchmark::State& state) {
  const gv::Params p = BenchParams();
  gv::Renderer r(p);
  const gv::Item it = gv::MakeItem(static_cast<gv::Task>(state.range(0)), 0, p);
  int64_t frames = 0;
  for (auto _ : state) {
    Y4mWriter w("/dev/null", p.width, p.height, p.fps);
    gv::RenderItem(r, it, [&](int, const gv::Frame& fr) { w.Write(fr); });
    w.Close();
    frames += it.total_frames;
  }
  state.counters["frames_per_s"] = benchmark::Counter(static_cast<double>(frames), benchmark::Counter::kIsRate);
  state.counters["threads"] = 1;
}
BENCHMARK(BM_ItemToY4m)
    ->Name("videoniah/item_to_y4m/640x360")
    ->ArgNames({"task"})
    ->Arg(static_cast<int>(gv::Task::kCntEdit1))
    ->Arg(static_cast<int>(gv::Task::kOrdInsert1))
    ->UseRealTime()  // rates per wall-clock second
    ->Unit(benchmark::kMillisecond);

// The same item to lossless MP4 (libx264 qp 0, preset ultrafast: the
// `gen videoniah` default) in a temporary file; x264 picks its thread count.
void BM_ItemToMp4(benchmark::State& state) {
  if (!H264EncoderAvailable()) {
    state.SkipWithError("this libavcodec has no libx264 encoder");
    return;
  }
  const gv::Params p = BenchParams();
  gv::Renderer r(p);
  const gv::Item it = gv::MakeItem(static_cast<gv::Task>(state.range(0)), 0, p);
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("cb_bench_videoniah_" + std::to_string(::getpid()) + ".mp4")).string();
  int64_t frames = 0;
  for (auto _ : state) {
    Mp4Writer w(path, p.width, p.height, p.fps, Mp4Options{0, "ultrafast", 0});
    gv::RenderItem(r, it, [&](int, const gv::Frame& fr) { w.Write(fr); });
    w.Close();
    frames += it.total_frames;
  }
  std::filesystem::remove(path);
  state.counters["frames_per_s"] = benchmark::Counter(static_cast<double>(frames), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_ItemToMp4)
    ->Name("videoniah/item_to_mp4/640x360")
    ->ArgNames({"task"})
    ->Arg(static_cast<int>(gv::Task::kCntEdit1))
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

void BM_PngEncode(benchmark::State& state) {
  gv::Renderer r(BenchParams());
  gv::Frame fr;
  r.Haystack(7, 0, &fr);
  for (auto _ : state) benchmark::DoNotOptimize(EncodePng(fr));
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(fr.rgb.size()));
}
BENCHMARK(BM_PngEncode)->Name("videoniah/png_encode/640x360")->Unit(benchmark::kMillisecond);

// A cached request: canonical body, XXH3 key, lookup, parse. No network.
void BM_CachedRequest(benchmark::State& state) {
  cb::harness::MemoryCache cache;
  cb::harness::ClientOptions o;
  o.endpoint = "http://127.0.0.1:9";  // never contacted: every request is a hit
  cb::harness::ModelClient client(o, &cache);
  cb::harness::ChatRequest req;
  req.model = "m";
  req.max_tokens = 5;
  req.messages.push_back(cb::harness::ChatMessage::User({cb::harness::ChatPart::Text(
      "What is the secret word?\nA. Alice\nB. Bob\nC. Emma\nD. Tom\nAnswer with the option's letter from the given "
      "choices directly.")}));
  cache.Put(client.CacheKey(req), R"({"choices":[{"index":0,"message":{"role":"assistant","content":"B"}}]})");
  for (auto _ : state) {
    auto out = client.Complete(req);
    if (!out.from_cache) state.SkipWithError("not a cache hit");
    benchmark::DoNotOptimize(out);
  }
}
BENCHMARK(BM_CachedRequest)->Name("videoniah/client_cached_request")->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace cb::videoniah
