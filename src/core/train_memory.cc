// prepare_training (validation, Megatron's stage layout, parameters and
// activations per stage, per-micro-batch times) and analyze_train_memory.
#include <algorithm>
#include <cmath>
#include <string>

#include "modelcalc/training.h"
#include "train_layers.h"

namespace modelcalc {

namespace {

using train_internal::LayerParams;

std::string num(int64_t v) { return std::to_string(v); }

Status check_count(int64_t v, int64_t max, const char* field, const char* what) {
  if (v < 1 || v > max) {
    return Status::InvalidArgument(field, std::string("must be ") + what + " from 1 to " + num(max) + ", got " + num(v));
  }
  return Status::Ok();
}

// Transformer layers of each model chunk, in model order (chunk c = k pp + r
// is rank r's k-th virtual stage), as Megatron builds them
// (megatron/core/transformer/transformer_config.py and transformer_block.py
// get_num_layers_to_build; megatron/training/arguments.py): even splits of
// the layers (plus the embedding and the loss when they count as layers), or
// the first and last stages' counts with the middle stages even.
struct ChunkLayout {
  int64_t chunks = 0;
  std::array<int64_t, kMaxModelChunks + 1> begin{};  // layer range [begin[c], begin[c + 1])
};

Result<ChunkLayout> chunk_layout(int64_t L, const TrainLayout& lay) {
  const int64_t P = lay.pp, V = lay.virtual_stages, C = P * V;
  ChunkLayout out;
  out.chunks = C;
  const bool uneven = lay.first_stage_layers > 0 || lay.last_stage_layers > 0;
  if (uneven && (lay.embedding_in_split || lay.loss_in_split)) {
    return Status::InvalidArgument("first_stage_layers",
                                   "cannot be combined with the embedding or loss counted as a layer (Megatron refuses "
                                   "both kinds of uneven split at once)");
  }
  std::array<int64_t, kMaxPipelineStages> rank_layers{};
  if (uneven) {
    if (P < 2) return Status::InvalidArgument("first_stage_layers", "needs at least two pipeline stages (--pp)");
    const int64_t F = lay.first_stage_layers, E = lay.last_stage_layers;
    if (F < 0 || F > L) return Status::InvalidArgument("first_stage_layers", "must be 1 to the layers (" + num(L) + ")");
    if (E < 0 || E > L) return Status::InvalidArgument("last_stage_layers", "must be 1 to the layers (" + num(L) + ")");
    const int64_t middle = P - (F > 0 ? 1 : 0) - (E > 0 ? 1 : 0);
    const int64_t rest = L - F - E;
    if (rest < 0 || (middle == 0) != (rest == 0) || (middle > 0 && rest % middle != 0)) {
      return Status::InvalidArgument(
          "pp", "leaves " + num(std::max<int64_t>(rest, 0)) + " layers for " + num(middle) +
                    " middle stages: Megatron needs the middle stages to split the rest evenly");
    }
    const int64_t per_middle = middle > 0 ? rest / middle : 0;
    for (int64_t r = 0; r < P; ++r) rank_layers[static_cast<size_t>(r)] = per_middle;
    if (F > 0) rank_layers[0] = F;
    if (E > 0) rank_layers[static_cast<size_t>(P - 1)] = E;
    for (int64_t r = 0; r < P; ++r) {
      if (rank_layers[static_cast<size_t>(r)] % V != 0) {
        return Status::InvalidArgument("virtual_stages", "must divide every stage's layers (stage " + num(r) + " has " +
                                                             num(rank_layers[static_cast<size_t>(r)]) + ")");
      }
    }
    int64_t at = 0;
    for (int64_t k = 0; k < V; ++k) {
      for (int64_t r = 0; r < P; ++r) {
        out.begin[static_cast<size_t>(k * P + r)] = at;
        at += rank_layers[static_cast<size_t>(r)] / V;
      }
    }
    out.begin[static_cast<size_t>(C)] = at;
    return out;
  }
  const int64_t emb = lay.embedding_in_split ? 1 : 0, loss = lay.loss_in_split ? 1 : 0;
  const int64_t slots = L + emb + loss;
  if (slots % P != 0) {
    std::string what = emb + loss > 0 ? "must divide the layers plus the embedding and loss counted as layers (" +
                                            num(slots) + ")"
                                      : "must divide the layers (" + num(L) + ")";
    return Status::InvalidArgument(
        "pp", what + ", got " + num(P) +
                  "; Megatron splits unevenly only with --first-stage-layers/--last-stage-layers or "
                  "--embedding-in-split/--loss-in-split");
  }
  if ((slots / P) % V != 0) {
    return Status::InvalidArgument("virtual_stages", "must divide the layers per stage (" + num(slots / P) + "), got " +
                                                         num(V));
  }
  const int64_t per_chunk = slots / C;
  for (int64_t c = 0; c <= C; ++c) {
    out.begin[static_cast<size_t>(c)] = std::clamp<int64_t>(c * per_chunk - emb, 0, L);
  }
  return out;
}

double d(int64_t v) { return static_cast<double>(v); }

// One layer's activations per GPU per micro-batch (training.h, LayerActivations).
LayerActivations layer_activations(const ModelSpec& m, const TrainOptions& o, bool moe) {
  const TrainLayout& lay = o.layout;
  const double T = d(o.seq) * d(o.micro_batch) / d(lay.cp);  // tokens of the micro-batch on this GPU
  const double t = d(lay.tp), tsp = o.sequence_parallel && lay.tp > 1 ? t : 1.0;
  const double D = d(m.n_embd), h = d(m.n_head);
  const double dk = d(train_internal::head_dim_k(m)), dv = d(train_internal::head_dim_v(m));
  const double kv_heads = m.is_mla() ? h : d(m.n_head_kv);
  const double drop = o.dropout ? 1.0 : 0.0;
  const double k = d(m.n_expert_used), c = o.capacity_factor > 0 ? o.capacity_factor : 1.0;
  // Bytes kept per FFN intermediate element: a gated FFN keeps gate and up
  // (Megatron's fused SwiGLU saves its input) and their product (the down
  // projection's input), 3 x 2 B; an ungated one the activation's input and
  // output, 2 x 2 B.
  const double gate = m.ffn_gated ? 6.0 : 4.0;
  LayerActivations a;
  // LN1 input, QKV input, LN2 input, FFN (router) input; dropout masks after attention and FFN.
  double repl = 2 * D + 2 * D + 2 * D + 2 * D + drop * 2 * D;
  if (m.is_mla()) repl += 4.0 * d(m.n_lora_q) + 4.0 * d(m.n_lora_kv) + 2.0 * d(m.n_rot);
  double split = 2 * h * dk + 2 * kv_heads * dk + 2 * kv_heads * dv + 2 * h * dv;
  double expert = 0;
  if (moe) {
    repl += 4.0 * d(m.n_expert) + 2.0 * k * c * D;  // fp32 router probabilities; the expert outputs combined
    expert = 2.0 * k * c * D;                       // the dispatched copies, whole on every TP rank
    split += k * c * gate * d(m.n_ff_exp) + gate * d(m.n_ff_shexp) * d(m.n_expert_shared);
  } else {
    split += gate * d(m.n_ff);
  }
  const double keys = d(o.seq);  // eager attention materializes every score, masked or not
  a.replicated = T * repl / tsp;
  a.expert = T * expert;
  a.split = T * split / t;
  a.scores = o.flash ? 0.0 : T * h * keys * (2.0 + drop * 3.0) / t;
  a.flash_stats = o.flash ? T * 4.0 * h / t : 0.0;
  a.input = T * 2.0 * D / tsp;
  return a;
}

Status validate_options(const ModelSpec& m, const TrainOptions& o) {
  const TrainLayout& lay = o.layout;
  MC_RETURN_IF_ERROR(check_count(lay.tp, 1024, "tp", "a whole number"));
  MC_RETURN_IF_ERROR(check_count(lay.pp, kMaxPipelineStages, "pp", "a whole number"));
  MC_RETURN_IF_ERROR(check_count(lay.dp, int64_t{1} << 20, "dp", "a whole number"));
  MC_RETURN_IF_ERROR(check_count(lay.cp, 1024, "cp", "a whole number"));
  MC_RETURN_IF_ERROR(check_count(lay.ep, 1024, "ep", "a whole number"));
  MC_RETURN_IF_ERROR(check_count(lay.virtual_stages, kMaxModelChunks, "virtual_stages", "a whole number"));
  MC_RETURN_IF_ERROR(check_count(o.seq, int64_t{1} << 30, "seq", "a number of tokens"));
  MC_RETURN_IF_ERROR(check_count(o.micro_batch, int64_t{1} << 20, "micro_batch", "a number of sequences"));
  if (lay.pp * lay.virtual_stages > kMaxModelChunks) {
    return Status::InvalidArgument("virtual_stages", "pp x virtual stages must be at most " + num(kMaxModelChunks));
  }
  if (lay.virtual_stages > 1 && lay.pp < 2) {
    return Status::InvalidArgument("virtual_stages", "the interleaved schedule needs at least two pipeline stages");
  }
  if (lay.microbatch_group < 0) return Status::InvalidArgument("microbatch_group", "must be >= 0 (0 = pp)");
  if (o.global_batch < 0 || o.global_batch > (int64_t{1} << 40)) {
    return Status::InvalidArgument("global_batch", "must be a number of sequences up to 2^40");
  }
  if (!(o.capacity_factor >= 0 && o.capacity_factor <= 1024)) {
    return Status::InvalidArgument("capacity_factor", "must be 0 (dropless) or a factor up to 1024");
  }
  if (o.vocab_divisor < 1 || o.vocab_divisor > 65536) {
    return Status::InvalidArgument("vocab_divisor", "must be 1 to 65536");
  }
  if (!(o.overhead_bytes >= 0 && o.overhead_bytes < 1e15)) {
    return Status::InvalidArgument("overhead_bytes", "must be a size >= 0");
  }
  if (o.params) return Status::Ok();  // a bare count: the shape checks below do not apply
  if (m.n_head % lay.tp != 0) {
    return Status::InvalidArgument("tp", "must divide the attention heads (" + num(m.n_head) + "), got " + num(lay.tp));
  }
  if (!m.is_mla() && m.n_head_kv % lay.tp != 0) {
    return Status::InvalidArgument("tp", "must divide the KV heads (" + num(m.n_head_kv) +
                                             "): Megatron splits the query groups over TP, got " + num(lay.tp));
  }
  if (lay.pp > m.n_layer) {
    return Status::InvalidArgument("pp", "must be at most the layers (" + num(m.n_layer) + "), got " + num(lay.pp));
  }
  if (lay.cp > 1) {
    if (!o.flash) {
      return Status::InvalidArgument("cp", "context parallelism needs FlashAttention (--flash): Megatron runs it on "
                                           "TransformerEngine's fused attention");
    }
    if (o.seq % (2 * lay.cp) != 0) {
      return Status::InvalidArgument("seq", "must be a multiple of 2 x cp (" + num(2 * lay.cp) +
                                                "): each CP rank takes two chunks, got " + num(o.seq));
    }
  }
  if (lay.ep > 1) {
    if (m.n_expert == 0) return Status::InvalidArgument("ep", "expert parallelism needs a mixture-of-experts model");
    if (m.n_expert % lay.ep != 0) {
      return Status::InvalidArgument("ep", "must divide the experts (" + num(m.n_expert) + "), got " + num(lay.ep));
    }
  }
  if (o.capacity_factor > 0 && m.n_expert == 0) {
    return Status::InvalidArgument("capacity_factor", "applies to mixture-of-experts models only");
  }
  return Status::Ok();
}

// The achieved rate and fixed cost of a group of n ranks `stride` apart
// (inside the fast domain when stride x n fits in it).
struct Link {
  double rate = 0, latency = 0;
};
Link link_for(const GpuSpec& g, double efficiency, int64_t stride, int64_t n) {
  const int64_t domain = std::max<int64_t>(1, g.domain_gpus);
  const bool inside = stride * n <= domain;
  return {(inside ? g.link_bytes_per_s : g.scaleout_bytes_per_s) * efficiency,
          inside ? g.link_latency_s : g.scaleout_latency_s};
}

}  // namespace

Result<PreparedTraining> prepare_training(const ModelSpec& m, const GpuSpec& gpu, const TrainOptions& o,
                                          const TrainProfile& prof) {
  if (!o.params) MC_RETURN_IF_ERROR(validate(m));
  MC_RETURN_IF_ERROR(validate_options(m, o));
  if (!(gpu.capacity_bytes > 0)) return Status::InvalidArgument("gpu", "'" + gpu.name + "' needs a capacity");
  if (!(prof.gemm_efficiency > 0 && prof.gemm_efficiency <= 1 && prof.attention_efficiency > 0 &&
        prof.attention_efficiency <= 1 && prof.link_efficiency > 0 && prof.link_efficiency <= 1 &&
        prof.hbm_traffic >= 0 && prof.hbm_traffic < 1e6)) {
    return Status::InvalidArgument("profile", "efficiencies must be in (0, 1] and the HBM traffic >= 0");
  }
  const TrainLayout& lay = o.layout;
  PreparedTraining p;
  p.options = o;
  p.profile = prof;
  p.options.layout.microbatch_group = lay.microbatch_group > 0 ? lay.microbatch_group : lay.pp;
  p.bytes_per_param = train_bytes_per_param(o.optimizer, o.fp32_grads);
  p.peak_flops = gpu.peak_bf16_flops;
  p.hbm_bytes_per_s = gpu.bandwidth_bytes_per_s;
  p.capacity = gpu.capacity_bytes;
  p.has_links = gpu.link_bytes_per_s > 0 && gpu.scaleout_bytes_per_s > 0;
  p.link_rate = gpu.link_bytes_per_s * prof.link_efficiency;
  p.link_latency = gpu.link_latency_s;
  p.scaleout_rate = gpu.scaleout_bytes_per_s * prof.link_efficiency;
  p.scaleout_latency = gpu.scaleout_latency_s;
  p.domain_gpus = std::max<int64_t>(1, gpu.domain_gpus);
  const int64_t P = lay.pp, V = lay.virtual_stages;
  p.chunks = P * V;
  if (o.params) {  // a bare count: every stage params / (tp pp), no activations, no time
    p.params = *o.params;
    p.n_layer = 0;
    const double per = d(*o.params) / (d(lay.tp) * d(P));
    for (int64_t r = 0; r < P; ++r) p.stages[static_cast<size_t>(r)].dense_params = per;
    return p;
  }
  if ((lay.tp > 1 || P > 1 || lay.cp > 1 || lay.ep > 1) && !p.has_links) {
    return Status::InvalidArgument("gpu", "'" + gpu.name + "' has no interconnect figures; a split needs them");
  }
  MC_ASSIGN_OR_RETURN(const ParamBreakdown pb, param_breakdown(m));
  MC_ASSIGN_OR_RETURN(const LayerParams lp, train_internal::layer_params(m));
  MC_ASSIGN_OR_RETURN(p.flops_per_token, training_flops_per_token(m, o.seq, o.recompute, o.attention_count));
  MC_ASSIGN_OR_RETURN(const ChunkLayout chunks, chunk_layout(m.n_layer, lay));
  p.n_layer = m.n_layer;
  p.params = pb.total();
  const int64_t tp = lay.tp;
  p.padded_vocab = megatron_padded_vocab(m.n_vocab, tp, o.vocab_divisor);
  const Exact pad_rows = Exact(p.padded_vocab - m.n_vocab) * Exact(m.n_embd);

  // ---- parameters per GPU, per layer kind
  const Exact attn = ceil_div(Exact(lp.attention - lp.attention_replicated), tp) + Exact(lp.attention_replicated);
  const Exact common = attn + Exact(lp.norms) + ceil_div(Exact(lp.biases), tp);
  const Exact dense_layer = common + ceil_div(Exact(lp.dense_ffn), tp);
  const Exact moe_dense_part = common + ceil_div(Exact(lp.shared), tp) + Exact(lp.router);
  const Exact moe_expert_part = ceil_div(Exact(lp.routed), tp * lay.ep);
  const Exact emb = ceil_div(Exact(lp.embeddings) + pad_rows, tp) + Exact(lp.position);
  Exact head = Exact(lp.final_norm) + (lp.lm_head > 0 ? ceil_div(Exact(lp.lm_head) + pad_rows, tp) : Exact(0));
  if (m.tied_embeddings && P > 1) head += ceil_div(Exact(p.padded_vocab) * Exact(m.n_embd), tp);  // the last stage's copy
  if ((dense_layer + moe_dense_part + moe_expert_part + emb + head).overflow() || pad_rows.overflow()) {
    return Status::Overflow("model shape");
  }

  // ---- activations per layer kind, per GPU per micro-batch
  const bool any_moe = m.n_moe_layers() > 0;
  p.dense_layer = layer_activations(m, o, false);
  if (any_moe) p.moe_layer = layer_activations(m, o, true);
  const Recompute rc = o.recompute;
  const double T = d(o.seq) * d(o.micro_batch) / d(lay.cp);
  const double tsp = o.sequence_parallel && tp > 1 ? d(tp) : 1.0;
  const double logits = T * d(p.padded_vocab) / d(tp) * 6.0;  // fp32 softmax 4 B + the 16-bit gradient 2 B
  const double head_inputs = T * 4.0 * d(m.n_embd) / tsp;     // the final norm's and the lm_head's inputs

  // ---- FLOPs and times per token on this GPU, per layer kind
  const double peak_gemm = gpu.peak_bf16_flops * prof.gemm_efficiency;
  const double peak_attn = gpu.peak_bf16_flops * prof.attention_efficiency;
  const double dkv = d(train_internal::head_dim_k(m) + train_internal::head_dim_v(m));
  const double h_rank = d(m.n_head) / d(tp);
  const double c = o.capacity_factor > 0 ? o.capacity_factor : 1.0;
  const double lin_dense = 2.0 * (d((attn + ceil_div(Exact(lp.dense_ffn), tp)).value()));
  const double lin_moe = 2.0 * (d(attn.value()) + (c * d(lp.routed_active) + d(lp.shared)) / d(tp) + d(lp.router) / d(tp));
  // Executed per token on this GPU: the linear layers' and the attention
  // kernels' FLOPs (forward 1, backward 2, and the recomputed forward).
  auto linear_flops = [&](bool moe) {
    const double lin = moe ? lin_moe : lin_dense;
    return (3.0 + (rc == Recompute::kFull ? 1.0 : 0.0)) * lin;
  };
  auto attention_flops = [&](int64_t il) {
    // FlashAttention skips the causally masked blocks; eager attention computes every score.
    const double core = 2.0 * h_rank * dkv * train_internal::keys_per_query(m, il, o.seq, o.flash);
    return (3.0 + (rc == Recompute::kNone ? 0.0 : 1.0)) * core;
  };
  auto layer_traffic = [&](const LayerActivations& a) {
    const double again = rc == Recompute::kFull ? a.total() / 3.0
                         : rc == Recompute::kSelective ? (a.scores + a.flash_stats) / 3.0
                                                       : 0.0;
    return a.total() + again;
  };
  const Link tp_link = link_for(gpu, prof.link_efficiency, 1, tp);
  const Link cp_link = link_for(gpu, prof.link_efficiency, tp, lay.cp);
  const Link ep_link = link_for(gpu, prof.link_efficiency, tp * lay.cp, lay.ep);
  const double act_msg = T * d(m.n_embd) * 2.0;  // the residual stream of the micro-batch, 16-bit
  p.pp_message_bytes = act_msg / (tp > 1 ? d(tp) : 1.0);  // scattered over TP (SP, or Megatron's scatter-gather)
  const double n_tp = 4.0 + (rc == Recompute::kFull ? 2.0 : 0.0);  // all-reduce equivalents per layer
  const bool sp = o.sequence_parallel && tp > 1;
  auto tp_seconds = [&](double ar_equivalents) {
    if (tp <= 1) return 0.0;
    if (sp) {  // an all-gather and a reduce-scatter per all-reduce: the same bytes, twice the fixed cost
      return ar_equivalents * 2.0 * collective_seconds(gather_wire_bytes(act_msg, d(tp)), tp_link.rate, tp_link.latency);
    }
    return ar_equivalents * collective_seconds(allreduce_wire_bytes(act_msg, d(tp)), tp_link.rate, tp_link.latency);
  };
  const double kv_heads_rank = (m.is_mla() ? d(m.n_head) : d(m.n_head_kv)) / d(tp);
  const double kv_full = d(o.seq) * d(o.micro_batch) * kv_heads_rank * dkv * 2.0;  // K and V of the whole sequence
  const double cp_layer = lay.cp > 1 ? (3.0 + (rc == Recompute::kFull ? 1.0 : 0.0)) *
                                           collective_seconds(gather_wire_bytes(kv_full, d(lay.cp)), cp_link.rate,
                                                              cp_link.latency)
                                     : 0.0;
  const double ep_msg = T / tsp * d(m.n_expert_used) * c * d(m.n_embd) * 2.0;
  const double ep_layer = lay.ep > 1 ? (4.0 + (rc == Recompute::kFull ? 2.0 : 0.0)) *
                                           collective_seconds(gather_wire_bytes(ep_msg, d(lay.ep)), ep_link.rate,
                                                              ep_link.latency)
                                     : 0.0;

  // ---- per chunk and per rank
  const double dense_kept = p.dense_layer.kept(rc), moe_kept = p.moe_layer.kept(rc);
  for (int64_t ch = 0; ch < p.chunks; ++ch) {
    const int64_t b = chunks.begin[static_cast<size_t>(ch)], e = chunks.begin[static_cast<size_t>(ch + 1)];
    const int64_t n_moe = train_internal::moe_layers_in(m, b, e), n_dense = e - b - n_moe;
    p.chunk_kept[static_cast<size_t>(ch)] = d(n_dense) * dense_kept + d(n_moe) * moe_kept;
    PreparedStage& s = p.stages[static_cast<size_t>(ch % P)];
    s.layers += e - b;
    s.moe_layers += n_moe;
    s.dense_params += d(n_dense) * d(dense_layer.value()) + d(n_moe) * d(moe_dense_part.value());
    s.expert_params += d(n_moe) * d(moe_expert_part.value());
    if (n_dense > 0) {
      s.largest_layer_params = std::max(s.largest_layer_params, d(dense_layer.value()));
      s.working = std::max(s.working, p.dense_layer.working(rc));
    }
    if (n_moe > 0) {
      s.largest_layer_params = std::max(s.largest_layer_params, d((moe_dense_part + moe_expert_part).value()));
      s.working = std::max(s.working, p.moe_layer.working(rc));
    }
    double lin = 0, att = 0;
    for (int64_t il = b; il < e; ++il) {  // per token
      lin += linear_flops(m.is_moe_layer(il));
      att += attention_flops(il);
    }
    const double traffic = d(n_dense) * layer_traffic(p.dense_layer) + d(n_moe) * layer_traffic(p.moe_layer);
    s.flops_executed += (lin + att) * T;
    s.attention_flops_executed += att * T;
    s.t_memory += prof.hbm_traffic * traffic / gpu.bandwidth_bytes_per_s;
    s.t_tp += d(e - b) * tp_seconds(n_tp);
    s.t_cp += d(e - b) * cp_layer;
    s.t_ep += d(n_moe) * ep_layer;
  }
  PreparedStage& first = p.stages[0];
  PreparedStage& last = p.stages[static_cast<size_t>(P - 1)];
  first.embedding = true;
  first.dense_params += d(emb.value());
  first.t_tp += tp_seconds(1.0);  // the vocab-parallel embedding's all-reduce
  last.lm_head = true;
  last.dense_params += d(head.value());
  last.logits = logits;
  last.working += head_inputs;
  last.flops_executed += 6.0 * d(p.padded_vocab) * d(m.n_embd) / d(tp) * T;
  last.t_memory += prof.hbm_traffic * logits / gpu.bandwidth_bytes_per_s;
  last.t_tp += tp_seconds(1.0);  // the lm_head input gradient's all-reduce
  for (int64_t r = 0; r < P; ++r) {
    PreparedStage& s = p.stages[static_cast<size_t>(r)];
    s.t_compute = peak_gemm > 0 ? (s.flops_executed - s.attention_flops_executed) / peak_gemm +
                                      s.attention_flops_executed / peak_attn
                                : 0.0;
    s.t_micro_batch = s.t_compute + s.t_memory + s.t_tp + s.t_cp + s.t_ep;
    if (s.t_micro_batch > p.stages[static_cast<size_t>(p.slowest_stage)].t_micro_batch) p.slowest_stage = r;
    const PreparedStage& most = p.stages[static_cast<size_t>(p.most_params_stage)];
    if (s.dense_params + s.expert_params > most.dense_params + most.expert_params) p.most_params_stage = r;
    p.max_flops_executed = std::max(p.max_flops_executed, s.flops_executed);
  }
  return p;
}

// ---------------------------------------------------------------- analysis

namespace train_internal {

StageMemory stage_memory(const PreparedTraining& p, int64_t r, int64_t dp, int64_t m, int zero) {
  const TrainOptions& o = p.options;
  const PreparedStage& s = p.stages[static_cast<size_t>(r)];
  const double dd = d(dp) * d(o.layout.cp), de = dd / d(o.layout.ep);
  const TrainBytesPerParam& b = p.bytes_per_param;
  auto sharded = [&](int from_stage, double bytes) {
    return bytes * (zero >= from_stage ? s.dense_params / dd + s.expert_params / de : s.dense_params + s.expert_params);
  };
  StageMemory sm;
  sm.stage = r;
  sm.layers = s.layers;
  sm.moe_layers = s.moe_layers;
  sm.embedding = s.embedding;
  sm.lm_head = s.lm_head;
  sm.params = static_cast<int64_t>(std::llround(s.dense_params + s.expert_params));
  sm.expert_params = static_cast<int64_t>(std::llround(s.expert_params));
  sm.weights = sharded(3, d(b.weights));
  sm.grads = sharded(2, d(b.gradients));
  sm.optimizer = sharded(1, d(b.optimizer));
  if (p.n_layer > 0) {
    const int64_t P = o.layout.pp, V = o.layout.virtual_stages, N = o.layout.microbatch_group;
    sm.in_flight = inflight_chunks(P, r, V, m, N);
    double kept = 0;
    if (V <= 1) {
      kept = d(sm.in_flight) * p.chunk_kept[static_cast<size_t>(r)];
    } else {  // forwards run in groups of N micro-batches per chunk: chunk 0, 1, ..., v - 1, 0, ...
      const int64_t q = sm.in_flight / N, rem = sm.in_flight % N;
      double cycle = 0;
      for (int64_t k = 0; k < V; ++k) cycle += p.chunk_kept[static_cast<size_t>(k * P + r)];
      kept = d(N) * d(q / V) * cycle;
      for (int64_t k = 0; k < q % V; ++k) kept += d(N) * p.chunk_kept[static_cast<size_t>(k * P + r)];
      kept += d(rem) * p.chunk_kept[static_cast<size_t>((q % V) * P + r)];
    }
    sm.activations = kept + (s.layers > 0 || s.lm_head ? s.working : 0.0);
    sm.logits = s.logits;
  }
  sm.gather_buffer = zero >= 3 ? 2.0 * s.largest_layer_params * d(b.weights) : 0.0;
  sm.overhead = o.overhead_bytes;
  sm.total = sm.weights + sm.grads + sm.optimizer + sm.activations + sm.logits + sm.gather_buffer + sm.overhead;
  return sm;
}

}  // namespace train_internal

Result<TrainMemoryResult> analyze_train_memory(const ModelSpec* m, const GpuSpec& gpu, const TrainOptions& o) {
  if (m == nullptr && !o.params) return Status::InvalidArgument("params", "give a model shape or a parameter count");
  const ModelSpec empty;
  MC_ASSIGN_OR_RETURN(const PreparedTraining p, prepare_training(m ? *m : empty, gpu, o));
  const int64_t dp = o.layout.dp;
  const int64_t gb = effective_global_batch(o);
  MC_RETURN_IF_ERROR(check_training_batch(p, dp, gb, o.zero));
  TrainMemoryResult r;
  r.params = p.params;
  r.padded_vocab = p.padded_vocab;
  r.bytes_per_param = p.bytes_per_param;
  r.micro_batches = gb / (dp * o.micro_batch);
  r.microbatch_group = p.options.layout.microbatch_group;
  r.has_activations = p.n_layer > 0;
  r.dense_layer = p.dense_layer;
  r.moe_layer = p.moe_layer;
  r.capacity = gpu.capacity_bytes;
  const int64_t P = o.layout.pp;
  r.stages.reserve(static_cast<size_t>(P));
  for (int64_t s = 0; s < P; ++s) {
    r.stages.push_back(train_internal::stage_memory(p, s, dp, r.micro_batches, o.zero));
    if (r.stages.back().total > r.stages[static_cast<size_t>(r.worst_stage)].total) r.worst_stage = s;
  }
  r.fits = r.stages[static_cast<size_t>(r.worst_stage)].total <= r.capacity;
  for (int z = 0; z <= 3; ++z) {
    // Every stage must fit: the largest dp any stage needs; the worst stage's
    // unsharded and sharded bytes at dp 1 (sharded parts shrink as 1 / dp).
    int64_t need = 1;
    double worst_total = -1;
    for (int64_t s = 0; s < P; ++s) {
      const StageMemory one = train_internal::stage_memory(p, s, 1, r.micro_batches, z);
      const double sharded = (z >= 3 ? one.weights : 0) + (z >= 2 ? one.grads : 0) + (z >= 1 ? one.optimizer : 0);
      const double fixed = one.total - sharded;
      const int64_t dp_s = min_dp_to_fit(fixed, sharded, r.capacity);
      need = dp_s == 0 || need == 0 ? 0 : std::max(need, dp_s);
      if (one.total > worst_total) {
        worst_total = one.total;
        r.min_dp_fixed[static_cast<size_t>(z)] = fixed;
        r.min_dp_sharded[static_cast<size_t>(z)] = sharded;
      }
    }
    r.min_dp_by_zero[static_cast<size_t>(z)] = need;
    if (r.smallest_zero_fitting < 0) {
      bool all = true;
      for (int64_t s = 0; s < P && all; ++s) {
        all = train_internal::stage_memory(p, s, dp, r.micro_batches, z).total <= r.capacity;
      }
      if (all) r.smallest_zero_fitting = z;
    }
  }
  return r;
}

}  // namespace modelcalc
