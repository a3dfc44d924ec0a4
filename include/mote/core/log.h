// SPDX-License-Identifier: MIT
// Logging: a replaceable sink with levels, structured numeric fields and per-tag rate limiting.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <mutex>
#include <span>
#include <string_view>

namespace mote {

/// How severe a record is. `Off` is only a threshold for setLogLevel(): a record at `Off` is never
/// emitted.
enum class LogLevel : std::uint8_t { Trace, Debug, Info, Warn, Error, Off };

/// The level's name as the default sink prints it ("trace", "debug", "info", "warn", "error",
/// "off"). Never null; "?" for a value outside the enum.
const char* logLevelName(LogLevel level) noexcept;

/// One structured field: numeric (`dropped=3`), so hot paths report numbers without formatting
/// text, or a short static text (`field=vel_box`) when `text` is not empty (then `value` is
/// unused). `key` and `text` are borrowed for the duration of the call.
struct LogField {
  std::string_view key;
  std::int64_t value = 0;
  std::string_view text = {};
};

/// What a sink receives. Every view is borrowed: valid only during the sink call, so a sink that
/// keeps anything must copy it.
struct LogRecord {
  LogLevel level;
  std::string_view tag;      ///< what happened, as "area/event", e.g. "particles/pool_overflow"
  std::string_view message;  ///< a short human text; may be empty
  std::span<const LogField> fields;
  /// How many earlier records with this tag the rate limiter dropped since the last one it let
  /// through; 0 for records that did not go through a limiter.
  std::uint64_t suppressed;
};

/// Receives each emitted record. Sink calls are serialized (one at a time, process-wide), so a sink
/// need not be thread-safe; it may run on any thread that logs. A sink must not throw. A record
/// that a sink logs itself (re-entrantly, on the same thread) is dropped rather than deadlock.
using LogSink = void (*)(void* user, const LogRecord& record);

/// A sink and the user pointer passed back to it. `{nullptr, nullptr}` names the default sink.
struct LogSinkBinding {
  LogSink sink;
  void* user;
};

/// Installs `sink` (nullptr restores the default stderr sink; `user` is then ignored) and returns
/// the previous binding, `{nullptr, nullptr}` when that was the default — so passing the returned
/// pair back restores it exactly. The caller keeps ownership of `user`, which must stay valid while
/// installed. Thread safety: atomic with respect to logging; once it returns, no call to the old
/// sink is running or will start. May be called from inside a sink (it applies from the next
/// record). Complexity: O(1), waits for a sink call in progress. Allocates: never.
LogSinkBinding setLogSink(LogSink sink, void* user) noexcept;

/// The sink installed when none is set: writes formatLogRecord()'s line plus '\n' to stderr with a
/// single write from a 1 KiB stack buffer (longer lines are truncated, ending in "..."). Public so
/// a custom sink can forward to it. Allocates: never.
void defaultLogSink(void* user, const LogRecord& record) noexcept;

/// Writes `record` as one line without a newline, NUL-terminated, into `out`:
/// `[warn] particles/pool_overflow: pool full dropped=3 live=10 capacity=10 (suppressed 5)`.
/// An empty message is omitted, as is "(suppressed N)" when N is 0; an empty tag drops the "tag:"
/// part. A line that does not fit is truncated and ends in "..." (when `out` holds at least 4
/// chars). Returns the number of chars written, excluding the NUL (0 when `out` is empty).
/// Complexity: O(line length). Allocates: never.
std::size_t formatLogRecord(const LogRecord& record, std::span<char> out) noexcept;

/// Sets the threshold: records below `level` are discarded before any rate limiter or sink. `Off`
/// discards everything. The default is `Info`. Thread safety: atomic (relaxed); records already
/// past the check may still be emitted. Allocates: never.
void setLogLevel(LogLevel level) noexcept;

/// The current threshold. Thread safety: atomic. Complexity: O(1). Allocates: never.
LogLevel logLevel() noexcept;

/// True when a record at `level` would pass the threshold; lets a caller skip preparing fields.
/// Complexity: O(1). Allocates: never.
bool isLogEnabled(LogLevel level) noexcept;

/// Sends one record (with `suppressed` = 0) to the sink if `level` passes the threshold. Everything
/// is borrowed for the call only. Thread safety: any thread; sink calls are serialized.
/// Complexity: O(1) plus the sink. Allocates: never (nor does the default sink).
void log(LogLevel level, std::string_view tag, std::string_view message,
         std::span<const LogField> fields = {}) noexcept;

/// log() with fields written inline: `log(LogLevel::Info, "a/b", "text", {{"emitter", 2}})`.
inline void log(LogLevel level, std::string_view tag, std::string_view message,
                std::initializer_list<LogField> fields) noexcept {
  log(level, tag, message, std::span<const LogField>(fields.begin(), fields.size()));
}

/// The clock a RateLimiter reads: monotonic nanoseconds from any fixed origin.
using RateLimiterClock = std::uint64_t (*)(void* user);

/// Hashes a tag for a RateLimiter's table. Injectable so tests can force collisions.
using RateLimiterHash = std::uint64_t (*)(std::string_view tag);

/// How many distinct tags a RateLimiter tracks.
inline constexpr std::size_t kRateLimiterCapacity = 64;
/// How many bytes of each tag a RateLimiter keeps (with the hash and the length) to tell tags
/// apart.
inline constexpr std::size_t kRateLimiterTagBytes = 47;
/// The default window: one record per tag per second.
inline constexpr std::uint64_t kRateLimiterDefaultWindowNanoseconds = 1'000'000'000;

/// Lets at most one record per tag through per window. Tags live in a fixed table of
/// kRateLimiterCapacity entries (open addressing on the tag's hash; an entry keeps the hash, the
/// length and the first kRateLimiterTagBytes bytes, so the caller's tag need not outlive the call).
/// Entries are never evicted: once the table is full, unknown tags pass unlimited rather than
/// allocate or drop. Two tags that share hash, length and first kRateLimiterTagBytes bytes share an
/// entry. Thread safety: every member is internally synchronized (a mutex per limiter); the clock
/// is called under it. Not copyable or movable.
class RateLimiter {
 public:
  /// `windowNanoseconds` = 0 lets every record through. `now` = nullptr reads
  /// std::chrono::steady_clock (and ignores `clockUser`); `hash` = nullptr uses 64-bit FNV-1a over
  /// the tag's bytes. `clockUser` is the caller's and must outlive the limiter. Allocates: never.
  constexpr explicit RateLimiter(
      std::uint64_t windowNanoseconds = kRateLimiterDefaultWindowNanoseconds,
      RateLimiterClock now = nullptr, void* clockUser = nullptr,
      RateLimiterHash hash = nullptr) noexcept
      : windowNanoseconds_(windowNanoseconds), now_(now), clockUser_(clockUser), hash_(hash) {}

  RateLimiter(const RateLimiter&) = delete;
  RateLimiter& operator=(const RateLimiter&) = delete;

  /// True when a record with `tag` may be emitted now: the tag's first record, or the first once
  /// `windowNanoseconds` have passed since the last one allowed (a clock that went backwards counts
  /// as a passed window). A false return counts one suppressed record for the tag. On true, if
  /// `suppressedOut` is non-null it receives the number suppressed since the previous allowed
  /// record (then reset to 0); on false it is left untouched. Complexity: O(1) expected,
  /// O(capacity) worst case. Allocates: never.
  bool allow(std::string_view tag, std::uint64_t* suppressedOut) noexcept;

  /// Forgets every tag (and its suppressed count). Allocates: never.
  void reset() noexcept;

  /// How many tags hold a table entry (at most kRateLimiterCapacity).
  std::size_t trackedTags() const noexcept;

  std::uint64_t windowNanoseconds() const noexcept { return windowNanoseconds_; }

 private:
  struct Slot {
    std::uint64_t hash = 0;
    std::uint64_t lastAllowedNanoseconds = 0;
    std::uint64_t suppressed = 0;
    std::size_t length = 0;
    bool used = false;
    char prefix[kRateLimiterTagBytes] = {};
  };

  std::uint64_t windowNanoseconds_;
  RateLimiterClock now_;
  void* clockUser_;
  RateLimiterHash hash_;
  mutable std::mutex mutex_;
  std::size_t usedSlots_ = 0;
  Slot slots_[kRateLimiterCapacity] = {};
};

/// The process-wide limiter behind logWarnLimited() (default window, steady clock). Constant-
/// initialized, so usable from static initializers. Thread safety: see RateLimiter.
RateLimiter& defaultRateLimiter() noexcept;

/// Sends a record through `limiter` then the sink: discarded if `level` is below the threshold
/// (without touching the limiter), dropped and counted if the limiter suppresses it, otherwise
/// emitted with `suppressed` set. Thread safety: any thread. Complexity: O(1) expected plus the
/// sink. Allocates: never.
void logRateLimited(RateLimiter& limiter, LogLevel level, std::string_view tag,
                    std::string_view message, std::span<const LogField> fields = {}) noexcept;

inline void logRateLimited(RateLimiter& limiter, LogLevel level, std::string_view tag,
                           std::string_view message,
                           std::initializer_list<LogField> fields) noexcept {
  logRateLimited(limiter, level, tag, message,
                 std::span<const LogField>(fields.begin(), fields.size()));
}

/// A Warn through defaultRateLimiter(): what engine code calls for capacity problems in hot paths,
/// e.g. `logWarnLimited("particles/pool_overflow", "pool full", {{"dropped", n}, ...})`. The
/// caller's own policy (laige: at most one per tick) comes first; this limiter is the second layer.
/// Thread safety: any thread. Complexity: O(1) expected plus the sink. Allocates: never.
void logWarnLimited(std::string_view tag, std::string_view message,
                    std::span<const LogField> fields = {}) noexcept;

inline void logWarnLimited(std::string_view tag, std::string_view message,
                           std::initializer_list<LogField> fields) noexcept {
  logWarnLimited(tag, message, std::span<const LogField>(fields.begin(), fields.size()));
}

}  // namespace mote
