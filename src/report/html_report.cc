#include "html_report.h"

#include <algorithm>
#include <fmt/format.h>

#include "format.h"
#include "roofline_plot.h"
#include "roofline_report.h"
#include "svg.h"

namespace modelcalc {

namespace {

// HTML needs the same five escapes as XML.
std::string esc(std::string_view s) { return xml_escape(s); }

constexpr std::string_view kCss = R"css(
:root { color-scheme: light; }
body { font-family: "DejaVu Sans", Helvetica, Arial, sans-serif; color: #1d1d1f; background: #f6f6f4;
       margin: 0; line-height: 1.45; }
main { max-width: 1120px; margin: 0 auto; padding: 24px 28px 48px; background: #fff; }
h1 { font-size: 1.55rem; margin: 0 0 4px; }
h2 { font-size: 1.15rem; margin: 32px 0 8px; padding-bottom: 4px; border-bottom: 2px solid #e3e3e0; }
p.sub { margin: 0; color: #555; font-family: "DejaVu Sans Mono", Menlo, monospace; font-size: 0.85rem; }
table { border-collapse: collapse; width: 100%; font-size: 0.86rem; }
th, td { text-align: left; vertical-align: top; padding: 5px 8px; border-bottom: 1px solid #ececea; }
th { background: #f3f3f1; font-weight: 600; }
td.value { white-space: nowrap; font-variant-numeric: tabular-nums; }
td.text { min-width: 16em; }
td.num { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
code { font-family: "DejaVu Sans Mono", Menlo, monospace; font-size: 0.82rem; }
.fname { color: #6a4c93; }
.comment { color: #666; font-size: 0.8rem; }
ul.notes { margin: 8px 0 0 0; padding-left: 20px; color: #333; font-size: 0.88rem; }
ul.warn li { color: #a33; }
.memory { color: #1f5fa8; }
.compute { color: #a8501f; }
figure { margin: 12px 0; overflow-x: auto; }
figure svg { max-width: 100%; height: auto; }
figcaption { color: #555; font-size: 0.85rem; }
footer { margin-top: 36px; color: #777; font-size: 0.8rem; }
)css";

std::vector<std::string> split_lines(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    const size_t nl = s.find('\n', start);
    std::string line = s.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
    const size_t first = line.find_first_not_of(' ');
    if (first != std::string::npos) out.push_back(line.substr(first));
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  return out;
}

std::string section_html(const Section& s) {
  std::string h = "<section>\n<h2>" + esc(s.title) + "</h2>\n";
  if (!s.lines.empty()) {
    h += "<table>\n<thead><tr><th>Quantity</th><th>Value</th><th>Formula</th><th>Substituted</th></tr></thead>\n"
         "<tbody>\n";
    for (const Line& l : s.lines) {
      const bool text = std::holds_alternative<std::string>(l.value);
      h += "<tr><td>" + esc(l.label) + "</td><td class=\"" + (text ? "text" : "value") + "\">" +
           esc(line_value_text(l));
      if (!l.comment.empty()) h += "<br><span class=\"comment\">" + esc(l.comment) + "</span>";
      h += "</td>";
      if (l.formula != nullptr) {
        h += "<td><code class=\"fname\">" + esc(l.formula->name) + "</code><br><code>" + esc(l.formula->expr) +
             "</code></td><td><code>" + esc(l.terms.empty() ? "" : substitute(l.formula->expr, l.terms)) +
             "</code></td>";
      } else {
        h += "<td class=\"comment\">given</td><td></td>";
      }
      h += "</tr>\n";
    }
    h += "</tbody>\n</table>\n";
  }
  if (!s.notes.empty()) {
    h += "<ul class=\"notes\">\n";
    for (const std::string& n : s.notes) h += "<li>" + esc(n) + "</li>\n";
    h += "</ul>\n";
  }
  return h + "</section>\n";
}

std::string roofline_html(const ModelSpec& m, const RooflineOptions& o, const RooflineResult& r) {
  const GpuRoofline& g = r.gpus.front();
  PlotOptions po;
  po.title = "Roofline: " + m.name + " on " + g.gpu.name;
  po.subtitle = fmt::format("{} math · decode at context {} · weights {}, KV {}", dtype_name(o.math_dtype),
                            group_digits(o.context), dtype_name(o.weight_dtype), dtype_name(o.kv_dtype));
  std::string h = "<section id=\"roofline\">\n<h2>Roofline</h2>\n<figure>\n" + roofline_svg_element(r, po) +
                  "<figcaption>Each point sits at its arithmetic intensity (FLOP per byte moved) and at the "
                  "attainable rate min(peak, bandwidth × intensity). Left of the ridge a step is bound by memory "
                  "bandwidth, right of it by compute.</figcaption>\n</figure>\n";
  h += "<table>\n<thead><tr><th>Point</th><th>FLOP per step</th><th>Bytes per step</th><th>Intensity</th>"
       "<th>Attainable</th><th>% of peak</th><th>Bound by</th><th>Fits</th></tr></thead>\n<tbody>\n";
  for (size_t i = 0; i < r.points.size(); ++i) {
    const OperatingPoint& p = r.points[i];
    const PlacedPoint& pp = g.placed[i];
    const bool resident = p.kind == PointKind::kDecode || p.kind == PointKind::kPrefill;
    h += fmt::format(
        "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
        "<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"{}\">{}</td><td>{}</td></tr>\n",
        esc(point_label(p)), esc(format_value(p.flops, Unit::kFlop)), esc(format_value(p.bytes, Unit::kBytes)),
        esc(format_value(p.intensity, Unit::kFlopPerByte)), esc(format_value(pp.attainable_flops, Unit::kFlopPerS)),
        esc(format_quantity(pp.peak_fraction, Unit::kFraction)),
        pp.memory_bound ? "memory" : "compute", pp.memory_bound ? "memory bandwidth" : "compute",
        resident ? (pp.fits ? "yes" : "no") : "");
  }
  h += "</tbody>\n</table>\n<ul class=\"notes\">\n";
  h += "<li>" +
       esc("Bytes per step: decode reads the weights once for the whole batch plus every sequence's KV cache; "
           "prefill reads the weights once, writes the prompt's KV and moves the residual stream in and out of "
           "every layer (2 × L × T × d × b); a square GEMM reads A and B and writes C (3 × n² × b). Attention "
           "scores are assumed fused, so no T² bytes.") +
       "</li>\n";
  h += "<li>" + esc(fmt::format("Ridge of the {} roof: {} FLOP/byte (peak {} / bandwidth {}).", dtype_name(o.math_dtype),
                                fmt_sig(g.math.ridge), fmt_si(g.math.peak_flops, "FLOP/s"),
                                fmt_si(g.gpu.bandwidth_bytes_per_s, "B/s"))) +
       "</li>\n";
  return h + "</ul>\n</section>\n";
}

std::string list_section(const std::string& title, const std::vector<std::string>& items, const char* cls) {
  if (items.empty()) return "";
  std::string h = "<section>\n<h2>" + esc(title) + "</h2>\n<ul class=\"" + cls + "\">\n";
  for (const std::string& i : items) h += "<li>" + esc(i) + "</li>\n";
  return h + "</ul>\n</section>\n";
}

}  // namespace

std::string render_html_report(const Report& size_report, const ModelSpec& m, const RooflineOptions* ro,
                               const RooflineResult* roofline) {
  const std::vector<std::string> title = split_lines(size_report.title);
  const std::string head = title.empty() ? "modelcalc report" : title.front();
  std::string h = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                  "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>" +
                  esc(head) + "</title>\n<style>" + std::string(kCss) + "</style>\n</head>\n<body>\n<main>\n";
  h += "<header>\n<h1>" + esc(head) + "</h1>\n";
  for (size_t i = 1; i < title.size(); ++i) h += "<p class=\"sub\">" + esc(title[i]) + "</p>\n";
  h += "</header>\n";
  for (const Section& s : size_report.sections) h += section_html(s);
  if (roofline != nullptr && ro != nullptr) {
    h += roofline_html(m, *ro, *roofline);
  } else {
    h += "<section id=\"roofline\">\n<h2>Roofline</h2>\n<p>The roofline needs a GPU: run <code>modelcalc size "
         "… --gpu NAME --report FILE</code>.</p>\n</section>\n";
  }
  h += list_section("Ignored (and why it is safe)", size_report.ignored, "notes");
  h += list_section("Sanity checks", size_report.warnings, "notes warn");
  h += "<footer>Generated by modelcalc. Decimal units (1 GB = 10⁹ B); dense peaks; every number is a ceiling "
       "computed from the formulas shown.</footer>\n</main>\n</body>\n</html>\n";
  return h;
}

}  // namespace modelcalc
