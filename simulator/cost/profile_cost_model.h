// ProfileCostModel: measured per-operator profiles (Vidur's format, simulator/cost/
// vidur_profile.h) as the cost model — `cost_model: {kind: profile, profiles: DIR}` — with no
// learned model: each operator's time is interpolated in its profile (ProfileGrid) and the
// iteration composed as Vidur composes it (github.com/microsoft/vidur at 7d47513,
// vidur/entities/execution_time.py and the sklearn predictor; see docs/cost_model.md):
//
//   per layer  input_layernorm + attn_pre_proj + attn_rope + attention + attn_post_proj
//              + post_attention_layernorm + mlp_up_proj + mlp_act + mlp_down_proj + add
//              + 2 x (all_reduce(M x hidden x 2 bytes) + 20 us CPU launch)     (tp > 1)
//   attention  decode: attn_decode(decodes, their mean KV length) x 1.1 when GQA and > 1 decode
//              prefill: attn_prefill(chunk = sqrt(sum q^2), KV = sum c) x 1.1 when GQA and
//              > 1 chunk ("an equivalent single prefill", Vidur §4)
//   iteration  layers x per layer + emb(M)
// M = tokens computed in the iteration (interpolated, not rounded up to 8 as Vidur does). Like
// Vidur's default, no LM head, sampling or CPU overhead. The profile must hold the model's
// geometry and the TP size: the folder's mlp.csv of that hidden size, head counts and FFN
// width, an attention*.csv beside it, and network/<topology>/all_reduce.csv (tp > 1).
// Hybrid models (core/model/model_spec.h is_hybrid) are refused: the profiles have no
// sliding-window or recurrent layers, and timing them as full attention would be silently wrong.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "core/base/status.h"
#include "core/model/device_spec.h"
#include "core/model/model_spec.h"
#include "simulator/cost/cost_model_config.h"
#include "simulator/cost/profile_grid.h"
#include "simulator/engine/cost_model.h"

namespace kvsim::sim {

class ProfileCostModel final : public CostModel {
 public:
  // Reads config.profiles for the model on the device at TP `tp`; the device's folder is its
  // preset name up to the first '-' (a100-80g -> compute/a100), the topology
  // config.topology or <that>_dgx. A missing file or row is an error naming it.
  static StatusOr<std::unique_ptr<ProfileCostModel>> load(const CostModelConfig& config,
                                                          const ModelSpec& model,
                                                          const DeviceSpec& device, uint32_t tp);

  std::string name() const override { return "profile:" + dir_; }
  int64_t iteration_ns(const BatchShape& batch) const override;
  CostBreakdown explain(const BatchShape& batch) const override;
  double iteration_s(const BatchShape& batch) const;

  // Vidur's constants (sklearn_execution_time_predictor.py L46-56, L811-817).
  static constexpr double kBatchingOverheadFraction = 0.1;
  static constexpr double kAllReduceLaunchS = 20e-6;

 private:
  ProfileCostModel() = default;
  template <typename Sink>
  double evaluate(const BatchShape& batch, Sink&& sink) const;

  std::string dir_;
  std::map<std::string, ProfileGrid> mlp_;  // by op, x = tokens
  ProfileGrid decode_, prefill_, all_reduce_;
  uint32_t tp_ = 1;
  double layers_ = 0;
  double hidden_ = 0;
  bool gqa_ = false;
};

}  // namespace kvsim::sim
