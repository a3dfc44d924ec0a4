// SPDX-License-Identifier: MIT
// Status formatting and the error shorthands.
#include <mote/core/status.h>

#include <utility>

namespace mote {

const char* statusCodeName(StatusCode code) noexcept {
  switch (code) {
    case StatusCode::Ok:
      return "Ok";
    case StatusCode::InvalidArgument:
      return "InvalidArgument";
    case StatusCode::BudgetExhausted:
      return "BudgetExhausted";
    case StatusCode::ParseError:
      return "ParseError";
    case StatusCode::Unsupported:
      return "Unsupported";
    case StatusCode::IoError:
      return "IoError";
    case StatusCode::NotFound:
      return "NotFound";
    case StatusCode::OutOfRange:
      return "OutOfRange";
    case StatusCode::Internal:
      return "Internal";
    case StatusCode::Unavailable:
      return "Unavailable";
    case StatusCode::DeviceLost:
      return "DeviceLost";
    case StatusCode::OutOfMemory:
      return "OutOfMemory";
  }
  return "Unknown";
}

namespace {
const std::string kEmptyMessage;
const std::optional<SourceLocation> kNoLocation;
}  // namespace

Status::Status(StatusCode code, std::string message)
    : code_(code), detail_(std::make_unique<Detail>(Detail{std::move(message), std::nullopt})) {
  MOTE_ASSERT(code != StatusCode::Ok, "an error Status needs an error code");
  if (code_ == StatusCode::Ok) detail_.reset();  // keep "null exactly when ok()" without asserts
}

Status::Status(StatusCode code, std::string message, SourceLocation location)
    : Status(code, std::move(message)) {
  if (detail_ && !location.empty()) detail_->location = std::move(location);
}

Status::Status(const Status& other)
    : code_(other.code_),
      detail_(other.detail_ ? std::make_unique<Detail>(*other.detail_) : nullptr) {}

Status& Status::operator=(const Status& other) {
  if (this != &other) {
    // Allocate first: if the copy throws, *this is unchanged.
    std::unique_ptr<Detail> detail =
        other.detail_ ? std::make_unique<Detail>(*other.detail_) : nullptr;
    detail_ = std::move(detail);
    code_ = other.code_;
  }
  return *this;
}

// A moved-from Status is success, keeping "detail is null exactly when ok()".
Status::Status(Status&& other) noexcept
    : code_(std::exchange(other.code_, StatusCode::Ok)), detail_(std::move(other.detail_)) {}

Status& Status::operator=(Status&& other) noexcept {
  if (this != &other) {
    code_ = std::exchange(other.code_, StatusCode::Ok);
    detail_ = std::move(other.detail_);
  }
  return *this;
}
Status::~Status() = default;

const std::string& Status::message() const noexcept {
  return detail_ ? detail_->message : kEmptyMessage;
}

const std::optional<SourceLocation>& Status::location() const noexcept {
  return detail_ ? detail_->location : kNoLocation;
}

bool operator==(const Status& a, const Status& b) noexcept {
  return a.code_ == b.code_ && a.message() == b.message() && a.location() == b.location();
}

Status Status::withLocation(SourceLocation location) && {
  if (detail_) {
    if (location.empty()) {
      detail_->location.reset();
    } else {
      detail_->location = std::move(location);
    }
  }
  return std::move(*this);
}

std::string Status::toString() const {
  std::string out;
  if (const std::optional<SourceLocation>& where = location()) {
    const SourceLocation& loc = *where;
    if (!loc.file.empty()) {
      out += loc.file;
      if (loc.line != 0) {
        out += ':';
        out += std::to_string(loc.line);
        if (loc.column != 0) {
          out += ':';
          out += std::to_string(loc.column);
        }
      }
      out += ": ";
    } else if (loc.line != 0) {
      out += "line " + std::to_string(loc.line);
      if (loc.column != 0) out += ", column " + std::to_string(loc.column);
      out += ": ";
    }
    if (!loc.path.empty()) {
      out += loc.path;
      out += ": ";
    }
  }
  out += statusCodeName(code_);
  if (!message().empty()) {
    out += ": ";
    out += message();
  }
  return out;
}

Status invalidArgument(std::string message) {
  return {StatusCode::InvalidArgument, std::move(message)};
}
Status budgetExhausted(std::string message) {
  return {StatusCode::BudgetExhausted, std::move(message)};
}
Status parseError(std::string message, SourceLocation location) {
  return {StatusCode::ParseError, std::move(message), std::move(location)};
}
Status unsupported(std::string message) {
  return {StatusCode::Unsupported, std::move(message)};
}
Status ioError(std::string message) {
  return {StatusCode::IoError, std::move(message)};
}
Status notFound(std::string message) {
  return {StatusCode::NotFound, std::move(message)};
}

}  // namespace mote
