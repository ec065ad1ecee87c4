// File: harness/atomic_file.cpp
#include "harness/atomic_file.h"

#include <unistd.h>

#include <atomic>
#include <fstream>
#include <random>
#include <stdexcept>
#include <system_error>

namespace cb::harness {
namespace {

namespace fs = std::filesystem;

std::string TempFileName(const std::string& path) {
  static std::atomic<uint64_t> counter{0};
  return path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
}

}  // namespace

void WriteFileAtomically(const std::string& path, const std::function<void(std::ostream& out)>& fill) {
  const std::string tmp = TempFileName(path);
  auto remove_tmp = [&] {
    std::error_code ignored;
    fs::remove(tmp, ignored);
  };
  try {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error("cannot write '" + path + "'");
    fill(out);
    out.flush();
    if (!out) throw std::runtime_error("cannot write '" + path + "'");
  } catch (...) {
    remove_tmp();
    throw;
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    remove_tmp();
    throw std::runtime_error("cannot write '" + path + "': " + ec.message());
  }
}

void WriteFileAtomically(const std::string& path, std::string_view text) {
  WriteFileAtomically(path, [&](std::ostream& out) { out.write(text.data(), static_cast<std::streamsize>(text.size())); });
}

void WriteDirectoryAtomically(const fs::path& path, const std::function<void(const fs::path& tmp)>& fill) {
  const fs::path parent = path.has_parent_path() ? path.parent_path() : fs::path(".");
  std::random_device rd;
  const fs::path tmp = parent / (path.filename().string() + ".tmp-" + std::to_string(rd()));
  fs::create_directory(tmp);
  try {
    fill(tmp);
    fs::rename(tmp, path);
  } catch (...) {
    std::error_code ignored;
    fs::remove_all(tmp, ignored);
    throw;
  }
}

}  // namespace cb::harness
