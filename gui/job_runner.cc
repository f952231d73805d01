#include "gui/job_runner.h"

#include <algorithm>

namespace kvsim::gui {

void JobContext::report_progress(double fraction) {
  fraction_.store(std::clamp(fraction, 0.0, 1.0), std::memory_order_relaxed);
}

JobRunner::JobRunner(QObject* parent) : QObject(parent) {
  poll_timer_.setInterval(kPollInterval);
  connect(&poll_timer_, &QTimer::timeout, this, &JobRunner::poll);
}

JobRunner::~JobRunner() {
  context_.cancel_.store(true);
  if (worker_.joinable()) worker_.join();
}

bool JobRunner::start(const QString& name, Job job) {
  if (running_) return false;
  if (worker_.joinable()) worker_.join();
  name_ = name;
  running_ = true;
  last_fraction_ = -1.0;
  context_.fraction_.store(0.0);
  context_.cancel_.store(false);
  done_.store(false);
  worker_ = std::thread([this, job = std::move(job)] {
    result_ = job(context_);
    done_.store(true, std::memory_order_release);
  });
  poll_timer_.start();
  emit started(name_);
  return true;
}

void JobRunner::cancel() {
  if (running_) context_.cancel_.store(true);
}

void JobRunner::poll() {
  const double fraction = context_.fraction_.load(std::memory_order_relaxed);
  if (fraction != last_fraction_) {
    last_fraction_ = fraction;
    emit progress_changed(fraction);
  }
  if (!done_.load(std::memory_order_acquire)) return;
  poll_timer_.stop();
  worker_.join();
  running_ = false;
  const bool cancelled = context_.cancel_.load();
  const bool ok = result_.is_ok() && !cancelled;
  emit finished(name_, ok, cancelled, QString::fromStdString(result_.message()));
}

}  // namespace kvsim::gui
