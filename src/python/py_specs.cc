#include "py_specs.h"

#include <pybind11/stl.h>

#include <unordered_map>

#include "modelcalc/app/resolve.h"
#include "modelcalc/hf_config.h"
#include "py_util.h"
#include "quantity.h"
#include "runs.h"  // gpu_row_json, until gpus moves to the request layer

namespace modelcalc::py_bind {

namespace {

// Presets and catalog GPUs by the exact name a caller typed, resolved once.
// Bounded: a caller inventing names cannot grow it without limit.
constexpr size_t kMaxCached = 4096;
std::unordered_map<std::string, PyModel>& preset_cache() {
  static auto* cache = new std::unordered_map<std::string, PyModel>();
  return *cache;
}
std::unordered_map<std::string, PyGpu>& gpu_cache() {
  static auto* cache = new std::unordered_map<std::string, PyGpu>();
  return *cache;
}

PyModel make_model(app::ModelInput f) {
  PyModel m;
  m.spec = take(app::resolve_model(f));
  m.flags = std::move(f);
  return m;
}

const PyModel& preset(const std::string& name) {
  auto& cache = preset_cache();
  if (auto it = cache.find(name); it != cache.end()) return it->second;
  app::ModelInput f;
  f.model = name;
  PyModel m = make_model(std::move(f));
  if (cache.size() >= kMaxCached) cache.clear();
  return cache.emplace(name, std::move(m)).first->second;
}

PyGpu make_gpu(app::GpuInput f) {
  PyGpu g;
  auto r = take(app::resolve_gpu(f));
  if (!r) raise_verbatim(Status::InvalidArgument("gpu", "give a catalog name (modelcalc.gpus() lists them) or "
                                                        "bandwidth, capacity and peak"));
  g.spec = std::move(r);
  g.flags = std::move(f);
  return g;
}

const PyGpu& catalog_gpu(const std::string& name) {
  auto& cache = gpu_cache();
  if (auto it = cache.find(name); it != cache.end()) return it->second;
  app::GpuInput f;
  f.gpu = name;
  PyGpu g = make_gpu(std::move(f));
  if (cache.size() >= kMaxCached) cache.clear();
  return cache.emplace(name, std::move(g)).first->second;
}

std::optional<int64_t> shape_count(py::handle v, const char* keyword) { return opt_count(v, keyword, kMaxCount); }

py::dict params_dict(const ModelSpec& m) {
  const ParamBreakdown p = take(param_breakdown(m));
  py::dict d;
  d["total"] = p.total();
  d["active"] = p.active();
  d["blocks"] = p.blocks();
  d["embeddings"] = p.embeddings;
  d["position"] = p.position;
  d["lm_head"] = p.lm_head;
  d["attention"] = p.attention;
  d["mlp_dense"] = p.mlp_dense;
  d["mlp_routed"] = p.mlp_routed;
  d["mlp_shared"] = p.mlp_shared;
  d["router"] = p.router;
  d["norms"] = p.norms;
  d["biases"] = p.biases;
  return d;
}

}  // namespace

const PyModel& as_model(py::handle v, std::string_view keyword) {
  if (py::isinstance<PyModel>(v)) return v.cast<const PyModel&>();
  if (PyUnicode_Check(v.ptr())) return preset(v.cast<std::string>());
  raise_type_error(keyword, "a preset name or a modelcalc.Model", v);
}

const PyGpu* as_gpu(py::handle v, std::string_view keyword) {
  if (v.is_none()) return nullptr;
  if (py::isinstance<PyGpu>(v)) return &v.cast<const PyGpu&>();
  if (PyUnicode_Check(v.ptr())) return &catalog_gpu(v.cast<std::string>());
  raise_type_error(keyword, "a catalog name or a modelcalc.Gpu", v);
}

void init_specs(py::module_& m) {
  py::options options;
  options.disable_function_signatures();

  py::class_<PyModel>(m, "Model",
                      "A model's shape, validated: a compiled-in preset, a Hugging Face config.json, or the\n"
                      "seed's shape keywords. Every function that takes `model` takes one (or a preset name).")
      .def(py::init([](py::object name, py::object config, py::object layers, py::object hidden, py::object heads,
                       py::object kv_heads, py::object head_dim, py::object ffn, py::object vocab, py::object glu,
                       py::object tied) {
             app::ModelInput f;
             if (auto n = opt_str(name, "name")) f.model = *n;
             if (!config.is_none()) f.config = py::str(config).cast<std::string>();  // a path or os.PathLike
             f.layers = shape_count(layers, "layers");
             f.hidden = shape_count(hidden, "hidden");
             f.heads = shape_count(heads, "heads");
             f.kv_heads = shape_count(kv_heads, "kv_heads");
             f.head_dim = shape_count(head_dim, "head_dim");
             f.ffn = shape_count(ffn, "ffn");
             f.vocab = shape_count(vocab, "vocab");
             f.glu = truth(glu, "glu");
             f.tied = truth(tied, "tied");
             static constexpr std::pair<std::string_view, std::string_view> kRenames[] = {{"--model", "name"},
                                                                                          {"model", "name"}};
             if (f.given() || f.kv_heads || f.head_dim || f.glu || f.tied) {
               auto spec = app::resolve_model(f);
               if (!spec.ok()) raise_input_error(spec.status(), kRenames);
               return PyModel{std::move(spec).value(), std::move(f)};
             }
             raise_verbatim(Status::InvalidArgument(
                 "name", "give a preset name (modelcalc.models() lists them), config= a config.json, or the shape: "
                         "layers, hidden, heads, ffn, vocab (kv_heads, head_dim, glu, tied optional)"));
           }),
           py::arg("name") = py::none(), py::kw_only(), py::arg("config") = py::none(),
           py::arg("layers") = py::none(), py::arg("hidden") = py::none(), py::arg("heads") = py::none(),
           py::arg("kv_heads") = py::none(), py::arg("head_dim") = py::none(), py::arg("ffn") = py::none(),
           py::arg("vocab") = py::none(), py::arg("glu") = false, py::arg("tied") = false,
           "__init__(self, name=None, *, config=None, layers=None, hidden=None, heads=None, kv_heads=None, "
           "head_dim=None, ffn=None, vocab=None, glu=False, tied=False)\n--\n\n"
           "Model('llama-3.1-8b'), Model(config='path/to/config.json'), or the shape:\n"
           "Model(layers=48, hidden=6144, heads=48, kv_heads=8, ffn=16384, glu=True, vocab=64000).\n"
           "layers L, hidden d, heads h, kv_heads (default heads: MHA), head_dim (default d / h), ffn d_ff,\n"
           "vocab V are counts; glu: a gated FFN (three matrices); tied: one embedding/lm_head matrix.\n"
           "A hand-typed shape counts the seed's weight matrices; a preset or config counts what\n"
           "transformers builds, to the parameter. Bad input raises InputError naming the keyword.")
      .def_property_readonly("name", [](const PyModel& x) { return x.spec->name; })
      .def_property_readonly("model_type", [](const PyModel& x) { return x.spec->model_type; })
      .def_property_readonly("layers", [](const PyModel& x) { return x.spec->n_layer; })
      .def_property_readonly("hidden", [](const PyModel& x) { return x.spec->n_embd; })
      .def_property_readonly("heads", [](const PyModel& x) { return x.spec->n_head; })
      .def_property_readonly("kv_heads", [](const PyModel& x) { return x.spec->n_head_kv; })
      .def_property_readonly("head_dim", [](const PyModel& x) { return x.spec->n_embd_head; })
      .def_property_readonly("ffn", [](const PyModel& x) { return x.spec->n_ff; })
      .def_property_readonly("vocab", [](const PyModel& x) { return x.spec->n_vocab; })
      .def_property_readonly("gated_ffn", [](const PyModel& x) { return x.spec->ffn_gated; })
      .def_property_readonly("tied", [](const PyModel& x) { return x.spec->tied_embeddings; })
      .def_property_readonly("experts", [](const PyModel& x) { return x.spec->n_expert; })
      .def_property_readonly("experts_used", [](const PyModel& x) { return x.spec->n_expert_used; })
      .def_property_readonly("max_context",
                             [](const PyModel& x) -> py::object {
                               if (x.spec->n_ctx_train > 0) return py::int_(x.spec->n_ctx_train);
                               return py::none();
                             },
                             "max_position_embeddings, or None when the model does not state it")
      .def_property_readonly("default_context", [](const PyModel& x) { return default_context(*x.spec); },
                             "The context a command uses when none is given: max_context, else 4096")
      .def_property_readonly("is_moe", [](const PyModel& x) { return x.spec->n_expert > 0; })
      .def_property_readonly("is_mla", [](const PyModel& x) { return x.spec->is_mla(); })
      .def_property_readonly("params", [](const PyModel& x) { return params_dict(*x.spec); },
                             "Exact parameter counts by component (total, active, blocks, embeddings, ...)")
      .def_property_readonly("assumptions", [](const PyModel& x) { return x.spec->assumptions; },
                             "What the reader assumed where the config was silent")
      .def("__repr__", [](const PyModel& x) {
        const ParamBreakdown p = take(param_breakdown(*x.spec));
        return "modelcalc.Model('" + x.spec->name + "', " + std::to_string(p.total()) + " params)";
      });

  py::class_<PyGpu>(m, "Gpu",
                    "A GPU: a catalog entry (modelcalc.gpus() lists them), optionally with its bandwidth,\n"
                    "capacity or peak overridden, or a custom one from all three.")
      .def(py::init([](py::object name, py::object bandwidth, py::object capacity, py::object peak) {
             app::GpuInput f;
             if (auto n = opt_str(name, "name")) f.gpu = *n;
             f.bandwidth = opt_real(bandwidth, "bandwidth", parse_bandwidth);
             f.capacity = opt_real(capacity, "capacity", parse_bytes);
             f.peak = opt_real(peak, "peak", parse_flops);
             static constexpr std::pair<std::string_view, std::string_view> kRenames[] = {{"--gpu", "name"},
                                                                                          {"gpu", "name"}};
             auto r = app::resolve_gpu(f);
             if (!r.ok()) raise_input_error(r.status(), kRenames);
             if (!*r) {
               raise_verbatim(Status::InvalidArgument(
                   "name", "give a catalog name (modelcalc.gpus() lists them), or bandwidth, capacity and peak"));
             }
             return PyGpu{std::move(r).value(), std::move(f)};
           }),
           py::arg("name") = py::none(), py::kw_only(), py::arg("bandwidth") = py::none(),
           py::arg("capacity") = py::none(), py::arg("peak") = py::none(),
           "__init__(self, name=None, *, bandwidth=None, capacity=None, peak=None)\n--\n\n"
           "Gpu('h100'), Gpu('h100', capacity=94e9), or Gpu(bandwidth=3.35e12, capacity=80e9, peak=989.4e12).\n"
           "bandwidth in B/s, capacity in bytes, peak (dense bf16) in FLOP/s: numbers, or strings as the CLI\n"
           "reads them ('3.35TB/s', '80GB', '989.4TFLOPS').")
      .def_property_readonly("key", [](const PyGpu& g) { return g.spec->key; })
      .def_property_readonly("name", [](const PyGpu& g) { return g.spec->name; })
      .def_property_readonly("aliases", [](const PyGpu& g) { return g.spec->aliases; })
      .def_property_readonly("capacity_bytes", [](const PyGpu& g) { return g.spec->capacity_bytes; })
      .def_property_readonly("exposed_bytes", [](const PyGpu& g) { return g.spec->exposed_bytes; })
      .def_property_readonly("usable_capacity_bytes", [](const PyGpu& g) { return g.spec->usable_capacity_bytes(); })
      .def_property_readonly("bandwidth_bytes_per_s", [](const PyGpu& g) { return g.spec->bandwidth_bytes_per_s; })
      .def_property_readonly("peak_bf16_flops", [](const PyGpu& g) { return g.spec->peak_bf16_flops; })
      .def_property_readonly("peak_fp8_flops", [](const PyGpu& g) { return g.spec->peak_fp8_flops; })
      .def_property_readonly("peak_int8_ops", [](const PyGpu& g) { return g.spec->peak_int8_ops; })
      .def_property_readonly("peak_fp4_flops", [](const PyGpu& g) { return g.spec->peak_fp4_flops; })
      .def_property_readonly("peak_fp32_flops", [](const PyGpu& g) { return g.spec->peak_fp32_flops; })
      .def_property_readonly("domain_gpus", [](const PyGpu& g) { return g.spec->domain_gpus; })
      .def_property_readonly("link_bytes_per_s", [](const PyGpu& g) { return g.spec->link_bytes_per_s; })
      .def_property_readonly("interconnect", [](const PyGpu& g) { return g.spec->interconnect; })
      .def_property_readonly("source", [](const PyGpu& g) { return g.spec->source; })
      .def_property_readonly("confirmed", [](const PyGpu& g) { return g.spec->confirmed; })
      .def_property_readonly("notes", [](const PyGpu& g) { return g.spec->notes; })
      .def(
          "peak_flops",
          [](const PyGpu& g, py::object dtype) { return g.spec->peak_flops(*opt_dtype(dtype, "dtype")); },
          py::arg("dtype") = "bf16",
          "peak_flops($self, dtype='bf16')\n--\n\nDense peak for math in `dtype`, FLOP/s (0: the GPU has none).")
      .def(
          "ridge",
          [](const PyGpu& g, py::object dtype) { return g.spec->ridge_point(*opt_dtype(dtype, "dtype")); },
          py::arg("dtype") = "bf16",
          "ridge($self, dtype='bf16')\n--\n\nRidge point peak_flops(dtype) / bandwidth, FLOP/byte.")
      .def("to_dict", [](const PyGpu& g) { return to_py(gpu_row_json(*g.spec)); },
           "to_dict($self)\n--\n\nThe catalog row as `modelcalc gpus --json` prints it.")
      .def("__repr__", [](const PyGpu& g) { return "modelcalc.Gpu('" + g.spec->key + "')"; });

  m.def(
      "_catalog_gpus",
      [] {
        py::list out;
        for (const GpuSpec& g : gpu_catalog()) out.append(py::cast(catalog_gpu(g.key)));
        return out;
      },
      "The compiled-in GPU catalog, in display order.");
  m.def(
      "_preset_names",
      [] {
        py::list out;
        for (const PresetInfo& p : presets()) out.append(py::make_tuple(p.name, p.hf_repo));
        return out;
      },
      "Every compiled-in preset as (name, Hugging Face repo), sorted by name.");
}

}  // namespace modelcalc::py_bind
