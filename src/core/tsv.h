// The core's reader of tab-separated tables (gpus.tsv, prices.tsv, the engine
// and training profiles, the published measurements): one line walker and one
// field splitter, so every table treats blank lines, '#' comments, CRLF line
// ends and empty fields alike. Internal to the core.
#ifndef MODELCALC_TSV_H_
#define MODELCALC_TSV_H_

#include <cstdint>
#include <string_view>
#include <vector>

namespace modelcalc {

// The fields of `line` between `sep`s: n separators give n + 1 fields, empty
// ones kept ("a\t\tb" is {"a", "", "b"}; "" is {""}). The views point into
// `line`.
std::vector<std::string_view> split_fields(std::string_view line, char sep = '\t');

// A whole field as a decimal integer / a finite real (std::from_chars: no
// sign but '-', no spaces, no trailing characters). Ranges are the caller's.
bool tsv_int(std::string_view field, int64_t* v);
bool tsv_real(std::string_view field, double* v);

// The lines of a table that hold something: blank lines and lines starting
// with '#' are skipped, a trailing '\r' is dropped.
//   TsvLines lines(text);
//   for (std::string_view line; lines.next(&line);) { ... lines.line_no() ... }
// The views point into `text`, which must outlive them.
class TsvLines {
 public:
  explicit TsvLines(std::string_view text) : rest_(text) {}

  // The next line that holds something; false when there is none.
  bool next(std::string_view* line);

  // The 1-based number of the line next() returned last, counting every line
  // of the text (blank and comment lines too), as an editor shows it.
  int64_t line_no() const { return line_no_; }

 private:
  std::string_view rest_;
  int64_t line_no_ = 0;
};

}  // namespace modelcalc

#endif  // MODELCALC_TSV_H_
