// Policies from their text, for tests that read best with the names a scenario uses: through
// the one parser of each (parse_eviction, parse_retention), a bad name failing the test.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string_view>

#include "core/cache/eviction_policy.h"
#include "core/cache/retention_policy.h"

namespace kvsim {

inline EvictionKind eviction_of(std::string_view name) {
  const auto kind = parse_eviction(name);
  EXPECT_TRUE(kind.is_ok()) << kind.status().message();
  return kind.is_ok() ? *kind : EvictionKind::kLru;
}

inline std::shared_ptr<const RetentionPolicy> retention_of(std::string_view text) {
  const auto spec = parse_retention(text);
  EXPECT_TRUE(spec.is_ok()) << spec.status().message();
  return make_retention_policy(spec.is_ok() ? *spec : RetentionSpec{});
}

}  // namespace kvsim
