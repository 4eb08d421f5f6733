// EPLB's placement (deepseek-ai/EPLB eplb.py: replicate_experts, then balanced_packing) on the assumed loads
// (eplb.h), worked by hand.
#include "modelcalc/eplb.h"

#include <gtest/gtest.h>

namespace modelcalc {
namespace {

TEST(EplbTest, WithoutRedundantSlotsTheImbalanceStandsAsStated) {
  EXPECT_DOUBLE_EQ(eplb_imbalance(256, 0, 32, 1.3), 1.3);
  EXPECT_DOUBLE_EQ(eplb_imbalance(256, 32, 1, 1.3), 1.3);
}

// 6 experts on 2 ranks, I = 1.5: the first rank's 3 experts carry 1.5 each (4.5 = 1.5 x the mean rank's 3), the
// other 3 carry (6 - 4.5) / 3 = 0.5. Two redundant slots go to experts 0 and 1 (1.5 per replica, the most):
// replicas 1.5, 0.75 x 4, 0.5 x 3, four per rank. Heaviest first into the lighter rank with room:
// r0 1.5 | r1 0.75 | r1 1.5 | r0 2.25 | r1 2.25 | r0 2.75 | r1 2.75 (full) | r0 3.25. Busiest 3.25 / 3.
TEST(EplbTest, ASmallCaseByHand) { EXPECT_DOUBLE_EQ(eplb_imbalance(6, 2, 2, 1.5), 3.25 / 3); }

// DeepSeek-V3's 256 experts over 32 ranks with 32 redundant slots (SGLang's large-EP deployment), I = 1.3:
// 8 hot experts at 1.3, 248 at (256 - 10.4) / 248 = 0.990323. The slots go to the 8 hot ones (-> 0.65 each)
// and then to 24 cold ones (-> 0.495161 each). Packed 9 to a rank: the 224 whole cold experts 7 to a rank
// (6.932258), the 16 hot halves to 16 ranks, the 48 cold halves to the lightest: the busiest holds
// 7 x 0.990323 + 0.65 + 0.495161 = 8.077419, over the mean 8: 1.009677.
TEST(EplbTest, DeepSeekV3At32RanksWith32RedundantSlots) {
  const double cold = (256 - 1.3 * 8) / 248;
  EXPECT_NEAR(eplb_imbalance(256, 32, 32, 1.3), (7 * cold + 0.65 + cold / 2) / 8, 1e-12);
  EXPECT_NEAR(eplb_imbalance(256, 32, 32, 1.3), 1.009677, 1e-6);
}

// More slots never leave the busiest rank heavier than fewer (here), and none is below 1.
TEST(EplbTest, MoreSlotsBalanceBetter) {
  const double a = eplb_imbalance(256, 32, 32, 1.5), b = eplb_imbalance(256, 64, 32, 1.5);
  EXPECT_LE(b, a);
  EXPECT_GE(b, 1.0);
  EXPECT_LT(a, 1.5);
}

}  // namespace
}  // namespace modelcalc
