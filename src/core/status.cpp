// SPDX-License-Identifier: MIT
// Status formatting and the error shorthands.
#include <mote/core/status.h>

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
  }
  return "Unknown";
}

Status::Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {
  MOTE_ASSERT(code != StatusCode::Ok, "an error Status needs an error code");
}

Status::Status(StatusCode code, std::string message, SourceLocation location)
    : Status(code, std::move(message)) {
  if (!location.empty()) location_ = std::move(location);
}

Status Status::withLocation(SourceLocation location) && {
  if (location.empty()) {
    location_.reset();
  } else {
    location_ = std::move(location);
  }
  return std::move(*this);
}

std::string Status::toString() const {
  std::string out;
  if (location_) {
    const SourceLocation& loc = *location_;
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
  if (!message_.empty()) {
    out += ": ";
    out += message_;
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
