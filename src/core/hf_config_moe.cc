// Mixture-of-experts keys under their common names: how many experts, how
// many a token uses, their width, the shared experts, and which layers are MoE
// (first_k_dense_replace, mlp_only_layers, decoder_sparse_step,
// moe_layer_freq, moe_layers, interleave_moe_layer_step, expert_layer_period,
// mlp_layer_types). The family row adds what no key states: a shared-expert
// gate, expert and router biases, intermediate_size being the experts' width.
#include <algorithm>
#include <charconv>
#include <string>

#include "hf_decoder.h"

namespace modelcalc::hf {
namespace {

constexpr std::string_view kExpertKeys[] = {"n_routed_experts", "num_local_experts", "num_experts", "moe_num_experts"};
constexpr std::string_view kTopKKeys[] = {"num_experts_per_tok", "num_experts_per_token", "top_k_experts",
                                          "moe_topk", "experts_per_token"};
constexpr std::string_view kExpertWidthKeys[] = {"moe_intermediate_size", "expert_intermediate_size"};
constexpr std::string_view kSharedCountKeys[] = {"n_shared_experts", "num_shared_experts"};
constexpr std::string_view kSharedWidthKeys[] = {"shared_expert_intermediate_size",
                                                 "moe_shared_expert_intermediate_size", "share_expert_dim",
                                                 "shared_intermediate_size"};
// Keys that place MoE layers; marked used when the model has no experts.
constexpr std::string_view kPlacementKeys[] = {"first_k_dense_replace", "mlp_only_layers", "decoder_sparse_step",
                                               "moe_layer_freq", "moe_layers", "moe_layers_enum",
                                               "interleave_moe_layer_step",
                                               "expert_layer_period", "expert_layer_offset", "mlp_layer_types",
                                               "moe_layer_end_index"};

void mark_all(const Cfg& c, std::span<const std::string_view> keys) {
  for (std::string_view k : keys) c.mark_used(k);
}

// The shared experts: count x width, the width a shared-width key gives, else the experts'.
Status read_shared(Cfg& c, const FamilyRow& row, Decoder& a) {
  MC_ASSIGN_OR_RETURN(auto count, first_int(c, row, kSharedCountKeys));
  MC_ASSIGN_OR_RETURN(auto width, first_int(c, row, kSharedWidthKeys));
  a.n_shared = count.value_or(width ? 1 : 0);
  a.ff_shexp = width ? *width : a.ff_exp;
  if (a.ff_shexp == 0) a.n_shared = 0;
  if (a.n_shared == 0) a.ff_shexp = 0;
  a.shared_gate = row.shared_gate && a.n_shared > 0;
  return Status::Ok();
}

}  // namespace

Status read_moe(Cfg& c, const FamilyRow& row, Decoder& a) {
  MC_ASSIGN_OR_RETURN(auto experts, first_int(c, row, kExpertKeys));
  MC_ASSIGN_OR_RETURN(auto top_k, first_int(c, row, kTopKKeys));
  MC_ASSIGN_OR_RETURN(const bool enabled, c.flag("enable_moe_block", true));
  a.n_expert = enabled ? experts.value_or(0) : 0;
  if (a.n_expert <= 1 && row.has(kQuirkOneExpertIsDense)) a.n_expert = 0;
  if (a.n_expert == 0) {
    mark_all(c, kExpertWidthKeys);
    mark_all(c, kSharedCountKeys);
    mark_all(c, kSharedWidthKeys);
    mark_all(c, kPlacementKeys);
    c.mark_used("moe_latent_size");
    return Status::Ok();
  }
  if (!top_k || *top_k < 1) return c.error(kTopKKeys[0], "missing; a model with experts needs experts per token");
  a.top_k = *top_k;
  if (a.top_k > a.n_expert) return c.error(c.spelled(kTopKKeys[0]), "exceeds the number of experts");
  if (row.ff_is_expert) {
    MC_ASSIGN_OR_RETURN(a.ff_exp, need_int(c, row, "intermediate_size"));
    mark_all(c, kExpertWidthKeys);
  } else {
    MC_ASSIGN_OR_RETURN(auto w, first_int(c, row, kExpertWidthKeys, 1));
    if (!w) return c.error(kExpertWidthKeys[0], "missing; model_type '" + c.model_type() + "' needs it");
    a.ff_exp = *w;
  }
  a.expert_bias = row.expert_bias;
  a.router_bias = row.router_bias || row.score_bias_parameter;  // either holds E values a layer
  a.router_score_bias = row.score_bias;
  a.router_scales = row.router_scales;
  a.moe_norms = row.moe_norms;
  MC_ASSIGN_OR_RETURN(auto latent, get_int(c, row, "moe_latent_size"));
  a.moe_latent = latent.value_or(0);
  for (std::string_view k : {"use_routing_bias", "use_moe_router_bias"}) {
    MC_ASSIGN_OR_RETURN(const bool b, c.flag(k, false));
    a.router_score_bias = a.router_score_bias || b;
  }
  MC_RETURN_IF_ERROR(read_shared(c, row, a));
  if (row.dense_beside_moe) {  // Gemma 4: the dense MLP (intermediate_size) beside the experts, always active
    if (a.n_shared > 0) return c.error(kSharedCountKeys[0], "and a dense MLP beside the experts both set");
    MC_ASSIGN_OR_RETURN(a.ff_shexp, need_int(c, row, "intermediate_size"));
    a.n_shared = 1;
  }
  return Status::Ok();
}

namespace {

// One entry per layer from a list key (mlp_layer_types names, or moe_layer_freq's 0/1).
Status moe_from_list(Cfg& c, const FamilyRow& row, std::string_view key, Decoder& a) {
  const nlohmann::json* v = c.raw(key);
  if (!v->is_array()) return c.error(c.spelled(key), "expected a list, one entry per layer");
  const int64_t n = static_cast<int64_t>(v->size());
  MC_ASSIGN_OR_RETURN(auto mtp, c.opt("num_nextn_predict_layers", 0, 0));
  const bool covers_mtp = row.pattern_covers_mtp && n == a.layers + mtp.value_or(0);
  if (n != a.layers && !covers_mtp) {
    return c.error(c.spelled(key), "lists " + std::to_string(n) + " layers; num_hidden_layers is " +
                                       std::to_string(a.layers));
  }
  for (int64_t il = 0; il < a.layers; ++il) {
    const nlohmann::json& e = (*v)[static_cast<size_t>(il)];
    bool moe = false;
    if (e.is_string()) {
      const std::string s = e.get<std::string>();
      if (s != "dense" && s != "sparse" && s != "moe" && s != "hash_moe") {
        return c.error(c.spelled(key), "entry " + std::to_string(il) + " is '" + s +
                                           "'; allowed: dense, sparse, moe, hash_moe");
      }
      moe = s != "dense";
    } else if (e.is_number_integer() && (e.get<int64_t>() == 0 || e.get<int64_t>() == 1)) {
      moe = e.get<int64_t>() == 1;
    } else {
      return c.error(c.spelled(key), "entry " + std::to_string(il) + " must be 0 or 1, or a layer-type name");
    }
    a.kinds[static_cast<size_t>(il)].ffn = moe ? Ffn::kMoe : Ffn::kDense;
  }
  return Status::Ok();
}

// moe_layers, or Step's moe_layers_enum (a list, or the indices comma-separated in a string).
Result<std::vector<int64_t>> moe_layer_list(Cfg& c) {
  const nlohmann::json* e = c.raw("moe_layers_enum");
  if (e == nullptr || !e->is_string()) {
    if (e != nullptr && !e->is_null()) return c.int_list("moe_layers_enum");
    return c.int_list("moe_layers");
  }
  std::vector<int64_t> out;
  const std::string text = e->get<std::string>();
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t end = std::min(text.find(',', pos), text.size());
    std::string item = text.substr(pos, end - pos);
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    if (!item.empty()) {
      int64_t v = 0;
      const auto r = std::from_chars(item.data(), item.data() + item.size(), v);
      if (r.ec != std::errc() || r.ptr != item.data() + item.size() || v < 0) {
        return c.error("moe_layers_enum", "must list layer indices, got '" + item + "'");
      }
      out.push_back(v);
    }
    pos = end + 1;
  }
  return out;
}

// The last layer that may be MoE (moe_layer_end_index, Ernie 4.5): absent, null or -1 is the last layer.
Result<int64_t> moe_last_layer(Cfg& c, const FamilyRow& row, const Decoder& a) {
  MC_ASSIGN_OR_RETURN(auto end, get_int(c, row, "moe_layer_end_index", -1));
  if (!end || *end == -1) return a.layers - 1;
  if (*end >= a.layers) return c.error("moe_layer_end_index", "names layer " + std::to_string(*end) + " of " + std::to_string(a.layers));
  return *end;
}

// The rules that combine: dense first k, listed dense layers, every step-th layer, a period, a last layer.
// REQUIRES: last = moe_last_layer(c, row, a).
Status moe_from_rules(Cfg& c, const FamilyRow& row, int64_t last, Decoder& a) {
  MC_ASSIGN_OR_RETURN(auto first_opt, get_int(c, row, "first_k_dense_replace", 0));
  const int64_t first = first_opt.value_or(0);
  if (first > a.layers) return c.error("first_k_dense_replace", "exceeds num_hidden_layers");
  MC_ASSIGN_OR_RETURN(auto dense, c.int_list("mlp_only_layers"));
  MC_ASSIGN_OR_RETURN(auto step_opt, get_int(c, row, "decoder_sparse_step"));
  MC_ASSIGN_OR_RETURN(auto inter_opt, get_int(c, row, "interleave_moe_layer_step"));
  MC_ASSIGN_OR_RETURN(auto freq_opt, get_int(c, row, "moe_layer_freq"));
  MC_ASSIGN_OR_RETURN(auto period_opt, get_int(c, row, "expert_layer_period"));
  MC_ASSIGN_OR_RETURN(auto offset_opt, get_int(c, row, "expert_layer_offset", 0));
  MC_ASSIGN_OR_RETURN(auto listed, moe_layer_list(c));
  const int64_t step = step_opt.value_or(1), inter = inter_opt.value_or(1), freq = freq_opt.value_or(1);
  const int64_t period = period_opt.value_or(1), offset = offset_opt.value_or(0);
  if (offset >= period) return c.error("expert_layer_offset", "must be below expert_layer_period");
  for (int64_t il : dense) {
    if (il >= a.layers) return c.error("mlp_only_layers", "names layer " + std::to_string(il) + " of " + std::to_string(a.layers));
  }
  for (int64_t il : listed) {
    if (il >= a.layers) return c.error("moe_layers", "names layer " + std::to_string(il) + " of " + std::to_string(a.layers));
  }
  for (int64_t il = 0; il < a.layers; ++il) {
    bool moe = il >= first && il <= last && (il + 1) % step == 0 && il % freq == 0 && il % period == offset;
    moe = moe && std::find(dense.begin(), dense.end(), il) == dense.end();
    moe = listed.empty() ? moe && (il + 1) % inter == 0 : std::find(listed.begin(), listed.end(), il) != listed.end();
    LayerKind& k = a.kinds[static_cast<size_t>(il)];
    if (k.ffn != Ffn::kNone) k.ffn = moe ? Ffn::kMoe : Ffn::kDense;
  }
  return Status::Ok();
}

}  // namespace

Status place_moe_layers(Cfg& c, const FamilyRow& row, Decoder& a) {
  if (a.n_expert == 0 || a.ffn_placed) {
    mark_all(c, kPlacementKeys);
    return Status::Ok();
  }
  const nlohmann::json* freq = c.raw("moe_layer_freq");
  const bool freq_list = freq != nullptr && freq->is_array();
  const bool types = c.has_value("mlp_layer_types");
  // A uniform model whose only rule is the dense lead keeps the closed form (no per-layer array).
  const bool simple = a.kinds.empty() && !freq_list && !types && !c.has_value("mlp_only_layers") &&
                      !c.has_value("moe_layers") && !c.has_value("moe_layers_enum") && !c.has_value("expert_layer_period") &&
                      !row_value(row.defaults, "expert_layer_period") && !c.has_value("interleave_moe_layer_step");
  MC_ASSIGN_OR_RETURN(auto step, get_int(c, row, "decoder_sparse_step"));
  MC_ASSIGN_OR_RETURN(const int64_t last, moe_last_layer(c, row, a));
  MC_ASSIGN_OR_RETURN(auto f, freq_list ? Result<std::optional<int64_t>>(std::optional<int64_t>())
                                        : get_int(c, row, "moe_layer_freq"));
  if (simple && step.value_or(1) == 1 && f.value_or(1) == 1 && last == a.layers - 1) {
    MC_ASSIGN_OR_RETURN(auto first, get_int(c, row, "first_k_dense_replace", 0));
    a.dense_lead = first.value_or(0);
    if (a.dense_lead > a.layers) return c.error("first_k_dense_replace", "exceeds num_hidden_layers");
    return Status::Ok();
  }
  MC_RETURN_IF_ERROR(materialize_kinds(c, a));
  if (types) {
    c.mark_used("first_k_dense_replace");  // the list states every layer
    return moe_from_list(c, row, "mlp_layer_types", a);
  }
  if (freq_list) {
    c.mark_used("first_k_dense_replace");  // the list states every layer
    return moe_from_list(c, row, "moe_layer_freq", a);
  }
  return moe_from_rules(c, row, last, a);
}

}  // namespace modelcalc::hf
