// The shared field list (fields.h). Each declaration states what the field
// holds, its range and its help once; the request tables (tables.cc) refer to
// them. Custom parsers keep the wording of a field whose check is not a plain
// range (a fraction below 1, a factor from 1 to 64, the engines' names).
#include "modelcalc/app/fields.h"

#include <array>
#include <string>

#include "modelcalc/engine_profile.h"
#include "quantity.h"

namespace modelcalc::app {

namespace {

constexpr double kGpuMax = 1 << 20;            // 1,048,576 GPUs
constexpr double kTokenMax = double{1 << 30};  // 2^30 tokens
constexpr double kCountMax = 1e15;

Result<Value> reserve_parser(const Field&, std::string_view text, std::string_view name) {
  MC_ASSIGN_OR_RETURN(const double v, parse_fraction(text, name));
  if (!(v < 1)) {
    return Status::InvalidArgument(name, "is the fraction of memory kept back, in [0, 1) (e.g. 0.1 or 10%), got " +
                                             std::string(text));
  }
  return Value{v};
}

Result<Value> kv_dtype_parser(const Field&, std::string_view text, std::string_view name) {
  MC_ASSIGN_OR_RETURN(const Dtype d, parse_kv_dtype(text, name));
  return Value{d};
}

Result<Value> imbalance_parser(const Field&, std::string_view text, std::string_view name) {
  MC_ASSIGN_OR_RETURN(const double v, parse_real(text, name));
  if (!(v >= 1 && v <= 64)) {
    return Status::InvalidArgument(name, "expected a factor from 1 to 64, got '" + std::string(text) + "'");
  }
  return Value{v};
}

Result<Value> redundant_parser(const Field&, std::string_view text, std::string_view name) {
  if (text == "0") return Value{int64_t{0}};
  MC_ASSIGN_OR_RETURN(const int64_t v, parse_count(text, name));
  if (v > (int64_t{1} << 20)) return Status::InvalidArgument(name, "must be at most 1,048,576");
  return Value{v};
}

Result<Value> spec_tokens_parser(const Field&, std::string_view text, std::string_view name) {
  auto v = parse_count(text, name);
  if (!v.ok() || *v > 64) {
    return Status::InvalidArgument(name, "expected a whole number of draft tokens from 1 to 64, got '" +
                                             std::string(text) + "'");
  }
  return Value{*v};
}

Result<Value> prefix_tokens_parser(const Field&, std::string_view text, std::string_view name) {
  if (text == "0") return Value{int64_t{0}};
  auto v = parse_count(text, name);
  if (!v.ok() || *v > (int64_t{1} << 30)) {
    return Status::InvalidArgument(name, "expected a whole number of tokens from 0 to 2^30, got '" +
                                             std::string(text) + "'");
  }
  return Value{*v};
}

Result<Value> spec_method_parser(const Field&, std::string_view text, std::string_view name) {
  if (text == "mtp" || text == "draft" || text == "none") return Value{std::string(text)};
  return Status::InvalidArgument(name, "unknown drafter '" + std::string(text) + "'; choose mtp, draft or none");
}

Result<Value> engine_parser(const Field&, std::string_view text, std::string_view name) {
  MC_ASSIGN_OR_RETURN(const EngineRelease e, parse_engine(text, name));
  return Value{engine_release_key(e)};
}

// The engines' memory fractions: in (0, 1].
Result<Value> engine_fraction_parser(const Field&, std::string_view text, std::string_view name) {
  auto v = parse_fraction(text, name);
  if (!v.ok() || !(*v > 0)) {
    return Status::InvalidArgument(name, "expected a fraction in (0, 1], e.g. 0.9 or 90%, got '" + std::string(text) +
                                             "'");
  }
  return Value{*v};
}

Result<Value> utilization_parser(const Field&, std::string_view text, std::string_view name) {
  auto v = parse_fraction(text, name);
  if (!v.ok()) {
    return Status::InvalidArgument(name, "must be a fraction between 0 and 1 (or a percentage like 78%), got " +
                                             std::string(text));
  }
  return Value{*v};
}

// Where LO ends in "LO-HI" / "LO,HI": the first ',' or '-' after the first
// character that is not an exponent's sign ("1e-5-30" is 1e-5 to 30).
size_t range_separator(std::string_view text) {
  for (size_t i = 1; i < text.size(); ++i) {
    if (text[i] == ',') return i;
    if (text[i] == '-' && text[i - 1] != 'e' && text[i - 1] != 'E') return i;
  }
  return std::string_view::npos;
}

// "6-30", "6,30" or "12" microseconds.
Result<Value> us_range_parser(const Field& f, std::string_view text, std::string_view name) {
  const size_t sep = range_separator(text);
  auto lo = parse_real(text.substr(0, sep), name);
  const std::string bad = "expected LO-HI microseconds such as 8-15, got " + std::string(text);
  if (!lo.ok()) return Status::InvalidArgument(name, bad);
  double hi = *lo;
  if (sep != std::string_view::npos) {
    auto h = parse_real(text.substr(sep + 1), name);
    if (!h.ok()) return Status::InvalidArgument(name, bad);
    hi = *h;
  }
  if (*lo > hi) return Status::InvalidArgument(name, "LO must not exceed HI, got " + std::string(text));
  if (f.min_open && !(hi > 0)) {  // kernels take some time; gaps may be 0 (back to back)
    return Status::InvalidArgument(name, "a kernel must take some time, got " + quote_input(text));
  }
  return Value{Range{*lo, hi}};
}

Result<Value> intensity_parser(const Field&, std::string_view text, std::string_view name) {
  MC_ASSIGN_OR_RETURN(const double i, parse_real_count(text, name));
  if (!(i > 0)) return Status::InvalidArgument(name, "must be a positive number of FLOP per byte, e.g. 1");
  return Value{i};
}

Result<Value> gemm_parser(const Field&, std::string_view text, std::string_view name) {
  MC_ASSIGN_OR_RETURN(const int64_t n, parse_count(text, name));
  if (n > 1'000'000) return Status::InvalidArgument(name, "at most 1,000,000 (a square GEMM side n)");
  return Value{n};
}

Result<Value> efficiency_parser(const Field&, std::string_view text, std::string_view name) {
  auto v = parse_fraction(text, name);
  if (!v.ok() || !(*v > 0)) {
    return Status::InvalidArgument(name, "expected a fraction of the modelled ceiling in (0, 1], e.g. 0.6 or 60%, got '" +
                                             std::string(text) + "'");
  }
  return Value{*v};
}

// A count with "the most" wording: "must be at most 2^30 tokens, got 2G".
template <int64_t kMax, const char* kWhat>
Result<Value> bounded_parser(const Field&, std::string_view text, std::string_view name) {
  MC_ASSIGN_OR_RETURN(const int64_t v, parse_count(text, name));
  if (v > kMax) return Status::InvalidArgument(name, std::string("must be at most ") + kWhat + ", got " + std::string(text));
  return Value{v};
}
constexpr char kTokensWhat[] = "2^30 tokens";
constexpr char kSequencesWhat[] = "1e9 sequences";
constexpr char kGpusWhat[] = "1,048,576 (2^20)";
constexpr char k1024[] = "1024";
constexpr char k1000[] = "1000";

Result<Value> tps_per_user_parser(const Field&, std::string_view text, std::string_view name) {
  MC_ASSIGN_OR_RETURN(const double tps, parse_rate(text, name, {"tok", "tokens"}));
  if (tps > 1e6) return Status::InvalidArgument(name, "must be at most 1,000,000 tokens/s");
  return Value{tps};
}

constexpr std::string_view kSecondsHint =
    "a bare duration is seconds, so this is more than 10 s per token; write it with its unit (50ms)";
constexpr std::string_view kTtftHint =
    "a bare duration is seconds, so this is more than 10 minutes to the first token; write it with its unit (500ms)";

}  // namespace

namespace fields {

// ---------------------------------------------------------------- the model
const Field kModel{.name = "model", .flag = "model", .type = Type::kText,
                   .help = "A compiled-in preset, or a Hub repository id it lists (owner/name; modelcalc models lists them)"};
const Field kConfig{.name = "config", .flag = "config", .type = Type::kText,
                    .help = "A Hugging Face config.json, or a folder holding one (and, where its shards or "
                            "model.safetensors.index.json are there, their safetensors headers)",
                    .file = true};
const Field kCheckpoint{.name = "checkpoint", .flag = "checkpoint", .type = Type::kText,
                        .help = "A checkpoint folder: its config.json and the safetensors headers of its shards, "
                                "which are required (only the headers are read; the counts follow them)",
                        .file = true};
const Field kLayers{.name = "layers", .flag = "layers", .short_flag = 'L', .type = Type::kInt, .min = 1,
                    .max = kCountMax, .help = "Transformer layers L, a positive count"};
const Field kHidden{.name = "hidden", .flag = "hidden", .short_flag = 'd', .type = Type::kInt, .min = 1,
                    .max = kCountMax, .help = "Hidden size d, a positive count"};
const Field kHeads{.name = "heads", .flag = "heads", .type = Type::kInt, .min = 1, .max = kCountMax,
                   .help = "Attention (query) heads h, a positive count"};
const Field kKvHeads{.name = "kv_heads", .flag = "kv-heads", .type = Type::kInt, .min = 1, .max = kCountMax,
                     .help = "KV heads, dividing --heads", .default_text = "--heads, i.e. MHA"};
const Field kHeadDim{.name = "head_dim", .flag = "head-dim", .type = Type::kInt, .min = 1, .max = kCountMax,
                     .help = "Head dimension", .default_text = "hidden / heads"};
const Field kFfn{.name = "ffn", .flag = "ffn", .type = Type::kInt, .min = 1, .max = kCountMax,
                 .help = "FFN inner width d_ff, a positive count"};
const Field kGlu{.name = "glu", .flag = "glu", .type = Type::kBool,
                 .help = "Gated FFN (SwiGLU/GeGLU): gate, up, down = three matrices"};
const Field kVocab{.name = "vocab", .flag = "vocab", .type = Type::kInt, .min = 1, .max = kCountMax,
                   .help = "Vocabulary size, a positive count"};
const Field kTied{.name = "tied", .flag = "tied", .type = Type::kBool,
                  .help = "Tied input embedding and lm_head (default: untied)"};

// ---------------------------------------------------------------- the GPU
const Field kGpu{.name = "gpu", .flag = "gpu", .type = Type::kText,
                 .help = "GPU from the catalog (modelcalc gpus lists them)"};
const Field kBandwidth{.name = "bandwidth", .flag = "bandwidth", .type = Type::kReal, .unit = Unit::kBytesPerS,
                       .help = "Memory bandwidth, e.g. 3.35TB/s (overrides --gpu's)"};
const Field kCapacity{.name = "capacity", .flag = "capacity", .type = Type::kReal, .unit = Unit::kBytes,
                      .help = "Memory capacity, e.g. 80GB or 81559MiB (binary KiB/MiB/GiB/TiB too; overrides --gpu's)"};
const Field kPeak{.name = "peak", .flag = "peak", .type = Type::kReal, .unit = Unit::kFlopPerS,
                  .help = "Dense bf16 peak, e.g. 989.4TFLOPS (overrides --gpu's)"};

// ---------------------------------------------------------------- the deployment
const Field kGpus{.name = "gpus", .flag = "gpus", .type = Type::kInt, .unit = Unit::kGpus, .min = 1, .max = kGpuMax,
                  .help = "GPUs the model is split over, 1 to 1,048,576", .default_text = "1"};
const Field kTp{.name = "tp", .flag = "tp", .type = Type::kInt, .unit = Unit::kGpus, .min = 1, .max = kGpuMax,
                .help = "Tensor-parallel degree, 1 to 1,048,576",
                .default_text = "--gpus / (pp x dp); must divide the heads"};
const Field kPp{.name = "pp", .flag = "pp", .type = Type::kInt, .unit = Unit::kGpus, .min = 1, .max = kGpuMax,
                .help = "Pipeline-parallel degree, 1 to 1,048,576", .default_text = "1; must divide the layers"};
const Field kEp{.name = "ep", .flag = "ep", .type = Type::kInt, .unit = Unit::kGpus, .min = 1, .max = kGpuMax,
                .help = "Expert-parallel degree, 1 to 1,048,576",
                .default_text = "1; experts spread inside the TP group (divides --tp and the experts); with "
                                "--dp-attention all of the replica's GPUs (divides --gpus)"};
const Field kDp{.name = "dp", .flag = "dp", .type = Type::kInt, .unit = Unit::kGpus, .min = 1, .max = kGpuMax,
                .help = "Data-parallel replicas, 1 to 1,048,576",
                .default_text = "1; replicas of the tp x pp group, --gpus = tp x pp x dp"};
const Field kContext{.name = "context", .flag = "seq", .aliases = "context", .type = Type::kInt,
                     .unit = Unit::kTokens, .min = 1, .max = kTokenMax,
                     .help = "Context length T in tokens, 1 to 1,073,741,824; K = 1,000 (e.g. 8K = 8,000)",
                     .default_text = "8,192 tokens, or the model's max positions if smaller"};
const Field kBatch{.name = "batch", .flag = "batch", .type = Type::kInt, .unit = Unit::kSequences, .min = 1,
                   .max = kTokenMax, .help = "Concurrent sequences, 1 to 1,073,741,824", .default_text = "1"};
const Field kPrompt{.name = "prompt", .flag = "prompt", .type = Type::kInt, .unit = Unit::kTokens, .min = 1,
                    .max = kTokenMax, .help = "Prompt length in tokens, 1 to 1,073,741,824",
                    .default_text = "the context"};
const Field kDtype{.name = "dtype", .flag = "dtype", .type = Type::kDtype,
                   .help = "Weight dtype: fp32, fp16, bf16, fp8, int8, int4, nvfp4, mxfp4",
                   .default_text = "a quantized checkpoint's own (quantization_config), else bf16"};
const Field kComputeDtype{.name = "compute_dtype", .flag = "compute-dtype", .type = Type::kDtype,
                          .help = "Dtype the matmuls run in (its peak): fp32, fp16, bf16, fp8, int8, nvfp4, mxfp4",
                          .default_text = "fp8 weights -> fp8, int8/int4 weight-only -> bf16, else --dtype"};
const Field kKvDtype{.name = "kv_dtype", .flag = "kv-dtype", .type = Type::kDtype,
                     .help = "KV-cache dtype: fp32, fp16, bf16, fp8, int8, int4",
                     .default_text = "the KV dtype a quantized checkpoint states, else 16-bit as the weights (bf16; "
                                     "fp16 or fp32 with such weights), not following int8/int4/fp8",
                     .parse = kv_dtype_parser};
const Field kReserve{.name = "reserve", .flag = "reserve", .type = Type::kReal, .unit = Unit::kFraction, .min = 0,
                     .max = 1, .help = "Fraction of GPU memory kept back, in [0, 1): 0.1 or 10%",
                     .default_text = "0 for the ceiling (driver-exposed memory less the weights); given, it also sets "
                                     "the engine's fraction (1 - reserve) unless an engine flag does",
                     .parse = reserve_parser};

// ---------------------------------------------------------------- the serving layouts
const Field kDpAttention{
    .name = "dp_attention", .flag = "dp-attention", .type = Type::kBool,
    .help = "Attention data-parallel x MoE expert-parallel layout: --gpus is the replica's GPU count, attention, KV, "
            "dense FFN and lm_head run in --gpus / --tp groups (each holds only its own sequences' KV), the routed "
            "experts spread over --ep of them (default: all) with an all-to-all per MoE layer"};
const Field kExpertImbalance{.name = "expert_imbalance", .flag = "expert-imbalance", .type = Type::kReal,
                             .unit = Unit::kFactor, .min = 1, .max = 64,
                             .help = "Busiest EP rank's routed tokens / the mean, 1 to 64",
                             .default_text = "1, balanced; uniform routing's own spread is added",
                             .parse = imbalance_parser};
const Field kRedundantExperts{.name = "redundant_experts", .flag = "redundant-experts", .type = Type::kInt,
                              .min = 0, .max = kGpuMax,
                              .help = "EPLB-style redundant expert slots per MoE layer (memory; needs --ep > 1)",
                              .default_text = "0", .parse = redundant_parser};
const Field kTwoBatchOverlap{
    .name = "two_batch_overlap", .flag = "two-batch-overlap", .type = Type::kBool,
    .help = "Hide the all-to-all behind the other micro-batch's compute (SGLang's TBO, DeepSeek's dual micro-batch)"};
const Field kSpecTokens{.name = "spec_tokens", .flag = "spec-tokens", .type = Type::kInt, .min = 1, .max = 64,
                        .help = "Speculative decoding: draft tokens K per target step, 1 to 64 (needs --spec-method "
                                "mtp or --draft-model)",
                        .parse = spec_tokens_parser};
const Field kSpecAcceptance{.name = "spec_acceptance", .flag = "spec-acceptance", .type = Type::kReal,
                            .unit = Unit::kFraction, .min = 0, .max = 1,
                            .help = "Probability A each draft token is accepted, in [0, 1]: 0.8 or 80% (i.i.d.: "
                                    "(1 - A^(K+1)) / (1 - A) tokens per step)"};
const Field kSpecMethod{.name = "spec_method", .flag = "spec-method", .type = Type::kChoice,
                        .choices = "mtp,draft,none",
                        .help = "Drafter: mtp (the model's multi-token-prediction module), draft (--draft-model; "
                                "the default when one is given) or none (no drafter; a frontier of plan then leaves MTP out)",
                        .parse = spec_method_parser};
const Field kDraftModel{.name = "draft_model", .flag = "draft-model", .type = Type::kText,
                        .help = "Draft model for speculative decoding: a preset name or a config.json path (dense, the "
                                "model's vocabulary)",
                        .file = true};
const Field kPrefixHit{.name = "prefix_hit", .flag = "prefix-hit", .type = Type::kReal, .unit = Unit::kFraction,
                       .min = 0, .max = 1,
                       .help = "Share of each prompt found in the prefix cache, in [0, 1): its tokens are not "
                               "prefilled",
                       .default_text = "0"};
const Field kPrefixTokens{.name = "prefix_tokens", .flag = "prefix-tokens", .type = Type::kInt, .unit = Unit::kTokens,
                          .min = 0, .max = kTokenMax,
                          .help = "A prefix every request shares, in tokens: cached, its KV held once per attention "
                                  "group",
                          .default_text = "0", .parse = prefix_tokens_parser};
const Field kDisaggregated{
    .name = "disaggregated", .flag = "disaggregated", .type = Type::kBool,
    .help = "Search a prefill pool and a decode pool (x prefill replicas per y decode replicas, each its own GPU kind, "
            "split and dtypes; the KV moved over the NICs) and compare with the best aggregated plan"};
const Field kKvTransferOverlap{.name = "kv_transfer_overlap", .flag = "kv-transfer-overlap", .type = Type::kBool,
                               .help = "Disaggregated: the KV streamed layer by layer behind the prefill (only the "
                                       "last layer's share adds to TTFT; default: sent after it)"};

// ---------------------------------------------------------------- the engine
const Field kEngine{.name = "engine", .flag = "engine", .type = Type::kChoice,
                    .choices = "trtllm,trtllm-pytorch,vllm,vllm-v0,sglang",
                    .help = "Serving engine release the prediction models, NAME[@VERSION]: trtllm (TensorRT engines, "
                            "0.x), trtllm-pytorch (PyTorch backend, 1.x), vllm (V1, 0.8 on), vllm-v0, sglang; a "
                            "version picks the family (vllm@0.6 is V0, trtllm@1.0 the PyTorch backend); without one, "
                            "the family's current release; when given, a layout that engine will not load is refused "
                            "(docs/planning.md)",
                    .default_text = "the GPU vendor's: trtllm on NVIDIA, vllm on AMD; none on TPU and Gaudi (the ceiling alone)",
                    .parse = engine_parser};
const Field kProfile{.name = "profile", .flag = "profile", .type = Type::kText,
                     .help = "A profile file of time parameters, as `calibrate --fit --data FILE --write FILE` "
                             "writes it (engine, parameter, value rows): the prediction uses it instead of the "
                             "compiled-in one and names it in engine.profile",
                     .default_text = "the compiled-in profile of the engine (data/engine_profiles.tsv)",
                     .file = true};
const Field kGpuMemoryUtilization{.name = "gpu_memory_utilization", .flag = "gpu-memory-utilization",
                                  .type = Type::kReal, .unit = Unit::kFraction, .min = 0, .max = 1, .min_open = true,
                                  .help = "vLLM: fraction of GPU memory it may use, (0, 1]", .default_text = "0.9",
                                  .parse = engine_fraction_parser};
const Field kKvCacheFreeGpuMemFraction{
    .name = "kv_cache_free_gpu_mem_fraction", .flag = "kv-cache-free-gpu-mem-fraction", .type = Type::kReal,
    .unit = Unit::kFraction, .min = 0, .max = 1, .min_open = true,
    .help = "TensorRT-LLM: fraction of the memory free after weights and activations given to KV, (0, 1]",
    .default_text = "0.95, as NVIDIA's published runs; its own default is 0.9", .parse = engine_fraction_parser};
const Field kSwaFullTokensRatio{.name = "swa_full_tokens_ratio", .flag = "swa-full-tokens-ratio", .type = Type::kReal,
                                .unit = Unit::kFraction, .min = 0, .max = 1, .min_open = true,
                                .help = "SGLang: the sliding-window layers' pool in tokens per token of the full "
                                        "layers' pool, (0, 1] (server_args.py swa_full_tokens_ratio); for a model "
                                        "mixing sliding and full layers",
                                .default_text = "0.8, SGLang's", .parse = engine_fraction_parser};
const Field kMemFractionStatic{.name = "mem_fraction_static", .flag = "mem-fraction-static", .type = Type::kReal,
                               .unit = Unit::kFraction, .min = 0, .max = 1, .min_open = true,
                               .help = "SGLang: fraction of GPU memory for weights and the KV pool, (0, 1]",
                               .default_text = "0.88 at TP 1 down to 0.79 at TP 16", .parse = engine_fraction_parser};
const Field kMaxModelLen{.name = "max_model_len", .flag = "max-model-len", .type = Type::kInt, .unit = Unit::kTokens,
                         .min = 1, .max = kCountMax,
                         .help = "Tokens one sequence may hold, at most the model's limit",
                         .default_text = "the model's max_position_embeddings"};
const Field kMaxNumBatchedTokens{.name = "max_num_batched_tokens", .flag = "max-num-batched-tokens",
                                 .aliases = "max-num-tokens", .type = Type::kInt, .unit = Unit::kTokens, .min = 1,
                                 .max = kCountMax,
                                 .help = "Tokens one engine step carries (TensorRT-LLM's max_num_tokens)",
                                 .default_text = "the engine's"};
const Field kMaxNumSeqs{.name = "max_num_seqs", .flag = "max-num-seqs", .aliases = "max-batch-size",
                        .type = Type::kInt, .unit = Unit::kSequences, .min = 1, .max = kCountMax,
                        .help = "Sequences one engine step carries (TensorRT-LLM's max_batch_size)",
                        .default_text = "the engine's"};
const Field kBlockSize{.name = "block_size", .flag = "block-size", .type = Type::kInt, .unit = Unit::kTokens,
                       .min = 1, .max = kCountMax, .help = "Tokens per KV block",
                       .default_text = "vllm 16, trtllm 64, sglang 1"};
const Field kAllowLongMaxModelLen{.name = "allow_long_max_model_len", .flag = "allow-long-max-model-len",
                                  .type = Type::kBool,
                                  .help = "Let --max-model-len exceed the model's limit (vLLM's "
                                          "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1)"};

// ---------------------------------------------------------------- size, kv-budget, cost
const Field kTrainTokens{.name = "train_tokens", .flag = "train-tokens", .type = Type::kReal, .unit = Unit::kTokens,
                         .min = 0, .max = 1e27, .min_open = true, .help = "Training tokens D for 6·N·D, e.g. 1.5T"};
const Field kBudget{.name = "budget", .flag = "budget", .type = Type::kReal, .unit = Unit::kBytes,
                    .help = "The KV budget directly, e.g. 40GB (skips capacity, weights, allowance)"};
const Field kWorkspace{.name = "workspace", .flag = "workspace", .type = Type::kReal, .unit = Unit::kBytes,
                       .help = "Activation/workspace allowance, e.g. 2GB",
                       .default_text = "2048 x (FFN width + vocab) x 2 B"};
const Field kMeanLen{.name = "mean_len", .flag = "mean-len", .type = Type::kInt, .unit = Unit::kTokens, .min = 1,
                     .max = kCountMax, .help = "Mean sequence length for the paged-allocation proposal",
                     .default_text = "context / 2"};
const Field kPricePerHour{.name = "price_per_hour", .flag = "price-per-hour", .type = Type::kReal,
                          .unit = Unit::kUsdPerHour, .min = 0, .max = 1e9, .min_open = true,
                          .help = "USD per GPU-hour, e.g. 2.50"};
const Field kTokensPerS{.name = "tokens_per_s", .flag = "tokens-per-s", .type = Type::kReal, .unit = Unit::kTokensPerS,
                        .min = 0, .max = 1e27, .min_open = true,
                        .help = "Measured throughput, aggregate over all GPUs"};

// ---------------------------------------------------------------- diagnose
const Field kEvidence{.name = "evidence", .flag = "evidence", .type = Type::kText,
                      .help = "Evidence JSON file (see tests/evidence/case_a.json); flags override it", .file = true};
const Field kPhase{.name = "phase", .flag = "phase", .type = Type::kChoice, .choices = "decode,prefill,training",
                   .help = "decode, prefill or training", .default_text = "inferred from the measurements"};
const Field kParams{.name = "params", .flag = "params", .type = Type::kReal, .unit = Unit::kCount, .min = 0,
                    .max = 1e27, .min_open = true, .help = "Total parameters N, e.g. 13B"};
const Field kAggregateTokensPerS{.name = "aggregate_tokens_per_s", .flag = "aggregate-tokens-per-s",
                                 .type = Type::kReal, .unit = Unit::kTokensPerS, .min = 0, .max = 1e9,
                                 .min_open = true, .help = "Measured tokens/s over all sequences"};
const Field kTtft{.name = "ttft", .flag = "ttft", .type = Type::kReal, .unit = Unit::kSeconds, .min = 0,
                  .max = 86400, .min_open = true, .plausible_lo = 0, .plausible_hi = 600,
                  .plausible_hint = kTtftHint,
                  .help = "Time to first token: 500ms, 1s, or a bare number of seconds (0.5)"};
const Field kItl{.name = "itl", .flag = "itl", .type = Type::kReal, .unit = Unit::kSeconds, .min = 0, .max = 86400,
                 .min_open = true, .plausible_lo = 0, .plausible_hi = 10, .plausible_hint = kSecondsHint,
                 .help = "Measured inter-token latency: 6ms, or a bare number of seconds (0.006)"};
const Field kFlopUtil{.name = "flop_util", .flag = "flop-util", .type = Type::kReal, .unit = Unit::kFraction,
                      .min = 0, .max = 1, .help = "Achieved FLOP/s ÷ peak: 0.61 or 61%", .parse = utilization_parser};
const Field kBwUtil{.name = "bw_util", .flag = "bw-util", .type = Type::kReal, .unit = Unit::kFraction, .min = 0,
                    .max = 1, .help = "Achieved HBM bandwidth ÷ peak: 0.78 or 78%", .parse = utilization_parser};
const Field kKernelsPerStep{.name = "kernels_per_step", .flag = "kernels-per-step", .type = Type::kInt, .min = 1,
                            .max = kCountMax, .help = "Kernels launched per step (from a timeline)"};
const Field kKernelUs{.name = "kernel_us", .flag = "kernel-us", .type = Type::kRange, .unit = Unit::kMicroseconds,
                      .min = 0, .min_open = true, .help = "Kernel durations, LO-HI microseconds, e.g. 6-30",
                      .parse = us_range_parser};
const Field kGapUs{.name = "gap_us", .flag = "gap-us", .type = Type::kRange, .unit = Unit::kMicroseconds,
                   .help = "Gaps between kernels, LO-HI microseconds, e.g. 8-15", .parse = us_range_parser};
const Field kPeakTransient{.name = "peak_transient", .flag = "peak-transient", .type = Type::kReal,
                           .unit = Unit::kBytes, .help = "Peak allocation above the weights, e.g. 40GB"};

// ---------------------------------------------------------------- roofline
const Field kIntensity{.name = "intensity", .flag = "intensity", .type = Type::kReal, .unit = Unit::kFlopPerByte,
                       .min = 0, .max = 1e27, .min_open = true,
                       .help = "Place this arithmetic intensity (FLOP/byte), e.g. 1", .parse = intensity_parser};
const Field kGemm{.name = "gemm", .flag = "gemm", .type = Type::kInt, .min = 1, .max = 1e6,
                  .help = "Side n of the square GEMM point (n×n×n), 1 to 1,000,000", .default_text = "8192",
                  .parse = gemm_parser};

// ---------------------------------------------------------------- plan
const Field kIsl{.name = "isl", .flag = "isl", .type = Type::kInt, .unit = Unit::kTokens, .min = 1, .max = kTokenMax,
                 .help = "Input (prompt) tokens per request, 1 to 2^30, e.g. 2048",
                 .parse = bounded_parser<int64_t{1} << 30, kTokensWhat>};
const Field kOsl{.name = "osl", .flag = "osl", .type = Type::kInt, .unit = Unit::kTokens, .min = 1, .max = kTokenMax,
                 .help = "Output tokens per request, 1 to 2^30, e.g. 512",
                 .parse = bounded_parser<int64_t{1} << 30, kTokensWhat>};
const Field kQps{.name = "qps", .flag = "qps", .type = Type::kReal, .unit = Unit::kPerSecond, .min = 0, .max = 1e12,
                 .min_open = true,
                 .help = "Load: requests per second, up to 1e12, e.g. 20 (one of --qps, --rate, --concurrency)",
                 .default_text = "none"};
const Field kRate{.name = "rate", .flag = "rate", .type = Type::kReal, .unit = Unit::kTokensPerS, .min = 0,
                  .max = 1e12, .min_open = true, .help = "Load: output tokens per second, up to 1e12, e.g. 50K"};
const Field kConcurrency{.name = "concurrency", .flag = "concurrency", .type = Type::kInt, .unit = Unit::kSequences,
                         .min = 1, .max = 1e9, .help = "Load: concurrent sequences, 1 to 1e9, e.g. 256",
                         .parse = bounded_parser<1'000'000'000, kSequencesWhat>};
const Field kTpot{.name = "tpot", .flag = "tpot", .type = Type::kReal, .unit = Unit::kSeconds, .min = 0, .max = 86400,
                  .min_open = true, .plausible_lo = 0, .plausible_hi = 10, .plausible_hint = kSecondsHint,
                  .help = "Time per output token: 50ms, or a bare number of seconds (0.05)", .default_text = "none"};
const Field kTokensPerSPerUser{.name = "tokens_per_s_per_user", .flag = "tokens-per-s-per-user", .type = Type::kReal,
                               .unit = Unit::kTokensPerS, .min = 0, .max = 1e6, .min_open = true,
                               .help = "Target tokens/s per user, = 1 / TPOT, up to 1e6, e.g. 20 (instead of --tpot)",
                               .parse = tps_per_user_parser};
const Field kMaxGpus{.name = "max_gpus", .flag = "max-gpus", .type = Type::kInt, .unit = Unit::kGpus, .min = 1,
                     .max = kGpuMax, .help = "Most GPUs in total over all replicas, 1 to 2^20", .default_text = "64",
                     .parse = bounded_parser<int64_t{1} << 20, kGpusWhat>};
const Field kMaxPp{.name = "max_pp", .flag = "max-pp", .type = Type::kInt, .min = 1, .max = 1024,
                   .help = "Most pipeline stages searched: 1, 2, 4, ..., at most 1024", .default_text = "8",
                   .parse = bounded_parser<1024, k1024>};
const Field kPrice{.name = "price", .flag = "price", .type = Type::kText,
                   .help = "USD per GPU-hour overrides, e.g. h100=2.49,mi300x=1.5", .default_text = "data/prices.tsv"};
const Field kLengthDist{.name = "length_dist", .flag = "length-dist", .type = Type::kChoice,
                        .choices = "fixed,uniform-0.8",
                        .help = "How requests' lengths are drawn: fixed at isl/osl, or InferenceX's uniform in "
                                "[0.8 L, L], served at their means 0.9 isl and 0.9 osl",
                        .default_text = "fixed"};
const Field kCompare{.name = "compare", .flag = "compare", .type = Type::kText,
                     .help = "Published runs beside the frontier: a TSV in the shared serving schema "
                             "(docs/prediction.md), or 'shared' for the compiled-in ones; each run of the model, "
                             "the isl/osl and a GPU searched is a measured point with its prediction at the same "
                             "configuration and load (implies --frontier)",
                     .default_text = "no published runs", .file = true, .file_keyword = "shared"};
const Field kEfficiency{.name = "efficiency", .flag = "efficiency", .type = Type::kReal, .unit = Unit::kFraction,
                        .min = 0, .max = 1, .min_open = true,
                        .help = "Fraction of the ranked figures reached on top of the model, 0.6 or 60%",
                        .default_text = "1.0: the prediction as fitted", .parse = efficiency_parser};
const Field kTop{.name = "top", .flag = "top", .type = Type::kInt, .min = 1, .max = 1000,
                 .help = "Configurations listed, 1 to 1000", .default_text = "10",
                 .parse = bounded_parser<1000, k1000>};
const Field kRankBy{.name = "rank_by", .flag = "rank-by", .type = Type::kChoice, .choices = "predicted,ceiling",
                    .help = "Rank by the predicted figures or by the ceiling's", .default_text = "predicted"};
const Field kFrontier{.name = "frontier", .flag = "frontier", .type = Type::kBool,
                      .help = "Also print the Pareto frontier (tokens/s/user vs tokens/s/GPU)"};

// ---------------------------------------------------------------- sweep
const Field kColumns{.name = "fields", .flag = "fields", .type = Type::kText,
                     .help = "Columns to print, comma-separated ('help' lists them)",
                     .default_text = "the default columns"};

}  // namespace fields

namespace {

using namespace fields;
constexpr const Field* kAll[] = {
    &kModel, &kConfig, &kCheckpoint, &kLayers, &kHidden, &kHeads, &kKvHeads, &kHeadDim, &kFfn, &kGlu, &kVocab,
    &kTied, &kGpu,
    &kBandwidth, &kCapacity, &kPeak, &kGpus, &kTp, &kPp, &kEp, &kDp, &kContext, &kBatch, &kPrompt, &kDtype,
    &kComputeDtype, &kKvDtype, &kReserve, &kDpAttention, &kExpertImbalance, &kRedundantExperts, &kTwoBatchOverlap,
    &kSpecTokens, &kSpecAcceptance, &kSpecMethod, &kDraftModel, &kPrefixHit, &kPrefixTokens, &kDisaggregated,
    &kKvTransferOverlap, &kEngine, &kProfile, &kGpuMemoryUtilization, &kKvCacheFreeGpuMemFraction, &kMemFractionStatic,
    &kSwaFullTokensRatio, &kMaxModelLen, &kMaxNumBatchedTokens, &kMaxNumSeqs, &kBlockSize, &kAllowLongMaxModelLen, &kTrainTokens, &kBudget,
    &kWorkspace, &kMeanLen, &kPricePerHour, &kTokensPerS, &kEvidence, &kPhase, &kParams, &kAggregateTokensPerS,
    &kTtft, &kItl, &kFlopUtil, &kBwUtil, &kKernelsPerStep, &kKernelUs, &kGapUs, &kPeakTransient, &kIntensity, &kGemm,
    &kIsl, &kOsl, &kQps, &kRate, &kConcurrency, &kTpot, &kTokensPerSPerUser, &kMaxGpus, &kMaxPp, &kPrice,
    &kEfficiency, &kTop, &kRankBy, &kFrontier, &kCompare, &kLengthDist, &kColumns};

}  // namespace

std::span<const Field* const> all_fields() { return kAll; }

const Field* find_field(std::string_view name) {
  for (const Field* f : kAll) {
    if (f->name == name) return f;
  }
  return nullptr;
}

}  // namespace modelcalc::app
