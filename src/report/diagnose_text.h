// The English of `diagnose`: the rules (src/core/diagnose_rules.cc) emit codes and
// the numbers each one cites; this words them. The only place diagnose prose
// lives.
#ifndef MODELCALC_DIAGNOSE_TEXT_H_
#define MODELCALC_DIAGNOSE_TEXT_H_

#include <string>
#include <utility>

#include "modelcalc/diagnose.h"

namespace modelcalc {

// A statement in words. Fixes: {action, effect}; rejects: {action, why};
// ask-first: {measurement, why}; details, settled-by, findings and ignored
// notes: {sentence, ""}.
struct DxWords {
  DxWords(std::string a, std::string b = "") : first(std::move(a)), second(std::move(b)) {}
  std::string first;
  std::string second;
};

// `d` is the diagnosis `s` belongs to (its phase and regime are worded too).
DxWords dx_words(const DxStatement& s, const Diagnosis& d);
// dx_words(s, d).first, for the one-part statements.
std::string dx_text(const DxStatement& s, const Diagnosis& d);
// A fix (or the reject, with its variation) in words. With the engine's
// variation the action names the change as flags ("--dtype int8") and the
// effect is the engine before -> after with the deciding term; else dx_words.
DxWords fix_words(const DxStatement& what, const std::optional<Variation>& variation, const Diagnosis& d);

}  // namespace modelcalc

#endif  // MODELCALC_DIAGNOSE_TEXT_H_
