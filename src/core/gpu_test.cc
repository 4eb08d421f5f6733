#include "modelcalc/gpu.h"
#include "catalog_parsers.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "embedded_data.h"
#include "suggest.h"

namespace modelcalc {
namespace {

std::string_view EmbeddedCatalogText() {
  for (const EmbeddedFile& f : embedded_files()) {
    if (f.path == "gpus.tsv") return f.content;
  }
  return {};
}

// --- Catalog integrity ------------------------------------------------------

TEST(GpuCatalogTest, EmbeddedCatalogParsesStrictly) {
  auto parsed = parse_gpu_catalog(EmbeddedCatalogText());
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed->size(), gpu_catalog().size());
}

TEST(GpuCatalogTest, EveryRowIsSane) {
  ASSERT_GE(gpu_catalog().size(), 13u);
  std::set<std::string> keys;
  for (const GpuSpec& g : gpu_catalog()) {
    SCOPED_TRACE(g.key);
    EXPECT_TRUE(keys.insert(g.key).second) << "duplicate key";
    EXPECT_FALSE(g.name.empty());
    EXPECT_GT(g.capacity_bytes, 0);
    EXPECT_GT(g.bandwidth_bytes_per_s, 0);
    // Plausibility: 1 GB .. 1 TB of memory, 0.1 .. 20 TB/s.
    EXPECT_GE(g.capacity_bytes, 1e9);
    EXPECT_LE(g.capacity_bytes, 1e12);
    EXPECT_GE(g.bandwidth_bytes_per_s, 0.1e12);
    EXPECT_LE(g.bandwidth_bytes_per_s, 20e12);
    EXPECT_FALSE(g.source.empty()) << "every row needs a source";
    EXPECT_GE(g.peak_bf16_flops, 0);
    EXPECT_GE(g.peak_fp8_flops, 0);
    EXPECT_GE(g.peak_int8_ops, 0);
    EXPECT_GE(g.peak_fp4_flops, 0);
    EXPECT_GE(g.peak_fp32_flops, 0);
    // A missing bf16 peak must be explained, not silently zero.
    if (g.peak_bf16_flops == 0) {
      EXPECT_NE(g.notes.find("unpublished"), std::string::npos);
    }
    // Dense tensor bf16 beats non-tensor fp32 wherever both are given.
    if (g.peak_bf16_flops > 0 && g.peak_fp32_flops > 0) {
      EXPECT_GT(g.peak_bf16_flops, g.peak_fp32_flops);
    }
    // Unconfirmed rows say so where a reader will see it.
    if (!g.confirmed) {
      EXPECT_TRUE(g.notes.find("recalled, verify") != std::string::npos ||
                  g.notes.find("third-party, verify") != std::string::npos)
          << g.notes;
    }
  }
}

TEST(GpuCatalogTest, RequiredGpusArePresent) {
  for (const char* key : {"mi300x", "h100-sxm", "a100-40gb-sxm", "a100-80gb-sxm", "a100-80gb-pcie",
                          "h100-pcie", "h100-nvl", "h200-sxm", "b200", "l40s", "l4", "mi250x", "mi325x",
                          "gb200", "b300", "mi355x", "rtx-4090", "gaudi-3", "tpu-v4", "tpu-v5e",
                          "tpu-v5p", "tpu-v6e", "a10g", "h20", "gh200", "gb300", "rtx-5090", "rtx-pro-6000"}) {
    auto g = find_gpu(key);
    ASSERT_TRUE(g.ok()) << key << ": " << g.status().message();
    EXPECT_EQ(g->key, key);
  }
}

TEST(GpuCatalogTest, UnconfirmedRowsAreTheRecalledOnes) {
  std::set<std::string> unconfirmed;
  for (const GpuSpec& g : gpu_catalog()) {
    if (!g.confirmed) unconfirmed.insert(g.key);
  }
  EXPECT_EQ(unconfirmed, (std::set<std::string>{"a10g", "h100-nvl", "rtx-4090", "mi355x", "h20", "gh200", "gb300",
                                                "rtx-5090", "rtx-pro-6000", "h800-sxm"}));
}

TEST(GpuCatalogTest, A10gBf16IsUnpublished) {
  auto g = find_gpu("a10g");
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->peak_flops(Dtype::kBf16), 0);
  EXPECT_EQ(g->ridge_point(), 0);
  EXPECT_FALSE(g->confirmed);
}

// --- Parser strictness ------------------------------------------------------

constexpr const char* kHeader =
    "key\tname\taliases\tcapacity_gb\tbandwidth_tbps\tbf16_tflops\tfp8_tflops\tint8_tops\t"
    "fp4_tflops\tfp32_tflops\tinterconnect\ttdp_w\tconfirmed\tsource\tnotes\t"
    "link_gbps\tdomain_gpus\tscaleout_gbps\tlink_latency_us\tscaleout_latency_us\tlink_source\t"
    "exposed_mib\texposed_source\n";
constexpr const char* kGoodRow =
    "x1\tX One\tx\t80\t3.35\t989.4\t\t\t\t\tNVLink\t700\tyes\tsome sheet\t\t450\t8\t50\t6\t20\tlink sheet\t"
    "81559\tan nvidia-smi paste\n";

TEST(GpuCatalogTest, ParserAcceptsAMinimalCatalog) {
  auto r = parse_gpu_catalog(std::string("# comment\n") + kHeader + kGoodRow);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0].capacity_bytes, 80e9);
  EXPECT_EQ((*r)[0].bandwidth_bytes_per_s, 3.35e12);
  EXPECT_EQ((*r)[0].peak_bf16_flops, 989.4e12);
  EXPECT_EQ((*r)[0].peak_fp8_flops, 0);
  EXPECT_EQ((*r)[0].aliases, std::vector<std::string>{"x"});
  EXPECT_EQ((*r)[0].link_bytes_per_s, 450e9);  // GB/s -> B/s
  EXPECT_EQ((*r)[0].domain_gpus, 8);
  EXPECT_EQ((*r)[0].scaleout_bytes_per_s, 50e9);
  EXPECT_DOUBLE_EQ((*r)[0].link_latency_s, 6e-6);  // us -> s
  EXPECT_DOUBLE_EQ((*r)[0].scaleout_latency_s, 20e-6);
  EXPECT_EQ((*r)[0].link_source, "link sheet");
}

// The driver-exposed memory: MiB x 2^20. 81,559 MiB x 1,048,576 = 85,520,809,984 B
// (85.5 GB beside the nominal 80 GB); the usable capacity is it when catalogued.
TEST(GpuCatalogTest, ExposedMemoryParsesAsMebibytes) {
  auto r = parse_gpu_catalog(std::string(kHeader) + kGoodRow +
                             "x2\tX Two\t\t80\t3.35\t989.4\t\t\t\t\t\t700\tyes\tsrc\t\t450\t8\t50\t6\t20\tls\t\t\n");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ((*r)[0].exposed_bytes, 85'520'809'984.0);
  EXPECT_EQ((*r)[0].usable_capacity_bytes(), 85'520'809'984.0);
  EXPECT_EQ((*r)[0].exposed_source, "an nvidia-smi paste");
  EXPECT_EQ((*r)[1].exposed_bytes, 0);
  EXPECT_EQ((*r)[1].usable_capacity_bytes(), 80e9);  // not catalogued: the nominal capacity
  // An error names the row and the column.
  auto bad = parse_gpu_catalog(std::string(kHeader) +
                               "x1\tX\t\t80\t3.35\t989.4\t\t\t\t\t\t700\tyes\tsrc\t\t450\t8\t50\t6\t20\tls\t79\tsmi\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("(x1) exposed_mib"), std::string::npos) << bad.status().message();
}

TEST(GpuCatalogTest, ExposedMemoryOfTheCatalog) {
  // H100 SXM 81,559 MiB = 85,520,809,984 B; H200 143,771 MiB x 1,048,576 = 150,754,820,096 B.
  auto h = find_gpu("h100");
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->exposed_bytes, 85'520'809'984.0);
  EXPECT_FALSE(h->exposed_source.empty());
  auto h2 = find_gpu("h200");
  ASSERT_TRUE(h2.ok());
  EXPECT_EQ(h2->usable_capacity_bytes(), 150'754'820'096.0);
  // tensor_parallel scales it with the capacity: 2 x 85,520,809,984.
  EXPECT_EQ(tensor_parallel(*h, 2).exposed_bytes, 171'041'619'968.0);
  // Every catalogued figure has its source, and no row without one claims a figure.
  for (const GpuSpec& g : gpu_catalog()) {
    EXPECT_EQ(g.exposed_bytes > 0, !g.exposed_source.empty()) << g.key;
  }
}

// The interconnect figures the deployment engine uses: NVLink4 is 900 GB/s
// bidirectional per GPU, so 450 GB/s each way; 8 GPUs per HGX box; one
// 400 Gb/s NIC per GPU = 50 GB/s.
TEST(GpuCatalogTest, InterconnectH100AndNvl72) {
  auto h = find_gpu("h100");
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->link_bytes_per_s, 450e9);
  EXPECT_EQ(h->domain_gpus, 8);
  EXPECT_EQ(h->scaleout_bytes_per_s, 50e9);
  EXPECT_FALSE(h->link_source.empty());
  auto g = find_gpu("gb200");
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->domain_gpus, 72);
  EXPECT_EQ(g->link_bytes_per_s, 900e9);  // NVLink5 1800 GB/s bidirectional / 2
}

TEST(GpuCatalogTest, ParserRejectsMalformedRows) {
  const std::string h = kHeader;
  const char* bad[] = {
      "x1\tX\t\t80\t3.35\t989.4\t\t\t\t\t\t700\tyes\tsrc\t\t450\t8\t50\t6\t20\n",             // 14 columns
      "x1\tX\t\t0\t3.35\t989.4\t\t\t\t\t\t700\tyes\tsrc\t\t450\t8\t50\t6\t20\tls\t\t\n",            // zero capacity
      "x1\tX\t\t80\t\t989.4\t\t\t\t\t\t700\tyes\tsrc\t\t450\t8\t50\t6\t20\tls\t\t\n",               // missing bandwidth
      "x1\tX\t\t80\t3.35\t989,4\t\t\t\t\t\t700\tyes\tsrc\t\t450\t8\t50\t6\t20\tls\t\t\n",           // comma decimal
      "x1\tX\t\t80\t3.35\t-1\t\t\t\t\t\t700\tyes\tsrc\t\t450\t8\t50\t6\t20\tls\t\t\n",              // negative
      "x1\tX\t\t80\t3.35\t1e3\t\t\t\t\t\t700\tyes\tsrc\t\t450\t8\t50\t6\t20\tls\t\t\n",             // exponent
      "x1\tX\t\t80\t3.35\t989.4\t\t\t\t\t\t700\tmaybe\tsrc\t\t450\t8\t50\t6\t20\tls\t\t\n",         // confirmed
      "x1\tX\t\t80\t3.35\t989.4\t\t\t\t\t\t700\tyes\t\t\t450\t8\t50\t6\t20\tls\t\t\n",              // no source
      "X1\tX\t\t80\t3.35\t989.4\t\t\t\t\t\t700\tyes\tsrc\t\t450\t8\t50\t6\t20\tls\t\t\n",           // upper-case key
      "x1\tX\ta,,b\t80\t3.35\t989.4\t\t\t\t\t\t700\tyes\tsrc\t\t450\t8\t50\t6\t20\tls\t\t\n",       // empty alias
      "x1\tX\t\t80\t3.35\t989.4\t\t\t\t\t\t700\tyes\tsrc\t\t450\t0\t50\t6\t20\tls\t\t\n",          // no GPU in domain
      "x1\tX\t\t80\t3.35\t989.4\t\t\t\t\t\t700\tyes\tsrc\t\t450\t1.5\t50\t6\t20\tls\t\t\n",        // half a GPU
      "x1\tX\t\t80\t3.35\t989.4\t\t\t\t\t\t700\tyes\tsrc\t\t0\t8\t50\t6\t20\tls\t\t\n",            // zero link
      "x1\tX\t\t80\t3.35\t989.4\t\t\t\t\t\t700\tyes\tsrc\t\t450\t8\t\t6\t20\tls\t\t\n",            // no scale-out
      "x1\tX\t\t80\t3.35\t989.4\t\t\t\t\t\t700\tyes\tsrc\t\t450\t8\t50\t6\t20\t\t\t\n",        // no link source
      "x1\tX\t\t80\t3.35\t989.4\t\t\t\t\t\t700\tyes\tsrc\t\t450\t8\t50\t6\t20\tls\t81559\t\n",   // exposed, no source
      "x1\tX\t\t80\t3.35\t989.4\t\t\t\t\t\t700\tyes\tsrc\t\t450\t8\t50\t6\t20\tls\t\tsmi\n",     // source, no MiB
      "x1\tX\t\t80\t3.35\t989.4\t\t\t\t\t\t700\tyes\tsrc\t\t450\t8\t50\t6\t20\tls\t81559.5\tsmi\n",  // half a MiB
      "x1\tX\t\t80\t3.35\t989.4\t\t\t\t\t\t700\tyes\tsrc\t\t450\t8\t50\t6\t20\tls\t79\tsmi\n",    // GiB typed as MiB
      "x1\tX\t\t80\t3.35\t989.4\t\t\t\t\t\t700\tyes\tsrc\t\t450\t8\t50\t6\t20\tls\t95000\tsmi\n",  // 99.6 GB: > 1.15 x 80 GB
  };
  for (const char* row : bad) {
    auto r = parse_gpu_catalog(h + row);
    EXPECT_FALSE(r.ok()) << "accepted: " << row;
  }
  EXPECT_FALSE(parse_gpu_catalog(kGoodRow).ok());  // no header
  EXPECT_FALSE(parse_gpu_catalog(kHeader).ok());   // no rows
  // Two GPUs claiming the same name (case and '-' ignored).
  EXPECT_FALSE(
      parse_gpu_catalog(h + kGoodRow + "x2\tX Two\tX-1\t80\t3.35\t989.4\t\t\t\t\t\t700\tyes\tsrc\t\t450\t8\t50\t6\t20\tls\t\t\n").ok());
}

// Line 1 the comment, 2 the header, 3 blank, 4 a row of 2 columns; CRLF ends read as '\n'.
TEST(GpuCatalogTest, ErrorsNameTheEditorsLineAndCrlfIsALineEnd) {
  auto crlf = [](std::string s) {
    for (size_t i = s.find('\n'); i != std::string::npos; i = s.find('\n', i + 2)) s.insert(i, "\r");
    return s;
  };
  auto bad = parse_gpu_catalog(crlf(std::string("# c\n") + kHeader + "\nx1\tX\n"));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "gpus.tsv line 4: expected 23 tab-separated columns, got 2");
  auto ok = parse_gpu_catalog(crlf(std::string(kHeader) + kGoodRow));
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ((*ok)[0].exposed_source, "an nvidia-smi paste");  // the last field without the '\r'
}

// --- Seed figures -----------------------------------------------------------

TEST(GpuCatalogTest, SeedFiguresMi300x) {
  auto g = find_gpu("mi300x");
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->capacity_bytes, 192e9);
  EXPECT_EQ(g->bandwidth_bytes_per_s, 5.3e12);
  EXPECT_EQ(g->peak_bf16_flops, 1307.4e12);
  EXPECT_EQ(g->peak_flops(Dtype::kFp16), 1307.4e12);
  EXPECT_EQ(g->peak_flops(Dtype::kBf16), 1307.4e12);
  EXPECT_TRUE(g->confirmed);
  // Ridge = peak / bandwidth = 1307.4e12 FLOP/s / 5.3e12 B/s = 1307.4 / 5.3.
  // By hand: 5.3 x 246 = 1303.8; remainder 3.6; 3.6 / 5.3 = 0.679...
  // so 246.679 FLOP/byte, which the seed table rounds to 247.
  EXPECT_NEAR(g->ridge_point(), 246.68, 0.005);
  EXPECT_NEAR(g->ridge_point(Dtype::kBf16), 246.68, 0.005);
}

TEST(GpuCatalogTest, SeedFiguresH100Sxm) {
  auto g = find_gpu("h100");
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->key, "h100-sxm");
  EXPECT_EQ(g->capacity_bytes, 80e9);
  EXPECT_EQ(g->bandwidth_bytes_per_s, 3.35e12);
  EXPECT_EQ(g->peak_bf16_flops, 989.4e12);
  EXPECT_TRUE(g->confirmed);
  // Ridge = 989.4 / 3.35. By hand: 3.35 x 295 = 988.25; remainder 1.15;
  // 1.15 / 3.35 = 0.343... so 295.343 FLOP/byte (seed table: 295).
  EXPECT_NEAR(g->ridge_point(), 295.34, 0.005);
}

TEST(GpuCatalogTest, PeakFlopsByDtype) {
  auto g = find_gpu("h100-sxm");
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->peak_flops(Dtype::kFp8), 1978.9e12);
  EXPECT_EQ(g->peak_flops(Dtype::kInt8), 1978.9e12);
  EXPECT_EQ(g->peak_flops(Dtype::kFp32), 66.9e12);
  EXPECT_EQ(g->peak_flops(Dtype::kInt4), 0);  // int8 rate is not assumed for int4
  auto a = find_gpu("a100");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->peak_flops(Dtype::kFp8), 0);  // Ampere has no FP8
  EXPECT_EQ(a->ridge_point(Dtype::kFp8), 0);
  auto b = find_gpu("b200");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->peak_fp4_flops, 9000e12);
}

// Dense FP4 peaks from the vendors' figures: B200 HGX 144 PF sparse / 8 / 2 = 9 PF;
// GB200 NVL72 1,440 PF sparse / 72 / 2 = 10 PF; B300 HGX 108 PF dense / 8 = 13.5 PF;
// GB300 NVL72 1,080 PF dense / 72 = 15 PF; MI355X 2 x 5,033.2 = 10,066.3 (recalled).
// nvfp4 and mxfp4 both run at the fp4 column; a GPU without one has 0.
TEST(GpuCatalogTest, Fp4PeaksAreDense) {
  const std::pair<const char*, double> cases[] = {
      {"b200", 9000e12}, {"gb200", 10000e12}, {"b300", 13500e12}, {"gb300", 15000e12}, {"mi355x", 10066.3e12}};
  for (const auto& [key, peak] : cases) {
    auto g = find_gpu(key);
    ASSERT_TRUE(g.ok()) << key;
    EXPECT_EQ(g->peak_fp4_flops, peak) << key;
    EXPECT_EQ(g->peak_flops(Dtype::kNvfp4), peak) << key;
    EXPECT_EQ(g->peak_flops(Dtype::kMxfp4), peak) << key;
  }
  auto h = find_gpu("h100");
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->peak_flops(Dtype::kNvfp4), 0);
}

// --- Lookup -----------------------------------------------------------------

TEST(GpuLookupTest, ForgivingSpellingsResolve) {
  const std::pair<const char*, const char*> cases[] = {
      {"h100", "h100-sxm"},          {"H100-SXM", "h100-sxm"},   {"h100_sxm", "h100-sxm"},
      {"h100 sxm", "h100-sxm"},      {"MI300X", "mi300x"},       {"mi-300x", "mi300x"},
      {"a100-80gb", "a100-80gb-sxm"}, {"a100", "a100-80gb-sxm"}, {"A100_40GB", "a100-40gb-sxm"},
      {"a100-pcie", "a100-80gb-pcie"}, {"h200", "h200-sxm"},     {"NVIDIA H100 PCIe", "h100-pcie"},
      {"l4", "l4"},                  {"l40", "l40s"},            {"trillium", "tpu-v6e"},
      {"TPU v5e", "tpu-v5e"},        {"4090", "rtx-4090"},       {" b200 ", "b200"},
      {"mi300", "mi300x"},           {"mi355", "mi355x"},        {"h20", "h20"},
      {"gh200", "gh200"},            {"GB300", "gb300"},         {"5090", "rtx-5090"},
      {"RTX PRO 6000 Blackwell", "rtx-pro-6000"},
  };
  for (const auto& [typed, key] : cases) {
    auto g = find_gpu(typed);
    ASSERT_TRUE(g.ok()) << typed << ": " << g.status().message();
    EXPECT_EQ(g->key, key) << typed;
  }
}

// No prefix is guessed: "h20" is the H20 (once a unique prefix of the H200's
// names, read as the H200 with 6.7x the H20's compute), and "h10", a prefix of
// three H100s, is refused with suggestions instead of picking one.
TEST(GpuLookupTest, ExactNamesOnlyNoPrefixes) {
  auto h20 = find_gpu("h20");
  ASSERT_TRUE(h20.ok()) << h20.status().message();
  EXPECT_EQ(h20->key, "h20");
  EXPECT_EQ(h20->peak_bf16_flops, 148e12);

  auto g = find_gpu("h10");
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), Status::Code::kNotFound);
  const std::string& m = g.status().message();
  EXPECT_NE(m.find("unknown GPU 'h10'"), std::string::npos) << m;
  EXPECT_NE(m.find("did you mean"), std::string::npos) << m;
  EXPECT_NE(m.find("'h100'"), std::string::npos) << m;

  for (const char* prefix : {"mi3", "h100-s", "b20", "gb2", "tpu-v5", "rtx"}) {
    auto p = find_gpu(prefix);
    EXPECT_FALSE(p.ok()) << prefix << " resolved to " << (p.ok() ? p->key : "");
  }
}

TEST(GpuLookupTest, UnknownNameSuggests) {
  auto g = find_gpu("h1000");
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), Status::Code::kNotFound);
  const std::string& m = g.status().message();
  EXPECT_NE(m.find("unknown GPU 'h1000'"), std::string::npos) << m;
  EXPECT_NE(m.find("did you mean 'h100'"), std::string::npos) << m;
  EXPECT_NE(m.find("modelcalc gpus lists all"), std::string::npos) << m;

  auto far = find_gpu("banana");
  ASSERT_FALSE(far.ok());
  EXPECT_EQ(far.status().code(), Status::Code::kNotFound);
  EXPECT_NE(far.status().message().find("unknown GPU 'banana'"), std::string::npos);
}

TEST(GpuLookupTest, EmptyNameIsInvalid) {
  for (const char* typed : {"", "   ", "-_"}) {
    auto g = find_gpu(typed);
    ASSERT_FALSE(g.ok()) << "'" << typed << "'";
    EXPECT_EQ(g.status().code(), Status::Code::kInvalidArgument);
    EXPECT_NE(g.status().message().find("empty GPU name"), std::string::npos) << g.status().message();
  }
}

// An exact name is looked up by parsing its one row (find_exact_row), not the
// whole catalog: every field must be the whole catalog's, for every spelling.
void ExpectSameRow(const GpuSpec& a, const GpuSpec& b) {
  EXPECT_EQ(a.key, b.key);
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.aliases, b.aliases) << b.key;
  EXPECT_EQ(a.capacity_bytes, b.capacity_bytes) << b.key;
  EXPECT_EQ(a.bandwidth_bytes_per_s, b.bandwidth_bytes_per_s) << b.key;
  EXPECT_EQ(a.peak_bf16_flops, b.peak_bf16_flops) << b.key;
  EXPECT_EQ(a.peak_fp8_flops, b.peak_fp8_flops) << b.key;
  EXPECT_EQ(a.peak_int8_ops, b.peak_int8_ops) << b.key;
  EXPECT_EQ(a.peak_fp4_flops, b.peak_fp4_flops) << b.key;
  EXPECT_EQ(a.peak_fp32_flops, b.peak_fp32_flops) << b.key;
  EXPECT_EQ(a.interconnect, b.interconnect) << b.key;
  EXPECT_EQ(a.tdp_watts, b.tdp_watts) << b.key;
  EXPECT_EQ(a.source, b.source) << b.key;
  EXPECT_EQ(a.confirmed, b.confirmed) << b.key;
  EXPECT_EQ(a.notes, b.notes) << b.key;
  EXPECT_EQ(a.link_bytes_per_s, b.link_bytes_per_s) << b.key;
  EXPECT_EQ(a.domain_gpus, b.domain_gpus) << b.key;
  EXPECT_EQ(a.scaleout_bytes_per_s, b.scaleout_bytes_per_s) << b.key;
  EXPECT_EQ(a.link_latency_s, b.link_latency_s) << b.key;
  EXPECT_EQ(a.scaleout_latency_s, b.scaleout_latency_s) << b.key;
  EXPECT_EQ(a.link_source, b.link_source) << b.key;
}

TEST(GpuLookupTest, AnExactNameFindsTheWholeCatalogsRowFieldForField) {
  for (const GpuSpec& g : gpu_catalog()) {
    std::vector<std::string> spellings = {g.key, g.name, "  " + g.name + " ", g.key + "_"};
    for (const std::string& a : g.aliases) spellings.push_back(a);
    for (const std::string& s : spellings) {
      auto found = find_gpu(s);
      ASSERT_TRUE(found.ok()) << s;
      ExpectSameRow(*found, g);
    }
  }
}

TEST(GpuLookupTest, NormalizesToMatchesNormalizeName) {
  for (std::string_view raw : {"H100-SXM", "h100_sxm", "h100 sxm", "", "-", "a.b", "NVIDIA H100 SXM", "h100"}) {
    const std::string n = normalize_name(raw);
    EXPECT_TRUE(normalizes_to(raw, n)) << raw;
    EXPECT_FALSE(normalizes_to(raw, n + "x")) << raw;
    if (!n.empty()) {
      EXPECT_FALSE(normalizes_to(raw, n.substr(0, n.size() - 1))) << raw;
    }
  }
  EXPECT_TRUE(normalizes_to("H100-SXM", "h100sxm"));
  EXPECT_FALSE(normalizes_to("H100-SXM", "h100sxn"));
}

TEST(GpuLookupTest, EveryKeyAndAliasResolvesToItsRow) {
  for (const GpuSpec& g : gpu_catalog()) {
    auto byKey = find_gpu(g.key);
    ASSERT_TRUE(byKey.ok()) << g.key;
    EXPECT_EQ(byKey->key, g.key);
    auto byName = find_gpu(g.name);
    ASSERT_TRUE(byName.ok()) << g.name;
    EXPECT_EQ(byName->key, g.key);
    for (const std::string& a : g.aliases) {
      auto byAlias = find_gpu(a);
      ASSERT_TRUE(byAlias.ok()) << a;
      EXPECT_EQ(byAlias->key, g.key) << a;
    }
  }
}

}  // namespace
}  // namespace modelcalc
