// The streaming writers of `modelcalc sweep` (csv, md, json, jsonl): rows
// formatted as they come into one reused buffer, byte for byte what the table
// printers (sweep_table.cc) print for the same rows.
#include "sweep_table.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "format.h"
#include "suggest.h"

namespace modelcalc {

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

// As base(): fmt's shortest round-trip form (write_shortest); non-finite reals and shortfalls are empty.
void append_csv_cell(const Cell& cell, std::string* out) {
  if (std::holds_alternative<Shortfall>(cell)) return;
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
  if (std::holds_alternative<Shortfall>(cell)) {
    out->append("null");
    return;
  }
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
    const bool same = valid_ && r.model_spec == model_ && r.gpu_spec == gpu_ && r.split_spec == split_ &&
                      r.options.context == context_ && r.options.weight_dtype == dtype_ &&
                      r.options.kv_dtype == kv_dtype_;
    if (same) [[likely]] return true;
    valid_ = true;
    model_ = r.model_spec;
    gpu_ = r.gpu_spec;
    split_ = r.split_spec;
    context_ = r.options.context;
    dtype_ = r.options.weight_dtype;
    kv_dtype_ = r.options.kv_dtype;
    return false;
  }

 private:
  bool valid_ = false;
  const ModelSpec* model_ = nullptr;
  const GpuSpec* gpu_ = nullptr;
  const Parallelism* split_ = nullptr;
  int64_t context_ = 0;
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
    Cell c = get_(r);
    if (std::holds_alternative<Shortfall>(c)) c = std::numeric_limits<double>::quiet_NaN();  // csv empty, json null
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
      sink_.put(sweep_md_cell(sweep_human(c->get(r), c->unit)));
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
