#include "roofline_report.h"

#include <fmt/format.h>

#include "format.h"

namespace modelcalc {

namespace {


std::string prefix_of(const RooflineResult& r, const GpuRoofline& g) {
  return r.gpus.size() == 1 ? "" : "gpus." + g.gpu.key + ".";
}

std::string model_text(const ModelSpec* m) {
  if (m == nullptr) return "no model";
  return fmt::format("{} (L={} d={} h={} kv_heads={})", m->name, m->n_layer, m->n_embd, m->n_head, m->n_head_kv);
}

std::string options_text(const ModelSpec* m, const RooflineOptions& o) {
  std::string s;
  if (m != nullptr) {
    s = fmt::format("decode at context T = {}, prefill of a T-token prompt; weights {}, KV {}; ", group_digits(o.context),
                    dtype_name(o.weight_dtype), dtype_name(o.kv_dtype));
  }
  return s + fmt::format("points placed under the {} roof", dtype_name(o.math_dtype));
}

Section points_section(const ModelSpec* m, const RooflineOptions& o, const RooflineResult& r) {
  Section s{"Operating points (the same on every GPU)", {}, {}};
  const std::string b = fmt_sig(dtype_bytes(o.weight_dtype));
  for (const OperatingPoint& p : r.points) {
    if (p.kind == PointKind::kGiven) continue;
    const std::string k = "points." + point_key(p) + ".";
    const std::string label = point_label(p);
    switch (p.kind) {
      case PointKind::kDecode:
        s.lines.push_back(computed(k + "flops", label + ": FLOP per step", p.flops, Unit::kFlop,
                                   fx::kDecodeStepFlops,
                                   {term("B", p.batch), term("F_token", p.flops / static_cast<double>(p.batch))}));
        s.lines.push_back(computed(k + "bytes", label + ": bytes per step", p.bytes, Unit::kBytes, fx::kStepBytes,
                                   {term("W", format_quantity(p.weight_bytes, Unit::kBytes)), term("B", p.batch),
                                    term("KV", format_quantity(p.kv_bytes / static_cast<double>(p.batch), Unit::kBytes))}));
        break;
      case PointKind::kPrefill:
        s.lines.push_back(computed(k + "flops", label + ": FLOP", p.flops, Unit::kFlop, fx::kPrefillTotal,
                                   {}, "(the size analysis: 2 × N_blocks × T + attention)"));
        s.lines.push_back(computed(k + "bytes", label + ": bytes", p.bytes, Unit::kBytes, fx::kPrefillBytes,
                                   {term("W", format_quantity(p.weight_bytes, Unit::kBytes)), term("KV", format_quantity(p.kv_bytes, Unit::kBytes)),
                                    term("L", m != nullptr ? m->n_layer : 0), term("T", p.tokens),
                                    term("d", m != nullptr ? m->n_embd : 0), term("b", b)},
                                   "(weights once, KV written, residual stream in and out per layer)"));
        break;
      case PointKind::kGemm: {
        const std::string gb_elem = fmt_sig(dtype_bytes(o.math_dtype));
        s.lines.push_back(computed(k + "flops", label + ": FLOP", p.flops, Unit::kFlop, fx::kGemmFlops,
                                   {term("n", p.tokens)}));
        s.lines.push_back(computed(k + "bytes", label + ": bytes", p.bytes, Unit::kBytes, fx::kGemmBytes,
                                   {term("n", p.tokens), term("b", gb_elem)}, "(A and B read, C written)"));
        break;
      }
      case PointKind::kGiven: break;
    }
    s.lines.push_back(computed(k + "intensity", label + ": intensity", p.intensity, Unit::kFlopPerByte,
                               fx::kIntensity, {term("F", fmt_sig(p.flops)), term("bytes", fmt_sig(p.bytes))}));
  }
  return s;
}

Section gpu_section(const RooflineOptions& o, const RooflineResult& r, const GpuRoofline& g) {
  const std::string pre = prefix_of(r, g);
  const double bw = g.gpu.bandwidth_bytes_per_s;
  Section s{fmt::format("{} ({}, {})", g.gpu.name, format_quantity(bw, Unit::kBytesPerS), format_quantity(g.gpu.capacity_bytes, Unit::kBytes)), {}, {}};
  for (const Roof& roof : g.roofs) {
    const std::string d(roof_label(roof.dtype));
    s.lines.push_back(given(pre + "roofs." + d + ".peak_flops", d + " peak", roof.peak_flops, Unit::kFlopPerS));
    s.lines.push_back(computed(pre + "roofs." + d + ".ridge", d + " ridge", roof.ridge, Unit::kFlopPerByte,
                               fx::kRidge, {term("peak", format_quantity(roof.peak_flops, Unit::kFlopPerS)), term("bw", format_quantity(bw, Unit::kBytesPerS))}));
  }
  const std::string md(dtype_name(o.math_dtype));
  s.lines.push_back(computed(pre + "ridge", "Ridge (" + md + ")", g.math.ridge, Unit::kFlopPerByte, fx::kRidge,
                             {term("peak", format_quantity(g.math.peak_flops, Unit::kFlopPerS)), term("bw", format_quantity(bw, Unit::kBytesPerS))}));
  for (size_t i = 0; i < r.points.size(); ++i) {
    const OperatingPoint& p = r.points[i];
    const PlacedPoint& pp = g.placed[i];
    const bool bare = p.kind == PointKind::kGiven;
    const std::string k = bare ? pre : pre + "points." + point_key(p) + ".";
    const std::string label = point_label(p);
    if (bare) s.lines.push_back(given(k + "intensity", "Intensity", p.intensity, Unit::kFlopPerByte));
    s.lines.push_back(
        computed(k + "attainable_flops", bare ? "Attainable" : label + ": attainable", pp.attainable_flops,
                 Unit::kFlopPerS, fx::kAttainable,
                 {term("peak", format_quantity(g.math.peak_flops, Unit::kFlopPerS)),
                  term("bw", format_quantity(bw, Unit::kBytesPerS)), term("I", p.intensity)},
                 fmt::format("({} of the {} peak)",
                             format_quantity(pp.peak_fraction, Unit::kFraction), md)));
    s.lines.push_back(computed(k + "memory_bound", bare ? "Memory-bound" : label + ": memory-bound",
                               pp.memory_bound, Unit::kNone, fx::kMemoryBound,
                               {term("I", p.intensity), term("ridge", g.math.ridge)},
                               pp.memory_bound ? "(bandwidth-bound: raise the intensity, e.g. batch, or quantize)"
                                               : "(compute-bound: only more FLOP/s helps)"));
    if (p.kind == PointKind::kDecode || p.kind == PointKind::kPrefill) {
      s.lines.push_back(computed(k + "fits", label + ": fits in " + format_quantity(g.gpu.capacity_bytes, Unit::kBytes), pp.fits, Unit::kNone,
                                 fx::kFits,
                                 {term("W", format_quantity(p.resident_bytes - p.kv_bytes, Unit::kBytes)), term("KV", format_quantity(p.kv_bytes, Unit::kBytes)),
                                  term("capacity", format_quantity(g.gpu.capacity_bytes, Unit::kBytes))}));
    }
  }
  return s;
}

// Display width of UTF-8 text: code points (every glyph used here is one column).
size_t display_width(const std::string& s) {
  size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

std::string render_rows(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> w;
  for (const auto& row : rows) {
    if (w.size() < row.size()) w.resize(row.size(), 0);
    for (size_t c = 0; c < row.size(); ++c) w[c] = std::max(w[c], display_width(row[c]));
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line = " ";
    for (size_t c = 0; c < row.size(); ++c) {
      const std::string pad(w[c] - display_width(row[c]), ' ');
      // First column left-aligned, numbers right-aligned.
      line += " " + (c == 0 ? row[c] + pad : pad + row[c]) + " ";
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

}  // namespace

std::string point_label(const OperatingPoint& p) {
  switch (p.kind) {
    case PointKind::kDecode: return fmt::format("decode B={}", p.batch);
    case PointKind::kPrefill: return "prefill T=" + group_digits(p.tokens);
    case PointKind::kGemm: return fmt::format("GEMM {}³", p.tokens);
    case PointKind::kGiven: return "I = " + fmt_sig(p.intensity);
  }
  return "";
}

std::string point_key(const OperatingPoint& p) {
  switch (p.kind) {
    case PointKind::kDecode: return fmt::format("decode_b{}", p.batch);
    case PointKind::kPrefill: return "prefill";
    case PointKind::kGemm: return "gemm";
    case PointKind::kGiven: return "given";
  }
  return "";
}

Report build_roofline_report(const ModelSpec* m, const RooflineOptions& o, const RooflineResult& r) {
  Report rep;
  rep.title = "modelcalc roofline — " + model_text(m) + "\n  " + options_text(m, o);
  bool any_work = false;
  for (const OperatingPoint& p : r.points) any_work |= p.kind != PointKind::kGiven;
  if (any_work) rep.sections.push_back(points_section(m, o, r));
  for (const GpuRoofline& g : r.gpus) rep.sections.push_back(gpu_section(o, r, g));
  rep.sections.back().notes.push_back(
      "Attainable = min(peak, bw × I): a ceiling. Real kernels reach 50–80 % of it; decode loses more to launches "
      "and scheduling.");
  if (m != nullptr) {
    rep.ignored.push_back("Caches (L2, SRAM): every byte is counted as an HBM transfer, once per step.");
    rep.ignored.push_back("Attention scores: fused kernels keep the T² scores on chip, so no T² bytes are counted.");
  }
  nlohmann::json gpus = nlohmann::json::array();
  for (const GpuRoofline& g : r.gpus) {
    gpus.push_back({{"key", g.gpu.key}, {"name", g.gpu.name}, {"bandwidth_bytes_per_s", g.gpu.bandwidth_bytes_per_s},
                    {"capacity_bytes", g.gpu.capacity_bytes}});
  }
  rep.extra_json["gpu_list"] = gpus;
  rep.extra_json["options"] = {{"math_dtype", dtype_name(o.math_dtype)}};
  if (m != nullptr) {
    rep.extra_json["options"]["seq"] = o.context;
    rep.extra_json["options"]["batches"] = o.batches;
    rep.extra_json["options"]["dtype"] = dtype_name(o.weight_dtype);
    rep.extra_json["options"]["kv_dtype"] = dtype_name(o.kv_dtype);
    rep.extra_json["model"] = {{"name", m->name}, {"layers", m->n_layer}, {"hidden", m->n_embd}};
    warn_model_assumptions(m->assumptions, rep);
  }
  return rep;
}

std::string render_roofline_engine(const std::vector<RooflineEnginePoint>& points) {
  if (points.empty()) return "";
  std::string out = "\nAnswer (the deployment engine: the decode step per GPU, as size reports it; the serving "
                    "engine's prediction first, the ceiling beside it)\n";
  std::vector<std::vector<std::string>> rows = {{"gpu", "batch", "engine", "predicted step", "predicted tokens/s",
                                                 "ceiling step", "ceiling tokens/s", "FLOP/GPU", "bytes/GPU",
                                                 "intensity", "ridge", "regime", "fits"}};
  std::string engines;
  for (const RooflineEnginePoint& p : points) {
    const DecodeStep& st = p.step;
    const PredictedDecode* pd = p.predicted != nullptr ? &p.predicted->decode : nullptr;
    rows.push_back({p.gpu->key, group_digits(st.batch),
                    p.predicted != nullptr ? std::string(p.predicted->profile->name) : "none",
                    pd != nullptr ? format_brief(pd->step.seconds, Unit::kSeconds) : "-",
                    pd != nullptr ? fmt_fixed(pd->tokens_per_s_aggregate, 1) : "-",
                    format_brief(st.seconds, Unit::kSeconds), fmt_fixed(st.tokens_per_s_aggregate, 1),
                    format_value(st.flops_per_gpu, Unit::kFlop), format_value(st.bytes_per_gpu, Unit::kBytes),
                    format_value(st.intensity, Unit::kFlopPerByte), fmt_sig(st.ridge),
                    std::string(regime_name(st.regime)), st.fits ? "yes" : "no"});
    const std::string e = p.predicted != nullptr
                              ? std::string(p.gpu->key) + ": " + std::string(p.predicted->profile->display)
                              : std::string(p.gpu->key) + ": no engine profile runs on it (the ceiling alone)";
    if (engines.find(e) == std::string::npos) engines += (engines.empty() ? "" : "; ") + e;
  }
  out += render_rows(rows);
  out += "  (predicted: " + engines + ". tokens/s aggregate over the batch; the ceiling counts the experts a batch "
         "touches, the KV per GPU as sharded, the compute dtype's roof; the teaching view below places the seed's "
         "whole-model points under one roof)\n";
  return out;
}

std::string render_roofline_table(const ModelSpec* m, const RooflineOptions& o, const RooflineResult& r) {
  std::string out = "modelcalc roofline — " + model_text(m) + "\n  " + options_text(m, o) + "\n";
  bool any_work = false;
  for (const OperatingPoint& p : r.points) any_work |= p.kind != PointKind::kGiven;
  if (any_work) {
    out += "\nTeaching view: operating points (the seed's roofline, the same on every GPU)\n";
    std::vector<std::vector<std::string>> rows = {{"point", "FLOP/step", "bytes/step", "intensity"}};
    for (const OperatingPoint& p : r.points) {
      if (p.kind == PointKind::kGiven) continue;
      rows.push_back({point_label(p), format_value(p.flops, Unit::kFlop), format_value(p.bytes, Unit::kBytes),
                      format_value(p.intensity, Unit::kFlopPerByte)});
    }
    out += render_rows(rows);
  }
  const std::string md(dtype_name(o.math_dtype));
  for (const GpuRoofline& g : r.gpus) {
    out += fmt::format("\n{} — {}, {}\n", g.gpu.name, format_quantity(g.gpu.bandwidth_bytes_per_s, Unit::kBytesPerS), format_quantity(g.gpu.capacity_bytes, Unit::kBytes));
    std::string roofs;
    for (const Roof& roof : g.roofs) {
      roofs += fmt::format("{}{} {} (ridge {})", roofs.empty() ? "" : " · ", roof_label(roof.dtype),
                           format_quantity(roof.peak_flops, Unit::kFlopPerS), fmt_sig(roof.ridge));
    }
    out += "  roofs: " + (roofs.empty() ? "none catalogued" : roofs) + "\n";
    out += fmt::format("  points under the {} roof: ridge {} FLOP/byte\n", md, fmt_sig(g.math.ridge));
    std::vector<std::vector<std::string>> rows = {
        {"point", "intensity", "attainable", "% of peak", "bound by", "step time", "fits"}};
    for (size_t i = 0; i < r.points.size(); ++i) {
      const OperatingPoint& p = r.points[i];
      const PlacedPoint& pp = g.placed[i];
      const bool resident = p.kind == PointKind::kDecode || p.kind == PointKind::kPrefill;
      rows.push_back({point_label(p), format_value(p.intensity, Unit::kFlopPerByte),
                      format_value(pp.attainable_flops, Unit::kFlopPerS),
                      format_quantity(pp.peak_fraction, Unit::kFraction),
                      pp.memory_bound ? "memory" : "compute",
                      pp.step_seconds > 0 ? format_brief(pp.step_seconds, Unit::kSeconds) : "",
                      resident ? (pp.fits ? "yes" : "NO") : ""});
    }
    out += render_rows(rows);
  }
  out += "\nAttainable = min(peak, bw × I), a ceiling; --explain shows every formula, --json the numbers.\n";
  if (m != nullptr && !m->assumptions.empty()) {
    out += "\nSanity checks\n";
    for (const std::string& a : m->assumptions) out += "  ! " + a + "\n";
  }
  return out;
}

}  // namespace modelcalc
