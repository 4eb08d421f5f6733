// The training run's flags, declared once for train, train-memory and
// train-plan: the layout (--gpus --tp --pp --dp --cp --ep --virtual-stages
// and Megatron's uneven splits), the batch (--seq --micro-batch
// --global-batch) and what each GPU keeps (--zero --optimizer --grads
// --recompute --sequence-parallel --flash --dropout --capacity-factor
// --overhead --no-overlap), mapped onto TrainOptions.
#ifndef MODELCALC_TRAIN_FLAGS_H_
#define MODELCALC_TRAIN_FLAGS_H_

#include <cstdint>
#include <optional>
#include <string_view>

#include "flags.h"
#include "inputs.h"
#include "modelcalc/status.h"
#include "modelcalc/training.h"

namespace modelcalc {

struct TrainRunFlags {
  DeploymentFlags dep;  // --gpus --tp --pp --ep --dp --seq
  std::optional<int64_t> cp, virtual_stages, microbatch_group, first_stage_layers, last_stage_layers;
  std::optional<int64_t> micro_batch, global_batch;
  bool embedding_in_split = false, loss_in_split = false;
  std::optional<int> zero;
  Optimizer optimizer = Optimizer::kAdamW;
  bool bf16_grads = false;  // --grads bf16
  Recompute recompute = Recompute::kNone;
  bool sequence_parallel = false, flash = false, dropout = false, no_overlap = false, causal = false;
  std::optional<double> capacity_factor, overhead;
};

// Which groups a command takes.
enum class TrainFlagGroups {
  kMemory,  // train-memory: layout, batch, states, activations
  kStep,    // train: the same plus --no-overlap and --causal
};
// Declares the flags; `seq_default` and `gpus_default` are the defaults --help states.
void add_train_run_flags(FlagSet& flags, TrainRunFlags* f, TrainFlagGroups groups, const char* seq_default,
                         const char* gpus_default = "tp x cp x pp x dp; given without --dp, dp = gpus / (tp x cp "
                                                    "x pp); given with it, it must equal tp x cp x pp x dp");

// The options the flags describe; `seq` is the context to use (--seq or the
// command's default).
TrainOptions train_options(const TrainRunFlags& f, int64_t seq);
// True when any layout or batch flag was given (train evaluates a step only then).
bool train_layout_given(const FlagSet& flags);
// --gpus, when given, must equal tp x cp x pp x dp (train_options derives dp from it when --dp is not given).
Status check_gpu_count(const TrainRunFlags& f, const TrainOptions& o);

// "adamw", "adamw-fp32", "sgd", "adam8bit"; "none", "selective", "full".
Result<Optimizer> parse_optimizer(std::string_view s, std::string_view flag);
Result<Recompute> parse_recompute(std::string_view s, std::string_view flag);

}  // namespace modelcalc

#endif  // MODELCALC_TRAIN_FLAGS_H_
