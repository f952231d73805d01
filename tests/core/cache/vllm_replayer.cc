#include "tests/core/cache/vllm_replayer.h"

#include <algorithm>
#include <array>
#include <map>
#include <sstream>
#include <vector>

#include "core/cache/kv_cache_manager.h"
#include "core/cache/prefix_hash.h"

namespace kvsim::testing {
namespace {

using nlohmann::json;

std::string text(const std::vector<BlockId>& blocks) {
  std::ostringstream out;
  out << '[';
  for (size_t i = 0; i < blocks.size(); ++i) out << (i > 0 ? " " : "") << blocks[i];
  out << ']';
  return out.str();
}

// "" when kvsim's `got` is what vLLM recorded, else what differs.
std::string differ(const char* what, const std::vector<BlockId>& got, const json& expected) {
  const auto want = expected.get<std::vector<BlockId>>();
  if (got == want) return "";
  return std::string(what) + ": kvsim " + text(got) + ", vLLM " + text(want);
}

std::string differ(const char* what, uint64_t got, const json& expected) {
  const auto want = expected.get<uint64_t>();
  if (got == want) return "";
  return std::string(what) + ": kvsim " + std::to_string(got) + ", vLLM " + std::to_string(want);
}

std::string differ_flag(const char* what, bool got, const json& expected) {
  const bool want = expected.get<bool>();
  if (got == want) return "";
  return std::string(what) + ": kvsim " + (got ? "yes" : "no") + ", vLLM " + (want ? "yes" : "no");
}

uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// One stream's replay: vLLM's request state beside kvsim's manager.
class Replayer {
 public:
  Replayer(const json& config, bool event_log)
      : block_size_(config.at("block_size").get<uint32_t>()), event_log_(event_log) {
    KvCacheConfig kv;
    kv.num_blocks = config.at("num_blocks").get<uint32_t>();
    kv.block_size = block_size_;
    kv.eviction = EvictionKind::kLru;
    cache_.emplace(std::move(KvCacheManager::create(kv)).value());
    if (event_log_) cache_->set_event_log(&events_);
  }
  ~Replayer() {
    if (cache_) cache_->set_event_log(nullptr);
  }
  Replayer(const Replayer&) = delete;
  Replayer& operator=(const Replayer&) = delete;

  // The state before step 0.
  std::string check_initial(const json& initial) const {
    std::string d = differ("free queue", free_queue(), initial.at("free"));
    return d.empty() ? differ("free blocks", cache_->num_free_blocks(), initial.at("nfree")) : d;
  }

  // Runs one step and compares its results, then the state after it.
  std::string run(const json& step) {
    events_.clear();
    evictions_before_ = cache_->pool().num_evictions();
    const std::string op = step.at("op").get<std::string>();
    std::string d;
    if (op == "admit") {
      d = admit(step);
    } else if (op == "step") {
      d = schedule_running(step);
    } else if (op == "preempt") {
      Request& r = request(step);
      cache_->preempt(r.id, r.tokens.size());
      r.computed = 0;
      ++r.preemptions;
    } else if (op == "finish") {
      cache_->free(request(step).id);
      requests_.erase(step.at("req").get<std::string>());
    } else if (op == "lookup") {
      d = lookup(step);
    } else if (op == "reset") {
      d = differ_flag("reset", cache_->reset_prefix_cache(), step.at("ok"));
    } else {
      d = "unknown op '" + op + "'";
    }
    cache_->check_invariants();
    return d.empty() ? check_state(step) : d;
  }

 private:
  struct Request {
    RequestId id = 0;
    std::vector<int32_t> tokens;  // prompt + appended tokens, pending ones included
    uint64_t computed = 0;        // vLLM's num_computed_tokens
    uint32_t preemptions = 0;
  };

  Request& request(const json& step) { return requests_.at(step.at("req").get<std::string>()); }

  std::vector<BlockHash> hashes(const std::vector<int32_t>& tokens) const {
    std::vector<BlockHash> out;
    hash_token_blocks(tokens, block_size_, &out);
    return out;
  }

  std::vector<BlockId> free_queue() const {
    std::vector<BlockId> out;
    cache_->pool().eviction_order(&out);
    return out;
  }

  std::vector<BlockId> table(RequestId id) const {
    const std::span<const BlockId> blocks = cache_->block_table(id);
    return {blocks.begin(), blocks.end()};
  }

  // vLLM's PrefixCacheStats.record at every get_computed_blocks: requests, queries (tokens)
  // and hits (tokens), into the preempted_* entries for a request preempted before.
  void count_lookup(uint32_t preemptions, uint64_t num_tokens, uint64_t hit_tokens) {
    const size_t base = preemptions > 0 ? 3 : 0;
    stats_[base] += 1;
    stats_[base + 1] += num_tokens;
    stats_[base + 2] += hit_tokens;
  }

  // The hit of a request holding nothing, compared with the step's `hit` and `hit_tokens`.
  std::string prefix_hit(const Request& r, const json& step, PrefixHit* hit) {
    cache_->get_computed_blocks(r.id, hit);
    count_lookup(r.preemptions, r.tokens.size(), hit->num_tokens);
    const std::string d = differ("hit blocks", hit->blocks, step.at("hit"));
    return d.empty() ? differ("hit tokens", hit->num_tokens, step.at("hit_tokens")) : d;
  }

  // vLLM's full_sequence_must_fit: room for the whole sequence less the hit, before the
  // (possibly chunked) allocation; hit blocks that are free count as needed.
  bool full_sequence_fits(const Request& r, const PrefixHit& hit) const {
    const uint64_t blocks = ceil_div(r.tokens.size(), block_size_);
    const uint64_t needed =
        (blocks > hit.num_blocks() ? blocks - hit.num_blocks() : 0) + hit.num_free_blocks;
    return needed <= cache_->num_free_blocks();
  }

  std::string admit(const json& step) {
    const std::string name = step.at("req").get<std::string>();
    if (step.contains("tokens")) {
      Request& r = requests_[name];
      r.id = next_id_++;
      r.tokens = step.at("tokens").get<std::vector<int32_t>>();
      cache_->add_request(r.id, r.tokens.size(), hashes(r.tokens));
    }
    Request& r = requests_.at(name);
    std::string d = differ("tokens of the request", r.tokens.size(), step.at("n"));
    PrefixHit hit;
    if (d.empty()) d = prefix_hit(r, step, &hit);
    if (!d.empty()) return d;
    uint64_t num_new = r.tokens.size() - hit.num_tokens;
    if (step.contains("budget")) num_new = std::min(num_new, step.at("budget").get<uint64_t>());
    const bool fits = !step.at("full_fit").get<bool>() || full_sequence_fits(r, hit);
    const bool ok = fits && cache_->allocate_slots(r.id, num_new, hit).has_value();
    d = differ_flag("admitted", ok, step.at("ok"));
    if (!d.empty() || !ok) return d;
    r.computed = hit.num_tokens + num_new;
    const std::vector<BlockId> blocks = table(r.id);
    d = differ("new blocks", {blocks.begin() + hit.num_blocks(), blocks.end()}, step.at("new"));
    return d.empty() ? differ("computed tokens", r.computed, step.at("computed")) : d;
  }

  // A running request: appended tokens (their full blocks' hashes), then slots for the
  // tokens not yet computed (a decode token, or a prefill chunk).
  std::string schedule_running(const json& step) {
    Request& r = request(step);
    const size_t old_full = r.tokens.size() / block_size_;
    for (const json& token : step.at("append")) r.tokens.push_back(token.get<int32_t>());
    const std::vector<BlockHash> all = hashes(r.tokens);
    if (all.size() > old_full) {
      cache_->append_block_hashes(r.id, std::span(all).subspan(old_full));
    }
    std::string d = differ("slots held", cache_->num_tokens(r.id), json(r.computed));
    if (!d.empty()) return d;
    uint64_t num_new = r.tokens.size() - r.computed;
    if (step.contains("budget")) num_new = std::min(num_new, step.at("budget").get<uint64_t>());
    const size_t held = cache_->block_table(r.id).size();
    const uint64_t lookahead = step.value("lookahead", uint64_t{0});
    const bool ok = cache_->allocate_slots(r.id, num_new, PrefixHit{}, lookahead).has_value();
    d = differ_flag("allocated", ok, step.at("ok"));
    if (!d.empty() || !ok) return d;
    r.computed += num_new;
    const std::vector<BlockId> blocks = table(r.id);
    d = differ("new blocks", {blocks.begin() + held, blocks.end()}, step.at("new"));
    return d.empty() ? differ("computed tokens", r.computed, step.at("computed")) : d;
  }

  std::string lookup(const json& step) {
    Request probe;
    probe.id = next_id_++;
    probe.tokens = step.at("tokens").get<std::vector<int32_t>>();
    cache_->add_request(probe.id, probe.tokens.size(), hashes(probe.tokens));
    PrefixHit hit;
    const std::string d = prefix_hit(probe, step, &hit);
    cache_->free(probe.id);
    return d;
  }

  std::vector<BlockId> logged(CacheEventKind kind) const {
    std::vector<BlockId> out;
    for (const CacheEvent& event : events_) {
      if (event.kind == kind) out.push_back(event.block);
    }
    return out;
  }

  std::string check_events(const json& step) const {
    const uint64_t evictions = cache_->pool().num_evictions() - evictions_before_;
    std::string d = differ("evictions", evictions, json(step.at("evicted").size()));
    if (!d.empty() || !event_log_) return d;
    d = differ("evicted blocks", logged(CacheEventKind::kEvict), step.at("evicted"));
    std::vector<BlockId> cached = logged(CacheEventKind::kCache);
    std::sort(cached.begin(), cached.end());
    return d.empty() ? differ("newly cached blocks", cached, step.at("cached")) : d;
  }

  std::string check_state(const json& step) const {
    std::string d = check_events(step);
    if (!d.empty()) return d;
    const json& tables = step.at("tables");
    size_t holding = 0;
    for (const auto& [name, r] : requests_) {
      const std::vector<BlockId> blocks = table(r.id);
      if (blocks.empty()) continue;
      ++holding;
      if (!tables.contains(name)) return "request " + name + " holds " + text(blocks) + " in kvsim";
      d = differ(("block table of " + name).c_str(), blocks, tables.at(name));
      if (!d.empty()) return d;
    }
    d = differ("requests holding blocks", holding, json(tables.size()));
    if (d.empty()) d = differ("free queue", free_queue(), step.at("free"));
    if (d.empty()) d = differ("free blocks", cache_->num_free_blocks(), step.at("nfree"));
    if (!d.empty()) return d;
    const auto want = step.at("stats").get<std::array<uint64_t, 6>>();
    if (stats_ == want) return "";
    std::ostringstream out;
    out << "prefix stats (requests queries hits, preempted: the same):";
    for (uint64_t v : stats_) out << ' ' << v;
    out << " in kvsim, vLLM";
    for (uint64_t v : want) out << ' ' << v;
    return out.str();
  }

  uint32_t block_size_;
  bool event_log_;
  std::optional<KvCacheManager> cache_;
  std::vector<CacheEvent> events_;
  std::map<std::string, Request> requests_;  // live requests by vLLM's id (ordered: stable)
  std::array<uint64_t, 6> stats_{};
  RequestId next_id_ = 1;
  uint64_t evictions_before_ = 0;
};

}  // namespace

std::optional<std::string> unreplayable_reason(const json& stream) {
  const json& config = stream.at("config");
  if (config.at("null_block") != 0 || config.at("kv_cache_groups") != 1 ||
      config.at("enable_caching") != true || config.at("spec") != "FullAttentionSpec") {
    return "a configuration other than one full-attention group with prefix caching";
  }
  return std::nullopt;
}

ReplayResult replay_vllm_stream(const json& stream, bool event_log) {
  ReplayResult result;
  Replayer replayer(stream.at("config"), event_log);
  result.mismatch = replayer.check_initial(stream.at("initial"));
  if (!result.mismatch.empty()) {
    result.mismatch = "initial state: " + result.mismatch;
    return result;
  }
  for (const json& step : stream.at("steps")) {
    const std::string d = replayer.run(step);
    if (!d.empty()) {
      result.mismatch = "step " + std::to_string(step.at("i").get<int>()) + " (" +
                        step.at("op").get<std::string>() + "): " + d;
      return result;
    }
    ++result.num_steps;
  }
  return result;
}

}  // namespace kvsim::testing
