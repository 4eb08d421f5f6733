// Counting a checkpoint from its safetensors headers: the index and shards
// read (safetensors.cc), each tensor placed in a component by its name, the
// parameters and bytes summed exactly, and compared with the config's count.
#include "modelcalc/checkpoint.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <map>
#include <set>

#include "input_file.h"
#include "modelcalc/hf_config.h"
#include "safetensors.h"

namespace modelcalc {

namespace {

namespace fs = std::filesystem;

constexpr const char* kIndex = "model.safetensors.index.json";

// Where a tensor's parameters go.
enum class Place { kEmbeddings, kPosition, kLmHead, kAttention, kRecurrent, kMlpDense, kMlpRouted, kMlpShared,
                   kRouter, kNorms, kBiases, kMtp, kVision, kAudio, kBuffer, kScale, kOther };

bool has(std::string_view s, std::string_view w) { return s.find(w) != std::string_view::npos; }

// The component after the last '.', and the one before it.
std::string_view last(std::string_view s) {
  const size_t dot = s.rfind('.');
  return dot == std::string_view::npos ? s : s.substr(dot + 1);
}
std::string_view module_leaf(std::string_view s) {
  const size_t dot = s.rfind('.');
  return dot == std::string_view::npos ? std::string_view() : last(s.substr(0, dot));
}

// The layer number after "layers." (or GPT-2's "h."), or -1.
int64_t layer_number(std::string_view name) {
  for (std::string_view key : {std::string_view("layers."), std::string_view("h.")}) {
    size_t at = name.find(key);
    if (key == "h.") {  // "h.3." or "transformer.h.3."
      const size_t inner = name.find(".h.");
      at = name.starts_with("h.") ? 0
           : inner != std::string_view::npos && inner == name.find('.') ? inner + 1
                                                                         : std::string_view::npos;
    }
    if (at == std::string_view::npos) continue;
    size_t i = at + key.size();
    int64_t n = 0;
    bool any = false;
    for (; i < name.size() && name[i] >= '0' && name[i] <= '9' && n < (int64_t{1} << 40); ++i) {
      n = n * 10 + (name[i] - '0');
      any = true;
    }
    if (any && i < name.size() && name[i] == '.') return n;
  }
  return -1;
}

bool is_scale(std::string_view name) {
  const std::string_view leaf = last(name);
  for (std::string_view s : {"weight_scale", "weight_scale_2", "weight_scale_inv", "input_scale", "k_scale", "v_scale",
                             "q_scale", "kv_scale", "weight_global_scale", "input_global_scale", "scales", "qzeros",
                             "g_idx", "SCB", "weight_format", "weight_zero_point", "weight_offset", "scale_bias",
                             "weight_scale_second"}) {
    if (leaf == s) return true;
  }
  return leaf.ends_with("_scales");  // gpt-oss MXFP4: gate_up_proj_scales beside gate_up_proj_blocks
}

// A tensor inside a block, by its module names.
Place place_in_block(std::string_view n) {
  const std::string_view leaf = last(n), mod = module_leaf(n);
  const bool bias = leaf == "bias";
  if (has(n, "shared_expert")) return Place::kMlpShared;
  if (has(n, ".experts.") || leaf.starts_with("experts")) return Place::kMlpRouted;
  if (mod == "gate" || mod == "router" || has(n, ".router.")) return Place::kRouter;
  if (has(n, ".mamba.") || has(n, ".linear_attn.") || leaf == "A_log" || leaf == "D" || leaf == "dt_bias" ||
      mod == "conv1d" || mod == "x_proj" || mod == "dt_proj" || mod == "in_proj" ||
      (has(n, ".mixer.") && mod == "out_proj")) {
    return Place::kRecurrent;
  }
  if (has(n, ".self_attn.") || has(n, ".attn.") || has(n, ".attention.") || has(n, ".self_attention.") ||
      mod == "q_proj" || mod == "k_proj" || mod == "v_proj" || mod == "o_proj" || leaf == "sinks") {
    return bias ? Place::kBiases : Place::kAttention;
  }
  if (has(n, ".mlp.") || has(n, ".feed_forward.") || has(n, ".ffn.") || mod == "up_proj" || mod == "down_proj" ||
      mod == "gate_proj" || mod == "fc1" || mod == "fc2") {
    return bias ? Place::kBiases : Place::kMlpDense;
  }
  return Place::kOther;
}

// The component of one tensor, by its name as transformers and the engines name them.
Place place_of(std::string_view n, int64_t num_layers) {
  if (is_scale(n)) return Place::kScale;
  if (has(n, "vision_tower") || has(n, "vision_model") || has(n, "visual.") || has(n, "multi_modal_projector") ||
      has(n, "mm_projector") || has(n, "embed_vision.")) {
    return Place::kVision;
  }
  if (has(n, "audio_tower") || has(n, "embed_audio.")) return Place::kAudio;  // Gemma 3n's
  if (n.starts_with("mtp.") || has(n, ".mtp.")) return Place::kMtp;
  const int64_t layer = layer_number(n);
  if (layer >= 0 && num_layers >= 0 && layer >= num_layers) return Place::kMtp;
  if (last(n) == "e_score_correction_bias" || last(n) == "inv_freq" || last(n) == "masked_bias" ||
      (has(n, ".attn.") && last(n) == "bias" && module_leaf(n) == "attn")) {
    return Place::kBuffer;
  }
  if (n.starts_with("lm_head.") || has(n, "embed_out.")) return Place::kLmHead;
  if (has(n, "wpe.") || has(n, "embed_positions")) return Place::kPosition;
  if (has(n, "embed_tokens") || has(n, "wte.") || has(n, "word_embeddings") || has(n, "embed_in.") ||
      has(n, ".embeddings.") || has(n, "embedding.weight")) {
    return Place::kEmbeddings;
  }
  const std::string_view mod = module_leaf(n);
  if (has(mod, "norm") || mod.starts_with("ln_") || mod == "ln_f") return Place::kNorms;
  return layer >= 0 ? place_in_block(n) : Place::kOther;
}

// Values a stored tensor holds: 2 a byte for packed 4-bit floats (an NVFP4 U8
// weight beside its F8_E4M3 weight_scale, MXFP4 *_blocks, compressed-tensors'
// weight_packed), 32 / int_bits an I32 qweight; else its elements.
int64_t values_of(const SafeTensor& t, const std::set<std::string>& fp8_scaled, int64_t int_bits) {
  const std::string_view leaf = last(t.name);
  if (t.dtype == "U8" && (leaf.ends_with("_blocks") || leaf == "weight_packed")) return t.elements * 2;
  if (t.dtype == "U8" && leaf == "weight" && fp8_scaled.count(t.name.substr(0, t.name.size() - 6))) return t.elements * 2;
  if (t.dtype == "I32" && leaf == "qweight") return t.elements * (32 / int_bits);
  return t.elements;
}

struct Shard {
  std::string file;
  SafeTensorsHeader header;
};

// The shards of `dir`: those its index names (each tensor in the shard the
// index says), else every *.safetensors in it, sorted.
Result<std::vector<Shard>> read_shards(const std::string& dir, int64_t* total_size) {
  std::vector<Shard> shards;
  const fs::path index = fs::path(dir) / kIndex;
  std::error_code ec;
  if (fs::exists(fs::symlink_status(index, ec))) {
    MC_ASSIGN_OR_RETURN(const std::string text, read_input_file(index.string()));
    MC_ASSIGN_OR_RETURN(const nlohmann::json j, parse_json_strict(text, index.string()));
    const auto map = j.is_object() ? j.find("weight_map") : j.end();
    if (map == j.end() || !map->is_object()) return Status::InvalidArgument(index.string(), "has no weight_map object");
    std::map<std::string, std::set<std::string>> by_file;
    for (const auto& [name, file] : map->items()) {
      if (!file.is_string()) return Status::InvalidArgument(index.string(), "weight_map." + name + " is not a file name");
      const std::string f = file.get<std::string>();
      if (f.empty() || f.find('/') != std::string::npos || f.find('\\') != std::string::npos || f == "." || f == "..") {
        return Status::InvalidArgument(index.string(), "weight_map names '" + f + "', not a file beside the index");
      }
      by_file[f].insert(name);
    }
    if (auto meta = j.find("metadata"); meta != j.end() && meta->is_object() && meta->contains("total_size")) {
      const auto& ts = (*meta)["total_size"];
      if (!ts.is_number_integer() || ts.get<int64_t>() < 0) {
        return Status::InvalidArgument(index.string(), "metadata.total_size is not a whole number of bytes");
      }
      *total_size = ts.get<int64_t>();
    }
    for (const auto& [file, names] : by_file) {
      const std::string path = (fs::path(dir) / file).string();
      MC_ASSIGN_OR_RETURN(SafeTensorsHeader h, read_safetensors_header(path));
      std::set<std::string> seen;
      for (const SafeTensor& t : h.tensors) {
        if (!names.count(t.name)) {
          return Status::InvalidArgument(path, "holds '" + t.name + "', which the index does not place in " + file);
        }
        seen.insert(t.name);
      }
      if (seen.size() != names.size()) {
        for (const std::string& n : names) {
          if (!seen.count(n)) return Status::InvalidArgument(path, "lacks '" + n + "', which the index places there");
        }
      }
      shards.push_back({file, std::move(h)});
    }
    return shards;
  }
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.path().extension() == ".safetensors") files.push_back(e.path().filename().string());
  }
  std::sort(files.begin(), files.end());
  for (const std::string& f : files) {
    MC_ASSIGN_OR_RETURN(SafeTensorsHeader h, read_safetensors_header((fs::path(dir) / f).string()));
    shards.push_back({f, std::move(h)});
  }
  return shards;
}

void add(Place p, int64_t v, CheckpointCount& c) {
  ParamBreakdown& b = c.params;
  switch (p) {
    case Place::kEmbeddings: b.embeddings += v; break;
    case Place::kPosition: b.position += v; break;
    case Place::kLmHead: b.lm_head += v; break;
    case Place::kAttention: b.attention += v; break;
    case Place::kRecurrent: b.recurrent += v; break;
    case Place::kMlpDense: b.mlp_dense += v; break;
    case Place::kMlpRouted: b.mlp_routed += v; break;
    case Place::kMlpShared: b.mlp_shared += v; break;
    case Place::kRouter: b.router += v; break;
    case Place::kNorms: b.norms += v; break;
    case Place::kBiases: b.biases += v; break;
    case Place::kMtp: c.mtp += v; break;
    case Place::kVision: c.vision += v; break;
    case Place::kAudio: c.audio += v; break;
    case Place::kBuffer: c.buffers += v; break;
    case Place::kScale: c.scales += v; break;
    case Place::kOther: c.other += v; break;
  }
}

}  // namespace

Result<int64_t> check_safetensors_header(std::string_view json, std::string_view source) {
  MC_ASSIGN_OR_RETURN(const SafeTensorsHeader h, parse_safetensors_header(json, source));
  return h.data_bytes;
}

namespace {

// True when `dir` holds a *.safetensors file (a shard, or a link to one).
bool has_shard(const std::string& dir) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.path().extension() == ".safetensors") return true;
  }
  return false;
}

}  // namespace

bool has_safetensors(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return false;
  return fs::exists(fs::symlink_status(fs::path(dir) / kIndex, ec)) || has_shard(dir);
}

Result<CheckpointCount> count_safetensors(const std::string& dir, int64_t num_layers, int64_t int_bits) {
  CheckpointCount c;
  MC_ASSIGN_OR_RETURN(const std::vector<Shard> shards, read_shards(dir, &c.index_total_size));
  if (shards.empty()) return Status::NotFound(dir + ": no model.safetensors.index.json and no *.safetensors file");
  std::set<std::string> fp8_scaled;  // modules whose weight_scale is F8_E4M3 (NVFP4's per-16 scales)
  for (const Shard& s : shards) {
    for (const SafeTensor& t : s.header.tensors) {
      if (last(t.name) == "weight_scale" && t.dtype == "F8_E4M3") fp8_scaled.insert(t.name.substr(0, t.name.size() - 12));
    }
  }
  std::map<std::string, Exact> bytes;
  Exact total_bytes(0);
  std::array<Exact, 16> sums{};
  for (const Shard& s : shards) {
    ++c.shards;
    for (const SafeTensor& t : s.header.tensors) {
      ++c.tensors;
      const Place p = place_of(t.name, num_layers);
      sums[static_cast<size_t>(p)] = sums[static_cast<size_t>(p)] + Exact(values_of(t, fp8_scaled, int_bits));
      bytes[t.dtype] = bytes[t.dtype] + Exact(t.end - t.begin);
      if (p == Place::kOther && c.unplaced.size() < 5) c.unplaced.push_back(t.name);
    }
    total_bytes = total_bytes + Exact(s.header.data_bytes);
  }
  for (size_t p = 0; p < sums.size(); ++p) {
    if (sums[p].overflow()) return Status::Overflow(dir + ": parameter count");
    add(static_cast<Place>(p), sums[p].value(), c);
  }
  if (total_bytes.overflow()) return Status::Overflow(dir + ": byte count");
  c.bytes = total_bytes.value();
  for (const auto& [dtype, b] : bytes) c.bytes_by_dtype.emplace_back(dtype, b.value());
  if (c.index_total_size >= 0 && c.bytes > c.index_total_size) {
    return Status::InvalidArgument(dir + "/" + kIndex, "metadata.total_size is " + std::to_string(c.index_total_size) +
                                                           " bytes, but the shards' headers lay out " +
                                                           std::to_string(c.bytes));
  }
  return c;
}

std::span<const ParamComponent> param_components() {
  static constexpr ParamComponent kComponents[] = {
      {"embeddings", &ParamBreakdown::embeddings}, {"position", &ParamBreakdown::position},
      {"lm_head", &ParamBreakdown::lm_head},       {"attention", &ParamBreakdown::attention},
      {"recurrent", &ParamBreakdown::recurrent},   {"mlp_dense", &ParamBreakdown::mlp_dense},
      {"mlp_routed", &ParamBreakdown::mlp_routed}, {"mlp_shared", &ParamBreakdown::mlp_shared},
      {"router", &ParamBreakdown::router},         {"norms", &ParamBreakdown::norms},
      {"biases", &ParamBreakdown::biases}};
  return kComponents;
}

std::vector<CountDifference> compare_counts(const ParamBreakdown& config, const ParamBreakdown& checkpoint) {
  std::vector<CountDifference> out;
  for (const auto& [name, field] : param_components()) {
    if (config.*field != checkpoint.*field) out.push_back({name, config.*field, checkpoint.*field});
  }
  return out;
}

namespace {

std::string signed_count(int64_t v) { return (v >= 0 ? "+" : "") + std::to_string(v); }

// The spec takes the checkpoint's count where the config's differs, and says so.
void apply_count(const CheckpointCount& c, ModelSpec* m) {
  const ParamBreakdown config = m->exact.value_or(ParamBreakdown{});
  const std::vector<CountDifference> diff = compare_counts(config, c.params);
  const std::string where = std::to_string(c.shards) + " shard" + (c.shards == 1 ? "" : "s") + ", " +
                            std::to_string(c.tensors) + " tensors";
  if (diff.empty()) {
    m->assumptions.push_back("the checkpoint's safetensors headers (" + where + ") hold the " +
                             std::to_string(c.params.total()) + " parameters its config builds");
  } else {
    std::string parts;
    for (const CountDifference& d : diff) {
      parts += (parts.empty() ? "" : ", ") + d.component + " " + signed_count(d.checkpoint - d.config);
    }
    m->assumptions.push_back("the checkpoint's safetensors headers (" + where + ") hold " +
                             std::to_string(c.params.total()) + " parameters where its config builds " +
                             std::to_string(config.total()) + " (" + signed_count(c.params.total() - config.total()) +
                             ": " + parts + "); counted as the checkpoint holds them");
    ParamBreakdown p = c.params;
    // Active routed parameters: the config's share of the routed experts, of the checkpoint's.
    p.mlp_routed_active = config.mlp_routed > 0 ? static_cast<int64_t>(static_cast<long double>(c.params.mlp_routed) *
                                                                        config.mlp_routed_active / config.mlp_routed)
                                                : 0;
    m->exact = p;
  }
  if (c.other > 0) {
    m->assumptions.push_back("the checkpoint holds " + std::to_string(c.other) +
                             " values in tensors no component names (e.g. " + c.unplaced.front() + "); not counted");
  }
}

}  // namespace

Result<ModelSpec> load_checkpoint(const std::string& dir, bool require_headers) {
  MC_ASSIGN_OR_RETURN(ModelSpec m, load_hf_config(dir));
  if (!has_safetensors(dir)) {
    if (require_headers) {
      return Status::NotFound(dir + ": no model.safetensors.index.json and no *.safetensors file to read headers from");
    }
    return m;
  }
  if (!require_headers && !has_shard(dir)) {
    // config.json and the index were fetched, the shards not: the config's count, said.
    m.assumptions.push_back(std::string(kIndex) + " is there but none of its shards: counted from config.json "
                            "(--checkpoint requires the shards' headers)");
    return m;
  }
  const int64_t int_bits = m.quant && m.quant->dtype == Dtype::kInt8 ? 8 : 4;
  MC_ASSIGN_OR_RETURN(const CheckpointCount c, count_safetensors(dir, m.n_layer, int_bits));
  apply_count(c, &m);
  return m;
}

}  // namespace modelcalc
