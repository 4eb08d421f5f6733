// The roofline as an SVG picture: log-log axes (FLOP/byte vs FLOP/s), each
// GPU's bandwidth slope and compute roofs (one per dtype it has), ridge
// points, and the operating points of a RooflineResult, labelled.
#ifndef MODELCALC_ROOFLINE_PLOT_H_
#define MODELCALC_ROOFLINE_PLOT_H_

#include <string>

#include "modelcalc/roofline.h"

namespace modelcalc {

// Data range (powers of ten) mapped onto a plot area in px, y growing down.
struct AxisMap {
  double x_lo = 0.1, x_hi = 1e4;    // FLOP/byte at the left and right edges; 0 < x_lo < x_hi
  double y_lo = 1e11, y_hi = 1e16;  // FLOP/s at the bottom and top edges; 0 < y_lo < y_hi
  double left = 0, top = 0, width = 1, height = 1;  // plot area, px
};

// Pure mappings. x_px(x_lo) = left, x_px(x_hi) = left + width, log-linear in
// between; y_px(y_lo) = top + height (bottom), y_px(y_hi) = top.
// REQUIRES: intensity, flops > 0.
double x_px(const AxisMap& a, double intensity);
double y_px(const AxisMap& a, double flops);

// Decade-aligned ranges that hold every point, ridge and roof of `r` with a
// margin, over the given plot area.
AxisMap fit_axes(const RooflineResult& r, double left, double top, double width, double height);

// The plot area of roofline_svg_element, px: the axes are
// fit_axes(r, kPlotLeft, kPlotTop, kPlotWidth, kPlotHeight).
inline constexpr double kPlotLeft = 104, kPlotTop = 72, kPlotWidth = 600, kPlotHeight = 440;

struct PlotOptions {
  std::string title = "Roofline";  // first line above the plot
  std::string subtitle;            // second line (conditions), may be empty
};

// The plot as an <svg> element (for inline HTML) and as a standalone file.
// REQUIRES: r came from analyze_roofline (at least one GPU).
std::string roofline_svg_element(const RooflineResult& r, const PlotOptions& o);
std::string roofline_svg_document(const RooflineResult& r, const PlotOptions& o);

}  // namespace modelcalc

#endif  // MODELCALC_ROOFLINE_PLOT_H_
