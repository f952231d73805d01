#include "simulator/cluster/router.h"

#include "core/base/names.h"

namespace kvsim::sim {
namespace {

class RoundRobinRouter final : public Router {
 public:
  std::string_view name() const override { return "round_robin"; }
  uint32_t route(const RequestSpec& /*request*/, std::span<const uint32_t> pool,
                 const RouterView& /*view*/) override {
    return pool[next_++ % pool.size()];
  }

 private:
  uint64_t next_ = 0;
};

class LeastLoadedRouter final : public Router {
 public:
  std::string_view name() const override { return "least_loaded"; }
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
  std::string_view name() const override { return "prefix_aware"; }
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

struct RouterEntry {
  const char* name;
  std::unique_ptr<Router> (*make)();
};

template <typename R>
std::unique_ptr<Router> make() {
  return std::make_unique<R>();
}

// The one table of routers, keyed by their YAML name.
constexpr RouterEntry kRouters[] = {
    {"round_robin", &make<RoundRobinRouter>},
    {"least_loaded", &make<LeastLoadedRouter>},
    {"prefix_aware", &make<PrefixAwareRouter>},
};

}  // namespace

StatusOr<std::unique_ptr<Router>> make_router(std::string_view name) {
  for (const RouterEntry& entry : kRouters) {
    if (name == entry.name) return entry.make();
  }
  return Status::invalid_argument(unknown_name_message("router", name, router_names()));
}

std::vector<std::string> router_names() {
  std::vector<std::string> names;
  for (const RouterEntry& entry : kRouters) names.emplace_back(entry.name);
  return names;
}

}  // namespace kvsim::sim
