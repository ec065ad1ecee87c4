#!/usr/bin/env bash
# ci/baseline.sh: the dogfood regression gate (issue 4).
#   ci/baseline.sh check     run the smoke profile into a fresh ledger and gate it
#                            against this CPU class's baseline (below) with ci/baselines/policy.json
#                            (deterministic rows and claim verdicts gated; speed rows
#                            reported). Exit status: the gate's (0 ok, 1 regression,
#                            2 only ambiguous, 3 error). Writes gate.md and gate.xml
#                            (JUnit) beside the ledger in build/release/ci-gate/.
#   ci/baseline.sh refresh   run the smoke profile and overwrite the baseline check reads
#                            with it. Do this on purpose (a suite landed, a claim's
#                            verdict changed for a reason you can name) and commit the
#                            new file with that reason in the message.
#   ci/baseline.sh refresh-cpu   the same into this CPU class's own baseline (below),
#                            creating it.
# The baseline is per CPU class: fp32 results (OpenBLAS kernels, which OpenBLAS
# picks at load by CPU; vector widths) differ in the last bits between classes
# and training amplifies that, so a deterministic row can only be gated against
# a run on the same class. The class is the CPU vendor and the OpenBLAS core
# (`claimbench list`); ci/baselines/smoke.<class>.jsonl is used when it exists,
# else another vendor's file of the same core, else ci/baselines/smoke.jsonl.
# CB_BASELINE=FILE overrides all three. OPENBLAS_CORETYPE=<core> selects the
# kernels (and so the class) for a refresh of another core's file here.
# Needs build/release/claimbench (ci/test.sh builds it).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=build/release/claimbench
work=build/release/ci-gate
policy=ci/baselines/policy.json

[ -x "$bin" ] || { echo "ci/baseline.sh: $bin not built (run ci/test.sh or cmake --build --preset release)" >&2; exit 3; }
vendor=$(awk -F': *' '/^vendor_id/ {print $2; exit}' /proc/cpuinfo)
# `list` is read whole before awk parses it: an awk that exits at its match
# would close the pipe early, `list` would die of SIGPIPE, and pipefail would
# end this script with status 141 (CI run of af222c1).
list_out=$("$bin" list 2>/dev/null)
blas_core=$(awk '/^blas$/ {getline; if (match($0, /core [A-Za-z0-9_]+/)) print substr($0, RSTART + 5, RLENGTH - 5); exit}' <<<"$list_out")
cpu_class="${vendor:-unknown}-${blas_core:-unknown}"
class_baseline="ci/baselines/smoke.${cpu_class}.jsonl"
# Another vendor's file of the same OpenBLAS core is the next best: the one
# check made found the vendor irrelevant bit for bit (an AMD EPYC forced to
# the SkylakeX kernels reproduced the Intel Xeon's file, ci/baselines/README.md),
# while the core moves ~640 rows.
same_core=(ci/baselines/smoke.*-"${blas_core:-unknown}".jsonl)
if [ -n "${CB_BASELINE:-}" ]; then
  baseline="$CB_BASELINE"
elif [ -f "$class_baseline" ]; then
  baseline="$class_baseline"
elif [ -f "${same_core[0]}" ]; then
  baseline="${same_core[0]}"
  echo "ci/baseline.sh: no file for $cpu_class; using the same OpenBLAS core's $baseline"
else
  baseline=ci/baselines/smoke.jsonl
fi
echo "ci/baseline.sh: CPU class $cpu_class, baseline $baseline"

rm -rf "$work"
mkdir -p "$work"
"$bin" run --profile smoke --backend cpu --ledger "$work/claimbench.db" >"$work/run.log" 2>&1 || {
  cat "$work/run.log" >&2
  echo "ci/baseline.sh: the smoke run failed" >&2
  exit 3
}

case "${1:-check}" in
  check)
    set +e
    # --cross-platform: the baseline was recorded on another machine; output
    # hashes are then compared by value within the policy's tolerance.
    "$bin" gate --ledger "$work/claimbench.db" --baseline "$baseline" --policy "$policy" \
      --cross-platform --junit "$work/gate.xml" --format md >"$work/gate.md"
    status=$?
    set -e
    "$bin" gate --ledger "$work/claimbench.db" --baseline "$baseline" --policy "$policy" \
      --cross-platform --no-store || true
    echo "ci/baseline.sh: gate exit $status (report: $work/gate.md, JUnit: $work/gate.xml)"
    exit $status
    ;;
  refresh | refresh-cpu)
    [ "$1" = refresh-cpu ] && baseline="$class_baseline"
    "$bin" ledger export --ledger "$work/claimbench.db" --out "$baseline"
    echo "ci/baseline.sh: wrote $baseline; review 'git diff --stat $baseline' and commit it with the reason"
    ;;
  *)
    echo "usage: ci/baseline.sh check|refresh|refresh-cpu" >&2
    exit 3
    ;;
esac
