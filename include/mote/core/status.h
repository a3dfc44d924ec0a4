// SPDX-License-Identifier: MIT
// Status and Result<T>: recoverable failures with a code, a message and an optional location.
#pragma once

#include <mote/core/assert.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace mote {

/// Why an operation failed. Stable: codes are never renumbered (tools print and compare them).
enum class StatusCode : std::uint8_t {
  Ok = 0,
  InvalidArgument,  ///< the caller passed a value outside the documented domain
  BudgetExhausted,  ///< a fixed capacity is full (emitter table, batcher, pool)
  ParseError,       ///< malformed text or binary input
  Unsupported,      ///< well-formed input asking for something this build does not do
  IoError,          ///< a file could not be opened, read or written
  NotFound,         ///< a named thing (file, field, emitter, animation) does not exist
  OutOfRange,       ///< an index or numeric value beyond what the format can hold
  Internal,         ///< an invariant of Mote itself broke; a bug to report
  Unavailable,      ///< a facility this machine lacks (no Vulkan loader, no GPU device)
  DeviceLost,       ///< the GPU device was lost; every later call on it fails the same way
  OutOfMemory,      ///< a device (or host) allocation of the size asked for did not fit
};

/// The code's name as written in messages ("InvalidArgument"). Never null.
const char* statusCodeName(StatusCode code) noexcept;

/// Where a failure is: a file with line and column (1-based; 0 = unknown), and/or a path inside the
/// document — a JSON pointer ("/emitters/0/rate") or a dotted field name ("emitter.velMin").
struct SourceLocation {
  std::string file;
  std::uint32_t line = 0;
  std::uint32_t column = 0;
  std::string path;

  bool empty() const noexcept { return file.empty() && line == 0 && column == 0 && path.empty(); }
  friend bool operator==(const SourceLocation&, const SourceLocation&) = default;
};

/// The outcome of an operation that can fail on bad data. A default-constructed Status is success:
/// two words, no allocation, cheap to return from hot paths. An error owns its message and location
/// in one heap block. Copying an error copies that block; moving is a pointer move.
/// Thread safety: a value type; distinct objects may be used from distinct threads.
class [[nodiscard]] Status {
 public:
  Status() noexcept = default;
  /// An error status. `code` must not be Ok (use the default constructor for success).
  Status(StatusCode code, std::string message);
  Status(StatusCode code, std::string message, SourceLocation location);
  Status(const Status& other);
  Status& operator=(const Status& other);
  /// Moves leave `other` as success (Ok, no detail).
  Status(Status&& other) noexcept;
  Status& operator=(Status&& other) noexcept;
  ~Status();

  bool ok() const noexcept { return code_ == StatusCode::Ok; }
  StatusCode code() const noexcept { return code_; }
  /// The message alone, without code or location; empty for success.
  const std::string& message() const noexcept;
  /// The location, if one was attached.
  const std::optional<SourceLocation>& location() const noexcept;

  /// Returns this status with `location` attached (replacing any earlier one; an empty location
  /// removes it). On success it is returned unchanged.
  Status withLocation(SourceLocation location) &&;

  /// "file:line:column: path: Code: message" with the unknown parts left out; "Ok" for success.
  std::string toString() const;

  friend bool operator==(const Status& a, const Status& b) noexcept;

 private:
  struct Detail {
    std::string message;
    std::optional<SourceLocation> location;
  };
  StatusCode code_ = StatusCode::Ok;
  std::unique_ptr<Detail> detail_;  // null exactly when ok()
};

/// Shorthands for the common error codes.
Status invalidArgument(std::string message);
Status budgetExhausted(std::string message);
Status parseError(std::string message, SourceLocation location = {});
Status unsupported(std::string message);
Status ioError(std::string message);
Status notFound(std::string message);

/// Either a value or the error that prevented it. Construct from a T (success) or from an error
/// Status; reading the value of a failed Result is a contract violation (MOTE_ASSERT).
///
///   Result<ParticleSystem> r = ParticleSystem::create(options);
///   if (!r.ok()) return r.status();
///   ParticleSystem system = std::move(r).takeValue();
template <typename T>
class [[nodiscard]] Result {
  static_assert(!std::is_reference_v<T>, "Result holds values, not references");
  static_assert(!std::is_same_v<std::remove_cv_t<T>, Status>, "use Status directly");

 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT(google-explicit-constructor): by design
  template <typename U>
  requires(std::is_constructible_v<T, U&&> && !std::is_same_v<std::remove_cvref_t<U>, Status> &&
           !std::is_same_v<std::remove_cvref_t<U>, T> &&
           !std::is_same_v<std::remove_cvref_t<U>, Result>) Result(U&& value)
      : value_(std::in_place, std::forward<U>(value)) {}  // NOLINT
  Result(Status status) : status_(std::move(status)) {    // NOLINT
    MOTE_ASSERT(!status_.ok(), "a Result built from a Status needs an error; pass a value instead");
    if (status_.ok()) status_ = Status(StatusCode::Internal, "Result built from an Ok status");
  }

  bool ok() const noexcept { return value_.has_value(); }
  /// Success (a default Status) when a value is held, else the error.
  const Status& status() const& noexcept { return status_; }
  Status status() && noexcept { return std::move(status_); }

  const T& value() const& {
    MOTE_ASSERT(ok(), "value() of a failed Result");
    return *value_;
  }
  T& value() & {
    MOTE_ASSERT(ok(), "value() of a failed Result");
    return *value_;
  }
  /// Moves the value out; the Result is left holding a moved-from T.
  T takeValue() && {
    MOTE_ASSERT(ok(), "takeValue() of a failed Result");
    return std::move(*value_);
  }

  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }

 private:
  std::optional<T> value_;
  Status status_;
};

}  // namespace mote

/// Returns the Status of `expr` from the enclosing function when it is an error.
#define MOTE_RETURN_IF_ERROR(expr)               \
  do {                                           \
    ::mote::Status mote_status_ = (expr);        \
    if (!mote_status_.ok()) return mote_status_; \
  } while (false)
