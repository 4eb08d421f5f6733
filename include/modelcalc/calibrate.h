// The reality check: published measured throughputs (data/measured.tsv,
// compiled in, each with its source) against the deployment engine's ceiling
// for the same setup. No measured figure may exceed its modelled ceiling; a
// row that does is flagged with its explanation.
#ifndef MODELCALC_CALIBRATE_H_
#define MODELCALC_CALIBRATE_H_

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "modelcalc/status.h"

namespace modelcalc {

struct MeasuredRow {
  // As published (the reference file's columns).
  std::string model, gpu, gpu_count, parallelism, weight_dtype, batch, input_len, output_len, metric;
  double measured = 0;
  std::string engine, source, notes;
  // modelcalc's reading of the setup ("-" = not applicable).
  std::string mc_model, mc_gpu, mc_weight_dtype, mc_kv_dtype, mc_mode, mc_note;
  int64_t mc_tp = 0, mc_isl = 0, mc_osl = 0;
};

// Strict parse of the data/measured.tsv format.
Result<std::vector<MeasuredRow>> parse_measured(std::string_view tsv);
// The compiled-in rows (a malformed file aborts: a programming error).
std::span<const MeasuredRow> measured_catalog();

struct CalibrationRow {
  const MeasuredRow* row = nullptr;
  bool evaluated = false;
  int64_t batch = 0;           // the batch the ceiling is taken at
  int64_t context = 0;         // tokens of KV each sequence holds (isl + osl / 2)
  double ceiling = 0;          // tokens/s, the engine's
  double ratio = 0;            // measured / ceiling
  std::string explanation;     // why not evaluated, or why over 1
};

// Evaluates every row with the deployment engine: mode "throughput" takes the
// aggregate decode rate at the largest batch HBM holds with each sequence at
// the request's mean context (isl + osl / 2; prefill time not charged, so it
// stays a ceiling); "batch1" the single-stream decode rate at that context.
std::vector<CalibrationRow> calibrate();

}  // namespace modelcalc

#endif  // MODELCALC_CALIBRATE_H_
