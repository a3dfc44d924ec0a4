// SPDX-License-Identifier: MIT
// LogCapture: records every log record emitted while it is alive (and resets the default rate
// limiter).
#pragma once

#include <mote/core/log.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace mote::test {

struct CapturedRecord {
  LogLevel level;
  std::string tag;
  std::string message;
  std::vector<std::pair<std::string, std::string>> fields;  // value as text

  /// The field's value as written ("3", "vel_box"), or "" when absent.
  std::string field(const std::string& key) const {
    for (const auto& [k, v] : fields) {
      if (k == key) return v;
    }
    return {};
  }
};

/// Installs a capturing sink for its lifetime and resets the default rate limiter on entry, so each
/// test sees its own warnings. Not thread-safe beyond what the log's serialised sink gives.
class LogCapture {
 public:
  LogCapture() noexcept : previous_(setLogSink(&capture, this)) { defaultRateLimiter().reset(); }
  ~LogCapture() { setLogSink(previous_.sink, previous_.user); }
  LogCapture(const LogCapture&) = delete;
  LogCapture& operator=(const LogCapture&) = delete;

  const std::vector<CapturedRecord>& records() const { return records_; }
  std::size_t count(const std::string& tag) const {
    std::size_t n = 0;
    for (const CapturedRecord& r : records_)
      n += r.tag == tag ? 1 : 0;
    return n;
  }
  void clear() { records_.clear(); }

 private:
  static void capture(void* user, const LogRecord& record) {
    auto* self = static_cast<LogCapture*>(user);
    CapturedRecord r{record.level, std::string(record.tag), std::string(record.message), {}};
    for (const LogField& f : record.fields) {
      r.fields.emplace_back(std::string(f.key),
                            f.text.empty() ? std::to_string(f.value) : std::string(f.text));
    }
    self->records_.push_back(std::move(r));
  }

  LogSinkBinding previous_;
  std::vector<CapturedRecord> records_;
};

/// Counts emitted records without allocating (for allocation-watch tests), silencing the default
/// sink.
class LogCounter {
 public:
  LogCounter() noexcept : previous_(setLogSink(&count, this)) { defaultRateLimiter().reset(); }
  ~LogCounter() { setLogSink(previous_.sink, previous_.user); }
  LogCounter(const LogCounter&) = delete;
  LogCounter& operator=(const LogCounter&) = delete;

  std::uint64_t records() const noexcept { return records_; }

 private:
  static void count(void* user, const LogRecord&) { ++static_cast<LogCounter*>(user)->records_; }

  LogSinkBinding previous_;
  std::uint64_t records_ = 0;
};

}  // namespace mote::test
