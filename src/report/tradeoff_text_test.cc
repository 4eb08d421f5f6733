// The tradeoff decision sentence, worded from resolve_tradeoff's numbers.
#include "tradeoff_text.h"

#include <gtest/gtest.h>

namespace modelcalc {
namespace {

// The candidates of src/core/tradeoff_test.cc (scores derived there):
//            big    small   s_big   s_small
// quality    0.9    0.6     1       2/3
// latency    200    100     0.5     1
// cost       4      1       0.25    1
Candidate Big() { return {"big", {.quality = 0.9, .latency = 200, .throughput = 1000, .cost = 4, .memory = 160}}; }
Candidate Small() { return {"small", {.quality = 0.6, .latency = 100, .throughput = 2000, .cost = 1, .memory = 20}}; }

std::string sentence(const Candidate& a, const Candidate& b, std::string_view weights) {
  auto w = parse_weights(weights, "--weights");
  EXPECT_TRUE(w.ok());
  auto r = resolve_tradeoff(a, b, *w);
  EXPECT_TRUE(r.ok());
  return tradeoff_sentence(a, b, *r);
}

TEST(TradeoffText, TheWinnerTheDecidingDialAndTheLosersLead) {
  // big 0.85, small 0.8·2/3 + 0.2 = 0.7333 (3 decimals: 0.850, 0.733); quality's edge 0.9/0.6 = 1.5×;
  // its contribution 0.8·(1 − 2/3) = 0.2667 -> 0.267; margin 0.85 − 0.7333 = 0.1167 -> 0.117;
  // small leads on cost (1 vs 4), weighted 0.2.
  EXPECT_EQ(sentence(Big(), Small(), "quality=0.8,cost=0.2"),
            "Choose big over small (0.850 vs 0.733): quality decided it — 1.5× higher quality (0.9 vs 0.6) at "
            "weight 0.80 adds 0.267 to a final margin of 0.117, outweighing small's lead on cost.");
}

TEST(TradeoffText, ALowerIsBetterDialSaysLower) {
  // big 0.4 + 0.15 + 0.075 = 0.625; small 0.4·2/3 + 0.3 + 0.3 = 0.8667 -> 0.867; cost decides:
  // 4/1 = 4× lower, contribution 0.3·(1 − 0.25) = 0.225, margin 0.8667 − 0.625 = 0.2417 -> 0.242.
  EXPECT_EQ(sentence(Big(), Small(), "quality=0.4,latency=0.3,cost=0.3"),
            "Choose small over big (0.867 vs 0.625): cost decided it — 4× lower cost (1 vs 4) at weight 0.30 "
            "adds 0.225 to a final margin of 0.242, outweighing big's lead on quality.");
}

TEST(TradeoffText, ATieSaysSo) {
  Candidate copy = Big();
  copy.name = "big-copy";
  // Identical dials: every normalized score is 1, so both score 1.
  EXPECT_EQ(sentence(Big(), copy, "quality=1,cost=1"),
            "big and big-copy tie at 1.000 under these weights: no dial decides, so decide on something the five "
            "dials do not capture.");
}

}  // namespace
}  // namespace modelcalc
