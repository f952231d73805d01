#include "simulator/cluster/router.h"

#include "core/base/check.h"
#include "core/base/enum_names.h"

namespace kvsim::sim {
namespace {

// The one table of router names.
constexpr EnumNames<RouterKind, 3> kRouterNames{{{
    {RouterKind::kRoundRobin, "round_robin"},
    {RouterKind::kLeastLoaded, "least_loaded"},
    {RouterKind::kPrefixAware, "prefix_aware"},
}}};

class RoundRobinRouter final : public Router {
 public:
  RouterKind kind() const override { return RouterKind::kRoundRobin; }
  uint32_t route(const RequestSpec& /*request*/, std::span<const uint32_t> pool,
                 const RouterView& /*view*/) override {
    return pool[next_++ % pool.size()];
  }

 private:
  uint64_t next_ = 0;
};

class LeastLoadedRouter final : public Router {
 public:
  RouterKind kind() const override { return RouterKind::kLeastLoaded; }
  uint32_t route(const RequestSpec& /*request*/, std::span<const uint32_t> pool,
                 const RouterView& view) override {
    uint32_t best = pool[0];
    uint64_t best_load = view.outstanding_tokens(best);
    for (size_t i = 1; i < pool.size(); ++i) {
      const uint64_t load = view.outstanding_tokens(pool[i]);
      if (load < best_load) {
        best = pool[i];
        best_load = load;
      }
    }
    return best;
  }
};

class PrefixAwareRouter final : public Router {
 public:
  RouterKind kind() const override { return RouterKind::kPrefixAware; }
  uint32_t route(const RequestSpec& request, std::span<const uint32_t> pool,
                 const RouterView& view) override {
    uint32_t best = pool[0];
    uint32_t best_blocks = view.cached_prefix_blocks(best, request);
    uint64_t best_load = view.outstanding_tokens(best);
    for (size_t i = 1; i < pool.size(); ++i) {
      const uint32_t blocks = view.cached_prefix_blocks(pool[i], request);
      if (blocks < best_blocks) continue;
      const uint64_t load = view.outstanding_tokens(pool[i]);
      if (blocks > best_blocks || load < best_load) {
        best = pool[i];
        best_blocks = blocks;
        best_load = load;
      }
    }
    return best;
  }
};

}  // namespace

std::string_view router_name(RouterKind kind) { return kRouterNames.name(kind); }

StatusOr<RouterKind> parse_router(std::string_view name) {
  return kRouterNames.parse(name, "router");
}

std::vector<std::string> router_names() { return kRouterNames.names(); }

std::unique_ptr<Router> make_router(RouterKind kind) {
  switch (kind) {
    case RouterKind::kRoundRobin:
      return std::make_unique<RoundRobinRouter>();
    case RouterKind::kLeastLoaded:
      return std::make_unique<LeastLoadedRouter>();
    case RouterKind::kPrefixAware:
      return std::make_unique<PrefixAwareRouter>();
  }
  KVSIM_CHECK(false, "a router kind missing from make_router");
}

}  // namespace kvsim::sim
