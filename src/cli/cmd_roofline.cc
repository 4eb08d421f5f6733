// modelcalc roofline: the lab's one-intensity answer (attainable FLOP/s,
// ridge, memory- or compute-bound), or a model's operating points (decode at
// each batch, prefill, a big GEMM) on one or more GPUs, optionally drawn.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <memory>

#include "commands.h"
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
  std::string batch = "1,8,64,256";
  std::string seq;  // default: the model's max positions, else 4096
  std::string dtype = "bf16";
  std::string kv_dtype;  // default: --dtype
  std::string intensity;
  std::string gemm = "8192";
  std::string plot;
  CLI::Option* batch_opt = nullptr;
  CLI::Option* seq_opt = nullptr;
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
  if (!f.bandwidth.empty() || !f.capacity.empty() || !f.peak.empty()) {
    return Status::InvalidArgument(!f.bandwidth.empty() ? "--bandwidth" : !f.capacity.empty() ? "--capacity" : "--peak",
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

Result<std::vector<int64_t>> parse_batches(const std::string& text) {
  std::vector<int64_t> batches;
  if (text.find_first_not_of(" ") == std::string::npos) {
    return Status::InvalidArgument("--batch", "give at least one batch size, e.g. 1,8,64,256");
  }
  for (const std::string& part : split_commas(text)) {
    if (part.empty()) return Status::InvalidArgument("--batch", "empty entry in the list; e.g. 1,8,64,256");
    auto b = parse_count(part, "--batch");
    if (!b.ok()) return b.status();
    batches.push_back(*b);
  }
  return batches;
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
  } else if (f.batch_opt->count() > 0 || f.seq_opt->count() > 0) {
    return Status::InvalidArgument(f.batch_opt->count() > 0 ? "--batch" : "--seq",
                                   "needs a model (--model, --config or shape flags)");
  }
  auto gpus = resolve_gpus(f.gpu);
  if (!gpus.ok()) return gpus.status();

  RooflineOptions o;
  MC_ASSIGN_OR_RETURN(const Dtypes dtypes, resolve_dtypes(f.dtype, f.kv_dtype));
  o.weight_dtype = o.math_dtype = dtypes.weights;
  o.kv_dtype = dtypes.kv;
  if (!f.intensity.empty()) {
    auto i = parse_real_count(f.intensity, "--intensity");
    if (!i.ok()) return i.status();
    if (!(*i > 0)) return Status::InvalidArgument("--intensity", "must be a positive number of FLOP per byte, e.g. 1");
    o.intensity = *i;
  }
  auto n = parse_count(f.gemm, "--gemm");
  if (!n.ok()) return n.status();
  if (*n > 1'000'000) return Status::InvalidArgument("--gemm", "at most 1,000,000 (a square GEMM side n)");
  o.gemm_n = *n;
  if (model) {
    auto batches = parse_batches(f.batch);
    if (!batches.ok()) return batches.status();
    o.batches = *batches;
    MC_ASSIGN_OR_RETURN(o.seq, resolve_seq(f.seq, *model));
  } else if (!o.intensity && f.plot.empty()) {
    return Status::InvalidArgument("--intensity",
                                   "give an intensity (e.g. --intensity 1), a model (--model, --config or shape "
                                   "flags), or --plot FILE");
  }

  const ModelSpec* m = model ? &*model : nullptr;
  auto r = analyze_roofline(m, *gpus, o);
  if (!r.ok()) return r.status();
  Report rep = build_roofline_report(m, o, *r);
  if (!f.plot.empty()) rep.extra_json["plot"] = f.plot;

  std::string text;
  if (f.output.json) {
    text = render_json(rep).dump(2) + "\n";
  } else if (f.output.explain) {
    text = render_explain(rep);
  } else {
    text = render_roofline_table(m, o, *r);
  }
  if (!f.plot.empty()) {
    PlotOptions po;
    po.title = "Roofline: " + (m ? m->name + " on " : std::string()) + gpu_names(*gpus);
    po.subtitle = m ? fmt::format("{} math · decode at context {} · weights {}, KV {} · points at min(peak, bw × I)",
                                  dtype_name(o.math_dtype), group_digits(o.seq), dtype_name(o.weight_dtype), dtype_name(o.kv_dtype))
                    : fmt::format("{} math · points at min(peak, bw × I)", dtype_name(o.math_dtype));
    MC_RETURN_IF_ERROR(write_output_file(f.plot, roofline_svg_document(*r, po), "--plot"));
    if (!f.output.json) text += "\nPlot written to " + f.plot + " (open it in a browser).\n";
  }
  out << text;
  return Status::Ok();
}

}  // namespace

CommandRun setup_roofline(CLI::App& app) {
  auto f = std::make_shared<RooflineFlags>();
  add_model_flags(app, &f->model);
  add_gpu_flags(app, &f->gpu);
  app.footer("--gpu takes one name or a comma list (--gpu h100,mi300x) to compare GPUs on one roofline.");
  f->batch_opt = app.add_option("--batch", f->batch, "Decode batch sizes, a comma list")->capture_default_str();
  f->seq_opt = app.add_option("--seq", f->seq,
                              "Decode context / prefill prompt length T (default: the model's max positions, else 4096)");
  app.add_option("--dtype", f->dtype, "Math and storage dtype: bf16, fp16, fp8, int8, fp32")->capture_default_str();
  app.add_option("--kv-dtype", f->kv_dtype, "KV-cache dtype (default: --dtype)");
  app.add_option("--intensity", f->intensity, "Place this arithmetic intensity (FLOP/byte), e.g. 1");
  app.add_option("--gemm", f->gemm, "Side n of the square GEMM point (n×n×n)")->capture_default_str();
  app.add_option("--plot", f->plot, "Write the roofline as an SVG file, e.g. roofline.svg");
  add_output_flags(app, &f->output);
  return [f](std::ostream& out) { return run_roofline(*f, out); };
}

}  // namespace modelcalc
