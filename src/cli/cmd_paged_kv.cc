// modelcalc paged-kv: KV memory used by a set of sequences, reserved by
// contiguous max-length allocation, and allocated by a paged allocator.
#include <sstream>
#include <memory>
#include <vector>

#include "capacity_report.h"
#include "commands.h"
#include "format.h"
#include "input_file.h"
#include "inputs.h"
#include "modelcalc/capacity.h"
#include "quantity.h"

namespace modelcalc {

namespace {

struct PagedKvFlags {
  ModelFlags model;
  OutputFlags output;
  std::vector<int64_t> lens;  // "100,2000,517"
  std::string lens_file;  // one length per line
  int64_t block_size = 16;
  std::optional<int64_t> kv_bytes_per_token;
  DeploymentFlags dep;  // --kv-dtype; --seq (= --context = --max-len): tokens reserved per sequence
};

std::string trim(std::string s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

Result<std::vector<int64_t>> parse_lens(std::string_view text, std::string_view) {
  std::vector<int64_t> lens;
  size_t start = 0, item = 1;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string field = trim(std::string(text.substr(start, comma - start)));
    auto v = parse_count(field, "--lens");
    if (!v.ok()) {
      return Status::InvalidArgument("--lens", "item " + std::to_string(item) + " (" + quote_input(field) +
                                                   ") is not a whole number of tokens between 1 and 1e15");
    }
    lens.push_back(*v);
    start = comma + 1;
    ++item;
  }
  return lens;
}

// One length per line; blank lines are skipped.
Result<std::vector<int64_t>> read_lens_file(const std::string& path) {
  auto text = read_input_file(path);
  if (!text.ok()) return Status::InvalidArgument("--lens-file", text.status().message());
  std::istringstream in(*text);
  std::vector<int64_t> lens;
  std::string line;
  for (int64_t n = 1; std::getline(in, line); ++n) {
    const std::string t = trim(line);
    if (t.empty()) continue;
    auto v = parse_count(t, "--lens-file");
    if (!v.ok()) {
      return Status::InvalidArgument("--lens-file", path + " line " + std::to_string(n) + ": " + quote_input(t) +
                                                        " is not a whole number of tokens between 1 and 1e15");
    }
    lens.push_back(*v);
  }
  if (lens.empty()) return Status::InvalidArgument("--lens-file", "'" + path + "' holds no lengths");
  return lens;
}

Status run_paged_kv(const PagedKvFlags& f, std::ostream& out) {
  if (f.lens.empty() == f.lens_file.empty()) {
    return Status::InvalidArgument("--lens", "give the lengths either as --lens 100,2000,517 or --lens-file F");
  }
  auto lens = f.lens.empty() ? read_lens_file(f.lens_file) : Result<std::vector<int64_t>>(f.lens);
  if (!lens.ok()) return lens.status();
  const int64_t block = f.block_size;

  int64_t per_token = 0;
  int64_t model_ctx = 0;
  std::string source;
  if (f.kv_bytes_per_token) {
    if (has_model(f.model)) {
      return Status::InvalidArgument("--kv-bytes-per-token", "give either a model or --kv-bytes-per-token, not both");
    }
    per_token = *f.kv_bytes_per_token;
    source = "(--kv-bytes-per-token)";
  } else {
    if (!has_model(f.model)) {
      return Status::InvalidArgument("--kv-bytes-per-token", "is required unless a model is given");
    }
    auto m = resolve_model_flags(f.model);
    if (!m.ok()) return m.status();
    const Dtype t = f.dep.kv_dtype.value_or(kDefaultWeightDtype);
    auto v = kv_bytes_per_token(*m, t);
    if (!v.ok()) return v.status();
    per_token = *v;
    model_ctx = default_context(*m);
    source = "(2 × L × d_kv × " + std::string(dtype_name(t)) + " from the model)";
  }
  int64_t max_len = model_ctx;
  if (f.dep.seq) {
    max_len = *f.dep.seq;
  } else if (max_len <= 0) {
    return Status::InvalidArgument("--seq", "is required without a model (tokens a contiguous allocator reserves "
                                            "per sequence, e.g. --seq 8192)");
  }
  auto r = has_model(f.model) ? analyze_paged_kv_model(*resolve_model_flags(f.model), f.dep.kv_dtype.value_or(kDefaultWeightDtype),
                                                       *lens, block, max_len)
                               : analyze_paged_kv(*lens, block, max_len, per_token);
  if (!r.ok()) return r.status();
  emit(build_paged_kv_report(*r, block, source), f.output, out);
  return Status::Ok();
}

}  // namespace

CommandRun setup_paged_kv(FlagSet& flags) {
  auto f = std::make_shared<PagedKvFlags>();
  flags.add<std::vector<int64_t>>("--lens", "Sequence lengths in tokens, comma-separated: 100,2000,517", &f->lens,
                                  parse_lens)
      .text("--lens-file", "A file of sequence lengths, one per line", &f->lens_file)
      .add<int64_t>("--block-size", "Paged block size in tokens (default: 16)", &f->block_size, parse_count)
      .add<int64_t>("--kv-bytes-per-token", "KV bytes one token adds (instead of a model)", &f->kv_bytes_per_token,
                    parse_count);
  add_model_flags(flags, &f->model);
  add_deployment_flags(flags, &f->dep,
                       {{Dep::kKvDtype, "bf16; used when a model is given"},
                        {Dep::kSeq, "with a model, 8,192 tokens or its max positions if smaller; the tokens a "
                                    "contiguous allocator reserves per sequence"}});
  flags.alias("--max-len", "--seq");
  add_output_flags(flags, &f->output);
  return [f](std::ostream& out) { return run_paged_kv(*f, out); };
}

}  // namespace modelcalc
