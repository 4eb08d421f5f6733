// The symbolic form of every explained number, for --explain: the one table
// of formula texts (no report builder keeps its own). One entry per function
// in include/modelcalc/ (or per named combination of them), under that
// function's name; renderers substitute the terms' values
// into `expr` token by token, so the explained form names the formula the
// number came from and never re-derives it.
#ifndef MODELCALC_FORMULA_TEXT_H_
#define MODELCALC_FORMULA_TEXT_H_

#include <string_view>

namespace modelcalc {

struct FormulaText {
  std::string_view name;  // the core function (or model.h accessor) that computes it
  std::string_view expr;  // identifiers in expr are replaced by term values
};

namespace fx {
// Parameters (seed formulas; model.h, formulas.h).
inline constexpr FormulaText kDHead{"n_embd_head", "d / h"};
inline constexpr FormulaText kDKv{"n_embd_kv", "kv_heads × d_head"};
inline constexpr FormulaText kDKvMla{"kv_elems_per_token", "kv_lora_rank + qk_rope_head_dim"};
inline constexpr FormulaText kDKvDsa{"kv_elems_per_token", "kv_lora_rank + qk_rope_head_dim + index_head_dim"};
inline constexpr FormulaText kQ{"attn_q_params", "d × h × d_head"};
inline constexpr FormulaText kKv{"attn_kv_params", "2 × d × d_kv"};
inline constexpr FormulaText kO{"attn_o_params", "h × d_head × d"};
inline constexpr FormulaText kFfn{"ffn_params", "m × d × d_ff"};
inline constexpr FormulaText kLayer{"LayerMatrices::total", "Q + KV + O + FFN"};
inline constexpr FormulaText kLayerOverD2{"layer_over_d2", "P_layer / d²"};
inline constexpr FormulaText kBlocks{"ParamBreakdown::blocks", "L × P_layer"};
inline constexpr FormulaText kBlocksExact{"ParamBreakdown::blocks", "N − embeddings − lm_head"};
inline constexpr FormulaText kEmbeddings{"embedding_params", "k × V × d"};
inline constexpr FormulaText kTotal{"ParamBreakdown::total", "N_blocks + N_emb"};
inline constexpr FormulaText kActive{"ParamBreakdown::active", "N − routed + routed_active"};
inline constexpr FormulaText kShortcut{"shortcut_layer_params", "12 × d²"};
inline constexpr FormulaText kShortcutError{"shortcut_error", "12 × d² / P_layer"};
// Memory.
inline constexpr FormulaText kWeightBytes{"weight_memory_bytes", "N × b"};
inline constexpr FormulaText kKvRoom{"kv_room", "capacity − W"};
inline constexpr FormulaText kKvPerToken{"kv_bytes_per_token", "2 × L × d_kv × b_kv"};
inline constexpr FormulaText kKvPerTokenMla{"kv_bytes_per_token", "L × d_c × b_kv"};
inline constexpr FormulaText kKvPerSeq{"kv_bytes_per_sequence", "KV_token × T"};
inline constexpr FormulaText kKvPerSeqSwa{"kv_bytes_per_sequence",
                                          "KV_token / L × (L_full × T + L_swa × min(T, window))"};
inline constexpr FormulaText kKvRatio{"kv_mha_ratio", "KV_mha / KV"};
// Per-layer kinds: attention layers only (L_attn of L), windows and chunks capped.
inline constexpr FormulaText kKvPerTokenLayers{"kv_bytes_per_token", "2 × L_attn × d_kv × b_kv"};
inline constexpr FormulaText kKvPerSeqLayers{
    "kv_bytes_per_sequence", "KV_token / L_attn × (L_full × T + L_swa × min(T, window) + L_chunk × min(T, chunk))"};
inline constexpr FormulaText kStatePerSeq{"state_bytes_per_sequence", "L_rec × (n_embd_s × b_ssm + n_embd_r × b_state)"};
// FLOPs.
inline constexpr FormulaText kForward{"forward_flops_per_token", "2 × N_blocks"};
inline constexpr FormulaText kTrain{"training_flops", "6 × N × D"};
inline constexpr FormulaText kPrefillLinear{"prefill_linear_flops", "2 × N_blocks × T"};
inline constexpr FormulaText kPrefillAttention{"prefill_attention_flops", "4 × T² × d_attn × L"};
inline constexpr FormulaText kPrefillAttentionSwa{"prefill_attention_flops",
                                                  "4 × T × (L_full × T + L_swa × T_win) × d_attn"};
inline constexpr FormulaText kDecodeFlopsSwa{"decode_flops_per_token",
                                             "2 × N_blocks + 4 × (L_full × T + L_swa × T_win) × d_attn"};
inline constexpr FormulaText kPrefillAttentionLayers{"prefill_attention_flops",
                                                     "4 × T × (L_full × T + L_swa × T_win + L_chunk × T_chunk) × d_attn"};
inline constexpr FormulaText kDecodeFlopsLayers{
    "decode_flops_per_token", "2 × N_blocks + 4 × (L_full × T + L_swa × T_win + L_chunk × T_chunk) × d_attn"};
inline constexpr FormulaText kPrefillTotal{"prefill_total", "linear + attention"};
inline constexpr FormulaText kAttentionFraction{"attention_fraction", "attention / total"};
inline constexpr FormulaText kPerToken{"per_token", "F / T"};
inline constexpr FormulaText kDecodeFlops{"decode_flops_per_token",
                                          "2 × N_blocks + 4 × T × d_attn × L"};
inline constexpr FormulaText kCrossover{"attention_crossover_tokens", "P_layer / (2 × d_attn)"};
inline constexpr FormulaText kCrossoverMlp{"attention_crossover_tokens", "P_ffn / (2 × d_attn)"};
// Decode ceiling and roofline.
inline constexpr FormulaText kTpsWeights{"decode_tokens_per_sec", "bw / W"};
inline constexpr FormulaText kTpsKv{"decode_tokens_per_sec", "bw / (W + KV)"};
inline constexpr FormulaText kTpsAggregate{"decode_tokens_per_sec", "B × bw / (W + B × KV)"};
inline constexpr FormulaText kStepBytes{"decode_step_bytes", "W + B × KV"};
inline constexpr FormulaText kRidge{"roofline_ridge_intensity", "peak / bw"};
inline constexpr FormulaText kProjectionIntensity{"projection_intensity",
                                                  "2 × T × d / (b × (d + 2 × T))"};
inline constexpr FormulaText kComputeBatch{"projection_compute_bound_tokens",
                                           "R × b × d / (2 × (d − R × b))"};
inline constexpr FormulaText kComputeBatchApprox{"projection_compute_bound_tokens_approx",
                                                 "R × b / 2"};
inline constexpr FormulaText kMaxBatch{"max_batch_by_capacity", "max(0, floor((capacity − W) / KV))"};
inline constexpr FormulaText kAttainable{"roofline_attainable_flops", "min(peak, bw × I)"};
inline constexpr FormulaText kIntensity{"arithmetic_intensity", "F / bytes"};
inline constexpr FormulaText kCostPerMillion{"cost_per_million_tokens",
                                             "price × gpus / (tps × 3600) × 1e6"};
inline constexpr FormulaText kMfu{"mfu", "tps × k × N / peak"};
inline constexpr FormulaText kChinchillaTokens{"chinchilla_optimal_tokens", "20 × N"};
inline constexpr FormulaText kChinchillaParams{"chinchilla_optimal_params", "sqrt(C / 120)"};
// Capacity: KV budget, training memory, paged KV (include/modelcalc/capacity.h).
inline constexpr FormulaText kUsable{"kv_budget_bytes", "capacity × gpus × (1 − reserve)"};
inline constexpr FormulaText kWorkspace{"workspace_allowance_bytes", "C × (w_ffn + V) × 2"};
inline constexpr FormulaText kBudget{"kv_budget_bytes", "usable − W − A"};
inline constexpr FormulaText kKvReplicated{"kv_heads_stored", "KV × stored_heads / kv_heads"};
inline constexpr FormulaText kMaxSeq{"max_sequences", "max(0, floor(budget / KV))"};
inline constexpr FormulaText kMaxSeqState{"max_sequences", "max(0, floor(budget / (KV + S)))"};
inline constexpr FormulaText kMinDp{"min_dp_to_fit", "ceil(sharded / (capacity − fixed))"};
inline constexpr FormulaText kPagedUsed{"PagedKvWaste::used_tokens", "Σ len"};
inline constexpr FormulaText kPagedAlloc{"paged_kv_waste", "Σ ceil(len / B) × B"};
inline constexpr FormulaText kContiguous{"contiguous_reserved", "n × max_len"};
inline constexpr FormulaText kTokenBytes{"bytes", "tokens × KV_token"};
inline constexpr FormulaText kTokenBytesSwa{"bytes", "KV_layer × (L_full × tokens + L_swa × tokens_window)"};
inline constexpr FormulaText kWaste{"waste", "allocated − used"};
inline constexpr FormulaText kWasteFraction{"waste_fraction", "waste / allocated"};
// Roofline operating points (include/modelcalc/roofline.h).
inline constexpr FormulaText kDecodeStepFlops{"decode_step_flops", "B × F_token"};
inline constexpr FormulaText kPrefillBytes{"prefill_bytes",
                                           "W + KV + 2 × L × T × d × b"};  // + prefill_activation_bytes
inline constexpr FormulaText kGemmFlops{"square_gemm_flops", "2 × n³"};
inline constexpr FormulaText kGemmBytes{"square_gemm_bytes", "3 × n² × b"};
inline constexpr FormulaText kMemoryBound{"is_memory_bound", "I < ridge"};
inline constexpr FormulaText kFits{"fits", "W + KV ≤ capacity"};
// Deployment engine (modelcalc/deployment.h): per GPU, per pipeline stage.
inline constexpr FormulaText kDepWeights{"WeightShard::total",
                                         "emb + lm_head + attn + mlp + experts + other + scales"};
inline constexpr FormulaText kDepWeightsDraft{"WeightShard::total",
                                              "emb + lm_head + attn + mlp + experts + other + scales + rec + draft"};
inline constexpr FormulaText kDepReserve{"reserve", "capacity × r"};
inline constexpr FormulaText kDepFree{"free_for_kv", "capacity − reserve − workspace − W"};
inline constexpr FormulaText kDepKvTok{"kv_per_token", "L_stage × e_rank × b_kv"};
inline constexpr FormulaText kDepKvSeq{"kv_per_sequence", "e_rank × b_kv × (L_full × T + L_swa × T_win)"};
inline constexpr FormulaText kDepMaxSeq{"max_batch_by_capacity", "floor(free / KV_seq)"};
// The engine on per-layer kinds: recurrent mixers, chunked layers, a DSA indexer.
inline constexpr FormulaText kMeasuredOverPredicted{"measured_fraction", "measured / predicted"};
inline constexpr FormulaText kDepWeightsVision{
    "WeightShard::total", "emb + lm_head + attn + mlp + experts + other + scales + rec + draft + vision"};
inline constexpr FormulaText kDepWeightsAudio{
    "WeightShard::total", "emb + lm_head + attn + mlp + experts + other + scales + rec + draft + vision + audio"};
inline constexpr FormulaText kDepWeightsRec{"WeightShard::total",
                                            "emb + lm_head + attn + mlp + experts + other + scales + rec"};
inline constexpr FormulaText kDepKvTokIndex{"kv_per_token", "(L_stage × e_rank + L_full × e_index) × b_kv"};
inline constexpr FormulaText kDepKvSeqLayers{
    "kv_per_sequence", "(e_rank × (L_full × T + L_swa × T_win + L_chunk × T_chunk) + e_index × L_full × T) × b_kv"};
inline constexpr FormulaText kDepStateSeq{"state_per_sequence", "L_rec × (e_ssm × b_ssm + (e_state − e_ssm) × b_state)"};
inline constexpr FormulaText kDepMaxSeqState{"max_batch_by_capacity", "floor(free / (KV_seq + S_seq))"};
inline constexpr FormulaText kDepStepBytesState{"DecodeBytes::total",
                                                "W_blocks + W_experts + W_lm_head + W_rows + KV + S"};
inline constexpr FormulaText kDepStepFlopsRec{"DecodeFlops::total", "F_linear + F_attn + F_lm_head + F_rec"};
inline constexpr FormulaText kDepExperts{"expected_experts_touched", "E × (1 − (1 − k / E)^B)"};
inline constexpr FormulaText kDepStepBytes{"DecodeBytes::total", "W_blocks + W_experts + W_lm_head + W_rows + KV"};
inline constexpr FormulaText kDepStepFlops{"DecodeFlops::total", "F_linear + F_attn + F_lm_head"};
inline constexpr FormulaText kDepCompute{"compute_seconds", "pp × F / peak"};
inline constexpr FormulaText kDepMemory{"memory_seconds", "pp × bytes / bw"};
inline constexpr FormulaText kDepComm{"comm_seconds", "t_allreduce + t_handoff"};
inline constexpr FormulaText kDepStep{"evaluate_deployment", "max(t_compute, t_memory) + t_comm"};
inline constexpr FormulaText kDepTpsSeq{"tokens_per_s_per_sequence", "1 / t_step"};
inline constexpr FormulaText kDepTpsAgg{"tokens_per_s_aggregate", "B × dp / t_step"};
inline constexpr FormulaText kDepPrefill{"prefill seconds", "max(t_compute, t_memory) + t_comm"};
// Layouts, speculative decoding and prefix caching (deployment.h; docs/serving-layouts.md). The decode
// step's sums by what the deployment has: routed experts, recurrent state, a drafter.
inline constexpr FormulaText kDepStepFlopsVariants[8] = {
    {"DecodeFlops::total", "F_linear + F_attn + F_lm_head"},
    {"DecodeFlops::total", "F_linear + F_attn + F_lm_head + F_rec"},
    {"DecodeFlops::total", "F_linear + F_experts + F_attn + F_lm_head"},
    {"DecodeFlops::total", "F_linear + F_experts + F_attn + F_lm_head + F_rec"},
    {"DecodeFlops::total", "F_linear + F_attn + F_lm_head + F_draft"},
    {"DecodeFlops::total", "F_linear + F_attn + F_lm_head + F_rec + F_draft"},
    {"DecodeFlops::total", "F_linear + F_experts + F_attn + F_lm_head + F_draft"},
    {"DecodeFlops::total", "F_linear + F_experts + F_attn + F_lm_head + F_rec + F_draft"}};
inline constexpr FormulaText kDepStepBytesVariants[4] = {
    {"DecodeBytes::total", "W_blocks + W_experts + W_lm_head + W_rows + KV"},
    {"DecodeBytes::total", "W_blocks + W_experts + W_lm_head + W_rows + KV + S"},
    {"DecodeBytes::total", "W_blocks + W_experts + W_lm_head + W_rows + KV + W_draft"},
    {"DecodeBytes::total", "W_blocks + W_experts + W_lm_head + W_rows + KV + S + W_draft"}};
inline constexpr FormulaText kDepCommA2a{"comm_seconds", "t_allreduce + t_handoff + t_a2a"};
inline constexpr FormulaText kDepStepOverlap{"evaluate_deployment",
                                             "max(t_compute, t_memory, t_a2a) + t_allreduce + t_handoff"};
inline constexpr FormulaText kDepStepCeiling{"evaluate_deployment", "max(t_compute, t_memory) + t_comm"};
inline constexpr FormulaText kDepAccepted{"accepted_tokens_per_step", "(1 − A^(K+1)) / (1 − A)"};
inline constexpr FormulaText kDepTpsSeqSpec{"tokens_per_s_per_sequence", "tau / t_step"};
inline constexpr FormulaText kDepTpsAggSpec{"tokens_per_s_aggregate", "B × dp × tau / t_step"};
inline constexpr FormulaText kDepTpot{"tpot_seconds", "t_step / tau"};
inline constexpr FormulaText kDepSpeedup{"spec_speedup", "tps_spec / tps_without"};
inline constexpr FormulaText kDepExpertsRead{"moe_rank_load", "min(n_rank, n_rank × p + z × sqrt(n_rank × p × (1 − p)))"};
inline constexpr FormulaText kDepRouted{"moe_rank_load", "F × (N × k / ep + z × sqrt(N × k × (1 / ep) × (1 − 1 / ep)))"};
inline constexpr FormulaText kDepMaxSeqGroups{"max_batch_by_capacity",
                                              "attn_dp × floor((free − prefix) / (KV_seq + S_seq + D_seq))"};
inline constexpr FormulaText kDepKvSeqShared{"kv_per_sequence",
                                             "e_rank × b_kv × (L_full × (T − S) + L_swa × T_win)"};
inline constexpr FormulaText kDepCached{"prefill_cached_tokens", "max(floor(h × P), S)"};
// The prediction (serving.h step_time, engine_profile.h engine_memory).
inline constexpr FormulaText kPredStep{"step_time", "t_dense + t_experts + t_lm_head + t_kv + t_prefill_attn + "
                                                    "t_elementwise + t_comm + t_overhead"};
inline constexpr FormulaText kPredTpsSeq{"predict_decode", "1 / t_step"};
inline constexpr FormulaText kPredTpsAgg{"predict_decode", "B × dp / t_step"};
inline constexpr FormulaText kPredTpsSeqSpec{"predict_decode", "tau / t_step"};
inline constexpr FormulaText kPredTpsAggSpec{"predict_decode", "B × dp × tau / t_step"};
inline constexpr FormulaText kPredStepFull{"step_time", "t_dense + t_experts + t_lm_head + t_kv + t_prefill_attn + "
                                                        "t_draft + t_elementwise + t_comm + t_overhead"};
inline constexpr FormulaText kPredKvTrt{"engine_memory", "f × (total − W − non_torch − activation)"};
inline constexpr FormulaText kPredKvVllm{"engine_memory", "f × total − W − non_torch − activation"};
inline constexpr FormulaText kPredKvSgl{"engine_memory", "f × total − W − non_torch"};
inline constexpr FormulaText kPredUsable{"engine_memory", "f × total"};
inline constexpr FormulaText kPredBlocks{"engine_memory", "floor(KV / (block × KV_tok))"};
inline constexpr FormulaText kPredTokens{"engine_memory", "blocks × block"};
inline constexpr FormulaText kPredConcurrency{"engine_memory", "tokens / max_model_len"};
inline constexpr FormulaText kPredConcurrencyV1{"engine_memory", "blocks / ceil(KV_request / (block × KV_tok))"};
inline constexpr FormulaText kPredBlocksSwaPool{"engine_memory", "floor(KV / (block × (KV_full + r × KV_swa)))"};
inline constexpr FormulaText kPredActivation{"resolve_engine_settings",
                                             "C × a_tok + min(S, C) × logits_seq"};
// Diagnosis (drill 3; modelcalc/diagnose.h).
inline constexpr FormulaText kDxKvPerSeq{"kv_bytes_per_token", "2 × L × d_kv × b × T"};
inline constexpr FormulaText kDxKvPerSeqMla{"kv_bytes_per_sequence", "L × d_c × b × T"};
inline constexpr FormulaText kDxKvPerSeqSwa{"kv_bytes_per_sequence",
                                             "2 × d_kv × b × (L_full × T + L_swa × min(T, window))"};
inline constexpr FormulaText kDxKvPerSeqLayers{
    "kv_bytes_per_sequence", "2 × d_kv × b × (L_full × T + L_swa × min(T, window) + L_chunk × min(T, chunk))"};
inline constexpr FormulaText kDxTpsPerSeq{"decode_tokens_per_sec / B", "bw / (W + B × KV)"};
inline constexpr FormulaText kDxComputeCeiling{"forward_flops_per_token", "peak / (2 × N)"};
// The engine's view of the same numbers (a Scenario given): its step's terms.
inline constexpr FormulaText kDxEngineComputeCeiling{"DecodeStep::compute_seconds", "B × dp / t_compute"};
inline constexpr FormulaText kDxEngineFlopUse{"DecodeStep::compute_seconds", "t_compute / t_measured"};
inline constexpr FormulaText kDxEngineVaried{"evaluate_variation", "B × dp / t_step"};
inline constexpr FormulaText kDxStepIntensity{"arithmetic_intensity", "2 × N × B / step_bytes"};
inline constexpr FormulaText kDxFraction{"fraction_of_ceiling", "measured / ceiling"};
inline constexpr FormulaText kDxFlopExcess{"profiler_flop_excess", "profiled / implied"};
inline constexpr FormulaText kDxQuantCeiling{"decode_tokens_per_sec",
                                             "min(B × bw / (N × b_q + B × KV), peak / (2 × N))"};
inline constexpr FormulaText kDxFp8Ceiling{"decode_tokens_per_sec",
                                           "min(B × bw / (N × 1 + B × KV), peak_fp8 / (2 × N))"};
inline constexpr FormulaText kDxTtftFloor{"ttft_floor", "F / peak"};
inline constexpr FormulaText kDxTtftFraction{"fraction_of_ceiling", "TTFT_floor / TTFT"};
inline constexpr FormulaText kDxScoreBytes{"attention_score_bytes", "h × T² × b"};
inline constexpr FormulaText kDxTransientRatio{"transient_over_scores", "transient / S"};
inline constexpr FormulaText kDxScoreTraffic{"score_traffic", "4 × S × L / bw"};
inline constexpr FormulaText kDxAttentionTime{"attention_time", "share × TTFT"};
inline constexpr FormulaText kDxAttentionFloor{"attention_floor", "F_attn / peak"};
inline constexpr FormulaText kDxTtftFused{"ttft_fused", "TTFT − (t_attn − t_floor)"};
inline constexpr FormulaText kDxPeakMemory{"peak_memory", "W + transient"};
inline constexpr FormulaText kDxItlFloor{"decode_step_bytes / bw", "(W + B × KV) / bw"};
inline constexpr FormulaText kDxItlFraction{"itl_fraction", "ITL_floor / ITL"};
inline constexpr FormulaText kDxTokensPerStep{"tokens_per_step", "B × T"};
inline constexpr FormulaText kDxTrainCeiling{"training_flops", "peak / (6 × N)"};
inline constexpr FormulaText kDxKernelTime{"kernel_time", "kernels × t_kernel"};
inline constexpr FormulaText kDxGapTime{"gap_time", "kernels × t_gap"};
inline constexpr FormulaText kDxGapShare{"timeline_gap_share", "t_gap / (t_kernel + t_gap)"};
inline constexpr FormulaText kDxStepTime{"step_time", "1 / tps"};
inline constexpr FormulaText kDxBusyShare{"busy_share", "kernel_time / step_time"};
inline constexpr FormulaText kDxIdleShare{"idle_share", "1 − busy"};
inline constexpr FormulaText kDxIdealStep{"ideal_step_time", "step_bytes / bw"};
inline constexpr FormulaText kDxNoIdle{"speedup_no_idle", "step_time / kernel_time"};
inline constexpr FormulaText kDxInfiniteGpu{"speedup_infinite_gpu", "step_time / (step_time − kernel_time)"};
inline constexpr FormulaText kDxMemShare{"memory_bound_share", "norm + elementwise + cast + softmax + copy"};
inline constexpr FormulaText kDxAmdahl{"amdahl_speedup", "1 / (1 − s)"};
inline constexpr FormulaText kDxComputeShare{"compute_kernel_share", "gemm + attention"};
inline constexpr FormulaText kDxInKernel{"in_kernel_flop_rate", "flop_util / compute_share"};
// The lab's calculator (include/modelcalc/lab.h, tradeoff.h).
inline constexpr FormulaText kForwardLab{"forward_flops_per_token", "2 × N"};
inline constexpr FormulaText kTokensPerParam{"tokens_per_param", "D / N"};
inline constexpr FormulaText kTrainGpuHours{"training_gpu_hours", "F / (peak × mfu) / 3600"};
inline constexpr FormulaText kTrainDays{"training_days", "H / gpus / 24"};
inline constexpr FormulaText kTrainCost{"training_cost_usd", "H × price"};
// The training engine (include/modelcalc/training.h, train_plan.h, train_calibrate.h).
inline constexpr FormulaText kTfSixN{"TrainFlopsPerToken::six_n", "6 × N_active"};
inline constexpr FormulaText kTfLinear{"TrainFlopsPerToken::linear", "6 × P_matmul"};
inline constexpr FormulaText kTfAttention{"TrainFlopsPerToken::attention", "6 × h × (d_k + d_v) × Σ_layers keys"};
inline constexpr FormulaText kTfLmHead{"TrainFlopsPerToken::lm_head", "6 × V × d"};
inline constexpr FormulaText kTfModel{"TrainFlopsPerToken::model", "linear + attention + lm_head"};
inline constexpr FormulaText kTfRecomputeFull{"TrainFlopsPerToken::recompute", "(linear + attention) / 3"};
inline constexpr FormulaText kTfRecomputeSelective{"TrainFlopsPerToken::recompute", "attention / 3"};
inline constexpr FormulaText kTfHardware{"TrainFlopsPerToken::hardware", "model + recompute"};
inline constexpr FormulaText kTfTotal{"training FLOPs", "F_token × D"};
inline constexpr FormulaText kTfUtilization{"flops_utilization", "tps × F_token / peak"};
inline constexpr FormulaText kTfHours{"training_gpu_hours", "F / (peak × mfu) / 3600"};
inline constexpr FormulaText kTrainStates{"stage_memory", "b × (P_dense / shards + P_expert / expert_shards)"};
inline constexpr FormulaText kTrainBytesPerParam{"train_bytes_per_param", "b_w + b_g + b_o"};
inline constexpr FormulaText kPaddedVocab{"megatron_padded_vocab", "ceil(V / (128 × tp)) × 128 × tp"};
inline constexpr FormulaText kLayerAct{"LayerActivations::total", "replicated + expert + split + scores + flash_stats"};
inline constexpr FormulaText kLayerKept{"LayerActivations::kept", "total − recomputed"};
inline constexpr FormulaText kInflight1f1b{"inflight_chunks", "min(m, p − r)"};
inline constexpr FormulaText kInflightInterleaved{"inflight_chunks", "min(m × v, 2 × (p − r − 1) + (v − 1) × N + 1)"};
inline constexpr FormulaText kStageAct{"stage_memory", "Σ_in_flight kept_chunk + working"};
inline constexpr FormulaText kLogits{"stage_memory", "s × b × V_pad / (t × cp) × 6"};
inline constexpr FormulaText kStageTotal{"stage_memory", "W + G + O + A + logits + gather + overhead"};
inline constexpr FormulaText kStepCompute{"StepBreakdown::compute",
                                          "m × (F_lin / (peak × eta_gemm) + F_attn / (peak × eta_attn))"};
inline constexpr FormulaText kStepMemory{"StepBreakdown::memory", "m × κ × A_traffic / bw"};
inline constexpr FormulaText kStepBubble{"pipeline_bubble_fraction", "(p − 1) / v × t_mb"};
inline constexpr FormulaText kStepTotal{"evaluate_training",
                                        "compute + memory + tp + cp + ep + pp + bubble + dp + optimizer"};
inline constexpr FormulaText kStepCeiling{"TrainEval::ceiling_seconds", "(m + (p − 1) / v) × F_stage / peak"};
inline constexpr FormulaText kStepMfu{"TrainEval::mfu", "F_model × tokens / (t_step × gpus × peak)"};
inline constexpr FormulaText kStepHfu{"TrainEval::hfu", "F_hardware × tokens / (t_step × gpus × peak)"};
inline constexpr FormulaText kSteps{"steps", "ceil(D / (global_batch × s))"};
inline constexpr FormulaText kTrainRunDays{"days", "steps × t_step / 86400"};
inline constexpr FormulaText kTrainRunHours{"gpu_hours", "days × 24 × gpus"};
inline constexpr FormulaText kDpWire{"dp_wire_bytes_per_step", "Σ collectives (n − 1) / n × bytes"};
inline constexpr FormulaText kKvCacheBytes{"kv_cache_bytes", "2 × L × T × (d × n_kv / n_head) × b × B"};
inline constexpr FormulaText kGpusTimes{"tensor_parallel", "gpus × x"};
inline constexpr FormulaText kDecodeComputeCeiling{"decode_compute_ceiling", "peak / F_token"};
inline constexpr FormulaText kDecodeCeiling{"decode_ceiling", "min(bandwidth_ceiling, compute_ceiling)"};
inline constexpr FormulaText kFlopsPerToken{"mfu", "k × N"};
inline constexpr FormulaText kWeightNormalized{"make_weights", "w / sum"};
inline constexpr FormulaText kDialHigher{"resolve_tradeoff", "x / max(a, b)"};
inline constexpr FormulaText kDialLower{"resolve_tradeoff", "min(a, b) / x"};
inline constexpr FormulaText kTradeoffScore{"resolve_tradeoff",
                                            "w_q × s_q + w_l × s_l + w_t × s_t + w_c × s_c + w_m × s_m"};
inline constexpr FormulaText kDialContribution{"resolve_tradeoff", "w × (s_win − s_lose)"};
}  // namespace fx

}  // namespace modelcalc

#endif  // MODELCALC_FORMULA_TEXT_H_
