// Decoders that also ship as multimodal wrappers, whose language model sits in
// `text_config`: gemma3 (gemma3_text), llama4 (llama4_text) and mistral3 (any
// text model_type the reader knows, Mistral in Mistral-Small-3.x). The
// language model is counted as the text builder counts it; the vision tower
// and its projector are counted from `vision_config` into params_vision,
// beside the total and never in it. A wrapper without a vision_config is
// counted without one (transformers would build the vision class's defaults,
// which describe no released checkpoint): the report says so.
#include <string>

#include "hf_decoder.h"

namespace modelcalc::hf {

namespace {

// The language model of a wrapper: text_config read by the builder of its own
// model_type (default `text_type` when the object states none).
Result<ModelSpec> build_text_config(Cfg& c, std::string_view text_type) {
  if (!c.has_object("text_config")) {
    return c.error("text_config", "missing; model_type '" + c.model_type() + "' keeps its language model there");
  }
  std::string type(text_type);
  if (auto inner = c.child("text_config", text_type); inner.has("model_type")) {
    MC_ASSIGN_OR_RETURN(auto t, inner.str("model_type"));
    if (t) type = *t;
  }
  const ArchBuilder build = find_builder(type);
  if (build == nullptr) {
    return c.error("text_config.model_type", "'" + type + "' is not a supported language model");
  }
  Cfg text = c.child("text_config", type);
  return build(text);
}

// Counts a wrapper's vision tower and projector from `v` (its vision_config)
// and `c` (the wrapper's own keys), beside `text`, the language model.
using VisionCount = Result<Exact> (*)(Cfg& c, Cfg& v, const ModelSpec& text);

// A wrapper: the language model of text_config (default `text_type`) and, when
// there is a vision_config (of default `vision_type`), `vision`'s count in
// params_vision, beside the total. Without one the report says so.
Result<ModelSpec> build_wrapper(Cfg& c, std::string_view text_type, std::string_view vision_type,
                                VisionCount vision) {
  MC_ASSIGN_OR_RETURN(ModelSpec m, build_text_config(c, text_type));
  if (!c.has_object("vision_config")) {
    m.assumptions.push_back(c.model_type() +
                            " config without vision_config: the vision tower is not counted (transformers would "
                            "build its vision class's defaults, which are not the released checkpoint's)");
    return m;
  }
  Cfg v = c.child("vision_config", vision_type);
  MC_ASSIGN_OR_RETURN(const Exact count, vision(c, v, m));
  if (count.overflow()) return Status::Overflow(c.source());
  m.params_vision = count.value();
  return m;
}

// The keys every vision tower here has, with its config class's defaults.
struct VisionShape {
  int64_t hidden = 0, intermediate = 0, layers = 0, channels = 0, patch = 0;
};

Result<VisionShape> read_vision_shape(Cfg& v, const VisionShape& d) {
  VisionShape s;
  MC_ASSIGN_OR_RETURN(s.hidden, req_or_default(v, "hidden_size", d.hidden));
  MC_ASSIGN_OR_RETURN(s.intermediate, req_or_default(v, "intermediate_size", d.intermediate));
  MC_ASSIGN_OR_RETURN(s.layers, req_or_default(v, "num_hidden_layers", d.layers));
  MC_ASSIGN_OR_RETURN(s.channels, req_or_default(v, "num_channels", d.channels));
  MC_ASSIGN_OR_RETURN(s.patch, req_or_default(v, "patch_size", d.patch));
  return s;
}

// SigLIP's vision tower (modeling_siglip.py SiglipVisionTransformer):
// patch_embedding Conv2d(C, h, p, stride p) with bias, position_embedding of
// (image / p)^2 rows; per layer layer_norm1, q/k/v/out_proj (biased),
// layer_norm2, fc1/fc2 (biased); post_layernorm; with vision_use_head the
// attention-pooling head (probe, MultiheadAttention's in/out projections,
// layernorm, MLP). LayerNorms hold weight and bias.
Result<Exact> siglip_vision(Cfg& v) {
  MC_ASSIGN_OR_RETURN(const VisionShape s, read_vision_shape(v, {.hidden = 768, .intermediate = 3072, .layers = 12,
                                                                 .channels = 3, .patch = 16}));
  MC_ASSIGN_OR_RETURN(const int64_t image, req_or_default(v, "image_size", 224));
  MC_ASSIGN_OR_RETURN(const bool head, v.flag("vision_use_head", true));
  const int64_t p = s.patch;
  const Exact H = s.hidden, I = s.intermediate, side = Exact(image / p);
  const Exact patch = Exact(s.channels) * Exact(p) * Exact(p) * H + H;
  const Exact pos = side * side * H;
  const Exact mlp = H * I + I + I * H + H;
  const Exact layer = layer_norm(H) * Exact(2) + (H * H + H) * Exact(4) + mlp;
  Exact total = patch + pos + layer * Exact(s.layers) + layer_norm(H);
  if (head) total += H + (Exact(3) * H * H + Exact(3) * H) + (H * H + H) + layer_norm(H) + mlp;
  return total;
}

// Gemma3ForConditionalGeneration's vision side: the SigLIP tower and
// Gemma3MultiModalProjector (mm_input_projection_weight vision_h x text_h,
// mm_soft_emb_norm RMSNorm(vision_h)).
Result<Exact> gemma3_vision(Cfg&, Cfg& v, const ModelSpec& text) {
  MC_ASSIGN_OR_RETURN(const Exact tower, siglip_vision(v));
  MC_ASSIGN_OR_RETURN(const int64_t vh, req_or_default(v, "hidden_size", 768));
  return tower + Exact(vh) * Exact(text.n_embd) + Exact(vh);
}

// Llama4VisionModel and Llama4MultiModalProjector (see build_llama4).
Result<Exact> llama4_vision(Cfg&, Cfg& v, const ModelSpec& text) {
  MC_ASSIGN_OR_RETURN(const VisionShape s, read_vision_shape(v, {.hidden = 768, .intermediate = 5632, .layers = 34,
                                                                 .channels = 3, .patch = 14}));
  MC_ASSIGN_OR_RETURN(const int64_t image, req_or_default(v, "image_size", 448));
  MC_ASSIGN_OR_RETURN(const int64_t out, req_or_default(v, "vision_output_dim", 7680));
  MC_ASSIGN_OR_RETURN(const int64_t pin, req_or_default(v, "projector_input_dim", 4096));
  MC_ASSIGN_OR_RETURN(const int64_t pout, req_or_default(v, "projector_output_dim", 4096));
  const int64_t p = s.patch;
  const Exact H = s.hidden, I = s.intermediate, side = Exact(image / p);
  const Exact layer = (H * H + H) * Exact(4) + H * I + I + I * H + H + layer_norm(H) * Exact(2);
  const Exact tower = Exact(s.channels) * Exact(p) * Exact(p) * H + H + (side * side + Exact(1)) * H +
                      layer_norm(H) * Exact(2) + layer * Exact(s.layers) + I * Exact(pin) + Exact(pout) * Exact(pout);
  return tower + Exact(out) * Exact(text.n_embd);
}

// The Pixtral tower and the Mistral3 projector (see build_mistral3); the
// projector's keys are the wrapper's.
Result<Exact> mistral3_vision(Cfg& c, Cfg& v, const ModelSpec& text) {
  MC_ASSIGN_OR_RETURN(const VisionShape s, read_vision_shape(v, {.hidden = 1024, .intermediate = 4096, .layers = 24,
                                                                 .channels = 3, .patch = 16}));
  MC_ASSIGN_OR_RETURN(const int64_t merge, req_or_default(c, "spatial_merge_size", 2));
  MC_ASSIGN_OR_RETURN(const bool bias, c.flag("multimodal_projector_bias", false));
  // vision_feature_layer: one layer index, or a list of them (concatenated).
  const auto& j = c.object();
  const auto fl = j.find("vision_feature_layer");
  const int64_t n_features = fl != j.end() && fl->is_array() && !fl->empty() ? static_cast<int64_t>(fl->size()) : 1;
  const int64_t p = s.patch;
  const Exact H = s.hidden, T = text.n_embd;
  const Exact layer = H + H + Exact(4) * H * H + Exact(3) * H * Exact(s.intermediate);
  const Exact tower = Exact(s.channels) * Exact(p) * Exact(p) * H + H + layer * Exact(s.layers);
  Exact projector = H + H * Exact(merge) * Exact(merge) * H + H * Exact(n_features) * T + T * T;
  if (bias) projector += T + T;
  return tower + projector;
}

}  // namespace

// configuration_gemma3.py Gemma3TextConfig: vocab 262208, kv 4, head_dim 256,
// max_position_embeddings 131072, tied, attention_bias False, sliding_window
// 4096, sliding_window_pattern 6 (layer il is local unless (il + 1) % 6 == 0;
// an explicit layer_types list wins). modeling_gemma3.py: q_norm/k_norm
// RMSNorm(head_dim), four norms per layer (input, post_attention,
// pre_feedforward, post_feedforward), GemmaRMSNorm (1 + w, one weight).
Result<ModelSpec> build_gemma3_text(Cfg& c) {
  Decoder a;
  MC_RETURN_IF_ERROR(read_core_defaults(c, a, {.vocab = 262208, .hidden = 2304, .intermediate = 9216, .layers = 26,
                                                .heads = 8, .ctx = 131072, .tied = true}));
  MC_ASSIGN_OR_RETURN(a.kv_heads, req_or_default(c, "num_key_value_heads", 4));
  MC_ASSIGN_OR_RETURN(a.head_dim, req_or_default(c, "head_dim", 256));
  MC_RETURN_IF_ERROR(check_kv_heads(c, a));
  MC_ASSIGN_OR_RETURN(bool attn_bias, c.flag("attention_bias", false));
  a.qkv_bias = a.o_bias = attn_bias;
  a.q_norm = a.k_norm = a.head_dim;
  a.layer_norms = 4;
  MC_ASSIGN_OR_RETURN(auto w, c.opt("sliding_window", 4096));
  a.swa = w.value_or(0);
  if (c.has("layer_types")) {
    MC_RETURN_IF_ERROR(read_layer_types(c, "layer_types", {"full_attention", "sliding_attention"},
                                        {Attn::kFull, a.swa > 0 ? Attn::kSliding : Attn::kFull}, a));
  } else if (a.swa > 0) {
    MC_ASSIGN_OR_RETURN(a.swa_pattern, req_or_default(c, "sliding_window_pattern", 6));
  }
  return finish(c, a);
}

// configuration_gemma3.py Gemma3Config: text_config (gemma3_text) and
// vision_config (SiglipVisionConfig). modeling_gemma3.py
// Gemma3ForConditionalGeneration: the SigLIP tower, Gemma3MultiModalProjector
// (mm_input_projection_weight vision_h x text_h, mm_soft_emb_norm
// RMSNorm(vision_h)), the language model; lm_head tied to its embedding.
Result<ModelSpec> build_gemma3(Cfg& c) {
  return build_wrapper(c, "gemma3_text", "siglip_vision_model", gemma3_vision);
}

// configuration_llama4.py Llama4TextConfig: vocab 202048, hidden 5120, expert
// width (intermediate_size) 8192, dense width intermediate_size_mlp 16384, 48
// layers, 40 heads, kv 8, head_dim 128, 16 experts top-1, untied,
// attention_bias False; moe_layers default range(step - 1, L, step) for
// interleave_moe_layer_step; no_rope_layers default 1 unless (il + 1) % 4 == 0
// (no_rope_layer_interval); layer_types chunked_attention where RoPE is used,
// full_attention on the NoPE layers; attention_chunk_size 8192 (null: no
// chunks). modeling_llama4.py: q/k/v/o biased by attention_bias, qk_norm is a
// weightless L2 norm; Llama4TextMoe = experts (gate_up_proj E x d x 2f,
// down_proj E x f x d), router Linear(d, E) without bias, one shared expert
// Llama4TextMLP(intermediate_size); dense layers Llama4TextMLP(intermediate_size_mlp).
Result<ModelSpec> build_llama4_text(Cfg& c) {
  Decoder a;
  // intermediate_size is the experts' width; the dense layers' is intermediate_size_mlp.
  MC_RETURN_IF_ERROR(read_core_defaults(c, a, {.vocab = 202048, .hidden = 5120, .intermediate = 8192, .layers = 48,
                                                .heads = 40, .ctx = 131072, .tied = false}));
  a.ff_exp = a.ff;
  MC_ASSIGN_OR_RETURN(a.ff, req_or_default(c, "intermediate_size_mlp", 16384));
  MC_RETURN_IF_ERROR(read_heads(c, a, 8, 128));
  MC_ASSIGN_OR_RETURN(bool attn_bias, c.flag("attention_bias", false));
  a.qkv_bias = a.o_bias = attn_bias;
  MC_ASSIGN_OR_RETURN(a.n_expert, req_or_default(c, "num_local_experts", 16));
  MC_ASSIGN_OR_RETURN(a.top_k, req_or_default(c, "num_experts_per_tok", 1));
  if (a.top_k > a.n_expert) return c.error("num_experts_per_tok", "exceeds num_local_experts");
  a.n_shared = 1;
  a.ff_shexp = a.ff_exp;
  MC_RETURN_IF_ERROR(materialize_kinds(c, a));
  // MoE layers: moe_layers, else every step-th layer ending each step.
  MC_ASSIGN_OR_RETURN(auto moe_layers, c.int_list("moe_layers"));
  if (moe_layers.empty()) {
    MC_ASSIGN_OR_RETURN(const int64_t step, req_or_default(c, "interleave_moe_layer_step", 1));
    for (int64_t il = step - 1; il < a.layers; il += step) moe_layers.push_back(il);
  }
  for (LayerKind& k : a.kinds) k.ffn = Ffn::kDense;
  for (int64_t il : moe_layers) {
    if (il >= a.layers) return c.error("moe_layers", "names layer " + std::to_string(il) + " of " + std::to_string(a.layers));
    a.kinds[static_cast<size_t>(il)].ffn = Ffn::kMoe;
  }
  // Attention: chunked on RoPE layers, full on NoPE layers (or layer_types).
  MC_ASSIGN_OR_RETURN(auto chunk, c.opt("attention_chunk_size", 8192));
  a.chunk = chunk.value_or(0);
  const Attn local = a.chunk > 0 ? Attn::kChunked : Attn::kFull;
  if (c.has("layer_types")) {
    MC_RETURN_IF_ERROR(
        read_layer_types(c, "layer_types", {"full_attention", "chunked_attention"}, {Attn::kFull, local}, a));
  } else {
    MC_ASSIGN_OR_RETURN(auto rope, c.int_list("no_rope_layers"));
    MC_ASSIGN_OR_RETURN(const int64_t interval, req_or_default(c, "no_rope_layer_interval", 4));
    for (int64_t il = 0; il < a.layers; ++il) {
      const bool uses_rope = rope.empty() ? (il + 1) % interval != 0 : il < static_cast<int64_t>(rope.size()) &&
                                                                          rope[static_cast<size_t>(il)] != 0;
      a.kinds[static_cast<size_t>(il)].attn = uses_rope ? local : Attn::kFull;
    }
  }
  return finish(c, a);
}

// configuration_llama4.py Llama4Config: text_config and vision_config
// (Llama4VisionConfig). modeling_llama4.py Llama4VisionModel: patch_embedding
// Linear(C.p.p, h) without bias, class_embedding (h), positional_embedding_vlm
// ((image/p)^2 + 1 rows), layernorm_pre and _post (LayerNorm), per layer q/k/v/o
// (biased), fc1/fc2 (biased), two LayerNorms; vision_adapter fc1
// (intermediate_size -> projector_input_dim) and fc2 (projector_output_dim
// square), both without bias; Llama4MultiModalProjector linear_1
// (vision_output_dim -> text hidden, no bias).
Result<ModelSpec> build_llama4(Cfg& c) {
  return build_wrapper(c, "llama4_text", "llama4_vision_model", llama4_vision);
}

// configuration_mistral3.py: text_config (a MistralConfig unless it says
// otherwise), vision_config (PixtralVisionConfig: hidden 1024, intermediate
// 4096, 24 layers, 16 heads, 3 channels, patch 16), spatial_merge_size 2,
// multimodal_projector_bias False, vision_feature_layer -1 (one layer).
// modeling_pixtral.py: patch_conv without bias, ln_pre RMSNorm, per layer
// attention_norm and ffn_norm (RMSNorm), q/k/v/o (h x h, no bias), a gated
// MLP (gate/up/down, no bias). modeling_mistral3.py projector: norm
// RMSNorm(vision h), patch_merger.merging_layer (h.s^2 -> h, no bias),
// linear_1 (h.layers -> text h) and linear_2 (text h square), biased by
// multimodal_projector_bias.
Result<ModelSpec> build_mistral3(Cfg& c) {
  return build_wrapper(c, "mistral", "pixtral", mistral3_vision);
}

}  // namespace modelcalc::hf
