// EventLoopProbe: how long the GUI thread's event loop went without turning. A 10 ms timer
// records the longest gap between its ticks from construction on; a blocked loop shows up as
// a gap far above 10 ms.
//
// A gap also grows while the GUI thread is ready to run but waits for a CPU (other processes
// on a busy machine), which says nothing about the GUI. So each gap is also measured less the
// thread's run-queue wait over it (Linux's /proc/thread-self/schedstat, where readable): that
// "blocked" time is what the loop spent running code or sleeping on something other than its
// timer, and is what the requirement bounds. Both are reported.
#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>
#include <algorithm>
#include <cstdint>
#include <fstream>

namespace kvsim::gui::testing {

// The longest the event loop may go without turning during a run: the requirement, 100 ms,
// asserted in the plain (optimised) build. Under ASan/UBSan the GUI thread's own work (drawing
// a finished run's charts) runs several times slower, and those builds are there to hunt
// memory errors, so they allow 4x.
#ifdef KVSIM_SANITIZED
inline constexpr qint64 kMaxEventLoopGapMs = 400;
#else
inline constexpr qint64 kMaxEventLoopGapMs = 100;
#endif

// Milliseconds the calling thread has waited for a CPU while runnable, since it started; 0
// where the kernel does not say.
inline double run_queue_wait_ms() {
  std::ifstream in("/proc/thread-self/schedstat");
  uint64_t on_cpu_ns = 0, waiting_ns = 0;
  if (!(in >> on_cpu_ns >> waiting_ns)) return 0;
  return static_cast<double>(waiting_ns) / 1e6;
}

class EventLoopProbe {
 public:
  static constexpr int kTickMs = 10;

  EventLoopProbe() {
    timer_.setInterval(kTickMs);
    QObject::connect(&timer_, &QTimer::timeout, [this] {
      const qint64 now = clock_.elapsed();
      const double waited = run_queue_wait_ms();
      const qint64 gap = now - last_tick_ms_;
      max_gap_ms_ = std::max(max_gap_ms_, gap);
      max_blocked_ms_ =
          std::max(max_blocked_ms_, gap - static_cast<qint64>(waited - last_wait_ms_));
      last_tick_ms_ = now;
      last_wait_ms_ = waited;
      ++ticks_;
    });
    last_wait_ms_ = run_queue_wait_ms();
    clock_.start();
    timer_.start();
  }

  // The longest gap between ticks, wall clock.
  qint64 max_gap_ms() const { return max_gap_ms_; }
  // The longest gap less the GUI thread's run-queue wait within it: the requirement's measure.
  qint64 max_blocked_ms() const { return max_blocked_ms_; }
  int ticks() const { return ticks_; }
  qint64 elapsed_ms() const { return clock_.elapsed(); }

 private:
  QElapsedTimer clock_;
  QTimer timer_;
  qint64 last_tick_ms_ = 0;
  double last_wait_ms_ = 0;
  qint64 max_gap_ms_ = 0;
  qint64 max_blocked_ms_ = 0;
  int ticks_ = 0;
};

}  // namespace kvsim::gui::testing
