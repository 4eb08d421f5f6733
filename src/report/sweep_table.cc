#include "sweep_table.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <cstring>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "format.h"
#include "suggest.h"

namespace modelcalc {

namespace {
// A figure the row does not have: empty in text and CSV, null in JSON (non-finite cells are).
constexpr double kNoFigure = std::numeric_limits<double>::quiet_NaN();
}  // namespace

namespace {

constexpr SweepColumn kColumns[] = {
    {"model", "/model/name", Unit::kNone, true, "model name (preset, config folder, or 'custom')",
     [](const SweepRow& r) -> Cell { return std::string_view(r.model_spec->name); }},
    {"gpu", "/gpu/key", Unit::kNone, true, "GPU catalog key ('custom' for --bandwidth/--capacity/--peak)",
     [](const SweepRow& r) -> Cell { return std::string_view(r.gpu_spec->key); }},
    {"gpus", "/deployment/gpus", Unit::kNone, true, "GPUs of the split, tp x pp x dp",
     [](const SweepRow& r) -> Cell { return r.split_spec->gpus(); }},
    {"context", "/options/context", Unit::kTokens, true, "context length T, tokens",
     [](const SweepRow& r) -> Cell { return r.options.context; }},
    {"batch", "/options/batch", Unit::kSequences, true, "concurrent sequences B",
     [](const SweepRow& r) -> Cell { return r.options.batch; }},
    {"dtype", "/options/dtype", Unit::kNone, true, "weight dtype",
     [](const SweepRow& r) -> Cell { return dtype_name(r.options.weight_dtype); }},
    {"kv_dtype", "/options/kv_dtype", Unit::kNone, true, "KV-cache dtype",
     [](const SweepRow& r) -> Cell { return dtype_name(r.options.kv_dtype); }},
    {"params_total", "/params/total", Unit::kParams, true, "parameters N",
     [](const SweepRow& r) -> Cell { return r.result.total; }},
    {"params_active", "/params/active", Unit::kParams, true, "parameters active per token",
     [](const SweepRow& r) -> Cell { return r.result.active; }},
    {"weight_bytes", "/weights/bytes", Unit::kBytes, true,
     "the weights served at dtype as the checkpoint stores them (16-bit parts kept, scales included), bytes",
     [](const SweepRow& r) -> Cell { return r.weight_bytes; }},
    {"kv_bytes_per_sequence", "/kv/bytes_per_sequence", Unit::kBytes, true, "KV cache of one sequence at T, bytes",
     [](const SweepRow& r) -> Cell { return r.result.kv_per_seq; }},
    // The engine's figures (plain names, as size --json's decode_step and memory_per_gpu), then the
    // prediction's twins. The seed's whiteboard is the teaching_* columns below, with --fields.
    {"fits", "/decode_step/fits", Unit::kNone, true,
     "the deployment engine holds batch B per replica at T on the split (reserve and workspace kept back)",
     [](const SweepRow& r) -> Cell { return r.has_deployment && r.deployment.decode.fits; }},
    {"max_sequences", "/memory_per_gpu/max_sequences", Unit::kSequences, true,
     "sequences at T the engine holds per replica of the split (empty, null in JSON: the engine refuses the split)",
     [](const SweepRow& r) -> Cell {
       return r.has_deployment ? Cell(r.deployment.memory.max_sequences) : Cell(kNoFigure);
     }},
    {"step_s", "/decode_step/seconds", Unit::kSeconds, true, "the engine's decode step at batch B, seconds",
     [](const SweepRow& r) -> Cell { return r.has_deployment ? r.deployment.decode.seconds : kNoFigure; }},
    {"tokens_per_s_per_sequence", "/decode_step/tokens_per_s_per_sequence", Unit::kTokensPerS, true,
     "the engine's decode tokens/s per sequence at batch B",
     [](const SweepRow& r) -> Cell { return r.has_deployment ? r.deployment.decode.tokens_per_s_per_sequence : kNoFigure; }},
    {"tokens_per_s_aggregate", "/decode_step/tokens_per_s_aggregate", Unit::kTokensPerS, true,
     "the engine's aggregate decode tokens/s at batch B, every replica of the split",
     [](const SweepRow& r) -> Cell { return r.has_deployment ? r.deployment.decode.tokens_per_s_aggregate : kNoFigure; }},
    {"regime", "/decode_step/regime", Unit::kNone, true,
     "the engine's decode step at the row's batch: bandwidth-, compute-, capacity- (B does not fit) or "
     "communication-bound",
     [](const SweepRow& r) -> Cell {
       return r.has_deployment ? regime_name(r.deployment.decode.regime) : std::string_view("n/a");
     }},
    {"regime_at_capacity", "/roofline/regime", Unit::kNone, true,
     "the engine's serving regime at the largest batch HBM holds: capacity-bound (HBM stops batching first, or "
     "the weights do not fit), compute-bound or communication-bound",
     [](const SweepRow& r) -> Cell {
       return r.has_deployment ? regime_name(r.serving_regime) : std::string_view("n/a");
     }},
    {"predicted_fits", "/decode_step/predicted/fits", Unit::kNone, true,
     "the engine profile admits batch B at T per replica of the row's split",
     [](const SweepRow& r) -> Cell { return r.has_prediction && r.prediction.fits; }},
    {"predicted_max_sequences", "/memory_per_gpu/predicted/max_sequences", Unit::kSequences, true,
     "sequences at T the engine profile admits per replica of the row's split (its KV cache in whole blocks; "
     "empty, null in JSON: no prediction)",
     [](const SweepRow& r) -> Cell {
       return r.has_prediction ? Cell(r.prediction.max_sequences) : Cell(kNoFigure);
     }},
    {"predicted_step_s", "/decode_step/predicted/seconds", Unit::kSeconds, true,
     "the engine profile's predicted decode step at batch B, seconds (empty, null in JSON: no prediction)",
     [](const SweepRow& r) -> Cell { return r.has_prediction ? r.prediction.step.seconds : kNoFigure; }},
    {"predicted_tokens_per_s_per_sequence", "/decode_step/predicted/tokens_per_s_per_sequence", Unit::kTokensPerS,
     true, "the engine profile's predicted decode tokens/s per sequence at batch B (empty, null in JSON: no "
           "prediction, as on a GPU no engine profile runs on)",
     [](const SweepRow& r) -> Cell { return r.has_prediction ? r.prediction.tokens_per_s_per_sequence : kNoFigure; }},
    {"predicted_tokens_per_s_aggregate", "/decode_step/predicted/tokens_per_s_aggregate", Unit::kTokensPerS, true,
     "the engine profile's predicted aggregate decode tokens/s at batch B (empty, null in JSON: no prediction)",
     [](const SweepRow& r) -> Cell { return r.has_prediction ? r.prediction.tokens_per_s_aggregate : kNoFigure; }},
    // Not shown by default.
    {"tp", "/deployment/tp", Unit::kNone, false, "tensor-parallel degree",
     [](const SweepRow& r) -> Cell { return r.split_spec->tp; }},
    {"pp", "/deployment/pp", Unit::kNone, false, "pipeline stages",
     [](const SweepRow& r) -> Cell { return r.split_spec->pp; }},
    {"ep", "/deployment/ep", Unit::kNone, false, "expert-parallel degree (inside the TP group)",
     [](const SweepRow& r) -> Cell { return r.split_spec->ep; }},
    {"dp", "/deployment/dp", Unit::kNone, false, "data-parallel replicas",
     [](const SweepRow& r) -> Cell { return r.split_spec->dp; }},
    {"layout", "/deployment/layout", Unit::kNone, false,
     "tensor-parallel, or dp-attention (--dp-attention: gpus / tp attention groups, experts over ep)",
     [](const SweepRow& r) -> Cell {
       return std::string_view(r.split_spec->dp_attention ? "dp-attention" : "tensor-parallel");
     }},
    {"intensity", "/decode_step/intensity", Unit::kFlopPerByte, false,
     "the engine's decode-step arithmetic intensity, FLOP/byte",
     [](const SweepRow& r) -> Cell { return r.has_deployment ? r.deployment.decode.intensity : kNoFigure; }},
    {"a2a_s", "/decode_step/a2a_seconds", Unit::kSeconds, false,
     "all-to-all dispatch + combine of one decode step, every MoE layer (DP attention)",
     [](const SweepRow& r) -> Cell { return r.has_deployment ? r.deployment.decode.a2a_seconds : kNoFigure; }},
    {"accepted_tokens_per_step", "/decode_step/accepted_tokens_per_step", Unit::kNone, false,
     "tokens one step yields per sequence (speculative decoding; 1 without)",
     [](const SweepRow& r) -> Cell { return r.has_deployment ? r.deployment.decode.accepted_tokens_per_step : 1.0; }},
    {"params_blocks", "/params/blocks", Unit::kParams, false, "parameters in the transformer blocks",
     [](const SweepRow& r) -> Cell { return r.result.blocks; }},
    {"kv_bytes_per_token", "/kv/bytes_per_token", Unit::kBytes, false, "KV cache per token per sequence, bytes",
     [](const SweepRow& r) -> Cell { return r.result.kv_per_token; }},
    {"decode_flops_per_token", "/flops/decode_per_token", Unit::kFlop, false, "decode FLOPs per token at T",
     [](const SweepRow& r) -> Cell { return r.result.decode_per_token; }},
    {"prefill_flops", "/flops/prefill_total", Unit::kFlop, false, "prefill FLOPs for a T-token prompt",
     [](const SweepRow& r) -> Cell { return r.result.prefill_total; }},
    {"attention_fraction", "/flops/attention_fraction", Unit::kFraction, false, "attention share of prefill FLOPs",
     [](const SweepRow& r) -> Cell { return r.result.attention_fraction; }},
    {"ridge", "/roofline/ridge", Unit::kFlopPerByte, false, "GPU ridge point, FLOP/byte (dense bf16)",
     [](const SweepRow& r) -> Cell { return r.result.ridge; }},
    // One GPU's (size --json's gpu section is the split's pool: gpus x these).
    {"gpu_capacity_bytes", "", Unit::kBytes, false, "one GPU's memory capacity, bytes (the catalog's)",
     [](const SweepRow& r) -> Cell { return r.gpu_spec->capacity_bytes; }},
    {"gpu_bandwidth_bytes_per_s", "", Unit::kBytesPerS, false, "one GPU's memory bandwidth, bytes/s", [](const SweepRow& r) -> Cell { return r.gpu_spec->bandwidth_bytes_per_s; }},
    // The seed's whiteboard (the teaching view): the split's GPUs pooled into one, no reserve, no workspace,
    // weights and KV read once a step. size --json keeps these under decode, weights and roofline.
    {"teaching_weight_bytes", "/weights/teaching_bytes", Unit::kBytes, false,
     "teaching view: every parameter at dtype, bytes",
     [](const SweepRow& r) -> Cell { return r.result.weight_bytes; }},
    {"teaching_fits", "/weights/fits", Unit::kNone, false, "teaching view: the weights fit the split's GPUs pooled",
     [](const SweepRow& r) -> Cell { return r.result.fits; }},
    {"teaching_tokens_per_s_weights_only", "/decode/tokens_per_s_weights_only", Unit::kTokensPerS, false,
     "teaching view: single-stream decode ceiling, weights only: bw / W",
     [](const SweepRow& r) -> Cell { return r.result.tokens_per_s_weights_only; }},
    {"teaching_tokens_per_s_with_kv", "/decode/tokens_per_s_with_kv", Unit::kTokensPerS, false,
     "teaching view: single-stream decode ceiling with KV at T: bw / (W + KV)",
     [](const SweepRow& r) -> Cell { return r.result.tokens_per_s_with_kv; }},
    {"teaching_tokens_per_s_aggregate", "/decode/tokens_per_s_aggregate", Unit::kTokensPerS, false,
     "teaching view: aggregate decode ceiling at batch B: B bw / (W + B KV)",
     [](const SweepRow& r) -> Cell { return r.result.tokens_per_s_aggregate; }},
    {"teaching_max_batch_by_capacity", "/roofline/max_batch_by_capacity", Unit::kSequences, false,
     "teaching view: sequences at T whose KV fits beside the weights",
     [](const SweepRow& r) -> Cell { return r.result.max_batch_by_capacity; }},
    {"teaching_kv_room_bytes", "/weights/kv_room_bytes", Unit::kBytes, false,
     "teaching view: capacity minus weights, bytes",
     [](const SweepRow& r) -> Cell {
       if (r.result.kv_room_bytes < 0) return Shortfall{-r.result.kv_room_bytes};  // as size's line
       return r.result.kv_room_bytes;
     }},
    {"teaching_step_bytes", "/decode/step_bytes", Unit::kBytes, false,
     "teaching view: bytes one decode step reads at batch B",
     [](const SweepRow& r) -> Cell { return r.result.step_bytes_aggregate; }},
    {"teaching_compute_bound_batch", "/roofline/compute_bound_batch", Unit::kSequences, false,
     "teaching view: batch at which decode turns compute-bound (d x d projection)",
     [](const SweepRow& r) -> Cell { return r.result.compute_bound_batch; }},
};

// The columns whose value can change when only the batch does: every other
// column is a function of (model, GPU, seq, dtype, KV dtype). A test checks
// this list against the engine (sweep_stream_test.cc).
constexpr std::string_view kVaryWithBatch[] = {
    "batch",          "fits",           "step_s",        "tokens_per_s_per_sequence", "tokens_per_s_aggregate",
    "regime",         "intensity",      "a2a_s",         "predicted_fits",            "predicted_step_s",
    "predicted_tokens_per_s_per_sequence", "predicted_tokens_per_s_aggregate", "teaching_tokens_per_s_aggregate",
    "teaching_step_bytes",
};

std::string trim_right(std::string s) {
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

}  // namespace

// Human units, as text and Markdown show them (shared with sweep_writer.cc).
std::string sweep_human(const Cell& c, Unit u) {
  if (const auto* s = std::get_if<std::string_view>(&c)) return std::string(*s);
  if (const auto* b = std::get_if<bool>(&c)) return std::string(*b ? std::string_view("yes") : std::string_view("no"));
  if (const auto* s = std::get_if<Shortfall>(&c)) return does_not_fit(s->bytes);
  const double v = std::holds_alternative<int64_t>(c) ? dbl(std::get<int64_t>(c)) : std::get<double>(c);
  switch (u) {
    case Unit::kParams: {
      static const std::string kNoUnit;  // fmt_si takes the unit as a string: not one built per cell
      return trim_right(fmt_si(v, kNoUnit));
    }
    case Unit::kBytes:
    case Unit::kBytesPerS:
    case Unit::kFraction: return format_quantity(v, u);
    case Unit::kTokensPerS: return fmt_fixed(v, 1);
    case Unit::kFlop: return fmt_sig(v);
    case Unit::kSeconds: return std::isfinite(v) ? format_quantity(v, u) : std::string();
    default: break;
  }
  if (const auto* i = std::get_if<int64_t>(&c)) return group_digits(*i);
  return fmt_sig(v);
}

namespace {

// Base units, full precision: what csv prints. Non-finite reals and shortfalls are empty.
std::string base(const Cell& c) {
  if (const auto* s = std::get_if<std::string_view>(&c)) return std::string(*s);
  if (std::holds_alternative<Shortfall>(c)) return "";
  if (const auto* b = std::get_if<bool>(&c)) return *b ? "true" : "false";
  if (const auto* i = std::get_if<int64_t>(&c)) return std::to_string(*i);
  const double v = std::get<double>(c);
  return std::isfinite(v) ? fmt::format("{}", v) : "";
}

nlohmann::ordered_json to_json(const Cell& c) {
  if (const auto* s = std::get_if<std::string_view>(&c)) return std::string(*s);
  if (std::holds_alternative<Shortfall>(c)) return nullptr;  // as size --json: no figure is null
  if (const auto* b = std::get_if<bool>(&c)) return *b;
  if (const auto* i = std::get_if<int64_t>(&c)) return *i;
  const double v = std::get<double>(c);
  return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json();  // as size --json: non-finite is null
}

// Keys in column order.
nlohmann::ordered_json row_object(const SweepTable& t, size_t r) {
  nlohmann::ordered_json o = nlohmann::ordered_json::object();
  for (size_t c = 0; c < t.columns.size(); ++c) o[std::string(t.columns[c]->name)] = to_json(t.at(r, c));
  return o;
}

// Text columns (names, dtypes, verdicts) align left, numbers right.
bool left_aligned(const SweepTable& t, size_t c) {
  if (t.rows() == 0) return t.columns[c]->unit == Unit::kNone;
  const Cell& first = t.at(0, c);
  return std::holds_alternative<std::string_view>(first) || std::holds_alternative<bool>(first);
}

// Display width in code points (UTF-8 continuation bytes do not count).
size_t width(std::string_view s) {
  return static_cast<size_t>(std::count_if(s.begin(), s.end(), [](char ch) { return (ch & 0xC0) != 0x80; }));
}

std::vector<std::vector<std::string>> human_rows(const SweepTable& t) {
  std::vector<std::vector<std::string>> rows(t.rows());
  for (size_t r = 0; r < t.rows(); ++r) {
    rows[r].reserve(t.columns.size());
    for (size_t c = 0; c < t.columns.size(); ++c) rows[r].push_back(sweep_human(t.at(r, c), t.columns[c]->unit));
  }
  return rows;
}

std::string pad(const std::string& s, size_t w, bool left) {
  const std::string fill(w > width(s) ? w - width(s) : 0, ' ');
  return left ? s + fill : fill + s;
}

void print_text(const SweepTable& t, std::ostream& out) {
  const auto rows = human_rows(t);
  std::vector<size_t> w(t.columns.size());
  for (size_t c = 0; c < t.columns.size(); ++c) {
    w[c] = t.columns[c]->name.size();
    for (const auto& row : rows) w[c] = std::max(w[c], width(row[c]));
  }
  auto line = [&](auto cell) {
    std::string s;
    for (size_t c = 0; c < t.columns.size(); ++c) {
      if (c > 0) s += "  ";
      s += pad(cell(c), w[c], left_aligned(t, c));
    }
    out << trim_right(std::move(s)) << "\n";
  };
  line([&](size_t c) { return std::string(t.columns[c]->name); });
  for (const auto& row : rows) line([&](size_t c) { return row[c]; });
}

void print_csv(const SweepTable& t, std::ostream& out) {
  for (size_t c = 0; c < t.columns.size(); ++c) out << (c ? "," : "") << csv_field(t.columns[c]->name);
  out << "\n";
  for (size_t r = 0; r < t.rows(); ++r) {
    for (size_t c = 0; c < t.columns.size(); ++c) out << (c ? "," : "") << csv_field(base(t.at(r, c)));
    out << "\n";
  }
}

}  // namespace

// A Markdown table cell (shared with sweep_writer.cc).
std::string sweep_md_cell(const std::string& s) {
  std::string o;
  for (char ch : s) {
    if (ch == '|') o += '\\';
    o += ch == '\n' ? ' ' : ch;
  }
  return o;
}

namespace {

void print_md(const SweepTable& t, std::ostream& out) {
  const auto rows = human_rows(t);
  out << "|";
  for (const SweepColumn* col : t.columns) out << " " << col->name << " |";
  out << "\n|";
  for (size_t c = 0; c < t.columns.size(); ++c) out << (left_aligned(t, c) ? " --- |" : " ---: |");
  out << "\n";
  for (const auto& row : rows) {
    out << "|";
    for (const std::string& cell : row) out << " " << sweep_md_cell(cell) << " |";
    out << "\n";
  }
}

void print_json(const SweepTable& t, std::ostream& out) {
  if (t.rows() == 0) {
    out << "[]\n";
    return;
  }
  out << "[\n";
  for (size_t r = 0; r < t.rows(); ++r) out << "  " << row_object(t, r).dump() << (r + 1 < t.rows() ? ",\n" : "\n");
  out << "]\n";
}

void print_jsonl(const SweepTable& t, std::ostream& out) {
  for (size_t r = 0; r < t.rows(); ++r) out << row_object(t, r).dump() << "\n";
}

constexpr SweepFormat kFormats[] = {
    {"text", print_text}, {"csv", print_csv}, {"md", print_md}, {"json", print_json}, {"jsonl", print_jsonl},
};

}  // namespace

std::span<const SweepColumn> sweep_columns() { return kColumns; }

bool column_varies_with_batch(const SweepColumn& c) {
  return std::find(std::begin(kVaryWithBatch), std::end(kVaryWithBatch), c.name) != std::end(kVaryWithBatch);
}

bool column_reads_prediction(const SweepColumn& c) { return c.size_key.find("/predicted/") != std::string_view::npos; }

bool columns_read_prediction(const std::vector<const SweepColumn*>& cols) {
  return std::any_of(cols.begin(), cols.end(), [](const SweepColumn* c) { return column_reads_prediction(*c); });
}

Status check_profile_is_read(const std::vector<const SweepColumn*>& cols, bool has_profile) {
  if (!has_profile || columns_read_prediction(cols)) return Status::Ok();
  std::string names;
  for (const SweepColumn& c : sweep_columns()) {
    if (column_reads_prediction(c)) names += (names.empty() ? "" : ", ") + std::string(c.name);
  }
  return Status::InvalidArgument("profile", "changes only the predicted columns, and --fields names none of them: "
                                            "add one (" + names + ") or leave the profile out");
}

Result<std::vector<const SweepColumn*>> parse_fields(std::string_view text) {
  std::vector<const SweepColumn*> out;
  if (text.empty()) {
    for (const SweepColumn& c : kColumns) {
      if (c.by_default) out.push_back(&c);
    }
    return out;
  }
  std::vector<std::string> names;
  for (const SweepColumn& c : kColumns) names.emplace_back(c.name);
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    const std::string_view name = text.substr(start, comma == std::string_view::npos ? text.npos : comma - start);
    if (name.empty()) {
      return Status::InvalidArgument("--fields", "empty name in '" + std::string(text) +
                                                     "'; give comma-separated column names (--fields help lists them)");
    }
    const auto it = std::find_if(std::begin(kColumns), std::end(kColumns),
                                 [&](const SweepColumn& c) { return c.name == name; });
    if (it == std::end(kColumns)) {
      return Status::InvalidArgument("--fields", "unknown column '" + std::string(name) + "'" +
                                                     did_you_mean(name, names) + " (--fields help lists them)");
    }
    if (std::find(out.begin(), out.end(), &*it) != out.end()) {  // JSON would get the key twice
      return Status::InvalidArgument("--fields", "names the column '" + std::string(name) + "' twice");
    }
    out.push_back(&*it);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

std::string fields_help() {
  std::string s = "Columns (* = shown by default; --fields a,b,c picks and orders them):\n";
  for (const SweepColumn& c : kColumns) {
    s += fmt::format("  {:<26} {} {}\n", c.name, c.by_default ? "*" : " ", c.help);
  }
  return s;
}

void SweepTable::add(const SweepRow& row) {
  for (const SweepColumn* c : columns) cells.push_back(c->get(row));
}

std::span<const SweepFormat> sweep_formats() { return kFormats; }

Result<SweepPrinter> find_sweep_format(std::string_view name) {
  std::string names;
  for (const SweepFormat& f : kFormats) {
    if (f.name == name) return f.print;
    names += (names.empty() ? "" : ", ") + std::string(f.name);
  }
  return Status::InvalidArgument("--format", "unknown format '" + std::string(name) + "'; use one of " + names);
}

std::string csv_field(std::string_view s) {
  if (s.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(s);
  std::string o = "\"";
  for (char ch : s) {
    if (ch == '"') o += '"';
    o += ch;
  }
  return o + "\"";
}

}  // namespace modelcalc
