#include "kernels/llama_session.h"

#include <fmt/format.h>

#include <limits>
#include <numeric>

#include "core/base/checked_math.h"

namespace kvsim::kernels {

StatusOr<LlamaSession> LlamaSession::create(const LlamaModel& model,
                                            const SessionOptions& options) {
  const LlamaConfig& c = model.config();
  const uint32_t max_tokens = options.max_tokens == 0 ? c.seq_len : options.max_tokens;
  if (max_tokens > c.seq_len) {
    return Status::invalid_argument(
        fmt::format("context of {} tokens exceeds the model's seq_len {}", max_tokens, c.seq_len));
  }
  if (options.max_sequences == 0 || options.max_sequences > 4096) {
    return Status::invalid_argument("a session runs 1..4096 sequences");
  }
  const bool evicts =
      options.retention != nullptr && options.retention->budget_tokens().has_value();
  if (evicts && options.store.quant != KvQuant::kNone) {
    return Status::invalid_argument("quantized KV caches run with full retention");
  }
  const uint32_t block_size = options.store.block_size;
  if (block_size == 0) return Status::invalid_argument("KV block size must be > 0");
  KvCacheConfig cache;
  // Every sequence at full length, plus block 0: the pool's null block, never lent out.
  cache.num_blocks = ceil_div(max_tokens, block_size) * options.max_sequences + 1;
  cache.block_size = block_size;
  cache.eviction = EvictionKind::kNone;  // no prefix reuse between the sequences of a session
  cache.expected_requests = options.max_sequences;
  KVSIM_ASSIGN_OR_RETURN(KvCacheManager manager, KvCacheManager::create(cache));
  KVSIM_ASSIGN_OR_RETURN(std::unique_ptr<KvStore> store,
                         make_kv_store(options.store, model.attention_shape(), c.n_layers,
                                       cache.num_blocks, options.max_sequences));
  LlamaSession session(model, options, std::move(manager), std::move(store));
  session.max_tokens_ = max_tokens;
  return session;
}

LlamaSession::LlamaSession(const LlamaModel& model, const SessionOptions& options,
                           KvCacheManager manager, std::unique_ptr<KvStore> store)
    : model_(&model),
      retention_(options.retention),
      manager_(std::move(manager)),
      store_(std::move(store)),
      seqs_(options.max_sequences) {
  for (Sequence& seq : seqs_) {
    seq.request = next_request_++;
    manager_.add_request(seq.request, 0, {});
  }
}

void LlamaSession::reset() {
  for (Sequence& seq : seqs_) {
    manager_.free(seq.request);
    seq = Sequence{};
    seq.request = next_request_++;
    manager_.add_request(seq.request, 0, {});
  }
  store_->reset();
}

void LlamaSession::allocate(Sequence* seq, uint32_t num_new_tokens) {
  KVSIM_CHECK(seq->num_tokens + num_new_tokens <= max_tokens_, "session: sequence is full");
  const auto allocation = manager_.allocate_slots(seq->request, num_new_tokens);
  // The pool holds a whole context for every sequence, and there are no forks.
  KVSIM_CHECK(allocation.has_value() && !allocation->copy.has_value(),
              "session: the block pool is sized for full sequences");
}

void LlamaSession::append(std::span<const int> tokens, RowMatrix* logits) {
  logits->resize(static_cast<Eigen::Index>(tokens.size()), model_->config().vocab_size);
  if (tokens.size() > 1 && !evicts() && store_->supports_prefill()) {
    prefill(tokens, logits);
    return;
  }
  RowMatrix row;
  for (size_t i = 0; i < tokens.size(); ++i) {
    decode_step(tokens.subspan(i, 1), &row);
    logits->row(static_cast<Eigen::Index>(i)) = row.row(0);
  }
}

void LlamaSession::prefill(std::span<const int> tokens, RowMatrix* logits) {
  Sequence& seq = seqs_[0];
  const uint32_t first = seq.num_tokens;
  const uint32_t n = static_cast<uint32_t>(tokens.size());
  allocate(&seq, n);
  const std::span<const uint32_t> table = manager_.block_table(seq.request);
  step_positions_.resize(n);
  std::iota(step_positions_.begin(), step_positions_.end(), first);
  const KvWrite write{table, first, n};
  model_->embed(tokens, &x_);
  for (uint32_t layer = 0; layer < model_->config().n_layers; ++layer) {
    model_->attention_inputs(layer, x_, step_positions_, &q_, &k_, &v_);
    store_->write(layer, {&write, 1}, k_, v_);
    store_->prefill(layer, table, first, q_, &attention_);
    model_->finish_layer(layer, attention_, &x_);
  }
  seq.num_tokens += n;
  seq.max_attended = seq.num_tokens;
  store_->tokens_stored(0, table, seq.num_tokens);
  model_->logits(x_, logits);
}

// Adds the new position to those the sequence holds and lets the policy evict.
void LlamaSession::select_positions(Sequence* seq) {
  seq->held.push_back(seq->num_tokens);
  seq->held_scores.push_back(0.0f);
  retention_->select(seq->held,
                     retention_->uses_scores() ? std::span<const float>(seq->held_scores)
                                               : std::span<const float>(),
                     &keep_);
  size_t out = 0;
  for (size_t i = 0, k = 0; i < seq->held.size() && k < keep_.size(); ++i) {
    if (seq->held[i] != keep_[k]) continue;  // evicted: never comes back
    seq->held[out] = seq->held[i];
    seq->held_scores[out] = seq->held_scores[i];
    ++out;
    ++k;
  }
  KVSIM_CHECK(out == keep_.size(), "retention: kept positions must be held positions");
  seq->held.resize(out);
  seq->held_scores.resize(out);
  seq->positions.assign(seq->held.begin(), seq->held.end());
  seq->step_sums.assign(retention_->uses_scores() ? out : 0, 0.0f);
}

// Releases every block of which no held position remains (scores: -inf for evicted
// positions, so the manager's select() over its block-granular view keeps what we keep).
void LlamaSession::release_dropped_blocks(Sequence* seq) {
  if (retention_->uses_scores()) {
    position_scores_.assign(seq->num_tokens, -std::numeric_limits<float>::infinity());
    for (size_t i = 0; i < seq->held.size(); ++i)
      position_scores_[seq->held[i]] = seq->held_scores[i];
    manager_.trim(seq->request, *retention_, position_scores_);
  } else {
    manager_.trim(seq->request, *retention_);
  }
  const std::span<const BlockId> table = manager_.block_table(seq->request);
  for (uint64_t position : seq->held) {
    KVSIM_CHECK(holds_block(table[position / manager_.block_size()]),
                "session: the cache manager dropped a block the policy keeps");
  }
}

void LlamaSession::finish_step(Sequence* seq, uint32_t slot, uint32_t attended) {
  seq->num_tokens += 1;
  seq->max_attended = std::max(seq->max_attended, attended);
  if (evicts()) {
    for (size_t i = 0; i < seq->step_sums.size(); ++i) seq->held_scores[i] += seq->step_sums[i];
    release_dropped_blocks(seq);
  }
  store_->tokens_stored(slot, manager_.block_table(seq->request), seq->num_tokens);
}

void LlamaSession::decode_step(std::span<const int> tokens, RowMatrix* logits) {
  const uint32_t batch = static_cast<uint32_t>(tokens.size());
  KVSIM_CHECK(batch >= 1 && batch <= seqs_.size(), "decode_step: 1..max_sequences tokens");
  for (uint32_t b = 0; b < batch; ++b) allocate(&seqs_[b], 1);
  step_positions_.resize(batch);
  step_seqs_.resize(batch);
  step_writes_.resize(batch);
  for (uint32_t b = 0; b < batch; ++b) {  // block tables only once every allocation is done
    Sequence& seq = seqs_[b];
    const uint32_t pos = seq.num_tokens;
    const std::span<const uint32_t> table = manager_.block_table(seq.request);
    step_positions_[b] = pos;
    step_writes_[b] = {table, pos, 1};
    step_seqs_[b] = DecodeSequence{table, pos + 1, {}, {}};
    if (evicts()) {
      select_positions(&seq);
      step_seqs_[b].positions = seq.positions;
      step_seqs_[b].attention_sums = seq.step_sums;
    }
  }
  model_->embed(tokens, &x_);
  attention_.resize(batch, model_->attention_shape().q_width());
  for (uint32_t layer = 0; layer < model_->config().n_layers; ++layer) {
    model_->attention_inputs(layer, x_, step_positions_, &q_, &k_, &v_);
    store_->write(layer, step_writes_, k_, v_);
    store_->decode(layer, step_seqs_, {q_.data(), size_t(q_.size())},
                   {attention_.data(), size_t(attention_.size())});
    model_->finish_layer(layer, attention_, &x_);
  }
  for (uint32_t b = 0; b < batch; ++b) finish_step(&seqs_[b], b, step_seqs_[b].num_attended());
  model_->logits(x_, logits);
}

}  // namespace kvsim::kernels
