// File: harness/redact_test.cpp
// The Redactor: a key is replaced wherever it appears, as is and as JSON
// escapes it; short placeholder keys and text without the key are untouched.
#include "harness/redact.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace cb::harness {
namespace {

TEST(Redactor, ReplacesEveryOccurrence) {
  const Redactor redact("sk-secret-123");
  EXPECT_TRUE(redact.active());
  EXPECT_EQ(redact("Authorization: Bearer sk-secret-123"), "Authorization: Bearer [REDACTED]");
  EXPECT_EQ(redact("sk-secret-123sk-secret-123 and sk-secret-123"), "[REDACTED][REDACTED] and [REDACTED]");
  EXPECT_EQ(redact("sk-secret-12 is not it"), "sk-secret-12 is not it");
  EXPECT_EQ(redact(""), "");
}

TEST(Redactor, FindsTheKeyInsideAJsonString) {
  const std::string key = "k/ey\"with\\odd/chars";
  const Redactor redact(key);
  const std::string body = nlohmann::json{{"echo", "Bearer " + key}}.dump();
  ASSERT_EQ(body.find(key), std::string::npos);  // escaped: the raw key is not in it
  const std::string out = redact(body);
  EXPECT_EQ(nlohmann::json::parse(out)["echo"], "Bearer [REDACTED]") << out;
  // The same with the solidus escaped too, as PHP writes it.
  EXPECT_EQ(redact(R"({"echo": "k\/ey\"with\\odd\/chars"})"), R"({"echo": "[REDACTED]"})");
}

TEST(Redactor, LeavesShortPlaceholdersAlone) {
  const Redactor redact("EMPTY");
  EXPECT_FALSE(redact.active());
  EXPECT_EQ(redact("Answer: EMPTY"), "Answer: EMPTY");
  EXPECT_FALSE(Redactor("").active());
}

}  // namespace
}  // namespace cb::harness
