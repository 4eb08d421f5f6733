#include "modelcalc/app/resolve.h"

#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "modelcalc/app/fields.h"
#include "modelcalc/hf_config.h"
#include "quantity.h"

namespace modelcalc::app {

std::string_view source_name(Source s) {
  switch (s) {
    case Source::kGiven: return "given";
    case Source::kDerived: return "derived";
    case Source::kCheckpoint: return "checkpoint";
    case Source::kEngine: return "engine";
    case Source::kModel: return "model";
    case Source::kDefault: return "default";
  }
  return "default";
}

void Resolution::add(const Field& f, Value v, Source s) {
  for (Resolved& r : values) {
    if (r.name == f.name) {
      r.value = std::move(v);
      r.source = s;
      return;
    }
  }
  values.push_back(Resolved{f.name, std::move(v), s});
}

const Resolved* Resolution::find(std::string_view name) const {
  for (const Resolved& r : values) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

std::string Resolution::json() const {
  std::string s = "{";
  for (size_t i = 0; i < values.size(); ++i) {
    const Resolved& r = values[i];
    if (i > 0) s += ", ";
    s += "\"" + std::string(r.name) + "\": {\"value\": " + value_json(r.value) + ", \"source\": \"" +
         std::string(source_name(r.source)) + "\"}";
  }
  return s + "}";
}

namespace {

// Presets parsed once per process (the web and Python ask for the same few
// thousands of times); unknown names are not kept.
Result<std::shared_ptr<const ModelSpec>> cached_preset(const std::string& name) {
  static std::mutex mu;
  static std::map<std::string, std::shared_ptr<const ModelSpec>, std::less<>> cache;
  {
    std::lock_guard<std::mutex> lock(mu);
    if (auto it = cache.find(name); it != cache.end()) return it->second;
  }
  MC_ASSIGN_OR_RETURN(ModelSpec m, find_preset(name));
  auto shared = std::make_shared<const ModelSpec>(std::move(m));
  std::lock_guard<std::mutex> lock(mu);
  if (cache.size() < 4096) cache.emplace(name, shared);
  return std::shared_ptr<const ModelSpec>(shared);
}

Status need(const std::optional<int64_t>& value, const char* name) {
  if (!value) {
    return Status::InvalidArgument(name, "is required for a hand-typed model (or give --model or --config)");
  }
  return Status::Ok();
}

Status shape_conflict(const ModelInput& f, const char* source) {
  const std::pair<const std::optional<int64_t>*, const char*> shape[] = {
      {&f.layers, "layers"}, {&f.hidden, "hidden"}, {&f.heads, "heads"}, {&f.kv_heads, "kv_heads"},
      {&f.head_dim, "head_dim"}, {&f.ffn, "ffn"}, {&f.vocab, "vocab"}};
  for (const auto& [value, name] : shape) {
    if (value->has_value()) {
      return Status::InvalidArgument(name, std::string("cannot be combined with ") + source +
                                               ", which defines the whole shape");
    }
  }
  if (f.glu || f.tied) return Status::InvalidArgument(f.glu ? "glu" : "tied", std::string("cannot be combined with ") + source);
  return Status::Ok();
}

Result<ModelSpec> hand_typed_model(const ModelInput& f) {
  for (auto [v, name] : {std::pair{&f.layers, "layers"}, {&f.hidden, "hidden"}, {&f.heads, "heads"},
                         {&f.ffn, "ffn"}, {&f.vocab, "vocab"}}) {
    MC_RETURN_IF_ERROR(need(*v, name));
  }
  ModelSpec m;
  m.n_layer = *f.layers;
  m.n_embd = *f.hidden;
  m.n_head = *f.heads;
  m.n_ff = *f.ffn;
  m.n_vocab = *f.vocab;
  m.n_head_kv = f.kv_heads.value_or(m.n_head);
  if (f.head_dim) {
    m.n_embd_head = *f.head_dim;
  } else {
    if (m.n_embd % m.n_head != 0) {
      return Status::InvalidArgument("heads", "must divide --hidden (" + std::to_string(m.n_embd) + "), got " +
                                                  std::to_string(m.n_head) + "; or give --head-dim");
    }
    m.n_embd_head = m.n_embd / m.n_head;
  }
  if (m.n_head_kv > m.n_head || m.n_head % m.n_head_kv != 0) {
    return Status::InvalidArgument("kv_heads", "must divide --heads (" + std::to_string(m.n_head) + "), got " +
                                                   std::to_string(m.n_head_kv));
  }
  m.ffn_gated = f.glu;
  m.tied_embeddings = f.tied;
  MC_RETURN_IF_ERROR(validate(m));
  return m;
}

// The shortest text that reads back as v (error messages quote numbers with it).
std::string number(double v) { return value_text(Value{v}); }

}  // namespace

Result<std::shared_ptr<const ModelSpec>> resolve_model(const ModelInput& f) {
  if (f.spec) {
    MC_RETURN_IF_ERROR(shape_conflict(f, "a given model"));
    return f.spec;
  }
  if (!f.model.empty() && !f.config.empty()) {
    return Status::InvalidArgument("model", "give either --model or --config, not both");
  }
  if (!f.model.empty()) {
    MC_RETURN_IF_ERROR(shape_conflict(f, "--model"));
    return cached_preset(f.model);
  }
  if (!f.config.empty()) {
    MC_RETURN_IF_ERROR(shape_conflict(f, "--config"));
    MC_ASSIGN_OR_RETURN(ModelSpec m, load_hf_config(f.config));
    return std::shared_ptr<const ModelSpec>(std::make_shared<const ModelSpec>(std::move(m)));
  }
  MC_ASSIGN_OR_RETURN(ModelSpec m, hand_typed_model(f));
  return std::shared_ptr<const ModelSpec>(std::make_shared<const ModelSpec>(std::move(m)));
}

namespace {

Result<std::shared_ptr<const GpuSpec>> catalog_gpu(const std::string& name) {
  static std::mutex mu;
  static std::map<std::string, std::shared_ptr<const GpuSpec>, std::less<>> cache;
  {
    std::lock_guard<std::mutex> lock(mu);
    if (auto it = cache.find(name); it != cache.end()) return it->second;
  }
  auto found = find_gpu(name);
  if (!found.ok()) return Status::InvalidArgument("gpu", found.status().message());
  auto shared = std::make_shared<const GpuSpec>(*std::move(found));
  std::lock_guard<std::mutex> lock(mu);
  if (cache.size() < 4096) cache.emplace(name, shared);
  return std::shared_ptr<const GpuSpec>(shared);
}

// A GPU is at least a megabyte of memory at a megabyte per second and a GFLOP/s: anything less is a
// typo (1e-300, a missing unit), never a device.
Status check_custom_figures(const GpuInput& f) {
  if (f.capacity && *f.capacity < 1e6) {
    return Status::InvalidArgument("capacity", "a GPU holds at least 1 MB (e.g. 80GB), got " + number(*f.capacity) + " B");
  }
  if (f.bandwidth && *f.bandwidth < 1e6) {
    return Status::InvalidArgument("bandwidth", "a GPU moves at least 1 MB/s (e.g. 3.35TB/s), got " +
                                                    number(*f.bandwidth) + " B/s");
  }
  if (f.peak && *f.peak < 1e9) {
    return Status::InvalidArgument("peak", "a GPU computes at least 1 GFLOP/s (e.g. 989.4TFLOPS), got " +
                                               number(*f.peak) + " FLOP/s");
  }
  return Status::Ok();
}

}  // namespace

Result<std::shared_ptr<const GpuSpec>> resolve_gpu(const GpuInput& f) {
  if (f.spec && !f.custom()) return f.spec;
  if (!f.spec && f.gpu.empty() && !f.custom()) return std::shared_ptr<const GpuSpec>();
  MC_RETURN_IF_ERROR(check_custom_figures(f));
  std::shared_ptr<const GpuSpec> base = f.spec;
  if (!base && !f.gpu.empty()) {
    MC_ASSIGN_OR_RETURN(base, catalog_gpu(f.gpu));
    if (!f.custom()) return base;
  }
  GpuSpec g;
  if (base) {
    g = *base;
  } else {
    if (!f.bandwidth || !f.capacity || !f.peak) {
      const char* missing = !f.bandwidth ? "bandwidth" : !f.capacity ? "capacity" : "peak";
      return Status::InvalidArgument(missing, "a custom GPU needs --bandwidth, --capacity and --peak (or --gpu NAME)");
    }
    g.key = "custom";
    g.name = "custom GPU";
    g.source = "given on the command line";
    g.confirmed = true;
  }
  if (f.bandwidth) g.bandwidth_bytes_per_s = *f.bandwidth;
  if (f.capacity) {  // the capacity given is what a process can allocate: no driver-exposed figure beside it
    g.capacity_bytes = *f.capacity;
    g.exposed_bytes = 0;
    g.exposed_source.clear();
  }
  if (f.peak) g.peak_bf16_flops = *f.peak;
  if (base) g.name += " (modified)";
  return std::shared_ptr<const GpuSpec>(std::make_shared<const GpuSpec>(std::move(g)));
}

Status require_peak(const GpuSpec& g) {
  if (g.peak_bf16_flops > 0) return Status::Ok();
  return Status::InvalidArgument("gpu", g.name + " has no published dense bf16 peak; give --peak (e.g. --peak "
                                                 "125TFLOPS) to supply one");
}

int64_t resolve_context(const std::optional<int64_t>& given, const ModelSpec& m, Resolution* r) {
  const int64_t t = given ? *given : default_context(m);
  if (r != nullptr) {
    r->add(fields::kContext, Value{t},
           given ? Source::kGiven : t < kDefaultContext ? Source::kModel : Source::kDefault);
  }
  return t;
}

const char* context_source(const std::optional<int64_t>& given, const ModelSpec& m) {
  if (given) return "given";
  return default_context(m) < kDefaultContext ? "model_limit" : "default";
}

Dtypes resolve_dtypes(const DeploymentInput& d, const ModelSpec* m, Resolution* r, Dtype default_weights) {
  Dtypes t;
  Source ws = Source::kGiven, ks = Source::kGiven;
  if (d.dtype) {
    t.weights = *d.dtype;
  } else {
    t.weights = m != nullptr ? default_weight_dtype(*m, default_weights) : default_weights;
    ws = m != nullptr && m->quant ? Source::kCheckpoint : Source::kDefault;
  }
  if (d.kv_dtype) {
    t.kv = *d.kv_dtype;
  } else {
    t.kv = m != nullptr ? default_kv_dtype(*m, t.weights) : default_kv_dtype(t.weights);
    ks = m != nullptr && m->quant && m->quant->kv ? Source::kCheckpoint : Source::kDerived;
  }
  if (r != nullptr) {
    r->add(fields::kDtype, Value{t.weights}, ws);
    r->add(fields::kKvDtype, Value{t.kv}, ks);
  }
  return t;
}

}  // namespace modelcalc::app
