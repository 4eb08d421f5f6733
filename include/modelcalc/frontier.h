// The measured side of a throughput–interactivity frontier: published runs in
// the shared serving schema (modelcalc/calibrate.h) grouped into points, one
// per benchmark run (the rows that share everything but their metric: a setup
// at one concurrency), each beside the prediction of the same configuration at
// the same load, the one calibrate makes of its rows (evaluate_row: one engine,
// one answer), and beside the searched predicted frontier at its interactivity.
#ifndef MODELCALC_FRONTIER_H_
#define MODELCALC_FRONTIER_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "modelcalc/calibrate.h"
#include "modelcalc/engine_profile.h"
#include "modelcalc/plan.h"

namespace modelcalc {

// One published run as a frontier point. Output tokens/s per GPU is the run's
// output_tokens_per_s over its GPUs (a disaggregated run's: both pools');
// tokens/s per user is 1 / itl_s (InferenceX's interactivity: 1 / mean TPOT),
// or the run's tokens_per_s_per_user row. A figure the run did not publish is NaN.
struct MeasuredFrontierPoint {
  std::string gpu;                   // catalog key
  std::string engine;                // the release its prediction uses (engine_release_display)
  std::string engine_key;            // the same as engine_release_key ("sglang@0.5.12")
  std::string layout;                // "TP8", "TP8·EP8 DPA", "2P×TP8 / 1D×TP8·EP8 DPA", "+MTP" when it drafted
  std::string weight_dtype, kv_dtype;
  std::vector<std::string> ids;      // its rows, in file order
  std::string source;
  int64_t gpus = 0;
  double concurrency = 0;            // the run's load when it is a concurrency (0 otherwise)
  std::string load;                  // the load as written ("concurrency=64", "offline", ...)
  EngineFamily family = EngineFamily::kTrtllm;  // of `engine`
  bool disaggregated = false, spec = false;     // prefill and decode pools; drafted with MTP
  LengthDist length_dist = LengthDist::kFixed;
  double measured_tokens_per_s_per_gpu = 0, measured_tokens_per_s_per_user = 0, measured_ttft_s = 0;
  double predicted_tokens_per_s_per_gpu = 0, predicted_tokens_per_s_per_user = 0, predicted_ttft_s = 0;
  double ceiling_tokens_per_s_per_gpu = 0, ceiling_tokens_per_s_per_user = 0;
  // On the published frontier: no other run of its GPU, engine family, weight dtype, drafter (MTP or not) and
  // layout kind (aggregated or not) has both more tokens/s per user and more per GPU.
  bool on_published_frontier = false;
  // For a run on the published frontier that the plan's search can express: the searched predicted frontier of
  // its GPU (PlanResult::frontier, !ceiling) at its measured tokens/s per user, log-log interpolated between
  // the two neighbouring points. Else NaN, and `frontier_note` says why (off the published frontier; another
  // engine; a weight dtype, a drafter or disaggregated pools the plan did not search; outside the curve).
  double frontier_tokens_per_s_per_gpu = 0;
  std::string frontier_note;
};

// Median |error| (predicted / measured - 1) over one GPU and engine's points; NaN where none has the figure.
struct FrontierError {
  std::string gpu, engine;
  int64_t points = 0;
  double tokens_per_s_per_gpu = 0;   // the point's own prediction
  double tokens_per_s_per_user = 0;
  double frontier = 0;               // the searched frontier at the measured interactivity (runs on the
                                     // published frontier the plan can express)
  int64_t frontier_points = 0;       // of which so compared
};

struct FrontierComparison {
  std::vector<MeasuredFrontierPoint> points;  // in file order of their first row
  std::vector<FrontierError> errors;          // per GPU and engine, in order of first appearance
  FrontierError overall;                      // every point (gpu, engine empty)
  int64_t rows = 0;          // rows read
  int64_t matched_rows = 0;  // of the model, the shape and a GPU searched
  int64_t skipped_rows = 0;  // of those, not evaluated (calibrate's reasons)
  std::string first_skip;    // one such reason
};

// What a comparison takes from the plan: the model (a preset key, as
// resolve_model_id gives it), the request shape, the GPUs searched (catalog
// keys), the weight dtypes searched and the plan's frontier.
struct FrontierScope {
  std::string_view preset;
  int64_t isl = 0, osl = 0;
  std::span<const std::string> gpus;
  std::span<const Dtype> weight_dtypes;
  // Per GPU, set and drafter a Pareto set each (a sweep's curves kept apart: PlanAnswer::frontier_curves).
  std::span<const PlanFrontierPoint> frontier;
  std::span<const std::optional<EngineRelease>> engines;  // per gpus[i]: the release the plan predicts it with
  bool spec = false;  // the plan's candidates draft tokens (MTP or a draft model): all of them
  bool swept_mtp = false;  // the frontier holds MTP points beside plain ones (the frontier alone's MTP sweep)
  bool uniform_lengths = false;  // the plan served InferenceX's uniform [0.8 L, L] lengths (isl/osl above are L)
  bool swept_disaggregated = false;  // the frontier holds disaggregated points (the frontier alone's sweep)
};

// A model's published acceptance of one MTP draft token, with its source; nullopt where none is published.
struct PublishedAcceptance {
  double acceptance = 0;
  const char* source = "";
};
std::optional<PublishedAcceptance> published_mtp_acceptance(std::string_view model_type);

// Median |error| over `points` (NaN where none has the figure), labelled `gpu` and `engine`.
FrontierError frontier_error(std::string gpu, std::string engine, std::span<const MeasuredFrontierPoint* const> points);

// calibrate --frontier: every group of published runs (one model, isl/osl, length distribution, GPU and engine
// family) planned with its own engine family and held against that plan's frontier.
struct FrontierCalibration {
  int64_t groups = 0;                         // planned
  std::vector<std::string> skipped;           // groups not planned, each with why
  std::vector<MeasuredFrontierPoint> points;  // every group's, in group order
  std::vector<FrontierError> by_gpu_engine;   // per GPU and engine family (its display name)
  FrontierError overall;
};

// The rows of `rows` that run `scope.preset` at isl/osl on one of its GPUs, as points.
// `control` (may be null) is polled while the rows are prepared; stopped, the points so far.
FrontierComparison compare_frontier(std::span<const ServingRow> rows, const FrontierScope& scope,
                                    const SearchControl* control = nullptr);

// The predicted frontier of `gpu` at `tokens_per_s_per_user` (see frontier_tokens_per_s_per_gpu): the points
// of `frontier` with that GPU, !ceiling and `mtp` and `disaggregated` as given, log-log interpolated; NaN outside
// their range.
// REQUIRES: those points a Pareto set (a search's frontier, or one drafter's of a sweep).
double frontier_at(std::span<const PlanFrontierPoint> frontier, std::string_view gpu, double tokens_per_s_per_user,
                   bool mtp = false, bool disaggregated = false);

}  // namespace modelcalc

#endif  // MODELCALC_FRONTIER_H_
