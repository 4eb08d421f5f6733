// plan's clauses, worded from the enums and numbers of PlanResult.
#include "plan_text.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

namespace modelcalc {
namespace {

PlanRequest request() {
  PlanRequest r;
  r.isl = 1000;
  r.osl = 100;
  r.tpot_s = 0.060;
  r.ttft_s = 0.5;
  return r;
}

PlanSpace space() {
  PlanSpace s;
  PlanGpu g;
  g.gpu.key = "a";
  s.gpus.push_back(g);
  s.max_gpus = 8;
  return s;
}

PlanConfig deciding(PlanDecidingKind kind, const PlanNeighbour& n) {
  PlanConfig c;
  c.batch = 20;
  c.deciding = {kind, n};
  return c;
}

TEST(PlanText, TheNextBatchMissesTpot) {
  PlanNeighbour n;
  n.batch = 21;
  n.usd_per_million_output = 0.612;  // 3 significant digits below $1
  n.reason = PlanReason::kTpot;
  n.tpot_s = 0.0605;  // 60.5 ms against the 60 ms target
  EXPECT_EQ(plan_deciding_text(request(), space(), deciding(PlanDecidingKind::kNextBatchMisses, n)),
            "the next batch, 21 ($0.612/1M output tokens), misses TPOT: 60.5 ms > 60 ms");
}

TEST(PlanText, TheCheapestMissesOnMemory) {
  PlanNeighbour n;
  n.c.tp = 2;
  n.batch = 64;
  n.max_sequences = 60;
  n.usd_per_million_output = 1.98;  // 2 decimals from $1
  n.reason = PlanReason::kMemory;
  // A replica holds 60 sequences of isl + osl = 1,100 tokens.
  EXPECT_EQ(plan_deciding_text(request(), space(), deciding(PlanDecidingKind::kCheapestMisses, n)),
            "the cheapest configuration searched, a TP2 bf16/bf16 KV, batch 64 at $1.98/1M output tokens, misses "
            "memory: a replica holds 60 sequences of 1100 tokens, not 64");
}

TEST(PlanText, TheOtherDecidingKinds) {
  const PlanNeighbour none;
  EXPECT_EQ(plan_deciding_text(request(), space(), deciding(PlanDecidingKind::kLargestBatch, none)),
            "the largest batch searched (20) for its split and dtypes");
  EXPECT_EQ(plan_deciding_text(request(), space(), deciding(PlanDecidingKind::kNothingCheaper, none)),
            "nothing cheaper was searched: no target binds");
  EXPECT_EQ(plan_deciding_text(request(), space(), deciding(PlanDecidingKind::kNone, none)), "");
  PlanNeighbour gpus;
  gpus.reason = PlanReason::kGpus;
  gpus.gpus = 12;
  EXPECT_EQ(plan_deciding_text(request(), space(), deciding(PlanDecidingKind::kMissed, gpus)),
            "GPUs: the load needs 12 GPUs, over the limit of 8");
  PlanNeighbour comm;
  comm.reason = PlanReason::kCommunication;
  comm.tpot_s = 0.080;
  comm.comm_s = 0.045;
  EXPECT_EQ(plan_deciding_text(request(), space(), deciding(PlanDecidingKind::kMissed, comm)),
            "TPOT: 80 ms > 60 ms, and communication is 45 ms of the step");
  PlanNeighbour ttft;
  ttft.reason = PlanReason::kTtft;
  ttft.ttft_s = 1.25;  // seconds from 1 s
  EXPECT_EQ(plan_deciding_text(request(), space(), deciding(PlanDecidingKind::kMissed, ttft)),
            "TTFT: 1.25 s > 500 ms");
}

TEST(PlanText, TheChangesAMissWouldNeed) {
  PlanChange tpot{PlanChangeKind::kTpotTarget};
  tpot.seconds = 101.0 / 4000;  // 25.25 ms exactly in binary, 3 digits round half to even: 25.2
  EXPECT_EQ(plan_change_text(Engine::kVllm, tpot), "a TPOT target of at least 25.2 ms");
  tpot.faster_interconnect = true;
  EXPECT_EQ(plan_change_text(Engine::kVllm, tpot), "a TPOT target of at least 25.2 ms (or a faster interconnect)");
  PlanChange ttft{PlanChangeKind::kTtftTarget};
  ttft.seconds = 0.000250;  // below 1 ms: in µs
  EXPECT_EQ(plan_change_text(Engine::kVllm, ttft), "a TTFT target of at least 250 µs");
  PlanChange batch{PlanChangeKind::kBatchMemory};
  batch.batch = 64;
  batch.holds = 60;
  EXPECT_EQ(plan_change_text(Engine::kVllm, batch), "memory for batch 64 (holds 60): a smaller KV dtype or more GPUs per replica");
  PlanChange limit{PlanChangeKind::kGpuLimit};
  limit.gpus = 12;
  EXPECT_EQ(plan_change_text(Engine::kVllm, limit), "a GPU limit of at least 12");
}

TEST(PlanText, UnboundedDurationsAndPricesAreWordedNotInf) {
  PlanChange ttft{PlanChangeKind::kTtftTarget};
  ttft.seconds = std::numeric_limits<double>::infinity();
  EXPECT_EQ(plan_change_text(Engine::kVllm, ttft),
            "a lower load per replica: the prompts arrive faster than the steps prefill them (no TTFT target is met)");
  PlanNeighbour n;
  n.batch = 2;
  n.usd_per_million_output = std::numeric_limits<double>::infinity();
  n.reason = PlanReason::kMemory;  // max_sequences 0: the weights do not fit
  EXPECT_EQ(plan_deciding_text(request(), space(), deciding(PlanDecidingKind::kNextBatchMisses, n)),
            "the next batch, 2 (n/a (nothing served)/1M output tokens), misses memory: the weights do not fit");
  PlanNeighbour q;
  q.reason = PlanReason::kTtft;
  q.ttft_s = std::numeric_limits<double>::infinity();
  EXPECT_EQ(plan_deciding_text(request(), space(), deciding(PlanDecidingKind::kMissed, q)),
            "TTFT: unbounded: the queue grows > 500 ms");
  EXPECT_EQ(plan_time_text(std::numeric_limits<double>::infinity(), false), "unbounded");
}

// The case: gpt-oss-120b on vLLM, 2,000 in / 100 out: a sequence brings 1 + 2000 / 100 = 21 tokens to a
// step, so vLLM's 8,192-token budget carries floor(8192 / 21) = 390 sequences; 512 need 512 x 21 = 10,752.
TEST(PlanText, TheStepTokenBudgetIsNamedWithTheEnginesFlag) {
  PlanNeighbour n;
  n.batch = 512;
  n.max_sequences = 390;
  n.reason = PlanReason::kStepTokens;
  n.limit.kind = BatchLimit::kStepTokens;
  n.limit.step_tokens = 8192;
  n.limit.tokens_per_sequence = 21;
  PlanRequest r = request();
  r.isl = 2000;
  EXPECT_EQ(plan_deciding_text(r, space(), deciding(PlanDecidingKind::kMissed, n)),
            "the engine's step-token budget: 8,192 tokens a step carry 390 sequences of 21 tokens each (a decode "
            "token and its share of a replacing prompt), not 512");
  PlanChange ch{PlanChangeKind::kStepTokens};
  ch.batch = 512;
  ch.holds = 390;
  ch.engine_value = 10752;
  EXPECT_EQ(plan_change_text(Engine::kVllm, ch),
            "a step-token budget of at least 10,752 tokens for batch 512 (holds 390): vLLM's "
            "--max-num-batched-tokens 10752");  // vLLM's flag is modelcalc's: named once
  EXPECT_NE(plan_change_text(Engine::kSglang, ch).find("SGLang's --chunked-prefill-size 10752"), std::string::npos);
  EXPECT_NE(plan_change_text(Engine::kTrtllm, ch).find("TensorRT-LLM's --max_num_tokens 10752"), std::string::npos);
}

TEST(PlanText, TheSequenceCapIsNamedWithTheEnginesFlag) {
  PlanNeighbour n;
  n.c.attn_dp = 8;
  n.batch = 4096;
  n.max_sequences = 2048;
  n.reason = PlanReason::kMaxNumSeqs;
  n.limit.kind = BatchLimit::kMaxNumSeqs;
  n.limit.max_num_seqs = 256;  // per attention group: 8 x 256 = 2,048 a replica
  EXPECT_EQ(plan_deciding_text(request(), space(), deciding(PlanDecidingKind::kMissed, n)),
            "the engine's sequence cap: at most 256 sequences a step per attention group (× 8), not 4096");
  PlanChange ch{PlanChangeKind::kMaxNumSeqs};
  ch.batch = 4096;
  ch.holds = 2048;
  ch.engine_value = 512;  // 4096 / 8 groups
  EXPECT_EQ(plan_change_text(Engine::kSglang, ch),
            "a sequence cap of at least 512 for batch 4096 (holds 2048): SGLang's --max-running-requests 512 "
            "(modelcalc: --max-num-seqs 512)");
}

}  // namespace
}  // namespace modelcalc
