// modelcalc diagnose: drill 3. Evidence (a JSON file, flags, or both: flags
// override the file) → regime, the numbers that settle it, fixes, reject, ask.
#include <CLI/CLI.hpp>
#include <fstream>
#include <memory>
#include <sstream>

#include "commands.h"
#include "diagnose_report.h"
#include "input_file.h"
#include "inputs.h"
#include "modelcalc/diagnose.h"
#include "quantity.h"

namespace modelcalc {

namespace {

struct DiagnoseFlags {
  std::string file;
  ModelFlags model;
  GpuFlags gpu;
  OutputFlags output;
  std::string phase, params, dtype, gpus, batch, context, prompt_tokens;
  std::string tps, tps_aggregate, ttft, itl;
  std::string flop_util, bw_util, kernels, kernel_us, gap_us, transient;
};

// A positive real ("160", "2.6").
Status positive_real(const std::string& text, const char* flag, std::optional<double>* out) {
  if (text.empty()) return Status::Ok();
  auto v = parse_real(text, flag);
  if (!v.ok()) return v.status();
  if (*v <= 0) return Status::InvalidArgument(flag, "must be positive, got " + quote_input(text));
  *out = *v;
  return Status::Ok();
}

// A fraction: "0.78" or "78%".
Status fraction(const std::string& text, const char* flag, std::optional<double>* out) {
  if (text.empty()) return Status::Ok();
  auto v = parse_fraction(text, flag);
  if (!v.ok()) return v.status();
  *out = *v;
  return Status::Ok();
}

Status count(const std::string& text, const char* flag, std::optional<int64_t>* out) {
  if (text.empty()) return Status::Ok();
  auto v = parse_count(text, flag);
  if (!v.ok()) return v.status();
  *out = *v;
  return Status::Ok();
}

// "6-30", "6,30" or "12" microseconds.
Status range(const std::string& text, const char* flag, std::optional<Range>* out, bool zero_ok) {
  if (text.empty()) return Status::Ok();
  const auto sep = text.find_first_of("-,", 1);
  auto lo = parse_real(text.substr(0, sep), flag);
  if (!lo.ok()) return Status::InvalidArgument(flag, "expected LO-HI microseconds such as 8-15, got " + quote_input(text));
  double hi = *lo;
  if (sep != std::string::npos) {
    auto h = parse_real(text.substr(sep + 1), flag);
    if (!h.ok()) return Status::InvalidArgument(flag, "expected LO-HI microseconds such as 8-15, got " + quote_input(text));
    hi = *h;
  }
  if (*lo > hi) return Status::InvalidArgument(flag, "LO must not exceed HI, got " + quote_input(text));
  if (!zero_ok && !(hi > 0)) return Status::InvalidArgument(flag, "must take some time, got " + quote_input(text));
  *out = Range{*lo, hi};
  return Status::Ok();
}

Result<Evidence> read_file(const std::string& path) {
  auto text = read_input_file(path);
  if (!text.ok()) return Status::InvalidArgument("evidence file", text.status().message());
  return parse_evidence_json(*text, path);
}

Status apply_model_flags(const DiagnoseFlags& f, Evidence* e) {
  const ModelFlags& m = f.model;
  const bool full = !m.model.empty() || !m.config.empty() ||
                    (!m.layers.empty() && !m.hidden.empty() && !m.heads.empty() && !m.ffn.empty() && !m.vocab.empty());
  if (full) {
    auto spec = resolve_model(m);
    if (!spec.ok()) return spec.status();
    e->model = EvidenceModel{};  // the spec defines the whole shape and the parameter count
    e->model.spec = *spec;
  } else if (has_model(m) || !m.kv_heads.empty() || !m.head_dim.empty()) {
    MC_RETURN_IF_ERROR(count(m.layers, "--layers", &e->model.layers));
    MC_RETURN_IF_ERROR(count(m.hidden, "--hidden", &e->model.hidden));
    MC_RETURN_IF_ERROR(count(m.heads, "--heads", &e->model.heads));
    MC_RETURN_IF_ERROR(count(m.kv_heads, "--kv-heads", &e->model.kv_heads));
    MC_RETURN_IF_ERROR(count(m.head_dim, "--head-dim", &e->model.head_dim));
  }
  if (!f.params.empty()) {
    auto p = parse_real_count(f.params, "--params");
    if (!p.ok()) return p.status();
    if (*p <= 0) return Status::InvalidArgument("--params", "must be positive, e.g. 13B");
    e->model.params = *p;
  }
  if (!f.dtype.empty()) {
    auto t = parse_dtype(f.dtype, "--dtype");
    if (!t.ok()) return t.status();
    e->model.dtype = *t;
  }
  return Status::Ok();
}

Status apply_flags(const DiagnoseFlags& f, Evidence* e) {
  if (!f.phase.empty()) {
    if (f.phase == "decode") e->phase = Phase::kDecode;
    else if (f.phase == "prefill") e->phase = Phase::kPrefill;
    else if (f.phase == "training") e->phase = Phase::kTraining;
    else return Status::InvalidArgument("--phase", "must be decode, prefill or training, got " + f.phase);
  }
  MC_RETURN_IF_ERROR(apply_model_flags(f, e));
  MC_RETURN_IF_ERROR(count(f.gpus, "--gpus", &e->gpus));
  MC_RETURN_IF_ERROR(count(f.batch, "--batch", &e->batch));
  MC_RETURN_IF_ERROR(count(f.context, "--context", &e->context));
  MC_RETURN_IF_ERROR(count(f.prompt_tokens, "--prompt-tokens", &e->prompt_tokens));
  MC_RETURN_IF_ERROR(positive_real(f.tps, "--tokens-per-s", &e->measured.tokens_per_s_per_sequence));
  MC_RETURN_IF_ERROR(positive_real(f.tps_aggregate, "--aggregate-tokens-per-s", &e->measured.tokens_per_s_aggregate));
  MC_RETURN_IF_ERROR(positive_real(f.ttft, "--ttft", &e->measured.ttft_s));
  MC_RETURN_IF_ERROR(positive_real(f.itl, "--itl", &e->measured.itl_s));
  MC_RETURN_IF_ERROR(fraction(f.flop_util, "--flop-util", &e->profile.flop_utilization));
  MC_RETURN_IF_ERROR(fraction(f.bw_util, "--bw-util", &e->profile.bandwidth_utilization));
  MC_RETURN_IF_ERROR(count(f.kernels, "--kernels-per-step", &e->profile.kernels_per_step));
  MC_RETURN_IF_ERROR(range(f.kernel_us, "--kernel-us", &e->profile.kernel_us, /*zero_ok=*/false));
  MC_RETURN_IF_ERROR(range(f.gap_us, "--gap-us", &e->profile.gap_us, /*zero_ok=*/true));  // back-to-back kernels
  if (!f.transient.empty()) {
    auto b = parse_bytes(f.transient, "--peak-transient");
    if (!b.ok()) return b.status();
    e->profile.peak_transient_bytes = *b;
  }
  return Status::Ok();
}

Result<GpuSpec> gpu_for(const DiagnoseFlags& f, const Evidence& e) {
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

Status run_diagnose(const DiagnoseFlags& f, std::ostream& out) {
  Evidence e;
  if (!f.file.empty()) {
    auto parsed = read_file(f.file);
    if (!parsed.ok()) return parsed.status();
    e = *parsed;
  }
  MC_RETURN_IF_ERROR(apply_flags(f, &e));
  if (Status s = validate(e); !s.ok()) {
    return f.file.empty() ? s : Status::InvalidArgument(f.file, s.message());
  }
  auto gpu = gpu_for(f, e);
  if (!gpu.ok()) return gpu.status();
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
  const Diagnosis d = diagnose(e, *gpu);
  emit(build_diagnose_report(e, *gpu, d, f.file.empty() ? "evidence from flags" : f.file), f.output, out);
  return Status::Ok();
}

}  // namespace

CommandRun setup_diagnose(CLI::App& app) {
  auto f = std::make_shared<DiagnoseFlags>();
  app.add_option("evidence", f->file, "Evidence JSON file (see tests/evidence/case_a.json); flags override it");
  app.add_option("--phase", f->phase, "decode, prefill or training (default: inferred from the measurements)");
  app.add_option("--params", f->params, "Total parameters N, e.g. 13B");
  app.add_option("--dtype", f->dtype, "Weight dtype: fp32, fp16, bf16, fp8, int8, int4 (default fp16)");
  add_model_flags(app, &f->model);
  add_gpu_flags(app, &f->gpu);
  app.add_option("--gpus", f->gpus, "GPUs the model runs on (default 1)");
  app.add_option("--batch", f->batch, "Sequences per step (training: microbatch; default 1)");
  app.add_option("--context", f->context, "Context tokens per sequence (training: sequence length)");
  app.add_option("--prompt-tokens", f->prompt_tokens, "Prompt length for prefill");
  app.add_option("--tokens-per-s", f->tps, "Measured decode tokens/s per sequence");
  app.add_option("--aggregate-tokens-per-s", f->tps_aggregate, "Measured tokens/s over all sequences");
  app.add_option("--ttft", f->ttft, "Measured time to first token, seconds");
  app.add_option("--itl", f->itl, "Measured inter-token latency, seconds");
  app.add_option("--flop-util", f->flop_util, "Achieved FLOP/s ÷ peak: 0.61 or 61%");
  app.add_option("--bw-util", f->bw_util, "Achieved HBM bandwidth ÷ peak: 0.78 or 78%");
  app.add_option("--kernels-per-step", f->kernels, "Kernels launched per step (from a timeline)");
  app.add_option("--kernel-us", f->kernel_us, "Kernel durations, LO-HI microseconds, e.g. 6-30");
  app.add_option("--gap-us", f->gap_us, "Gaps between kernels, LO-HI microseconds, e.g. 8-15");
  app.add_option("--peak-transient", f->transient, "Peak allocation above the weights, e.g. 40GB");
  add_output_flags(app, &f->output);
  return [f](std::ostream& out) { return run_diagnose(*f, out); };
}

}  // namespace modelcalc
