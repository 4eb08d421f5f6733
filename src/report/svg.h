// A tiny SVG 1.1 writer: shapes and text appended in order, every attribute
// value and text node XML-escaped. No layout, no dependencies; the caller
// decides coordinates (user units = CSS px).
#ifndef MODELCALC_SVG_H_
#define MODELCALC_SVG_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace modelcalc {

// Escapes &, <, >, " and ' for XML text and attribute values, and drops the
// characters XML 1.0 forbids (C0 controls other than tab, LF, CR). UTF-8
// passes through unchanged.
std::string xml_escape(std::string_view text);

// Attribute list: name, value (the value is escaped on output).
using SvgAttrs = std::vector<std::pair<std::string, std::string>>;

// Formats a coordinate with at most 2 decimals ("12.5", "300").
std::string svg_num(double v);

class SvgWriter {
 public:
  // REQUIRES: width, height > 0 (px). The document gets width, height and a
  // matching viewBox, so it scales when embedded.
  SvgWriter(double width, double height);

  void line(double x1, double y1, double x2, double y2, const SvgAttrs& attrs = {});
  void rect(double x, double y, double w, double h, const SvgAttrs& attrs = {});
  void circle(double cx, double cy, double r, const SvgAttrs& attrs = {});
  // Points as x,y pairs; `closed` draws a polygon, else a polyline.
  void poly(const std::vector<std::pair<double, double>>& pts, bool closed, const SvgAttrs& attrs = {});
  void text(double x, double y, std::string_view content, const SvgAttrs& attrs = {});
  // <title> of the document (shown as a tooltip / accessible name).
  void title(std::string_view content);
  void open_group(const SvgAttrs& attrs = {});
  void close_group();
  // Any element with attributes and no children, e.g. ("path", {{"d", ...}}).
  void element(std::string_view name, const SvgAttrs& attrs);

  double width() const { return width_; }
  double height() const { return height_; }
  // The <svg> element alone, for inline use in HTML. REQUIRES: groups closed.
  std::string svg_element() const;
  // A standalone .svg file: XML declaration plus svg_element().
  std::string document() const;

 private:
  void open_tag(std::string_view name, const SvgAttrs& attrs, bool self_close);
  double width_, height_;
  std::string body_;
  int open_groups_ = 0;
};

}  // namespace modelcalc

#endif  // MODELCALC_SVG_H_
