// The SVG writer and the roofline plot: escaping, well-formed XML (checked by
// xmllint, a real parser), the axis mapping, and points where the numbers say.
#include "roofline_plot.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>

#include "svg.h"

namespace modelcalc {
namespace {

TEST(Svg, EscapesTextAndAttributes) {
  EXPECT_EQ(xml_escape("a<b & \"c\" 'd'>"), "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;");
  // C0 controls are not allowed in XML 1.0: dropped; tab, LF and UTF-8 kept.
  EXPECT_EQ(xml_escape(std::string("x\x01y\tz\n×³")), "xy\tz\n×³");
  SvgWriter s(100, 50);
  s.text(1, 2, "<&>", {{"data", "\"q\""}});
  const std::string doc = s.document();
  EXPECT_NE(doc.find(">&lt;&amp;&gt;</text>"), std::string::npos) << doc;
  EXPECT_NE(doc.find("data=\"&quot;q&quot;\""), std::string::npos) << doc;
  EXPECT_NE(doc.find("xmlns=\"http://www.w3.org/2000/svg\""), std::string::npos);
  EXPECT_NE(doc.find("width=\"100\" height=\"50\" viewBox=\"0 0 100 50\""), std::string::npos);
}

TEST(Svg, NumbersHaveAtMostTwoDecimals) {
  EXPECT_EQ(svg_num(12.5), "12.5");
  EXPECT_EQ(svg_num(300), "300");
  EXPECT_EQ(svg_num(1.0 / 3.0), "0.33");
  EXPECT_EQ(svg_num(-0.001), "0");
}

TEST(RooflinePlot, AxisMappingByHand) {
  // x: 0.1 .. 1000 (4 decades) over 400 px from 100; y: 1e12 .. 1e15 (3 decades) over 300 px from 50.
  AxisMap a;
  a.x_lo = 0.1;
  a.x_hi = 1000;
  a.y_lo = 1e12;
  a.y_hi = 1e15;
  a.left = 100;
  a.top = 50;
  a.width = 400;
  a.height = 300;
  EXPECT_DOUBLE_EQ(x_px(a, 0.1), 100);
  EXPECT_DOUBLE_EQ(x_px(a, 1), 200);      // one decade of four: 100 + 400/4
  EXPECT_DOUBLE_EQ(x_px(a, 1000), 500);
  EXPECT_DOUBLE_EQ(y_px(a, 1e15), 50);    // top
  EXPECT_DOUBLE_EQ(y_px(a, 1e12), 350);   // bottom
  EXPECT_NEAR(y_px(a, 1e13), 250, 1e-9);  // one decade of three up from the bottom: 350 - 100
}

RooflineResult a100_at_one() {
  const GpuSpec g = find_gpu("a100").value();
  RooflineOptions o;
  o.intensity = 1;
  return analyze_roofline(nullptr, std::span(&g, 1), o).value();
}

TEST(RooflinePlot, FitAxesByHand) {
  // A100 at I = 1: intensities 1 and the ridges 153 (bf16) and 306 (int8).
  // x: floor-decade(1 / 1.5) = 0.1, ceil-decade(306 · 1.5 = 459) = 1000.
  // y: ceil-decade(624e12 · 1.3 = 8.1e14) = 1e15; floor-decade(2.039e12 / 1.5 = 1.36e12) = 1e12,
  //    which is also 1e15 / 1e3 (three decades at least).
  const AxisMap a = fit_axes(a100_at_one(), 10, 20, 300, 200);
  EXPECT_DOUBLE_EQ(a.x_lo, 0.1);
  EXPECT_DOUBLE_EQ(a.x_hi, 1000);
  EXPECT_DOUBLE_EQ(a.y_lo, 1e12);
  EXPECT_DOUBLE_EQ(a.y_hi, 1e15);
  EXPECT_EQ(a.left, 10);
  EXPECT_EQ(a.height, 200);
}

// Runs xmllint --noout on `text`; returns its exit status, or -1 if xmllint is missing.
int xmllint(const std::string& text) {
  if (!std::filesystem::exists("/usr/bin/xmllint")) return -1;
  const auto path = std::filesystem::temp_directory_path() / ("modelcalc_plot_" + std::to_string(::getpid()) + ".svg");
  std::ofstream(path) << text;
  const int rc = std::system(("/usr/bin/xmllint --noout '" + path.string() + "' 2>&1").c_str());
  std::filesystem::remove(path);
  return rc;
}

std::pair<double, double> translate_of(const std::string& svg, const std::string& id) {
  const std::regex re("id=\"" + id + "\" transform=\"translate\\(([-0-9.]+) ([-0-9.]+)\\)\"");
  std::smatch m;
  if (!std::regex_search(svg, m, re)) return {NAN, NAN};
  return {std::stod(m[1]), std::stod(m[2])};
}

TEST(RooflinePlot, SingleGpuPointSitsWhereTheNumbersSay) {
  PlotOptions po;
  po.title = "A100 <at> I = 1 & more";
  const std::string svg = roofline_svg_document(a100_at_one(), po);
  const int rc = xmllint(svg);
  if (rc == -1) GTEST_SKIP() << "xmllint missing: scripts/setup.sh --test installs libxml2-utils";
  EXPECT_EQ(rc, 0) << svg;
  // Axes as in FitAxesByHand over the plot area. I = 1 is one decade of four:
  // x = 104 + 600 / 4 = 254. Attainable 2.039e12 is log10(2.039) = 0.30942 decades above 1e12, of three:
  // y = 72 + 440 · (1 - 0.30942 / 3) = 466.62.
  const auto [x, y] = translate_of(svg, "pt-a100-80gb-sxm-given");
  EXPECT_NEAR(x, kPlotLeft + kPlotWidth / 4, 0.01);
  EXPECT_NEAR(y, kPlotTop + kPlotHeight * (1 - std::log10(2.039) / 3), 0.01);
  EXPECT_NEAR(y, 466.62, 0.01);
  // Labels: the point, both roofs with their ridges, decade ticks, the escaped title.
  EXPECT_NE(svg.find(">I = 1</text>"), std::string::npos);
  EXPECT_NE(svg.find("bf16 312 TFLOP/s · ridge 153"), std::string::npos);
  EXPECT_NE(svg.find("int8 624 TFLOP/s · ridge 306"), std::string::npos);
  EXPECT_NE(svg.find(">1,000</text>"), std::string::npos);
  EXPECT_NE(svg.find(">1 PFLOP/s</text>"), std::string::npos);
  EXPECT_NE(svg.find("A100 &lt;at&gt; I = 1 &amp; more"), std::string::npos);
}

TEST(RooflinePlot, SeveralGpusAreDistinguishable) {
  ModelSpec m;
  m.name = "tiny";
  m.n_layer = 2;
  m.n_embd = 64;
  m.n_head = 4;
  m.n_head_kv = 4;
  m.n_embd_head = 16;
  m.n_ff = 256;
  m.n_vocab = 1000;
  const GpuSpec gpus[] = {find_gpu("h100").value(), find_gpu("mi300x").value()};
  RooflineOptions o;
  o.batches = {1, 8};
  o.context = 16;
  const RooflineResult r = analyze_roofline(&m, gpus, o).value();
  const std::string svg = roofline_svg_document(r, {});
  const int rc = xmllint(svg);
  if (rc == -1) GTEST_SKIP() << "xmllint missing: scripts/setup.sh --test installs libxml2-utils";
  EXPECT_EQ(rc, 0);
  // One marker per point per GPU, in two colors, both GPUs in the legend.
  for (const char* id : {"pt-h100-sxm-decode_b1", "pt-mi300x-decode_b8", "pt-mi300x-prefill", "pt-h100-sxm-gemm"}) {
    EXPECT_NE(svg.find(std::string("id=\"") + id + "\""), std::string::npos) << id;
  }
  EXPECT_NE(svg.find("#1f77b4"), std::string::npos);
  EXPECT_NE(svg.find("#d62728"), std::string::npos);
  EXPECT_NE(svg.find(">NVIDIA H100 SXM</text>"), std::string::npos);
  EXPECT_NE(svg.find(">AMD Instinct MI300X</text>"), std::string::npos);
  // fp8 and int8 share a peak on both GPUs: one roof each, labelled together.
  EXPECT_NE(svg.find("mi300x fp8 = int8 2.615 PFLOP/s"), std::string::npos);
  // The same intensity on both GPUs: equal x; the memory-bound y differs by the bandwidths,
  // log10(5.3 / 3.35) decades = 0.1993 of the plot's decades.
  const auto h = translate_of(svg, "pt-h100-sxm-decode_b1");
  const auto a = translate_of(svg, "pt-mi300x-decode_b1");
  EXPECT_NEAR(h.first, a.first, 0.01);
  const AxisMap ax = fit_axes(r, kPlotLeft, kPlotTop, kPlotWidth, kPlotHeight);
  const double px_per_decade = kPlotHeight / std::log10(ax.y_hi / ax.y_lo);
  EXPECT_NEAR(h.second - a.second, std::log10(5.3 / 3.35) * px_per_decade, 0.02);
  for (const char* label : {">decode B=1</text>", ">decode B=8</text>", ">prefill T=16</text>", ">GEMM 8192³</text>"}) {
    EXPECT_NE(svg.find(label), std::string::npos) << label;
  }
}

}  // namespace
}  // namespace modelcalc
