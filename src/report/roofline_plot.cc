#include "roofline_plot.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "format.h"
#include "roofline_report.h"
#include "svg.h"

namespace modelcalc {

double x_px(const AxisMap& a, double intensity) {
  const double lo = std::log10(a.x_lo), hi = std::log10(a.x_hi);
  return a.left + a.width * (std::log10(intensity) - lo) / (hi - lo);
}

double y_px(const AxisMap& a, double flops) {
  const double lo = std::log10(a.y_lo), hi = std::log10(a.y_hi);
  return a.top + a.height * (1.0 - (std::log10(flops) - lo) / (hi - lo));
}

namespace {

std::string roof_name(Dtype t) { return std::string(roof_label(t)); }

// A compute roof as drawn: roofs with equal peaks (fp8 and int8 on most GPUs)
// share one line and one label, "fp8 = int8".
struct DrawnRoof {
  std::string name;
  Dtype style;  // line dash: the first dtype of the group
  double peak_flops = 0, ridge = 0;
  bool math = false;  // the roof the operating points sit under
};

// Every compute roof drawn for a GPU: its catalogued roofs plus the math
// dtype's roof when that is not among them (fp32, or fp16 shown as bf16).
std::vector<DrawnRoof> drawn_roofs(const GpuRoofline& g) {
  std::vector<Roof> roofs = g.roofs;
  std::vector<DrawnRoof> drawn;
  const bool listed = std::any_of(roofs.begin(), roofs.end(),
                                  [&](const Roof& r) { return r.peak_flops == g.math.peak_flops; });
  if (!listed) roofs.push_back(g.math);
  for (const Roof& r : roofs) {
    auto same = std::find_if(drawn.begin(), drawn.end(), [&](const DrawnRoof& d) { return d.peak_flops == r.peak_flops; });
    if (same != drawn.end()) {
      same->name += " = " + roof_name(r.dtype);
      continue;
    }
    drawn.push_back({roof_name(r.dtype), r.dtype, r.peak_flops, r.ridge, false});
  }
  for (DrawnRoof& d : drawn) d.math = d.peak_flops == g.math.peak_flops;
  return drawn;
}

double floor_decade(double v) { return std::pow(10.0, std::floor(std::log10(v))); }
double ceil_decade(double v) { return std::pow(10.0, std::ceil(std::log10(v))); }

}  // namespace

AxisMap fit_axes(const RooflineResult& r, double left, double top, double width, double height) {
  double i_min = 1e300, i_max = 0, f_min = 1e300, f_max = 0;
  for (const OperatingPoint& p : r.points) {
    i_min = std::min(i_min, p.intensity);
    i_max = std::max(i_max, p.intensity);
  }
  for (const GpuRoofline& g : r.gpus) {
    for (const DrawnRoof& roof : drawn_roofs(g)) {
      i_min = std::min(i_min, roof.ridge);
      i_max = std::max(i_max, roof.ridge);
      f_max = std::max(f_max, roof.peak_flops);
    }
    for (const PlacedPoint& pp : g.placed) f_min = std::min(f_min, pp.attainable_flops);
  }
  AxisMap a;
  // A margin of 1.5x on each side keeps markers off the frame.
  a.x_lo = floor_decade(i_min / 1.5);
  a.x_hi = ceil_decade(i_max * 1.5);
  a.y_hi = ceil_decade(f_max * 1.3);
  a.y_lo = std::min(floor_decade(f_min / 1.5), a.y_hi / 1e3);  // at least three decades tall
  a.left = left;
  a.top = top;
  a.width = width;
  a.height = height;
  return a;
}

namespace {

// Layout, px.
constexpr double kLeft = kPlotLeft, kTop = kPlotTop, kPlotW = kPlotWidth, kPlotH = kPlotHeight, kBottom = 64, kGap = 28;
constexpr double kFont = 12;      // labels
constexpr double kCharW = 0.6;    // average glyph width / font size (DejaVu Sans, Helvetica)
const char* const kFontFamily = "DejaVu Sans, Helvetica, Arial, sans-serif";
constexpr const char* kPalette[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf"};

const char* color_of(size_t i) { return kPalette[i % std::size(kPalette)]; }

// Line dash per peak column (the 16-bit roof is solid).
const char* dash_of(Dtype t) {
  switch (dtype_info(t).peak) {
    case PeakColumn::kFp8: return "9 4";
    case PeakColumn::kInt8: return "2 3";
    case PeakColumn::kFp32: return "12 3 2 3";
    case PeakColumn::kFp4: return "5 2 1 2";
    case PeakColumn::kBf16:
    case PeakColumn::kNone: return "";
  }
  return "";
}

size_t glyphs(const std::string& s) {
  size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

double text_width(const std::string& s, double font) { return static_cast<double>(glyphs(s)) * kCharW * font; }

struct Box {
  double x0, y0, x1, y1;
  bool overlaps(const Box& o) const { return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1; }
};

// Greedy label placement: each label takes the first candidate position whose
// box stays inside `bounds` and clear of every box placed so far.
class LabelPlacer {
 public:
  explicit LabelPlacer(Box bounds) : bounds_(bounds) {}
  void block(Box b) { taken_.push_back(b); }

  struct Spot {
    double x, y;         // text anchor, baseline
    const char* anchor;  // start, middle, end
  };
  // Returns the first free spot among `candidates` inside the bounds; if none
  // is free, the one inside the bounds overlapping least (else the first).
  // REQUIRES: !candidates.empty().
  Spot place(const std::string& text, double font, const std::vector<Spot>& candidates) {
    const double w = text_width(text, font);
    const Spot* best = &candidates.front();
    double best_overlap = 1e300;
    for (const Spot& s : candidates) {
      const Box b = box(s, w, font);
      if (b.x0 < bounds_.x0 || b.x1 > bounds_.x1 || b.y0 < bounds_.y0 || b.y1 > bounds_.y1) continue;
      double overlap = 0;
      for (const Box& t : taken_) {
        if (t.overlaps(b)) {
          overlap += (std::min(t.x1, b.x1) - std::max(t.x0, b.x0)) * (std::min(t.y1, b.y1) - std::max(t.y0, b.y0));
        }
      }
      if (overlap == 0) {
        best = &s;
        break;
      }
      if (overlap < best_overlap) {
        best_overlap = overlap;
        best = &s;
      }
    }
    taken_.push_back(box(*best, w, font));
    return *best;
  }
  // The box a label at `s` occupies.
  static Box box(const Spot& s, double w, double font) {
    const double x0 = std::string_view(s.anchor) == "start" ? s.x
                      : std::string_view(s.anchor) == "end" ? s.x - w
                                                             : s.x - w / 2;
    return {x0 - 1, s.y - font * 0.95, x0 + w + 1, s.y + font * 0.3};
  }

 private:
  Box bounds_;
  std::vector<Box> taken_;
};

SvgAttrs text_attrs(const char* anchor, double font, const char* fill = "#222") {
  return {{"text-anchor", anchor}, {"font-size", svg_num(font)}, {"fill", fill}};
}

// Halo so labels stay legible over grid and lines.
SvgAttrs halo(SvgAttrs a) {
  a.push_back({"stroke", "#ffffff"});
  a.push_back({"stroke-width", "3"});
  a.push_back({"stroke-linejoin", "round"});
  a.push_back({"paint-order", "stroke"});
  return a;
}

// A marker centred on (0, 0), drawn inside a translated group.
void marker(SvgWriter& s, PointKind k, const char* fill) {
  const SvgAttrs style = {{"fill", fill}, {"stroke", "#ffffff"}, {"stroke-width", "1.2"}};
  switch (k) {
    case PointKind::kDecode: s.circle(0, 0, 5.5, style); break;
    case PointKind::kPrefill: s.rect(-5, -5, 10, 10, style); break;
    case PointKind::kGemm: s.poly({{0, -7}, {7, 0}, {0, 7}, {-7, 0}}, true, style); break;
    case PointKind::kGiven: s.poly({{0, -7}, {6.5, 5}, {-6.5, 5}}, true, style); break;
  }
}

std::string decade_label_x(double v) {
  if (v >= 1) return group_digits(static_cast<int64_t>(std::llround(v)));
  return fmt_sig(v, 1);
}

std::string decade_label_y(double v) { return fmt_si(v, "FLOP/s"); }

void draw_axes(SvgWriter& s, const AxisMap& a) {
  const double right = a.left + a.width, bottom = a.top + a.height;
  s.rect(a.left, a.top, a.width, a.height, {{"fill", "#fcfcfc"}, {"stroke", "none"}});
  // Grid: minor lines at 2..9 x each decade, major at decades.
  s.open_group({{"class", "grid"}});
  for (double d = a.x_lo; d < a.x_hi * 1.0001; d *= 10) {
    for (int m = 2; m <= 9 && d * m < a.x_hi; ++m) {
      const double x = x_px(a, d * m);
      s.line(x, a.top, x, bottom, {{"stroke", "#efefef"}, {"stroke-width", "1"}});
    }
  }
  for (double d = a.y_lo; d < a.y_hi * 1.0001; d *= 10) {
    for (int m = 2; m <= 9 && d * m < a.y_hi; ++m) {
      const double y = y_px(a, d * m);
      s.line(a.left, y, right, y, {{"stroke", "#efefef"}, {"stroke-width", "1"}});
    }
  }
  for (double d = a.x_lo; d < a.x_hi * 1.0001; d *= 10) {
    const double x = x_px(a, d);
    s.line(x, a.top, x, bottom, {{"stroke", "#d4d4d4"}, {"stroke-width", "1"}});
    s.line(x, bottom, x, bottom + 5, {{"stroke", "#444"}, {"stroke-width", "1"}});
    s.text(x, bottom + 19, decade_label_x(d), text_attrs("middle", kFont, "#333"));
  }
  for (double d = a.y_lo; d < a.y_hi * 1.0001; d *= 10) {
    const double y = y_px(a, d);
    s.line(a.left, y, right, y, {{"stroke", "#d4d4d4"}, {"stroke-width", "1"}});
    s.line(a.left - 5, y, a.left, y, {{"stroke", "#444"}, {"stroke-width", "1"}});
    s.text(a.left - 8, y + 4, decade_label_y(d), text_attrs("end", 11, "#333"));
  }
  s.close_group();
  s.rect(a.left, a.top, a.width, a.height, {{"fill", "none"}, {"stroke", "#444"}, {"stroke-width", "1"}});
  s.text(a.left + a.width / 2, bottom + 44, "Arithmetic intensity (FLOP/byte, log scale)",
         text_attrs("middle", 13, "#222"));
  s.text(20, a.top + a.height / 2, "Attainable FLOP/s (log scale)",
         {{"text-anchor", "middle"}, {"font-size", "13"}, {"fill", "#222"},
          {"transform", fmt::format("rotate(-90 20 {})", svg_num(a.top + a.height / 2))}});
}

std::string gpu_short(const GpuSpec& g) { return g.key.empty() ? g.name : g.key; }

double legend_width(const RooflineResult& r) {
  double w = 200;
  for (const GpuRoofline& g : r.gpus) w = std::max(w, 34 + text_width(g.gpu.name, kFont));
  return w;
}

void draw_legend(SvgWriter& s, const RooflineResult& r, double x, double y) {
  const SvgAttrs head = {{"font-size", "12"}, {"font-weight", "bold"}, {"fill", "#222"}};
  const SvgAttrs body = {{"font-size", "12"}, {"fill", "#222"}};
  const SvgAttrs small = {{"font-size", "11"}, {"fill", "#666"}};
  s.open_group({{"class", "legend"}});
  s.text(x, y, r.gpus.size() == 1 ? "GPU" : "GPUs", head);
  y += 20;
  for (size_t i = 0; i < r.gpus.size(); ++i) {
    const GpuSpec& g = r.gpus[i].gpu;
    s.line(x, y - 4, x + 24, y - 4, {{"stroke", color_of(i)}, {"stroke-width", "3"}});
    s.text(x + 32, y, g.name, body);
    s.text(x + 32, y + 15,
           fmt::format("{}, {}", fmt_si(g.bandwidth_bytes_per_s, "B/s"), fmt_si(g.capacity_bytes, "B")), small);
    y += 36;
  }
  y += 6;
  s.text(x, y, "Compute roofs", head);
  y += 20;
  std::vector<std::pair<std::string, DrawnRoof>> seen;  // by name
  for (const GpuRoofline& g : r.gpus) {
    for (const DrawnRoof& roof : drawn_roofs(g)) {
      if (std::none_of(seen.begin(), seen.end(), [&](const auto& e) { return e.first == roof.name; })) {
        seen.emplace_back(roof.name, roof);
      }
    }
  }
  for (const auto& [name, roof] : seen) {
    SvgAttrs line = {{"stroke", "#555"}, {"stroke-width", "2"}};
    if (dash_of(roof.style)[0]) line.push_back({"stroke-dasharray", dash_of(roof.style)});
    s.line(x, y - 4, x + 24, y - 4, line);
    s.text(x + 32, y, name + (roof.math ? " (points)" : ""), body);
    y += 20;
  }
  s.circle(x + 12, y - 4, 4, {{"fill", "#ffffff"}, {"stroke", "#555"}, {"stroke-width", "1.5"}});
  s.text(x + 32, y, "ridge point", body);
  y += 26;
  s.text(x, y, "Operating points", head);
  y += 20;
  const struct {
    PointKind kind;
    const char* text;
  } kinds[] = {{PointKind::kDecode, "decode step, batch B"},
               {PointKind::kPrefill, "prefill of one prompt"},
               {PointKind::kGemm, "square GEMM (n³)"},
               {PointKind::kGiven, "given intensity"}};
  for (const auto& k : kinds) {
    const bool present = std::any_of(r.points.begin(), r.points.end(),
                                     [&](const OperatingPoint& p) { return p.kind == k.kind; });
    if (!present) continue;
    s.open_group({{"transform", fmt::format("translate({} {})", svg_num(x + 12), svg_num(y - 4))}});
    marker(s, k.kind, "#555");
    s.close_group();
    s.text(x + 32, y, k.text, body);
    y += 20;
  }
  s.close_group();
}

}  // namespace

std::string roofline_svg_element(const RooflineResult& r, const PlotOptions& o) {
  const double legend_w = legend_width(r);
  // Wide enough for the legend and for the title (16 px bold runs ~5 % wider than 12 px text per em).
  const double width = std::max(kLeft + kPlotW + kGap + legend_w + 16, kLeft + text_width(o.title, 16 * 1.05) + 24);
  const double height = kTop + kPlotH + kBottom;
  const AxisMap a = fit_axes(r, kLeft, kTop, kPlotW, kPlotH);
  SvgWriter s(width, height);
  s.title(o.title);
  s.open_group({{"font-family", kFontFamily}});
  s.rect(0, 0, width, height, {{"fill", "#ffffff"}});
  s.text(kLeft, 26, o.title, {{"font-size", "16"}, {"font-weight", "bold"}, {"fill", "#111"}});
  if (!o.subtitle.empty()) s.text(kLeft, 46, o.subtitle, {{"font-size", "12"}, {"fill", "#555"}});
  draw_axes(s, a);

  const double right = a.left + a.width, bottom = a.top + a.height;
  LabelPlacer labels({a.left + 2, a.top + 2, right - 2, bottom - 2});
  // Markers and ridge points are obstacles for every label.
  for (const GpuRoofline& g : r.gpus) {
    for (size_t i = 0; i < r.points.size(); ++i) {
      const double x = x_px(a, r.points[i].intensity), y = y_px(a, g.placed[i].attainable_flops);
      labels.block({x - 7, y - 7, x + 7, y + 7});
    }
    for (const DrawnRoof& roof : drawn_roofs(g)) {
      const double x = x_px(a, roof.ridge), y = y_px(a, roof.peak_flops);
      labels.block({x - 5, y - 5, x + 5, y + 5});
      labels.block({x, y - 4, right, y + 4});  // the roof line itself
    }
    // The bandwidth slope, as a chain of small boxes.
    const double bw = g.gpu.bandwidth_bytes_per_s;
    double top_ridge = 0;
    for (const DrawnRoof& roof : drawn_roofs(g)) top_ridge = std::max(top_ridge, roof.ridge);
    const double x0 = x_px(a, std::max(a.x_lo, a.y_lo / bw)), x1 = x_px(a, top_ridge);
    for (double x = x0; x < x1; x += 3) {
      const double y = y_px(a, bw * std::pow(10.0, std::log10(a.x_lo) + (x - a.left) / a.width *
                                                        (std::log10(a.x_hi) - std::log10(a.x_lo))));
      labels.block({x - 2, y - 3, x + 2, y + 3});
    }
  }

  // Roofs: the bandwidth slope up to the highest roof, each compute roof from
  // its ridge to the right edge, the math dtype's ridge dropped to the axis.
  for (size_t gi = 0; gi < r.gpus.size(); ++gi) {
    const GpuRoofline& g = r.gpus[gi];
    const char* c = color_of(gi);
    const double bw = g.gpu.bandwidth_bytes_per_s;
    const std::vector<DrawnRoof> roofs = drawn_roofs(g);
    double top_ridge = 0;
    for (const DrawnRoof& roof : roofs) top_ridge = std::max(top_ridge, roof.ridge);
    const double x_start = std::max(a.x_lo, a.y_lo / bw);  // where bw x I enters the plot
    s.open_group({{"class", "roofline"}, {"id", "gpu-" + gpu_short(g.gpu)}});
    s.line(x_px(a, x_start), y_px(a, bw * x_start), x_px(a, top_ridge), y_px(a, bw * top_ridge),
           {{"stroke", c}, {"stroke-width", "2.5"}, {"stroke-linecap", "round"}});
    s.line(x_px(a, g.math.ridge), y_px(a, g.math.peak_flops), x_px(a, g.math.ridge), bottom,
           {{"stroke", c}, {"stroke-width", "1"}, {"stroke-dasharray", "3 3"}, {"opacity", "0.6"}});
    for (const DrawnRoof& roof : roofs) {
      SvgAttrs line = {{"stroke", c}, {"stroke-width", "2.5"}};
      if (dash_of(roof.style)[0]) line.push_back({"stroke-dasharray", dash_of(roof.style)});
      const double y = y_px(a, roof.peak_flops);
      s.line(x_px(a, roof.ridge), y, right, y, line);
      s.circle(x_px(a, roof.ridge), y, 4, {{"fill", "#ffffff"}, {"stroke", c}, {"stroke-width", "2"}});
    }
    s.close_group();
  }
  // Operating points: a marker per GPU, one label per point at its highest marker.
  for (size_t gi = 0; gi < r.gpus.size(); ++gi) {
    const GpuRoofline& g = r.gpus[gi];
    for (size_t i = 0; i < r.points.size(); ++i) {
      const double x = x_px(a, r.points[i].intensity), y = y_px(a, g.placed[i].attainable_flops);
      s.open_group({{"class", "point"},
                    {"id", "pt-" + gpu_short(g.gpu) + "-" + point_key(r.points[i])},
                    {"transform", fmt::format("translate({} {})", svg_num(x), svg_num(y))}});
      s.title(fmt::format("{} on {}: I = {} FLOP/byte, {} ({})", point_label(r.points[i]), g.gpu.name,
                          fmt_sig(r.points[i].intensity), fmt_si(g.placed[i].attainable_flops, "FLOP/s"),
                          g.placed[i].memory_bound ? "memory-bound" : "compute-bound"));
      marker(s, r.points[i].kind, color_of(gi));
      s.close_group();
    }
  }
  std::vector<size_t> order(r.points.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](size_t p, size_t q) { return r.points[p].intensity < r.points[q].intensity; });
  for (size_t i : order) {
    double best = 0;
    for (const GpuRoofline& g : r.gpus) best = std::max(best, g.placed[i].attainable_flops);
    const double x = x_px(a, r.points[i].intensity), y = y_px(a, best);
    const std::string text = point_label(r.points[i]);
    std::vector<LabelPlacer::Spot> spots;
    for (double k = 1; k <= 6; ++k) {
      spots.push_back({x + 9, y - 9 * k, "start"});
      spots.push_back({x - 9, y - 9 * k, "end"});
      spots.push_back({x + 9, y + 4 + 12 * k, "start"});
      spots.push_back({x - 9, y + 4 + 12 * k, "end"});
      spots.push_back({x, y - 8 - 12 * k, "middle"});
      spots.push_back({x, y + 18 + 12 * k, "middle"});
    }
    const auto spot = labels.place(text, kFont, spots);
    // A leader line when the label ended up away from its marker.
    const Box b = LabelPlacer::box(spot, text_width(text, kFont), kFont);
    const double nx = std::clamp(x, b.x0, b.x1), ny = std::clamp(y, b.y0, b.y1);
    if (std::hypot(nx - x, ny - y) > 16) {
      s.line(x, y, nx, ny, {{"stroke", "#888"}, {"stroke-width", "0.8"}});
    }
    s.text(spot.x, spot.y, text, halo(text_attrs(spot.anchor, kFont)));
  }
  // Roof labels, after the point labels: right-aligned above or below each roof.
  for (size_t gi = 0; gi < r.gpus.size(); ++gi) {
    const GpuRoofline& g = r.gpus[gi];
    for (const DrawnRoof& roof : drawn_roofs(g)) {
      const std::string text = fmt::format("{}{} {} · ridge {}", r.gpus.size() > 1 ? gpu_short(g.gpu) + " " : "",
                                           roof.name, fmt_si(roof.peak_flops, "FLOP/s", 4),
                                           fmt_sig(roof.ridge, 4));
      const double y = y_px(a, roof.peak_flops);
      std::vector<LabelPlacer::Spot> spots;
      for (int k = 0; k < 8; ++k) {
        for (double dx : {0.0, 80.0, 160.0, 240.0, 320.0}) {
          spots.push_back({right - 6 - dx, y - 6 - 14.0 * k, "end"});
          spots.push_back({right - 6 - dx, y + 16 + 14.0 * k, "end"});
        }
      }
      const auto spot = labels.place(text, 11, spots);
      s.text(spot.x, spot.y, text, halo(text_attrs(spot.anchor, 11, color_of(gi))));
    }
  }
  draw_legend(s, r, right + kGap, a.top + 12);
  s.close_group();
  return s.svg_element();
}

std::string roofline_svg_document(const RooflineResult& r, const PlotOptions& o) {
  std::string e = roofline_svg_element(r, o);
  return "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n" + e;
}

}  // namespace modelcalc
