// EvictionRecorder: an EvictionSink that keeps every hash it is sent, in order, for tests of
// what a BlockPool or a TierPool evicts.
#pragma once

#include <span>
#include <vector>

#include "core/cache/block_pool.h"

namespace kvsim {

class EvictionRecorder final : public EvictionSink {
 public:
  void on_evicted(std::span<const BlockHash> hashes) override {
    evicted.insert(evicted.end(), hashes.begin(), hashes.end());
  }
  std::vector<BlockHash> evicted;
};

}  // namespace kvsim
