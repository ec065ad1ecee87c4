// File: harness/energy_test.cpp
// -----------------------------------------------------------------------------
// Tests of harness/energy.h: NVML says why it is unavailable (or reads, on a
// GPU machine), RAPL on a fake powercap tree sums package domains only,
// survives counter wrap-around and returns exact joules.
#include "harness/energy.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <string>
#include <thread>

#include "fixtures/backend_test.h"

namespace cb::harness {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kUnavailablePrefix = "unavailable: ";

bool IsReason(const std::string& s) {
  return s.rfind(kUnavailablePrefix, 0) == 0 && s.size() > kUnavailablePrefix.size();
}

// A GPU machine is one where NVML loads and lists a device; the no-GPU
// expectations apply everywhere else, whatever this binary was built with.
bool NvmlSeesAGpu() {
  const auto facts = QueryNvmlFacts();
  return facts.has_value() && !facts->devices.empty();
}

// ---------------------------------------------------------------------------
// NVML

TEST(NvmlMeterTest, WithoutGpuSaysUnavailableAndMeasuresNothing) {
  if (NvmlSeesAGpu()) GTEST_SKIP() << "NVML sees a GPU here; see AvailableOnGpuMachine";
  NvmlMeter meter;
  EXPECT_EQ(meter.Name(), "nvml");
  EXPECT_TRUE(IsReason(meter.Unavailable())) << meter.Unavailable();
  EXPECT_FALSE(meter.ReadJoules().has_value());
  EXPECT_FALSE(meter.LastError().empty());

  int calls = 0;
  const EnergyWindow w = MeasureEnergy(meter, [&] { ++calls; }, 0.01);
  EXPECT_FALSE(w.joules.has_value());
  EXPECT_FALSE(w.total_joules.has_value());
  EXPECT_FALSE(w.watts().has_value());
  EXPECT_EQ(w.source, meter.Unavailable());
  EXPECT_EQ(calls, 0) << "an unmeasurable window must not spend time running the workload";

  const EnergyWindow idle = MeasureIdleBaseline(meter, 0.01);
  EXPECT_FALSE(idle.joules.has_value());
  EXPECT_EQ(idle.source, meter.Unavailable());

  std::string reason;
  EXPECT_FALSE(CurrentSmClockMhz(0, &reason).has_value());
  EXPECT_TRUE(IsReason(reason)) << reason;
  std::string facts_reason;
  const auto facts = QueryNvmlFacts(&facts_reason);
  if (!facts) {
    EXPECT_TRUE(IsReason(facts_reason)) << facts_reason;
  }
}

TEST(NvmlMeterTest, MissingLibraryIsNamedInTheReason) {
  if (NvmlSeesAGpu()) GTEST_SKIP() << "NVML is present here";
  std::string reason;
  if (QueryNvmlFacts(&reason).has_value()) GTEST_SKIP() << "NVML loads here (no GPU attached)";
  EXPECT_NE(reason.find("libnvidia-ml.so.1"), std::string::npos) << reason;
  EXPECT_EQ(NvmlMeter().Unavailable(), reason);
}

TEST(NvmlMeterTest, AvailableOnGpuMachine) {
  const bool gpu_here = Availability(Backend::kCuda).ok || NvmlSeesAGpu();
  if (!gpu_here) {
    if (cb::testing::GpuRequired()) FAIL() << "CB_REQUIRE_GPU=1 but no GPU: " << NvmlMeter().Unavailable();
    GTEST_SKIP() << "no GPU here: " << NvmlMeter().Unavailable();
  }
  NvmlMeter meter;
  // Some virtualised GPUs have no energy counter: the meter must then say
  // NVML's "Not Supported" (the claims record UNMEASURABLE); the clock and
  // the device facts below are still checked.
  if (meter.Unavailable().find("Not Supported") != std::string::npos) {
    std::cout << "[   NOTE   ] no energy counter on this GPU: " << meter.Unavailable() << "\n";
  } else {
    ASSERT_EQ(meter.Unavailable(), "");
    const auto j = meter.ReadJoules();
    ASSERT_TRUE(j.has_value()) << meter.LastError();
    EXPECT_GE(*j, 0.0);

    // An idle GPU still draws tens of watts, so a 0.3 s window must see
    // energy (NVML updates every 20-100 ms).
    const EnergyWindow w = MeasureEnergy(
        meter, [] { std::this_thread::sleep_for(std::chrono::milliseconds(5)); }, 0.3);
    ASSERT_TRUE(w.joules.has_value()) << w.source;
    EXPECT_EQ(w.source, "nvml");
    EXPECT_GT(*w.total_joules, 0.0);
    EXPECT_GE(w.seconds, 0.3);
    EXPECT_GT(w.iterations, 1);
  }

  std::string reason;
  const auto mhz = CurrentSmClockMhz(0, &reason);
  ASSERT_TRUE(mhz.has_value()) << reason;
  EXPECT_GT(*mhz, 0);

  const auto facts = QueryNvmlFacts(&reason);
  ASSERT_TRUE(facts.has_value()) << reason;
  EXPECT_FALSE(facts->driver_version.empty());
  ASSERT_FALSE(facts->devices.empty());
  EXPECT_EQ(facts->devices[0].uuid.rfind("GPU-", 0), 0u) << facts->devices[0].uuid;
}

// ---------------------------------------------------------------------------
// RAPL on the real root

TEST(RaplMeterTest, RealPowercapIsUsableOrSaysWhy) {
  RaplMeter meter;
  EXPECT_EQ(meter.Name(), "rapl");
  if (!fs::exists("/sys/class/powercap")) {
    EXPECT_EQ(meter.Unavailable(), "unavailable: no powercap at /sys/class/powercap");
  }
  if (meter.Unavailable().empty()) {
    EXPECT_FALSE(meter.Domains().empty());
    EXPECT_TRUE(meter.ReadJoules().has_value()) << meter.LastError();
  } else {
    EXPECT_TRUE(IsReason(meter.Unavailable())) << meter.Unavailable();
    EXPECT_FALSE(meter.ReadJoules().has_value());
    EXPECT_FALSE(MeasureEnergy(meter, [] {}, 0.0).joules.has_value());
  }
}

// ---------------------------------------------------------------------------
// RAPL on a fake tree

// A powercap folder in a fresh temporary directory, removed afterwards.
class FakePowercap {
 public:
  FakePowercap() {
    static int counter = 0;
    root_ = fs::temp_directory_path() /
            ("cb_energy_test_" + std::to_string(getpid()) + "_" + std::to_string(counter++));
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  ~FakePowercap() {
    std::error_code ec;
    fs::permissions(root_, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(root_, ec);
  }

  // Adds zone `zone` ("intel-rapl:0", "intel-rapl:0:0") with its files.
  void AddZone(const std::string& zone, const std::string& name, int64_t energy_uj,
               int64_t max_range_uj) {
    fs::create_directories(root_ / zone);
    Write(root_ / zone / "name", name);
    Write(root_ / zone / "max_energy_range_uj", std::to_string(max_range_uj));
    SetEnergy(zone, energy_uj);
  }
  void SetEnergy(const std::string& zone, int64_t energy_uj) {
    Write(root_ / zone / "energy_uj", std::to_string(energy_uj));
  }
  std::string root() const { return root_.string(); }
  fs::path path() const { return root_; }

 private:
  static void Write(const fs::path& p, const std::string& text) {
    std::ofstream out(p, std::ios::trunc);
    out << text << "\n";
  }
  fs::path root_;
};

TEST(RaplMeterTest, MissingRootSaysNoPowercap) {
  FakePowercap tree;
  const std::string missing = tree.root() + "/absent";
  RaplMeter meter(missing);
  EXPECT_EQ(meter.Unavailable(), "unavailable: no powercap at " + missing);
  EXPECT_FALSE(meter.ReadJoules().has_value());
}

TEST(RaplMeterTest, NoPackageDomainSaysSo) {
  FakePowercap tree;
  tree.AddZone("intel-rapl:0", "psys", 5, 1000000);
  tree.AddZone("intel-rapl:0:0", "package-0", 5, 1000000);  // a subzone, however named
  RaplMeter meter(tree.root());
  EXPECT_EQ(meter.Unavailable(), "unavailable: no RAPL package domains under " + tree.root());
}

TEST(RaplMeterTest, UnreadableCounterSaysWhichFile) {
  FakePowercap tree;
  tree.AddZone("intel-rapl:0", "package-0", 5, 1000000);
  const fs::path counter = tree.path() / "intel-rapl:0" / "energy_uj";
  fs::remove(counter);
  fs::create_directory(counter);  // read() fails with EISDIR, even for root
  RaplMeter meter(tree.root());
  EXPECT_TRUE(IsReason(meter.Unavailable())) << meter.Unavailable();
  EXPECT_NE(meter.Unavailable().find(counter.string()), std::string::npos) << meter.Unavailable();
}

TEST(RaplMeterTest, PermissionDeniedIsReportedAsSuch) {
  if (geteuid() == 0) GTEST_SKIP() << "root reads mode-000 files; cannot test EACCES as root";
  FakePowercap tree;
  tree.AddZone("intel-rapl:0", "package-0", 5, 1000000);
  const fs::path counter = tree.path() / "intel-rapl:0" / "energy_uj";
  fs::permissions(counter, fs::perms::none);
  RaplMeter meter(tree.root());
  EXPECT_EQ(meter.Unavailable().rfind("unavailable: permission denied reading " + counter.string(), 0),
            0u)
      << meter.Unavailable();
}

TEST(RaplMeterTest, SkipsSubzonesAndPsys) {
  FakePowercap tree;
  tree.AddZone("intel-rapl:1", "package-1", 0, 1000000);
  tree.AddZone("intel-rapl:0", "package-0", 0, 1000000);
  tree.AddZone("intel-rapl:0:0", "core", 0, 1000000);
  tree.AddZone("intel-rapl:2", "psys", 0, 1000000);
  tree.AddZone("intel-rapl-mmio:0", "package-0", 0, 1000000);
  RaplMeter meter(tree.root());
  ASSERT_EQ(meter.Unavailable(), "");
  const std::vector<std::string> want = {tree.root() + "/intel-rapl:0", tree.root() + "/intel-rapl:1"};
  EXPECT_EQ(meter.Domains(), want);
}

TEST(RaplMeterTest, WrapAroundAddsTheRangeBack) {
  FakePowercap tree;
  tree.AddZone("intel-rapl:0", "package-0", 999'990, 1'000'000);
  RaplMeter meter(tree.root());
  ASSERT_EQ(meter.Unavailable(), "");
  const auto j0 = meter.ReadJoules();
  tree.SetEnergy("intel-rapl:0", 250'000);  // 10 uJ to the wrap, then 250000 more
  const auto j1 = meter.ReadJoules();
  tree.SetEnergy("intel-rapl:0", 750'000);
  const auto j2 = meter.ReadJoules();
  ASSERT_TRUE(j0 && j1 && j2) << meter.LastError();
  EXPECT_DOUBLE_EQ(*j1 - *j0, 0.250010);
  EXPECT_DOUBLE_EQ(*j2 - *j1, 0.5);
}

TEST(RaplMeterTest, MeasureEnergyReturnsExactJoulesPerIteration) {
  // package-0 gains 2.5 J and package-1 9 J per iteration; package-1's range
  // is 60 J and it starts 1 J short of it, so it wraps in the first
  // iteration and every 6-7 iterations after. Each iteration sleeps >= 10 ms
  // and polls come every 50 ms, so reads are at most 5 iterations (45 J <
  // 60 J) apart however loaded the machine is, and every wrap is seen;
  // reading only at the edges would lose whole ranges. The window needs only
  // 7 iterations (up to 42 ms each) to span a full range. The core subzone
  // and psys move too, and must not be counted.
  constexpr int64_t kRange1 = 60'000'000;
  FakePowercap tree;
  tree.AddZone("intel-rapl:0", "package-0", 1'000, 1'000'000'000'000);
  tree.AddZone("intel-rapl:0:0", "core", 7, 1'000'000'000'000);
  tree.AddZone("intel-rapl:1", "package-1", kRange1 - 1'000'000, kRange1);
  tree.AddZone("intel-rapl:2", "psys", 0, 1'000'000'000'000);
  RaplMeter meter(tree.root());
  ASSERT_EQ(meter.Unavailable(), "");

  int64_t e0 = 1'000, core = 7, e1 = kRange1 - 1'000'000, psys = 0;
  int64_t calls = 0, syncs = 0;
  auto workload = [&] {
    // The sleep bounds the iterations between two polls (see above).
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    e0 += 2'500'000;
    core += 100'000'000;
    e1 = (e1 + 9'000'000) % kRange1;
    psys += 1'000'000'000;
    tree.SetEnergy("intel-rapl:0", e0);
    tree.SetEnergy("intel-rapl:0:0", core);
    tree.SetEnergy("intel-rapl:1", e1);
    tree.SetEnergy("intel-rapl:2", psys);
    ++calls;
  };
  const EnergyWindow w = MeasureEnergy(meter, workload, 0.3, [&] { ++syncs; });

  ASSERT_TRUE(w.joules.has_value()) << w.source;
  EXPECT_EQ(w.source, "rapl");
  EXPECT_EQ(w.iterations, calls);
  EXPECT_EQ(syncs, 2) << "sync runs once at each edge of the window";
  EXPECT_GE(w.seconds, 0.3);
  EXPECT_GT(9 * calls, 60) << "the window should span more than one range of package-1";
  EXPECT_DOUBLE_EQ(*w.joules, 11.5);
  EXPECT_DOUBLE_EQ(*w.total_joules, 11.5 * static_cast<double>(calls));
  ASSERT_TRUE(w.watts().has_value());
  EXPECT_DOUBLE_EQ(*w.watts(), *w.total_joules / w.seconds);
}

TEST(RaplMeterTest, IdleBaselineOfAStillCounterIsZeroNotMissing) {
  FakePowercap tree;
  tree.AddZone("intel-rapl:0", "package-0", 123'456, 1'000'000'000);
  RaplMeter meter(tree.root());
  const EnergyWindow idle = MeasureIdleBaseline(meter, 0.05);
  ASSERT_TRUE(idle.joules.has_value()) << idle.source;
  EXPECT_EQ(*idle.joules, 0.0);
  EXPECT_EQ(idle.iterations, 1);
  EXPECT_GE(idle.seconds, 0.05);
  EXPECT_EQ(idle.source, "rapl");
}

TEST(RaplMeterTest, CounterVanishingMidWindowIsNotAMeasurement) {
  FakePowercap tree;
  tree.AddZone("intel-rapl:0", "package-0", 0, 1'000'000'000);
  RaplMeter meter(tree.root());
  ASSERT_EQ(meter.Unavailable(), "");
  const EnergyWindow w = MeasureEnergy(
      meter, [&] { fs::remove(tree.path() / "intel-rapl:0" / "energy_uj"); }, 0.0);
  EXPECT_FALSE(w.joules.has_value());
  EXPECT_EQ(w.source.rfind("unavailable: read failed: ", 0), 0u) << w.source;
}

// Regression: a failed first read used to run the workload for the whole
// window and only then report that nothing was measured.
TEST(RaplMeterTest, FailedFirstReadRunsNoWorkload) {
  FakePowercap tree;
  tree.AddZone("intel-rapl:0", "package-0", 0, 1'000'000'000);
  RaplMeter meter(tree.root());
  ASSERT_EQ(meter.Unavailable(), "");
  fs::remove(tree.path() / "intel-rapl:0" / "energy_uj");
  int calls = 0, syncs = 0;
  const EnergyWindow w = MeasureEnergy(meter, [&] { ++calls; }, 10.0, [&] { ++syncs; });
  EXPECT_FALSE(w.joules.has_value());
  EXPECT_EQ(w.source.rfind("unavailable: read failed: ", 0), 0u) << w.source;
  EXPECT_NE(w.source.find("energy_uj"), std::string::npos) << w.source;
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(w.iterations, 0);
  EXPECT_EQ(syncs, 1) << "only the opening sync ran";
  const EnergyWindow idle = MeasureIdleBaseline(meter, 10.0);
  EXPECT_FALSE(idle.joules.has_value());
  EXPECT_LT(idle.seconds, 1.0) << "an unmeasurable idle window must not sleep";
}

// Regression: the documented REQUIRES on the window length was not enforced
// (a negative or NaN length silently gave a one-iteration window).
TEST(RaplMeterTest, InvalidWindowLengthThrows) {
  FakePowercap tree;
  tree.AddZone("intel-rapl:0", "package-0", 0, 1'000'000'000);
  RaplMeter meter(tree.root());
  int calls = 0;
  EXPECT_THROW(MeasureEnergy(meter, [&] { ++calls; }, -0.5), std::invalid_argument);
  EXPECT_THROW(MeasureEnergy(meter, [&] { ++calls; }, std::nan("")), std::invalid_argument);
  EXPECT_THROW(MeasureIdleBaseline(meter, -1.0), std::invalid_argument);
  EXPECT_EQ(calls, 0);
  EXPECT_NO_THROW(MeasureEnergy(meter, [&] { ++calls; }, 0.0));
  EXPECT_EQ(calls, 1) << "a zero-length window still runs the workload once";
}

TEST(EnergyMeterTest, BackendsGetTheirMeters) {
  EXPECT_EQ(MakeEnergyMeter(Backend::kCpu)->Name(), "rapl");
  EXPECT_EQ(MakeEnergyMeter(Backend::kCuda)->Name(), "nvml");
}

}  // namespace
}  // namespace cb::harness
