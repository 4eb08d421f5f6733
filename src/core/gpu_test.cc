#include "modelcalc/gpu.h"

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
      EXPECT_NE(g.notes.find("recalled, verify"), std::string::npos);
    }
  }
}

TEST(GpuCatalogTest, RequiredGpusArePresent) {
  for (const char* key : {"mi300x", "h100-sxm", "a100-40gb-sxm", "a100-80gb-sxm", "a100-80gb-pcie",
                          "h100-pcie", "h100-nvl", "h200-sxm", "b200", "l40s", "l4", "mi250x", "mi325x",
                          "gb200", "b300", "mi355x", "rtx-4090", "gaudi-3", "tpu-v4", "tpu-v5e",
                          "tpu-v5p", "tpu-v6e", "a10g"}) {
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
  EXPECT_EQ(unconfirmed, (std::set<std::string>{"a10g", "h100-nvl", "rtx-4090", "mi355x"}));
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
    "link_gbps\tdomain_gpus\tscaleout_gbps\tlink_latency_us\tscaleout_latency_us\tlink_source\n";
constexpr const char* kGoodRow =
    "x1\tX One\tx\t80\t3.35\t989.4\t\t\t\t\tNVLink\t700\tyes\tsome sheet\t\t450\t8\t50\t6\t20\tlink sheet\n";

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
      "x1\tX\t\t0\t3.35\t989.4\t\t\t\t\t\t700\tyes\tsrc\t\t450\t8\t50\t6\t20\tls\n",            // zero capacity
      "x1\tX\t\t80\t\t989.4\t\t\t\t\t\t700\tyes\tsrc\t\t450\t8\t50\t6\t20\tls\n",               // missing bandwidth
      "x1\tX\t\t80\t3.35\t989,4\t\t\t\t\t\t700\tyes\tsrc\t\t450\t8\t50\t6\t20\tls\n",           // comma decimal
      "x1\tX\t\t80\t3.35\t-1\t\t\t\t\t\t700\tyes\tsrc\t\t450\t8\t50\t6\t20\tls\n",              // negative
      "x1\tX\t\t80\t3.35\t1e3\t\t\t\t\t\t700\tyes\tsrc\t\t450\t8\t50\t6\t20\tls\n",             // exponent
      "x1\tX\t\t80\t3.35\t989.4\t\t\t\t\t\t700\tmaybe\tsrc\t\t450\t8\t50\t6\t20\tls\n",         // confirmed
      "x1\tX\t\t80\t3.35\t989.4\t\t\t\t\t\t700\tyes\t\t\t450\t8\t50\t6\t20\tls\n",              // no source
      "X1\tX\t\t80\t3.35\t989.4\t\t\t\t\t\t700\tyes\tsrc\t\t450\t8\t50\t6\t20\tls\n",           // upper-case key
      "x1\tX\ta,,b\t80\t3.35\t989.4\t\t\t\t\t\t700\tyes\tsrc\t\t450\t8\t50\t6\t20\tls\n",       // empty alias
      "x1\tX\t\t80\t3.35\t989.4\t\t\t\t\t\t700\tyes\tsrc\t\t450\t0\t50\t6\t20\tls\n",          // no GPU in domain
      "x1\tX\t\t80\t3.35\t989.4\t\t\t\t\t\t700\tyes\tsrc\t\t450\t1.5\t50\t6\t20\tls\n",        // half a GPU
      "x1\tX\t\t80\t3.35\t989.4\t\t\t\t\t\t700\tyes\tsrc\t\t0\t8\t50\t6\t20\tls\n",            // zero link
      "x1\tX\t\t80\t3.35\t989.4\t\t\t\t\t\t700\tyes\tsrc\t\t450\t8\t\t6\t20\tls\n",            // no scale-out
      "x1\tX\t\t80\t3.35\t989.4\t\t\t\t\t\t700\tyes\tsrc\t\t450\t8\t50\t6\t20\t\n",            // no link source
  };
  for (const char* row : bad) {
    auto r = parse_gpu_catalog(h + row);
    EXPECT_FALSE(r.ok()) << "accepted: " << row;
  }
  EXPECT_FALSE(parse_gpu_catalog(kGoodRow).ok());  // no header
  EXPECT_FALSE(parse_gpu_catalog(kHeader).ok());   // no rows
  // Two GPUs claiming the same name (case and '-' ignored).
  EXPECT_FALSE(
      parse_gpu_catalog(h + kGoodRow + "x2\tX Two\tX-1\t80\t3.35\t989.4\t\t\t\t\t\t700\tyes\tsrc\t\t450\t8\t50\t6\t20\tls\n").ok());
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

// --- Lookup -----------------------------------------------------------------

TEST(GpuLookupTest, ForgivingSpellingsResolve) {
  const std::pair<const char*, const char*> cases[] = {
      {"h100", "h100-sxm"},          {"H100-SXM", "h100-sxm"},   {"h100_sxm", "h100-sxm"},
      {"h100 sxm", "h100-sxm"},      {"MI300X", "mi300x"},       {"mi-300x", "mi300x"},
      {"a100-80gb", "a100-80gb-sxm"}, {"a100", "a100-80gb-sxm"}, {"A100_40GB", "a100-40gb-sxm"},
      {"a100-pcie", "a100-80gb-pcie"}, {"h200", "h200-sxm"},     {"NVIDIA H100 PCIe", "h100-pcie"},
      {"l4", "l4"},                  {"l40", "l40s"},            {"trillium", "tpu-v6e"},
      {"TPU v5e", "tpu-v5e"},        {"4090", "rtx-4090"},       {" b200 ", "b200"},
  };
  for (const auto& [typed, key] : cases) {
    auto g = find_gpu(typed);
    ASSERT_TRUE(g.ok()) << typed << ": " << g.status().message();
    EXPECT_EQ(g->key, key) << typed;
  }
}

// Decision: "h10" is a prefix of three GPUs (H100 SXM, PCIe, NVL), so it is
// ambiguous rather than silently picking the SXM; only the full alias "h100" does.
TEST(GpuLookupTest, AmbiguousPrefixListsCandidates) {
  auto g = find_gpu("h10");
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), Status::Code::kNotFound);
  const std::string& m = g.status().message();
  EXPECT_NE(m.find("ambiguous GPU 'h10'"), std::string::npos) << m;
  EXPECT_NE(m.find("'h100-sxm'"), std::string::npos) << m;
  EXPECT_NE(m.find("'h100-pcie'"), std::string::npos) << m;
  EXPECT_NE(m.find("'h100-nvl'"), std::string::npos) << m;
  EXPECT_EQ(m.find("h200"), std::string::npos) << m;

  auto mi = find_gpu("mi3");
  ASSERT_FALSE(mi.ok());
  EXPECT_NE(mi.status().message().find("'mi300x'"), std::string::npos);
  EXPECT_NE(mi.status().message().find("'mi325x'"), std::string::npos);
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
