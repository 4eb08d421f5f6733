// The table reader: which lines it yields, their numbers, and the fields.
#include "tsv.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace modelcalc {
namespace {

// Every line TsvLines yields, with its number, as "n:text".
std::vector<std::string> yielded(std::string_view text) {
  std::vector<std::string> out;
  TsvLines lines(text);
  for (std::string_view line; lines.next(&line);) out.push_back(std::to_string(lines.line_no()) + ":" + std::string(line));
  return out;
}

TEST(Tsv, SkipsBlankAndCommentLinesAndNumbersEveryLine) {
  // Lines: 1 "# c", 2 "", 3 "a\tb" (CRLF), 4 "\r" (blank once the CR goes), 5 "c".
  TsvLines lines("# c\n\na\tb\r\n\r\nc");
  EXPECT_EQ(lines.line_no(), 0);  // nothing read yet
  std::string_view line;
  ASSERT_TRUE(lines.next(&line));
  EXPECT_EQ(line, "a\tb");
  EXPECT_EQ(lines.line_no(), 3);
  ASSERT_TRUE(lines.next(&line));
  EXPECT_EQ(line, "c");
  EXPECT_EQ(lines.line_no(), 5);
  EXPECT_FALSE(lines.next(&line));
  EXPECT_FALSE(lines.next(&line));  // stays exhausted
}

TEST(Tsv, EmptyTextHasNoLines) {
  EXPECT_TRUE(yielded("").empty());
  EXPECT_TRUE(yielded("\n\n\r\n").empty());      // three blank lines
  EXPECT_TRUE(yielded("#a\n# b\r\n#").empty());  // three comments, the last without '\n'
}

TEST(Tsv, ATrailingNewlineEndsTheLastLineAndAddsNone) {
  // "x\n" and "x" are the same one-line table.
  EXPECT_EQ(yielded("x\n"), (std::vector<std::string>{"1:x"}));
  EXPECT_EQ(yielded("x"), (std::vector<std::string>{"1:x"}));
  EXPECT_EQ(yielded("x\ny\n"), (std::vector<std::string>{"1:x", "2:y"}));
}

TEST(Tsv, OnlyALeadingHashIsAComment) {
  // Line 1 starts with a space, line 2 has '#' inside a field: both are data.
  EXPECT_EQ(yielded(" #x\na\t#b\n"), (std::vector<std::string>{"1: #x", "2:a\t#b"}));
}

TEST(Tsv, OnlyOneTrailingCarriageReturnIsDropped) {
  // "a\rb" keeps its inner '\r'; "c\r\r" loses one '\r' (the CRLF's), keeping "c\r".
  EXPECT_EQ(yielded("a\rb\nc\r\r\n"), (std::vector<std::string>{"1:a\rb", "2:c\r"}));
  // A CR-only file is one line: '\n' is the only line break.
  EXPECT_EQ(yielded("a\rb\r"), (std::vector<std::string>{"1:a\rb"}));
}

TEST(Tsv, SplitKeepsEmptyFields) {
  EXPECT_EQ(split_fields("abc"), (std::vector<std::string_view>{"abc"}));
  EXPECT_EQ(split_fields("a\t\tb"), (std::vector<std::string_view>{"a", "", "b"}));
  EXPECT_EQ(split_fields(""), (std::vector<std::string_view>{""}));
  EXPECT_EQ(split_fields("\t"), (std::vector<std::string_view>{"", ""}));  // one separator, two fields
  EXPECT_EQ(split_fields("x\t"), (std::vector<std::string_view>{"x", ""}));
  EXPECT_EQ(split_fields("\tx"), (std::vector<std::string_view>{"", "x"}));
  EXPECT_EQ(split_fields("p,q", ','), (std::vector<std::string_view>{"p", "q"}));
  EXPECT_EQ(split_fields("p\tq,r", ','), (std::vector<std::string_view>{"p\tq", "r"}));  // only `sep` splits
}

TEST(Tsv, FieldsPointIntoTheLine) {
  const std::string_view line = "ab\tcd";
  const auto f = split_fields(line);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].data(), line.data());
  EXPECT_EQ(f[1].data(), line.data() + 3);  // after "ab\t"
}

// A field is a number only when all of it is: no spaces, no trailing text, and a real must be finite.
TEST(Tsv, FieldNumbersAreWholeFields) {
  int64_t n = 0;
  EXPECT_TRUE(tsv_int("128", &n));
  EXPECT_EQ(n, 128);
  EXPECT_TRUE(tsv_int("-3", &n));
  EXPECT_EQ(n, -3);
  for (const char* bad : {"", " 1", "1 ", "12x", "1.5", "+1"}) EXPECT_FALSE(tsv_int(bad, &n)) << bad;
  double x = 0;
  EXPECT_TRUE(tsv_real("1e3", &x));
  EXPECT_EQ(x, 1000.0);
  EXPECT_TRUE(tsv_real("0.875", &x));
  EXPECT_EQ(x, 0.875);
  for (const char* bad : {"", "inf", "nan", "1.0.0", "2 "}) EXPECT_FALSE(tsv_real(bad, &x)) << bad;
}

}  // namespace
}  // namespace modelcalc
