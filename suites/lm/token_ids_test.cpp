// File: suites/lm/token_ids_test.cpp
// -----------------------------------------------------------------------------
// Tests of reference/lm/token_ids.h: a well-formed file reads back in order
// (blank lines skipped, other keys ignored), and each malformed line is a
// one-line error naming FILE:LINE and what is wrong.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <vector>

#include "reference/lm/token_ids.h"

namespace cb::ref::lm {
namespace {

namespace fs = std::filesystem;

class TokenIdsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (fs::temp_directory_path() /
             ("cb_token_ids_test_" + std::to_string(::getpid()) + "_" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".jsonl"))
                .string();
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove(path_, ec);
  }
  void Write(const std::string& text) const {
    std::ofstream out(path_, std::ios::binary | std::ios::trunc);
    out << text;
  }
  // ReadTokenIds must throw one line with "PATH:LINE: " and `what`.
  void ExpectError(const std::string& text, int line, const std::string& what, int vocab = 0) const {
    Write(text);
    try {
      ReadTokenIds(path_, vocab);
      ADD_FAILURE() << "no throw for: " << text;
    } catch (const std::runtime_error& e) {
      const std::string msg = e.what();
      EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
      const std::string where = line > 0 ? path_ + ":" + std::to_string(line) + ": " : path_ + ": ";
      EXPECT_EQ(msg.rfind(where, 0), 0u) << msg;
      EXPECT_NE(msg.find(what), std::string::npos) << "'" << what << "' not in: " << msg;
    }
  }
  std::string path_;
};

TEST_F(TokenIdsTest, ReadsSequencesInOrder) {
  Write("{\"ids\": [1, 2, 3]}\n\n  \n{\"source\": \"doc\", \"ids\": [0]}\r\n{\"ids\": [2147483647, 31]}");
  const auto seqs = ReadTokenIds(path_);
  ASSERT_EQ(seqs.size(), 3u);
  EXPECT_EQ(seqs[0], (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(seqs[1], (std::vector<int>{0}));
  EXPECT_EQ(seqs[2], (std::vector<int>{2147483647, 31}));
  Write("{\"ids\": [31, 0]}\n");
  EXPECT_EQ(ReadTokenIds(path_, 32).at(0), (std::vector<int>{31, 0}));
}

TEST_F(TokenIdsTest, MalformedLinesNameFileAndLine) {
  ExpectError("{\"ids\": [1]}\n{\"ids\": [1, 2.5]}\n", 2, "ids[1] = 2.5 is not an integer");
  ExpectError("{\"ids\": [1]}\n{\"ids\": [1.0]}\n", 2, "is not an integer");
  ExpectError("{\"ids\": [true]}\n", 1, "ids[0] = true is not an integer");
  ExpectError("{\"ids\": [\"7\"]}\n", 1, "is not an integer");
  ExpectError("\n\n{\"ids\": [4, -1]}\n", 3, "ids[1] = -1 is negative");
  ExpectError("{\"ids\": [1]}\n{\"tokens\": [1]}\n", 2, "no \"ids\"");
  ExpectError("{\"ids\": 5}\n", 1, "\"ids\" is not an array");
  ExpectError("{\"ids\": []}\n", 1, "\"ids\" is empty");
  ExpectError("{\"ids\": [2147483648]}\n", 1, "larger than 2^31 - 1");
  ExpectError("{\"ids\": [1]}\n[1, 2]\n", 2, "not a JSON object");
  ExpectError("{\"ids\": [1, 2\n", 1, "not a JSON object");
  ExpectError("{\"ids\": [3, 32]}\n", 1, "ids[1] = 32 is not below the vocabulary size 32", 32);
  ExpectError("\n  \n", 0, "no token sequences");
}

TEST_F(TokenIdsTest, MissingFileIsNamed) {
  try {
    ReadTokenIds(path_ + ".absent");
    ADD_FAILURE() << "no throw";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), path_ + ".absent: cannot read");
  }
}

}  // namespace
}  // namespace cb::ref::lm
