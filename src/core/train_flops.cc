// Training FLOPs per token, and the per-layer parameter classes the training
// engine shares (train_layers.h).
#include <string_view>

#include "modelcalc/training.h"
#include "train_layers.h"

namespace modelcalc {
namespace train_internal {

namespace {

// The norm before the lm_head, recovered from the breakdown's one `norms`
// field: the LayerNorm families (weight and bias, 2d) or RMSNorm (d); the
// first candidate that leaves the layers an equal share. hf_arch_classic.cc
// builds gpt2, phi, falcon, opt, gpt_neox and bloom with nn.LayerNorm; every
// other reader builds RMSNorms (BLOOM's embedding LayerNorm is counted with
// its final one: 4d). Shapes typed as flags carry no norms.
int64_t final_norm_params(const ModelSpec& m, int64_t norms) {
  if (norms == 0) return 0;
  const std::string_view t = m.model_type;
  const bool layer_norm = t == "gpt2" || t == "phi" || t == "falcon" || t == "opt" || t == "gpt_neox" || t == "bloom";
  const int64_t d = m.n_embd;
  const int64_t rms[] = {d, 0};
  const int64_t ln[] = {2 * d, 4 * d, 0};
  const int64_t* c = layer_norm ? ln : rms;
  const int n = layer_norm ? 3 : 2;
  for (int i = 0; i < n; ++i) {
    if (norms >= c[i] && (norms - c[i]) % m.n_layer == 0) return c[i];
  }
  return norms % m.n_layer;  // no family fits: an equal share per layer, the rest last
}

}  // namespace

Result<LayerParams> layer_params(const ModelSpec& m) {
  MC_ASSIGN_OR_RETURN(const ParamBreakdown p, param_breakdown(m));
  const int64_t L = m.n_layer;
  const int64_t n_moe = m.n_moe_layers(), n_dense = L - n_moe;
  LayerParams l;
  int64_t rest = 0;  // what a kind's layers do not divide evenly: on the last stage
  auto share = [&rest](int64_t total, int64_t layers) {
    if (layers <= 0) {
      rest += total;
      return int64_t{0};
    }
    rest += total % layers;
    return total / layers;
  };
  l.attention = share(p.attention, L);
  if (m.is_mla()) {
    const Exact repl = Exact(m.n_embd) * Exact(m.n_lora_kv + m.n_rot) +
                       (m.n_lora_q > 0 ? Exact(m.n_embd) * Exact(m.n_lora_q) : Exact(0));
    if (repl.overflow()) return Status::Overflow("model shape");
    l.attention_replicated = repl.value() < l.attention ? repl.value() : l.attention;
  }
  l.dense_ffn = share(p.mlp_dense, n_dense);
  l.routed = share(p.mlp_routed, n_moe);
  l.routed_active = n_moe > 0 ? p.mlp_routed_active / n_moe : 0;  // not a part of the total
  l.shared = share(p.mlp_shared, n_moe);
  l.router = share(p.router, n_moe);
  const int64_t final_norm = final_norm_params(m, p.norms);
  l.norms = share(p.norms - final_norm, L);
  l.biases = share(p.biases, L);
  l.final_norm = final_norm + rest;
  l.embeddings = p.embeddings;
  l.position = p.position;
  l.lm_head = p.lm_head;
  return l;
}

double keys_per_query(const ModelSpec& m, int64_t il, int64_t s, bool causal) {
  const double S = static_cast<double>(s);
  const bool window = m.is_swa_layer(il) && m.n_swa < s;
  const double W = window ? static_cast<double>(m.n_swa) : S;
  if (!causal) return W;
  if (!window) return (S + 1.0) / 2.0;
  return (W * (W + 1.0) / 2.0 + (S - W) * W) / S;
}

}  // namespace train_internal

Result<TrainFlopsPerToken> training_flops_per_token(const ModelSpec& m, int64_t seq, Recompute rc,
                                                    AttentionCount count) {
  using train_internal::keys_per_query;
  MC_RETURN_IF_ERROR(validate(m));
  if (seq <= 0) return Status::InvalidArgument("seq", "must be a positive number of tokens");
  MC_ASSIGN_OR_RETURN(const ParamBreakdown p, param_breakdown(m));
  MC_ASSIGN_OR_RETURN(const train_internal::LayerParams l, train_internal::layer_params(m));
  const double L = static_cast<double>(m.n_layer);
  const double n_moe = static_cast<double>(m.n_moe_layers()), n_dense = L - n_moe;
  TrainFlopsPerToken f;
  f.six_n = 6.0 * static_cast<double>(p.active());
  f.linear = 6.0 * (L * static_cast<double>(l.attention) + n_dense * static_cast<double>(l.dense_ffn) +
                    n_moe * static_cast<double>(l.routed_active + l.shared + l.router));
  double keys = 0;  // summed over layers: a full layer and a window layer each once, times their counts
  const int64_t n_swa = m.n_swa_layers();
  const bool causal = count == AttentionCount::kCausal;
  if (n_swa < m.n_layer) {
    int64_t full_il = 0;
    while (m.is_swa_layer(full_il)) ++full_il;
    keys += static_cast<double>(m.n_layer - n_swa) * keys_per_query(m, full_il, seq, causal);
  }
  if (n_swa > 0) {
    int64_t swa_il = 0;
    while (!m.is_swa_layer(swa_il)) ++swa_il;
    keys += static_cast<double>(n_swa) * keys_per_query(m, swa_il, seq, causal);
  }
  const double h = static_cast<double>(m.n_head);
  const double dkv = static_cast<double>(train_internal::head_dim_k(m) + train_internal::head_dim_v(m));
  f.attention = 6.0 * h * dkv * keys;
  f.lm_head = 6.0 * static_cast<double>(m.n_vocab) * static_cast<double>(m.n_embd);
  f.model = f.linear + f.attention + f.lm_head;
  f.recompute = rc == Recompute::kFull ? (f.linear + f.attention) / 3.0
                : rc == Recompute::kSelective ? f.attention / 3.0
                                              : 0.0;
  f.hardware = f.model + f.recompute;
  return f;
}

}  // namespace modelcalc
