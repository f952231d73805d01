#include "gui/capacity_model.h"

#include "core/model/load_spec.h"
#include "core/report/capacity_report.h"

namespace kvsim::gui {
namespace {

constexpr uint64_t kFirstSeqLen = 128;
constexpr uint64_t kSeqLenWithoutMax = 1024;

StatusOr<DeviceCapacity> device_capacity(const ModelSpec& model, DeviceSpec device,
                                         const CapacityQuery& query, const EngineQuery& engine) {
  DeviceCapacity out;
  out.device = std::move(device);
  KVSIM_ASSIGN_OR_RETURN(const CapacityPlan plan, plan_capacity(model, &out.device, query, engine));
  out.result = plan.capacity;
  out.memory = memory_breakdown(out.device, plan);
  out.report = capacity_report(model, &out.device, plan);
  for (uint64_t seq_len : seq_len_grid(model)) {
    CapacityQuery at_len = plan.query;  // the engine's budget and block size, resolved
    at_len.seq_len = seq_len;
    KVSIM_ASSIGN_OR_RETURN(CapacityResult result, compute_capacity(model, &out.device, at_len));
    out.max_sequences.push_back({seq_len, result.max_batch_at_seq_len.value_or(0)});
  }
  return out;
}

}  // namespace

const std::vector<std::string>& default_comparison_devices() {
  static const std::vector<std::string> kDevices = {"a100-80g", "h100-sxm", "h200", "ascend-910b3",
                                                    "ascend-310p3"};
  return kDevices;
}

std::vector<uint64_t> seq_len_grid(const ModelSpec& model) {
  const uint64_t max_len =
      model.max_position_embeddings > 0 ? model.max_position_embeddings : kSeqLenWithoutMax;
  std::vector<uint64_t> grid;
  for (uint64_t len = kFirstSeqLen; len < max_len; len *= 2) grid.push_back(len);
  grid.push_back(max_len);
  return grid;
}

namespace {

uint64_t& set_aside_bytes(MemoryBreakdown* m, SetAsideKind kind) {
  switch (kind) {
    case SetAsideKind::kWeights:
      return m->weights_bytes;
    case SetAsideKind::kActivation:
      return m->activation_bytes;
    case SetAsideKind::kGraphs:
      return m->graphs_bytes;
    case SetAsideKind::kMeasured:
      return m->measured_bytes;
    case SetAsideKind::kNonTorch:
      break;
  }
  return m->non_torch_bytes;
}

}  // namespace

MemoryBreakdown memory_breakdown(const DeviceSpec& device, const CapacityPlan& plan) {
  const CapacityResult& result = plan.capacity;
  MemoryBreakdown out;
  if (plan.engine) {  // the engine's terms, the weights among them (or in a measured one)
    for (const SetAsideTerm& term : plan.engine->terms)
      set_aside_bytes(&out, term.kind) += term.bytes;
  } else {
    out.weights_bytes = result.weight_bytes.value_or(0);
  }
  const uint64_t blocks = result.num_blocks.value_or(0);
  out.kv_data_bytes = blocks * result.kv_bytes_per_block_nd;
  out.nz_padding_bytes = blocks * (result.kv_bytes_per_block - result.kv_bytes_per_block_nd);
  if (plan.engine && plan.engine->total_bytes < device.memory_bytes) {
    out.driver_reserve_bytes = device.memory_bytes - plan.engine->total_bytes;
  }
  const uint64_t used = out.weights_bytes + out.activation_bytes + out.non_torch_bytes +
                        out.graphs_bytes + out.measured_bytes + out.kv_data_bytes +
                        out.nz_padding_bytes + out.driver_reserve_bytes;
  out.unused_bytes = device.memory_bytes > used ? device.memory_bytes - used : 0;
  return out;
}

StatusOr<CapacityViewData> compute_capacity_view(const CapacityViewInput& input) {
  if (input.devices.empty()) return Status::invalid_argument("choose at least one device");
  CapacityViewData out;
  KVSIM_ASSIGN_OR_RETURN(out.model, load_model(input.model));
  out.query = input.query;
  for (const std::string& name : input.devices) {
    KVSIM_ASSIGN_OR_RETURN(DeviceSpec device, load_device(name));
    auto capacity = device_capacity(out.model, std::move(device), input.query, input.engine);
    if (!capacity.is_ok()) return capacity.status().with_context(name);
    out.devices.push_back(std::move(capacity).value());
  }
  return out;
}

}  // namespace kvsim::gui
