// Hybrid decoders whose layers mix softmax attention with recurrent mixers of
// a fixed per-sequence state: qwen3_next (Gated DeltaNet, 3 of 4 layers),
// nemotron_h (Mamba-2 blocks, attention blocks and MLP blocks in a pattern),
// falcon_h1 (Mamba-2 and attention in parallel in every layer) and jamba
// (Mamba-1 layers, attention every attn_layer_period-th layer, MoE every
// expert_layer_period-th). Counts follow modeling_<type>.py (hf_decoder.h).
#include <algorithm>
#include <string>

#include "hf_decoder.h"

namespace modelcalc::hf {

namespace {

// A Mamba-2 mixer (modeling_mamba2.py Mamba2Mixer, as NemotronHMamba2Mixer and
// FalconH1Mixer build it): in_proj d -> inner + conv_dim + heads, conv1d over
// conv_dim = inner + 2 groups state channels (kernel `conv`, optional bias),
// dt_bias, A_log and D (one per head), the gated RMSNorm over inner (`norm`),
// out_proj inner -> d.
RecurrentMixer mamba2(int64_t d, int64_t heads, int64_t head_dim, int64_t groups, int64_t state, int64_t conv,
                      bool in_bias, bool conv_bias, bool out_bias, bool norm) {
  RecurrentMixer r;
  r.kind = Recurrent::kMamba2;
  r.inner = heads * head_dim;
  r.state = state;
  r.heads = heads;
  r.conv = conv;
  r.conv_dim = r.inner + 2 * groups * state;
  const Exact D = d, I = r.inner, C = r.conv_dim, H = heads;
  const Exact proj = I + C + H;
  r.params = D * proj + (in_bias ? proj : Exact(0)) + C * Exact(conv) + (conv_bias ? C : Exact(0)) + H * Exact(3) +
             I * D + (out_bias ? D : Exact(0));
  r.norms = norm ? I : Exact(0);
  return r;
}

}  // namespace

// configuration_qwen3_next.py: vocab 151936, kv 2, head_dim 256, 512 experts
// top-10 of moe_intermediate_size 512, one shared expert of
// shared_expert_intermediate_size 512, decoder_sparse_step 1, mlp_only_layers
// [], layer_types "full_attention" when (il + 1) % full_attention_interval (4)
// == 0 else "linear_attention"; linear_num_key_heads 16, linear_num_value_heads
// 32, linear_key_head_dim and linear_value_head_dim 128, linear_conv_kernel_dim
// 4; untied. modeling_qwen3_next.py: Qwen3NextAttention's q_proj emits the
// query and its output gate (2 h d_head), k/v/o as Qwen3-MoE, q_norm/k_norm
// RMSNorm(head_dim); Qwen3NextGatedDeltaNet: in_proj_qkvz (d -> 2 key_dim + 2
// value_dim), in_proj_ba (d -> 2 v_heads), conv1d over 2 key_dim + value_dim
// channels (no bias), dt_bias and A_log (v_heads), a gated RMSNorm(d_v),
// out_proj (value_dim -> d); the Qwen2-MoE sparse block (router, experts,
// shared expert, shared_expert_gate Linear(d, 1)). The mtp.* tensors of the
// checkpoint are ignored on load and not described by the config.
Result<ModelSpec> build_qwen3_next(Cfg& c) {
  Decoder a;
  MC_RETURN_IF_ERROR(read_core_defaults(c, a, {.vocab = 151936, .hidden = 2048, .intermediate = 5632, .layers = 48,
                                                .heads = 16, .ctx = 32768, .tied = false}));
  MC_ASSIGN_OR_RETURN(a.kv_heads, req_or_default(c, "num_key_value_heads", 2));
  MC_ASSIGN_OR_RETURN(a.head_dim, req_or_default(c, "head_dim", 256));
  MC_RETURN_IF_ERROR(check_kv_heads(c, a));
  MC_ASSIGN_OR_RETURN(bool attn_bias, c.flag("attention_bias", false));
  a.qkv_bias = a.o_bias = attn_bias;
  a.q_out_mult = 2;
  a.q_norm = a.k_norm = a.head_dim;
  MC_ASSIGN_OR_RETURN(a.n_expert, req_or_default(c, "num_experts", 512));
  MC_ASSIGN_OR_RETURN(a.top_k, req_or_default(c, "num_experts_per_tok", 10));
  MC_ASSIGN_OR_RETURN(a.ff_exp, req_or_default(c, "moe_intermediate_size", 512));
  MC_ASSIGN_OR_RETURN(a.ff_shexp, req_or_default(c, "shared_expert_intermediate_size", 512));
  if (a.top_k > a.n_expert) return c.error("num_experts_per_tok", "exceeds num_experts");
  a.n_shared = 1;
  a.shared_gate = true;
  // The Gated DeltaNet mixer.
  MC_ASSIGN_OR_RETURN(const int64_t kh, req_or_default(c, "linear_num_key_heads", 16));
  MC_ASSIGN_OR_RETURN(const int64_t vh, req_or_default(c, "linear_num_value_heads", 32));
  MC_ASSIGN_OR_RETURN(const int64_t dk, req_or_default(c, "linear_key_head_dim", 128));
  MC_ASSIGN_OR_RETURN(const int64_t dv, req_or_default(c, "linear_value_head_dim", 128));
  MC_ASSIGN_OR_RETURN(const int64_t kernel, req_or_default(c, "linear_conv_kernel_dim", 4));
  if (vh % kh != 0) return c.error("linear_num_value_heads", "must be a multiple of linear_num_key_heads");
  RecurrentMixer& r = a.mixer;
  r.kind = Recurrent::kGatedDeltaNet;
  r.state = dk;
  r.inner = vh * dv;
  r.heads = kh;
  r.conv = kernel;
  r.conv_dim = 2 * kh * dk + vh * dv;
  const Exact D = a.d, key_dim = Exact(kh) * Exact(dk), value_dim = Exact(vh) * Exact(dv);
  r.params = D * (key_dim * Exact(2) + value_dim * Exact(2)) + D * Exact(2 * vh) + Exact(r.conv_dim) * Exact(kernel) +
             Exact(2 * vh) + value_dim * D;
  r.norms = Exact(dv);
  // Layers: which mix with attention, which are MoE.
  MC_RETURN_IF_ERROR(materialize_kinds(c, a));
  if (c.has("layer_types")) {
    MC_RETURN_IF_ERROR(
        read_layer_types(c, "layer_types", {"full_attention", "linear_attention"}, {Attn::kFull, Attn::kNone}, a));
  } else {
    MC_ASSIGN_OR_RETURN(const int64_t interval, req_or_default(c, "full_attention_interval", 4));
    for (int64_t il = 0; il < a.layers; ++il) {
      a.kinds[static_cast<size_t>(il)].attn = (il + 1) % interval == 0 ? Attn::kFull : Attn::kNone;
    }
  }
  MC_ASSIGN_OR_RETURN(const int64_t step, req_or_default(c, "decoder_sparse_step", 1));
  MC_ASSIGN_OR_RETURN(auto dense, c.int_list("mlp_only_layers"));
  for (int64_t il = 0; il < a.layers; ++il) {
    LayerKind& k = a.kinds[static_cast<size_t>(il)];
    k.recurrent = k.attn == Attn::kNone;
    const bool listed = std::find(dense.begin(), dense.end(), il) != dense.end();
    k.ffn = !listed && a.n_expert > 0 && (il + 1) % step == 0 ? Ffn::kMoe : Ffn::kDense;
  }
  return finish(c, a);
}

// configuration_nemotron_h.py: the layers are hybrid_override_pattern's
// characters (M Mamba-2, * attention, - MLP, E MoE), num_hidden_layers being
// deprecated in its favour; vocab 131072, untied, kv 8, head_dim 128
// (attention_head_dim in remote-code configs), attention_bias False, MLP
// relu2 (up/down) of intermediate_size with mlp_bias, mamba_num_heads 128 x
// mamba_head_dim 64, n_groups 8, ssm_state_size 128, conv_kernel 4,
// use_conv_bias True, use_bias False. modeling_nemotron_h.py: each block is
// one RMSNorm and one mixer; the Mamba-2 mixer's in/out projections biased by
// use_bias; the MoE block (E) DeepSeek-V3's router (weight, and the
// e_score_correction_bias buffer), up/down experts, a shared MLP of
// moe_shared_expert_intermediate_size; norm_f; mtp.* ignored on load.
Result<ModelSpec> build_nemotron_h(Cfg& c) {
  c.alias("head_dim", "attention_head_dim");
  Decoder a;
  // The layers are the pattern's (below), not num_hidden_layers.
  MC_RETURN_IF_ERROR(read_core_defaults(c, a, {.vocab = 131072, .hidden = 4096, .intermediate = 21504, .layers = 0,
                                                .heads = 32, .ctx = 4096, .tied = false}));
  MC_ASSIGN_OR_RETURN(auto kv, c.opt("num_key_value_heads", 8));
  a.kv_heads = kv.value_or(a.heads);
  MC_ASSIGN_OR_RETURN(a.head_dim, req_or_default(c, "head_dim", 128));
  MC_RETURN_IF_ERROR(check_kv_heads(c, a));
  MC_ASSIGN_OR_RETURN(bool attn_bias, c.flag("attention_bias", false));
  a.qkv_bias = a.o_bias = attn_bias;
  MC_ASSIGN_OR_RETURN(a.mlp_bias, c.flag("mlp_bias", false));
  a.gated = false;
  a.layer_norms = 1;
  MC_ASSIGN_OR_RETURN(auto pattern, c.str("hybrid_override_pattern"));
  if (!pattern) {
    MC_ASSIGN_OR_RETURN(auto types, c.str_list("layers_block_type"));
    if (types.empty()) return c.error("hybrid_override_pattern", "missing; nemotron_h needs its layer pattern");
    std::string p;
    for (const std::string& t : types) {
      if (t == "mamba" || t == "linear_attention") p += 'M';
      else if (t == "attention" || t == "full_attention") p += '*';
      else if (t == "mlp") p += '-';
      else if (t == "moe") p += 'E';
      else return c.error("layers_block_type", "unknown layer type '" + t + "'");
    }
    pattern = p;
  }
  a.layers = static_cast<int64_t>(pattern->size());
  if (a.layers == 0) return c.error("hybrid_override_pattern", "is empty");
  MC_RETURN_IF_ERROR(materialize_kinds(c, a));
  bool any_moe = false;
  for (size_t i = 0; i < pattern->size(); ++i) {
    LayerKind& k = a.kinds[i];
    k = LayerKind{Attn::kNone, false, Ffn::kNone};
    switch ((*pattern)[i]) {
      case 'M': k.recurrent = true; break;
      case '*': k.attn = Attn::kFull; break;
      case '-': k.ffn = Ffn::kDense; break;
      case 'E': k.ffn = Ffn::kMoe; any_moe = true; break;
      default:
        return c.error("hybrid_override_pattern", "character " + std::to_string(i) + " is '" +
                                                      std::string(1, (*pattern)[i]) + "'; allowed: M, *, -, E");
    }
  }
  MC_ASSIGN_OR_RETURN(auto stated, c.opt("num_hidden_layers", std::nullopt));
  if (stated && *stated != a.layers) {
    a.assumptions.push_back("num_hidden_layers (" + std::to_string(*stated) + ") differs from the " +
                            std::to_string(a.layers) + " layers of hybrid_override_pattern; transformers builds the "
                            "pattern's");
  }
  if (any_moe) {
    MC_ASSIGN_OR_RETURN(auto latent, c.opt("moe_latent_size", std::nullopt));
    if (latent) return c.error("moe_latent_size", "a latent MoE projection is not supported");
    MC_ASSIGN_OR_RETURN(a.n_expert, req_or_default(c, "n_routed_experts", 8));
    MC_ASSIGN_OR_RETURN(a.top_k, req_or_default(c, "num_experts_per_tok", 2));
    MC_ASSIGN_OR_RETURN(a.ff_exp, req_or_default(c, "moe_intermediate_size", 7688));
    MC_ASSIGN_OR_RETURN(a.n_shared, req_or_default(c, "n_shared_experts", 1));
    MC_ASSIGN_OR_RETURN(a.ff_shexp, req_or_default(c, "moe_shared_expert_intermediate_size", 7688));
    if (a.n_shared > 1) return c.error("n_shared_experts", "one shared MLP is built; got " + std::to_string(a.n_shared));
    if (a.top_k > a.n_expert) return c.error("num_experts_per_tok", "exceeds n_routed_experts");
    a.router_score_bias = true;
  }
  MC_ASSIGN_OR_RETURN(const int64_t mh, req_or_default(c, "mamba_num_heads", 128));
  MC_ASSIGN_OR_RETURN(const int64_t mhd, req_or_default(c, "mamba_head_dim", 64));
  MC_ASSIGN_OR_RETURN(const int64_t groups, req_or_default(c, "n_groups", 8));
  MC_ASSIGN_OR_RETURN(const int64_t state, req_or_default(c, "ssm_state_size", 128));
  MC_ASSIGN_OR_RETURN(const int64_t kernel, req_or_default(c, "conv_kernel", 4));
  MC_ASSIGN_OR_RETURN(const bool conv_bias, c.flag("use_conv_bias", true));
  MC_ASSIGN_OR_RETURN(const bool bias, c.flag("use_bias", false));
  a.mixer = mamba2(a.d, mh, mhd, groups, state, kernel, bias, conv_bias, bias, /*norm=*/true);
  return finish(c, a);
}

// configuration_falcon_h1.py: vocab 128000, kv 8, head_dim from the config
// (else hidden / heads), mamba_d_ssm 1024 (null: mamba_expand x hidden),
// mamba_n_heads 128, mamba_d_head "auto" (= d_ssm / heads), mamba_n_groups 1,
// mamba_d_state 256, mamba_d_conv 4, mamba_conv_bias True, mamba_proj_bias
// False, mamba_rms_norm False, projectors_bias False, attention_bias and
// mlp_bias False, untied. modeling_falcon_h1.py FalconH1DecoderLayer: every
// layer runs the Mamba-2 mixer and Llama attention in parallel, then a gated
// Llama MLP; input_layernorm and pre_ff_layernorm; final_layernorm. The
// mixer's in_proj is biased by mamba_proj_bias, out_proj by projectors_bias.
// MuP multipliers are config floats or buffers, not parameters.
Result<ModelSpec> build_falcon_h1(Cfg& c) {
  Decoder a;
  MC_RETURN_IF_ERROR(read_core_defaults(c, a, {.vocab = 128000, .hidden = 4096, .intermediate = 14336, .layers = 32,
                                                .heads = 32, .ctx = 8192, .tied = false}));
  MC_RETURN_IF_ERROR(read_heads(c, a, 8, std::nullopt));
  MC_ASSIGN_OR_RETURN(bool attn_bias, c.flag("attention_bias", false));
  a.qkv_bias = a.o_bias = attn_bias;
  MC_ASSIGN_OR_RETURN(a.mlp_bias, c.flag("mlp_bias", false));
  MC_ASSIGN_OR_RETURN(auto d_ssm, c.opt("mamba_d_ssm", 1024));
  MC_ASSIGN_OR_RETURN(const int64_t expand, req_or_default(c, "mamba_expand", 2));
  const int64_t inner = d_ssm.value_or(expand * a.d);
  MC_ASSIGN_OR_RETURN(const int64_t mh, req_or_default(c, "mamba_n_heads", 128));
  if (inner % mh != 0) return c.error("mamba_n_heads", "must divide the Mamba width (" + std::to_string(inner) + ")");
  MC_ASSIGN_OR_RETURN(auto d_head, int_or_auto(c, "mamba_d_head"));
  const int64_t mhd = d_head.value_or(inner / mh);
  if (mhd * mh != inner) return c.error("mamba_d_head", "x mamba_n_heads must equal the Mamba width");
  MC_ASSIGN_OR_RETURN(const int64_t groups, req_or_default(c, "mamba_n_groups", 1));
  MC_ASSIGN_OR_RETURN(const int64_t state, req_or_default(c, "mamba_d_state", 256));
  MC_ASSIGN_OR_RETURN(const int64_t kernel, req_or_default(c, "mamba_d_conv", 4));
  MC_ASSIGN_OR_RETURN(const bool conv_bias, c.flag("mamba_conv_bias", true));
  MC_ASSIGN_OR_RETURN(const bool proj_bias, c.flag("mamba_proj_bias", false));
  MC_ASSIGN_OR_RETURN(const bool out_bias, c.flag("projectors_bias", false));
  MC_ASSIGN_OR_RETURN(const bool norm, c.flag("mamba_rms_norm", false));
  a.mixer = mamba2(a.d, mh, mhd, groups, state, kernel, proj_bias, conv_bias, out_bias, norm);
  MC_RETURN_IF_ERROR(materialize_kinds(c, a));
  for (LayerKind& k : a.kinds) k.recurrent = true;  // attention and Mamba in parallel
  return finish(c, a);
}

// configuration_jamba.py: vocab 65536, untied, kv 8, 16 experts top-2,
// expert_layer_period 2 / offset 1 (MoE where il % period == offset),
// attn_layer_period 8 / offset 4 (attention likewise, Mamba elsewhere),
// mamba_d_state 16, mamba_d_conv 4, mamba_expand 2, mamba_dt_rank "auto"
// (ceil(hidden / 16)), mamba_conv_bias True, mamba_proj_bias False.
// modeling_jamba.py: JambaAttention q/k/v/o without bias (head_dim hidden /
// heads); JambaMambaMixer in_proj (d -> 2 inner), conv1d (inner channels),
// x_proj (inner -> dt_rank + 2 state, no bias), dt_proj (dt_rank -> inner,
// biased), A_log (inner x state), D (inner), out_proj, and RMSNorms over
// dt_rank, state and state; the sparse block's router Linear(d, E) without
// bias and gated experts; input_layernorm and pre_ff_layernorm; final_layernorm.
Result<ModelSpec> build_jamba(Cfg& c) {
  Decoder a;
  MC_RETURN_IF_ERROR(read_core_defaults(c, a, {.vocab = 65536, .hidden = 4096, .intermediate = 14336, .layers = 32,
                                                .heads = 32, .ctx = 262144, .tied = false}));
  MC_ASSIGN_OR_RETURN(auto kv, c.opt("num_key_value_heads", 8));
  a.kv_heads = kv.value_or(a.heads);
  if (a.d % a.heads != 0) return c.error("num_attention_heads", "must divide hidden_size");
  a.head_dim = a.d / a.heads;  // JambaConfig has no head_dim
  MC_RETURN_IF_ERROR(check_kv_heads(c, a));
  MC_ASSIGN_OR_RETURN(a.n_expert, req_or_default(c, "num_experts", 16));
  MC_ASSIGN_OR_RETURN(a.top_k, req_or_default(c, "num_experts_per_tok", 2));
  if (a.top_k > a.n_expert) return c.error("num_experts_per_tok", "exceeds num_experts");
  a.ff_exp = a.ff;
  MC_ASSIGN_OR_RETURN(const int64_t e_period, req_or_default(c, "expert_layer_period", 2));
  MC_ASSIGN_OR_RETURN(const int64_t e_offset, req_or_default(c, "expert_layer_offset", 1, 0));
  MC_ASSIGN_OR_RETURN(const int64_t a_period, req_or_default(c, "attn_layer_period", 8));
  MC_ASSIGN_OR_RETURN(const int64_t a_offset, req_or_default(c, "attn_layer_offset", 4, 0));
  if (e_offset >= e_period) return c.error("expert_layer_offset", "must be below expert_layer_period");
  if (a_offset >= a_period) return c.error("attn_layer_offset", "must be below attn_layer_period");
  MC_RETURN_IF_ERROR(materialize_kinds(c, a));
  for (int64_t il = 0; il < a.layers; ++il) {
    LayerKind& k = a.kinds[static_cast<size_t>(il)];
    k.attn = il % a_period == a_offset ? Attn::kFull : Attn::kNone;
    k.recurrent = k.attn == Attn::kNone;
    k.ffn = a.n_expert > 1 && il % e_period == e_offset ? Ffn::kMoe : Ffn::kDense;
  }
  if (a.n_expert <= 1) a.n_expert = a.top_k = a.ff_exp = 0;  // JambaMLP everywhere
  MC_ASSIGN_OR_RETURN(const int64_t state, req_or_default(c, "mamba_d_state", 16));
  MC_ASSIGN_OR_RETURN(const int64_t kernel, req_or_default(c, "mamba_d_conv", 4));
  MC_ASSIGN_OR_RETURN(const int64_t expand, req_or_default(c, "mamba_expand", 2));
  MC_ASSIGN_OR_RETURN(auto dt, int_or_auto(c, "mamba_dt_rank"));
  const int64_t dt_rank = dt.value_or((a.d + 15) / 16);  // "auto": ceil(hidden / 16)
  MC_ASSIGN_OR_RETURN(const bool conv_bias, c.flag("mamba_conv_bias", true));
  MC_ASSIGN_OR_RETURN(const bool proj_bias, c.flag("mamba_proj_bias", false));
  RecurrentMixer& r = a.mixer;
  r.kind = Recurrent::kMamba1;
  r.inner = expand * a.d;
  r.state = state;
  r.heads = r.inner;  // tensor parallelism splits the channels
  r.conv = kernel;
  r.conv_dim = r.inner;
  const Exact D = a.d, I = r.inner, N = state, R = dt_rank;
  r.params = D * I * Exact(2) + (proj_bias ? I * Exact(2) : Exact(0)) + I * Exact(kernel) +
             (conv_bias ? I : Exact(0)) + I * (R + N * Exact(2)) + R * I + I + I * N + I + I * D +
             (proj_bias ? D : Exact(0));
  r.norms = R + N * Exact(2);
  return finish(c, a);
}

}  // namespace modelcalc::hf
