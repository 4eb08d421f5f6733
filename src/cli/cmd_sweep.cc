// modelcalc sweep: `size` over every combination of comma-separated lists,
// one row each, printed as text, csv, md, json or jsonl.
#include <algorithm>
#include <fmt/format.h>
#include <memory>
#include <string_view>

#include "commands.h"
#include "deployment_options.h"
#include "format.h"
#include "inputs.h"
#include "modelcalc/sweep.h"
#include "quantity.h"
#include "runs.h"
#include "sweep_table.h"

namespace modelcalc {

namespace {

// The text format aligns columns over every row, so it holds the table in
// memory; more rows than this is refused (the other formats stream, no cap).
constexpr int64_t kMaxTextRows = 100'000;

struct SweepFlags {
  ModelFlags model;  // --model and --config take comma-separated lists
  GpuFlags gpu;      // --gpu takes a list; --bandwidth/--capacity/--peak apply to every GPU
  DeploymentLists lists;  // --seq --batch --dtype --kv-dtype --gpus --tp --pp --ep --dp
  std::string fields;     // default: the default columns
  std::string format;    // default: text
  bool json = false;     // --json = --format json
  EngineCliFlags engine; // the profile of the predicted_* columns
  LayoutCliFlags layout; // --dp-attention and the layout options, the same for every row
};

// A lookup error that does not name its flag gets `flag` in front.
Status with_flag(const Status& s, const char* flag) {
  if (s.code() == Status::Code::kInvalidArgument) return s;
  return Status::InvalidArgument(flag, s.message());
}

// The model items: one per --model or --config entry, or the one hand-typed shape.
Result<std::vector<std::string>> model_items(const SweepFlags& f) {
  if (!has_model(f.model)) {
    return Status::InvalidArgument("--model", "give --model a,b (presets), --config p1,p2 or the shape flags "
                                              "(-L, -d, --heads, --ffn, --vocab)");
  }
  if (!f.model.model.empty() && !f.model.config.empty()) {
    return Status::InvalidArgument("--model", "give either --model or --config, not both");
  }
  if (!f.model.model.empty()) return split_list(f.model.model, "--model");
  if (!f.model.config.empty()) return split_list(f.model.config, "--config");
  return std::vector<std::string>{""};
}

Result<std::vector<ModelSpec>> resolve_models(const SweepFlags& f, const std::vector<std::string>& items) {
  std::vector<ModelSpec> models;
  const bool presets = !f.model.model.empty();
  const char* flag = presets ? "--model" : "--config";
  for (const std::string& item : items) {
    ModelFlags one = f.model;
    if (!item.empty()) (presets ? one.model : one.config) = item;
    auto m = resolve_model(one);
    if (!m.ok()) return with_flag(m.status(), flag);
    models.push_back(*std::move(m));
  }
  return models;
}

// The GPU items: the --gpu list, or one "" for the custom GPU of
// --bandwidth/--capacity/--peak.
Result<std::vector<std::string>> gpu_items(const SweepFlags& f) {
  if (!f.gpu.gpu.empty()) return split_list(f.gpu.gpu, "--gpu");
  if (!f.gpu.custom()) {
    return Status::InvalidArgument("--gpu", "is required: a comma-separated list, e.g. h100,mi300x "
                                            "(or --bandwidth, --capacity and --peak for a custom GPU)");
  }
  return std::vector<std::string>{""};
}

Result<std::vector<GpuSpec>> resolve_gpus(const SweepFlags& f, const std::vector<std::string>& items) {
  std::vector<GpuSpec> gpus;
  for (const std::string& item : items) {
    GpuFlags one = f.gpu;
    one.gpu = item;
    MC_ASSIGN_OR_RETURN(const auto g, resolve_gpu(one));
    MC_RETURN_IF_ERROR(require_peak(g.value()));  // every row has a regime: it needs the ridge point
    gpus.push_back(g.value());  // never nullopt: gpu_items checked a GPU was given
  }
  return gpus;
}

Result<std::string> resolve_format(const SweepFlags& f) {
  if (f.json && !f.format.empty() && f.format != "json") {
    return Status::InvalidArgument("--json", "is --format json; it cannot be combined with --format " + f.format);
  }
  std::string name = f.json ? "json" : f.format.empty() ? "text" : f.format;
  if (auto p = find_sweep_format(name); !p.ok()) return p.status();
  return name;
}

// The splits: the product of the --pp, --ep, --dp lists with the --tp list
// or the --gpus list (tp = gpus / (pp x dp)), as the deployment flags of
// every other command combine; with both, the combinations where
// tp x pp x dp = gpus. Errors name the flag the user typed.
Result<std::vector<Parallelism>> resolve_splits(const DeploymentLists& l) {
  const std::vector<int64_t> one = {1};
  const auto& pps = l.pp.empty() ? one : l.pp;
  const auto& eps = l.ep.empty() ? one : l.ep;
  const auto& dps = l.dp.empty() ? one : l.dp;
  const bool by_gpus = !l.gpus.empty() && l.tp.empty();
  const bool both = !l.gpus.empty() && !l.tp.empty();
  const auto& firsts = by_gpus ? l.gpus : (l.tp.empty() ? one : l.tp);
  std::vector<Parallelism> out;
  for (int64_t first : firsts) {
    for (int64_t pp : pps) {
      for (int64_t ep : eps) {
        for (int64_t dp : dps) {
          Parallelism p;
          p.pp = pp;
          p.ep = ep;
          p.dp = dp;
          if (both) {
            p.tp = first;
            // Each factor is at most 2^20: the product fits in 64 bits.
            if (std::find(l.gpus.begin(), l.gpus.end(), p.tp * p.pp * p.dp) == l.gpus.end()) continue;
          } else if (by_gpus) {
            if (first % (pp * dp) != 0) {
              return Status::InvalidArgument("--gpus", fmt::format("{} is not a multiple of --pp x --dp = {} x {}",
                                                                   first, pp, dp));
            }
            p.tp = first / (pp * dp);
          } else {
            p.tp = first;
          }
          if (p.tp * p.pp > kMaxGpus || p.tp * p.pp * p.dp > kMaxGpus) {
            return Status::InvalidArgument(by_gpus ? "--gpus" : "--tp",
                                           fmt::format("tp x pp x dp = {} x {} x {} exceeds {} GPUs", p.tp, p.pp, p.dp,
                                                       group_digits(kMaxGpus)));
          }
          out.push_back(p);
          if (static_cast<int64_t>(out.size()) > kMaxListItems) {
            return Status::InvalidArgument("--tp", "more than " + group_digits(kMaxListItems) + " splits");
          }
        }
      }
    }
  }
  if (out.empty()) {
    return Status::InvalidArgument("--gpus", "no --tp x --pp x --dp in the lists equals a --gpus value");
  }
  return out;
}

// --dp-attention: each --gpus value is a replica of gpus / tp attention groups
// of --tp GPUs (default 1), its experts over --ep ranks (default: all of it),
// --dp whole replicas; --pp must be 1.
Result<std::vector<Parallelism>> resolve_dp_attention_splits(const DeploymentLists& l) {
  if (l.gpus.empty()) return Status::InvalidArgument("--dp-attention", "needs --gpus: the replica's GPU counts");
  if (!l.pp.empty() && (l.pp.size() != 1 || l.pp[0] != 1)) {
    return Status::InvalidArgument("--pp", "must be 1 with --dp-attention");
  }
  const std::vector<int64_t> one = {1}, all = {0};
  std::vector<Parallelism> out;
  for (int64_t g : l.gpus) {
    for (int64_t tp : l.tp.empty() ? one : l.tp) {
      for (int64_t ep : l.ep.empty() ? all : l.ep) {
        for (int64_t dp : l.dp.empty() ? one : l.dp) {
          MC_ASSIGN_OR_RETURN(const Parallelism p, dp_attention_split(g, tp, ep == 0 ? g : ep, dp));
          if (g * dp > kMaxGpus) {
            return Status::InvalidArgument("--gpus", fmt::format("{} x --dp {} exceeds {} GPUs", g, dp,
                                                                 group_digits(kMaxGpus)));
          }
          out.push_back(p);
          if (static_cast<int64_t>(out.size()) > kMaxListItems) {
            return Status::InvalidArgument("--gpus", "more than " + group_digits(kMaxListItems) + " splits");
          }
        }
      }
    }
  }
  return out;
}

// The layout flags onto the spec: the same options on every row. `draft` holds a --draft-model's shape.
Status apply_sweep_layout(const LayoutCliFlags& l, const DeploymentLists& lists, SweepSpec* spec, ModelSpec* draft) {
  if (l.dp_attention) {
    MC_ASSIGN_OR_RETURN(spec->splits, resolve_dp_attention_splits(lists));
  }
  if (l.two_batch_overlap && !l.dp_attention) {
    return Status::InvalidArgument("--two-batch-overlap", "hides the all-to-all of --dp-attention; give that too");
  }
  const bool any_ep = l.dp_attention || std::any_of(spec->splits.begin(), spec->splits.end(),
                                                    [](const Parallelism& p) { return p.ep > 1; });
  if ((l.expert_imbalance || l.redundant_experts) && !any_ep) {
    return Status::InvalidArgument(l.expert_imbalance ? "--expert-imbalance" : "--redundant-experts",
                                   "needs expert parallelism (ep > 1): give --ep or --dp-attention");
  }
  spec->expert_imbalance = l.expert_imbalance.value_or(1.0);
  spec->redundant_experts = l.redundant_experts.value_or(0);
  spec->two_batch_overlap = l.two_batch_overlap;
  // The drafter and the prefix cache: parsed as every deployment command parses them.
  LayoutCliFlags rest;
  rest.spec_tokens = l.spec_tokens;
  rest.spec_acceptance = l.spec_acceptance;
  rest.spec_method = l.spec_method;
  rest.draft_model = l.draft_model;
  rest.prefix_hit = l.prefix_hit;
  rest.prefix_tokens = l.prefix_tokens;
  DeploymentOptions o;
  MC_RETURN_IF_ERROR(apply_layout_flags(rest, DeploymentFlags{}, ModelSpec{}, &o, draft));
  spec->spec = o.spec;
  spec->prefix = o.prefix;
  return Status::Ok();
}

Status check_text_rows(size_t models, size_t gpus, const SweepSpec& s) {
  const size_t sizes[] = {models, gpus * s.splits.size(), std::max<size_t>(s.contexts.size(), 1), s.batches.size(),
                          s.dtypes.size(), std::max<size_t>(s.kv_dtypes.size(), 1)};
  int64_t n = 1;
  bool over = false;
  for (size_t k : sizes) over = over || __builtin_mul_overflow(n, static_cast<int64_t>(k), &n) || n > kMaxTextRows;
  if (!over) return Status::Ok();
  return Status::InvalidArgument(
      "--format",
      fmt::format("text aligns its columns over every row, so it holds at most {} rows, and {} × {} × {} × {} × {} × "
                  "{} combinations exceed that; use --format csv, md, json or jsonl, which stream any number of rows",
                  group_digits(kMaxTextRows), sizes[0], sizes[1], sizes[2], sizes[3], sizes[4], sizes[5]));
}

Status run_sweep(const SweepFlags& f, std::ostream& out) {
  if (f.fields == "help") {
    out << fields_help();
    return Status::Ok();
  }
  // Everything is parsed and validated before any row is evaluated.
  MC_ASSIGN_OR_RETURN(const auto columns, parse_fields(f.fields));
  MC_ASSIGN_OR_RETURN(const std::string format, resolve_format(f));
  DeploymentLists plain = f.lists;
  if (f.layout.dp_attention) {  // the split lists mean a replica's layout, read by apply_sweep_layout
    plain.gpus.clear(), plain.tp.clear(), plain.pp.clear(), plain.ep.clear(), plain.dp.clear();
  }
  MC_ASSIGN_OR_RETURN(SweepSpec spec, sweep_spec(plain));
  ModelSpec draft;
  MC_RETURN_IF_ERROR(apply_sweep_layout(f.layout, f.lists, &spec, &draft));
  MC_ASSIGN_OR_RETURN(spec.engine, cli_engine(f.engine));
  spec.engine_flags = f.engine.flags;
  MC_ASSIGN_OR_RETURN(const auto items, model_items(f));
  MC_ASSIGN_OR_RETURN(const auto gpus, gpu_items(f));
  if (format == "text") MC_RETURN_IF_ERROR(check_text_rows(items.size(), gpus.size(), spec));
  MC_ASSIGN_OR_RETURN(spec.gpus, resolve_gpus(f, gpus));
  MC_ASSIGN_OR_RETURN(spec.models, resolve_models(f, items));
  default_sweep_dtypes(f.lists, &spec);
  spec.predict = std::any_of(columns.begin(), columns.end(), [](const SweepColumn* c) {
    return column_reads_prediction(*c);
  });

  // Everything that can fail is checked before the first row is written:
  // the output streams (run_cli does not hold it back).
  if (Status v = validate_sweep(spec); !v.ok()) return as_flag_error(v);
  MC_ASSIGN_OR_RETURN(auto writer, make_sweep_writer(format, columns, out));
  MC_RETURN_IF_ERROR(sweep(spec, [&writer](const SweepRow& row) { writer->row(row); }));
  writer->end();
  if (!out) return Status::IoError("cannot write to standard output");
  return Status::Ok();
}

std::string footer() {
  std::string s = "Every combination of the lists is one row, in this order: models outermost, then --gpu, the\n"
                  "split (--gpus or --tp, then --pp, --ep, --dp), --seq, --batch, --dtype, --kv-dtype innermost.\n"
                  "Each row's numbers are those `size --json` gives for the same flags.\n"
                  "Formats: text and md show human units; csv (RFC 4180), json (an array) and jsonl (one object\n"
                  "a line) give base units (bytes, tokens/s) at full precision.\n\n";
  return s + fields_help();
}

}  // namespace

Result<SweepSpec> sweep_spec(const DeploymentLists& lists) {
  SweepSpec spec;
  spec.contexts = lists.contexts;
  spec.batches = lists.batches.empty() ? std::vector<int64_t>{1} : lists.batches;
  spec.dtypes = lists.dtypes.empty() ? std::vector<Dtype>{kDefaultWeightDtype} : lists.dtypes;
  spec.kv_dtypes = lists.kv_dtypes;
  MC_ASSIGN_OR_RETURN(spec.splits, resolve_splits(lists));
  return spec;
}

void default_sweep_dtypes(const DeploymentLists& lists, SweepSpec* spec) {
  if (!lists.dtypes.empty() || spec->models.empty()) return;
  // Without --dtype: the models' checkpoint dtype when they agree on one (one model, or
  // several quantized alike), else the library's default (bf16).
  const Dtype first = default_weight_dtype(spec->models.front(), kDefaultWeightDtype);
  bool same = true;
  for (const ModelSpec& m : spec->models) same = same && default_weight_dtype(m, kDefaultWeightDtype) == first;
  spec->dtypes = {same ? first : kDefaultWeightDtype};
}

CommandRun setup_sweep(FlagSet& flags) {
  auto f = std::make_shared<SweepFlags>();
  add_model_flags(flags, &f->model);
  add_gpu_flags(flags, &f->gpu);
  add_deployment_lists(flags, &f->lists,
                       {{Dep::kSeq, "8,192 tokens, or each model's max positions if smaller"},
                        {Dep::kBatch, "1"},
                        {Dep::kDtype, "the models' checkpoint dtype when they share one, else bf16"},
                        {Dep::kKvDtype, "16-bit per row (bf16; fp16 or fp32 with such weights), not --dtype"},
                        {Dep::kGpus, "1; tp = gpus / (pp x dp)"},
                        {Dep::kTp, "--gpus / (pp x dp)"},
                        {Dep::kPp, "1"},
                        {Dep::kEp, "1"},
                        {Dep::kDp, "1"}});
  flags.text("--fields", "Columns to print, comma-separated ('help' lists them; default: the default columns)",
             &f->fields)
      .text("--format", "text, csv, md, json or jsonl (default: text)", &f->format)
      .toggle("--json", "Same as --format json", &f->json);
  add_engine_profile_flags(flags, &f->engine);
  add_layout_flags(flags, &f->layout);
  flags.footer(footer());
  flags.stream_output();
  return [f](std::ostream& out) { return run_sweep(*f, out); };
}

}  // namespace modelcalc
