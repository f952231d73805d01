// The KvConnector seam (simulator/engine/kv_connector.h) on a lone engine with a hand-written
// connector: KV it supplies is not computed, the request waits for the connector's transfer
// and rejoins the batch when it ends, a blocked answer stops admission for the step, and no
// answer leaves the request to be computed as without a connector.
#include "simulator/engine/kv_connector.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "simulator/engine/engine.h"
#include "tests/simulator/sim_test_util.h"

namespace kvsim::sim {
namespace {

using testing::FixedCostModel;
using testing::VectorSource;

constexpr int64_t kMs = 1'000'000;

// Supplies the first `blocks` blocks of every request (from "tier 0"), moved in `transfer_ns`;
// answers blocked for the first `blocked_calls` calls.
class FakeStore final : public KvConnector {
 public:
  FakeStore(uint32_t blocks, uint32_t block_size, int64_t transfer_ns, int blocked_calls = 0)
      : blocks_(blocks),
        block_size_(block_size),
        transfer_ns_(transfer_ns),
        blocked_calls_(blocked_calls) {}

  KvMatch match(const SimRequest& /*request*/, std::span<const BlockHash> /*hashes*/,
                const PrefixHit& hit, uint32_t /*num_free_blocks*/) override {
    ++matches;
    if (blocked_calls_ > 0) {
      --blocked_calls_;
      return {true, {}};
    }
    if (blocks_ == 0 || hit.num_blocks() >= blocks_) return {};
    ExternalKv kv;
    kv.num_tokens = uint64_t{blocks_ - hit.num_blocks()} * block_size_;
    kv.blocks_per_tier[0] = blocks_ - hit.num_blocks();
    return {false, kv};
  }
  void on_admit(std::span<const BlockHash> /*hashes*/, const PrefixHit& /*hit*/,
                const ExternalKv& /*kv*/) override {
    ++admits;
  }
  void start(uint32_t slot, SimRequest& request, const ExternalKv& kv,
             KvTransfers& transfers) override {
    TransferRecord record;
    record.request_id = request.id;
    record.kind = TransferKind::kTierLoad;
    record.to_host = false;
    record.ready_ns = record.start_ns = transfers.now_ns();
    record.end_ns = transfers.now_ns() + transfer_ns_;
    record.bytes = kv.num_new_blocks;
    transfers.wait_for(slot, record);
  }

  int matches = 0;
  int admits = 0;

 private:
  uint32_t blocks_;
  uint32_t block_size_;
  int64_t transfer_ns_;
  int blocked_calls_;
};

struct Outcome {
  std::vector<RequestRecord> finished;
  std::vector<TransferRecord> transfers;
  EngineStats stats;
};

class Collect final : public SimObserver {
 public:
  explicit Collect(Outcome* out) : out_(out) {}
  void on_request_finished(const RequestRecord& r) override { out_->finished.push_back(r); }
  void on_transfer(const TransferRecord& t) override { out_->transfers.push_back(t); }

 private:
  Outcome* out_;
};

// One request of 64 prompt tokens (4 blocks of 16) and 2 outputs; iterations take 1 ms.
Outcome run_one(KvConnector* connector) {
  Outcome out;
  auto engine = Engine::create(
      testing::small_config(32, 16), std::make_unique<FixedCostModel>(kMs),
      std::make_unique<VectorSource>(std::vector<RequestSpec>{testing::request(0, 0, 64, 2)}));
  EXPECT_TRUE(engine.is_ok());
  Collect collect(&out);
  (*engine)->add_observer(&collect);
  if (connector != nullptr) (*engine)->add_connector(connector);
  EXPECT_TRUE((*engine)->run().is_ok());
  (*engine)->cache().check_invariants();
  out.stats = (*engine)->stats();
  return out;
}

TEST(KvConnector, SuppliedKvIsNotComputedAndTheRequestWaitsForItsTransfer) {
  FakeStore store(/*blocks=*/3, 16, /*transfer_ns=*/5 * kMs);
  const Outcome out = run_one(&store);
  ASSERT_EQ(out.finished.size(), 1u);
  const RequestRecord& r = out.finished[0];
  // t = 0: admitted with 48 tokens' KV from the store; t = 5 ms: the transfer ends, the last
  // 16 prompt tokens are computed (1 ms: first token at 6 ms); one decode step: done at 7 ms.
  EXPECT_EQ(r.first_scheduled_ns, 5 * kMs);
  EXPECT_EQ(r.first_token_ns, 6 * kMs);
  EXPECT_EQ(r.finish_ns, 7 * kMs);
  EXPECT_EQ(r.cached_prompt_tokens, 48u);
  EXPECT_EQ(r.lower_hit_tokens[0], 48u);
  EXPECT_EQ(out.stats.prefill_tokens, 16u);
  EXPECT_EQ(out.stats.iterations, 2u);
  ASSERT_EQ(out.transfers.size(), 1u);
  EXPECT_EQ(out.transfers[0].end_ns, 5 * kMs);
  EXPECT_EQ(out.transfers[0].bytes, 3u);  // the scheduler's num_new_blocks: 3 blocks allocated
  EXPECT_EQ(store.admits, 1);
}

TEST(KvConnector, NoAnswerComputesTheRequestAsWithoutAConnector) {
  FakeStore store(/*blocks=*/0, 16, 5 * kMs);
  const Outcome with = run_one(&store);
  const Outcome without = run_one(nullptr);
  ASSERT_EQ(with.finished.size(), 1u);
  EXPECT_EQ(with.finished[0].first_token_ns, without.finished[0].first_token_ns);
  EXPECT_EQ(with.finished[0].finish_ns, without.finished[0].finish_ns);
  EXPECT_EQ(with.stats.prefill_tokens, 64u);
  EXPECT_TRUE(with.transfers.empty());
  EXPECT_EQ(store.matches, 1);
  EXPECT_EQ(store.admits, 0);
}

TEST(KvConnector, BlockedStopsAdmissionForTheStep) {
  // Blocked at the first step (t = 0) with nothing else to run or move: the engine drops the
  // head as never fitting, as it does for any head that cannot be admitted while idle.
  FakeStore store(/*blocks=*/3, 16, 5 * kMs, /*blocked_calls=*/1);
  const Outcome out = run_one(&store);
  EXPECT_TRUE(out.finished.empty());
  EXPECT_EQ(out.stats.dropped[static_cast<int>(DropReason::kNeverFits)], 1u);
  EXPECT_EQ(store.admits, 0);
}

}  // namespace
}  // namespace kvsim::sim
