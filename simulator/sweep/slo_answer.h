// The answer of an SLO capacity sweep (a `kind: simulate` sweep with an `slo:` block), as text:
// one line per point, in the order given, for `kvsim sweep` to print.
//   <point name>  max <rate> req/s  $<cost> per M tokens ($<cost> per M output)  bound by <what>
// The rate is slo.max_rate_per_s, the costs slo.cost_per_million_tokens_usd and
// slo.cost_per_million_output_tokens_usd ("no price" when the device preset has none), and
// <what> the point's binding limit (slo_search.h: an SLO metric, KV memory or drops). A point
// where no rate met the SLO says so; a failed point gives its error.
#pragma once

#include <string>
#include <vector>

#include "simulator/sweep/sweep_results.h"

namespace kvsim::sim {

std::string slo_answer_text(const std::vector<PointRecord>& records);

}  // namespace kvsim::sim
