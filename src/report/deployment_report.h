// Presentation of the deployment engine: the modeled deployment as report
// sections whose JSON keys are deployment.*, memory_per_gpu.*, decode_step.*
// and prefill.* -- the same keys and values in every command that shows them
// (size, kv-budget, roofline, diagnose, sweep rows). Reads results; never recomputes.
#ifndef MODELCALC_DEPLOYMENT_REPORT_H_
#define MODELCALC_DEPLOYMENT_REPORT_H_

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "modelcalc/cost.h"
#include "modelcalc/deployment.h"
#include "modelcalc/gpu.h"
#include "modelcalc/serving.h"
#include "modelcalc/size.h"
#include "report.h"

namespace modelcalc {

// "Deployment", "Memory per GPU", "Decode step", "Prefill" sections: the
// ceiling's keys, and with a prediction, beside each, the same keys under
// `predicted` (memory_per_gpu.predicted.*, decode_step.predicted.*,
// prefill.predicted.*) and an "Engine" section (engine.*: the profile, its
// settings and its memory as the engine's startup log states it).
std::vector<Section> deployment_sections(const GpuSpec& gpu, const DeploymentAnalysis& a,
                                         const DeploymentPrediction* p = nullptr);
// The "Engine" section alone.
Section engine_section(const DeploymentPrediction& p);
// The steady state of continuous batching at the analysis' batch for requests
// of isl prompt and osl output tokens (serving.*, serving.predicted.*): what
// plan evaluates for the same configuration and batch.
Section serving_section(const ServingPair& s, int64_t isl, int64_t osl, const EngineProfile& profile);
// `size`: the modeled figures beside drill 1's textbook ones, each with the
// reason they differ in one line. `one` is the same deployment at batch 1.
Section textbook_vs_modeled(const SizeResult& textbook, const DeploymentAnalysis& a, const DeploymentResult& one);

// `cost`: the modeled deployment priced (cost.modeled_usd_per_million_tokens).
Section modeled_cost_section(const ModeledCost& c);

// The same numbers as a flat JSON object (for sweep rows and streaming output).
nlohmann::json deployment_json(const GpuSpec& gpu, const DeploymentAnalysis& a,
                               const DeploymentPrediction* p = nullptr);

}  // namespace modelcalc

#endif  // MODELCALC_DEPLOYMENT_REPORT_H_
