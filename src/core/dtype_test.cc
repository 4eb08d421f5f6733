// The dtype table against the formats' definitions, each expectation derived by
// hand (formula in the comment).
#include "modelcalc/dtype.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "modelcalc/formulas.h"

namespace modelcalc {
namespace {

TEST(DtypeTableTest, SeedSizesStayExact) {
  // The seed: fp32 4 B, fp16/bf16 2 B, fp8/int8 1 B, int4 0.5 B per element.
  EXPECT_EQ(dtype_bits(Dtype::kFp32), 32);
  EXPECT_EQ(dtype_bits(Dtype::kFp16), 16);
  EXPECT_EQ(dtype_bits(Dtype::kBf16), 16);
  EXPECT_EQ(dtype_bits(Dtype::kFp8), 8);
  EXPECT_EQ(dtype_bits(Dtype::kInt8), 8);
  EXPECT_EQ(dtype_bits(Dtype::kInt4), 4);
  EXPECT_EQ(dtype_bytes(Dtype::kFp32), 4.0);
  EXPECT_EQ(dtype_bytes(Dtype::kBf16), 2.0);
  EXPECT_EQ(dtype_bytes(Dtype::kFp8), 1.0);
  EXPECT_EQ(dtype_bytes(Dtype::kInt4), 0.5);  // checkpoint group scales are not in the textbook b
  // 7B parameters: fp16 14e9 B, int4 3.5e9 B (the seed's N x b).
  EXPECT_EQ(weight_memory_bytes(7'000'000'000, Dtype::kFp16).value(), 14'000'000'000);
  EXPECT_EQ(weight_memory_bytes(7'000'000'000, Dtype::kInt4).value(), 3'500'000'000);
}

TEST(DtypeTableTest, Fp4BytesPerElementCountTheFormatsScales) {
  // NVFP4: 4 bits + one 8-bit E4M3 scale per 16 = 4.5 bits = 0.5625 B.
  // MXFP4: 4 bits + one 8-bit E8M0 scale per 32 = 4.25 bits = 0.53125 B.
  EXPECT_EQ(dtype_bits(Dtype::kNvfp4), 4);
  EXPECT_EQ(dtype_bits(Dtype::kMxfp4), 4);
  EXPECT_EQ(dtype_bytes(Dtype::kNvfp4), 0.5625);
  EXPECT_EQ(dtype_bytes(Dtype::kMxfp4), 0.53125);
  // 7B parameters (a multiple of 32): NVFP4 7e9 x 0.5625 = 3,937,500,000 B;
  // MXFP4 7e9 x 0.53125 = 3,718,750,000 B.
  EXPECT_EQ(weight_memory_bytes(7'000'000'000, Dtype::kNvfp4).value(), 3'937'500'000);
  EXPECT_EQ(weight_memory_bytes(7'000'000'000, Dtype::kMxfp4).value(), 3'718'750'000);
  // 10 elements: ceil(10 x 4 / 8) = 5 B of values + ceil(10 / 16) = 1 scale of 1 B = 6 B.
  EXPECT_EQ(weight_memory_bytes(10, Dtype::kNvfp4).value(), 6);
}

TEST(DtypeTableTest, MatrixBytesPerFormat) {
  const Exact n = 4096;
  // NVFP4 4096 x 4096: 4096 x 4096 x 4 / 8 = 8,388,608 B of values
  // + 4096 x 4096 / 16 = 1,048,576 one-byte E4M3 scales + one fp32 tensor scale 4 B = 9,437,188.
  EXPECT_EQ(matrix_bytes(n, n, Dtype::kNvfp4, 128).value(), 9'437'188);
  // MXFP4: 8,388,608 + 4096 x 4096 / 32 = 524,288 one-byte E8M0 scales = 8,912,896 (no tensor scale).
  EXPECT_EQ(matrix_bytes(n, n, Dtype::kMxfp4, 128).value(), 8'912'896);
  // int4, group 128: 8,388,608 + 4096 rows x 4096 / 128 = 131,072 fp16 scales x 2 B = 8,650,752.
  EXPECT_EQ(matrix_bytes(n, n, Dtype::kInt4, 128).value(), 8'650'752);
  // int8, group 64: 16,777,216 + 4096 x 64 x 2 B = 17,301,504.
  EXPECT_EQ(matrix_bytes(n, n, Dtype::kInt8, 64).value(), 17'301'504);
  // fp8 without block scales: 16,777,216; with 128 x 128 fp32 blocks: + 32 x 32 x 4 B = 16,781,312.
  EXPECT_EQ(matrix_bytes(n, n, Dtype::kFp8, 128).value(), 16'777'216);
  EXPECT_EQ(matrix_bytes(n, n, Dtype::kFp8, 128, true).value(), 16'781'312);
  // bf16: 2 B each, no scales: 33,554,432.
  EXPECT_EQ(matrix_bytes(n, n, Dtype::kBf16, 128).value(), 33'554'432);
}

TEST(DtypeTableTest, MatrixBytesRoundPartialGroupsUp) {
  // NVFP4 3 x 20: values ceil(60 x 4 / 8) = 30 B; each row ceil(20 / 16) = 2 scales -> 6 B;
  // tensor scale 4 B: 40.
  EXPECT_EQ(matrix_bytes(3, 20, Dtype::kNvfp4, 128).value(), 40);
  // fp8 576 x 7168 (DeepSeek-V3's kv_a_proj_with_mqa) with blocks: 4,128,768 B of values +
  // ceil(576 / 128) = 5 x 7168 / 128 = 56 = 280 blocks x 4 B = 1,120: 4,129,888.
  EXPECT_EQ(matrix_bytes(576, 7168, Dtype::kFp8, 128, true).value(), 4'129'888);
}

TEST(DtypeTableTest, GroupScaleBytesFollowTheTable) {
  // int4 with quant_group_size 128: ceil(1000 / 128) = 8 scales x 2 B = 16.
  EXPECT_EQ(group_scale_bytes(1000, Dtype::kInt4, 128).value(), 16);
  // NVFP4 ignores quant_group_size: ceil(1000 / 16) = 63 scales x 1 B.
  EXPECT_EQ(group_scale_bytes(1000, Dtype::kNvfp4, 128).value(), 63);
  // MXFP4: ceil(1000 / 32) = 32 x 1 B.
  EXPECT_EQ(group_scale_bytes(1000, Dtype::kMxfp4, 7).value(), 32);
  // fp8: none unless block scales: ceil(1000 / 16384) = 1 x 4 B.
  EXPECT_EQ(group_scale_bytes(1000, Dtype::kFp8, 128).value(), 0);
  EXPECT_EQ(group_scale_bytes(1000, Dtype::kFp8, 128, true).value(), 4);
  EXPECT_EQ(group_scale_bytes(1000, Dtype::kBf16, 128).value(), 0);
}

TEST(DtypeTableTest, OverflowIsFlaggedNotWrapped) {
  const Exact huge = std::numeric_limits<int64_t>::max() / 2;  // x 4 bits overflows
  EXPECT_TRUE(weight_memory_bytes(huge, Dtype::kNvfp4).overflow());
  EXPECT_TRUE(matrix_bytes(huge, 4, Dtype::kMxfp4, 128).overflow());
  EXPECT_FALSE(weight_memory_bytes(1'000'000'000'000, Dtype::kNvfp4).overflow());
}

TEST(DtypeTableTest, RoofsAndWeightOnlyPerDtype) {
  EXPECT_EQ(dtype_info(Dtype::kNvfp4).peak, PeakColumn::kFp4);
  EXPECT_EQ(dtype_info(Dtype::kMxfp4).peak, PeakColumn::kFp4);
  EXPECT_TRUE(dtype_info(Dtype::kNvfp4).falls_back_to_16bit);
  EXPECT_FALSE(dtype_info(Dtype::kFp8).falls_back_to_16bit);  // fp8 on a GPU without fp8 is refused
  EXPECT_TRUE(dtype_info(Dtype::kInt4).weight_only);
  EXPECT_TRUE(dtype_info(Dtype::kInt8).weight_only);
  EXPECT_FALSE(dtype_info(Dtype::kNvfp4).weight_only);
  EXPECT_EQ(roof_label(Dtype::kMxfp4), "fp4");
  EXPECT_EQ(roof_label(Dtype::kFp16), "fp16");
}

TEST(DtypeParseTest, NamesAndSpellings) {
  const std::pair<const char*, Dtype> cases[] = {
      {"fp32", Dtype::kFp32},   {"float32", Dtype::kFp32}, {"FP16", Dtype::kFp16},  {"half", Dtype::kFp16},
      {"bfloat16", Dtype::kBf16}, {"fp8", Dtype::kFp8},    {"float8_e4m3fn", Dtype::kFp8},
      {"int8", Dtype::kInt8},   {"int4", Dtype::kInt4},    {"nvfp4", Dtype::kNvfp4}, {"NVFP4", Dtype::kNvfp4},
      {"mxfp4", Dtype::kMxfp4},
  };
  for (const auto& [text, want] : cases) {
    auto t = parse_dtype(text, "--dtype");
    ASSERT_TRUE(t.ok()) << text << ": " << t.status().message();
    EXPECT_EQ(*t, want) << text;
  }
  for (Dtype t : kAllDtypes) EXPECT_EQ(*parse_dtype(dtype_name(t), "f"), t);  // every name round-trips
}

TEST(DtypeParseTest, ErrorsNameTheFieldAndListTheTable) {
  auto t = parse_dtype("fp4", "--dtype");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().message(),
            "--dtype: unknown dtype 'fp4'; allowed: fp32, fp16, bf16, fp8, int8, int4, nvfp4, mxfp4");
  auto kv = parse_kv_dtype("mxfp4", "--kv-dtype");
  ASSERT_FALSE(kv.ok());
  EXPECT_EQ(kv.status().message().rfind("--kv-dtype: mxfp4 is a weight format", 0), 0u) << kv.status().message();
  EXPECT_NE(kv.status().message().find("allowed: fp32, fp16, bf16, fp8, int8, int4"), std::string::npos);
  EXPECT_TRUE(parse_kv_dtype("fp8", "--kv-dtype").ok());
}

}  // namespace
}  // namespace modelcalc
