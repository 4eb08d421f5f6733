// The commands Python calls directly: size, kv_budget, plan, train_plan,
// diagnose and the deployment engine. size, kv_budget, plan and diagnose
// convert their keywords straight into the command's typed request through its
// field table (py_fields.h), run the same app::answer() the CLI and the web
// run, with the GIL released where the call is long, and return a typed result
// that holds the answer. Nothing is formatted until asked: to_dict() builds the
// command's own Report and converts its JSON value to Python objects (equal to
// the CLI's --json), text() and explain() render it.
#include <cmath>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <string>

#include "answer_report.h"
#include "deployment_report.h"
#include "lab_flags.h"
#include "modelcalc/app/answers.h"
#include "modelcalc/app/fields.h"
#include "py_fields.h"
#include "py_specs.h"
#include "py_util.h"
#include "quantity.h"
#include "runs.h"
#include "sweep_table.h"
#include "train_flags.h"

namespace modelcalc::py_bind {

namespace {

// A command's run and, once asked for, its document.
template <typename Run>
struct PyRun {
  Run run;
  std::optional<nlohmann::json> json;
  py::object doc;  // to_py(*json), kept for attribute access
  // The profile= file the answer was computed under (null: the compiled-in one): kept alive, since the
  // answer points into it, and scoped again whenever the result is rendered (the reports name it).
  std::shared_ptr<const UserEngineProfile> profile;
};

// Runs `f` under the run's profile= file, or the compiled-in profile when it has none (even if
// called back from inside another result's scope, a sweep's on_chunk).
template <typename Run, typename F>
auto in_profile(const PyRun<Run>& r, F&& f) {
  ScopedEngineProfile scope(r.profile);
  return f();
}

template <typename Run, typename Build>
const nlohmann::json& document(PyRun<Run>& r, Build build) {
  if (!r.json) r.json = in_profile(r, [&] { return build(r.run); });
  return *r.json;
}

// strings(): every figure as the text report prints it, keyed by its JSON key
// (`--json --strings`' "strings"), for the results built from a Report.
template <typename Run, typename Build>
void bind_strings(py::class_<PyRun<Run>>& cls, Build report) {
  cls.def(
      "strings",
      [report](PyRun<Run>& r) { return to_py(in_profile(r, [&] { return render_json_strings(report(r.run)); })); },
      "strings($self)\n--\n\nEvery figure as the text report prints it, keyed by its JSON path "
      "({'decode_step.seconds': '9.609 ms', ...}): the CLI's `--json --strings`.");
}

// Binds to_dict(), _doc(), text() and explain() of a result class.
template <typename Run, typename Json, typename Text, typename Explain>
void bind_document(py::class_<PyRun<Run>>& cls, Json json, Text text, Explain explain) {
  cls.def(
         "to_dict", [json](PyRun<Run>& r) { return to_py(document(r, json)); },
         "to_dict($self)\n--\n\nThe CLI's --json document of the same call, as dicts, lists and numbers (a new copy "
         "each call).")
      .def("_doc",
           [json](PyRun<Run>& r) {
             if (!r.doc) r.doc = to_py(document(r, json));
             return r.doc;
           })
      .def("text", [text](PyRun<Run>& r) { return in_profile(r, [&] { return text(r.run); }); },
           "text($self)\n--\n\nThe report the CLI prints for the same call.")
      .def("explain", [explain](PyRun<Run>& r) { return in_profile(r, [&] { return explain(r.run); }); },
           "explain($self)\n--\n\nThe CLI's --explain: every number as formula, substitution, result.");
}

py::object cell_to_py(const Cell& c) {
  return std::visit(
      [](const auto& v) -> py::object {
        using V = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<V, std::string_view>) {
          return py::str(v.data(), v.size());
        } else if constexpr (std::is_same_v<V, Shortfall>) {
          return py::none();  // as size --json: a memory that does not fit has no figure
        } else if constexpr (std::is_same_v<V, bool>) {
          return py::bool_(v);
        } else if constexpr (std::is_same_v<V, double>) {
          if (!std::isfinite(v)) return py::none();  // as size --json: no figure is null
          return py::cast(v);
        } else {
          return py::cast(v);
        }
      },
      c);
}

// ---------------------------------------------------------------- size

struct SizeHolder : PyRun<app::SizeAnswer> {
  std::optional<SweepRow> row;  // the result as a sweep row, for the column attributes
  Parallelism split;            // the row's split (the sweep's split columns read it)
  const SweepRow& as_row() {
    if (!row) {
      SweepRow& r = row.emplace();
      r.model_spec = run.model.get();
      r.gpu_spec = run.gpu ? run.gpu.get() : &run.pooled;  // the sweep's row holds the one GPU, not the pool
      if (run.has_deployment) split = run.deployment.prepared.split;
      r.split_spec = &split;
      r.options = run.options;
      r.result = run.result;
      r.weight_bytes = run.weights.total();
      r.has_deployment = run.has_deployment;
      if (run.has_deployment) {
        r.deployment = run.deployment.result;
        r.serving_regime = run.regime.regime;
      }
      r.has_prediction = run.has_deployment && run.prediction.has_value();
      if (r.has_prediction) r.prediction = run.prediction->decode;
    }
    return *row;
  }
};

// The model and GPU arguments (names or Model/Gpu objects) into a request's groups.
void set_model(py::handle model, app::ModelInput* m) { m->spec = as_model(model).spec; }
void set_gpu(py::handle gpu, app::GpuInput* g) {
  if (const PyGpu* p = as_gpu(gpu)) g->spec = p->spec;
}

SizeHolder run_size_py(py::handle model, py::handle gpu, const py::dict& kwargs) {
  auto r = request_from<app::SizeRequest>(kwargs);
  set_model(model, &r.model);
  set_gpu(gpu, &r.gpu);
  SizeHolder h;
  h.profile = read_profile(r);
  h.run = take_answer(in_profile(h, [&] { return app::answer(r); }), &app::SizeRequest::table());  // ~µs: the GIL is kept
  return h;
}

// ---------------------------------------------------------------- kv-budget

using KvBudgetHolder = PyRun<app::KvBudgetAnswer>;

KvBudgetHolder run_kv_budget_py(py::handle model, py::handle gpu, const py::dict& kwargs) {
  auto r = request_from<app::KvBudgetRequest>(kwargs);
  set_model(model, &r.model);
  set_gpu(gpu, &r.gpu);
  KvBudgetHolder h;
  h.profile = read_profile(r);
  h.run = take_answer(in_profile(h, [&] { return app::answer(r); }), &app::KvBudgetRequest::table());
  return h;
}

// ---------------------------------------------------------------- plan

using PlanHolder = PyRun<app::PlanAnswer>;

// A GPU list for the cost searches: catalog names or catalog Gpu objects.
std::string search_gpu_text(py::handle v, std::string_view keyword) {
  if (v.is_none()) return "";
  auto one = [&](py::handle item) -> std::string {
    if (py::isinstance<PyGpu>(item)) {
      const PyGpu& g = item.cast<const PyGpu&>();
      if (g.flags.custom() || g.flags.gpu.empty()) {
        raise_verbatim(Status::InvalidArgument(keyword, "the search prices catalog GPUs: give catalog names or "
                                                        "catalog Gpu objects without bandwidth/capacity/peak"));
      }
      return g.spec->key;
    }
    return value_text(item, keyword);
  };
  if (PyUnicode_Check(v.ptr()) || py::isinstance<PyGpu>(v)) return one(v);
  std::string out;
  for (py::handle item : v) {
    if (!out.empty()) out += ',';
    out += one(item);
  }
  if (out.empty()) raise_verbatim(Status::InvalidArgument(keyword, "is an empty list; give at least one GPU"));
  return out;
}

PlanHolder run_plan_py(py::handle model, const py::dict& kwargs) {
  py::dict kw = kwargs;
  if (kw.contains("gpu")) kw["gpu"] = py::str(search_gpu_text(kw["gpu"], "gpu"));  // Gpu objects by their keys
  if (kw.contains("price") && !kw["price"].is_none()) kw["price"] = py::str(comma_text(kw["price"], "price"));
  auto r = request_from<app::PlanRequest>(kw);
  set_model(model, &r.model);
  PlanHolder h;
  h.profile = read_profile(r);
  Result<app::PlanAnswer> a = Status::Ok();
  {
    py::gil_scoped_release release;  // a search: milliseconds (on this thread: the profile's scope holds)
    a = in_profile(h, [&] { return app::answer(r); });
  }
  h.run = take_answer(std::move(a), &app::PlanRequest::table());
  return h;
}

// ---------------------------------------------------------------- train-plan

using TrainPlanHolder = PyRun<TrainPlanRun>;

TrainPlanHolder run_train_plan_py(py::handle model, py::handle tokens, py::handle days, py::handle gpu,
                                  py::handle price, py::handle max_gpus, py::handle seq, py::handle micro_batch,
                                  py::handle global_batch, py::handle max_batch_tokens, py::handle max_tp,
                                  py::handle max_pp, py::handle max_ep, py::handle optimizer, py::handle bf16_grads,
                                  py::handle flash, py::handle rank_by, py::handle top) {
  const PyModel& m = as_model(model);
  TrainPlanInputs in;
  in.tokens = take_kw(parse_positive_count(value_text(tokens, "tokens"), "tokens"));
  in.days = take_kw(parse_train_days(value_text(days, "days"), "days"));
  in.gpu = search_gpu_text(gpu, "gpu");
  if (!price.is_none()) in.price = comma_text(price, "price");
  auto capped = [](py::handle v, const char* kw, int64_t max, int64_t* out) {
    if (!v.is_none()) *out = take_kw(parse_capped_count(value_text(v, kw), kw, max));
  };
  capped(max_gpus, "max_gpus", kTrainPlanMaxGpus, &in.max_gpus);
  capped(seq, "seq", kTrainPlanMaxSeq, &in.seq);
  if (!micro_batch.is_none()) in.micro_batch = comma_text(micro_batch, "micro_batch");
  if (!global_batch.is_none()) {
    in.global_batch = take_kw(parse_capped_count(value_text(global_batch, "global_batch"), "global_batch",
                                                 kTrainPlanMaxGlobalBatch));
  }
  if (!max_batch_tokens.is_none()) {
    in.max_batch_tokens =
        take_kw(parse_max_batch_tokens(value_text(max_batch_tokens, "max_batch_tokens"), "max_batch_tokens"));
  }
  capped(max_tp, "max_tp", kTrainPlanMaxSplit, &in.max_tp);
  capped(max_pp, "max_pp", kTrainPlanMaxSplit, &in.max_pp);
  capped(max_ep, "max_ep", kTrainPlanMaxSplit, &in.max_ep);
  capped(top, "top", kTrainPlanMaxTop, &in.top);
  if (auto o = opt_str(optimizer, "optimizer")) in.optimizer = take_kw(parse_optimizer(*o, "optimizer"));
  in.bf16_grads = truth(bf16_grads, "bf16_grads");
  in.no_flash = !truth(flash, "flash");
  if (auto r = opt_str(rank_by, "rank_by")) in.rank_by = *r;
  TrainPlanHolder h;
  Status s;
  {
    SharedModel ms = m.spec;
    py::gil_scoped_release release;
    s = run_train_plan(std::move(ms), in, &h.run);
  }
  check(s);
  return h;
}

// ---------------------------------------------------------------- diagnose

using DiagnoseHolder = PyRun<app::DiagnoseAnswer>;

DiagnoseHolder run_diagnose_py(py::handle evidence, const py::dict& kwargs) {
  py::dict kw = kwargs;
  const py::object model = kw.contains("model") ? py::object(kw["model"]) : py::object(py::none());
  const py::object gpu = kw.contains("gpu") ? py::object(kw["gpu"]) : py::object(py::none());
  if (kw.contains("model")) PyDict_DelItemString(kw.ptr(), "model");
  if (kw.contains("gpu")) PyDict_DelItemString(kw.ptr(), "gpu");
  auto r = request_from<app::DiagnoseRequest>(kw);
  if (PyDict_Check(evidence.ptr())) {
    r.evidence_json = to_json(evidence, "evidence").dump();
    r.evidence_source = "evidence";
  } else if (!evidence.is_none()) {
    r.evidence = py::str(evidence).cast<std::string>();  // a path or os.PathLike
  }
  if (!model.is_none()) r.model = as_model(model).flags, r.model.spec = as_model(model).spec;
  if (!gpu.is_none()) set_gpu(gpu, &r.gpu);
  DiagnoseHolder h;
  h.profile = read_profile(r);
  h.run = take_answer(in_profile(h, [&] { return app::answer(r); }), &app::DiagnoseRequest::table());
  return h;
}

// ---------------------------------------------------------------- deployment

struct PyDeployment {
  SharedModel model;
  SharedGpu gpu;
  DeploymentOptions options;
  DeploymentAnalysis analysis;
  std::optional<DeploymentPrediction> prediction;  // the engine profile's figures beside the ceiling's; unset
                                                   // when no profile runs on the GPU
  std::shared_ptr<ModelSpec> draft;  // a draft model's shape (the options point at it)
  // The profile= file the prediction came from (null: the compiled-in one), kept and scoped as PyRun's.
  std::shared_ptr<const UserEngineProfile> profile;
};

// The deployment engine for size's groups (its keywords are size's, and
// workspace): the modeled half of size, with size's defaults.
PyDeployment run_deployment_py(py::handle model, py::handle gpu, const py::dict& kwargs) {
  py::dict kw = kwargs;
  std::optional<double> ws;
  if (kw.contains("workspace")) {
    const py::object w = kw["workspace"];
    if (!w.is_none()) {
      auto v = app::parse_text(app::fields::kWorkspace, value_text(w, "workspace"), false);
      if (!v.ok()) raise_verbatim(v.status());
      ws = std::get<double>(*v);
    }
    PyDict_DelItemString(kw.ptr(), "workspace");
  }
  auto r = request_from<app::SizeRequest>(kw);
  const PyModel& m = as_model(model);
  const PyGpu* g = as_gpu(gpu);
  if (g == nullptr) raise_verbatim(Status::InvalidArgument("gpu", "is required: a catalog name or a modelcalc.Gpu"));
  const app::Table* t = &app::SizeRequest::table();
  // The defaults `size` gives its modeled deployment: the checkpoint's dtypes (else bf16 weights, a 16-bit
  // cache), the model's context.
  const app::Dtypes dtypes = app::resolve_dtypes(r.dep, m.spec.get(), nullptr);
  const int64_t context = app::resolve_context(r.dep.context, *m.spec, nullptr);
  PyDeployment out{m.spec, g->spec, {}, {}, {}, nullptr, read_profile(r)};
  out.draft = std::make_shared<ModelSpec>();
  out.options = take_answer(app::deployment_options(r.dep, r.layout, *m.spec, dtypes.weights, dtypes.kv, context,
                                                    r.dep.batch.value_or(1), out.draft.get(), nullptr), t);
  if (ws) out.options.workspace_bytes = *ws;
  out.analysis = take_answer(app::analyze(*out.model, *out.gpu, out.options), t);
  {
    const ScopedEngineProfile scope(out.profile);
    out.prediction = take_answer(app::predict(*out.model, *out.gpu, out.analysis, r.engine, r.dep), t);
  }
  return out;
}

template <typename T>
py::class_<T> plain(py::module_& m, const char* name, const char* doc) {
  return py::class_<T>(m, name, doc);
}

void bind_engine_structs(py::module_& m) {
  plain<WeightShard>(m, "WeightShard", "Weight bytes one GPU holds, by part (worst pipeline stage).")
      .def_readonly("embeddings", &WeightShard::embeddings)
      .def_readonly("lm_head", &WeightShard::lm_head)
      .def_readonly("attention", &WeightShard::attention)
      .def_readonly("mlp", &WeightShard::mlp)
      .def_readonly("experts", &WeightShard::experts)
      .def_readonly("other", &WeightShard::other)
      .def_readonly("scales", &WeightShard::scales)
      .def_readonly("vision", &WeightShard::vision)
      .def_readonly("audio", &WeightShard::audio)
      .def_property_readonly("total", &WeightShard::total);
  plain<DeploymentMemory>(m, "DeploymentMemory", "Memory per GPU (bytes), worst pipeline stage.")
      .def_readonly("capacity", &DeploymentMemory::capacity)
      .def_readonly("reserve", &DeploymentMemory::reserve)
      .def_readonly("workspace", &DeploymentMemory::workspace)
      .def_readonly("weights", &DeploymentMemory::weights)
      .def_readonly("kv_per_token", &DeploymentMemory::kv_per_token)
      .def_readonly("kv_per_sequence", &DeploymentMemory::kv_per_sequence)
      .def_readonly("free_for_kv", &DeploymentMemory::free_for_kv)
      .def_readonly("max_sequences", &DeploymentMemory::max_sequences, "sequences per replica that fit");
  plain<DecodeBytes>(m, "DecodeBytes", "Bytes one GPU reads in a decode step, by component.")
      .def_readonly("weights", &DecodeBytes::weights)
      .def_readonly("experts", &DecodeBytes::experts)
      .def_readonly("lm_head", &DecodeBytes::lm_head)
      .def_readonly("embedding_rows", &DecodeBytes::embedding_rows)
      .def_readonly("kv", &DecodeBytes::kv)
      .def_property_readonly("total", &DecodeBytes::total);
  plain<DecodeFlops>(m, "DecodeFlops", "FLOP one GPU computes in a decode step.")
      .def_readonly("linear", &DecodeFlops::linear)
      .def_readonly("attention", &DecodeFlops::attention)
      .def_readonly("lm_head", &DecodeFlops::lm_head)
      .def_property_readonly("total", &DecodeFlops::total);
  plain<DecodeStep>(m, "DecodeStep", "One decode step of the whole batch; seconds, tokens/s, bytes, FLOP.")
      .def_readonly("batch", &DecodeStep::batch)
      .def_readonly("context", &DecodeStep::context)
      .def_readonly("experts_touched", &DecodeStep::experts_touched)
      .def_readonly("bytes", &DecodeStep::bytes)
      .def_readonly("flops", &DecodeStep::flops)
      .def_readonly("bytes_per_gpu", &DecodeStep::bytes_per_gpu)
      .def_readonly("flops_per_gpu", &DecodeStep::flops_per_gpu)
      .def_readonly("intensity", &DecodeStep::intensity)
      .def_readonly("ridge", &DecodeStep::ridge)
      .def_readonly("compute_seconds", &DecodeStep::compute_seconds)
      .def_readonly("memory_seconds", &DecodeStep::memory_seconds)
      .def_readonly("allreduce_seconds", &DecodeStep::allreduce_seconds)
      .def_readonly("handoff_seconds", &DecodeStep::handoff_seconds)
      .def_readonly("comm_seconds", &DecodeStep::comm_seconds)
      .def_readonly("seconds", &DecodeStep::seconds, "the step, = TPOT")
      .def_readonly("tokens_per_s_per_sequence", &DecodeStep::tokens_per_s_per_sequence)
      .def_readonly("tokens_per_s_aggregate", &DecodeStep::tokens_per_s_aggregate)
      .def_readonly("fits", &DecodeStep::fits)
      .def_property_readonly("regime", [](const DecodeStep& s) { return std::string(regime_name(s.regime)); });
  plain<Prefill>(m, "Prefill", "The prefill of one prompt: FLOP, bytes and seconds (TTFT) per GPU and stage.")
      .def_readonly("prompt_tokens", &Prefill::prompt_tokens)
      .def_readonly("flops", &Prefill::flops)
      .def_readonly("attention_flops", &Prefill::attention_flops)
      .def_readonly("bytes", &Prefill::bytes)
      .def_readonly("compute_seconds", &Prefill::compute_seconds)
      .def_readonly("memory_seconds", &Prefill::memory_seconds)
      .def_readonly("comm_seconds", &Prefill::comm_seconds)
      .def_readonly("seconds", &Prefill::seconds, "= TTFT");
  plain<DeploymentResult>(m, "DeploymentPoint", "The engine at one (batch, context, prompt): memory, decode, prefill.")
      .def_readonly("memory", &DeploymentResult::memory)
      .def_readonly("decode", &DeploymentResult::decode)
      .def_readonly("prefill", &DeploymentResult::prefill);
}

}  // namespace

void init_runs(py::module_& m) {
  py::options options;
  options.disable_function_signatures();

  // size: the result's flat attributes are sweep's columns (the same names, the same getters).
  using SizeRun = app::SizeAnswer;
  py::class_<PyRun<SizeRun>> size_base(m, "_SizeRunBase");
  bind_document<SizeRun>(
      size_base, [](const SizeRun& r) { return render_json(size_report(r)); },
      [](const SizeRun& r) { return render_text(size_report(r)); },
      [](const SizeRun& r) { return render_explain(size_report(r)); });
  bind_strings<SizeRun>(size_base, [](const SizeRun& r) { return size_report(r); });
  py::class_<SizeHolder, PyRun<SizeRun>> size_cls(m, "SizeResult",
                                                  "What `modelcalc size` computes. Attributes: every sweep column "
                                                  "(weight_bytes, tokens_per_s_aggregate, ...) read from the result "
                                                  "itself, and the sections of to_dict() (params, kv, decode, ...).");
  for (const SweepColumn& c : sweep_columns()) {
    if (c.name == "model" || c.name == "gpu") continue;  // the document's sections of those names
    const SweepColumn* col = &c;
    size_cls.def_property_readonly(std::string(c.name).c_str(),
                                   [col](SizeHolder& h) { return cell_to_py(col->get(h.as_row())); },
                                   std::string(c.help).c_str());
  }
  size_cls.def_property_readonly("has_gpu", [](const SizeHolder& h) { return h.run.gpu != nullptr; });
  m.def("_size", &run_size_py);

  using KvBudgetRun = app::KvBudgetAnswer;
  py::class_<KvBudgetHolder> kv_cls(m, "KvBudgetResult", "What `modelcalc kv-budget` computes.");
  bind_document<KvBudgetRun>(
      kv_cls, [](const KvBudgetRun& r) { return render_json(kv_budget_report(r)); },
      [](const KvBudgetRun& r) { return render_text(kv_budget_report(r)); },
      [](const KvBudgetRun& r) { return render_explain(kv_budget_report(r)); });
  bind_strings<KvBudgetRun>(kv_cls, [](const KvBudgetRun& r) { return kv_budget_report(r); });
  kv_cls.def_property_readonly("max_sequences", [](const KvBudgetHolder& h) { return h.run.result.max_sequences; })
      .def_property_readonly("budget_bytes", [](const KvBudgetHolder& h) { return h.run.result.budget_bytes; })
      .def_property_readonly("kv_bytes_per_sequence",
                             [](const KvBudgetHolder& h) { return h.run.result.kv_bytes_per_sequence; });
  m.def("_kv_budget", &run_kv_budget_py);

  using PlanRun = app::PlanAnswer;
  py::class_<PlanHolder> plan_cls(m, "PlanResult", "What `modelcalc plan` finds.");
  bind_document<PlanRun>(
      plan_cls, [](const PlanRun& r) { return plan_document(r); }, [](const PlanRun& r) { return plan_text(r); },
      [](const PlanRun& r) {
        // As the CLI: the misses (or the disaggregated table, which has no --explain), nothing to explain.
        if (r.disaggregated || r.result.configs.empty()) return plan_text(r);
        return render_explain(plan_explain(r));
      });
  plan_cls.def_property_readonly("feasible", [](const PlanHolder& h) { return h.run.feasible(); },
                                 "True when a configuration meets every target (else the closest misses)");
  m.def("_plan", &run_plan_py);

  py::class_<TrainPlanHolder> tp_cls(m, "TrainPlanResult", "What `modelcalc train-plan` finds.");
  bind_document<TrainPlanRun>(
      tp_cls, [](const TrainPlanRun& r) { return render_json(train_plan_report(r)); },
      [](const TrainPlanRun& r) { return render_text(train_plan_report(r)); },
      [](const TrainPlanRun& r) { return render_explain(train_plan_report(r)); });
  bind_strings<TrainPlanRun>(tp_cls, [](const TrainPlanRun& r) { return train_plan_report(r); });
  tp_cls.def_property_readonly("feasible", [](const TrainPlanHolder& h) { return !h.run.result.layouts.empty(); },
                                "True when a layout meets the deadline (else each GPU kind's fastest miss)");
  m.def("_train_plan", &run_train_plan_py);

  using DiagnoseRun = app::DiagnoseAnswer;
  py::class_<DiagnoseHolder> dx_cls(m, "DiagnoseResult", "What `modelcalc diagnose` concludes.");
  bind_document<DiagnoseRun>(
      dx_cls, [](const DiagnoseRun& r) { return render_json(diagnose_report(r)); },
      [](const DiagnoseRun& r) { return render_text(diagnose_report(r)); },
      [](const DiagnoseRun& r) { return render_explain(diagnose_report(r)); });
  bind_strings<DiagnoseRun>(dx_cls, [](const DiagnoseRun& r) { return diagnose_report(r); });
  dx_cls.def_property_readonly("regime",
                               [](const DiagnoseHolder& h) { return std::string(regime_name(h.run.diagnosis.regime)); })
      .def_property_readonly("confirmed", [](const DiagnoseHolder& h) { return h.run.diagnosis.confirmed; });
  m.def("_diagnose", &run_diagnose_py);

  bind_engine_structs(m);
  py::class_<PyDeployment>(m, "Deployment",
                           "The deployment engine for one model on a split of GPUs: memory per GPU, the decode step "
                           "and the prefill at the workload given, and evaluate() at any other.")
      .def_property_readonly("memory", [](const PyDeployment& d) { return d.analysis.result.memory; })
      .def_property_readonly("decode", [](const PyDeployment& d) { return d.analysis.result.decode; })
      .def_property_readonly("prefill", [](const PyDeployment& d) { return d.analysis.result.prefill; })
      .def_property_readonly("compute_bound_batch", [](const PyDeployment& d) { return d.analysis.compute_bound_batch; },
                             "the smallest batch whose decode step is compute-bound (0: none up to 2^30)")
      .def_property_readonly("tp", [](const PyDeployment& d) { return d.analysis.prepared.split.tp; })
      .def_property_readonly("pp", [](const PyDeployment& d) { return d.analysis.prepared.split.pp; })
      .def_property_readonly("ep", [](const PyDeployment& d) { return d.analysis.prepared.split.ep; })
      .def_property_readonly("dp", [](const PyDeployment& d) { return d.analysis.prepared.split.dp; })
      .def_property_readonly("context", [](const PyDeployment& d) { return d.options.context; })
      .def_property_readonly("batch", [](const PyDeployment& d) { return d.options.batch; })
      .def(
          "evaluate",
          [](const PyDeployment& d, py::handle batch, py::handle context, py::handle prompt) {
            const int64_t b = opt_count(batch, "batch", kMaxBatch).value_or(d.options.batch);
            const int64_t c = opt_count(context, "context", kMaxTokens).value_or(d.options.context);
            const int64_t p = opt_count(prompt, "prompt", kMaxTokens).value_or(d.options.prompt_tokens);
            check(check_workload(d.analysis.prepared, b, c, p), kContextRenames);
            return evaluate_deployment(d.analysis.prepared, b, c, p);
          },
          py::arg("batch") = py::none(), py::arg("context") = py::none(), py::arg("prompt") = py::none(),
          "evaluate($self, batch=None, context=None, prompt=None)\n--\n\n"
          "The engine at another workload (the hot path: prepared once, evaluated in ~50 ns of C++).\n"
          "Unset arguments keep this deployment's. Returns a DeploymentPoint (memory, decode, prefill).")
      .def("to_dict",
           [](const PyDeployment& d) {
             const ScopedEngineProfile scope(d.profile);
             Report rep;
             rep.sections = deployment_sections_for(*d.gpu, d.analysis, d.prediction);
             return to_py(render_json(rep));
           },
           "to_dict($self)\n--\n\nThe engine's sections as `size --json` prints them: deployment, memory_per_gpu, "
           "decode_step, prefill (each with its `predicted` sibling), engine.");
  m.def("_deployment", &run_deployment_py);
}

}  // namespace modelcalc::py_bind
