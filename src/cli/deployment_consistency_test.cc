// One engine, one answer: every command that reports a deployment gives the
// same fit count, ceilings and regime for the same setup, because each reads
// the deployment engine (modelcalc/deployment.h). Drives the CLI in-process.
// Expected values are not pasted: each command is compared with the others
// and with the library call for the same options.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "modelcalc/deployment.h"
#include "modelcalc/gpu.h"
#include "modelcalc/hf_config.h"
#include "sweep_table.h"
#include "test_util.h"
#include "web_api.h"

#include <filesystem>
#include "test_paths.h"  // MODELCALC_SOURCE_DIR, MODELCALC_BINARY

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
  EXPECT_EQ(a["memory_per_gpu"]["state_per_sequence"], b["memory_per_gpu"]["state_per_sequence"]) << what;
}

// sweep's row for `flags` (one combination) against `size --json` for the same flags: every column
// that has a size key, the defaults (the engine's and the prediction's) and the teaching_* ones.
void expect_sweep_row_is_size(const std::vector<std::string>& flags, const nlohmann::json& size,
                              const std::string& what) {
  std::string fields;
  for (const SweepColumn& c : sweep_columns()) {
    if (!c.size_key.empty()) fields += (fields.empty() ? "" : ",") + std::string(c.name);
  }
  std::vector<std::string> args = {"sweep"};
  args.insert(args.end(), flags.begin(), flags.end());
  args.insert(args.end(), {"--fields", fields, "--format", "json"});
  const CliRun sw = run_args(args);
  ASSERT_EQ(sw.status, 0) << what << sw.err;
  const nlohmann::json rows = sw.json();
  ASSERT_EQ(rows.size(), 1u) << what;
  for (const SweepColumn& c : sweep_columns()) {
    if (c.size_key.empty()) continue;
    const nlohmann::json::json_pointer p{std::string(c.size_key)};
    ASSERT_TRUE(size.contains(p)) << what << " " << c.size_key;
    EXPECT_EQ(rows[0][std::string(c.name)], size[p]) << what << " " << c.name;
  }
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
    // sweep's row on the same split: every column equals size's figure.
    expect_sweep_row_is_size({"--model", s.model, "--gpu", s.gpu, "--gpus", std::to_string(s.gpus), "--batch", "1",
                              "--seq", "8192", "--dtype", s.dtype},
                             a.json(), what + " sweep");
    ++compared;
  }
  EXPECT_EQ(compared, 196);  // 7 models x 4 splits x 7 (dtype, GPU); every setup's heads divide by 1, 2, 8, 16
}

// A sweep row is `size --json` with the same flags on any split (issue #31): 1 to 16 GPUs, tensor and
// pipeline parallel, experts over EP, replicas, DP attention, dense and MoE, at a batch that is not 1
// (so the per-batch columns differ from the single-stream ones).
TEST(DeploymentConsistencyTest, SweepRowIsSizeOnEverySplit) {
  using Flags = std::vector<std::string>;
  const std::vector<std::pair<std::string, Flags>> splits = {
      {"llama-3.1-8b", {"--gpus", "1"}},
      {"llama-3.1-8b", {"--gpus", "2"}},
      {"llama-3.1-8b", {"--gpus", "4", "--tp", "2", "--pp", "2"}},
      {"llama-3.1-8b", {"--gpus", "16", "--tp", "8", "--dp", "2"}},
      {"llama-3.1-70b", {"--gpus", "8", "--tp", "4", "--pp", "2"}},
      {"mixtral-8x7b-v0.1", {"--gpus", "4"}},
      {"mixtral-8x7b-v0.1", {"--gpus", "8", "--tp", "8", "--ep", "8"}},
      {"qwen3-30b-a3b", {"--gpus", "8", "--tp", "1", "--dp-attention", "--ep", "8"}},
      {"deepseek-v3", {"--gpus", "16", "--tp", "2", "--dp-attention", "--ep", "16"}},
      {"deepseek-v3", {"--gpus", "16", "--tp", "8", "--dp", "2"}},  // 61 layers: no even PP
  };
  for (const auto& [model, split] : splits) {
    Flags flags = {"--model", model, "--gpu", "h200", "--seq", "4096", "--batch", "16"};
    flags.insert(flags.end(), split.begin(), split.end());
    std::string what = model;
    for (const std::string& f : split) what += " " + f;
    Flags size = {"size"};
    size.insert(size.end(), flags.begin(), flags.end());
    size.push_back("--json");
    const CliRun a = run_args(size);
    ASSERT_EQ(a.status, 0) << what << a.err;
    expect_sweep_row_is_size(flags, a.json(), what);
  }
}

// One figure per question on every screen (issue #31): for a single GPU, TP8, DP attention x EP, a MoE
// and a hybrid, each deployment command's plain figures are size's (the ceiling) and its `predicted`
// siblings are size's prediction; sweep's row is size's, and the weights are the checkpoint's.
TEST(DeploymentConsistencyTest, EveryDeploymentCommandGivesSizesCeilingAndPrediction) {
  using Flags = std::vector<std::string>;
  const std::vector<Flags> setups = {
      {"--model", "llama-3.1-8b", "--gpu", "h100"},
      {"--model", "llama-3.1-70b", "--gpu", "h100", "--gpus", "8"},
      {"--model", "deepseek-v3", "--gpu", "h200", "--gpus", "16", "--tp", "2", "--dp-attention", "--ep", "16"},
      {"--model", "mixtral-8x7b-v0.1", "--gpu", "a100", "--gpus", "2"},
      {"--model", "qwen3-next-80b-a3b", "--gpu", "h200", "--gpus", "2"},
      {"--model", "gpt-oss-120b", "--gpu", "mi300x"},  // vLLM's prediction, the MXFP4 checkpoint
  };
  auto run = [](Flags head, const Flags& setup, const Flags& tail) {
    head.insert(head.end(), setup.begin(), setup.end());
    head.insert(head.end(), tail.begin(), tail.end());
    return run_args(head);
  };
  for (const Flags& setup : setups) {
    std::string what;
    for (const std::string& f : setup) what += f + " ";
    const CliRun size = run({"size"}, setup, {"--seq", "4096", "--batch", "8", "--json"});
    ASSERT_EQ(size.status, 0) << what << size.err;
    const nlohmann::json sj = size.json();
    ASSERT_FALSE(sj["decode_step"]["predicted"].is_null()) << what;
    const std::vector<std::pair<std::string, CliRun>> others = {
        {"kv-budget", run({"kv-budget"}, setup, {"--context", "4096", "--batch", "8", "--json"})},
        {"cost", run({"cost"}, setup, {"--seq", "4096", "--batch", "8", "--price-per-hour", "3", "--json"})},
        {"diagnose", run({"diagnose"}, setup, {"--context", "4096", "--batch", "8", "--tokens-per-s", "20", "--json"})},
    };
    for (const auto& [cmd, r] : others) {
      ASSERT_EQ(r.status, 0) << what << cmd << r.err;
      const nlohmann::json j = r.json();
      expect_same(sj, j, what + cmd);
      EXPECT_EQ(j["decode_step"]["predicted"], sj["decode_step"]["predicted"]) << what << cmd;
      EXPECT_EQ(j["memory_per_gpu"]["predicted"], sj["memory_per_gpu"]["predicted"]) << what << cmd;
    }
    const CliRun roof = run({"roofline"}, setup, {"--seq", "4096", "--batch", "8", "--json"});
    ASSERT_EQ(roof.status, 0) << what << roof.err;
    const nlohmann::json rd = roof.json()["deployments"][0];
    expect_same(sj, rd, what + "roofline");
    EXPECT_EQ(rd["decode_step"]["predicted"], sj["decode_step"]["predicted"]) << what;
    expect_sweep_row_is_size([&] {
      Flags f = setup;
      f.insert(f.end(), {"--seq", "4096", "--batch", "8"});
      return f;
    }(), sj, what + "sweep");
    // One GPU holds the whole model: its shard is the checkpoint's bytes.
    if (sj["deployment"]["gpus"] == 1) {
      EXPECT_EQ(sj["memory_per_gpu"]["weights"], sj["weights"]["bytes"]) << what;
    }
  }
}

// Today's families, through every command that reports a deployment: a
// hybrid with recurrent state (Qwen3-Next, Nemotron-H), a sliding/full
// alternation (gpt-oss-20b, whose checkpoint is MXFP4: an FP4 model), chunked
// attention (Llama 4 Scout), MLA + a sparse indexer (DeepSeek-V3.2), and an
// explicit NVFP4. Without --dtype each command serves the checkpoint as stored.
// size is compared with kv-budget, the library, sweep, diagnose's modeled
// deployment, roofline and the web API (which serves presets only).
TEST(DeploymentConsistencyTest, TodaysFamiliesAgreeAcrossCommands) {
  const GpuSpec h100 = find_gpu("h100").value();
  const char* models[] = {"qwen3-next-80b-a3b", "nemotron-h-56b", "gpt-oss-20b", "llama-4-scout", "deepseek-v3.2",
                          "jamba-mini-1.6"};
  int compared = 0;
  for (const char* model : models) {
    for (int64_t g : {1, 2, 8}) {
      for (const char* dtype : {"", "bf16", "fp8", "nvfp4"}) {
        const std::string what = std::string(model) + " x" + std::to_string(g) + " " + (*dtype ? dtype : "(checkpoint)");
        std::vector<std::string> common = {"--model", model, "--gpu", "h100", "--gpus", std::to_string(g), "--json"};
        if (*dtype) common.insert(common.end(), {"--dtype", dtype});
        auto with = [&](std::vector<std::string> head) {
          head.insert(head.end(), common.begin(), common.end());
          return run_args(head);
        };
        const CliRun a = with({"size", "--seq", "8192"});
        const CliRun b = with({"kv-budget", "--context", "8192"});
        ASSERT_EQ(a.status, b.status) << what << "\n" << a.err << b.err;
        if (a.status != 0) {  // a split the heads refuse: one line, both commands
          EXPECT_EQ(line_count(a.err), 1) << what;
          continue;
        }
        const nlohmann::json sj = a.json();
        expect_same(sj, b.json(), what);
        // The library on the model's own defaults (default_weight_dtype, default_kv_dtype).
        const ModelSpec spec = find_preset(model).value();
        DeploymentOptions o;
        o.split.tp = g;
        o.weight_dtype = *dtype ? parse_dtype(dtype, "dtype").value() : default_weight_dtype(spec, kDefaultWeightDtype);
        o.context = 8192;
        auto r = analyze_deployment(spec, h100, o);
        ASSERT_TRUE(r.ok()) << what << r.status().message();
        EXPECT_EQ(sj["memory_per_gpu"]["max_sequences"].get<int64_t>(), r->memory.max_sequences) << what;
        EXPECT_EQ(sj["memory_per_gpu"]["state_per_sequence"].get<int64_t>(), r->memory.state_per_sequence) << what;
        EXPECT_EQ(sj["deployment"]["weight_dtype"].get<std::string>(), dtype_name(o.weight_dtype)) << what;
        // diagnose's modeled deployment for the same setup (batch 1, context 8192).
        const CliRun dx = with({"diagnose", "--context", "8192", "--tokens-per-s", "20"});
        ASSERT_EQ(dx.status, 0) << what << dx.err;
        expect_same(sj, dx.json(), what + " diagnose");
        // The web API: the same document as the CLI's.
        HttpRequest req;
        req.path = "/api/size";
        req.query = {{"model", model}, {"gpu", "h100"}, {"gpus", std::to_string(g)}, {"seq", "8192"}};
        if (*dtype) req.query.emplace_back("dtype", dtype);
        const HttpResponse web = handle_web_request(req);
        ASSERT_EQ(web.status, 200) << what << web.body;
        EXPECT_EQ(nlohmann::json::parse(web.body), sj) << what;
        std::vector<std::string> sweep = {"--model", model, "--gpu", "h100", "--gpus", std::to_string(g), "--seq", "8192"};
        if (*dtype) sweep.insert(sweep.end(), {"--dtype", dtype});
        expect_sweep_row_is_size(sweep, sj, what + " sweep");
        if (g == 1) {
          std::vector<std::string> roof = {"roofline", "--model", model, "--gpu", "h100", "--batch", "1",
                                           "--seq", "8192", "--json"};
          if (*dtype) roof.insert(roof.end(), {"--dtype", dtype});
          const CliRun rf = run_args(roof);
          ASSERT_EQ(rf.status, 0) << what << rf.err;
          ASSERT_EQ(rf.json()["deployments"].size(), 1u) << what;
          expect_same(sj, rf.json()["deployments"][0], what + " roofline");
        }
        ++compared;
      }
    }
  }
  EXPECT_GE(compared, 60);  // most splits divide: 6 models x 3 GPU counts x 4 dtypes = 72 setups
}

// plan's chosen configurations are the engine at their split: size at the same
// tp, pp, ep, batch, dtypes, context (isl + osl) and prompt (isl) gives the same
// sequences that fit, step time and time to first token.
TEST(DeploymentConsistencyTest, PlanAgreesWithSizeOnTodaysFamilies) {
  int compared = 0;
  for (const char* model : {"gpt-oss-20b", "qwen3-next-80b-a3b", "llama-4-scout", "nemotron-h-56b"}) {
    const CliRun p = run_args({"plan", "--model", model, "--gpu", "h100", "--isl", "1000", "--osl", "1000",
                               "--tpot", "60ms", "--max-gpus", "8", "--json"});
    ASSERT_TRUE(p.status == 0 || p.status == 1) << model << p.err;
    const nlohmann::json plan = p.json();
    for (const nlohmann::json& c : plan["configs"]) {
      const int64_t tp = c["tp"], pp = c["pp"];
      std::vector<std::string> args = {"size", "--model", model, "--gpu", "h100", "--gpus",
                                       std::to_string(c["gpus_per_replica"].get<int64_t>()), "--tp",
                                       std::to_string(tp), "--ep", std::to_string(c["ep"].get<int64_t>()), "--batch",
                                       std::to_string(c["batch"].get<int64_t>()), "--dtype",
                                       c["weight_dtype"].get<std::string>(), "--kv-dtype",
                                       c["kv_dtype"].get<std::string>(), "--seq", "2000", "--prompt", "1000", "--json"};
      if (c["dp_attention"].get<bool>()) {
        args.push_back("--dp-attention");
      } else {
        args.insert(args.end(), {"--pp", std::to_string(pp)});
      }
      const CliRun s = run_args(args);
      ASSERT_EQ(s.status, 0) << model << s.err;
      const nlohmann::json sv = s.json()["serving"];  // size's serving section: the plan's own figures
      EXPECT_EQ(sv["max_sequences"], c["max_sequences"]) << model << c.dump();
      EXPECT_DOUBLE_EQ(sv["tpot_s"].get<double>(), c["tpot_s"].get<double>()) << model << c.dump();
      EXPECT_DOUBLE_EQ(sv["ttft_s"].get<double>(), c["ttft_s"].get<double>()) << model << c.dump();
      EXPECT_DOUBLE_EQ(sv["predicted"]["tpot_s"].get<double>(), c["predicted"]["tpot_s"].get<double>()) << model;
      EXPECT_EQ(sv["predicted"]["max_sequences"], c["predicted"]["max_sequences"]) << model;
      ++compared;
    }
  }
  EXPECT_GT(compared, 0);
}

// Every config of today's families (tests/fixtures/hf-configs-2026) is read by
// size, kv-budget, sweep, roofline and diagnose; their deployments agree.
TEST(DeploymentConsistencyTest, EveryConfigOfTodaysFamiliesIsAccepted) {
  int files = 0;
  const std::string dir = std::string(MODELCALC_SOURCE_DIR) + "/tests/fixtures/hf-configs-2026";
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ".json") continue;
    const std::string f = e.path().string();
    ++files;
    const CliRun a = run_args({"size", "--config", f, "--gpu", "h100", "--gpus", "2", "--seq", "4096", "--json"});
    ASSERT_EQ(a.status, 0) << f << a.err;
    const CliRun b = run_args({"kv-budget", "--config", f, "--gpu", "h100", "--gpus", "2", "--context", "4096", "--json"});
    ASSERT_EQ(b.status, 0) << f << b.err;
    expect_same(a.json(), b.json(), f);
    const CliRun dx = run_args({"diagnose", "--config", f, "--gpu", "h100", "--gpus", "2", "--context", "4096",
                                "--tokens-per-s", "20", "--json"});
    ASSERT_EQ(dx.status, 0) << f << dx.err;
    expect_same(a.json(), dx.json(), f + " diagnose");
    const CliRun sw = run_args({"sweep", "--config", f, "--gpu", "h100", "--seq", "4096", "--format", "json"});
    ASSERT_EQ(sw.status, 0) << f << sw.err;
    const CliRun rf = run_args({"roofline", "--config", f, "--gpu", "h100", "--json"});
    ASSERT_EQ(rf.status, 0) << f << rf.err;
    const CliRun pl = run_args({"plan", "--config", f, "--gpu", "h100", "--isl", "1000", "--osl", "200",
                                "--max-gpus", "16", "--json"});
    EXPECT_TRUE(pl.status == 0 || pl.status == 1) << f << pl.err;
  }
  EXPECT_EQ(files, 36);  // the 24 of shared/fixtures/hf-configs-2026, SmolLM3-3B, Granite-3.3-8B, Command-R7B, Olmo-3-7B,
                         // Seed-OSS-36B, ERNIE-4.5-0.3B, EXAONE-4.0-32B, ERNIE-4.5-21B-A3B, Hy-MT2-7B,
                         // granite-4.0-h-tiny, LFM2-350M, gemma-3n-E2B-it
}

// A model read by the generic rules (a model_type outside the family table) is labelled so in every
// output that reads a model: the reader's assumptions lead each report's warnings (plan: "assumptions"),
// in JSON and in text.
TEST(DeploymentConsistencyTest, GenericReadingIsLabelledInEveryOutput) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "modelcalc_generic_label_test";
  std::filesystem::create_directories(dir);
  const std::string f = (dir / "config.json").string();
  {
    std::ofstream(f) << R"({"model_type":"brand_new_lm","hidden_size":1024,"num_hidden_layers":4,
        "num_attention_heads":8,"num_key_value_heads":8,"intermediate_size":4096,"vocab_size":32000})";
  }
  const std::string label = "not in the family table";
  auto labelled = [&](const nlohmann::json& list) {
    bool any = false;
    for (const nlohmann::json& w : list) any = any || w.get<std::string>().find(label) != std::string::npos;
    return any;
  };
  const std::vector<std::vector<std::string>> runs = {
      {"size", "--gpu", "h100"},
      {"kv-budget", "--gpu", "h100"},
      {"roofline", "--gpu", "h100"},
      {"cost", "--gpu", "h100", "--price-per-hour", "3"},
      {"train-memory", "--gpu", "h100"},
      {"train", "--tokens", "1T", "--gpu", "h100", "--gpus", "8"},
      {"train-plan", "--tokens", "1T", "--days", "10", "--gpu", "h100"},
      {"diagnose", "--gpu", "h100", "--tokens-per-s", "20"},
  };
  for (std::vector<std::string> a : runs) {
    a.insert(a.end(), {"--config", f, "--json"});
    const CliRun r = run_args(a);
    EXPECT_EQ(r.status, 0) << a[0] << r.err;
    if (r.status != 0) continue;
    EXPECT_TRUE(labelled(r.json()["warnings"])) << a[0] << r.out;
  }
  const CliRun pl = run_args({"plan", "--config", f, "--gpu", "h100", "--isl", "1000", "--osl", "200", "--json"});
  ASSERT_TRUE(pl.status == 0 || pl.status == 1) << pl.err;
  EXPECT_TRUE(labelled(pl.json()["assumptions"])) << pl.out;
  const CliRun pt = run_args({"plan", "--config", f, "--gpu", "h100", "--isl", "1000", "--osl", "200"});
  EXPECT_NE(pt.out.find(label), std::string::npos) << pt.out;
  const CliRun rt = run_args({"roofline", "--config", f, "--gpu", "h100"});
  EXPECT_NE(rt.out.find(label), std::string::npos) << rt.out;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace modelcalc
