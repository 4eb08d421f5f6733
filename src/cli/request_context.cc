#include "request_context.h"

#include <utility>

namespace modelcalc {

namespace {
const app::Context kNoContext;
thread_local const app::Context* t_current = &kNoContext;
}  // namespace

const app::Context& current_request_context() { return *t_current; }

ScopedRequestContext::ScopedRequestContext(app::Context ctx) : ctx_(std::move(ctx)), previous_(t_current) {
  t_current = &ctx_;
}

ScopedRequestContext::~ScopedRequestContext() { t_current = previous_; }

}  // namespace modelcalc
