// Presentation of the capacity analyses (kv-budget, train-memory, paged-kv):
// each result becomes a Report, so text, --explain and JSON agree.
#ifndef MODELCALC_CAPACITY_REPORT_H_
#define MODELCALC_CAPACITY_REPORT_H_

#include <string>

#include "modelcalc/capacity.h"
#include "modelcalc/gpu.h"
#include "modelcalc/model.h"
#include "report.h"

namespace modelcalc {

// `gpu` may be null when the budget was given directly. Sections 1-3 are
// drill 2's teaching view (the GPUs pooled); `proposals` (the engine's, null
// without a GPU) make section 4, each with its change and the engine's after.
Report build_kv_budget_report(const ModelSpec& m, const GpuSpec* gpu, const KvBudgetOptions& o,
                              const KvBudgetResult& r, const KvProposals* proposals);
// `m` is null when only a parameter count was given.
Report build_train_memory_report(const ModelSpec* m, const GpuSpec& gpu, const TrainMemoryOptions& o,
                                 const TrainMemoryResult& r);
// `kv_source` says where the KV bytes per token came from (a model, or the flag).
Report build_paged_kv_report(const PagedKvResult& r, int64_t block_size, const std::string& kv_source);

// Lower-case names: "adamw", "adamw-fp32", "sgd", "adam8bit"; "none", "selective", "full".
const char* optimizer_name(Optimizer o);
const char* recompute_name(Recompute r);

}  // namespace modelcalc

#endif  // MODELCALC_CAPACITY_REPORT_H_
