// File: harness/platform_test.cpp
// -----------------------------------------------------------------------------
// Tests of harness/platform.h: the fingerprint is deterministic, canonical,
// holds the promised keys and nothing volatile, and its hash follows the JSON.
#include "harness/platform.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>
#include <vector>
#include <thread>

#include "fixtures/backend_test.h"
#include "harness/build_info.h"
#include "harness/device_info.h"

namespace cb::harness {
namespace {

using nlohmann::json;

TEST(PlatformTest, TwoDetectionsAreEqual) {
  const Platform a = DetectPlatform();
  const Platform b = DetectPlatform();
  EXPECT_EQ(a.json, b.json);
  EXPECT_EQ(a.hash, b.hash);
  EXPECT_EQ(a.json.dump(), b.json.dump());
}

TEST(PlatformTest, HashIsXxh3OfTheCompactDump) {
  const Platform p = DetectPlatform();
  EXPECT_EQ(p.hash, Xxh3_128(p.json.dump()));
  EXPECT_EQ(p.hash, HashPlatformJson(p.json));
  EXPECT_EQ(p.hash.Hex().size(), 32u);
  // Canonical text: compact and key-sorted, so re-parsing changes nothing.
  EXPECT_EQ(json::parse(p.json.dump()).dump(), p.json.dump());
  // Compact and sorted: the text opens with the alphabetically first key.
  EXPECT_EQ(p.json.dump().rfind("{\"arch\":\"", 0), 0u) << p.json.dump().substr(0, 40);
  EXPECT_EQ(p.json.dump().find('\n'), std::string::npos);
}

TEST(PlatformTest, HasTheListedKeys) {
  const json j = DetectPlatform().json;
  EXPECT_EQ(j.at("schema_version"), 1);
  const json& cpu = j.at("cpu");
  EXPECT_TRUE(cpu.at("model").is_string());
  EXPECT_FALSE(cpu.at("model").get<std::string>().empty());
  ASSERT_TRUE(cpu.at("flags").is_array());
  EXPECT_FALSE(cpu.at("flags").empty()) << "every x86-64 and Arm /proc/cpuinfo lists flags";
  EXPECT_TRUE(std::is_sorted(cpu.at("flags").begin(), cpu.at("flags").end()));
  EXPECT_EQ(cpu.at("logical_cores").get<int64_t>(),
            static_cast<int64_t>(std::thread::hardware_concurrency()));
  for (const char* key : {"vendor", "microcode", "governor", "smt", "boost"}) {
    EXPECT_TRUE(cpu.at(key).is_string()) << key;
  }
  EXPECT_GE(j.at("memory_gib").get<int64_t>(), 1);
  for (const char* key : {"kernel", "arch", "os", "nvidia_driver"}) {
    ASSERT_TRUE(j.at(key).is_string()) << key;
    EXPECT_FALSE(j.at(key).get<std::string>().empty()) << key;
  }
  const json& build = j.at("build");
  EXPECT_EQ(build.at("type"), build_info::kBuildType);
  EXPECT_EQ(build.at("compiler"), build_info::kCxxCompiler);
  EXPECT_EQ(build.at("flags"), build_info::kCxxFlags);
  EXPECT_EQ(build.at("cuda_mode"), build_info::kCudaMode);
  EXPECT_EQ(build.at("have_cuda"), build_info::kHaveCuda);
  EXPECT_EQ(j.at("cuda").at("runtime"), CudaRuntimeVersion());
  EXPECT_EQ(j.at("cuda").at("driver"), CudaDriverVersion());
  ASSERT_TRUE(j.at("gpus").is_array());
}

// Every object key anywhere in `j`, e.g. "cpu.model" and "gpus.uuid".
void CollectKeys(const json& j, const std::string& prefix, std::vector<std::string>* keys) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      keys->push_back(prefix + it.key());
      CollectKeys(it.value(), prefix + it.key() + ".", keys);
    }
  } else if (j.is_array()) {
    for (const json& e : j) CollectKeys(e, prefix, keys);
  }
}

TEST(PlatformTest, KeepsVolatileStateOut) {
  std::vector<std::string> keys;
  CollectKeys(DetectPlatform().json, "", &keys);
  ASSERT_FALSE(keys.empty());
  const std::set<std::string> volatile_names = {"hostname", "loadavg", "load", "time",
                                                 "time_utc", "gpu_sm_clock_mhz", "sm_clock_mhz",
                                                 "temperature", "free_memory"};
  for (const std::string& key : keys) {
    const std::string leaf = key.substr(key.rfind('.') + 1);  // npos + 1 == 0
    EXPECT_EQ(volatile_names.count(leaf), 0u) << key << " is volatile state";
  }
  const json v = DescribeVolatileState();
  for (const char* key : {"hostname", "loadavg", "time_utc", "gpu_sm_clock_mhz"}) {
    EXPECT_TRUE(v.contains(key)) << key;
  }
}

TEST(PlatformTest, HashFollowsEveryField) {
  const Platform p = DetectPlatform();
  json changed = p.json;
  changed["kernel"] = p.json.at("kernel").get<std::string>() + "+1";
  EXPECT_NE(HashPlatformJson(changed), p.hash);

  changed = p.json;
  changed["cpu"]["logical_cores"] = p.json.at("cpu").at("logical_cores").get<int64_t>() + 1;
  EXPECT_NE(HashPlatformJson(changed), p.hash);

  changed = p.json;
  changed["gpus"].push_back(json{{"name", "NVIDIA H200"}, {"uuid", "GPU-0"}});
  EXPECT_NE(HashPlatformJson(changed), p.hash);

  // Same content, inserted in reverse key order: same hash (sorted keys).
  std::vector<std::pair<std::string, json>> fields;
  for (const auto& [key, value] : p.json.items()) fields.emplace_back(key, value);
  ASSERT_GT(fields.size(), 1u);
  json reordered = json::object();
  for (auto it = fields.rbegin(); it != fields.rend(); ++it) reordered[it->first] = it->second;
  EXPECT_EQ(HashPlatformJson(reordered), p.hash);
  // And the hash sees values, not only keys.
  changed = p.json;
  changed["schema_version"] = 2;
  EXPECT_NE(HashPlatformJson(changed), p.hash);
}

TEST(PlatformTest, ListsGpusTheRuntimeSees) {
  std::string reason;
  const auto devices = QueryDevices(&reason);
  const json gpus = DetectPlatform().json.at("gpus");
  ASSERT_EQ(gpus.size(), devices.size());
  if (devices.empty()) {
    EXPECT_FALSE(reason.empty());
    if (cb::testing::GpuRequired()) FAIL() << "CB_REQUIRE_GPU=1 but no GPU: " << reason;
    return;
  }
  for (size_t i = 0; i < devices.size(); ++i) {
    EXPECT_EQ(gpus[i].at("name"), devices[i].name);
    EXPECT_EQ(gpus[i].at("uuid"), devices[i].uuid);
    EXPECT_EQ(gpus[i].at("sm_count"), devices[i].sm_count);
    EXPECT_EQ(gpus[i].at("cc"),
              std::to_string(devices[i].cc_major) + "." + std::to_string(devices[i].cc_minor));
  }
}

}  // namespace
}  // namespace cb::harness
