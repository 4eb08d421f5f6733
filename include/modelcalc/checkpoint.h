// A checkpoint as it is shipped: the safetensors headers of its shards (and
// the model.safetensors.index.json that names them) read as the ground truth
// of what it holds. Only the headers are read (8-byte length, then the JSON
// naming each tensor's dtype, shape and byte range), so a shard cut off after
// its header counts as the whole shard: no weights need to be downloaded.
#ifndef MODELCALC_CHECKPOINT_H_
#define MODELCALC_CHECKPOINT_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "modelcalc/model.h"
#include "modelcalc/status.h"

namespace modelcalc {

// A header larger than this is refused (the largest real headers, of
// checkpoints with tens of thousands of tensors, are a few MB).
inline constexpr int64_t kMaxSafetensorsHeaderBytes = int64_t{100} << 20;

// What the headers say a checkpoint holds.
struct CheckpointCount {
  // Parameters by component, placed by tensor name as transformers names them
  // (attention, MLP, routed and shared experts, routers, norms, Linear biases,
  // embeddings, lm_head, recurrent mixers). A packed 4-bit weight counts its
  // values (NVFP4's U8 weight beside an F8_E4M3 weight_scale, MXFP4's
  // *_blocks, compressed-tensors' weight_packed: 2 a byte; AWQ/GPTQ qweight:
  // 8 an I32). mlp_routed_active is not known from headers (0).
  ParamBreakdown params;
  int64_t mtp = 0;      // layers at or beyond the config's num_hidden_layers, or named mtp.*
  int64_t vision = 0;   // vision towers and projectors (Gemma 3n's embed_vision too)
  int64_t audio = 0;    // audio towers and their embedders (Gemma 3n's audio_tower, embed_audio)
  int64_t buffers = 0;  // saved buffers transformers does not count as parameters (e_score_correction_bias)
  int64_t scales = 0;   // quantization scales and zero points (weight_scale, weight_scale_2, input_scale,
                        // weight_scale_inv, k_scale, v_scale, *_scales, qzeros, ...), in elements
  int64_t other = 0;    // tensors no rule places, in elements (the first few names in `unplaced`)
  std::vector<std::string> unplaced;
  std::vector<std::pair<std::string, int64_t>> bytes_by_dtype;  // stored bytes per safetensors dtype, by name
  int64_t bytes = 0;     // every tensor's bytes
  int64_t tensors = 0;
  int64_t shards = 0;
  int64_t index_total_size = -1;  // the index's metadata.total_size; -1 without an index
};

// True when `dir` holds model.safetensors.index.json or a *.safetensors file.
bool has_safetensors(const std::string& dir);

// Reads the headers of the checkpoint in `dir`: the shards its
// model.safetensors.index.json names, else every *.safetensors file in it.
// `num_layers` is the config's num_hidden_layers (tensors of later layers are
// MTP); < 0 when unknown. `int_bits` is the bits of an AWQ/GPTQ qweight value
// (4 unless the config says 8). Hostile input is refused in one line naming the
// file: a header length beyond the file or kMaxSafetensorsHeaderBytes, bad
// JSON, an unknown dtype, a shape whose byte size is not its data_offsets'
// range, overlapping offsets, offsets beyond the header's own contiguous
// layout or (with an index) the index's total_size, a tensor the index does not
// place in that shard, a shard the index names that is missing or not a
// regular file, a shard name with a path in it.
Result<CheckpointCount> count_safetensors(const std::string& dir, int64_t num_layers, int64_t int_bits = 4);

// Checks one safetensors header's JSON (without its 8-byte length prefix) as
// count_safetensors checks each shard's; the bytes of the buffer it lays out.
// Errors name `source`.
Result<int64_t> check_safetensors_header(std::string_view json, std::string_view source);

// ParamBreakdown's components as a checkpoint and a config are compared and
// printed (mlp_routed_active is not a stored component).
struct ParamComponent {
  const char* name;  // "embeddings", "lm_head", "attention", ...
  int64_t ParamBreakdown::*field;
};
std::span<const ParamComponent> param_components();

// One component where the config-derived count and the checkpoint's differ.
struct CountDifference {
  std::string component;  // "embeddings", "lm_head", "attention", ... (ParamBreakdown's fields)
  int64_t config = 0;
  int64_t checkpoint = 0;
};
// The components whose counts differ (mlp_routed_active is not compared).
std::vector<CountDifference> compare_counts(const ParamBreakdown& config, const ParamBreakdown& checkpoint);

// A config.json folder read as load_hf_config reads it, with its checkpoint's
// headers counted (count_safetensors): where the config-derived count differs,
// the spec takes the checkpoint's (the ground truth) and its assumptions say by
// how much and in which components. REQUIRES nothing of `dir` beyond what
// load_hf_config needs; without headers (no *.safetensors file: an index alone
// is not enough) the spec is load_hf_config's, an index without shards said in
// its assumptions, unless `require_headers`, when that is an error.
Result<ModelSpec> load_checkpoint(const std::string& dir, bool require_headers);

}  // namespace modelcalc

#endif  // MODELCALC_CHECKPOINT_H_
