#!/usr/bin/env python3
"""The web server under hostile load, measured on the machine it runs on (issue #32; docs/robustness.md).

    python3 bench/serve_robustness.py [BINARY]        (default: build/release/modelcalc)

Starts `BINARY serve` on a free loopback port for each part and reports:
  1. /api/size latency (p50, p99 of 200) with two heavy searches in flight (one running, one queued);
  2. from the heavy clients hanging up to the heavy lane serving again (the work stopped);
  3. from SIGTERM, with a search running, to the server's exit;
  4. a new client's wait (connect to answer, 30 probes) beside 1,000 idle and 200 slowloris connections;
  5. the server's resident memory with 150 clients that never read the largest answer it gives.
Only loopback traffic; every wait is bounded. A report, not a test: nothing here passes or fails.
"""
import os
import resource
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time

BIN = sys.argv[1] if len(sys.argv) > 1 else "build/release/modelcalc"
HEAVY = "/api/calibrate?fit=true"  # a minute's fit, stopped by the heavy lane's 60 s budget
QUICK_HEAVY = "/api/plan?model=llama-3.1-8b&isl=512&osl=128&qps=1&gpu=h100"
SIZE = "/api/size?model=llama-3.1-8b&gpu=h100"
BIG = "/api/sweep?model=llama-3.1-8b&gpu=h100&batch=1:3500&seq=1k:128k:x2"  # 28,000 rows, ~13 MB


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, *flags):
        self.port = free_port()
        self.proc = subprocess.Popen([BIN, "serve", "--port", str(self.port), *flags],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        deadline = time.time() + 10
        while time.time() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.05)
        raise SystemExit("the server did not start")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()

    def rss_mib(self):
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        return float("nan")


def request(port, path, timeout=120):
    """Connect, GET, read to the end: (seconds, status line)."""
    t0 = time.perf_counter()
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    return time.perf_counter() - t0, data.split(b"\r\n", 1)[0].decode(errors="replace")


def open_request(port, path, rcvbuf=None):
    s = socket.socket()
    if rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.settimeout(120)
    s.connect(("127.0.0.1", port))
    s.sendall(f"GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".encode())
    return s


def pct(values, p):
    v = sorted(values)
    return v[min(len(v) - 1, int(round(p / 100 * (len(v) - 1))))]


def ms(x):
    return f"{x * 1e3:.1f} ms"


def part_light_beside_heavy():
    srv = Server()
    try:
        print(f"   (a quick plan alone: {ms(request(srv.port, QUICK_HEAVY)[0])})")
        heavy = [open_request(srv.port, HEAVY) for _ in range(2)]
        time.sleep(0.5)  # the first is at work, the second queued
        times = [request(srv.port, SIZE)[0] for _ in range(200)]
        print(f"1. /api/size beside two heavy searches: p50 {ms(statistics.median(times))}, p99 {ms(pct(times, 99))}")
        t0 = time.perf_counter()
        for s in heavy:
            s.close()
        # The heavy lane serves again once the cancelled work returned.
        elapsed, status = request(srv.port, QUICK_HEAVY)
        print(f"2. hang-up of both heavy clients to the heavy lane answering again: {ms(time.perf_counter() - t0)} "
              f"(of which the quick plan itself {ms(elapsed)}; {status})")
    finally:
        srv.stop()


def part_sigterm():
    srv = Server()
    s = open_request(srv.port, HEAVY)
    time.sleep(0.5)
    t0 = time.perf_counter()
    srv.proc.send_signal(signal.SIGTERM)
    try:
        srv.proc.wait(30)
        print(f"3. SIGTERM with a search running to exit: {ms(time.perf_counter() - t0)} (status {srv.proc.returncode})")
    except subprocess.TimeoutExpired:
        print("3. SIGTERM with a search running: still running after 30 s")
        srv.stop()
    s.close()


def part_idle_and_slowloris():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 8192), hard))
    srv = Server()
    idle, slow = [], []
    stop = threading.Event()
    try:
        for _ in range(1000):
            idle.append(socket.create_connection(("127.0.0.1", srv.port), timeout=5))

        def slowloris():
            while not stop.is_set():
                for i, s in enumerate(slow):
                    try:
                        s.send(b"X")
                    except OSError:  # closed by the server: reopen, half a head again
                        try:
                            n = socket.create_connection(("127.0.0.1", srv.port), timeout=5)
                            n.send(b"GET / HTTP/1.1\r\nHost: localhost\r\nX-Slow: ")
                            slow[i] = n
                        except OSError:
                            pass
                stop.wait(0.5)

        for _ in range(200):
            s = socket.create_connection(("127.0.0.1", srv.port), timeout=5)
            s.send(b"GET / HTTP/1.1\r\nHost: localhost\r\nX-Slow: ")
            slow.append(s)
        t = threading.Thread(target=slowloris, daemon=True)
        t.start()
        time.sleep(2)  # every idle one older than the 1 s grace
        waits, statuses = [], set()
        for _ in range(30):
            w, st = request(srv.port, SIZE, timeout=30)
            waits.append(w)
            statuses.add(st)
        print(f"4. a new client beside 1,000 idle and 200 slowloris connections: p50 {ms(statistics.median(waits))}, "
              f"max {ms(max(waits))} ({', '.join(sorted(statuses))})")
    finally:
        stop.set()
        for s in idle + slow:
            s.close()
        srv.stop()


def part_non_readers():
    srv = Server()
    clients = []
    try:
        _, status = request(srv.port, BIG)
        for _ in range(150):
            clients.append(open_request(srv.port, BIG, rcvbuf=4096))
        time.sleep(5)
        print(f"5. RSS with 150 clients not reading the sweep ({status}): {srv.rss_mib():.0f} MiB")
    finally:
        for s in clients:
            s.close()
        srv.stop()


if __name__ == "__main__":
    if not os.access(BIN, os.X_OK):
        raise SystemExit(f"no {BIN}: build first (cmake --preset release && cmake --build --preset release)")
    print(f"machine: {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}; {BIN}")
    part_light_beside_heavy()
    part_sigterm()
    part_idle_and_slowloris()
    part_non_readers()
