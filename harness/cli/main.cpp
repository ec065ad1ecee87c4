// File: harness/cli/main.cpp
// Entry point of `claimbench`; the commands live in harness/cli/*.cpp.
#include "harness/cli/cli.h"
#include "harness/retain_freed_memory.h"

int main(int argc, char** argv) {
  cb::harness::RetainFreedMemory();  // before any thread starts
  return cb::cli::Main(argc, argv);
}
