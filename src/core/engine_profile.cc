#include "modelcalc/engine_profile.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <string>
#include <system_error>

#include "embedded_data.h"
#include "input_file.h"
#include "modelcalc/deployment.h"
#include "modelcalc/exact.h"
#include "modelcalc/gpu.h"
#include "modelcalc/model.h"
#include "tsv.h"

namespace modelcalc {

namespace {

constexpr double kGiB = 1073741824.0;
constexpr int64_t kMaxLimit = int64_t{1} << 30;

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string fixed(double v) { return fmt::format("{}", v); }

}  // namespace

std::string_view engine_name(Engine e) {
  switch (e) {
    case Engine::kTrtllm: return "trtllm";
    case Engine::kVllm: return "vllm";
    case Engine::kSglang: return "sglang";
  }
  return "?";
}

std::string_view engine_display(Engine e) {
  switch (e) {
    case Engine::kTrtllm: return "TensorRT-LLM";
    case Engine::kVllm: return "vLLM";
    case Engine::kSglang: return "SGLang";
  }
  return "?";
}

// ---------------------------------------------------------------- releases

namespace {

// The release families, in EngineFamily's order. Boundaries:
//  - trtllm / trtllm-pytorch: the PyTorch backend "is available in version 0.17
//    and later" (nvidia.github.io/TensorRT-LLM/torch.html); 1.0 made it the
//    default backend of trtllm-serve and the LLM API (TensorRT-LLM 1.0 release
//    notes), so trtllm@1.x is the PyTorch family.
//  - vllm-v0 / vllm: "V1 is now enabled by default" from 0.8.0 (vLLM v0.8.0
//    release notes; VLLM_USE_V1=0 kept V0 selectable); the V0 engine was
//    removed in 0.11.0 (vLLM v0.11.0 release notes, recalled, verify).
constexpr std::array<EngineFamilyInfo, kEngineFamilyCount> kFamilies = {{
    {EngineFamily::kTrtllm, Engine::kTrtllm, "trtllm", "TensorRT-LLM (TensorRT engine)", {0, 1, 0},
     EngineVersion{1, 0, 0}, "0.x (before 1.0)",
     "NVIDIA/TensorRT-LLM releases; 1.0 made the PyTorch backend the default"},
    {EngineFamily::kTrtllmPytorch, Engine::kTrtllm, "trtllm-pytorch", "TensorRT-LLM (PyTorch backend)", {0, 17, 0},
     std::nullopt, "0.17 and later",
     "nvidia.github.io/TensorRT-LLM/torch.html (PyTorch backend available in 0.17 and later)"},
    {EngineFamily::kVllmV0, Engine::kVllm, "vllm-v0", "vLLM V0", {0, 1, 0}, EngineVersion{0, 11, 0},
     "before 0.11 (the default before 0.8)",
     "vLLM v0.8.0 release notes (V1 on by default); V0 removed in 0.11.0 (recalled, verify)"},
    {EngineFamily::kVllmV1, Engine::kVllm, "vllm", "vLLM V1", {0, 7, 0}, std::nullopt,
     "0.7 and later (the default from 0.8)", "vLLM v0.7.0 (V1 alpha, VLLM_USE_V1=1), v0.8.0 (V1 by default)"},
    {EngineFamily::kSglang, Engine::kSglang, "sglang", "SGLang", {0, 1, 0}, std::nullopt, "every release",
     "sgl-project/sglang"},
}};

std::optional<Engine> engine_by_name(const std::string& t) {
  if (t == "trtllm" || t == "tensorrt-llm" || t == "trt-llm" || t == "tensorrtllm") return Engine::kTrtllm;
  if (t == "vllm") return Engine::kVllm;
  if (t == "sglang") return Engine::kSglang;
  return std::nullopt;
}

std::optional<EngineFamily> family_by_key(const std::string& t) {
  for (const EngineFamilyInfo& f : kFamilies) {
    if (t == f.key) return f.family;
  }
  if (t == "vllm-v1") return EngineFamily::kVllmV1;
  return std::nullopt;
}

bool in_family(const EngineFamilyInfo& f, const EngineVersion& v) { return v >= f.first && (!f.end || v < *f.end); }

// Digits at `s[*i]`, at most 4 of them, into *out; false when none.
bool take_number(std::string_view s, size_t* i, int32_t* out) {
  size_t j = *i;
  int32_t v = 0;
  while (j < s.size() && j - *i < 5 && std::isdigit(static_cast<unsigned char>(s[j]))) {
    v = v * 10 + (s[j] - '0');
    ++j;
  }
  if (j == *i || j - *i > 4) return false;
  *out = v;
  *i = j;
  return true;
}

// MAJOR.MINOR[.PATCH] starting at s[*i]; *i moves past it.
std::optional<EngineVersion> take_version(std::string_view s, size_t* i) {
  EngineVersion v;
  size_t j = *i;
  if (!take_number(s, &j, &v.major) || j >= s.size() || s[j] != '.') return std::nullopt;
  ++j;
  if (!take_number(s, &j, &v.minor)) return std::nullopt;
  if (j + 1 < s.size() && s[j] == '.' && std::isdigit(static_cast<unsigned char>(s[j + 1]))) {
    ++j;
    if (!take_number(s, &j, &v.patch)) return std::nullopt;
  }
  *i = j;
  return v;
}

const char* kEngineChoices =
    "choose trtllm, trtllm-pytorch, vllm, vllm-v0, sglang, optionally @VERSION (e.g. vllm@0.6.5, trtllm@1.0)";

}  // namespace

std::string format_engine_version(const EngineVersion& v) {
  return v.patch == 0 ? fmt::format("{}.{}", v.major, v.minor) : fmt::format("{}.{}.{}", v.major, v.minor, v.patch);
}

const EngineFamilyInfo& engine_family_info(EngineFamily f) { return kFamilies[static_cast<size_t>(f)]; }

EngineFamily engine_family_at(Engine e, const std::optional<EngineVersion>& v) {
  switch (e) {
    case Engine::kTrtllm:
      return v && *v < *kFamilies[0].end ? EngineFamily::kTrtllm : EngineFamily::kTrtllmPytorch;
    case Engine::kVllm:
      return v && *v < EngineVersion{0, 8, 0} ? EngineFamily::kVllmV0 : EngineFamily::kVllmV1;
    case Engine::kSglang: return EngineFamily::kSglang;
  }
  return EngineFamily::kTrtllm;
}

EngineRelease default_release(Engine e) {
  return EngineRelease{*family_by_key(std::string(engine_name(e))), std::nullopt};
}

namespace {

// True when the number at text[i] is another product's version: the word before it (past spaces) names
// TensorRT (not TensorRT-LLM), CUDA, ROCm or PyTorch.
bool names_other_product(std::string_view text, size_t i) {
  size_t e = i;
  while (e > 0 && text[e - 1] == ' ') --e;
  size_t b = e;
  while (b > 0 && (std::isalpha(static_cast<unsigned char>(text[b - 1])) || text[b - 1] == '-')) --b;
  const std::string word = lower(text.substr(b, e - b));
  return word == "tensorrt" || word == "cuda" || word == "rocm" || word == "pytorch" || word == "torch";
}

}  // namespace

std::optional<EngineVersion> find_engine_version(std::string_view text) {
  for (size_t i = 0; i < text.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(text[i]))) continue;
    if (i > 0 && (std::isdigit(static_cast<unsigned char>(text[i - 1])) || text[i - 1] == '.')) continue;
    if (names_other_product(text, i)) continue;
    size_t j = i;
    if (auto v = take_version(text, &j)) return v;
  }
  return std::nullopt;
}

Result<EngineFamily> parse_engine_family(std::string_view text, std::string_view field) {
  if (auto f = family_by_key(lower(text))) return *f;
  return Status::InvalidArgument(field, "unknown engine family '" + std::string(text) +
                                            "'; choose trtllm, trtllm-pytorch, vllm-v0, vllm, sglang");
}

Result<EngineRelease> parse_engine(std::string_view text, std::string_view field) {
  const std::string t = lower(text);
  const size_t at = t.find('@');
  const std::string name = t.substr(0, at);
  EngineRelease r;
  if (at != std::string::npos) {
    const std::string_view vtext = std::string_view(t).substr(at + 1);
    size_t i = !vtext.empty() && vtext[0] == 'v' ? 1 : 0;
    r.version = take_version(vtext, &i);
    if (!r.version || i != vtext.size()) {
      return Status::InvalidArgument(field, "version '" + std::string(text.substr(at + 1)) +
                                                "' must be MAJOR.MINOR or MAJOR.MINOR.PATCH (e.g. vllm@0.6.5)");
    }
  }
  // The family the time table names "trtllm" is the TensorRT engine; an
  // engine name without a version means its family of that name.
  if (auto e = engine_by_name(name)) {
    r.family = r.version ? engine_family_at(*e, r.version) : default_release(*e).family;
    return r;
  }
  auto f = family_by_key(name);
  if (!f) return Status::InvalidArgument(field, "unknown engine '" + std::string(text) + "'; " + kEngineChoices);
  r.family = *f;
  const EngineFamilyInfo& info = engine_family_info(*f);
  if (r.version && !in_family(info, *r.version)) {
    return Status::InvalidArgument(field, std::string(info.key) + " covers releases " + std::string(info.releases) +
                                              ", not " + format_engine_version(*r.version));
  }
  return r;
}

std::string engine_release_key(const EngineRelease& r) {
  std::string out(engine_family_info(r.family).key);
  if (r.version) out += "@" + format_engine_version(*r.version);
  return out;
}

std::string engine_release_display(const EngineRelease& r) {
  const EngineFamilyInfo& f = engine_family_info(r.family);
  if (r.version) return std::string(f.display) + " " + format_engine_version(*r.version);
  return std::string(f.display) + (f.end ? ", its last release" : ", current release");
}

Result<EngineTimeTable> parse_engine_params(std::string_view tsv) {
  EngineTimeTable t;
  std::vector<std::pair<EngineFamily, StepTimeParams>>& out = t.profiles;
  std::vector<std::array<bool, kStepTimeParamCount>> seen;
  std::array<bool, kStepTimeParamCount> seen_all{};
  bool mtp = false;
  bool header = false;
  TsvLines lines(tsv);
  for (std::string_view line; lines.next(&line);) {
    const std::string where = "engine_profiles.tsv line " + std::to_string(lines.line_no());
    const std::vector<std::string_view> cols = split_fields(line);
    if (cols.size() != 3) {
      return Status::InvalidArgument(where, "expected 3 tab-separated columns: engine, parameter, value");
    }
    if (!header) {
      if (cols[0] != "engine" || cols[1] != "parameter" || cols[2] != "value") {
        return Status::InvalidArgument(where, "header must be: engine, parameter, value");
      }
      header = true;
      continue;
    }
    const bool all = cols[0] == "all";
    if (all && cols[1] == "mtp_acceptance") {
      if (!tsv_real(cols[2], &t.mtp_acceptance) || !(t.mtp_acceptance >= 0 && t.mtp_acceptance <= 1)) {
        return Status::InvalidArgument(where, "mtp_acceptance must be a probability in [0, 1]");
      }
      mtp = true;
      continue;
    }
    if (all && cols[1].starts_with("arch_factor_")) {
      MC_RETURN_IF_ERROR(read_global_step_param(cols[1], cols[2], where, &t.pooled));
      continue;
    }
    Result<EngineFamily> e = all ? Result<EngineFamily>(EngineFamily::kTrtllm) : parse_engine_family(cols[0], where);
    if (!e.ok()) return e.status();
    int idx = -1;
    for (int i = 0; i < kStepTimeParamCount; ++i) {
      if (step_param_name(i) == cols[1]) idx = i;
    }
    if (idx < 0) return Status::InvalidArgument(where, "unknown parameter '" + std::string(cols[1]) + "'");
    double v = 0;
    if (!tsv_real(cols[2], &v)) return Status::InvalidArgument(where, "value is not a number");
    if (!step_param_in_range(idx, v)) {
      return Status::InvalidArgument(where, std::string(step_param_name(idx)) + " must be " +
                                                std::string(step_param_range_text(idx)));
    }
    bool* listed = nullptr;
    StepTimeParams* target = nullptr;
    if (all) {
      listed = &seen_all[static_cast<size_t>(idx)];
      target = &t.pooled;
    } else {
      size_t k = 0;
      while (k < out.size() && out[k].first != *e) ++k;
      if (k == out.size()) {
        out.push_back({*e, StepTimeParams{}});
        seen.push_back({});
      }
      listed = &seen[k][static_cast<size_t>(idx)];
      target = &out[k].second;
    }
    if (*listed) return Status::InvalidArgument(where, "parameter listed twice");
    *listed = true;
    set_step_param(target, idx, v);
  }
  if (!header) return Status::InvalidArgument("engine_profiles.tsv", "no header line");
  if (!mtp) return Status::InvalidArgument("engine_profiles.tsv", "all lacks mtp_acceptance");
  for (int i = 0; i < kStepTimeParamCount; ++i) {
    if (!seen_all[static_cast<size_t>(i)]) {
      return Status::InvalidArgument("engine_profiles.tsv", "all lacks " + std::string(step_param_name(i)));
    }
  }
  for (size_t k = 0; k < out.size(); ++k) {
    for (int i = 0; i < kStepTimeParamCount; ++i) {
      if (!seen[k][static_cast<size_t>(i)]) {
        return Status::InvalidArgument("engine_profiles.tsv", std::string(engine_family_info(out[k].first).key) + " lacks " +
                                                                  std::string(step_param_name(i)));
      }
    }
    out[k].second.arch_factor = t.pooled.arch_factor;
  }
  return t;
}

std::string format_engine_params(const EngineTimeTable& t, std::string_view header) {
  std::string out(header);
  out += "engine\tparameter\tvalue\n";
  // 6 significant digits: the fit's own precision is far coarser.
  for (int i = 0; i < kStepTimeParamCount; ++i) {
    out += fmt::format("all\t{}\t{:.6g}\n", step_param_name(i), step_param(t.pooled, i));
  }
  for (GpuArch a : kAllGpuArchs) {
    out += fmt::format("all\t{}\t{:.6g}\n", arch_factor_name(a), t.pooled.arch_factor[static_cast<size_t>(a)]);
  }
  out += fmt::format("all\tmtp_acceptance\t{:.6g}\n", t.mtp_acceptance);
  for (const auto& [e, p] : t.profiles) {
    for (int i = 0; i < kStepTimeParamCount; ++i) {
      out += fmt::format("{}\t{}\t{:.6g}\n", engine_family_info(e).key, step_param_name(i), step_param(p, i));
    }
  }
  return out;
}

// ---------------------------------------------------------------- profiles

namespace {

// The memory rule of each family and where it comes from (EngineFamily's order).
struct MemoryText {
  std::string_view rule, source;
};
constexpr std::string_view kTrtRule =
    "KV = kv_cache_free_gpu_mem_fraction x (total - weights - runtime memory - activation buffers); each "
    "sequence reserves its whole length when admitted (guaranteed no evict); max_batch_size and max_num_tokens "
    "as trtllm-bench's build heuristic sets them from the request shape (else trtllm-build's 2048 and 8192)";
constexpr std::string_view kTrtSource =
    "NVIDIA/TensorRT-LLM docs/source/performance/perf-overview.md @258c7540 (kv_cache_free_gpu_mem_fraction "
    "0.95 in most published runs, default 0.90; Guaranteed No Evict); tensorrt_llm/bench/build/tuning.py "
    "(calc_engine_setting, finetune_setting)";
constexpr std::string_view kVllmRule =
    "KV = gpu_memory_utilization x total - weights - non-torch memory - activation peak of the profiling run; "
    "blocks of block_size tokens allocated as sequences grow";
constexpr std::string_view kVllmSource =
    "vllm-project/vllm PR #10511 (memory profiling: total x utilization - weights - non_torch - activation "
    "peak); vllm/engine/arg_utils.py (V1: max_num_batched_tokens 8192 and max_num_seqs 1024 on GPUs of >= 70 GiB "
    "other than the A100, else 2048 and 256; V0: max(max_model_len, 2048) tokens -- 512 with chunked prefill, on "
    "above 32K -- and 256 sequences, vllm/config.py SchedulerConfig); block_size 16";
constexpr std::array<MemoryText, kEngineFamilyCount> kMemoryText = {{
    {kTrtRule, kTrtSource},
    {kTrtRule, kTrtSource},
    {kVllmRule, kVllmSource},
    {kVllmRule, kVllmSource},
    {"KV pool = mem_fraction_static x total - weights - non-torch memory (the pool is what is free after the "
     "weights load, less the 1 - mem_fraction_static kept for activations and graphs)",
     "sgl-project/sglang python/sglang/srt/model_executor/model_runner.py (profile_max_num_token: rest = available "
     "after loading - total x (1 - mem_fraction_static)); python/sglang/srt/server_args.py (mem_fraction_static 0.88 at TP 1, 0.87 at 2, 0.85 "
     "at 4, 0.81 at 8, 0.79 at 16; chunked_prefill_size 8192, 2048 below 25,000 MiB); page size 1"},
}};

}  // namespace

namespace {

std::array<EngineProfile, kEngineFamilyCount> build_profiles(const EngineTimeTable& table, std::string_view name) {
  std::array<EngineProfile, kEngineFamilyCount> out;
  for (EngineFamily k : kAllEngineFamilies) {
    const EngineFamilyInfo& info = engine_family_info(k);
    EngineProfile& pr = out[static_cast<size_t>(k)];
    pr.family = k;
    pr.engine = info.engine;
    pr.name = name.empty() ? info.key : name;
    pr.display = info.display;
    // A family without fitted rows of its own takes the pooled set (every family's rows).
    pr.time = table.pooled;
    pr.time_inherited = true;
    for (const auto& [fam, p] : table.profiles) {
      if (fam == k) {
        pr.time = p;
        pr.time_inherited = false;
      }
    }
    pr.memory_rule = kMemoryText[static_cast<size_t>(k)].rule;
    pr.memory_source = kMemoryText[static_cast<size_t>(k)].source;
  }
  return out;
}

}  // namespace

struct UserEngineProfile {
  EngineTimeTable table;
  std::string name;
  std::array<EngineProfile, kEngineFamilyCount> profiles;
};

namespace {
thread_local const UserEngineProfile* t_user_profile = nullptr;
}  // namespace

std::shared_ptr<const UserEngineProfile> make_user_engine_profile(EngineTimeTable table, std::string name) {
  auto p = std::make_shared<UserEngineProfile>(UserEngineProfile{std::move(table), std::move(name), {}});
  p->profiles = build_profiles(p->table, p->name);  // the names point into p->name, which moves no more
  return p;
}

ScopedEngineProfile::ScopedEngineProfile(EngineTimeTable table, std::string name)
    : ScopedEngineProfile(make_user_engine_profile(std::move(table), std::move(name))) {}

ScopedEngineProfile::ScopedEngineProfile(std::shared_ptr<const UserEngineProfile> profile)
    : state_(std::move(profile)), previous_(t_user_profile) {
  t_user_profile = state_.get();
}

ScopedEngineProfile::~ScopedEngineProfile() { t_user_profile = previous_; }

namespace {
// The compiled-in table, whatever scope the first caller runs under.
const EngineTimeTable& compiled_time_table() {
  static const EngineTimeTable table = parse_embedded_or_die("engine_profiles.tsv", parse_engine_params);
  return table;
}
}  // namespace

const EngineTimeTable& engine_time_table() {
  if (t_user_profile != nullptr) return t_user_profile->table;
  return compiled_time_table();
}

const EngineProfile& engine_profile(EngineFamily f) {
  if (t_user_profile != nullptr) return t_user_profile->profiles[static_cast<size_t>(f)];
  static const std::array<EngineProfile, kEngineFamilyCount> profiles = build_profiles(compiled_time_table(), {});
  return profiles[static_cast<size_t>(f)];
}

Result<EngineTimeTable> read_engine_profile_file(const std::string& path, std::string_view field) {
  auto text = read_input_file(path);
  if (!text.ok()) return Status::InvalidArgument(field, text.status().message());
  auto t = parse_engine_params(*text);
  if (!t.ok()) {
    // "engine_profiles.tsv line 7: ..." names the compiled-in file; a user's names theirs.
    std::string m = t.status().message();
    if (m.starts_with("engine_profiles.tsv")) m = path + m.substr(std::string_view("engine_profiles.tsv").size());
    return Status::InvalidArgument(field, m + " (a profile as `calibrate --fit --write FILE` writes it: engine, "
                                              "parameter, value rows, every parameter of \"all\" once, in range)");
  }
  return t;
}

// ---------------------------------------------------------------- settings

namespace {

Status check_fraction(const std::optional<double>& v, const char* field) {
  if (v && !(*v > 0 && *v <= 1)) {
    return Status::InvalidArgument(field, "must be a fraction in (0, 1], got " + fixed(*v));
  }
  return Status::Ok();
}

Status check_limit(const std::optional<int64_t>& v, const char* field) {
  if (v && (*v < 1 || *v > kMaxLimit)) {
    return Status::InvalidArgument(field, "must be a whole number from 1 to 2^30, got " + std::to_string(*v));
  }
  return Status::Ok();
}

Status refuse(const char* field, Engine given, const char* owner) {
  return Status::InvalidArgument(field, std::string("applies to --engine ") + owner + ", not " +
                                            std::string(engine_name(given)));
}

// trtllm-bench's build heuristic (tensorrt_llm/bench/build/tuning.py,
// calc_engine_setting + finetune_setting): the engine's max batch size and
// max_num_tokens from the request shape. Memory in GiB over all tp x pp GPUs;
// KV requests at the whole request length; batch capped at 4096 / pp, tokens
// at B x (1 + isl / osl) capped at 32768, both rounded up as it rounds them.
void trtllm_bench_limits(double total_bytes, double weights_all, double kv_token_bytes_all, int64_t pp,
                         int64_t gpus, int64_t isl, int64_t osl, double fraction, int64_t* max_bs,
                         int64_t* max_tokens) {
  const double avail = total_bytes * static_cast<double>(gpus) - weights_all;
  const double requests = avail * fraction / kv_token_bytes_all / static_cast<double>(isl + osl);
  const double raw_bs = std::max(0.0, std::min(requests, 4096.0)) / static_cast<double>(pp);
  const double raw_tok = std::min(raw_bs * (1.0 + static_cast<double>(isl) / static_cast<double>(osl)), 32768.0);
  auto up = [](double v, double step) { return step * std::ceil(v / step); };
  double bs = 0, tok = 0;
  if (raw_bs < 256) {
    bs = std::max(64.0, up(raw_bs, 32));
  } else if (raw_bs < 1024) {
    bs = up(raw_bs, 128);
  } else {
    bs = up(raw_bs, 256);
  }
  if (raw_tok < 4096) {
    tok = std::max(2048.0, up(raw_tok, 256));
  } else if (raw_tok < 8192) {
    tok = up(raw_tok, 512);
  } else {
    tok = up(raw_tok, 1024);
  }
  *max_bs = static_cast<int64_t>(bs);
  *max_tokens = static_cast<int64_t>(tok);
}

// Sources of the retention rules (EngineSettings::window_keep, chunk_keep, swa_pool_ratio).
constexpr std::string_view kKvRuleTrt =
    "TensorRT-LLM keeps every layer's whole context in one pool: its variable sliding windows (VSWA) only with "
    "max_attention_window_size set, which this profile does not assume; chunked layers whole (unconfirmed for "
    "the PyTorch backend)";
constexpr std::string_view kKvRuleVllmHybrid =
    "vLLM V1's hybrid KV cache manager (0.10 on, release boundary unconfirmed): a sliding layer keeps "
    "min(window - 1 + max_num_batched_tokens, T) tokens plus one block, a chunked layer "
    "min(attention_chunk_size + max_num_batched_tokens, T) (vllm/v1/kv_cache_interface.py @001cabc1, "
    "SlidingWindowSpec and ChunkedLocalAttentionSpec.max_memory_usage_bytes)";
constexpr std::string_view kKvRuleVllmUniform =
    "vLLM before the hybrid manager: a model whose every layer slides keeps window + one block per sequence; "
    "sliding layers mixed with full ones, and chunked layers, keep the whole context (FullAttentionSpec's "
    "sliding_window note, vllm/v1/kv_cache_interface.py @001cabc1)";
constexpr std::string_view kKvRuleSglang =
    "SGLang's hybrid SWA memory (on unless --disable-hybrid-swa-memory): the sliding layers get a pool of "
    "swa_full_tokens_ratio (0.8, --swa-full-tokens-ratio) x the full layers' tokens and keep a sequence's last "
    "window; chunked layers "
    "whole unless --hybrid-kvcache-ratio (python/sglang/srt/model_executor/model_runner.py, "
    "set_num_token_hybrid; server_args.py swa_full_tokens_ratio=0.8, disable_hybrid_swa_memory=False)";

// What the release's KV cache keeps of each layer kind (EngineSettings: window_keep, chunk_keep,
// swa_pool_ratio). REQUIRES: s->max_num_batched_tokens resolved.
void set_kv_retention(const EngineRelease& r, const EngineFlags& f, const PreparedDeployment& d, EngineSettings* s) {
  const bool windows = d.n_swa > 0 && d.n_swa_layers > 0, chunks = d.n_chunk > 0 && d.n_chunked_layers > 0;
  if (!windows && !chunks) return;
  const int64_t step = s->max_num_batched_tokens;
  switch (r.family) {
    case EngineFamily::kTrtllm:
    case EngineFamily::kTrtllmPytorch:
      s->kv_rule = kKvRuleTrt;
      break;
    case EngineFamily::kVllmV0:
    case EngineFamily::kVllmV1:
      if (r.family == EngineFamily::kVllmV1 && r.at_least(EngineVersion{0, 10, 0})) {
        s->kv_rule = kKvRuleVllmHybrid;
        if (windows) {
          s->window_keep = d.n_swa - 1 + step;
          s->window_extra_blocks = 1;
        }
        if (chunks) s->chunk_keep = d.n_chunk + step;
      } else {
        s->kv_rule = kKvRuleVllmUniform;
        if (windows && d.n_full_layers == 0 && d.n_chunked_layers == 0) {
          s->window_keep = d.n_swa;
          s->window_extra_blocks = 1;
        }
      }
      break;
    case EngineFamily::kSglang:
      s->kv_rule = kKvRuleSglang;
      if (windows && d.n_full_layers > 0) {
        s->window_keep = d.n_swa;
        s->swa_pool_ratio = f.swa_full_tokens_ratio.value_or(0.8);
      }
      break;
  }
}

}  // namespace

Status check_engine_flags(const EngineRelease& r, const EngineFlags& f, const ModelSpec& m) {
  const Engine e = r.engine();
  MC_RETURN_IF_ERROR(check_fraction(f.gpu_memory_utilization, "gpu_memory_utilization"));
  MC_RETURN_IF_ERROR(check_fraction(f.kv_cache_free_gpu_mem_fraction, "kv_cache_free_gpu_mem_fraction"));
  MC_RETURN_IF_ERROR(check_fraction(f.mem_fraction_static, "mem_fraction_static"));
  MC_RETURN_IF_ERROR(check_fraction(f.swa_full_tokens_ratio, "swa_full_tokens_ratio"));
  MC_RETURN_IF_ERROR(check_limit(f.max_model_len, "max_model_len"));
  MC_RETURN_IF_ERROR(check_limit(f.max_num_batched_tokens, "max_num_batched_tokens"));
  MC_RETURN_IF_ERROR(check_limit(f.max_num_seqs, "max_num_seqs"));
  if (f.block_size && (*f.block_size < 1 || *f.block_size > (int64_t{1} << 20))) {
    return Status::InvalidArgument("block_size", "must be a whole number of tokens from 1 to 2^20, got " +
                                                     std::to_string(*f.block_size));
  }
  if (f.reserve && !(*f.reserve >= 0 && *f.reserve < 1)) {
    return Status::InvalidArgument("reserve_fraction", "must be a fraction in [0, 1) of memory kept back");
  }
  if (f.gpu_memory_utilization && e != Engine::kVllm) return refuse("gpu_memory_utilization", e, "vllm");
  if (f.kv_cache_free_gpu_mem_fraction && e != Engine::kTrtllm) {
    return refuse("kv_cache_free_gpu_mem_fraction", e, "trtllm");
  }
  if (f.mem_fraction_static && e != Engine::kSglang) return refuse("mem_fraction_static", e, "sglang");
  if (f.swa_full_tokens_ratio && e != Engine::kSglang) return refuse("swa_full_tokens_ratio", e, "sglang");
  if (f.swa_full_tokens_ratio) {
    const LayerCounts c = m.count_layers();
    if (!(m.n_swa > 0 && c.sliding > 0 && c.full > 0)) {
      return Status::InvalidArgument("swa_full_tokens_ratio",
                                     "sizes SGLang's sliding-window pool beside the full layers' one, and " + m.name +
                                         " has no sliding-window layers beside full ones");
    }
  }
  if (f.max_model_len && m.n_ctx_train > 0 && *f.max_model_len > m.n_ctx_train && !f.allow_long_max_model_len) {
    return Status::InvalidArgument("max_model_len", "must be at most the model's " + std::to_string(m.n_ctx_train) +
                                                        " tokens (max_position_embeddings), got " +
                                                        std::to_string(*f.max_model_len) +
                                                        " (--allow-long-max-model-len overrides, as vLLM's "
                                                        "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1)");
  }
  return Status::Ok();
}

const char* first_engine_flag(const EngineFlags& f) {
  if (const auto own = first_own_flag(f)) return own->first;
  return f.max_model_len            ? "max_model_len"
         : f.max_num_batched_tokens ? "max_num_batched_tokens"
         : f.max_num_seqs           ? "max_num_seqs"
         : f.block_size             ? "block_size"
         : f.allow_long_max_model_len ? "allow_long_max_model_len"
                                      : nullptr;
}

std::optional<std::pair<const char*, Engine>> first_own_flag(const EngineFlags& f) {
  using P = std::pair<const char*, Engine>;
  if (f.gpu_memory_utilization) return P{"gpu_memory_utilization", Engine::kVllm};
  if (f.kv_cache_free_gpu_mem_fraction) return P{"kv_cache_free_gpu_mem_fraction", Engine::kTrtllm};
  if (f.mem_fraction_static) return P{"mem_fraction_static", Engine::kSglang};
  if (f.swa_full_tokens_ratio) return P{"swa_full_tokens_ratio", Engine::kSglang};
  return std::nullopt;
}

EngineFlags flags_for(const EngineFlags& f, Engine e) {
  EngineFlags out = f;
  if (e != Engine::kVllm) out.gpu_memory_utilization.reset();
  if (e != Engine::kTrtllm) out.kv_cache_free_gpu_mem_fraction.reset();
  if (e != Engine::kSglang) {
    out.mem_fraction_static.reset();
    out.swa_full_tokens_ratio.reset();
  }
  return out;
}

Result<EngineSettings> resolve_engine_settings(const EngineRelease& r, const EngineFlags& f, const ModelSpec& m,
                                               const GpuSpec& gpu, const PreparedDeployment& d,
                                               const EngineWorkload& w) {
  MC_RETURN_IF_ERROR(check_engine_flags(r, f, m));
  const Engine e = r.engine();
  EngineSettings s;
  s.release = r;
  s.engine = e;
  s.total_bytes = gpu.usable_capacity_bytes();
  const int64_t tp = d.split.tp, pp = d.split.pp;
  const double from_reserve = f.reserve ? 1.0 - *f.reserve : 0.0;
  s.fraction_from_reserve = f.reserve.has_value() && !f.any_memory_fraction();
  switch (e) {
    case Engine::kTrtllm:
      s.memory_fraction = f.kv_cache_free_gpu_mem_fraction.value_or(f.reserve ? from_reserve : 0.95);
      s.block_size = f.block_size.value_or(64);
      s.reserve_whole_request = true;
      s.sliding_window = false;
      break;
    case Engine::kVllm:
      s.memory_fraction = f.gpu_memory_utilization.value_or(f.reserve ? from_reserve : 0.90);
      s.block_size = f.block_size.value_or(16);
      break;
    case Engine::kSglang: {
      const double by_tp = tp >= 16 ? 0.79 : tp >= 8 ? 0.81 : tp >= 4 ? 0.85 : tp >= 2 ? 0.87 : 0.88;
      s.memory_fraction = f.mem_fraction_static.value_or(f.reserve ? from_reserve : by_tp);
      s.block_size = f.block_size.value_or(1);
      break;
    }
  }
  if (!(s.memory_fraction > 0)) {
    return Status::InvalidArgument("reserve_fraction", "leaves the engine no memory");
  }
  s.max_model_len = f.max_model_len.value_or(m.n_ctx_train > 0 ? m.n_ctx_train : kMaxLimit);

  // The step limits.
  const double weights_all = static_cast<double>(d.weights.total()) * static_cast<double>(tp * pp);
  const double kv_token_all =
      static_cast<double>(d.kv_elems_per_layer) * static_cast<double>(tp) * static_cast<double>(d.n_layer) *
      static_cast<double>(d.kv_bits) / 8.0;
  int64_t seqs = 0, tokens = 0;
  switch (e) {
    case Engine::kTrtllm:
      if (w.isl > 0 && w.osl > 0) {
        trtllm_bench_limits(s.total_bytes, weights_all, kv_token_all, pp, tp * pp, w.isl, w.osl, s.memory_fraction,
                            &seqs, &tokens);
        s.limits_from_workload = true;
      } else {
        seqs = 2048;  // trtllm-build's defaults (max_batch_size, max_num_tokens)
        tokens = 8192;
      }
      break;
    case Engine::kVllm:
      if (r.family == EngineFamily::kVllmV0) {
        // V0 (vllm/config.py SchedulerConfig, vllm/engine/arg_utils.py): chunked prefill on by default only
        // above 32K of max_model_len, with 512 batched tokens; else a step -- and the profiling run -- carries
        // max(max_model_len, 2048) tokens; max_num_seqs 256.
        seqs = 256;
        tokens = s.max_model_len > 32768 ? 512 : std::max<int64_t>(s.max_model_len, 2048);
      } else {
        const bool large = s.total_bytes >= 70 * kGiB && lower(gpu.key).find("a100") == std::string::npos;
        seqs = large ? 1024 : 256;
        tokens = large ? 8192 : 2048;
      }
      break;
    case Engine::kSglang:
      seqs = kMaxLimit;  // max_running_requests: bounded by the pool
      tokens = s.total_bytes < 25000.0 * 1048576.0 ? 2048 : 8192;
      break;
  }
  s.max_num_seqs = f.max_num_seqs.value_or(seqs);
  s.max_num_batched_tokens = f.max_num_batched_tokens.value_or(tokens);
  set_kv_retention(r, f, d, &s);

  // Memory estimates (docs/prediction.md): the forward pass over a step of C
  // tokens holds, per token, the residual stream and attention input (3 d) and
  // the FFN's gate/up outputs with the activation (1.5 x its widest
  // intermediate on this rank), 16-bit; per sequence, fp32 logits and
  // probabilities over the whole vocabulary (gathered on every rank).
  const int64_t k = m.ffn_gated ? 2 : 1;
  const int64_t moe_w = m.n_expert > 0 ? (m.n_expert_used * m.n_ff_exp + m.n_expert_shared * m.n_ff_shexp) * k : 0;
  const double w_ffn = static_cast<double>(std::max(m.n_ff * k, moe_w)) / static_cast<double>(tp);
  s.activation_bytes_per_token = (3.0 * static_cast<double>(m.n_embd) + 1.5 * w_ffn) * 2.0;
  s.logits_bytes_per_sequence = static_cast<double>(m.n_vocab) * 4.0 * 2.0;
  // CUDA context and library workspaces, 1 GiB, plus NCCL / custom all-reduce
  // buffers growing with TP, 1 GiB x 2 (tp - 1) / tp (vLLM logs 1.79 GiB more
  // at TP 2 than at TP 1 on H100, PR #10511). SGLang subtracts them too: it
  // sizes its pool from the memory free after loading the weights
  // (model_runner.py profile_max_num_token: available - total x (1 - f)).
  s.non_torch_bytes = kGiB * (1.0 + 2.0 * static_cast<double>(tp - 1) / static_cast<double>(tp));
  return s;
}

EngineMemory engine_memory(const PreparedDeployment& d, const EngineSettings& s) {
  EngineMemory m;
  m.total_bytes = s.total_bytes;
  m.weights_bytes = static_cast<double>(d.weights.total());
  // Per layer kind, per token kept (docs/prediction.md): the K/V or latent elements of each layer, a DSA
  // indexer's keys on the full layers, the draft's cache with them; the recurrent state per sequence.
  const double elems = static_cast<double>(d.kv_elems_per_layer), bits = static_cast<double>(d.kv_bits);
  const double full = static_cast<double>(d.stage_full_layers);
  m.full_token_bytes = (elems + static_cast<double>(d.index_elems_per_layer)) * full * bits / 8 +
                       static_cast<double>(d.draft.kv_per_token_memory);
  m.swa_token_bytes = elems * static_cast<double>(d.stage_swa_layers) * bits / 8;
  m.chunk_token_bytes = elems * static_cast<double>(d.stage_chunked_layers) * bits / 8;
  const int64_t layers = d.stage_full_layers + d.stage_swa_layers + d.stage_chunked_layers;
  m.kv_bytes_per_token =
      ((d.kv_elems_per_layer * layers + d.index_elems_per_layer * d.stage_full_layers) * d.kv_bits + 7) / 8 +
      d.draft.kv_per_token_memory;
  if (d.stage_recurrent_layers > 0) {
    const Exact state = ceil_div(state_bits_per_layer(d) * Exact(d.stage_recurrent_layers), 8);
    m.state_bytes_per_sequence = state.overflow() ? std::numeric_limits<int64_t>::max() : state.value();
  }
  const double act = static_cast<double>(s.max_num_batched_tokens) * s.activation_bytes_per_token +
                     static_cast<double>(std::min<int64_t>(s.max_num_seqs, s.max_num_batched_tokens)) *
                         s.logits_bytes_per_sequence;
  switch (s.engine) {
    case Engine::kTrtllm:
      m.usable_bytes = s.total_bytes;
      m.non_torch_bytes = s.non_torch_bytes;
      m.activation_peak_bytes = act;
      m.kv_cache_bytes_per_gpu =
          s.memory_fraction * (s.total_bytes - m.weights_bytes - m.non_torch_bytes - m.activation_peak_bytes);
      break;
    case Engine::kVllm:
      m.usable_bytes = s.memory_fraction * s.total_bytes;
      m.non_torch_bytes = s.non_torch_bytes;
      m.activation_peak_bytes = act;
      m.kv_cache_bytes_per_gpu = m.usable_bytes - m.weights_bytes - m.non_torch_bytes - m.activation_peak_bytes;
      break;
    case Engine::kSglang:
      m.usable_bytes = s.memory_fraction * s.total_bytes;
      m.non_torch_bytes = s.non_torch_bytes;
      m.kv_cache_bytes_per_gpu = m.usable_bytes - m.weights_bytes - m.non_torch_bytes;
      break;
  }
  auto whole = [](double v) { return v < 1e15 ? static_cast<int64_t>(std::floor(v)) : int64_t{1} << 50; };
  const double bs = static_cast<double>(s.block_size);
  if (s.swa_pool_ratio > 0) {
    // SGLang: full-layer tokens F and window tokens 0.8 F share the pool (set_num_token_hybrid).
    const double per_full_token = m.full_token_bytes + m.chunk_token_bytes + s.swa_pool_ratio * m.swa_token_bytes;
    if (m.kv_cache_bytes_per_gpu > 0 && per_full_token > 0) {
      m.gpu_blocks = whole(m.kv_cache_bytes_per_gpu / per_full_token / bs);
      m.swa_pool_tokens = whole(s.swa_pool_ratio * static_cast<double>(m.gpu_blocks) * bs);
    }
  } else {
    const double block_bytes = bs * static_cast<double>(m.kv_bytes_per_token);
    if (m.kv_cache_bytes_per_gpu > 0 && block_bytes > 0) m.gpu_blocks = whole(m.kv_cache_bytes_per_gpu / block_bytes);
  }
  m.kv_cache_tokens = m.gpu_blocks * s.block_size;
  if (s.max_model_len > 0) {
    m.kv_bytes_per_request = engine_sequence_kv_bytes(m, s, static_cast<double>(s.max_model_len));
    if (s.release.family == EngineFamily::kVllmV1 && m.kv_bytes_per_token > 0) {
      // vLLM V1 (kv_cache_utils.py, get_max_concurrency_for_kv_cache_config): blocks over the blocks one
      // request of max_model_len tokens needs, every layer kind as it keeps it.
      const double per_request = std::ceil(m.kv_bytes_per_request / (bs * static_cast<double>(m.kv_bytes_per_token)));
      m.max_concurrency = per_request > 0 ? static_cast<double>(m.gpu_blocks) / per_request : 0.0;
    } else {
      m.max_concurrency = static_cast<double>(m.kv_cache_tokens) / static_cast<double>(s.max_model_len);
    }
  }
  return m;
}

double engine_sequence_kv_bytes(const EngineMemory& m, const EngineSettings& s, double ctx) {
  const int64_t bs = s.block_size;
  return m.full_token_bytes * kv_kept_tokens(ctx, 0, bs) +
         m.swa_token_bytes * kv_kept_tokens(ctx, s.window_keep, bs, s.window_extra_blocks) +
         m.chunk_token_bytes * kv_kept_tokens(ctx, s.chunk_keep, bs);
}

int64_t engine_admitted_sequences(const EngineMemory& m, const EngineSettings& s, double last_context,
                                  double mean_context) {
  if (m.gpu_blocks <= 0) return 0;
  // Whole requests reserved when admitted (trtllm), else blocks as a sequence grows: at its mean context.
  const double ctx = s.reserve_whole_request ? last_context : mean_context;
  const double bs = static_cast<double>(s.block_size);
  double n = 0;
  if (s.swa_pool_ratio > 0) {
    // SGLang's two pools: the full layers' tokens and the sliding layers' last windows.
    const double full = kv_kept_tokens(ctx, 0, s.block_size), win = kv_kept_tokens(ctx, s.window_keep, s.block_size);
    n = std::min(std::floor(static_cast<double>(m.gpu_blocks) * bs / full),
                 std::floor(static_cast<double>(m.swa_pool_tokens) / win));
  } else {
    const double per_seq =
        engine_sequence_kv_bytes(m, s, ctx) + static_cast<double>(m.state_bytes_per_sequence);
    const double pool = static_cast<double>(m.gpu_blocks) * bs * static_cast<double>(m.kv_bytes_per_token);
    n = per_seq > 0 ? std::floor(pool / per_seq) : 0.0;
  }
  const double capped = std::min(n, static_cast<double>(s.max_num_seqs));
  return capped >= 1 ? static_cast<int64_t>(capped) : 0;
}

}  // namespace modelcalc
