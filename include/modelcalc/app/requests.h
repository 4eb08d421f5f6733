// The typed requests: one struct per computing command, its members the
// command's fields (unset: the default, which resolve() applies and records).
// Each request's table (table.h) binds its fields to these members; a C++
// caller sets them directly:
//
//   modelcalc::app::SizeRequest r;
//   r.model.model = "llama-3.1-8b";
//   r.gpu.gpu = "h100";
//   r.dep.batch = 32;
//   auto a = modelcalc::app::answer(r);
//
// Members state their defaults (the tables' default texts say the same for
// --help). Units are base units: tokens, bytes, seconds, FLOP/s, B/s.
#ifndef MODELCALC_APP_REQUESTS_H_
#define MODELCALC_APP_REQUESTS_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "modelcalc/app/field.h"
#include "modelcalc/app/table.h"
#include "modelcalc/dtype.h"
#include "modelcalc/engine_profile.h"
#include "modelcalc/gpu.h"
#include "modelcalc/model.h"

namespace modelcalc::app {

using SharedModel = std::shared_ptr<const ModelSpec>;
using SharedGpu = std::shared_ptr<const GpuSpec>;  // null: no GPU given

// ---------------------------------------------------------------- the shared groups

// The model: `spec` when given (a C++ caller's or Python's Model), else a
// preset (`model`), a config.json (`config`), a checkpoint folder
// (`checkpoint`: config.json and its safetensors headers) or the hand-typed shape.
struct ModelInput {
  std::string model;       // preset name
  std::string config;      // config.json path, or a folder holding one (its shards' headers read if there)
  std::string checkpoint;  // a checkpoint folder; its safetensors headers are required (modelcalc/checkpoint.h)
  std::optional<int64_t> layers, hidden, heads, kv_heads, head_dim, ffn, vocab;  // kv_heads: heads; head_dim: hidden / heads
  bool glu = false;   // gated FFN
  bool tied = false;  // tied embedding and lm_head
  std::shared_ptr<const ModelSpec> spec;  // a model given whole: the fields above must be unset
  bool given() const {
    return spec || !model.empty() || !config.empty() || !checkpoint.empty() || layers || hidden || heads || ffn ||
           vocab;
  }
};

// The GPU: `spec` when given, else a catalog name; bandwidth, capacity and
// peak override it, or alone make a custom GPU (all three needed then).
struct GpuInput {
  std::string gpu;                  // catalog name
  std::optional<double> bandwidth;  // B/s
  std::optional<double> capacity;   // bytes
  std::optional<double> peak;       // dense bf16 FLOP/s
  std::shared_ptr<const GpuSpec> spec;
  bool custom() const { return bandwidth || capacity || peak; }
  bool given() const { return spec || !gpu.empty() || custom(); }
};

// The deployment: the split, the workload, the dtypes.
struct DeploymentInput {
  std::optional<int64_t> gpus;   // default tp x pp x dp, else 1
  std::optional<int64_t> tp;     // default gpus / (pp x dp)
  std::optional<int64_t> pp;     // default 1
  std::optional<int64_t> ep;     // default 1 (DP attention: the replica)
  std::optional<int64_t> dp;     // default 1
  std::optional<int64_t> context;  // tokens; default min(8,192, the model's max positions)
  std::optional<int64_t> batch;    // sequences; default 1
  std::optional<int64_t> prompt;   // tokens; default the context
  std::optional<Dtype> dtype;          // weights; default a quantized checkpoint's own, else bf16
  std::optional<Dtype> compute_dtype;  // default follows the weights (fp8 -> fp8, int8/int4 -> bf16)
  std::optional<Dtype> kv_dtype;       // default the checkpoint's stated, else 16-bit as the weights
  std::optional<double> reserve;       // fraction in [0, 1); default 0 for the ceiling
};

// The serving layouts (docs/serving-layouts.md).
struct LayoutInput {
  bool dp_attention = false;
  std::optional<double> expert_imbalance;    // [1, 64]; default 1
  std::optional<int64_t> redundant_experts;  // default 0
  bool two_batch_overlap = false;
  std::optional<int64_t> spec_tokens;        // K draft tokens, [1, 64]
  std::optional<double> spec_acceptance;     // A in [0, 1]
  std::string spec_method;                   // "mtp" or "draft" (default draft with a draft model)
  std::string draft_model;                   // a preset or a config.json
  std::optional<double> prefix_hit;          // [0, 1)
  std::optional<int64_t> prefix_tokens;      // shared prefix, tokens
  bool disaggregated = false;                // plan only
  bool kv_transfer_overlap = false;          // plan --disaggregated only
  bool any() const {
    return dp_attention || expert_imbalance || redundant_experts || two_batch_overlap || spec_tokens ||
           spec_acceptance || !spec_method.empty() || !draft_model.empty() || prefix_hit || prefix_tokens;
  }
  bool speculative() const {
    return spec_tokens || spec_acceptance || (!spec_method.empty() && spec_method != "none") || !draft_model.empty();
  }
};

// The serving engine of the prediction and its own settings.
struct EngineInput {
  std::string engine;  // "trtllm", "vllm", "sglang"; empty: the GPU vendor's (default_engine_for)
  EngineFlags flags;   // flags.reserve is not a field: resolve() folds DeploymentInput::reserve in
  std::string profile; // a time-parameter file (calibrate --fit --write); empty: the compiled-in profiles
};

// ---------------------------------------------------------------- the requests

struct SizeRequest {
  static constexpr std::string_view kCommand = "size";
  static const Table& table();
  ModelInput model;
  GpuInput gpu;  // none: the sections that need hardware are left out
  DeploymentInput dep;
  LayoutInput layout;
  EngineInput engine;
  std::optional<double> train_tokens;  // D for 6 N D; default not asked
};

struct KvBudgetRequest {
  static constexpr std::string_view kCommand = "kv-budget";
  static const Table& table();
  ModelInput model;
  GpuInput gpu;  // none: give budget
  DeploymentInput dep;
  LayoutInput layout;
  EngineInput engine;
  std::optional<double> budget;       // bytes, given directly
  std::optional<double> workspace;    // bytes; default 2048 x (ffn + vocab) x 2 B
  std::optional<int64_t> mean_len;    // tokens; default context / 2
  std::optional<int64_t> block_size;  // tokens; default 16 here (the engine's own when not given)
};

struct CostRequest {
  static constexpr std::string_view kCommand = "cost";
  static const Table& table();
  std::optional<double> price_per_hour;  // USD per GPU-hour; required
  std::optional<double> tokens_per_s;    // measured; or a model for a ceiling-based floor
  ModelInput model;
  GpuInput gpu;
  DeploymentInput dep;
  LayoutInput layout;
  EngineInput engine;
};

struct DiagnoseRequest {
  static constexpr std::string_view kCommand = "diagnose";
  static const Table& table();
  std::string evidence;  // an evidence JSON file; the fields override it
  // The evidence itself, as JSON text (the web's POST, Python's dict): instead
  // of the file, named `evidence_source` in errors and the report.
  std::string evidence_json, evidence_source;
  std::string phase;             // "decode", "prefill", "training"; default inferred
  std::optional<double> params;  // total parameters N
  ModelInput model;              // a whole model, or shape facts only
  GpuInput gpu;
  DeploymentInput dep;
  LayoutInput layout;
  EngineInput engine;
  std::optional<double> tokens_per_s, aggregate_tokens_per_s;  // measured tokens/s
  std::optional<double> ttft, itl;                             // measured, seconds
  std::optional<double> flop_util, bw_util;                    // fractions
  std::optional<int64_t> kernels_per_step;
  std::optional<Range> kernel_us, gap_us;  // microseconds
  std::optional<double> peak_transient;    // bytes
};

struct RooflineRequest {
  static constexpr std::string_view kCommand = "roofline";
  static const Table& table();
  ModelInput model;  // none: the one-intensity answer
  GpuInput gpu;      // gpu may be a comma list (several GPUs on one roofline)
  std::vector<int64_t> batches;  // decode batches; default 1, 8, 64, 256
  DeploymentInput dep;
  LayoutInput layout;               // the deployments' layout (DP attention, drafter, prefix cache)
  EngineInput engine;               // the prediction beside each deployment; default the GPU vendor's engine
  std::optional<double> intensity;  // FLOP/byte
  std::optional<int64_t> gemm;      // default 8192
};

struct PlanRequest {
  static constexpr std::string_view kCommand = "plan";
  static const Table& table();
  ModelInput model;
  std::optional<int64_t> isl, osl;  // required
  std::string length_dist;          // "fixed" (default) or "uniform-0.8": isl/osl then the top of [0.8 L, L]
  std::optional<double> qps, rate;   // one load at most: requests/s, output tokens/s,
  std::optional<int64_t> concurrency;  // or sequences
  std::optional<double> ttft, tpot, tokens_per_s_per_user;  // targets (seconds, tokens/s)
  std::vector<std::string> gpus;   // kinds searched; default every catalog GPU with a price
  std::optional<int64_t> max_gpus;  // default 64
  std::vector<Dtype> dtypes, kv_dtypes;  // searched; default the checkpoint's, else bf16,fp8
  std::vector<int64_t> batches;     // searched; default 1, 2, 4, ..., 65536
  std::optional<int64_t> max_pp;    // default 8
  std::vector<int64_t> eps;         // searched; default 1 and, for a MoE, tp
  std::string price;                // "h100=2.49,mi300x=1.5"
  std::optional<double> efficiency;  // (0, 1]; default 1
  std::optional<int64_t> top;        // default 10
  std::string rank_by;               // "predicted" (default) or "ceiling"
  bool frontier = false;
  std::string compare;  // published runs beside the frontier: a shared-schema TSV path, or "shared"
  EngineInput engine;
  LayoutInput layout;  // not dp_attention, redundant_experts (plan searches DP attention itself)
};

struct SweepRequest {
  static constexpr std::string_view kCommand = "sweep";
  static const Table& table();
  std::vector<std::string> models, configs, checkpoints;  // presets, config.json paths or checkpoint folders (one
                                                          // kind); or the shape in `shape`
  ModelInput shape;  // a hand-typed shape (its model/config/checkpoint unused)
  std::vector<std::shared_ptr<const ModelSpec>> model_specs;  // models given whole (Python)
  std::vector<std::string> gpus;             // catalog names; or the custom GPU of `gpu`
  GpuInput gpu;                              // bandwidth/capacity/peak: override every GPU, or alone one custom GPU
  std::vector<std::shared_ptr<const GpuSpec>> gpu_specs;  // GPUs given whole (Python)
  std::vector<int64_t> contexts, batches;
  std::vector<Dtype> dtypes, kv_dtypes;
  std::vector<int64_t> split_gpus, tp, pp, ep, dp;
  std::string fields;  // columns; default the default columns
  EngineInput engine;
  LayoutInput layout;
};

// Any computing command's request: what a front end decodes its input into
// (the web server its query, --request a document) before answer().
using AnyRequest =
    std::variant<SizeRequest, KvBudgetRequest, CostRequest, DiagnoseRequest, RooflineRequest, PlanRequest, SweepRequest>;
// An empty request of `command` ("kv-budget"); NotFound when the command has
// no request (it has not moved to this layer, or it computes nothing).
Result<AnyRequest> empty_request(std::string_view command);
// The table of `r`'s command, and `r` as its rows' set() and get() take it.
const Table& table_of(const AnyRequest& r);
void* fields_of(AnyRequest& r);

// The model's rows alone, bound to a ModelInput (the commands that read a
// model and have no request in this layer yet declare their model flags from it).
const Table& model_table();

// Every request's table, in the CLI's command order.
const std::vector<const Table*>& all_tables();
// The table of a command ("kv-budget"), or null.
const Table* find_table(std::string_view command);

}  // namespace modelcalc::app

#endif  // MODELCALC_APP_REQUESTS_H_
