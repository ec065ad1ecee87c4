// File: harness/jsonl_test.cpp
#include "harness/jsonl.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace cb::harness {
namespace {

TEST(Jsonl, VisitsObjectsInOrderSkippingBlankLinesAndNamingLines) {
  std::vector<std::string> seen;
  ForEachJsonlObject("{\"a\":1}\n\n  \t\r\n{\"a\":2}\r\n{\"a\":3}", "p.jsonl",
                     [&](const nlohmann::json& j, const std::string& where) {
                       seen.push_back(where + std::to_string(j.at("a").get<int>()));
                     });
  EXPECT_EQ(seen, (std::vector<std::string>{"p.jsonl:1: 1", "p.jsonl:4: 2", "p.jsonl:5: 3"}));
}

TEST(Jsonl, ALineThatIsNotOneObjectIsAnErrorNamingIt) {
  auto noop = [](const nlohmann::json&, const std::string&) {};
  for (const char* bad : {"{\"a\":1}\n[1,2]\n", "{\"a\":1}\n{\"a\":\n", "{\"a\":1}\n42\n",
                          "{\"a\":1}\n{\"a\":1} {\"b\":2}\n"}) {
    try {
      ForEachJsonlObject(bad, "f", noop);
      ADD_FAILURE() << "accepted: " << bad;
    } catch (const std::runtime_error& e) {
      EXPECT_EQ(std::string(e.what()), "f:2: not a JSON object") << bad;
    }
  }
  EXPECT_NO_THROW(ForEachJsonlObject("", "f", noop));
}

}  // namespace
}  // namespace cb::harness
