// Presentation of the deployment engine: the modeled deployment as report
// sections whose JSON keys are deployment.*, memory_per_gpu.*, decode_step.*
// and prefill.* -- the same keys and values in every command that shows them
// (size, kv-budget, roofline, diagnose, sweep rows). Reads results; never recomputes.
#ifndef MODELCALC_DEPLOYMENT_REPORT_H_
#define MODELCALC_DEPLOYMENT_REPORT_H_

#include <string>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "modelcalc/cost.h"
#include "modelcalc/deployment.h"
#include "modelcalc/gpu.h"
#include "modelcalc/scenario.h"
#include "modelcalc/serving.h"
#include "report.h"

namespace modelcalc {

// "Deployment", "Memory per GPU", "Decode step", "Prefill" sections: the
// ceiling's keys, and with a prediction, beside each, the same keys under
// `predicted` (memory_per_gpu.predicted.*, decode_step.predicted.*,
// prefill.predicted.*) and an "Engine" section (engine.*: the profile, its
// settings and its memory as the engine's startup log states it).
std::vector<Section> deployment_sections(const GpuSpec& gpu, const DeploymentAnalysis& a,
                                         const DeploymentPrediction* p = nullptr);
// deployment_sections for an optional prediction: without one (no engine profile runs on `gpu` and none
// was named), the ceiling's sections and no_engine_section(gpu).
std::vector<Section> deployment_sections_for(const GpuSpec& gpu, const DeploymentAnalysis& a,
                                             const std::optional<DeploymentPrediction>& p);
// The "Engine" section alone.
Section engine_section(const DeploymentPrediction& p);
// The "Engine" section of a GPU no profile runs on: engine.profile null, and why (default_engine_for).
Section no_engine_section(const GpuSpec& gpu);
// The steady state of continuous batching at the analysis' batch for requests
// of isl prompt and osl output tokens (serving.*, serving.predicted.*): what
// plan evaluates for the same configuration and batch.
// `profile` null: the ceiling alone (no engine profile runs on the GPU).
Section serving_section(const ServingPair& s, int64_t isl, int64_t osl, const EngineProfile* profile);

// The engine's figures for one scenario as JSON: {"memory_per_gpu": {...},
// "decode_step": {...}}, the very objects deployment_sections() renders for a
// command's own deployment (same function, same keys, same values; with a
// prediction, its `predicted` siblings too). Every
// proposal's `after` is this, so it reads like `size --json` for the same flags.
nlohmann::json engine_figures_json(const GpuSpec& gpu, const DeploymentAnalysis& a,
                                   const DeploymentPrediction* p = nullptr);
// A change as the flags that make it, named without their dashes:
// {"dtype": "int8"}, {"kv_dtype": "fp8"}, {"batch": 64}, {"context": 4096},
// {"gpus": 4, "tp": 4, "pp": 1, "ep": 1, "dp": 1}, {"gpu": "h200"}.
nlohmann::json change_json(const ScenarioChange& c);
// The same as command-line flags: "--dtype int8", "--gpus 4 --tp 4 ...".
std::string change_flags(const ScenarioChange& c);
// A proposal in JSON: {"change": change_json, "after": engine_figures_json}.
nlohmann::json variation_json(const Variation& v);
// What decides a step, in words with its number: "memory time 3.89 ms of the
// 4.27 ms step" (bandwidth-bound), "compute time ...", "communication ...",
// or "batch 16 > the 11 sequences HBM holds" (capacity-bound).
std::string deciding_term(const DeploymentResult& r);
// "234 → 414 tokens/s per sequence (1.77×), aggregate 234 → 414; memory
// time 3.89 ms of the 4.27 ms step → 2.06 ms of 2.42 ms decides": the engine
// before and after a change, per sequence and aggregate, with the deciding term.
std::string before_after(const DeploymentResult& before, const DeploymentResult& after);

// `size`: the answer, first: the engine's decode speed, sequences that fit,
// TTFT and the serving regime (roofline.regime), each from the engine.
// With a prediction, the engine profile's decode speed and admitted sequences beside the ceiling's.
Section answer_section(const DeploymentAnalysis& a, const ServingRegimeAnswer& regime,
                       const DeploymentPrediction* p = nullptr);

// `cost`: the modeled deployment priced (cost.modeled_usd_per_million_tokens).
// The cost answer: at the serving engine's predicted rate (`predicted`, null where no profile runs, and
// `no_prediction` says why), then at the ceiling's.
Section modeled_cost_section(const ModeledCost& c, const ModeledCost* predicted, std::string_view no_prediction);

// The same numbers as a flat JSON object (for sweep rows and streaming output).
nlohmann::json deployment_json(const GpuSpec& gpu, const DeploymentAnalysis& a,
                               const DeploymentPrediction* p = nullptr);

}  // namespace modelcalc

#endif  // MODELCALC_DEPLOYMENT_REPORT_H_
