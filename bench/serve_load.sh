#!/usr/bin/env bash
# Throughput and latency of `modelcalc serve` under wrk (Debian's `wrk`), on
# loopback with kept-alive connections, and the machine's load around it
# (docs/performance.md, "Web server").
#
#   bench/serve_load.sh [BUILD_DIR] [SECONDS] [CONNECTIONS]
#       (defaults: build/release, 10, 32)
#
# Starts the server on a free port, runs wrk with 2 threads against
# /api/size?model=llama-3.1-8b&gpu=h100 (and, shorter, the page), prints
# requests/s and the latency percentiles, and stops the server (by its PID)
# with SIGINT. Sends traffic to 127.0.0.1 only; bounded by SECONDS.
set -euo pipefail
BUILD=${1:-build/release}
SECONDS_=${2:-10}
CONNS=${3:-32}
BIN=$BUILD/modelcalc
command -v wrk >/dev/null || { echo "wrk is not installed (apt-get install wrk)" >&2; exit 1; }
[[ -x $BIN ]] || { echo "no $BIN: build first (cmake --preset release && cmake --build --preset release)" >&2; exit 1; }

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
log=$(mktemp)
"$BIN" serve --port "$port" 2>"$log" &
server=$!
trap 'kill -INT $server 2>/dev/null; wait $server 2>/dev/null; rm -f "$log"' EXIT
for _ in $(seq 50); do grep -q "serving on" "$log" && break; sleep 0.1; done
grep -q "serving on" "$log" || { echo "the server did not start: $(cat "$log")" >&2; exit 1; }

url="http://127.0.0.1:$port/api/size?model=llama-3.1-8b&gpu=h100"
curl -sf "$url" >/dev/null || { echo "the API did not answer" >&2; exit 1; }

echo "machine: $(nproc) CPUs; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== /api/size?model=llama-3.1-8b&gpu=h100, wrk -t2 -c$CONNS -d${SECONDS_}s (keep-alive)"
cpu_before=$(awk '{print $14 + $15}' "/proc/$server/stat")
wrk -t2 -c"$CONNS" -d"${SECONDS_}s" --latency "$url" | grep -E "Requests/sec|Latency|50%|90%|99%|requests in|Non-2xx|Socket errors"
cpu_after=$(awk '{print $14 + $15}' "/proc/$server/stat")
ticks=$(getconf CLK_TCK)
awk -v a="$cpu_before" -v b="$cpu_after" -v t="$ticks" -v s="$SECONDS_" \
  'BEGIN { printf "server CPU: %.2f cores on average\n", (b - a) / t / s }'
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== / (the page), wrk -t2 -c$CONNS -d3s"
wrk -t2 -c"$CONNS" -d3s --latency "http://127.0.0.1:$port/" | grep -E "Requests/sec|99%|Non-2xx|Socket errors"
