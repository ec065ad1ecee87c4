// File: ledger/ceiling_update_test.cpp
// The replacement rule of stored ceilings: every row of the table in
// ceiling_update.h, and that the rule survives a round trip through a ledger
// (the provisional flag lives in the stored detail).
#include "ledger/ceiling_update.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ledger/ledger_test_util.h"

namespace cb::ledger {
namespace {

Ceiling C(const std::string& name, double value, bool provisional) {
  Ceiling c;
  c.name = name;
  c.value = value;
  c.unit = "GB/s";
  c.detail = {{"provisional", provisional}};
  return c;
}

std::vector<std::string> Names(const std::vector<Ceiling>& cs) {
  std::vector<std::string> out;
  for (const auto& c : cs) out.push_back(c.name + "=" + std::to_string(static_cast<int>(c.value)));
  return out;
}

TEST(CeilingUpdate, EveryRowOfTheTable) {
  const std::vector<Ceiling> stored = {C("prov_quiet_lower", 10, true), C("prov_prov_higher", 10, true),
                                       C("prov_prov_lower", 10, true), C("quiet_quiet_higher", 10, false),
                                       C("quiet_quiet_lower", 10, false), C("quiet_prov_higher", 10, false)};
  const std::vector<Ceiling> measured = {C("new", 1, true),               C("prov_quiet_lower", 5, false),
                                         C("prov_prov_higher", 12, true), C("prov_prov_lower", 8, true),
                                         C("quiet_quiet_higher", 11, false), C("quiet_quiet_lower", 9, false),
                                         C("quiet_prov_higher", 50, true)};
  EXPECT_EQ(Names(CeilingsToStore(stored, measured)),
            (std::vector<std::string>{"new=1", "prov_quiet_lower=5", "prov_prov_higher=12", "quiet_quiet_higher=11"}));
  EXPECT_TRUE(AnyProvisional(stored));
  EXPECT_FALSE(AnyProvisional(std::vector<Ceiling>{C("a", 1, false)}));
  Ceiling no_detail;
  EXPECT_FALSE(IsProvisional(no_detail));  // ceilings stored before the flag existed count as quiet
}

TEST(CeilingUpdate, TheFlagRoundTripsThroughTheLedger) {
  const testutil::TempDir dir;
  Ledger ledger = Ledger::Open(dir.File("c.db"));
  ledger.PutCeilings("p", std::vector<Ceiling>{C("cpu_copy_bandwidth", 3, true)});
  const auto stored = ledger.GetCeilings("p");
  ASSERT_EQ(stored.size(), 1u);
  EXPECT_TRUE(IsProvisional(stored[0]));
  const auto quiet = CeilingsToStore(stored, std::vector<Ceiling>{C("cpu_copy_bandwidth", 2, false)});
  ledger.PutCeilings("p", quiet);
  const auto after = ledger.GetCeilings("p");
  ASSERT_EQ(after.size(), 1u);
  EXPECT_EQ(after[0].value, 2);
  EXPECT_FALSE(IsProvisional(after[0]));
}

}  // namespace
}  // namespace cb::ledger
