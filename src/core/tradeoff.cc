#include "modelcalc/tradeoff.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <vector>

#include "error_number.h"
#include "suggest.h"

namespace modelcalc {

namespace {

constexpr std::string_view kDialList = "quality, latency, throughput, cost, memory";

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Worse-over-better ratio of x against the pair (a, b), in (0, 1].
double normalized(Dial d, double x, double a, double b) {
  return dial_direction(d) == Direction::kHigherIsBetter ? x / std::max(a, b) : std::min(a, b) / x;
}

// The winner's edge on dial d: better over worse, k >= 1.
double edge(Dial d, double winner_value, double loser_value) {
  return dial_direction(d) == Direction::kHigherIsBetter ? winner_value / loser_value : loser_value / winner_value;
}

}  // namespace

std::string_view dial_name(Dial d) {
  switch (d) {
    case Dial::kQuality: return "quality";
    case Dial::kLatency: return "latency";
    case Dial::kThroughput: return "throughput";
    case Dial::kCost: return "cost";
    case Dial::kMemory: return "memory";
  }
  return "?";
}

Result<Dial> parse_dial(std::string_view text, std::string_view field) {
  std::string s(trim(text));
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  std::vector<std::string> names;
  for (Dial d : kAllDials) {
    if (s == dial_name(d)) return d;
    names.emplace_back(dial_name(d));
  }
  // "unknown dial 'x' (the dials are ...); did you mean 'y'?"
  return Status::InvalidArgument(field, "unknown dial '" + std::string(text) + "' (the dials are " +
                                            std::string(kDialList) + ")" + did_you_mean(s, names));
}

double Dials::operator[](Dial d) const {
  switch (d) {
    case Dial::kQuality: return quality;
    case Dial::kLatency: return latency;
    case Dial::kThroughput: return throughput;
    case Dial::kCost: return cost;
    case Dial::kMemory: return memory;
  }
  return 0;
}

double& Dials::operator[](Dial d) {
  switch (d) {
    case Dial::kQuality: return quality;
    case Dial::kLatency: return latency;
    case Dial::kThroughput: return throughput;
    case Dial::kCost: return cost;
    case Dial::kMemory: break;
  }
  return memory;
}

Result<TradeoffWeights> make_weights(const Dials& raw, std::string_view field) {
  double sum = 0;
  for (Dial d : kAllDials) {
    const double v = raw[d];
    if (!std::isfinite(v) || v < 0) {
      return Status::InvalidArgument(field, "weight of " + std::string(dial_name(d)) +
                                                " must be a finite number >= 0, got " + error_number(v));
    }
    sum += v;
  }
  if (!(sum > 0) || !std::isfinite(sum)) {
    return Status::InvalidArgument(field, "at least one weight must be positive (and the sum finite)");
  }
  TradeoffWeights w;
  for (Dial d : kAllDials) w.w[d] = raw[d] / sum;
  w.given_sum = sum;
  return w;
}

Result<TradeoffWeights> parse_weights(std::string_view text, std::string_view field) {
  static constexpr std::string_view kForm = "expected dial=weight pairs such as quality=0.4,latency=0.3,cost=0.3";
  Dials raw;
  bool seen[kDialCount] = {};
  std::string_view rest = text;
  if (trim(rest).empty()) return Status::InvalidArgument(field, std::string("is empty; ") + std::string(kForm));
  while (true) {
    const size_t comma = rest.find(',');
    const std::string_view item = trim(rest.substr(0, comma));
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      return Status::InvalidArgument(field, "cannot read '" + std::string(item) + "'; " + std::string(kForm));
    }
    auto dial = parse_dial(item.substr(0, eq), field);
    if (!dial.ok()) return dial.status();
    const int i = static_cast<int>(*dial);
    if (seen[i]) {
      return Status::InvalidArgument(field, "dial '" + std::string(dial_name(*dial)) + "' is given twice");
    }
    seen[i] = true;
    const std::string_view num = trim(item.substr(eq + 1));
    double v = 0;
    auto [ptr, ec] = std::from_chars(num.data(), num.data() + num.size(), v);
    if (num.empty() || ec != std::errc() || ptr != num.data() + num.size() || !std::isfinite(v)) {
      return Status::InvalidArgument(field, "weight of " + std::string(dial_name(*dial)) + " must be a number, got '" +
                                                std::string(num) + "'");
    }
    if (v < 0) {
      return Status::InvalidArgument(field, "weight of " + std::string(dial_name(*dial)) +
                                                " must not be negative, got " + std::string(num));
    }
    raw[*dial] = v;
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  return make_weights(raw, field);
}

Status validate(const Candidate& c, std::string_view field) {
  if (c.name.empty()) return Status::InvalidArgument(field, "every candidate needs a non-empty name");
  for (const char ch : c.name) {
    const auto u = static_cast<unsigned char>(ch);
    if (u < 0x20 || u == 0x7f) {
      return Status::InvalidArgument(field, "a candidate's name must be one line of printable text (no newline, tab "
                                            "or other control character), got '" + c.name + "'");
    }
  }
  for (Dial d : kAllDials) {
    const double v = c.dials[d];
    if (!std::isfinite(v) || v <= 0) {
      return Status::InvalidArgument(field, "candidate '" + c.name + "': " + std::string(dial_name(d)) +
                                                " must be a positive number (dials are compared as ratios), got " +
                                                error_number(v));
    }
  }
  return Status::Ok();
}

Result<TradeoffResult> resolve_tradeoff(const Candidate& a, const Candidate& b, const TradeoffWeights& weights) {
  MC_RETURN_IF_ERROR(validate(a));
  MC_RETURN_IF_ERROR(validate(b));
  if (a.name == b.name) {
    return Status::InvalidArgument("candidate", "the two candidates need different names, both are '" + a.name + "'");
  }
  // Dials are compared as ratios: a ratio that is not a finite number compares nothing.
  for (Dial d : kAllDials) {
    const double hi = std::max(a.dials[d], b.dials[d]), lo = std::min(a.dials[d], b.dials[d]);
    if (!std::isfinite(hi / lo) || hi / lo > 1e15) {
      return Status::InvalidArgument("candidate", std::string(dial_name(d)) + " differs by more than 1e15× between '" +
                                                      a.name + "' (" + error_number(a.dials[d]) + ") and '" + b.name +
                                                      "' (" + error_number(b.dials[d]) +
                                                      "); give both in the same unit, within 1e15× of each other");
    }
  }
  TradeoffResult r;
  for (Dial d : kAllDials) {
    r.normalized_a[d] = normalized(d, a.dials[d], a.dials[d], b.dials[d]);
    r.normalized_b[d] = normalized(d, b.dials[d], a.dials[d], b.dials[d]);
    r.score_a += weights.w[d] * r.normalized_a[d];
    r.score_b += weights.w[d] * r.normalized_b[d];
  }
  r.margin = std::fabs(r.score_a - r.score_b);
  if (r.margin <= 1e-12) {
    r.winner = Winner::kTie;
    r.margin = 0;
    return r;
  }
  r.winner = r.score_a > r.score_b ? Winner::kA : Winner::kB;
  const bool a_wins = r.winner == Winner::kA;
  Dial best = Dial::kQuality;
  for (Dial d : kAllDials) {
    const double diff = a_wins ? r.normalized_a[d] - r.normalized_b[d] : r.normalized_b[d] - r.normalized_a[d];
    r.contribution[d] = weights.w[d] * diff;
    if (r.contribution[d] > r.contribution[best]) best = d;
  }
  r.deciding_dial = best;
  r.deciding_weight = weights.w[best];
  const Candidate& w = a_wins ? a : b;
  const Candidate& l = a_wins ? b : a;
  r.deciding_edge = edge(best, w.dials[best], l.dials[best]);
  for (Dial x : kAllDials) {
    if (weights.w[x] > 0 && r.contribution[x] < 0) r.loser_leads.push_back(x);
  }
  return r;
}

}  // namespace modelcalc
