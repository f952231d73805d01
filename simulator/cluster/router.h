// Router: which replica of a pool a request goes to. A router is a typed value, RouterKind,
// named by one table (router_name / parse_router: an unknown name is an error that lists the
// valid ones) and built by make_router.
//
//   round_robin   the pool's replicas in turn, in pool order
//   least_loaded  fewest outstanding tokens (prompt tokens not yet computed or hit in the
//                 cache plus output tokens still to sample, over the requests the replica
//                 holds: Scheduler::outstanding_tokens); ties: pool order
//   prefix_aware  most cached prefix blocks: the longest run of the request's prompt blocks,
//                 from its first, that the replica holds in HBM or in one of its lower tiers;
//                 ties: fewest outstanding tokens, then pool order
// A router keeps state of its own (round_robin's turn), so each pool has its own router.
// Routing reads the replicas and changes nothing; every tie is broken by pool order, so a run
// never depends on anything but its inputs.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/status.h"
#include "simulator/engine/request.h"

namespace kvsim::sim {

// What a router may ask about the replicas (simulator/cluster/cluster.h answers).
class RouterView {
 public:
  virtual ~RouterView() = default;
  virtual uint64_t outstanding_tokens(uint32_t replica) const = 0;
  // The number of leading prompt blocks of `request` cached on `replica` (any tier).
  virtual uint32_t cached_prefix_blocks(uint32_t replica, const RequestSpec& request) const = 0;
};

enum class RouterKind : uint8_t {
  kRoundRobin,   // "round_robin"
  kLeastLoaded,  // "least_loaded"
  kPrefixAware,  // "prefix_aware"
};
std::string_view router_name(RouterKind kind);
StatusOr<RouterKind> parse_router(std::string_view name);
// Every name, in table order: round_robin, least_loaded, prefix_aware.
std::vector<std::string> router_names();

class Router {
 public:
  virtual ~Router() = default;
  virtual RouterKind kind() const = 0;
  std::string_view name() const { return router_name(kind()); }
  // One replica of `pool` (non-empty, replica indices) for `request`.
  virtual uint32_t route(const RequestSpec& request, std::span<const uint32_t> pool,
                         const RouterView& view) = 0;
};

std::unique_ptr<Router> make_router(RouterKind kind);

}  // namespace kvsim::sim
