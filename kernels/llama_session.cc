#include "kernels/llama_session.h"

#include <limits>

namespace kvsim::kernels {

StatusOr<LlamaSession> LlamaSession::create(const LlamaModel& model,
                                            const SessionOptions& options) {
  const LlamaConfig& c = model.config();
  const uint32_t max_tokens = options.max_tokens == 0 ? c.seq_len : options.max_tokens;
  if (max_tokens > c.seq_len) {
    return Status::invalid_argument("context of " + std::to_string(max_tokens) +
                                    " tokens exceeds the model's seq_len " +
                                    std::to_string(c.seq_len));
  }
  const bool evicts =
      options.retention != nullptr && options.retention->budget_tokens().has_value();
  if (evicts && options.store.quant != KvQuant::kNone) {
    return Status::invalid_argument("quantized KV caches run with full retention");
  }
  const uint32_t block_size = options.store.block_size;
  if (block_size == 0) return Status::invalid_argument("KV block size must be > 0");
  KvCacheConfig cache;
  cache.num_blocks = (max_tokens + block_size - 1) / block_size;
  cache.block_size = block_size;
  cache.eviction = "none";  // one sequence, no prefix reuse
  KVSIM_ASSIGN_OR_RETURN(KvCacheManager manager, KvCacheManager::create(cache));
  KVSIM_ASSIGN_OR_RETURN(std::unique_ptr<KvStore> store,
                         make_kv_store(options.store, model.attention_shape(), c.n_layers,
                                       cache.num_blocks));
  LlamaSession session(model, options, std::move(manager), std::move(store));
  session.max_tokens_ = max_tokens;
  return session;
}

LlamaSession::LlamaSession(const LlamaModel& model, const SessionOptions& options,
                           KvCacheManager manager, std::unique_ptr<KvStore> store)
    : model_(&model), retention_(options.retention), manager_(std::move(manager)),
      store_(std::move(store)) {
  manager_.add_request(request_, 0, {});
}

void LlamaSession::reset() {
  manager_.free(request_);
  ++request_;
  manager_.add_request(request_, 0, {});
  store_->reset();
  num_tokens_ = 0;
  max_attended_ = 0;
  held_.clear();
  held_scores_.clear();
}

std::span<const uint32_t> LlamaSession::allocate(uint32_t num_new_tokens) {
  KVSIM_CHECK(num_tokens_ + num_new_tokens <= max_tokens_, "session: sequence is full");
  const auto allocation = manager_.allocate_slots(request_, num_new_tokens);
  // The pool holds a whole context for the one sequence, and there are no forks.
  KVSIM_CHECK(allocation.has_value() && !allocation->copy.has_value(),
              "session: the block pool is sized for one full sequence");
  return manager_.block_table(request_);
}

void LlamaSession::append(std::span<const int> tokens, RowMatrix* logits) {
  logits->resize(static_cast<Eigen::Index>(tokens.size()), model_->config().vocab_size);
  if (tokens.size() > 1 && !evicts() && store_->supports_prefill()) {
    prefill(tokens, logits);
    return;
  }
  RowMatrix row;
  for (size_t i = 0; i < tokens.size(); ++i) {
    decode_step(tokens[i], &row);
    logits->row(static_cast<Eigen::Index>(i)) = row.row(0);
  }
}

void LlamaSession::prefill(std::span<const int> tokens, RowMatrix* logits) {
  const uint32_t first = num_tokens_;
  const std::span<const uint32_t> table = allocate(static_cast<uint32_t>(tokens.size()));
  model_->embed(tokens, &x_);
  for (uint32_t layer = 0; layer < model_->config().n_layers; ++layer) {
    model_->attention_inputs(layer, x_, first, &q_, &k_, &v_);
    store_->write(layer, table, first, k_, v_);
    store_->prefill(layer, table, first, q_, &attention_);
    model_->finish_layer(layer, attention_, &x_);
  }
  num_tokens_ += static_cast<uint32_t>(tokens.size());
  store_->tokens_stored(table, num_tokens_);
  max_attended_ = num_tokens_;
  model_->logits(x_, logits);
}

// Adds the new position to those held and lets the policy evict.
void LlamaSession::select_positions() {
  held_.push_back(num_tokens_);
  held_scores_.push_back(0.0f);
  retention_->select(held_, retention_->uses_scores() ? std::span<const float>(held_scores_)
                                                      : std::span<const float>(),
                     &keep_);
  size_t out = 0;
  for (size_t i = 0, k = 0; i < held_.size() && k < keep_.size(); ++i) {
    if (held_[i] != keep_[k]) continue;  // evicted: never comes back
    held_[out] = held_[i];
    held_scores_[out] = held_scores_[i];
    ++out;
    ++k;
  }
  KVSIM_CHECK(out == keep_.size(), "retention: kept positions must be held positions");
  held_.resize(out);
  held_scores_.resize(out);
  positions_.assign(held_.begin(), held_.end());
}

// Releases every block of which no held position remains (scores: -inf for evicted
// positions, so the manager's select() over its block-granular view keeps what we keep).
void LlamaSession::release_dropped_blocks() {
  if (retention_->uses_scores()) {
    position_scores_.assign(num_tokens_, -std::numeric_limits<float>::infinity());
    for (size_t i = 0; i < held_.size(); ++i) position_scores_[held_[i]] = held_scores_[i];
    manager_.trim(request_, *retention_, position_scores_);
  } else {
    manager_.trim(request_, *retention_);
  }
  const std::span<const BlockId> table = manager_.block_table(request_);
  for (uint64_t position : held_) {
    KVSIM_CHECK(holds_block(table[position / manager_.block_size()]),
                "session: the cache manager dropped a block the policy keeps");
  }
}

void LlamaSession::decode_step(int token, RowMatrix* logits) {
  const uint32_t pos = num_tokens_;
  const std::span<const uint32_t> table = allocate(1);
  DecodeSequence seq;
  seq.block_table = table;
  seq.context_len = pos + 1;
  if (evicts()) {
    select_positions();
    seq.positions = positions_;
    if (retention_->uses_scores()) {
      step_sums_.assign(held_.size(), 0.0f);
      seq.attention_sums = step_sums_;
    }
  }
  const int tokens[1] = {token};
  model_->embed(tokens, &x_);
  attention_.resize(1, model_->attention_shape().q_width());
  for (uint32_t layer = 0; layer < model_->config().n_layers; ++layer) {
    model_->attention_inputs(layer, x_, pos, &q_, &k_, &v_);
    store_->write(layer, table, pos, k_, v_);
    store_->decode(layer, seq, {q_.data(), size_t(q_.size())},
                   {attention_.data(), size_t(attention_.size())});
    model_->finish_layer(layer, attention_, &x_);
  }
  num_tokens_ = pos + 1;
  max_attended_ = std::max(max_attended_, seq.num_attended());
  if (evicts()) {
    for (size_t i = 0; i < step_sums_.size() && retention_->uses_scores(); ++i) {
      held_scores_[i] += step_sums_[i];
    }
    release_dropped_blocks();
  }
  store_->tokens_stored(manager_.block_table(request_), num_tokens_);
  model_->logits(x_, logits);
}

}  // namespace kvsim::kernels
