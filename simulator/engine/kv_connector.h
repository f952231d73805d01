// KvConnector: where KV that this engine did not compute comes from — vLLM v1's KVConnector,
// scheduler side. A lone engine has none; a cluster installs them (simulator/cluster/): the
// lower tiers of a KV pool (host DRAM, SSD) and, on a decode-only instance, the prompt KV a
// prefill instance sends. Through this seam the engine's loop stays free of cluster cases.
//
// The scheduler admits waiting requests in order (simulator/engine/scheduler.h). For the
// head of the queue, once its HBM prefix hit is known, it asks each connector in turn:
//
//   match(request, hashes, hit, free blocks)
//     -> blocked      admission stops for this step (the head cannot be admitted now)
//     -> external kv  the connector can supply the KV of kv.num_tokens more tokens after the
//                     hit; the scheduler admits the request with blocks for hit + those
//                     tokens (all-or-nothing; no room stops admission) and the request waits
//                     for the KV (RequestPhase::kWaitingForKv), computing nothing now: such
//                     admissions need no token budget
//     -> nothing      the next connector is asked; after the last, the request is computed
//   on_admit(...)     the admission is decided, just before its blocks are allocated
//   start(...)        the step starts: the connector begins moving the KV into the request's
//                     blocks; for each transfer it asks the engine to wait_for() it (the
//                     request rejoins the running batch when its last transfer ends), or it
//                     arranges for Engine::receive_done() to be called when the KV is in
//   on_prefill_done(request, hashes, transfers)
//                     the iteration that just ended computed the last of the request's prompt
//                     (it samples its first token now; called once per request, before the
//                     engine applies the iteration, so a request that also finishes still has
//                     its hashes): where the connector saves KV the engine computed (LMCache's
//                     save of a request's new chunks, a write-through copy to a lower tier).
//                     Transfers it starts are reported with transfers.record(); nothing waits
//                     for them
//   on_dropped(...)   the engine dropped a request the connector may hold state for
//
// A prefill-only instance hands each request on after its first token (KvHandOff): the
// request leaves the batch holding its blocks until Engine::release_sent().
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>

#include "core/cache/block_id.h"
#include "core/cache/kv_cache_manager.h"
#include "simulator/engine/sim_observer.h"
#include "simulator/engine/sim_request.h"

namespace kvsim::sim {

// KV a connector supplies for a waiting request, after its HBM prefix hit.
struct ExternalKv {
  uint64_t num_tokens = 0;  // tokens whose KV comes from outside (0: a full local hit)
  // Blocks of it from each lower tier (for RequestRecord::lower_hit_tokens; zeros when the
  // KV comes from another instance).
  std::array<uint32_t, kMaxLowerTiers> blocks_per_tier{};
  uint32_t num_new_blocks = 0;  // set by the scheduler: blocks allocated for it
};

// A connector's answer for the waiting head (see above).
struct KvMatch {
  bool blocked = false;
  std::optional<ExternalKv> external;
};

// What a connector may ask of the engine when it starts a request's KV.
class KvTransfers {
 public:
  virtual ~KvTransfers() = default;
  virtual int64_t now_ns() const = 0;
  // The request waits for this transfer (its end_ns an event of the engine's; observers are
  // told of it now).
  virtual void wait_for(uint32_t slot, const TransferRecord& transfer) = 0;
  // A transfer nothing waits for (a write to a lower tier): observers are told of it now.
  virtual void record(const TransferRecord& transfer) = 0;
};

class KvConnector {
 public:
  virtual ~KvConnector() = default;
  // `hashes` are the request's block hashes, `num_free_blocks` the pool's free blocks now.
  virtual KvMatch match(const SimRequest& request, std::span<const BlockHash> hashes,
                        const PrefixHit& hit, uint32_t num_free_blocks) = 0;
  virtual void on_admit(std::span<const BlockHash> /*hashes*/, const PrefixHit& /*hit*/,
                        const ExternalKv& /*kv*/) {}
  virtual void start(uint32_t slot, SimRequest& request, const ExternalKv& kv,
                     KvTransfers& transfers) = 0;
  // `hashes` are the request's block hashes (its prompt's full blocks first).
  virtual void on_prefill_done(const SimRequest& /*request*/, std::span<const BlockHash> /*hashes*/,
                               KvTransfers& /*transfers*/) {}
  virtual void on_dropped(const SimRequest& /*request*/) {}
};

// The prefill side of a disaggregated pair: where requests go after their first token.
class KvHandOff {
 public:
  virtual ~KvHandOff() = default;
  // `slot` sampled its first token and has more to come; it keeps its blocks until the
  // engine's release_sent(slot).
  virtual void on_prefilled(uint32_t slot) = 0;
};

}  // namespace kvsim::sim
