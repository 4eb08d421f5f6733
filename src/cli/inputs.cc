#include "inputs.h"

#include "modelcalc/deployment.h"

#include "modelcalc/app/fields.h"
#include "modelcalc/hf_config.h"
#include "format.h"
#include "quantity.h"
#include "request_flags.h"

namespace modelcalc {

void add_model_flags(FlagSet& flags, ModelFlags* f) { add_request_flags(flags, app::model_table(), f); }

Result<ModelSpec> resolve_model_flags(const ModelFlags& f) {
  MC_ASSIGN_OR_RETURN(const app::SharedModel m, app::resolve_model(f));
  return *m;
}

Dtypes resolve_dtypes(const DeploymentFlags& d, Dtype default_weights) {
  Dtypes t;
  t.weights = d.dtype.value_or(default_weights);
  t.kv = d.kv_dtype.value_or(default_kv_dtype(t.weights));  // 16-bit: int4 weights keep a bf16 cache
  return t;
}

namespace {

// A count in [1, max]; errors name `flag` and the range.
FlagParser<int64_t> count_upto(int64_t max) {
  return [max](std::string_view text, std::string_view flag) { return parse_count_upto(text, flag, max); };
}

Result<double> reserve_fraction(std::string_view text, std::string_view flag) { return parse_reserve(text, flag); }

std::string with_default(std::string help, const char* default_text) {
  return help + " (default: " + default_text + ")";
}

}  // namespace

Result<double> parse_reserve(std::string_view text, std::string_view flag) {
  auto v = app::parse_text(app::fields::kReserve, text, false);
  if (!v.ok()) return Status::InvalidArgument(flag, app::field_error(v.status()).reason);
  return std::get<double>(*v);
}

Result<std::vector<std::string>> split_list(std::string_view text, std::string_view flag) {
  std::vector<std::string> items;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    items.emplace_back(text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    if (items.back().empty()) {
      return Status::InvalidArgument(flag, "empty item in '" + std::string(text) +
                                               "'; give a comma-separated list, e.g. 1,8,64");
    }
    if (comma == std::string_view::npos) return items;
    if (static_cast<int64_t>(items.size()) >= kMaxListItems) break;
    start = comma + 1;
  }
  return Status::InvalidArgument(flag, "more than " + group_digits(kMaxListItems) + " values in one list");
}

void add_deployment_flags(FlagSet& flags, DeploymentFlags* d, std::initializer_list<DepUse> uses) {
  const std::string gpus_range = "1 to " + group_digits(kMaxGpus);
  for (const DepUse& u : uses) {
    const char* def = u.default_text;
    switch (u.flag) {
      case Dep::kGpus:
        flags.add<int64_t>("--gpus", with_default("GPUs the model is split over, " + gpus_range, def), &d->gpus,
                           count_upto(kMaxGpus));
        break;
      case Dep::kTp:
        flags.add<int64_t>("--tp", with_default("Tensor-parallel degree, " + gpus_range, def), &d->tp,
                           count_upto(kMaxGpus));
        break;
      case Dep::kPp:
        flags.add<int64_t>("--pp", with_default("Pipeline-parallel degree, " + gpus_range, def), &d->pp,
                           count_upto(kMaxGpus));
        break;
      case Dep::kEp:
        flags.add<int64_t>("--ep", with_default("Expert-parallel degree, " + gpus_range, def), &d->ep,
                           count_upto(kMaxGpus));
        break;
      case Dep::kDp:
        flags.add<int64_t>("--dp", with_default("Data-parallel replicas, " + gpus_range, def), &d->dp,
                           count_upto(kMaxGpus));
        break;
      case Dep::kSeq:
        flags.add<int64_t>("--seq", with_default("Context length T in tokens, 1 to " + group_digits(kMaxTokens) +
                                                     "; K = 1,000 (e.g. 8K = 8,000)", def),
                           &d->seq, count_upto(kMaxTokens));
        flags.alias("--context", "--seq");
        break;
      case Dep::kBatch:
        flags.add<int64_t>("--batch", with_default("Concurrent sequences, 1 to " + group_digits(kMaxBatch), def),
                           &d->batch, count_upto(kMaxBatch));
        break;
      case Dep::kPrompt:
        flags.add<int64_t>("--prompt", with_default("Prompt length in tokens, 1 to " + group_digits(kMaxTokens), def),
                           &d->prompt, count_upto(kMaxTokens));
        break;
      case Dep::kDtype:
        flags.add<Dtype>("--dtype", with_default("Weight dtype: " + dtype_names(), def), &d->dtype,
                         parse_dtype);
        break;
      case Dep::kComputeDtype:
        flags.add<Dtype>("--compute-dtype",
                         with_default("Dtype the matmuls run in (its peak): fp32, fp16, bf16, fp8, int8, nvfp4, mxfp4", def),
                         &d->compute_dtype, parse_dtype);
        break;
      case Dep::kKvDtype:
        flags.add<Dtype>("--kv-dtype", with_default("KV-cache dtype: " + dtype_names(true), def),
                         &d->kv_dtype, parse_kv_dtype);
        break;
      case Dep::kReserve:
        flags.add<double>("--reserve", with_default("Fraction of GPU memory kept back, in [0, 1): 0.1 or 10%", def),
                          &d->reserve, reserve_fraction);
        break;
    }
  }
}

void add_deployment_lists(FlagSet& flags, DeploymentLists* d, std::initializer_list<DepUse> uses) {
  static constexpr const char* kRanges = "; ranges A:B (step 1), A:B:S (step S), A:B:xF (times F)";
  for (const DepUse& u : uses) {
    const char* def = u.default_text;
    switch (u.flag) {
      case Dep::kSeq:
        flags.add<std::vector<int64_t>>(
            "--seq", with_default("Context lengths T, e.g. 2048,8192 or 1k:128k:x2" + std::string(kRanges), def),
            &d->contexts, [](std::string_view t, std::string_view fl) { return parse_count_list(t, fl, kMaxTokens); });
        flags.alias("--context", "--seq");
        break;
      case Dep::kBatch:
        flags.add<std::vector<int64_t>>(
            "--batch", with_default("Batch sizes, e.g. 1,8,64 or 1:1024" + std::string(kRanges), def), &d->batches,
            [](std::string_view t, std::string_view fl) { return parse_count_list(t, fl, kMaxBatch); });
        break;
      case Dep::kDtype:
        flags.add<std::vector<Dtype>>(
            "--dtype", with_default("Weight dtypes, e.g. fp16,int8 (" + dtype_names() + ")", def),
            &d->dtypes, [](std::string_view t, std::string_view fl) { return parse_list<Dtype>(t, fl, parse_dtype); });
        break;
      case Dep::kKvDtype:
        flags.add<std::vector<Dtype>>(
            "--kv-dtype", with_default("KV-cache dtypes, e.g. fp16,fp8 (" + dtype_names(true) + ")", def), &d->kv_dtypes,
            [](std::string_view t, std::string_view fl) { return parse_list<Dtype>(t, fl, parse_kv_dtype); });
        break;
      case Dep::kGpus:
      case Dep::kTp:
      case Dep::kPp:
      case Dep::kEp:
      case Dep::kDp: {
        static constexpr const char* kNames[] = {"--gpus", "--tp", "--pp", "--ep", "--dp"};  // Dep order
        static constexpr const char* kWhat[] = {"GPUs per deployment", "Tensor-parallel degrees",
                                                "Pipeline-parallel degrees", "Expert-parallel degrees",
                                                "Data-parallel replicas"};
        std::vector<int64_t>* targets[] = {&d->gpus, &d->tp, &d->pp, &d->ep, &d->dp};
        const size_t i = static_cast<size_t>(u.flag) - static_cast<size_t>(Dep::kGpus);
        flags.add<std::vector<int64_t>>(
            kNames[i],
            with_default(std::string(kWhat[i]) + ", e.g. 1,2,4,8, each 1 to " + group_digits(kMaxGpus) + kRanges,
                         def),
            targets[i], [](std::string_view t, std::string_view fl) { return parse_count_list(t, fl, kMaxGpus); });
        break;
      }
      default:
        break;  // not a list flag
    }
  }
}

void add_gpu_flags(FlagSet& flags, GpuFlags* f) {
  flags.text("--gpu", "GPU from the catalog (modelcalc gpus lists them)", &f->gpu)
      .add<double>("--bandwidth", "Memory bandwidth, e.g. 3.35TB/s (overrides --gpu's)", &f->bandwidth,
                   parse_bandwidth)
      .add<double>("--capacity", "Memory capacity, e.g. 80GB or 81559MiB (binary KiB/MiB/GiB/TiB too; overrides --gpu's)", &f->capacity, parse_bytes)
      .add<double>("--peak", "Dense bf16 peak, e.g. 989.4TFLOPS (overrides --gpu's)", &f->peak, parse_flops);
}

Result<std::optional<GpuSpec>> resolve_gpu_flags(const GpuFlags& f) {
  MC_ASSIGN_OR_RETURN(const app::SharedGpu g, app::resolve_gpu(f));
  if (g == nullptr) return std::optional<GpuSpec>();
  return std::optional<GpuSpec>(*g);
}

Status as_flag_error(const Status& s, std::string_view context_flag) {
  if (s.ok()) return s;
  // Option-struct fields of the analyses (modelcalc/*.h) and the flag that sets each.
  static constexpr std::pair<std::string_view, std::string_view> kMap[] = {
      {"tp", "--tp"},
      {"pp", "--pp"},
      {"ep", "--ep"},
      {"attn_dp", "--gpus"},
      {"redundant_experts", "--redundant-experts"},
      {"expert_imbalance", "--expert-imbalance"},
      {"spec_tokens", "--spec-tokens"},
      {"spec_acceptance", "--spec-acceptance"},
      {"spec_method", "--spec-method"},
      {"draft_model", "--draft-model"},
      {"prefix_hit", "--prefix-hit"},
      {"prefix_tokens", "--prefix-tokens"},
      {"dp", "--dp"},
      {"gpus", "--gpus"},
      {"gpu", "--gpu"},
      {"price", "--price"},
      {"model", "--model"},
      {"params", "--params"},
      {"compute_dtype", "--compute-dtype"},
      {"math_dtype", "--dtype"},
      {"kv_dtype", "--kv-dtype"},
      {"reserve_fraction", "--reserve"},
      {"reserve", "--reserve"},
      {"workspace_bytes", "--workspace"},
      {"workspace", "--workspace"},
      {"budget", "--budget"},
      {"prompt_tokens", "--prompt"},
      {"batch", "--batch"},
      {"batches", "--batch"},
      {"seq", "--seq"},
      {"block_size", "--block-size"},
      {"mean_len", "--mean-len"},
      {"zero", "--zero"},
      {"micro_batch", "--micro-batch"},
      {"seq_lens", "--lens"},
      {"max_len", "--seq"},
      {"kv_bytes_per_token", "--kv-bytes-per-token"},
      {"intensity", "--intensity"},
      {"gemm_n", "--gemm"},
      {"engine", "--engine"},
      {"gpu_memory_utilization", "--gpu-memory-utilization"},
      {"kv_cache_free_gpu_mem_fraction", "--kv-cache-free-gpu-mem-fraction"},
      {"mem_fraction_static", "--mem-fraction-static"},
      {"swa_full_tokens_ratio", "--swa-full-tokens-ratio"},
      {"max_model_len", "--max-model-len"},
      {"max_num_batched_tokens", "--max-num-batched-tokens"},
      {"max_num_seqs", "--max-num-seqs"},
      {"cp", "--cp"},
      {"virtual_stages", "--virtual-stages"},
      {"microbatch_group", "--microbatch-group"},
      {"first_stage_layers", "--first-stage-layers"},
      {"last_stage_layers", "--last-stage-layers"},
      {"global_batch", "--global-batch"},
      {"capacity_factor", "--capacity-factor"},
      {"overhead_bytes", "--overhead"},
      {"micro_batches", "--micro-batch"},
      {"max_batch_tokens", "--max-batch-tokens"},
      {"max_tp", "--max-tp"},
      {"max_pp", "--max-pp"},
      {"max_ep", "--max-ep"},
      {"max_gpus", "--max-gpus"},
      {"deadline_days", "--days"},
  };
  const std::string& msg = s.message();
  const size_t colon = msg.find(": ");
  if (colon == std::string::npos) return s;
  const std::string_view field(msg.data(), colon);
  std::string_view flag;
  if (field == "context") flag = context_flag;
  for (const auto& [k, v] : kMap) {
    if (field == k) flag = v;
  }
  // The model's fields by their canonical names (app::resolve_model's errors: "checkpoint", "hidden", ...).
  std::string model_flag;
  const app::Row* row = app::model_table().find(field);
  if (flag.empty() && row != nullptr && row->field->name == field) {
    model_flag = "--" + std::string(row->field->flag);
    flag = model_flag;
  }
  if (flag.empty()) return s;
  if (s.code() == Status::Code::kOverflow) return Status::Overflow(flag);
  return Status::InvalidArgument(flag, std::string_view(msg).substr(colon + 2));
}

void add_output_flags(FlagSet& flags, OutputFlags* f) {
  flags.toggle("--json", "Print JSON (for scripts)", &f->json)
      .toggle("--explain", "Show every number as formula, substitution, result", &f->explain);
}

void add_strings_flag(FlagSet& flags, OutputFlags* f) {
  flags.toggle("--strings",
               "With --json: also \"strings\", each figure as the text report prints it, keyed by its JSON key "
               "(\"decode_step.seconds\": \"9.609 ms\")",
               &f->strings);
}

void emit(const Report& r, const OutputFlags& f, std::ostream& out) {
  if (f.json) {
    nlohmann::json j = render_json(r);
    if (f.strings) j["strings"] = render_json_strings(r);
    out << j.dump(2) << "\n";
  } else if (f.explain) {
    out << render_explain(r);
  } else {
    out << render_text(r);
  }
}

Result<std::vector<PricedGpu>> resolve_priced_gpus(const std::string& gpu_list, const std::string& price_text) {
  MC_ASSIGN_OR_RETURN(std::vector<GpuPrice> overrides,
                      price_text.empty() ? Result<std::vector<GpuPrice>>(std::vector<GpuPrice>{})
                                         : parse_price_overrides(price_text, "--price"));
  std::vector<std::string> names;
  if (!gpu_list.empty()) {
    MC_ASSIGN_OR_RETURN(names, split_comma_list(gpu_list, "--gpu"));
  }
  auto r = priced_gpus(names, overrides);
  if (!r.ok()) return as_flag_error(r.status());
  return r;
}

}  // namespace modelcalc
