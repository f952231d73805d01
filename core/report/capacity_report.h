// Human-readable capacity answers: the formulas of core/engine/capacity.h with the numbers of one
// query substituted, so that a student can follow every step, and a one-line-per-device
// table. The CLI prints these; the GUI shows the same text beside its plots.
#pragma once

#include <string>
#include <vector>

#include "core/engine/capacity_plan.h"

namespace kvsim {

// The full derivation for one model on one device (device may be null): bytes per token and
// block, the engine's budget term by term, blocks and what fits.
std::string capacity_report(const ModelSpec& model, const DeviceSpec* device,
                            const CapacityPlan& plan);

struct CapacityRow {
  const DeviceSpec* device = nullptr;
  CapacityPlan plan;
};

// The plans `kvsim capacity` and kvsim.capacity() (python/) print: one per device, in order,
// or one without a device when `devices` is empty. The rows point into `devices`.
StatusOr<std::vector<CapacityRow>> plan_capacity_rows(const ModelSpec& model,
                                                      const std::vector<DeviceSpec>& devices,
                                                      const CapacityQuery& query,
                                                      const EngineQuery& engine);

// One row per device: memory, weights, the rest of the set-aside, KV budget, blocks, max
// tokens, max sequences.
std::string capacity_table(const ModelSpec& model, const std::vector<CapacityRow>& rows);

}  // namespace kvsim
