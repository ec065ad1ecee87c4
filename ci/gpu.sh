#!/usr/bin/env bash
# File: ci/gpu.sh
# -----------------------------------------------------------------------------
# The one-call GPU check (DESIGN §3), in two steps of one script, because the
# GPU machine is bare and offline: it has the CUDA toolkit, CMake and Python
# but none of our Debian packages and no way to install them.
#
#   ci/gpu.sh bundle [DIR]   HERE. Configures preset `gpu` (CB_CUDA=ON, sm_90,
#                            Release, build/gpu, without the CPU-only suites
#                            sgp and videoniah), builds everything, and packs
#                            into DIR (default bundle/, git-ignored):
#                              gpu.sh          this script (run it from there)
#                              tests.txt       the runner list: test binaries
#                              MANIFEST.txt    commit, build root, contents
#                              payload.tar.xz  bin/ (every *_test, claimbench;
#                                              stripped), lib/ (shared libs a
#                                              bare CUDA image lacks, found
#                                              with ldd), lib-compat/
#                                              (libstdc++, used only if the
#                                              target's is older), fixtures/
#                            The payload is compressed because OpenBLAS alone
#                            is 36 MB; the bundle must stay well under 64 MiB
#                            (what travels to the GPU machine).
#
#   ci/gpu.sh check-names [LOG]
#                            HERE (ci/test.sh, after the release ctest): every
#                            test that a run without a GPU skipped for a
#                            CUDA/GPU/NVML reason (ctest's LastTest.log,
#                            default build/release/Testing/Temporary/) must
#                            match the test filter of `run` (below), or it
#                            would never run on the GPU machine. Exit 1 names
#                            those that do not.
#
#   ci/gpu.sh run OUTDIR     THERE (or here), from the bundle folder (or from
#                            ci/ next to a built bundle/). Unpacks to a temp
#                            dir, prints nvidia-smi, runs the GPU tests of
#                            every test binary with CB_REQUIRE_GPU=1 (a
#                            missing GPU is a failure, not a skip), then the
#                            CUDA benchmarks (`claimbench bench`) and the
#                            claims with a CUDA path (`claimbench run
#                            --backend all --profile quick --claim ...`),
#                            and writes at most 7 files to OUTDIR (the device
#                            tool brings back 8, no deeper than 2 folders):
#                              env.txt          nvidia-smi, host, library path
#                              tests.log        every test binary's output
#                              tests-xml.tar.gz one gtest XML per binary
#                              bench.log  run.log  claimbench.db
#                              summary.txt      per binary, then "N passed, N failed"
#                            Exits 1 if anything failed, 2 on a usage error.
#
# Only the GPU's share runs there: the whole test suite takes ~10 CPU-minutes
# (ledger_cli_test alone ~8) and CI runs it anyway. GPU tests are the ones
# whose full name holds cuda, Cuda, CUDA, Gpu, GPU, Nvml or NVML (the
# BackendTest instances end in /cuda), plus three suites that pass on both
# kinds of machine and check the device side where there is one
# (DeviceInfoTest, CublasLoader, EnergyMeterTest). Every test that skips on a
# machine without a GPU must be named so: `check-names` (in ci/test.sh)
# fails on one that is not.
#
# Environment (run): GPU_SH_BUDGET_S (default 540: the whole run, under the
# device tool's 600 s per command), GPU_SH_TEST_TIMEOUT_S (120 per binary),
# GPU_SH_BENCH_TIMEOUT_S (180), GPU_SH_RUN_TIMEOUT_S (300). Each step gets
# the smaller of its own limit and what is left of the budget; a step with
# under 10 s left is not started and counts as failed ("budget").
# GPU_SH_TEST_FILTER (a gtest filter; '*' runs every test),
# GPU_SH_BENCH_FILTER (a benchmark regex, default 'cuda'), GPU_SH_CLAIMS
# (claim ids or regexes, default: every claim that requires a GPU, from
# `claimbench list --json`, plus those that add CUDA rows when the backend
# is selected: lm.L4 mia.K2 mia.K2-lm radar.R6).
#
# On the device tool: `bash bundle/gpu.sh run "$OUT"` with carry ["bundle"].
set -euo pipefail

SELF="$(readlink -f "${BASH_SOURCE[0]}")"
SELF_DIR="$(dirname "$SELF")"

die() { echo "gpu.sh: $*" >&2; exit 2; }
log() { echo "gpu.sh: $*" >&2; }

usage() {
  sed -n '2,/^set -euo/p' "$SELF" | sed -e 's/^# \{0,1\}//' -e '/^set -euo/d' >&2
  exit 2
}

# -----------------------------------------------------------------------------
# bundle

# Libraries a bare CUDA image has (or must supply itself): the C runtime and
# loader, libgcc_s, and everything CUDA/NVIDIA (the toolkit's cuBLAS and the
# driver's libcuda must match the machine, so they are never shipped).
is_system_lib() {
  case "$1" in
    linux-vdso.so* | ld-linux* | libc.so* | libm.so* | libpthread.so* | libdl.so* | librt.so* | \
      libgcc_s.so* | libresolv.so* | libutil.so* | libmvec.so*) return 0 ;;
    libcuda.so* | libcublas.so* | libcublasLt.so* | libcudart.so* | libnvidia-* | libnvrtc* | \
      libnvJitLink*) return 0 ;;
  esac
  case "$2" in
    /usr/local/cuda* | /usr/local/nvidia* | /usr/lib/wsl/*) return 0 ;;
  esac
  return 1
}

cmd_bundle() {
  local root dir build stage
  root="$(cd "$SELF_DIR/.." && pwd)"
  [[ -f "$root/CMakePresets.json" ]] || die "bundle runs from the repository (ci/gpu.sh), not from a bundle"
  dir="${1:-$root/bundle}"
  mkdir -p "$dir"
  dir="$(cd "$dir" && pwd)"
  if [[ -n "$(ls -A "$dir")" && ! -f "$dir/MANIFEST.txt" ]]; then
    die "$dir is not empty and not a bundle; refusing to overwrite it"
  fi
  build="$root/build/gpu"

  log "configuring preset gpu in $build"
  (cd "$root" && cmake --preset gpu >/dev/null) || die "cmake --preset gpu failed"
  log "building (this takes a while on 2 cores)"
  cmake --build "$build" || die "build failed"

  local -a tests=()
  mapfile -t tests < <(find "$build" -path '*/CMakeFiles' -prune -o -type f -executable \
                         -name '*_test' -print | sort)
  ((${#tests[@]} > 0)) || die "no *_test binaries under $build"
  [[ -x "$build/claimbench" ]] || die "no claimbench binary in $build"
  local names
  names="$(for t in "${tests[@]}"; do basename "$t"; done | sort | uniq -d)"
  [[ -z "$names" ]] || die "two test binaries share a name: $names"

  stage="$(mktemp -d "${TMPDIR:-/tmp}/cb-bundle.XXXXXX")"
  STAGE="$stage"
  trap 'rm -rf "$STAGE"' EXIT
  mkdir -p "$stage/bin" "$stage/lib" "$stage/lib-compat" "$stage/fixtures"
  for t in "${tests[@]}" "$build/claimbench"; do
    cp "$t" "$stage/bin/"
  done
  strip --strip-unneeded "$stage"/bin/*

  # Every shared library any binary needs, except the system/CUDA ones.
  local missing="" soname path
  while read -r soname path; do
    [[ -z "$soname" ]] && continue
    if [[ "$path" == "not" ]]; then missing+=" $soname"; continue; fi
    is_system_lib "$soname" "$path" && continue
    case "$soname" in
      libstdc++.so*) cp -L "$path" "$stage/lib-compat/$soname" ;;
      *) cp -L "$path" "$stage/lib/$soname" ;;
    esac
  done < <(for b in "$stage"/bin/*; do
             ldd "$b" | awk '$2 == "=>" { print $1, $3 }'
           done | sort -u)
  [[ -z "$missing" ]] || die "unresolved libraries here:$missing"
  chmod 0644 "$stage"/lib/* "$stage"/lib-compat/* 2>/dev/null || true

  # Test data (the tests find it through the absolute path compiled into
  # them; `run` links that path to this copy where it does not exist).
  (cd "$root/fixtures" && find . -type f ! -name '*.cpp' ! -name '*.h' ! -name 'CMakeLists.txt' \
      -exec cp --parents {} "$stage/fixtures/" \;)

  rm -rf "${dir:?}"/*
  for t in "${tests[@]}"; do basename "$t"; done >"$dir/tests.txt"
  {
    echo "# claimbench GPU bundle; run: bash gpu.sh run OUTDIR"
    echo "created=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "git_commit=$(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown)"
    echo "git_dirty=$([[ -n "$(git -C "$root" status --porcelain 2>/dev/null)" ]] && echo 1 || echo 0)"
    echo "nvcc=$(nvcc --version 2>/dev/null | tail -1 || echo unknown)"
    echo "# bin/ (stripped):"
    find "$stage/bin" -maxdepth 1 -type f -printf '#   %f %s\n' | sort
    echo "# lib/:"
    find "$stage/lib" -maxdepth 1 -type f -printf '#   %f %s\n' | sort
    echo "# lib-compat/:"
    find "$stage/lib-compat" -maxdepth 1 -type f -printf '#   %f %s\n' | sort
  } >"$dir/MANIFEST.txt"

  local raw
  raw="$(du -sb "$stage" | cut -f1)"
  if command -v xz >/dev/null; then
    # A large dictionary lets xz share the static code common to all tests.
    tar -C "$stage" -cf - . | xz -9 -T0 >"$dir/payload.tar.xz"
  else
    tar -C "$stage" -czf "$dir/payload.tar.gz" .
  fi
  cp "$SELF" "$dir/gpu.sh"
  chmod +x "$dir/gpu.sh"

  local size
  size="$(du -sb "$dir" | cut -f1)"
  echo "bundle: $dir"
  echo "  ${#tests[@]} test binaries + claimbench, $(find "$stage/lib" -type f | wc -l) libraries," \
       "$((raw / 1048576)) MiB unpacked"
  echo "  bundle size: $((size / 1048576)) MiB ($size bytes)"
  if ((size > 60 * 1048576)); then
    die "bundle is $((size / 1048576)) MiB; it must stay well under 64 MiB"
  fi
}

# -----------------------------------------------------------------------------
# run

STAGE=""
WORK=""
cleanup_run() {
  [[ -n "$WORK" ]] && rm -rf "$WORK"
}

# Seconds left of the run's budget, at most $1; 0 when under 10 s are left
# (the step is not started).
step_timeout() {
  local left=$((BUDGET - SECONDS))
  ((left < 10)) && left=0
  ((left < $1)) && echo "$left" || echo "$1"
}

# The tests that touch the GPU (see the header) and the claims with a CUDA
# path.
GPU_TEST_FILTER='*cuda*:*Cuda*:*CUDA*:*Gpu*:*GPU*:*Nvml*:*NVML*:DeviceInfoTest.*:CublasLoader.*:EnergyMeterTest.*'
CUDA_ROW_CLAIMS="lm.L4 mia.K2 mia.K2-lm radar.R6"

cmd_run() {
  [[ $# -ge 1 ]] || die "usage: gpu.sh run OUTDIR"
  local out
  mkdir -p "$1"
  out="$(cd "$1" && pwd)"
  BUDGET="${GPU_SH_BUDGET_S:-540}"
  local test_timeout="${GPU_SH_TEST_TIMEOUT_S:-120}"
  local test_filter="${GPU_SH_TEST_FILTER:-$GPU_TEST_FILTER}"
  local bench_filter="${GPU_SH_BENCH_FILTER:-cuda}"
  local bench_timeout="${GPU_SH_BENCH_TIMEOUT_S:-180}"
  local run_timeout="${GPU_SH_RUN_TIMEOUT_S:-300}"

  # The bundle is where this script is, or bundle/ beside ci/ in a checkout.
  local bdir="" payload=""
  for d in "$SELF_DIR" "$SELF_DIR/../bundle"; do
    payload=""
    for f in "$d"/payload.tar.*; do [[ -f "$f" ]] && payload="$f" && break; done
    if [[ -n "$payload" && -f "$d/tests.txt" ]]; then bdir="$(cd "$d" && pwd)"; break; fi
  done
  [[ -n "$bdir" ]] || die "no bundle next to $SELF (run 'ci/gpu.sh bundle' first)"

  WORK="$(mktemp -d "${TMPDIR:-/tmp}/cb-gpu-run.XXXXXX")"
  trap cleanup_run EXIT
  local b="$WORK/b"
  mkdir -p "$b" "$WORK/xml" "$WORK/db"
  # GNU tar detects the compression; Python's tarfile is the fallback where
  # the xz binary is missing.
  if ! tar -C "$b" -xf "$payload" 2>/dev/null; then
    python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' \
      "$payload" "$b" || die "cannot unpack $payload"
  fi

  local manifest="$bdir/MANIFEST.txt"

  local envf="$out/env.txt" testlog="$out/tests.log" summary="$out/summary.txt"
  : >"$testlog"
  {
    echo "== gpu.sh run $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -n) ($(uname -srm))"
    sed -n '/^created=/,/^nvcc=/p' "$manifest"
    echo "== nvidia-smi"
    if command -v nvidia-smi >/dev/null; then nvidia-smi 2>&1 || true; else echo "nvidia-smi not found"; fi
  } >"$envf" 2>&1
  cat "$envf"
  # The tests read these instead of the paths compiled in on the build machine.
  export CB_FIXTURES_DIR="$b/fixtures" CB_CLAIMBENCH="$b/bin/claimbench"

  # Libraries: ours first, then wherever a CUDA image keeps cuBLAS and the
  # driver. nvidia-smi above ran without these, on the image's own libraries.
  local cuda_dirs="/usr/local/cuda/lib64:/usr/local/cuda/lib:/usr/local/cuda/targets/x86_64-linux/lib"
  cuda_dirs+=":/usr/local/nvidia/lib64:/usr/local/nvidia/lib"
  export LD_LIBRARY_PATH="$b/lib:$cuda_dirs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  # cuBLAS is opened by soname on first use (harness/cuda/cublas_loader.cpp),
  # so ldd does not list it: look for it on the path the loader will search.
  local dir have_cublas=0
  for dir in ${LD_LIBRARY_PATH//:/ }; do [[ -e "$dir/libcublas.so.13" ]] && have_cublas=1; done
  # (grep -q on a pipe: the writer can die of SIGPIPE, which pipefail counts
  # as a failure; so grep the captured text.)
  local listing
  listing="$(ldconfig -p 2>/dev/null || true)"
  grep -q 'libcublas\.so\.13 ' <<<"$listing" && have_cublas=1
  if ((have_cublas == 0)); then
    # A toolkit installed elsewhere (e.g. the nvidia-cublas wheel).
    local cublas
    cublas="$(find /usr /opt -name 'libcublas.so.13' 2>/dev/null | head -1 || true)"
    [[ -n "$cublas" ]] && LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$(dirname "$cublas")"
  fi
  listing="$(ldd "$b"/bin/* 2>&1 || true)"
  if grep -q "GLIBCXX.*not found\|CXXABI.*not found" <<<"$listing"; then
    LD_LIBRARY_PATH="$b/lib-compat:$LD_LIBRARY_PATH"
  fi
  {
    echo "== LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
    echo "== unresolved libraries:"
    listing="$(ldd "$b"/bin/* 2>&1 || true)"
    grep 'not found' <<<"$listing" | sort -u || echo "(none)"
  } | tee -a "$envf"

  # --- tests ---------------------------------------------------------------
  # summary.txt grows line by line, so a run cut short still says how far it got.
  local pass=0 fail=0 skip=0 bin_fail=0 name rc xml limit
  echo "gpu.sh run ($(date -u +%Y-%m-%dT%H:%M:%SZ), CB_REQUIRE_GPU=1, tests '$test_filter')" >"$summary"
  while read -r name; do
    [[ -z "$name" ]] && continue
    xml="$WORK/xml/$name.xml"
    limit="$(step_timeout "$test_timeout")"
    if ((limit == 0)); then
      fail=$((fail + 1)); bin_fail=$((bin_fail + 1))
      printf '%-40s not run (budget)\n' "$name" | tee -a "$summary"
      continue
    fi
    echo "===== $name" >>"$testlog"
    set +e
    (cd "$WORK" && CB_REQUIRE_GPU=1 timeout -k 10 "$limit" \
        "$b/bin/$name" --gtest_filter="$test_filter" --gtest_output="xml:$xml") >>"$testlog" 2>&1
    rc=$?
    set -e
    echo "===== $name exit $rc" >>"$testlog"
    local t=0 f=0 s=0 n=0
    if [[ -s "$xml" ]] && grep -q '<testsuites ' "$xml"; then
      t="$(grep -c '<testcase ' "$xml" || true)"
      s="$(grep -c 'result="skipped"' "$xml" || true)"
      n="$(grep -c 'status="notrun"' "$xml" || true)"
      f="$(sed -n 's/.*<testsuites [^>]*failures="\([0-9]*\)".*/\1/p' "$xml" | head -1)"
      f="${f:-0}"
    fi
    local p=$((t - s - n - f))
    ((p < 0)) && p=0
    # A binary that crashed, timed out or wrote no XML fails as a whole.
    if ((rc != 0 && f == 0)); then f=1; fi
    pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
    ((rc != 0)) && bin_fail=$((bin_fail + 1))
    printf '%-40s %4d passed %4d failed %4d skipped  exit %d\n' "$name" "$p" "$f" "$s" "$rc" | tee -a "$summary"
  done <"$bdir/tests.txt"
  tar -C "$WORK/xml" -czf "$out/tests-xml.tar.gz" .

  # --- claimbench -----------------------------------------------------------
  local db="$WORK/db/claimbench.db" claims
  export CLAIMBENCH_LEDGER="$db"
  if [[ -n "${GPU_SH_CLAIMS:-}" ]]; then
    claims="$GPU_SH_CLAIMS"
  else
    claims="$("$b/bin/claimbench" list --json 2>/dev/null | python3 -c '
import json, sys
print(" ".join(c["id"] for c in json.load(sys.stdin)["claims"] if "gpu" in c["requires"]))' || true)"
    claims="$claims $CUDA_ROW_CLAIMS"
  fi
  local -a claim_args=()
  local c
  for c in $claims; do claim_args+=(--claim "$c"); done
  # One claimbench step: its log, its line in the summary, pass or fail.
  run_step() {  # LABEL LOG LIMIT ARGS...
    local label="$1" log="$2" limit rc
    limit="$(step_timeout "$3")"
    shift 3
    echo "== claimbench $*" >"$log"
    if ((limit == 0)); then
      echo "not run (budget)" >>"$log"
      rc=124
    else
      set +e
      (cd "$WORK/db" && timeout -k 10 "$limit" "$b/bin/claimbench" "$@") >>"$log" 2>&1
      rc=$?
      set -e
    fi
    printf '%-40s exit %d\n' "$label" "$rc" | tee -a "$summary"
    if ((rc == 0)); then pass=$((pass + 1)); else fail=$((fail + 1)); fi
  }
  run_step "claimbench bench --filter $bench_filter" "$out/bench.log" "$bench_timeout" \
    bench --filter "$bench_filter"
  run_step "claimbench run (${claims// /, })" "$out/run.log" "$run_timeout" \
    run --backend all --profile quick --ledger "$db" "${claim_args[@]}"
  tail -n 5 "$out/bench.log"
  tail -n 30 "$out/run.log"

  # One file back: fold a leftover WAL into the database first.
  if [[ -f "$db" ]]; then
    if [[ -f "$db-wal" ]]; then
      python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute("PRAGMA wal_checkpoint(TRUNCATE)"); c.close()' \
        "$db" 2>/dev/null || true
    fi
    cp "$db" "$out/claimbench.db"
  fi

  {
    echo "test binaries failed: $bin_fail; tests skipped: $skip; ${SECONDS}s"
    echo "$pass passed, $fail failed"
  } >>"$summary"
  echo
  cat "$summary"
  if ((fail > 0)); then exit 1; fi
}

# -----------------------------------------------------------------------------
# check-names

cmd_check_names() {
  local log="${1:-build/release/Testing/Temporary/LastTest.log}"
  [[ -f "$log" ]] || die "no ctest log at $log (run ctest first)"
  # The gtest names of tests skipped with a reason that mentions the GPU.
  local -a skipped
  mapfile -t skipped < <(awk '
    /^\[ RUN      \] / { name = $4; reason = ""; inside = 1; next }
    inside && /^\[  SKIPPED \] / { if (tolower(reason) ~ /cuda|gpu|nvml/) print name; inside = 0; next }
    inside && /^\[ +(OK|FAILED) +\] / { inside = 0; next }
    inside { reason = reason " " $0 }' "$log" | sort -u)
  local name pat matched missing=0
  local -a pats
  IFS=: read -r -a pats <<<"$GPU_TEST_FILTER"
  for name in "${skipped[@]}"; do
    matched=0
    for pat in "${pats[@]}"; do
      # shellcheck disable=SC2053  # pat is a glob on purpose
      [[ "$name" == $pat ]] && matched=1 && break
    done
    if ((matched == 0)); then
      echo "gpu.sh: $name skips without a GPU but its name does not match '$GPU_TEST_FILTER'" >&2
      missing=$((missing + 1))
    fi
  done
  echo "gpu.sh check-names: ${#skipped[@]} tests skip for want of a GPU here; $missing outside the GPU filter"
  ((missing == 0))
}

# -----------------------------------------------------------------------------
case "${1:-}" in
  bundle) shift; cmd_bundle "$@" ;;
  check-names) shift; cmd_check_names "$@" ;;
  run) shift; cmd_run "$@" ;;
  -h | --help | help | "") usage ;;
  *) die "unknown command '$1' (bundle | check-names | run)" ;;
esac
