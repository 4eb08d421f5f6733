// modelcalc.lab's native half: the lab's functions under the lab's names and
// argument order, each bound to the formula core (formulas.h, lab.h,
// capacity.h, tradeoff.h), so the lab's answers are the engine's. One-line
// formulas hold the GIL (releasing it would cost more than the formula).
// Signatures are written as text signatures, so inspect.signature() and
// help() show them.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <vector>

#include "capacity_report.h"
#include "inputs.h"
#include "lab_report.h"
#include "modelcalc/capacity.h"
#include "modelcalc/formulas.h"
#include "modelcalc/lab.h"
#include "modelcalc/tradeoff.h"
#include "modelcalc/training.h"
#include "py_specs.h"
#include "py_util.h"
#include "quantity.h"
#include "tradeoff_text.h"
#include "train_flags.h"

namespace modelcalc::py_bind {

namespace {

// A dtype by name ("fp16", "int4") or by bytes per element (4, 2, 1, 0.5),
// as the lab writes bytes_per_param. The last name seen is remembered (a
// loop passes the same string object).
Dtype lab_dtype(py::handle v, const char* keyword) {
  static PyObject* last = nullptr;
  static Dtype last_dtype = Dtype::kFp16;
  PyObject* o = v.ptr();
  if (o == last) return last_dtype;
  if (PyUnicode_Check(o)) {
    const Dtype t = *opt_dtype(v, keyword);
    Py_XDECREF(last);
    Py_INCREF(o);
    last = o;
    last_dtype = t;
    return t;
  }
  if (!PyBool_Check(o) && (PyFloat_Check(o) || PyLong_Check(o))) {
    const double b = PyFloat_Check(o) ? PyFloat_AS_DOUBLE(o) : PyLong_AsDouble(o);
    if (b == 4) return Dtype::kFp32;
    if (b == 2) return Dtype::kFp16;
    if (b == 1) return Dtype::kInt8;
    if (b == 0.5) return Dtype::kInt4;
    raise_verbatim(Status::InvalidArgument(keyword, "bytes per element must be 4, 2, 1 or 0.5 (fp32, fp16, int8, "
                                                    "int4), or give a dtype name: " + dtype_names()));
  }
  raise_type_error(keyword, "a dtype name such as \"fp16\" or bytes per element (2)", v);
}

// A whole number: an int, or a float that is one (4096.0). Others: TypeError naming `keyword`.
int64_t lab_int(py::handle v, const char* keyword) {
  PyObject* o = v.ptr();
  if (PyLong_CheckExact(o)) {
    int overflow = 0;
    const long long x = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow == 0) return x;
  } else if (PyFloat_Check(o)) {
    const double x = PyFloat_AS_DOUBLE(o);
    if (x == std::floor(x) && std::fabs(x) < 9.0e18) return static_cast<int64_t>(x);
  } else if (!PyBool_Check(o) && PyIndex_Check(o)) {
    py::object i = py::reinterpret_steal<py::object>(PyNumber_Index(o));
    if (i) {
      int overflow = 0;
      const long long x = PyLong_AsLongLongAndOverflow(i.ptr(), &overflow);
      if (overflow == 0) return x;
    }
    PyErr_Clear();
  }
  if (PyLong_Check(o) || PyFloat_Check(o)) {
    raise_verbatim(Status::InvalidArgument(keyword, "must be a whole number below 2^63, got " +
                                                        py::repr(v).cast<std::string>()));
  }
  raise_type_error(keyword, "a whole number", v);
}

std::optional<int64_t> lab_opt_int(py::handle v, const char* keyword) {
  if (v.is_none()) return std::nullopt;
  return lab_int(v, keyword);
}

void require_count(int64_t v, const char* keyword) {
  if (v < 1) raise_verbatim(Status::InvalidArgument(keyword, "must be a positive count, got " + std::to_string(v)));
}

void require_positive(double v, const char* keyword) {
  if (!(v > 0) || !std::isfinite(v)) {
    raise_verbatim(Status::InvalidArgument(keyword, "must be a positive finite number, got " + std::to_string(v)));
  }
}

int64_t exact_value(Exact e, const char* what) {
  if (e.overflow()) raise_verbatim(Status::Overflow(what));
  return e.value();
}

// A parameter count: an int, an integral float (7e9) or the CLI's form ("7B").
int64_t param_count(py::handle v, const char* keyword) { return *opt_count(v, keyword, kMaxCount); }

Dials read_dials(py::handle c) {
  Dials d;
  for (Dial dial : kAllDials) {
    const std::string name(dial_name(dial));
    if (!py::hasattr(c, name.c_str())) raise_type_error("candidate", "an object with the five dials", c);
    d[dial] = py::getattr(c, name.c_str()).cast<double>();
  }
  return d;
}

Candidate read_candidate(py::handle c) {
  Candidate out;
  if (!py::hasattr(c, "name")) raise_type_error("candidate", "a modelcalc.lab.Candidate", c);
  out.name = py::str(py::getattr(c, "name")).cast<std::string>();
  out.dials = read_dials(c);
  return out;
}

TradeoffWeights read_weights(py::handle w) {
  if (PyUnicode_Check(w.ptr())) return take_kw(parse_weights(w.cast<std::string>(), "weights"));
  Dials raw;
  if (PyDict_Check(w.ptr())) {
    for (auto [k, v] : py::reinterpret_borrow<py::dict>(w)) {
      const Dial d = take_kw(parse_dial(py::str(k).cast<std::string>(), "weights"));
      raw[d] = v.cast<double>();
    }
  } else {
    raw = read_dials(w);
  }
  return take_kw(make_weights(raw, "weights"));
}

py::dict dials_dict(const Dials& d) {
  py::dict out;
  for (Dial dial : kAllDials) out[py::str(std::string(dial_name(dial)))] = d[dial];
  return out;
}

}  // namespace

void init_lab(py::module_& m) {
  py::options options;
  options.disable_function_signatures();

  m.def("training_flops", [](double n, double d) { return training_flops(n, d); }, py::arg("n_params"),
        py::arg("n_tokens"),
        "training_flops(n_params, n_tokens)\n--\n\n"
        "FLOP to train N parameters on D tokens: 6 N D (forward 2 + backward 4 per parameter per token).");
  m.def("forward_flops_per_token", [](double n) { return forward_flops_per_token(n); }, py::arg("n_params"),
        "forward_flops_per_token(n_params)\n--\n\nFLOP of one forward pass per token: 2 N (a multiply-add per "
        "parameter).");
  m.def("inference_flops", [](double n, double t) { return inference_flops(n, t); }, py::arg("n_params"),
        py::arg("n_tokens"),
        "inference_flops(n_params, n_tokens)\n--\n\nFLOP to run N parameters over T tokens: 2 N T.");
  m.def(
      "weight_memory_bytes",
      [](py::handle n, py::handle dtype) {
        return exact_value(weight_memory_bytes(param_count(n, "n_params"), lab_dtype(dtype, "dtype")),
                           "weight_memory_bytes");
      },
      py::arg("n_params"), py::arg("dtype") = "fp16",
      "weight_memory_bytes(n_params, dtype='fp16')\n--\n\n"
      "Bytes of N parameters: N x bytes per parameter, exact (ceil(N bits / 8): int4 packs two per byte;\n"
      "nvfp4/mxfp4 add their group scales). dtype: a name (fp32, fp16, bf16, fp8, int8, int4, nvfp4,\n"
      "mxfp4) or bytes per parameter (4, 2, 1, 0.5). Returns an int.");
  m.def(
      "kv_cache_bytes",
      [](py::handle layers_arg, py::handle seq_arg, py::handle d_model_arg, py::handle dtype, py::handle batch_arg,
         py::handle n_heads_arg, py::handle n_kv_heads_arg) {
        const int64_t layers = lab_int(layers_arg, "n_layers"), seq = lab_int(seq_arg, "seq_len");
        const int64_t d_model = lab_int(d_model_arg, "d_model"), batch = lab_int(batch_arg, "batch");
        const std::optional<int64_t> n_heads = lab_opt_int(n_heads_arg, "n_heads");
        const std::optional<int64_t> n_kv_heads = lab_opt_int(n_kv_heads_arg, "n_kv_heads");
        require_count(layers, "n_layers");
        require_count(seq, "seq_len");
        require_count(d_model, "d_model");
        require_count(batch, "batch");
        int64_t h = 1, kv = 1;  // MHA: d_kv = d_model
        if (n_heads || n_kv_heads) {
          if (!n_heads || !n_kv_heads) {
            raise_verbatim(Status::InvalidArgument(n_heads ? "n_kv_heads" : "n_heads",
                                                   "give both n_heads and n_kv_heads for GQA (or neither: MHA)"));
          }
          h = *n_heads;
          kv = *n_kv_heads;
          require_count(h, "n_heads");
          require_count(kv, "n_kv_heads");
          if (kv > h || h % kv != 0) {
            raise_verbatim(Status::InvalidArgument("n_kv_heads", "must divide n_heads (" + std::to_string(h) +
                                                                     "), got " + std::to_string(kv)));
          }
          if (d_model % h != 0) {
            raise_verbatim(Status::InvalidArgument("n_heads", "must divide d_model (" + std::to_string(d_model) +
                                                                  "), got " + std::to_string(h)));
          }
        }
        return exact_value(kv_cache_bytes(layers, seq, d_model, lab_dtype(dtype, "dtype"), batch, h, kv),
                           "kv_cache_bytes");
      },
      py::arg("n_layers"), py::arg("seq_len"), py::arg("d_model"), py::arg("dtype") = "fp16", py::arg("batch") = 1,
      py::arg("n_heads") = py::none(), py::arg("n_kv_heads") = py::none(),
      "kv_cache_bytes(n_layers, seq_len, d_model, dtype='fp16', batch=1, n_heads=None, n_kv_heads=None)\n--\n\n"
      "KV-cache bytes: 2 . L . T . d_kv . bytes . batch (K and V), exact. GQA: with n_heads and n_kv_heads,\n"
      "d_kv = d_model . n_kv_heads / n_heads; without them d_kv = d_model (MHA). dtype: a name or bytes per\n"
      "element (2 = fp16). L=32, T=4096, d=4096, fp16: 2,147,483,648 B (2.15 GB); GQA 8/32: 536,870,912 B.");
  m.def("chinchilla_optimal_tokens", [](double n) { return chinchilla_optimal_tokens(n); }, py::arg("n_params"),
        "chinchilla_optimal_tokens(n_params)\n--\n\nCompute-optimal training tokens for N parameters: D = 20 N "
        "(Hoffmann et al. 2022).");
  m.def(
      "chinchilla_optimal_params",
      [](double c) {
        if (!(c >= 0)) raise_verbatim(Status::InvalidArgument("compute_flops", "must be a non-negative number of FLOP"));
        return chinchilla_optimal_params(c).params;
      },
      py::arg("compute_flops"),
      "chinchilla_optimal_params(compute_flops)\n--\n\n"
      "The inverse: the compute-optimal N for a budget C = 6 N D with D = 20 N: N = sqrt(C / 120).\n"
      "chinchilla_optimal_tokens(N) is its D.");
  m.def("arithmetic_intensity", [](double flops, double bytes) { return arithmetic_intensity(flops, bytes); },
        py::arg("flops"), py::arg("bytes"),
        "arithmetic_intensity(flops, bytes)\n--\n\nFLOP per byte moved: flops / bytes.");
  m.def("roofline_ridge_intensity", [](double peak, double bw) { return roofline_ridge_intensity(peak, bw); },
        py::arg("peak_flops"), py::arg("bandwidth"),
        "roofline_ridge_intensity(peak_flops, bandwidth)\n--\n\n"
        "The ridge point, FLOP/byte: peak FLOP/s / bandwidth B/s (A100: 312e12 / 2.0e12 = 156).");
  m.def(
      "roofline_attainable_flops",
      [](double i, double peak, double bw) { return roofline_attainable_flops(i, peak, bw); }, py::arg("intensity"),
      py::arg("peak_flops"), py::arg("bandwidth"),
      "roofline_attainable_flops(intensity, peak_flops, bandwidth)\n--\n\n"
      "Attainable FLOP/s at an intensity: min(peak, bandwidth . intensity).");
  m.def("is_memory_bound", [](double i, double peak, double bw) { return is_memory_bound(i, peak, bw); },
        py::arg("intensity"), py::arg("peak_flops"), py::arg("bandwidth"),
        "is_memory_bound(intensity, peak_flops, bandwidth)\n--\n\n"
        "True when the intensity is below the ridge point (decode's ~1 FLOP/byte always is).");
  m.def(
      "decode_tokens_per_sec",
      [](double bw, double w, double kv, double batch) {
        require_positive(bw, "bandwidth");
        if (!(w + batch * kv > 0)) {
          raise_verbatim(Status::InvalidArgument("weight_bytes", "weights plus the batch's KV must be positive bytes"));
        }
        return decode_tokens_per_sec(bw, w, kv, batch);
      },
      py::arg("bandwidth"), py::arg("weight_bytes"), py::arg("kv_bytes_per_seq") = 0.0, py::arg("batch") = 1,
      "decode_tokens_per_sec(bandwidth, weight_bytes, kv_bytes_per_seq=0.0, batch=1)\n--\n\n"
      "The bandwidth ceiling on aggregate decode tokens/s: B . bw / (W + B . KV). One weight read serves\n"
      "the whole batch, so it grows almost linearly with B until the KV reads matter. Bytes, B/s.");
  m.def(
      "cost_per_million_tokens",
      [](double usd, double tps, double gpus) {
        require_positive(tps, "tokens_per_s");
        return cost_per_million_tokens(usd, tps, gpus);
      },
      py::arg("usd_per_gpu_hour"), py::arg("tokens_per_s"), py::arg("gpus") = 1,
      "cost_per_million_tokens(usd_per_gpu_hour, tokens_per_s, gpus=1)\n--\n\n"
      "USD per 1e6 tokens: price . gpus / (tokens/s . 3600) . 1e6; tokens_per_s is the aggregate over the GPUs.");
  m.def(
      "mfu",
      [](double tps, double n, double peak, const std::string& mode) {
        require_positive(peak, "peak_flops");
        if (mode != "inference" && mode != "training") {
          raise_verbatim(Status::InvalidArgument("mode", "must be \"inference\" (2N FLOP per token) or \"training\" "
                                                         "(6N), got '" + mode + "'"));
        }
        return mfu(tps, n, peak, mode == "training" ? MfuMode::kTraining : MfuMode::kInference);
      },
      py::arg("tokens_per_s"), py::arg("n_params"), py::arg("peak_flops"), py::arg("mode") = "inference",
      "mfu(tokens_per_s, n_params, peak_flops, mode='inference')\n--\n\n"
      "Model FLOPs utilization, a fraction: tokens/s . (2N, or 6N for mode='training') / peak FLOP/s\n"
      "(the peak of every GPU producing tokens_per_s).");
  m.def("training_gpu_hours", [](double f, double peak, double u) { return training_gpu_hours(f, peak, u); },
        py::arg("flops"), py::arg("peak_flops_per_gpu"), py::arg("mfu"),
        "training_gpu_hours(flops, peak_flops_per_gpu, mfu)\n--\n\nGPU-hours to execute `flops`: F / (peak . mfu) "
        "/ 3600.");
  m.def("training_days", [](double h, double gpus) { return training_days(h, gpus); }, py::arg("gpu_hours"),
        py::arg("gpus"), "training_days(gpu_hours, gpus)\n--\n\nWall-clock days: GPU-hours / GPUs / 24.");
  m.def("decode_compute_ceiling", [](double peak, double f) { return decode_compute_ceiling(peak, f); },
        py::arg("peak_flops"), py::arg("flops_per_token"),
        "decode_compute_ceiling(peak_flops, flops_per_token)\n--\n\nThe compute ceiling on decode tokens/s: peak / "
        "FLOP per token.");

  // ------------------------------------------------------------ extensions
  m.def(
      "training_memory_bytes",
      [](py::handle n, py::handle optimizer, py::handle dtype, py::handle checkpointing, py::handle seq,
         py::handle micro_batch) {
        const std::string opt_text = *opt_str(optimizer, "optimizer");
        Optimizer opt = take_kw(parse_optimizer(opt_text, "optimizer"));
        const Dtype t = *opt_dtype(dtype, "dtype");
        if (t == Dtype::kFp32) {
          if (opt != Optimizer::kAdamW) {
            raise_verbatim(Status::InvalidArgument("dtype", "fp32 training is modelled for adamw only (4 + 4 + 8 B "
                                                            "per parameter); use fp16 or bf16 with " + opt_text));
          }
          opt = Optimizer::kAdamWFp32;
        } else if (t != Dtype::kFp16 && t != Dtype::kBf16) {
          raise_verbatim(Status::InvalidArgument("dtype", "is the training precision: fp16 or bf16 (mixed "
                                                          "precision, an fp32 master copy) or fp32"));
        } else if (opt == Optimizer::kAdamWFp32) {
          raise_verbatim(Status::InvalidArgument("optimizer", "adamw-fp32 trains in fp32: give dtype='fp32'"));
        }
        const bool full = truth(checkpointing, "activation_checkpointing");
        const double per_param = static_cast<double>(train_bytes_per_param(opt).total());
        if (!py::isinstance<PyModel>(n)) {
          // States only: activations need the shape (a Model); checkpointing changes only them.
          return py::int_(exact_value(Exact(param_count(n, "N")) * Exact(train_bytes_per_param(opt).total()),
                                      "training_memory_bytes"));
        }
        const ModelSpec& model = *as_model(n, "N").spec;
        const int64_t s = *opt_count(seq, "seq", kMaxTokens);
        const int64_t b = *opt_count(micro_batch, "micro_batch", kMaxBatch);
        const ParamBreakdown p = take(param_breakdown(model));
        const double act = activation_bytes_per_layer(static_cast<double>(s), static_cast<double>(b),
                                                      static_cast<double>(model.n_embd), static_cast<double>(model.n_head), 1,
                                                      false, false, full ? Recompute::kFull : Recompute::kNone) *
                           static_cast<double>(model.n_layer);
        return py::int_(static_cast<int64_t>(std::ceil(static_cast<double>(p.total()) * per_param + act)));
      },
      py::arg("N"), py::arg("optimizer") = "adamw", py::arg("dtype") = "fp16",
      py::arg("activation_checkpointing") = false, py::kw_only(), py::arg("seq") = 2048, py::arg("micro_batch") = 1,
      "training_memory_bytes(N, optimizer='adamw', dtype='fp16', activation_checkpointing=False, *, seq=2048, "
      "micro_batch=1)\n--\n\n"
      "Bytes to train on one GPU (no sharding). States per parameter: adamw in fp16/bf16 = 2 weights + 2\n"
      "gradients + 12 optimizer (fp32 master, momentum, variance) = 16 B (ZeRO, Rajbhandari et al. 2020);\n"
      "fp32 adamw 16; sgd 12; adam8bit 10. N: a parameter count (7e9, '7B') gives the states alone; a\n"
      "modelcalc.Model adds one micro-batch's activations over its layers (Korthikanti et al. 2022, no\n"
      "parallelism: s b h (34 + 5 a s / h) per layer, 2 s b h with activation_checkpointing), at `seq`\n"
      "tokens and `micro_batch` sequences. 7B x 16 B = 112 GB: more than an 80 GB GPU before any\n"
      "activation, which is why it needs ZeRO (modelcalc.cli.train_memory shards it).");
  py::class_<PagedKvWaste>(m, "PagedKvWaste", "Token accounting of a paged KV allocator.")
      .def_readonly("sequences", &PagedKvWaste::sequences)
      .def_readonly("used_tokens", &PagedKvWaste::used_tokens, "sum of the lengths")
      .def_readonly("allocated_tokens", &PagedKvWaste::allocated_tokens, "sum of ceil(len / block) . block")
      .def_readonly("waste_tokens", &PagedKvWaste::waste_tokens, "allocated - used (< one block per sequence)")
      .def_readonly("waste_fraction", &PagedKvWaste::waste_fraction, "waste / allocated")
      .def("to_dict",
           [](const PagedKvWaste& w) {
             py::dict d;
             d["sequences"] = w.sequences;
             d["used_tokens"] = w.used_tokens;
             d["allocated_tokens"] = w.allocated_tokens;
             d["waste_tokens"] = w.waste_tokens;
             d["waste_fraction"] = w.waste_fraction;
             return d;
           })
      .def("__repr__", [](const PagedKvWaste& w) {
        return "PagedKvWaste(sequences=" + std::to_string(w.sequences) + ", used_tokens=" +
               std::to_string(w.used_tokens) + ", allocated_tokens=" + std::to_string(w.allocated_tokens) +
               ", waste_tokens=" + std::to_string(w.waste_tokens) + ")";
      });
  m.def(
      "paged_kv_waste",
      [](py::handle seq_lens, py::handle block_size) {
        std::vector<int64_t> lens;
        if (py::isinstance<py::str>(seq_lens)) raise_type_error("seq_lens", "a list of token counts", seq_lens);
        for (py::handle item : seq_lens) {
          py::object i = py::reinterpret_steal<py::object>(PyNumber_Index(item.ptr()));
          if (!i) {
            PyErr_Clear();
            raise_type_error("seq_lens", "whole token counts", item);
          }
          lens.push_back(i.cast<int64_t>());
        }
        py::object b = py::reinterpret_steal<py::object>(PyNumber_Index(block_size.ptr()));
        if (!b) {
          PyErr_Clear();
          raise_type_error("block_size", "a whole number of tokens", block_size);
        }
        return take(paged_kv_waste(lens, b.cast<int64_t>()),
                    std::array<std::pair<std::string_view, std::string_view>, 1>{{{"--lens", "seq_lens"}}});
      },
      py::arg("seq_lens"), py::arg("block_size"),
      "paged_kv_waste(seq_lens, block_size)\n--\n\n"
      "Fragmentation of a paged KV allocator (PagedAttention, Kwon et al. 2023): each sequence of len\n"
      "tokens gets ceil(len / block_size) blocks, so the waste is under one block per sequence (a\n"
      "contiguous allocator reserving max_len for each would waste max_len - len). Returns PagedKvWaste.");
  m.def(
      "attention_ffn_crossover",
      [](py::handle d_model, py::handle d_ff, py::handle glu, py::handle d_attn) {
        const int64_t d = *opt_count(d_model, "d_model", kMaxCount);
        const int64_t ff = is_none(d_ff) ? 4 * d : *opt_count(d_ff, "d_ff", kMaxCount);
        const int64_t da = is_none(d_attn) ? d : *opt_count(d_attn, "d_attn", kMaxCount);
        const Exact p = ffn_params(d, ff, truth(glu, "glu"));
        return attention_crossover_tokens(static_cast<double>(exact_value(p, "attention_ffn_crossover")),
                                          static_cast<double>(da));
      },
      py::arg("d_model"), py::arg("d_ff") = py::none(), py::arg("glu") = false, py::arg("d_attn") = py::none(),
      "attention_ffn_crossover(d_model, d_ff=None, glu=False, d_attn=None)\n--\n\n"
      "The context length T where a layer's attention FLOPs (4 T d_attn per token: QK^T and AV) overtake\n"
      "its FFN's (2 P_ffn per token, P_ffn = (3 if glu else 2) d d_ff): T = P_ffn / (2 d_attn). Defaults:\n"
      "d_ff = 4 d_model, d_attn = d_model, so T = 4 d_model (16,384 tokens at d = 4096).");

  m.def(
      "_resolve_tradeoff",
      [](py::handle a, py::handle b, py::handle weights) {
        const Candidate ca = read_candidate(a), cb = read_candidate(b);
        const TradeoffWeights w = read_weights(weights);
        const TradeoffResult r = take_kw(resolve_tradeoff(ca, cb, w));
        py::dict out;
        out["winner"] = r.winner == Winner::kTie ? py::object(py::none())
                                                 : py::object(py::str(r.winner == Winner::kA ? ca.name : cb.name));
        out["deciding_dial"] =
            r.deciding_dial ? py::object(py::str(std::string(dial_name(*r.deciding_dial)))) : py::object(py::none());
        out["score_a"] = r.score_a;
        out["score_b"] = r.score_b;
        out["margin"] = r.margin;
        out["normalized_a"] = dials_dict(r.normalized_a);
        out["normalized_b"] = dials_dict(r.normalized_b);
        out["contribution"] = dials_dict(r.contribution);
        out["weights"] = dials_dict(w.w);
        out["deciding_weight"] = r.deciding_weight;
        out["deciding_edge"] = r.deciding_edge;
        py::list leads;
        for (Dial d : r.loser_leads) leads.append(std::string(dial_name(d)));
        out["loser_leads"] = leads;
        out["sentence"] = tradeoff_sentence(ca, cb, r);
        return out;
      },
      "The tradeoff's numbers as a dict (modelcalc.lab.resolve_tradeoff wraps it).");
  m.def(
      "_tradeoff_document",
      [](py::handle a, py::handle b, py::handle weights) {
        const Candidate ca = read_candidate(a), cb = read_candidate(b);
        const TradeoffWeights w = read_weights(weights);
        const TradeoffResult r = take_kw(resolve_tradeoff(ca, cb, w));
        return to_py(render_json(build_tradeoff_report(ca, cb, w, r)));
      },
      "`modelcalc tradeoff --json`'s document for the same candidates and weights.");
}

}  // namespace modelcalc::py_bind
