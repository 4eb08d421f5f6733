// Presentation of the training engine: train-memory's per-stage memory, the
// engine's FLOPs per token and step time (train, mfu), and the names they
// share. Each builder reads results (training.h); none recomputes them.
#ifndef MODELCALC_TRAIN_MEMORY_REPORT_H_
#define MODELCALC_TRAIN_MEMORY_REPORT_H_

#include <string>
#include <vector>

#include "modelcalc/gpu.h"
#include "modelcalc/model.h"
#include "modelcalc/training.h"
#include "report.h"

namespace modelcalc {

// `m` is null when only a parameter count was given. REQUIRES: r came from
// analyze_train_memory(m, gpu, o).
Report build_train_memory_report(const ModelSpec* m, const GpuSpec& gpu, const TrainOptions& o,
                                 const TrainMemoryResult& r);

// The engine's FLOPs per token as lines keyed `prefix`.per_token_* (train,
// mfu, train-plan show the same lines).
std::vector<Line> train_flops_lines(const std::string& prefix, const ModelSpec& m, int64_t seq, Recompute rc,
                                    AttentionCount count, const TrainFlopsPerToken& f);
// One step of a layout, by part (`prefix`.*): the prediction and the ceiling.
Section train_step_section(const std::string& title, const std::string& prefix, const GpuSpec& gpu,
                           const TrainOptions& o, const TrainStepResult& r, double tokens);

// Lower-case names: "adamw", "adamw-fp32", "sgd", "adam8bit"; "none", "selective", "full".
const char* optimizer_name(Optimizer o);
const char* recompute_name(Recompute r);
// "TP 8 × CP 1 × PP 16 × DP 64" (and ", v 8" when interleaved, ", EP n" for MoE).
std::string layout_text(const TrainLayout& l);
// A model's display name: its preset or file name, else its shape.
std::string train_model_label(const ModelSpec& m);

}  // namespace modelcalc

#endif  // MODELCALC_TRAIN_MEMORY_REPORT_H_
