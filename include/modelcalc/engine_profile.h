// Engine profiles: what a real serving engine does with a deployment that the
// ideal machine of deployment.h does not -- how it accounts memory before it
// sizes its KV cache, how many sequences and tokens it admits per step, and
// what a step costs on real kernels (a few global, physically named
// efficiencies fitted on published measurements; docs/prediction.md).
//
// Three engines, named as their flags name them (Engine: whose flags, whose
// log), and five release families (EngineFamily: one memory accounting and
// one set of time parameters each -- every profile hangs off this key):
//   trtllm          TensorRT-LLM with TensorRT engines (trtllm-build), 0.x:
//                   KV = kv_cache_free_gpu_mem_fraction x (the memory free
//                   after the weights, the runtime and the activation buffers);
//                   sequences admitted with their whole length reserved.
//   trtllm-pytorch  TensorRT-LLM's PyTorch backend (0.17 on; the default of 1.x).
//   vllm-v0         vLLM's V0 engine (before 0.8).
//   vllm            vLLM's V1 engine (0.8 on, the current one).
//   sglang          SGLang: KV pool = mem_fraction_static x total - weights.
// `--engine NAME[@VERSION]` selects one (parse_engine): "vllm@0.6" is V0,
// "trtllm@1.0" the PyTorch backend; without a version, the family's current
// release. Every output that uses a profile names it (engine_release_key).
#ifndef MODELCALC_ENGINE_PROFILE_H_
#define MODELCALC_ENGINE_PROFILE_H_

#include <array>
#include <compare>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "modelcalc/status.h"
#include "modelcalc/step_params.h"

namespace modelcalc {

struct PreparedDeployment;
struct ModelSpec;
struct GpuSpec;

// The engine a flag or a log line belongs to.
enum class Engine { kTrtllm, kVllm, kSglang };
inline constexpr std::array<Engine, 3> kAllEngines = {Engine::kTrtllm, Engine::kVllm, Engine::kSglang};
// "trtllm", "vllm", "sglang".
std::string_view engine_name(Engine e);
// "TensorRT-LLM", "vLLM", "SGLang".
std::string_view engine_display(Engine e);

// A release family: the releases of one engine that account memory one way
// and share one set of time parameters.
enum class EngineFamily { kTrtllm, kTrtllmPytorch, kVllmV0, kVllmV1, kSglang };
inline constexpr int kEngineFamilyCount = 5;
inline constexpr std::array<EngineFamily, kEngineFamilyCount> kAllEngineFamilies = {
    EngineFamily::kTrtllm, EngineFamily::kTrtllmPytorch, EngineFamily::kVllmV0, EngineFamily::kVllmV1,
    EngineFamily::kSglang};

// A release number, MAJOR.MINOR.PATCH; compared field by field.
struct EngineVersion {
  int32_t major = 0, minor = 0, patch = 0;
  constexpr auto operator<=>(const EngineVersion&) const = default;
};
// "0.6" (patch 0 left out) or "0.6.5".
std::string format_engine_version(const EngineVersion& v);

// One family's row of the release table (engine_profile.cc, with sources).
struct EngineFamilyInfo {
  EngineFamily family;
  Engine engine;                  // whose flags and log
  std::string_view key;           // "trtllm", "trtllm-pytorch", "vllm-v0", "vllm", "sglang"
  std::string_view display;       // "TensorRT-LLM (TensorRT engine)", "vLLM V1", ...
  EngineVersion first;            // its first release
  std::optional<EngineVersion> end;  // the first release no longer in it (unset: current)
  std::string_view releases;      // "0.8 and later", for messages
  std::string_view source;        // where the boundaries come from
};
const EngineFamilyInfo& engine_family_info(EngineFamily f);
// The engine whose flags the family takes (trtllm-pytorch: trtllm's).
inline Engine engine_of(EngineFamily f) { return engine_family_info(f).engine; }

// An engine release: the key the memory rules and the time parameters hang
// off. Without a version it is the family's current release (the newest the
// rules were read from); rules that changed inside a family compare `version`.
struct EngineRelease {
  EngineFamily family = EngineFamily::kTrtllm;
  std::optional<EngineVersion> version;  // as given; unset: the current release of the family
  constexpr bool operator==(const EngineRelease&) const = default;
  Engine engine() const { return engine_of(family); }
  // True when the release is `v` or later (the current release is later than any).
  bool at_least(const EngineVersion& v) const { return !version || *version >= v; }
};
// TensorRT-LLM's TensorRT-engine family: the default on NVIDIA GPUs (default_engine_for, engine_rules.h).
inline constexpr EngineRelease kDefaultEngine{};

// Parses --engine: NAME or NAME@VERSION (case-insensitive). NAME is an engine
// (trtllm -- also tensorrt-llm, trt-llm --, vllm, sglang), whose version picks
// the family (vllm before 0.8: vllm-v0; trtllm 1.0 on: trtllm-pytorch), or a
// family key (trtllm-pytorch, vllm-v0, vllm-v1 = vllm), whose version must be
// one of its releases. VERSION is MAJOR.MINOR[.PATCH], an optional leading
// 'v'. Errors are InvalidArgument naming `field` and what is allowed.
Result<EngineRelease> parse_engine(std::string_view text, std::string_view field = "engine");
// A family by its key alone (no version), as data/engine_profiles.tsv names it.
Result<EngineFamily> parse_engine_family(std::string_view text, std::string_view field = "engine");
// The release `--engine NAME` selects for an engine's own name: the family
// of that key (trtllm: the TensorRT engine; vllm: V1; sglang), current release.
EngineRelease default_release(Engine e);
// The family engine `e` at release `v` belongs to (the rule parse_engine uses):
// unset = the current release.
EngineFamily engine_family_at(Engine e, const std::optional<EngineVersion>& v);
// The first MAJOR.MINOR[.PATCH] in free text ("vLLM 0.9.0.2.dev108", "v0.5.8.post1-cu130") not after another
// product's name (TensorRT, CUDA, ROCm, PyTorch: MLPerf's "TensorRT 10.11"): a row's engine_version, or unset.
std::optional<EngineVersion> find_engine_version(std::string_view text);
// The release as --engine spells it, parse_engine's inverse: "vllm-v0@0.6.5",
// "vllm" (current), "trtllm-pytorch@1.0".
std::string engine_release_key(const EngineRelease& r);
// For a report: "vLLM V0 0.6.5", "vLLM V1, current release".
std::string engine_release_display(const EngineRelease& r);

// data/engine_profiles.tsv: the fitted time parameters. Rows of engine "all"
// hold the pooled set (what every profile fitted on no rows of its own uses),
// the architecture factors (every profile's) and the MTP acceptance
// calibrate's rows assume; a profile fitted on its own rows lists all its
// step parameters under its engine name.
struct EngineTimeTable {
  StepTimeParams pooled;       // the architecture factors in it
  double mtp_acceptance = 0;   // of an MTP draft token on the published rows' prompts
  std::vector<std::pair<EngineFamily, StepTimeParams>> profiles;  // the architecture factors copied in
};
// Parses the table: "engine<TAB>parameter<TAB>value" rows (comments start
// with '#'); every step parameter of "all" and of each listed family (parse_engine_family) once, each
// in its range. Errors name the line.
Result<EngineTimeTable> parse_engine_params(std::string_view tsv);
// The same table as text (what `calibrate --fit --write FILE` writes).
std::string format_engine_params(const EngineTimeTable& t, std::string_view header);
// The compiled-in table.
const EngineTimeTable& engine_time_table();

// A release family's compiled-in profile: its memory-accounting defaults and
// its fitted time parameters (data/engine_profiles.tsv).
struct EngineProfile {
  EngineFamily family = kDefaultEngine.family;
  Engine engine = Engine::kTrtllm;  // engine_of(family)
  std::string_view name;          // the family key: "trtllm", "vllm-v0", ...
  std::string_view display;       // "TensorRT-LLM (TensorRT engine)", "vLLM V0", ...
  StepTimeParams time;            // fitted on its rows, or the pooled set
  bool time_inherited = false;    // true: no rows of this family were fitted; `time` is the pooled set of
                                  // every family's rows (data/engine_profiles.tsv, engine "all")
  std::string_view memory_rule;   // one sentence: how the KV cache is sized
  std::string_view memory_source; // where that rule and its defaults come from
};
const EngineProfile& engine_profile(EngineFamily f);
inline const EngineProfile& engine_profile(const EngineRelease& r) { return engine_profile(r.family); }

// A user's profile file (--profile FILE, as `calibrate --fit --write FILE` writes it): read and
// checked as the compiled-in table is; errors name `field` ("profile") and the line.
Result<EngineTimeTable> read_engine_profile_file(const std::string& path, std::string_view field = "profile");

// A user's table with each family's profile built from it: shared, so a result that outlives its
// request (a Python result rendered later) keeps the profiles its answer points into alive.
struct UserEngineProfile;
std::shared_ptr<const UserEngineProfile> make_user_engine_profile(EngineTimeTable table, std::string name);

// While alive, engine_profile() and engine_time_table() on the calling thread answer from `table`
// (each family's profile named `name`, the path as given) instead of the compiled-in table; the
// previous scope is restored when destroyed. Thread-local: a request runs on one thread.
// REQUIRES: scopes on one thread nest (destroyed in reverse order of construction).
class ScopedEngineProfile {
 public:
  ScopedEngineProfile(EngineTimeTable table, std::string name);
  explicit ScopedEngineProfile(std::shared_ptr<const UserEngineProfile> profile);  // null: the compiled-in table
  ~ScopedEngineProfile();
  ScopedEngineProfile(const ScopedEngineProfile&) = delete;
  ScopedEngineProfile& operator=(const ScopedEngineProfile&) = delete;

 private:
  std::shared_ptr<const UserEngineProfile> state_;
  const UserEngineProfile* previous_;
};

// The engine flags a user may give; unset = the profile's default. Names as
// the engines spell them (--gpu-memory-utilization, --max-model-len, ...).
struct EngineFlags {
  std::optional<double> gpu_memory_utilization;         // vllm, in (0, 1]
  std::optional<double> kv_cache_free_gpu_mem_fraction; // trtllm, in (0, 1]
  std::optional<double> mem_fraction_static;            // sglang, in (0, 1]
  std::optional<double> swa_full_tokens_ratio;          // sglang, in (0, 1]: the sliding-window pool's tokens
                                                        // per full-layer token (default 0.8)
  std::optional<int64_t> max_model_len;                 // tokens; <= the model's limit
  std::optional<int64_t> max_num_batched_tokens;        // tokens per step (trtllm: max_num_tokens)
  std::optional<int64_t> max_num_seqs;                  // sequences per step (trtllm: max_batch_size)
  std::optional<int64_t> block_size;                    // tokens per KV block, >= 1
  std::optional<double> reserve;                        // --reserve when no engine fraction is given:
                                                        // fraction = 1 - reserve
  bool allow_long_max_model_len = false;                // max_model_len may exceed the model's limit
                                                        // (vLLM's VLLM_ALLOW_LONG_MAX_MODEL_LEN)
  bool any_memory_fraction() const {
    return gpu_memory_utilization || kv_cache_free_gpu_mem_fraction || mem_fraction_static;
  }
};

// A request shape, when the command knows one: trtllm-bench sizes the
// engine's batch and token limits from it (isl = osl = 0: unknown).
struct EngineWorkload {
  int64_t isl = 0, osl = 0;
};

// Every setting resolved: the flags over the profile's defaults.
struct EngineSettings {
  EngineRelease release;            // the release whose rules these are
  Engine engine = Engine::kTrtllm;  // release.engine(): whose flags
  double memory_fraction = 0;       // the engine's fraction (utilization / free fraction / static fraction)
  bool fraction_from_reserve = false;  // set as 1 - --reserve (no engine flag given)
  int64_t block_size = 0;           // tokens per KV block
  int64_t max_num_batched_tokens = 0;  // tokens one step carries (decode + prefill chunk)
  int64_t max_num_seqs = 0;         // sequences one step carries
  int64_t max_model_len = 0;        // tokens one sequence may hold
  bool limits_from_workload = false;  // trtllm: max_num_seqs / tokens from trtllm-bench's heuristic
  // Admission: trtllm reserves each sequence's whole length when it admits it
  // ("guaranteed no evict"); vllm and sglang allocate blocks as sequences grow.
  bool reserve_whole_request = false;
  // Sliding windows: vllm and sglang keep a window layer's last n_swa tokens;
  // TensorRT-LLM keeps the whole context unless its max_attention_window_size
  // is set (its default is the sequence length), so trtllm does not.
  bool sliding_window = true;
  // What the KV cache keeps of each layer kind for one sequence (kv_kept_tokens,
  // in blocks of block_size): a sliding layer `window_keep` tokens (0: the whole
  // context) plus `window_extra_blocks` blocks once past it, a chunked layer
  // `chunk_keep` (0: whole); full layers the whole context. swa_pool_ratio > 0:
  // the sliding layers have a pool of their own holding swa_pool_ratio x the
  // full pool's tokens (SGLang's hybrid SWA memory). kv_rule says which rule
  // and where it comes from ("" when the model has no sliding or chunked layer).
  int64_t window_keep = 0, window_extra_blocks = 0, chunk_keep = 0;
  double swa_pool_ratio = 0;
  std::string_view kv_rule;
  // What the memory estimates depend on (from the model and the GPU).
  double total_bytes = 0;                  // the GPU's memory as the engine sees it
  double activation_bytes_per_token = 0;   // per GPU, per token of the step budget
  double logits_bytes_per_sequence = 0;    // per GPU, per sequence of the step
  double non_torch_bytes = 0;              // per GPU
};

// The checks resolve_engine_settings makes on the flags alone (ranges, a flag
// of another engine, max_model_len against the model's limit): a search runs
// them once before it resolves any candidate. Errors as resolve's.
Status check_engine_flags(const EngineRelease& e, const EngineFlags& f, const ModelSpec& m);
// The field of the first flag `f` sets that configures a serving engine (any of them, reserve aside); null
// when none is set. What a GPU no engine profile runs on refuses.
const char* first_engine_flag(const EngineFlags& f);
// The field of the first engine-own flag `f` sets (the memory fractions, SGLang's ratio) and the engine
// that owns it; nullopt when none is set.
std::optional<std::pair<const char*, Engine>> first_own_flag(const EngineFlags& f);
// `f` less the other engines' own flags: what a GPU running `e` takes of flags given to a search over GPUs
// of several vendors with no --engine (each engine's own flag reaches the GPUs that run it).
EngineFlags flags_for(const EngineFlags& f, Engine e);

// Resolves the settings for one prepared deployment of `m` on `gpu` (the
// memory the engine sees is gpu.usable_capacity_bytes()). `w` is the request
// shape when the command knows one. Errors name the field the flag sets
// (gpu_memory_utilization, kv_cache_free_gpu_mem_fraction,
// mem_fraction_static, max_model_len, max_num_batched_tokens, max_num_seqs,
// block_size) and what is allowed; a flag of another engine is refused.
Result<EngineSettings> resolve_engine_settings(const EngineRelease& e, const EngineFlags& f, const ModelSpec& m,
                                               const GpuSpec& gpu, const PreparedDeployment& d,
                                               const EngineWorkload& w);

// The engine's memory, per GPU (worst pipeline stage), as its startup log
// states it. Bytes are real numbers (the engines print GiB with 2 decimals).
struct EngineMemory {
  double total_bytes = 0;            // what the engine sees as the GPU's memory
  double usable_bytes = 0;           // vllm: utilization x total; trtllm: total; sglang: fraction x total
  double weights_bytes = 0;
  double non_torch_bytes = 0;        // CUDA context, library workspaces, NCCL buffers (estimate)
  double activation_peak_bytes = 0;  // the forward pass's peak at the step limits (estimate)
  double kv_cache_bytes_per_gpu = 0; // may be <= 0: nothing left for KV
  int64_t kv_bytes_per_token = 0;    // on this GPU: every attention layer (full, sliding, chunked), a DSA
                                     // indexer's keys and the draft's cache; no window filled
  double full_token_bytes = 0;       // of which per token kept on the full-context layers (indexer, draft in)
  double swa_token_bytes = 0;        // per token kept on the sliding-window layers
  double chunk_token_bytes = 0;      // per token kept on the chunked-attention layers
  int64_t state_bytes_per_sequence = 0;  // recurrent state one sequence holds on this GPU, any length
  int64_t swa_pool_tokens = 0;       // SGLang's sliding-window pool (swa_pool_ratio > 0), tokens
  double kv_bytes_per_request = 0;   // KV one request of max_model_len tokens holds (engine_sequence_kv_bytes)
  int64_t gpu_blocks = 0;            // KV blocks of block_size tokens
  int64_t kv_cache_tokens = 0;       // gpu_blocks x block_size (per replica: every rank holds its share)
  double max_concurrency = 0;        // requests of max_model_len the blocks hold (vLLM V1: blocks / the blocks
                                     // one request keeps; else kv_cache_tokens / max_model_len)
};

// REQUIRES: s from resolve_engine_settings for `d`. Pure, allocation-free.
EngineMemory engine_memory(const PreparedDeployment& d, const EngineSettings& s);

// KV bytes one sequence of `ctx` tokens holds on this GPU as the release keeps
// each layer kind (s.window_keep, s.chunk_keep; whole blocks); the recurrent
// state apart (m.state_bytes_per_sequence). Pure.
double engine_sequence_kv_bytes(const EngineMemory& m, const EngineSettings& s, double ctx);

// Sequences the engine holds at once when each ends at `last_context` tokens
// and holds `mean_context` on average: what a sequence of the last context
// keeps (engine_sequence_kv_bytes, plus its recurrent state) when the engine
// reserves whole requests (trtllm), else of the mean; SGLang's window pool
// bounds it too; at most max_num_seqs; 0 when none fits. Pure.
int64_t engine_admitted_sequences(const EngineMemory& m, const EngineSettings& s, double last_context,
                                  double mean_context);

}  // namespace modelcalc

#endif  // MODELCALC_ENGINE_PROFILE_H_
