#!/usr/bin/env bash
# ci/layering.sh: checks that includes point one way only (ci/README.md).
#
#   harness < reference < generators < ledger < suites     (fixtures: tests only)
#
# A file may include its own layer and the layers below it. fixtures/ may be
# included only by tests (*_test.cpp, *_test.cu, *_test_util.h) and by
# fixtures/ itself, and fixtures/ may include anything. A suite may include
# its own folder and suites/lm/ (the transformer substrate), no other suite.
# Folders must not form an include cycle (reference/a -> reference/b ->
# reference/a), even inside one layer; a folder and its own subfolder
# (harness, harness/cuda) count as one, and tests are leaves.
#
#   ci/layering.sh [ROOT]      check the tree at ROOT (default: this checkout)
#   ci/layering.sh --self-test plant a back-include, a sideways include and a
#                              folder cycle in a copy of the tree and check
#                              that each is caught (run by ctest: layering.*)
# Exit status: 0 clean, 1 a violation (each printed as FILE:LINE: ...), 3 error.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"

check() {
  python3 - "$1" <<'EOF'
import os, re, sys
from collections import defaultdict

root = sys.argv[1]
order = ["harness", "reference", "generators", "ledger", "suites"]
layer = {name: i for i, name in enumerate(order)}
top_dirs = order + ["fixtures"]
include_re = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
source_re = re.compile(r'\.(h|hpp|cpp|cc|cu|cuh|in)$')
test_re = re.compile(r'(_test\.(cpp|cu)|_test_util\.h)$')

violations = []
edges = defaultdict(dict)  # folder -> {included folder: "file:line"}
for top in top_dirs:
    base = os.path.join(root, top)
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames.sort()
        for name in sorted(filenames):
            if not source_re.search(name):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root)
            parts = rel.split(os.sep)
            with open(path, encoding="utf-8", errors="replace") as f:
                lines = f.readlines()
            for number, line in enumerate(lines, 1):
                m = include_re.match(line)
                if not m:
                    continue
                inc = m.group(1)
                target = inc.split("/")
                if len(target) < 2 or target[0] not in top_dirs:
                    continue  # a system or generated header
                where = f"{rel}:{number}"
                src_top, dst_top = parts[0], target[0]
                if dst_top == "fixtures":
                    if src_top != "fixtures" and not test_re.search(name):
                        violations.append(f"{where}: includes \"{inc}\": fixtures/ is for tests only")
                elif src_top != "fixtures" and layer[dst_top] > layer[src_top]:
                    violations.append(
                        f"{where}: includes \"{inc}\": {src_top} may not include {dst_top} "
                        f"(order: {' < '.join(order)})")
                elif src_top == "suites" == dst_top and len(parts) > 2 and len(target) > 2:
                    if target[1] not in (parts[1], "lm"):
                        violations.append(
                            f"{where}: includes \"{inc}\": suite {parts[1]} may include only its "
                            f"own folder and suites/lm")
                # The folder graph, for cycles: tests and fixtures are leaves,
                # and a folder and its own subfolder (harness and harness/cuda)
                # are one unit.
                src_dir = os.path.dirname(rel)
                dst_dir = os.path.dirname(inc)
                if (src_top == "fixtures" or dst_top == "fixtures" or test_re.search(name)
                        or src_dir == dst_dir or os.path.dirname(src_dir) == dst_dir
                        or os.path.dirname(dst_dir) == src_dir):
                    continue
                edges[src_dir].setdefault(dst_dir, where)

# Folder cycles: strongly connected components of the folder graph (Tarjan).
index, low, on_stack, stack, sccs = {}, {}, set(), [], []
def strongconnect(v, counter=[0]):
    index[v] = low[v] = counter[0]
    counter[0] += 1
    stack.append(v)
    on_stack.add(v)
    for w in sorted(edges.get(v, {})):
        if w not in index:
            strongconnect(w)
            low[v] = min(low[v], low[w])
        elif w in on_stack:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop()
            on_stack.discard(w)
            comp.append(w)
            if w == v:
                break
        if len(comp) > 1:
            sccs.append(sorted(comp))
sys.setrecursionlimit(10000)
for v in sorted(set(edges) | {w for e in edges.values() for w in e}):
    if v not in index:
        strongconnect(v)
for comp in sccs:
    members = set(comp)
    links = [f"{a} -> {b} ({edges[a][b]})" for a in comp for b in sorted(edges.get(a, {})) if b in members]
    violations.append("folder cycle: " + "; ".join(links))

for v in violations:
    print(f"ci/layering.sh: {v}")
if violations:
    print(f"ci/layering.sh: {len(violations)} violation(s)")
    sys.exit(1)
print("ci/layering.sh: includes point one way (harness < reference < generators < ledger < suites)")
EOF
}

self_test() {
  local tmp status=0
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' RETURN
  for d in harness reference generators ledger suites fixtures; do
    cp -r "$here/$d" "$tmp/$d"
  done
  expect() {  # expect NAME STATUS PATTERN: the check exits STATUS and prints PATTERN
    local name="$1" want="$2" pattern="$3" out rc=0
    out="$(check "$tmp")" || rc=$?
    if [ "$rc" != "$want" ] || ! grep -qF -- "$pattern" <<<"$out"; then
      echo "self-test $name: FAILED (exit $rc, wanted $want and '$pattern'):"
      echo "$out"
      status=1
    else
      echo "self-test $name: ok"
    fi
  }
  expect clean 0 "includes point one way"

  cp "$tmp/harness/hash.h" "$tmp/hash.h.orig"
  printf '#include "ledger/ledger.h"\n' >>"$tmp/harness/hash.h"
  local line
  line="$(wc -l <"$tmp/harness/hash.h")"
  expect back-include 1 "harness/hash.h:$line: includes \"ledger/ledger.h\": harness may not include ledger"
  mv "$tmp/hash.h.orig" "$tmp/harness/hash.h"

  mkdir -p "$tmp/suites/zz_a"
  printf '#include "suites/radar/radar.h"\n' >"$tmp/suites/zz_a/zz_a.cpp"
  expect sideways 1 "suites/zz_a/zz_a.cpp:1: includes \"suites/radar/radar.h\": suite zz_a may include only"
  rm -r "$tmp/suites/zz_a"

  mkdir -p "$tmp/reference/zz_a" "$tmp/reference/zz_b"
  printf '#include "reference/zz_b/b.h"\n' >"$tmp/reference/zz_a/a.h"
  printf '#include "reference/zz_a/a.h"\n' >"$tmp/reference/zz_b/b.h"
  expect cycle 1 "folder cycle: reference/zz_a -> reference/zz_b (reference/zz_a/a.h:1)"
  rm -r "$tmp/reference/zz_a" "$tmp/reference/zz_b"

  printf '#include "fixtures/tolerance.h"\n' >"$tmp/generators/zz_gen.cpp"
  expect fixtures 1 "generators/zz_gen.cpp:1: includes \"fixtures/tolerance.h\": fixtures/ is for tests only"
  return $status
}

case "${1:-}" in
  --self-test) self_test ;;
  -h|--help) sed -n '2,17p' "$0" ;;
  "") check "$here" ;;
  *) [ -d "$1" ] || { echo "ci/layering.sh: $1: not a folder" >&2; exit 3; }; check "$1" ;;
esac
