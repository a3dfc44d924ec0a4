// SPDX-License-Identifier: MIT
// The log sink registry, level threshold, default stderr sink, line formatter and RateLimiter.
#include <mote/core/fnv1a.h>
#include <mote/core/log.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstring>

namespace mote {
namespace {

// One mutex guards the installed sink and serializes sink calls, so sinks need no locking of their
// own and setLogSink() can promise the old sink is no longer running when it returns.
std::mutex gSinkMutex;
LogSink gSink = &defaultLogSink;
void* gSinkUser = nullptr;
std::atomic<LogLevel> gLevel{LogLevel::Info};

// Set while this thread runs a sink (and so holds gSinkMutex): a re-entrant log() would otherwise
// deadlock, and a setLogSink() from a sink may update the binding without relocking.
thread_local bool tInSink = false;

constinit RateLimiter gDefaultRateLimiter;

std::uint64_t steadyClockNanoseconds() noexcept {
  const auto sinceEpoch = std::chrono::steady_clock::now().time_since_epoch();
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(sinceEpoch).count());
}

bool passesThreshold(LogLevel level) noexcept {
  return level != LogLevel::Off && level >= gLevel.load(std::memory_order_relaxed);
}

void emit(const LogRecord& record) noexcept {
  if (tInSink) {
    return;  // Re-entrant call from a sink: dropped (documented on LogSink).
  }
  std::lock_guard<std::mutex> lock(gSinkMutex);
  tInSink = true;
  gSink(gSinkUser, record);
  tInSink = false;
}

// Appends into a fixed buffer, remembering whether anything was cut off.
class LineWriter {
 public:
  explicit LineWriter(std::span<char> out) noexcept : out_(out) {}

  void append(std::string_view text) noexcept {
    const std::size_t room = capacity() - size_;
    const std::size_t n = std::min(room, text.size());
    if (n > 0) {
      std::memcpy(out_.data() + size_, text.data(), n);
    }
    size_ += n;
    truncated_ = truncated_ || n < text.size();
  }

  void append(std::uint64_t value) noexcept { appendNumber(value); }
  void append(std::int64_t value) noexcept { appendNumber(value); }

  // NUL-terminates, marking a cut-off line with "..." when there is room for the mark.
  std::size_t finish() noexcept {
    if (out_.empty()) {
      return 0;
    }
    if (truncated_ && capacity() >= 3) {
      size_ = capacity() - 3;
      std::memcpy(out_.data() + size_, "...", 3);
      size_ += 3;
    }
    out_[size_] = '\0';
    return size_;
  }

 private:
  std::size_t capacity() const noexcept { return out_.empty() ? 0 : out_.size() - 1; }

  template <typename Integer>
  void appendNumber(Integer value) noexcept {
    char digits[24];
    const auto result = std::to_chars(digits, digits + sizeof(digits), value);
    append(std::string_view(digits, static_cast<std::size_t>(result.ptr - digits)));
  }

  std::span<char> out_;
  std::size_t size_ = 0;
  bool truncated_ = false;
};

}  // namespace

const char* logLevelName(LogLevel level) noexcept {
  switch (level) {
    case LogLevel::Trace:
      return "trace";
    case LogLevel::Debug:
      return "debug";
    case LogLevel::Info:
      return "info";
    case LogLevel::Warn:
      return "warn";
    case LogLevel::Error:
      return "error";
    case LogLevel::Off:
      return "off";
  }
  return "?";
}

std::size_t formatLogRecord(const LogRecord& record, std::span<char> out) noexcept {
  LineWriter line(out);
  line.append("[");
  line.append(logLevelName(record.level));
  line.append("]");
  if (!record.tag.empty()) {
    line.append(" ");
    line.append(record.tag);
    line.append(":");
  }
  if (!record.message.empty()) {
    line.append(" ");
    line.append(record.message);
  }
  for (const LogField& field : record.fields) {
    line.append(" ");
    line.append(field.key);
    line.append("=");
    if (field.text.empty()) {
      line.append(field.value);
    } else {
      line.append(field.text);
    }
  }
  if (record.suppressed != 0) {
    line.append(" (suppressed ");
    line.append(record.suppressed);
    line.append(")");
  }
  return line.finish();
}

void defaultLogSink(void* /*user*/, const LogRecord& record) noexcept {
  // One fwrite per line so concurrent writers to stderr (outside this logger) interleave by line.
  char buffer[1024];
  const std::size_t length = formatLogRecord(record, std::span<char>(buffer, sizeof(buffer) - 1));
  buffer[length] = '\n';
  std::fwrite(buffer, 1, length + 1, stderr);
}

LogSinkBinding setLogSink(LogSink sink, void* user) noexcept {
  if (sink == nullptr) {
    user = nullptr;
  }
  const LogSink newSink = sink != nullptr ? sink : &defaultLogSink;
  std::unique_lock<std::mutex> lock(gSinkMutex, std::defer_lock);
  if (!tInSink) {
    lock.lock();  // Inside a sink this thread already holds the mutex.
  }
  LogSinkBinding previous{gSink, gSinkUser};
  if (previous.sink == &defaultLogSink) {
    previous = {nullptr, nullptr};
  }
  gSink = newSink;
  gSinkUser = user;
  return previous;
}

void setLogLevel(LogLevel level) noexcept {
  gLevel.store(level, std::memory_order_relaxed);
}

LogLevel logLevel() noexcept {
  return gLevel.load(std::memory_order_relaxed);
}

bool isLogEnabled(LogLevel level) noexcept {
  return passesThreshold(level);
}

void log(LogLevel level, std::string_view tag, std::string_view message,
         std::span<const LogField> fields) noexcept {
  if (!passesThreshold(level)) {
    return;
  }
  emit(LogRecord{level, tag, message, fields, 0});
}

bool RateLimiter::allow(std::string_view tag, std::uint64_t* suppressedOut) noexcept {
  const std::uint64_t hash = hash_ != nullptr ? hash_(tag) : fnv1a64(tag);
  const std::size_t prefixLength = std::min(tag.size(), kRateLimiterTagBytes);

  std::lock_guard<std::mutex> lock(mutex_);
  const std::uint64_t now = now_ != nullptr ? now_(clockUser_) : steadyClockNanoseconds();

  // Linear probing; entries are never removed, so the first unused slot ends the search.
  Slot* slot = nullptr;
  const std::size_t start = static_cast<std::size_t>(hash % kRateLimiterCapacity);
  for (std::size_t probe = 0; probe < kRateLimiterCapacity; ++probe) {
    Slot& candidate = slots_[(start + probe) % kRateLimiterCapacity];
    if (!candidate.used) {
      candidate.used = true;
      candidate.hash = hash;
      candidate.length = tag.size();
      if (prefixLength > 0) {
        std::memcpy(candidate.prefix, tag.data(), prefixLength);
      }
      candidate.lastAllowedNanoseconds = now;
      candidate.suppressed = 0;
      ++usedSlots_;
      if (suppressedOut != nullptr) {
        *suppressedOut = 0;
      }
      return true;
    }
    if (candidate.hash == hash && candidate.length == tag.size() &&
        (prefixLength == 0 || std::memcmp(candidate.prefix, tag.data(), prefixLength) == 0)) {
      slot = &candidate;
      break;
    }
  }
  if (slot == nullptr) {
    // Table full: pass unlimited rather than allocate or lose a warning.
    if (suppressedOut != nullptr) {
      *suppressedOut = 0;
    }
    return true;
  }

  const bool windowPassed = now < slot->lastAllowedNanoseconds ||
                            now - slot->lastAllowedNanoseconds >= windowNanoseconds_;
  if (!windowPassed) {
    ++slot->suppressed;
    return false;
  }
  if (suppressedOut != nullptr) {
    *suppressedOut = slot->suppressed;
  }
  slot->suppressed = 0;
  slot->lastAllowedNanoseconds = now;
  return true;
}

void RateLimiter::reset() noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  for (Slot& slot : slots_) {
    slot = Slot{};
  }
  usedSlots_ = 0;
}

std::size_t RateLimiter::trackedTags() const noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  return usedSlots_;
}

RateLimiter& defaultRateLimiter() noexcept {
  return gDefaultRateLimiter;
}

void logRateLimited(RateLimiter& limiter, LogLevel level, std::string_view tag,
                    std::string_view message, std::span<const LogField> fields) noexcept {
  if (!passesThreshold(level)) {
    return;
  }
  std::uint64_t suppressed = 0;
  if (!limiter.allow(tag, &suppressed)) {
    return;
  }
  emit(LogRecord{level, tag, message, fields, suppressed});
}

void logWarnLimited(std::string_view tag, std::string_view message,
                    std::span<const LogField> fields) noexcept {
  logRateLimited(gDefaultRateLimiter, LogLevel::Warn, tag, message, fields);
}

}  // namespace mote
