// ReplicaTeam: threads that run a parallel cluster run's replicas round after round (one round
// per window of arrivals: simulator/cluster/cluster_parallel.cc). Thread t runs `step` for
// replicas t, t + threads, t + 2 threads, ...; start() begins a round on every thread and
// returns at once, wait() returns when the round is done. The threads live as long as the
// team, so a round costs a wake-up, not a thread's start.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <thread>
#include <vector>

namespace kvsim::sim {

class ReplicaTeam {
 public:
  ReplicaTeam(uint32_t threads, uint32_t replicas, std::function<void(uint32_t replica)> step);
  ~ReplicaTeam();  // ends the threads (after the round in progress)
  ReplicaTeam(const ReplicaTeam&) = delete;
  ReplicaTeam& operator=(const ReplicaTeam&) = delete;

  void start();
  void wait();

 private:
  void work(uint32_t thread);

  uint32_t num_threads_;
  uint32_t replicas_;
  std::function<void(uint32_t)> step_;
  std::vector<std::thread> threads_;
  std::atomic<uint64_t> round_{0};    // rounds started; each thread waits for the next
  std::atomic<uint32_t> running_{0};  // threads still in the current round
  std::atomic<bool> ending_{false};
};

}  // namespace kvsim::sim
