// Each request's field table (table.h): which shared fields (fields.h) it
// takes, the member each binds to, and this command's default and help where
// they differ from the field's. The rows' order is --help's.
#include <tuple>
#include <type_traits>
#include <variant>
#include <vector>

#include "modelcalc/app/fields.h"
#include "modelcalc/app/requests.h"

namespace modelcalc::app {

namespace {

bool in_list(std::string_view list, std::string_view name) {
  while (!list.empty()) {
    const size_t comma = list.find(',');
    if (list.substr(0, comma) == name) return true;
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return false;
}

}  // namespace

const Row* Table::find(std::string_view name) const {
  for (const Row& r : rows) {
    const Field& f = *r.field;
    if (f.name == name || f.flag == name || in_list(f.aliases, name) || in_list(r.aliases, name)) return &r;
  }
  return nullptr;
}

const Decided* Table::find_decided(std::string_view name) const {
  for (const Decided& d : decided) {
    const Field& f = *d.field;
    if (f.name == name || f.flag == name || in_list(f.aliases, name)) return &d;
  }
  return nullptr;
}

namespace {

using namespace fields;

// The model's rows, at the member path Path... of the request (none: a ModelInput itself). The hand-typed shape
// first; `sources` adds the preset, config.json and checkpoint rows.
template <auto... Path>
void model_rows_at(std::vector<Row>* rows, bool sources = true) {
  rows->insert(rows->end(), {bind<Path..., &ModelInput::layers>(kLayers), bind<Path..., &ModelInput::hidden>(kHidden),
                             bind<Path..., &ModelInput::heads>(kHeads), bind<Path..., &ModelInput::kv_heads>(kKvHeads),
                             bind<Path..., &ModelInput::head_dim>(kHeadDim), bind<Path..., &ModelInput::ffn>(kFfn),
                             bind<Path..., &ModelInput::glu>(kGlu), bind<Path..., &ModelInput::vocab>(kVocab),
                             bind<Path..., &ModelInput::tied>(kTied)});
  if (!sources) return;
  rows->insert(rows->end(), {bind<Path..., &ModelInput::model>(kModel), bind<Path..., &ModelInput::config>(kConfig),
                             bind<Path..., &ModelInput::checkpoint>(kCheckpoint)});
}

// The model, GPU, split, engine and layout rows every deployment command shares.
template <typename R>
void model_rows(std::vector<Row>* rows) {
  model_rows_at<&R::model>(rows);
}

template <typename R>
void gpu_rows(std::vector<Row>* rows) {
  rows->insert(rows->end(), {bind<&R::gpu, &GpuInput::gpu>(kGpu), bind<&R::gpu, &GpuInput::bandwidth>(kBandwidth),
                             bind<&R::gpu, &GpuInput::capacity>(kCapacity), bind<&R::gpu, &GpuInput::peak>(kPeak)});
}

// The split and engine rows (tp, pp, ep, dp, compute_dtype, kv_dtype) and the layout rows.
template <typename R>
void engine_split_rows(std::vector<Row>* rows) {
  rows->insert(rows->end(),
               {bind<&R::dep, &DeploymentInput::tp>(kTp), bind<&R::dep, &DeploymentInput::pp>(kPp),
                bind<&R::dep, &DeploymentInput::ep>(kEp), bind<&R::dep, &DeploymentInput::dp>(kDp),
                bind<&R::dep, &DeploymentInput::compute_dtype>(kComputeDtype),
                bind<&R::dep, &DeploymentInput::kv_dtype>(kKvDtype)});
}

template <typename R>
void layout_rows(std::vector<Row>* rows, bool plan = false) {
  if (plan) {
    rows->insert(rows->end(), {bind<&R::layout, &LayoutInput::disaggregated>(kDisaggregated),
                               bind<&R::layout, &LayoutInput::kv_transfer_overlap>(kKvTransferOverlap)});
  } else {
    rows->insert(rows->end(), {bind<&R::layout, &LayoutInput::dp_attention>(kDpAttention),
                               bind<&R::layout, &LayoutInput::redundant_experts>(kRedundantExperts)});
  }
  rows->insert(rows->end(), {bind<&R::layout, &LayoutInput::expert_imbalance>(kExpertImbalance),
                             bind<&R::layout, &LayoutInput::two_batch_overlap>(kTwoBatchOverlap),
                             bind<&R::layout, &LayoutInput::spec_tokens>(kSpecTokens),
                             bind<&R::layout, &LayoutInput::spec_acceptance>(kSpecAcceptance),
                             bind<&R::layout, &LayoutInput::spec_method>(kSpecMethod),
                             bind<&R::layout, &LayoutInput::draft_model>(kDraftModel),
                             bind<&R::layout, &LayoutInput::prefix_hit>(kPrefixHit),
                             bind<&R::layout, &LayoutInput::prefix_tokens>(kPrefixTokens)});
}

// The engine profile's rows; block_size unless the command binds its own.
template <typename R>
void engine_rows(std::vector<Row>* rows, bool block_size = true) {
  rows->insert(rows->end(),
               {bind<&R::engine, &EngineInput::engine>(kEngine), bind<&R::engine, &EngineInput::profile>(kProfile),
                bind<&R::engine, &EngineInput::flags, &EngineFlags::gpu_memory_utilization>(kGpuMemoryUtilization),
                bind<&R::engine, &EngineInput::flags, &EngineFlags::kv_cache_free_gpu_mem_fraction>(
                    kKvCacheFreeGpuMemFraction),
                bind<&R::engine, &EngineInput::flags, &EngineFlags::mem_fraction_static>(kMemFractionStatic),
                bind<&R::engine, &EngineInput::flags, &EngineFlags::swa_full_tokens_ratio>(kSwaFullTokensRatio),
                bind<&R::engine, &EngineInput::flags, &EngineFlags::max_model_len>(kMaxModelLen),
                bind<&R::engine, &EngineInput::flags, &EngineFlags::max_num_batched_tokens>(kMaxNumBatchedTokens),
                bind<&R::engine, &EngineInput::flags, &EngineFlags::max_num_seqs>(kMaxNumSeqs),
                bind<&R::engine, &EngineInput::flags, &EngineFlags::allow_long_max_model_len>(kAllowLongMaxModelLen)});
  if (block_size) rows->push_back(bind<&R::engine, &EngineInput::flags, &EngineFlags::block_size>(kBlockSize));
}

Table size_table() {
  using R = SizeRequest;
  Table t{R::kCommand, {}};
  model_rows<R>(&t.rows);
  gpu_rows<R>(&t.rows);
  t.rows.insert(t.rows.end(),
                {bind<&R::dep, &DeploymentInput::context>(kContext), bind<&R::dep, &DeploymentInput::batch>(kBatch),
                 bind<&R::dep, &DeploymentInput::gpus>(kGpus, "1; the textbook sections pool them (capacity, bandwidth "
                                                              "and peak add up), the modeled deployment splits them tp x pp x dp"),
                 bind<&R::dep, &DeploymentInput::prompt>(kPrompt), bind<&R::dep, &DeploymentInput::reserve>(kReserve),
                 bind<&R::dep, &DeploymentInput::dtype>(kDtype)});
  engine_split_rows<R>(&t.rows);
  layout_rows<R>(&t.rows);
  engine_rows<R>(&t.rows);
  t.rows.push_back(bind<&R::train_tokens>(kTrainTokens));
  return t;
}

Table kv_budget_table() {
  using R = KvBudgetRequest;
  Table t{R::kCommand, {}};
  model_rows<R>(&t.rows);
  gpu_rows<R>(&t.rows);
  t.rows.insert(t.rows.end(),
                {bind<&R::dep, &DeploymentInput::gpus>(kGpus, "1; the tensor-parallel group, weights and KV split across it"),
                 bind<&R::dep, &DeploymentInput::context>(kContext, "8,192 tokens reserved per sequence, or the model's max "
                                                                    "positions if smaller"),
                 bind<&R::dep, &DeploymentInput::reserve>(kReserve),
                 bind<&R::dep, &DeploymentInput::batch>(kBatch, "1; sequences decoding together in the modeled step"),
                 bind<&R::dep, &DeploymentInput::prompt>(kPrompt), bind<&R::dep, &DeploymentInput::dtype>(kDtype)});
  engine_split_rows<R>(&t.rows);
  layout_rows<R>(&t.rows);
  t.rows.insert(t.rows.end(),
                {bind<&R::budget>(kBudget), bind<&R::workspace>(kWorkspace), bind<&R::mean_len>(kMeanLen),
                 bind<&R::block_size>(kBlockSize, "16; the engine's own when not given: vllm 16, trtllm 64, sglang 1",
                                      "Paged-allocation block, tokens, for the paged proposal and the engine")});
  engine_rows<R>(&t.rows, /*block_size=*/false);
  return t;
}

Table cost_table() {
  using R = CostRequest;
  Table t{R::kCommand, {}};
  Row price = bind<&R::price_per_hour>(kPricePerHour);
  price.required = true;
  t.rows.push_back(price);
  t.rows.push_back(bind<&R::tokens_per_s>(kTokensPerS));
  model_rows<R>(&t.rows);
  gpu_rows<R>(&t.rows);
  t.rows.insert(t.rows.end(),
                {bind<&R::dep, &DeploymentInput::gpus>(kGpus, "1; with a model: ideal tensor parallel, and the modeled "
                                                              "split tp x pp x dp"),
                 bind<&R::dep, &DeploymentInput::context>(kContext), bind<&R::dep, &DeploymentInput::batch>(kBatch),
                 bind<&R::dep, &DeploymentInput::reserve>(kReserve), bind<&R::dep, &DeploymentInput::prompt>(kPrompt),
                 bind<&R::dep, &DeploymentInput::dtype>(kDtype)});
  engine_split_rows<R>(&t.rows);
  layout_rows<R>(&t.rows);
  engine_rows<R>(&t.rows);
  return t;
}

Row prompt_tokens_row(Row r) {
  r.aliases = "prompt-tokens";
  return r;
}

Table diagnose_table() {
  using R = DiagnoseRequest;
  Table t{R::kCommand, {}};
  Row evidence = bind<&R::evidence>(kEvidence);
  evidence.positional = true;
  t.rows.insert(t.rows.end(), {evidence, bind<&R::phase>(kPhase), bind<&R::params>(kParams)});
  model_rows<R>(&t.rows);
  gpu_rows<R>(&t.rows);
  t.rows.insert(
      t.rows.end(),
      {bind<&R::dep, &DeploymentInput::dtype>(kDtype, "the evidence's, else a quantized checkpoint's own "
                                                      "(quantization_config), else bf16"),
       bind<&R::dep, &DeploymentInput::gpus>(kGpus, "1; GPUs the model runs on"),
       bind<&R::dep, &DeploymentInput::batch>(kBatch, "1; training: the microbatch"),
       bind<&R::dep, &DeploymentInput::context>(kContext, "the evidence's; training: the sequence length"),
       prompt_tokens_row(bind<&R::dep, &DeploymentInput::prompt>(kPrompt, "the evidence's; the prefill prompt")),
       bind<&R::dep, &DeploymentInput::reserve>(kReserve)});
  engine_split_rows<R>(&t.rows);
  layout_rows<R>(&t.rows);
  engine_rows<R>(&t.rows);
  t.rows.insert(
      t.rows.end(),
      {bind<&R::tokens_per_s>(kTokensPerS, "", "Measured decode tokens/s per sequence"),
       bind<&R::aggregate_tokens_per_s>(kAggregateTokensPerS), bind<&R::ttft>(kTtft, "", "Measured time to first "
                                                                                     "token: 500ms, or seconds (0.5)"),
       bind<&R::itl>(kItl), bind<&R::flop_util>(kFlopUtil), bind<&R::bw_util>(kBwUtil),
       bind<&R::kernels_per_step>(kKernelsPerStep), bind<&R::kernel_us>(kKernelUs), bind<&R::gap_us>(kGapUs),
       bind<&R::peak_transient>(kPeakTransient)});
  return t;
}

Table roofline_table() {
  using R = RooflineRequest;
  Table t{R::kCommand, {}};
  model_rows<R>(&t.rows);
  gpu_rows<R>(&t.rows);
  t.rows.insert(
      t.rows.end(),
      {bind<&R::batches>(kBatch, "1,8,64,256; decode batch sizes",
                         "Batch sizes, e.g. 1,8,64 or 1:1024; ranges A:B (step 1), A:B:S (step S), A:B:xF (times F)"),
       bind<&R::dep, &DeploymentInput::context>(kContext, "8,192 tokens, or the model's max positions if smaller; decode "
                                                          "context and prefill prompt"),
       bind<&R::dep, &DeploymentInput::dtype>(kDtype, "a quantized checkpoint's own, else bf16; also the math dtype (bf16 "
                                                      "for int8/int4, and for fp4 on a GPU without an fp4 peak)"),
       bind<&R::dep, &DeploymentInput::kv_dtype>(kKvDtype),
       bind<&R::dep, &DeploymentInput::gpus>(kGpus, "1; the engine's deployments (JSON deployments[]) split tp x pp x dp"),
       bind<&R::dep, &DeploymentInput::tp>(kTp), bind<&R::dep, &DeploymentInput::pp>(kPp),
       bind<&R::dep, &DeploymentInput::ep>(kEp, "1; experts spread inside the TP group (divides --tp and the experts)"),
       bind<&R::dep, &DeploymentInput::dp>(kDp),
       bind<&R::dep, &DeploymentInput::reserve>(kReserve),
       bind<&R::dep, &DeploymentInput::prompt>(kPrompt, "the context; the engine's prefill (JSON deployments[])"),
       bind<&R::dep, &DeploymentInput::compute_dtype>(kComputeDtype), bind<&R::intensity>(kIntensity),
       bind<&R::gemm>(kGemm)});
  layout_rows<R>(&t.rows);
  engine_rows<R>(&t.rows);
  return t;
}

Table plan_table() {
  using R = PlanRequest;
  Table t{R::kCommand, {}};
  model_rows<R>(&t.rows);
  Row isl = bind<&R::isl>(kIsl);
  Row osl = bind<&R::osl>(kOsl);
  t.rows.insert(
      t.rows.end(),
      {isl, osl, bind<&R::length_dist>(kLengthDist), bind<&R::qps>(kQps), bind<&R::rate>(kRate), bind<&R::concurrency>(kConcurrency),
       bind<&R::ttft>(kTtft, "none", "Target time to first token: 500ms, 1s, or a bare number of seconds (0.5)"),
       bind<&R::tpot>(kTpot), bind<&R::tokens_per_s_per_user>(kTokensPerSPerUser),
       bind<&R::gpus>(kGpu, "every catalog GPU with a price", "GPU kinds to search, a comma list"),
       bind<&R::max_gpus>(kMaxGpus),
       bind<&R::dtypes>(kDtype, "a quantized checkpoint's own dtype, else bf16,fp8",
                        "Weight dtypes to search, a comma list of fp32, fp16, bf16, fp8, int8, int4, nvfp4, mxfp4"),
       bind<&R::kv_dtypes>(kKvDtype, "the KV dtype a checkpoint states, else bf16,fp8, fp8 only on GPUs with an fp8 peak",
                           "KV-cache dtypes to search, a comma list of fp32, fp16, bf16, fp8, int8, int4"),
       bind<&R::batches>(kBatch, "1,2,4,...,65536, and the largest that fits",
                         "Batch sizes to search, a comma list, each 1 to 2^30"),
       bind<&R::max_pp>(kMaxPp),
       bind<&R::eps>(kEp, "1 and, for a MoE, ep = tp",
                     "Expert-parallel degrees to search, a comma list; each must divide tp and the experts"),
       bind<&R::price>(kPrice), bind<&R::efficiency>(kEfficiency), bind<&R::rank_by>(kRankBy), bind<&R::top>(kTop),
       bind<&R::frontier>(kFrontier), bind<&R::compare>(kCompare)});
  engine_rows<R>(&t.rows);
  layout_rows<R>(&t.rows, /*plan=*/true);
  constexpr std::string_view kSplit =
      "plan searches the split itself (tp x pp over each GPU kind, and the replicas); --max-gpus and --max-pp bound it";
  t.decided = {{&kDpAttention, "plan searches DP attention x EP itself for a model with routed experts (a replica's "
                               "attention data-parallel, experts over all of it); --ep lists the EP degrees"},
               {&kGpus, kSplit}, {&kTp, kSplit}, {&kPp, kSplit}, {&kDp, kSplit},
               {&kRedundantExperts, "plan does not add redundant experts to its candidates; --expert-imbalance "
                                    "states the routing's imbalance"},
               {&kContext, "plan's context is each request's --isl + --osl"},
               {&kPrompt, "plan's prompt is --isl"}};
  return t;
}

Table sweep_table() {
  using R = SweepRequest;
  Table t{R::kCommand, {}};
  model_rows_at<&R::shape>(&t.rows, /*sources=*/false);
  t.rows.insert(t.rows.end(),
                {bind<&R::models>(kModel), bind<&R::configs>(kConfig), bind<&R::checkpoints>(kCheckpoint),
                 bind<&R::gpus>(kGpu), bind<&R::gpu, &GpuInput::bandwidth>(kBandwidth),
                 bind<&R::gpu, &GpuInput::capacity>(kCapacity), bind<&R::gpu, &GpuInput::peak>(kPeak)});
  t.rows.insert(
      t.rows.end(),
      {bind<&R::contexts>(kContext, "8,192 tokens, or each model's max positions if smaller",
                          "Context lengths T, e.g. 2048,8192 or 1k:128k:x2; ranges A:B (step 1), A:B:S (step S), "
                          "A:B:xF (times F)"),
       bind<&R::batches>(kBatch, "1", "Batch sizes, e.g. 1,8,64 or 1:1024; ranges A:B (step 1), A:B:S (step S), A:B:xF "
                                      "(times F)"),
       bind<&R::dtypes>(kDtype, "the models' checkpoint dtype when they share one, else bf16",
                        "Weight dtypes, e.g. fp16,int8 (fp32, fp16, bf16, fp8, int8, int4, nvfp4, mxfp4)"),
       bind<&R::kv_dtypes>(kKvDtype, "16-bit per row (bf16; fp16 or fp32 with such weights), not --dtype",
                           "KV-cache dtypes, e.g. fp16,fp8 (fp32, fp16, bf16, fp8, int8, int4)"),
       bind<&R::split_gpus>(kGpus, "1; tp = gpus / (pp x dp)", "GPUs per deployment, e.g. 1,2,4,8, each 1 to 1,048,576; "
                                                                "ranges A:B (step 1), A:B:S (step S), A:B:xF (times F)"),
       bind<&R::tp>(kTp, "--gpus / (pp x dp)", "Tensor-parallel degrees, e.g. 1,2,4,8, each 1 to 1,048,576; ranges A:B "
                                                "(step 1), A:B:S (step S), A:B:xF (times F)"),
       bind<&R::pp>(kPp, "1", "Pipeline-parallel degrees, e.g. 1,2,4,8, each 1 to 1,048,576; ranges A:B (step 1), "
                              "A:B:S (step S), A:B:xF (times F)"),
       bind<&R::ep>(kEp, "1", "Expert-parallel degrees, e.g. 1,2,4,8, each 1 to 1,048,576; ranges A:B (step 1), A:B:S "
                              "(step S), A:B:xF (times F)"),
       bind<&R::dp>(kDp, "1", "Data-parallel replicas, e.g. 1,2,4,8, each 1 to 1,048,576; ranges A:B (step 1), A:B:S "
                              "(step S), A:B:xF (times F)"),
       bind<&R::fields>(kColumns)});
  engine_rows<R>(&t.rows);
  layout_rows<R>(&t.rows);
  return t;
}

}  // namespace

const Table& SizeRequest::table() {
  static const Table t = size_table();
  return t;
}
const Table& KvBudgetRequest::table() {
  static const Table t = kv_budget_table();
  return t;
}
const Table& CostRequest::table() {
  static const Table t = cost_table();
  return t;
}
const Table& DiagnoseRequest::table() {
  static const Table t = diagnose_table();
  return t;
}
const Table& RooflineRequest::table() {
  static const Table t = roofline_table();
  return t;
}
const Table& PlanRequest::table() {
  static const Table t = plan_table();
  return t;
}
const Table& SweepRequest::table() {
  static const Table t = sweep_table();
  return t;
}

const Table& model_table() {
  static const Table t = [] {
    Table m{"model", {}};
    model_rows_at<>(&m.rows);
    return m;
  }();
  return t;
}

const std::vector<const Table*>& all_tables() {
  static const std::vector<const Table*> all = {&SizeRequest::table(),    &SweepRequest::table(),
                                                &PlanRequest::table(),    &KvBudgetRequest::table(),
                                                &DiagnoseRequest::table(), &RooflineRequest::table(),
                                                &CostRequest::table()};
  return all;
}

Result<AnyRequest> empty_request(std::string_view command) {
  AnyRequest r;  // each alternative in turn: the one whose kCommand is `command`
  bool found = false;
  auto try_one = [&]<typename R>(R*) {
    if (!found && R::kCommand == command) {
      r = R{};
      found = true;
    }
  };
  std::apply([&](auto*... p) { (try_one(p), ...); },
             std::tuple<SizeRequest*, KvBudgetRequest*, CostRequest*, DiagnoseRequest*, RooflineRequest*,
                        PlanRequest*, SweepRequest*>{});
  if (!found) return Status::NotFound("command: '" + std::string(command) + "' has no request in this layer");
  return r;
}

const Table& table_of(const AnyRequest& r) {
  return std::visit([](const auto& req) -> const Table& { return std::decay_t<decltype(req)>::table(); }, r);
}

void* fields_of(AnyRequest& r) {
  return std::visit([](auto& req) -> void* { return &req; }, r);
}

const Table* find_table(std::string_view command) {
  for (const Table* t : all_tables()) {
    if (t->command == command) return t;
  }
  return nullptr;
}

}  // namespace modelcalc::app
