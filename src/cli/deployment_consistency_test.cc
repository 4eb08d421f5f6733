// One engine, one answer: every command that reports a deployment gives the
// same fit count, ceilings and regime for the same setup, because each reads
// the deployment engine (modelcalc/deployment.h). Drives the CLI in-process.
// Expected values are not pasted: each command is compared with the others
// and with the library call for the same options.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "modelcalc/deployment.h"
#include "modelcalc/gpu.h"
#include "modelcalc/hf_config.h"
#include "test_util.h"

namespace modelcalc {
namespace {

struct Case {
  std::string model;
  int64_t gpus;
  std::string dtype;
  std::string gpu;
};

// The keys every deployment command must agree on.
void expect_same(const nlohmann::json& a, const nlohmann::json& b, const std::string& what) {
  EXPECT_EQ(a["memory_per_gpu"]["max_sequences"], b["memory_per_gpu"]["max_sequences"]) << what;
  EXPECT_EQ(a["memory_per_gpu"]["weights"], b["memory_per_gpu"]["weights"]) << what;
  EXPECT_EQ(a["memory_per_gpu"]["kv_per_sequence"], b["memory_per_gpu"]["kv_per_sequence"]) << what;
  EXPECT_EQ(a["decode_step"]["tokens_per_s_per_sequence"], b["decode_step"]["tokens_per_s_per_sequence"]) << what;
  EXPECT_EQ(a["decode_step"]["tokens_per_s_aggregate"], b["decode_step"]["tokens_per_s_aggregate"]) << what;
  EXPECT_EQ(a["decode_step"]["regime"], b["decode_step"]["regime"]) << what;
  EXPECT_EQ(a["prefill"]["seconds"], b["prefill"]["seconds"]) << what;
}

std::vector<Case> setups() {
  // Dense GQA, MHA, MoE (Mixtral; DeepSeek-V3 is MoE + MLA), MLA, sliding windows.
  const char* models[] = {"llama-3.1-8b", "llama-2-7b", "mixtral-8x7b-v0.1", "deepseek-v3", "deepseek-v2-lite",
                          "gemma-2-9b", "mistral-7b-v0.1"};
  std::vector<Case> v;
  for (const char* m : models) {
    for (int64_t g : {1, 2, 8, 16}) {
      for (const char* d : {"fp16", "fp8", "int4", "nvfp4", "mxfp4"}) v.push_back({m, g, d, "h100"});
      // FP4 where the GPU has an fp4 peak (B200) as well as where it falls back to bf16 (H100).
      for (const char* d : {"nvfp4", "mxfp4"}) v.push_back({m, g, d, "b200"});
    }
  }
  return v;
}

TEST(DeploymentConsistencyTest, SizeKvBudgetAndTheLibraryAgree) {
  int compared = 0;
  for (const Case& s : setups()) {
    const GpuSpec gpu = find_gpu(s.gpu).value();
    const std::string what = s.model + " x" + std::to_string(s.gpus) + " " + s.dtype + " on " + s.gpu;
    const std::vector<std::string> common = {"--model", s.model, "--gpu", s.gpu, "--gpus", std::to_string(s.gpus),
                                             "--dtype", s.dtype, "--json"};
    std::vector<std::string> size = {"size", "--seq", "8192"};
    size.insert(size.end(), common.begin(), common.end());
    std::vector<std::string> kv = {"kv-budget", "--context", "8192"};
    kv.insert(kv.end(), common.begin(), common.end());
    const CliRun a = run_args(size), b = run_args(kv);
    // A split that does not divide the heads is refused by both, naming --gpus/--tp.
    ASSERT_EQ(a.status, b.status) << what << "\n" << a.err << b.err;
    if (a.status != 0) {
      EXPECT_EQ(line_count(a.err), 1) << what;
      continue;
    }
    expect_same(a.json(), b.json(), what);
    // The library, called directly with the same options.
    DeploymentOptions o;
    o.split.tp = s.gpus;
    o.weight_dtype = parse_dtype(s.dtype, "dtype").value();
    o.context = 8192;
    auto r = analyze_deployment(find_preset(s.model).value(), gpu, o);
    ASSERT_TRUE(r.ok()) << what << r.status().message();
    EXPECT_EQ(a.json()["memory_per_gpu"]["max_sequences"].get<int64_t>(), r->memory.max_sequences) << what;
    EXPECT_EQ(a.json()["decode_step"]["regime"].get<std::string>(), regime_name(r->decode.regime)) << what;
    if (s.gpus == 1) {
      // roofline's engine entry for the same one-GPU setup (its own points sit under the dtype
      // table's roof: bf16 for int4, and for fp4 on the H100).
      const CliRun roof = run_args({"roofline", "--model", s.model, "--gpu", s.gpu, "--batch", "1", "--seq", "8192",
                                    "--dtype", s.dtype, "--json"});
      ASSERT_EQ(roof.status, 0) << what << roof.err;
      const nlohmann::json rj = roof.json();
      ASSERT_EQ(rj["deployments"].size(), 1u) << what;
      expect_same(a.json(), rj["deployments"][0], what + " roofline");
    }
    if (s.gpus == 1) {
      const CliRun sw = run_args({"sweep", "--model", s.model, "--gpu", s.gpu, "--batch", "1", "--seq", "8192",
                                  "--dtype", s.dtype, "--fields",
                                  "batch_fits,modeled_regime,modeled_max_sequences,modeled_tokens_per_s_per_sequence,"
                                  "modeled_tokens_per_s_aggregate",
                                  "--format", "json"});
      ASSERT_EQ(sw.status, 0) << what << sw.err;
      const nlohmann::json row = sw.json()[0];
      const nlohmann::json sj = a.json();
      EXPECT_EQ(row["batch_fits"], sj["decode_step"]["fits"]) << what;
      EXPECT_EQ(row["modeled_regime"], sj["decode_step"]["regime"]) << what;
      EXPECT_EQ(row["modeled_max_sequences"], sj["memory_per_gpu"]["max_sequences"]) << what;
      EXPECT_EQ(row["modeled_tokens_per_s_per_sequence"], sj["decode_step"]["tokens_per_s_per_sequence"]) << what;
      EXPECT_EQ(row["modeled_tokens_per_s_aggregate"], sj["decode_step"]["tokens_per_s_aggregate"]) << what;
    }
    ++compared;
  }
  EXPECT_EQ(compared, 196);  // 7 models x 4 splits x 7 (dtype, GPU); every setup's heads divide by 1, 2, 8, 16
}

}  // namespace
}  // namespace modelcalc
