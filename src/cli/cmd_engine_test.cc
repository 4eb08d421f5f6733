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

// Each layer kind kept as the release keeps it (issue 36): chunked layers counted, sliding windows as each
// engine's allocator keeps them.
nlohmann::json engine_run(std::vector<std::string> args) {
  args.push_back("--json");
  const CliRun r = run_args(args);
  EXPECT_EQ(r.status, 0) << r.err;
  return r.status == 0 ? r.json() : nlohmann::json::object();
}

TEST(CmdEngineTest, ChunkedLayersAreInThePredictedKv) {
  // Llama-4-Scout: 48 attention layers (12 full, 36 chunked of 8,192), 8 KV heads of 128 over TP 8 = one head
  // per GPU: K and V x 1 x 128 x 2 B = 512 B per layer, x 48 = 24,576 B per token. TensorRT-LLM keeps the
  // chunked layers whole: 8,192 tokens (128 blocks of 64) x 24,576 = 201,326,592 B per sequence.
  const nlohmann::json j =
      engine_run({"size", "--model", "llama-4-scout", "--gpu", "h100", "--gpus", "8", "--seq", "8192"});
  EXPECT_EQ(j["memory_per_gpu"]["predicted"]["kv_per_token"].get<int64_t>(), 24576);
  EXPECT_EQ(j["memory_per_gpu"]["kv_per_token"].get<int64_t>(), 24576);  // the ceiling's, the same layers
  EXPECT_EQ(j["memory_per_gpu"]["predicted"]["kv_per_sequence"].get<int64_t>(), int64_t{24576} * 8192);
  // vLLM V1 at 32K: a chunked layer keeps min(8,192 + 8,192 batched tokens, T) = 16,384 tokens, a full
  // layer 32,768: 512 B x (12 x 32,768 + 36 x 16,384) = 512 x 983,040 = 503,316,480 B.
  const nlohmann::json v = engine_run({"size", "--model", "llama-4-scout", "--gpu", "h100", "--gpus", "8", "--seq",
                                       "32768", "--engine", "vllm"});
  EXPECT_EQ(v["memory_per_gpu"]["predicted"]["kv_per_sequence"].get<int64_t>(), int64_t{503316480});
  EXPECT_EQ(v["engine"]["chunk_tokens_kept"].get<int64_t>(), 16384);
}

TEST(CmdEngineTest, VllmV1KeepsASlidingLayersWindowPlusAStepAndABlock) {
  // gpt-oss-120b: 36 layers alternating full and sliding (window 128), 8 KV heads of 64: K and V x 8 x 64 x
  // 2 B = 2,048 B per token per layer. vLLM V1 (max_num_batched_tokens 8,192 on an H100): a sliding layer
  // keeps min(128 - 1 + 8,192, T) = 8,319 tokens -> ceil(8,319 / 16) + 1 = 521 blocks = 8,336 tokens.
  // 2,048 x (18 x 32,768 + 18 x 8,336) = 2,048 x 739,872 = 1,515,257,856 B.
  const nlohmann::json g = engine_run(
      {"size", "--model", "gpt-oss-120b", "--gpu", "h100", "--seq", "32768", "--engine", "vllm"});
  EXPECT_EQ(g["memory_per_gpu"]["predicted"]["kv_per_sequence"].get<int64_t>(), int64_t{1515257856});
  EXPECT_EQ(g["engine"]["window_tokens_kept"].get<int64_t>(), 8319);
  // Before the hybrid manager (0.9) the sliding layers kept the whole context: 2,048 x 36 x 32,768.
  const nlohmann::json old = engine_run(
      {"size", "--model", "gpt-oss-120b", "--gpu", "h100", "--seq", "32768", "--engine", "vllm@0.9"});
  EXPECT_EQ(old["memory_per_gpu"]["predicted"]["kv_per_sequence"].get<int64_t>(), int64_t{2415919104});
  // Gemma-3-27B: 62 layers, every 6th full (10 full, 52 sliding of 1,024), 16 KV heads of 128: 8,192 B per
  // token per layer. Window: min(1,023 + 8,192, T) = 9,215 -> ceil(9,215 / 16) + 1 = 577 blocks = 9,232
  // tokens. 8,192 x (10 x 32,768 + 52 x 9,232) = 8,192 x 807,744 = 6,617,038,848 B.
  const nlohmann::json gm = engine_run(
      {"size", "--model", "gemma-3-27b", "--gpu", "h100", "--seq", "32768", "--engine", "vllm"});
  EXPECT_EQ(gm["memory_per_gpu"]["predicted"]["kv_per_sequence"].get<int64_t>(), int64_t{6617038848});
}

TEST(CmdEngineTest, SglangGivesTheSlidingLayersAPoolOfTheirOwn) {
  // gpt-oss-120b on SGLang: full tokens F from KV = F x (18 x 2,048 + 0.8 x 18 x 2,048) (page size 1), the
  // window pool 0.8 F (swa_full_tokens_ratio).
  const nlohmann::json j = engine_run(
      {"kv-budget", "--model", "gpt-oss-120b", "--gpu", "h100", "--seq", "32768", "--engine", "sglang"});
  const nlohmann::json e = j["engine"];
  const double kv = e["kv_cache_bytes_per_gpu"].get<double>();
  const int64_t full = static_cast<int64_t>(kv / (18 * 2048 + 0.8 * 18 * 2048));
  EXPECT_EQ(e["kv_cache_tokens"].get<int64_t>(), full);
  EXPECT_EQ(e["swa_pool_tokens"].get<int64_t>(), static_cast<int64_t>(0.8 * static_cast<double>(full)));
}

TEST(CmdEngineTest, SglangsSwaRatioSplitsThePool) {
  // --swa-full-tokens-ratio r: KV = F x (18 x 2,048 + r x 18 x 2,048), the window pool r F; the memory itself is
  // unchanged. r = 0.5 gives F = KV / 55,296.
  const nlohmann::json j = engine_run({"kv-budget", "--model", "gpt-oss-120b", "--gpu", "h100", "--seq", "32768",
                                       "--engine", "sglang", "--swa-full-tokens-ratio", "0.5"});
  const nlohmann::json e = j["engine"];
  const double kv = e["kv_cache_bytes_per_gpu"].get<double>();
  const int64_t full = static_cast<int64_t>(kv / 55296.0);
  EXPECT_EQ(e["kv_cache_tokens"].get<int64_t>(), full);
  EXPECT_EQ(e["swa_pool_tokens"].get<int64_t>(), full / 2);
  const nlohmann::json d = engine_run(
      {"kv-budget", "--model", "gpt-oss-120b", "--gpu", "h100", "--seq", "32768", "--engine", "sglang"});
  EXPECT_EQ(d["engine"]["kv_cache_bytes_per_gpu"], e["kv_cache_bytes_per_gpu"]);
  // Refused, one line naming the flag: another engine's, outside (0, 1], a model with no sliding layers.
  for (const std::vector<std::string>& bad :
       {std::vector<std::string>{"--model", "gpt-oss-120b", "--engine", "vllm", "--swa-full-tokens-ratio", "0.5"},
        {"--model", "gpt-oss-120b", "--engine", "sglang", "--swa-full-tokens-ratio", "1.5"},
        {"--model", "gpt-oss-120b", "--engine", "sglang", "--swa-full-tokens-ratio", "0"},
        {"--model", "llama-3.1-8b", "--engine", "sglang", "--swa-full-tokens-ratio", "0.5"}}) {
    std::vector<std::string> a = {"kv-budget", "--gpu", "h100"};
    a.insert(a.end(), bad.begin(), bad.end());
    const CliRun r = run_args(a);
    EXPECT_EQ(r.status, 2) << bad[1];
    EXPECT_TRUE(r.out.empty());
    EXPECT_EQ(r.err.rfind("modelcalc: error: --swa-full-tokens-ratio: ", 0), 0u) << r.err;
  }
}

TEST(CmdEngineTest, VllmV0ProfilesAStepOfMaxModelLenTokens) {
  // vLLM V0 without chunked prefill (max_model_len <= 32K) profiles a step of max(max_model_len, 2,048) tokens,
  // so its activation peak follows max_model_len (logs k08/k09 of the shared engine-memory logs: 2.07 GiB at
  // 20,000, 2.99 at 29,000). Per token: (3 x 4,096 + 1.5 x 2 x 14,336) x 2 B = 110,592 B, so 9,000 more
  // tokens add 995,328,000 B; the sequences' logits (256 of them) are the same in both.
  auto run = [](const char* len) {
    return engine_run({"kv-budget", "--model", "llama-3.1-8b", "--gpu", "rtx-4090", "--engine", "vllm@0.6.4",
                       "--max-model-len", len, "--seq", "4096"})["engine"];
  };
  const nlohmann::json a = run("20000"), b = run("29000"), c = run("65536");
  EXPECT_EQ(a["max_num_batched_tokens"].get<int64_t>(), 20000);
  EXPECT_EQ(a["max_num_seqs"].get<int64_t>(), 256);
  EXPECT_DOUBLE_EQ(b["activation_peak_bytes"].get<double>() - a["activation_peak_bytes"].get<double>(), 995328000.0);
  EXPECT_LT(b["kv_cache_bytes_per_gpu"].get<double>(), a["kv_cache_bytes_per_gpu"].get<double>());
  // Above 32K chunked prefill is on by default, with 512 batched tokens.
  EXPECT_EQ(c["max_num_batched_tokens"].get<int64_t>(), 512);
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

// Without --engine the prediction is the GPU vendor's engine's (engine_rules.h default_engine_for): vLLM on an
// MI300X, which TensorRT-LLM does not run on, saying why; TensorRT-LLM on an H100.
TEST(CmdEngineTest, TheDefaultEngineFollowsTheGpusVendor) {
  const CliRun amd = run_args({"size", "--model", "llama-3.1-8b", "--gpu", "mi300x", "--seq", "4096", "--json"});
  ASSERT_EQ(amd.status, 0) << amd.err;
  const nlohmann::json a = amd.json();
  EXPECT_EQ(a["engine"]["profile"], "vllm");
  EXPECT_NE(a["engine"]["chosen_by"].get<std::string>().find("AMD"), std::string::npos);
  EXPECT_TRUE(a["decode_step"].contains("predicted"));
  // The same as naming it, figure for figure.
  const CliRun named =
      run_args({"size", "--model", "llama-3.1-8b", "--gpu", "mi300x", "--seq", "4096", "--engine", "vllm", "--json"});
  ASSERT_EQ(named.status, 0) << named.err;
  EXPECT_EQ(a["decode_step"]["predicted"], named.json()["decode_step"]["predicted"]);
  EXPECT_FALSE(named.json()["engine"].contains("chosen_by"));  // named, not chosen
  const CliRun nv = run_args({"size", "--model", "llama-3.1-8b", "--gpu", "h100", "--seq", "4096", "--json"});
  ASSERT_EQ(nv.status, 0) << nv.err;
  EXPECT_EQ(nv.json()["engine"]["profile"], "trtllm");
  // Naming TensorRT-LLM on the MI300X is refused by its row.
  const CliRun trt =
      run_args({"size", "--model", "llama-3.1-8b", "--gpu", "mi300x", "--seq", "4096", "--engine", "trtllm"});
  EXPECT_EQ(trt.status, 2);
  EXPECT_NE(trt.err.find("trtllm-nvidia"), std::string::npos) << trt.err;
}

// A TPU runs no profiled engine: the ceiling alone, engine.profile null with the reason, no predicted
// siblings; --engine applies one anyway; an engine's flag without one configures nothing and is refused.
TEST(CmdEngineTest, AGpuNoEngineRunsOnHasNoPrediction) {
  for (const char* cmd : {"size", "kv-budget"}) {
    const CliRun r = run_args({cmd, "--model", "llama-3.1-8b", "--gpu", "tpu-v5e", "--seq", "4096", "--json"});
    ASSERT_EQ(r.status, 0) << cmd << r.err;
    const nlohmann::json j = r.json();
    EXPECT_TRUE(j["engine"]["profile"].is_null()) << cmd;
    EXPECT_NE(j["engine"]["profile_reason"].get<std::string>().find("TPU"), std::string::npos) << cmd;
    EXPECT_FALSE(j["decode_step"].contains("predicted")) << cmd;
    EXPECT_FALSE(j["memory_per_gpu"].contains("predicted")) << cmd;
    EXPECT_GT(j["decode_step"]["tokens_per_s_per_sequence"].get<double>(), 0) << cmd;  // the ceiling stays
  }
  const CliRun serving =
      run_args({"size", "--model", "llama-3.1-8b", "--gpu", "tpu-v5e", "--seq", "3000", "--prompt", "2000", "--json"});
  ASSERT_EQ(serving.status, 0) << serving.err;
  EXPECT_TRUE(serving.json()["serving"].contains("tpot_s"));
  EXPECT_FALSE(serving.json()["serving"].contains("predicted"));
  const CliRun named = run_args(
      {"size", "--model", "llama-3.1-8b", "--gpu", "tpu-v5e", "--seq", "4096", "--engine", "vllm", "--json"});
  ASSERT_EQ(named.status, 0) << named.err;
  EXPECT_EQ(named.json()["engine"]["profile"], "vllm");
  const CliRun flag = run_args({"size", "--model", "llama-3.1-8b", "--gpu", "tpu-v5e", "--seq", "4096",
                                "--max-num-seqs", "64"});
  EXPECT_EQ(flag.status, 2);
  EXPECT_TRUE(flag.out.empty());
  EXPECT_EQ(flag.err.rfind("modelcalc: error: --max-num-seqs: ", 0), 0u) << flag.err;
}

// plan without --engine: each GPU kind under its vendor's engine (configs[].engine, and a column in the
// text), a GPU no profile runs on ranked apart by the ceiling alone and labelled (ceiling_only: no prediction,
// no engine), each of its rows the ceiling `plan --rank-by ceiling` gives it.
TEST(CmdEngineTest, PlanRanksEachGpuUnderItsVendorsEngine) {
  const std::vector<std::string> base = {"plan", "--model", "llama-3.1-8b", "--isl", "1000", "--osl", "200",
                                         "--tpot", "50ms"};
  auto with = [&](std::vector<std::string> more) {
    std::vector<std::string> a = base;
    a.insert(a.end(), more.begin(), more.end());
    return a;
  };
  const CliRun r = run_args(with({"--gpu", "mi300x,tpu-v5e", "--json"}));
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = r.json();
  EXPECT_TRUE(j["engine"]["profile"].is_null());
  EXPECT_EQ(j["engine"]["no_engine"], nlohmann::json::array({"tpu-v5e"}));
  ASSERT_FALSE(j["configs"].empty());
  for (const auto& c : j["configs"]) {
    EXPECT_EQ(c["gpu"], "mi300x");
    EXPECT_EQ(c["engine"]["profile"], "vllm");
  }
  // The TPU changes nothing in the predicted ranking, nor in what it counts as unsupported.
  const CliRun amd = run_args(with({"--gpu", "mi300x", "--json"}));
  ASSERT_EQ(amd.status, 0) << amd.err;
  const nlohmann::json aj = amd.json();
  EXPECT_EQ(j["configs"], aj["configs"]);
  EXPECT_EQ(j["rejected"]["unsupported"], aj["rejected"]["unsupported"]);
  ASSERT_FALSE(j["ceiling_only"].empty());
  // The TPU alone ranked by the ceiling: --engine vllm (any engine: the ceiling does not read it) with
  // --rank-by ceiling gives the same configurations, figure for figure.
  const CliRun tpu = run_args(with({"--gpu", "tpu-v5e", "--engine", "vllm", "--rank-by", "ceiling", "--json"}));
  ASSERT_EQ(tpu.status, 0) << tpu.err;
  const nlohmann::json tj = tpu.json();
  const nlohmann::json& ranked = tj["configs"];
  ASSERT_EQ(ranked.size(), j["ceiling_only"].size());
  for (size_t i = 0; i < ranked.size(); ++i) {
    const nlohmann::json& c = j["ceiling_only"][i];
    EXPECT_TRUE(c["engine"].is_null());
    EXPECT_FALSE(c.contains("predicted"));
    for (const char* k : {"gpu", "tp", "pp", "batch", "gpus", "tpot_s", "ttft_s", "usd_per_million_output_tokens"}) {
      EXPECT_EQ(c[k], ranked[i][k]) << i << " " << k;
    }
  }
  const CliRun t = run_args(with({"--gpu", "mi300x,tpu-v5e"}));
  ASSERT_EQ(t.status, 0) << t.err;
  EXPECT_NE(t.out.find("No engine profile runs on tpu-v5e"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find(" vllm "), std::string::npos) << t.out;  // the rows' engine column
}

// size's answer leads with the prediction, the ceiling beside it; on a GPU no profile runs on, a line saying there
// is none and why, then the ceiling alone, untagged.
TEST(CmdEngineTest, SizeLeadsWithThePrediction) {
  auto first_line = [](const std::string& out) {
    const size_t a = out.find("Answer (the deployment engine");
    const size_t b = out.find('\n', a) + 1;
    return out.substr(b, out.find('\n', b) - b);
  };
  const CliRun h = run_args({"size", "--model", "llama-3.1-8b", "--gpu", "h100", "--seq", "4096"});
  ASSERT_EQ(h.status, 0) << h.err;
  EXPECT_EQ(first_line(h.out).rfind("  Decode per sequence, predicted", 0), 0u) << first_line(h.out);
  EXPECT_NE(h.out.find("  Decode per sequence, ceiling"), std::string::npos);
  const CliRun t = run_args({"size", "--model", "llama-3.1-8b", "--gpu", "tpu-v5e", "--seq", "4096"});
  ASSERT_EQ(t.status, 0) << t.err;
  EXPECT_EQ(first_line(t.out).rfind("  Prediction ", 0), 0u) << first_line(t.out);  // "none: ..." and why
  EXPECT_NE(first_line(t.out).find("none: no engine profile runs on Google TPUs"), std::string::npos);
  EXPECT_NE(t.out.find("  Decode per sequence  "), std::string::npos);
  EXPECT_EQ(t.out.find("predicted"), std::string::npos);
}

// Flags under the vendors' engines: an engine's own flag reaches the GPUs that run it (plan over NVIDIA and AMD
// GPUs takes TensorRT-LLM's fraction for the NVIDIA ones), is refused where the one GPU runs another engine,
// naming both; kv-budget's --block-size is its proposal's block on a TPU too; a TPU-only plan answers (exit 0)
// by the ceiling.
TEST(CmdEngineTest, EngineFlagsReachTheGpusThatRunTheirEngine) {
  const CliRun mixed = run_args({"plan", "--model", "llama-3.1-8b", "--isl", "1000", "--osl", "200", "--gpu",
                                 "h100,mi300x", "--kv-cache-free-gpu-mem-fraction", "0.5", "--json"});
  ASSERT_EQ(mixed.status, 0) << mixed.err;
  const CliRun h100 = run_args({"plan", "--model", "llama-3.1-8b", "--isl", "1000", "--osl", "200", "--gpu", "h100",
                                "--kv-cache-free-gpu-mem-fraction", "0.5", "--json"});
  ASSERT_EQ(h100.status, 0) << h100.err;
  const nlohmann::json mj = mixed.json(), hj = h100.json();
  for (const auto& c : hj["configs"]) {  // each H100 configuration at the fraction given is in the mixed plan
    bool found = false;
    for (const auto& d : mj["configs"]) found = found || (d["gpu"] == c["gpu"] && d["predicted"] == c["predicted"]);
    if (c["usd_per_million_output_tokens"] <= mj["configs"].back()["usd_per_million_output_tokens"]) {
      EXPECT_TRUE(found) << c.dump();
    }
  }
  const CliRun amd = run_args({"size", "--model", "llama-3.1-8b", "--gpu", "mi300x",
                               "--kv-cache-free-gpu-mem-fraction", "0.9"});
  EXPECT_EQ(amd.status, 2);
  EXPECT_EQ(amd.err.rfind("modelcalc: error: --kv-cache-free-gpu-mem-fraction: applies to --engine trtllm", 0), 0u)
      << amd.err;
  EXPECT_NE(amd.err.find("vLLM"), std::string::npos) << amd.err;
  const CliRun onlyamd = run_args({"plan", "--model", "llama-3.1-8b", "--isl", "1000", "--osl", "200", "--gpu",
                                   "mi300x", "--kv-cache-free-gpu-mem-fraction", "0.9"});
  EXPECT_EQ(onlyamd.status, 2);  // no GPU searched runs TensorRT-LLM
  EXPECT_EQ(onlyamd.err.rfind("modelcalc: error: --kv-cache-free-gpu-mem-fraction: ", 0), 0u) << onlyamd.err;
  const CliRun block = run_args({"kv-budget", "--model", "llama-3.1-8b", "--gpu", "tpu-v5e", "--block-size", "32"});
  EXPECT_EQ(block.status, 0) << block.err;
  const CliRun tpu = run_args({"plan", "--model", "llama-3.1-8b", "--isl", "1000", "--osl", "200", "--gpu", "tpu-v6e"});
  EXPECT_EQ(tpu.status, 0) << tpu.err;
  EXPECT_EQ(tpu.out.find("Nothing meets"), std::string::npos) << tpu.out;
  const CliRun tpuflag = run_args({"plan", "--model", "llama-3.1-8b", "--isl", "1000", "--osl", "200", "--gpu",
                                   "tpu-v6e", "--max-num-seqs", "64"});
  EXPECT_EQ(tpuflag.status, 2);
  EXPECT_EQ(tpuflag.err.rfind("modelcalc: error: --max-num-seqs: ", 0), 0u) << tpuflag.err;
}

}  // namespace modelcalc
