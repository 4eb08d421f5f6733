#include "commands.h"

namespace modelcalc {

std::vector<Command> all_commands() {
  return {
      {"size", "Size a model end to end: parameters, memory, FLOPs, KV cache, decode ceiling, regime (default)",
       setup_size},
      {"exercises", "Drill 1's model, calculated (the seed's `make run-exercises`)", setup_exercises},
      {"gpus", "The hardware catalog, with sources", setup_gpus},
      {"models", "The compiled-in model presets and the architectures config.json may use", setup_models},
      {"diagnose", "Name the regime from profiler evidence, with fixes and what not to do (drill 3)",
       setup_diagnose},
  };
}

}  // namespace modelcalc
