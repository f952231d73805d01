// What every binding of the module _kvsim shares: bad input as kvsim.Error, and calling back
// into Python from a C++ run that has released the GIL.
#pragma once

#include <pybind11/pybind11.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <utility>

#include "core/base/status.h"

namespace kvsim::python {

namespace py = pybind11;

// Raised as kvsim.Error (a ValueError) with the Status's message (the CLI's).
class StatusError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline void raise_if_error(const Status& status) {
  if (!status.is_ok()) throw StatusError(status.message());
}

template <typename T>
T value_or_raise(StatusOr<T> result) {
  raise_if_error(result.status());
  return std::move(*result);
}

// The Python side of a run with the GIL released. run(body) runs the C++ run on a worker
// thread while the calling (main) thread waits without the GIL and, every kSignalPoll, takes
// it to check for signals: Python handles signals on the main thread only, and a run's own
// callbacks may come seconds apart (a PPL batch of windows). `call` (from the run's callbacks)
// takes the GIL and runs `f`. The first Python exception, a signal's KeyboardInterrupt
// included, is kept and raises stop(), which the run polls; rethrow() re-raises it once the
// run is back (GIL held). The worker is joined before run() returns: no thread outlives it.
class PythonCallbacks {
 public:
  static constexpr std::chrono::milliseconds kSignalPoll{20};

  // Called with the GIL held; returns body()'s value (rethrow() first).
  template <typename F>
  auto run(F&& body) -> decltype(body()) {
    std::optional<decltype(body())> result;
    std::exception_ptr failure;
    std::mutex mutex;
    std::condition_variable finished;
    bool done = false;
    {
      py::gil_scoped_release nogil;
      std::thread worker([&] {
        try {
          result.emplace(body());
        } catch (...) {
          failure = std::current_exception();
        }
        std::lock_guard<std::mutex> lock(mutex);
        done = true;
        finished.notify_one();
      });
      std::unique_lock<std::mutex> lock(mutex);
      while (!finished.wait_for(lock, kSignalPoll, [&] { return done; })) {
        lock.unlock();
        call([] {});
        lock.lock();
      }
      lock.unlock();
      worker.join();
    }
    if (failure) std::rethrow_exception(failure);
    return std::move(*result);
  }

  // Any thread; the GIL must not be held by this thread.
  template <typename F>
  void call(F&& f) {
    py::gil_scoped_acquire gil;
    if (error_) return;
    try {
      if (PyErr_CheckSignals() != 0) throw py::error_already_set();
      f();
    } catch (py::error_already_set& e) {
      error_ = std::move(e);
      stop_ = true;
    }
  }

  const std::atomic<bool>* stop() const { return &stop_; }

  void rethrow() {
    if (error_) {
      py::error_already_set error = std::move(*error_);
      error_.reset();
      throw std::move(error);
    }
  }

 private:
  std::atomic<bool> stop_{false};
  std::optional<py::error_already_set> error_;  // touched only with the GIL held
};

}  // namespace kvsim::python
