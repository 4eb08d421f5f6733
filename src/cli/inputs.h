// Flags shared by subcommands: the model (shape flags, --model, --config),
// the GPU (--gpu or --bandwidth/--capacity/--peak), the deployment group
// (--gpus --tp --pp --ep --dp --seq/--context --batch --prompt --dtype
// --compute-dtype --kv-dtype --reserve) and the output format. Each group is
// declared once here, with FlagSet; commands get typed, range-checked values.
#ifndef MODELCALC_INPUTS_H_
#define MODELCALC_INPUTS_H_

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "modelcalc/app/requests.h"
#include "modelcalc/app/resolve.h"
#include "modelcalc/gpu.h"
#include "modelcalc/model.h"
#include "modelcalc/prices.h"
#include "modelcalc/status.h"
#include "flags.h"
#include "report.h"

namespace modelcalc {

// The model and GPU flags are the request layer's groups (modelcalc/app/requests.h).
using ModelFlags = app::ModelInput;
void add_model_flags(FlagSet& flags, ModelFlags* f);
// True when any model flag was given.
inline bool has_model(const ModelFlags& f) { return f.given(); }
// The model the flags describe. Errors name the field (run_cli spells it as the flag).
Result<ModelSpec> resolve_model_flags(const ModelFlags& f);

// The shared deployment vocabulary, parsed and range-checked only. Unset
// fields mean "the command's default" (stated in its --help); what a value
// means for a deployment (splits against the model, ...) is the deployment
// engine's business, not the parser's.
struct DeploymentFlags {
  std::optional<int64_t> gpus, tp, pp, ep, dp;  // [1, kMaxGpus]
  std::optional<int64_t> seq;                   // --seq = --context, [1, kMaxTokens]
  std::optional<int64_t> batch;                 // [1, kMaxBatch]
  std::optional<int64_t> prompt;                // [1, kMaxTokens]
  std::optional<Dtype> dtype, compute_dtype, kv_dtype;
  std::optional<double> reserve;                // [0, 1): "10%" or "0.1"
};
// List-valued forms of the same flags (sweep, roofline): comma lists whose
// items are parsed by the same parsers; counts also take ranges (lists.h).
struct DeploymentLists {
  std::vector<int64_t> contexts, batches;
  std::vector<Dtype> dtypes, kv_dtypes;
  std::vector<int64_t> gpus, tp, pp, ep, dp;  // each [1, kMaxGpus]
};
inline constexpr int64_t kMaxGpus = 1 << 20;          // 1,048,576
inline constexpr int64_t kMaxTokens = int64_t{1} << 30;  // 1,073,741,824 tokens
inline constexpr int64_t kMaxBatch = int64_t{1} << 30;

// Which deployment flags a command takes, and its default for each (the text
// --help shows after "default: "). Only declared flags are accepted.
enum class Dep { kGpus, kTp, kPp, kEp, kDp, kSeq, kBatch, kPrompt, kDtype, kComputeDtype, kKvDtype, kReserve };
struct DepUse {
  Dep flag;
  const char* default_text;
};
void add_deployment_flags(FlagSet& flags, DeploymentFlags* d, std::initializer_list<DepUse> uses);
// List forms; kSeq, kBatch, kDtype, kKvDtype and the split (kGpus, kTp, kPp,
// kEp, kDp).
void add_deployment_lists(FlagSet& flags, DeploymentLists* d, std::initializer_list<DepUse> uses);

// A count in [1, max] ("8K", "8192"), and --reserve's fraction in [0, 1)
// ("0.1", "10%"). Errors name `flag`.
using app::parse_count_upto;
Result<double> parse_reserve(std::string_view text, std::string_view flag);

// Comma lists. An empty item ("1,,8", "8,") fails naming `flag`; at most
// kMaxListItems values (memory stays bounded whatever is typed).
inline constexpr int64_t kMaxListItems = int64_t{1} << 20;
Result<std::vector<std::string>> split_list(std::string_view text, std::string_view flag);
template <typename T, typename Parse>
Result<std::vector<T>> parse_list(std::string_view text, std::string_view flag, Parse parse) {
  MC_ASSIGN_OR_RETURN(const auto items, split_list(text, flag));
  std::vector<T> out;
  out.reserve(items.size());
  for (const std::string& item : items) {
    MC_ASSIGN_OR_RETURN(T v, parse(item, flag));
    out.push_back(v);
  }
  return out;
}
// Counts in [1, max], each item a count or a range (app::parse_count_range_list).
inline Result<std::vector<int64_t>> parse_count_list(std::string_view text, std::string_view flag, int64_t max) {
  return app::parse_count_range_list(text, flag, max);
}

// The context / prompt length: `seq` when given, else default_context(m):
// 8,192 tokens, or the model's max_position_embeddings when smaller.
inline int64_t resolve_seq(const std::optional<int64_t>& seq, const ModelSpec& m) {
  return seq ? *seq : default_context(m);
}
// Weight dtype from --dtype (default `weights`), KV dtype from --kv-dtype
// (default: default_kv_dtype(weights) -- 16-bit, so --dtype int4 keeps a bf16 cache).
struct Dtypes {
  Dtype weights = kDefaultWeightDtype;
  Dtype kv = kDefaultWeightDtype;
};
Dtypes resolve_dtypes(const DeploymentFlags& d, Dtype default_weights = kDefaultWeightDtype);

using GpuFlags = app::GpuInput;
void add_gpu_flags(FlagSet& flags, GpuFlags* f);
// The GPU the flags describe; nullopt when none was given. A custom GPU
// (no --gpu) needs all of --bandwidth, --capacity and --peak.
Result<std::optional<GpuSpec>> resolve_gpu_flags(const GpuFlags& f);
using app::require_peak;

// The core names the option-struct field at fault ("tp: ...", "seq_lens: ...");
// the CLI names the flag that sets it ("--tp: ...", "--lens: ..."). Applied to
// every command's error in run_cli; `context_flag` is the command's spelling of
// the context ("--seq", or "--context" in kv-budget). Other errors pass unchanged.
Status as_flag_error(const Status& s, std::string_view context_flag = "--seq");

struct OutputFlags {
  bool json = false;     // machine-readable
  bool explain = false;  // formula, substitution, result for every number
  bool strings = false;  // with json: also "strings", each figure as the text prints it
};
void add_output_flags(FlagSet& flags, OutputFlags* f);
// --strings (for a command whose output is emit()'s): with --json, also every
// figure as the text report prints it (render_json_strings).
void add_strings_flag(FlagSet& flags, OutputFlags* f);
// Renders `r` as the flags ask.
void emit(const Report& r, const OutputFlags& f, std::ostream& out);

// priced_gpus (modelcalc/prices.h) from the flags: `gpu_list` a comma list of
// catalog names (empty: every catalog GPU with a price), `price_text` the
// overrides ("h100=2.49,mi300x=1.5"). Errors name --gpu or --price.
Result<std::vector<PricedGpu>> resolve_priced_gpus(const std::string& gpu_list, const std::string& price_text);

}  // namespace modelcalc

#endif  // MODELCALC_INPUTS_H_
