#!/usr/bin/env bash
# ci/new_method_check.sh: adding a method edits no shared file (suites/README.md).
#
# Copies this checkout's tracked and untracked-not-ignored files into a
# temporary git repository, adds the throw-away method in ci/new_method/
# (reference/zz_demo.*, suites/zz_demo/: a public Fn(Backend, ...), a claims
# file, a test and a one-line CMakeLists.txt, as the checklist says), then
# checks that
#   1. git sees only the method's own paths as changed;
#   2. CMake picks it up with no other edit: its test target exists, and the
#      `claimbench` link line carries its claims object;
#   3. its test builds and passes, CPU only (-DCB_CUDA=OFF; the build needs
#      only the libraries the method links, a few minutes on 2 cores).
# Exit status: 0 ok, 1 a check failed, 3 set-up error.
#   CB_JOBS=N   parallel build jobs (default: number of cores)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
jobs="${CB_JOBS:-$(nproc)}"
tmp="$(mktemp -d)"
trap '[ -n "${CB_KEEP_TMP:-}" ] || rm -rf "$tmp"' EXIT
fail() { echo "ci/new_method_check.sh: FAILED: $*" >&2; exit 1; }

cd "$here"
git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf - | tar -xf - -C "$tmp"
cd "$tmp"
git init -q && git add -A && git -c user.name=ci -c user.email=ci@localhost commit -qm base

cp -r ci/new_method/. .
changed="$(git status --porcelain --untracked-files=all | sed 's/^...//' | sort)"
expected="$(cd ci/new_method && find . -type f | sed 's#^\./##' | sort)"
echo "== the method's files:"
echo "$changed" | sed 's/^/   /'
[ "$changed" = "$expected" ] || fail "git sees other changes than the method's own files"
echo "$changed" | grep -qvE '^(suites/zz_demo/|reference/zz_demo\.)' &&
  fail "a path outside suites/zz_demo/ and reference/zz_demo.*"

bash ci/layering.sh . || fail "the method's includes break the layering"

echo "== configure (CB_CUDA=OFF) and build zz_demo_test"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCB_CUDA=OFF >build.log 2>&1 ||
  { cat build.log; fail "configure"; }
# (Captured first: grep -q would close the pipe early, and pipefail would
# report ninja's SIGPIPE as a failure.)
targets="$(ninja -C build -t targets all)"
grep -q '^zz_demo_test:' <<<"$targets" || fail "no zz_demo_test target"
link="$(ninja -C build -t commands claimbench | tail -n 1)"
grep -q 'cb_method_zz_demo\.dir/zz_demo_claims\.cpp\.o' <<<"$link" ||
  fail "the claimbench link line lacks the method's claims object"
cmake --build build -j "$jobs" --target zz_demo_test >>build.log 2>&1 ||
  { tail -40 build.log; fail "build"; }
build/suites/zz_demo/zz_demo_test --gtest_brief=1 || fail "zz_demo_test"
echo "ci/new_method_check.sh: ok: a new method touched only its own files"
