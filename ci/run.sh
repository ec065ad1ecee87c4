#!/usr/bin/env bash
# ci/run.sh: the main job. Installs what is missing, builds `release`, runs
# every claim at profile `quick` (override: CB_PROFILE=smoke|quick|full),
# prints the claims table and leaves the ledger in ./claimbench.db, relative to
# where it is started (override: CLAIMBENCH_LEDGER). Extra arguments go to `claimbench run`.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
jobs="${CB_JOBS:-$(nproc)}"

ledger="$(realpath -m "${CLAIMBENCH_LEDGER:-claimbench.db}")"
cd "$root"
ci/deps.sh
. ci/ccache.sh
cmake --preset release >/dev/null
cmake --build --preset release -j "$jobs"

status=0
build/release/claimbench run --profile "${CB_PROFILE:-quick}" --ledger "$ledger" "$@" || status=$?
build/release/claimbench ledger verify --ledger "$ledger"
exit "$status"
