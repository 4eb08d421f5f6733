"""The Python package's speed goals (issue #25), with the pure-Python peers beside it where they are installed.

    PYTHONPATH=build/release/python python3 python/bench/bench_python.py [--quick]

Goals: >= 1e6 calls/s of lab.kv_cache_bytes; >= 1e5 modelcalc.size(...) results/s; a sweep into NumPy columns
>= 1e7 rows/s with <= 200 B a row. Each figure is the median of REPEATS runs of CPU time (time.process_time:
on a shared machine the wall clock also counts the other processes), the best run in brackets; the wall-clock
median is printed beside it. Benchmarks only: no test asserts any of these.

Peers (one evaluation of one model on one GPU, the closest call each has): LLM-Viewer
(github.com/hahnyuan/LLM-Viewer, `ModelAnalyzer.analyze`) and llm-analysis (pip install llm-analysis,
`LLMAnalysis.inference`). They are timed only where importable; where this was written neither is installed
(pip cannot download), and the script says so.
"""
import statistics
import sys
import time

import modelcalc
from modelcalc import lab

QUICK = "--quick" in sys.argv
REPEATS = 3 if QUICK else 7


def measure(label, fn, items, goal=None, unit="calls/s"):
    """Runs fn() REPEATS times; fn does `items` units of work. Prints the CPU-time rate."""
    cpu, wall = [], []
    fn()  # warm up: caches, page faults
    for _ in range(REPEATS):
        c0, w0 = time.process_time(), time.perf_counter()
        fn()
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
    rate = items / statistics.median(cpu)
    best = items / min(cpu)
    wall_rate = items / statistics.median(wall)
    verdict = "" if goal is None else ("  goal %.0e: %s" % (goal, "met" if rate >= goal else "NOT met"))
    print(f"{label:<58} {rate:>14,.0f} {unit} (best {best:,.0f}; wall {wall_rate:,.0f}){verdict}")
    return rate


def bench_lab():
    n = 200_000 if QUICK else 1_000_000
    f = lab.kv_cache_bytes

    def positional():
        for _ in range(n):
            f(32, 4096, 4096, "fp16", 1, 32, 8)

    def keywords():
        for _ in range(n):
            f(32, 4096, 4096, n_heads=32, n_kv_heads=8)

    def python_formula():  # the lab's formula in plain Python, for scale
        def kv(L, T, d, b=2, batch=1, h=None, kv_h=None):
            d_kv = d * kv_h // h if h else d
            return 2 * L * T * d_kv * b * batch
        for _ in range(n):
            kv(32, 4096, 4096, 2, 1, 32, 8)

    measure("lab.kv_cache_bytes(32, 4096, 4096, 'fp16', 1, 32, 8)", positional, n, 1e6)
    measure("lab.kv_cache_bytes(..., n_heads=32, n_kv_heads=8)", keywords, n, 1e6)
    measure("the same formula as a plain Python function", python_formula, n)


def bench_size():
    n = 20_000 if QUICK else 100_000
    m, g = modelcalc.Model("llama-3.1-8b"), modelcalc.Gpu("h100")

    def by_name():
        for b in range(n):
            modelcalc.size("llama-3.1-8b", "h100", batch=b % 64 + 1)

    def by_object():
        for b in range(n):
            modelcalc.size(m, g, batch=b % 64 + 1)

    def with_a_figure():
        for b in range(n):
            modelcalc.size(m, g, batch=b % 64 + 1).tokens_per_s_aggregate

    docs = 500 if QUICK else 2_000

    def with_to_dict():
        for b in range(docs):
            modelcalc.size(m, g, batch=b % 64 + 1).to_dict()

    cli_calls = 200 if QUICK else 1_000

    def through_the_cli():  # the package before issue #25: keywords -> argv -> run_cli -> --json -> json.loads
        for b in range(cli_calls):
            modelcalc.cli.size(model="llama-3.1-8b", gpu="h100", batch=b % 64 + 1)

    measure("modelcalc.size('llama-3.1-8b', 'h100', batch=B)", by_name, n, 1e5, "results/s")
    measure("modelcalc.size(Model, Gpu, batch=B)", by_object, n, 1e5, "results/s")
    measure("... and read .tokens_per_s_aggregate", with_a_figure, n, None, "results/s")
    measure("... and .to_dict() (the whole --json document)", with_to_dict, docs, None, "results/s")
    measure("modelcalc.cli.size(...) (argv, run_cli, json.loads)", through_the_cli, cli_calls, None, "results/s")


def bench_sweep():
    grid = dict(model=["llama-3.1-8b", "mixtral-8x7b-v0.1"], gpu=["h100", "mi300x"], context="1k:128k:x2",
                batch="1:4096")  # 131,072 rows: bench/side_by_side.sh's grid
    rows = 131_072
    big = dict(grid, context="1k:1024k:x2" if not QUICK else "1k:128k:x2",
               batch="1:16384" if not QUICK else "1:4096")
    big_rows = 2 * 2 * (11 if not QUICK else 8) * (16384 if not QUICK else 4096)
    holder = {}

    def columns():
        holder["c"] = modelcalc.sweep(**grid)

    def big_columns():
        holder["big"] = modelcalc.sweep(**big)

    def every_column():
        holder["all"] = modelcalc.sweep(**grid, fields="all")

    def chunks():
        modelcalc.sweep(**big, on_chunk=lambda c: None, chunk_rows=1 << 16)

    measure("sweep(...) into columns, default fields, 131,072 rows", columns, rows, 1e7, "rows/s")
    measure(f"sweep(...) into columns, default fields, {big_rows:,} rows", big_columns, big_rows, 1e7, "rows/s")
    measure("sweep(..., on_chunk=..., chunk_rows=65536), the same rows", chunks, big_rows, 1e7, "rows/s")
    n_all = len(modelcalc.sweep_columns())
    measure(f"sweep(..., fields='all') ({n_all} columns), 131,072 rows", every_column, rows, None, "rows/s")
    c, a = holder["c"], holder["all"]
    print(f"{'bytes a row: default fields / every column':<58} {c.nbytes / len(c):>14.0f} B / "
          f"{a.nbytes / len(a):.0f} B  goal <= 200 B (default): {'met' if c.nbytes / len(c) <= 200 else 'NOT met'}")
    small = dict(grid, context="1k:8k:x2", batch="1:512")  # 4,096 rows: the old list-of-dicts path

    def as_dicts():
        modelcalc.cli.sweep(**small)

    measure("modelcalc.cli.sweep(...) as a list of dicts, 8,192 rows", as_dicts, 8_192, None, "rows/s")


def bench_peers():
    try:
        from llm_analysis.analysis import LLMAnalysis  # noqa: F401
        print("llm-analysis: installed, but its timing is not written yet (see the docstring)")
    except ImportError:
        print("llm-analysis (pip install llm-analysis): not installed here (pip cannot download), skipped")
    try:
        import model_analyzer  # noqa: F401  (LLM-Viewer's module)
        print("LLM-Viewer: installed, but its timing is not written yet (see the docstring)")
    except ImportError:
        print("LLM-Viewer (github.com/hahnyuan/LLM-Viewer): not installed here, skipped")


if __name__ == "__main__":
    print(f"modelcalc {modelcalc.__version__}, Python {sys.version.split()[0]}, median of {REPEATS} runs, CPU time")
    bench_lab()
    bench_size()
    bench_sweep()
    bench_peers()
