// Flags shared by subcommands: the model (shape flags, --model, --config),
// the GPU (--gpu or --bandwidth/--capacity/--peak) and the output format.
#ifndef MODELCALC_INPUTS_H_
#define MODELCALC_INPUTS_H_

#include <optional>
#include <ostream>
#include <string>

#include "modelcalc/gpu.h"
#include "modelcalc/model.h"
#include "modelcalc/status.h"
#include "report.h"

namespace CLI {
class App;
}

namespace modelcalc {

struct ModelFlags {
  std::string layers, hidden, heads, kv_heads, head_dim, ffn, vocab;  // shape, as typed
  bool glu = false;   // gated FFN (three matrices)
  bool tied = false;  // input embedding and lm_head share one matrix
  std::string model;   // preset name
  std::string config;  // config.json path or folder
};
void add_model_flags(CLI::App& app, ModelFlags* f);
// True when any model flag was given.
bool has_model(const ModelFlags& f);
// The model the flags describe. Errors name the flag.
Result<ModelSpec> resolve_model(const ModelFlags& f);

// The context / prompt length: `text` when given, else the model's
// max_position_embeddings, else 4096. Errors name `flag`.
Result<int64_t> resolve_seq(const std::string& text, const ModelSpec& m, const char* flag = "--seq");
// Weight dtype from --dtype, KV dtype from --kv-dtype (default: the weights').
struct Dtypes {
  Dtype weights = Dtype::kFp16;
  Dtype kv = Dtype::kFp16;
};
Result<Dtypes> resolve_dtypes(const std::string& dtype, const std::string& kv_dtype);

struct GpuFlags {
  std::string gpu;        // catalog name
  std::string bandwidth;  // e.g. "3.35TB/s", overrides the catalog's
  std::string capacity;   // e.g. "80GB"
  std::string peak;       // dense bf16, e.g. "989.4TFLOPS"
};
void add_gpu_flags(CLI::App& app, GpuFlags* f);
// The GPU the flags describe; nullopt when none was given. A custom GPU
// (no --gpu) needs all of --bandwidth, --capacity and --peak.
Result<std::optional<GpuSpec>> resolve_gpu(const GpuFlags& f);
// OK when `g` has a dense bf16 peak; else the one message every command gives,
// naming --gpu: "A10G has no published dense bf16 peak; give --peak ...".
Status require_peak(const GpuSpec& g);

struct OutputFlags {
  bool json = false;     // machine-readable
  bool explain = false;  // formula, substitution, result for every number
};
void add_output_flags(CLI::App& app, OutputFlags* f);
// Renders `r` as the flags ask.
void emit(const Report& r, const OutputFlags& f, std::ostream& out);

}  // namespace modelcalc

#endif  // MODELCALC_INPUTS_H_
