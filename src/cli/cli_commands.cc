#include "commands.h"

namespace modelcalc {

// Grouped as a user meets them: sizing, the catalogs, capacity, diagnosis,
// then the lab's calculator.
std::vector<Command> all_commands() {
  return {
      {"size", "Size a model end to end: parameters, memory, FLOPs, KV cache, decode ceiling, regime (default)",
       setup_size},
      {"sweep", "Size every combination of lists (models × GPUs × seq × batch × dtypes), one row each; "
                "text, csv, md, json, jsonl",
       setup_sweep},
      {"plan", "The cheapest deployment (GPU kind and count, split, dtypes, batch) meeting TTFT/TPOT at a load; "
               "ranked $/1M tokens, frontier, closest misses",
       setup_plan},
      {"calibrate", "Published serving measurements against the prediction and the ceiling of the same setup "
                    "(error by regime); --fit refits the engine profile and cross-validates it",
       setup_calibrate},
      {"exercises", "Drill 1's model, calculated (the seed's `make run-exercises`)", setup_exercises},
      {"models", "The compiled-in model presets and the architectures config.json may use", setup_models},
      {"gpus", "The hardware catalog, with sources", setup_gpus},
      {"kv-budget", "HBM budget to concurrent sequences, MHA vs GQA, and changes that double it (drill 2)",
       setup_kv_budget},
      {"train-memory", "Memory per GPU to train: weights, gradients, optimizer (ZeRO, TP, PP), activations",
       setup_train_memory},
      {"paged-kv", "KV memory used vs reserved contiguously vs allocated in pages", setup_paged_kv},
      {"diagnose", "Name the regime from profiler evidence, with fixes and what not to do (drill 3)",
       setup_diagnose},
      {"roofline", "Roofline: attainable FLOP/s at an intensity, or a model's operating points; --plot draws it",
       setup_roofline},
      {"train", "Training FLOPs (6·N·D), GPU-hours and days", setup_train},
      {"train-plan", "The cheapest GPU kind, count and split (TP×PP×DP, ZeRO, recomputation) to train on D tokens "
                     "within a deadline",
       setup_train_plan},
      {"chinchilla", "Compute-optimal tokens for N (D ≈ 20·N), or N and D for a FLOP budget", setup_chinchilla},
      {"cost", "$ per 1M tokens: from a measured tokens/s, or a floor from a model's decode ceiling", setup_cost},
      {"mfu", "Model FLOPs utilization of a measured throughput", setup_mfu},
      {"tradeoff", "Score two candidates on five dials under weights; name the deciding dial", setup_tradeoff},
      {"example", "The lab's worked example: 70B and 8B on H100, FLOPs to $/1M to a tradeoff", setup_example},
      {"serve", "The web page and a JSON API over every command, on http://127.0.0.1:8080/ (--host, --port)",
       setup_serve},
  };
}

}  // namespace modelcalc
