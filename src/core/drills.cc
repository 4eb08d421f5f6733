#include "drills.h"

namespace modelcalc {

ModelSpec drill1_model() {
  ModelSpec m;
  m.name = "drill 1 (synthetic: GQA + SwiGLU)";
  m.n_layer = 48;
  m.n_embd = 6144;
  m.n_head = 48;
  m.n_head_kv = 8;
  m.n_embd_head = 128;
  m.n_ff = 16384;
  m.ffn_gated = true;
  m.n_vocab = 64000;
  return m;
}

}  // namespace modelcalc
