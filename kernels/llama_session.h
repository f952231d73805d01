// LlamaSession: sequences running through a LlamaModel, their KV cache in paged blocks.
//
//   token ids --> LlamaModel (norms, projections, RoPE, FFN)
//                    |  K, V of the new tokens           ^ attention output
//                    v                                   |
//   KvCacheManager block tables --> KvStore (ND / NZ / int8 / int4 KIVI) --> decode / prefill
//   (allocate_slots per step,        block ids index the store's blocks      kernels
//    trim() frees dropped blocks)
//
// Up to max_sequences sequences share one block pool; a decode step advances sequences
// 0 .. B-1 by one token each as one batch (one weight pass, one batched kernel call per
// layer), so sequences of different lengths decode together.
//
// Retention: before each decode step attends, the policy selects which held positions of a
// sequence stay (RetentionPolicy::select, incremental: an evicted position never comes back);
// the step attends to exactly those. H2O ranks positions by the attention each has received so
// far, summed over layers and heads (the decode kernels' attention_sums). After the step the
// manager's trim() releases every block holding no kept position, so the block tables are the
// real footprint of the cache.
//
// append() on sequence 0 prefills a chunk of several tokens with the flash kernel when the
// policy keeps everything and the store is ND; otherwise tokens are decoded one at a time.
// Quantized stores keep every position.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "core/cache/kv_cache_manager.h"
#include "core/cache/retention_policy.h"
#include "kernels/kv_store.h"
#include "kernels/llama_model.h"

namespace kvsim::kernels {

struct SessionOptions {
  KvStoreOptions store;                              // layout, dtype, quantization, block size
  std::shared_ptr<const RetentionPolicy> retention;  // null = keep everything
  uint32_t max_tokens = 0;                           // tokens per sequence; 0 = model seq_len
  uint32_t max_sequences = 1;                        // sequences decoded together
};

class LlamaSession {
 public:
  // Errors: max_tokens above the model's seq_len, no sequences, quantization combined with
  // eviction, and the store's own (make_kv_store).
  static StatusOr<LlamaSession> create(const LlamaModel& model, const SessionOptions& options);

  // Appends tokens to sequence 0; logits [n, vocab]: row i is the next-token distribution
  // after token i. Precondition: num_tokens(0) + n <= max_tokens().
  void append(std::span<const int> tokens, RowMatrix* logits);

  // One decode step of sequences 0 .. B-1, B = tokens.size() <= max_sequences: tokens[b] is
  // appended to sequence b; logits [B, vocab].
  void decode_step(std::span<const int> tokens, RowMatrix* logits);

  // Every sequence ends (its blocks are freed) and an empty one starts in its place.
  void reset();

  uint32_t max_tokens() const { return max_tokens_; }
  uint32_t num_tokens(uint32_t seq = 0) const { return seqs_[seq].num_tokens; }
  // Most positions one step of the sequence attended to since the last reset.
  uint32_t max_attended(uint32_t seq = 0) const { return seqs_[seq].max_attended; }
  // Positions the sequence holds when the policy evicts (its last step attended exactly
  // these); empty when everything is kept.
  std::span<const uint64_t> held_positions(uint32_t seq = 0) const { return seqs_[seq].held; }
  // The attention each held position has received so far, summed over layers and heads.
  std::span<const float> held_scores(uint32_t seq = 0) const { return seqs_[seq].held_scores; }
  std::span<const BlockId> block_table(uint32_t seq = 0) const {
    return manager_.block_table(seqs_[seq].request);
  }
  const KvCacheManager& cache_manager() const { return manager_; }

 private:
  struct Sequence {
    RequestId request = 0;
    uint32_t num_tokens = 0;
    uint32_t max_attended = 0;
    std::vector<uint64_t> held;       // positions held, ascending (evicting policies)
    std::vector<float> held_scores;   // accumulated attention of each held position
    std::vector<uint32_t> positions;  // `held` as the kernels take it
    std::vector<float> step_sums;     // this step's attention per held position
  };

  LlamaSession(const LlamaModel& model, const SessionOptions& options, KvCacheManager manager,
               std::unique_ptr<KvStore> store);

  bool evicts() const { return retention_ != nullptr && retention_->budget_tokens().has_value(); }
  void allocate(Sequence* seq, uint32_t num_new_tokens);
  void prefill(std::span<const int> tokens, RowMatrix* logits);
  void select_positions(Sequence* seq);
  void finish_step(Sequence* seq, uint32_t slot, uint32_t attended);
  void release_dropped_blocks(Sequence* seq);

  const LlamaModel* model_;
  std::shared_ptr<const RetentionPolicy> retention_;
  KvCacheManager manager_;
  std::unique_ptr<KvStore> store_;
  std::vector<Sequence> seqs_;
  RequestId next_request_ = 0;
  uint32_t max_tokens_ = 0;
  // Scratch reused across steps.
  std::vector<uint64_t> keep_;
  std::vector<float> position_scores_;  // per position for trim(); -inf = evicted
  std::vector<uint32_t> step_positions_;
  std::vector<DecodeSequence> step_seqs_;
  std::vector<KvWrite> step_writes_;
  RowMatrix x_, q_, k_, v_, attention_;
};

}  // namespace kvsim::kernels
