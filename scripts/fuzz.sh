#!/usr/bin/env bash
# Fuzzes every libFuzzer target (src/*/*_fuzz.cc) for SECONDS each, one after
# another, niced, and prints each target's executions and findings.
#   scripts/fuzz.sh SECONDS [TARGET...]
#   RUNS=10000000 scripts/fuzz.sh 3600 quantity_fuzz   # stop each at RUNS executions (or SECONDS)
#   PRESET=fuzz-fast RUNS=10000000 scripts/fuzz.sh 3600  # a long campaign, UBSan only
# PRESET is the build that fuzzes: `fuzz` (default; clang, ASan + UBSan, every
# library instrumented for coverage) or `fuzz-fast` (UBSan only, about 5x the
# executions per second). The sanitize build CI tests has no coverage
# instrumentation (it only replays corpora), so it does not fuzz well. Each
# target's corpus is then replayed under ASan + UBSan by the sanitize build,
# the one CI runs ("replay" column).
# Seeds come from tests/fuzz/<target>/ (kept in the repo, replayed by ctest);
# inputs the fuzzer finds are kept in build/<preset>/corpus/ and crashes in
# build/<preset>/findings/<target>/. To keep a finding as a regression test,
# copy it into tests/fuzz/<target>/.
set -euo pipefail
cd "$(dirname "$0")/.."
secs="${1:?usage: scripts/fuzz.sh SECONDS [TARGET...]}"
shift
if [[ $# -gt 0 ]]; then
  targets=("$@")
else
  targets=()
  for f in src/*/*_fuzz.cc; do targets+=("$(basename "$f" .cc)"); done
fi
preset="${PRESET:-fuzz}"
build=build/$preset
[[ -f "$build/build.ninja" ]] || cmake --preset "$preset" >/dev/null
cmake --build "$build" --target "${targets[@]}" >/dev/null
replay=""
if [[ "$preset" != sanitize ]]; then
  replay=build/sanitize
  [[ -f "$replay/build.ninja" ]] || cmake --preset sanitize >/dev/null
  cmake --build "$replay" --target "${targets[@]}" >/dev/null
fi
printf '%-16s %14s %10s %8s %s\n' target executions exec/s findings "${replay:+replay (ASan)}"
status=0
for t in "${targets[@]}"; do
  corpus="$build/corpus/$t"
  findings="$build/findings/$t"
  mkdir -p "$corpus" "$findings"
  log="$build/fuzz-$t.log"
  # New inputs go to the first folder (build/), the repo's seeds are read only.
  nice -n 10 "$build/$t" "$corpus" "tests/fuzz/$t" -max_total_time="$secs" -print_final_stats=1 \
    -artifact_prefix="$findings/" -rss_limit_mb=2048 -timeout=10 ${RUNS:+-runs="$RUNS"} >"$log" 2>&1 || true
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  found=$(find "$findings" -type f | wc -l)
  [[ "$found" -gt 0 ]] && status=1
  verdict=""
  if [[ -n "$replay" ]]; then
    inputs=$(find "$corpus" -type f | wc -l)
    if nice -n 10 "$replay/$t" -runs=0 "$corpus" >"$build/replay-$t.log" 2>&1; then
      verdict="$inputs inputs clean"
    else
      verdict="FAILED (see $build/replay-$t.log)"
      status=1
    fi
  fi
  printf '%-16s %14s %10s %8s %s\n' "$t" "${execs:-?}" "${rate:-?}" "$found" "$verdict"
done
exit $status
