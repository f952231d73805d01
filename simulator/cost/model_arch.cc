#include "simulator/cost/model_arch.h"

namespace kvsim::sim {

ModelArch model_arch(const ModelSpec& model) {
  ModelArch arch;
  if (model.attention == AttentionKind::kMla) {
    arch.qk_nope_head_dim =
        model.head_dim > model.qk_rope_head_dim ? model.head_dim - model.qk_rope_head_dim : 0;
    arch.v_head_dim = arch.qk_nope_head_dim;
  }
  return arch;
}

}  // namespace kvsim::sim
