#include "serve_args.h"

#include <algorithm>
#include <cctype>

#include "cli.h"
#include "quantity.h"

namespace modelcalc {

namespace {

using K = ServeFlagKind;

// Every flag of every command (serve_args_test.cc checks the table against
// what the commands declare). A file flag is kFile whatever else it does.
constexpr ServeFlagRule kRules[] = {
    {"aggregate-tokens-per-s", 0, K::kValue},
    {"allow-long-max-model-len", 0, K::kSwitch},
    {"bandwidth", 0, K::kValue},
    {"batch", 0, K::kValue},
    {"bf16-grads", 0, K::kSwitch},
    {"block-size", 0, K::kValue},
    {"budget", 0, K::kValue},
    {"bw-util", 0, K::kValue},
    {"capacity", 0, K::kValue},
    {"capacity-factor", 0, K::kValue},
    {"causal", 0, K::kSwitch},
    {"checkpoint", 0, K::kFile},  // a checkpoint folder (config.json, safetensors headers) on the server
    {"compare", 0, K::kFile},  // reads a measurements TSV on the server ('shared': the compiled-in rows)
    {"compute", 0, K::kValue},
    {"compute-dtype", 0, K::kValue},
    {"concurrency", 0, K::kValue},
    {"config", 0, K::kFile},  // a config.json (or a folder holding one) on the server
    {"context", 0, K::kValue},
    {"count", 0, K::kFile},  // models --count: a checkpoint folder on the server
    {"cp", 0, K::kValue},
    {"cv", 0, K::kValue},
    {"data", 0, K::kFile},  // reads a measurements TSV on the server
    {"days", 0, K::kValue},
    {"disaggregated", 0, K::kSwitch},
    {"dp", 0, K::kValue},
    {"dp-attention", 0, K::kSwitch},
    {"draft-model", 0, K::kFile},  // a preset name or a config.json on the server
    {"dropout", 0, K::kSwitch},
    {"dtype", 0, K::kValue},
    {"efficiency", 0, K::kValue},
    {"embedding-in-split", 0, K::kSwitch},
    {"engine", 0, K::kValue},
    {"ep", 0, K::kValue},
    {"expert-imbalance", 0, K::kValue},
    {"explain", 0, K::kSwitch},
    {"ffn", 0, K::kValue},
    {"fields", 0, K::kValue},
    {"first-stage-layers", 0, K::kValue},
    {"fit", 0, K::kSwitch},
    {"flash", 0, K::kSwitch},
    {"flop-util", 0, K::kValue},
    {"format", 0, K::kOutput},
    {"frontier", 0, K::kSwitch},
    {"gap-us", 0, K::kValue},
    {"gemm", 0, K::kValue},
    {"global-batch", 0, K::kValue},
    {"glu", 0, K::kSwitch},
    {"gpu", 0, K::kValue},
    {"gpu-memory-utilization", 0, K::kValue},
    {"gpus", 0, K::kValue},
    {"grads", 0, K::kValue},
    {"head-dim", 0, K::kValue},
    {"heads", 0, K::kValue},
    {"help", 'h', K::kOutput},
    {"hidden", 'd', K::kValue},
    {"intensity", 0, K::kValue},
    {"isl", 0, K::kValue},
    {"itl", 0, K::kValue},
    {"json", 0, K::kOutput},
    {"kernel-us", 0, K::kValue},
    {"kernels-per-step", 0, K::kValue},
    {"kv-bytes-per-token", 0, K::kValue},
    {"kv-cache-free-gpu-mem-fraction", 0, K::kValue},
    {"kv-dtype", 0, K::kValue},
    {"kv-heads", 0, K::kValue},
    {"kv-transfer-overlap", 0, K::kSwitch},
    {"last-stage-layers", 0, K::kValue},
    {"layers", 'L', K::kValue},
    {"length-dist", 0, K::kValue},
    {"lens", 0, K::kValue},
    {"lens-file", 0, K::kFile},  // reads sequence lengths from a file
    {"loss-in-split", 0, K::kSwitch},
    {"max-batch-size", 0, K::kValue},
    {"max-batch-tokens", 0, K::kValue},
    {"max-ep", 0, K::kValue},
    {"max-gpus", 0, K::kValue},
    {"max-len", 0, K::kValue},
    {"max-model-len", 0, K::kValue},
    {"max-num-batched-tokens", 0, K::kValue},
    {"max-num-seqs", 0, K::kValue},
    {"max-num-tokens", 0, K::kValue},
    {"max-pp", 0, K::kValue},
    {"max-tp", 0, K::kValue},
    {"mean-len", 0, K::kValue},
    {"mem-fraction-static", 0, K::kValue},
    {"mfu", 0, K::kValue},
    {"micro-batch", 0, K::kValue},
    {"microbatch-group", 0, K::kValue},
    {"model", 0, K::kValue},
    {"no-flash", 0, K::kSwitch},
    {"no-overlap", 0, K::kSwitch},
    {"optimizer", 0, K::kValue},
    {"osl", 0, K::kValue},
    {"overhead", 0, K::kValue},
    {"params", 0, K::kValue},
    {"peak", 0, K::kValue},
    {"peak-transient", 0, K::kValue},
    {"phase", 0, K::kValue},
    {"plot", 0, K::kFile},  // writes an SVG file
    {"pp", 0, K::kValue},
    {"prefix-hit", 0, K::kValue},
    {"prefix-tokens", 0, K::kValue},
    {"price", 0, K::kValue},
    {"price-per-hour", 0, K::kValue},
    {"profile", 0, K::kFile},  // reads a time-parameter file on the server
    {"prompt", 0, K::kValue},
    {"prompt-tokens", 0, K::kValue},
    {"qps", 0, K::kValue},
    {"rank-by", 0, K::kValue},
    {"rate", 0, K::kValue},
    {"recompute", 0, K::kValue},
    {"redundant-experts", 0, K::kValue},
    {"report", 0, K::kFile},  // writes an HTML file
    {"reserve", 0, K::kValue},
    {"seq", 0, K::kValue},
    {"sequence-parallel", 0, K::kSwitch},
    {"sources", 0, K::kSwitch},
    {"spec-acceptance", 0, K::kValue},
    {"spec-method", 0, K::kValue},
    {"spec-tokens", 0, K::kValue},
    {"strings", 0, K::kSwitch},
    {"swa-full-tokens-ratio", 0, K::kValue},
    {"tied", 0, K::kSwitch},
    {"tokens", 0, K::kValue},
    {"tokens-per-s", 0, K::kValue},
    {"tokens-per-s-per-user", 0, K::kValue},
    {"top", 0, K::kValue},
    {"tp", 0, K::kValue},
    {"tpot", 0, K::kValue},
    {"train", 0, K::kSwitch},
    {"train-tokens", 0, K::kValue},
    {"training", 0, K::kSwitch},
    {"ttft", 0, K::kValue},
    {"two-batch-overlap", 0, K::kSwitch},
    {"virtual-stages", 0, K::kValue},
    {"vocab", 0, K::kValue},
    {"weights", 0, K::kValue},
    {"workspace", 0, K::kValue},
    {"write", 0, K::kFile},  // writes the fitted parameters
    {"zero", 0, K::kValue},
};

constexpr bool sorted_unique() {
  for (size_t i = 1; i < std::size(kRules); ++i) {
    if (!(kRules[i - 1].name < kRules[i].name)) return false;
  }
  return true;
}
static_assert(sorted_unique(), "kRules must be sorted by name, each name once");

bool is_key_char(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-'; }

}  // namespace

std::span<const ServeFlagRule> serve_flag_rules() { return kRules; }

const ServeFlagRule* find_serve_flag(std::string_view long_name) {
  const auto* it = std::lower_bound(std::begin(kRules), std::end(kRules), long_name,
                                    [](const ServeFlagRule& r, std::string_view n) { return r.name < n; });
  return it != std::end(kRules) && it->name == long_name ? it : nullptr;
}

Status check_serve_query(std::string_view command, const std::vector<std::pair<std::string, std::string>>& params,
                         ServeOutput output) {
  const bool known = std::any_of(commands().begin(), commands().end(),
                                 [&](const Command& c) { return command == c.name; });
  if (command == "serve") {
    return Status::NotFound("serve: is not available over the web API (it is the server itself)");
  }
  if (!known) {
    return Status::NotFound("command: unknown command " + quote_input(command) + " (modelcalc --help lists them)");
  }
  if (output == ServeOutput::kSvg && command != "roofline" && command != "plan") {
    return Status::NotFound("command: /api/svg/ draws roofline and plan, not " + quote_input(command));
  }
  if (output == ServeOutput::kHtml && command != "size") {
    return Status::NotFound("command: /api/html/ renders size's page, not " + quote_input(command));
  }
  if (params.size() > kServeMaxParams) {
    return Status::InvalidArgument("query", "at most " + std::to_string(kServeMaxParams) + " parameters, got " +
                                                std::to_string(params.size()));
  }
  size_t bytes = 0;
  for (const auto& [key, value] : params) bytes += key.size() + value.size();
  if (bytes > kServeMaxQueryBytes) {
    return Status::InvalidArgument("query", "at most " + std::to_string(kServeMaxQueryBytes) +
                                                " bytes of keys and values, got " + std::to_string(bytes));
  }

  for (const auto& [key, value] : params) {
    if (key.empty() || !std::isalpha(static_cast<unsigned char>(key[0])) ||
        !std::all_of(key.begin(), key.end(), is_key_char)) {
      return Status::InvalidArgument("query", "parameter " + quote_input(key) +
                                                  " is not a flag name (a letter, then letters, digits, '_' or '-')");
    }
    std::string name = key;
    std::replace(name.begin(), name.end(), '-', '_');
    for (const ServeSearchCap& cap : kServeSearchCaps) {
      if (cap.command != command || cap.key != name) continue;
      // A value that is no count is left to the command, which refuses it in its own words.
      auto n = parse_count(value, key);
      if (n.ok() && *n > cap.max) {
        return Status::InvalidArgument(key, "over the web API at most " + std::to_string(cap.max) + " (a search this "
                                            "large outlasts the server's budget; run modelcalc itself), got " +
                                            quote_input(value));
      }
    }
  }
  return Status::Ok();
}

Result<std::vector<std::string>> serve_args(std::string_view command,
                                            const std::vector<std::pair<std::string, std::string>>& params,
                                            ServeOutput output) {
  MC_RETURN_IF_ERROR(check_serve_query(command, params, output));
  std::vector<std::string> args{std::string(command)};
  for (const auto& [key, value] : params) {
    const ServeFlagRule* rule = nullptr;
    if (key.size() == 1) {
      for (const ServeFlagRule& r : kRules) {
        if (r.short_name == key[0]) rule = &r;
      }
    } else {
      std::string name = key;
      std::replace(name.begin(), name.end(), '_', '-');
      rule = find_serve_flag(name);
    }
    const std::string flag = key.size() == 1 ? "-" + key : "--" + (rule ? std::string(rule->name) : key);
    if (rule == nullptr) {
      return Status::InvalidArgument(flag, "is not a flag the web API passes (the command's --help lists its flags)");
    }
    switch (rule->kind) {
      case K::kFile:
        return Status::InvalidArgument(flag, "names a file on the server; the web API reads and writes no files "
                                             "(run modelcalc on your own machine for that)");
      case K::kOutput:
        if (output != ServeOutput::kText) {
          return Status::InvalidArgument(flag, "is chosen by the endpoint: /api/COMMAND is JSON, "
                                               "/api/text/COMMAND is the text report");
        }
        [[fallthrough]];
      case K::kSwitch:
        if (rule->name != "format") {  // --format takes a value; every other one here is a switch
          if (value == "true") {
            args.push_back("--" + std::string(rule->name));
          } else if (value != "false") {
            return Status::InvalidArgument(flag, "is a switch: give true or false, got " + quote_input(value));
          }
          break;
        }
        [[fallthrough]];
      case K::kValue:
        // "?model" would reach CLI11 as "--model=", which takes the next argument as its value.
        if (value.empty()) return Status::InvalidArgument("--" + std::string(rule->name), "needs a value, got an empty string");
        args.push_back("--" + std::string(rule->name) + "=" + value);
        break;
    }
  }
  switch (output) {
    case ServeOutput::kJson: args.push_back(command == "sweep" ? "--format=json" : "--json"); break;
    case ServeOutput::kSvg: args.push_back("--plot=-"); break;
    case ServeOutput::kHtml: args.push_back("--report=-"); break;
    case ServeOutput::kText: break;
  }
  return args;
}

}  // namespace modelcalc
