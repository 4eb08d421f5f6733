#include "size_report.h"

#include <cmath>
#include <fmt/format.h>

#include "format.h"
#include "modelcalc/deployment.h"

namespace modelcalc {

namespace {

std::string model_line(const ModelSpec& m) {
  std::string s = fmt::format("L={} d={} h={} kv_heads={} d_head={}", m.n_layer, m.n_embd, m.n_head,
                              m.n_head_kv, m.n_embd_head);
  if (m.n_ff > 0) s += fmt::format(" d_ff={}{}", m.n_ff, m.ffn_gated ? " (gated)" : "");
  if (m.n_expert > 0) {
    s += fmt::format(" experts={} top-{} shared={} d_ff_expert={}", m.n_expert, m.n_expert_used,
                     m.n_expert_shared, m.n_ff_exp);
  }
  if (m.is_mla()) s += fmt::format(" MLA(kv_lora_rank={}, rope={})", m.n_lora_kv, m.n_rot);
  if (m.is_dsa()) s += fmt::format(" DSA(index {}x{}, top-{})", m.n_index_head, m.n_embd_head_index, m.n_index_topk);
  const LayerCounts c = m.count_layers();
  if (c.sliding > 0) s += fmt::format(" window={}", m.n_swa);
  if (c.chunked > 0) s += fmt::format(" chunk={}", m.n_chunk);
  if (m.attn_sinks) s += " sinks";
  if (!m.layer_kinds.empty() && (c.sliding > 0 || c.chunked > 0 || c.no_attn > 0 || c.recurrent > 0)) {
    std::string parts;
    auto add = [&](int64_t n, const char* what) {
      if (n > 0) parts += fmt::format("{}{} {}", parts.empty() ? "" : " + ", n, what);
    };
    add(c.full, "full");
    add(c.sliding, "sliding");
    add(c.chunked, "chunked");
    add(c.no_attn, "without attention");
    add(c.shared_full + c.shared_sliding, "reading an earlier layer's KV");
    s += fmt::format(" layers: {}", parts);
    if (c.recurrent > 0) s += fmt::format("; {} with {}", c.recurrent, recurrent_name(m.recurrent));
  }
  s += fmt::format(" V={} {}", m.n_vocab, m.tied_embeddings ? "tied" : "untied");
  return s;
}

Section parameters(const ModelSpec& m, const SizeResult& r) {
  Section s{"1. Parameters", {}, {}};
  const double d = dbl(m.n_embd);
  if (m.n_embd_head * m.n_head == m.n_embd) {
    s.lines.push_back(computed("params.d_head", "d_head", r.d_head, Unit::kNone, fx::kDHead,
                               {term("d", m.n_embd), term("h", m.n_head)}));
  } else {
    s.lines.push_back(given("params.d_head", "d_head", r.d_head, Unit::kNone, "(given; ≠ d / h)"));
  }
  if (m.is_mla() && m.is_dsa()) {
    s.lines.push_back(computed("params.d_kv", "d_kv (latent + indexer key cached per layer)", r.d_kv, Unit::kNone,
                               fx::kDKvDsa,
                               {term("kv_lora_rank", m.n_lora_kv), term("qk_rope_head_dim", m.n_rot),
                                term("index_head_dim", m.n_embd_head_index)}));
  } else if (m.is_mla()) {
    s.lines.push_back(computed("params.d_kv", "d_kv (latent cached per layer)", r.d_kv, Unit::kNone,
                               fx::kDKvMla,
                               {term("kv_lora_rank", m.n_lora_kv), term("qk_rope_head_dim", m.n_rot)}));
  } else {
    s.lines.push_back(computed("params.d_kv", "d_kv", r.d_kv, Unit::kNone, fx::kDKv,
                               {term("kv_heads", m.n_head_kv), term("d_head", m.n_embd_head)}));
  }
  if (r.has_layer_matrices) {
    const auto& L = r.layer;
    std::vector<Term> qo = {term("d", m.n_embd), term("h", m.n_head), term("d_head", m.n_embd_head)};
    s.lines.push_back(computed("params.q", "Q projection", L.q, Unit::kParams, fx::kQ, qo));
    s.lines.push_back(computed("params.kv", "K+V projections", L.kv, Unit::kParams, fx::kKv,
                               {term("d", m.n_embd), term("d_kv", r.d_kv)}));
    s.lines.push_back(computed("params.o", "O projection", L.o, Unit::kParams, fx::kO, qo));
    s.lines.push_back(computed("params.ffn", "FFN", L.ffn, Unit::kParams, fx::kFfn,
                               {term("m", int64_t{m.ffn_gated ? 3 : 2}), term("d", m.n_embd),
                                term("d_ff", m.n_ff)},
                               m.ffn_gated ? "(gated: gate, up, down)" : "(up, down)"));
    s.lines.push_back(computed("params.per_layer", "Layer total", L.total(), Unit::kParams, fx::kLayer,
                               {term("Q", L.q), term("KV", L.kv), term("O", L.o), term("FFN", L.ffn)}));
    s.lines.push_back(computed("params.per_layer_over_d2", "Layer ÷ d²", r.layer_over_d2, Unit::kNone,
                               fx::kLayerOverD2, {term("P_layer", L.total()), term("d", m.n_embd)},
                               "× d²"));
  }
  if (r.exact || !r.has_layer_matrices) {
    s.lines.push_back(computed("params.blocks", "Blocks", r.blocks, Unit::kParams, fx::kBlocksExact,
                               {term("N", r.total), term("embeddings", r.params.embeddings + r.params.position),
                                term("lm_head", r.params.lm_head)}));
  } else {
    s.lines.push_back(computed("params.blocks", "Blocks", r.blocks, Unit::kParams, fx::kBlocks,
                               {term("L", m.n_layer), term("P_layer", r.layer.total())}));
  }
  if (r.exact) {
    s.lines.push_back(given("params.embeddings", "Embeddings (input + lm_head + positions)", r.embeddings,
                            Unit::kParams, m.tied_embeddings ? "(tied: counted once)" : ""));
  } else {
    s.lines.push_back(computed("params.embeddings", "Embeddings", r.embeddings, Unit::kParams,
                               fx::kEmbeddings,
                               {term("k", int64_t{m.tied_embeddings ? 1 : 2}), term("V", m.n_vocab),
                                term("d", m.n_embd)},
                               m.tied_embeddings ? "(tied: one matrix)" : "(untied: input + lm_head)"));
  }
  s.lines.push_back(computed("params.total", "Total", r.total, Unit::kParams, fx::kTotal,
                             {term("N_blocks", r.blocks), term("N_emb", r.embeddings)}));
  s.lines.push_back(computed("params.active", "Active per token", r.active, Unit::kParams, fx::kActive,
                             {term("N", r.total), term("routed", r.params.mlp_routed),
                              term("routed_active", r.params.mlp_routed_active)},
                             m.n_expert > 0 ? "(MoE: top-k routed + shared + dense parts)" : "(dense: all)"));
  if (r.exact) {
    const auto& p = r.params;
    s.lines.push_back(given("params.breakdown.embeddings", "  embeddings", p.embeddings, Unit::kParams));
    if (p.position) s.lines.push_back(given("params.breakdown.position", "  position table", p.position, Unit::kParams));
    s.lines.push_back(given("params.breakdown.lm_head", "  lm_head", p.lm_head, Unit::kParams));
    s.lines.push_back(given("params.breakdown.attention", "  attention", p.attention, Unit::kParams));
    if (p.recurrent > 0) {
      s.lines.push_back(given("params.breakdown.recurrent", "  recurrent mixers (" + std::string(recurrent_name(m.recurrent)) + ")",
                              p.recurrent, Unit::kParams));
    }
    s.lines.push_back(given("params.breakdown.mlp_dense", "  MLP (dense)", p.mlp_dense, Unit::kParams));
    if (m.n_expert > 0) {
      s.lines.push_back(given("params.breakdown.mlp_routed", "  MLP (routed experts)", p.mlp_routed, Unit::kParams));
      s.lines.push_back(given("params.breakdown.mlp_shared", "  MLP (shared experts)", p.mlp_shared, Unit::kParams));
      s.lines.push_back(given("params.breakdown.router", "  routers", p.router, Unit::kParams));
    }
    s.lines.push_back(given("params.breakdown.norms", "  norms", p.norms, Unit::kParams));
    s.lines.push_back(given("params.breakdown.biases", "  biases", p.biases, Unit::kParams));
    s.lines.push_back(given("params.seed_convention", "Seed convention (matrices only)", p.matrices_only(),
                            Unit::kParams, "(no norms, biases or position tables)"));
  }
  if (m.params_vision) {
    s.lines.push_back(given("params.vision", "Vision tower + projector (not in the total)", *m.params_vision,
                            Unit::kParams, "(the language model alone serves text)"));
  }
  if (m.params_audio) {
    s.lines.push_back(given("params.audio", "Audio tower + embedder (not in the total)", *m.params_audio,
                            Unit::kParams, "(loaded beside the language model, as the vision tower)"));
  }
  if (m.params_mtp) {
    s.lines.push_back(given("params.mtp", "Multi-token-prediction layers (not in the total)", *m.params_mtp,
                            Unit::kParams, "(in the checkpoint; transformers does not build them)"));
  }
  if (r.has_layer_matrices) {
    s.lines.push_back(computed("params.shortcut_per_layer", "12·d² shortcut per layer", r.shortcut_layer,
                               Unit::kParams, fx::kShortcut, {term("d", m.n_embd)}));
    s.lines.push_back(computed("params.shortcut_error", "Shortcut ÷ actual", r.shortcut_error, Unit::kFactor,
                               fx::kShortcutError, {term("d", m.n_embd), term("P_layer", r.layer.total())},
                               r.shortcut_error > 1 ? "(shortcut overestimates)" : "(shortcut underestimates)"));
    const double attn = dbl(r.layer.q + r.layer.kv + r.layer.o) / (d * d);
    const double ffn = dbl(r.layer.ffn) / (d * d);
    s.notes.push_back(fmt::format(
        "Attention is {} d² (the shortcut assumes 4 d², MHA); the FFN is {} d² (the shortcut assumes 8 d²: "
        "two matrices at 4d). {} {}",
        fmt_sig(attn, 4), fmt_sig(ffn, 4),
        m.n_head_kv < m.n_head
            ? fmt::format("GQA shrinks only K and V, by h / kv_heads = {}.", m.n_head / m.n_head_kv)
            : "MHA: K and V are full width.",
        m.ffn_gated ? "The gated FFN has three matrices, which pulls the count up at a given width." : ""));
  }
  return s;
}

// Which parts of the weights stay 16-bit when a 16-bit checkpoint is served at a narrower dtype.
constexpr std::string_view kKept16Bit =
    "the block matrices (attention, dense FFN, experts, recurrent mixers) in it with their group scales; the "
    "embeddings, lm_head, norms, routers, biases and any vision or audio tower stay 16-bit, as the engines "
    "quantize at load (docs/dtypes.md)";

Section weights(const ModelSpec& m, const SizeOptions& o, const GpuSpec& gpu, const SizeResult& r,
                const WeightShard* served) {
  Section s{"2. Weight memory", {}, {}};
  for (size_t i = 0; i < kAllDtypes.size(); ++i) {
    const Dtype t = kAllDtypes[i];
    const std::string name(dtype_name(t));
    s.lines.push_back(computed("weights.by_dtype." + name, "Weights in " + name, r.weight_bytes_by_dtype[i],
                               Unit::kBytes, fx::kWeightBytes,
                               {term("N", r.total), term("b", dtype_bytes(t))}));
  }
  const std::string dt(dtype_name(o.weight_dtype));
  if (served != nullptr) {
    s.lines.push_back(given("weights.bytes", "Serving weights (" + dt + ", as stored)", served->total(),
                            Unit::kBytes, "(the checkpoint's bytes: each part in its dtype, scales included)"));
  } else {
    s.lines.push_back(given("weights.bytes", "Serving weights (" + dt + ")", r.weight_bytes, Unit::kBytes));
  }
  s.lines.push_back(given("weights.teaching_bytes", "Every parameter at " + dt, r.weight_bytes, Unit::kBytes,
                          "(teaching view: the fit and the decode ceilings below use it)"));
  if (m.quant) {
    s.notes.push_back("The checkpoint stores " + checkpoint_summary(m) + ". The drill-1 lines charge every parameter at " +
                      dt + "; serving keeps its 16-bit parts in 16 bits and counts the scales.");
  } else if (dtype_bits(o.weight_dtype) < 16) {
    s.notes.push_back("A 16-bit checkpoint served at " + dt + ": " + std::string(kKept16Bit) + ".");
  }
  if (o.has_gpu) {
    s.lines.push_back(given("weights.fits",
                            "Fits " + gpu.name + " (" + format_quantity(gpu.capacity_bytes, Unit::kBytes) + ")", r.fits,
                            Unit::kNone, "(teaching view: the GPUs pooled, nothing kept back)"));
    s.lines.push_back(short_if_negative(computed(
        "weights.kv_room_bytes", "Left for KV cache", r.kv_room_bytes, Unit::kBytes, fx::kKvRoom,
        {term("capacity", format_quantity(gpu.capacity_bytes, Unit::kBytes)),
         term("W", format_quantity(dbl(r.weight_bytes), Unit::kBytes))})));
  }
  return s;
}

Section flops(const ModelSpec& m, const SizeOptions& o, const SizeResult& r) {
  Section s{"3. FLOPs", {}, {}};
  const bool swa = m.n_swa > 0;
  s.lines.push_back(computed("flops.forward_per_token", "Forward per token", r.forward_per_token, Unit::kFlop,
                             fx::kForward, {term("N_blocks", r.blocks_active)},
                             "(blocks only: lm_head and embeddings excluded)"));
  if (o.train_tokens > 0) {
    s.lines.push_back(computed("flops.train", "Training", r.train_flops, Unit::kFlop, fx::kTrain,
                               {term("N", r.active), term("D", o.train_tokens)}));
    s.notes.push_back("6·N·D ignores the attention T² term (it grows with context) and activation "
                      "recomputation (full recompute adds another forward: 8·N·D).");
  }
  const LayerCounts& lc = r.layers;
  // Attention FLOPs count every layer that attends, those reading another layer's KV too.
  const int64_t l_swa = lc.sliding + lc.shared_sliding, l_full = lc.full + lc.shared_full;
  const int64_t t_win = swa && o.context > m.n_swa ? m.n_swa : o.context;
  const int64_t t_chunk = lc.chunked > 0 && o.context > m.n_chunk ? m.n_chunk : o.context;
  // Layers of several kinds (chunks, layers without attention or KV of their own) name every kind, so the
  // explained form evaluates to the value; a window alone keeps the drill-1 form.
  const bool layered = lc.chunked > 0 || lc.no_attn > 0 || lc.shared_full + lc.shared_sliding > 0;
  std::vector<Term> attn_terms;
  if (layered) {
    attn_terms = {term("T", o.context), term("L_full", l_full), term("L_swa", l_swa), term("T_win", t_win),
                  term("L_chunk", lc.chunked), term("T_chunk", t_chunk), term("d_attn", r.d_attn)};
  } else if (l_swa > 0) {
    attn_terms = {term("T", o.context), term("L_full", m.n_layer - l_swa), term("L_swa", l_swa), term("T_win", t_win),
                  term("d_attn", r.d_attn)};
  } else {
    attn_terms = {term("T", o.context), term("d_attn", r.d_attn), term("L", m.n_layer)};
  }
  s.lines.push_back(computed("flops.prefill_linear", "Prefill linear term", r.prefill_linear, Unit::kFlop,
                             fx::kPrefillLinear, {term("N_blocks", r.blocks_active), term("T", o.context)}));
  s.lines.push_back(computed("flops.prefill_attention", "Prefill attention term", r.prefill_attention,
                             Unit::kFlop,
                             layered ? fx::kPrefillAttentionLayers
                                     : l_swa > 0 ? fx::kPrefillAttentionSwa : fx::kPrefillAttention,
                             attn_terms,
                             layered ? "(attention layers only; windows and chunks capped)"
                             : swa   ? "(sliding-window layers attend at most the window)"
                                     : ""));
  s.lines.push_back(computed("flops.prefill_total", "Prefill total", r.prefill_total, Unit::kFlop,
                             fx::kPrefillTotal,
                             {term("linear", fmt_sig(r.prefill_linear)), term("attention", fmt_sig(r.prefill_attention))}));
  s.lines.push_back(computed("flops.attention_fraction", "Attention share of prefill", r.attention_fraction,
                             Unit::kFraction, fx::kAttentionFraction,
                             {term("attention", fmt_sig(r.prefill_attention)), term("total", fmt_sig(r.prefill_total))}));
  s.lines.push_back(computed("flops.prefill_per_token", "Prefill per token", r.prefill_per_token, Unit::kFlop,
                             fx::kPerToken, {term("F", fmt_sig(r.prefill_total)), term("T", o.context)}));
  std::vector<Term> decode_terms;
  if (layered) {
    decode_terms = {term("N_blocks", r.blocks_active), term("L_full", l_full), term("T", o.context), term("L_swa", l_swa),
                    term("T_win", t_win), term("L_chunk", lc.chunked), term("T_chunk", t_chunk),
                    term("d_attn", r.d_attn)};
  } else if (l_swa > 0) {
    decode_terms = {term("N_blocks", r.blocks_active), term("L_full", m.n_layer - l_swa), term("T", o.context),
                    term("L_swa", l_swa), term("T_win", t_win), term("d_attn", r.d_attn)};
  } else {
    decode_terms = {term("N_blocks", r.blocks_active), term("T", o.context), term("d_attn", r.d_attn),
                    term("L", m.n_layer)};
  }
  s.lines.push_back(computed("flops.decode_per_token", "Decode per token at T context", r.decode_per_token,
                             Unit::kFlop,
                             layered ? fx::kDecodeFlopsLayers : l_swa > 0 ? fx::kDecodeFlopsSwa : fx::kDecodeFlops,
                             decode_terms));
  const double per_layer = dbl(r.blocks_active) / dbl(m.n_layer);
  s.lines.push_back(computed("flops.crossover_tokens", "Attention = linear at context", r.crossover_tokens,
                             Unit::kTokens, fx::kCrossover, {term("P_layer", per_layer), term("d_attn", r.d_attn)},
                             "((2 + m)·d for the textbook layer)"));
  s.lines.push_back(computed("flops.crossover_mlp_tokens", "Attention = FFN at context", r.crossover_mlp_tokens,
                             Unit::kTokens, fx::kCrossoverMlp,
                             {term("P_ffn", r.crossover_mlp_tokens * 2 * dbl(r.d_attn)), term("d_attn", r.d_attn)}));
  s.notes.push_back(fmt::format(
      "Per token, prefill ({}) and decode ({}) cost about the same FLOPs, yet decode is the slow regime: "
      "each decode step re-reads every weight to produce one token per sequence, so it is bound by bandwidth, "
      "not FLOPs.",
      fmt_sig(r.prefill_per_token), fmt_sig(r.decode_per_token)));
  return s;
}

Section kv(const ModelSpec& m, const SizeOptions& o, const SizeResult& r) {
  Section s{"4. KV cache (" + std::string(dtype_name(o.kv_dtype)) + ")", {}, {}};
  const bool swa = m.n_swa > 0;
  const LayerCounts& lc = r.layers;
  const bool shares = lc.shared_full + lc.shared_sliding > 0;  // layers reading another layer's KV hold none
  const bool layered = lc.chunked > 0 || lc.no_attn > 0 || shares;  // not every layer keeps the same cache
  if (m.is_mla()) {
    s.lines.push_back(computed("kv.bytes_per_token", "Per token per sequence", r.kv_per_token, Unit::kBytes,
                               fx::kKvPerTokenMla,
                               {term("L", lc.attention()), term("d_c", r.d_kv), term("b_kv", dtype_bytes(o.kv_dtype))}));
  } else if (lc.no_attn > 0 || shares) {
    s.lines.push_back(computed("kv.bytes_per_token", "Per token per sequence", r.kv_per_token, Unit::kBytes,
                               fx::kKvPerTokenLayers,
                               {term("L_attn", lc.attention()), term("d_kv", r.d_kv),
                                term("b_kv", dtype_bytes(o.kv_dtype))},
                               fmt::format("(only {} of the {} layers keep KV)", lc.attention(), m.n_layer)));
  } else {
    s.lines.push_back(computed("kv.bytes_per_token", "Per token per sequence", r.kv_per_token, Unit::kBytes,
                               fx::kKvPerToken,
                               {term("L", m.n_layer), term("d_kv", r.d_kv), term("b_kv", dtype_bytes(o.kv_dtype))}));
  }
  const auto per_seq_line = [&](const char* key, std::string label, int64_t value, int64_t per_token,
                                std::string comment) {
    if (layered) {
      return computed(key, std::move(label), value, Unit::kBytes, fx::kKvPerSeqLayers,
                      {term("KV_token", per_token), term("L_attn", lc.attention()), term("L_full", lc.full),
                       term("T", o.context), term("L_swa", lc.sliding), term("window", m.n_swa),
                       term("L_chunk", lc.chunked), term("chunk", m.n_chunk)},
                      std::move(comment));
    }
    return computed(key, std::move(label), value, Unit::kBytes, swa ? fx::kKvPerSeqSwa : fx::kKvPerSeq,
                    {term("KV_token", per_token), term("T", o.context), term("window", m.n_swa), term("L", m.n_layer),
                     term("L_full", m.n_layer - m.n_swa_layers()), term("L_swa", m.n_swa_layers())},
                    std::move(comment));
  };
  s.lines.push_back(per_seq_line("kv.bytes_per_sequence", "Per sequence at T = " + group_digits(o.context), r.kv_per_seq,
                                 r.kv_per_token, ""));
  s.lines.push_back(per_seq_line("kv.mha_bytes_per_sequence", "Same under MHA", r.kv_mha_per_seq, r.kv_mha_per_token,
                                 "(every head keeps its K and V)"));
  s.lines.push_back(computed("kv.mha_ratio", "MHA ÷ actual", r.kv_mha_ratio, Unit::kFactor, fx::kKvRatio,
                             {term("KV_mha", r.kv_mha_per_seq), term("KV", r.kv_per_seq)},
                             m.is_mla() ? "(MLA caches one latent per token instead of per-head K and V)"
                                        : fmt::format("(= h / kv_heads = {} / {})", m.n_head, m.n_head_kv)));
  if (lc.recurrent > 0) {
    s.lines.push_back(computed("kv.state_bytes_per_sequence", "Recurrent state per sequence (not KV)",
                               r.state_per_seq, Unit::kBytes, fx::kStatePerSeq,
                               {term("L_rec", lc.recurrent), term("n_embd_s", m.n_embd_s()),
                                term("b_ssm", dtype_bytes(default_ssm_state_dtype(m, o.weight_dtype))),
                                term("n_embd_r", m.n_embd_r()), term("b_state", dtype_bytes(default_state_dtype(o.weight_dtype)))},
                               "(fixed, whatever the context)"));
    s.notes.push_back(fmt::format(
        "{} of {} layers are {} mixers: they keep no KV but a fixed state per sequence ({} here); the drill-1 "
        "formulas below (decode ceiling, sequences that fit) count KV only, the modeled deployment counts both.",
        lc.recurrent, m.n_layer, recurrent_name(m.recurrent), format_quantity(dbl(r.state_per_seq), Unit::kBytes)));
  }
  return s;
}

Section decode(const ModelSpec& m, const GpuSpec& gpu, const SizeOptions& o, const SizeResult& r) {
  Section s{"Teaching view (the seed's formulas): 5. Decode ceiling on " + gpu.name + " (" +
                format_quantity(gpu.bandwidth_bytes_per_s, Unit::kBytesPerS) + ")",
            {}, {}};
  const std::string w = format_quantity(r.decode_weight_bytes, Unit::kBytes);
  const std::string kvb = format_quantity(dbl(r.kv_per_seq), Unit::kBytes);
  s.lines.push_back(computed("decode.tokens_per_s_weights_only", "Single stream, weights only",
                             r.tokens_per_s_weights_only, Unit::kTokensPerS, fx::kTpsWeights,
                             {term("bw", gpu.bandwidth_bytes_per_s, Unit::kBytesPerS), term("W", w)}, "(B/s ÷ B = 1/s)"));
  s.lines.push_back(
      computed("decode.tokens_per_s_with_kv", "Single stream, with KV at T", r.tokens_per_s_with_kv, Unit::kTokensPerS,
               fx::kTpsKv, {term("bw", gpu.bandwidth_bytes_per_s, Unit::kBytesPerS), term("W", w), term("KV", kvb)},
               fmt::format("({} lower)", format_brief(1 - r.tokens_per_s_with_kv / r.tokens_per_s_weights_only, Unit::kFraction))));
  s.lines.push_back(
      computed("decode.step_bytes", "Bytes per step at batch " + group_digits(o.batch), r.step_bytes_aggregate,
               Unit::kBytes, fx::kStepBytes,
               {term("W", format_quantity(r.step_bytes_aggregate - dbl(o.batch) * dbl(r.kv_per_seq), Unit::kBytes)),
                term("B", o.batch), term("KV", kvb)}));
  s.lines.push_back(
      computed("decode.tokens_per_s_aggregate", "Aggregate at batch " + group_digits(o.batch), r.tokens_per_s_aggregate,
               Unit::kTokensPerS, fx::kTpsAggregate,
               {term("B", o.batch), term("bw", gpu.bandwidth_bytes_per_s, Unit::kBytesPerS),
                term("W", format_quantity(r.step_bytes_aggregate - dbl(o.batch) * dbl(r.kv_per_seq), Unit::kBytes)),
                term("KV", kvb)},
               fmt::format("({} per sequence)", format_quantity(r.tokens_per_s_aggregate / dbl(o.batch), Unit::kTokensPerS))));
  if (m.n_expert > 0) {
    s.notes.push_back(fmt::format(
        "MoE: a single stream reads only its top-{} experts per layer; a batch of B reads the experts it "
        "touches, E·(1 − (1 − k/E)^B) per layer under uniform routing (all {} once B is large).",
        m.n_expert_used, m.n_expert));
  }
  s.notes.push_back("The seed's whiteboard ceiling: the GPUs pooled into one, the weights read whole every step, "
                    "nothing kept back. The deployment engine's figures (the Answer, Decode step) shard, keep a "
                    "reserve and count communication; they are the ones to plan with.");
  return s;
}

Section regime(const ModelSpec& m, const GpuSpec& gpu, const SizeOptions& o, const SizeResult& r) {
  Section s{"Teaching view (the seed's formulas): 6. Regime figures", {}, {}};
  const double b = dtype_bytes(o.weight_dtype);
  s.lines.push_back(computed("roofline.ridge", "Ridge point of " + gpu.name, r.ridge, Unit::kFlopPerByte,
                             fx::kRidge,
                             {term("peak", gpu.peak_bf16_flops, Unit::kFlopPerS),
                              term("bw", gpu.bandwidth_bytes_per_s, Unit::kBytesPerS)},
                             "(dense bf16 peak)"));
  s.lines.push_back(computed("roofline.intensity_one_token", "d×d projection, T = 1", r.intensity_one_token,
                             Unit::kFlopPerByte, fx::kProjectionIntensity,
                             {term("T", int64_t{1}), term("d", m.n_embd), term("b", b)},
                             r.intensity_one_token < r.ridge ? "(memory-bound)" : "(compute-bound)"));
  s.lines.push_back(computed("roofline.intensity_full_prompt", "d×d projection, T = " + group_digits(o.context),
                             r.intensity_full_prompt, Unit::kFlopPerByte, fx::kProjectionIntensity,
                             {term("T", o.context), term("d", m.n_embd), term("b", b)},
                             r.intensity_full_prompt < r.ridge ? "(memory-bound)" : "(compute-bound)"));
  s.lines.push_back(computed("roofline.compute_bound_batch", "Decode turns compute-bound at batch",
                             r.compute_bound_batch, Unit::kSequences, fx::kComputeBatch,
                             {term("R", r.ridge), term("b", b), term("d", m.n_embd)}, "(exact, d×d projection)"));
  s.lines.push_back(computed("roofline.compute_bound_batch_approx", "… small-T approximation",
                             r.compute_bound_batch_approx, Unit::kSequences, fx::kComputeBatchApprox,
                             {term("R", r.ridge), term("b", b)}, "(intensity ≈ 2T/b)"));
  s.lines.push_back(computed("roofline.max_batch_by_capacity", "Sequences at T that fit beside the weights",
                             r.max_batch_by_capacity, Unit::kSequences, fx::kMaxBatch,
                             {term("capacity", format_quantity(gpu.capacity_bytes, Unit::kBytes)),
                              term("W", format_quantity(dbl(r.weight_bytes), Unit::kBytes)),
                              term("KV", format_quantity(dbl(r.kv_per_seq), Unit::kBytes))}));
  s.notes.push_back("The regime serving lands in is the deployment engine's (the Answer above): these pooled "
                    "figures are the drill's reasoning, not a second answer.");
  return s;
}

std::vector<std::string> ignored(const ModelSpec& m, const SizeResult& r) {
  std::vector<std::string> v;
  if (r.exact) {
    v.push_back("Parameters are exact (norms, biases and position tables included); FLOPs treat every parameter "
                "as a matmul weight, which overcounts the O(d) norms and biases by a negligible amount.");
  } else {
    v.push_back("Norm gains, biases and positional embeddings: O(d) per layer against O(d²) matrices, under "
                "0.1 % of the count; they never change an answer.");
  }
  v.push_back("Softmax, norms, activations and residual adds: O(T·d) FLOPs against O(T·d²) matmuls.");
  v.push_back("Causal masking: an ideal kernel skips half of the 4·T²·d attention term; the seed's "
              "convention counts all of it.");
  v.push_back("Activations, workspace and allocator fragmentation: reserve 5–10 % of HBM for them in practice.");
  if (m.n_expert > 0) {
    v.push_back("MoE routing imbalance in the teaching view: it assumes uniform routing (the deployment engine adds "
                "--expert-imbalance under EP).");
  }
  const LayerCounts& lc = r.layers;
  if (lc.recurrent > 0) {
    v.push_back("Recurrent mixers: the drill-1 FLOPs count their projections as parameters but not the O(state) "
                "update a token spends (the modeled deployment does); the decode ceiling reads no state.");
  }
  if (lc.chunked > 0) {
    v.push_back("Chunked attention: each chunked layer is charged its largest chunk, min(T, chunk) keys, as a "
                "window would be; a token early in a chunk reads fewer.");
  }
  if (m.is_dsa()) {
    v.push_back("DeepSeek Sparse Attention: the drill-1 attention term counts every key of the context; the "
                "attention reads only the indexer's top-k (the modeled deployment counts that and the indexer).");
  }
  return v;
}

std::vector<std::string> warnings(const ModelSpec& m, const GpuSpec& gpu, const SizeOptions& o,
                                  const SizeResult& r) {
  std::vector<std::string> v = m.assumptions;
  if (m.n_ctx_train > 0 && o.context > m.n_ctx_train) {
    v.push_back(fmt::format("seq {} exceeds the model's max_position_embeddings {}.", o.context, m.n_ctx_train));
  }
  if (!o.has_gpu) return v;
  if (r.tokens_per_s_weights_only > 10000) {
    v.push_back(fmt::format("A single-stream ceiling of {} tokens/s is implausibly high; check the model size "
                            "and the GPU bandwidth.",
                            fmt_fixed(r.tokens_per_s_weights_only, 0)));
  }
  if (!r.fits) {
    v.push_back(fmt::format("The {} weights ({}) exceed one {} ({}): the single-GPU ceilings assume they fit.",
                            dtype_name(o.weight_dtype), format_quantity(dbl(r.weight_bytes), Unit::kBytes), gpu.name,
                            format_quantity(gpu.capacity_bytes, Unit::kBytes)));
  } else if (r.max_batch_by_capacity < o.batch) {
    v.push_back(fmt::format("Batch {} at T = {} needs {} of KV; only {} sequences fit beside the weights.", o.batch,
                            o.context, format_quantity(dbl(o.batch) * dbl(r.kv_per_seq), Unit::kBytes),
                            r.max_batch_by_capacity));
  }
  return v;
}

}  // namespace

Report build_size_report(const ModelSpec& m, const GpuSpec& gpu, const SizeOptions& o, const SizeResult& r,
                         const WeightShard* served) {
  Report rep;
  rep.title = fmt::format("modelcalc size — {}{}\n  {}\n  T = {} tokens, batch {}, weights {}, KV {}{}", m.name,
                          m.model_type == "custom" ? "" : " (" + m.model_type + ")", model_line(m), o.context, o.batch,
                          dtype_name(o.weight_dtype), dtype_name(o.kv_dtype),
                          o.has_gpu ? ", on " + gpu.name : ", no GPU given");
  rep.sections.push_back(parameters(m, r));
  rep.sections.push_back(weights(m, o, gpu, r, served));
  rep.sections.push_back(flops(m, o, r));
  rep.sections.push_back(kv(m, o, r));
  if (o.has_gpu) {
    rep.sections.push_back(decode(m, gpu, o, r));
    rep.sections.push_back(regime(m, gpu, o, r));
  } else {
    rep.sections.back().notes.push_back("Decode ceiling and regime need a GPU: give --gpu NAME "
                                        "(modelcalc gpus lists them) or --bandwidth, --capacity and --peak.");
  }
  rep.ignored = ignored(m, r);
  rep.warnings = warnings(m, gpu, o, r);
  rep.extra_json["model"] = {{"name", m.name},          {"model_type", m.model_type}, {"layers", m.n_layer},
                             {"hidden", m.n_embd},      {"heads", m.n_head},          {"kv_heads", m.n_head_kv},
                             {"head_dim", m.n_embd_head}, {"ffn", m.n_ff},            {"gated_ffn", m.ffn_gated},
                             {"vocab", m.n_vocab},      {"tied", m.tied_embeddings}};
  rep.extra_json["options"] = {{"context", o.context}, {"batch", o.batch}, {"dtype", dtype_name(o.weight_dtype)},
                               {"kv_dtype", dtype_name(o.kv_dtype)}};
  if (o.has_gpu) {
    rep.extra_json["gpu"] = {{"key", gpu.key}, {"name", gpu.name}, {"capacity_bytes", gpu.capacity_bytes},
                             {"bandwidth_bytes_per_s", gpu.bandwidth_bytes_per_s},
                             {"peak_bf16_flops", gpu.peak_bf16_flops}};
  }
  return rep;
}

}  // namespace modelcalc
