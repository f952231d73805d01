// Human-readable capacity answers: the formulas of core/capacity.h with the numbers of one
// query substituted, so that a student can follow every step, and a one-line-per-device
// table. The CLI prints these; the GUI shows the same text beside its plots.
#pragma once

#include <string>
#include <vector>

#include "core/capacity.h"

namespace kvsim {

// The full derivation for one model on one device (device may be null).
std::string capacity_report(const ModelSpec& model, const DeviceSpec* device,
                            const CapacityQuery& query, const CapacityResult& result);

struct CapacityRow {
  const DeviceSpec* device = nullptr;
  CapacityResult result;
};

// One row per device: memory, weights, KV budget, blocks, max tokens, max sequences.
std::string capacity_table(const ModelSpec& model, const CapacityQuery& query,
                           const std::vector<CapacityRow>& rows);

}  // namespace kvsim
