// File: harness/cli/cli_test.cpp (being written)
#include <gtest/gtest.h>
