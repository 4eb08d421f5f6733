#include "suggest.h"

#include <algorithm>
#include <cctype>

namespace modelcalc {

namespace {

// normalize_name's rule for one character: dropped (false) or folded to lower case.
bool fold_name_char(char c, char* folded) {
  if (c == ' ' || c == '-' || c == '_' || c == '.') return false;
  *folded = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return true;
}

}  // namespace

std::string normalize_name(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  char f = 0;
  for (char c : s) {
    if (fold_name_char(c, &f)) out.push_back(f);
  }
  return out;
}

bool normalizes_to(std::string_view s, std::string_view normalized) {
  size_t j = 0;
  char f = 0;
  for (char c : s) {
    if (!fold_name_char(c, &f)) continue;
    if (j == normalized.size() || normalized[j] != f) return false;
    ++j;
  }
  return j == normalized.size();
}

namespace {

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace

std::vector<std::string> closest_names(std::string_view typed, std::span<const std::string> candidates,
                                       size_t max) {
  const std::string t = normalize_name(typed);
  struct Scored {
    size_t score;
    std::string name;
  };
  std::vector<Scored> scored;
  for (const std::string& c : candidates) {
    const std::string n = normalize_name(c);
    size_t score;
    if (!t.empty() && (n.rfind(t, 0) == 0 || t.rfind(n, 0) == 0)) {
      score = 0;  // one is a prefix of the other
    } else {
      // The edit distance is at least the difference in length, so a name that
      // far off cannot pass the test below: skip the O(|t|·|n|) table. This
      // keeps a hostile 100 KB value from costing seconds per candidate.
      const size_t longer = std::max(t.size(), n.size());
      const size_t gap = longer - std::min(t.size(), n.size());
      if (gap * 3 > longer) continue;
      score = edit_distance(t, n);
      // Too far to be a typo: more than a third of the longer name differs.
      if (score * 3 > std::max(t.size(), n.size())) continue;
    }
    scored.push_back({score, c});
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const Scored& a, const Scored& b) { return a.score < b.score; });
  std::vector<std::string> out;
  for (size_t i = 0; i < scored.size() && i < max; ++i) out.push_back(scored[i].name);
  return out;
}

std::string closest_flag(std::string_view typed, std::span<const std::string> flags) {
  const bool long_flag = typed.starts_with("--");
  const std::string t = normalize_name(typed);
  std::string best;
  size_t best_score = 0;
  for (const std::string& f : flags) {
    if (f.starts_with("--") != long_flag) continue;
    const std::string n = normalize_name(f);
    const size_t longer = std::max(t.size(), n.size());
    const bool begins = !t.empty() && n.starts_with(t);
    const size_t gap = longer - std::min(t.size(), n.size());
    if (!begins && gap * 3 > longer) continue;  // too far apart by length alone (see closest_names)
    const size_t score = edit_distance(t, n);
    if (!begins && score * 3 > longer) continue;
    if (best.empty() || score < best_score) {
      best = f;
      best_score = score;
    }
  }
  return best;
}

std::string did_you_mean(std::string_view typed, std::span<const std::string> candidates) {
  const auto close = closest_names(typed, candidates);
  if (close.empty()) return "";
  std::string s = "; did you mean ";
  for (size_t i = 0; i < close.size(); ++i) {
    if (i > 0) s += i + 1 == close.size() ? " or " : ", ";
    s += "'" + close[i] + "'";
  }
  return s + "?";
}

}  // namespace modelcalc
