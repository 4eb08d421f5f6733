// The linear modules of a model's blocks as its checkpoints name them, and the
// matching of a quantization config's module patterns against those names as
// the engines match them (vLLM's ModelOpt loader, is_layer_excluded: the exact
// name, a pattern contained in the name, or an fnmatch wildcard). Internal to
// core: the quantization readers (hf_quant.cc) use it.
#ifndef MODELCALC_HF_MODULES_H_
#define MODELCALC_HF_MODULES_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "modelcalc/model.h"

namespace modelcalc::hf {

// The parts of a block a checkpoint quantizes or keeps (CheckpointQuant's flags).
enum class QuantPart : uint8_t { kAttention, kMlp, kExperts, kRecurrent };
inline constexpr size_t kQuantParts = 4;

// One quantizable linear module of one block, e.g. {5, kAttention,
// "backbone.layers.5.mixer.q_proj"} in Nemotron-H.
struct LayerModule {
  int64_t layer = 0;
  QuantPart part = QuantPart::kAttention;
  std::string name;
};

// Every linear module of m's blocks, in layer order, named as checkpoints of
// m.model_type name them (a table row per family; unknown types take the
// llama row). Routed experts are represented by their first and last expert
// (or by the fused experts module, where the family fuses them). MTP layers,
// vision towers, routers, norms, embeddings and lm_head are not listed: they
// are 16-bit in every checkpoint the engine models. REQUIRES: validate(m).
std::vector<LayerModule> layer_modules(const ModelSpec& m);

// Python's fnmatch.fnmatchcase: '*' any run of characters (dots included),
// '?' one character, [abc] / [!abc] a set. Linear time in practice; at most
// |name| x |pattern| steps.
bool fnmatch_case(std::string_view name, std::string_view pattern);

// True when a quantization config's exclusion pattern covers the module
// `name`: equal to it, contained in it, or matching it as an fnmatch wildcard
// (vLLM's is_layer_excluded). A compressed-tensors "re:" regex is read as a
// wildcard: ".*", ".+" and "\d+" as '*', "\d" as '?', "\." as '.', '^' and '$'
// dropped (alternation and groups are not read).
bool module_excluded(std::string_view name, std::string_view pattern);

}  // namespace modelcalc::hf

#endif  // MODELCALC_HF_MODULES_H_
