// What every binding of the module _kvsim shares: bad input as kvsim.Error, and calling back
// into Python from a C++ run that has released the GIL.
#pragma once

#include <pybind11/pybind11.h>

#include <atomic>
#include <optional>
#include <stdexcept>
#include <utility>

#include "core/status.h"

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

// The Python side of a run with the GIL released. `call` (from the run's callbacks, on any
// thread) takes the GIL, checks for signals (Ctrl-C: on the main thread only, Python's rule)
// and runs `f`; the first Python exception, a signal's KeyboardInterrupt included, is kept and
// raises stop(), which the run polls. rethrow() re-raises it once the run is back (GIL held).
class PythonCallbacks {
 public:
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
