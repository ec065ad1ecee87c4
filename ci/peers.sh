#!/usr/bin/env bash
# ci/peers.sh: our CPU kernels and their PyTorch/numpy peers (../shared/peers/),
# measured in one run on this machine, and the ratio of each pair at equal
# threads (ci/peers_compare.py).
#
#   ci/peers.sh [--quick] OUT_DIR
#
# Writes OUT_DIR/peers.db (a ledger of our benchmarks, ceilings included),
# OUT_DIR/peers.jsonl (the peers' lines, torch at 1 thread and at all cores),
# OUT_DIR/peers.md (the table, also printed). Needs a built release tree and
# Debian's python3-torch and python3-numpy (not installed by ci/deps.sh: CI
# does not run this; it is a measurement, not a test).
#   CB_PEERS_DIR  the peer scripts (default ../shared/peers beside the checkout)
#   PYTHON        an interpreter with torch and numpy (default /usr/bin/python3,
#                 not a pyenv shim)
set -euo pipefail
cd "$(dirname "$0")/.."
quick=()
if [ "${1:-}" = "--quick" ]; then quick=(--quick); shift; fi
out="${1:?usage: ci/peers.sh [--quick] OUT_DIR}"
peers="${CB_PEERS_DIR:-../shared/peers}"
py="${PYTHON:-/usr/bin/python3}"
bin=build/release/claimbench
[ -x "$bin" ] || { echo "ci/peers.sh: $bin is missing; build the release preset first" >&2; exit 2; }
[ -f "$peers/run_all.sh" ] || { echo "ci/peers.sh: no peer scripts in $peers (set CB_PEERS_DIR)" >&2; exit 2; }
"$py" -c 'import torch, numpy' 2>/dev/null ||
  { echo "ci/peers.sh: '$py' cannot import torch and numpy (apt-get install python3-torch python3-numpy)" >&2; exit 2; }
mkdir -p "$out"
[ ! -e "$out/peers.db" ] || { echo "ci/peers.sh: $out/peers.db exists; give an empty folder" >&2; exit 2; }

# Ours: the benchmarks that have a peer (ci/peers_compare.py's pairs), each in
# its peer's environment: the torch peers run in the environment as it is,
# numpy with OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset for its command
# alone (../shared/peers/README.md), and so does our DOCS, which calls the
# same OpenBLAS: one run for each.
numpy_env=(env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE)
"$bin" bench --ledger "$out/peers.db" --repetitions 5 \
  --filter '^(radar/cpu/dense/|mia/score_cpu_f32(_all_cores)?/.*vocab:131072|pf/cpu/sample_(pf|softmax)/.*vocab:131072|coat/dre_quant_dequant_cpu/)'
"${numpy_env[@]}" "$bin" bench --ledger "$out/peers.db" --repetitions 5 --filter '^docs/cpu/.*n:(1024|2048|4096)/'

# Theirs, right after, torch at one thread and at all cores.
cores=$(nproc)
: > "$out/peers.jsonl"
for threads in 1 "$cores"; do
  for script in minkpp_torch.py pf_sampling_torch.py decode_attention_torch.py fp8_quant_torch.py; do
    echo "== $script --threads $threads" >&2
    "$py" "$peers/$script" "${quick[@]}" --threads "$threads" >> "$out/peers.jsonl"
  done
done
echo "== docs_numpy.py (OpenBLAS's own thread count)" >&2
"${numpy_env[@]}" "$py" "$peers/docs_numpy.py" "${quick[@]}" >> "$out/peers.jsonl"

"$bin" ledger export --ledger "$out/peers.db" --out "$out/ours.jsonl"
"$py" ci/peers_compare.py "$out/ours.jsonl" "$out/peers.jsonl" | tee "$out/peers.md"
