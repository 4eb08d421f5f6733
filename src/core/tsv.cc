#include "tsv.h"

#include <charconv>
#include <cmath>

namespace modelcalc {

std::vector<std::string_view> split_fields(std::string_view line, char sep) {
  std::vector<std::string_view> out;
  for (size_t start = 0;;) {
    const size_t pos = line.find(sep, start);
    out.push_back(line.substr(start, pos == std::string_view::npos ? std::string_view::npos : pos - start));
    if (pos == std::string_view::npos) return out;
    start = pos + 1;
  }
}

bool tsv_int(std::string_view t, int64_t* v) {
  const auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), *v);
  return ec == std::errc() && p == t.data() + t.size();
}

bool tsv_real(std::string_view t, double* v) {
  const auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), *v);
  return ec == std::errc() && p == t.data() + t.size() && std::isfinite(*v);
}

bool TsvLines::next(std::string_view* line) {
  while (!rest_.empty()) {
    const size_t nl = rest_.find('\n');
    std::string_view l = rest_.substr(0, nl);
    rest_.remove_prefix(nl == std::string_view::npos ? rest_.size() : nl + 1);
    ++line_no_;
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    if (l.empty() || l.front() == '#') continue;
    *line = l;
    return true;
  }
  return false;
}

}  // namespace modelcalc
