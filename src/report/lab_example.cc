// The lab's worked example: a 70B and an 8B dense GQA model (the
// llama-3.1-70b and llama-3.1-8b presets) served in fp16 on H100 SXM, end to
// end: FLOPs, weights, KV with GQA, Chinchilla, the roofline check, decode
// ceiling and batching, the $/1M floor, and a tradeoff that flips with the
// weights.
#include <cmath>
#include <fmt/format.h>

#include "format.h"
#include "lab_report.h"
#include "modelcalc/cost.h"
#include "modelcalc/lab.h"
#include "tradeoff_text.h"

namespace modelcalc {

namespace {

constexpr int64_t kSeq = LabExample::kSeq;
constexpr int64_t kBatch = LabExample::kBatch;
constexpr double kUsdPerGpuHour = LabExample::kUsdPerGpuHour;
constexpr double kTrainMfu = LabExample::kTrainMfu;

using Deployment = LabExampleModel;

Section flops_section(const Deployment& big, const Deployment& small, const GpuSpec& h100) {
  Section s{"1. FLOPs: 2·N per token to run, 6·N·D to train (D = Chinchilla's 20·N)", {}, {}};
  for (const Deployment* d : {&big, &small}) {
    const double n = dbl(d->deployment.size.total);
    const LabExampleFlops& f = d->flops;
    const std::string k = d->key;
    s.lines.push_back(computed("flops." + k + ".forward_per_token", k + ": forward per token", f.forward_per_token,
                               Unit::kFlop, fx::kForwardLab, {term("N", format_brief(n, Unit::kParams))}));
    s.lines.push_back(computed("chinchilla." + k + ".tokens", k + ": Chinchilla-optimal tokens", f.chinchilla_tokens,
                               Unit::kTokens, fx::kChinchillaTokens, {term("N", format_brief(n, Unit::kParams))}));
    s.lines.push_back(computed("flops." + k + ".train", k + ": training FLOPs at that D", f.train_flops, Unit::kFlop,
                               fx::kTrain,
                               {term("N", format_brief(n, Unit::kParams)), term("D", fmt_sig(f.chinchilla_tokens))}));
    s.lines.push_back(computed("flops." + k + ".train_gpu_hours", k + ": H100-hours at MFU 0.4", f.train_gpu_hours,
                               Unit::kHours, fx::kTrainGpuHours,
                               {term("F", fmt_sig(f.train_flops)),
                                term("peak", h100.peak_bf16_flops, Unit::kFlopPerS),
                                term("mfu", kTrainMfu)}));
  }
  s.notes.push_back("Both were in fact trained far past Chinchilla (Llama 3: about 15T tokens): a model that will "
                    "serve trillions of tokens is cheaper to over-train than to serve larger.");
  return s;
}

Section weights_section(const Deployment& big, const Deployment& small) {
  Section s{"2. Weight memory: N × bytes per parameter", {}, {}};
  for (const Deployment* d : {&big, &small}) {
    for (const LabExampleWeights& w : d->weights) {
      const std::string name(dtype_name(w.dtype));
      s.lines.push_back(computed("weights." + d->key + "." + name, d->key + " in " + name, w.bytes, Unit::kBytes,
                                 fx::kWeightBytes,
                                 {term("N", d->deployment.size.total), term("b", dtype_bytes(w.dtype))}));
    }
  }
  s.notes.push_back(fmt::format("The 70B in fp16 does not fit one 80 GB H100: it is served on {} of them "
                                "(tensor parallel), the 8B on one.",
                                big.deployment.gpus));
  return s;
}

Section kv_section(const Deployment& big, const Deployment& small) {
  Section s{fmt::format("3. KV cache per sequence at T = {}: GQA (8 KV heads) vs MHA", group_digits(kSeq)), {}, {}};
  for (const Deployment* d : {&big, &small}) {
    const ModelSpec& m = d->model;
    for (const LabExampleKv& kv : d->kv) {
      const int64_t kv_heads = kv.kv_heads;
      const bool gqa = kv_heads != m.n_head;
      s.lines.push_back(computed(fmt::format("kv.{}.{}", d->key, gqa ? "gqa" : "mha"),
                                 fmt::format("{} {} ({} of {} heads)", d->key, gqa ? "GQA" : "MHA", kv_heads, m.n_head),
                                 kv.bytes, Unit::kBytes, fx::kKvCacheBytes,
                                 {term("L", m.n_layer), term("T", kSeq), term("d", m.n_embd), term("n_kv", kv_heads),
                                  term("n_head", m.n_head), term("b", 2.0), term("B", int64_t{1})}));
    }
  }
  s.notes.push_back("The 8B's GQA figure is the lab's check: L = 32, T = 4096, d = 4096, fp16 is 2.15 GB with MHA "
                    "and 0.54 GB with 8 of 32 KV heads.");
  return s;
}

Section roofline_section(const LabExampleRoofline& r, const GpuSpec& h100) {
  Section s{"4. Roofline: decode is memory-bound", {}, {}};
  s.lines.push_back(computed("roofline.decode_intensity", "8b decode step at batch 1", r.intensity, Unit::kFlopPerByte,
                             fx::kIntensity, {term("F", fmt_sig(r.flops)), term("bytes", fmt_sig(r.bytes))},
                             "(2 FLOP per 2-byte weight)"));
  s.lines.push_back(computed(
      "roofline.ridge", "H100 ridge point", r.ridge, Unit::kFlopPerByte, fx::kRidge,
      {term("peak", h100.peak_bf16_flops, Unit::kFlopPerS), term("bw", h100.bandwidth_bytes_per_s, Unit::kBytesPerS)}));
  s.lines.push_back(computed("roofline.attainable_flops", "Attainable at that intensity", r.attainable_flops,
                             Unit::kFlopPerS, fx::kAttainable,
                             {term("peak", h100.peak_bf16_flops, Unit::kFlopPerS),
                              term("bw", h100.bandwidth_bytes_per_s, Unit::kBytesPerS), term("I", r.intensity)}));
  s.lines.push_back(given("roofline.memory_bound", "Memory-bound", r.memory_bound, Unit::kNone,
                          "(I < ridge: batch and quantize; buying FLOPs does nothing)"));
  return s;
}

Section batching_section(const Deployment& d) {
  const SizeResult& r = d.deployment.size;
  const double w = r.decode_weight_bytes;
  const double kv = dbl(r.kv_per_seq);
  const double bw = d.deployment.gpu.bandwidth_bytes_per_s;
  Section s{fmt::format("5{}. Decode ceiling vs batch: {} on {} ({} TB/s)", d.key == "70b" ? "a" : "b", d.key,
                        d.deployment.gpu.name, fmt_sig(bw / 1e12, 4)),
            {}, {}};
  for (const LabExampleBatch& x : d.batching) {
    const int64_t b = x.batch;
    s.lines.push_back(
        computed(fmt::format("decode.{}.batch_{}", d.key, b), fmt::format("batch {}", b), x.tokens_per_s,
                 Unit::kTokensPerS, fx::kTpsAggregate,
                 {term("B", b), term("bw", bw, Unit::kBytesPerS), term("W", format_quantity(w, Unit::kBytes)),
                  term("KV", format_quantity(kv, Unit::kBytes))},
                 b == 1 ? "" : fmt::format("(×{} batch 1; linear would be ×{})", fmt_sig(x.over_batch_one, 3), b)));
  }
  s.notes.push_back(fmt::format(
      "One weight read ({}) serves the whole batch, so throughput rises almost linearly while B × KV ({} per "
      "sequence) is small next to it, and bends once the KV read rivals the weights; capacity stops it at {} "
      "sequences.",
      format_quantity(w, Unit::kBytes), format_quantity(kv, Unit::kBytes), r.max_batch_by_capacity));
  return s;
}

Section cost_section(const Deployment& big, const Deployment& small) {
  Section s{fmt::format("6. Cost floor at batch {}, {}/GPU-hour", kBatch, format_quantity(kUsdPerGpuHour, Unit::kUsd)),
            {},
            {}};
  for (const Deployment* d : {&big, &small}) {
    s.lines.push_back(computed("cost." + d->key + ".usd_per_million_tokens", d->key + " on " + d->deployment.gpu.name,
                               d->deployment.usd_per_million_tokens, Unit::kUsd, fx::kCostPerMillion,
                               {term("price", format_quantity(kUsdPerGpuHour, Unit::kUsd)),
                                term("gpus", d->deployment.gpus), term("tps", fmt_sig(d->deployment.ceiling.tps))},
                               d->deployment.ceiling.bandwidth_tps <= d->deployment.ceiling.compute_tps
                                   ? "(floor; bandwidth-bound)"
                                   : "(floor; compute-bound)"));
  }
  s.notes.push_back("Floors: the ceiling is an upper bound on throughput, so these are lower bounds on cost; real "
                    "engines reach 60–80 % of the ceiling.");
  return s;
}

Section tradeoff_section(const LabExample& ex, nlohmann::json* json) {
  const Candidate& a = ex.big.candidate;
  const Candidate& b = ex.small.candidate;
  Section s{"7. Tradeoff: the same two candidates under two workloads' weights", {}, {}};
  for (const Candidate* c : {&a, &b}) {
    s.lines.push_back(given("", c->name,
                            fmt::format("quality {} (assumed), latency {} ms/token, throughput {} tokens/s, "
                                        "cost ${}/1M, memory {} GB",
                                        fmt_sig(c->dials.quality, 3), fmt_sig(c->dials.latency, 3),
                                        fmt_fixed(c->dials.throughput, 0), fmt_sig(c->dials.cost, 3),
                                        fmt_sig(c->dials.memory, 4)),
                            Unit::kNone));
  }
  nlohmann::json out = nlohmann::json::array();
  for (const LabExampleTradeoff& wl : ex.tradeoffs) {
    const TradeoffResult* r = &wl.result;
    const std::string winner = r->winner == Winner::kA ? a.name : r->winner == Winner::kB ? b.name : "tie";
    s.lines.push_back(given("", wl.label,
                            fmt::format("{} {} vs {} {}", a.name, fmt_fixed(r->score_a, 3), b.name,
                                        fmt_fixed(r->score_b, 3)),
                            Unit::kNone, fmt::format("[{}] → {}", wl.weights, winner)));
    const std::string sentence = tradeoff_sentence(a, b, *r);
    s.lines.push_back(given("", "  decision", sentence, Unit::kNone));
    out.push_back({{"workload", wl.key},
                   {"weights", wl.weights},
                   {"winner", winner},
                   {"deciding_dial", r->deciding_dial ? nlohmann::json(std::string(dial_name(*r->deciding_dial)))
                                                      : nlohmann::json()},
                   {"scores", {{a.name, r->score_a}, {b.name, r->score_b}}},
                   {"decision", sentence}});
  }
  s.notes.push_back("Quality-first: e.g. a legal drafting assistant; chat at scale: the issue's example weights. "
                    "Latency is ms per token for each user at batch 64, memory the GB resident at that batch.");
  s.notes.push_back("\"Best model\" is a category error: the winner is a property of the weights, and the deciding "
                    "dial is what the decision record should name.");
  *json = out;
  return s;
}

}  // namespace

Report build_example_report(const LabExample& ex) {
  const GpuSpec* h100 = &ex.h100;
  const Deployment* big = &ex.big;
  const Deployment* small = &ex.small;
  Report rep;
  rep.title = fmt::format(
      "The lab's worked example — two dense GQA models (presets llama-3.1-70b, llama-3.1-8b) in fp16 on {}\n"
      "  70b: L=80 d=8192 h=64 kv_heads=8 d_ff=28672 (gated) V=128256 → N = {} params\n"
      "   8b: L=32 d=4096 h=32 kv_heads=8 d_ff=14336 (gated) V=128256 → N = {} params\n"
      "  Serving point: T = {} tokens per sequence, batch {}, {}/GPU-hour",
      h100->name, group_digits(big->deployment.size.total), group_digits(small->deployment.size.total),
      group_digits(kSeq), kBatch, format_quantity(kUsdPerGpuHour, Unit::kUsd));
  rep.sections.push_back(flops_section(*big, *small, *h100));
  rep.sections.push_back(weights_section(*big, *small));
  rep.sections.push_back(kv_section(*big, *small));
  rep.sections.push_back(roofline_section(ex.roofline, *h100));
  rep.sections.push_back(batching_section(*big));
  rep.sections.push_back(batching_section(*small));
  rep.sections.push_back(cost_section(*big, *small));
  nlohmann::json tradeoffs;
  rep.sections.push_back(tradeoff_section(ex, &tradeoffs));
  rep.extra_json["tradeoffs"] = tradeoffs;
  rep.ignored = {
      "Parameters are the presets' exact counts (norms included); 2·N and 6·N·D treat them all as matmul weights.",
      "Communication between the 70B's four GPUs: tensor parallelism is taken as ideal.",
      "Prefill and the attention T² term in training FLOPs; KV fragmentation (what PagedAttention reclaims).",
      "Decode ceilings are upper bounds: kernel launches, sampling and scheduling keep real engines below them."};
  return rep;
}

}  // namespace modelcalc
