#!/usr/bin/env bash
# ledger/analysis/report_browser_test.sh CLAIMBENCH: the HTML report in a real
# browser (ctest label "browser"). Three smoke runs of the harness suite (its
# 10 timed rows give the history charts; the third run adds docs.D4-lm-q for
# heatmap tables) into a fresh ledger, `claimbench report --html`, then
# Debian's chromium headless loads the page
# (fresh --user-data-dir, no network features) and dumps the DOM after its
# scripts ran. Passes when the page's own status element says every chart it
# declared was rendered and no script error was seen, the number of <canvas>
# elements agrees, and chromium logged no console message at all (the page
# logs none), and the claim forest plot (inline SVG, issue 29) is in the
# rendered DOM with one bar per claim the page counted as measured (at least
# the harness suite's measured claims) and every SVG parsed as SVG (chromium
# drops nothing), and so are the complexity figures (the harness suite's 4
# size series, each with its slope-CI band) and the platform speedup bars:
# the two CI baselines (ci/baselines/*.jsonl, an AMD EPYC and an Intel
# Xeon run, so at least two platforms whatever machine this is) are
# imported, and the page compares this machine's newest run with another
# platform's, one bar per shared timed case. A screenshot of the harness paper's page alone (`report
# --paper harness`) is read back pixel by pixel (report_screenshot_bars.py)
# and must show one coloured bar per measured claim the page declared. Exit 77 (ctest SKIP) when chromium is not installed.
set -euo pipefail
claimbench="$1"
browser="$(command -v chromium || command -v chromium-browser || true)"
if [ -z "$browser" ]; then
  echo "SKIP: chromium is not installed (ci/deps.sh installs Debian's chromium)"
  exit 77
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# Not the whole smoke profile three times: that outgrew the test's 180 s on
# 2 busy cores, and the page's scripts only need timed rows in >= 2 runs.
for claims in 'harness\..*' 'harness\..*' 'harness\..*|docs\.D4-lm-q'; do
  "$claimbench" run --profile smoke --backend cpu --claim "$claims" --ledger "$work/l.db" >/dev/null 2>&1
done
baselines="$(dirname "$0")/../../ci/baselines"
for f in "$baselines/smoke.jsonl" "$baselines/smoke.GenuineIntel-SkylakeX.jsonl"; do
  "$claimbench" ledger import --ledger "$work/l.db" "$f" >/dev/null
done
"$claimbench" report --ledger "$work/l.db" --html "$work/report.html"
timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-background-networking \
  --disable-component-update --no-first-run --user-data-dir="$work/profile" \
  --enable-logging=stderr --v=0 --virtual-time-budget=5000 --dump-dom "file://$work/report.html" \
  >"$work/dom.html" 2>"$work/chromium.log"
status="$(grep -o '<div id="cb-status"[^>]*>' "$work/dom.html" || true)"
echo "status element: $status"
expected="$(sed -n 's/.*data-expected-charts="\([0-9]*\)".*/\1/p' <<<"$status")"
rendered="$(sed -n 's/.*data-charts="\([0-9]*\)".*/\1/p' <<<"$status")"
errors="$(sed -n 's/.*data-errors="\([-0-9]*\)".*/\1/p' <<<"$status")"
canvases="$(grep -o '<canvas' "$work/report.html" | wc -l)"
heatmaps="$(grep -o 'class="heatmap"' "$work/dom.html" | wc -l)"
console="$(grep -c 'CONSOLE' "$work/chromium.log" || true)"
forest="$(sed -n 's/.*data-forest-bars="\([0-9]*\)".*/\1/p' <<<"$status")"
forest_dom="$(grep -o 'class="cb-bar"' "$work/dom.html" | wc -l)"
svgs_page="$(grep -o '<svg class="forest"' "$work/report.html" | wc -l)"
svgs_dom="$(grep -o '<svg class="forest"' "$work/dom.html" | wc -l)"
fits_page="$(grep -o '<svg class="cb-fit"' "$work/report.html" | wc -l)"
fits_dom="$(grep -o '<svg class="cb-fit"' "$work/dom.html" | wc -l)"
bands_dom="$(grep -o 'class="cb-fit-band"' "$work/dom.html" | wc -l)"
speedup="$(sed -n 's/.*data-speedup-bars="\([0-9]*\)".*/\1/p' <<<"$status")"
speedup_dom="$(grep -o 'class="cb-speedup-bar"' "$work/dom.html" | wc -l)"
speedup_svgs="$(grep -o '<svg class="cb-speedup"' "$work/dom.html" | wc -l)"
echo "speedup bars: $speedup_dom in the DOM in $speedup_svgs figures, $speedup declared; complexity bands: $bands_dom"
echo "complexity figures: $fits_dom in the DOM ($fits_page written)"
echo "forest plots: $svgs_dom in the DOM ($svgs_page written), bars: $forest_dom in the DOM, $forest declared"
echo "charts: expected $expected, rendered $rendered, <canvas> $canvases; heatmaps $heatmaps; script errors $errors; console lines $console"
"$claimbench" report --ledger "$work/l.db" --paper harness --html "$work/paper.html" 2>/dev/null
timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-background-networking \
  --disable-component-update --no-first-run --user-data-dir="$work/profile" --force-device-scale-factor=1 \
  --hide-scrollbars --window-size=1100,900 --screenshot="$work/paper.png" "file://$work/paper.html" \
  >/dev/null 2>&1 || true
paper_declared="$(sed -n 's/.*data-forest-bars="\([0-9]*\)".*/\1/p' "$work/paper.html")"
paper_seen="$(python3 "$(dirname "$0")/report_screenshot_bars.py" "$work/paper.png" || echo none)"
echo "screenshot of the harness page: $paper_seen bars seen, $paper_declared declared"
fail=0
[ -n "$paper_declared" ] && [ "$paper_seen" = "$paper_declared" ] || { echo "FAIL: the screenshot shows $paper_seen forest bars, the page declared $paper_declared"; fail=1; }
[ -n "$expected" ] && [ "$expected" -ge 10 ] || { echo "FAIL: expected the 10 history charts of the harness suite"; fail=1; }
[ "$rendered" = "$expected" ] || { echo "FAIL: rendered $rendered of $expected charts"; fail=1; }
[ "$canvases" = "$expected" ] || { echo "FAIL: $canvases <canvas> elements, $expected declared"; fail=1; }
[ "$heatmaps" -ge 3 ] || { echo "FAIL: $heatmaps heatmap tables in the DOM, docs.D4-lm-q records 3"; fail=1; }
[ -n "$forest" ] && [ "$forest" -ge 4 ] || { echo "FAIL: expected >= 4 forest bars (the harness suite's measured claims)"; fail=1; }
[ "$forest_dom" = "$forest" ] || { echo "FAIL: $forest_dom forest bars in the DOM, $forest declared"; fail=1; }
[ "$svgs_page" -ge 1 ] && [ "$svgs_dom" = "$svgs_page" ] || { echo "FAIL: $svgs_dom forest SVGs in the DOM of $svgs_page"; fail=1; }
[ "$fits_page" -ge 4 ] && [ "$fits_dom" = "$fits_page" ] || { echo "FAIL: $fits_dom complexity figures in the DOM of $fits_page (the harness suite's 4 series)"; fail=1; }
[ "$bands_dom" = "$fits_page" ] || { echo "FAIL: $bands_dom slope-CI bands in the DOM for $fits_page complexity figures"; fail=1; }
[ -n "$speedup" ] && [ "$speedup" -ge 1 ] && [ "$speedup_dom" = "$speedup" ] && [ "$speedup_svgs" = 1 ] || {
  echo "FAIL: platform speedup bars: $speedup_dom in the DOM in $speedup_svgs figures, $speedup declared (want >= 1 in 1 figure)"; fail=1; }
[ "$errors" = "0" ] || { echo "FAIL: $errors script errors"; grep -o 'data-errors[^<]*<' "$work/dom.html"; fail=1; }
[ "$console" = "0" ] || { echo "FAIL: console messages:"; grep CONSOLE "$work/chromium.log"; fail=1; }
exit $fail
