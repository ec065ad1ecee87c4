#!/usr/bin/env bash
# ci/baseline.sh: the dogfood regression gate (issue 4).
#   ci/baseline.sh check     run the smoke profile into a fresh ledger and gate it
#                            against ci/baselines/smoke.jsonl with ci/baselines/policy.json
#                            (deterministic rows and claim verdicts gated; speed rows
#                            reported). Exit status: the gate's (0 ok, 1 regression,
#                            2 only ambiguous, 3 error). Writes gate.md and gate.xml
#                            (JUnit) beside the ledger in build/release/ci-gate/.
#   ci/baseline.sh refresh   run the smoke profile and overwrite ci/baselines/smoke.jsonl
#                            with it. Do this on purpose (a suite landed, a claim's
#                            verdict changed for a reason you can name) and commit the
#                            new file with that reason in the message.
# Needs build/release/claimbench (ci/test.sh builds it).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=build/release/claimbench
work=build/release/ci-gate
baseline=ci/baselines/smoke.jsonl
policy=ci/baselines/policy.json

[ -x "$bin" ] || { echo "ci/baseline.sh: $bin not built (run ci/test.sh or cmake --build --preset release)" >&2; exit 3; }
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
  refresh)
    "$bin" ledger export --ledger "$work/claimbench.db" --out "$baseline"
    echo "ci/baseline.sh: wrote $baseline; review 'git diff --stat $baseline' and commit it with the reason"
    ;;
  *)
    echo "usage: ci/baseline.sh check|refresh" >&2
    exit 3
    ;;
esac
