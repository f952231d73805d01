#include "simulator/cluster/replica_team.h"

namespace kvsim::sim {

ReplicaTeam::ReplicaTeam(uint32_t threads, uint32_t replicas,
                         std::function<void(uint32_t replica)> step)
    : num_threads_(threads), replicas_(replicas), step_(std::move(step)) {
  for (uint32_t t = 0; t < threads; ++t) threads_.emplace_back([this, t] { work(t); });
}

ReplicaTeam::~ReplicaTeam() {
  wait();
  ending_.store(true);
  round_.fetch_add(1);
  round_.notify_all();
  for (std::thread& thread : threads_) thread.join();
}

void ReplicaTeam::start() {
  running_.store(num_threads_);
  round_.fetch_add(1);
  round_.notify_all();
}

void ReplicaTeam::wait() {
  for (uint32_t left = running_.load(); left != 0; left = running_.load()) running_.wait(left);
}

void ReplicaTeam::work(uint32_t thread) {
  for (uint64_t seen = 0;;) {
    round_.wait(seen);
    seen = round_.load();
    if (ending_.load()) return;
    for (uint32_t r = thread; r < replicas_; r += num_threads_) step_(r);
    if (running_.fetch_sub(1) == 1) running_.notify_one();
  }
}

}  // namespace kvsim::sim
