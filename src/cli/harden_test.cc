// Hostile input over the whole CLI (issue #13): every numeric flag of every
// subcommand, enumerated from the CLI itself, refuses out-of-range values
// with exit 2, one line naming the flag, and nothing on stdout; errors are
// escaped; writes to stdout are checked.
#include <CLI/CLI.hpp>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>

#include "cli.h"
#include "flags.h"
#include "inputs.h"
#include "modelcalc/capacity.h"
#include "modelcalc/deployment.h"
#include "modelcalc/hf_config.h"
#include "quantity.h"
#include "report.h"
#include "test_util.h"
#include "test_paths.h"  // MODELCALC_SOURCE_DIR, MODELCALC_BINARY

namespace modelcalc {
namespace {

namespace fs = std::filesystem;
using Args = std::vector<std::string>;

enum class Kind { kCount, kRealCount, kBytes, kBandwidth, kFlops, kReal, kFraction, kDuration, kRate };

struct NumericFlag {
  NumericFlag(Kind k, bool z = false, std::string o = "") : kind(k), zero_ok(z), over(std::move(o)) {}
  Kind kind;
  bool zero_ok;      // 0 is a meaningful value (a reserve of 0, 0 % utilization)
  std::string over;  // the largest allowed value + 1, when tighter than the kind's
};

// A model typed as flags, so the shape flags get exercised too.
const Args kShape = {"-L", "32", "-d", "4096", "--heads", "32", "--kv-heads", "8", "--head-dim", "128",
                     "--ffn", "11008", "--vocab", "32000"};
const Args kSplit = {"--tp", "1", "--pp", "1", "--ep", "1", "--dp", "1"};
const Args kCustomGpu = {"--bandwidth", "3TB/s", "--capacity", "80GB", "--peak", "900TFLOPS"};
// The serving-layout flags on a model that has experts and an MTP module.
const Args kLayout = {"--model", "deepseek-v3", "--gpu", "h200", "--gpus", "8", "--seq", "8192",
                      "--dp-attention", "--expert-imbalance", "1.2", "--redundant-experts", "8",
                      "--two-batch-overlap", "--spec-tokens", "1", "--spec-acceptance", "0.8", "--spec-method", "mtp",
                      "--prefix-hit", "0.5", "--prefix-tokens", "256"};

Args cat(std::initializer_list<Args> parts) {
  Args out;
  for (const Args& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

// `base` on a model mixing sliding and full layers (gpt-oss-120b for llama-3.1-8b) under SGLang with its
// sliding pool's ratio: the one flag that needs such a model.
Args swa_ratio(Args base) {
  for (std::string& a : base) {
    if (a == "llama-3.1-8b") a = "gpt-oss-120b";
  }
  return cat({base, {"--engine", "sglang", "--swa-full-tokens-ratio", "0.5"}});
}

// `base` with each engine's own flags given: one invocation per engine, and SGLang's sliding-pool ratio.
std::vector<Args> with_engines(const Args& base) {
  return {cat({base, {"--engine", "vllm", "--gpu-memory-utilization", "0.9", "--max-model-len", "8192",
                      "--max-num-batched-tokens", "4096", "--max-num-seqs", "128", "--block-size", "16"}}),
          cat({base, {"--engine", "trtllm", "--kv-cache-free-gpu-mem-fraction", "0.9", "--max-num-tokens", "4096",
                      "--max-batch-size", "128"}}),  // TensorRT-LLM's own names
          cat({base, {"--engine", "sglang", "--mem-fraction-static", "0.85"}}),
          swa_ratio(base)};
}
std::vector<Args> plus(std::vector<Args> a, const std::vector<Args>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// Invocations that succeed, together giving every numeric flag a valid value.
// A flag is tested on the first invocation that contains it.
const std::map<std::string, std::vector<Args>>& bases() {
  static const std::map<std::string, std::vector<Args>> kBases = {
      {"size",
       plus({cat({{"size"}, kShape, {"--gpu", "h100", "--seq", "4096", "--batch", "8", "--gpus", "2", "--train-tokens", "1T"}}),
             cat({{"size", "--model", "llama-3.1-8b"}, kCustomGpu, kSplit, {"--prompt", "512", "--reserve", "0.1"}})},
            plus(with_engines({"size", "--model", "llama-3.1-8b", "--gpu", "h100"}), {cat({{"size"}, kLayout})}))},
      {"kv-budget",
       {cat({{"kv-budget"}, kShape,
             {"--gpu", "h100", "--gpus", "2", "--context", "8192", "--reserve", "0.1", "--workspace", "2GB",
              "--mean-len", "1000", "--block-size", "16"}}),
        cat({{"kv-budget", "--model", "llama-3.1-8b", "--budget", "40GB"}, kCustomGpu}),
        cat({{"kv-budget", "--model", "llama-3.1-8b"}, kCustomGpu, kSplit, {"--prompt", "512", "--batch", "8"}}),
        cat({{"kv-budget", "--model", "llama-3.1-8b", "--gpu", "h100", "--engine", "vllm", "--gpu-memory-utilization",
              "0.9", "--max-model-len", "8192", "--max-num-batched-tokens", "4096", "--max-num-seqs", "128"}}),
        {"kv-budget", "--model", "llama-3.1-8b", "--gpu", "h100", "--engine", "trtllm",
         "--kv-cache-free-gpu-mem-fraction", "0.9", "--max-num-tokens", "4096", "--max-batch-size", "128"},
        {"kv-budget", "--model", "llama-3.1-8b", "--gpu", "h100", "--engine", "sglang", "--mem-fraction-static", "0.85"},
        swa_ratio({"kv-budget", "--model", "llama-3.1-8b", "--gpu", "h100"}),
        cat({{"kv-budget"}, kLayout})}},
      {"train-memory",
       {cat({{"train-memory"}, kShape,
             {"--gpu", "h100", "--dp", "8", "--tp", "2", "--pp", "2", "--micro-batch", "1", "--seq", "4096",
              "--zero", "1"}}),
        cat({{"train-memory", "--params", "7B"}, kCustomGpu}),
        {"train-memory", "--model", "mixtral-8x7b-v0.1", "--gpu", "h100", "--gpus", "16", "--tp", "2", "--cp", "2",
         "--pp", "2", "--dp", "2", "--ep", "2", "--virtual-stages", "2", "--microbatch-group", "2", "--global-batch",
         "8", "--first-stage-layers", "16", "--last-stage-layers", "16", "--flash", "--capacity-factor", "1.25",
         "--overhead", "2GB"}}},
      {"paged-kv",
       {{"paged-kv", "--lens", "100,2000", "--max-len", "4096", "--block-size", "16", "--kv-bytes-per-token", "1000"},
        cat({{"paged-kv", "--lens", "100", "--max-len", "4096"}, kShape}),
        cat({{"paged-kv", "--lens", "100", "--seq", "4096"}, kShape})}},
      {"diagnose",
       {{"diagnose", "--phase", "decode", "--params", "13B", "--gpu", "mi300x", "--gpus", "1", "--batch", "1",
         "--context", "2048", "--prompt-tokens", "512", "--tokens-per-s", "160", "--aggregate-tokens-per-s", "160",
         "--ttft", "0.5", "--itl", "0.006", "--flop-util", "4%", "--bw-util", "78%", "--kernels-per-step", "300",
         "--kernel-us", "6-30", "--gap-us", "8-15", "--peak-transient", "1GB"},
        cat({{"diagnose", "--phase", "decode", "--tokens-per-s", "100"}, kShape, kCustomGpu}),
        cat({{"diagnose", "--phase", "decode", "--tokens-per-s", "100"}, kShape, kCustomGpu, kSplit,
             {"--reserve", "0.1"}}),
        with_engines({"diagnose", "--phase", "decode", "--tokens-per-s", "100", "--model", "llama-3.1-8b", "--gpu",
                      "h100"})[0],
        with_engines({"diagnose", "--phase", "decode", "--tokens-per-s", "100", "--model", "llama-3.1-8b", "--gpu",
                      "h100"})[1],
        with_engines({"diagnose", "--phase", "decode", "--tokens-per-s", "100", "--model", "llama-3.1-8b", "--gpu",
                      "h100"})[2],
        with_engines({"diagnose", "--phase", "decode", "--tokens-per-s", "100", "--model", "llama-3.1-8b", "--gpu",
                      "h100"})[3],
        cat({{"diagnose", "--phase", "decode", "--tokens-per-s", "100"}, kLayout})}},
      {"sweep",
       {cat({{"sweep"}, kShape, {"--gpu", "h100", "--seq", "2048,4096", "--batch", "1,8"}}),
        cat({{"sweep", "--model", "llama-3.1-8b"}, kCustomGpu}),
        cat({{"sweep"}, kShape, {"--gpu", "h100", "--gpus", "1,2"}}),
        cat({{"sweep"}, kShape, {"--gpu", "h100"}, kSplit}),
        with_engines({"sweep", "--model", "llama-3.1-8b", "--gpu", "h100"})[0],
        with_engines({"sweep", "--model", "llama-3.1-8b", "--gpu", "h100"})[1],
        with_engines({"sweep", "--model", "llama-3.1-8b", "--gpu", "h100"})[2],
        with_engines({"sweep", "--model", "llama-3.1-8b", "--gpu", "h100"})[3],
        cat({{"sweep"}, kLayout})}},
      {"train", {{"train", "--params", "70B", "--tokens", "2T", "--gpu", "h100", "--gpus", "8", "--mfu", "0.4",
                  "--peak", "900TFLOPS"},
                 {"train", "--model", "mixtral-8x7b-v0.1", "--tokens", "1T", "--gpu", "h100", "--gpus", "16", "--tp",
                  "2", "--cp", "2", "--pp", "2", "--dp", "2", "--ep", "2", "--virtual-stages", "2",
                  "--microbatch-group", "2", "--micro-batch", "1", "--global-batch", "8", "--first-stage-layers",
                  "16", "--last-stage-layers", "16", "--seq", "4096", "--zero", "1", "--flash", "--capacity-factor",
                  "1.25", "--overhead", "2GB", "--mfu", "0.4"},
                 cat({{"train", "--tokens", "1T", "--gpu", "h100"}, kShape, {"--seq", "2048"}})}},
      {"train-plan", {{"train-plan", "--model", "llama-3.1-8b", "--tokens", "1T", "--days", "30", "--gpu", "h100",
                       "--max-gpus", "4096", "--seq", "4096", "--micro-batch", "1,2", "--max-tp", "8",
                       "--max-pp", "16", "--max-ep", "8", "--max-batch-tokens", "4M", "--top", "5"},
                      {"train-plan", "--model", "llama-3.1-8b", "--tokens", "1T", "--days", "30", "--gpu", "h100",
                       "--global-batch", "1024"},
                      cat({{"train-plan", "--tokens", "1T", "--days", "30", "--gpu", "h100"}, kShape})}},
      {"chinchilla", {{"chinchilla", "--params", "70B"}, {"chinchilla", "--compute", "5.76e23"}}},
      {"roofline",
       plus({{"roofline", "--gpu", "a100", "--intensity", "1", "--gemm", "1024"},
             cat({{"roofline"}, kShape, {"--gpu", "h100", "--batch", "1,8", "--seq", "4096"}}),
             cat({{"roofline", "--intensity", "1"}, kCustomGpu}),
             cat({{"roofline"}, kShape, {"--gpu", "h100", "--gpus", "2", "--reserve", "0.1"}}),
             cat({{"roofline"}, kShape, {"--gpu", "h100", "--prompt", "512", "--compute-dtype", "bf16"}, kSplit})},
            plus(with_engines({"roofline", "--model", "llama-3.1-8b", "--gpu", "h100", "--batch", "8", "--seq", "4096"}),
                 {cat({{"roofline", "--batch", "8"}, kLayout})}))},
      {"cost",
       {{"cost", "--price-per-hour", "2.5", "--tokens-per-s", "1000", "--gpus", "8"},
        cat({{"cost", "--price-per-hour", "3"}, kShape, {"--seq", "4096", "--batch", "8"}, kCustomGpu, kSplit,
             {"--reserve", "0.1", "--prompt", "512"}}),
        with_engines({"cost", "--price-per-hour", "3", "--model", "llama-3.1-8b", "--gpu", "h100", "--seq", "4096"})[0],
        with_engines({"cost", "--price-per-hour", "3", "--model", "llama-3.1-8b", "--gpu", "h100", "--seq", "4096"})[1],
        with_engines({"cost", "--price-per-hour", "3", "--model", "llama-3.1-8b", "--gpu", "h100", "--seq", "4096"})[2],
        with_engines({"cost", "--price-per-hour", "3", "--model", "llama-3.1-8b", "--gpu", "h100", "--seq", "4096"})[3],
        cat({{"cost", "--price-per-hour", "3"}, kLayout})}},
      {"mfu", {{"mfu", "--params", "7B", "--tokens-per-s", "3000", "--gpu", "a100", "--gpus", "2", "--peak",
                "312TFLOPS"},
               cat({{"mfu", "--tokens-per-s", "3000", "--gpu", "a100", "--train", "--seq", "2048"}, kShape})}},
      {"calibrate", {{"calibrate", "--cv", "none"}}},
      {"plan",
       {{"plan", "--model", "llama-3.1-8b", "--isl", "512", "--osl", "128", "--qps", "1", "--ttft", "1s", "--tpot",
         "50ms", "--gpu", "h100", "--max-gpus", "8", "--batch", "1,8", "--max-pp", "2", "--efficiency", "0.6",
         "--top", "3", "--ep", "1"},
        {"plan", "--model", "llama-3.1-8b", "--isl", "512", "--osl", "128", "--rate", "1000",
         "--tokens-per-s-per-user", "20", "--gpu", "h100", "--max-gpus", "8"},
        cat({{"plan"}, kShape, {"--isl", "512", "--osl", "128", "--concurrency", "8", "--gpu", "h100"}}),
        with_engines({"plan", "--model", "llama-3.1-8b", "--isl", "512", "--osl", "128", "--gpu", "h100",
                      "--max-gpus", "8", "--rank-by", "ceiling"})[0],
        with_engines({"plan", "--model", "llama-3.1-8b", "--isl", "512", "--osl", "128", "--gpu", "h100",
                      "--max-gpus", "8"})[1],
        with_engines({"plan", "--model", "llama-3.1-8b", "--isl", "512", "--osl", "128", "--gpu", "h100",
                      "--max-gpus", "8"})[2],
        with_engines({"plan", "--model", "llama-3.1-8b", "--isl", "512", "--osl", "128", "--gpu", "h100",
                      "--max-gpus", "8"})[3],
        // 32 GPUs: at the fitted step times one DPA8 prefill pool feeds three TP8 decode pools (1P3D).
        {"plan", "--model", "deepseek-v3", "--isl", "512", "--osl", "128", "--gpu", "h200", "--max-gpus", "32",
         "--disaggregated", "--kv-transfer-overlap", "--two-batch-overlap", "--expert-imbalance", "1.1",
         "--spec-tokens", "1", "--spec-acceptance", "0.8", "--spec-method", "mtp", "--prefix-hit", "0.5",
         "--prefix-tokens", "128"}}},
  };
  return kBases;
}

// Every option that takes a number, by its long name, in any subcommand. A
// flag the CLI declares that is in neither this table nor kNotNumeric fails
// the walk, so a new numeric flag cannot escape it.
const std::map<std::string, NumericFlag>& numeric_flags() {
  static const std::map<std::string, NumericFlag> kFlags = {
      {"--tp", {Kind::kCount, false, std::to_string(kMaxGpus + 1)}},
      {"--pp", {Kind::kCount, false, std::to_string(kMaxGpus + 1)}},
      {"--ep", {Kind::kCount, false, std::to_string(kMaxGpus + 1)}},
      {"--dp", {Kind::kCount, false, std::to_string(kMaxGpus + 1)}},
      {"--gpus", {Kind::kCount, false, std::to_string(kMaxGpus + 1)}},
      {"--seq", {Kind::kCount, false, std::to_string(kMaxTokens + 1)}},
      {"--context", {Kind::kCount, false, std::to_string(kMaxTokens + 1)}},
      {"--prompt", {Kind::kCount, false, std::to_string(kMaxTokens + 1)}},
      {"--prompt-tokens", {Kind::kCount, false, std::to_string(kMaxTokens + 1)}},
      {"--batch", {Kind::kCount, false, std::to_string(kMaxBatch + 1)}},
      {"--zero", {Kind::kCount, true, "4"}},  // a ZeRO stage, 0 to 3
      // The training layout (train_flags.cc): counts up to their stated maxima.
      {"--cp", {Kind::kCount, false, "1025"}},
      {"--virtual-stages", {Kind::kCount, false, "1025"}},
      {"--microbatch-group", {Kind::kCount, false, "1048577"}},
      {"--first-stage-layers", {Kind::kCount, false, "1048577"}},
      {"--last-stage-layers", {Kind::kCount, false, "1048577"}},
      {"--global-batch", {Kind::kCount, false, "1099511627777"}},
      {"--capacity-factor", {Kind::kReal, false, "1025"}},
      {"--overhead", {Kind::kBytes}},
      {"--max-batch-tokens", {Kind::kRealCount, false, "1000000000001"}},
      {"--max-ep", {Kind::kCount, false, "1025"}},
      {"--layers", {Kind::kCount}},       {"--hidden", {Kind::kCount}},
      {"--heads", {Kind::kCount}},        {"--kv-heads", {Kind::kCount}},
      {"--head-dim", {Kind::kCount}},     {"--ffn", {Kind::kCount}},
      {"--vocab", {Kind::kCount}},        {"--mean-len", {Kind::kCount}},
      {"--block-size", {Kind::kCount}},   {"--micro-batch", {Kind::kCount}},
      {"--lens", {Kind::kCount}},
      {"--max-len", {Kind::kCount}},      {"--kv-bytes-per-token", {Kind::kCount}},
      {"--kernels-per-step", {Kind::kCount}},
      {"--gemm", {Kind::kCount, false, "1000001"}},
      {"--params", {Kind::kRealCount}},   {"--tokens", {Kind::kRealCount}},
      {"--compute", {Kind::kRealCount}},  {"--train-tokens", {Kind::kRealCount}},
      {"--intensity", {Kind::kRealCount}}, {"--tokens-per-s", {Kind::kRealCount}},
      {"--aggregate-tokens-per-s", {Kind::kReal}},
      {"--capacity", {Kind::kBytes}},     {"--budget", {Kind::kBytes}},
      {"--workspace", {Kind::kBytes}},    {"--peak-transient", {Kind::kBytes}},
      {"--bandwidth", {Kind::kBandwidth}}, {"--peak", {Kind::kFlops}},
      {"--price-per-hour", {Kind::kReal}}, {"--ttft", {Kind::kReal}},
      {"--itl", {Kind::kReal}},           {"--kernel-us", {Kind::kReal}},
      {"--gap-us", {Kind::kReal, true}},  // 0: kernels back to back
      {"--mfu", {Kind::kFraction}},
      {"--reserve", {Kind::kFraction, true, "1"}},  // [0, 1): a reserve of all memory leaves nothing
      {"--flop-util", {Kind::kFraction, true}},     {"--bw-util", {Kind::kFraction, true}},
      // plan: durations and rates carry units; bounds as its --help states.
      {"--isl", {Kind::kCount, false, std::to_string(kMaxTokens + 1)}},
      {"--osl", {Kind::kCount, false, std::to_string(kMaxTokens + 1)}},
      {"--max-gpus", {Kind::kCount, false, std::to_string(kMaxGpus + 1)}},
      {"--max-pp", {Kind::kCount, false, "1025"}},
      {"--max-tp", {Kind::kCount, false, "1025"}},
      {"--days", {Kind::kRealCount, false, "1000001"}},  // train-plan's deadline, at most 1e6 days
      {"--top", {Kind::kCount, false, "1001"}},
      {"--concurrency", {Kind::kCount, false, "1000000001"}},
      {"--qps", {Kind::kRate}},           {"--rate", {Kind::kRate}},
      {"--tokens-per-s-per-user", {Kind::kRate, false, "1000001"}},
      {"--ttft", {Kind::kDuration}},      {"--tpot", {Kind::kDuration}},
      {"--efficiency", {Kind::kFraction}},
      // The engines' own flags: fractions in (0, 1], counts up to 2^30.
      {"--gpu-memory-utilization", {Kind::kFraction}},
      {"--kv-cache-free-gpu-mem-fraction", {Kind::kFraction}},
      {"--mem-fraction-static", {Kind::kFraction}},
      {"--swa-full-tokens-ratio", {Kind::kFraction}},
      {"--max-model-len", {Kind::kCount}},
      {"--max-num-batched-tokens", {Kind::kCount}},
      {"--max-num-tokens", {Kind::kCount}},  // TensorRT-LLM's name for it
      {"--max-num-seqs", {Kind::kCount}},
      {"--max-batch-size", {Kind::kCount}},  // TensorRT-LLM's name for it
      // The serving layouts (deployment_options.cc add_layout_flags).
      {"--expert-imbalance", {Kind::kReal, false, "65"}},            // a factor from 1 to 64
      {"--redundant-experts", {Kind::kCount, true, "1048577"}},      // 0 to 2^20 slots
      {"--spec-tokens", {Kind::kCount, false, "65"}},                // 1 to 64 draft tokens
      {"--spec-acceptance", {Kind::kFraction, true}},                // [0, 1]
      {"--prefix-hit", {Kind::kFraction, true, "1"}},                // [0, 1): all cached leaves no token
      {"--prefix-tokens", {Kind::kCount, true, "1073741825"}},       // 0 to 2^30 tokens
  };
  return kFlags;
}

const std::set<std::string> kNotNumeric = {
    "--help", "--json", "--explain", "--strings", "--glu", "--tied", "--sources", "--train", "--sequence-parallel",
    "--flash",
    "--gpu", "--model", "--config", "--checkpoint", "--count", "--dtype", "--kv-dtype", "--fields", "--format", "--plot", "--report",
    "--lens-file", "--optimizer", "--recompute", "--phase", "--weights", "--compute-dtype", "evidence",
    "candidates", "--frontier", "--price", "--compare", "--length-dist",  // --price: GPU=USD pairs, walked in PlanPriceOverridesAreBounded
    "--host", "--port",  // serve's: a valid base would start a server; serve_test.cc checks their bad values
    "--light-workers", "--heavy-workers", "--light-queue", "--heavy-queue", "--heavy-budget",  // serve's lanes: same
    // The training run's switches and names (train_flags.cc, cmd_train_plan.cc, calibrate --training).
    "--embedding-in-split", "--loss-in-split", "--dropout", "--no-overlap", "--causal", "--grads", "--bf16-grads",
    "--no-flash", "--rank-by", "--training", "--fit",
    "--data", "--write", "--cv",  // calibrate's files and fold kinds (cmd_calibrate_test.cc checks them)
    // --checkpoint, models --count: checkpoint folders (cmd_models_test.cc, safetensors_test.cc check them)
    "--engine", "--allow-long-max-model-len",
    "--dp-attention", "--two-batch-overlap", "--spec-method", "--draft-model", "--profile", "--disaggregated",
    "--kv-transfer-overlap"};  // switches and names  // a name and a switch (cmd_engine_test.cc checks them)

std::string format_over(double max) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", std::nextafter(max, HUGE_VAL));
  return buf;
}

// Values every flag of `f`'s kind must refuse.
std::vector<std::string> bad_values(const NumericFlag& f) {
  std::vector<std::string> v = {"-1", "nan", "NaN", "inf", "-inf", "infinity", "1e400", "-1e400", "1e30"};
  if (!f.zero_ok) v.push_back("0");
  std::vector<std::string> units;
  std::string over;
  switch (f.kind) {
    case Kind::kCount:
      units = {"K", "M", "B", "G", "T", "Ki", "Mi", "Gi", "Ti"};
      over = std::to_string(kMaxCount + 1);
      break;
    case Kind::kRealCount:
      units = {"K", "M", "B", "G", "T", "Ki", "Mi", "Gi", "Ti"};
      over = format_over(kMaxRealCount);
      break;
    case Kind::kBytes:
      units = {"B", "KB", "MB", "GB", "TB", "PB", "EB", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
      over = format_over(kMaxBytes) + "B";
      break;
    case Kind::kBandwidth:
      units = {"B/s", "KB/s", "MB/s", "GB/s", "TB/s", "PB/s", "EB/s"};
      over = format_over(kMaxBandwidth) + "B/s";
      break;
    case Kind::kFlops:
      units = {"FLOPS", "KFLOPS", "MFLOPS", "GFLOPS", "TFLOPS", "PFLOPS", "EFLOPS", "TFLOP/s"};
      over = format_over(kMaxFlops) + "FLOPS";
      break;
    case Kind::kReal:
      over = format_over(kMaxReal);
      break;
    case Kind::kFraction:
      units = {"%"};
      over = format_over(1.0);
      break;
    case Kind::kDuration:  // a bare number is refused too (seconds or milliseconds?)
      units = {"s", "ms", "us", "min"};
      over = "86401s";
      for (const char* x : {"-1s", "0s", "nans", "infs", "-infs", "1e400ms"}) v.push_back(x);
      break;
    case Kind::kRate:
      units = {"K", "M", "/s", "K/s"};
      over = format_over(kMaxRate);
      break;
  }
  for (const std::string& u : units) {
    v.push_back("1e30" + u);
    v.push_back("1e308" + u);
  }
  v.push_back(f.over.empty() ? over : f.over);
  return v;
}

// argv with `flag` set to `value`: replaced where the invocation has it (in
// any of its spellings, which becomes `flag`), else appended.
Args with_value(Args args, const std::string& flag, const std::string& value) {
  const std::multimap<std::string, std::string> same = {
      {"--layers", "-L"},     {"--hidden", "-d"},     {"--context", "--seq"},
      {"--seq", "--context"}, {"--prompt-tokens", "--prompt"}, {"--prompt", "--prompt-tokens"}};
  for (size_t i = 0; i + 1 < args.size(); ++i) {
    bool match = args[i] == flag;
    for (auto [it, end] = same.equal_range(flag); it != end; ++it) match = match || args[i] == it->second;
    if (match) {
      args[i] = flag;
      args[i + 1] = value;
      return args;
    }
  }
  args.push_back(flag);
  args.push_back(value);
  return args;
}

bool has_flag(const Args& args, const std::string& flag) {
  return with_value(args, flag, "").size() == args.size();
}

// Every (subcommand, option long name) the CLI declares, from CLI11 itself.
std::vector<std::pair<std::string, std::string>> declared_options() {
  std::vector<std::pair<std::string, std::string>> out;
  CLI::App app;
  std::vector<std::unique_ptr<FlagSet>> sets;
  for (const Command& c : commands()) {
    CLI::App* sub = app.add_subcommand(c.name, c.summary);
    sets.push_back(std::make_unique<FlagSet>(*sub));
    c.setup(*sets.back());
    for (const CLI::Option* o : sub->get_options()) {
      std::string name = o->get_name();
      if (name.empty()) continue;
      const auto comma = name.find(',');
      if (comma != std::string::npos) name = name.substr(0, comma);
      for (const std::string& l : o->get_lnames()) name = "--" + l;  // prefer the long spelling
      out.emplace_back(c.name, name);
    }
  }
  return out;
}

TEST(HardenTest, TheBaseInvocationsSucceed) {
  for (const auto& [cmd, list] : bases()) {
    for (const Args& a : list) {
      CliRun r = run_args(a);
      EXPECT_EQ(r.status, 0) << show(a) << "\n" << r.err;
    }
  }
}

TEST(HardenTest, EveryNumericFlagOfEveryCommandRefusesHostileValues) {
  const auto options = declared_options();
  ASSERT_GT(options.size(), 50u);
  int tested = 0;
  for (const auto& [cmd, flag] : options) {
    if (kNotNumeric.count(flag)) continue;
    const auto it = numeric_flags().find(flag);
    ASSERT_NE(it, numeric_flags().end())
        << cmd << " " << flag << ": classify this new flag in harden_test.cc (numeric, with its kind, or not)";
    const auto b = bases().find(cmd);
    ASSERT_NE(b, bases().end()) << cmd << " has numeric flags but no base invocation in harden_test.cc";
    const Args* base = nullptr;
    for (const Args& a : b->second) {
      if (has_flag(a, flag)) {
        base = &a;
        break;
      }
    }
    ASSERT_NE(base, nullptr) << cmd << " " << flag << ": no base invocation gives it a valid value";
    for (const std::string& v : bad_values(it->second)) {
      const Args args = with_value(*base, flag, v);
      CliRun r = run_args(args);
      ++tested;
      EXPECT_EQ(r.status, 2) << show(args) << "\n" << r.err;
      EXPECT_TRUE(r.out.empty()) << show(args);
      EXPECT_EQ(line_count(r.err), 1) << show(args) << "\n" << r.err;
      EXPECT_NE(r.err.find(flag), std::string::npos) << show(args) << "\n" << r.err;
    }
  }
  EXPECT_GT(tested, 1000);
}

TEST(HardenTest, PlanPriceOverridesAreBounded) {
  const Args base = {"plan", "--model", "llama-3.1-8b", "--isl", "512", "--osl", "128", "--qps", "1", "--gpu", "h100"};
  // kMaxUsdPerGpuHour = 1000 (prices.h); a price must be positive and finite.
  for (const char* v : {"h100=0", "h100=-1", "h100=nan", "h100=inf", "h100=1e400", "h100=1000.01", "h100=",
                        "=2", "h100", "nosuch=2", "h100=2,h100=3"}) {
    const Args args = with_value(base, "--price", v);
    CliRun r = run_args(args);
    EXPECT_EQ(r.status, 2) << show(args) << "\n" << r.out;
    EXPECT_TRUE(r.out.empty()) << show(args);
    EXPECT_EQ(line_count(r.err), 1) << show(args) << "\n" << r.err;
    EXPECT_NE(r.err.find("--price"), std::string::npos) << show(args) << "\n" << r.err;
  }
  EXPECT_EQ(run_args(with_value(base, "--price", "h100=1000")).status, 0);
}

TEST(HardenTest, KernelRangesReadExponents) {
  // "1e-5-30" is 1e-5 to 30 microseconds: the '-' after an exponent's e is its sign,
  // not the separator (it was once split as "1e" and "5-30").
  const Args base = {"diagnose", "--phase", "decode", "--params", "13B", "--gpu", "mi300x", "--tokens-per-s", "160",
                     "--kernels-per-step", "300", "--gap-us", "8-15"};
  EXPECT_EQ(run_args(with_value(base, "--kernel-us", "1e-5-30")).status, 0);
  EXPECT_EQ(run_args(with_value(base, "--kernel-us", "6E-1,30")).status, 0);
  CliRun r = run_args(with_value(base, "--kernel-us", "30-1e-5"));
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("LO must not exceed HI"), std::string::npos) << r.err;
}

TEST(HardenTest, CoreFieldErrorsNameTheFlag) {
  // The analyses name option fields (seq_lens, math_dtype, model); the CLI names flags.
  CliRun lens = run_args({"paged-kv", "--lens", "100,5000", "--max-len", "4096", "--kv-bytes-per-token", "1000"});
  EXPECT_EQ(lens.status, 2);
  EXPECT_EQ(lens.err.rfind("modelcalc: error: --lens: ", 0), 0u) << lens.err;
  CliRun model = run_args({"size", "--model", "nosuch-model", "--gpu", "h100"});
  EXPECT_EQ(model.status, 2);
  EXPECT_EQ(model.err.rfind("modelcalc: error: --model: ", 0), 0u) << model.err;
  // The A10G has no catalogued tensor peak: every command names --gpu and says to give --peak.
  for (const Args& a : std::vector<Args>{{"roofline", "--gpu", "a10g", "--intensity", "1"},
                                         {"sweep", "--model", "llama-3.1-8b", "--gpu", "a10g"},
                                         {"size", "--model", "llama-3.1-8b", "--gpu", "a10g"}}) {
    CliRun r = run_args(a);
    EXPECT_EQ(r.status, 2) << show(a);
    EXPECT_EQ(r.err.rfind("modelcalc: error: --gpu: ", 0), 0u) << show(a) << "\n" << r.err;
    EXPECT_NE(r.err.find("--peak"), std::string::npos) << show(a) << "\n" << r.err;
  }
  // The A100 has bf16 and int8 peaks but no fp8 one: then the dtype is what is at fault.
  CliRun dtype = run_args({"roofline", "--gpu", "a100", "--intensity", "1", "--dtype", "fp8"});
  EXPECT_EQ(dtype.status, 2);
  EXPECT_EQ(dtype.err.rfind("modelcalc: error: --dtype: ", 0), 0u) << dtype.err;
}

TEST(HardenTest, UncheckedConversionsAreGone) {
  // Each of these once answered with exit 0 and a wrapped or infinite number.
  const std::vector<Args> cases = {
      {"kv-budget", "--model", "llama-3.1-70b", "--gpu", "h100", "--workspace", "1e30B"},
      {"size", "--model", "llama-3.1-8b", "--gpu", "h100", "--capacity", "1e30B"},
      {"size", "--model", "llama-3.1-8b", "--gpu", "h100", "--capacity", "1e308EB"},
      {"train", "--params", "70B", "--tokens", "2T", "--peak", "1e308PFLOPS"},
      {"train", "--params", "70B", "--tokens", "1e300T"},
  };
  for (const Args& a : cases) {
    CliRun r = run_args(a);
    EXPECT_EQ(r.status, 2) << show(a) << "\n" << r.out;
    EXPECT_TRUE(r.out.empty());
    EXPECT_EQ(line_count(r.err), 1) << r.err;
  }
  // The largest capacity and GPU count allowed still give an exact, in-range count,
  // or an error naming the field; never a negative or wrapped one.
  CliRun big = run_args({"size", "--model", "llama-3.1-8b", "--gpu", "h100", "--capacity", "1PB", "--gpus",
                         "1000000000000000", "--json"});
  if (big.status == 0) {
    EXPECT_GE(big.json()["roofline"]["max_batch_by_capacity"].get<int64_t>(), 0);
  } else {
    EXPECT_EQ(big.status, 2);
    EXPECT_EQ(line_count(big.err), 1) << big.err;
  }
  CliRun kv = run_args({"kv-budget", "--model", "llama-3.1-8b", "--gpu", "h100", "--gpus", "1000000000000000"});
  EXPECT_EQ(kv.status, 2) << kv.out;
  EXPECT_NE(kv.err.find("--gpus"), std::string::npos) << kv.err;
}

TEST(HardenTest, ErrorsEscapeControlCharactersAndStayOneLine) {
  // An OSC sequence that would set the terminal's title, and a newline.
  CliRun r = run_args({"size", "--model", "\x1b]0;pwned\x07", "--gpu", "h100"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\x07'), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("\\x1b]0;pwned\\x07"), std::string::npos) << r.err;
  EXPECT_EQ(line_count(r.err), 1) << r.err;
  CliRun nl = run_args({"size", "--model", "llama-3.1-8b", "--gpu", "h100", "--seq", "12\nFAKE: line"});
  EXPECT_EQ(nl.status, 2);
  EXPECT_EQ(line_count(nl.err), 1) << nl.err;
  EXPECT_NE(nl.err.find("12\\nFAKE"), std::string::npos) << nl.err;
  CliRun cmd = run_args({"\x1b[2Jsize"});
  EXPECT_EQ(cmd.status, 2);
  EXPECT_EQ(cmd.err.find('\x1b'), std::string::npos) << cmd.err;
  EXPECT_EQ(escape_for_terminal("a\tb\rc\x7f"), "a\\tb\\rc\\x7f");
  EXPECT_EQ(escape_for_terminal("\xc2\x9b" "31m"), "\\u009b31m");  // C1 CSI in UTF-8
  EXPECT_EQ(escape_for_terminal("\xff"), "\\xff");                   // not UTF-8
  EXPECT_EQ(escape_for_terminal("µs → ∞"), "µs → ∞");               // text stays text
}

TEST(HardenTest, DiagnoseWithoutEvidenceIsAnError) {
  CliRun r = run_args({"diagnose"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(r.out.empty());
  EXPECT_NE(r.err.find("evidence: none given"), std::string::npos) << r.err;
  EXPECT_EQ(line_count(r.err), 1);
  CliRun g = run_args({"diagnose", "--gpu", "mi300x", "--phase", "decode"});  // neither a model nor a measurement
  EXPECT_EQ(g.status, 2);
  EXPECT_NE(g.err.find("--tokens-per-s"), std::string::npos) << g.err;
  // A model on a GPU with nothing measured is evidence: the ceiling, and what to measure first.
  EXPECT_EQ(run_args({"diagnose", "--phase", "decode", "--params", "13B", "--gpu", "mi300x"}).status, 0);
}

TEST(HardenTest, FlagsWithNoEffectAreRefused) {
  CliRun r = run_args({"train", "--params", "70B", "--tokens", "2T", "--gpus", "8", "--mfu", "0.5"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--gpus: has no effect without a GPU"), std::string::npos) << r.err;
  CliRun m = run_args({"train", "--params", "70B", "--tokens", "2T", "--mfu", "0.5"});
  EXPECT_NE(m.err.find("--mfu: has no effect without a GPU"), std::string::npos) << m.err;
  EXPECT_EQ(run_args({"train", "--params", "70B", "--tokens", "2T"}).status, 0);  // defaults are not "given"
  EXPECT_EQ(run_args({"train", "--params", "70B", "--tokens", "2T", "--gpu", "h100", "--mfu", "40%"}).status, 0);
}

TEST(HardenTest, AGpuWithoutAPeakIsRefusedNamingGpuAndPeak) {
  for (const Args& a : std::vector<Args>{{"size", "--model", "llama-3.1-8b", "--gpu", "a10g"},
                                         {"train", "--params", "70B", "--tokens", "2T", "--gpu", "a10g"},
                                         {"mfu", "--params", "7B", "--tokens-per-s", "100", "--gpu", "a10g"},
                                         {"cost", "--price-per-hour", "1", "--model", "llama-3.1-8b", "--gpu", "a10g"}}) {
    CliRun r = run_args(a);
    EXPECT_EQ(r.status, 2) << show(a);
    EXPECT_EQ(r.err.rfind("modelcalc: error: --gpu: NVIDIA A10G", 0), 0u) << show(a) << "\n" << r.err;
    EXPECT_NE(r.err.find("has no published dense bf16 peak; give --peak"), std::string::npos) << r.err;
  }
  // Supplying the peak is the way out.
  EXPECT_EQ(run_args({"size", "--model", "llama-3.1-8b", "--gpu", "a10g", "--peak", "125TFLOPS"}).status, 0);
}

class HardenFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("mc_harden_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(HardenFileTest, InputFilesThatAreNotRegularFilesAreOneLineErrors) {
  const std::string fifo = (dir_ / "fifo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::vector<std::pair<Args, std::string>> cases = {
      {{"size", "--config", fifo}, "FIFO"},
      {{"size", "--config", "/dev/zero"}, "device"},
      {{"diagnose", fifo}, "evidence file"},
      {{"paged-kv", "--lens-file", fifo, "--max-len", "4096", "--kv-bytes-per-token", "10"}, "--lens-file"},
      {{"tradeoff", fifo, "--weights", "quality=1"}, "candidates file"},
      {{"tradeoff", "/dev/zero", "--weights", "quality=1"}, "device"},
  };
  for (const auto& [args, want] : cases) {
    CliRun r = run_args(args);
    EXPECT_EQ(r.status, 2) << show(args);
    EXPECT_TRUE(r.out.empty());
    EXPECT_EQ(line_count(r.err), 1) << r.err;
    EXPECT_NE(r.err.find(want), std::string::npos) << show(args) << "\n" << r.err;
  }
}

TEST_F(HardenFileTest, DuplicateKeysAndHugeNumbersInInputFilesAreErrors) {
  const auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return (dir_ / name).string();
  };
  const std::string cands = write("c.json",
                                  R"([{"name": "a", "quality": 1, "quality": 2, "latency": 1, "throughput": 1,
                                       "cost": 1, "memory": 1}, {"name": "b", "quality": 1, "latency": 1,
                                       "throughput": 1, "cost": 1, "memory": 1}])");
  CliRun t = run_args({"tradeoff", cands, "--weights", "quality=1"});
  EXPECT_EQ(t.status, 2);
  EXPECT_NE(t.err.find("duplicate key \"quality\""), std::string::npos) << t.err;
  const std::string ev = write("e.json", R"({"measured": {"tokens_per_s_per_sequence": 1e400}})");
  CliRun e = run_args({"diagnose", ev, "--params", "13B", "--gpu", "h100"});
  EXPECT_EQ(e.status, 2) << e.err;  // was exit 1, "internal error: [json.exception.out_of_range.406]"
  EXPECT_EQ(e.err.find("internal error"), std::string::npos) << e.err;
  EXPECT_EQ(line_count(e.err), 1) << e.err;
}

TEST_F(HardenFileTest, BadInputTouchesNoFile) {
  const fs::path plot = dir_ / "plot.svg";
  CliRun r = run_args({"roofline", "--gpu", "a100", "--intensity", "nan", "--plot", plot.string()});
  EXPECT_EQ(r.status, 2);
  EXPECT_FALSE(fs::exists(plot));
  EXPECT_TRUE(fs::is_empty(dir_));
}

// The binary itself: a failed write to stdout is an error, not exit 0.
TEST(HardenBinaryTest, AFailedWriteToStdoutExitsNonZeroWithOneLine) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  const fs::path err = fs::temp_directory_path() / ("mc_full_" + std::to_string(::getpid()) + ".err");
  const std::string cmd = std::string(MODELCALC_BINARY) + " gpus > /dev/full 2> " + err.string();
  const int rc = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(rc));
  EXPECT_NE(WEXITSTATUS(rc), 0);
  std::ifstream in(err);
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  fs::remove(err);
  EXPECT_EQ(line_count(all), 1) << all;
  EXPECT_NE(all.find("cannot write to standard output"), std::string::npos) << all;
}

// ---- The battery's remaining deviations (issue #22), each once answered with exit 0 or the wrong line.

// One line on stderr naming `flag`, exit 2, nothing on stdout.
void ExpectRefused(const Args& args, const std::string& flag) {
  CliRun r = run_args(args);
  EXPECT_EQ(r.status, 2) << show(args) << "\n" << r.out;
  EXPECT_TRUE(r.out.empty()) << show(args);
  EXPECT_EQ(line_count(r.err), 1) << show(args) << "\n" << r.err;
  EXPECT_EQ(r.err.rfind("modelcalc: error: " + flag + ": ", 0), 0u) << show(args) << "\n" << r.err;
}

TEST_F(HardenFileTest, TradeoffNamesAreOneLineAndRatiosFinite) {
  const auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return (dir_ / name).string();
  };
  // A newline in a name would print a forged line in the text view.
  const std::string nl = write("nl.json", R"([{"name": "a\nFAKE: b", "quality": 0.8, "latency": 17, "throughput": 3778,
      "cost": 0.88, "memory": 227}, {"name": "b", "quality": 0.62, "latency": 15, "throughput": 4253, "cost": 0.2,
      "memory": 50}])");
  CliRun a = run_args({"tradeoff", nl, "--weights", "quality=1"});
  EXPECT_EQ(a.status, 2) << a.out;
  EXPECT_TRUE(a.out.empty());
  EXPECT_EQ(line_count(a.err), 1) << a.err;
  EXPECT_NE(a.err.find("one line of printable text"), std::string::npos) << a.err;
  // 9.894e14 against 1e-300: the ratio is not a finite number, so the text would print "∞×" beside a
  // JSON that holds both finite values. Refused, saying what is allowed.
  const std::string far = write("far.json", R"([{"name": "a", "quality": 0.8, "latency": 17, "throughput": 9.894e14,
      "cost": 0.88, "memory": 227}, {"name": "b", "quality": 0.62, "latency": 15, "throughput": 1e-300, "cost": 0.2,
      "memory": 50}])");
  CliRun b = run_args({"tradeoff", far, "--weights", "throughput=1"});
  EXPECT_EQ(b.status, 2) << b.out;
  EXPECT_EQ(line_count(b.err), 1) << b.err;
  EXPECT_NE(b.err.find("within 1e15"), std::string::npos) << b.err;
}

TEST(HardenTest, NonsenseHardwareAndRatesAreRefused) {
  // A 1 PB workspace on an 80 GB GPU, a 1e-300 B GPU, a peak below a GFLOP/s.
  ExpectRefused({"kv-budget", "--model", "llama-3.1-8b", "--gpu", "h100", "--workspace", "1PB"}, "--workspace");
  ExpectRefused({"size", "--model", "llama-3.1-8b", "--gpu", "h100", "--capacity", "1e-300"}, "--capacity");
  ExpectRefused({"size", "--model", "llama-3.1-8b", "--gpu", "h100", "--peak", "1e-300"}, "--peak");
  ExpectRefused({"mfu", "--params", "7B", "--tokens-per-s", "1000", "--gpu", "h100", "--peak", "1e-300"}, "--peak");
  // An MFU above 100 %: 2 x 7e9 FLOP x 1e27 tokens/s is far more than 989.4 TFLOP/s can do; the line says the
  // most it can (989.4e12 / 1.4e10 = 70,671.4 tokens/s).
  CliRun m = run_args({"mfu", "--params", "7B", "--tokens-per-s", "1e27", "--gpu", "h100"});
  EXPECT_EQ(m.status, 2);
  EXPECT_EQ(m.err.rfind("modelcalc: error: --tokens-per-s: ", 0), 0u) << m.err;
  EXPECT_NE(m.err.find("at most 70,671 tokens/s"), std::string::npos) << m.err;
  EXPECT_EQ(run_args({"mfu", "--params", "7B", "--tokens-per-s", "70000", "--gpu", "h100"}).status, 0);
}

TEST(HardenTest, UnknownFlagsGetTheProjectsLineWithADidYouMean) {
  CliRun r = run_args({"size", "--model", "llama-3.1-8b", "--seqq", "4096"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(r.out.empty());
  EXPECT_EQ(r.err, "modelcalc: error: '--seqq': unknown flag for size; did you mean --seq? (modelcalc size --help "
                   "lists them)\n");
  // "--gpu=" with nothing after '=' is an empty --gpu, not "argument not expected: gpt2".
  CliRun e = run_args({"size", "--gpu=", "--model", "gpt2"});
  EXPECT_EQ(e.status, 2);
  EXPECT_EQ(e.err, "modelcalc: error: --gpu: needs a value, got an empty string\n");
  // A value that looks like a flag is still the value of the flag before it.
  CliRun v = run_args({"size", "--model", "llama-3.1-8b", "--seq", "-5"});
  EXPECT_EQ(v.status, 2);
  EXPECT_EQ(v.err.rfind("modelcalc: error: --seq: ", 0), 0u) << v.err;
}

TEST(HardenTest, AnErrorNamesTheFlagAsTyped) {
  // --gpus 3 gives tp = 3, which does not divide 32 heads: the user typed --gpus.
  CliRun g = run_args({"size", "--model", "llama-3.1-8b", "--gpu", "h100", "--gpus", "3"});
  EXPECT_EQ(g.status, 2);
  EXPECT_EQ(g.err.rfind("modelcalc: error: --gpus: ", 0), 0u) << g.err;
  // Given as --tp, it is --tp's fault.
  CliRun t = run_args({"size", "--model", "llama-3.1-8b", "--gpu", "h100", "--tp", "3"});
  EXPECT_EQ(t.err.rfind("modelcalc: error: --tp: ", 0), 0u) << t.err;
  // An alias is named as typed: --context, not --seq.
  CliRun c = run_args({"size", "--model", "llama-3.1-8b", "--gpu", "h100", "--context", "0"});
  EXPECT_EQ(c.err.rfind("modelcalc: error: --context: ", 0), 0u) << c.err;
  CliRun k = run_args({"kv-budget", "--model", "llama-3.1-8b", "--gpu", "h100", "--seq", "0"});
  EXPECT_EQ(k.err.rfind("modelcalc: error: --seq: ", 0), 0u) << k.err;
}

TEST_F(HardenFileTest, PlotNeverReplacesAFileTheUserMayNotWrite) {
  const fs::path ro = dir_ / "readonly.svg";
  std::ofstream(ro) << "keep me";
  fs::permissions(ro, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  CliRun r = run_args({"roofline", "--gpu", "a100", "--intensity", "1", "--plot", ro.string()});
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(r.out.empty());
  EXPECT_NE(r.err.find("--plot"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("read-only"), std::string::npos) << r.err;
  std::ifstream in(ro);
  std::string kept((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(kept, "keep me");
  // Another user's file in a folder we may write: refused, and it keeps its owner.
  if (::geteuid() == 0) {
    const fs::path theirs = dir_ / "theirs.svg";
    std::ofstream(theirs) << "theirs";
    ASSERT_EQ(::chown(theirs.c_str(), 65534, 65534), 0);
    CliRun o = run_args({"roofline", "--gpu", "a100", "--intensity", "1", "--plot", theirs.string()});
    EXPECT_EQ(o.status, 2);
    EXPECT_NE(o.err.find("another user"), std::string::npos) << o.err;
    struct stat st {};
    ASSERT_EQ(::stat(theirs.c_str(), &st), 0);
    EXPECT_EQ(st.st_uid, 65534u);
  }
}

TEST(HardenBinaryTest, AStreamingCommandThatCannotWriteExitsOneAsTheOthersDo) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  // Enough rows to overflow any buffer, so the write fails while sweep streams.
  const std::string cmd = std::string(MODELCALC_BINARY) +
                          " sweep --model llama-3.1-8b --gpu h100 --seq 1:4000 --format csv > /dev/full 2> /dev/null";
  const int rc = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(rc));
  EXPECT_EQ(WEXITSTATUS(rc), 1);
  const std::string size = std::string(MODELCALC_BINARY) + " size --model gpt2 > /dev/full 2> /dev/null";
  const int rs = std::system(size.c_str());
  ASSERT_TRUE(WIFEXITED(rs));
  EXPECT_EQ(WEXITSTATUS(rs), 1);
}

TEST(HardenTest, AComparisonNeverReadsEqual) {
  // plan printed "TPOT: 50 ms > 50 ms" for 50.04 ms against a 50 ms target (both rounded to 3 digits).
  const auto [got, target] = format_brief_apart(0.05004, 0.05, Unit::kSeconds);
  EXPECT_EQ(got, "50.04 ms");
  EXPECT_EQ(target, "50 ms");
  const auto [a, b] = format_brief_apart(0.0712, 0.05, Unit::kSeconds);  // already apart: the brief forms
  EXPECT_EQ(a, "71.2 ms");
  EXPECT_EQ(b, "50 ms");
}

TEST(HardenTest, LibraryErrorsSayWhatIsAllowed) {
  // The library names the option field and what it takes, whatever front end called it.
  ModelSpec m = find_preset("llama-3.1-8b").value();
  GpuSpec g = find_gpu("h100").value();
  DeploymentOptions o;
  o.workspace_bytes = 1e15;  // 1 PB on an 80 GB GPU
  auto w = prepare_deployment(m, g, o);
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.status().message().rfind("workspace_bytes: must be less than one GPU's capacity", 0), 0u)
      << w.status().message();
  DeploymentOptions t;
  t.split.tp = 3;
  auto s = prepare_deployment(m, g, t);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("must divide the 32 attention heads"), std::string::npos) << s.status().message();
  KvBudgetOptions k;
  k.workspace = 1e15;
  auto kv = analyze_kv_budget(m, &g, k);
  ASSERT_FALSE(kv.ok());
  EXPECT_NE(kv.status().message().find("an allowance is a few GB"), std::string::npos) << kv.status().message();
}

// Every command x deployment flag: accepted, or refused with the project's one line naming it. The
// commands that answer a deployment question accept the whole vocabulary (sweep and plan search some of
// them as lists; training commands take their own split).
TEST(HardenTest, EveryCommandTakesOrRefusesEachDeploymentFlag) {
  const std::vector<std::pair<std::string, std::string>> flags = {
      {"--gpus", "1"},       {"--tp", "1"},          {"--pp", "1"},      {"--ep", "1"},
      {"--dp", "1"},         {"--seq", "2048"},      {"--context", "2048"}, {"--batch", "1"},
      {"--prompt", "512"},   {"--dtype", "bf16"},    {"--compute-dtype", "bf16"},
      {"--kv-dtype", "bf16"}, {"--reserve", "0.1"}};
  // Must accept (exit 0 on the base invocation with the flag added).
  const std::map<std::string, std::set<std::string>> must = {
      {"size", {"--gpus", "--tp", "--pp", "--ep", "--dp", "--seq", "--context", "--batch", "--prompt", "--dtype",
                "--compute-dtype", "--kv-dtype", "--reserve"}},
      {"kv-budget", {"--gpus", "--tp", "--pp", "--ep", "--dp", "--seq", "--context", "--batch", "--prompt", "--dtype",
                     "--compute-dtype", "--kv-dtype", "--reserve"}},
      {"diagnose", {"--gpus", "--tp", "--pp", "--ep", "--dp", "--seq", "--context", "--batch", "--prompt", "--dtype",
                    "--compute-dtype", "--kv-dtype", "--reserve"}},
      {"cost", {"--gpus", "--tp", "--pp", "--ep", "--dp", "--seq", "--context", "--batch", "--prompt", "--dtype",
                "--compute-dtype", "--kv-dtype", "--reserve"}},
      {"roofline", {"--gpus", "--tp", "--pp", "--ep", "--dp", "--seq", "--context", "--batch", "--prompt", "--dtype",
                    "--compute-dtype", "--kv-dtype", "--reserve"}},
      {"sweep", {"--gpus", "--tp", "--pp", "--ep", "--dp", "--seq", "--context", "--batch", "--dtype", "--kv-dtype"}},
      {"plan", {"--ep", "--batch", "--dtype", "--kv-dtype"}},
      {"paged-kv", {"--seq", "--context", "--kv-dtype"}},
  };
  int accepted = 0;
  for (const auto& [cmd, list] : bases()) {
    // The base invocation with a model (the last one listed that has one), so the deployment flags apply.
    // (Not a serving-layout one: its --gpus is the replica's and its split is the layout's; nor the sliding-pool
    // one, whose 120B model needs more than one GPU in bf16.)
    const Args* base = &list.front();
    for (const Args& a : list) {
      if ((has_flag(a, "--model") || has_flag(a, "-L")) && !has_flag(a, "--dp-attention") &&
          !has_flag(a, "--disaggregated") && !has_flag(a, "--swa-full-tokens-ratio")) {
        base = &a;
      }
    }
    for (const auto& [flag, value] : flags) {
      const Args args = with_value(*base, flag, value);
      CliRun r = run_args(args);
      const auto m = must.find(cmd);
      const bool required = m != must.end() && m->second.count(flag) > 0;
      if (required) {
        EXPECT_EQ(r.status, 0) << show(args) << "\n" << r.err;
        accepted += r.status == 0;
        continue;
      }
      if (r.status == 0) continue;  // taken (a training split, a search list)
      EXPECT_EQ(r.status, 2) << show(args);
      EXPECT_TRUE(r.out.empty()) << show(args);
      EXPECT_EQ(line_count(r.err), 1) << show(args) << "\n" << r.err;
      EXPECT_EQ(r.err.rfind("modelcalc: error: ", 0), 0u) << r.err;
      // The flag, or the flag it must agree with (--gpus = tp x cp x pp x dp in train-memory).
      EXPECT_TRUE(r.err.find(flag) != std::string::npos || r.err.rfind("modelcalc: error: --", 0) == 0)
          << show(args) << "\n" << r.err;
      EXPECT_EQ(r.err.find("not expected"), std::string::npos) << "CLI11's words, not the project's: " << r.err;
    }
  }
  EXPECT_GE(accepted, 80);
}

}  // namespace
}  // namespace modelcalc
