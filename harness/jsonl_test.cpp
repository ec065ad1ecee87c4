// File: harness/jsonl_test.cpp
#include "harness/jsonl.h"

#include <gtest/gtest.h>

#include <functional>
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
      // Invalid JSON adds the parser's reason in parentheses.
      EXPECT_EQ(std::string(e.what()).rfind("f:2: not a JSON object", 0), 0u) << e.what();
    }
  }
  EXPECT_NO_THROW(ForEachJsonlObject("", "f", noop));
}

TEST(Jsonl, EveryErrorOfALineNamesIt) {
  auto message = [](const char* text, const std::function<void(const nlohmann::json&, const std::string&)>& row) {
    try {
      ForEachJsonlObject(text, "g.jsonl", row);
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  auto noop = [](const nlohmann::json&, const std::string&) {};
  // A number beyond double (nlohmann's out_of_range, not a parse_error).
  EXPECT_EQ(message("{\"a\":1}\n{\"a\":1e999}\n", noop),
            "g.jsonl:2: not a JSON object (invalid JSON: number overflow parsing '1e999')");
  EXPECT_EQ(message("{\"a\":\n", noop), "g.jsonl:1: not a JSON object (invalid JSON at column 6)");
  // The callback's own foreign exceptions get the line in front.
  EXPECT_EQ(message("{\"n\":\"99999999999999999999\"}\n",
                    [](const nlohmann::json& j, const std::string&) { (void)std::stoi(j.at("n").get<std::string>()); }),
            "g.jsonl:1: stoi");
  EXPECT_EQ(message("{\"n\":1}\n", [](const nlohmann::json& j, const std::string&) { (void)j.at("m"); })
                .rfind("g.jsonl:1: [json.exception.out_of_range.403]", 0),
            0u);
  // A callback that names the line itself is not named twice.
  EXPECT_EQ(message("{\"n\":1}\n",
                    [](const nlohmann::json&, const std::string& where) { throw std::runtime_error(where + "bad n"); }),
            "g.jsonl:1: bad n");
}

}  // namespace
}  // namespace cb::harness
