// modelcalc.sweep's native half: the core's sweep() fills typed columns, one
// C++ buffer per column, with the GIL released; Python wraps each buffer
// without copying (NumPy's frombuffer, or a memoryview without NumPy). A
// column is a sweep column (src/report/sweep_table.h): the same names and the
// same getters as the CLI's sweep, so a row here is the CLI's row. Memory per
// row is the columns' item sizes (8 B a number, 1 B a flag, 2 B a text code),
// nothing per row in Python. Every kChunkRows rows the GIL is taken back
// briefly (Ctrl-C stops a long sweep), and with on_chunk the filled columns are
// handed over and fresh ones started, so memory stays one chunk whatever the
// row count.
#include <pybind11/pybind11.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "modelcalc/app/answers.h"
#include "modelcalc/sweep.h"
#include "py_fields.h"
#include "py_specs.h"
#include "py_util.h"
#include "sweep_table.h"

namespace modelcalc::py_bind {

namespace {

constexpr int64_t kChunkRows = int64_t{1} << 16;

// One column's memory: `rows` items of `itemsize` bytes, uninitialised until filled.
struct Buffer {
  std::unique_ptr<unsigned char[]> data;
  size_t itemsize = 8;
  int64_t rows = 0;      // items filled (the buffer's length)
  std::string format;    // struct-module format: "q", "d", "?", "H"
};

enum class Kind { kInt, kReal, kFlag, kText };

struct Column {
  const SweepColumn* col = nullptr;
  bool varies = true;  // column_varies_with_batch: the only columns read on a row that differs in the batch alone
  Kind kind = Kind::kReal;
  std::shared_ptr<Buffer> buf;
  unsigned char* data = nullptr;  // buf's memory (the hot loop does not chase the pointer)
  size_t itemsize = 8;
  // Text: the labels seen (codes index them), and the last one looked up.
  std::vector<std::string> labels;
  const char* last_ptr = nullptr;
  size_t last_len = 0;
  uint16_t last_code = 0;
};

struct StopSweep {};  // thrown through sweep() to end it (an error, or Ctrl-C)

// A column's kind from its first cell; a count with no figure there (max_sequences where the engine
// refuses the row: null in JSON) is still a count column, its missing figures 0 (NumPy ints hold no null).
Kind kind_of(const SweepColumn& col, const Cell& c) {
  if (col.name.ends_with("max_sequences") && c.index() == 1 && !std::isfinite(std::get<double>(c))) return Kind::kInt;
  switch (c.index()) {
    case 0: return Kind::kInt;
    case 1: return Kind::kReal;
    case 2: return Kind::kFlag;
    case 4: return Kind::kReal;  // a Shortfall (kv_room_bytes, a real column): as_double
    default: return Kind::kText;
  }
}

size_t itemsize(Kind k) { return k == Kind::kText ? 2 : k == Kind::kFlag ? 1 : 8; }
const char* format_of(Kind k) { return k == Kind::kInt ? "q" : k == Kind::kReal ? "d" : k == Kind::kFlag ? "?" : "H"; }
const char* kind_name(Kind k) {
  return k == Kind::kInt ? "int" : k == Kind::kReal ? "real" : k == Kind::kFlag ? "flag" : "text";
}

double as_double(const Cell& c) {
  switch (c.index()) {
    case 0: return static_cast<double>(std::get<int64_t>(c));
    case 1: return std::get<double>(c);
    case 2: return std::get<bool>(c) ? 1.0 : 0.0;
    // An array has no null for integers: a memory that does not fit keeps its signed figure (capacity minus
    // weights, < 0) for analysis; the printed outputs and the size object's attribute say it has none.
    case 4: return -std::get<Shortfall>(c).bytes;
    default: return 0;
  }
}

class Filler {
 public:
  Filler(std::vector<const SweepColumn*> cols, int64_t chunk) : chunk_(chunk) {
    for (const SweepColumn* c : cols) {
      Column col;
      col.col = c;
      col.varies = column_varies_with_batch(*c);
      columns_.push_back(std::move(col));
    }
  }

  // Called for every row by sweep(), without the GIL.
  void row(const SweepRow& r) {
    if (!started_) start(r);
    if (filled_ == chunk_) flush();
    // A row that differs from the last one only in the batch (the writers' rule,
    // sweep_table.h): the other columns repeat, so they are copied, not read.
    const RowKey key{r.model, r.gpu, r.split, r.options.context, r.options.weight_dtype, r.options.kv_dtype};
    if (filled_ > 0 && key == last_key_) {
      for (Column& c : columns_) {
        unsigned char* p = c.data + static_cast<size_t>(filled_) * c.itemsize;
        if (c.varies) {
          put(c, c.col->get(r), p);
        } else if (c.itemsize == 8) {  // fixed sizes: the copies inline
          std::memcpy(p, p - 8, 8);
        } else if (c.itemsize == 2) {
          std::memcpy(p, p - 2, 2);
        } else {
          *p = p[-1];
        }
      }
    } else {
      for (Column& c : columns_) put(c, c.col->get(r), c.data + static_cast<size_t>(filled_) * c.itemsize);
      last_key_ = key;
    }
    ++filled_;
    if (++since_check_ == kChunkRows) {
      since_check_ = 0;
      py::gil_scoped_acquire gil;
      if (PyErr_CheckSignals() != 0) {
        error_ = std::make_unique<py::error_already_set>();
        throw StopSweep{};
      }
    }
  }

  // The columns filled so far, as Python (name, kind, buffer, labels) tuples. GIL held.
  py::list take_columns() {
    py::list out;
    for (Column& c : columns_) {
      if (!c.buf) set_buffer(c, allocate(c.kind, 0));
      c.buf->rows = filled_;
      py::object labels = py::none();
      if (c.kind == Kind::kText) {
        py::list l;
        for (const std::string& s : c.labels) l.append(py::str(s));
        labels = l;
      }
      out.append(py::make_tuple(std::string(c.col->name), kind_name(c.kind), py::cast(c.buf), labels));
    }
    return out;
  }

  void set_on_chunk(py::object f) { on_chunk_ = std::move(f); }
  std::unique_ptr<py::error_already_set>& error() { return error_; }
  int64_t filled() const { return filled_; }

 private:
  std::shared_ptr<Buffer> allocate(Kind k, int64_t rows) {
    auto b = std::make_shared<Buffer>();
    b->itemsize = itemsize(k);
    b->format = format_of(k);
    b->data.reset(new unsigned char[static_cast<size_t>(std::max<int64_t>(rows, 1)) * b->itemsize]);
    return b;
  }

  static void set_buffer(Column& c, std::shared_ptr<Buffer> b) {
    c.data = b->data.get();
    c.itemsize = b->itemsize;
    c.buf = std::move(b);
  }

  void start(const SweepRow& r) {
    for (Column& c : columns_) {
      c.kind = kind_of(*c.col, c.col->get(r));
      set_buffer(c, allocate(c.kind, chunk_));
    }
    started_ = true;
  }

  uint16_t code(Column& c, std::string_view s) {
    if (s.data() == c.last_ptr && s.size() == c.last_len) return c.last_code;
    size_t i = 0;
    while (i < c.labels.size() && c.labels[i] != s) ++i;
    if (i == c.labels.size()) {
      if (i > 65535) throw std::runtime_error("sweep: a text column has more than 65,536 distinct values");
      c.labels.emplace_back(s);
    }
    c.last_ptr = s.data();
    c.last_len = s.size();
    c.last_code = static_cast<uint16_t>(i);
    return c.last_code;
  }

  void put(Column& c, const Cell& v, unsigned char* p) {
    switch (c.kind) {
      case Kind::kInt: {
        const double d = v.index() == 0 ? 0.0 : as_double(v);
        const int64_t x = v.index() == 0 ? std::get<int64_t>(v) : std::isfinite(d) ? static_cast<int64_t>(d) : 0;
        std::memcpy(p, &x, 8);
        break;
      }
      case Kind::kReal: {
        const double x = as_double(v);
        std::memcpy(p, &x, 8);
        break;
      }
      case Kind::kFlag:
        *p = static_cast<unsigned char>(v.index() == 2 ? std::get<bool>(v) : as_double(v) != 0);
        break;
      case Kind::kText: {
        const uint16_t x = v.index() == 3 ? code(c, std::get<std::string_view>(v)) : 0;
        std::memcpy(p, &x, 2);
        break;
      }
    }
  }

  // Hands the full chunk to on_chunk and starts fresh columns.
  void flush() {
    py::gil_scoped_acquire gil;
    try {
      on_chunk_(take_columns());
    } catch (py::error_already_set& e) {
      error_ = std::make_unique<py::error_already_set>(std::move(e));
      throw StopSweep{};
    }
    for (Column& c : columns_) set_buffer(c, allocate(c.kind, chunk_));
    filled_ = 0;
  }

  struct RowKey {
    size_t model = 0, gpu = 0, split = 0;
    int64_t context = 0;
    Dtype weights = Dtype::kFp16, kv = Dtype::kFp16;
    bool operator==(const RowKey&) const = default;
  };

  std::vector<Column> columns_;
  RowKey last_key_;
  int64_t chunk_;
  int64_t filled_ = 0;
  int64_t since_check_ = 0;
  bool started_ = false;
  py::object on_chunk_;
  std::unique_ptr<py::error_already_set> error_;
};

std::vector<SharedModel> sweep_models(py::handle v) {
  std::vector<SharedModel> out;
  if (PyUnicode_Check(v.ptr()) || py::isinstance<PyModel>(v)) {
    out.push_back(as_model(v).spec);
    return out;
  }
  for (py::handle item : v) out.push_back(as_model(item).spec);
  if (out.empty()) raise_verbatim(Status::InvalidArgument("model", "is an empty list; give at least one model"));
  return out;
}

std::vector<SharedGpu> sweep_gpus(py::handle v) {
  std::vector<SharedGpu> out;
  auto one = [&](py::handle item) {
    const PyGpu* g = as_gpu(item);
    if (g == nullptr) raise_verbatim(Status::InvalidArgument("gpu", "is required: a catalog name, a Gpu, or a list"));
    check(app::require_peak(*g->spec));
    out.push_back(g->spec);
  };
  if (v.is_none() || PyUnicode_Check(v.ptr()) || py::isinstance<PyGpu>(v)) {
    one(v);
    return out;
  }
  for (py::handle item : v) one(item);
  if (out.empty()) raise_verbatim(Status::InvalidArgument("gpu", "is an empty list; give at least one GPU"));
  return out;
}

double physical_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<double>(pages) * static_cast<double>(page) : 0;
}

constexpr std::pair<std::string_view, std::string_view> kSweepRenames[] = {
    {"models", "model"}, {"gpus", "gpu"}, {"seq", "context"}, {"--seq", "context"}, {"--context", "context"},
    {"--fields", "fields"}};

}  // namespace

void init_sweep(py::module_& m) {
  py::class_<Buffer, std::shared_ptr<Buffer>>(m, "_ColumnBuffer", py::buffer_protocol())
      .def_buffer([](Buffer& b) {
        return py::buffer_info(b.data.get(), static_cast<py::ssize_t>(b.itemsize), b.format, 1,
                               {static_cast<py::ssize_t>(b.rows)}, {static_cast<py::ssize_t>(b.itemsize)});
      })
      .def("__len__", [](const Buffer& b) { return b.rows; })
      .def_property_readonly("nbytes", [](const Buffer& b) { return b.rows * static_cast<int64_t>(b.itemsize); });

  m.def("_sweep_columns_help", [] {
    py::list out;
    for (const SweepColumn& c : sweep_columns()) {
      out.append(py::make_tuple(std::string(c.name), c.by_default, std::string(c.help), std::string(c.size_key)));
    }
    return out;
  });

  m.def("_sweep", [](py::handle models, py::handle gpus, py::handle chunk_rows, py::handle on_chunk,
                     const py::dict& kwargs) {
    auto request = request_from<app::SweepRequest>(kwargs);
    // The whole sweep, its rows filled chunk by chunk, runs under the profile= file (or the compiled-in one).
    const ScopedEngineProfile profile_scope(read_profile(request));
    const std::vector<const SweepColumn*> cols = take(parse_fields(request.fields), kSweepRenames);
    request.gpu_specs = sweep_gpus(gpus);
    request.model_specs = sweep_models(models);
    app::SweepAnswer answer = take_answer(app::answer(request), &app::SweepRequest::table());
    check(check_profile_is_read(cols, !request.engine.profile.empty()), kSweepRenames);
    answer.spec.predict = columns_read_prediction(cols);
    const SweepSpec& spec = answer.spec;
    const int64_t rows = take(sweep_row_count(spec), kSweepRenames);
    const bool chunked = !on_chunk.is_none();
    int64_t chunk = rows;
    if (chunked) {
      chunk = *opt_count(chunk_rows, "chunk_rows", int64_t{1} << 30);
    } else if (static_cast<double>(rows) * 8.0 * static_cast<double>(cols.size()) > 0.5 * physical_memory_bytes()) {
      raise_verbatim(Status::InvalidArgument(
          "model", "the sweep has " + std::to_string(rows) + " rows, whose columns would take more than half of this "
                   "machine's memory; pass on_chunk= (and chunk_rows=) to stream them in chunks"));
    }
    Filler filler(cols, std::max<int64_t>(chunk, 1));
    if (chunked) filler.set_on_chunk(py::reinterpret_borrow<py::object>(on_chunk));
    Status s;
    bool stopped = false;
    {
      py::gil_scoped_release release;
      try {
        s = app::rows(answer, [&filler](const SweepRow& r) { filler.row(r); });
      } catch (const StopSweep&) {
        stopped = true;
      }
    }
    if (stopped) {
      if (filler.error()) {
        py::error_already_set error = std::move(*filler.error());
        filler.error().reset();
        throw error;
      }
      throw std::runtime_error("sweep stopped");
    }
    check(s, kSweepRenames);
    if (chunked) {
      if (filler.filled() > 0) on_chunk(filler.take_columns());
      return py::object(py::int_(rows));
    }
    return py::object(py::make_tuple(rows, filler.take_columns()));
  });
}

}  // namespace modelcalc::py_bind
