#include "sweep_table.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "format.h"
#include "suggest.h"

namespace modelcalc {

namespace {

constexpr SweepColumn kColumns[] = {
    {"model", "/model/name", Unit::kNone, true, "model name (preset, config folder, or 'custom')",
     [](const SweepRow& r) -> Cell { return std::string_view(r.model_spec->name); }},
    {"gpu", "/gpu/key", Unit::kNone, true, "GPU catalog key ('custom' for --bandwidth/--capacity/--peak)",
     [](const SweepRow& r) -> Cell { return std::string_view(r.gpu_spec->key); }},
    {"seq", "/options/seq", Unit::kTokens, true, "context length T, tokens",
     [](const SweepRow& r) -> Cell { return r.options.seq; }},
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
    {"weight_bytes", "/weights/bytes", Unit::kBytes, true, "weights in dtype, bytes",
     [](const SweepRow& r) -> Cell { return r.result.weight_bytes; }},
    {"kv_bytes_per_sequence", "/kv/bytes_per_sequence", Unit::kBytes, true, "KV cache of one sequence at T, bytes",
     [](const SweepRow& r) -> Cell { return r.result.kv_per_seq; }},
    {"fits", "/weights/fits", Unit::kNone, true, "weights fit one GPU",
     [](const SweepRow& r) -> Cell { return r.result.fits; }},
    {"tokens_per_s_weights_only", "/decode/tokens_per_s_weights_only", Unit::kTokensPerS, true,
     "single-stream decode ceiling, weights only: bw / W",
     [](const SweepRow& r) -> Cell { return r.result.tps_weights_only; }},
    {"tokens_per_s_with_kv", "/decode/tokens_per_s_with_kv", Unit::kTokensPerS, true,
     "single-stream decode ceiling with KV at T: bw / (W + KV)",
     [](const SweepRow& r) -> Cell { return r.result.tps_with_kv; }},
    {"tokens_per_s_aggregate", "/decode/tokens_per_s_aggregate", Unit::kTokensPerS, true,
     "aggregate decode ceiling at batch B: B bw / (W + B KV)",
     [](const SweepRow& r) -> Cell { return r.result.tps_aggregate; }},
    {"max_batch_by_capacity", "/roofline/max_batch_by_capacity", Unit::kSequences, true,
     "sequences at T whose KV fits beside the weights",
     [](const SweepRow& r) -> Cell { return r.result.max_batch_by_capacity; }},
    {"regime", "", Unit::kNone, true, "weights_do_not_fit, capacity_bound or compute_reachable",
     [](const SweepRow& r) -> Cell { return regime_name(r.result.regime); }},
    {"batch_fits", "/decode_step/fits", Unit::kNone, true,
     "the deployment engine can hold batch B at T on one GPU (reserve and workspace kept back)",
     [](const SweepRow& r) -> Cell { return r.has_deployment && r.deployment.decode.fits; }},
    {"modeled_regime", "/decode_step/regime", Unit::kNone, true,
     "the engine's decode-step regime: bandwidth-, compute-, capacity- or communication-bound",
     [](const SweepRow& r) -> Cell {
       return r.has_deployment ? regime_name(r.deployment.decode.regime) : std::string_view("n/a");
     }},
    {"modeled_max_sequences", "/memory_per_gpu/max_sequences", Unit::kSequences, false,
     "sequences at T the engine holds on one GPU",
     [](const SweepRow& r) -> Cell { return r.has_deployment ? r.deployment.memory.max_sequences : int64_t{0}; }},
    {"modeled_tokens_per_s_per_sequence", "/decode_step/tokens_per_s_per_sequence", Unit::kTokensPerS, false,
     "the engine's decode tokens/s per sequence at batch B",
     [](const SweepRow& r) -> Cell { return r.has_deployment ? r.deployment.decode.tokens_per_s_per_sequence : 0.0; }},
    {"modeled_tokens_per_s_aggregate", "/decode_step/tokens_per_s_aggregate", Unit::kTokensPerS, false,
     "the engine's aggregate decode tokens/s at batch B",
     [](const SweepRow& r) -> Cell { return r.has_deployment ? r.deployment.decode.tokens_per_s_aggregate : 0.0; }},
    {"modeled_intensity", "/decode_step/intensity", Unit::kFlopPerByte, false,
     "the engine's decode-step arithmetic intensity, FLOP/byte",
     [](const SweepRow& r) -> Cell { return r.has_deployment ? r.deployment.decode.intensity : 0.0; }},
    {"predicted_max_sequences", "/memory_per_gpu/predicted/max_sequences", Unit::kSequences, false,
     "sequences at T the engine profile admits on one GPU (its KV cache in whole blocks)",
     [](const SweepRow& r) -> Cell { return r.has_prediction ? r.prediction.max_sequences : int64_t{0}; }},
    {"predicted_batch_fits", "/decode_step/predicted/fits", Unit::kNone, false,
     "the engine profile admits batch B at T on one GPU",
     [](const SweepRow& r) -> Cell { return r.has_prediction && r.prediction.fits; }},
    {"predicted_tokens_per_s_per_sequence", "/decode_step/predicted/tokens_per_s_per_sequence", Unit::kTokensPerS,
     false, "the engine profile's predicted decode tokens/s per sequence at batch B",
     [](const SweepRow& r) -> Cell { return r.has_prediction ? r.prediction.tokens_per_s_per_sequence : 0.0; }},
    {"predicted_tokens_per_s_aggregate", "/decode_step/predicted/tokens_per_s_aggregate", Unit::kTokensPerS, false,
     "the engine profile's predicted aggregate decode tokens/s at batch B",
     [](const SweepRow& r) -> Cell { return r.has_prediction ? r.prediction.tokens_per_s_aggregate : 0.0; }},
    // Not shown by default.
    {"params_blocks", "/params/blocks", Unit::kParams, false, "parameters in the transformer blocks",
     [](const SweepRow& r) -> Cell { return r.result.blocks; }},
    {"kv_bytes_per_token", "/kv/bytes_per_token", Unit::kBytes, false, "KV cache per token per sequence, bytes",
     [](const SweepRow& r) -> Cell { return r.result.kv_per_token; }},
    {"kv_room_bytes", "/weights/kv_room_bytes", Unit::kBytes, false, "capacity minus weights, bytes",
     [](const SweepRow& r) -> Cell { return r.result.kv_room_bytes; }},
    {"step_bytes", "/decode/step_bytes", Unit::kBytes, false, "bytes one decode step reads at batch B",
     [](const SweepRow& r) -> Cell { return r.result.step_bytes_aggregate; }},
    {"decode_flops_per_token", "/flops/decode_per_token", Unit::kFlop, false, "decode FLOPs per token at T",
     [](const SweepRow& r) -> Cell { return r.result.decode_per_token; }},
    {"prefill_flops", "/flops/prefill_total", Unit::kFlop, false, "prefill FLOPs for a T-token prompt",
     [](const SweepRow& r) -> Cell { return r.result.prefill_total; }},
    {"attention_fraction", "/flops/attention_fraction", Unit::kFraction, false, "attention share of prefill FLOPs",
     [](const SweepRow& r) -> Cell { return r.result.attention_fraction; }},
    {"ridge", "/roofline/ridge", Unit::kFlopPerByte, false, "GPU ridge point, FLOP/byte (dense bf16)",
     [](const SweepRow& r) -> Cell { return r.result.ridge; }},
    {"compute_bound_batch", "/roofline/compute_bound_batch", Unit::kSequences, false,
     "batch at which decode turns compute-bound (d x d projection)",
     [](const SweepRow& r) -> Cell { return r.result.compute_bound_batch; }},
    {"gpu_capacity_bytes", "/gpu/capacity_bytes", Unit::kBytes, false, "GPU memory capacity, bytes",
     [](const SweepRow& r) -> Cell { return r.gpu_spec->capacity_bytes; }},
    {"gpu_bandwidth_bytes_per_s", "/gpu/bandwidth_bytes_per_s", Unit::kBytesPerS, false,
     "GPU memory bandwidth, bytes/s", [](const SweepRow& r) -> Cell { return r.gpu_spec->bandwidth_bytes_per_s; }},
};

// The columns whose value can change when only the batch does: every other
// column is a function of (model, GPU, seq, dtype, KV dtype). A test checks
// this list against the engine (sweep_stream_test.cc).
constexpr std::string_view kVaryWithBatch[] = {
    "batch",          "tokens_per_s_aggregate",            "batch_fits",
    "modeled_regime", "modeled_tokens_per_s_per_sequence", "modeled_tokens_per_s_aggregate",
    "modeled_intensity", "step_bytes", "predicted_batch_fits", "predicted_tokens_per_s_per_sequence",
    "predicted_tokens_per_s_aggregate",
};

std::string trim_right(std::string s) {
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

// Human units, as text and Markdown show them.
std::string human(const Cell& c, Unit u) {
  if (const auto* s = std::get_if<std::string_view>(&c)) return std::string(*s);
  if (const auto* b = std::get_if<bool>(&c)) return std::string(*b ? std::string_view("yes") : std::string_view("no"));
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
    default: break;
  }
  if (const auto* i = std::get_if<int64_t>(&c)) return group_digits(*i);
  return fmt_sig(v);
}

// Base units, full precision: what csv prints. Non-finite reals are empty.
std::string base(const Cell& c) {
  if (const auto* s = std::get_if<std::string_view>(&c)) return std::string(*s);
  if (const auto* b = std::get_if<bool>(&c)) return *b ? "true" : "false";
  if (const auto* i = std::get_if<int64_t>(&c)) return std::to_string(*i);
  const double v = std::get<double>(c);
  return std::isfinite(v) ? fmt::format("{}", v) : "";
}

nlohmann::ordered_json to_json(const Cell& c) {
  if (const auto* s = std::get_if<std::string_view>(&c)) return std::string(*s);
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
    for (size_t c = 0; c < t.columns.size(); ++c) rows[r].push_back(human(t.at(r, c), t.columns[c]->unit));
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

std::string md_cell(const std::string& s) {
  std::string o;
  for (char ch : s) {
    if (ch == '|') o += '\\';
    o += ch == '\n' ? ' ' : ch;
  }
  return o;
}

void print_md(const SweepTable& t, std::ostream& out) {
  const auto rows = human_rows(t);
  out << "|";
  for (const SweepColumn* col : t.columns) out << " " << col->name << " |";
  out << "\n|";
  for (size_t c = 0; c < t.columns.size(); ++c) out << (left_aligned(t, c) ? " --- |" : " ---: |");
  out << "\n";
  for (const auto& row : rows) {
    out << "|";
    for (const std::string& cell : row) out << " " << md_cell(cell) << " |";
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

namespace {

// The output buffer of a streaming writer: a fixed array written with
// memcpy, flushed to the stream when a row leaves less than kRowRoom free.
class Sink {
 public:
  explicit Sink(std::ostream& out) : out_(out), buf_(new char[kSize]) {}
  // Inline fast path (a row makes ~8 calls); the full-buffer case is out of line.
  [[gnu::always_inline]] void put(std::string_view s) {
    if (s.size() > cap_ - len_) [[unlikely]] {
      put_slow(s);
      return;
    }
    copy(buf_.get() + len_, s.data(), s.size());
    len_ += s.size();
  }
  [[gnu::always_inline]] void put(char c) {
    if (len_ == cap_) [[unlikely]] flush();
    buf_[len_++] = c;
  }
  // Room for `n` bytes written in place (a row longer than the buffer grows
  // it); commit(end) takes what was written.
  [[gnu::always_inline]] char* reserve(size_t n) {
    if (n > cap_ - len_) [[unlikely]] make_room(n);
    return buf_.get() + len_;
  }
  [[gnu::always_inline]] void commit(const char* end) { len_ = static_cast<size_t>(end - buf_.get()); }
  void put_csv_string(std::string_view s) {
    bool plain = true;
    for (char ch : s) plain = plain && ch != ',' && ch != '"' && ch != '\r' && ch != '\n';
    if (plain) {
      put(s);
    } else {
      put(csv_field(s));
    }
  }
  // After each row: the first row goes out at once, then whole buffers.
  void row_done() {
    if (first_ || len_ > kSize - kRowRoom) {
      flush();
      first_ = false;
    }
  }
  [[gnu::noinline]] void flush() {
    out_.write(buf_.get(), static_cast<std::streamsize>(len_));
    out_.flush();
    len_ = 0;
  }

 private:
  [[gnu::noinline]] void make_room(size_t n) {
    flush();
    if (n > cap_) {
      buf_.reset(new char[n]);
      cap_ = n;
    }
  }
  [[gnu::noinline]] void put_slow(std::string_view s) {
    flush();
    if (s.size() > cap_) {  // longer than the buffer: straight through
      out_.write(s.data(), static_cast<std::streamsize>(s.size()));
      return;
    }
    copy(buf_.get() + len_, s.data(), s.size());
    len_ += s.size();
  }
  // memcpy for the short pieces a row is made of (a cell is rarely over 32
  // bytes), inline: two overlapping fixed-size copies instead of a call.
  [[gnu::always_inline]] static void copy(char* dst, const char* src, size_t n) {
    if (n >= 8 && n <= 16) {
      char a[8], b[8];
      std::memcpy(a, src, 8);
      std::memcpy(b, src + n - 8, 8);
      std::memcpy(dst, a, 8);
      std::memcpy(dst + n - 8, b, 8);
    } else if (n > 16 && n <= 32) {
      char a[16], b[16];
      std::memcpy(a, src, 16);
      std::memcpy(b, src + n - 16, 16);
      std::memcpy(dst, a, 16);
      std::memcpy(dst + n - 16, b, 16);
    } else if (n >= 4 && n < 8) {
      char a[4], b[4];
      std::memcpy(a, src, 4);
      std::memcpy(b, src + n - 4, 4);
      std::memcpy(dst, a, 4);
      std::memcpy(dst + n - 4, b, 4);
    } else if (n < 4) {
      for (size_t i = 0; i < n; ++i) dst[i] = src[i];
    } else {
      std::memcpy(dst, src, n);
    }
  }
  static constexpr size_t kSize = 256 * 1024;
  static constexpr size_t kRowRoom = 4096;
  std::ostream& out_;
  std::unique_ptr<char[]> buf_;
  size_t cap_ = kSize;
  size_t len_ = 0;
  bool first_ = true;
};

// One column's last cell and its text, with the separator and (JSON) key in
// front. In a sweep most columns repeat from row to row -- in a batch loop
// only the batch's own columns change -- so a repeated value costs a compare
// and a copy, and only a new value is formatted (by the same routines as
// before, so the bytes cannot change).
class CellText {
 public:
  explicit CellText(std::string prefix) : prefix_(std::move(prefix)) {}
  // The text of `c`, formatted by format(c, &text) after the prefix when it
  // differs from the last cell.
  // The last text (valid after a first of()).
  std::string_view text() const { return text_; }
  template <typename Format>
  std::string_view of(const Cell& c, Format format) {
    if (!valid_ || !same(c, last_)) {
      text_.assign(prefix_);
      format(c, &text_);
      last_ = c;
      valid_ = true;
    }
    return text_;
  }

 private:
  // Reals compare bit for bit (0.0 and -0.0 print differently).
  static bool same(const Cell& a, const Cell& b) {
    if (a.index() != b.index()) return false;
    if (const auto* d = std::get_if<double>(&a)) {
      return std::memcmp(d, std::get_if<double>(&b), sizeof(double)) == 0;
    }
    if (const auto* s = std::get_if<std::string_view>(&a)) {
      const std::string_view t = *std::get_if<std::string_view>(&b);
      return (s->data() == t.data() && s->size() == t.size()) || *s == t;  // usually the very same name
    }
    return a == b;
  }
  std::string prefix_;
  std::string text_;
  Cell last_;
  bool valid_ = false;
};

void append_int(int64_t v, std::string* out) {
  char tmp[24];
  const auto res = std::to_chars(tmp, tmp + sizeof tmp, v);
  out->append(tmp, static_cast<size_t>(res.ptr - tmp));
}

// As base(): fmt's shortest round-trip form (write_shortest); non-finite reals are empty.
void append_csv_cell(const Cell& cell, std::string* out) {
  if (const auto* i = std::get_if<int64_t>(&cell)) {
    append_int(*i, out);
  } else if (const auto* d = std::get_if<double>(&cell)) {
    if (!std::isfinite(*d)) return;
    char tmp[48];
    char* end = write_shortest(tmp, *d);  // fmt's "{}" bytes, without its layout code
    out->append(tmp, static_cast<size_t>(end - tmp));
  } else if (const auto* b = std::get_if<bool>(&cell)) {
    out->append(*b ? "true" : "false");
  } else {
    const std::string_view s = std::get<std::string_view>(cell);
    if (s.find_first_of(",\"\r\n") == std::string_view::npos) {
      out->append(s);
    } else {
      out->append(csv_field(s));
    }
  }
}

// As nlohmann's dump() writes each: its own to_chars for reals (e.g. "1.0"
// for integral values), null when not finite; strings escaped as it does.
void append_json_cell(const Cell& cell, std::string* out) {
  if (const auto* i = std::get_if<int64_t>(&cell)) {
    append_int(*i, out);
  } else if (const auto* d = std::get_if<double>(&cell)) {
    if (!std::isfinite(*d)) {
      out->append("null");
      return;
    }
    char tmp[64];
    char* end = nlohmann::detail::to_chars(tmp, tmp + sizeof tmp, *d);
    out->append(tmp, static_cast<size_t>(end - tmp));
  } else if (const auto* b = std::get_if<bool>(&cell)) {
    out->append(*b ? "true" : "false");
  } else {
    const std::string_view s = std::get<std::string_view>(cell);
    bool plain = true;
    for (char ch : s) {
      const auto u = static_cast<unsigned char>(ch);
      plain = plain && u >= 0x20 && u < 0x80 && ch != '"' && ch != '\\';
    }
    if (plain) {
      out->push_back('"');
      out->append(s);
      out->push_back('"');
    } else {
      out->append(nlohmann::ordered_json(std::string(s)).dump());  // rare: exactly as the table printer escapes
    }
  }
}

// What every column but those that vary with the batch is a function of. A
// row with the same key as the row before it reuses those columns' text
// without reading them: in a batch loop (batch innermost but for the dtype
// lists) only the batch's own columns are read and formatted.
class RowKey {
 public:
  // True when `r` has the same key as the row before it (and remembers it).
  bool same_as_last(const SweepRow& r) {
    const bool same = valid_ && r.model_spec == model_ && r.gpu_spec == gpu_ && r.options.seq == seq_ &&
                      r.options.weight_dtype == dtype_ && r.options.kv_dtype == kv_dtype_;
    if (same) [[likely]] return true;
    valid_ = true;
    model_ = r.model_spec;
    gpu_ = r.gpu_spec;
    seq_ = r.options.seq;
    dtype_ = r.options.weight_dtype;
    kv_dtype_ = r.options.kv_dtype;
    return false;
  }

 private:
  bool valid_ = false;
  const ModelSpec* model_ = nullptr;
  const GpuSpec* gpu_ = nullptr;
  int64_t seq_ = 0;
  Dtype dtype_ = Dtype::kFp32, kv_dtype_ = Dtype::kFp32;
};

// std::to_chars of an int64 at `out` (24 bytes of room); a count below 10^4
// (a batch, usually) by two digit pairs, without to_chars' length loop.
inline char* write_int(char* out, int64_t v) {
  if (v >= 0 && v < 10000) {
    static constexpr char kPairs[] =
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
        "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
        "8081828384858687888990919293949596979899";
    const auto u = static_cast<uint32_t>(v);
    const size_t n = u < 10 ? 1 : u < 100 ? 2 : u < 1000 ? 3 : 4;
    char digits[8] = {};  // the 4 digits, then padding, so that 4 bytes from any start are inside
    std::memcpy(digits, kPairs + (u / 100) * 2, 2);
    std::memcpy(digits + 2, kPairs + (u % 100) * 2, 2);
    std::memcpy(out, digits + 4 - n, 4);  // writes 4 bytes; the digits are the first n
    return out + n;
  }
  return std::to_chars(out, out + 24, v).ptr;
}

// How each format writes a cell: append() into a string (the same bytes as
// the table printers: base() for csv, nlohmann's dump() for json), and
// real() for a finite or non-finite real at `out` (kRealRoom bytes of room),
// returning the end.
constexpr size_t kRealRoom = 64;
struct CsvCells {
  static void append(const Cell& c, std::string* out) { append_csv_cell(c, out); }
  static char* real(char* out, double d) { return std::isfinite(d) ? write_shortest(out, d) : out; }
};
struct JsonCells {
  static void append(const Cell& c, std::string* out) { append_json_cell(c, out); }
  static char* real(char* out, double d) {
    if (!std::isfinite(d)) {
      std::memcpy(out, "null", 4);
      return out + 4;
    }
    return nlohmann::detail::to_chars(out, out + kRealRoom, d);
  }
};

// Copies `n` bytes in 16-byte blocks, two at a time, and returns dst + n:
// it reads and writes up to 31 bytes past the end, so both sides need that
// room. The pieces of a row are short (a few to ~100 bytes): a handful of
// moves, no call and no branch on the size class.
[[gnu::always_inline]] inline char* copy_blocks(char* dst, const char* src, size_t n) {
  for (size_t i = 0; i < n; i += 32) {
    char a[16], b[16];
    std::memcpy(a, src + i, 16);
    std::memcpy(b, src + i + 16, 16);
    std::memcpy(dst + i, a, 16);
    std::memcpy(dst + i + 16, b, 16);
  }
  return dst + n;
}
constexpr size_t kBlockPad = 32;

// A column that varies with the batch, read and formatted every row into its
// own text (readable kBlockPad bytes past its end): an integer formatted
// anew; a real or a string formatted only when it differs from the column's
// last one (reals bit for bit: 0.0 and -0.0 print differently), else its
// last text kept; a bool as a literal.
template <typename Format>
class VaryingCell {
 public:
  explicit VaryingCell(Cell (*get)(const SweepRow&)) : get_(get) {}
  // Formats the row's value; returns its length. data() holds it.
  [[gnu::always_inline]] size_t update(const SweepRow& r) {
    const Cell c = get_(r);
    if (const auto* i = std::get_if<int64_t>(&c)) {
      data_ = int_text_;
      len_ = static_cast<size_t>(write_int(int_text_, *i) - int_text_);
    } else if (const auto* d = std::get_if<double>(&c)) {
      uint64_t bits;
      std::memcpy(&bits, d, sizeof bits);
      if (!real_valid_ || bits != real_bits_) [[likely]] {
        real_len_ = static_cast<size_t>(Format::real(real_text_, *d) - real_text_);
        real_bits_ = bits;
        real_valid_ = true;
      }
      data_ = real_text_;
      len_ = real_len_;
    } else if (const auto* b = std::get_if<bool>(&c)) {
      static constexpr char kTrue[kBlockPad + 8] = "true", kFalse[kBlockPad + 8] = "false";
      data_ = *b ? kTrue : kFalse;
      len_ = *b ? 4 : 5;
    } else {
      // Usually the very same static name (a regime), else compared by content.
      const std::string_view s = *std::get_if<std::string_view>(&c);
      if (str_data_ == nullptr || s.size() != str_last_.size() ||
          (s.data() != str_data_ && std::memcmp(s.data(), str_last_.data(), s.size()) != 0)) [[unlikely]] {
        str_last_.assign(s);
        str_data_ = s.data();
        std::string text;
        Format::append(c, &text);
        str_text_.assign(text.begin(), text.end());
        str_len_ = text.size();
        str_text_.resize(str_len_ + kBlockPad);
      }
      data_ = str_text_.data();
      len_ = str_len_;
    }
    return len_;
  }
  const char* data() const { return data_; }
  size_t size() const { return len_; }

 private:
  Cell (*get_)(const SweepRow&);
  const char* data_ = nullptr;
  size_t len_ = 0;
  char int_text_[24 + kBlockPad];
  bool real_valid_ = false;
  uint64_t real_bits_ = 0;
  size_t real_len_ = 0;
  char real_text_[kRealRoom];  // a real's text is at most 25 bytes: the pad fits
  const char* str_data_ = nullptr;  // the last string's address (its text outlives the writer); nullptr before the first
  std::string str_last_;
  std::vector<char> str_text_;  // str_len_ bytes, then kBlockPad
  size_t str_len_ = 0;
};

// A row's text as the streaming writers lay it out: the row's prefix, each
// column's text (CellText: separator or key, then the value), the row's
// suffix. It is held as ready-made pieces between the columns that vary with
// the batch, in one buffer (arena_): slot i's piece is everything before
// varying column i (after the one before it), its separator or key included;
// the tail ends the row. The pieces are rebuilt when the RowKey changes (a
// non-batch column may have changed; CellText reformats only the cells that
// did). While it holds, a row is: the varying columns formatted (their total
// length known), one reserve() of the sink for the whole row, then pieces
// and values copied in turn; no other column is read.
template <typename Format>
class RowCells {
 public:
  RowCells(const std::vector<const SweepColumn*>& cols, const std::vector<std::string>& prefixes,
           std::string row_prefix, std::string row_suffix)
      : cols_(cols), prefixes_(prefixes), row_prefix_(std::move(row_prefix)), row_suffix_(std::move(row_suffix)) {
    for (size_t c = 0; c < cols_.size(); ++c) {
      cells_.emplace_back(prefixes_[c]);
      varies_.push_back(column_varies_with_batch(*cols_[c]));
      if (varies_.back()) slots_.push_back({0, 0, VaryingCell<Format>(cols_[c]->get)});
    }
  }
  void put(const SweepRow& r, Sink& sink) {
    if (!key_.same_as_last(r)) [[unlikely]] rebuild(r);
    size_t n = pieces_len_ + kBlockPad;
    for (Slot& slot : slots_) n += slot.cell.update(r);
    char* p = sink.reserve(n);
    const char* a = arena_.data();
    for (const Slot& slot : slots_) {
      p = copy_blocks(p, a + slot.piece, slot.piece_len);
      p = copy_blocks(p, slot.cell.data(), slot.cell.size());
    }
    sink.commit(copy_blocks(p, a + tail_, tail_len_));
  }

 private:
  void rebuild(const SweepRow& r) {
    arena_.clear();
    arena_.insert(arena_.end(), row_prefix_.begin(), row_prefix_.end());
    size_t start = 0, next = 0;
    for (size_t c = 0; c < cols_.size(); ++c) {
      if (varies_[c]) {
        arena_.insert(arena_.end(), prefixes_[c].begin(), prefixes_[c].end());
        slots_[next].piece = start;
        slots_[next].piece_len = arena_.size() - start;
        start = arena_.size();
        ++next;
      } else {
        const std::string_view t = cells_[c].of(cols_[c]->get(r), Format::append);
        arena_.insert(arena_.end(), t.begin(), t.end());
      }
    }
    arena_.insert(arena_.end(), row_suffix_.begin(), row_suffix_.end());
    tail_ = start;
    tail_len_ = arena_.size() - start;
    pieces_len_ = arena_.size();
    arena_.resize(arena_.size() + kBlockPad);
  }
  struct Slot {
    size_t piece, piece_len;  // in arena_: the text between the previous varying column and this one
    VaryingCell<Format> cell;
  };
  const std::vector<const SweepColumn*>& cols_;
  std::vector<std::string> prefixes_;
  std::string row_prefix_, row_suffix_;
  std::vector<CellText> cells_;  // every column; used for those not varying
  std::vector<bool> varies_;
  std::vector<Slot> slots_;      // one per varying column, in column order
  std::vector<char> arena_;      // the pieces, then kBlockPad
  size_t tail_ = 0, tail_len_ = 0, pieces_len_ = 0;
  RowKey key_;
};

std::vector<std::string> csv_prefixes(const std::vector<const SweepColumn*>& cols) {
  std::vector<std::string> p;
  for (size_t c = 0; c < cols.size(); ++c) p.emplace_back(c ? "," : "");
  return p;
}

// ',' "name": (the key as nlohmann writes it), once per column.
std::vector<std::string> json_prefixes(const std::vector<const SweepColumn*>& cols) {
  std::vector<std::string> p;
  for (size_t c = 0; c < cols.size(); ++c) {
    p.push_back((c ? "," : "") + nlohmann::ordered_json(std::string(cols[c]->name)).dump() + ":");
  }
  return p;
}

class CsvWriter : public SweepWriter {
 public:
  CsvWriter(std::vector<const SweepColumn*> columns, std::ostream& out)
      : cols_(std::move(columns)), cells_(cols_, csv_prefixes(cols_), "", "\n"), sink_(out) {
    for (size_t c = 0; c < cols_.size(); ++c) {
      if (c) sink_.put(',');
      sink_.put_csv_string(cols_[c]->name);
    }
    sink_.put('\n');
  }
  void row(const SweepRow& r) override {
    cells_.put(r, sink_);
    sink_.row_done();
  }
  void end() override { sink_.flush(); }

 private:
  std::vector<const SweepColumn*> cols_;
  RowCells<CsvCells> cells_;
  Sink sink_;
};

// jsonl: one object a line; json: the same objects in an array, two-space
// indented, one a line.
class JsonWriter : public SweepWriter {
 public:
  JsonWriter(std::vector<const SweepColumn*> columns, std::ostream& out, bool array)
      : cols_(std::move(columns)), cells_(cols_, json_prefixes(cols_), "{", array ? "}" : "}\n"), sink_(out),
        array_(array) {}
  void row(const SweepRow& r) override {
    if (array_) sink_.put(rows_ == 0 ? "[\n  " : ",\n  ");
    cells_.put(r, sink_);
    ++rows_;
    sink_.row_done();
  }
  void end() override {
    if (array_) sink_.put(rows_ == 0 ? "[]\n" : "\n]\n");
    sink_.flush();
  }

 private:
  std::vector<const SweepColumn*> cols_;
  RowCells<JsonCells> cells_;
  Sink sink_;
  bool array_;
  int64_t rows_ = 0;
};

// Markdown needs only the first row (for each column's alignment), so the
// header waits for it.
class MdWriter : public SweepWriter {
 public:
  MdWriter(std::vector<const SweepColumn*> columns, std::ostream& out) : cols_(std::move(columns)), sink_(out) {}
  void row(const SweepRow& r) override {
    if (!header_done_) header([&](size_t c) {
      const Cell first = cols_[c]->get(r);
      return std::holds_alternative<std::string_view>(first) || std::holds_alternative<bool>(first);
    });
    sink_.put('|');
    for (const SweepColumn* c : cols_) {
      sink_.put(' ');
      sink_.put(md_cell(human(c->get(r), c->unit)));
      sink_.put(" |");
    }
    sink_.put('\n');
    sink_.row_done();
  }
  void end() override {
    if (!header_done_) header([&](size_t c) { return cols_[c]->unit == Unit::kNone; });
    sink_.flush();
  }

 private:
  template <typename LeftAligned>
  void header(LeftAligned left) {
    sink_.put('|');
    for (const SweepColumn* c : cols_) {
      sink_.put(' ');
      sink_.put(c->name);
      sink_.put(" |");
    }
    sink_.put("\n|");
    for (size_t c = 0; c < cols_.size(); ++c) sink_.put(left(c) ? " --- |" : " ---: |");
    sink_.put('\n');
    header_done_ = true;
  }
  std::vector<const SweepColumn*> cols_;
  Sink sink_;
  bool header_done_ = false;
};

// Text aligns every column over all rows: it keeps the table.
class TableWriter : public SweepWriter {
 public:
  TableWriter(std::vector<const SweepColumn*> columns, std::ostream& out, SweepPrinter print)
      : out_(out), print_(print) {
    table_.columns = std::move(columns);
  }
  void row(const SweepRow& r) override { table_.add(r); }
  void end() override { print_(table_, out_); }
  bool buffers_rows() const override { return true; }

 private:
  std::ostream& out_;
  SweepPrinter print_;
  SweepTable table_;
};

}  // namespace

Result<std::unique_ptr<SweepWriter>> make_sweep_writer(std::string_view name,
                                                       std::vector<const SweepColumn*> columns, std::ostream& out) {
  MC_ASSIGN_OR_RETURN(const SweepPrinter print, find_sweep_format(name));
  std::unique_ptr<SweepWriter> w;
  if (name == "csv") {
    w = std::make_unique<CsvWriter>(std::move(columns), out);
  } else if (name == "json" || name == "jsonl") {
    w = std::make_unique<JsonWriter>(std::move(columns), out, name == "json");
  } else if (name == "md") {
    w = std::make_unique<MdWriter>(std::move(columns), out);
  } else {
    w = std::make_unique<TableWriter>(std::move(columns), out, print);
  }
  return w;
}

}  // namespace modelcalc
