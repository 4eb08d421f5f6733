#include "suggest.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace modelcalc {
namespace {

TEST(Suggest, NormalizesCaseAndSeparators) { EXPECT_EQ(normalize_name("H100-SXM_5.x y"), "h100sxm5xy"); }

TEST(Suggest, ATypoWithinAThirdOfTheLongerNameIsSuggested) {
  // "abcdef" vs "bcde": delete 'a' and 'f', distance 2; 2·3 = 6 <= max(6, 4) = 6, so it is close.
  const std::vector<std::string> names{"bcde"};
  EXPECT_EQ(closest_names("abcdef", names), names);
}

TEST(Suggest, MoreThanAThirdApartIsNotSuggested) {
  // "abcdefg" vs "bcde": distance 3 (the length gap), 3·3 = 9 > max(7, 4) = 7.
  const std::vector<std::string> names{"bcde"};
  EXPECT_TRUE(closest_names("abcdefg", names).empty());
}

TEST(Suggest, AHugeValueIsJudgedByItsLengthAlone) {
  // 10^5 characters against 4-character names: the distance is at least the
  // length gap, far beyond a third, so nothing is suggested (and no 10^5 × 4
  // table is filled per name). A prefix still matches whatever the length.
  const std::vector<std::string> names{"h100", "a100", "l40s"};
  EXPECT_TRUE(closest_names(std::string(100000, 'x'), names).empty());
  EXPECT_EQ(closest_names("h100" + std::string(100000, 'x'), names), std::vector<std::string>{"h100"});
}

TEST(Suggest, DidYouMeanListsUpToThreeClosestFirst) {
  // "h10" is a prefix of both h100 and h1000 (score 0, catalog order kept);
  // "a10" is one edit away (3 <= 3).
  const std::vector<std::string> names{"h100", "a10", "h1000", "zzz"};
  EXPECT_EQ(did_you_mean("h10", names), "; did you mean 'h100', 'h1000' or 'a10'?");
}

TEST(Suggest, ALongFlagIsComparedWithLongFlagsOnly) {
  const std::vector<std::string> flags{"-d", "--dp", "--dp-attention", "-h", "--hidden", "--heads", "-L", "--seq",
                                       "--max-num-seqs"};
  // "dpatention" vs "dpattention": one insertion. "-d" normalizes to "d", a prefix of it, but is short.
  // "--dp" ("dp") is a prefix too, yet 8 edits away: the nearer long flag wins.
  EXPECT_EQ(closest_flag("--dp-atention", flags), "--dp-attention");
  EXPECT_EQ(closest_flag("--hiden", flags), "--hidden");  // "hiden" vs "hidden": 1; vs "heads": 4
  EXPECT_EQ(closest_flag("--seqq", flags), "--seq");      // one deletion
  EXPECT_EQ(closest_flag("--max-num", flags), "--max-num-seqs");  // the typed name begins it
  EXPECT_EQ(closest_flag("-l", flags), "-L");              // a short flag: short ones (case folded)
  EXPECT_EQ(closest_flag("--zzzzzz", flags), "");          // nothing within a third
}

}  // namespace
}  // namespace modelcalc
