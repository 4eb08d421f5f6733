// Private to src/app: what every answer() does first.
#ifndef MODELCALC_APP_CHECK_H_
#define MODELCALC_APP_CHECK_H_

#include "modelcalc/app/resolve.h"
#include "modelcalc/app/table.h"
#include "modelcalc/status.h"

namespace modelcalc::app {

// Every given member of `request` (its table's rows) within its field's type
// and range: a C++ caller sets members directly, past the front ends' parsers.
Status check_request(const Table& t, const void* request);

template <typename Req>
Status check_request(const Req& r) {
  return check_request(Req::table(), &r);
}

// An answer whose error names the request field, not the core's option member (as_field_error).
template <typename Answer>
Result<Answer> named(Result<Answer> a) {
  if (!a.ok()) return as_field_error(a.status());
  return a;
}

}  // namespace modelcalc::app

#endif  // MODELCALC_APP_CHECK_H_
