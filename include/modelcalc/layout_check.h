// The reality check of the serving layouts: published figures of attention
// DP x MoE EP pools, disaggregated prefill and decode, and speculative
// decoding (data/serving-layouts-measured.tsv, compiled in), each evaluated by
// the deployment engine on the layout it was measured on, ceiling and
// prediction. Not fitted: the step model's parameters come from the serving
// measurements alone (calibrate.h).
#ifndef MODELCALC_LAYOUT_CHECK_H_
#define MODELCALC_LAYOUT_CHECK_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "modelcalc/deployment.h"
#include "modelcalc/engine_profile.h"
#include "modelcalc/serving.h"
#include "modelcalc/status.h"

namespace modelcalc {

enum class LayoutMetric { kInputTokensPerNode, kOutputTokensPerNode, kSpecSpeedup };
// "input_tokens_per_s_per_node", "output_tokens_per_s_per_node", "spec_speedup".
std::string_view layout_metric_name(LayoutMetric m);

// One row of the table (its header comment states the columns).
struct LayoutMeasurement {
  std::string id, engine, model, gpu;
  EngineRelease profile{EngineFamily::kSglang, std::nullopt};
  int64_t gpus = 1, tp = 1, attn_dp = 1, ep = 1, redundant_experts = 0;
  bool two_batch_overlap = false;
  Dtype weight_dtype = Dtype::kFp8, kv_dtype = Dtype::kBf16;
  ServingPhase phase = ServingPhase::kPrefillOnly;  // kPrefillOnly or kDecodeOnly
  int64_t isl = 0, osl = 0;
  double prefix_hit = 0;
  SpecMethod spec_method = SpecMethod::kNone;
  int64_t spec_tokens = 0;
  double spec_acceptance = 0;
  LayoutMetric metric = LayoutMetric::kOutputTokensPerNode;
  double value = 0;
  bool shape_assumed = false;
  std::string source, notes;
};

// Parses the table; errors name `file`, the line and the column.
Result<std::vector<LayoutMeasurement>> parse_layout_measurements(std::string_view text, std::string_view file);
// The compiled-in rows.
std::span<const LayoutMeasurement> shared_layout_measurements();

// The deployment options a row describes: one replica of `gpus` GPUs, the
// layout, the drafter and the prefix cache; context isl + osl, prompt isl.
// Errors name the row's column.
Result<DeploymentOptions> layout_measurement_options(const LayoutMeasurement& row);

struct LayoutCheck {
  const LayoutMeasurement* row = nullptr;  // not owned
  // Throughput rows: the metric by the engine, per node = the pool's saturated figure x domain_gpus / gpus.
  // The speed-up row: ceiling = the bound, the tokens one step yields (accepted_tokens_per_step: no drafter
  // gains more, its passes cost time); modelled_ceiling and predicted = the engine's tokens/s per user with
  // the drafter / without, at one sequence per attention group (ceiling's and the profile's step).
  double ceiling = 0, predicted = 0;
  double modelled_ceiling = 0;  // the speed-up row only
  double ceiling_ratio = 0;    // measured / ceiling; <= 1 when the ceiling holds
  double predicted_error = 0;  // predicted / measured - 1
  int64_t batch_ceiling = 0, batch_predicted = 0;  // sequences (decode) or prompts per step (prefill) per replica
  int64_t node_gpus = 8;       // the GPU's fast domain
};
// Every row evaluated. REQUIRES: rows outlive the result.
Result<std::vector<LayoutCheck>> check_layouts(std::span<const LayoutMeasurement> rows);

}  // namespace modelcalc

#endif  // MODELCALC_LAYOUT_CHECK_H_
