#include "modelcalc/calibrate.h"

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <system_error>

#include "embedded_data.h"
#include "modelcalc/deployment.h"
#include "modelcalc/dtype.h"
#include "modelcalc/gpu.h"
#include "modelcalc/hf_config.h"

namespace modelcalc {

namespace {

constexpr int kCols = 22;

std::vector<std::string_view> split_tabs(std::string_view s) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    const size_t pos = s.find('\t', start);
    out.push_back(s.substr(start, pos == std::string_view::npos ? std::string_view::npos : pos - start));
    if (pos == std::string_view::npos) break;
    start = pos + 1;
  }
  return out;
}

bool to_double(std::string_view t, double* v) {
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), *v);
  return ec == std::errc() && p == t.data() + t.size() && *v > 0;
}

bool to_count(std::string_view t, int64_t* v) {
  if (t == "-") {
    *v = 0;
    return true;
  }
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), *v);
  return ec == std::errc() && p == t.data() + t.size() && *v > 0 && *v <= (int64_t{1} << 30);
}

}  // namespace

Result<std::vector<MeasuredRow>> parse_measured(std::string_view tsv) {
  std::vector<MeasuredRow> out;
  bool header = false;
  size_t line_no = 0;
  while (!tsv.empty()) {
    const size_t nl = tsv.find('\n');
    std::string_view line = tsv.substr(0, nl);
    tsv.remove_prefix(nl == std::string_view::npos ? tsv.size() : nl + 1);
    ++line_no;
    if (line.empty() || line.front() == '#') continue;
    const std::string where = "measured.tsv line " + std::to_string(line_no);
    const auto c = split_tabs(line);
    if (c.size() != kCols) return Status::InvalidArgument(where, "expected 22 tab-separated columns");
    if (!header) {
      if (c[0] != "model" || c[9] != "measured_value" || c[14] != "mc_gpu" || c[18] != "mc_mode") {
        return Status::InvalidArgument(where, "header does not match the measured.tsv format");
      }
      header = true;
      continue;
    }
    MeasuredRow r;
    r.model = c[0], r.gpu = c[1], r.gpu_count = c[2], r.parallelism = c[3], r.weight_dtype = c[4];
    r.batch = c[5], r.input_len = c[6], r.output_len = c[7], r.metric = c[8];
    if (!to_double(c[9], &r.measured)) return Status::InvalidArgument(where, "measured_value is not a positive number");
    r.engine = c[10], r.source = c[11], r.notes = c[12];
    if (r.source.empty()) return Status::InvalidArgument(where, "source is empty");
    r.mc_model = c[13], r.mc_gpu = c[14];
    if (!to_count(c[15], &r.mc_tp)) return Status::InvalidArgument(where, "mc_tp is not a count");
    r.mc_weight_dtype = c[16], r.mc_kv_dtype = c[17], r.mc_mode = c[18];
    if (!to_count(c[19], &r.mc_isl) || !to_count(c[20], &r.mc_osl)) {
      return Status::InvalidArgument(where, "mc_isl / mc_osl must be counts or '-'");
    }
    r.mc_note = c[21];
    if (r.mc_mode != "throughput" && r.mc_mode != "batch1" && r.mc_mode != "skip") {
      return Status::InvalidArgument(where, "mc_mode must be throughput, batch1 or skip");
    }
    if (r.mc_mode == "skip" && r.mc_note.empty()) return Status::InvalidArgument(where, "a skipped row says why");
    if (r.mc_mode != "skip" && (r.mc_isl == 0 || r.mc_osl == 0 || r.mc_tp == 0)) {
      return Status::InvalidArgument(where, "an evaluated row needs mc_tp, mc_isl and mc_osl");
    }
    out.push_back(std::move(r));
  }
  if (!header) return Status::InvalidArgument("measured.tsv", "no header line");
  return out;
}

std::span<const MeasuredRow> measured_catalog() {
  static const std::vector<MeasuredRow> rows = parse_embedded_or_die("measured.tsv", parse_measured);
  return rows;
}

std::vector<CalibrationRow> calibrate() {
  std::vector<CalibrationRow> out;
  for (const MeasuredRow& r : measured_catalog()) {
    CalibrationRow c;
    c.row = &r;
    if (r.mc_mode == "skip") {
      c.explanation = "not evaluated: " + r.mc_note;
      out.push_back(std::move(c));
      continue;
    }
    auto fail = [&](const std::string& why) {
      c.explanation = "not evaluated: " + why;
      out.push_back(c);
    };
    auto m = find_preset(r.mc_model);
    if (!m.ok()) { fail(m.status().message()); continue; }
    auto g = find_gpu(r.mc_gpu);
    if (!g.ok()) { fail(g.status().message()); continue; }
    auto wd = parse_dtype(r.mc_weight_dtype, "mc_weight_dtype");
    auto kd = parse_dtype(r.mc_kv_dtype, "mc_kv_dtype");
    if (!wd.ok() || !kd.ok()) { fail("unknown dtype"); continue; }
    DeploymentOptions o;
    o.split.tp = r.mc_tp;
    o.weight_dtype = *wd;
    o.kv_dtype = *kd;
    c.context = r.mc_isl + r.mc_osl / 2;
    o.context = c.context;
    o.prompt_tokens = r.mc_isl;
    auto d = prepare_deployment(*m, *g, o);
    if (!d.ok()) { fail(d.status().message()); continue; }
    const DeploymentResult one = evaluate_deployment(*d, 1, c.context, r.mc_isl);
    if (r.mc_mode == "batch1") {
      c.batch = 1;
      c.ceiling = one.decode.tokens_per_s_per_sequence;
    } else {
      c.batch = one.memory.max_sequences;
      if (c.batch < 1) { fail("the weights do not fit"); continue; }
      c.ceiling = evaluate_deployment(*d, c.batch, c.context, r.mc_isl).decode.tokens_per_s_aggregate;
    }
    c.evaluated = true;
    c.ratio = r.measured / c.ceiling;
    if (c.ratio > 1) {
      c.explanation = "OVER THE CEILING: the setup is misread or the model is wrong. " + r.mc_note;
    } else {
      c.explanation = r.mc_note;
    }
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace modelcalc
