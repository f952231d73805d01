// Status and StatusOr<T>: how bad input is reported in kvsim.
//
// Three kinds of failure, three mechanisms (see STYLE.md):
//   - bad input (YAML, traces, CLI values)  -> Status / StatusOr<T>, returned, never thrown;
//   - a broken invariant (a bug)            -> KVSIM_CHECK (core/base/check.h), aborts;
//   - "no room" in the cache                -> std::optional, an ordinary result.
// A Status message names where the input was wrong ("file:line:column: ...") and what was
// expected. Front ends turn a non-ok Status into exit code 2.
#pragma once

#include <string>
#include <utility>
#include <variant>

#include "core/base/check.h"

namespace kvsim {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,  // a value is out of range, unknown or inconsistent
  kNotFound,         // a named preset or file does not exist
  kParseError,       // text that is not the expected syntax (YAML, CSV, JSON)
  kIoError,          // a read or write failed
  kCancelled,        // the caller asked a long computation to stop (the GUI's Cancel)
};

class [[nodiscard]] Status {
 public:
  Status() = default;  // ok

  static Status ok() { return Status(); }
  static Status invalid_argument(std::string message) {
    return Status(StatusCode::kInvalidArgument, std::move(message));
  }
  static Status not_found(std::string message) {
    return Status(StatusCode::kNotFound, std::move(message));
  }
  static Status parse_error(std::string message) {
    return Status(StatusCode::kParseError, std::move(message));
  }
  static Status io_error(std::string message) {
    return Status(StatusCode::kIoError, std::move(message));
  }
  static Status cancelled(std::string message) {
    return Status(StatusCode::kCancelled, std::move(message));
  }

  bool is_ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // The same status with `context` put in front of the message ("context: message").
  Status with_context(const std::string& context) const {
    if (is_ok()) return *this;
    return Status(code_, context + ": " + message_);
  }

 private:
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

// A value or the Status that explains why there is none.
template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(T value) : state_(std::move(value)) {}        // NOLINT: implicit by design
  StatusOr(Status status) : state_(std::move(status)) {  // NOLINT: implicit by design
    KVSIM_CHECK(!std::get<Status>(state_).is_ok(), "StatusOr built from an ok Status");
  }

  bool is_ok() const { return std::holds_alternative<T>(state_); }
  const Status& status() const {
    static const Status kOkStatus;
    return is_ok() ? kOkStatus : std::get<Status>(state_);
  }

  const T& value() const& {
    KVSIM_CHECK(is_ok(), "StatusOr::value() on an error: " + status().message());
    return std::get<T>(state_);
  }
  T& value() & {
    KVSIM_CHECK(is_ok(), "StatusOr::value() on an error: " + status().message());
    return std::get<T>(state_);
  }
  T&& value() && {
    KVSIM_CHECK(is_ok(), "StatusOr::value() on an error: " + status().message());
    return std::get<T>(std::move(state_));
  }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

 private:
  std::variant<Status, T> state_;
};

}  // namespace kvsim

// Returns the Status of `expr` from the enclosing function when it is not ok.
#define KVSIM_RETURN_IF_ERROR(expr)                   \
  do {                                                \
    ::kvsim::Status kvsim_status_ = (expr);           \
    if (!kvsim_status_.is_ok()) return kvsim_status_; \
  } while (0)

#define KVSIM_CONCAT_INNER_(a, b) a##b
#define KVSIM_CONCAT_(a, b) KVSIM_CONCAT_INNER_(a, b)

// `KVSIM_ASSIGN_OR_RETURN(auto x, f());` declares x from f()'s value or returns its Status.
#define KVSIM_ASSIGN_OR_RETURN(lhs, expr) \
  KVSIM_ASSIGN_OR_RETURN_IMPL_(KVSIM_CONCAT_(kvsim_statusor_, __LINE__), lhs, expr)
#define KVSIM_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                 \
  if (!tmp.is_ok()) return tmp.status();             \
  lhs = std::move(tmp).value()
