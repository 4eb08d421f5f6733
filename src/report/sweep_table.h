// Presentation of `modelcalc sweep`: the columns a row can show and the
// printers (text, csv, md, json, jsonl) that lay a table of them out
// (sweep_table.cc), and the streaming writers that print the same bytes row by
// row (sweep_writer.cc). Every printer reads the same cells, so the formats
// cannot disagree.
#ifndef MODELCALC_SWEEP_TABLE_H_
#define MODELCALC_SWEEP_TABLE_H_

#include <cstdint>
#include <memory>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "modelcalc/status.h"
#include "modelcalc/sweep.h"
#include "report.h"

namespace modelcalc {

// A memory figure that does not fit: what must fit exceeds what there is by `bytes` (> 0). It has no
// figure (issue #33: no negative size printed): text and Markdown say "does not fit (short by X)" as
// `size` does, csv leaves it empty and JSON gives null, as `size --json` does.
struct Shortfall {
  double bytes;
  bool operator==(const Shortfall&) const = default;
};

// One value of a row in base units. Text is a view of data that outlives the
// table: the SweepSpec's model names and GPU keys, or static names.
using Cell = std::variant<int64_t, double, bool, std::string_view, Shortfall>;

struct SweepColumn {
  std::string_view name;      // --fields name; the CSV header and JSON key
  std::string_view size_key;  // the same value in `size --json`, as a JSON pointer; "" when size has none
  Unit unit;                  // how text and Markdown show it
  bool by_default;            // shown when --fields is not given
  std::string_view help;
  Cell (*get)(const SweepRow&);
};

// Every column, in default display order (default columns first).
std::span<const SweepColumn> sweep_columns();

// Whether the column's value can change between rows that differ only in the
// batch (batch, the aggregate rates, step bytes, the engine's per-batch
// verdicts). Every other column is a function of (model, GPU, seq, dtype, KV
// dtype); the streaming writers reuse their text while those repeat.
bool column_varies_with_batch(const SweepColumn& c);

// Whether the column reads the row's prediction (the predicted_* columns): a
// sweep none of whose columns does may skip it (SweepSpec::predict).
bool column_reads_prediction(const SweepColumn& c);
// True when one of `cols` reads the prediction: what SweepSpec::predict is set to.
bool columns_read_prediction(const std::vector<const SweepColumn*>& cols);
// A profile file (`has_profile`) changes only the predicted_* columns: with none of them in `cols` it would
// change nothing, so it is refused, naming profile and the columns that read it.
Status check_profile_is_read(const std::vector<const SweepColumn*>& cols, bool has_profile);

// The columns `text` names, comma-separated, in the order given; "" gives the
// default columns. Unknown, empty or repeated names fail with InvalidArgument
// naming --fields (with a did-you-mean): a JSON row holds each key once.
Result<std::vector<const SweepColumn*>> parse_fields(std::string_view text);

// One line per column: name, (default) marker and meaning. For --fields help.
std::string fields_help();

// Rows of cells, row-major: cells[r * columns.size() + c].
struct SweepTable {
  std::vector<const SweepColumn*> columns;
  std::vector<Cell> cells;
  size_t rows() const { return columns.empty() ? 0 : cells.size() / columns.size(); }
  const Cell& at(size_t r, size_t c) const { return cells[r * columns.size() + c]; }
  // Appends the row's cells for every column.
  void add(const SweepRow& row);
};

// A printer writes the whole table. text and md show human units (39.02 GB);
// csv, json and jsonl give base units (bytes, tokens/s) with full precision.
using SweepPrinter = void (*)(const SweepTable& t, std::ostream& out);
struct SweepFormat {
  std::string_view name;
  SweepPrinter print;
};
std::span<const SweepFormat> sweep_formats();
// The printer called `name`; errors name --format and list the formats.
Result<SweepPrinter> find_sweep_format(std::string_view name);

// Streaming output: rows are formatted as they come into one reused buffer,
// written to `out` at once for the first row (so a pipe sees it immediately)
// and then in 256 KiB chunks. No per-row objects: numbers are formatted in
// place, with the same routines the table printers use, so the bytes equal
// those of the table printers for the same rows (tests compare them). csv and
// json(l) hold a row as ready-made text between the columns that can change
// with the batch (column_varies_with_batch), rebuilt only when another column
// may have changed (reformatting only the cells that did); while rows differ
// only in the batch, a row is that text and the batch's own values, and no
// other column is read. csv, md, json and jsonl stream; text aligns columns
// over every row, so its writer keeps the table and prints it at end().
class SweepWriter {
 public:
  virtual ~SweepWriter() = default;
  virtual void row(const SweepRow& r) = 0;
  // Finishes the output (closing brackets, the text table) and flushes.
  virtual void end() = 0;
  // True when the format must hold every row before printing (text).
  virtual bool buffers_rows() const { return false; }
};
// A writer for format `name` (as find_sweep_format); errors name --format.
Result<std::unique_ptr<SweepWriter>> make_sweep_writer(std::string_view name,
                                                       std::vector<const SweepColumn*> columns, std::ostream& out);

// RFC 4180: quoted when the field holds a comma, a double quote, CR or LF,
// with inner quotes doubled. Exposed for tests.
std::string csv_field(std::string_view s);

// Shared by the table printers (sweep_table.cc) and the streaming writers
// (sweep_writer.cc), so both format a cell the same way: a cell in human
// units (text and Markdown), and a Markdown cell (pipes escaped).
std::string sweep_human(const Cell& c, Unit u);
std::string sweep_md_cell(const std::string& s);

}  // namespace modelcalc

#endif  // MODELCALC_SWEEP_TABLE_H_
