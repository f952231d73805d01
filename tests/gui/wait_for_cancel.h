// wait_for_cancel: a test job's wait for JobRunner::cancel(), with a deadline, so that a cancel
// that never arrives fails the test (the job ends, and the test checks what it returned)
// instead of hanging it (the runner's destructor would join the job forever).
#pragma once

#include <chrono>
#include <thread>

#include "gui/job_runner.h"

namespace kvsim::gui::testing {

inline constexpr std::chrono::seconds kCancelDeadline{30};

// Polls every millisecond, reporting `progress` each time when it is >= 0. Returns true when
// the cancel came, false when kCancelDeadline passed first.
inline bool wait_for_cancel(JobContext& context, double progress = -1) {
  const auto deadline = std::chrono::steady_clock::now() + kCancelDeadline;
  while (!context.cancel_requested()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    if (progress >= 0) context.report_progress(progress);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

}  // namespace kvsim::gui::testing
