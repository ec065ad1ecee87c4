// File: suites/harness/harness_claims.cpp (being written)
