// resolve(): a request's defaults applied once, in one order, with the source
// of every value recorded (`resolved.<field>.source` in JSON):
//   given > derived from what was given (gpus = tp·pp·dp, tp = gpus / (pp·dp))
//   > the checkpoint (its quantization_config) > the engine profile
//   > the model (context = min(8,192, max positions)) > defaults.h.
// And the pieces every answer() shares: the model, the GPU, the deployment
// options and the engine a request's groups describe. Errors name fields by
// their canonical names ("context: ..."); other fields inside a reason are
// spelled as the CLI spells them ("give --model or --config"), which
// spell_error() renders for each front end.
#ifndef MODELCALC_APP_RESOLVE_H_
#define MODELCALC_APP_RESOLVE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "modelcalc/app/field.h"
#include "modelcalc/app/requests.h"
#include "modelcalc/deployment.h"
#include "modelcalc/engine_profile.h"
#include "modelcalc/gpu.h"
#include "modelcalc/model.h"
#include "modelcalc/scenario.h"
#include "modelcalc/serving.h"
#include "modelcalc/status.h"

namespace modelcalc::app {

// Where a resolved value came from, in resolve()'s order.
enum class Source : uint8_t { kGiven, kDerived, kCheckpoint, kEngine, kModel, kDefault };
// "given", "derived", "checkpoint", "engine", "model", "default".
std::string_view source_name(Source s);

struct Resolved {
  std::string_view name;  // the field's canonical name
  Value value;
  Source source = Source::kDefault;
};
// Every value an answer used, in the order resolve() settled them.
struct Resolution {
  std::vector<Resolved> values;
  void add(const Field& f, Value v, Source s);
  const Resolved* find(std::string_view name) const;
  // {"context": {"value": 8192, "source": "model"}, ...}
  std::string json() const;
};

// ---------------------------------------------------------------- the groups

// The model a ModelInput describes (a preset is parsed once per process and
// shared). Errors name the field ("model: unknown preset ...").
Result<std::shared_ptr<const ModelSpec>> resolve_model(const ModelInput& in);
// The GPU a GpuInput describes; null when none was given. A custom GPU (no
// gpu name) needs bandwidth, capacity and peak.
Result<std::shared_ptr<const GpuSpec>> resolve_gpu(const GpuInput& in);
// OK when `g` has a dense bf16 peak; else "gpu: <name> has no published dense
// bf16 peak; give --peak ...".
Status require_peak(const GpuSpec& g);

// The context: given, else default_context(m) (the model's max positions when
// below 8,192: Source::kModel).
int64_t resolve_context(const std::optional<int64_t>& given, const ModelSpec& m, Resolution* r);
// The context's source in the words `options.context_source` has always used:
// "given", "default", "model_limit".
const char* context_source(const std::optional<int64_t>& given, const ModelSpec& m);
// The weight and KV dtypes: given, else the checkpoint's (quantization_config)
// when `m` is set, else `default_weights` and 16-bit KV (default_kv_dtype).
struct Dtypes {
  Dtype weights = kDefaultWeightDtype;
  Dtype kv = kDefaultWeightDtype;
};
Dtypes resolve_dtypes(const DeploymentInput& d, const ModelSpec* m, Resolution* r,
                      Dtype default_weights = kDefaultWeightDtype);

// The deployment engine's options for the groups: the split from gpus, tp, pp,
// ep, dp (tp = gpus / (pp x dp); gpus = tp x pp x dp), the layouts, the
// drafter (`*draft` holds a draft model's shape; the options point at it),
// reserve (default 0), prompt; weights, KV, context and batch as resolved.
Result<DeploymentOptions> deployment_options(const DeploymentInput& d, const LayoutInput& l, const ModelSpec& m,
                                             Dtype weights, Dtype kv, int64_t context, int64_t batch,
                                             ModelSpec* draft, Resolution* r);
// The layout fields onto `o`; `d` is read for the DP-attention split.
Status apply_layout(const LayoutInput& l, const DeploymentInput& d, const ModelSpec& m, DeploymentOptions* o,
                    ModelSpec* draft);
// The drafter against the model, before anything the drafter needs is asked
// for: --spec-method mtp on a model without an MTP head is refused naming
// spec_method. apply_layout runs it (when `m` is a model).
Status check_drafter(const LayoutInput& l, const ModelSpec& m);
// One replica of the DP-attention layout: `replica` GPUs in replica / tp
// attention groups of tp GPUs, experts over `ep` ranks, dp whole replicas.
Result<Parallelism> dp_attention_split(int64_t replica, int64_t tp, int64_t ep, int64_t dp);
// The first layout field given, as the CLI spells it ("--dp-attention"); REQUIRES l.any().
const char* first_layout_flag(const LayoutInput& l);

// The release --engine names; unset when none is given (each GPU then runs its vendor's default,
// default_engine_for in engine_rules.h).
Result<std::optional<EngineRelease>> given_engine(const EngineInput& e);
// The release the prediction on `gpu` uses: the one given, else the GPU vendor's default; unset when
// no profile runs on the GPU (the prediction is absent). Records it in `r` (given, or derived from the GPU).
Result<std::optional<EngineRelease>> resolve_engine(const EngineInput& e, const GpuSpec& gpu, Resolution* r = nullptr);
// The engine's flags with reserve folded in (it sets the engine's fraction when no engine field does).
EngineFlags engine_flags(const EngineInput& e, const DeploymentInput& d);
// The engine a scenario on `gpu` is predicted with; unset (the ceiling alone) when no profile runs on it.
Result<std::optional<ScenarioEngine>> scenario_engine(const EngineInput& e, const DeploymentInput& d,
                                                      const GpuSpec& gpu, const EngineWorkload& w = {});
// A sequence of `context` tokens must fit the engine's --max-model-len: when
// that is given and below `context`, the error names max_model_len and says
// `context_is` (the flags that set the context: "--seq") and the least allowed.
Status check_max_model_len(const EngineFlags& f, int64_t context, std::string_view context_is);
// The deployment engine and the prediction beside it, errors named by field.
// `given` (may be null): the deployment fields as given, so that an error about a value derived from them
// names what was typed ("dtype: from --dtype fp8: ..." for the compute dtype fp8 weights imply).
Result<DeploymentAnalysis> analyze(const ModelSpec& m, const GpuSpec& gpu, const DeploymentOptions& o,
                                   const DeploymentInput* given = nullptr);
// Unset when no engine profile runs on `gpu` and none was named (resolve_engine).
Result<std::optional<DeploymentPrediction>> predict(const ModelSpec& m, const GpuSpec& gpu, const DeploymentAnalysis& a,
                                                    const EngineInput& e, const DeploymentInput& d,
                                                    const EngineWorkload& w = {});

// The core names the option-struct member at fault ("reserve_fraction: ...",
// "seq: ..."); this names the request field that sets it ("reserve: ...",
// "context: "). Other errors pass unchanged.
Status as_field_error(const Status& s);

// An error as a front end shows it. `style` kCli: the field as its CLI flag
// ("--dp-attention: ..."), the reason as written; kKeyword: the canonical
// name, and every CLI flag inside the reason as its field's name
// ("dp_attention: ... give spec_method ..."). `table` (may be null) resolves
// a command's own spellings first.
enum class Spelling { kCli, kKeyword };
std::string spell_error(const Status& s, Spelling style, const Table* table = nullptr);
// The CLI flag of a canonical field name ("--kv-dtype"), "" when unknown.
std::string cli_flag(std::string_view name, const Table* table = nullptr);

}  // namespace modelcalc::app

#endif  // MODELCALC_APP_RESOLVE_H_
