// Everything modelcalc offers a C++ caller, in one include. Link modelcalc::modelcalc.
// (Headers under include/modelcalc/ are the public API; the core's internal
// headers live in src/core/ and are not installed.)
#ifndef MODELCALC_MODELCALC_H_
#define MODELCALC_MODELCALC_H_

#include "modelcalc/calibrate.h"  // fitting the step model on measured throughputs
#include "modelcalc/capacity.h"   // kv-budget and its engine proposals, train-memory, paged KV waste
#include "modelcalc/cost.h"       // the ceiling-based cost floor and the worked example
#include "modelcalc/defaults.h"   // every analysis's defaults, stated once
#include "modelcalc/deployment.h" // the deployment engine: a model on G GPUs, split and serving
#include "modelcalc/diagnose.h"   // regime from profiler evidence
#include "modelcalc/dtype.h"      // fp32 ... int4 and their sizes
#include "modelcalc/exact.h"      // overflow-checked counts
#include "modelcalc/formulas.h"   // the formula core, under the lab's names
#include "modelcalc/gpu.h"        // the hardware catalog
#include "modelcalc/hf_config.h"  // config.json reader and presets
#include "modelcalc/lab.h"        // training time and decode compute ceilings
#include "modelcalc/lab_analysis.h" // train, chinchilla, cost from a rate, mfu
#include "modelcalc/model.h"      // ModelSpec and exact parameter breakdowns
#include "modelcalc/plan.h"       // plan: the cheapest deployment meeting latency targets
#include "modelcalc/plan_engine.h" // plan over the deployment engine (plan_deployments)
#include "modelcalc/layout_check.h" // the serving layouts' published figures against the engine
#include "modelcalc/prices.h"     // GPU prices and the priced GPU kinds a cost search covers
#include "modelcalc/roofline.h"   // operating points on a roofline
#include "modelcalc/scenario.h"   // a scenario and its variations: every what-if
#include "modelcalc/size.h"       // drill 1 end to end
#include "modelcalc/status.h"     // errors as values
#include "modelcalc/sweep.h"      // every combination of lists
#include "modelcalc/tradeoff.h"   // the weighted tradeoff resolver
#include "modelcalc/train_plan.h" // train-plan: the cheapest run that trains by a deadline

#endif  // MODELCALC_MODELCALC_H_
