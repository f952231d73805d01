#include "kernels/sampler.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/base/check.h"

namespace kvsim::kernels {

int argmax_token(std::span<const float> logits) {
  KVSIM_CHECK(!logits.empty(), "sampler: empty logits");
  return static_cast<int>(std::max_element(logits.begin(), logits.end()) - logits.begin());
}

int sample_token(std::span<const float> logits, float temperature, std::mt19937_64* rng) {
  if (temperature <= 0.0f) return argmax_token(logits);
  const float max_logit = logits[static_cast<size_t>(argmax_token(logits))];
  std::vector<double> weights(logits.size());
  for (size_t i = 0; i < logits.size(); ++i) {
    weights[i] = std::exp((logits[i] - max_logit) / temperature);
  }
  std::discrete_distribution<int> distribution(weights.begin(), weights.end());
  return distribution(*rng);
}

}  // namespace kvsim::kernels
