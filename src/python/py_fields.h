// Python keywords into a typed request, through the request's field table
// (modelcalc/app/table.h): each keyword is a field's canonical name, its value
// a Python number (in base units), bool, string (read as the CLI reads it:
// "8K", "50ms", "80GB") or, for a list field, a list, tuple, range or NumPy
// array. No field is named here: a new field reaches Python by its table row.
#ifndef MODELCALC_PY_FIELDS_H_
#define MODELCALC_PY_FIELDS_H_

#include <pybind11/pybind11.h>

#include <memory>

#include "modelcalc/app/table.h"
#include "modelcalc/engine_profile.h"
#include "modelcalc/status.h"

namespace modelcalc::py_bind {

namespace py = pybind11;

// Sets request fields from `kwargs` (None values are skipped, and False for a
// switch). An unknown keyword is a TypeError; a bad value an InputError or
// TypeError naming the keyword.
void set_fields(const app::Table& t, void* request, const py::dict& kwargs);
template <typename Request>
Request request_from(const py::dict& kwargs) {
  Request r;
  set_fields(Request::table(), &r, kwargs);
  return r;
}

// Raises modelcalc.InputError with an answer's error in Python's spelling
// (keywords, not flags). REQUIRES: !s.ok().
[[noreturn]] void raise_answer_error(const Status& s, const app::Table* t);
template <typename T>
T take_answer(Result<T> r, const app::Table* t) {
  if (!r.ok()) raise_answer_error(r.status(), t);
  return std::move(r).value();
}

// A request's profile= file (--profile), read and checked before the request runs; errors name the
// keyword. Null when none is given: the compiled-in profiles.
template <typename Request>
std::shared_ptr<const UserEngineProfile> read_profile(const Request& r) {
  if (r.engine.profile.empty()) return nullptr;
  EngineTimeTable t = take_answer(read_engine_profile_file(r.engine.profile), &Request::table());
  return make_user_engine_profile(std::move(t), r.engine.profile);
}

}  // namespace modelcalc::py_bind

#endif  // MODELCALC_PY_FIELDS_H_
