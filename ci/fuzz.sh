#!/usr/bin/env bash
# ci/fuzz.sh: builds the libFuzzer target of every parser of user input
# (preset `fuzz`, target `fuzzers`: clang-14 with ASan + UBSan; the targets
# are listed in harness/cmake/fuzz.cmake) and runs each on a scratch copy of
# its seed corpus fixtures/fuzz/<target>/ (libFuzzer first replays every
# input there, the crash-* regression inputs included, then mutates). Prints
# per target the executions, the final coverage (cov: edges, ft: features),
# execs/s and whether it crashed. Then runs ci/tsan.sh when that exists.
# Exit status 1 if a target crashed (or fell short of its executions), else
# the ThreadSanitizer check's.
#   CB_FUZZ_SECONDS=N  run each target for N seconds (ci/test.sh: 20) instead
#                      of CB_FUZZ_RUNS executions
#   CB_FUZZ_RUNS=N     executions per target (default 1000000), each target
#                      stopped after CB_FUZZ_MAX_SECONDS (default 3600) anyway
#   CB_FUZZ_PARALLEL=N targets run at a time (default 2)
#   CB_FUZZ_ONLY="a b" only these targets (names as in fixtures/fuzz/)
#   CB_FUZZ_NO_TSAN=1  do not run ci/tsan.sh at the end
#   CB_FUZZ_NO_BUILD=1 run the binaries as built (no configure, no build)
#   CB_JOBS=N          parallel build jobs (default: number of cores)
# Scratch corpora, logs and crash artifacts: build/fuzz/fuzz-work/<target>/
# (kept; the seeds in fixtures/ are never written).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs="${CB_JOBS:-$(nproc)}"
seconds="${CB_FUZZ_SECONDS:-}"
runs="${CB_FUZZ_RUNS:-1000000}"
max_seconds="${CB_FUZZ_MAX_SECONDS:-3600}"
parallel="${CB_FUZZ_PARALLEL:-2}"

if [ "${CB_FUZZ_NO_BUILD:-0}" != 1 ]; then
  ci/deps.sh
  . ci/ccache.sh
  echo "== fuzz: configure and build the libFuzzer targets (preset fuzz, target fuzzers)"
  cmake --preset fuzz >/dev/null
  cmake --build --preset fuzz --target fuzzers -j "$jobs"
fi

bin_dir=build/fuzz/fuzz
work=build/fuzz/fuzz-work
targets=()
for b in "$bin_dir"/*_fuzz; do
  t="$(basename "$b" _fuzz)"
  if [ -n "${CB_FUZZ_ONLY:-}" ] && [[ " $CB_FUZZ_ONLY " != *" $t "* ]]; then continue; fi
  targets+=("$t")
done
[ ${#targets[@]} -gt 0 ] || { echo "ci/fuzz.sh: no fuzz targets in $bin_dir" >&2; exit 3; }

if [ -n "$seconds" ]; then
  budget=(-max_total_time="$seconds")
  what="$seconds s each"
else
  budget=(-runs="$runs" -max_total_time="$max_seconds")
  what="$runs executions each (at most $max_seconds s)"
fi
echo "== fuzz: ${#targets[@]} targets, $what, $parallel at a time"

# A small quarantine that is never handed back to the kernel and shorter
# allocation stacks: the exchange target measured 1.7x the executions per CPU
# second (most of the rest went to page faults and madvise). A use after free
# is still caught while the block is in the 16 MB quarantine. The caller's
# ASAN_OPTIONS (ci/test.sh exports its own) are not used.
asan_options="detect_leaks=1:quarantine_size_mb=16:allocator_release_to_os_interval_ms=-1:malloc_context_size=10"

# One target: a fresh scratch corpus from the seeds, then libFuzzer on it.
# -timeout: one input running 25 s is a hang, reported like a crash.
run_one() {
  local t="$1" dir="$work/$1"
  rm -rf "$dir" && mkdir -p "$dir/corpus"
  if [ -d "fixtures/fuzz/$t" ]; then cp -p "fixtures/fuzz/$t"/* "$dir/corpus/" 2>/dev/null || true; fi
  local rc=0
  ASAN_OPTIONS="$asan_options" UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
    "$bin_dir/${t}_fuzz" "${budget[@]}" -print_final_stats=1 -timeout=25 -rss_limit_mb=2560 \
      -artifact_prefix="$dir/" "$dir/corpus" >"$dir/log" 2>&1 || rc=$?
  echo "$rc" >"$dir/rc"
}

started=$(date +%s)
running=0
for t in "${targets[@]}"; do
  if [ "$running" -ge "$parallel" ]; then wait -n || true; running=$((running - 1)); fi
  run_one "$t" &
  running=$((running + 1))
done
wait

status=0
printf '%-14s %12s %8s %8s %10s  %s\n' target execs cov ft "exec/s" result
for t in "${targets[@]}"; do
  dir="$work/$t"
  rc="$(cat "$dir/rc" 2>/dev/null || echo 99)"
  execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log" | tail -1)"
  rate="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$dir/log" | tail -1)"
  last="$(grep -E '^#[0-9]+' "$dir/log" | grep -E ' cov: ' | tail -1 || true)"
  cov="$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")"
  ft="$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")"
  artifacts="$(find "$dir" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' \
                 -o -name 'oom-*' -o -name 'slow-unit-*' \) | sort | tr '\n' ' ')"
  result=ok
  if [ "$rc" != 0 ] || [ -n "$artifacts" ]; then
    result="CRASH (exit $rc) ${artifacts:-}"
    status=1
  elif [ -z "$seconds" ] && [ "${execs:-0}" -lt "$runs" ]; then
    result="SHORT: time guard hit before $runs executions"
    status=1
  fi
  printf '%-14s %12s %8s %8s %10s  %s\n' "$t" "${execs:-?}" "${cov:-?}" "${ft:-?}" "${rate:-?}" "$result"
done
for t in "${targets[@]}"; do
  if [ "$(cat "$work/$t/rc" 2>/dev/null || echo 99)" != 0 ]; then
    echo "--- $t: end of $work/$t/log"
    tail -n 40 "$work/$t/log"
  fi
done
echo "== fuzz: $(( $(date +%s) - started )) s of fuzzing; logs and corpora in $work/"
if [ "$status" != 0 ]; then
  echo "ci/fuzz.sh: a target crashed: reproduce with $bin_dir/<target>_fuzz <artifact>; fix the parser and add" \
       "the input as fixtures/fuzz/<target>/crash-<what>" >&2
fi

if [ "${CB_FUZZ_NO_TSAN:-0}" != 1 ] && [ -x ci/tsan.sh ]; then
  echo "== tsan: ci/tsan.sh"
  ci/tsan.sh || status=1
fi
exit "$status"
