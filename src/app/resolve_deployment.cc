// The deployment group's resolution (resolve.h): the split, the layouts, the
// engine, and the names errors give.
#include <string>
#include <utility>

#include "modelcalc/app/fields.h"
#include "modelcalc/app/resolve.h"
#include "modelcalc/engine_rules.h"
#include "modelcalc/hf_config.h"

namespace modelcalc::app {

namespace {

// The split from gpus, tp, pp, ep, dp: tp defaults to gpus / (pp x dp), gpus to tp x pp x dp.
Result<Parallelism> resolve_split(const DeploymentInput& d, Resolution* r) {
  Parallelism p;
  p.pp = d.pp.value_or(1);
  p.dp = d.dp.value_or(1);
  p.ep = d.ep.value_or(1);
  const int64_t gpus = d.gpus.value_or(d.tp.value_or(1) * p.pp * p.dp);
  if (d.tp) {
    p.tp = *d.tp;
  } else {
    if (gpus % (p.pp * p.dp) != 0) {
      return Status::InvalidArgument("gpus", "must be a multiple of --pp x --dp (" + std::to_string(p.pp * p.dp) +
                                                 "), got " + std::to_string(gpus));
    }
    p.tp = gpus / (p.pp * p.dp);
  }
  // Each factor is at most 2^20, so the product fits in 64 bits.
  if (p.tp * p.pp * p.dp != gpus) {
    return Status::InvalidArgument("gpus", "must equal --tp x --pp x --dp (" + std::to_string(p.tp) + " x " +
                                               std::to_string(p.pp) + " x " + std::to_string(p.dp) + "), got " +
                                               std::to_string(gpus));
  }
  if (r != nullptr) {
    const Source derived = Source::kDerived;
    r->add(fields::kGpus, Value{gpus}, d.gpus ? Source::kGiven : (d.tp || d.pp || d.dp) ? derived : Source::kDefault);
    r->add(fields::kTp, Value{p.tp}, d.tp ? Source::kGiven : d.gpus ? derived : Source::kDefault);
    r->add(fields::kPp, Value{p.pp}, d.pp ? Source::kGiven : Source::kDefault);
    r->add(fields::kDp, Value{p.dp}, d.dp ? Source::kGiven : Source::kDefault);
  }
  return p;
}

}  // namespace

Result<DeploymentOptions> deployment_options(const DeploymentInput& d, const LayoutInput& l, const ModelSpec& m,
                                             Dtype weights, Dtype kv, int64_t context, int64_t batch,
                                             ModelSpec* draft, Resolution* r) {
  DeploymentOptions o;
  if (!l.dp_attention) {  // with DP attention, gpus is the replica's count: apply_layout reads the split
    MC_ASSIGN_OR_RETURN(o.split, resolve_split(d, r));
  }
  o.weight_dtype = weights;
  // Unset unless kv_dtype was given (`kv` is then its value): the engine's
  // default follows the weights, so a varied scenario with other weights
  // keeps a 16-bit cache exactly as `dtype X` alone does.
  if (d.kv_dtype || kv != default_kv_dtype(weights)) o.kv_dtype = kv;
  o.compute_dtype = d.compute_dtype;
  o.reserve_fraction = d.reserve.value_or(kCeilingReserveFraction);
  o.context = context;
  o.batch = batch;
  o.prompt_tokens = d.prompt.value_or(0);
  if (r != nullptr) {
    r->add(fields::kBatch, Value{batch}, d.batch ? Source::kGiven : Source::kDefault);
    r->add(fields::kReserve, Value{o.reserve_fraction}, d.reserve ? Source::kGiven : Source::kDefault);
    r->add(fields::kPrompt, Value{d.prompt.value_or(context)}, d.prompt ? Source::kGiven : Source::kDerived);
  }
  MC_RETURN_IF_ERROR(apply_layout(l, d, m, &o, draft));
  if (l.expert_imbalance && o.split.ep <= 1) {
    return Status::InvalidArgument("expert_imbalance", "needs expert parallelism (ep > 1): give --ep or --dp-attention");
  }
  return o;
}

Result<Parallelism> dp_attention_split(int64_t replica, int64_t tp, int64_t ep, int64_t dp) {
  if (replica % tp != 0) {
    return Status::InvalidArgument("gpus", "with --dp-attention is the replica's GPU count and must be a multiple "
                                           "of --tp (" + std::to_string(tp) + "), got " + std::to_string(replica));
  }
  Parallelism p;
  p.dp_attention = true;
  p.tp = tp;
  p.attn_dp = replica / tp;
  p.ep = ep;
  p.dp = dp;
  return p;
}

const char* first_layout_flag(const LayoutInput& l) {
  if (l.dp_attention) return "--dp-attention";
  if (l.expert_imbalance) return "--expert-imbalance";
  if (l.redundant_experts) return "--redundant-experts";
  if (l.two_batch_overlap) return "--two-batch-overlap";
  if (l.spec_tokens) return "--spec-tokens";
  if (l.spec_acceptance) return "--spec-acceptance";
  if (!l.spec_method.empty()) return "--spec-method";
  if (!l.draft_model.empty()) return "--draft-model";
  if (l.prefix_hit) return "--prefix-hit";
  return "--prefix-tokens";
}

namespace {

// The drafter: MTP, or a draft model (a preset or a config.json) held in *draft.
Status apply_speculative(const LayoutInput& l, DeploymentOptions* o, ModelSpec* draft) {
  if (!l.spec_tokens) return Status::InvalidArgument("spec_tokens", "speculative decoding needs K draft tokens");
  if (!l.spec_acceptance) {
    return Status::InvalidArgument("spec_acceptance", "speculative decoding needs an acceptance rate A in [0, 1]");
  }
  SpeculativeDecoding& sp = o->spec;
  sp.tokens = *l.spec_tokens;
  sp.acceptance = *l.spec_acceptance;
  if (l.spec_method == "mtp") {
    if (!l.draft_model.empty()) return Status::InvalidArgument("draft_model", "is not used with --spec-method mtp");
    sp.method = SpecMethod::kMtp;
    return Status::Ok();
  }
  if (!l.spec_method.empty() && l.spec_method != "draft") {
    return Status::InvalidArgument("spec_method", "unknown drafter '" + l.spec_method + "'; choose mtp or draft");
  }
  if (l.draft_model.empty()) return Status::InvalidArgument("spec_method", "give --spec-method mtp or --draft-model NAME");
  auto dm = find_preset(l.draft_model);
  if (!dm.ok()) {
    auto file = load_hf_config(l.draft_model);
    if (!file.ok()) {
      return Status::InvalidArgument("draft_model", "'" + l.draft_model + "' is neither a preset nor a readable "
                                                    "config.json (modelcalc models lists the presets)");
    }
    dm = std::move(file);
  }
  *draft = *dm;
  sp.method = SpecMethod::kDraftModel;
  sp.draft = draft;
  return Status::Ok();
}

}  // namespace

Status check_drafter(const LayoutInput& l, const ModelSpec& m) {
  if (l.spec_method != "mtp" || (m.params_mtp && *m.params_mtp > 0)) return Status::Ok();
  return Status::InvalidArgument("spec_method", "mtp drafts with the model's multi-token-prediction head; " + m.name +
                                                    " has none (num_nextn_predict_layers); give --draft-model NAME "
                                                    "instead");
}

Status apply_layout(const LayoutInput& l, const DeploymentInput& d, const ModelSpec& m, DeploymentOptions* o,
                    ModelSpec* draft) {
  if (l.dp_attention) {
    if (d.pp && *d.pp != 1) return Status::InvalidArgument("pp", "must be 1 with --dp-attention");
    const int64_t tp = d.tp.value_or(1), replica = d.gpus.value_or(tp);
    MC_ASSIGN_OR_RETURN(o->split, dp_attention_split(replica, tp, d.ep.value_or(m.n_expert > 0 ? replica : 1),
                                                     d.dp.value_or(1)));
  }
  if (m.n_expert == 0 && (l.expert_imbalance || l.redundant_experts)) {
    return Status::InvalidArgument(l.expert_imbalance ? "expert_imbalance" : "redundant_experts",
                                   "applies to routed experts; " + m.name + " has none");
  }
  if (l.expert_imbalance) o->expert_imbalance = *l.expert_imbalance;
  if (l.redundant_experts) o->redundant_experts = *l.redundant_experts;
  o->two_batch_overlap = l.two_batch_overlap;
  if (l.two_batch_overlap && !l.dp_attention) {
    return Status::InvalidArgument("two_batch_overlap", "hides the all-to-all of --dp-attention; give that too");
  }
  if (m.n_layer > 0) MC_RETURN_IF_ERROR(check_drafter(l, m));  // sweep passes no model: it checks each
  if (l.spec_method == "none" && l.speculative()) {
    return Status::InvalidArgument("spec_method", "none drafts nothing; drop " +
                                                      std::string(l.spec_tokens ? "--spec-tokens"
                                                                  : l.spec_acceptance ? "--spec-acceptance"
                                                                                      : "--draft-model"));
  }
  if (l.speculative()) MC_RETURN_IF_ERROR(apply_speculative(l, o, draft));
  if (l.prefix_hit) o->prefix.hit = *l.prefix_hit;
  if (l.prefix_tokens) o->prefix.shared_tokens = *l.prefix_tokens;
  return Status::Ok();
}

Result<std::optional<EngineRelease>> given_engine(const EngineInput& e) {
  if (e.engine.empty()) return std::optional<EngineRelease>();
  MC_ASSIGN_OR_RETURN(const EngineRelease engine, parse_engine(e.engine, "engine"));
  return std::optional<EngineRelease>(engine);
}

Result<std::optional<EngineRelease>> resolve_engine(const EngineInput& e, const GpuSpec& gpu, Resolution* r) {
  MC_ASSIGN_OR_RETURN(const std::optional<EngineRelease> given, given_engine(e));
  const std::optional<EngineRelease> engine = engine_for(given, gpu);
  if (r != nullptr) {
    r->add(fields::kEngine, engine ? Value{engine_release_key(*engine)} : Value{std::string("none")},
           given ? Source::kGiven : Source::kDerived);
  }
  return engine;
}

EngineFlags engine_flags(const EngineInput& e, const DeploymentInput& d) {
  EngineFlags f = e.flags;
  f.reserve = d.reserve;
  return f;
}

Result<std::optional<ScenarioEngine>> scenario_engine(const EngineInput& e, const DeploymentInput& d,
                                                      const GpuSpec& gpu, const EngineWorkload& w) {
  MC_ASSIGN_OR_RETURN(const std::optional<EngineRelease> engine, resolve_engine(e, gpu));
  if (!engine) return std::optional<ScenarioEngine>();
  return std::optional<ScenarioEngine>(ScenarioEngine{*engine, engine_flags(e, d), w});
}

namespace {

// A compute dtype no one gave is derived from the weights: an error about it names what the user typed
// (--dtype, else the GPU the weights meet), never --compute-dtype.
Status derived_compute_error(const Status& s, const GpuSpec& gpu, const DeploymentOptions& o,
                             const DeploymentInput* given) {
  if (o.compute_dtype || !s.message().starts_with("compute_dtype: ")) return s;
  const std::string w(dtype_name(o.weight_dtype));
  const std::string c(dtype_name(default_compute_dtype(o.weight_dtype, gpu)));
  if (given != nullptr && given->dtype) {
    return Status::InvalidArgument("dtype", "from --dtype " + w + ": the matmuls run in " + c + ", and " + gpu.name +
                                                " has no " + c + " peak in the catalog; give --compute-dtype bf16 "
                                                "(" + w + " weights, bf16 matmuls) or another --dtype");
  }
  return Status::InvalidArgument("gpu", gpu.name + " has no " + c + " peak in the catalog for the matmuls of the " + w +
                                            " weights; give --compute-dtype bf16 or --dtype bf16");
}

}  // namespace

Result<DeploymentAnalysis> analyze(const ModelSpec& m, const GpuSpec& gpu, const DeploymentOptions& o,
                                   const DeploymentInput* given) {
  auto a = analyze_deployment_full(m, gpu, o);
  if (!a.ok()) return as_field_error(derived_compute_error(a.status(), gpu, o, given));
  return a;
}

Status check_max_model_len(const EngineFlags& f, int64_t context, std::string_view context_is) {
  if (!f.max_model_len || *f.max_model_len >= context) return Status::Ok();
  return Status::InvalidArgument("max_model_len", "must be at least the context " + std::string(context_is) + " (" +
                                                      std::to_string(context) + " tokens): a shorter limit holds "
                                                      "no sequence of it; got " +
                                                      std::to_string(*f.max_model_len));
}

Result<std::optional<DeploymentPrediction>> predict(const ModelSpec& m, const GpuSpec& gpu, const DeploymentAnalysis& a,
                                                    const EngineInput& e, const DeploymentInput& d,
                                                    const EngineWorkload& w) {
  MC_RETURN_IF_ERROR(check_max_model_len(e.flags, a.result.decode.context, "--seq"));
  MC_ASSIGN_OR_RETURN(const std::optional<EngineRelease> engine, resolve_engine(e, gpu));
  MC_ASSIGN_OR_RETURN(const std::optional<EngineRelease> given, given_engine(e));
  const GpuSpec* const one[] = {&gpu};
  MC_RETURN_IF_ERROR(as_field_error(check_engine_flags_over(given, e.flags, m, one)));
  if (!engine) return std::optional<DeploymentPrediction>();  // no profile runs on this GPU
  // A layout the named engine refuses to load is refused (engine_rules.h); the default engine's prediction
  // stands beside the ceiling without that check.
  if (!e.engine.empty()) MC_RETURN_IF_ERROR(as_field_error(check_engine_rules(engine->engine(), m, gpu, a.prepared)));
  auto p = predict_deployment(m, gpu, a, *engine, engine_flags(e, d), w);
  if (!p.ok()) return as_field_error(p.status());
  DeploymentPrediction out = *std::move(p);
  if (e.engine.empty()) out.default_because = default_engine_for(gpu).why;
  return std::optional<DeploymentPrediction>(std::move(out));
}

Status as_field_error(const Status& s) {
  if (s.ok()) return s;
  // Option-struct members of the analyses (modelcalc/*.h) and the request field that sets each.
  static constexpr std::pair<std::string_view, std::string_view> kMap[] = {
      {"attn_dp", "gpus"},          {"math_dtype", "dtype"},          {"reserve_fraction", "reserve"},
      {"workspace_bytes", "workspace"}, {"prompt_tokens", "prompt"},  {"batches", "batch"},
      {"seq", "context"},           {"max_len", "context"},           {"seq_lens", "lens"},
      {"gemm_n", "gemm"},           {"overhead_bytes", "overhead"},   {"micro_batches", "micro_batch"},
      {"deadline_days", "days"},
  };
  const std::string& msg = s.message();
  const size_t colon = msg.find(": ");
  if (colon == std::string::npos) return s;
  const std::string_view field(msg.data(), colon);
  for (const auto& [k, v] : kMap) {
    if (field != k) continue;
    if (s.code() == Status::Code::kOverflow) return Status::Overflow(v);
    return Status(s.code() == Status::Code::kInvalidArgument ? Status::InvalidArgument(v, msg.substr(colon + 2))
                                                              : s);
  }
  return s;
}

std::string cli_flag(std::string_view name, const Table* table) {
  const Field* f = nullptr;
  if (table != nullptr) {
    if (const Row* row = table->find(name)) f = row->field;
  }
  if (f == nullptr) f = find_field(name);
  if (f == nullptr) return "";
  return "--" + std::string(f->flag);
}

namespace {

bool flag_char(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; }

// Every "--flag" word of `text` that names a field, as the field's name.
std::string keyword_reason(std::string_view text, const Table* table) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    const bool start = i == 0 || !(flag_char(text[i - 1]) || (text[i - 1] >= 'A' && text[i - 1] <= 'Z'));
    if (start && text.compare(i, 2, "--") == 0 && i + 2 < text.size() && text[i + 2] >= 'a' && text[i + 2] <= 'z') {
      size_t j = i + 2;
      while (j < text.size() && flag_char(text[j])) ++j;
      while (j > i + 2 && text[j - 1] == '-') --j;
      const std::string_view flag = text.substr(i + 2, j - i - 2);
      const Row* row = table != nullptr ? table->find(flag) : nullptr;
      const Field* f = row != nullptr ? row->field : nullptr;
      if (f == nullptr) {
        for (const Field* g : all_fields()) {
          if (g->flag == flag) f = g;
        }
      }
      if (f != nullptr) {
        out += f->name;
        i = j;
        continue;
      }
    }
    out += text[i++];
  }
  return out;
}

}  // namespace

std::string spell_error(const Status& s, Spelling style, const Table* table) {
  const FieldError e = field_error(s);
  if (style == Spelling::kKeyword) {
    std::string name = e.field;
    if (name.starts_with("--")) {  // a reason written with a CLI flag in front
      name = keyword_reason(name, table);
    }
    const std::string reason = keyword_reason(e.reason, table);
    return name.empty() ? reason : name + ": " + reason;
  }
  if (e.field.empty()) return s.message();
  const std::string flag = cli_flag(e.field, table);
  return (flag.empty() ? e.field : flag) + ": " + e.reason;
}

}  // namespace modelcalc::app
