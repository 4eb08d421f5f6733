// The one-page HTML report of `size --report`: the size report's sections
// with every formula, substitution and result, and the model's roofline as
// inline SVG. Self-contained: inline CSS, no scripts, no network fetches.
#ifndef MODELCALC_HTML_REPORT_H_
#define MODELCALC_HTML_REPORT_H_

#include <string>

#include "modelcalc/gpu.h"
#include "modelcalc/model.h"
#include "modelcalc/roofline.h"
#include "modelcalc/size.h"
#include "report.h"

namespace modelcalc {

// The page. `roofline` may be null (no GPU given); then the page says so.
// `size_report` is rendered line by line (label, value, formula, substitution).
std::string render_html_report(const Report& size_report, const ModelSpec& m, const RooflineOptions* ro,
                               const RooflineResult* roofline);

}  // namespace modelcalc

#endif  // MODELCALC_HTML_REPORT_H_
