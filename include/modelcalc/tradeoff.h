// The lab's tradeoff resolver: two candidate designs scored on five dials
// under a workload's weights, returning the winner, both scores and the dial
// that decided it — the one sentence for a decision record. The point: the
// same two candidates flip winners when the weights change, so "best model"
// only means something for given weights.
//
// Normalization (per dial, between the two candidates only, so units cancel):
// the better of the two values scores 1 and the other scores the ratio of the
// two, worse-over-better in the dial's sense:
//   higher is better (quality, throughput):  s(x) = x / max(a, b)
//   lower is better (latency, cost, memory): s(x) = min(a, b) / x
// A candidate that is k× better on a dial therefore leads by 1 − 1/k there,
// the same in both directions, whatever the unit. A candidate's score is
// Σ w_dial · s_dial with the weights summing to 1, so scores lie in (0, 1].
// Each dial contributes w · (s_winner − s_loser) to the winning margin; the
// deciding dial is the one contributing most.
// Consequences worth knowing: values must be positive ratio-scale numbers
// (a ratio of two latencies means something; a ratio of two Celsius
// temperatures would not), and a small relative edge counts little (accuracy
// 0.80 vs 0.75 is a 6 % edge; a 4× cost gap is a 75 % edge). If a quality gap
// matters more than its ratio, weight it accordingly or use a score whose
// ratios mean what you intend (e.g. a win rate).
#ifndef MODELCALC_TRADEOFF_H_
#define MODELCALC_TRADEOFF_H_

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "modelcalc/status.h"

namespace modelcalc {

enum class Dial { kQuality, kLatency, kThroughput, kCost, kMemory };
inline constexpr std::array<Dial, 5> kAllDials = {Dial::kQuality, Dial::kLatency, Dial::kThroughput,
                                                  Dial::kCost, Dial::kMemory};
inline constexpr int kDialCount = static_cast<int>(kAllDials.size());

enum class Direction { kHigherIsBetter, kLowerIsBetter };

constexpr Direction dial_direction(Dial d) {
  return d == Dial::kQuality || d == Dial::kThroughput ? Direction::kHigherIsBetter
                                                       : Direction::kLowerIsBetter;
}
// "quality", "latency", "throughput", "cost", "memory".
std::string_view dial_name(Dial d);
// Parses a dial name (case-insensitive). On failure the Status names `field`,
// suggests the closest dial and lists the five.
Result<Dial> parse_dial(std::string_view text, std::string_view field);

// One number per dial. Units are the caller's, but must match between the two
// candidates of a comparison (they cancel in the ratio). Suggested units:
// quality a benchmark score or win rate, latency seconds per token (or ms),
// throughput tokens/s, cost USD per 1M tokens, memory bytes (or GB).
struct Dials {
  double quality = 0;     // higher is better
  double latency = 0;     // lower is better
  double throughput = 0;  // higher is better
  double cost = 0;        // lower is better
  double memory = 0;      // lower is better

  double operator[](Dial d) const;
  double& operator[](Dial d);
};

struct Candidate {
  std::string name;
  Dials dials;  // every dial finite and > 0
};

// Weights normalized to sum to 1; build with make_weights or parse_weights.
struct TradeoffWeights {
  Dials w;          // each >= 0, sum 1
  double given_sum = 1;  // the sum before normalization (1 when already normalized)
};

// Validates raw weights (each finite and >= 0, at least one > 0) and
// normalizes them to sum to 1. Dials left at 0 do not count.
Result<TradeoffWeights> make_weights(const Dials& raw, std::string_view field = "weights");
// Parses "quality=0.4,latency=0.3,cost=0.3" (dial=number, comma-separated,
// each dial at most once, unnamed dials 0), then make_weights. Errors name
// `field` and say what is allowed.
Result<TradeoffWeights> parse_weights(std::string_view text, std::string_view field);

// Checks a candidate: a non-empty name and every dial finite and > 0. Errors
// name `field` (e.g. the file) plus the candidate and dial.
Status validate(const Candidate& c, std::string_view field = "candidate");

// Parses a candidates file's text: a JSON array of exactly two objects, each
// with a "name" and all five dials as numbers, the names different. Strict
// JSON (no duplicate keys); errors are one line naming `source`.
Result<std::vector<Candidate>> parse_candidates_json(std::string_view json_text, std::string_view source);

enum class Winner { kA, kB, kTie };

struct TradeoffResult {
  Winner winner = Winner::kTie;
  double score_a = 0, score_b = 0;       // Σ w · s, in (0, 1]
  Dials normalized_a, normalized_b;      // s per dial, in (0, 1]
  // w · (s_winner − s_loser) per dial; sums to the margin. All 0 on a tie.
  Dials contribution;
  std::optional<Dial> deciding_dial;     // empty on a tie
  double margin = 0;                     // |score_a − score_b|
  // What the decision-record sentence cites (src/report/tradeoff_text.h words it):
  double deciding_weight = 0;            // the deciding dial's weight (normalized); 0 on a tie
  double deciding_edge = 0;              // the winner's k× edge on it (better over worse, >= 1)
  std::vector<Dial> loser_leads;         // weighted dials on which the loser scores higher
};

// Scores `a` against `b` under `weights` (see the header comment). Scores
// within 1e-12 of each other are a tie. Fails when a candidate is invalid
// (validate) or both have the same name.
Result<TradeoffResult> resolve_tradeoff(const Candidate& a, const Candidate& b,
                                        const TradeoffWeights& weights);

}  // namespace modelcalc

#endif  // MODELCALC_TRADEOFF_H_
