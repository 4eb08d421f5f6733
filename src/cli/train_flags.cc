#include "train_flags.h"

#include <algorithm>
#include <string>

#include "format.h"
#include "quantity.h"

namespace modelcalc {

namespace {

FlagParser<int64_t> count_to(int64_t max) {
  return [max](std::string_view text, std::string_view flag) -> Result<int64_t> {
    MC_ASSIGN_OR_RETURN(const int64_t v, parse_count(text, flag));
    if (v > max) {
      return Status::InvalidArgument(flag, "must be at most " + group_digits(max) + ", got " + quote_input(text));
    }
    return v;
  };
}

Result<int> parse_zero(std::string_view s, std::string_view flag) {
  if (s.size() != 1 || s[0] < '0' || s[0] > '3') {
    return Status::InvalidArgument(flag, "must be a ZeRO stage 0, 1, 2 or 3, got " + quote_input(s));
  }
  return s[0] - '0';
}

Result<bool> parse_grads(std::string_view s, std::string_view flag) {  // true = bf16
  if (s == "fp32") return false;
  if (s == "bf16" || s == "fp16") return true;
  return Status::InvalidArgument(flag, "expected fp32 (Megatron's main gradients) or bf16, got " + quote_input(s));
}

Result<double> parse_capacity_factor(std::string_view s, std::string_view flag) {
  MC_ASSIGN_OR_RETURN(const double v, parse_real(s, flag));
  if (!(v > 0 && v <= 1024)) return Status::InvalidArgument(flag, "must be a factor in (0, 1024], e.g. 1.25");
  return v;
}

}  // namespace

Result<Optimizer> parse_optimizer(std::string_view s, std::string_view flag) {
  if (s == "adamw" || s == "adam") return Optimizer::kAdamW;
  if (s == "adamw-fp32") return Optimizer::kAdamWFp32;
  if (s == "sgd") return Optimizer::kSgd;
  if (s == "adam8bit") return Optimizer::kAdam8bit;
  return Status::InvalidArgument(flag, "expected adamw, adamw-fp32, sgd or adam8bit, got " + quote_input(s));
}

Result<Recompute> parse_recompute(std::string_view s, std::string_view flag) {
  if (s == "none") return Recompute::kNone;
  if (s == "selective") return Recompute::kSelective;
  if (s == "full") return Recompute::kFull;
  return Status::InvalidArgument(flag, "expected none, selective or full, got " + quote_input(s));
}

void add_train_run_flags(FlagSet& flags, TrainRunFlags* f, TrainFlagGroups groups, const char* seq_default,
                         const char* gpus_default) {
  add_deployment_flags(flags, &f->dep,
                       {{Dep::kGpus, gpus_default},
                        {Dep::kTp, "1; divides the heads and the KV heads"},
                        {Dep::kPp, "1; divides the layers unless an uneven split below makes it even"},
                        {Dep::kDp, "1"},
                        {Dep::kEp, "1; MoE only, divides the experts and dp x cp"},
                        {Dep::kSeq, seq_default}});
  flags
      .add<int64_t>("--cp", "Context-parallel degree: the sequence split over cp GPUs, needs --flash (default: 1)",
                    &f->cp, count_to(1024))
      .add<int64_t>("--virtual-stages",
                    "Model chunks per pipeline rank, v: the interleaved 1F1B schedule when > 1 (default: 1)",
                    &f->virtual_stages, count_to(kMaxModelChunks))
      .add<int64_t>("--microbatch-group",
                    "Interleaved schedule: micro-batches per virtual-stage group, pp to the micro-batches (default: pp)",
                    &f->microbatch_group, count_to(int64_t{1} << 20))
      .add<int64_t>("--first-stage-layers",
                    "Layers on the first pipeline stage, the rest even (Megatron's --decoder-first-pipeline-num-layers)",
                    &f->first_stage_layers, count_to(int64_t{1} << 20))
      .add<int64_t>("--last-stage-layers",
                    "Layers on the last pipeline stage, the rest even (Megatron's --decoder-last-pipeline-num-layers)",
                    &f->last_stage_layers, count_to(int64_t{1} << 20))
      .toggle("--embedding-in-split", "Count the embedding as a layer when splitting the pipeline (Megatron's "
                                      "--account-for-embedding-in-pipeline-split)",
              &f->embedding_in_split)
      .toggle("--loss-in-split",
              "Count the lm_head and loss as a layer when splitting the pipeline (--account-for-loss-in-pipeline-split)",
              &f->loss_in_split)
      .add<int64_t>("--micro-batch", "Sequences per micro-batch b, 1 to 1,048,576 (default: 1)", &f->micro_batch,
                    count_to(int64_t{1} << 20))
      .add<int64_t>("--global-batch",
                    "Sequences per optimizer step, a multiple of micro-batch x dp (default: micro-batch x dp x pp, the pipeline full)",
                    &f->global_batch, count_to(int64_t{1} << 40))
      .add<int>("--zero", "ZeRO stage 0-3 over dp x cp: shard optimizer (1, Megatron's distributed optimizer), "
                          "+ gradients (2), + weights (3, FSDP) (default: 0)",
                &f->zero, parse_zero)
      .add<Optimizer>("--optimizer", "adamw (mixed precision), adamw-fp32, sgd (momentum), adam8bit (default: adamw)",
                      &f->optimizer, parse_optimizer)
      .add<bool>("--grads", "Gradient dtype: fp32 (Megatron's main gradients for bf16 training) or bf16 (default: fp32)",
                 &f->bf16_grads, parse_grads)
      .add<Recompute>("--recompute", "Activation recomputation: none, selective (core attention), full (default: none)",
                      &f->recompute, parse_recompute)
      .toggle("--sequence-parallel", "Sequence parallelism: the norms' and dropouts' activations split over TP too",
              &f->sequence_parallel)
      .toggle("--flash", "FlashAttention (TE fused attention): no s x s scores kept, the causal half computed",
              &f->flash)
      .toggle("--dropout", "Attention and hidden dropout masks kept (GPT-3 style; modern LLMs train without)",
              &f->dropout)
      .add<double>("--capacity-factor", "MoE: expert capacity factor with padding (default: dropless)",
                   &f->capacity_factor, parse_capacity_factor)
      .add<double>("--overhead",
                   "Per-GPU reserve for the CUDA context, NCCL and cuBLAS buffers and allocator fragmentation "
                   "(default: 2GB)",
                   &f->overhead, [](std::string_view t, std::string_view fl) { return parse_bytes(t, fl); });
  if (groups == TrainFlagGroups::kStep) {
    flags
        .toggle("--no-overlap", "DP gradient reduction and parameter gathers not overlapped with compute",
                &f->no_overlap)
        .toggle("--causal", "Count the causal half of the attention FLOPs for MFU and HFU (default: all pairs, as "
                            "PaLM and Megatron count)",
                &f->causal);
  }
}

TrainOptions train_options(const TrainRunFlags& f, int64_t seq) {
  TrainOptions o;
  TrainLayout& l = o.layout;
  l.tp = f.dep.tp.value_or(1);
  l.pp = f.dep.pp.value_or(1);
  l.dp = f.dep.dp.value_or(1);
  l.ep = f.dep.ep.value_or(1);
  l.cp = f.cp.value_or(1);
  // --gpus without --dp: the replicas fill the GPUs (dp = gpus / (tp x cp x pp)), as size infers dp;
  // a count that does not divide is refused by check_gpu_count.
  if (!f.dep.dp && f.dep.gpus && l.tp > 0 && l.cp > 0 && l.pp > 0 && *f.dep.gpus % (l.tp * l.cp * l.pp) == 0) {
    l.dp = std::max<int64_t>(1, *f.dep.gpus / (l.tp * l.cp * l.pp));
  }
  l.virtual_stages = f.virtual_stages.value_or(1);
  l.microbatch_group = f.microbatch_group.value_or(0);
  l.first_stage_layers = f.first_stage_layers.value_or(0);
  l.last_stage_layers = f.last_stage_layers.value_or(0);
  l.embedding_in_split = f.embedding_in_split;
  l.loss_in_split = f.loss_in_split;
  o.seq = seq;
  o.micro_batch = f.micro_batch.value_or(1);
  o.global_batch = f.global_batch.value_or(0);
  o.zero = f.zero.value_or(0);
  o.optimizer = f.optimizer;
  o.fp32_grads = !f.bf16_grads;
  o.recompute = f.recompute;
  o.sequence_parallel = f.sequence_parallel;
  o.flash = f.flash;
  o.dropout = f.dropout;
  o.capacity_factor = f.capacity_factor.value_or(0);
  if (f.overhead) o.overhead_bytes = *f.overhead;
  o.overlap_dp = !f.no_overlap;
  o.attention_count = f.causal ? AttentionCount::kCausal : AttentionCount::kFull;
  return o;
}

bool train_layout_given(const FlagSet& flags) {
  for (const char* name : {"--tp", "--pp", "--dp", "--cp", "--ep", "--virtual-stages", "--microbatch-group",
                           "--first-stage-layers", "--last-stage-layers", "--embedding-in-split", "--loss-in-split",
                           "--micro-batch", "--global-batch", "--zero"}) {
    if (flags.given(name)) return true;
  }
  return false;
}

Status check_gpu_count(const TrainRunFlags& f, const TrainOptions& o) {
  if (!f.dep.gpus) return Status::Ok();
  const TrainLayout& l = o.layout;
  if (*f.dep.gpus != l.gpus()) {
    return Status::InvalidArgument(
        "--gpus", "must equal tp x cp x pp x dp = " + std::to_string(l.tp) + " x " + std::to_string(l.cp) + " x " +
                      std::to_string(l.pp) + " x " + std::to_string(l.dp) + " = " + std::to_string(l.gpus()) +
                      ", got " + std::to_string(*f.dep.gpus));
  }
  return Status::Ok();
}

}  // namespace modelcalc
