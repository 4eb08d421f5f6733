// resolve_tradeoff and the weights, against scores derived by hand.
#include "modelcalc/tradeoff.h"

#include <gtest/gtest.h>

#include <cmath>

#include <vector>

namespace modelcalc {
namespace {

// Per-dial normalization (the better scores 1, the other worse/better):
//            big    small   s_big            s_small
// quality    0.9    0.6     1                0.6/0.9 = 2/3
// latency    200    100     100/200 = 0.5    1
// throughput 1000   2000    0.5              1
// cost       4      1       1/4 = 0.25       1
// memory     160    20      20/160 = 0.125   1
Candidate Big() { return {"big", {.quality = 0.9, .latency = 200, .throughput = 1000, .cost = 4, .memory = 160}}; }
Candidate Small() { return {"small", {.quality = 0.6, .latency = 100, .throughput = 2000, .cost = 1, .memory = 20}}; }

TradeoffWeights W(std::string_view text) {
  auto w = parse_weights(text, "--weights");
  EXPECT_TRUE(w.ok()) << w.status().message();
  return *w;
}

TEST(TradeoffTest, NormalizesPerDialBetweenTheTwo) {
  auto r = resolve_tradeoff(Big(), Small(), W("quality=1"));
  ASSERT_TRUE(r.ok());
  EXPECT_DOUBLE_EQ(r->normalized_a.quality, 1.0);
  EXPECT_DOUBLE_EQ(r->normalized_b.quality, 0.6 / 0.9);
  EXPECT_DOUBLE_EQ(r->normalized_a.latency, 0.5);
  EXPECT_DOUBLE_EQ(r->normalized_b.latency, 1.0);
  EXPECT_DOUBLE_EQ(r->normalized_a.throughput, 0.5);
  EXPECT_DOUBLE_EQ(r->normalized_a.cost, 0.25);
  EXPECT_DOUBLE_EQ(r->normalized_a.memory, 0.125);
  EXPECT_DOUBLE_EQ(r->normalized_b.memory, 1.0);
}

TEST(TradeoffTest, QualityFirstWeightsPickTheBigModel) {
  // quality 0.8, cost 0.2: big = 0.8·1 + 0.2·0.25 = 0.85; small = 0.8·(2/3) + 0.2·1 = 0.7333...
  // Margin 0.11666...; contributions (big − small): quality 0.8·(1/3) = 0.2666..., cost 0.2·(0.25 − 1) = −0.15.
  auto r = resolve_tradeoff(Big(), Small(), W("quality=0.8,cost=0.2"));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->winner, Winner::kA);
  EXPECT_NEAR(r->score_a, 0.85, 1e-12);
  EXPECT_NEAR(r->score_b, 0.8 * 2 / 3 + 0.2, 1e-12);
  EXPECT_NEAR(r->margin, 0.85 - (0.8 * 2 / 3 + 0.2), 1e-12);
  EXPECT_NEAR(r->contribution.quality, 0.8 / 3, 1e-12);
  EXPECT_NEAR(r->contribution.cost, -0.15, 1e-12);
  EXPECT_EQ(r->contribution.latency, 0.0);  // weight 0
  ASSERT_TRUE(r->deciding_dial.has_value());
  EXPECT_EQ(*r->deciding_dial, Dial::kQuality);
  // What the sentence cites (src/report/tradeoff_text_test.cc checks its words):
  EXPECT_DOUBLE_EQ(r->deciding_weight, 0.8);
  EXPECT_NEAR(r->deciding_edge, 0.9 / 0.6, 1e-12);  // big's quality over small's
  EXPECT_EQ(r->loser_leads, std::vector<Dial>{Dial::kCost});
}

TEST(TradeoffTest, TheSameCandidatesFlipUnderOtherWeights) {
  // quality 0.4, latency 0.3, cost 0.3: big = 0.4 + 0.3·0.5 + 0.3·0.25 = 0.625;
  // small = 0.4·(2/3) + 0.3 + 0.3 = 0.8666...; contributions (small − big): quality −0.1333...,
  // latency 0.3·0.5 = 0.15, cost 0.3·0.75 = 0.225 -> cost decides.
  auto r = resolve_tradeoff(Big(), Small(), W("quality=0.4,latency=0.3,cost=0.3"));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->winner, Winner::kB);
  EXPECT_NEAR(r->score_a, 0.625, 1e-12);
  EXPECT_NEAR(r->score_b, 0.4 * 2 / 3 + 0.6, 1e-12);
  EXPECT_NEAR(r->contribution.quality, -0.4 / 3, 1e-12);
  EXPECT_NEAR(r->contribution.latency, 0.15, 1e-12);
  EXPECT_NEAR(r->contribution.cost, 0.225, 1e-12);
  EXPECT_EQ(*r->deciding_dial, Dial::kCost);
  EXPECT_DOUBLE_EQ(r->deciding_weight, 0.3);
  EXPECT_DOUBLE_EQ(r->deciding_edge, 4);  // cost 4 vs 1
  EXPECT_EQ(r->loser_leads, std::vector<Dial>{Dial::kQuality});
}

TEST(TradeoffTest, LatencyCanDecide) {
  // quality 0.5, latency 0.5: big = 0.5 + 0.25 = 0.75; small = 0.3333... + 0.5 = 0.8333...;
  // contributions (small − big): quality −0.1666..., latency 0.25 -> latency decides.
  auto r = resolve_tradeoff(Big(), Small(), W("quality=0.5,latency=0.5"));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->winner, Winner::kB);
  EXPECT_EQ(*r->deciding_dial, Dial::kLatency);
  EXPECT_NEAR(r->margin, 0.5 * 2 / 3 + 0.5 - 0.75, 1e-12);
}

TEST(TradeoffTest, ContributionsSumToTheMargin) {
  auto r = resolve_tradeoff(Big(), Small(), W("quality=3,latency=1,throughput=1,cost=2,memory=1"));
  ASSERT_TRUE(r.ok());
  double sum = 0;
  for (Dial d : kAllDials) sum += r->contribution[d];
  EXPECT_NEAR(sum, r->margin, 1e-12);
}

TEST(TradeoffTest, SwappingTheCandidatesSwapsTheWinner) {
  const TradeoffWeights w = W("quality=0.4,latency=0.3,cost=0.3");
  auto ab = resolve_tradeoff(Big(), Small(), w);
  auto ba = resolve_tradeoff(Small(), Big(), w);
  ASSERT_TRUE(ab.ok() && ba.ok());
  EXPECT_EQ(ab->winner, Winner::kB);
  EXPECT_EQ(ba->winner, Winner::kA);
  EXPECT_DOUBLE_EQ(ab->score_a, ba->score_b);
  EXPECT_EQ(ab->deciding_dial, ba->deciding_dial);
}

TEST(TradeoffTest, UnitsCancel) {
  // Latency in ms instead of s, memory in bytes instead of GB: same scores.
  Candidate a = Big(), b = Small();
  const TradeoffWeights w = W("quality=1,latency=1,memory=1");
  auto before = resolve_tradeoff(a, b, w);
  a.dials.latency *= 1000;
  b.dials.latency *= 1000;
  a.dials.memory *= 1e9;
  b.dials.memory *= 1e9;
  auto after = resolve_tradeoff(a, b, w);
  ASSERT_TRUE(before.ok() && after.ok());
  EXPECT_NEAR(before->score_a, after->score_a, 1e-12);
  EXPECT_NEAR(before->score_b, after->score_b, 1e-12);
}

TEST(TradeoffTest, IdenticalCandidatesTie) {
  Candidate a = Big(), b = Big();
  b.name = "big-copy";
  auto r = resolve_tradeoff(a, b, W("quality=1,cost=1"));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->winner, Winner::kTie);
  EXPECT_FALSE(r->deciding_dial.has_value());
  EXPECT_EQ(r->margin, 0.0);
  EXPECT_EQ(r->deciding_weight, 0.0);
  EXPECT_TRUE(r->loser_leads.empty());
}

TEST(TradeoffTest, InvalidCandidatesAreRefused) {
  Candidate zero = Big();
  zero.dials.cost = 0;  // a ratio against zero means nothing
  EXPECT_FALSE(resolve_tradeoff(zero, Small(), W("cost=1")).ok());
  Candidate negative = Big();
  negative.dials.latency = -5;
  auto r = resolve_tradeoff(negative, Small(), W("cost=1"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("latency"), std::string::npos);
  Candidate nan = Big();
  nan.dials.quality = std::nan("");
  EXPECT_FALSE(resolve_tradeoff(nan, Small(), W("cost=1")).ok());
  EXPECT_FALSE(resolve_tradeoff(Big(), Big(), W("cost=1")).ok());  // same name
  Candidate unnamed = Big();
  unnamed.name.clear();
  EXPECT_FALSE(resolve_tradeoff(unnamed, Small(), W("cost=1")).ok());
}

TEST(TradeoffWeightsTest, NormalizesToSumOne) {
  // 2 + 2 = 4: each becomes 0.5; the given sum is kept so the report can say so.
  const TradeoffWeights w = W("quality=2, cost=2");
  EXPECT_DOUBLE_EQ(w.w.quality, 0.5);
  EXPECT_DOUBLE_EQ(w.w.cost, 0.5);
  EXPECT_DOUBLE_EQ(w.w.latency, 0.0);
  EXPECT_DOUBLE_EQ(w.given_sum, 4.0);
  // Already normalized: unchanged (0.4 + 0.3 + 0.3 = 1).
  const TradeoffWeights u = W("QUALITY=0.4,latency=0.3,cost=0.3");
  EXPECT_NEAR(u.w.quality, 0.4, 1e-15);
  EXPECT_NEAR(u.given_sum, 1.0, 1e-15);
}

TEST(TradeoffWeightsTest, BadWeightsNameTheFieldAndWhatIsAllowed) {
  struct Case {
    const char* text;
    const char* expect;
  };
  const Case cases[] = {
      {"quality=-1", "must not be negative"},
      {"qualty=0.4", "did you mean 'quality'"},
      {"speed=1", "the dials are quality, latency, throughput, cost, memory"},
      {"quality", "dial=weight"},
      {"quality=abc", "must be a number"},
      {"quality=0.4x", "must be a number"},
      {"quality=", "must be a number"},
      {"quality=0,cost=0", "at least one weight must be positive"},
      {"quality=0.4,quality=0.2", "given twice"},
      {"", "is empty"},
      {"quality=0.4,", "dial"},
  };
  for (const Case& c : cases) {
    auto w = parse_weights(c.text, "--weights");
    ASSERT_FALSE(w.ok()) << c.text;
    EXPECT_EQ(w.status().message().rfind("--weights: ", 0), 0u) << w.status().message();
    EXPECT_NE(w.status().message().find(c.expect), std::string::npos) << c.text << " -> " << w.status().message();
  }
  EXPECT_FALSE(make_weights({.quality = INFINITY}).ok());
}

TEST(TradeoffTest, DialNamesAndDirections) {
  EXPECT_EQ(dial_direction(Dial::kQuality), Direction::kHigherIsBetter);
  EXPECT_EQ(dial_direction(Dial::kThroughput), Direction::kHigherIsBetter);
  EXPECT_EQ(dial_direction(Dial::kLatency), Direction::kLowerIsBetter);
  EXPECT_EQ(dial_direction(Dial::kCost), Direction::kLowerIsBetter);
  EXPECT_EQ(dial_direction(Dial::kMemory), Direction::kLowerIsBetter);
  for (Dial d : kAllDials) {
    auto p = parse_dial(dial_name(d), "x");
    ASSERT_TRUE(p.ok());
    EXPECT_EQ(*p, d);
    Dials v;
    v[d] = 7;
    EXPECT_EQ(v[d], 7);
  }
}

}  // namespace
}  // namespace modelcalc
