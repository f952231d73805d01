// LlamaSession: one sequence running through a LlamaModel, its KV cache in paged blocks.
//
//   token ids --> LlamaModel (norms, projections, RoPE, FFN)
//                    |  K, V of the new tokens           ^ attention output
//                    v                                   |
//   KvCacheManager block table --> KvStore (ND / NZ / int8 / int4 KIVI) --> decode / prefill
//   (allocate_slots per step,        block ids index the store's blocks     kernels
//    trim() frees dropped blocks)
//
// Retention: before each decode step attends, the policy selects which held positions stay
// (RetentionPolicy::select, incremental: an evicted position never comes back); the step
// attends to exactly those. H2O ranks positions by the attention each has received so far,
// summed over layers and heads (the decode kernels' attention_sums). After the step the
// manager's trim() releases every block holding no kept position, so the block table is the
// real footprint of the cache.
//
// With full retention and an ND store, a chunk of several tokens is prefilled with the flash
// kernel; otherwise tokens are decoded one at a time. Quantized stores keep every position.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "core/kv_cache_manager.h"
#include "core/retention_policy.h"
#include "kernels/kv_store.h"
#include "kernels/llama_model.h"

namespace kvsim::kernels {

struct SessionOptions {
  KvStoreOptions store;                               // layout, dtype, quantization, block size
  std::shared_ptr<const RetentionPolicy> retention;   // null = keep everything
  uint32_t max_tokens = 0;                            // tokens per sequence; 0 = model seq_len
};

class LlamaSession {
 public:
  // Errors: max_tokens above the model's seq_len, quantization combined with eviction, and
  // the store's own (make_kv_store).
  static StatusOr<LlamaSession> create(const LlamaModel& model, const SessionOptions& options);

  // Appends tokens at positions num_tokens() ...; logits [n, vocab]: row i is the next-token
  // distribution after token i. Precondition: num_tokens() + n <= max_tokens().
  void append(std::span<const int> tokens, RowMatrix* logits);

  // Ends the sequence (its blocks are freed) and starts an empty one.
  void reset();

  uint32_t num_tokens() const { return num_tokens_; }
  uint32_t max_tokens() const { return max_tokens_; }
  // Most positions one step attended to since the last reset.
  uint32_t max_attended() const { return max_attended_; }
  const KvCacheManager& cache_manager() const { return manager_; }
  std::span<const BlockId> block_table() const { return manager_.block_table(request_); }

 private:
  LlamaSession(const LlamaModel& model, const SessionOptions& options, KvCacheManager manager,
               std::unique_ptr<KvStore> store);

  bool evicts() const { return retention_ != nullptr && retention_->budget_tokens().has_value(); }
  std::span<const uint32_t> allocate(uint32_t num_new_tokens);
  void prefill(std::span<const int> tokens, RowMatrix* logits);
  void decode_step(int token, RowMatrix* logits);
  void select_positions();
  void release_dropped_blocks();

  const LlamaModel* model_;
  std::shared_ptr<const RetentionPolicy> retention_;
  KvCacheManager manager_;
  std::unique_ptr<KvStore> store_;
  RequestId request_ = 0;
  uint32_t max_tokens_ = 0;
  uint32_t num_tokens_ = 0;
  uint32_t max_attended_ = 0;
  // Positions held (ascending) and their accumulated attention, when the policy evicts.
  std::vector<uint64_t> held_;
  std::vector<float> held_scores_;
  std::vector<uint64_t> keep_;
  std::vector<uint32_t> positions_;   // held_ as the kernels take it
  std::vector<float> step_sums_;      // this step's attention per held position
  std::vector<float> position_scores_;  // per position 0..n-1 for trim(); -inf = evicted
  RowMatrix x_, q_, k_, v_, attention_;
};

}  // namespace kvsim::kernels
