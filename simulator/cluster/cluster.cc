#include "simulator/cluster/cluster.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "simulator/engine/request_hashes.h"

namespace kvsim::sim {
namespace {

double seconds_of(int64_t ns) { return static_cast<double>(ns) / 1e9; }

}  // namespace

// Counts what leaves the cluster (finished or dropped on any replica) and the prefix hits of
// finished requests by tier.
class Cluster::Tally final : public SimObserver {
 public:
  explicit Tally(Cluster* cluster) : cluster_(cluster) {}
  void on_request_finished(const RequestRecord& r) override {
    ClusterStats& s = cluster_->stats_;
    ++s.finished;
    --cluster_->in_system_;
    s.prompt_tokens += r.prompt_tokens;
    uint64_t lower = 0;
    for (int t = 0; t < kMaxLowerTiers; ++t) {
      s.lower_hit_tokens[t] += r.lower_hit_tokens[t];
      lower += r.lower_hit_tokens[t];
    }
    s.hbm_hit_tokens += r.cached_prompt_tokens - lower;
  }
  void on_request_dropped(const RequestRecord& r, DropReason /*reason*/) override {
    ++cluster_->stats_.dropped;
    --cluster_->in_system_;
    cluster_->forget_spec(r.id);
  }

 private:
  Cluster* cluster_;
};

// A disaggregated replica's side of the pair, as the engine sees it: on a prefill replica the
// hand-off after the first token, on a decode replica the connector that supplies a remote
// request's prompt KV (all of the prompt but the local prefix hit, sent by the prefill
// replica). Each asks the cluster for what only it can do (Action), after the engine's call.
class Cluster::Peer final : public KvConnector, public KvHandOff {
 public:
  Peer(Cluster* cluster, uint32_t replica) : cluster_(cluster), replica_(replica) {}

  void on_prefilled(uint32_t slot) override {
    cluster_->actions_.push_back({Action::kPrefilled, replica_, slot, 0});
  }
  KvMatch match(const SimRequest& request, std::span<const BlockHash> /*hashes*/,
                const PrefixHit& hit, uint32_t /*num_free_blocks*/) override {
    if (!request.remote_kv) return {};
    ExternalKv kv;
    kv.num_tokens = request.prompt_tokens - hit.num_tokens;
    return {false, kv};
  }
  void start(uint32_t slot, SimRequest& /*request*/, const ExternalKv& kv,
             KvTransfers& /*transfers*/) override {
    cluster_->actions_.push_back({Action::kReceiveReady, replica_, slot, kv.num_new_blocks});
  }
  void on_dropped(const SimRequest& request) override {
    if (!request.remote_kv) return;  // its sender still holds its KV: release it there
    cluster_->actions_.push_back(
        {Action::kRemoteDropped, *request.prefill_replica, request.peer_slot, 0});
  }

 private:
  Cluster* cluster_;
  uint32_t replica_;
};

Cluster::Cluster(const ClusterConfig& config, std::unique_ptr<RequestSource> source)
    : config_(config),
      feed_(std::move(source), kClusterTarget),
      tally_(std::make_unique<Tally>(this)) {}

Cluster::~Cluster() = default;

StatusOr<std::unique_ptr<Cluster>> Cluster::create(
    const ClusterConfig& config, std::vector<std::unique_ptr<CostModel>> cost_models,
    std::unique_ptr<RequestSource> source) {
  const size_t n = config.replicas.size();
  KVSIM_CHECK(n > 0 && cost_models.size() == n && source != nullptr,
              "a cluster needs replicas, one cost model each and a workload");
  auto cluster = std::unique_ptr<Cluster>(new Cluster(config, std::move(source)));
  Cluster& c = *cluster;
  c.router_ = make_router(config.router);
  c.decode_router_ = make_router(config.decode_router);
  std::vector<uint32_t> block_sizes;
  c.threads_ = threads_for(config, c.feed_.limits_in_flight());
  for (uint32_t r = 0; r < n; ++r) {
    EngineConfig engine = config.replicas[r].engine;
    engine.replica = r;
    const EngineRole role = engine.scheduler.role;
    if (role != EngineRole::kColocated && !(config.link.bytes_per_s > 0)) {
      return Status::invalid_argument("a disaggregated cluster needs a link with bandwidth > 0");
    }
    EventQueue* events = &c.events_;
    if (c.threads_ > 1) {
      c.local_.push_back(std::make_unique<ReplicaRun>());
      events = &c.local_.back()->queue;
    }
    KVSIM_ASSIGN_OR_RETURN(auto replica,
                           Engine::create_replica(engine, std::move(cost_models[r]), events));
    if (c.threads_ > 1) {  // its calls are recorded, and replayed to the tally and observers
      c.local_.back()->log = std::make_unique<ReplicaLog>(replica.get());
      c.local_.back()->engine = replica.get();
      replica->add_observer(c.local_.back()->log.get());
    } else {
      replica->add_observer(c.tally_.get());
    }
    if (c.feed_.limits_in_flight()) replica->add_observer(&c.feed_);
    if (role != EngineRole::kColocated) {
      c.peers_.push_back(std::make_unique<Peer>(&c, r));
      if (role == EngineRole::kPrefill) replica->set_hand_off(c.peers_.back().get());
      if (role == EngineRole::kDecode) replica->add_connector(c.peers_.back().get());
    }
    c.engines_.push_back(std::move(replica));
    (role == EngineRole::kDecode ? c.decode_pool_ : c.entry_pool_).push_back(r);
    if (std::find(block_sizes.begin(), block_sizes.end(), engine.cache.block_size) ==
        block_sizes.end()) {
      block_sizes.push_back(engine.cache.block_size);
    }
  }
  const size_t num_prefill = std::count_if(c.engines_.begin(), c.engines_.end(), [](auto& e) {
    return e->config().scheduler.role == EngineRole::kPrefill;
  });
  if (!c.decode_pool_.empty() && num_prefill != c.entry_pool_.size()) {
    return Status::invalid_argument(
        "a cluster is either colocated or disaggregated: give every replica a role");
  }
  if (c.entry_pool_.empty() || (num_prefill > 0 && c.decode_pool_.empty())) {
    return Status::invalid_argument("a disaggregated cluster needs prefill and decode replicas");
  }
  KVSIM_RETURN_IF_ERROR(c.build_tiers());
  c.hash_memo_.resize(block_sizes.size());
  c.dirty_.assign(n, 0);
  c.send_free_ns_.assign(n, 0);
  c.recv_free_ns_.assign(n, 0);
  c.stats_.links.assign(n * n, KvLinkStats{});
  return cluster;
}

// A shared tier holds blocks every replica can hit: they must have the same block geometry
// (same hashes for the same content); and its evictions have one place to go.
Status Cluster::check_tier_layout() const {
  const ReplicaConfig& first = config_.replicas.front();
  for (size_t t = 0; t < config_.tiers.size(); ++t) {
    const TierConfig& tier = config_.tiers[t];
    if (t > 0 && config_.tiers[t - 1].shared && !tier.shared) {
      return Status::invalid_argument(
          "tier '" + tier.name + "' is per replica below the shared tier '" +
          config_.tiers[t - 1].name + "': a shared tier's evictions need a shared tier below");
    }
    if (!tier.shared) continue;
    for (const ReplicaConfig& replica : config_.replicas) {
      if (replica.engine.cache.block_size != first.engine.cache.block_size ||
          replica.kv_bytes_per_block != first.kv_bytes_per_block) {
        return Status::invalid_argument(
            "shared tier '" + tier.name + "' needs replicas of one block geometry; " +
            replica.name + " has " + std::to_string(replica.engine.cache.block_size) +
            "-token blocks of " + std::to_string(replica.kv_bytes_per_block) + " bytes, " +
            first.name + " " + std::to_string(first.engine.cache.block_size) + " of " +
            std::to_string(first.kv_bytes_per_block));
      }
    }
  }
  return Status::ok();
}

// One TierPool per (tier, replica), or one per shared tier, of slots of one chunk each; each
// replica's stack top to bottom. on_evict: every pool's evictions go to the tier below and
// HBM's to the replica's ReplicaTiers; write_through: evictions are dropped.
Status Cluster::build_tiers() {
  const size_t n = engines_.size();
  const size_t k = config_.tiers.size();
  if (k == 0) {
    replica_tiers_.resize(n);
    return Status::ok();
  }
  if (k > kMaxLowerTiers) {
    return Status::invalid_argument("at most " + std::to_string(kMaxLowerTiers) +
                                    " tiers below HBM");
  }
  KVSIM_RETURN_IF_ERROR(check_tier_layout());
  std::vector<uint32_t> chunks(n);
  for (uint32_t r = 0; r < n; ++r) {
    const ReplicaConfig& replica = config_.replicas[r];
    KVSIM_ASSIGN_OR_RETURN(
        chunks[r],
        blocks_per_chunk(config_.tier_chunk_tokens, replica.engine.cache.block_size, replica.name));
  }
  std::vector<std::vector<TierPool*>> stacks(n, std::vector<TierPool*>(k, nullptr));
  for (size_t t = 0; t < k; ++t) {
    const TierConfig& tier = config_.tiers[t];
    for (uint32_t r = 0; r < n; ++r) {
      if (tier.shared && r > 0) {
        stacks[r][t] = stacks[0][t];
        continue;
      }
      const double chunk_bytes =
          static_cast<double>(config_.replicas[r].kv_bytes_per_block) * chunks[r];
      const double slots = std::floor(tier.capacity_bytes / chunk_bytes);
      if (!(slots >= 1) || slots > kMaxNumBlocks) {
        return Status::invalid_argument(
            "tier '" + tier.name + "' holds " + std::to_string(static_cast<uint64_t>(slots)) +
            (chunks[r] > 1 ? " chunks" : " blocks") + "; it must hold between 1 and " +
            std::to_string(kMaxNumBlocks));
      }
      KVSIM_ASSIGN_OR_RETURN(
          auto pool, TierPool::create(tier.name, static_cast<uint32_t>(slots), tier.eviction));
      stacks[r][t] = pool.get();
      tiers_.push_back(TierInstance{t, tier.shared ? std::nullopt : std::optional<uint32_t>(r),
                                    std::move(pool)});
    }
  }
  const bool on_evict = config_.tier_write_policy == TierWritePolicy::kOnEvict;
  for (uint32_t r = 0; r < n; ++r) {
    std::vector<TierPath> paths;
    for (size_t t = 0; t < k; ++t) {
      const TierConfig& tier = config_.tiers[t];
      paths.push_back({tier.bandwidth_bytes_per_s, std::llround(tier.latency_s * 1e9)});
      if (on_evict && t + 1 < k) stacks[r][t]->set_next(stacks[r][t + 1]);
    }
    const TierChunking chunking{chunks[r], config_.tier_write_policy};
    replica_tiers_.push_back(std::make_unique<ReplicaTiers>(
        stacks[r], std::move(paths), config_.replicas[r].kv_bytes_per_block,
        engines_[r]->config().cache.block_size, r, chunking, &engines_[r]->cache().pool(),
        &stats_.tier_load_wait_s));
    engines_[r]->add_connector(replica_tiers_[r].get());
    if (on_evict) engines_[r]->set_eviction_sink(replica_tiers_[r].get());
  }
  return Status::ok();
}

void Cluster::add_observer(SimObserver* observer) {
  observers_.push_back(observer);
  if (!local_.empty()) return;  // a parallel run replays its replicas' calls to it
  for (auto& engine : engines_) engine->add_observer(observer);
}

std::vector<SimObserver*> Cluster::replica_observers() const {
  std::vector<SimObserver*> observers{tally_.get()};
  observers.insert(observers.end(), observers_.begin(), observers_.end());
  return observers;
}

void Cluster::add_instant_callback(std::function<void(int64_t)> callback) {
  instant_callbacks_.push_back(std::move(callback));
}

Status Cluster::run() {
  if (!local_.empty()) {
    KVSIM_RETURN_IF_ERROR(run_parallel());
  } else {
    KVSIM_RETURN_IF_ERROR(feed_.start(&events_));
    KVSIM_RETURN_IF_ERROR(run_event_loop(events_, *this, config_.progress_every_events, stop_));
  }
  const int64_t end = events_.now_ns();
  advance_clock(end);
  for (auto& engine : engines_) engine->mark_end(end);
  KVSIM_CHECK(in_system_ == 0 && free_transfers_.size() == transfers_.size(),
              "the cluster's event queue ran dry with requests or transfers left");
  stats_.last_event_ns = end;
  const Status status = finish_observers(observers_, snapshot());
  report_progress();
  return status;
}

void Cluster::begin_instant(int64_t now_ns) {
  for (const auto& callback : instant_callbacks_) callback(now_ns);
  advance_clock(now_ns);
}

void Cluster::advance_clock(int64_t now_ns) {
  const auto dt = static_cast<long double>(now_ns - clock_ns_);
  stats_.in_system_ns += static_cast<ExactSum>(now_ns - clock_ns_) * in_system_;
  for (TierInstance& tier : tiers_) {
    const uint32_t resident = tier.pool->num_resident();
    tier.resident_block_ns += dt * resident;
    tier.peak_resident = std::max(tier.peak_resident, resident);
  }
  clock_ns_ = now_ns;
  if (!local_.empty()) return;  // a parallel run's replicas keep their own clocks
  for (auto& engine : engines_) engine->begin_instant(now_ns);
}

ReplicaState Cluster::replica_state(size_t r, int64_t row_ns) const {
  if (local_.empty()) return replica_state_of(*engines_[r]);
  KVSIM_CHECK(row_interval_ns_ > 0 && (row_ns % row_interval_ns_ == 0 || row_ns == kRunEnd),
              "a parallel run keeps replica states only at the rows of its time series");
  return replays_[r]->state_at(row_ns);
}

void Cluster::handle(const Event& event) {
  ++stats_.events;
  if (event.target != kClusterTarget) {
    engines_[event.target]->handle(event);
    mark_dirty(event.target);
  } else if (event.kind == EventKind::kArrival) {
    handle_arrival();
  } else {
    KVSIM_CHECK(event.kind == EventKind::kKvTransferEnd, "unexpected cluster event");
    end_kv_transfer(event.payload);
  }
  drain_actions();
}

void Cluster::mark_dirty(uint32_t replica) {
  if (dirty_[replica]) return;
  dirty_[replica] = 1;
  dirty_list_.push_back(replica);
}

// Every touched replica decides its next step; one that a decision touches again (a
// released prefill copy frees blocks) is visited again.
void Cluster::run_dirty_replicas() {
  for (size_t i = 0; i < dirty_list_.size(); ++i) {
    const uint32_t replica = dirty_list_[i];
    dirty_[replica] = 0;
    engines_[replica]->end_instant();
    drain_actions();
  }
  dirty_list_.clear();
}

void Cluster::handle_arrival() {
  ++stats_.arrivals;
  ++in_system_;
  const RequestSpec& next = feed_.current();
  const uint32_t r = router_->route(next, entry_pool_, *this);
  const std::vector<BlockHash>* hashes = nullptr;
  if (hash_memo_id_ == next.id) {
    const uint32_t block = engines_[r]->config().cache.block_size;
    for (const HashMemo& memo : hash_memo_) {
      if (memo.block_size == block) hashes = &memo.hashes;
    }
  }
  const bool admitted = engines_[r]->admit(next, hashes);
  if (admitted && !decode_pool_.empty() && next.output_tokens > 1) keep_spec(next);
  mark_dirty(r);
  feed_.advance(&events_);
}

void Cluster::drain_actions() {
  for (size_t i = 0; i < actions_.size(); ++i) {
    const Action action = actions_[i];
    switch (action.kind) {
      case Action::kPrefilled:
        hand_off(action.replica, action.slot);
        break;
      case Action::kReceiveReady:
        start_kv_transfer(action.replica, action.slot, action.value);
        break;
      case Action::kRemoteDropped:
        engines_[action.replica]->release_sent(action.slot);
        mark_dirty(action.replica);
        break;
    }
  }
  actions_.clear();
}

// A prefilled request goes to a decode replica with its block hashes at that replica's
// block size (the prefill's own when the sizes agree: no rehashing).
void Cluster::hand_off(uint32_t prefill, uint32_t slot) {
  const Engine& sender = *engines_[prefill];
  const SimRequest& sent = sender.request(slot);
  const uint32_t index = spec_index_.find(sent.id);
  KVSIM_CHECK(index != FlatIdMap::kEmpty, "a prefilled request without its workload entry");
  const RequestSpec& spec = specs_[index];
  const uint32_t decode = decode_router_->route(spec, decode_pool_, *this);
  const uint32_t block = engines_[decode]->config().cache.block_size;
  std::span<const BlockHash> hashes;
  if (block == sender.config().cache.block_size) {
    hashes = sender.cache().block_hashes(sent.id);
  } else {
    hashes = hashes_at(spec, block);
  }
  const bool admitted = engines_[decode]->admit_remote(sent, prefill, slot, hashes);
  forget_spec(sent.id);
  mark_dirty(decode);
  if (!admitted) {
    engines_[prefill]->release_sent(slot);
    mark_dirty(prefill);
  }
}

void Cluster::start_kv_transfer(uint32_t decode, uint32_t slot, uint32_t num_blocks) {
  const SimRequest& request = engines_[decode]->request(slot);
  const uint32_t prefill = *request.prefill_replica;
  const int64_t now = events_.now_ns();
  const uint64_t bytes = uint64_t{num_blocks} * config_.replicas[decode].kv_bytes_per_block;
  const int64_t start = std::max({now, send_free_ns_[prefill], recv_free_ns_[decode]});
  const int64_t end = start + transfer_ns(bytes, config_.link.bytes_per_s, config_.link.latency_ns);
  send_free_ns_[prefill] = recv_free_ns_[decode] = end;
  uint32_t index = static_cast<uint32_t>(transfers_.size());
  if (free_transfers_.empty()) {
    transfers_.emplace_back();
  } else {
    index = free_transfers_.back();
    free_transfers_.pop_back();
  }
  transfers_[index] = Transfer{prefill, request.peer_slot, decode, slot};
  events_.push(end, EventKind::kKvTransferEnd, index, kClusterTarget);
  ++stats_.kv_transfers;
  stats_.kv_transfer_bytes += bytes;
  stats_.kv_transfer_s.add(seconds_of(end - start));
  stats_.kv_queue_s.add(seconds_of(start - now));
  stats_.kv_block_wait_s.add(seconds_of(now - *request.prefilled_ns));
  KvLinkStats& link = stats_.links[prefill * engines_.size() + decode];
  ++link.transfers;
  link.bytes += bytes;
  link.busy_ns += end - start;
  const TransferRecord record =
      TransferRecord::of(TransferKind::kKv, request.id, now, start, end, bytes, prefill, decode);
  for (SimObserver* observer : observers_) observer->on_transfer(record);
}

void Cluster::end_kv_transfer(uint64_t index) {
  const Transfer t = transfers_[index];
  free_transfers_.push_back(static_cast<uint32_t>(index));
  engines_[t.from]->release_sent(t.from_slot);
  engines_[t.to]->receive_done(t.to_slot);
  mark_dirty(t.from);
  mark_dirty(t.to);
}

uint64_t Cluster::outstanding_tokens(uint32_t replica) const {
  return engines_[replica]->outstanding_tokens();
}

uint32_t Cluster::cached_prefix_blocks(uint32_t replica, const RequestSpec& request) const {
  const Engine& engine = *engines_[replica];
  if (!engine.config().scheduler.prefix_caching) return 0;
  const std::vector<BlockHash>& hashes = hashes_at(request, engine.config().cache.block_size);
  const BlockPool& pool = engine.cache().pool();
  const ReplicaTiers* tiers = replica_tiers_[replica].get();
  uint32_t cached = 0;  // blocks in HBM, or whole chunks in some lower tier
  while (cached < hashes.size()) {
    if (pool.find(hashes[cached]).has_value()) {
      ++cached;
      continue;
    }
    const uint32_t end = tiers == nullptr ? 0 : tiers->held_chunk_end(hashes, cached);
    if (end == 0) break;
    cached = end;
  }
  return cached;
}

const std::vector<BlockHash>& Cluster::hashes_at(const RequestSpec& request,
                                                 uint32_t block_size) const {
  if (hash_memo_id_ != request.id) {
    for (HashMemo& memo : hash_memo_) memo.block_size = 0;
    hash_memo_id_ = request.id;
  }
  for (const HashMemo& memo : hash_memo_) {
    if (memo.block_size == block_size) return memo.hashes;
  }
  for (HashMemo& memo : hash_memo_) {
    if (memo.block_size != 0) continue;
    memo.block_size = block_size;
    prompt_block_hashes(request, block_size, &memo.hashes);
    return memo.hashes;
  }
  KVSIM_CHECK(false, "more block sizes than the cluster's replicas have");
  return hash_memo_.front().hashes;
}

void Cluster::keep_spec(const RequestSpec& spec) {
  uint32_t index = static_cast<uint32_t>(specs_.size());
  if (free_specs_.empty()) {
    specs_.push_back(spec);
  } else {
    index = free_specs_.back();
    free_specs_.pop_back();
    specs_[index] = spec;
  }
  spec_index_.insert(spec.id, index);
}

void Cluster::forget_spec(uint64_t id) {
  const uint32_t index = spec_index_.find(id);
  if (index == FlatIdMap::kEmpty) return;
  spec_index_.erase(id);
  free_specs_.push_back(index);
}

EngineSnapshot Cluster::snapshot() const {
  EngineSnapshot sum;
  sum.time_ns = events_.now_ns();
  for (const auto& engine : engines_) {
    const EngineSnapshot s = engine->snapshot();
    sum.kv_blocks_used += s.kv_blocks_used;
    sum.kv_blocks_cached_free += s.kv_blocks_cached_free;
    sum.kv_blocks_free += s.kv_blocks_free;
    sum.running += s.running;
    sum.waiting += s.waiting;
    sum.swapped += s.swapped;
  }
  sum.in_system = in_system_;
  return sum;
}

void Cluster::report_progress() {
  if (!progress_) return;
  Progress p;
  p.sim_time_ns = events_.now_ns();
  p.arrivals = stats_.arrivals;
  p.completed = stats_.finished;
  p.dropped = stats_.dropped;
  p.events = stats_.events;
  p.fraction = workload_fraction(feed_.source(), p.completed + p.dropped, p.arrivals);
  progress_(p);
}

// What was put into a tier instance: by the replicas it serves (demoted from HBM into tier 0,
// or written through into any tier), or evicted into it by the tier above (on_evict).
uint64_t Cluster::tier_inflow(const TierInstance& tier) const {
  uint64_t inflow = 0;
  for (uint32_t r = 0; r < engines_.size(); ++r) {
    if (tier.owner && *tier.owner != r) continue;
    inflow += replica_tiers_[r]->offered(tier.tier);
  }
  if (config_.tier_write_policy == TierWritePolicy::kWriteThrough) return inflow;
  for (const TierInstance& above : tiers_) {
    if (above.tier + 1 != tier.tier) continue;
    if (tier.owner && above.owner != tier.owner) continue;
    inflow += above.pool->stats().evicted;
  }
  return inflow;
}

void Cluster::check_invariants() const {
  for (const auto& engine : engines_) engine->cache().check_invariants();
  for (uint32_t r = 0; r < engines_.size(); ++r) {
    const ReplicaTiers* tiers = replica_tiers_[r].get();
    if (tiers == nullptr || tiers->write_policy() != TierWritePolicy::kOnEvict) continue;
    // A device pool's evicted copy whose twin is still cached sends nothing down.
    const uint64_t evicted = engines_[r]->cache().pool().num_evicted_contents();
    if (tiers->blocks_per_chunk() == 1) {
      KVSIM_CHECK(tiers->offered(0) == evicted, "a replica demoted other than what HBM evicted");
    } else {
      KVSIM_CHECK(tiers->offered(0) <= evicted &&
                      tiers->num_chunks_in_hbm() <= engines_[r]->cache().pool().num_cached_blocks(),
                  "a replica demoted chunks HBM did not evict, or notes more than HBM holds");
    }
  }
  for (const TierInstance& tier : tiers_) {
    tier.pool->check_invariants();
    const TierStats s = tier.pool->stats();
    const uint64_t inflow = tier_inflow(tier);
    KVSIM_CHECK(s.stored + s.refreshed == inflow, "tier '" + tier.pool->name() + "' took in " +
                                                      std::to_string(s.stored + s.refreshed) +
                                                      " entries, " + std::to_string(inflow) +
                                                      " were put into it");
  }
}

}  // namespace kvsim::sim
