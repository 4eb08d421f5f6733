// Presentation of a Diagnosis: one Report for text, --explain and JSON.
#ifndef MODELCALC_DIAGNOSE_REPORT_H_
#define MODELCALC_DIAGNOSE_REPORT_H_

#include <string>

#include "modelcalc/diagnose.h"
#include "report.h"

namespace modelcalc {

// `gpu` as passed to diagnose(); `source` names the evidence (file or "flags").
// The JSON form carries {regime, detail, settled_by, evidence: [...], fixes,
// reject, ask_first} built from the same Lines the text shows.
Report build_diagnose_report(const Evidence& e, const GpuSpec& gpu, const Diagnosis& d, const std::string& source);

}  // namespace modelcalc

#endif  // MODELCALC_DIAGNOSE_REPORT_H_
