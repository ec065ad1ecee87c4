#!/usr/bin/env bash
# ci/test.sh: the test command. Installs what is missing, checks the layering,
# builds `release` (CUDA paths compiled when nvcc is found), runs every ctest
# label that needs no GPU, checks that every test skipped for want of a GPU
# runs in the GPU check (ci/gpu.sh check-names), runs the smoke regression
# gate, checks that a new method edits no shared file, then builds `asan`
# (ASan + UBSan, CPU only) and runs the tests again under it, and last runs
# every libFuzzer target for 20 s (ci/fuzz.sh). Exit status is non-zero if
# anything fails.
#   CB_JOBS=N   parallel build jobs (default: number of cores)
set -euo pipefail
cd "$(dirname "$0")/.."
jobs="${CB_JOBS:-$(nproc)}"
# Each phase header says how long the run has taken so far, so a CI log
# shows where the time goes.
phase() { echo "== [${SECONDS} s] $*"; }

ci/deps.sh
. ci/ccache.sh

phase "layering: includes point one way (ci/layering.sh)"
ci/layering.sh

phase "release: configure and build"
cmake --preset release >/dev/null
cmake --build --preset release -j "$jobs"

phase "release: ctest (labels that need no GPU)"
ctest --preset release -j "$jobs" -LE gpu

phase "every test that skips for want of a GPU runs in the GPU check (ci/gpu.sh check-names)"
ci/gpu.sh check-names build/release/Testing/Temporary/LastTest.log

phase "release: regression gate of the smoke profile against ci/baselines/ (ci/baseline.sh)"
ci/baseline.sh check

phase "a throw-away method edits no shared file (ci/new_method_check.sh)"
ci/new_method_check.sh

phase "asan: configure and build"
cmake --preset asan >/dev/null
cmake --build --preset asan -j "$jobs"

phase "asan: the same tests under AddressSanitizer + UndefinedBehaviorSanitizer"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
# Not label "browser": it checks the HTML report's scripts in chromium, not
# our memory safety. Not the two tests that repeat the whole smoke profile
# (the gate's two identical runs, the four shards against one run): under
# ASan they took 268 s and 253 s of the 709 s (clean clone, 2 cores); they
# check the gate's and the shards' logic, which the release half runs, while
# cli.CliTest.EveryClaimRunsAtTheSmokeProfile still runs every claim once here.
ctest --preset asan -j "$jobs" -LE "gpu|browser" \
  -E "GateCliTest.TwoIdenticalSmokeRunsNeverRegress|ShardCliTest.FourShardsMergedEqualOneUnshardedRun"

phase "fuzz: each libFuzzer target for 20 s (ci/fuzz.sh)"
CB_FUZZ_SECONDS=20 CB_FUZZ_NO_TSAN=1 ci/fuzz.sh

phase "done"
