// JobRunner: runs one background job at a time on a worker thread it owns (the shape of
// qt-mvvm's concurrentplot). A job is a plain function that calls the library; it reports
// progress through JobContext, a plain callback target, polls JobContext::cancel_requested(),
// and never touches a widget or a QObject.
//
// Contract:
//   - start() refuses (returns false) while a job runs; one job at a time.
//   - The worker publishes progress into atomics; a GUI-thread timer reads them every
//     kPollInterval and emits progress_changed, so a job may report a million times without
//     queueing a single event. Every signal is emitted on the thread that owns the runner.
//   - finished is emitted exactly once per started job, after the worker thread has ended:
//     ok = the job returned an ok Status and was not cancelled; cancelled = cancel() was
//     called before it ended (its results must then be dropped); message = the Status text.
//   - The destructor cancels a running job and joins its thread.
#pragma once

#include <QObject>
#include <QString>
#include <QTimer>
#include <atomic>
#include <chrono>
#include <functional>
#include <string>
#include <thread>

#include "core/base/status.h"

namespace kvsim::gui {

class JobContext {
 public:
  // Share of the job done, clamped to [0, 1]. Thread-safe and cheap.
  void report_progress(double fraction);
  // True once JobRunner::cancel() was called; the job should return soon after.
  bool cancel_requested() const { return cancel_.load(std::memory_order_relaxed); }
  // The flag itself, for library calls that poll a stop flag.
  const std::atomic<bool>* cancel_flag() const { return &cancel_; }

 private:
  friend class JobRunner;
  std::atomic<double> fraction_{0.0};
  std::atomic<bool> cancel_{false};
};

using Job = std::function<Status(JobContext&)>;

class JobRunner : public QObject {
  Q_OBJECT

 public:
  static constexpr std::chrono::milliseconds kPollInterval{30};

  explicit JobRunner(QObject* parent = nullptr);
  ~JobRunner() override;

  // Starts `job` on the worker thread; false when a job is already running.
  bool start(const QString& name, Job job);
  bool is_running() const { return running_; }
  QString job_name() const { return name_; }

 public slots:
  // Asks the running job to stop; finished follows with cancelled = true. No-op when idle.
  void cancel();

 signals:
  void started(const QString& name);
  void progress_changed(double fraction);
  void finished(const QString& name, bool ok, bool cancelled, const QString& message);

 private:
  void poll();

  QTimer poll_timer_;
  std::thread worker_;
  JobContext context_;
  std::atomic<bool> done_{false};
  Status result_;  // written by the worker before done_, read after
  QString name_;
  bool running_ = false;
  double last_fraction_ = -1.0;
};

}  // namespace kvsim::gui
