// The CLI side of speed: start-up (run_cli for a cold `size` report, in
// process) and the streaming sweep writers (rows/s formatted to a stream that
// discards them). Run:
//   ./build/release/modelcalc_bench --benchmark_filter='RunCli|Writer|SideBySide' --benchmark_min_time=0.2
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <ostream>
#include <string>
#include <streambuf>

#include "cli.h"
#include "modelcalc/hf_config.h"
#include "modelcalc/sweep.h"
#include "sweep_table.h"

namespace modelcalc {
namespace {

// An ostream that counts and discards, so the benchmark times formatting only.
class NullBuf : public std::streambuf {
 protected:
  std::streamsize xsputn(const char*, std::streamsize n) override { return n; }
  int_type overflow(int_type c) override { return c; }
};

// run_cli as main() calls it: parse, declare only `size`'s flags, resolve the
// preset and the GPU, analyze, render the text report.
void BM_RunCliSize(benchmark::State& state) {
  NullBuf nb;
  std::ostream out(&nb), err(&nb);
  const std::vector<std::string> args = {"size", "--model", "llama-3.1-8b", "--gpu", "h100"};
  for (auto _ : state) benchmark::DoNotOptimize(run_cli(args, out, err));
}
BENCHMARK(BM_RunCliSize)->Unit(benchmark::kMicrosecond);

// The same, --help of the top level: every command listed, none declared.
void BM_RunCliHelp(benchmark::State& state) {
  NullBuf nb;
  std::ostream out(&nb), err(&nb);
  const std::vector<std::string> args = {"--help"};
  for (auto _ : state) benchmark::DoNotOptimize(run_cli(args, out, err));
}
BENCHMARK(BM_RunCliHelp)->Unit(benchmark::kMicrosecond);

// The grid bench/side_by_side.sh times through the CLI too:
//   --model llama-3.1-8b,mixtral-8x7b-v0.1 --gpu h100,mi300x --seq 1k:128k:x2 --batch 1:4096
// = 2 x 2 x 8 x 4096 = 131,072 rows.
SweepSpec SideBySideSpec() {
  SweepSpec s;
  s.models = {find_preset("llama-3.1-8b").value(), find_preset("mixtral-8x7b-v0.1").value()};
  s.gpus = {find_gpu("h100").value(), find_gpu("mi300x").value()};
  for (int64_t t = 1000; t <= 128000; t *= 2) s.contexts.push_back(t);
  for (int64_t b = 1; b <= 4096; ++b) s.batches.push_back(b);
  return s;
}

// Library rows/s on that grid: evaluation only.
void BM_SideBySideLibrary(benchmark::State& state) {
  const SweepSpec s = SideBySideSpec();
  const int64_t rows = sweep_row_count(s).value();
  double sink = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(sweep(s, [&sink](const SweepRow& r) { sink += r.result.tokens_per_s_aggregate; }));
  }
  benchmark::DoNotOptimize(sink);
  state.SetItemsProcessed(state.iterations() * rows);
}
BENCHMARK(BM_SideBySideLibrary)->Unit(benchmark::kMillisecond);

// Evaluation + formatting of the default columns, per format.
void BM_Writer(benchmark::State& state, const char* format) {
  const SweepSpec s = SideBySideSpec();
  const int64_t rows = sweep_row_count(s).value();
  const auto columns = parse_fields("").value();
  NullBuf nb;
  std::ostream out(&nb);
  for (auto _ : state) {
    auto w = make_sweep_writer(format, columns, out);
    benchmark::DoNotOptimize(sweep(s, [&w](const SweepRow& r) { (*w)->row(r); }));
    (*w)->end();
  }
  state.SetItemsProcessed(state.iterations() * rows);
}
// The same to a real file, as `modelcalc sweep ... > file` writes it: CPU
// time includes the kernel's write. Each iteration writes a fresh file: the
// previous one is removed with the timer paused, because freeing its 25 MB of
// page cache (~4 ms here) is what the shell's `>` pays before modelcalc runs,
// not the writer. The file is $TMPDIR/modelcalc_bench_writer.out (or /tmp),
// removed at the end.
void BM_WriterToFile(benchmark::State& state, const char* format) {
  const SweepSpec s = SideBySideSpec();
  const int64_t rows = sweep_row_count(s).value();
  const auto columns = parse_fields("").value();
  const char* tmp = std::getenv("TMPDIR");
  const std::string path = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/modelcalc_bench_writer.out";
  for (auto _ : state) {
    state.PauseTiming();
    std::remove(path.c_str());
    state.ResumeTiming();
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    auto w = make_sweep_writer(format, columns, out);
    benchmark::DoNotOptimize(sweep(s, [&w](const SweepRow& r) { (*w)->row(r); }));
    (*w)->end();
  }
  std::remove(path.c_str());
  state.SetItemsProcessed(state.iterations() * rows);
}
BENCHMARK_CAPTURE(BM_WriterToFile, csv, "csv")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_WriterToFile, jsonl, "jsonl")->Unit(benchmark::kMillisecond);

BENCHMARK_CAPTURE(BM_Writer, csv, "csv")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Writer, jsonl, "jsonl")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Writer, json, "json")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Writer, md, "md")->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace modelcalc
