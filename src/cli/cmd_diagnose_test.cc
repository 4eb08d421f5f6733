// Drill 3's five cases, each with the diagnosis a strong engineer gives. Every
// expected number is derived by hand below from the drill's reference machine:
// MI300X, bw = 5.3e12 B/s, capacity 192e9 B, peak = 1307.4e12 FLOP/s dense bf16
// (fp8 2614.9e12), ridge = 1307.4e12 / 5.3e12 = 246.68 FLOP/byte.
#include "modelcalc/diagnose.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "test_util.h"
#include "test_paths.h"  // MODELCALC_SOURCE_DIR, MODELCALC_BINARY

namespace modelcalc {
namespace {

// Beside the regime, the serving engine's predicted aggregate for the same setup (size's
// decode_step.predicted.tokens_per_s_aggregate: one engine, one answer) and the measurement's share of it:
// 60 tokens/s per sequence at batch 8 is 480 aggregate.
TEST(DiagnosePrediction, MeasuredAgainstWhatTheEngineIsPredictedToReach) {
  const std::vector<std::string> setup = {"--model", "llama-3.1-8b", "--gpu", "h100", "--batch", "8", "--seq", "4096"};
  std::vector<std::string> dx = {"diagnose", "--tokens-per-s", "60", "--json"};
  dx.insert(dx.begin() + 1, setup.begin(), setup.end());
  std::vector<std::string> size = {"size", "--json"};
  size.insert(size.begin() + 1, setup.begin(), setup.end());
  const CliRun d = run_args(dx), s = run_args(size);
  ASSERT_EQ(d.status, 0) << d.err;
  ASSERT_EQ(s.status, 0) << s.err;
  const double predicted = s.json()["decode_step"]["predicted"]["tokens_per_s_aggregate"].get<double>();
  const nlohmann::json j = d.json();
  EXPECT_DOUBLE_EQ(j["prediction"]["tokens_per_s_aggregate"].get<double>(), predicted);
  EXPECT_DOUBLE_EQ(j["prediction"]["measured_fraction"].get<double>(), 480.0 / predicted);
  // A TPU has no profile: no prediction beside the regime.
  std::vector<std::string> tpu = dx;
  tpu[4] = "tpu-v5e";
  const CliRun t = run_args(tpu);
  ASSERT_EQ(t.status, 0) << t.err;
  EXPECT_FALSE(t.json().contains("prediction"));
}

constexpr double kBw = 5.3e12;
constexpr double kPeak = 1307.4e12;

std::string evidence_path(const std::string& name) {
  return std::string(MODELCALC_SOURCE_DIR) + "/tests/evidence/" + name;
}

nlohmann::json diagnose_json(const std::vector<std::string>& extra) {
  std::vector<std::string> args = {"diagnose"};
  args.insert(args.end(), extra.begin(), extra.end());
  args.push_back("--json");
  const CliRun r = run_args(args);
  EXPECT_EQ(r.status, 0) << r.err;
  return r.json();
}

nlohmann::json case_json(const std::string& file, std::vector<std::string> extra = {}) {
  extra.insert(extra.begin(), evidence_path(file));
  return diagnose_json(extra);
}

// The evidence item named `key` (from the "evidence" array).
double item(const nlohmann::json& j, const std::string& key) {
  for (const auto& e : j["evidence"]) {
    if (e["key"] == key) return e["value"].get<double>();
  }
  ADD_FAILURE() << "no evidence item " << key;
  return -1;
}

bool contains(const nlohmann::json& s, const std::string& needle) {
  return s.get<std::string>().find(needle) != std::string::npos;
}

Evidence load(const std::string& file) {
  std::ifstream in(evidence_path(file));
  std::stringstream text;
  text << in.rdbuf();
  auto e = parse_evidence_json(text.str(), file);
  EXPECT_TRUE(e.ok()) << e.status().message();
  return *e;
}

GpuSpec mi300x() { return *find_gpu("mi300x"); }

// ---------------------------------------------------------------- Case A
TEST(DiagnoseDrill3, CaseAChatbotIsBandwidthBoundNearItsCeiling) {
  const auto j = case_json("case_a.json");
  EXPECT_EQ(j["regime"], "bandwidth-bound");
  EXPECT_TRUE(j["confirmed"].get<bool>());
  // W = 13e9 params × 2 B = 26e9 B.
  EXPECT_DOUBLE_EQ(item(j, "weight_bytes"), 26e9);
  // Batch-1 ceiling: bw / W = 5.3e12 / 26e9 = 203.846 tokens/s.
  EXPECT_NEAR(item(j, "bandwidth_ceiling_per_sequence"), 203.846, 0.001);
  // Measured 160 / 203.846 = 0.7849: already near the ceiling.
  EXPECT_NEAR(item(j, "fraction_of_ceiling"), 0.7849, 0.0001);
  // The tokens need 160 × 2 × 13e9 / 1307.4e12 = 0.318 % of peak FLOP/s.
  EXPECT_NEAR(item(j, "implied_flop_utilization"), 160 * 2 * 13e9 / kPeak, 1e-9);
  // The right fixes are bytes: int8 halves W -> 5.3e12 / 13e9 = 407.69 tokens/s (2×),
  // int4 quarters it -> 5.3e12 / 6.5e9 = 815.38 (4×).
  EXPECT_NEAR(item(j, "int8_ceiling_aggregate"), 407.692, 0.001);
  EXPECT_NEAR(item(j, "int4_ceiling_aggregate"), 815.385, 0.001);
  ASSERT_GE(j["fixes"].size(), 3u);
  EXPECT_TRUE(contains(j["fixes"][0]["action"], "quantize the weights"));
  EXPECT_NEAR(j["fixes"][0]["speedup"].get<double>(), 2.0, 1e-9);
  EXPECT_TRUE(contains(j["fixes"][1]["action"], "Speculative decoding"));
  EXPECT_TRUE(contains(j["fixes"][2]["action"], "Batch"));
  // Faster compute kernels are the wrong fix: at 78.5 % of the ceiling the most any
  // kernel work wins is 1 / 0.7849 = 1.27×.
  EXPECT_TRUE(contains(j["reject"]["action"], "compute kernels"));
  EXPECT_TRUE(contains(j["reject"]["why"], "1.27×"));
  // Utilization is given and 78.5 % leaves at most 21.5 % for gaps: nothing to ask.
  EXPECT_TRUE(j["ask_first"].empty());
}

// ---------------------------------------------------------------- Case B
TEST(DiagnoseDrill3, CaseBTrainingIsComputeBoundAndBothEngineersArePartlyRight) {
  const auto j = case_json("case_b.json");
  EXPECT_EQ(j["regime"], "compute-bound");
  // Memory-bound work: layer_norm 8 + add/mul/silu 9 + casts 5 = 22 % of kernel time.
  EXPECT_NEAR(item(j, "memory_bound_share"), 0.22, 1e-12);
  // If it vanished: 1 / (1 − 0.22) = 1.2821× — engineer 1 is right there is something.
  EXPECT_NEAR(item(j, "amdahl_memory_bound"), 1.0 / 0.78, 1e-12);
  // GEMM 71 + flash-attn 7 = 78 % of kernel time carries the FLOPs, so while running it
  // reaches ≥ 61 / 78 = 78.2 % of peak — engineer 2 is right that it is compute-bound.
  EXPECT_NEAR(item(j, "compute_kernel_share"), 0.78, 1e-12);
  EXPECT_NEAR(item(j, "in_kernel_flop_rate"), 0.61 / 0.78, 1e-12);
  // 8 × 4096 tokens per step.
  EXPECT_DOUBLE_EQ(item(j, "tokens_per_step"), 32768);
  ASSERT_GE(j["fixes"].size(), 2u);
  EXPECT_TRUE(contains(j["fixes"][0]["action"], "Fuse"));
  // Fusion that halves the 22 %: 1 / (1 − 0.11) = 1.1236×.
  EXPECT_NEAR(j["fixes"][0]["speedup"].get<double>(), 1 / 0.89, 1e-12);
  // Casts alone: 1 / (1 − 0.05) = 1.0526×.
  EXPECT_TRUE(contains(j["fixes"][1]["action"], "casts"));
  EXPECT_NEAR(j["fixes"][1]["speedup"].get<double>(), 1 / 0.95, 1e-12);
  bool both = false;
  for (const auto& f : j["findings"]) both |= contains(f, "22 %") && contains(f, "1.28×");
  EXPECT_TRUE(both);
  EXPECT_TRUE(contains(j["reject"]["action"], "microbatch"));
  // 61 % achieved leaves up to 39 % unaccounted for: ask for the timeline (gap share).
  ASSERT_EQ(j["ask_first"].size(), 1u);
  EXPECT_TRUE(contains(j["ask_first"][0]["measurement"], "timeline"));
}

// ---------------------------------------------------------------- Case C
TEST(DiagnoseDrill3, CaseCTransientIsTheMaterializedScoreMatrix) {
  const auto j = case_json("case_c.json");
  EXPECT_EQ(j["regime"], "compute-bound");
  // Score matrix, one layer: heads × T² × 2 B = 32 × 25,000² × 2 = 4.0e10 B = 40 GB.
  EXPECT_DOUBLE_EQ(item(j, "score_matrix_bytes"), 32.0 * 25000 * 25000 * 2);
  EXPECT_DOUBLE_EQ(item(j, "transient_over_scores"), 1.0);
  // Prefill FLOPs: 2 N T = 2 × 8e9 × 25,000 = 4e14; attention 4 T² d L =
  // 4 × 6.25e8 × 4096 × 32 = 3.2768e14; total 7.2768e14.
  EXPECT_DOUBLE_EQ(item(j, "prefill_flops"), 4e14 + 3.2768e14);
  // Floor 7.2768e14 / 1307.4e12 = 0.55658 s; vs the measured 2.6 s: 21.4 % — the "20 %".
  EXPECT_NEAR(item(j, "ttft_floor_s"), 0.55658, 1e-5);
  EXPECT_NEAR(item(j, "fraction_of_ceiling"), 0.55658 / 2.6, 1e-5);
  // Why a compute-bound prefill reaches only 20 %: unfused attention streams the scores,
  // 4 passes × 40 GB × 32 layers / 5.3e12 = 0.966 s of HBM time out of the
  // 0.55 × 2.6 = 1.43 s of attention, whose FLOPs need 3.2768e14 / 1307.4e12 = 0.2506 s.
  EXPECT_NEAR(item(j, "score_traffic_s"), 4 * 4e10 * 32 / kBw, 1e-9);
  EXPECT_NEAR(item(j, "attention_time_s"), 1.43, 1e-12);
  EXPECT_NEAR(item(j, "attention_floor_s"), 3.2768e14 / kPeak, 1e-12);
  // Fused attention: TTFT ≥ 2.6 − (1.43 − 0.2506) = 1.4206 s.
  EXPECT_NEAR(item(j, "ttft_fused_s"), 2.6 - (1.43 - 3.2768e14 / kPeak), 1e-9);
  ASSERT_FALSE(j["fixes"].empty());
  EXPECT_TRUE(contains(j["fixes"][0]["action"], "FlashAttention"));
  EXPECT_NEAR(j["fixes"][0]["speedup"].get<double>(), 2.6 / 1.420635, 1e-4);
  // ITL is fine: KV = 2 × 32 × (8 × 128) × 2 B × 25,000 = 3.2768e9 B; floor
  // (16e9 + 3.2768e9) / 5.3e12 = 3.637 ms against 4 ms: 90.9 %.
  EXPECT_NEAR(item(j, "itl_floor_s"), 19.2768e9 / kBw, 1e-12);
  EXPECT_NEAR(item(j, "itl_fraction"), 19.2768e9 / kBw / 0.004, 1e-9);
  // Weights + transient = 56 GB of 192 GB: not capacity-bound.
  EXPECT_DOUBLE_EQ(item(j, "peak_memory_bytes"), 56e9);
  EXPECT_TRUE(contains(j["reject"]["action"], "Speculative decoding"));
}

// ---------------------------------------------------------------- Case D
TEST(DiagnoseDrill3, CaseDBatchedDecodeIsComputeBoundSoInt4DoesNotGive4x) {
  const auto j = case_json("case_d.json");
  EXPECT_EQ(j["regime"], "compute-bound");
  // Batch 256 with 2N FLOP per token over 2N bytes of weights: 256 FLOP/byte, past the
  // ridge 246.7 — compute-bound by construction, and the profiler agrees (71 % vs 30 %).
  EXPECT_DOUBLE_EQ(item(j, "step_intensity"), 256);
  // Ceilings: bandwidth 256 × 5.3e12 / 68e9 = 19,952.9; compute 1307.4e12 / (2 × 34e9) = 19,226.5.
  EXPECT_NEAR(item(j, "bandwidth_ceiling_aggregate"), 256 * kBw / 68e9, 1e-6);
  EXPECT_NEAR(item(j, "compute_ceiling_aggregate"), kPeak / 68e9, 1e-6);
  // int4 weights: bandwidth ceiling 256 × 5.3e12 / 17e9 = 79,812, but compute still caps
  // at 19,226.5: the ceiling gains ×1.00, not ×4.
  EXPECT_NEAR(item(j, "int4_ceiling_aggregate"), kPeak / 68e9, 1e-6);
  EXPECT_TRUE(contains(j["reject"]["action"], "int4"));
  EXPECT_TRUE(contains(j["reject"]["why"], "(1×)"));
  EXPECT_TRUE(contains(j["reject"]["why"], "51 GB"));  // 68 − 17 GB of HBM back
  // What does help: fp8 compute doubles the peak, 2614.9e12 / 68e9 = 38,454 vs
  // bandwidth with 1-byte weights 256 × 5.3e12 / 34e9 = 39,906: ×2.0.
  ASSERT_FALSE(j["fixes"].empty());
  EXPECT_TRUE(contains(j["fixes"][0]["action"], "fp8"));
  EXPECT_NEAR(j["fixes"][0]["speedup"].get<double>(), 2614.9 / 1307.4, 1e-9);
  // The measured 6,100 tokens/s need 6100 × 2 × 34e9 / 1307.4e12 = 31.7 % of peak; the
  // profiler saw 71 %: 2.24× more FLOPs than 2N per token explains.
  EXPECT_NEAR(item(j, "implied_flop_utilization"), 6100 * 68e9 / kPeak, 1e-9);
  EXPECT_NEAR(item(j, "profiler_flop_excess"), 0.71 / (6100 * 68e9 / kPeak), 1e-9);
}

// ---------------------------------------------------------------- Case E
TEST(DiagnoseDrill3, CaseEGapsBetween450KernelsMeanOverhead) {
  const auto j = case_json("case_e.json");
  EXPECT_EQ(j["regime"], "overhead-bound");
  EXPECT_TRUE(j["confirmed"].get<bool>());
  // KV per sequence: 2 × 32 layers × (8 × 128) × 2 B × 2048 = 268,435,456 B (the drill's 0.27 GB).
  EXPECT_DOUBLE_EQ(item(j, "kv_bytes_per_sequence"), 268435456);
  // Step bytes 16e9 + 32 × 268,435,456 = 24,589,934,592; ceiling 5.3e12 / that = 215.5.
  EXPECT_DOUBLE_EQ(item(j, "step_bytes"), 24589934592.0);
  EXPECT_NEAR(item(j, "bandwidth_ceiling_per_sequence"), kBw / 24589934592.0, 1e-9);
  EXPECT_NEAR(item(j, "fraction_of_ceiling"), 36 / (kBw / 24589934592.0), 1e-9);  // 16.7 %
  // Timeline: 450 × 18 µs (mid of 6–30) = 8.1 ms of kernels, 450 × 11.5 µs = 5.175 ms
  // of gaps: gap share 11.5 / 29.5 = 39 % (8/38 = 21 % to 15/21 = 71 %).
  EXPECT_NEAR(item(j, "kernel_time_s"), 8.1e-3, 1e-12);
  EXPECT_NEAR(item(j, "gap_time_s"), 5.175e-3, 1e-12);
  EXPECT_NEAR(item(j, "gap_share"), 11.5 / 29.5, 1e-12);
  // The measured step is 1 / 36 s = 27.78 ms; busy 8.1 / 27.78 = 29 %, idle 71 %.
  EXPECT_NEAR(item(j, "busy_share"), 8.1e-3 * 36, 1e-12);
  EXPECT_NEAR(item(j, "idle_share"), 1 - 8.1e-3 * 36, 1e-12);
  ASSERT_GE(j["fixes"].size(), 2u);
  EXPECT_TRUE(contains(j["fixes"][0]["action"], "CUDA graphs"));
  // Never idle: 27.78 / 8.1 = 3.43×.
  EXPECT_NEAR(j["fixes"][0]["speedup"].get<double>(), (1 / 36.0) / 8.1e-3, 1e-9);
  EXPECT_TRUE(contains(j["fixes"][1]["action"], "fusion"));
  // A bigger GPU only shrinks the 8.1 ms: even infinitely fast, 27.78 / 19.68 = 1.41×.
  EXPECT_TRUE(contains(j["reject"]["action"], "bigger GPU"));
  EXPECT_NEAR(item(j, "speedup_infinite_gpu"), (1 / 36.0) / (1 / 36.0 - 8.1e-3), 1e-9);
}

// ---------------------------------------------------------------- numbers, not words
TEST(DiagnoseNumbersNotWords, SameWordsNearVersusFarBelowTheCeilingGetDifferentAdvice) {
  // Same file, same description; only the numbers change: 40 tokens/s is
  // 40 / 203.85 = 19.6 % of the batch-1 ceiling, with bandwidth at 20 %.
  const auto near = case_json("case_a.json");
  const auto far = case_json("case_a.json", {"--tokens-per-s", "40", "--bw-util", "0.2", "--flop-util", "0.01"});
  EXPECT_EQ(near["description"], far["description"]);
  EXPECT_EQ(near["regime"], "bandwidth-bound");
  EXPECT_EQ(far["regime"], "overhead-bound");
  EXPECT_FALSE(far["confirmed"].get<bool>());  // suspected until a timeline confirms
  EXPECT_NEAR(item(far, "fraction_of_ceiling"), 40 / (kBw / 26e9), 1e-9);
  // Near: quantize first. Far: find the missing time first, and quantization is rejected —
  // it speeds up the 20 % of the step bytes account for: halving it gives 1 / 0.9 = 1.11×.
  EXPECT_TRUE(contains(near["fixes"][0]["action"], "quantize"));
  EXPECT_TRUE(contains(far["fixes"][0]["action"], "timeline"));
  EXPECT_TRUE(contains(far["reject"]["action"], "quantization"));
  EXPECT_TRUE(contains(far["reject"]["why"], "1.11×"));
  ASSERT_EQ(far["ask_first"].size(), 1u);
  EXPECT_TRUE(contains(far["ask_first"][0]["measurement"], "timeline"));
}

TEST(DiagnoseNumbersNotWords, SameWordsInEWithTheStepNearTheCeilingIsNotOverhead) {
  // Case E's words and timeline shape, but 190 tokens/s per sequence (88 % of 215.5) and
  // bandwidth at 85 %: 450 × 5 µs kernels + 450 × 1 µs gaps — the gaps are 1/6 = 17 %.
  const auto j = case_json("case_e.json", {"--tokens-per-s", "190", "--bw-util", "0.85", "--kernel-us", "5-5",
                                           "--gap-us", "1-1"});
  EXPECT_EQ(j["regime"], "bandwidth-bound");
  EXPECT_NEAR(item(j, "gap_share"), 1.0 / 6, 1e-12);
  EXPECT_FALSE(contains(j["fixes"][0]["action"], "CUDA graphs"));
}

TEST(DiagnoseNumbersNotWords, DescriptionIsNeverRead) {
  Evidence e = load("case_a.json");
  const Diagnosis plain = diagnose(e, mi300x());
  e.description = "compute-bound overhead CUDA graphs FlashAttention capacity OOM training";
  const Diagnosis worded = diagnose(e, mi300x());
  EXPECT_EQ(plain.regime, worded.regime);
  EXPECT_EQ(plain.detail, worded.detail);
  ASSERT_EQ(plain.fixes.size(), worded.fixes.size());
  for (size_t i = 0; i < plain.fixes.size(); ++i) EXPECT_EQ(plain.fixes[i].what, worded.fixes[i].what);
}

TEST(DiagnoseFindings, MeasuredAboveTheCeilingNamesWhatTheInputLeavesOut) {
  // 400 tokens/s against the 203.85 ceiling of 26 GB fp16 weights: ×1.96. The rate needs
  // ≤ 5.3e12 / 400 = 13.25e9 B per step = 1.02 B per parameter: int8/fp8 weights.
  const auto j = case_json("case_a.json", {"--tokens-per-s", "400", "--bw-util", "0.4"});
  EXPECT_TRUE(j["above_ceiling"].get<bool>());
  EXPECT_FALSE(j["confirmed"].get<bool>());
  EXPECT_NEAR(item(j, "fraction_of_ceiling"), 400 / (kBw / 26e9), 1e-9);
  ASSERT_FALSE(j["findings"].empty());
  const auto& f = j["findings"][0];
  EXPECT_TRUE(contains(f, "quantized weights"));
  EXPECT_TRUE(contains(f, "1.02 B per parameter"));
  EXPECT_TRUE(contains(f, "speculative decoding"));
  EXPECT_TRUE(contains(f, "different GPU"));
  EXPECT_TRUE(contains(f, "batching"));
}

TEST(DiagnoseCapacity, WeightsThatDoNotFitAreCapacityBound) {
  // 70e9 params × 2 B = 140 GB > 80 GB of one H100.
  const auto j = diagnose_json({"--phase", "decode", "--params", "70B", "--gpu", "h100", "--tokens-per-s", "10"});
  EXPECT_EQ(j["regime"], "capacity-bound");
}

TEST(DiagnoseAsk, NoMeasurementAsksForBoth) {
  const auto j = diagnose_json({"--phase", "decode", "--params", "13B", "--gpu", "mi300x"});
  EXPECT_EQ(j["regime"], "bandwidth-bound");  // batch 1: 1 FLOP/byte, far below the ridge
  EXPECT_FALSE(j["confirmed"].get<bool>());
  ASSERT_EQ(j["ask_first"].size(), 2u);
  EXPECT_TRUE(contains(j["ask_first"][0]["measurement"], "fractions of peak"));
  EXPECT_TRUE(contains(j["ask_first"][1]["measurement"], "timeline"));
}

// ---------------------------------------------------------------- output forms
TEST(DiagnoseOutput, ExplainShowsFormulaAndSubstitution) {
  const CliRun r = run_args({"diagnose", evidence_path("case_c.json"), "--explain"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("h × T² × b"), std::string::npos);
  EXPECT_NE(r.out.find("32 × 25,000² × 2 B"), std::string::npos);
  EXPECT_NE(r.out.find("[attention_score_bytes]"), std::string::npos);
}

TEST(DiagnoseOutput, TextNamesRegimeFixesAndReject) {
  const CliRun r = run_args({"diagnose", evidence_path("case_e.json")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("overhead-bound"), std::string::npos);
  EXPECT_NE(r.out.find("Fixes, in priority order"), std::string::npos);
  EXPECT_NE(r.out.find("Reject"), std::string::npos);
}

// ---------------------------------------------------------------- bad input
std::string write_temp(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / ("modelcalc_diagnose_test_" + name);
  std::ofstream(path) << text;
  return path.string();
}

void expect_bad(const std::vector<std::string>& args, const std::string& field) {
  const CliRun r = run_args(args);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_EQ(line_count(r.err), 1) << r.err;
  EXPECT_NE(r.err.find(field), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
}

TEST(DiagnoseBadInput, ImpossibleEvidenceInAFileIsRefused) {
  expect_bad({"diagnose", write_temp("util.json", R"({"profile": {"flop_utilization": 1.2}})")},
             "profile.flop_utilization: must be a fraction");
  expect_bad({"diagnose", write_temp("gap.json", R"({"profile": {"gap_us": [-1, 5]}})")}, "profile.gap_us");
  expect_bad({"diagnose", write_temp("count.json", R"({"profile": {"kernels_per_step": -3}})")},
             "profile.kernels_per_step");
  expect_bad({"diagnose", write_temp("ttft.json", R"({"measured": {"ttft_s": -2.6}})")}, "measured.ttft_s");
  expect_bad({"diagnose", write_temp("sum.json",
                                     R"({"profile": {"kernel_time_fraction": {"gemm": 0.8, "norm": 0.3}}})")},
             "profile.kernel_time_fraction: shares of kernel time must sum to at most 1");
}

TEST(DiagnoseBadInput, UnknownFieldsAreNamed) {
  expect_bad({"diagnose", write_temp("unknown.json", R"({"profile": {"flop_util": 0.5}})")},
             "profile.flop_util: unknown field");
  expect_bad({"diagnose", write_temp("unknown2.json", R"({"gpu_name": "mi300x"})")}, "gpu_name: unknown field");
  expect_bad({"diagnose", write_temp("kind.json", R"({"profile": {"kernel_time_fraction": {"gemms": 0.5}}})")},
             "profile.kernel_time_fraction.gemms: unknown field");
}

TEST(DiagnoseBadInput, BadFlagsAndFilesAreRefused) {
  expect_bad({"diagnose", "--bw-util", "1.5"}, "--bw-util");
  expect_bad({"diagnose", "--flop-util", "120%"}, "--flop-util");
  expect_bad({"diagnose", "--gap-us", "15-8"}, "--gap-us");
  expect_bad({"diagnose", "--phase", "inference"}, "--phase");
  expect_bad({"diagnose", write_temp("gpu.json", R"({"gpu": "h1000"})")}, "gpu");
  expect_bad({"diagnose", write_temp("json.json", "{ not json")}, "malformed JSON");
  expect_bad({"diagnose", "/nonexistent/case.json"}, "no such file");
}

TEST(DiagnoseBadInput, ValidateNamesTheField) {
  Evidence e;
  e.profile.bandwidth_utilization = -0.1;
  const Status s = validate(e);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("profile.bandwidth_utilization"), std::string::npos);
}

}  // namespace
}  // namespace modelcalc
