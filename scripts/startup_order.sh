#!/bin/sh
# Regenerates cmake/startup_order.txt, the link order of the modelcalc
# executable (docs/performance.md): the functions (mangled names) a cold `size`
# report runs, as callgrind lists them, so lld places them together and a cold
# start faults in fewer pages of code. A stale list is harmless (lld skips
# names it does not find; the layout is only less compact): rerun this after
# large changes to the start-up path.
#   scripts/startup_order.sh [BUILD_DIR]   (default build/release; needs valgrind)
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$here/build/release}/modelcalc
out=$here/cmake/startup_order.txt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
i=0
for flags in "" "--explain" "--json"; do
  i=$((i + 1))
  # shellcheck disable=SC2086
  valgrind --tool=callgrind --demangle=no --callgrind-out-file="$tmp/cg.$i" \
    "$bin" size --model llama-3.1-8b --gpu h100 $flags > /dev/null 2> "$tmp/log.$i"
done
cat "$tmp"/cg.1 "$tmp"/cg.2 "$tmp"/cg.3 | grep -oE '^c?fn=\([0-9]+\) [^ ]+' | sed -E 's/^c?fn=\([0-9]+\) //' |
  grep -v '^0x' | awk '!seen[$0]++' > "$out"
echo "$(wc -l < "$out") functions -> $out"
