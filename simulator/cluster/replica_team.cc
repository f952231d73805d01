#include "simulator/cluster/replica_team.h"

namespace kvsim::sim {

ReplicaTeam::ReplicaTeam(uint32_t threads, uint32_t replicas,
                         std::function<void(uint32_t replica, uint64_t window)> step)
    : num_threads_(threads),
      replicas_(replicas),
      step_(std::move(step)),
      done_(std::make_unique<Done[]>(threads)) {
  for (uint32_t t = 0; t < threads; ++t) threads_.emplace_back([this, t] { work(t); });
}

ReplicaTeam::~ReplicaTeam() {
  ending_.store(true);
  published_.fetch_add(1);
  published_.notify_all();
  for (std::thread& thread : threads_) thread.join();
}

void ReplicaTeam::publish(uint64_t count) {
  published_.store(count);
  published_.notify_all();
}

void ReplicaTeam::wait_done(uint64_t window) {
  for (uint32_t t = 0; t < num_threads_; ++t) {
    std::atomic<uint64_t>& count = done_[t].count;
    for (uint64_t seen = count.load(); seen <= window; seen = count.load()) count.wait(seen);
  }
}

void ReplicaTeam::work(uint32_t thread) {
  std::atomic<uint64_t>& done = done_[thread].count;
  for (uint64_t window = 0;; ++window) {
    for (uint64_t seen = published_.load(); seen <= window && !ending_.load();
         seen = published_.load()) {
      published_.wait(seen);
    }
    if (ending_.load()) return;
    for (uint32_t r = thread; r < replicas_; r += num_threads_) step_(r, window);
    done.store(window + 1);
    done.notify_one();
  }
}

}  // namespace kvsim::sim
