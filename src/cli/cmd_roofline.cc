// modelcalc roofline: the lab's one-intensity answer (attainable FLOP/s,
// ridge, memory- or compute-bound), or a model's operating points (decode at
// each batch, prefill, a big GEMM) on one or more GPUs, optionally drawn.
#include <fmt/format.h>
#include <memory>

#include "commands.h"
#include "deployment_options.h"
#include "deployment_report.h"
#include "format.h"
#include "inputs.h"
#include "modelcalc/roofline.h"
#include "output_file.h"
#include "quantity.h"
#include "roofline_plot.h"
#include "roofline_report.h"

namespace modelcalc {

namespace {

struct RooflineFlags {
  ModelFlags model;
  GpuFlags gpu;  // --gpu may list several: h100,mi300x
  OutputFlags output;
  DeploymentLists lists;  // --batch (default 1,8,64,256)
  DeploymentFlags dep;    // --seq --dtype --kv-dtype; --gpus --tp --pp --ep --dp --reserve for the engine's deployments
  std::optional<double> intensity;
  int64_t gemm = 8192;
  std::string plot;
};

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    const size_t comma = s.find(',', start);
    parts.push_back(s.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return parts;
}

Result<std::vector<GpuSpec>> resolve_gpus(const GpuFlags& f) {
  std::vector<GpuSpec> gpus;
  if (f.gpu.find(',') == std::string::npos) {
    auto g = resolve_gpu(f);
    if (!g.ok()) return g.status();
    if (!g->has_value()) {
      return Status::InvalidArgument("--gpu", "is required, e.g. --gpu a100 or --gpu h100,mi300x (modelcalc gpus lists them)");
    }
    gpus.push_back(**g);
    return gpus;
  }
  if (f.custom()) {
    return Status::InvalidArgument(f.bandwidth ? "--bandwidth" : f.capacity ? "--capacity" : "--peak",
                                   "overrides one GPU; give a single --gpu with it");
  }
  for (const std::string& name : split_commas(f.gpu)) {
    if (name.empty()) return Status::InvalidArgument("--gpu", "empty name in the list; e.g. --gpu h100,mi300x");
    GpuFlags one;
    one.gpu = name;
    auto g = resolve_gpu(one);
    if (!g.ok()) return g.status();
    for (const GpuSpec& seen : gpus) {
      if (seen.key == (*g)->key) return Status::InvalidArgument("--gpu", "lists '" + seen.name + "' twice");
    }
    gpus.push_back(**g);
  }
  return gpus;
}

std::string gpu_names(const std::vector<GpuSpec>& gpus) {
  std::string s;
  for (const GpuSpec& g : gpus) s += (s.empty() ? "" : " vs ") + g.name;
  return s;
}

Status run_roofline(const RooflineFlags& f, std::ostream& out) {
  const bool with_model = has_model(f.model);
  std::optional<ModelSpec> model;
  if (with_model) {
    auto m = resolve_model(f.model);
    if (!m.ok()) return m.status();
    model = *m;
  } else {
    const std::pair<bool, const char*> needs_model[] = {
        {!f.lists.batches.empty(), "--batch"}, {f.dep.seq.has_value(), "--seq"}, {f.dep.gpus.has_value(), "--gpus"},
        {f.dep.tp.has_value(), "--tp"},        {f.dep.pp.has_value(), "--pp"},   {f.dep.ep.has_value(), "--ep"},
        {f.dep.dp.has_value(), "--dp"},        {f.dep.reserve.has_value(), "--reserve"},
        {f.dep.prompt.has_value(), "--prompt"}, {f.dep.compute_dtype.has_value(), "--compute-dtype"}};
    for (const auto& [given, flag] : needs_model) {
      if (given) return Status::InvalidArgument(flag, "needs a model (--model, --config or shape flags)");
    }
  }
  auto gpus = resolve_gpus(f.gpu);
  // A GPU with no tensor peak at all gets the message every command gives.
  if (gpus.ok()) {
    for (const GpuSpec& g : *gpus) {
      if (gpu_roofs(g).empty()) MC_RETURN_IF_ERROR(require_peak(g));
    }
  }
  if (!gpus.ok()) return gpus.status();

  RooflineOptions o;
  const Dtypes dtypes = model ? resolve_dtypes(f.dep, *model, Dtype::kBf16) : resolve_dtypes(f.dep, Dtype::kBf16);
  o.weight_dtype = o.math_dtype = dtypes.weights;
  // Points sit under the weights' own roof where every GPU has it; a format the
  // dtype table runs at the 16-bit roof elsewhere (int4/int8 weight-only, fp4
  // without an fp4 peak) sits under bf16 instead of being refused.
  if (gpus.ok()) {
    const DtypeInfo& info = dtype_info(dtypes.weights);
    for (const GpuSpec& g : *gpus) {
      if (!(g.peak_flops(dtypes.weights) > 0) && (info.weight_only || info.falls_back_to_16bit)) {
        o.math_dtype = Dtype::kBf16;
      }
    }
  }
  o.kv_dtype = dtypes.kv;
  if (f.intensity) o.intensity = *f.intensity;
  o.gemm_n = f.gemm;
  if (model) {
    o.batches = f.lists.batches.empty() ? std::vector<int64_t>{1, 8, 64, 256} : f.lists.batches;
    o.context = resolve_seq(f.dep.seq, *model);
  } else if (!o.intensity && f.plot.empty()) {
    return Status::InvalidArgument("--intensity",
                                   "give an intensity (e.g. --intensity 1), a model (--model, --config or shape "
                                   "flags), or --plot FILE");
  }

  const ModelSpec* m = model ? &*model : nullptr;
  std::vector<RooflineEnginePoint> engine_points;
  auto r = analyze_roofline(m, *gpus, o);
  if (!r.ok()) return r.status();
  Report rep = build_roofline_report(m, o, *r);
  if (m != nullptr) state_context(f.dep.seq, *m, &rep);
  if (!f.plot.empty()) rep.extra_json["plot"] = f.plot;
  if (m != nullptr) {
    // The deployment engine at each (GPU, batch): the same figures size, kv-budget and sweep report.
    nlohmann::json deployments = nlohmann::json::array();
    engine_points.clear();
    const bool split_given =
        f.dep.gpus || f.dep.tp || f.dep.pp || f.dep.ep || f.dep.dp || f.dep.prompt || f.dep.compute_dtype;
    for (const GpuSpec& g : *gpus) {
      for (int64_t b : o.batches) {
        MC_ASSIGN_OR_RETURN(const DeploymentOptions d,
                            deployment_options(f.dep, o.weight_dtype, o.kv_dtype, o.context, b));
        auto a = analyze_deployment_full(*m, g, d);
        // A split the user gave and the engine refuses is their error; otherwise (e.g. no peak
        // for the default compute dtype) the points above still stand.
        if (!a.ok() && split_given) return as_flag_error(a.status());
        if (!a.ok()) continue;
        nlohmann::json j = deployment_json(g, *a);
        j["gpu"] = g.key;
        engine_points.push_back({&g, a->result.decode, static_cast<double>(a->result.memory.max_sequences)});
        deployments.push_back(std::move(j));
      }
    }
    rep.extra_json["deployments"] = std::move(deployments);
  }

  std::string text;
  if (f.output.json) {
    text = render_json(rep).dump(2) + "\n";
  } else if (f.output.explain) {
    text = render_explain(rep);
  } else {
    // The engine's answer first, the seed's roofline after it as its teaching view.
    text = render_roofline_table(m, o, *r);
    const std::string answer = render_roofline_engine(engine_points);
    if (!answer.empty()) {
      const size_t head = text.find("\n\n");  // after the title and options lines
      text.insert(head == std::string::npos ? text.size() : head + 1, answer);
    }
  }
  if (!f.plot.empty()) {
    PlotOptions po;
    po.title = "Roofline: " + (m ? m->name + " on " : std::string()) + gpu_names(*gpus);
    po.subtitle = m ? fmt::format("{} math · decode at context {} · weights {}, KV {} · points at min(peak, bw × I)",
                                  dtype_name(o.math_dtype), group_digits(o.context), dtype_name(o.weight_dtype), dtype_name(o.kv_dtype))
                    : fmt::format("{} math · points at min(peak, bw × I)", dtype_name(o.math_dtype));
    if (f.plot == "-") {  // the picture is the whole output (the web API's /api/svg/roofline)
      out << roofline_svg_document(*r, po);
      return Status::Ok();
    }
    MC_RETURN_IF_ERROR(write_output_file(f.plot, roofline_svg_document(*r, po), "--plot"));
    if (!f.output.json) text += "\nPlot written to " + f.plot + " (open it in a browser).\n";
  }
  out << text;
  return Status::Ok();
}

}  // namespace

CommandRun setup_roofline(FlagSet& flags) {
  auto f = std::make_shared<RooflineFlags>();
  add_model_flags(flags, &f->model);
  add_gpu_flags(flags, &f->gpu);
  flags.footer("--gpu takes one name or a comma list (--gpu h100,mi300x) to compare GPUs on one roofline.");
  add_deployment_lists(flags, &f->lists, {{Dep::kBatch, "1,8,64,256; decode batch sizes"}});
  add_deployment_flags(flags, &f->dep,
                       {{Dep::kSeq, "8,192 tokens, or the model's max positions if smaller; decode context and prefill prompt"},
                        {Dep::kDtype, "a quantized checkpoint's own, else bf16; also the math dtype (bf16 for int8/int4, and for fp4 on a GPU without an fp4 peak)"},
                        {Dep::kKvDtype, kKvDtypeDefault},
                        {Dep::kGpus, "1; the engine's deployments (JSON deployments[]) split tp x pp x dp"},
                        {Dep::kTp, kTpDefault},
                        {Dep::kPp, kPpDefault},
                        {Dep::kEp, kEpDefault},
                        {Dep::kDp, kDpDefault},
                        {Dep::kReserve, kReserveDefault},
                        {Dep::kPrompt, "the context; the engine's prefill (JSON deployments[])"},
                        {Dep::kComputeDtype, kComputeDtypeDefault}});
  flags
      .add<double>("--intensity", "Place this arithmetic intensity (FLOP/byte), e.g. 1", &f->intensity,
                   [](std::string_view text, std::string_view flag) -> Result<double> {
                     MC_ASSIGN_OR_RETURN(const double i, parse_real_count(text, flag));
                     if (!(i > 0)) {
                       return Status::InvalidArgument(flag, "must be a positive number of FLOP per byte, e.g. 1");
                     }
                     return i;
                   })
      .add<int64_t>("--gemm", "Side n of the square GEMM point (n×n×n), 1 to 1,000,000 (default: 8192)", &f->gemm,
                    [](std::string_view text, std::string_view flag) -> Result<int64_t> {
                      MC_ASSIGN_OR_RETURN(const int64_t n, parse_count(text, flag));
                      if (n > 1'000'000) return Status::InvalidArgument(flag, "at most 1,000,000 (a square GEMM side n)");
                      return n;
                    })
      .text("--plot", "Write the roofline as an SVG file, e.g. roofline.svg; - prints it to stdout instead of the report",
            &f->plot);
  add_output_flags(flags, &f->output);
  return [f](std::ostream& out) { return run_roofline(*f, out); };
}

}  // namespace modelcalc
