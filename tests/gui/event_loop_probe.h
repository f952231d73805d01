// EventLoopProbe: how long the GUI thread's event loop went without turning. A 10 ms timer
// records the longest gap between its ticks from construction on; a blocked loop shows up as
// a gap far above 10 ms.
#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>
#include <algorithm>

namespace kvsim::gui::testing {

class EventLoopProbe {
 public:
  static constexpr int kTickMs = 10;

  EventLoopProbe() {
    timer_.setInterval(kTickMs);
    QObject::connect(&timer_, &QTimer::timeout, [this] {
      const qint64 now = clock_.elapsed();
      max_gap_ms_ = std::max(max_gap_ms_, now - last_tick_ms_);
      last_tick_ms_ = now;
      ++ticks_;
    });
    clock_.start();
    timer_.start();
  }

  qint64 max_gap_ms() const { return max_gap_ms_; }
  int ticks() const { return ticks_; }
  qint64 elapsed_ms() const { return clock_.elapsed(); }

 private:
  QElapsedTimer clock_;
  QTimer timer_;
  qint64 last_tick_ms_ = 0;
  qint64 max_gap_ms_ = 0;
  int ticks_ = 0;
};

}  // namespace kvsim::gui::testing
