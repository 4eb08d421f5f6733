// The engine flags end to end: each engine's accounting in kv-budget's JSON
// as the issue names it, the predicted siblings of the ceiling's keys, and
// bad input refused in one line naming the flag.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test_util.h"

namespace modelcalc {
namespace {

TEST(CmdEngineTest, KvBudgetPrintsWhatTheEnginesLogPrints) {
  for (const char* engine : {"vllm", "trtllm", "sglang"}) {
    const CliRun r = run_args({"kv-budget", "--model", "llama-3.1-8b", "--gpu", "h100", "--engine", engine, "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    const nlohmann::json e = r.json()["engine"];
    EXPECT_EQ(e["profile"], engine);
    for (const char* k : {"name", "usable_bytes", "weights_bytes", "non_torch_bytes", "activation_peak_bytes",
                          "kv_cache_bytes_per_gpu", "kv_cache_tokens", "gpu_blocks", "max_concurrency"}) {
      EXPECT_TRUE(e.contains(k)) << engine << " " << k;
    }
    // tokens = blocks x block_size; concurrency = tokens / max_model_len
    EXPECT_EQ(e["kv_cache_tokens"].get<int64_t>(), e["gpu_blocks"].get<int64_t>() * e["block_size"].get<int64_t>());
    EXPECT_DOUBLE_EQ(e["max_concurrency"].get<double>(),
                     e["kv_cache_tokens"].get<double>() / e["max_model_len"].get<double>());
    // Each of the three has published rows of its own in the shared data (data/engine_profiles.tsv lists its
    // fitted parameters), and says so.
    const std::string t = e["time_parameters"];
    EXPECT_NE(t.find("fitted on published"), std::string::npos) << t;
  }
  const CliRun text = run_args({"kv-budget", "--model", "llama-3.1-8b", "--gpu", "h100", "--engine", "vllm"});
  ASSERT_EQ(text.status, 0);
  for (const char* s : {"# GPU blocks", "GPU KV cache size", "Maximum concurrency for 131,072 tokens per request",
                        "KV cache memory per GPU"}) {
    EXPECT_NE(text.out.find(s), std::string::npos) << s;
  }
}

TEST(CmdEngineTest, EveryOutputNamesTheRelease) {
  // A version picks the family (vLLM before 0.8: V0); without one, the current release, said.
  const CliRun v0 = run_args({"kv-budget", "--model", "llama-3.1-8b", "--gpu", "h100", "--engine", "vllm@0.6.5", "--json"});
  ASSERT_EQ(v0.status, 0) << v0.err;
  EXPECT_EQ(v0.json()["engine"]["profile"], "vllm-v0");
  EXPECT_EQ(v0.json()["engine"]["release"], "vllm-v0@0.6.5");
  const CliRun cur = run_args({"kv-budget", "--model", "llama-3.1-8b", "--gpu", "h100", "--engine", "vllm"});
  ASSERT_EQ(cur.status, 0) << cur.err;
  EXPECT_NE(cur.out.find("Engine (predicted): vLLM V1, current release"), std::string::npos) << cur.out;
  const CliRun trt = run_args({"size", "--model", "llama-3.1-8b", "--gpu", "h100", "--engine", "trtllm@1.0", "--json"});
  ASSERT_EQ(trt.status, 0) << trt.err;
  EXPECT_EQ(trt.json()["engine"]["profile"], "trtllm-pytorch");
  const CliRun plan = run_args({"plan", "--model", "llama-3.1-8b", "--gpu", "h100", "--max-gpus", "1", "--isl", "1000",
                                "--osl", "100", "--engine", "sglang", "--json"});
  ASSERT_EQ(plan.status, 0) << plan.err;
  EXPECT_EQ(plan.json()["engine"]["release"], "sglang");
  EXPECT_EQ(plan.json()["engine"]["release_name"], "SGLang, current release");
}

TEST(CmdEngineTest, EveryEngineFigureHasItsPredictedSibling) {
  const CliRun r = run_args({"size", "--model", "llama-3.1-70b", "--gpu", "h100", "--gpus", "4", "--dtype", "fp8",
                             "--seq", "4096", "--batch", "32", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = r.json();
  for (const char* obj : {"decode_step", "prefill", "memory_per_gpu"}) {
    ASSERT_TRUE(j[obj].contains("predicted")) << obj;
  }
  for (const char* k : {"seconds", "tokens_per_s_per_sequence", "tokens_per_s_aggregate", "fits", "regime",
                        "bytes_per_gpu", "flops_per_gpu", "comm_seconds", "compute_seconds", "memory_seconds"}) {
    EXPECT_TRUE(j["decode_step"]["predicted"].contains(k)) << k;
  }
  for (const char* k : {"capacity", "reserve", "workspace", "weights", "kv_per_token", "kv_per_sequence",
                        "free_for_kv", "max_sequences"}) {
    EXPECT_TRUE(j["memory_per_gpu"]["predicted"].contains(k)) << k;
  }
  EXPECT_EQ(j["engine"]["profile"], "trtllm");
  // The ceiling bounds the prediction.
  EXPECT_GE(j["decode_step"]["predicted"]["seconds"].get<double>(), j["decode_step"]["seconds"].get<double>());
  EXPECT_GE(j["prefill"]["predicted"]["seconds"].get<double>(), j["prefill"]["seconds"].get<double>());
  EXPECT_LE(j["memory_per_gpu"]["predicted"]["max_sequences"].get<int64_t>(),
            j["memory_per_gpu"]["max_sequences"].get<int64_t>());
}

TEST(CmdEngineTest, BadEngineInputIsOneLineNamingTheFlag) {
  const std::vector<std::string> base = {"size", "--model", "llama-3.1-8b", "--gpu", "h100"};
  struct Case {
    std::vector<std::string> extra;
    std::string flag;
  } cases[] = {
      {{"--engine", "tgi"}, "--engine"},
      {{"--engine", "vllm@0.6.x"}, "--engine"},
      {{"--engine", "trtllm-pytorch@0.16"}, "--engine"},  // before the PyTorch backend existed
      {{"--engine", "vllm", "--gpu-memory-utilization", "0"}, "--gpu-memory-utilization"},
      {{"--engine", "vllm", "--gpu-memory-utilization", "1.01"}, "--gpu-memory-utilization"},
      {{"--kv-cache-free-gpu-mem-fraction", "0"}, "--kv-cache-free-gpu-mem-fraction"},
      {{"--engine", "sglang", "--mem-fraction-static", "2"}, "--mem-fraction-static"},
      {{"--engine", "vllm", "--block-size", "0"}, "--block-size"},
      {{"--engine", "vllm", "--max-model-len", "131073"}, "--max-model-len"},  // above max_position_embeddings
      {{"--gpu-memory-utilization", "0.9"}, "--gpu-memory-utilization"},     // vLLM's flag under trtllm
      {{"--max-num-seqs", "0"}, "--max-num-seqs"},
      {{"--max-num-batched-tokens", "-5"}, "--max-num-batched-tokens"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = base;
    args.insert(args.end(), c.extra.begin(), c.extra.end());
    const CliRun r = run_args(args);
    EXPECT_EQ(r.status, 2) << c.flag;
    EXPECT_EQ(r.out, "") << c.flag;
    EXPECT_EQ(line_count(r.err), 1) << r.err;
    EXPECT_NE(r.err.find(c.flag + ": "), std::string::npos) << r.err;
  }
  // --allow-long-max-model-len overrides the model's limit.
  std::vector<std::string> ok = base;
  for (const char* a : {"--engine", "vllm", "--max-model-len", "131073", "--allow-long-max-model-len"}) ok.push_back(a);
  EXPECT_EQ(run_args(ok).status, 0);
}

}  // namespace
}  // namespace modelcalc
