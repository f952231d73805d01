// Sampling the next token from logits: greedy (argmax) at temperature 0, else from
// softmax(logits / temperature) with a seeded generator (same seed, same text).
#pragma once

#include <cstdint>
#include <random>
#include <span>

namespace kvsim::kernels {

// Index of the largest logit (the first on ties).
int argmax_token(std::span<const float> logits);

// temperature <= 0: argmax; else a draw from softmax(logits / temperature).
int sample_token(std::span<const float> logits, float temperature, std::mt19937_64* rng);

}  // namespace kvsim::kernels
