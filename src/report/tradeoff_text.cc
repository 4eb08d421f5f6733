#include "tradeoff_text.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <vector>

#include "format.h"

namespace modelcalc {

std::string tradeoff_sentence(const Candidate& a, const Candidate& b, const TradeoffResult& r) {
  if (r.winner == Winner::kTie) {
    return fmt::format("{} and {} tie at {} under these weights: no dial decides, so decide on something "
                       "the five dials do not capture.",
                       a.name, b.name, fmt_fixed(r.score_a, 3));
  }
  const bool a_wins = r.winner == Winner::kA;
  const Candidate& w = a_wins ? a : b;
  const Candidate& l = a_wins ? b : a;
  const double sw = a_wins ? r.score_a : r.score_b, sl = a_wins ? r.score_b : r.score_a;
  const Dial d = *r.deciding_dial;
  std::vector<std::string> leads;
  for (Dial x : r.loser_leads) leads.emplace_back(dial_name(x));
  std::string despite;
  if (!leads.empty()) despite = fmt::format(", outweighing {}'s lead on {}", l.name, fmt::join(leads, " and "));
  const bool higher = dial_direction(d) == Direction::kHigherIsBetter;
  const std::string edge =
      fmt::format("{}× {} {}", fmt_sig(r.deciding_edge, 3), higher ? "higher" : "lower", dial_name(d));
  return fmt::format("Choose {} over {} ({} vs {}): {} decided it — {} ({} vs {}) at weight {} adds {} "
                     "to a final margin of {}{}.",
                     w.name, l.name, fmt_fixed(sw, 3), fmt_fixed(sl, 3), dial_name(d), edge, fmt_sig(w.dials[d], 4),
                     fmt_sig(l.dials[d], 4), fmt_fixed(r.deciding_weight, 2), fmt_fixed(r.contribution[d], 3),
                     fmt_fixed(r.margin, 3), despite);
}

}  // namespace modelcalc
