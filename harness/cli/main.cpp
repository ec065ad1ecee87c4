// File: harness/cli/main.cpp
// Entry point of `claimbench`; the commands live in harness/cli/*.cpp.
#include "harness/cli/cli.h"

int main(int argc, char** argv) { return cb::cli::Main(argc, argv); }
