#include "check.h"

namespace modelcalc::app {

Status check_request(const Table& t, const void* request) {
  Value v;
  for (const Row& row : t.rows) {
    if (!row.get(request, &v)) continue;
    MC_RETURN_IF_ERROR(check_value(*row.field, v));
  }
  return Status::Ok();
}

}  // namespace modelcalc::app
