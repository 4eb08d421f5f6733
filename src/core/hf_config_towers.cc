// Vision towers with their projectors, counted into params_vision beside the
// language model's total (never in it). Each tower is the modeling code's
// vision class; its keys are read with that config class's defaults.
#include <string>

#include "hf_decoder.h"

namespace modelcalc::hf {
namespace {

// The vision config's defaults as a pseudo-row (get_int / need_int read them).
FamilyRow tower_row(std::string_view defaults, std::string_view aliases = {}) {
  FamilyRow r;
  r.model_type = "vision";
  r.defaults = defaults;
  r.aliases = aliases;
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

}  // namespace

std::string_view tower_type(Tower t) {
  switch (t) {
    case Tower::kNone: return "";
    case Tower::kSiglipGemma3: return "siglip_vision_model";
    case Tower::kLlama4: return "llama4_vision_model";
    case Tower::kPixtral: return "pixtral";
    case Tower::kQwen3Vl: return "qwen3_vl";
    case Tower::kGemma4: return "gemma4_vision";
    case Tower::kMoonVit: return "moonvit";
  }
  return "";
}

Result<Exact> count_tower(Tower t, Cfg& c, Cfg& v, const ModelSpec& text) {
  switch (t) {
    case Tower::kSiglipGemma3: return siglip_gemma3(c, v, text);
    case Tower::kLlama4: return llama4_vision(c, v, text);
    case Tower::kPixtral: return pixtral_mistral3(c, v, text);
    case Tower::kNone:
    case Tower::kQwen3Vl:
    case Tower::kGemma4:
    case Tower::kMoonVit: break;
  }
  return c.error("vision_config", "its tower is not counted by this reader");
}

}  // namespace modelcalc::hf
