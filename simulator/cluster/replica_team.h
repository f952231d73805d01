// ReplicaTeam: threads that run a parallel cluster run's replicas window after window
// (simulator/cluster/cluster_parallel.cc), up to kWindowsAhead windows ahead of the thread that
// replays them. Thread t runs `step(replica, window)` for replicas t, t + threads, ... of each
// window once publish() has made it available; wait_done(window) returns when every thread has
// run it. The threads live as long as the team, so a window costs a wake-up at most, and a
// thread that finds the next window published runs on without waiting.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

namespace kvsim::sim {

// Windows the replicas may run ahead of the replay (its ring of window logs).
inline constexpr uint32_t kWindowsAhead = 4;

class ReplicaTeam {
 public:
  ReplicaTeam(uint32_t threads, uint32_t replicas,
              std::function<void(uint32_t replica, uint64_t window)> step);
  ~ReplicaTeam();  // ends the threads once they are done with the windows they run
  ReplicaTeam(const ReplicaTeam&) = delete;
  ReplicaTeam& operator=(const ReplicaTeam&) = delete;

  // Windows 0 .. count - 1 may run (count never decreases).
  void publish(uint64_t count);
  void wait_done(uint64_t window);

 private:
  struct alignas(64) Done {  // windows a thread has run, on a line of its own
    std::atomic<uint64_t> count{0};
  };
  void work(uint32_t thread);

  uint32_t num_threads_;
  uint32_t replicas_;
  std::function<void(uint32_t, uint64_t)> step_;
  std::vector<std::thread> threads_;
  std::unique_ptr<Done[]> done_;
  alignas(64) std::atomic<uint64_t> published_{0};
  std::atomic<bool> ending_{false};
};

}  // namespace kvsim::sim
