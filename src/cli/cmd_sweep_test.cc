// `modelcalc sweep`: hand-derived rows, agreement with `size --json`, the
// printers, and bad inputs. The library's sweep() is tested in
// src/core/sweep_test.cc.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "drills.h"
#include "modelcalc/hf_config.h"
#include "modelcalc/sweep.h"
#include "sweep_table.h"
#include "test_util.h"

namespace modelcalc {
namespace {

using Args = std::vector<std::string>;

// Drill 1's shape (seed 001). Hand counts, one layer:
//   Q = O = d·h·d_head = 6144·48·128 = 37,748,736
//   K+V   = 2·d·d_kv   = 2·6144·(8·128) = 12,582,912
//   FFN   = 3·d·d_ff   = 3·6144·16384 = 301,989,888 (gated)
//   layer = 390,070,272; blocks = 48 × layer = 18,723,373,056
//   embeddings (untied) = 2·64000·6144 = 786,432,000
//   N = 19,509,805,056; fp16 weights 2N = 39,019,610,112 B; int8 N B.
//   KV per token = 2·L·d_kv·b = 2·48·1024·2 = 196,608 B (fp16).
constexpr int64_t kN = 19'509'805'056;
constexpr double kWfp16 = 39'019'610'112.0;
constexpr double kKvTokenFp16 = 196'608.0;

Args Sweep(Args extra) {
  Args a = {"sweep", "-L", "48", "-d", "6144", "--heads", "48", "--kv-heads", "8", "--ffn", "16384", "--glu",
            "--vocab", "64000"};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

GpuSpec Gpu(const char* name) { return find_gpu(name).value(); }

void ExpectBadInput(const Args& args, const std::string& flag) {
  const CliRun r = run_args(args);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_EQ(line_count(r.err), 1) << r.err;
  EXPECT_NE(r.err.find(flag), std::string::npos) << r.err;
}


// ---- CLI: hand-derived rows ------------------------------------------------

TEST(SweepCli, Drill1RowsByHand) {
  const CliRun r = run_args(Sweep({"--gpu", "h100,mi300x", "--seq", "8192", "--batch", "1,64", "--dtype",
                                   "fp16,int8", "--format", "json", "--fields",
                                   "gpu,batch,dtype,kv_dtype,params_total,weight_bytes,teaching_weight_bytes,kv_bytes_per_sequence,"
                                   "teaching_fits,teaching_tokens_per_s_weights_only,teaching_tokens_per_s_with_kv,"
                                   "teaching_tokens_per_s_aggregate,teaching_max_batch_by_capacity,"
                                   "regime_at_capacity,fits,regime"}));
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = r.json();
  ASSERT_EQ(j.size(), 8u);  // 2 GPUs × 1 seq × 2 batches × 2 dtypes
  // Order: gpu, batch, dtype. Row 0 = h100, batch 1, fp16.
  const auto& h100 = j[0];
  EXPECT_EQ(h100["gpu"], "h100-sxm");
  EXPECT_EQ(h100["params_total"], kN);
  EXPECT_EQ(h100["weight_bytes"], 39'019'610'112);
  EXPECT_NEAR(h100["teaching_tokens_per_s_weights_only"].get<double>(), 85.85, 0.005);  // 3.35e12 / 39,019,610,112
  // The engine's serving regime: 80e9 x 0.9 - 396,361,728 (workspace) - W = 32,584,028,160 B holds
  // 20 sequences of 1,610,612,736 B; at batch 20 a step reads ~71 GB for ~0.8 TFLOP, ~11 FLOP/B, far
  // below the ridge 295: HBM stops the batch before it turns compute-bound.
  EXPECT_EQ(h100["regime_at_capacity"], "capacity-bound");

  // Row 4 = mi300x, batch 1, fp16: bw 5.3e12, capacity 192e9.
  const auto& a = j[4];
  EXPECT_EQ(a["gpu"], "mi300x");
  EXPECT_EQ(a["batch"], 1);
  EXPECT_EQ(a["dtype"], "fp16");
  EXPECT_EQ(a["kv_dtype"], "fp16");
  const double kv = kKvTokenFp16 * 8192;  // 1,610,612,736 B
  EXPECT_EQ(a["kv_bytes_per_sequence"], 1'610'612'736);
  EXPECT_NEAR(a["teaching_tokens_per_s_weights_only"].get<double>(), 5.3e12 / kWfp16, 1e-9);  // 135.83
  EXPECT_NEAR(a["teaching_tokens_per_s_weights_only"].get<double>(), 135.83, 0.005);
  EXPECT_NEAR(a["teaching_tokens_per_s_with_kv"].get<double>(), 5.3e12 / (kWfp16 + kv), 1e-9);  // 130.44
  // (192e9 − 39,019,610,112) / 1,610,612,736 = 94.98 → 94 sequences.
  EXPECT_EQ(a["teaching_max_batch_by_capacity"], 94);
  EXPECT_EQ(a["teaching_fits"], true);
  // The engine holds (172.8e9 - 396,361,728 - W) / KV = 82 sequences (scenario_test.cc), at ~19 FLOP/B
  // there: capacity binds first.
  EXPECT_EQ(a["regime_at_capacity"], "capacity-bound");

  // Row 5 = mi300x, batch 1, int8 weights: W = N bytes; the KV cache stays 16-bit (bf16),
  // 1,610,612,736 B per sequence.
  const auto& b = j[5];
  EXPECT_EQ(b["dtype"], "int8");
  EXPECT_EQ(b["kv_dtype"], "bf16");
  EXPECT_EQ(b["teaching_weight_bytes"], kN);
  // As served: the block matrices (48 x 390,070,272 = 18,723,373,056) at 1 B with one 2 B scale per
  // 128, the two 64000 x 6144 tables (786,432,000) kept 16-bit:
  // 18,723,373,056 + 18,723,373,056 / 128 x 2 + 786,432,000 x 2 = 20,588,789,760.
  EXPECT_EQ(b["weight_bytes"], 18'723'373'056LL + 18'723'373'056LL / 128 * 2 + 786'432'000LL * 2);
  EXPECT_NEAR(b["teaching_tokens_per_s_weights_only"].get<double>(), 271.66, 0.005);  // 5.3e12 / 19,509,805,056
  // (192e9 − 19,509,805,056) / 1,610,612,736 = 107.1 → 107 < R·b·d / (2 (d − R·b)) with R = 246.68,
  // b = 1, d = 6144: 128.5 -- capacity binds before the d×d projection turns compute-bound.
  EXPECT_EQ(b["teaching_max_batch_by_capacity"], 107);
  // The engine: ~20.6 GB of int8 weights (16-bit tables and scales kept) leave room for 94 sequences,
  // ~21 FLOP/B at that batch against the bf16 ridge 247 its weight-only matmuls run under.
  EXPECT_EQ(b["regime_at_capacity"], "capacity-bound");
  // The engine agrees the batch fits and is far from compute-bound (whole-step intensity ~ 1 FLOP/B at B = 1).
  EXPECT_EQ(b["fits"], true);
  EXPECT_EQ(b["regime"], "bandwidth-bound");

  // Row 6 = mi300x, batch 64, fp16: 64 · 5.3e12 / (W + 64 · KV) = 3.392e14 / 142,098,825,216 = 2387.07.
  EXPECT_EQ(j[6]["batch"], 64);
  EXPECT_NEAR(j[6]["teaching_tokens_per_s_aggregate"].get<double>(), 64 * 5.3e12 / (kWfp16 + 64 * kv), 1e-9);
  EXPECT_NEAR(j[6]["teaching_tokens_per_s_aggregate"].get<double>(), 2387.07, 0.005);
}

TEST(SweepCli, RowCountOfEveryFormatIsTheProduct) {
  const Args lists = {"--gpu", "h100,mi300x,a100", "--seq", "2048,8192", "--batch", "1,8,64", "--dtype", "fp16,int8",
                      "--kv-dtype", "fp16,fp8"};
  const size_t n = 3 * 2 * 3 * 2 * 2;  // 72
  auto run = [&](const std::string& format) {
    Args a = Sweep(lists);
    a.insert(a.end(), {"--format", format});
    const CliRun r = run_args(a);
    EXPECT_EQ(r.status, 0) << r.err;
    return r;
  };
  EXPECT_EQ(static_cast<size_t>(line_count(run("jsonl").out)), n);
  EXPECT_EQ(static_cast<size_t>(line_count(run("csv").out)), n + 1);   // + header
  EXPECT_EQ(static_cast<size_t>(line_count(run("text").out)), n + 1);  // + header
  EXPECT_EQ(static_cast<size_t>(line_count(run("md").out)), n + 2);    // + header and separator
  EXPECT_EQ(run("json").json().size(), n);
}

// ---- CLI: the same numbers as size --json ---------------------------------

// Every column that has a size --json key, for one combination, must equal
// what `size --json` prints for that combination.
void ExpectSameAsSize(const Args& model, const Args& combo) {
  std::string all;
  for (const SweepColumn& c : sweep_columns()) all += (all.empty() ? "" : ",") + std::string(c.name);
  Args sw = {"sweep"};
  sw.insert(sw.end(), model.begin(), model.end());
  sw.insert(sw.end(), combo.begin(), combo.end());
  sw.insert(sw.end(), {"--fields", all, "--json"});
  Args sz = {"size"};
  sz.insert(sz.end(), model.begin(), model.end());
  sz.insert(sz.end(), combo.begin(), combo.end());
  sz.push_back("--json");
  const CliRun a = run_args(sw), b = run_args(sz);
  ASSERT_EQ(a.status, 0) << a.err;
  ASSERT_EQ(b.status, 0) << b.err;
  const auto rows = a.json();
  ASSERT_EQ(rows.size(), 1u);
  const auto& row = rows[0];
  const auto size = b.json();
  int compared = 0;
  for (const SweepColumn& c : sweep_columns()) {
    if (c.size_key.empty()) continue;
    const nlohmann::json::json_pointer p{std::string(c.size_key)};
    ASSERT_TRUE(size.contains(p)) << c.size_key;
    EXPECT_EQ(row[std::string(c.name)], size[p]) << c.name;
    ++compared;
  }
  EXPECT_GE(compared, 20);
}

TEST(SweepCli, SameNumbersAsSizeJson) {
  const Args drill1 = {"-L", "48", "-d", "6144", "--heads", "48", "--kv-heads", "8", "--ffn", "16384", "--glu",
                       "--vocab", "64000"};
  ExpectSameAsSize(drill1, {"--gpu", "mi300x", "--seq", "8192", "--batch", "64", "--dtype", "int8"});
  ExpectSameAsSize(drill1, {"--gpu", "h100", "--seq", "2048", "--batch", "8", "--dtype", "bf16", "--kv-dtype", "fp8"});
  // MoE: the aggregate reads the experts a batch touches.
  ExpectSameAsSize({"--model", "mixtral-8x7b-v0.1"}, {"--gpu", "a100", "--seq", "4096", "--batch", "16"});
  // Weights that do not fit; no --seq: both use the model's max positions.
  ExpectSameAsSize({"--model", "llama-3.1-70b"}, {"--gpu", "l4", "--dtype", "fp16"});
  // A custom GPU from the three override flags.
  ExpectSameAsSize({"--model", "qwen2.5-7b"},
                   {"--bandwidth", "2TB/s", "--capacity", "48GB", "--peak", "400TFLOPS", "--batch", "4"});
}

// A memory that does not fit has no figure in any format (issue #33), as in size: Llama-3.1-70B
// has 70,553,706,496 parameters (its config: 80 layers of d 8192, 64/8 heads, ffn 28672, vocab
// 128256 untied), 141,107,412,992 B at fp16; an L4 holds 24e9 B, so the weights are short by
// 117,107,412,992 B = 117.1 GB.
TEST(SweepCli, KvRoomThatDoesNotFitHasNoFigure) {
  const Args a = {"sweep", "--model", "llama-3.1-70b", "--gpu", "l4", "--dtype", "fp16", "--fields", "teaching_kv_room_bytes"};
  auto run = [&](const char* format) {
    Args f = a;
    f.insert(f.end(), {"--format", format});
    const CliRun r = run_args(f);
    EXPECT_EQ(r.status, 0) << r.err;
    return r.out;
  };
  // A number column aligns right: the 13-character header padded to the 32-character cell.
  EXPECT_EQ(run("text"), std::string(32 - 22, ' ') + "teaching_kv_room_bytes\ndoes not fit (short by 117.1 GB)\n");
  EXPECT_EQ(run("csv"), "teaching_kv_room_bytes\n\n");
  EXPECT_EQ(run("jsonl"), "{\"teaching_kv_room_bytes\":null}\n");
}

// ---- Printers ----------------------------------------------------------------

TEST(SweepTable, CsvQuotesByRfc4180) {
  EXPECT_EQ(csv_field("h100-sxm"), "h100-sxm");
  EXPECT_EQ(csv_field("drill 1, renamed"), "\"drill 1, renamed\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_field("two\nlines"), "\"two\nlines\"");

  // A model whose name holds a comma, through the csv printer.
  SweepSpec s;
  s.models = {drill1_model()};
  s.models[0].name = "drill 1, renamed";
  s.gpus = {Gpu("mi300x")};
  s.contexts = {8192};
  SweepTable t;
  t.columns = parse_fields("model,gpu,weight_bytes,fits").value();
  ASSERT_TRUE(sweep(s, [&](const SweepRow& r) { t.add(r); }).ok());
  std::ostringstream out;
  find_sweep_format("csv").value()(t, out);
  EXPECT_EQ(out.str(), "model,gpu,weight_bytes,fits\n\"drill 1, renamed\",mi300x,39019610112,true\n");
}

TEST(SweepCli, CsvAndJsonGiveBaseUnitsTextAndMarkdownHumanUnits) {
  const Args a = {"--gpu", "mi300x", "--seq", "8192", "--fields", "gpu,weight_bytes,teaching_tokens_per_s_weights_only,teaching_fits"};
  auto run = [&](const std::string& format) {
    Args args = Sweep(a);
    args.insert(args.end(), {"--format", format});
    const CliRun r = run_args(args);
    EXPECT_EQ(r.status, 0) << r.err;
    return r.out;
  };
  const std::string csv = run("csv");
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "gpu,weight_bytes,teaching_tokens_per_s_weights_only,teaching_fits");
  EXPECT_NE(csv.find("mi300x,39019610112,135.829"  /* 5.3e12 / 39,019,610,112 = 135.8291 */), std::string::npos) << csv;
  const std::string md = run("md");
  EXPECT_EQ(md.substr(0, md.find('\n')), "| gpu | weight_bytes | teaching_tokens_per_s_weights_only | teaching_fits |");
  EXPECT_NE(md.find("| --- | ---: | ---: | --- |"), std::string::npos) << md;
  EXPECT_NE(md.find("| mi300x | 39.02 GB | 135.8 | yes |"), std::string::npos) << md;
  const std::string text = run("text");
  EXPECT_EQ(text.find("gpu     weight_bytes  teaching_tokens_per_s_weights_only  teaching_fits"), 0u) << text;
  EXPECT_NE(text.find("mi300x      39.02 GB"), std::string::npos) << text;
  const std::string jsonl = run("jsonl");
  // Keys in --fields order; the ceiling is bw / W = 5.3e12 / 39,019,610,112 at full precision.
  EXPECT_EQ(jsonl, "{\"gpu\":\"mi300x\",\"weight_bytes\":39019610112,\"teaching_tokens_per_s_weights_only\":" +
                       nlohmann::json(5.3e12 / kWfp16).dump() + ",\"teaching_fits\":true}\n");
  const auto o = nlohmann::json::parse(jsonl);
  EXPECT_EQ(o["weight_bytes"], 39'019'610'112);
  EXPECT_EQ(o.size(), 4u);
}

TEST(SweepCli, FieldsPickAndOrderColumns) {
  const CliRun r = run_args(Sweep({"--gpu", "h100", "--seq", "2048", "--fields", "regime_at_capacity,context,regime", "--format", "csv"}));
  ASSERT_EQ(r.status, 0) << r.err;
  // 32,584,028,160 B free / (196,608 x 2048 = 402,653,184 B) = 80 sequences, ~44 FLOP/B at batch 80,
  // below the ridge 295: capacity-bound at capacity. At the row's batch 1 the step reads ~39 GB of
  // weights for ~39 GFLOP, ~1 FLOP/B: bandwidth-bound.
  EXPECT_EQ(r.out, "regime_at_capacity,context,regime\ncapacity-bound,2048,bandwidth-bound\n");
}

TEST(SweepCli, FieldsHelpAndHelpListEveryColumn) {
  const CliRun a = run_args({"sweep", "--fields", "help"});
  const CliRun b = run_args({"sweep", "--help"});
  ASSERT_EQ(a.status, 0) << a.err;
  ASSERT_EQ(b.status, 0) << b.err;
  for (const SweepColumn& c : sweep_columns()) {
    EXPECT_NE(a.out.find(std::string(c.name)), std::string::npos) << c.name;
    EXPECT_NE(b.out.find(std::string(c.name)), std::string::npos) << c.name;
  }
}

TEST(SweepCli, PresetListsAndDefaultSeq) {
  const CliRun r = run_args({"sweep", "--model", "mistral-7b-v0.1,phi-2", "--gpu", "h100", "--fields", "model,context",
                             "--format", "csv"});
  ASSERT_EQ(r.status, 0) << r.err;
  // Without --seq each model uses the default 8,192 tokens, or its max_position_embeddings when
  // smaller, as size does (Mistral 7B v0.1 allows 32768: 8192; Phi-2's limit is 2048).
  EXPECT_EQ(r.out, "model,context\nmistral-7b-v0.1,8192\nphi-2,2048\n");
}

// ---- Bad input ---------------------------------------------------------------

TEST(SweepCli, BadInputIsOneLineExitTwo) {
  ExpectBadInput(Sweep({"--gpu", "h100", "--batch", "1,,8"}), "--batch");
  ExpectBadInput(Sweep({"--gpu", "h100", "--seq", "2048,"}), "--seq");
  ExpectBadInput(Sweep({"--gpu", "h100", "--seq", "0"}), "--seq");
  ExpectBadInput(Sweep({"--gpu", "h100", "--dtype", "fp16,int3"}), "--dtype");
  ExpectBadInput(Sweep({"--gpu", "h100", "--kv-dtype", "fp9"}), "--kv-dtype");
  ExpectBadInput(Sweep({"--gpu", "h100,h999"}), "--gpu");
  ExpectBadInput(Sweep({}), "--gpu");
  ExpectBadInput(Sweep({"--gpu", "h100", "--format", "xml"}), "--format");
  ExpectBadInput(Sweep({"--gpu", "h100", "--format", "csv", "--json"}), "--json");
  ExpectBadInput({"sweep", "--model", "llama-3.1-8b,nope-7b", "--gpu", "h100"}, "--model");
  ExpectBadInput({"sweep", "--gpu", "h100"}, "--model");
  ExpectBadInput({"sweep", "--model", "llama-3.1-8b", "-L", "4", "--gpu", "h100"}, "--layers");
}

TEST(SweepCli, UnknownFieldSuggestsTheClosest) {
  ExpectBadInput(Sweep({"--gpu", "h100", "--fields", "model,tokens_per_s_agregate"}), "--fields");
  const CliRun r = run_args(Sweep({"--gpu", "h100", "--fields", "model,tokens_per_s_agregate"}));
  EXPECT_NE(r.err.find("did you mean 'tokens_per_s_aggregate'"), std::string::npos) << r.err;
  ExpectBadInput(Sweep({"--gpu", "h100", "--fields", "model,,gpu"}), "--fields");
}

TEST(SweepCli, TextRefusesWhatItCannotAlignTheStreamingFormatsDoNot) {
  // 1 model × 1 GPU × 100 seqs × 100 batches × 3 dtypes × 4 KV dtypes = 120,000 > 100,000: text holds
  // every row to align its columns, so it refuses; csv streams them (no cap).
  const Args text = Sweep({"--gpu", "h100", "--seq", "128:12800:128", "--batch", "1:100", "--dtype", "fp16,int8,int4",
                           "--kv-dtype", "fp16,fp8,int8,int4"});
  ExpectBadInput(text, "--format");
  const CliRun r = run_args(text);
  EXPECT_NE(r.err.find("100,000"), std::string::npos) << r.err;
  Args csv = text;
  csv.insert(csv.end(), {"--format", "csv", "--fields", "batch"});
  const CliRun c = run_args(csv);
  ASSERT_EQ(c.status, 0) << c.err;
  EXPECT_EQ(line_count(c.out), 120'001);  // the header and 120,000 rows
}

}  // namespace
}  // namespace modelcalc

namespace modelcalc {
namespace {

// A named engine predicts only where it runs (issue #37): TensorRT-LLM needs an NVIDIA GPU, so its
// MI300X row has no prediction (size refuses that setup outright), its H100 row is size's.
TEST(SweepCli, ANamedEnginePredictsOnlyWhereItRuns) {
  const CliRun r = run_args({"sweep", "--model", "llama-3.1-8b", "--engine", "trtllm", "--gpu", "h100,mi300x",
                             "--fields", "gpu,predicted_tokens_per_s_aggregate,tokens_per_s_aggregate", "--format",
                             "json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto rows = r.json();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_TRUE(rows[1]["predicted_tokens_per_s_aggregate"].is_null()) << rows[1];
  EXPECT_FALSE(rows[1]["tokens_per_s_aggregate"].is_null());  // the ceiling stays
  const CliRun s = run_args({"size", "--model", "llama-3.1-8b", "--engine", "trtllm", "--gpu", "h100", "--json"});
  ASSERT_EQ(s.status, 0) << s.err;
  EXPECT_EQ(rows[0]["predicted_tokens_per_s_aggregate"], s.json()["decode_step"]["predicted"]["tokens_per_s_aggregate"]);
  EXPECT_EQ(run_args({"size", "--model", "llama-3.1-8b", "--engine", "trtllm", "--gpu", "mi300x"}).status, 2);
}

}  // namespace
}  // namespace modelcalc
