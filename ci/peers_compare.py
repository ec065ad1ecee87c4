#!/usr/bin/env python3
"""ci/peers_compare.py: ratios of our CPU kernels to their PyTorch/numpy peers.

  python3 ci/peers_compare.py OURS.jsonl PEERS.jsonl

OURS.jsonl: `claimbench ledger export` of the run ci/peers.sh made; PEERS.jsonl:
the peers' lines (../shared/peers/README.md). Prints a Markdown table, one row
per pair measured at equal threads: each side's rate in one unit of work (input
fp32 bytes per second, or GEMM flops per second for DOCS), ours from the median
wall time of its benchmark, theirs from its median, and ours / theirs.

Sizes differ a little where the peers chose other shapes (V = 128000 against
our 131072, batch 32 against 64): the rate per byte or flop is what is compared,
and both sizes are printed. Pairs with no partner at the same thread count are
listed under the table, so nothing is dropped silently.
"""
import json
import re
import sys

# (our benchmark name prefix, peer workload, our axis -> peer param pairs that
# must agree, unit, how many units one peer call processes)
PAIRS = [
    ("radar/cpu/dense/", "decode_attention_dense", {"tokens": "t"}, "GB/s",
     lambda p: 2 * p["H"] * p["t"] * p["d"] * 4, lambda p: p["H"] == 1),
    ("mia/score_cpu_f32", "minkpp_run_py", {}, "GB/s",
     lambda p: p["T"] * p["V"] * 4, lambda p: True),
    ("pf/cpu/sample_pf/", "pf_expnoise", {}, "GB/s",
     lambda p: p["B"] * p["V"] * 4, lambda p: True),
    ("pf/cpu/sample_softmax/", "softmax_multinomial", {}, "GB/s",
     lambda p: p["B"] * p["V"] * 4, lambda p: True),
    ("coat/dre_quant_dequant_cpu/", "dre_quant_dequant", {"elements": "N"}, "GB/s",
     lambda p: p["N"] * 4, lambda p: True),
    ("docs/cpu/", "docs_total", {"n": "n"}, "GFLOP/s",
     lambda p: 2.0 * p["m"] * p["n"] * p["n"], lambda p: True),
]


def ours(path):
    """{benchmark name: {"params", "rate" (bytes or flops per second)}} over the export's
    runs (ci/peers.sh makes two that share no benchmark)."""
    runs = [json.loads(line) for line in open(path) if line.strip()]
    if not runs:
        sys.exit(f"peers_compare: {path} holds no run")
    rows = {}
    for r in (row for run in runs for row in run["results"]):
        params = json.loads(r["params_json"])
        name = params.get("benchmark", "")
        if r["metric"] in ("bytes_per_second", "flops"):
            rows.setdefault(name, {})["rate"] = r["value"]
        rows.setdefault(name, {})["params"] = params
    return rows


def peer_threads(line):
    p = line["params"]
    if "threads" in p:
        return int(p["threads"])
    m = re.search(r"(\d+) threads", str(p.get("blas", "")))  # numpy: OpenBLAS's count
    return int(m.group(1)) if m else None


def main(argv):
    if len(argv) != 3:
        sys.exit("usage: peers_compare.py OURS.jsonl PEERS.jsonl")
    mine = ours(argv[1])
    theirs = [json.loads(line) for line in open(argv[2]) if line.strip().startswith("{")]
    table, unmatched = [], []
    for prefix, workload, axes, unit, units_of, wanted in PAIRS:
        scale = 1e-9
        for name, row in sorted(mine.items()):
            if not name.startswith(prefix) or "rate" not in row:
                continue
            p = row["params"]
            threads = int(p.get("threads", 0)) or None
            cands = [l for l in theirs
                     if l["workload"] == workload and l.get("median_s") and wanted(l["params"])
                     and peer_threads(l) == threads
                     and all(int(p[a]) == int(l["params"][b]) for a, b in axes.items() if a in p)]
            if "batch" in p:  # one row against one, a batch against the peer's batch
                cands = [l for l in cands if (l["params"]["B"] == 1) == (int(p["batch"]) == 1)]
            if not cands:
                unmatched.append(f"{name}: no {workload} at {threads} threads")
                continue
            for l in cands:
                peer_rate = units_of(l["params"]) / l["median_s"]
                mine_rate = row["rate"]
                size = {k: v for k, v in l["params"].items() if k in ("B", "V", "T", "t", "H", "N", "n")}
                table.append((name, threads, f"{l['peer']}/{workload} {size}", unit,
                              mine_rate * scale, peer_rate * scale, mine_rate / peer_rate))
    print("| ours | threads | peer (size) | unit | ours | peer | ours / peer |")
    print("|---|---|---|---|---|---|---|")
    for name, threads, peer, unit, a, b, ratio in table:
        print(f"| {name} | {threads} | {peer} | {unit} | {a:.3g} | {b:.3g} | {ratio:.2f}x |")
    if unmatched:
        print("\nNo peer at the same thread count:")
        for u in unmatched:
            print(f"- {u}")


if __name__ == "__main__":
    main(sys.argv)
