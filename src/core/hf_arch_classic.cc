// LayerNorm models with biased linears: gpt2, phi, falcon, opt, gpt_neox,
// bloom. Each builder reads its keys with the defaults of transformers'
// configuration_<type>.py and counts what modeling_<type>.py builds.
// nn.LayerNorm(n) holds 2n parameters (weight and bias); nn.Linear(i, o)
// holds i*o plus o when biased. Buffers (GPT-2's causal mask, rotary
// inv_freq, BLOOM's ALiBi slopes) are not parameters.
#include <string>

#include "hf_reader.h"

namespace modelcalc::hf {
namespace {

// The shape fields every model here fills the same way: plain MHA (or MQA/GQA
// via kv_heads), ungated FFN, no MoE.
ModelSpec plain_shape(const Cfg& c, int64_t d, int64_t layers, int64_t heads, int64_t kv_heads,
                      int64_t ff, int64_t vocab, bool tied, int64_t ctx) {
  ModelSpec m;
  m.model_type = c.model_type();
  m.n_layer = layers;
  m.n_embd = d;
  m.n_head = heads;
  m.n_head_kv = kv_heads;
  m.n_embd_head = d / heads;
  m.n_ff = ff;
  m.ffn_gated = false;
  m.n_vocab = vocab;
  m.tied_embeddings = tied;
  m.n_ctx_train = ctx;
  return m;
}

Status heads_divide(const Cfg& c, std::string_view heads_key, int64_t d, int64_t heads) {
  if (d % heads != 0) {
    return c.error(heads_key, "must divide the hidden size (" + std::to_string(d) + "), got " +
                                  std::to_string(heads));
  }
  return Status::Ok();
}

// Attaches the counts; fails on overflow.
Result<ModelSpec> with_counts(ModelSpec m, const Counts& counts) {
  MC_ASSIGN_OR_RETURN(auto exact, counts.finish(m.model_type));
  m.exact = exact;
  return m;
}

// One LayerNorm block of two linears d->ff->d, all biased (GPT-2 Conv1D,
// phi fc1/fc2, OPT fc1/fc2, NeoX and BLOOM dense_h_to_4h/dense_4h_to_h).
void add_mlp(Counts& c, Exact d, Exact ff, Exact L, bool bias) {
  c.mlp_dense += Exact(2) * d * ff * L;
  if (bias) c.biases += (ff + d) * L;
}

}  // namespace

// configuration_gpt2.py: n_inner None -> 4 * n_embd, tie_word_embeddings
// True. Per block: ln_1, c_attn (d -> 3d), c_proj, ln_2, c_fc, c_proj, all
// Conv1D with bias; then ln_f; wpe has n_positions rows.
Result<ModelSpec> build_gpt2(Cfg& c) {
  MC_ASSIGN_OR_RETURN(int64_t d, c.req("n_embd"));
  MC_ASSIGN_OR_RETURN(int64_t L, c.req("n_layer"));
  MC_ASSIGN_OR_RETURN(int64_t h, c.req("n_head"));
  MC_ASSIGN_OR_RETURN(int64_t V, c.req("vocab_size"));
  MC_ASSIGN_OR_RETURN(int64_t pos, c.req("n_positions"));
  MC_ASSIGN_OR_RETURN(auto inner, c.opt("n_inner", std::nullopt));
  MC_ASSIGN_OR_RETURN(bool tied, c.flag("tie_word_embeddings", true));
  MC_ASSIGN_OR_RETURN(bool cross, c.flag("add_cross_attention", false));
  if (cross) return c.error("add_cross_attention", "true is not supported");
  MC_RETURN_IF_ERROR(heads_divide(c, "n_head", d, h));
  const int64_t ff = inner.value_or(4 * d);

  Counts k;
  const Exact D = d, LL = L;
  k.embeddings = Exact(V) * D;
  k.position = Exact(pos) * D;
  k.lm_head = tied ? Exact(0) : Exact(V) * D;
  k.attention = (D * D * Exact(3) + D * D) * LL;
  k.biases = (D * Exact(3) + D) * LL;
  add_mlp(k, D, ff, LL, true);
  k.norms = layer_norm(D) * Exact(2) * LL + layer_norm(D);
  return with_counts(plain_shape(c, d, L, h, h, ff, V, tied, pos), k);
}

// configuration_phi.py (transformers' PhiForCausalLM): one LayerNorm per
// block feeding attention and MLP in parallel; q, k, v, dense, fc1, fc2 all
// biased; optional q/k LayerNorm(head_dim); final_layernorm; lm_head with
// bias (its bias stays even if the weight is tied). Also reads the legacy
// remote-code "phi-msft" config keys (n_embd, n_layer, n_head, n_head_kv,
// n_inner, n_positions), which describe the same tensors.
Result<ModelSpec> build_phi(Cfg& c) {
  c.alias("hidden_size", "n_embd");
  c.alias("num_hidden_layers", "n_layer");
  c.alias("num_attention_heads", "n_head");
  c.alias("num_key_value_heads", "n_head_kv");
  c.alias("intermediate_size", "n_inner");
  c.alias("max_position_embeddings", "n_positions");
  MC_ASSIGN_OR_RETURN(int64_t d, c.req("hidden_size"));
  MC_ASSIGN_OR_RETURN(int64_t L, c.req("num_hidden_layers"));
  MC_ASSIGN_OR_RETURN(int64_t h, c.req("num_attention_heads"));
  MC_ASSIGN_OR_RETURN(int64_t V, c.req("vocab_size"));
  MC_ASSIGN_OR_RETURN(auto kv_opt, c.opt("num_key_value_heads", std::nullopt));
  int64_t ff = 0;
  if (c.model_type() == "phi-msft") {  // MixFormer: n_inner None -> 4 * n_embd
    MC_ASSIGN_OR_RETURN(auto inner, c.opt("intermediate_size", std::nullopt));
    ff = inner.value_or(4 * d);  // d <= 2^31 (Cfg caps integers)
  } else {
    MC_ASSIGN_OR_RETURN(ff, c.req("intermediate_size"));
  }
  MC_ASSIGN_OR_RETURN(auto ctx, c.opt("max_position_embeddings", 2048));
  MC_ASSIGN_OR_RETURN(bool qk_ln, c.flag("qk_layernorm", false));
  MC_ASSIGN_OR_RETURN(bool tied, c.flag("tie_word_embeddings", false));
  MC_RETURN_IF_ERROR(heads_divide(c, "num_attention_heads", d, h));
  const int64_t kv = kv_opt.value_or(h), hd = d / h;
  if (kv > h || h % kv != 0) return c.error("num_key_value_heads", "must divide the head count");

  Counts k;
  const Exact D = d, LL = L, q_out = Exact(h) * Exact(hd), kv_out = Exact(kv) * Exact(hd);
  k.embeddings = Exact(V) * D;
  k.lm_head = (tied ? Exact(0) : Exact(V) * D) + Exact(V);
  k.attention = (D * q_out + D * kv_out * Exact(2) + q_out * D) * LL;
  k.biases = (q_out + kv_out * Exact(2) + D) * LL;
  add_mlp(k, D, ff, LL, true);
  k.norms = layer_norm(D) * LL + layer_norm(D);
  if (qk_ln) k.norms += layer_norm(Exact(hd)) * Exact(2) * LL;
  return with_counts(plain_shape(c, d, L, h, kv, ff, V, tied, ctx.value_or(0)), k);
}

// configuration_falcon.py: num_kv_heads None -> heads, ffn_hidden_size None
// -> 4 * hidden, multi_query True, parallel_attn True, bias False,
// new_decoder_architecture False, tie_word_embeddings True. Fused
// query_key_value width: new architecture (2 * kv + heads) * head_dim;
// multi-query hidden + 2 * head_dim; else 3 * hidden. Norms
// (modeling_falcon.py): sequential blocks two LayerNorms; parallel blocks two
// (ln_attn, ln_mlp) when num_ln_in_parallel_attn is 2 (the default for the
// new architecture), else one. Legacy "RefinedWeb"/"RefinedWebModel" configs
// (n_layer, n_head, n_head_kv, n_embed) describe the same tensors; they carry
// no new_decoder_architecture key, and transformers' converter
// (models/falcon/convert_custom_code_checkpoint.py) sets it to true exactly
// when n_head_kv is present (Falcon-40B's RefinedWeb), false otherwise.
Result<ModelSpec> build_falcon(Cfg& c) {
  const bool legacy = c.model_type() == "RefinedWeb" || c.model_type() == "RefinedWebModel";
  const bool new_arch_absent = legacy && c.has("n_head_kv");
  c.alias("hidden_size", "n_embed");
  c.alias("num_hidden_layers", "n_layer");
  c.alias("num_attention_heads", "n_head");
  c.alias("num_kv_heads", "n_head_kv");
  MC_ASSIGN_OR_RETURN(int64_t d, c.req("hidden_size"));
  MC_ASSIGN_OR_RETURN(int64_t L, c.req("num_hidden_layers"));
  MC_ASSIGN_OR_RETURN(int64_t h, c.req("num_attention_heads"));
  MC_ASSIGN_OR_RETURN(int64_t V, c.req("vocab_size"));
  MC_ASSIGN_OR_RETURN(auto kv_opt, c.opt("num_kv_heads", std::nullopt));
  MC_ASSIGN_OR_RETURN(auto ff_opt, c.opt("ffn_hidden_size", std::nullopt));
  MC_ASSIGN_OR_RETURN(bool new_arch, c.flag("new_decoder_architecture", new_arch_absent));
  MC_ASSIGN_OR_RETURN(bool mq, c.flag("multi_query", true));
  MC_ASSIGN_OR_RETURN(bool parallel, c.flag("parallel_attn", true));
  MC_ASSIGN_OR_RETURN(bool bias, c.flag("bias", false));
  MC_ASSIGN_OR_RETURN(bool tied, c.flag("tie_word_embeddings", true));
  MC_ASSIGN_OR_RETURN(auto n_ln, c.opt("num_ln_in_parallel_attn", std::nullopt));
  MC_ASSIGN_OR_RETURN(auto ctx, c.opt("max_position_embeddings", 2048));
  MC_RETURN_IF_ERROR(heads_divide(c, "num_attention_heads", d, h));
  const int64_t hd = d / h, ff = ff_opt.value_or(4 * d);
  int64_t kv = h;
  Exact qkv_out = Exact(3) * Exact(d);
  if (new_arch) {
    kv = kv_opt.value_or(h);
    if (kv > h || h % kv != 0) return c.error("num_kv_heads", "must divide the head count");
    qkv_out = (Exact(2) * Exact(kv) + Exact(h)) * Exact(hd);
  } else if (mq) {
    kv = 1;
    qkv_out = Exact(d) + Exact(2) * Exact(hd);
  }
  const int64_t lns = n_ln.value_or(new_arch ? 2 : 1);
  const int64_t norms_per_layer = !parallel ? 2 : (lns == 2 ? 2 : 1);

  Counts k;
  const Exact D = d, LL = L;
  k.embeddings = Exact(V) * D;
  k.lm_head = tied ? Exact(0) : Exact(V) * D;
  k.attention = (D * qkv_out + D * D) * LL;
  if (bias) k.biases = (qkv_out + D) * LL;
  add_mlp(k, D, ff, LL, bias);
  k.norms = layer_norm(D) * Exact(norms_per_layer) * LL + layer_norm(D);
  return with_counts(plain_shape(c, d, L, h, kv, ff, V, tied, ctx.value_or(0)), k);
}

// configuration_opt.py: word_embed_proj_dim None -> hidden_size,
// do_layer_norm_before True, _remove_final_layer_norm False, enable_bias
// True, layer_norm_elementwise_affine True, tie_word_embeddings True.
// Learned positions have max_position_embeddings + 2 rows (offset 2).
// project_in/project_out (bias-free, only when word_embed_proj_dim differs)
// are counted with the embeddings.
Result<ModelSpec> build_opt(Cfg& c) {
  MC_ASSIGN_OR_RETURN(int64_t d, c.req("hidden_size"));
  MC_ASSIGN_OR_RETURN(int64_t L, c.req("num_hidden_layers"));
  MC_ASSIGN_OR_RETURN(int64_t h, c.req("num_attention_heads"));
  MC_ASSIGN_OR_RETURN(int64_t V, c.req("vocab_size"));
  MC_ASSIGN_OR_RETURN(int64_t ff, c.req("ffn_dim"));
  MC_ASSIGN_OR_RETURN(int64_t pos, c.req("max_position_embeddings"));
  MC_ASSIGN_OR_RETURN(auto proj_opt, c.opt("word_embed_proj_dim", std::nullopt));
  MC_ASSIGN_OR_RETURN(bool pre_ln, c.flag("do_layer_norm_before", true));
  MC_ASSIGN_OR_RETURN(bool rm_final, c.flag("_remove_final_layer_norm", false));
  MC_ASSIGN_OR_RETURN(bool bias, c.flag("enable_bias", true));
  MC_ASSIGN_OR_RETURN(bool affine, c.flag("layer_norm_elementwise_affine", true));
  MC_ASSIGN_OR_RETURN(bool tied, c.flag("tie_word_embeddings", true));
  MC_RETURN_IF_ERROR(heads_divide(c, "num_attention_heads", d, h));
  const int64_t proj = proj_opt.value_or(d);

  Counts k;
  const Exact D = d, LL = L, ln = affine ? layer_norm(D) : Exact(0);
  k.embeddings = Exact(V) * Exact(proj);
  if (proj != d) k.embeddings += Exact(2) * Exact(proj) * D;  // project_in, project_out
  k.position = (Exact(pos) + Exact(2)) * D;
  k.lm_head = tied ? Exact(0) : Exact(V) * Exact(proj);
  k.attention = Exact(4) * D * D * LL;
  if (bias) k.biases = Exact(4) * D * LL;
  add_mlp(k, D, ff, LL, bias);
  k.norms = ln * Exact(2) * LL + (pre_ln && !rm_final ? ln : Exact(0));
  return with_counts(plain_shape(c, d, L, h, h, ff, V, tied, pos), k);
}

// configuration_gpt_neox.py: attention_bias True, tie_word_embeddings False.
// Per block: input_layernorm, post_attention_layernorm, query_key_value
// (d -> 3d) and dense (biased when attention_bias), dense_h_to_4h and
// dense_4h_to_h (always biased); final_layer_norm; embed_out without bias.
Result<ModelSpec> build_gpt_neox(Cfg& c) {
  MC_ASSIGN_OR_RETURN(int64_t d, c.req("hidden_size"));
  MC_ASSIGN_OR_RETURN(int64_t L, c.req("num_hidden_layers"));
  MC_ASSIGN_OR_RETURN(int64_t h, c.req("num_attention_heads"));
  MC_ASSIGN_OR_RETURN(int64_t V, c.req("vocab_size"));
  MC_ASSIGN_OR_RETURN(int64_t ff, c.req("intermediate_size"));
  MC_ASSIGN_OR_RETURN(auto ctx, c.opt("max_position_embeddings", 2048));
  MC_ASSIGN_OR_RETURN(bool attn_bias, c.flag("attention_bias", true));
  MC_ASSIGN_OR_RETURN(bool tied, c.flag("tie_word_embeddings", false));
  MC_RETURN_IF_ERROR(heads_divide(c, "num_attention_heads", d, h));

  Counts k;
  const Exact D = d, LL = L;
  k.embeddings = Exact(V) * D;
  k.lm_head = tied ? Exact(0) : Exact(V) * D;
  k.attention = Exact(4) * D * D * LL;
  if (attn_bias) k.biases = Exact(4) * D * LL;
  add_mlp(k, D, ff, LL, true);
  k.norms = layer_norm(D) * Exact(2) * LL + layer_norm(D);
  return with_counts(plain_shape(c, d, L, h, h, ff, V, tied, ctx.value_or(0)), k);
}

// configuration_bloom.py: keys n_layer and n_head (hidden_size, or the
// legacy n_embed), tie_word_embeddings True, FFN width fixed at 4 * hidden.
// word_embeddings_layernorm after the embedding, two LayerNorms per block,
// ln_f; every Linear biased. ALiBi: no position parameters; no context
// length in the config (n_ctx_train 0).
Result<ModelSpec> build_bloom(Cfg& c) {
  c.alias("hidden_size", "n_embed");
  c.alias("n_layer", "num_hidden_layers");
  c.alias("n_head", "num_attention_heads");
  MC_ASSIGN_OR_RETURN(int64_t d, c.req("hidden_size"));
  MC_ASSIGN_OR_RETURN(int64_t L, c.req("n_layer"));
  MC_ASSIGN_OR_RETURN(int64_t h, c.req("n_head"));
  MC_ASSIGN_OR_RETURN(int64_t V, c.req("vocab_size"));
  MC_ASSIGN_OR_RETURN(bool tied, c.flag("tie_word_embeddings", true));
  MC_RETURN_IF_ERROR(heads_divide(c, "n_head", d, h));
  const int64_t ff = 4 * d;

  Counts k;
  const Exact D = d, LL = L;
  k.embeddings = Exact(V) * D;
  k.lm_head = tied ? Exact(0) : Exact(V) * D;
  k.attention = Exact(4) * D * D * LL;
  k.biases = Exact(4) * D * LL;
  add_mlp(k, D, Exact(4) * D, LL, true);
  k.norms = layer_norm(D) * Exact(2) * LL + layer_norm(D) * Exact(2);
  return with_counts(plain_shape(c, d, L, h, h, ff, V, tied, 0), k);
}

}  // namespace modelcalc::hf
