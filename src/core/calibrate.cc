#include "modelcalc/calibrate.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <system_error>

#include "embedded_data.h"
#include "modelcalc/dtype.h"
#include "modelcalc/gpu.h"
#include "modelcalc/hf_config.h"
#include "tsv.h"

namespace modelcalc {

std::string_view data_regime_name(DataRegime r) {
  switch (r) {
    case DataRegime::kThroughput: return "throughput";
    case DataRegime::kTtft: return "ttft";
    case DataRegime::kTpot: return "tpot";
    case DataRegime::kDense: return "dense";
    case DataRegime::kMoe: return "moe";
    case DataRegime::kFp4: return "fp4";
    case DataRegime::kDisaggregated: return "disaggregated";
    case DataRegime::kPrefillHeavy: return "prefill-heavy";
    case DataRegime::kLongContext: return "long-context";
  }
  return "?";
}

ErrorSummary summarize_errors(std::vector<double> e, int64_t rows, int64_t over) {
  ErrorSummary s;
  s.rows = rows;
  s.over_ceiling = over;
  s.predicted_rows = static_cast<int64_t>(e.size());
  if (e.empty()) return s;
  std::sort(e.begin(), e.end());
  const size_t n = e.size();
  s.median_abs_error = n % 2 == 1 ? e[n / 2] : (e[n / 2 - 1] + e[n / 2]) / 2;
  double sum = 0;
  for (double v : e) {
    if (std::isfinite(v)) {
      sum += v;
    } else {
      ++s.unbounded;
    }
  }
  const int64_t finite = static_cast<int64_t>(n) - s.unbounded;
  s.mean_abs_error = finite > 0 ? sum / static_cast<double>(finite) : std::numeric_limits<double>::infinity();
  const size_t rank = static_cast<size_t>(std::ceil(0.9 * static_cast<double>(n)));  // nearest rank
  s.p90_abs_error = e[std::max<size_t>(rank, 1) - 1];
  s.max_abs_error = e.back();
  return s;
}


namespace {

bool beats_ceiling(const ServingRow& r, double ceiling) {
  const bool time = r.metric == MeasuredMetric::kItl || r.metric == MeasuredMetric::kTtft;
  return time ? r.value < ceiling : r.value > ceiling;
}

// Summaries over `rows` (indices into cal.rows), overall and by regime.
void summarize(const std::vector<CalibratedRow>& all, const std::vector<size_t>& idx, ErrorSummary* overall,
               std::array<ErrorSummary, kDataRegimeCount>* by_regime) {
  std::vector<double> e;
  std::array<std::vector<double>, kDataRegimeCount> er;
  std::array<int64_t, kDataRegimeCount> n{}, over_r{};
  int64_t over = 0;
  for (size_t i : idx) {
    const CalibratedRow& c = all[i];
    const PreparedRow& p = *c.prepared;
    if (!c.evaluated) continue;
    e.push_back(std::fabs(c.error));
    over += c.over_ceiling;
    for (size_t k = 0; k < kDataRegimeCount; ++k) {
      if (!p.regimes[k]) continue;
      er[k].push_back(std::fabs(c.error));
      ++n[k];
      over_r[k] += c.over_ceiling;
    }
  }
  *overall = summarize_errors(std::move(e), static_cast<int64_t>(idx.size()), over);
  for (size_t k = 0; k < kDataRegimeCount; ++k) (*by_regime)[k] = summarize_errors(std::move(er[k]), n[k], over_r[k]);
}

}  // namespace

Calibration calibrate_rows(std::span<const PreparedRow> rows, const CalibrationParams& params) {
  Calibration cal;
  cal.rows.reserve(rows.size());
  std::vector<size_t> idx;
  for (const PreparedRow& p : rows) {
    CalibratedRow c;
    c.prepared = &p;
    c.measured = p.row->value;
    if (p.skipped.empty()) {
      c.figures = evaluate_row(p, params);
      c.evaluated = true;
      c.predicted = c.figures.predicted;
      c.ceiling = c.figures.ceiling;
      c.error = c.predicted / c.measured - 1;
      c.over_ceiling = beats_ceiling(*p.row, c.ceiling);
    }
    idx.push_back(cal.rows.size());
    cal.rows.push_back(c);
  }
  summarize(cal.rows, idx, &cal.summary, &cal.by_regime);
  return cal;
}


}  // namespace modelcalc
