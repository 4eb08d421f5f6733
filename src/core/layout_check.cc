#include "modelcalc/layout_check.h"

#include <cmath>
#include <string>

#include "embedded_data.h"
#include "modelcalc/gpu.h"
#include "modelcalc/hf_config.h"
#include "modelcalc/plan_engine.h"
#include "tsv.h"

namespace modelcalc {

namespace {

constexpr const char* kColumns[] = {"id",       "engine",       "profile",    "model",
                                    "gpu",      "gpus",         "tp",         "attn_dp",
                                    "ep",       "redundant_experts", "two_batch_overlap", "weight_dtype",
                                    "kv_dtype", "phase",        "isl",        "osl",
                                    "prefix_hit", "spec_method", "spec_tokens", "spec_acceptance",
                                    "metric",   "value",        "shape",      "source",
                                    "notes"};
constexpr size_t kNumColumns = sizeof(kColumns) / sizeof(kColumns[0]);

bool read_count(std::string_view t, int64_t* v) { return tsv_int(t, v) && *v >= 0; }
bool read_real(std::string_view t, double* v) { return tsv_real(t, v) && *v >= 0; }

}  // namespace

std::string_view layout_metric_name(LayoutMetric m) {
  switch (m) {
    case LayoutMetric::kInputTokensPerNode: return "input_tokens_per_s_per_node";
    case LayoutMetric::kOutputTokensPerNode: return "output_tokens_per_s_per_node";
    case LayoutMetric::kSpecSpeedup: return "spec_speedup";
  }
  return "?";
}

Result<std::vector<LayoutMeasurement>> parse_layout_measurements(std::string_view text, std::string_view file) {
  std::vector<LayoutMeasurement> out;
  TsvLines lines(text);
  bool header = false;
  for (std::string_view line; lines.next(&line);) {
    const std::vector<std::string_view> c = split_fields(line);
    const std::string at = std::string(file) + " line " + std::to_string(lines.line_no());
    if (c.size() != kNumColumns) {
      return Status::InvalidArgument(file, at + ": has " + std::to_string(c.size()) + " columns, expected " +
                                               std::to_string(kNumColumns));
    }
    if (!header) {
      for (size_t i = 0; i < kNumColumns; ++i) {
        if (c[i] != kColumns[i]) {
          return Status::InvalidArgument(file, at + ": column " + std::to_string(i + 1) + " is '" + std::string(c[i]) +
                                                   "', expected '" + kColumns[i] + "'");
        }
      }
      header = true;
      continue;
    }
    auto bad = [&](size_t col, const std::string& why) {
      return Status::InvalidArgument(file, at + ": " + kColumns[col] + " '" + std::string(c[col]) + "' " + why);
    };
    LayoutMeasurement r;
    r.id = c[0], r.engine = c[1], r.model = c[3], r.gpu = c[4];
    auto profile = parse_engine(c[2]);
    if (!profile.ok()) return bad(2, "is not an engine release (trtllm, trtllm-pytorch, vllm, vllm-v0, sglang, @VERSION)");
    r.profile = *profile;
    int64_t* counts[] = {&r.gpus, &r.tp, &r.attn_dp, &r.ep, &r.redundant_experts};
    for (size_t i = 0; i < 5; ++i) {
      if (!read_count(c[5 + i], counts[i])) return bad(5 + i, "must be a whole number");
    }
    if (c[10] != "yes" && c[10] != "no") return bad(10, "must be yes or no");
    r.two_batch_overlap = c[10] == "yes";
    auto w = parse_dtype(c[11], "weight_dtype");
    if (!w.ok()) return bad(11, "is not a dtype");
    auto kv = parse_kv_dtype(c[12], "kv_dtype");
    if (!kv.ok()) return bad(12, "is not a KV dtype");
    r.weight_dtype = *w, r.kv_dtype = *kv;
    if (c[13] == "prefill") {
      r.phase = ServingPhase::kPrefillOnly;
    } else if (c[13] == "decode") {
      r.phase = ServingPhase::kDecodeOnly;
    } else {
      return bad(13, "must be prefill or decode");
    }
    if (!read_count(c[14], &r.isl) || r.isl < 1) return bad(14, "must be a positive whole number");
    if (!read_count(c[15], &r.osl) || r.osl < 1) return bad(15, "must be a positive whole number");
    if (!read_real(c[16], &r.prefix_hit) || r.prefix_hit >= 1) return bad(16, "must be in [0, 1)");
    if (c[17] == "none") {
      r.spec_method = SpecMethod::kNone;
    } else if (c[17] == "mtp") {
      r.spec_method = SpecMethod::kMtp;
    } else {
      return bad(17, "must be none or mtp");
    }
    if (!read_count(c[18], &r.spec_tokens)) return bad(18, "must be a whole number");
    if (!read_real(c[19], &r.spec_acceptance) || r.spec_acceptance > 1) return bad(19, "must be in [0, 1]");
    if (c[20] == layout_metric_name(LayoutMetric::kInputTokensPerNode)) {
      r.metric = LayoutMetric::kInputTokensPerNode;
    } else if (c[20] == layout_metric_name(LayoutMetric::kOutputTokensPerNode)) {
      r.metric = LayoutMetric::kOutputTokensPerNode;
    } else if (c[20] == layout_metric_name(LayoutMetric::kSpecSpeedup)) {
      r.metric = LayoutMetric::kSpecSpeedup;
    } else {
      return bad(20, "is not input_tokens_per_s_per_node, output_tokens_per_s_per_node or spec_speedup");
    }
    if ((r.metric == LayoutMetric::kInputTokensPerNode) != (r.phase == ServingPhase::kPrefillOnly)) {
      return bad(20, "does not go with phase " + std::string(c[13]));
    }
    if (r.metric == LayoutMetric::kSpecSpeedup && (r.spec_method == SpecMethod::kNone || r.spec_tokens < 1)) {
      return bad(20, "needs a drafter (spec_method, spec_tokens)");
    }
    if (!read_real(c[21], &r.value) || !(r.value > 0)) return bad(21, "must be a positive number");
    if (c[22] != "published" && c[22] != "assumed") return bad(22, "must be published or assumed");
    r.shape_assumed = c[22] == "assumed";
    r.source = c[23], r.notes = c[24];
    if (r.source.empty()) return bad(23, "is empty: every figure cites where it comes from");
    out.push_back(std::move(r));
  }
  if (!header) return Status::InvalidArgument(file, std::string(file) + ": no header line");
  return out;
}

std::span<const LayoutMeasurement> shared_layout_measurements() {
  static const std::vector<LayoutMeasurement> rows =
      parse_embedded_or_die("serving-layouts-measured.tsv", [](std::string_view t) {
        return parse_layout_measurements(t, "serving-layouts-measured.tsv");
      });
  return rows;
}

Result<DeploymentOptions> layout_measurement_options(const LayoutMeasurement& row) {
  DeploymentOptions o;
  o.split.tp = row.tp;
  o.split.attn_dp = row.attn_dp;
  o.split.dp_attention = row.attn_dp > 1;
  o.split.ep = row.ep;
  if (o.split.replica_gpus() != row.gpus) {
    return Status::InvalidArgument("gpus", row.id + ": tp x attn_dp = " + std::to_string(o.split.replica_gpus()) +
                                               ", not the row's " + std::to_string(row.gpus) + " GPUs");
  }
  o.redundant_experts = row.redundant_experts;
  o.two_batch_overlap = row.two_batch_overlap;
  o.weight_dtype = row.weight_dtype;
  o.kv_dtype = row.kv_dtype;
  o.context = row.isl + row.osl;
  o.prompt_tokens = row.isl;
  o.prefix.hit = row.prefix_hit;
  if (row.spec_method != SpecMethod::kNone) {
    o.spec.method = row.spec_method;
    o.spec.tokens = row.spec_tokens;
    o.spec.acceptance = row.spec_acceptance;
  }
  return o;
}

namespace {

// The pool's figure of the row's phase. Throughput rows, saturated: input
// tokens/s of a prefill-only replica, output tokens/s of a decode-only one at
// the largest batch it holds. The speed-up row: tokens/s per user of a
// decode-only replica at one sequence per attention group (the memory-bound
// end, where a drafter gains most; at a full batch the step turns compute-bound
// and the drafter's tokens cost as much as they save).
struct PoolFigures {
  double ceiling = 0, predicted = 0;
  double batch_ceiling = 0, batch_predicted = 0;
};

Result<PoolFigures> pool_figures(const ModelSpec& m, const GpuSpec& gpu, const LayoutMeasurement& row,
                                 const DeploymentOptions& o) {
  MC_ASSIGN_OR_RETURN(const PlanPrepared p, prepare_serving(m, gpu, o, row.profile, EngineFlags{}, row.isl, row.osl));
  const bool speedup = row.metric == LayoutMetric::kSpecSpeedup;
  const ServingRequest rq = speedup ? ServingRequest{row.isl, row.osl, ServingLoad::kBatch,
                                                     static_cast<double>(row.attn_dp), row.phase}
                                    : ServingRequest{row.isl, row.osl, ServingLoad::kSaturated, 0, row.phase};
  const ServingFigures c = serve(p.d, p.ceiling_cap, p.params, true, rq);
  const ServingFigures e = serve(p.engine_d, p.engine_cap, p.params, false, rq);
  if (!c.fits) return Status::InvalidArgument("gpus", row.id + ": the model does not fit on the row's layout");
  const bool prefill = row.phase == ServingPhase::kPrefillOnly;
  PoolFigures f;
  f.ceiling = speedup ? c.tokens_per_s_per_user : prefill ? c.input_tokens_per_s : c.output_tokens_per_s;
  f.predicted = !e.fits ? 0
                : speedup ? e.tokens_per_s_per_user
                : prefill ? e.input_tokens_per_s
                          : e.output_tokens_per_s;
  f.batch_ceiling = prefill ? c.prefill_tokens_per_step / static_cast<double>(row.isl) : c.batch;
  f.batch_predicted = prefill ? e.prefill_tokens_per_step / static_cast<double>(row.isl) : e.batch;
  return f;
}

}  // namespace

Result<std::vector<LayoutCheck>> check_layouts(std::span<const LayoutMeasurement> rows) {
  std::vector<LayoutCheck> out;
  for (const LayoutMeasurement& row : rows) {
    MC_ASSIGN_OR_RETURN(const ModelSpec m, find_preset(row.model));
    MC_ASSIGN_OR_RETURN(const GpuSpec gpu, find_gpu(row.gpu));
    MC_ASSIGN_OR_RETURN(const DeploymentOptions o, layout_measurement_options(row));
    MC_ASSIGN_OR_RETURN(const PoolFigures with, pool_figures(m, gpu, row, o));
    LayoutCheck k;
    k.row = &row;
    k.node_gpus = std::max<int64_t>(1, gpu.domain_gpus);
    k.batch_ceiling = static_cast<int64_t>(std::floor(with.batch_ceiling));
    k.batch_predicted = static_cast<int64_t>(std::floor(with.batch_predicted));
    if (row.metric == LayoutMetric::kSpecSpeedup) {
      DeploymentOptions plain = o;
      plain.spec = SpeculativeDecoding{};
      MC_ASSIGN_OR_RETURN(const PoolFigures without, pool_figures(m, gpu, row, plain));
      // A ratio of two ceilings bounds nothing (the engine may run slower without the drafter than the
      // ideal machine does); what bounds a speed-up is the tokens a step can yield.
      k.ceiling = accepted_tokens_per_step(row.spec_tokens, row.spec_acceptance);
      k.modelled_ceiling = with.ceiling / without.ceiling;
      k.predicted = without.predicted > 0 ? with.predicted / without.predicted : 0;
    } else {
      const double per_node = static_cast<double>(k.node_gpus) / static_cast<double>(row.gpus);
      k.ceiling = with.ceiling * per_node;
      k.predicted = with.predicted * per_node;
    }
    k.ceiling_ratio = row.value / k.ceiling;
    k.predicted_error = k.predicted > 0 ? k.predicted / row.value - 1 : 0;
    out.push_back(k);
  }
  return out;
}

}  // namespace modelcalc
