// diagnose: drill 3. Evidence (a JSON file, JSON given, the fields, or both:
// the fields override the evidence) -> regime, the numbers that settle it,
// fixes, reject, ask.
#include "check.h"
#include "input_file.h"
#include "modelcalc/app/answers.h"

namespace modelcalc::app {

namespace {

Result<Evidence> read_evidence(const DiagnoseRequest& r) {
  if (!r.evidence_json.empty()) {
    const std::string source = r.evidence_source.empty() ? "evidence" : r.evidence_source;
    return parse_evidence_json(r.evidence_json, source);
  }
  if (r.evidence.empty()) return Evidence{};
  auto text = read_input_file(r.evidence);
  if (!text.ok()) return Status::InvalidArgument("evidence file", text.status().message());
  return parse_evidence_json(*text, r.evidence);
}

Phase phase_of(const std::string& p) {
  return p == "prefill" ? Phase::kPrefill : p == "training" ? Phase::kTraining : Phase::kDecode;
}

Status apply_model_fields(const DiagnoseRequest& r, Evidence* e) {
  const ModelInput& m = r.model;
  const bool full = m.spec != nullptr || !m.model.empty() || !m.config.empty() || !m.checkpoint.empty() ||
                    (m.layers && m.hidden && m.heads && m.ffn && m.vocab);
  if (full) {
    MC_ASSIGN_OR_RETURN(const SharedModel spec, resolve_model(m));
    e->model = EvidenceModel{};  // the spec defines the whole shape and the parameter count
    e->model.spec = *spec;
  } else if (m.given() || m.kv_heads || m.head_dim) {
    for (auto [from, to] : {std::pair{&m.layers, &e->model.layers}, {&m.hidden, &e->model.hidden},
                            {&m.heads, &e->model.heads}, {&m.kv_heads, &e->model.kv_heads},
                            {&m.head_dim, &e->model.head_dim}}) {
      if (*from) *to = *from;
    }
  }
  if (r.params) e->model.params = *r.params;
  if (r.dep.dtype) e->model.dtype = *r.dep.dtype;
  // A quantized checkpoint is served in its own dtype unless dtype says otherwise.
  if (!e->model.dtype && e->model.spec && e->model.spec->quant) e->model.dtype = e->model.spec->quant->dtype;
  return Status::Ok();
}

// The fields override the evidence; a field not given leaves the evidence's value.
Status apply_fields(const DiagnoseRequest& r, Evidence* e) {
  if (!r.phase.empty()) e->phase = phase_of(r.phase);
  MC_RETURN_IF_ERROR(apply_model_fields(r, e));
  auto set = [](const auto& field, auto* to) {
    if (field) *to = *field;
  };
  set(r.dep.gpus, &e->gpus);
  set(r.dep.batch, &e->batch);
  set(r.dep.context, &e->context);
  set(r.dep.prompt, &e->prompt_tokens);
  set(r.tokens_per_s, &e->measured.tokens_per_s_per_sequence);
  set(r.aggregate_tokens_per_s, &e->measured.tokens_per_s_aggregate);
  set(r.ttft, &e->measured.ttft_s);
  set(r.itl, &e->measured.itl_s);
  set(r.flop_util, &e->profile.flop_utilization);
  set(r.bw_util, &e->profile.bandwidth_utilization);
  set(r.kernels_per_step, &e->profile.kernels_per_step);
  if (r.kernel_us) e->profile.kernel_us = modelcalc::Range{r.kernel_us->lo, r.kernel_us->hi};
  if (r.gap_us) e->profile.gap_us = modelcalc::Range{r.gap_us->lo, r.gap_us->hi};
  set(r.peak_transient, &e->profile.peak_transient_bytes);
  return Status::Ok();
}

Result<GpuSpec> gpu_for(const DiagnoseRequest& r, const Evidence& e) {
  GpuInput g = r.gpu;
  const bool from_file = g.gpu.empty() && g.spec == nullptr && e.gpu.has_value();
  if (from_file) g.gpu = *e.gpu;
  auto found = resolve_gpu(g);
  if (!found.ok()) {
    if (from_file) return Status::InvalidArgument("gpu", field_error(found.status()).reason);
    return found.status();
  }
  return *found ? **found : GpuSpec{};
}

bool nothing_to_diagnose(const Evidence& e) {
  const Measured& m = e.measured;
  const Profile& p = e.profile;
  const EvidenceModel& em = e.model;
  return !m.tokens_per_s_per_sequence && !m.tokens_per_s_aggregate && !m.ttft_s && !m.itl_s && !p.flop_utilization &&
         !p.bandwidth_utilization && p.kernel_time_fraction.empty() && !p.kernels_per_step && !p.kernel_us &&
         !p.gap_us && !p.peak_transient_bytes && !em.params && !em.spec && !em.layers && !em.hidden;
}

// The engine's view: the same setup as a scenario, so that the ceilings, the regime's numbers and every
// fix that changes the setup are the deployment engine's, as `size` reports them for the same fields.
Result<std::optional<Scenario>> scenario_for(const DiagnoseRequest& r, DiagnoseAnswer* out) {
  const Evidence& e = out->evidence;
  const GpuSpec& gpu = out->gpu;
  if (!(e.model.spec && gpu.bandwidth_bytes_per_s > 0 && gpu.capacity_bytes > 0 &&
        e.phase.value_or(Phase::kDecode) == Phase::kDecode)) {
    if (r.layout.any()) {  // the layout fields shape the engine's view only; without one they would change nothing
      return Status::InvalidArgument(std::string(first_layout_flag(r.layout)).substr(2),
                                     "shapes the modeled deployment: give a whole model (--model, --config or the "
                                     "shape flags), a GPU and a decode measurement");
    }
    return std::optional<Scenario>();
  }
  DeploymentInput dep = r.dep;
  dep.gpus = e.gpus;  // the evidence's, unless gpus overrode it
  const Dtype weights = e.model.dtype.value_or(kDefaultWeightDtype);
  const Dtype kv = dep.kv_dtype.value_or(default_kv_dtype(weights));
  const int64_t context = e.context.value_or(e.prompt_tokens.value_or(default_context(*e.model.spec)));
  auto draft = std::make_shared<ModelSpec>();
  MC_ASSIGN_OR_RETURN(const DeploymentOptions o, deployment_options(dep, r.layout, *e.model.spec, weights, kv, context,
                                                                    e.batch.value_or(1), draft.get(), &out->resolved));
  out->draft = draft;
  // A setup the engine refuses (a split that does not divide the heads) is bad input, named by its field.
  if (auto a = analyze(*e.model.spec, gpu, o, &dep); !a.ok()) return a.status();
  MC_ASSIGN_OR_RETURN(const std::optional<ScenarioEngine> engine, scenario_engine(r.engine, r.dep, gpu));
  return std::optional<Scenario>(Scenario{*e.model.spec, gpu, o, engine});
}

Result<DiagnoseAnswer> answer_diagnose(const DiagnoseRequest& r) {
  MC_RETURN_IF_ERROR(check_request(r));
  DiagnoseAnswer out;
  out.request = r;
  const std::string source = !r.evidence_json.empty() ? (r.evidence_source.empty() ? "evidence" : r.evidence_source)
                                                      : r.evidence;
  MC_ASSIGN_OR_RETURN(out.evidence, read_evidence(r));
  Evidence& e = out.evidence;
  MC_RETURN_IF_ERROR(apply_fields(r, &e));
  if (Status s = validate(e); !s.ok()) return source.empty() ? s : Status::InvalidArgument(source, s.message());
  MC_ASSIGN_OR_RETURN(out.gpu, gpu_for(r, e));
  if (nothing_to_diagnose(e)) {
    return Status::InvalidArgument(
        "evidence", "none given; give an evidence file, or a model (--params, --model, --config or shape flags) "
                    "and what was measured (--tokens-per-s, --flop-util, --bw-util, --ttft, --itl, ...)");
  }
  MC_ASSIGN_OR_RETURN(const std::optional<Scenario> scenario, scenario_for(r, &out));
  out.diagnosis = diagnose(e, out.gpu, scenario ? &*scenario : nullptr);
  out.source = source.empty() ? "evidence from flags" : source;
  out.has_modeled = out.diagnosis.modeled.has_value();
  if (out.has_modeled) {
    out.modeled = *out.diagnosis.modeled;
    MC_ASSIGN_OR_RETURN(out.prediction, predict(*e.model.spec, out.gpu, out.modeled, r.engine, r.dep));
  }
  return out;
}

}  // namespace

Result<DiagnoseAnswer> answer(const DiagnoseRequest& r, const Context&) {
  auto a = answer_diagnose(r);
  if (!a.ok()) return as_field_error(a.status());
  return a;
}

}  // namespace modelcalc::app
