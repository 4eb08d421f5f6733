// The app::Context the calling thread's request runs under. The web server
// sets it around one request (its cancel token, its lane's CPU budget:
// web_api.cc); what searches reads it (render_answer for plan and sweep,
// calibrate --fit and train-plan through run_cli). Elsewhere (the CLI) it is
// the default context: never cancelled, no budget. Thread-local: a request
// runs on one thread.
#ifndef MODELCALC_REQUEST_CONTEXT_H_
#define MODELCALC_REQUEST_CONTEXT_H_

#include "modelcalc/app/answers.h"

namespace modelcalc {

// The innermost ScopedRequestContext's on this thread, or the default one.
const app::Context& current_request_context();

// Makes `ctx` the calling thread's context until destroyed (the previous one then).
class ScopedRequestContext {
 public:
  explicit ScopedRequestContext(app::Context ctx);
  ~ScopedRequestContext();
  ScopedRequestContext(const ScopedRequestContext&) = delete;
  ScopedRequestContext& operator=(const ScopedRequestContext&) = delete;

 private:
  app::Context ctx_;
  const app::Context* previous_;
};

}  // namespace modelcalc

#endif  // MODELCALC_REQUEST_CONTEXT_H_
