#include "simulator/cluster/cluster_writers.h"

#include "core/base/units.h"
#include "simulator/cluster/cluster_summary.h"

namespace kvsim::sim {
namespace {

const char* transfer_kind_name(const TransferRecord& t) {
  switch (t.kind) {
    case TransferKind::kSwap:
      return t.to_host ? "swap_out" : "swap_in";
    case TransferKind::kTierLoad:
      return "tier_load";
    case TransferKind::kTierWrite:
      return "tier_write";
    case TransferKind::kKv:
      return "kv";
  }
  return "";
}

}  // namespace

StatusOr<std::unique_ptr<ClusterTimeseriesWriter>> ClusterTimeseriesWriter::create(
    const std::string& dir, int64_t interval_ns, const Cluster* cluster) {
  KVSIM_CHECK(interval_ns > 0, "time-series interval must be positive");
  KVSIM_ASSIGN_OR_RETURN(auto replicas, OutputFile::create(dir + "/replicas.csv"));
  replicas->write(
      "time_s,replica,role,kv_blocks_used,kv_blocks_cached_free,kv_blocks_free,running,waiting,"
      "swapped,in_transit,outstanding_tokens,tokens_per_s\n");
  std::unique_ptr<OutputFile> tiers;
  if (!cluster->tiers().empty()) {
    KVSIM_ASSIGN_OR_RETURN(tiers, OutputFile::create(dir + "/tiers.csv"));
    tiers->write(
        "time_s,tier,pool,slots,resident_blocks,usage,hit_chunks,written_bytes,loaded_bytes\n");
  }
  return std::unique_ptr<ClusterTimeseriesWriter>(
      new ClusterTimeseriesWriter(std::move(replicas), std::move(tiers), interval_ns, cluster));
}

ClusterTimeseriesWriter::ClusterTimeseriesWriter(std::unique_ptr<OutputFile> replicas,
                                                 std::unique_ptr<OutputFile> tiers,
                                                 int64_t interval_ns, const Cluster* cluster)
    : replicas_(std::move(replicas)),
      tiers_(std::move(tiers)),
      cluster_(cluster),
      sampler_(interval_ns),
      last_tokens_(cluster->num_replicas(), 0) {}

void ClusterTimeseriesWriter::emit_row(int64_t time_ns) {
  const double time_s = ns_to_s(time_ns);
  for (size_t r = 0; r < cluster_->num_replicas(); ++r) {
    const ReplicaState state = cluster_->replica_state(r, time_ns);
    const EngineSnapshot& s = state.snapshot;
    OutputFile& f = *replicas_;
    f.write_double(time_s);
    f.write(",");
    f.write(cluster_->replica_config(r).name);
    f.write(",");
    f.write(engine_role_name(cluster_->replica_config(r).engine.scheduler.role));
    for (uint64_t value : {uint64_t{s.kv_blocks_used}, uint64_t{s.kv_blocks_cached_free},
                           uint64_t{s.kv_blocks_free}, uint64_t{s.running}, uint64_t{s.waiting},
                           uint64_t{s.swapped}, state.in_transit, state.outstanding_tokens}) {
      f.write(",");
      f.write_uint(value);
    }
    const uint64_t tokens = state.tokens_done;
    f.write(",");
    f.write_double(static_cast<double>(tokens - last_tokens_[r]) / sampler_.interval_s());
    f.write("\n");
    last_tokens_[r] = tokens;
  }
  if (tiers_ == nullptr) return;
  for (const TierInstance& tier : cluster_->tiers()) {
    const ReplicaTiers& owner = *cluster_->replica_tiers(tier.owner.value_or(0));
    const uint64_t chunk = owner.blocks_per_chunk();
    uint64_t loaded_bytes = 0;  // by the replicas this pool serves
    for (size_t r = 0; r < cluster_->num_replicas(); ++r) {
      if (tier.owner >= 0 && tier.owner != static_cast<int32_t>(r)) continue;
      loaded_bytes += cluster_->replica_tiers(r)->load_stats(tier.tier).bytes;
    }
    const TierStats s = tier.pool->stats();
    OutputFile& f = *tiers_;
    f.write_double(time_s);
    f.write(",");
    f.write(tier.pool->name());
    f.write(",");
    f.write(tier.owner ? cluster_->replica_config(*tier.owner).name : "shared");
    f.write(",");
    f.write_uint(uint64_t{tier.pool->num_slots()} * chunk);
    f.write(",");
    f.write_uint(uint64_t{tier.pool->num_resident()} * chunk);
    f.write(",");
    f.write_double(static_cast<double>(tier.pool->num_resident()) / tier.pool->num_slots());
    for (uint64_t value : {s.hits, s.stored * owner.bytes_per_chunk(), loaded_bytes}) {
      f.write(",");
      f.write_uint(value);
    }
    f.write("\n");
  }
}

Status ClusterTimeseriesWriter::finish(const EngineSnapshot& last) {
  const auto pending = [this] {
    for (size_t r = 0; r < cluster_->num_replicas(); ++r) {
      if (cluster_->replica_state(r, Cluster::kRunEnd).tokens_done > last_tokens_[r]) return true;
    }
    return false;
  };
  sampler_.finish(last.time_ns, pending, [this](int64_t t) { emit_row(t); });
  Status status = replicas_->close();
  if (tiers_ != nullptr) {
    const Status closed = tiers_->close();
    if (status.is_ok()) status = closed;
  }
  return status;
}

StatusOr<std::unique_ptr<TransfersCsvWriter>> TransfersCsvWriter::create(const std::string& path) {
  KVSIM_ASSIGN_OR_RETURN(auto file, OutputFile::create(path));
  file->write("kind,request_id,from,to,tier,bytes,ready_s,start_s,end_s\n");
  return std::unique_ptr<TransfersCsvWriter>(new TransfersCsvWriter(std::move(file)));
}

void TransfersCsvWriter::on_transfer(const TransferRecord& t) {
  OutputFile& f = *file_;
  f.write(transfer_kind_name(t));
  f.write(",");
  f.write_uint(t.request_id);
  f.write(",");
  f.write_int(t.from_replica);
  f.write(",");
  f.write_int(t.to_replica);
  f.write(",");
  if (t.tier >= 0) f.write_int(t.tier);
  f.write(",");
  f.write_uint(t.bytes);
  f.write(",");
  f.write_double(ns_to_s(t.ready_ns));
  f.write(",");
  f.write_double(ns_to_s(t.start_ns));
  f.write(",");
  f.write_double(ns_to_s(t.end_ns));
  f.write("\n");
}

Status TransfersCsvWriter::finish(const EngineSnapshot& /*last*/) { return file_->close(); }

}  // namespace kvsim::sim
