// modelcalc size: drill 1 end to end for any model.
#include <CLI/CLI.hpp>
#include <memory>

#include "commands.h"
#include "html_report.h"
#include "output_file.h"
#include "inputs.h"
#include "modelcalc/roofline.h"
#include "modelcalc/size.h"
#include "quantity.h"
#include "size_report.h"

namespace modelcalc {

namespace {

struct SizeFlags {
  ModelFlags model;
  GpuFlags gpu;
  OutputFlags output;
  std::string seq;           // default: the config's max_position_embeddings, else 4096
  std::string batch = "1";
  std::string gpus = "1";    // ideal tensor parallelism over this many GPUs
  std::string dtype = "fp16";
  std::string kv_dtype;      // default: --dtype
  std::string train_tokens;  // e.g. 1.5T
  std::string report;        // --report: HTML page path
};

Status run_size(const SizeFlags& f, std::ostream& out) {
  auto model = resolve_model(f.model);
  if (!model.ok()) return model.status();
  auto gpu = resolve_gpu(f.gpu);
  if (!gpu.ok()) return gpu.status();

  SizeOptions o;
  o.has_gpu = gpu->has_value();
  MC_ASSIGN_OR_RETURN(o.seq, resolve_seq(f.seq, *model));
  MC_ASSIGN_OR_RETURN(o.batch, parse_count(f.batch, "--batch"));
  MC_ASSIGN_OR_RETURN(const Dtypes dtypes, resolve_dtypes(f.dtype, f.kv_dtype));
  o.weight_dtype = dtypes.weights;
  o.kv_dtype = dtypes.kv;
  if (!f.train_tokens.empty()) {
    auto d = parse_real_count(f.train_tokens, "--train-tokens");
    if (!d.ok()) return d.status();
    if (*d <= 0) return Status::InvalidArgument("--train-tokens", "must be positive, e.g. 1.5T");
    o.train_tokens = *d;
  }
  MC_ASSIGN_OR_RETURN(const int64_t n_gpus, parse_count(f.gpus, "--gpus"));
  if (n_gpus > 1 && !o.has_gpu) return Status::InvalidArgument("--gpus", "needs a GPU: give --gpu NAME");
  const GpuSpec g = o.has_gpu ? tensor_parallel(**gpu, n_gpus) : GpuSpec{};
  auto r = analyze_size(*model, g, o);
  if (!r.ok()) return r.status();
  const Report rep = build_size_report(*model, g, o, *r);
  emit(rep, f.output, out);
  // Last, so a failure anywhere above leaves no file behind.
  if (!f.report.empty()) {
    std::string page;
    if (o.has_gpu) {  // the page's roofline: the analysis runs here, the page only renders it
      const RooflineOptions ro = report_roofline_options(g, o);
      const GpuSpec gpus[] = {g};
      MC_ASSIGN_OR_RETURN(const RooflineResult roofline, analyze_roofline(&*model, gpus, ro));
      page = render_html_report(rep, *model, &ro, &roofline);
    } else {
      page = render_html_report(rep, *model, nullptr, nullptr);
    }
    MC_RETURN_IF_ERROR(write_output_file(f.report, page, "--report"));
  }
  return Status::Ok();
}

}  // namespace

CommandRun setup_size(CLI::App& app) {
  auto f = std::make_shared<SizeFlags>();
  add_model_flags(app, &f->model);
  add_gpu_flags(app, &f->gpu);
  app.add_option("--seq", f->seq, "Prompt / context length T in tokens (default: the model's max positions, else 4096)");
  app.add_option("--batch", f->batch, "Concurrent sequences for the aggregate decode ceiling")->capture_default_str();
  app.add_option("--gpus", f->gpus, "GPUs the model is split over (ideal tensor parallelism: capacity, bandwidth "
                                    "and peak add up)")->capture_default_str();
  app.add_option("--dtype", f->dtype, "Weight dtype: fp32, fp16, bf16, fp8, int8, int4")->capture_default_str();
  app.add_option("--kv-dtype", f->kv_dtype, "KV-cache dtype (default: --dtype)");
  app.add_option("--train-tokens", f->train_tokens, "Training tokens D for 6·N·D, e.g. 1.5T");
  app.add_option("--report", f->report, "Also write a one-page HTML report (sections, formulas, roofline) to this file");
  add_output_flags(app, &f->output);
  return [f](std::ostream& out) { return run_size(*f, out); };
}

}  // namespace modelcalc
