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
#include "modelcalc/scenario.h"
#include "report.h"

namespace modelcalc {

// "Deployment", "Memory per GPU", "Decode step", "Prefill" sections.
std::vector<Section> deployment_sections(const GpuSpec& gpu, const DeploymentAnalysis& a);

// The engine's figures for one scenario as JSON: {"memory_per_gpu": {...},
// "decode_step": {...}}, the very objects deployment_sections() renders for a
// command's own deployment (same function, same keys, same values). Every
// proposal's `after` is this, so it reads like `size --json` for the same flags.
nlohmann::json engine_figures_json(const GpuSpec& gpu, const DeploymentAnalysis& a);
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
Section answer_section(const DeploymentAnalysis& a, const ServingRegimeAnswer& regime);

// `cost`: the modeled deployment priced (cost.modeled_usd_per_million_tokens).
Section modeled_cost_section(const ModeledCost& c);

// The same numbers as a flat JSON object (for sweep rows and streaming output).
nlohmann::json deployment_json(const GpuSpec& gpu, const DeploymentAnalysis& a);

}  // namespace modelcalc

#endif  // MODELCALC_DEPLOYMENT_REPORT_H_
