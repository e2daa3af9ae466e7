// Status and Result<T>: how grainscope functions report failure without throwing.
//
// A Status is ok, or a code plus a one-line message written for the user. Readers put the file,
// line or byte offset and what was expected into the message ("trace.txt:7: ..."), so the CLI can
// print it as it is.
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace grainscope {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,  // the caller asked for something impossible (bad option value)
  kNotFound,         // a file, location or region that is not there
  kDataLoss,         // malformed or truncated input
  kUnimplemented,    // a format or feature we do not handle
  kIoError,          // the operating system refused a read or write
  kFailedPrecondition,  // input is well formed but cannot be analysed this way
  kInternal,
};

std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status OkStatus() { return Status(); }
inline Status InvalidArgument(std::string m) { return {StatusCode::kInvalidArgument, std::move(m)}; }
inline Status NotFound(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
inline Status DataLoss(std::string m) { return {StatusCode::kDataLoss, std::move(m)}; }
inline Status Unimplemented(std::string m) { return {StatusCode::kUnimplemented, std::move(m)}; }
inline Status IoError(std::string m) { return {StatusCode::kIoError, std::move(m)}; }
inline Status FailedPrecondition(std::string m) {
  return {StatusCode::kFailedPrecondition, std::move(m)};
}
inline Status Internal(std::string m) { return {StatusCode::kInternal, std::move(m)}; }

// Prints "grainscope: Result::value() on an error: <code>: <message>" on stderr and aborts: what
// value() does on a Result without one, as Abseil's StatusOr does, instead of undefined behaviour.
[[noreturn]] void DieOfValueOnError(const Status& status);

// A value or the Status that explains why there is none. value() on an error aborts with the
// status (DieOfValueOnError); operator* and -> do not check (use them after ok()).
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {  // NOLINT: implicit by design
    assert(!status_.ok() && "a Result built from a Status must carry an error");
  }

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }

  T& value() & {
    CheckValue();
    return *value_;
  }
  const T& value() const& {
    CheckValue();
    return *value_;
  }
  T&& value() && {
    CheckValue();
    return std::move(*value_);
  }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }
  T& operator*() & { return *value_; }
  const T& operator*() const& { return *value_; }
  T&& operator*() && { return std::move(*value_); }

 private:
  void CheckValue() const {
    if (!value_.has_value()) DieOfValueOnError(status_);
  }

  std::optional<T> value_;
  Status status_;
};

}  // namespace grainscope

// Returns early from the enclosing function when `expr` (a Status) is not ok.
#define GS_RETURN_IF_ERROR(expr)                   \
  do {                                             \
    ::grainscope::Status gs_status_ = (expr);      \
    if (!gs_status_.ok()) return gs_status_;       \
  } while (0)

#define GS_CONCAT_INNER(a, b) a##b
#define GS_CONCAT(a, b) GS_CONCAT_INNER(a, b)
// `GS_ASSIGN_OR_RETURN(auto x, F())` binds the value of a Result or returns its Status.
#define GS_ASSIGN_OR_RETURN(lhs, expr) GS_ASSIGN_OR_RETURN_IMPL(GS_CONCAT(gs_result_, __LINE__), lhs, expr)
#define GS_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                             \
  if (!tmp.ok()) return tmp.status();            \
  lhs = std::move(tmp).value()
