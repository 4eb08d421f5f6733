// Presentation of the capacity analyses (kv-budget, paged-kv; train-memory's is train_memory_report.h):
// each result becomes a Report, so text, --explain and JSON agree.
#ifndef MODELCALC_CAPACITY_REPORT_H_
#define MODELCALC_CAPACITY_REPORT_H_

#include <string>

#include "modelcalc/capacity.h"
#include "modelcalc/deployment.h"
#include "modelcalc/serving.h"
#include "modelcalc/gpu.h"
#include "modelcalc/model.h"
#include "report.h"

namespace modelcalc {

// `gpu` may be null when the budget was given directly. Sections 1-3 are
// drill 2's teaching view (the GPUs pooled); section 4 is `proposals` (the
// engine's, with a GPU and no budget), else `budget_proposals` (drill 2's
// changes under the budget), each with its change and its after.
Report build_kv_budget_report(const ModelSpec& m, const GpuSpec* gpu, const KvBudgetOptions& o,
                              const KvBudgetResult& r, const KvProposals* proposals,
                              const BudgetProposals* budget_proposals);
// kv-budget's answer with a GPU (no budget): the sequences the serving engine admits (predicted, when a
// profile runs on the GPU; else said), the ceiling's per replica beside it, the KV a sequence holds per GPU
// and the smallest change reaching x2 among `proposals`. Reads the figures; computes none.
Section kv_budget_answer_section(const ModelSpec& m, const KvBudgetOptions& o, const DeploymentAnalysis& d,
                                 const DeploymentPrediction* p, const GpuSpec& gpu, const KvProposals* proposals);
// `kv_source` says where the KV bytes per token came from (a model, or the flag).
Report build_paged_kv_report(const PagedKvResult& r, int64_t block_size, const std::string& kv_source);

}  // namespace modelcalc

#endif  // MODELCALC_CAPACITY_REPORT_H_
