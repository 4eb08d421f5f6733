// The published serving measurements' reader (calibrate.h): columns by header
// name, the schema's 19 base columns required, the layout columns read when
// present, any other column named once.
#include <algorithm>
#include <array>
#include <cctype>
#include <functional>
#include <map>
#include <string>

#include "embedded_data.h"
#include "modelcalc/calibrate.h"
#include "tsv.h"

namespace modelcalc {

namespace {

// The columns the reader knows, by index into a row's fields.
enum Col : size_t {
  kId, kModel, kCheckpoint, kGpu, kGpus, kTp, kPp, kEp, kWeightDtype, kKvDtype, kIsl, kOsl, kLoad, kMetric,
  kValue, kEngine, kEngineVersion, kSource, kNotes,
  kBaseCount,  // the 19 required ones above
  kLayout = kBaseCount, kDpAttention, kSpec, kSpecTokens, kLengthDist,
  kPrefillWorkers, kPrefillTp, kPrefillEp, kPrefillGpus, kDecodeWorkers, kDecodeTp, kDecodeEp, kDecodeGpus,
  kPrefillDpAttention, kLayoutSource, kMaxNumSeqs, kMaxNumBatchedTokens, kMemoryFraction, kPollSteps,
  kKnownCount
};
constexpr std::array<const char*, kKnownCount> kNames = {
    "id",           "model",         "checkpoint",     "gpu",          "gpus",         "tp",
    "pp",           "ep",            "weight_dtype",   "kv_dtype",     "isl",          "osl",
    "load",         "metric",        "value",          "engine",       "engine_version", "source",
    "notes",        "layout",        "dp_attention",   "spec",         "spec_tokens",  "length_dist",
    "prefill_workers", "prefill_tp", "prefill_ep",     "prefill_gpus", "decode_workers", "decode_tp",
    "decode_ep",    "decode_gpus",   "prefill_dp_attention", "layout_source", "max_num_seqs",
    "max_num_batched_tokens", "memory_fraction", "scheduler_poll_steps"};
constexpr size_t kAbsent = static_cast<size_t>(-1);

bool parse_count(std::string_view t, int64_t* v) { return tsv_int(t, v) && *v >= 1 && *v <= (int64_t{1} << 30); }

bool parse_positive(std::string_view t, double* v) { return tsv_real(t, v) && *v > 0; }

// Physical ranges of a measurement (issue #39): no GPU serves 10^12 tokens/s
// (an H100's decode ceiling for a 1B model is ~10^4 per sequence, ~10^6 in a
// batch), and no benchmark waits a day for a token; a value beyond them is a
// unit slip or a corrupt file, not a measurement to fit or print.
constexpr double kMaxRatePerGpu = 1e12;  // tokens/s per GPU, tokens/s per user, requests/s, concurrency
constexpr double kMaxLatencyS = 86'400;  // itl_s, ttft_s: one day

// The value's physical range: "" when in range, else what is allowed.
std::string value_out_of_range(const ServingRow& r) {
  const bool latency = r.metric == MeasuredMetric::kItl || r.metric == MeasuredMetric::kTtft;
  if (latency) return r.value <= kMaxLatencyS ? "" : "must be at most 86400 s (a day) for " + r.metric_text;
  const bool per_gpu = r.metric == MeasuredMetric::kOutputTokensPerS || r.metric == MeasuredMetric::kTotalTokensPerS;
  const double v = per_gpu ? r.value / static_cast<double>(r.gpus) : r.value;
  if (v <= kMaxRatePerGpu) return "";
  return per_gpu ? "must be at most 1e12 tokens/s per GPU (value / gpus)" : "must be at most 1e12";
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

void read_load(ServingRow* r) {
  const std::string t = lower(r->load_text);
  if (t == "offline") {
    r->load = MeasuredLoad::kOffline;
  } else if (t == "qps=inf") {
    r->load = MeasuredLoad::kUnboundedRate;
  } else if (t.rfind("qps=", 0) == 0 || t.rfind("concurrency=", 0) == 0) {
    const bool qps = t[0] == 'q';
    const std::string_view num = std::string_view(t).substr(qps ? 4 : 12);
    double v = 0;
    if (parse_positive(num, &v)) {
      r->load = qps ? MeasuredLoad::kRequestsPerS : MeasuredLoad::kConcurrency;
      r->load_value = v;
    }
  }
}

void read_metric(ServingRow* r) {
  const std::string& t = r->metric_text;
  if (t == "output_tokens_per_s") r->metric = MeasuredMetric::kOutputTokensPerS;
  if (t == "total_tokens_per_s") r->metric = MeasuredMetric::kTotalTokensPerS;
  if (t == "itl_s") r->metric = MeasuredMetric::kItl;
  if (t == "ttft_s") r->metric = MeasuredMetric::kTtft;
  if (t == "tokens_per_s_per_user") r->metric = MeasuredMetric::kTokensPerSPerUser;
}

// The header: each known column's field index (kAbsent when missing), the
// unknown columns' names. Errors name the missing or repeated column.
Status read_header(const std::vector<std::string_view>& c, const std::string& where,
                   std::array<size_t, kKnownCount>* at, std::vector<std::string>* ignored) {
  at->fill(kAbsent);
  for (size_t i = 0; i < c.size(); ++i) {
    const auto k = std::find(kNames.begin(), kNames.end(), c[i]);
    if (k == kNames.end()) {
      ignored->emplace_back(c[i]);
      continue;
    }
    const size_t col = static_cast<size_t>(k - kNames.begin());
    if ((*at)[col] != kAbsent) {
      return Status::InvalidArgument(where, "header names column '" + std::string(c[i]) + "' twice");
    }
    (*at)[col] = i;
  }
  for (size_t col = 0; col < kBaseCount; ++col) {
    if ((*at)[col] == kAbsent) {
      return Status::InvalidArgument(where, std::string("header lacks column '") + kNames[col] +
                                                "' (the 19 columns of the schema in shared/reference/README.md "
                                                "are required, in any order)");
    }
  }
  return Status::Ok();
}

// An optional whole number >= 1 (empty = 0).
bool optional_count(std::string_view t, int64_t* v) {
  *v = 0;
  return t.empty() || parse_count(t, v);
}

// An optional whole number >= 0 (empty = 0): a pool's workers and GPUs as a source wrote them.
bool optional_size(std::string_view t, int64_t* v) {
  *v = 0;
  return t.empty() || (tsv_int(t, v) && *v >= 0 && *v <= (int64_t{1} << 30));
}

// The layout columns of one row (empty fields keep the defaults).
Status read_layout(const std::array<std::string_view, kKnownCount>& f, ServingRow* r,
                   const std::function<Status(const char*, const std::string&)>& bad) {
  if (f[kLayout] == "disaggregated") {
    r->layout = MeasuredLayout::kDisaggregated;
  } else if (!f[kLayout].empty() && f[kLayout] != "aggregated") {
    return bad("layout", "must be aggregated, disaggregated or empty");
  }
  for (const auto& [col, v] : std::array<std::pair<Col, int*>, 2>{
           {{kDpAttention, &r->dp_attention}, {kPrefillDpAttention, &r->prefill_dp_attention}}}) {
    const std::string t = lower(f[col]);
    if (t == "true") {
      *v = 1;
    } else if (t == "false") {
      *v = 0;
    } else if (!t.empty()) {
      return bad(kNames[col], "must be true, false or empty");
    }
  }
  r->layout_source = f[kLayoutSource];
  if (!optional_count(f[kMaxNumSeqs], &r->max_num_seqs)) return bad("max_num_seqs", "must be a whole number or empty");
  if (!optional_count(f[kMaxNumBatchedTokens], &r->max_num_batched_tokens)) {
    return bad("max_num_batched_tokens", "must be a whole number or empty");
  }
  if (!optional_count(f[kPollSteps], &r->scheduler_poll_steps)) {
    return bad("scheduler_poll_steps", "must be a whole number or empty");
  }
  if (!f[kMemoryFraction].empty() &&
      !(tsv_real(f[kMemoryFraction], &r->memory_fraction) && r->memory_fraction > 0 && r->memory_fraction <= 1)) {
    return bad("memory_fraction", "must be a fraction in (0, 1] or empty");
  }
  r->spec = lower(f[kSpec]);
  if (!r->spec.empty() && r->spec != "mtp" && r->spec != "none") return bad("spec", "must be mtp, none or empty");
  if (!optional_count(f[kSpecTokens], &r->spec_tokens)) return bad("spec_tokens", "must be a whole number or empty");
  if (f[kLengthDist] == "uniform-0.8") {
    r->length_dist = LengthDist::kUniform08;
  } else if (f[kLengthDist] == "dataset") {
    r->length_dist = LengthDist::kDataset;
  } else if (!f[kLengthDist].empty() && f[kLengthDist] != "fixed") {
    return bad("length_dist", "must be fixed, uniform-0.8, dataset or empty");
  }
  const std::array<std::pair<Col, int64_t*>, 8> pools = {
      {{kPrefillWorkers, &r->prefill.workers}, {kPrefillTp, &r->prefill.tp}, {kPrefillEp, &r->prefill.ep},
       {kPrefillGpus, &r->prefill.gpus}, {kDecodeWorkers, &r->decode.workers}, {kDecodeTp, &r->decode.tp},
       {kDecodeEp, &r->decode.ep}, {kDecodeGpus, &r->decode.gpus}}};
  for (const auto& [col, v] : pools) {
    if (!optional_size(f[col], v)) return bad(kNames[col], "must be a whole number from 0 to 2^30 or empty");
  }
  return Status::Ok();
}

Status read_split(const std::array<std::string_view, kKnownCount>& f, ServingRow* r,
                  const std::function<Status(const char*, const std::string&)>& bad) {
  if (!parse_count(f[kGpus], &r->gpus)) return bad("gpus", "must be a whole number from 1 to 2^30");
  for (const auto& [col, v] : std::array<std::pair<Col, int64_t*>, 3>{{{kTp, &r->tp}, {kPp, &r->pp}, {kEp, &r->ep}}}) {
    if (!optional_count(f[col], v)) return bad(kNames[col], "must be a whole number from 1 to 2^30 or empty");
  }
  if (r->layout == MeasuredLayout::kAggregated && r->tp > 0 && r->pp > 0 &&
      (r->tp * r->pp > r->gpus || r->gpus % (r->tp * r->pp) != 0)) {
    return bad("gpus", "must be a multiple of tp x pp (data-parallel replicas = gpus / (tp x pp))");
  }
  return Status::Ok();
}

}  // namespace

Result<ServingTable> parse_serving_table(std::string_view text, std::string_view file) {
  ServingTable out;
  bool header = false;
  std::array<size_t, kKnownCount> at{};
  size_t width = 0;
  std::map<std::string, int64_t, std::less<>> ids;
  TsvLines lines(text);
  for (std::string_view line; lines.next(&line);) {
    const int64_t line_no = lines.line_no();
    const std::string where = std::string(file) + " line " + std::to_string(line_no);
    const auto c = split_fields(line);
    if (!header) {
      MC_RETURN_IF_ERROR(read_header(c, where, &at, &out.ignored_columns));
      width = c.size();
      header = true;
      continue;
    }
    if (c.size() != width) {
      return Status::InvalidArgument(where, "expected " + std::to_string(width) +
                                                " tab-separated fields (as the header names), got " +
                                                std::to_string(c.size()));
    }
    std::array<std::string_view, kKnownCount> f{};
    for (size_t k = 0; k < kKnownCount; ++k) f[k] = at[k] == kAbsent ? std::string_view() : c[at[k]];
    const std::function<Status(const char*, const std::string&)> bad = [&](const char* col, const std::string& what) {
      return Status::InvalidArgument(where, std::string("column ") + col + " " + what);
    };
    ServingRow r;
    r.line = line_no;
    r.id = f[kId];
    if (r.id.empty()) return bad("id", "is empty");
    if (ids.count(r.id)) return bad("id", "'" + r.id + "' repeats line " + std::to_string(ids[r.id]));
    ids[r.id] = line_no;
    r.model = f[kModel], r.checkpoint = f[kCheckpoint], r.gpu = f[kGpu];
    MC_RETURN_IF_ERROR(read_layout(f, &r, bad));
    MC_RETURN_IF_ERROR(read_split(f, &r, bad));
    r.weight_dtype = f[kWeightDtype], r.kv_dtype = f[kKvDtype];
    if (!optional_count(f[kIsl], &r.isl)) return bad("isl", "must be a whole number of tokens or empty");
    if (!optional_count(f[kOsl], &r.osl)) return bad("osl", "must be a whole number of tokens or empty");
    r.load_text = f[kLoad];
    read_load(&r);
    if (r.load_value > kMaxRatePerGpu) return bad("load", "must be at most qps=1e12 or concurrency=1e12");
    r.metric_text = f[kMetric];
    read_metric(&r);
    if (!parse_positive(f[kValue], &r.value)) return bad("value", "must be a positive number");
    if (const std::string why = value_out_of_range(r); !why.empty()) return bad("value", why);
    r.engine = f[kEngine], r.engine_version = f[kEngineVersion], r.source = f[kSource], r.notes = f[kNotes];
    if (r.source.empty()) return bad("source", "is empty: every measurement cites where it comes from");
    out.rows.push_back(std::move(r));
  }
  if (!header) return Status::InvalidArgument(file, "no header line");
  return out;
}

Result<std::vector<ServingRow>> parse_serving_tsv(std::string_view text, std::string_view file) {
  MC_ASSIGN_OR_RETURN(ServingTable t, parse_serving_table(text, file));
  return std::move(t.rows);
}

std::span<const ServingRow> shared_serving_rows() {
  static const std::vector<ServingRow> rows = parse_embedded_or_die(
      "serving-measured.tsv", [](std::string_view t) { return parse_serving_tsv(t, "serving-measured.tsv"); });
  return rows;
}

std::span<const ServingRow> shared_multiengine_rows() {
  static const std::vector<ServingRow> rows = parse_embedded_or_die(
      "serving-multiengine.tsv", [](std::string_view t) { return parse_serving_tsv(t, "serving-multiengine.tsv"); });
  return rows;
}

std::span<const ServingRow> shared_published_rows() {
  static const std::vector<ServingRow> rows = [] {
    std::vector<ServingRow> all(shared_serving_rows().begin(), shared_serving_rows().end());
    all.insert(all.end(), shared_multiengine_rows().begin(), shared_multiengine_rows().end());
    return all;
  }();
  return rows;
}

}  // namespace modelcalc
