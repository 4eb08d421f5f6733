#!/usr/bin/env bash
# Fuzzes every libFuzzer target (src/*/*_fuzz.cc) for SECONDS each, one after
# another, niced, and prints each target's executions and findings.
#   scripts/fuzz.sh SECONDS [TARGET...]
# Seeds come from tests/fuzz/<target>/ (kept in the repo, replayed by ctest in
# the sanitize preset); inputs the fuzzer finds are kept in build/fuzz/corpus/
# and crashes in build/fuzz/findings/<target>/. To keep a finding as a
# regression test, copy it into tests/fuzz/<target>/.
set -euo pipefail
cd "$(dirname "$0")/.."
secs="${1:?usage: scripts/fuzz.sh SECONDS [TARGET...]}"
shift
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz >/dev/null
if [[ $# -gt 0 ]]; then
  targets=("$@")
else
  targets=()
  for f in src/*/*_fuzz.cc; do targets+=("$(basename "$f" .cc)"); done
fi
printf '%-18s %14s %10s %s\n' target executions exec/s findings
status=0
for t in "${targets[@]}"; do
  corpus="build/fuzz/corpus/$t"
  findings="build/fuzz/findings/$t"
  mkdir -p "$corpus" "$findings"
  log="build/fuzz/$t.log"
  # New inputs go to the first folder (build/), the repo's seeds are read only.
  nice -n 10 "build/fuzz/$t" "$corpus" "tests/fuzz/$t" -max_total_time="$secs" -print_final_stats=1 \
    -artifact_prefix="$findings/" -rss_limit_mb=2048 -timeout=10 >"$log" 2>&1 || true
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  found=$(find "$findings" -type f | wc -l)
  [[ "$found" -gt 0 ]] && status=1
  printf '%-18s %14s %10s %s\n' "$t" "${execs:-?}" "${rate:-?}" "$found"
done
exit $status
