// answer(): the resolved values and their sources, and the context's
// cancellation and CPU budget as the searches see them.
#include "modelcalc/app/answers.h"

#include <gtest/gtest.h>

namespace modelcalc::app {
namespace {

const Resolved& resolved(const Resolution& r, std::string_view name) {
  const Resolved* v = r.find(name);
  EXPECT_NE(v, nullptr) << name;
  static const Resolved none;
  return v != nullptr ? *v : none;
}

TEST(Answer, SizeRecordsWhereEachValueCameFrom) {
  SizeRequest r;
  r.model.model = "llama-3.1-8b";
  r.gpu.gpu = "h100";
  r.dep.tp = 2;  // gpus = tp x pp x dp = 2 x 1 x 1, derived from what was given
  auto a = answer(r);
  ASSERT_TRUE(a.ok()) << a.status().message();
  // llama-3.1-8b allows 131,072 positions, more than the 8,192 default: the default stands.
  EXPECT_EQ(std::get<int64_t>(resolved(a->resolved, "context").value), 8192);
  EXPECT_EQ(resolved(a->resolved, "context").source, Source::kDefault);
  EXPECT_EQ(resolved(a->resolved, "tp").source, Source::kGiven);
  EXPECT_EQ(std::get<int64_t>(resolved(a->resolved, "gpus").value), 2);
  EXPECT_EQ(resolved(a->resolved, "gpus").source, Source::kDerived);
  EXPECT_EQ(resolved(a->resolved, "dtype").source, Source::kDefault);  // an unquantized checkpoint: bf16
  // No --engine: the H100's vendor's, TensorRT-LLM (default_engine_for), derived from the GPU.
  EXPECT_EQ(std::get<std::string>(resolved(a->resolved, "engine").value), "trtllm");
  EXPECT_EQ(resolved(a->resolved, "engine").source, Source::kDerived);
  EXPECT_EQ(a->request.dep.tp, 2);  // the request as given, for the replay
}

TEST(Answer, AModelShorterThanTheDefaultContextSetsIt) {
  SizeRequest r;  // gpt2: n_positions 1,024 < 8,192
  r.model.model = "gpt2";
  auto a = answer(r);
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(std::get<int64_t>(resolved(a->resolved, "context").value), 1024);
  EXPECT_EQ(resolved(a->resolved, "context").source, Source::kModel);
}

TEST(Answer, ErrorsNameTheFieldByItsCanonicalName) {
  SizeRequest r;
  r.model.model = "llama-3.1-8b";
  r.gpu.gpu = "h100";
  r.dep.context = 0;  // set directly, past every parser: answer() checks the field's range itself
  auto a = answer(r);
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(field_error(a.status()).field, "context");
  EXPECT_EQ(spell_error(a.status(), Spelling::kCli, &SizeRequest::table()).substr(0, 6), "--seq:");
}

PlanRequest small_plan() {
  PlanRequest r;
  r.model.model = "llama-3.1-8b";
  r.isl = 1024;
  r.osl = 256;
  r.qps = 1;
  r.gpus = {"h100"};
  return r;
}

TEST(Answer, ACancelledTokenStopsThePlanSearch) {
  Context ctx;
  ctx.cancel = CancelToken::make();
  ctx.cancel.cancel();
  auto a = answer(small_plan(), ctx);
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().code(), Status::Code::kCancelled);
  EXPECT_TRUE(answer(small_plan()).ok());  // the same request without the token answers
}

TEST(Answer, TheSearchReportsProgressAndStopsOnItsBudget) {
  Context ctx;
  int64_t calls = 0;
  ctx.progress = [&calls](const SearchProgress& p) {
    ++calls;
    EXPECT_EQ(p.stage, "candidates");
  };
  ASSERT_TRUE(answer(small_plan(), ctx).ok());
  EXPECT_GT(calls, 0);
  // A budget of a nanosecond of CPU is spent before the second candidate.
  Context tight;
  tight.cpu_budget_s = 1e-9;
  auto a = answer(small_plan(), tight);
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().code(), Status::Code::kBudgetExceeded);
}

TEST(Answer, ACancelledSweepStopsBetweenBatches) {
  SweepRequest r;
  r.models = {"llama-3.1-8b"};
  r.gpus = {"h100"};
  r.batches = {1, 2, 4};
  Context ctx;
  ctx.cancel = CancelToken::make();
  auto a = answer(r, ctx);
  ASSERT_TRUE(a.ok()) << a.status().message();
  int64_t n = 0;
  ctx.cancel.cancel();  // cancelled after answer(): rows() sees it before the first row
  const Status s = rows(*a, [&n](const SweepRow&) { ++n; });
  EXPECT_EQ(s.code(), Status::Code::kCancelled);
  EXPECT_EQ(n, 0);
}

}  // namespace
}  // namespace modelcalc::app
