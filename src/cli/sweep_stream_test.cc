// The streaming sweep writes the same bytes as the table printers it
// replaced. The golden files in tests/golden/ were captured from main's
// binary at commit de64f24 (before streaming; the table printers built a
// whole table, then printed it) with the arguments in
// tests/golden/README.sweep_args. They are goldens for byte identity only:
// the numbers in them are checked by hand elsewhere (sweep_test.cc,
// size_test.cc), not here. Edited since by rule, not recaptured: the 24 rows whose
// weights do not fit have no kv_room_bytes figure (issue #33): empty in csv, null in
// json(l), "does not fit (short by X)" in md, X the captured figure without its sign. Renamed by rule
// (issue #31): the whiteboard's columns carry teaching_ (weight_bytes, every parameter at the dtype, too:
// weight_bytes is now the checkpoint's), the serving regime is regime_at_capacity.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "modelcalc/hf_config.h"
#include "modelcalc/sweep.h"
#include "sweep_table.h"
#include "test_util.h"
#include "test_paths.h"  // MODELCALC_SOURCE_DIR, MODELCALC_BINARY

namespace modelcalc {
namespace {

std::string Golden(const std::string& name) {
  std::ifstream in(std::string(MODELCALC_SOURCE_DIR) + "/tests/golden/" + name, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> GoldenArgs() {
  std::istringstream in(Golden("README.sweep_args"));
  std::vector<std::string> args = {"sweep"};
  for (std::string w; in >> w;) args.push_back(w);
  return args;
}

TEST(SweepStream, SameBytesAsTheTablePrinters) {
  ASSERT_GT(GoldenArgs().size(), 10u);
  for (const char* format : {"csv", "json", "jsonl", "md"}) {
    std::vector<std::string> args = GoldenArgs();
    args.insert(args.end(), {"--format", format});
    const CliRun r = run_args(args);
    ASSERT_EQ(r.status, 0) << r.err;
    const std::string want = Golden(std::string("sweep_all_fields.") + format);
    ASSERT_FALSE(want.empty()) << format;
    EXPECT_TRUE(r.out == want) << format << ": output differs from the golden";
  }
  // The default columns when the goldens were captured (the seed's whiteboard; since issue #31 the
  // engine's figures are the defaults and these are teaching_*).
  const std::string fields =
      "model,gpu,context,batch,dtype,kv_dtype,params_total,params_active,weight_bytes,kv_bytes_per_sequence,"
      "teaching_fits,teaching_tokens_per_s_weights_only,teaching_tokens_per_s_with_kv,teaching_tokens_per_s_aggregate,"
      "teaching_max_batch_by_capacity,regime_at_capacity";
  const std::vector<std::string> custom = {"sweep",      "--model", "llama-3.1-70b", "--bandwidth", "1TB/s",
                                           "--capacity", "1GB",     "--peak",        "1e15",        "--fields",
                                           fields};
  for (const char* format : {"csv", "jsonl"}) {
    std::vector<std::string> args = custom;
    args.insert(args.end(), {"--format", format});
    EXPECT_EQ(run_args(args).out, Golden(std::string("sweep_custom_default.") + format)) << format;
  }
  EXPECT_EQ(run_args({"sweep", "--model", "llama-3.1-70b", "--gpu", "h100", "--format", "json", "--fields", fields}).out,
            Golden("sweep_one_row.json"));
}

// Writer and table printer on the same rows, in-process, including strings
// that need quoting or escaping (a model name is free text from config.json).
TEST(SweepStream, WriterEqualsPrinterOnAwkwardNames) {
  SweepSpec s;
  ModelSpec m = find_preset("llama-3.2-1b").value();
  s.models = {m, m, m};
  s.models[0].name = "a,\"quoted\" name";
  s.models[1].name = "tab\there \\ back";
  s.models[2].name = "ünïcode";
  s.gpus = {find_gpu("h100").value()};
  s.batches = {1, 7};
  for (const SweepFormat& f : sweep_formats()) {
    std::vector<const SweepColumn*> columns;
    for (const SweepColumn& c : sweep_columns()) columns.push_back(&c);
    SweepTable table;
    table.columns = columns;
    ASSERT_TRUE(sweep(s, [&](const SweepRow& r) { table.add(r); }).ok());
    std::ostringstream want, got;
    f.print(table, want);
    auto w = make_sweep_writer(f.name, columns, got);
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE(sweep(s, [&](const SweepRow& r) { (*w)->row(r); }).ok());
    (*w)->end();
    EXPECT_EQ(got.str(), want.str()) << f.name;
  }
}

// Batch runs: one dtype pair, so consecutive rows differ only in the batch
// and the writers reuse the text of every column that does not vary with it.
// The table printers read every cell of every row; the bytes must agree.
SweepSpec BatchRunSpec() {
  SweepSpec s;
  for (const char* name : {"llama-3.1-8b", "mixtral-8x7b-v0.1", "gemma-2-9b"}) s.models.push_back(find_preset(name).value());
  s.gpus = {find_gpu("h100").value(), find_gpu("l4").value()};
  s.contexts = {1, 4096, 131072};
  s.batches = {1, 2, 3, 64, 1, 4096, 100000};
  s.dtypes = {Dtype::kFp8};
  return s;
}

TEST(SweepStream, WriterEqualsPrinterOnBatchRuns) {
  const SweepSpec s = BatchRunSpec();
  std::vector<const SweepColumn*> columns;
  for (const SweepColumn& c : sweep_columns()) columns.push_back(&c);
  for (const SweepFormat& f : sweep_formats()) {
    SweepTable table;
    table.columns = columns;
    ASSERT_TRUE(sweep(s, [&](const SweepRow& r) { table.add(r); }).ok());
    std::ostringstream want, got;
    f.print(table, want);
    auto w = make_sweep_writer(f.name, columns, got);
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE(sweep(s, [&](const SweepRow& r) { (*w)->row(r); }).ok());
    (*w)->end();
    EXPECT_EQ(got.str(), want.str()) << f.name;
  }
}

// The writers hold a row as ready-made pieces of text between the columns
// that vary with the batch, rebuilt when any other column may have changed.
// Cases the default columns on BatchRunSpec do not reach: --fields orders
// that put varying columns first, last, side by side, alone, repeated or not
// at all; grids where a non-batch column varies fastest (the dtype pair
// innermost, one batch and many seqs, several GPUs); a GPU the deployment
// engine refuses (its reals repeat, empty); a row longer than the
// writers' 256 KiB buffer. The table printers, which format every cell of
// every row, are the reference.
// With a repeated column the json printers (one nlohmann object a row) keep
// one key where the writers write each column, so `json_too` is false then.
void ExpectWritersEqualPrinters(const SweepSpec& s, const std::vector<const SweepColumn*>& columns,
                                const std::string& what, bool json_too = true) {
  for (const SweepFormat& f : sweep_formats()) {
    if (!json_too && f.name.starts_with("json")) continue;
    SweepTable table;
    table.columns = columns;
    ASSERT_TRUE(sweep(s, [&](const SweepRow& r) { table.add(r); }).ok()) << what;
    std::ostringstream want, got;
    f.print(table, want);
    auto w = make_sweep_writer(f.name, columns, got);
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE(sweep(s, [&](const SweepRow& r) { (*w)->row(r); }).ok());
    (*w)->end();
    EXPECT_TRUE(got.str() == want.str()) << f.name << ", " << what;
  }
}

TEST(SweepStream, WriterEqualsPrinterForFieldOrders) {
  const SweepSpec s = BatchRunSpec();
  for (const char* fields : {
           "batch,model,gpu,context,tokens_per_s_aggregate",              // varying first, then a run, varying last
           "model,batch,tokens_per_s_aggregate,fits,regime",                // varying side by side, at the end
           "batch,tokens_per_s_aggregate,fits,regime,teaching_step_bytes,intensity,step_s",  // only varying
           "model,gpu,context,dtype,kv_dtype,params_total,regime_at_capacity",  // none varying
           "batch",                                                   // one varying column alone
           "weight_bytes",                                            // one constant column alone
           "regime,teaching_fits,tokens_per_s_per_sequence,ridge,tokens_per_s_aggregate,"
           "max_sequences,attention_fraction,fits,predicted_step_s,predicted_max_sequences",  // alternating, every real kind
       }) {
    const auto columns = parse_fields(fields);
    ASSERT_TRUE(columns.ok()) << fields;
    ExpectWritersEqualPrinters(s, *columns, fields);
  }
  // --fields refuses a repeated column (below), but the writers take any column list a library caller gives.
  const char* repeated = "batch,batch,model,model,fits,fits";
  std::vector<const SweepColumn*> twice;
  for (const char* name : {"batch", "batch", "model", "model", "fits", "fits"}) {
    twice.push_back(parse_fields(name).value().front());
  }
  ExpectWritersEqualPrinters(s, twice, repeated, /*json_too=*/false);
  const auto refused = parse_fields("batch,model,batch");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(), "--fields: names the column 'batch' twice");
}

TEST(SweepStream, WriterEqualsPrinterWhenAnotherColumnVariesFastest) {
  std::vector<const SweepColumn*> all;
  for (const SweepColumn& c : sweep_columns()) all.push_back(&c);
  const auto defaults = parse_fields("").value();
  // The dtype pair is innermost: every row has a new key.
  SweepSpec dtypes;
  dtypes.models = {find_preset("llama-3.1-8b").value(), find_preset("mixtral-8x7b-v0.1").value()};
  dtypes.gpus = {find_gpu("h100").value()};
  dtypes.contexts = {4096, 32768};
  dtypes.batches = {1, 8, 512};
  dtypes.dtypes = {Dtype::kFp16, Dtype::kFp8, Dtype::kInt4};
  dtypes.kv_dtypes = {Dtype::kBf16, Dtype::kFp8};
  // One batch: seq varies fastest.
  SweepSpec seqs;
  seqs.models = {find_preset("gemma-2-9b").value()};
  seqs.gpus = {find_gpu("l4").value()};
  for (int64_t t = 1; t <= 1 << 20; t *= 4) seqs.contexts.push_back(t);
  seqs.batches = {16};
  // One batch and one seq: the GPU varies fastest, every other one a GPU
  // the deployment engine refuses (fp8 weights compute in fp8, and it has no
  // fp8 peak); then with a batch run on each, where the refused GPU's
  // modeled reals repeat as 0.0.
  SweepSpec gpus;
  gpus.models = {find_preset("llama-3.1-8b").value()};
  GpuSpec custom;
  custom.key = "custom";
  custom.name = "custom";
  custom.capacity_bytes = 1e9;
  custom.bandwidth_bytes_per_s = 1e12;
  custom.peak_bf16_flops = 1e15;
  gpus.gpus = {find_gpu("h100").value(), custom, find_gpu("mi300x").value(), custom};
  gpus.contexts = {8192};
  gpus.batches = {1};
  gpus.dtypes = {Dtype::kFp8};
  SweepSpec refused_runs = gpus;
  refused_runs.batches = {1, 2, 3};
  for (const auto& [spec, what] : {std::pair<const SweepSpec&, const char*>{dtypes, "dtype pair fastest"},
                                   {seqs, "seq fastest"},
                                   {gpus, "gpu fastest"},
                                   {refused_runs, "batch runs on a refused GPU"}}) {
    ExpectWritersEqualPrinters(spec, all, std::string(what) + ", every column");
    ExpectWritersEqualPrinters(spec, defaults, std::string(what) + ", default columns");
  }
  // The grids reach what they are for: a refused deployment (the engine's reals
  // empty, repeated), and both verdicts of fits within one batch run.
  bool refused = false;
  ASSERT_TRUE(sweep(refused_runs, [&](const SweepRow& r) { refused = refused || !r.has_deployment; }).ok());
  EXPECT_TRUE(refused);
  const SweepSpec runs = BatchRunSpec();
  bool flipped = false;
  bool last_fits = false;
  ASSERT_TRUE(sweep(runs, [&](const SweepRow& r) {
                const bool fits = r.has_deployment && r.deployment.decode.fits;
                if (r.index % static_cast<int64_t>(runs.batches.size()) != 0 && fits != last_fits) flipped = true;
                last_fits = fits;
              }).ok());
  EXPECT_TRUE(flipped);
}

// A row longer than the writers' 256 KiB buffer (a model name is free text
// from config.json), with characters csv must quote and JSON escape.
TEST(SweepStream, WriterEqualsPrinterOnARowLongerThanItsBuffer) {
  SweepSpec s;
  ModelSpec m = find_preset("llama-3.2-1b").value();
  s.models = {m, m};
  s.models[0].name = std::string(300000, 'x') + ",\"q\"";
  s.models[1].name = "short";
  s.gpus = {find_gpu("h100").value()};
  s.batches = {1, 2, 3};
  std::vector<const SweepColumn*> all;
  for (const SweepColumn& c : sweep_columns()) all.push_back(&c);
  ExpectWritersEqualPrinters(s, all, "300,000-byte model name");
  ExpectWritersEqualPrinters(s, parse_fields("batch,model,tokens_per_s_aggregate").value(),
                             "300,000-byte model name, varying columns around it");
}

// What the writers rely on: a column not marked column_varies_with_batch has
// the same cell for every batch of a (model, GPU, seq, dtype, KV dtype).
void ExpectUnmarkedColumnsConstantOverBatches(const SweepSpec& s) {
  const auto columns = sweep_columns();
  std::vector<Cell> first(columns.size());
  int64_t checked = 0, varied = 0;
  ASSERT_TRUE(sweep(s, [&](const SweepRow& r) {
                const bool first_batch = r.index % static_cast<int64_t>(s.batches.size()) == 0;
                for (size_t c = 0; c < columns.size(); ++c) {
                  const Cell cell = columns[c].get(r);
                  if (first_batch) {
                    first[c] = cell;
                  } else if (!column_varies_with_batch(columns[c])) {
                    EXPECT_TRUE(cell == first[c] || (std::holds_alternative<double>(cell) &&
                                                     std::isnan(std::get<double>(cell)) &&
                                                     std::isnan(std::get<double>(first[c]))))
                        << columns[c].name << " at row " << r.index;
                    ++checked;
                  } else {
                    varied += cell == first[c] ? 0 : 1;
                  }
                }
              }).ok());
  EXPECT_GT(checked, 0);
  EXPECT_GT(varied, 0);  // the marked columns do change in this grid
}

TEST(SweepStream, ColumnsNotVaryingWithTheBatchAreTheSameAtEveryBatch) {
  ExpectUnmarkedColumnsConstantOverBatches(BatchRunSpec());
}

// The same under the DP-attention layout with a drafter, where the all-to-all grows with the batch.
TEST(SweepStream, ColumnsNotVaryingWithTheBatchHoldUnderDpAttention) {
  SweepSpec s;
  s.models = {find_preset("deepseek-v3").value()};
  s.gpus = {find_gpu("h200").value()};
  Parallelism p;
  p.dp_attention = true;
  p.attn_dp = 8;
  p.ep = 8;
  s.splits = {p};
  s.contexts = {8192};
  s.batches = {64, 512};
  s.dtypes = {Dtype::kFp8};
  s.spec.method = SpecMethod::kMtp;
  s.spec.tokens = 1;
  s.spec.acceptance = 0.8;
  ExpectUnmarkedColumnsConstantOverBatches(s);
}

}  // namespace
}  // namespace modelcalc
