#include "lab_report.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "format.h"
#include "modelcalc/lab.h"
#include "tradeoff_text.h"
#include "train_memory_report.h"

namespace modelcalc {

namespace {

std::string gpus_label(int64_t gpus, const std::string& name) {
  return gpus == 1 ? name : fmt::format("{} × {}", gpus, name);
}

}  // namespace

// ---------------------------------------------------------------- train

Report build_train_report(const TrainQuery& q, const TrainResult& r, const TrainEngineView* engine) {
  Report rep;
  rep.title = fmt::format("modelcalc train — N = {} parameters, D = {} tokens", format_brief(q.params, Unit::kParams),
                          format_brief(q.tokens, Unit::kTokens));
  const double flops = r.flops;
  Section c{"Compute (the lab's view: 6 × N × D)", {}, {}};
  c.lines.push_back(given("params", engine ? "Parameters N (active per token)" : "Parameters N", q.params,
                          Unit::kParams));
  c.lines.push_back(given("tokens", "Training tokens D", q.tokens, Unit::kTokens));
  c.lines.push_back(
      computed("flops.six_nd", "Training FLOPs", flops, Unit::kFlop, fx::kTrain,
               {term("N", format_brief(q.params, Unit::kParams)), term("D", format_brief(q.tokens, Unit::kTokens))},
               "(forward 2 + backward 4 per parameter per token)"));
  c.lines.push_back(
      computed("tokens_per_param", "Tokens per parameter", r.tokens_per_param, Unit::kNone, fx::kTokensPerParam,
               {term("D", format_brief(q.tokens, Unit::kTokens)), term("N", format_brief(q.params, Unit::kParams))},
               "(Chinchilla-optimal ≈ 20)"));
  const bool engine_count = engine != nullptr && engine->model != nullptr;
  const bool engine_step = engine != nullptr && engine->step != nullptr && engine->options != nullptr &&
                           engine->gpu != nullptr;
  // The answer first: the engine's step for a layout (calibrated), else the engine's FLOPs (and its
  // GPU-hours at the assumed MFU); the lab's 6·N·D and its time follow as the seed's whiteboard.
  if (engine_step) {
    rep.sections.push_back(train_step_section("Answer: the engine's prediction for this layout (calibrated)", "engine",
                                              *engine->gpu, *engine->options, *engine->step, q.tokens));
  }
  if (engine_count) {
    const TrainFlopsPerToken& f = engine->per_token;
    Section e{fmt::format("{}he engine's FLOPs ({} at s = {})", engine_step ? "T" : "Answer: t",
                          train_model_label(*engine->model), group_digits(engine->seq)),
              {},
              {}};
    if (q.gpu && r.time) {
      const double peak = r.time->peak_flops_per_gpu;
      const double F = f.model * q.tokens;
      const double h = F / (peak * q.mfu) / 3600.0;
      e.lines.push_back(computed("engine_gpu_hours", "GPU-hours with the engine's model FLOPs", h, Unit::kHours,
                                 fx::kTfHours, {term("F", fmt_sig(F)), term("peak", peak, Unit::kFlopPerS), term("mfu", q.mfu)},
                                 "(at the assumed MFU --mfu, which counts the model FLOPs, as PaLM defines it)"));
      e.lines.push_back(computed("engine_days", "Wall-clock with the engine's model FLOPs", h / dbl(q.gpus) / 24.0,
                                 Unit::kDays, fx::kTrainDays, {term("H", fmt_sig(h)), term("gpus", q.gpus)},
                                 fmt::format("(on {})", gpus_label(q.gpus, q.gpu->name))));
    }
    for (Line& l : train_flops_lines("flops", *engine->model, engine->seq, engine->recompute, engine->count, f)) {
      e.lines.push_back(std::move(l));
    }
    e.lines.push_back(computed("flops.total", "Model FLOPs", f.model * q.tokens, Unit::kFlop, fx::kTfTotal,
                               {term("F_token", fmt_sig(f.model)), term("D", format_brief(q.tokens, Unit::kTokens))}));
    e.lines.push_back(computed("flops.hardware_total", "Hardware FLOPs", f.hardware * q.tokens, Unit::kFlop,
                               fx::kTfTotal,
                               {term("F_token", fmt_sig(f.hardware)), term("D", format_brief(q.tokens, Unit::kTokens))}));
    e.notes.push_back(fmt::format("Beside 6 × N: the attention adds {} and the lm_head is counted as a matmul "
                                  "(the input embedding is a lookup).",
                                  format_brief(f.attention / f.six_n, Unit::kFraction)));
    rep.sections.push_back(std::move(e));
    c.title = "Teaching view (the seed's whiteboard): compute as 6 × N × D";
  }
  rep.sections.push_back(std::move(c));
  if (q.gpu && r.time) {
    const double peak = r.time->peak_flops_per_gpu;
    const double hours = r.time->gpu_hours;
    const double days = r.time->days;
    Section t{"Time on " + gpus_label(q.gpus, q.gpu->name) + " at an assumed MFU (" +
                  (engine_count ? "the teaching view, 6 × N × D" : "the lab's view") + ")",
              {},
              {}};
    t.lines.push_back(given("gpu.peak_flops", "Peak per GPU", peak, Unit::kFlopPerS, "(dense bf16)"));
    t.lines.push_back(given("mfu", "Sustained MFU", q.mfu, Unit::kFraction, "(--mfu)"));
    t.lines.push_back(given("gpus", "GPUs", q.gpus, Unit::kNone));
    t.lines.push_back(computed("gpu_hours", "GPU-hours", hours, Unit::kHours, fx::kTrainGpuHours,
                               {term("F", fmt_sig(flops)), term("peak", peak, Unit::kFlopPerS), term("mfu", q.mfu)}));
    t.lines.push_back(computed("days", "Wall-clock", days, Unit::kDays, fx::kTrainDays,
                               {term("H", fmt_sig(hours)), term("gpus", q.gpus)}));
    t.notes.push_back("MFU is the sustained fraction of dense peak over the whole run; large, well-tuned dense "
                      "runs report roughly 0.35–0.5.");
    rep.sections.push_back(std::move(t));
  } else {
    rep.sections.back().notes.push_back("Give --gpu (with --gpus and --mfu) for GPU-hours and days.");
  }
  if (engine != nullptr && engine->model != nullptr) {
    rep.ignored = {"Failures, restarts, evaluation and data stalls: the days are a lower bound on wall-clock.",
                   "Embedding lookups, norms, softmax and other elementwise work: no matmul FLOPs counted."};
    if (engine->step == nullptr) {
      rep.ignored.push_back("Communication and the pipeline bubble at the assumed MFU; give a layout (--tp, --pp, "
                            "--dp, --global-batch, ...) for the engine's step time.");
    }
  } else {
    rep.ignored = {
        "The attention T² term and the lm_head: 6·N·D counts the parameters' matmuls only (give --model and --seq "
        "for the engine's count).",
        "Activation recomputation: a full recompute adds another forward pass (8·N·D).",
        "Failures, restarts, evaluation and data stalls: the days are a lower bound on wall-clock."};
  }
  if (engine != nullptr && engine->model != nullptr) warn_model_assumptions(engine->model->assumptions, rep);
  return rep;
}

// ---------------------------------------------------------------- chinchilla

Report build_chinchilla_report(const ChinchillaQuery& q, const ChinchillaResult& r) {
  Report rep;
  Section s{"Compute-optimal allocation (Hoffmann et al. 2022: D ≈ 20·N)", {}, {}};
  const double n = r.params, d = r.tokens;
  if (q.params) {
    rep.title = fmt::format("modelcalc chinchilla — N = {} parameters", format_brief(n, Unit::kParams));
    s.lines.push_back(given("params", "Parameters N", n, Unit::kParams));
    s.lines.push_back(computed("tokens", "Optimal tokens D", d, Unit::kTokens, fx::kChinchillaTokens,
                               {term("N", format_brief(n, Unit::kParams))}));
    s.lines.push_back(computed("compute", "Compute C", r.compute, Unit::kFlop, fx::kTrain,
                               {term("N", format_brief(n, Unit::kParams)), term("D", format_brief(d, Unit::kTokens))}));
  } else {
    const double c = r.compute;
    rep.title = fmt::format("modelcalc chinchilla — C = {} FLOP", fmt_sig(c));
    s.lines.push_back(given("compute", "Compute C", c, Unit::kFlop));
    s.lines.push_back(computed("params", "Optimal parameters N", n, Unit::kParams, fx::kChinchillaParams,
                               {term("C", fmt_sig(c))}, "(C = 6·N·D with D = 20·N ⇒ C = 120·N²)"));
    s.lines.push_back(computed("tokens", "Optimal tokens D", d, Unit::kTokens, fx::kChinchillaTokens,
                               {term("N", format_brief(n, Unit::kParams))}));
  }
  s.notes.push_back("Compute-optimal for training loss at a fixed budget. Models built to be served heavily train "
                    "far past it (Llama 3 8B saw about 15T tokens, ~1,900 per parameter), because a smaller model "
                    "is cheaper at every token it will ever serve.");
  rep.sections.push_back(std::move(s));
  rep.ignored = {"The fitted constants: D/N ≈ 20 is the paper's rounded ratio; later fits put it anywhere from "
                 "about 20 to a few tens depending on data and architecture."};
  return rep;
}

// ---------------------------------------------------------------- cost

Report build_cost_rate_report(const CostRateQuery& q, const CostRateResult& r) {
  Report rep;
  rep.title = fmt::format("modelcalc cost — {} tokens/s on {} GPU{} at {}/GPU-hour", fmt_sig(q.tokens_per_s),
                          q.gpus, q.gpus == 1 ? "" : "s", format_quantity(q.usd_per_gpu_hour, Unit::kUsd));
  Section s{"Cost per million tokens", {}, {}};
  s.lines.push_back(given("price_per_gpu_hour", "Price per GPU-hour", q.usd_per_gpu_hour, Unit::kUsd));
  s.lines.push_back(given("gpus", "GPUs", q.gpus, Unit::kNone));
  s.lines.push_back(given("tokens_per_s", "Throughput (all GPUs)", q.tokens_per_s, Unit::kTokensPerS));
  s.lines.push_back(computed("usd_per_million_tokens", "Cost per 1M tokens",
                             r.usd_per_million_tokens, Unit::kUsd,
                             fx::kCostPerMillion,
                             {term("price", format_quantity(q.usd_per_gpu_hour, Unit::kUsd)), term("gpus", q.gpus),
                              term("tps", q.tokens_per_s)}));
  s.notes.push_back("Cost falls as 1 / throughput: batching that doubles tokens/s halves it.");
  rep.sections.push_back(std::move(s));
  rep.ignored = {"Everything but GPU rental: engineering, networking, storage, and idle capacity at low load."};
  return rep;
}

Report build_cost_ceiling_report(const ModelSpec& m, const GpuSpec& one_gpu, const SizeOptions& o,
                                 double usd_per_gpu_hour, const CostCeilingResult& cc) {
  const GpuSpec& g = cc.gpu;
  const int64_t gpus = cc.gpus;
  const SizeResult* r = &cc.size;
  const double w = cc.weight_step_bytes;
  const double tps_bw = cc.ceiling.bandwidth_tps, tps_compute = cc.ceiling.compute_tps, tps = cc.ceiling.tps;
  const double cost = cc.usd_per_million_tokens;

  Report rep;
  rep.title = fmt::format("modelcalc cost — {} on {}, batch {} at T = {}, weights {}, KV {}, {}/GPU-hour", m.name,
                          g.name, o.batch, o.context, dtype_name(o.weight_dtype), dtype_name(o.kv_dtype),
                          format_quantity(usd_per_gpu_hour, Unit::kUsd));
  Section c{"Teaching view (the lab's formulas, the GPUs pooled): decode ceiling on " + g.name, {}, {}};
  c.lines.push_back(given("weights_bytes", "Weights read per step", w, Unit::kBytes));
  c.lines.push_back(given("kv_bytes_per_sequence", "KV per sequence at T", r->kv_per_seq, Unit::kBytes));
  c.lines.push_back(given("batch", "Batch", o.batch, Unit::kSequences));
  if (gpus > 1) {
    c.lines.push_back(computed("bandwidth", "Bandwidth (ideal tensor parallel)", g.bandwidth_bytes_per_s,
                               Unit::kBytesPerS, fx::kGpusTimes,
                               {term("gpus", gpus), term("x", one_gpu.bandwidth_bytes_per_s, Unit::kBytesPerS)}));
  } else {
    c.lines.push_back(given("bandwidth", "Bandwidth", g.bandwidth_bytes_per_s, Unit::kBytesPerS));
  }
  c.lines.push_back(computed(
      "ceiling.bandwidth_tokens_per_s", "Bandwidth ceiling", tps_bw, Unit::kTokensPerS, fx::kTpsAggregate,
      {term("B", o.batch), term("bw", g.bandwidth_bytes_per_s, Unit::kBytesPerS),
       term("W", format_quantity(w, Unit::kBytes)), term("KV", format_quantity(dbl(r->kv_per_seq), Unit::kBytes))}));
  c.lines.push_back(computed("ceiling.compute_tokens_per_s", "Compute ceiling", tps_compute, Unit::kTokensPerS,
                             fx::kDecodeComputeCeiling,
                             {term("peak", g.peak_bf16_flops, Unit::kFlopPerS), term("F_token", fmt_sig(r->decode_per_token))},
                             "(FLOPs per token at context T)"));
  c.lines.push_back(computed("ceiling.tokens_per_s", "Ceiling", tps, Unit::kTokensPerS, fx::kDecodeCeiling,
                             {term("bandwidth_ceiling", fmt_sig(tps_bw)), term("compute_ceiling", fmt_sig(tps_compute))},
                             tps_bw <= tps_compute ? "(bandwidth-bound)" : "(compute-bound)"));
  rep.sections.push_back(std::move(c));

  Section s{"Teaching view: cost floor", {}, {}};
  s.lines.push_back(given("price_per_gpu_hour", "Price per GPU-hour", usd_per_gpu_hour, Unit::kUsd));
  s.lines.push_back(given("gpus", "GPUs", gpus, Unit::kNone));
  s.lines.push_back(computed("usd_per_million_tokens", "Cost per 1M tokens (FLOOR)", cost, Unit::kUsd,
                             fx::kCostPerMillion,
                             {term("price", format_quantity(usd_per_gpu_hour, Unit::kUsd)), term("gpus", gpus), term("tps", fmt_sig(tps))},
                             "(a floor: real throughput is below the ceiling, so real cost is above this)"));
  s.lines.push_back(given("usd_per_million_tokens_is_floor", "Is a floor", true, Unit::kNone));
  s.notes.push_back(fmt::format(
      "A floor at this operating point ({} sequences, each at context {}). Real engines reach about 60–80 % of "
      "the ceiling, so expect roughly {}–{} per 1M decode tokens.",
      o.batch, o.context, format_quantity(cc.usd_per_million_tokens_at_80pct, Unit::kUsd),
      format_quantity(cc.usd_per_million_tokens_at_60pct, Unit::kUsd)));
  rep.sections.push_back(std::move(s));

  rep.ignored = {"Prefill: only decode tokens are priced.",
                 "Kernel launches, sampling and scheduling: they are why real throughput stays below the ceiling."};
  if (gpus > 1) {
    rep.ignored.push_back("Communication between GPUs: tensor parallelism is taken as ideal (gpus × bandwidth, "
                          "capacity and peak).");
  }
  if (r->max_batch_by_capacity < o.batch) {
    rep.warnings.push_back(
        fmt::format("Batch {} at T = {} needs {} of KV, but only {} sequences fit beside the weights in {}: this floor "
                    "assumes a batch that cannot run.",
                    o.batch, o.context, format_quantity(dbl(o.batch) * dbl(r->kv_per_seq), Unit::kBytes),
                    r->max_batch_by_capacity, g.name));
  }
  rep.extra_json["options"] = {{"seq", o.context}, {"batch", o.batch}, {"gpus", gpus},
                               {"dtype", dtype_name(o.weight_dtype)}, {"kv_dtype", dtype_name(o.kv_dtype)}};
  warn_model_assumptions(m.assumptions, rep);
  return rep;
}

// ---------------------------------------------------------------- mfu

Report build_mfu_report(const MfuQuery& q, const MfuResult& r, const MfuEngineView* engine) {
  const bool train = q.mode == MfuMode::kTraining;
  const double k = r.flops_per_token_factor;
  const double peak = r.peak_flops;
  const double u = r.mfu;
  Report rep;
  rep.title = fmt::format("modelcalc mfu — N = {}, {} tokens/s on {}, {}", format_brief(q.params, Unit::kParams),
                          fmt_sig(q.tokens_per_s), gpus_label(q.gpus, q.gpu_name), train ? "training" : "inference");
  const bool engine_count = engine != nullptr && engine->model != nullptr;
  // With a model and a sequence the engine's count answers (MFU and HFU first); the k·N shortcut follows as
  // the seed's whiteboard.
  if (engine_count) {
    Section e{fmt::format("Answer: the engine's utilization ({} at s = {})", train_model_label(*engine->model),
                          group_digits(engine->seq)),
              {},
              {}};
    e.lines.push_back(computed("engine.mfu", "MFU (model FLOPs)", engine->mfu, Unit::kFraction, fx::kTfUtilization,
                               {term("tps", q.tokens_per_s), term("F_token", fmt_sig(engine->per_token.model)),
                                term("peak", peak, Unit::kFlopPerS)},
                               "(PaLM app. B: recomputation not counted)"));
    e.lines.push_back(computed("engine.hfu", "HFU (hardware FLOPs)", engine->hfu, Unit::kFraction, fx::kTfUtilization,
                               {term("tps", q.tokens_per_s), term("F_token", fmt_sig(engine->per_token.hardware)),
                                term("peak", peak, Unit::kFlopPerS)},
                               "(recomputation counted: what Megatron's \"achieved TFLOP/s\" reports)"));
    for (Line& l : train_flops_lines("flops", *engine->model, engine->seq, engine->recompute, engine->count,
                                     engine->per_token)) {
      e.lines.push_back(std::move(l));
    }
    rep.sections.push_back(std::move(e));
  }
  Section s{engine_count ? "Teaching view (the seed's whiteboard): MFU from k × N per token"
                         : "Model FLOPs utilization",
            {},
            {}};
  s.lines.push_back(given("tokens_per_s", "Achieved throughput", q.tokens_per_s, Unit::kTokensPerS));
  s.lines.push_back(given("params", "Parameters N", q.params, Unit::kParams));
  s.lines.push_back(computed("flops_per_token", "FLOPs per token", r.flops_per_token, Unit::kFlop, fx::kFlopsPerToken,
                             {term("k", k), term("N", format_brief(q.params, Unit::kParams))},
                             train ? "(training: forward 2 + backward 4)" : "(inference: forward only)"));
  if (q.gpus > 1) {
    s.lines.push_back(computed("peak_flops", "Peak (all GPUs)", peak, Unit::kFlopPerS, fx::kGpusTimes,
                               {term("gpus", q.gpus), term("x", q.peak_per_gpu, Unit::kFlopPerS)}, "(dense bf16)"));
  } else {
    s.lines.push_back(given("peak_flops", "Peak", peak, Unit::kFlopPerS, "(dense bf16)"));
  }
  s.lines.push_back(computed("mfu", engine_count ? "MFU (k × N, no attention)" : "MFU", u, Unit::kFraction, fx::kMfu,
                             {term("tps", q.tokens_per_s), term("k", k),
                              term("N", format_brief(q.params, Unit::kParams)), term("peak", peak, Unit::kFlopPerS)}));
  if (!train) {
    s.notes.push_back("Decode is memory-bound, so a low inference MFU is expected rather than a bug: bandwidth, "
                      "not FLOPs, limits it until the batch is large.");
  }
  rep.sections.push_back(std::move(s));
  if (engine_count) {
    rep.ignored = {"Embedding lookups, norms, softmax and other elementwise work: no matmul FLOPs counted."};
  } else {
    rep.ignored = {"Attention FLOPs and the lm_head (k·N counts the parameters' matmuls only), so MFU reads low at "
                   "long context: give --model and --seq for the engine's count."};
  }
  if (u > 1) {
    rep.warnings.push_back(
        fmt::format("An MFU of {} exceeds the peak: check --tokens-per-s (aggregate over all "
                    "GPUs), --params and the GPU.",
                    format_quantity(u, Unit::kFraction)));
  }
  if (engine != nullptr && engine->model != nullptr) warn_model_assumptions(engine->model->assumptions, rep);
  return rep;
}

// ---------------------------------------------------------------- tradeoff

Report build_tradeoff_report(const Candidate& a, const Candidate& b, const TradeoffWeights& w,
                             const TradeoffResult& r) {
  Report rep;
  rep.title = fmt::format("modelcalc tradeoff — {} vs {}", a.name, b.name);

  Section ws{"Weights (normalized to sum 1)", {}, {}};
  for (Dial d : kAllDials) {
    const std::string name(dial_name(d));
    ws.lines.push_back(computed("weights." + name, name, w.w[d], Unit::kNone, fx::kWeightNormalized,
                                {term("w", w.w[d] * w.given_sum), term("sum", w.given_sum)}));
  }
  ws.notes.push_back(std::fabs(w.given_sum - 1) < 1e-12
                         ? std::string("The weights sum to 1 as given; dials not named weigh 0.")
                         : fmt::format("The weights given sum to {}; each was divided by it so they sum to 1. "
                                       "Dials not named weigh 0.",
                                       fmt_sig(w.given_sum, 6)));
  rep.sections.push_back(std::move(ws));

  Section ds{"Dials (per dial, the better of the two scores 1, the other the ratio)", {}, {}};
  for (Dial d : kAllDials) {
    const bool higher = dial_direction(d) == Direction::kHigherIsBetter;
    const FormulaText& f = higher ? fx::kDialHigher : fx::kDialLower;
    const std::string dir = higher ? "higher is better" : "lower is better";
    for (const Candidate* c : {&a, &b}) {
      const double s = c == &a ? r.normalized_a[d] : r.normalized_b[d];
      ds.lines.push_back(computed("", fmt::format("{} of {} = {}", dial_name(d), c->name, fmt_sig(c->dials[d], 4)),
                                  s, Unit::kNone, f,
                                  {term("x", c->dials[d]), term("a", a.dials[d]), term("b", b.dials[d])},
                                  "(" + dir + ")"));
    }
  }
  rep.sections.push_back(std::move(ds));

  Section ss{"Scores", {}, {}};
  for (const Candidate* c : {&a, &b}) {
    const Dials& s = c == &a ? r.normalized_a : r.normalized_b;
    ss.lines.push_back(computed("", c->name, c == &a ? r.score_a : r.score_b, Unit::kNone, fx::kTradeoffScore,
                                {term("w_q", w.w.quality), term("s_q", s.quality), term("w_l", w.w.latency),
                                 term("s_l", s.latency), term("w_t", w.w.throughput), term("s_t", s.throughput),
                                 term("w_c", w.w.cost), term("s_c", s.cost), term("w_m", w.w.memory),
                                 term("s_m", s.memory)}));
  }
  rep.sections.push_back(std::move(ss));

  nlohmann::json winner = nullptr, deciding = nullptr;
  Section dec{"Decision", {}, {}};
  if (r.winner != Winner::kTie) {
    const bool a_wins = r.winner == Winner::kA;
    const Candidate& win = a_wins ? a : b;
    const Dials& sw = a_wins ? r.normalized_a : r.normalized_b;
    const Dials& sl = a_wins ? r.normalized_b : r.normalized_a;
    Section ms{"Margin by dial (" + win.name + " minus the other)", {}, {}};
    for (Dial d : kAllDials) {
      const std::string name(dial_name(d));
      ms.lines.push_back(computed("contribution." + name, name, r.contribution[d], Unit::kNone, fx::kDialContribution,
                                  {term("w", w.w[d]), term("s_win", sw[d]), term("s_lose", sl[d])},
                                  d == *r.deciding_dial ? "← deciding dial" : ""));
    }
    rep.sections.push_back(std::move(ms));
    winner = win.name;
    deciding = std::string(dial_name(*r.deciding_dial));
    dec.lines.push_back(given("", "Winner", win.name, Unit::kNone));
    dec.lines.push_back(given("", "Deciding dial", std::string(dial_name(*r.deciding_dial)), Unit::kNone));
    dec.lines.push_back(given("margin", "Margin", r.margin, Unit::kNone));
  } else {
    dec.lines.push_back(given("", "Winner", std::string("none: a tie"), Unit::kNone));
  }
  dec.lines.push_back(given("decision", "For the decision record", tradeoff_sentence(a, b, r), Unit::kNone));
  rep.sections.push_back(std::move(dec));

  rep.ignored = {"Anything the five dials do not capture (risk, team familiarity, vendor lock-in): a score is a "
                 "structured conversation, not a verdict."};
  rep.extra_json["winner"] = winner;
  rep.extra_json["deciding_dial"] = deciding;
  rep.extra_json["scores"] = {{a.name, r.score_a}, {b.name, r.score_b}};
  nlohmann::json cands = nlohmann::json::array();
  for (const Candidate* c : {&a, &b}) {
    nlohmann::json dials, norm;
    const Dials& s = c == &a ? r.normalized_a : r.normalized_b;
    for (Dial d : kAllDials) {
      dials[std::string(dial_name(d))] = c->dials[d];
      norm[std::string(dial_name(d))] = s[d];
    }
    cands.push_back({{"name", c->name}, {"dials", dials}, {"normalized", norm}});
  }
  rep.extra_json["candidates"] = cands;
  return rep;
}

}  // namespace modelcalc
