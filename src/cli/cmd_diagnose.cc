// modelcalc diagnose: drill 3. Evidence (a JSON file, flags, or both: flags
// override the file) → regime, the numbers that settle it, fixes, reject, ask.
#include <memory>
#include <sstream>

#include "commands.h"
#include "deployment_options.h"
#include "deployment_report.h"
#include "diagnose_report.h"
#include "input_file.h"
#include "inputs.h"
#include "lab_flags.h"
#include "modelcalc/diagnose.h"
#include "quantity.h"
#include "runs.h"

namespace modelcalc {

namespace {

struct DiagnoseFlags : DiagnoseInputs {
  OutputFlags output;
};

// Where LO ends in "LO-HI" / "LO,HI": the first ',' or '-' after the first
// character that is not an exponent's sign ("1e-5-30" is 1e-5 to 30).
size_t range_separator(const std::string& text) {
  for (size_t i = 1; i < text.size(); ++i) {
    if (text[i] == ',') return i;
    if (text[i] == '-' && text[i - 1] != 'e' && text[i - 1] != 'E') return i;
  }
  return std::string::npos;
}

Result<Evidence> read_file(const std::string& path) {
  auto text = read_input_file(path);
  if (!text.ok()) return Status::InvalidArgument("evidence file", text.status().message());
  return parse_evidence_json(*text, path);
}

Status apply_model_flags(const DiagnoseInputs& f, Evidence* e) {
  const ModelFlags& m = f.model;
  const bool full = !m.model.empty() || !m.config.empty() ||
                    (m.layers && m.hidden && m.heads && m.ffn && m.vocab);
  if (full) {
    auto spec = resolve_model(m);
    if (!spec.ok()) return spec.status();
    e->model = EvidenceModel{};  // the spec defines the whole shape and the parameter count
    e->model.spec = *spec;
  } else if (has_model(m) || m.kv_heads || m.head_dim) {
    for (auto [from, to] : {std::pair{&m.layers, &e->model.layers}, {&m.hidden, &e->model.hidden},
                            {&m.heads, &e->model.heads}, {&m.kv_heads, &e->model.kv_heads},
                            {&m.head_dim, &e->model.head_dim}}) {
      if (*from) *to = *from;
    }
  }
  if (f.params) e->model.params = *f.params;
  if (f.dep.dtype) e->model.dtype = *f.dep.dtype;
  // A quantized checkpoint is served in its own dtype unless --dtype says otherwise.
  if (!e->model.dtype && e->model.spec && e->model.spec->quant) e->model.dtype = e->model.spec->quant->dtype;
  return Status::Ok();
}

Status apply_flags(const DiagnoseInputs& f, Evidence* e) {
  if (f.phase) e->phase = *f.phase;
  MC_RETURN_IF_ERROR(apply_model_flags(f, e));
  // Flags override the file; a flag not given leaves the file's value.
  auto set = [](const auto& flag, auto* field) {
    if (flag) *field = *flag;
  };
  set(f.dep.gpus, &e->gpus);
  set(f.dep.batch, &e->batch);
  set(f.dep.seq, &e->context);
  set(f.dep.prompt, &e->prompt_tokens);
  set(f.tps, &e->measured.tokens_per_s_per_sequence);
  set(f.tokens_per_s_aggregate, &e->measured.tokens_per_s_aggregate);
  set(f.ttft, &e->measured.ttft_s);
  set(f.itl, &e->measured.itl_s);
  set(f.flop_util, &e->profile.flop_utilization);
  set(f.bw_util, &e->profile.bandwidth_utilization);
  set(f.kernels, &e->profile.kernels_per_step);
  set(f.kernel_us, &e->profile.kernel_us);
  set(f.gap_us, &e->profile.gap_us);
  set(f.transient, &e->profile.peak_transient_bytes);
  return Status::Ok();
}

Result<GpuSpec> gpu_for(const DiagnoseInputs& f, const Evidence& e) {
  GpuFlags g = f.gpu;
  const bool from_file = g.gpu.empty() && e.gpu.has_value();
  if (from_file) g.gpu = *e.gpu;
  auto r = resolve_gpu(g);
  if (!r.ok()) {
    if (from_file) return Status::InvalidArgument("gpu", r.status().message().substr(r.status().message().find(':') + 2));
    return r.status();
  }
  return r->value_or(GpuSpec{});
}

Status run_diagnose_command(const DiagnoseFlags& f, std::ostream& out) {
  DiagnoseRun run;
  MC_RETURN_IF_ERROR(run_diagnose(f, nullptr, "", &run));
  emit(diagnose_report(run), f.output, out);
  return Status::Ok();
}

}  // namespace

// A fraction: "0.78" or "78%".
Result<double> parse_utilization(std::string_view text, std::string_view flag) {
  auto v = parse_fraction(text, flag);
  if (!v.ok()) {
    return Status::InvalidArgument(flag, "must be a fraction between 0 and 1 (or a percentage like 78%), got " +
                                             std::string(text));
  }
  return *v;
}

// "6-30", "6,30" or "12" microseconds.
Result<Range> parse_us_range(std::string_view text_view, std::string_view flag) {
  const std::string text(text_view);
  const auto sep = range_separator(text);
  auto lo = parse_real(text.substr(0, sep), flag);
  if (!lo.ok()) return Status::InvalidArgument(flag, "expected LO-HI microseconds such as 8-15, got " + text);
  double hi = *lo;
  if (sep != std::string::npos) {
    auto h = parse_real(text.substr(sep + 1), flag);
    if (!h.ok()) return Status::InvalidArgument(flag, "expected LO-HI microseconds such as 8-15, got " + text);
    hi = *h;
  }
  if (*lo > hi) return Status::InvalidArgument(flag, "LO must not exceed HI, got " + text);
  return Range{*lo, hi};
}

// Kernel durations: a range that takes some time (gaps may be 0: kernels back to back).
Result<Range> parse_kernel_range(std::string_view text, std::string_view flag) {
  MC_ASSIGN_OR_RETURN(const Range r, parse_us_range(text, flag));
  if (!(r.hi > 0)) return Status::InvalidArgument(flag, "a kernel must take some time, got " + quote_input(text));
  return r;
}

Result<Phase> parse_phase(std::string_view text, std::string_view flag) {
  if (text == "decode") return Phase::kDecode;
  if (text == "prefill") return Phase::kPrefill;
  if (text == "training") return Phase::kTraining;
  return Status::InvalidArgument(flag, "must be decode, prefill or training, got " + std::string(text));
}

Status run_diagnose(const DiagnoseInputs& f, const Evidence* given, std::string_view given_source, DiagnoseRun* out) {
  Evidence& e = out->evidence;
  e = Evidence{};
  const std::string source = given != nullptr ? std::string(given_source) : f.file;
  if (given != nullptr) {
    e = *given;
  } else if (!f.file.empty()) {
    auto parsed = read_file(f.file);
    if (!parsed.ok()) return parsed.status();
    e = *parsed;
  }
  MC_RETURN_IF_ERROR(apply_flags(f, &e));
  if (Status s = validate(e); !s.ok()) {
    return source.empty() ? s : Status::InvalidArgument(source, s.message());
  }
  MC_ASSIGN_OR_RETURN(out->gpu, gpu_for(f, e));
  const GpuSpec& gpu = out->gpu;
  // Nothing to diagnose: no measurement, no profile and no model to compute a ceiling for.
  const Measured& m = e.measured;
  const Profile& p = e.profile;
  const EvidenceModel& em = e.model;
  if (!m.tokens_per_s_per_sequence && !m.tokens_per_s_aggregate && !m.ttft_s && !m.itl_s && !p.flop_utilization &&
      !p.bandwidth_utilization && p.kernel_time_fraction.empty() && !p.kernels_per_step && !p.kernel_us &&
      !p.gap_us && !p.peak_transient_bytes && !em.params && !em.spec && !em.layers && !em.hidden) {
    return Status::InvalidArgument(
        "evidence", "none given; give an evidence file, or a model (--params, --model, --config or shape flags) "
                    "and what was measured (--tokens-per-s, --flop-util, --bw-util, --ttft, --itl, ...)");
  }
  // The engine's view: the same setup as a scenario, so that the ceilings, the regime's numbers and every
  // fix that changes the setup are the deployment engine's, as `size` reports them for the same flags.
  std::optional<Scenario> scenario;
  if (e.model.spec && gpu.bandwidth_bytes_per_s > 0 && gpu.capacity_bytes > 0 &&
      e.phase.value_or(Phase::kDecode) == Phase::kDecode) {
    DeploymentFlags dep = f.dep;
    dep.gpus = e.gpus;  // the file's, unless --gpus overrode it
    const Dtype weights = e.model.dtype.value_or(kDefaultWeightDtype);
    const Dtype kv = dep.kv_dtype.value_or(default_kv_dtype(weights));
    const int64_t context = e.context.value_or(e.prompt_tokens.value_or(default_context(*e.model.spec)));
    auto draft = std::make_shared<ModelSpec>();
    MC_ASSIGN_OR_RETURN(const DeploymentOptions o, deployment_options(dep, *e.model.spec, weights, kv, context,
                                                                      e.batch.value_or(1), draft.get()));
    out->draft = draft;
    // A setup the engine refuses (a split that does not divide the heads) is bad input, named by its flag.
    if (auto a = analyze_flags_deployment(*e.model.spec, gpu, o); !a.ok()) return a.status();
    MC_ASSIGN_OR_RETURN(ScenarioEngine engine, scenario_engine(f.engine, f.dep));
    scenario = Scenario{*e.model.spec, gpu, o, engine};
  } else if (f.dep.layout.any()) {
    // The layout flags shape the deployment engine's view only; without one they would change nothing.
    return Status::InvalidArgument(first_layout_flag(f.dep.layout),
                                   "shapes the modeled deployment: give a whole model (--model, --config or the "
                                   "shape flags), a GPU and a decode measurement");
  }
  out->diagnosis = diagnose(e, gpu, scenario ? &*scenario : nullptr);
  out->source = source.empty() ? "evidence from flags" : source;
  out->has_modeled = out->diagnosis.modeled.has_value();
  if (out->has_modeled) {
    out->modeled = *out->diagnosis.modeled;
    MC_ASSIGN_OR_RETURN(out->prediction, predict_flags_deployment(*e.model.spec, gpu, out->modeled, f.engine, f.dep));
  }
  return Status::Ok();
}

Report diagnose_report(const DiagnoseRun& r) {
  Report rep = build_diagnose_report(r.evidence, r.gpu, r.diagnosis, r.source);
  if (r.has_modeled) {
    for (Section& s : deployment_sections(r.gpu, r.modeled, &r.prediction)) rep.sections.push_back(std::move(s));
  }
  return rep;
}

CommandRun setup_diagnose(FlagSet& flags) {
  auto f = std::make_shared<DiagnoseFlags>();
  flags.positional("evidence", "Evidence JSON file (see tests/evidence/case_a.json); flags override it", &f->file)
      .add<Phase>("--phase", "decode, prefill or training (default: inferred from the measurements)", &f->phase,
                  parse_phase)
      .add<double>("--params", "Total parameters N, e.g. 13B", &f->params, parse_positive_count);
  add_model_flags(flags, &f->model);
  add_gpu_flags(flags, &f->gpu);
  add_deployment_flags(flags, &f->dep,
                       {{Dep::kDtype, "the evidence's, else a quantized checkpoint's own (quantization_config), else bf16"},
                        {Dep::kGpus, "1; GPUs the model runs on"},
                        {Dep::kBatch, "1; training: the microbatch"},
                        {Dep::kSeq, "the evidence's; training: the sequence length"},
                        {Dep::kPrompt, "the evidence's; the prefill prompt"},
                        {Dep::kReserve, kReserveDefault}});
  add_engine_flags(flags, &f->dep);
  add_engine_profile_flags(flags, &f->engine);
  flags.alias("--prompt-tokens", "--prompt")
      .add<double>("--tokens-per-s", "Measured decode tokens/s per sequence", &f->tps, parse_positive_real)
      .add<double>("--aggregate-tokens-per-s", "Measured tokens/s over all sequences", &f->tokens_per_s_aggregate, parse_positive_real)
      .add<double>("--ttft", "Measured time to first token, seconds", &f->ttft, parse_positive_real)
      .add<double>("--itl", "Measured inter-token latency, seconds", &f->itl, parse_positive_real)
      .add<double>("--flop-util", "Achieved FLOP/s ÷ peak: 0.61 or 61%", &f->flop_util, parse_utilization)
      .add<double>("--bw-util", "Achieved HBM bandwidth ÷ peak: 0.78 or 78%", &f->bw_util, parse_utilization)
      .add<int64_t>("--kernels-per-step", "Kernels launched per step (from a timeline)", &f->kernels, parse_count)
      .add<Range>("--kernel-us", "Kernel durations, LO-HI microseconds, e.g. 6-30", &f->kernel_us, parse_kernel_range)
      .add<Range>("--gap-us", "Gaps between kernels, LO-HI microseconds, e.g. 8-15", &f->gap_us, parse_us_range)
      .add<double>("--peak-transient", "Peak allocation above the weights, e.g. 40GB", &f->transient, parse_bytes);
  add_output_flags(flags, &f->output);
  return [f](std::ostream& out) { return run_diagnose_command(*f, out); };
}

}  // namespace modelcalc
