// File: harness/atomic_file_test.cpp
#include "harness/atomic_file.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace cb::harness {
namespace {

namespace fs = std::filesystem;

class AtomicFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "cb-atomic-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  static std::string Read(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  // Everything in the folder: only what the test expects, no temporaries.
  size_t Entries() const {
    size_t n = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir_)) ++n;
    return n;
  }
  fs::path dir_;
};

TEST_F(AtomicFileTest, WritesAndReplacesAFileLeavingNoTemporary) {
  const std::string path = (dir_ / "out.txt").string();
  WriteFileAtomically(path, std::string("first\n"));
  EXPECT_EQ(Read(path), "first\n");
  WriteFileAtomically(path, [](std::ostream& out) { out << "second" << 2; });
  EXPECT_EQ(Read(path), "second2");
  EXPECT_EQ(Entries(), 1u);
}

TEST_F(AtomicFileTest, AFailingFillLeavesTheOldFile) {
  const std::string path = (dir_ / "out.txt").string();
  WriteFileAtomically(path, std::string("old"));
  EXPECT_THROW(WriteFileAtomically(path,
                                   [](std::ostream& out) {
                                     out << "partial";
                                     throw std::logic_error("fill failed");
                                   }),
               std::logic_error);
  EXPECT_EQ(Read(path), "old");
  EXPECT_EQ(Entries(), 1u);
}

TEST_F(AtomicFileTest, AnUnwritablePathIsARuntimeErrorNamingIt) {
  const std::string path = (dir_ / "no" / "such" / "x.txt").string();
  try {
    WriteFileAtomically(path, std::string("x"));
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot write '" + path + "'"), std::string::npos) << e.what();
  }
  EXPECT_EQ(Entries(), 0u);
}

TEST_F(AtomicFileTest, DirectoryAppearsWholeOrNotAtAll) {
  const fs::path out = dir_ / "corpus";
  WriteDirectoryAtomically(out, [&](const fs::path& tmp) {
    EXPECT_NE(tmp, out);
    EXPECT_EQ(tmp.parent_path(), dir_);
    EXPECT_FALSE(fs::exists(out));
    std::ofstream(tmp / "a.txt") << "a";
    fs::create_directory(tmp / "sub");
    std::ofstream(tmp / "sub" / "b.txt") << "b";
  });
  EXPECT_EQ(Read(out / "a.txt"), "a");
  EXPECT_EQ(Read(out / "sub" / "b.txt"), "b");
  EXPECT_EQ(Entries(), 1u);

  const fs::path failed = dir_ / "failed";
  EXPECT_THROW(WriteDirectoryAtomically(failed,
                                        [](const fs::path& tmp) {
                                          std::ofstream(tmp / "a.txt") << "a";
                                          throw std::runtime_error("generator failed");
                                        }),
               std::runtime_error);
  EXPECT_FALSE(fs::exists(failed));
  EXPECT_EQ(Entries(), 1u);  // only the first folder; no temporary left
}

}  // namespace
}  // namespace cb::harness
