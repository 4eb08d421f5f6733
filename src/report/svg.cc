#include "svg.h"

#include <cmath>
#include <fmt/format.h>

namespace modelcalc {

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 && c != '\t' && c != '\n' && c != '\r') break;  // not allowed in XML 1.0
        out.push_back(c);
      }
    }
  }
  return out;
}

std::string svg_num(double v) {
  if (!std::isfinite(v)) return "0";
  std::string s = fmt::format("{:.2f}", v);
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  if (s == "-0") s = "0";
  return s;
}

SvgWriter::SvgWriter(double width, double height) : width_(width), height_(height) {}

void SvgWriter::open_tag(std::string_view name, const SvgAttrs& attrs, bool self_close) {
  body_ += "<";
  body_ += name;
  for (const auto& [k, v] : attrs) body_ += fmt::format(" {}=\"{}\"", k, xml_escape(v));
  body_ += self_close ? "/>\n" : ">";
}

void SvgWriter::element(std::string_view name, const SvgAttrs& attrs) { open_tag(name, attrs, true); }

void SvgWriter::line(double x1, double y1, double x2, double y2, const SvgAttrs& attrs) {
  SvgAttrs a = {{"x1", svg_num(x1)}, {"y1", svg_num(y1)}, {"x2", svg_num(x2)}, {"y2", svg_num(y2)}};
  a.insert(a.end(), attrs.begin(), attrs.end());
  element("line", a);
}

void SvgWriter::rect(double x, double y, double w, double h, const SvgAttrs& attrs) {
  SvgAttrs a = {{"x", svg_num(x)}, {"y", svg_num(y)}, {"width", svg_num(w)}, {"height", svg_num(h)}};
  a.insert(a.end(), attrs.begin(), attrs.end());
  element("rect", a);
}

void SvgWriter::circle(double cx, double cy, double r, const SvgAttrs& attrs) {
  SvgAttrs a = {{"cx", svg_num(cx)}, {"cy", svg_num(cy)}, {"r", svg_num(r)}};
  a.insert(a.end(), attrs.begin(), attrs.end());
  element("circle", a);
}

void SvgWriter::poly(const std::vector<std::pair<double, double>>& pts, bool closed, const SvgAttrs& attrs) {
  std::string p;
  for (const auto& [x, y] : pts) {
    if (!p.empty()) p += " ";
    p += svg_num(x) + "," + svg_num(y);
  }
  SvgAttrs a = {{"points", p}};
  a.insert(a.end(), attrs.begin(), attrs.end());
  element(closed ? "polygon" : "polyline", a);
}

void SvgWriter::text(double x, double y, std::string_view content, const SvgAttrs& attrs) {
  SvgAttrs a = {{"x", svg_num(x)}, {"y", svg_num(y)}};
  a.insert(a.end(), attrs.begin(), attrs.end());
  open_tag("text", a, false);
  body_ += xml_escape(content);
  body_ += "</text>\n";
}

void SvgWriter::title(std::string_view content) {
  body_ += "<title>" + xml_escape(content) + "</title>\n";
}

void SvgWriter::open_group(const SvgAttrs& attrs) {
  open_tag("g", attrs, false);
  body_ += "\n";
  ++open_groups_;
}

void SvgWriter::close_group() {
  if (open_groups_ == 0) return;
  body_ += "</g>\n";
  --open_groups_;
}

std::string SvgWriter::svg_element() const {
  std::string out = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\">\n",
      svg_num(width_), svg_num(height_));
  out += body_;
  for (int i = 0; i < open_groups_; ++i) out += "</g>\n";
  out += "</svg>\n";
  return out;
}

std::string SvgWriter::document() const {
  return "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n" + svg_element();
}

}  // namespace modelcalc
