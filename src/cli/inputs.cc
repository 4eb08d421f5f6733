#include "inputs.h"

#include <CLI/CLI.hpp>

#include "modelcalc/hf_config.h"
#include "quantity.h"

namespace modelcalc {

void add_model_flags(CLI::App& app, ModelFlags* f) {
  app.add_option("-L,--layers", f->layers, "Transformer layers L");
  app.add_option("-d,--hidden", f->hidden, "Hidden size d");
  app.add_option("--heads", f->heads, "Attention (query) heads h");
  app.add_option("--kv-heads", f->kv_heads, "KV heads (default: --heads, i.e. MHA)");
  app.add_option("--head-dim", f->head_dim, "Head dimension (default: hidden / heads)");
  app.add_option("--ffn", f->ffn, "FFN inner width d_ff");
  app.add_flag("--glu", f->glu, "Gated FFN (SwiGLU/GeGLU): gate, up, down = three matrices");
  app.add_option("--vocab", f->vocab, "Vocabulary size");
  app.add_flag("--tied", f->tied, "Tied input embedding and lm_head (default: untied)");
  app.add_option("--model", f->model, "A compiled-in preset (modelcalc models lists them)");
  app.add_option("--config", f->config, "A Hugging Face config.json, or a folder holding one");
}

bool has_model(const ModelFlags& f) {
  return !f.model.empty() || !f.config.empty() || !f.layers.empty() || !f.hidden.empty() ||
         !f.heads.empty() || !f.ffn.empty() || !f.vocab.empty();
}

namespace {

Status need(const std::string& value, const char* flag) {
  if (value.empty()) {
    return Status::InvalidArgument(flag, "is required for a hand-typed model (or give --model or --config)");
  }
  return Status::Ok();
}

Status shape_flags_conflict(const ModelFlags& f, const char* source) {
  const std::pair<const std::string*, const char*> shape[] = {
      {&f.layers, "--layers"}, {&f.hidden, "--hidden"},     {&f.heads, "--heads"}, {&f.kv_heads, "--kv-heads"},
      {&f.head_dim, "--head-dim"}, {&f.ffn, "--ffn"},      {&f.vocab, "--vocab"}};
  for (const auto& [value, flag] : shape) {
    if (!value->empty()) {
      return Status::InvalidArgument(flag, std::string("cannot be combined with ") + source +
                                               ", which defines the whole shape");
    }
  }
  if (f.glu || f.tied) {
    return Status::InvalidArgument(f.glu ? "--glu" : "--tied",
                                   std::string("cannot be combined with ") + source);
  }
  return Status::Ok();
}

}  // namespace

Result<ModelSpec> resolve_model(const ModelFlags& f) {
  if (!f.model.empty() && !f.config.empty()) {
    return Status::InvalidArgument("--model", "give either --model or --config, not both");
  }
  if (!f.model.empty()) {
    MC_RETURN_IF_ERROR(shape_flags_conflict(f, "--model"));
    return find_preset(f.model);
  }
  if (!f.config.empty()) {
    MC_RETURN_IF_ERROR(shape_flags_conflict(f, "--config"));
    return load_hf_config(f.config);
  }
  for (auto [v, flag] : {std::pair{&f.layers, "--layers"}, {&f.hidden, "--hidden"}, {&f.heads, "--heads"},
                         {&f.ffn, "--ffn"}, {&f.vocab, "--vocab"}}) {
    MC_RETURN_IF_ERROR(need(*v, flag));
  }
  ModelSpec m;
  auto count = [](const std::string& text, const char* flag, int64_t* out) -> Status {
    auto r = parse_count(text, flag);
    if (!r.ok()) return r.status();
    *out = *r;
    return Status::Ok();
  };
  MC_RETURN_IF_ERROR(count(f.layers, "--layers", &m.n_layer));
  MC_RETURN_IF_ERROR(count(f.hidden, "--hidden", &m.n_embd));
  MC_RETURN_IF_ERROR(count(f.heads, "--heads", &m.n_head));
  MC_RETURN_IF_ERROR(count(f.ffn, "--ffn", &m.n_ff));
  MC_RETURN_IF_ERROR(count(f.vocab, "--vocab", &m.n_vocab));
  m.n_head_kv = m.n_head;
  if (!f.kv_heads.empty()) MC_RETURN_IF_ERROR(count(f.kv_heads, "--kv-heads", &m.n_head_kv));
  if (!f.head_dim.empty()) {
    MC_RETURN_IF_ERROR(count(f.head_dim, "--head-dim", &m.n_embd_head));
  } else {
    if (m.n_embd % m.n_head != 0) {
      return Status::InvalidArgument("--heads", "must divide --hidden (" + std::to_string(m.n_embd) + "), got " +
                                                    std::to_string(m.n_head) + "; or give --head-dim");
    }
    m.n_embd_head = m.n_embd / m.n_head;
  }
  if (m.n_head_kv > m.n_head || m.n_head % m.n_head_kv != 0) {
    return Status::InvalidArgument("--kv-heads", "must divide --heads (" + std::to_string(m.n_head) + "), got " +
                                                     std::to_string(m.n_head_kv));
  }
  m.ffn_gated = f.glu;
  m.tied_embeddings = f.tied;
  MC_RETURN_IF_ERROR(validate(m));
  return m;
}

Result<int64_t> resolve_seq(const std::string& text, const ModelSpec& m, const char* flag) {
  if (!text.empty()) return parse_count(text, flag);
  return default_context(m);
}

Result<Dtypes> resolve_dtypes(const std::string& dtype, const std::string& kv_dtype) {
  Dtypes d;
  if (!dtype.empty()) {
    MC_ASSIGN_OR_RETURN(d.weights, parse_dtype(dtype, "--dtype"));
  }
  d.kv = d.weights;
  if (!kv_dtype.empty()) {
    MC_ASSIGN_OR_RETURN(d.kv, parse_dtype(kv_dtype, "--kv-dtype"));
  }
  return d;
}

void add_gpu_flags(CLI::App& app, GpuFlags* f) {
  app.add_option("--gpu", f->gpu, "GPU from the catalog (modelcalc gpus lists them)");
  app.add_option("--bandwidth", f->bandwidth, "Memory bandwidth, e.g. 3.35TB/s (overrides --gpu's)");
  app.add_option("--capacity", f->capacity, "Memory capacity, e.g. 80GB (overrides --gpu's)");
  app.add_option("--peak", f->peak, "Dense bf16 peak, e.g. 989.4TFLOPS (overrides --gpu's)");
}

Result<std::optional<GpuSpec>> resolve_gpu(const GpuFlags& f) {
  GpuSpec g;
  if (!f.gpu.empty()) {
    auto found = find_gpu(f.gpu);
    if (!found.ok()) return Status::InvalidArgument("--gpu", found.status().message());
    g = *found;
  } else if (f.bandwidth.empty() && f.capacity.empty() && f.peak.empty()) {
    return std::optional<GpuSpec>();
  } else {
    if (f.bandwidth.empty() || f.capacity.empty() || f.peak.empty()) {
      const char* missing = f.bandwidth.empty() ? "--bandwidth" : f.capacity.empty() ? "--capacity" : "--peak";
      return Status::InvalidArgument(missing, "a custom GPU needs --bandwidth, --capacity and --peak (or --gpu NAME)");
    }
    g.key = "custom";
    g.name = "custom GPU";
    g.source = "given on the command line";
    g.confirmed = true;
  }
  bool overridden = false;
  if (!f.bandwidth.empty()) {
    auto v = parse_bandwidth(f.bandwidth, "--bandwidth");
    if (!v.ok()) return v.status();
    g.bandwidth_bytes_per_s = *v;
    overridden = true;
  }
  if (!f.capacity.empty()) {
    auto v = parse_bytes(f.capacity, "--capacity");
    if (!v.ok()) return v.status();
    g.capacity_bytes = *v;
    overridden = true;
  }
  if (!f.peak.empty()) {
    auto v = parse_flops(f.peak, "--peak");
    if (!v.ok()) return v.status();
    g.peak_bf16_flops = *v;
    overridden = true;
  }
  if (overridden && !f.gpu.empty()) g.name += " (modified)";
  return std::optional<GpuSpec>(g);
}

Status require_peak(const GpuSpec& g) {
  if (g.peak_bf16_flops > 0) return Status::Ok();
  return Status::InvalidArgument("--gpu", g.name + " has no published dense bf16 peak; give --peak (e.g. --peak "
                                                   "125TFLOPS) to supply one");
}

void add_output_flags(CLI::App& app, OutputFlags* f) {
  app.add_flag("--json", f->json, "Print JSON (for scripts)");
  app.add_flag("--explain", f->explain, "Show every number as formula, substitution, result");
}

void emit(const Report& r, const OutputFlags& f, std::ostream& out) {
  if (f.json) {
    out << render_json(r).dump(2) << "\n";
  } else if (f.explain) {
    out << render_explain(r);
  } else {
    out << render_text(r);
  }
}

}  // namespace modelcalc
