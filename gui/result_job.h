// ResultJob<T>: a JobRunner job whose product is a value of type T (a simulation run, a
// perplexity study). start() hands `compute(progress, stop)` to the runner's worker thread;
// the value is kept in a slot only the worker writes until the job ends, and take(), called
// from the handler of JobRunner::finished on the GUI thread, moves it out. The views use it so that
// no widget touches a half-built result.
#pragma once

#include <QString>
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <utility>

#include "core/base/status.h"
#include "gui/job_runner.h"

namespace kvsim::gui {

template <typename T>
class ResultJob {
 public:
  using Compute = std::function<StatusOr<T>(const std::function<void(double)>& progress,
                                            const std::atomic<bool>* stop)>;

  // False (nothing started) when the runner is busy.
  bool start(JobRunner* runner, const QString& name, Compute compute) {
    auto slot = std::make_shared<std::optional<T>>();
    auto job = [slot, compute = std::move(compute)](JobContext& context) -> Status {
      auto value =
          compute([&context](double f) { context.report_progress(f); }, context.cancel_flag());
      if (!value.is_ok()) return value.status();
      *slot = std::move(value).value();
      return Status::ok();
    };
    if (!runner->start(name, std::move(job))) return false;
    name_ = name;
    slot_ = std::move(slot);
    return true;
  }

  // True when JobRunner::finished's `name` is this job's (started and not yet taken).
  bool is_mine(const QString& name) const { return slot_ != nullptr && name == name_; }

  // After is_mine(): the value, or why there is none: a cancelled Status after Cancel, the
  // job's message after a failure.
  StatusOr<T> take(bool ok, bool cancelled, const QString& message) {
    const std::shared_ptr<std::optional<T>> slot = std::move(slot_);
    if (cancelled) return Status::cancelled("run cancelled");
    if (!ok || slot == nullptr || !slot->has_value()) {
      return Status::invalid_argument(message.toStdString());
    }
    return std::move(**slot);
  }

 private:
  QString name_;
  std::shared_ptr<std::optional<T>> slot_;
};

}  // namespace kvsim::gui
