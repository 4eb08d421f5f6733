// Vision towers with their projectors, counted into params_vision beside the
// language model's total (never in it). Each tower is the modeling code's
// vision class; its keys are read with that config class's defaults.
#include <string>
#include <utility>
#include <vector>

#include "hf_decoder.h"

namespace modelcalc::hf {
namespace {

// The vision config's defaults as a pseudo-row (get_int / need_int read them).
FamilyRow tower_row(std::string_view defaults) {
  FamilyRow r;
  r.model_type = "vision";
  r.defaults = defaults;
  return r;
}

// The keys every vision tower here has.
struct VisionShape {
  int64_t hidden = 0, intermediate = 0, layers = 0, channels = 0, patch = 0;
};

Result<VisionShape> read_vision_shape(Cfg& v, const FamilyRow& r) {
  VisionShape s;
  MC_ASSIGN_OR_RETURN(s.hidden, need_int(v, r, "hidden_size"));
  MC_ASSIGN_OR_RETURN(s.intermediate, need_int(v, r, "intermediate_size"));
  MC_ASSIGN_OR_RETURN(s.layers, need_int(v, r, "num_hidden_layers"));
  MC_ASSIGN_OR_RETURN(s.channels, need_int(v, r, "num_channels"));
  MC_ASSIGN_OR_RETURN(s.patch, need_int(v, r, "patch_size"));
  return s;
}

// SigLIP's vision tower (modeling_siglip.py SiglipVisionTransformer):
// patch_embedding Conv2d(C, h, p, stride p) with bias, position_embedding of
// (image / p)^2 rows; per layer layer_norm1, q/k/v/out_proj (biased),
// layer_norm2, fc1/fc2 (biased); post_layernorm; with vision_use_head the
// attention-pooling head (probe, MultiheadAttention's in/out projections,
// layernorm, MLP). LayerNorms hold weight and bias. Gemma3MultiModalProjector:
// mm_input_projection_weight (vision_h x text_h), mm_soft_emb_norm RMSNorm(vision_h).
Result<Exact> siglip_gemma3(Cfg&, Cfg& v, const ModelSpec& text) {
  const FamilyRow r = tower_row(
      "hidden_size=768 intermediate_size=3072 num_hidden_layers=12 num_channels=3 patch_size=16 image_size=224");
  MC_ASSIGN_OR_RETURN(const VisionShape s, read_vision_shape(v, r));
  MC_ASSIGN_OR_RETURN(const int64_t image, need_int(v, r, "image_size"));
  MC_ASSIGN_OR_RETURN(const bool head, v.flag("vision_use_head", true));
  const int64_t p = s.patch;
  const Exact H = s.hidden, I = s.intermediate, side = Exact(image / p);
  const Exact patch = Exact(s.channels) * Exact(p) * Exact(p) * H + H;
  const Exact pos = side * side * H;
  const Exact mlp = H * I + I + I * H + H;
  const Exact layer = layer_norm(H) * Exact(2) + (H * H + H) * Exact(4) + mlp;
  Exact total = patch + pos + layer * Exact(s.layers) + layer_norm(H);
  if (head) total += H + (Exact(3) * H * H + Exact(3) * H) + (H * H + H) + layer_norm(H) + mlp;
  return total + H * Exact(text.n_embd) + H;
}

// Llama4VisionModel (modeling_llama4.py): patch_embedding Linear(C.p.p, h)
// without bias, class_embedding (h), positional_embedding_vlm ((image/p)^2 + 1
// rows), layernorm_pre and _post (LayerNorm), per layer q/k/v/o (biased),
// fc1/fc2 (biased), two LayerNorms; vision_adapter fc1 (intermediate_size ->
// projector_input_dim) and fc2 (projector_output_dim square), both without
// bias; Llama4MultiModalProjector linear_1 (vision_output_dim -> text hidden, no bias).
Result<Exact> llama4_vision(Cfg&, Cfg& v, const ModelSpec& text) {
  const FamilyRow r = tower_row(
      "hidden_size=768 intermediate_size=5632 num_hidden_layers=34 num_channels=3 patch_size=14 image_size=448 "
      "vision_output_dim=7680 projector_input_dim=4096 projector_output_dim=4096");
  MC_ASSIGN_OR_RETURN(const VisionShape s, read_vision_shape(v, r));
  MC_ASSIGN_OR_RETURN(const int64_t image, need_int(v, r, "image_size"));
  MC_ASSIGN_OR_RETURN(const int64_t out, need_int(v, r, "vision_output_dim"));
  MC_ASSIGN_OR_RETURN(const int64_t pin, need_int(v, r, "projector_input_dim"));
  MC_ASSIGN_OR_RETURN(const int64_t pout, need_int(v, r, "projector_output_dim"));
  const int64_t p = s.patch;
  const Exact H = s.hidden, I = s.intermediate, side = Exact(image / p);
  const Exact layer = (H * H + H) * Exact(4) + H * I + I + I * H + H + layer_norm(H) * Exact(2);
  const Exact tower = Exact(s.channels) * Exact(p) * Exact(p) * H + H + (side * side + Exact(1)) * H +
                      layer_norm(H) * Exact(2) + layer * Exact(s.layers) + I * Exact(pin) + Exact(pout) * Exact(pout);
  return tower + Exact(out) * Exact(text.n_embd);
}

// The Pixtral tower (modeling_pixtral.py: patch_conv without bias, ln_pre
// RMSNorm, per layer attention_norm and ffn_norm (RMSNorm), q/k/v/o (h x h, no
// bias), a gated MLP without biases) and the Mistral3 projector
// (modeling_mistral3.py: norm RMSNorm(vision h), patch_merger.merging_layer
// (h.s^2 -> h, no bias), linear_1 (h.layers -> text h) and linear_2 (text h
// square), biased by multimodal_projector_bias); the projector's keys are the wrapper's.
Result<Exact> pixtral_mistral3(Cfg& c, Cfg& v, const ModelSpec& text) {
  const FamilyRow r = tower_row(
      "hidden_size=1024 intermediate_size=4096 num_hidden_layers=24 num_channels=3 patch_size=16");
  const FamilyRow wrapper = tower_row("spatial_merge_size=2");
  MC_ASSIGN_OR_RETURN(const VisionShape s, read_vision_shape(v, r));
  MC_ASSIGN_OR_RETURN(const int64_t merge, need_int(c, wrapper, "spatial_merge_size"));
  MC_ASSIGN_OR_RETURN(const bool bias, c.flag("multimodal_projector_bias", false));
  // vision_feature_layer: one layer index, or a list of them (concatenated).
  const nlohmann::json* fl = c.raw("vision_feature_layer");
  const int64_t n_features = fl != nullptr && fl->is_array() && !fl->empty() ? static_cast<int64_t>(fl->size()) : 1;
  const int64_t p = s.patch;
  const Exact H = s.hidden, T = text.n_embd;
  const Exact layer = H + H + Exact(4) * H * H + Exact(3) * H * Exact(s.intermediate);
  const Exact tower = Exact(s.channels) * Exact(p) * Exact(p) * H + H + layer * Exact(s.layers);
  Exact projector = H + H * Exact(merge) * Exact(merge) * H + H * Exact(n_features) * T + T * T;
  if (bias) projector += T + T;
  return tower + projector;
}

// Qwen3VLVisionModel (modeling_qwen3_vl.py), also Qwen3.5's (without the
// deepstack mergers, whose list its configs leave empty): patch_embed Conv3d(C,
// h, [t, p, p]) with bias, pos_embed (num_position_embeddings x h); per block
// norm1/norm2 (LayerNorm), attn.qkv (h -> 3h, biased), attn.proj (biased),
// mlp.linear_fc1/fc2 (biased); merger: LayerNorm(h), linear_fc1 (M -> M) and
// linear_fc2 (M -> out_hidden_size), both biased, M = h x merge^2; each
// deepstack merger the same with LayerNorm(M).
Result<Exact> qwen3_vl_vision(Cfg&, Cfg& v, const ModelSpec& text) {
  const FamilyRow r = tower_row(
      "depth=27 hidden_size=1152 intermediate_size=4304 in_channels=3 patch_size=16 spatial_merge_size=2 "
      "temporal_patch_size=2 out_hidden_size=3584 num_position_embeddings=2304");
  MC_ASSIGN_OR_RETURN(const int64_t depth, need_int(v, r, "depth"));
  MC_ASSIGN_OR_RETURN(const int64_t hidden, need_int(v, r, "hidden_size"));
  MC_ASSIGN_OR_RETURN(const int64_t inter, need_int(v, r, "intermediate_size"));
  MC_ASSIGN_OR_RETURN(const int64_t channels, need_int(v, r, "in_channels"));
  MC_ASSIGN_OR_RETURN(const int64_t patch, need_int(v, r, "patch_size"));
  MC_ASSIGN_OR_RETURN(const int64_t merge, need_int(v, r, "spatial_merge_size"));
  MC_ASSIGN_OR_RETURN(const int64_t temporal, need_int(v, r, "temporal_patch_size"));
  MC_ASSIGN_OR_RETURN(const int64_t out, need_int(v, r, "out_hidden_size"));
  MC_ASSIGN_OR_RETURN(const int64_t positions, need_int(v, r, "num_position_embeddings"));
  const nlohmann::json* ds = v.raw("deepstack_visual_indexes");
  const int64_t deepstack = ds == nullptr ? 3 : ds->is_array() ? static_cast<int64_t>(ds->size()) : 0;
  if (out != text.n_embd) {
    return v.error("out_hidden_size", "must be the language model's hidden_size (" + std::to_string(text.n_embd) + ")");
  }
  const Exact H = hidden, I = inter, M = Exact(hidden) * Exact(merge) * Exact(merge), O = out;
  const Exact patch_embed = Exact(channels) * Exact(temporal) * Exact(patch) * Exact(patch) * H + H;
  const Exact block = layer_norm(H) * Exact(2) + (Exact(3) * H * H + Exact(3) * H) + (H * H + H) + (H * I + I) + (I * H + H);
  const Exact mlp = (M * M + M) + (M * O + O);
  const Exact merger = layer_norm(H) + mlp;
  const Exact deepstack_merger = layer_norm(M) + mlp;
  return patch_embed + Exact(positions) * H + block * Exact(depth) + merger + deepstack_merger * Exact(deepstack);
}

// MoonViT and the Kimi-K2.5 projector (vLLM kimi_k25_vit.py, the engine file
// that loads the checkpoint; transformers has no Kimi-K2.5): patch_embed.proj
// Conv2d(C, h, p) biased by patch_embed_proj_bias, pos_emb weight
// (init_pos_emb_height x width x h; its time table a buffer); per block
// norm0/norm1 (LayerNorm, or RMSNorm for norm_type rmsnorm), wqkv (h -> 3q,
// q = qkv_hidden_size, biased by attn_bias), wo (q -> h), mlp fc0/fc1 (biased by
// linear_bias); final_layernorm. Projector "patchmerger": pre_norm LayerNorm(h),
// linear_1 (M -> M) and linear_2 (M -> text h), both biased, M = h x kh x kw;
// "patchmergerv2": linear_1, linear_2 without bias and post_norm RMSNorm(text h).
Result<Exact> moonvit(Cfg&, Cfg& v, const ModelSpec& text) {
  const FamilyRow r = tower_row(
      "hidden_size=1152 intermediate_size=4304 num_hidden_layers=27 num_channels=3 patch_size=14 "
      "init_pos_emb_height=64 init_pos_emb_width=64");
  Cfg& w = v;
  w.alias("hidden_size", "vt_hidden_size");
  w.alias("intermediate_size", "vt_intermediate_size");
  w.alias("num_hidden_layers", "vt_num_hidden_layers");
  MC_ASSIGN_OR_RETURN(const int64_t hidden, need_int(w, r, "hidden_size"));
  MC_ASSIGN_OR_RETURN(const int64_t inter, need_int(w, r, "intermediate_size"));
  MC_ASSIGN_OR_RETURN(const int64_t layers, need_int(w, r, "num_hidden_layers"));
  MC_ASSIGN_OR_RETURN(const int64_t channels, need_int(w, r, "num_channels"));
  MC_ASSIGN_OR_RETURN(const int64_t patch, need_int(w, r, "patch_size"));
  MC_ASSIGN_OR_RETURN(const int64_t pos_h, need_int(w, r, "init_pos_emb_height"));
  MC_ASSIGN_OR_RETURN(const int64_t pos_w, need_int(w, r, "init_pos_emb_width"));
  MC_ASSIGN_OR_RETURN(auto qkv_opt, w.opt("qkv_hidden_size", std::nullopt));
  MC_ASSIGN_OR_RETURN(const bool patch_bias, w.flag("patch_embed_proj_bias", true));
  MC_ASSIGN_OR_RETURN(const bool attn_bias, w.flag("attn_bias", true));
  MC_ASSIGN_OR_RETURN(const bool linear_bias, w.flag("linear_bias", true));
  MC_ASSIGN_OR_RETURN(auto norm_type, w.str("norm_type"));
  MC_ASSIGN_OR_RETURN(auto projector, w.str("mm_projector_type"));
  MC_ASSIGN_OR_RETURN(const std::vector<int64_t> merge, w.int_list("merge_kernel_size"));
  const Norm norm = norm_type && *norm_type == "rmsnorm" ? Norm::kRms : Norm::kLayer;
  if (norm_type && *norm_type != "rmsnorm" && *norm_type != "layernorm") {
    return w.error("norm_type", "'" + *norm_type + "' is not a norm MoonViT builds (layernorm, rmsnorm)");
  }
  const int64_t kh = merge.size() == 2 ? merge[0] : 2, kw = merge.size() == 2 ? merge[1] : 2;
  const Exact H = hidden, I = inter, Q = qkv_opt.value_or(hidden), T = text.n_embd;
  const Exact M = H * Exact(kh) * Exact(kw);
  const Exact patch_embed = Exact(channels) * Exact(patch) * Exact(patch) * H + (patch_bias ? H : Exact(0));
  const Exact block = norm_params(norm, H) * Exact(2) + H * Exact(3) * Q + Q * H +
                      (attn_bias ? Exact(3) * Q + H : Exact(0)) + H * I + I * H + (linear_bias ? I + H : Exact(0));
  const Exact tower = patch_embed + Exact(pos_h) * Exact(pos_w) * H + block * Exact(layers) + norm_params(norm, H);
  if (!projector || *projector == "patchmerger") return tower + layer_norm(H) + (M * M + M) + (M * T + T);
  if (*projector == "patchmergerv2") return tower + M * M + M * T + T;
  return w.error("mm_projector_type", "'" + *projector + "' is not a projector the reader knows (patchmerger, patchmergerv2)");
}

// Gemma4VisionModel and Gemma4MultimodalEmbedder (modeling_gemma4.py): patch_embedder.input_proj
// (3 p^2 -> h, no bias) and position_embedding_table (2 x position_embedding_size x h); per layer
// q/k/v/o (no bias; kv heads of head_dim), q_norm and k_norm (head_dim; v_norm has no weight), a gated
// MLP without biases, four RMSNorms; embed_vision.embedding_projection (h -> text h, no bias; its
// pre-norm has no weight).
Result<Exact> gemma4_vision(Cfg&, Cfg& v, const ModelSpec& text) {
  const FamilyRow r = tower_row(
      "hidden_size=768 intermediate_size=3072 num_hidden_layers=16 num_attention_heads=12 num_key_value_heads=12 "
      "head_dim=64 patch_size=16 position_embedding_size=10240");
  MC_ASSIGN_OR_RETURN(const int64_t hidden, need_int(v, r, "hidden_size"));
  MC_ASSIGN_OR_RETURN(const int64_t inter, need_int(v, r, "intermediate_size"));
  MC_ASSIGN_OR_RETURN(const int64_t layers, need_int(v, r, "num_hidden_layers"));
  MC_ASSIGN_OR_RETURN(const int64_t heads, need_int(v, r, "num_attention_heads"));
  MC_ASSIGN_OR_RETURN(const int64_t kv, need_int(v, r, "num_key_value_heads"));
  MC_ASSIGN_OR_RETURN(const int64_t hd, need_int(v, r, "head_dim"));
  MC_ASSIGN_OR_RETURN(const int64_t patch, need_int(v, r, "patch_size"));
  MC_ASSIGN_OR_RETURN(const int64_t positions, need_int(v, r, "position_embedding_size"));
  MC_ASSIGN_OR_RETURN(const bool bias, v.flag("attention_bias", false));
  if (bias) return v.error("attention_bias", "true is not a Gemma 4 vision tower this reader counts");
  const Exact H = hidden, I = inter, q = Exact(heads) * Exact(hd), k = Exact(kv) * Exact(hd);
  const Exact layer = H * q + Exact(2) * H * k + q * H + Exact(2) * Exact(hd) + Exact(3) * H * I + Exact(4) * H;
  return Exact(3) * Exact(patch) * Exact(patch) * H + Exact(2) * Exact(positions) * H + layer * Exact(layers) +
         H * Exact(text.n_embd);
}

// Gemma3nMultimodalEmbedder (modeling_gemma3n.py): embedding (vocab_size x the tower's hidden_size),
// hard_embedding_norm and soft_embedding_norm (RMSNorm of that width), embedding_projection to the text
// width; embedding_post_projection_norm has no weight.
Result<Exact> gemma3n_embedder(Cfg& t, const FamilyRow& r, const ModelSpec& text) {
  MC_ASSIGN_OR_RETURN(const int64_t vocab, need_int(t, r, "vocab_size"));
  MC_ASSIGN_OR_RETURN(const int64_t hidden, need_int(t, r, "hidden_size"));
  const Exact H = hidden;
  return Exact(vocab) * H + Exact(2) * H + H * Exact(text.n_embd);
}

// Gemma 3n's vision tower: timm's MobileNetV5 encoder named by vision_config.architecture (the
// TimmWrapperModel transformers builds), and embed_vision. timm's mobilenetv5_300m_enc
// (timm/models/mobilenetv5.py, its blocks in _efficientnet_blocks.py and layers/attention2d.py), block
// by block: the stem (conv 3 -> 64, 3 x 3, biased, RmsNorm2d) 1,856; stage 0, 3 EdgeResidual blocks,
// 1,492,608; stage 1, 5 universal inverted residuals, 2,439,168; stage 2, 9 of them then 14 x (multi-query
// attention, 12 heads of 64, keys and values strided by 2, then an inverted residual) 63,407,744; stage 3,
// 1 then 19 x (multi-query attention, 16 heads of 96, then an inverted residual) 211,540,480; the
// multi-scale fusion adapter (1920 -> 3840 -> 2048 with its norms, and a norm of 2048) 15,245,056:
// 294,126,912, its output 2048 wide. Any other architecture, or model_args reshaping it, is refused.
constexpr int64_t kMobileNetV5_300m = 294'126'912;

Result<Exact> mobilenetv5(Cfg&, Cfg& v, const ModelSpec& text) {
  const FamilyRow r = tower_row("vocab_size=128 hidden_size=2048");
  MC_ASSIGN_OR_RETURN(auto arch, v.str("architecture"));
  if (!arch || *arch != "mobilenetv5_300m_enc") {
    return v.error("architecture", "is '" + arch.value_or("none") + "'; the MobileNetV5 encoder counted is "
                                   "timm's mobilenetv5_300m_enc");
  }
  if (v.has_value("model_args")) return v.error("model_args", "reshapes the timm encoder; not counted");
  MC_ASSIGN_OR_RETURN(const int64_t hidden, need_int(v, r, "hidden_size"));
  if (hidden != 2048) return v.error("hidden_size", "must be mobilenetv5_300m_enc's 2048 output channels");
  MC_ASSIGN_OR_RETURN(const Exact embedder, gemma3n_embedder(v, r, text));
  return Exact(kMobileNetV5_300m) + embedder;
}

// Gemma3nAudioEncoder (modeling_gemma3n.py), D = hidden_size: the subsample conv projection (two Conv2d of
// sscp_conv_kernel_size without bias, each with a channel norm, padded (1, 1) on the frequency axis, then
// input_proj_linear from channels x frequencies to D); per conformer layer (conf_num_hidden_layers) two
// feed-forward halves (pre norm, D -> 4D, 4D -> D, post norm), the attention (pre norm, relative
// pos_proj D x D, per_dim_scale of a head, q, k, v and post D x D, post norm), the light conv (pre norm,
// linear_start D -> 2D, a depthwise conv of conf_conv_kernel_size, conv norm, linear_end D x D) and the
// block norm; then embed_audio.
Result<Exact> gemma3n_audio(Cfg& a, const ModelSpec& text) {
  const FamilyRow r = tower_row("vocab_size=128 hidden_size=1536 input_feat_size=128 conf_num_hidden_layers=12 "
                                "conf_num_attention_heads=8 conf_conv_kernel_size=5");
  MC_ASSIGN_OR_RETURN(const int64_t D, need_int(a, r, "hidden_size"));
  MC_ASSIGN_OR_RETURN(const int64_t feat, need_int(a, r, "input_feat_size"));
  MC_ASSIGN_OR_RETURN(const int64_t layers, need_int(a, r, "conf_num_hidden_layers"));
  MC_ASSIGN_OR_RETURN(const int64_t heads, need_int(a, r, "conf_num_attention_heads"));
  MC_ASSIGN_OR_RETURN(const int64_t kernel, need_int(a, r, "conf_conv_kernel_size"));
  if (D % heads != 0) return a.error("conf_num_attention_heads", "must divide hidden_size");
  MC_ASSIGN_OR_RETURN(auto channels, a.int_list("sscp_conv_channel_size"));
  if (channels.empty()) channels = {128, 32};
  const nlohmann::json* ks = a.raw("sscp_conv_kernel_size");
  const nlohmann::json* ss = a.raw("sscp_conv_stride_size");
  std::vector<std::pair<int64_t, int64_t>> kernels(channels.size(), {3, 3}), strides(channels.size(), {2, 2});
  auto pairs = [&](const nlohmann::json* j, std::string_view key, std::vector<std::pair<int64_t, int64_t>>& out)
      -> Status {
    if (j == nullptr || j->is_null()) return Status::Ok();
    if (!j->is_array() || j->size() != channels.size()) {
      return a.error(key, "must list one [time, frequency] pair per sscp_conv_channel_size entry");
    }
    for (size_t i = 0; i < j->size(); ++i) {
      const nlohmann::json& e = (*j)[i];
      if (!e.is_array() || e.size() != 2 || !e[0].is_number_integer() || !e[1].is_number_integer() ||
          e[0].get<int64_t>() < 1 || e[1].get<int64_t>() < 1 || e[0].get<int64_t>() > 64 || e[1].get<int64_t>() > 64) {
        return a.error(key, "entry " + std::to_string(i) + " must be a pair of sizes from 1 to 64");
      }
      out[i] = {e[0].get<int64_t>(), e[1].get<int64_t>()};
    }
    return Status::Ok();
  };
  MC_RETURN_IF_ERROR(pairs(ks, "sscp_conv_kernel_size", kernels));
  MC_RETURN_IF_ERROR(pairs(ss, "sscp_conv_stride_size", strides));
  Exact sscp = 0;
  int64_t in = 1, freq = feat;
  for (size_t i = 0; i < channels.size(); ++i) {
    const auto [kt, kf] = kernels[i];
    const int64_t out = channels[i];
    if (out < 1) return a.error("sscp_conv_channel_size", "entries must be positive");
    sscp += Exact(in) * Exact(out) * Exact(kt) * Exact(kf) + Exact(out);  // conv weight, its channel norm
    freq = (freq + 2 - kf) / strides[i].second + 1;                    // padded (1, 1)
    if (freq < 1) return a.error("input_feat_size", "leaves no frequencies after the subsampling convolutions");
    in = out;
  }
  const Exact d = D;
  sscp += Exact(in) * Exact(freq) * d;  // input_proj_linear
  const Exact ffw = Exact(2) * d + Exact(8) * d * d;
  const Exact attention = Exact(5) * d * d + Exact(2) * d + Exact(D / heads);
  const Exact lconv = Exact(3) * d * d + Exact(kernel + 2) * d;
  const Exact block = Exact(2) * ffw + attention + lconv + d;
  MC_ASSIGN_OR_RETURN(const Exact embedder, gemma3n_embedder(a, r, text));
  return sscp + block * Exact(layers) + embedder;
}

}  // namespace

Result<Exact> count_audio_tower(AudioTower t, Cfg& a, const ModelSpec& text) {
  switch (t) {
    case AudioTower::kGemma3n: return gemma3n_audio(a, text);
    case AudioTower::kNone: break;
  }
  return a.error("audio_config", "an audio tower is not counted by this reader");
}

std::string_view tower_type(Tower t) {
  switch (t) {
    case Tower::kNone: return "";
    case Tower::kSiglipGemma3: return "siglip_vision_model";
    case Tower::kLlama4: return "llama4_vision_model";
    case Tower::kPixtral: return "pixtral";
    case Tower::kQwen3Vl: return "qwen3_vl";
    case Tower::kGemma4: return "gemma4_vision";
    case Tower::kMoonVit: return "moonvit";
    case Tower::kMobileNetV5: return "gemma3n_vision";
  }
  return "";
}

Result<Exact> count_tower(Tower t, Cfg& c, Cfg& v, const ModelSpec& text) {
  switch (t) {
    case Tower::kSiglipGemma3: return siglip_gemma3(c, v, text);
    case Tower::kLlama4: return llama4_vision(c, v, text);
    case Tower::kPixtral: return pixtral_mistral3(c, v, text);
    case Tower::kQwen3Vl: return qwen3_vl_vision(c, v, text);
    case Tower::kMoonVit: return moonvit(c, v, text);
    case Tower::kGemma4: return gemma4_vision(c, v, text);
    case Tower::kMobileNetV5: return mobilenetv5(c, v, text);
    case Tower::kNone: break;
  }
  return c.error("vision_config", "its tower is not counted by this reader");
}

}  // namespace modelcalc::hf
