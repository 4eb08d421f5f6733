// modelcalc calibrate: published measured throughputs against the deployment
// engine's ceiling for the same setup (the reality check behind --efficiency).
#include <fmt/format.h>

#include <memory>

#include "commands.h"
#include "flags.h"
#include "format.h"
#include "inputs.h"
#include "modelcalc/calibrate.h"
#include "train_calibrate_cli.h"

namespace modelcalc {

namespace {

Status run_calibrate(const OutputFlags& o, std::ostream& out) {
  const std::vector<CalibrationRow> rows = calibrate();
  if (o.json) {
    nlohmann::json j = nlohmann::json::array();
    for (const CalibrationRow& c : rows) {
      const MeasuredRow& r = *c.row;
      j.push_back({{"model", r.model}, {"gpu", r.gpu}, {"gpu_count", r.gpu_count}, {"parallelism", r.parallelism},
                   {"weight_dtype", r.weight_dtype}, {"input_len", r.input_len}, {"output_len", r.output_len},
                   {"metric", r.metric}, {"measured", r.measured}, {"engine", r.engine}, {"source", r.source},
                   {"evaluated", c.evaluated},
                   {"modelled_ceiling", c.evaluated ? nlohmann::json(c.ceiling) : nlohmann::json()},
                   {"measured_over_ceiling", c.evaluated ? nlohmann::json(c.ratio) : nlohmann::json()},
                   {"batch", c.batch}, {"context", c.context}, {"explanation", c.explanation}});
    }
    out << nlohmann::json{{"rows", j}}.dump(2) << "\n";
    return Status::Ok();
  }
  out << "Measured throughputs against the deployment engine's ceiling (data/measured.tsv)\n";
  out << "ceiling: throughput rows = aggregate decode tokens/s at the largest batch HBM holds, each sequence at\n"
         "isl + osl/2 tokens of KV, prefill not charged; batch-1 rows = single-stream decode tokens/s.\n\n";
  out << fmt::format("  {:<24} {:<10} {:>3} {:<6} {:>11} {:>6} {:>12} {:>12} {:>8}\n", "model", "gpu", "tp",
                     "w/kv", "isl/osl", "batch", "measured", "ceiling", "ratio");
  double lo = 1e9, hi = 0;
  for (const CalibrationRow& c : rows) {
    const MeasuredRow& r = *c.row;
    if (!c.evaluated) {
      out << fmt::format("  {:<24} {:<10} {}: {}\n", r.model.substr(0, 24), r.gpu.substr(0, 10),
                         fmt_sig(r.measured, 5), c.explanation);
      continue;
    }
    lo = std::min(lo, c.ratio);
    hi = std::max(hi, c.ratio);
    out << fmt::format("  {:<24} {:<10} {:>3} {:<6} {:>11} {:>6} {:>12} {:>12} {:>7.0f}%\n", r.mc_model, r.mc_gpu,
                       r.mc_tp, r.mc_weight_dtype + "/" + r.mc_kv_dtype,
                       std::to_string(r.mc_isl) + "/" + std::to_string(r.mc_osl), group_digits(c.batch),
                       fmt_fixed(r.measured, 0), fmt_fixed(c.ceiling, 0), c.ratio * 100);
    if (!c.explanation.empty()) out << "      " << c.explanation << "\n";
  }
  if (hi > 0) {
    out << fmt::format("\nMeasured engines reach {:.0f}% to {:.0f}% of the modelled ceiling; `plan --efficiency F` "
                       "applies such a factor.\n",
                       lo * 100, hi * 100);
  }
  out << "Sources: `modelcalc calibrate --json` lists each row's source.\n";
  return Status::Ok();
}

}  // namespace

CommandRun setup_calibrate(FlagSet& flags) {
  auto o = std::make_shared<OutputFlags>();
  auto training = std::make_shared<TrainingCalibrateFlags>();
  add_training_calibrate_flags(flags, training.get());
  add_output_flags(flags, o.get());
  return [o, training](std::ostream& out) {
    if (training->training || training->fit) return run_training_calibrate(*training, *o, out);
    return run_calibrate(*o, out);
  };
}

}  // namespace modelcalc
