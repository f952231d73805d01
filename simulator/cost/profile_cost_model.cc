#include "simulator/cost/profile_cost_model.h"

#include <cmath>

#include "simulator/cost/vidur_profile.h"

namespace kvsim::sim {
namespace {

constexpr double kProfileActivationBytes = 2;  // the profiles are fp16

const char* const kLayerOps[] = {"input_layernorm",
                                 "attn_pre_proj",
                                 "attn_rope",
                                 "attn_post_proj",
                                 "post_attention_layernorm",
                                 "mlp_up_proj",
                                 "mlp_act",
                                 "mlp_down_proj",
                                 "add"};

std::string device_folder(const DeviceSpec& device) {
  return device.name.substr(0, device.name.find('-'));
}

}  // namespace

StatusOr<std::unique_ptr<ProfileCostModel>> ProfileCostModel::load(const CostModelConfig& config,
                                                                   const ModelSpec& model,
                                                                   const DeviceSpec& device,
                                                                   uint32_t tp) {
  if (config.profiles.empty()) {
    return Status::invalid_argument("cost_model: kind profile needs 'profiles' (a Vidur folder)");
  }
  if (is_hybrid(model)) {
    return Status::invalid_argument(
        "cost_model: kind profile times every layer as one full-attention layer of the "
        "profiled geometry, but model '" +
        model.name + "' is hybrid (" + describe_layer_groups(model) +
        "); use kind operators or roofline");
  }
  std::unique_ptr<ProfileCostModel> m(new ProfileCostModel());
  m->dir_ = config.profiles;
  m->tp_ = tp;
  m->layers_ = model.num_layers;
  m->hidden_ = model.hidden_size;
  m->gqa_ = model.num_attention_heads > model.num_kv_heads;
  const ProfileGeometry geometry{model.hidden_size, model.num_attention_heads, model.num_kv_heads,
                                 model.intermediate_size};
  const std::string folder = device_folder(device);
  KVSIM_ASSIGN_OR_RETURN(const std::string mlp,
                         find_mlp_profile(config.profiles, folder, geometry));
  KVSIM_ASSIGN_OR_RETURN(m->mlp_, read_mlp_profile(mlp, tp));
  KVSIM_ASSIGN_OR_RETURN(AttentionProfile attention, read_attention_profile(mlp, geometry, tp));
  m->decode_ = std::move(attention.decode);
  m->prefill_ = std::move(attention.prefill);
  if (tp > 1) {
    const std::string topology = config.topology.empty() ? folder + "_dgx" : config.topology;
    KVSIM_ASSIGN_OR_RETURN(
        m->all_reduce_,
        read_all_reduce_profile(config.profiles + "/network/" + topology + "/all_reduce.csv", tp));
  }
  return m;
}

template <typename Sink>
double ProfileCostModel::evaluate(const BatchShape& b, Sink&& sink) const {
  const double m = static_cast<double>(b.new_tokens);
  double total = 0;
  const auto emit = [&](const char* name, double count, double one_s) {
    total += count * one_s;
    sink(name, count, one_s);
  };
  for (const char* op : kLayerOps) {
    const auto grid = mlp_.find(op);
    if (grid != mlp_.end()) emit(op, layers_, grid->second.at(m));
  }
  if (b.num_prefill_chunks > 0) {
    const double chunk = std::sqrt(static_cast<double>(b.prefill_token_squares));
    const double batching = gqa_ && b.num_prefill_chunks > 1 ? 1 + kBatchingOverheadFraction : 1;
    emit("attn_prefill", layers_,
         prefill_.at(chunk, static_cast<double>(b.prefill_context_tokens)) * batching);
  }
  if (b.num_decodes() > 0) {
    const double decodes = static_cast<double>(b.num_decodes());
    const double batching = gqa_ && decodes > 1 ? 1 + kBatchingOverheadFraction : 1;
    emit("attn_decode", layers_,
         decode_.at(decodes, static_cast<double>(b.decode_context_tokens) / decodes) * batching);
  }
  if (tp_ > 1) {
    emit("all_reduce", 2 * layers_,
         all_reduce_.at(m * hidden_ * kProfileActivationBytes) + kAllReduceLaunchS);
  }
  const auto emb = mlp_.find("emb");
  if (emb != mlp_.end()) emit("emb", 1, emb->second.at(m));
  return total;
}

double ProfileCostModel::iteration_s(const BatchShape& batch) const {
  return evaluate(batch, [](const char*, double, double) {});
}

int64_t ProfileCostModel::iteration_ns(const BatchShape& batch) const {
  return seconds_to_ns(iteration_s(batch));
}

CostBreakdown ProfileCostModel::explain(const BatchShape& batch) const {
  CostBreakdown out;
  out.total_s = evaluate(batch, [&out](const char* name, double count, double one_s) {
    OperatorTime op;
    op.name = name;
    op.bound = "measured";
    op.count = static_cast<uint64_t>(count);
    op.time_s = count * one_s;
    op.formula = std::to_string(op.count) + " x " + std::to_string(one_s * 1e6) +
                 " us, interpolated in the profile";
    out.operators.push_back(std::move(op));
  });
  return out;
}

}  // namespace kvsim::sim
