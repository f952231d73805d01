// KvPolicy: what `kvsim ppl --policy SPEC` asks of the KV cache — an eviction policy (what is
// kept) or a quantization (how it is stored).
//
//   full        keep everything, fp storage                 (the baseline)
//   window:W    sink:S,W    h2o:H,R                         core/cache/retention_policy.h
//   int8        int8 per token, symmetric                   kv_quant.h
//   int4:G,R    int4 KIVI, group G, last R tokens in full precision
//
// At a cache budget of B tokens (`--budgets`) an eviction spec keeps its shape and takes the
// budget: window:W -> window:B, sink:S,W -> sink:S,(B-S), h2o:H,R -> h2o:H',(B-H') with
// H' = round(B * H / (H + R)) (the same heavy/recent split). Specs that do not evict (full,
// int8, int4) are unchanged by a budget.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/base/status.h"
#include "core/cache/retention_policy.h"
#include "kernels/kv_store.h"

namespace kvsim::kernels {

struct KvPolicy {
  std::string name;                                  // canonical spec
  std::shared_ptr<const RetentionPolicy> retention;  // null: keeps everything
  KvQuant quant = KvQuant::kNone;
  KiviConfig kivi;  // for int4

  bool evicts() const { return retention != nullptr && retention->budget_tokens().has_value(); }
  std::optional<uint64_t> budget_tokens() const {
    return retention != nullptr ? retention->budget_tokens() : std::nullopt;
  }
};

// Parses a spec; unknown names list the valid ones.
StatusOr<KvPolicy> parse_kv_policy(std::string_view spec);

// The spec resized to a budget of `budget_tokens` (see above). Errors when the budget leaves
// no room (sink:S with B <= S, h2o with B < 2).
StatusOr<KvPolicy> kv_policy_at_budget(std::string_view spec, uint64_t budget_tokens);

}  // namespace kvsim::kernels
