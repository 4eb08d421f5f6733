#!/usr/bin/env bash
# The same grid through the library, the CLI and (where installed) a Python
# peer, with ratios from one run. Short by design (the machine may be shared).
#
#   bench/side_by_side.sh [BUILD_DIR]      (default: build/release)
#
# Grid: llama-3.1-8b and mixtral-8x7b-v0.1 on h100 and mi300x, seq 1k..128k
# (x2), batch 1..4096 = 131,072 rows. Library = BM_SideBySideLibrary
# (bench/stream_bench.cc: evaluation only); CLI = `modelcalc sweep` writing
# CSV and JSONL to a file (process start-up, parsing, evaluation, formatting,
# writing). Python peer: llm-analysis (pip install llm-analysis), one
# evaluation per row, timed on a 1,000-row slice (llm-analysis was not
# installed where this script was written: that branch is untested).
set -euo pipefail
BUILD=${1:-build/release}
BIN=$BUILD/modelcalc
BENCH=$BUILD/modelcalc_bench
GRID=(--model llama-3.1-8b,mixtral-8x7b-v0.1 --gpu h100,mi300x --seq 1k:128k:x2 --batch 1:4096)
ROWS=131072
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

now() { date +%s.%N; }
rate() { awk -v n="$1" -v s="$2" 'BEGIN { printf "%.3g", n / s }'; }

# items_per_second from Google Benchmark's JSON, read without python3.
lib_rate=$("$BENCH" --benchmark_filter='BM_SideBySideLibrary' --benchmark_min_time=0.3 \
             --benchmark_format=json 2>/dev/null |
           awk -F': ' '/"items_per_second"/ { gsub(/[ ,]/, "", $2); print $2; exit }')
[[ -n $lib_rate ]] || { echo "$BENCH gave no items_per_second for BM_SideBySideLibrary" >&2; exit 1; }

declare -A cli_rate
for fmt in csv jsonl; do
  best=1e9
  for _ in 1 2 3; do
    t0=$(now); "$BIN" sweep "${GRID[@]}" --format "$fmt" > "$TMP/out.$fmt"; t1=$(now)
    best=$(awk -v a="$best" -v b="$(awk -v x="$t0" -v y="$t1" 'BEGIN{print y-x}')" 'BEGIN{print (b<a)?b:a}')
  done
  lines=$(wc -l < "$TMP/out.$fmt")
  [[ $fmt == csv ]] && lines=$((lines - 1))
  [[ $lines == "$ROWS" ]] || { echo "expected $ROWS rows, got $lines" >&2; exit 1; }
  cli_rate[$fmt]=$(rate "$ROWS" "$best")
done

# The Python peer: skipped when python3 or llm-analysis is missing, and when
# the snippet below fails (its API calls were never run against an installed
# llm-analysis), so the library and CLI figures always print.
py_rate=""
py_note="not installed (pip install llm-analysis), skipped"
if command -v python3 >/dev/null && python3 -c 'import llm_analysis' 2>/dev/null; then
  py_note="installed, but the untested snippet failed, skipped"
  py_rate=$(python3 - 2>/dev/null <<'PY'
import time
from llm_analysis.analysis import LLMAnalysis
from llm_analysis.config import get_model_config_by_name, get_gpu_config_by_name, DtypeConfig
m = get_model_config_by_name("meta-llama/Llama-2-7b-hf")
g = get_gpu_config_by_name("a100-sxm-80gb")
a = LLMAnalysis(m, g, DtypeConfig())
n = 0
t0 = time.perf_counter()
for seq in (1000, 2000, 4000, 8000):
    for b in range(1, 251):
        a.inference(batch_size_per_gpu=b, seq_len=seq, num_tokens_to_generate=1)
        n += 1
print(n / (time.perf_counter() - t0))
PY
) || py_rate=""
fi

printf '%-34s %14s %10s\n' "path (same $ROWS-row grid)" "rows/s" "vs library"
printf '%-34s %14s %10s\n' "library sweep()" "$(rate "$lib_rate" 1)" "1"
for fmt in csv jsonl; do
  printf '%-34s %14s %10s\n' "CLI sweep --format $fmt > file" "${cli_rate[$fmt]}" \
    "$(awk -v a="$lib_rate" -v b="${cli_rate[$fmt]}" 'BEGIN { printf "%.1fx slower", a / b }')"
done
if [[ -n $py_rate ]]; then
  printf '%-34s %14s %10s\n' "llm-analysis (Python)" "$(rate "$py_rate" 1)" \
    "$(awk -v a="$lib_rate" -v b="$py_rate" 'BEGIN { printf "%.0fx slower", a / b }')"
else
  echo "llm-analysis (Python): $py_note"
fi
