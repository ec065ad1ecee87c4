// File: harness/input_error_test.cpp
#include "harness/input_error.h"

#include <functional>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "harness/interrupt.h"

namespace cb::harness {
namespace {

std::string MessageOf(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no exception)";
}

TEST(InputError, WhereNamesTheSourceAndTheLine) {
  EXPECT_EQ(InputWhere("a.jsonl", 3), "a.jsonl:3: ");
  EXPECT_EQ(InputWhere("model.safetensors"), "model.safetensors: ");
}

TEST(InputError, ForeignExceptionsGetTheSourceInFront) {
  const std::string where = InputWhere("p.jsonl", 2);
  EXPECT_EQ(MessageOf([&] { NamingInput(where, [] { return std::stoi("99999999999999999999"); }); }),
            "p.jsonl:2: stoi");
  const std::string overflow =
      MessageOf([&] { NamingInput(where, [] { return nlohmann::json::parse("[1e999]"); }); });
  EXPECT_EQ(overflow.rfind("p.jsonl:2: [json.exception.out_of_range.406]", 0), 0u) << overflow;
  EXPECT_EQ(NamingInput(where, [] { return 7; }), 7);
}

TEST(InputError, AMessageThatNamesTheSourceIsKept) {
  EXPECT_EQ(NameInput("f.jsonl:4: ", "f.jsonl:4: bad label"), "f.jsonl:4: bad label");
  EXPECT_EQ(NameInput("f.jsonl: ", "f.jsonl:9: bad label"), "f.jsonl:9: bad label");
  EXPECT_EQ(NameInput("f.jsonl: ", "bad label"), "f.jsonl: bad label");
}

TEST(InputError, InterruptsPassThrough) {
  EXPECT_THROW(NamingInput("x: ", [] { throw Interrupted{"here"}; }), Interrupted);
}

}  // namespace
}  // namespace cb::harness
