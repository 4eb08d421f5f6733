#!/usr/bin/env bash
# Browser test of `modelcalc size --report`: headless Chromium renders the HTML
# page to a PNG; the page must log no console messages (errors, failed loads,
# uncaught exceptions), its DOM must hold the roofline SVG, and the screenshot
# must not be blank.
#   tests/browser_test.sh path/to/modelcalc
# Exit 0 pass, 1 fail, 77 skip (only when chromium is not installed: run
# scripts/setup.sh --test to install it).
set -uo pipefail

modelcalc=${1:?usage: browser_test.sh path/to/modelcalc}
here=$(cd "${0%/*}" && pwd)
chrome=$(command -v chromium || command -v chromium-browser || true)
if [[ -z "$chrome" ]]; then
  echo "SKIP: chromium is not installed (scripts/setup.sh --test installs it); the browser test did not run"
  exit 77
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# Runs headless Chromium on a file; stdout/stderr to $work/$2.{out,err}; extra flags after.
browse() {
  local page=$1 name=$2
  shift 2
  timeout 120 "$chrome" --headless --no-sandbox --disable-gpu --disable-background-networking \
    --disable-component-update --disable-sync --no-first-run --hide-scrollbars \
    --user-data-dir="$work/profile-$name" --enable-logging=stderr --v=0 "$@" "file://$page" \
    >"$work/$name.out" 2>"$work/$name.err"
}

console_lines() { grep -E ':CONSOLE[:(]' "$work/$1.err" || true; }

# 1. The detector itself: a page with a console error and an uncaught exception must be caught.
cat >"$work/bad.html" <<'HTML'
<!DOCTYPE html><html><body><p>bad</p><script>console.error("planted-console-error"); throw new Error("planted-uncaught");</script></body></html>
HTML
browse "$work/bad.html" bad --screenshot="$work/bad.png" --window-size=400,300 || fail "chromium did not run on a test page: $(tail -3 "$work/bad.err")"
console_lines bad | grep -q planted-console-error ||
  fail "this chromium does not log console messages to stderr; the check would be blind"

# 2. The report: a Llama-3-8B-like shape on an H100.
"$modelcalc" size -L 32 -d 4096 --heads 32 --kv-heads 8 --ffn 14336 --glu --vocab 128256 --seq 8192 \
  --gpu h100 --batch 16 --report "$work/report.html" >/dev/null || fail "modelcalc size --report failed"
[[ -s "$work/report.html" ]] || fail "no report written"

browse "$work/report.html" report --screenshot="$work/report.png" --window-size=1200,2400 ||
  fail "chromium failed on the report: $(tail -3 "$work/report.err")"
msgs=$(console_lines report)
[[ -z "$msgs" ]] || fail "console messages on the report page:"$'\n'"$msgs"
[[ -s "$work/report.png" ]] || fail "no screenshot written"
python3 "$here/png_check.py" "$work/report.png" --min-colors 32 --min-ink 0.02 || fail "the screenshot looks blank"

browse "$work/report.html" dom --dump-dom || fail "chromium --dump-dom failed"
grep -q '<svg' "$work/dom.out" || fail "the rendered DOM has no <svg>"
grep -q 'id="pt-h100-sxm-decode_b1"' "$work/dom.out" || fail "the rendered DOM lacks the decode B=1 point"
grep -q '<h2>1. Parameters</h2>' "$work/dom.out" || fail "the rendered DOM lacks the Parameters section"
msgs=$(console_lines dom)
[[ -z "$msgs" ]] || fail "console messages while dumping the DOM:"$'\n'"$msgs"

echo "PASS: the report renders in $("$chrome" --version 2>/dev/null | head -1) with no console messages; screenshot not blank"
