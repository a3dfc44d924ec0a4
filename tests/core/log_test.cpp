// SPDX-License-Identifier: MIT
// Tests for the log sink, level threshold, line format and RateLimiter.
#include <mote/core/alloc_watch.h>
#include <mote/core/log.h>

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace mote {
namespace {

struct CapturedRecord {
  LogLevel level = LogLevel::Off;
  std::string tag;
  std::string message;
  std::vector<std::pair<std::string, std::int64_t>> fields;
  std::uint64_t suppressed = 0;
};

struct Capture {
  std::vector<CapturedRecord> records;
};

void captureSink(void* user, const LogRecord& record) {
  CapturedRecord copy{
      record.level, std::string(record.tag), std::string(record.message), {}, record.suppressed};
  for (const LogField& field : record.fields) {
    copy.fields.emplace_back(std::string(field.key), field.value);
  }
  static_cast<Capture*>(user)->records.push_back(std::move(copy));
}

std::uint64_t fakeNow(void* user) {
  return *static_cast<std::uint64_t*>(user);
}

std::uint64_t constantHash(std::string_view /*tag*/) {
  return 7;
}

using Fields = std::vector<std::pair<std::string, std::int64_t>>;

// Restores the process-wide logger after every test so tests cannot leak state into each other.
class LogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    savedLevel_ = logLevel();
    savedSink_ = setLogSink(&captureSink, &capture_);
    setLogLevel(LogLevel::Info);
    defaultRateLimiter().reset();
  }
  void TearDown() override {
    setLogSink(savedSink_.sink, savedSink_.user);
    setLogLevel(savedLevel_);
    defaultRateLimiter().reset();
  }

  Capture capture_;

 private:
  LogLevel savedLevel_ = LogLevel::Info;
  LogSinkBinding savedSink_{nullptr, nullptr};
};

TEST_F(LogTest, SinkReceivesLevelTagMessageAndFieldsExactly) {
  const LogField fields[] = {{"dropped", 3}, {"live", 10}, {"capacity", -10}};
  mote::log(LogLevel::Warn, "particles/pool_overflow", "pool full", fields);
  mote::log(LogLevel::Info, "core/inline", "inline fields", {{"emitter", 2}});
  mote::log(LogLevel::Error, "core/none", "");

  ASSERT_EQ(capture_.records.size(), 3u);
  const CapturedRecord& first = capture_.records[0];
  EXPECT_EQ(first.level, LogLevel::Warn);
  EXPECT_EQ(first.tag, "particles/pool_overflow");
  EXPECT_EQ(first.message, "pool full");
  EXPECT_EQ(first.fields, (Fields{{"dropped", 3}, {"live", 10}, {"capacity", -10}}));
  EXPECT_EQ(first.suppressed, 0u);

  EXPECT_EQ(capture_.records[1].level, LogLevel::Info);
  EXPECT_EQ(capture_.records[1].fields, (Fields{{"emitter", 2}}));

  EXPECT_EQ(capture_.records[2].level, LogLevel::Error);
  EXPECT_EQ(capture_.records[2].tag, "core/none");
  EXPECT_TRUE(capture_.records[2].message.empty());
  EXPECT_TRUE(capture_.records[2].fields.empty());
}

TEST_F(LogTest, RecordsBelowTheLevelAreDiscarded) {
  EXPECT_EQ(logLevel(), LogLevel::Info);
  mote::log(LogLevel::Trace, "t", "trace");
  mote::log(LogLevel::Debug, "t", "debug");
  mote::log(LogLevel::Info, "t", "info");
  ASSERT_EQ(capture_.records.size(), 1u);
  EXPECT_EQ(capture_.records[0].message, "info");

  setLogLevel(LogLevel::Warn);
  EXPECT_EQ(logLevel(), LogLevel::Warn);
  EXPECT_FALSE(isLogEnabled(LogLevel::Info));
  EXPECT_TRUE(isLogEnabled(LogLevel::Warn));
  mote::log(LogLevel::Info, "t", "info");
  mote::log(LogLevel::Warn, "t", "warn");
  mote::log(LogLevel::Error, "t", "error");
  ASSERT_EQ(capture_.records.size(), 3u);
  EXPECT_EQ(capture_.records[1].message, "warn");
  EXPECT_EQ(capture_.records[2].message, "error");

  setLogLevel(LogLevel::Trace);
  mote::log(LogLevel::Trace, "t", "trace");
  mote::log(LogLevel::Off, "t", "off is never a record level");
  ASSERT_EQ(capture_.records.size(), 4u);
  EXPECT_EQ(capture_.records[3].level, LogLevel::Trace);

  setLogLevel(LogLevel::Off);
  EXPECT_FALSE(isLogEnabled(LogLevel::Error));
  mote::log(LogLevel::Error, "t", "error");
  logWarnLimited("t/limited", "warn");
  EXPECT_EQ(capture_.records.size(), 4u);
  // A filtered record never reaches the limiter.
  EXPECT_EQ(defaultRateLimiter().trackedTags(), 0u);
}

TEST_F(LogTest, SetLogSinkReturnsThePreviousBindingAndNullRestoresTheDefault) {
  Capture other;
  const LogSinkBinding previous = setLogSink(&captureSink, &other);
  EXPECT_EQ(previous.sink, &captureSink);
  EXPECT_EQ(previous.user, &capture_);

  mote::log(LogLevel::Info, "t", "to other");
  EXPECT_TRUE(capture_.records.empty());
  ASSERT_EQ(other.records.size(), 1u);

  int ignored = 0;
  const LogSinkBinding beforeDefault = setLogSink(nullptr, &ignored);
  EXPECT_EQ(beforeDefault.sink, &captureSink);
  EXPECT_EQ(beforeDefault.user, &other);

  // The default is reported as {nullptr, nullptr}, whatever user was passed with nullptr.
  const LogSinkBinding defaultBinding = setLogSink(&captureSink, &capture_);
  EXPECT_EQ(defaultBinding.sink, nullptr);
  EXPECT_EQ(defaultBinding.user, nullptr);
}

TEST_F(LogTest, DefaultSinkWritesOneFormattedLineToStderr) {
  std::uint64_t now = 0;
  RateLimiter limiter(100, &fakeNow, &now);
  setLogSink(nullptr, nullptr);

  testing::internal::CaptureStderr();
  logRateLimited(limiter, LogLevel::Warn, "particles/pool_overflow", "first", {{"dropped", 1}});
  for (int i = 0; i < 5; ++i) {
    logRateLimited(limiter, LogLevel::Warn, "particles/pool_overflow", "suppressed");
  }
  now = 100;
  logRateLimited(limiter, LogLevel::Warn, "particles/pool_overflow", "pool full",
                 {{"dropped", 3}, {"live", 10}, {"capacity", 10}});
  const std::string text = testing::internal::GetCapturedStderr();

  EXPECT_EQ(text,
            "[warn] particles/pool_overflow: first dropped=1\n"
            "[warn] particles/pool_overflow: pool full dropped=3 live=10 capacity=10 "
            "(suppressed 5)\n");
}

TEST(LogFormatTest, FormatsEveryPart) {
  std::array<char, 256> buffer{};
  const LogField fields[] = {
      {"emitter", 2}, {"min", std::numeric_limits<std::int64_t>::min()}, {"field", 0, "vel_box"}};
  const LogRecord full{LogLevel::Error, "particles/emitter_invalid", "bad def", fields, 12};
  const std::size_t length = formatLogRecord(full, buffer);
  EXPECT_EQ(std::string(buffer.data()),
            "[error] particles/emitter_invalid: bad def emitter=2 min=-9223372036854775808 "
            "field=vel_box (suppressed 12)");
  EXPECT_EQ(length, std::string(buffer.data()).size());

  formatLogRecord(
      LogRecord{LogLevel::Debug, "a/b", "", std::span<const LogField>(fields).first(1), 0}, buffer);
  EXPECT_STREQ(buffer.data(), "[debug] a/b: emitter=2");

  formatLogRecord(LogRecord{LogLevel::Trace, "", "just text", {}, 0}, buffer);
  EXPECT_STREQ(buffer.data(), "[trace] just text");

  EXPECT_STREQ(logLevelName(LogLevel::Info), "info");
  EXPECT_STREQ(logLevelName(LogLevel::Warn), "warn");
  EXPECT_STREQ(logLevelName(LogLevel::Off), "off");
}

TEST(LogFormatTest, TruncatesWithAMarkAndNeverOverruns) {
  const LogRecord record{LogLevel::Warn, "particles/pool_overflow", "pool full", {}, 0};
  std::array<char, 16> buffer{};
  buffer.fill('#');
  const std::size_t length = formatLogRecord(record, std::span<char>(buffer.data(), 12));
  EXPECT_EQ(length, 11u);
  EXPECT_STREQ(buffer.data(), "[warn] p...");
  EXPECT_EQ(buffer[12], '#');

  EXPECT_EQ(formatLogRecord(record, std::span<char>(buffer.data(), 3)), 2u);
  EXPECT_STREQ(buffer.data(), "[w");
  EXPECT_EQ(formatLogRecord(record, std::span<char>(buffer.data(), 1)), 0u);
  EXPECT_STREQ(buffer.data(), "");
  EXPECT_EQ(formatLogRecord(record, std::span<char>()), 0u);

  // Exactly fitting is not truncation.
  const std::string line = "[warn] particles/pool_overflow: pool full";
  std::vector<char> exact(line.size() + 1, '#');
  EXPECT_EQ(formatLogRecord(record, exact), line.size());
  EXPECT_EQ(std::string(exact.data()), line);
}

TEST(RateLimiterTest, AllowsOncePerWindowAndReportsTheSuppressedCount) {
  std::uint64_t now = 1000;
  RateLimiter limiter(50, &fakeNow, &now);
  EXPECT_EQ(limiter.windowNanoseconds(), 50u);

  std::uint64_t suppressed = 99;
  EXPECT_TRUE(limiter.allow("a/x", &suppressed));
  EXPECT_EQ(suppressed, 0u);

  suppressed = 99;
  EXPECT_FALSE(limiter.allow("a/x", &suppressed));
  EXPECT_EQ(suppressed, 99u);  // untouched on a suppression
  now = 1049;
  EXPECT_FALSE(limiter.allow("a/x", nullptr));
  EXPECT_FALSE(limiter.allow("a/x", &suppressed));

  now = 1050;  // exactly one window after the last allowed record
  EXPECT_TRUE(limiter.allow("a/x", &suppressed));
  EXPECT_EQ(suppressed, 3u);

  // The window restarts at the record just allowed, and the count at zero.
  now = 1099;
  EXPECT_FALSE(limiter.allow("a/x", &suppressed));
  now = 1100;
  EXPECT_TRUE(limiter.allow("a/x", &suppressed));
  EXPECT_EQ(suppressed, 1u);
  now = 5000;
  EXPECT_TRUE(limiter.allow("a/x", &suppressed));
  EXPECT_EQ(suppressed, 0u);
}

TEST(RateLimiterTest, TagsAreIndependent) {
  std::uint64_t now = 0;
  RateLimiter limiter(10, &fakeNow, &now);
  std::uint64_t suppressed = 0;
  EXPECT_TRUE(limiter.allow("a/x", &suppressed));
  EXPECT_TRUE(limiter.allow("a/y", &suppressed));
  EXPECT_FALSE(limiter.allow("a/x", &suppressed));
  EXPECT_FALSE(limiter.allow("a/x", &suppressed));
  EXPECT_FALSE(limiter.allow("a/y", &suppressed));
  EXPECT_EQ(limiter.trackedTags(), 2u);
  now = 10;
  EXPECT_TRUE(limiter.allow("a/x", &suppressed));
  EXPECT_EQ(suppressed, 2u);
  EXPECT_TRUE(limiter.allow("a/y", &suppressed));
  EXPECT_EQ(suppressed, 1u);
}

TEST(RateLimiterTest, ZeroWindowAndBackwardClockLetRecordsThrough) {
  std::uint64_t now = 100;
  RateLimiter open(0, &fakeNow, &now);
  std::uint64_t suppressed = 1;
  EXPECT_TRUE(open.allow("t", &suppressed));
  EXPECT_TRUE(open.allow("t", &suppressed));
  EXPECT_EQ(suppressed, 0u);

  RateLimiter limiter(10, &fakeNow, &now);
  EXPECT_TRUE(limiter.allow("t", &suppressed));
  EXPECT_FALSE(limiter.allow("t", &suppressed));
  now = 50;
  EXPECT_TRUE(limiter.allow("t", &suppressed));
  EXPECT_EQ(suppressed, 1u);
  EXPECT_FALSE(limiter.allow("t", &suppressed));
}

TEST(RateLimiterTest, FullTableLetsUnknownTagsPassUnlimited) {
  std::uint64_t now = 0;
  RateLimiter limiter(10, &fakeNow, &now);
  std::vector<std::string> tags;
  for (std::size_t i = 0; i < kRateLimiterCapacity; ++i) {
    tags.push_back("tag/" + std::to_string(i));
    EXPECT_TRUE(limiter.allow(tags.back(), nullptr)) << tags.back();
  }
  EXPECT_EQ(limiter.trackedTags(), kRateLimiterCapacity);

  std::uint64_t suppressed = 99;
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(limiter.allow("tag/overflow", &suppressed));
    EXPECT_EQ(suppressed, 0u);
  }
  EXPECT_EQ(limiter.trackedTags(), kRateLimiterCapacity);
  // Tracked tags are still limited.
  for (const std::string& tag : tags) {
    EXPECT_FALSE(limiter.allow(tag, nullptr)) << tag;
  }

  limiter.reset();
  EXPECT_EQ(limiter.trackedTags(), 0u);
  EXPECT_TRUE(limiter.allow(tags.front(), nullptr));
  EXPECT_FALSE(limiter.allow(tags.front(), nullptr));
}

TEST(RateLimiterTest, CollidingHashesAreToldApart) {
  std::uint64_t now = 0;
  RateLimiter limiter(10, &fakeNow, &now, &constantHash);
  EXPECT_TRUE(limiter.allow("a/x", nullptr));
  EXPECT_TRUE(limiter.allow("a/y", nullptr));
  EXPECT_TRUE(limiter.allow("a/xy", nullptr));  // same prefix, different length
  EXPECT_TRUE(limiter.allow("", nullptr));
  EXPECT_FALSE(limiter.allow("a/x", nullptr));
  EXPECT_FALSE(limiter.allow("a/y", nullptr));
  EXPECT_FALSE(limiter.allow("a/xy", nullptr));
  EXPECT_FALSE(limiter.allow("", nullptr));
  EXPECT_EQ(limiter.trackedTags(), 4u);

  // Tags longer than the stored prefix differ by length past it.
  const std::string longTag(kRateLimiterTagBytes + 5, 'q');
  EXPECT_TRUE(limiter.allow(longTag, nullptr));
  EXPECT_TRUE(limiter.allow(longTag + "q", nullptr));
  EXPECT_FALSE(limiter.allow(longTag, nullptr));
}

TEST(RateLimiterTest, TagNeedNotOutliveTheCall) {
  std::uint64_t now = 0;
  RateLimiter limiter(10, &fakeNow, &now);
  std::string tag = "particles/pool_overflow";
  EXPECT_TRUE(limiter.allow(tag, nullptr));
  tag.assign(tag.size(), 'z');  // overwrite the caller's bytes
  EXPECT_FALSE(limiter.allow(std::string("particles/pool_overflow"), nullptr));
  EXPECT_TRUE(limiter.allow(tag, nullptr));
}

TEST(RateLimiterTest, DefaultClockLimitsWithinOneSecond) {
  RateLimiter limiter;
  EXPECT_EQ(limiter.windowNanoseconds(), kRateLimiterDefaultWindowNanoseconds);
  EXPECT_TRUE(limiter.allow("t", nullptr));
  EXPECT_FALSE(limiter.allow("t", nullptr));
}

TEST_F(LogTest, RateLimitedRecordsCarryTheSuppressedCount) {
  std::uint64_t now = 0;
  RateLimiter limiter(10, &fakeNow, &now);
  for (int i = 0; i < 4; ++i) {
    logRateLimited(limiter, LogLevel::Error, "a/b", "m", {{"i", i}});
  }
  now = 10;
  logRateLimited(limiter, LogLevel::Error, "a/b", "m", {{"i", 4}});
  ASSERT_EQ(capture_.records.size(), 2u);
  EXPECT_EQ(capture_.records[0].suppressed, 0u);
  EXPECT_EQ(capture_.records[0].fields, (Fields{{"i", 0}}));
  EXPECT_EQ(capture_.records[1].suppressed, 3u);
  EXPECT_EQ(capture_.records[1].fields, (Fields{{"i", 4}}));
  EXPECT_EQ(capture_.records[1].level, LogLevel::Error);
}

TEST_F(LogTest, LogWarnLimitedGoesThroughTheDefaultLimiterToTheSink) {
  for (std::int64_t dropped = 1; dropped <= 3; ++dropped) {
    logWarnLimited("particles/pool_overflow", "pool full",
                   {{"dropped", dropped}, {"live", 10}, {"capacity", 10}});
  }
  logWarnLimited("particles/emitters_exhausted", "registry full", {{"capacity", 4}});

  ASSERT_EQ(capture_.records.size(), 2u);
  const CapturedRecord& overflow = capture_.records[0];
  EXPECT_EQ(overflow.level, LogLevel::Warn);
  EXPECT_EQ(overflow.tag, "particles/pool_overflow");
  EXPECT_EQ(overflow.message, "pool full");
  EXPECT_EQ(overflow.fields, (Fields{{"dropped", 1}, {"live", 10}, {"capacity", 10}}));
  EXPECT_EQ(overflow.suppressed, 0u);
  EXPECT_EQ(capture_.records[1].tag, "particles/emitters_exhausted");
  EXPECT_EQ(defaultRateLimiter().trackedTags(), 2u);
}

void reentrantSink(void* user, const LogRecord& record) {
  captureSink(user, record);
  mote::log(LogLevel::Error, "inner", "dropped: logged from a sink");
}

Capture* gSwapTarget = nullptr;

void swappingSink(void* /*user*/, const LogRecord& /*record*/) {
  setLogSink(&captureSink, gSwapTarget);
}

TEST_F(LogTest, SinksMayLogOrSwapTheSinkWithoutDeadlock) {
  setLogSink(&reentrantSink, &capture_);
  mote::log(LogLevel::Info, "outer", "m");
  ASSERT_EQ(capture_.records.size(), 1u);
  EXPECT_EQ(capture_.records[0].tag, "outer");

  gSwapTarget = &capture_;
  setLogSink(&swappingSink, nullptr);
  mote::log(LogLevel::Info, "swap", "handled by swappingSink");
  mote::log(LogLevel::Info, "after", "handled by captureSink");
  ASSERT_EQ(capture_.records.size(), 2u);
  EXPECT_EQ(capture_.records[1].tag, "after");
}

TEST_F(LogTest, NoPathAllocates) {
  if (!allocationWatchInstalled()) {
    GTEST_SKIP() << "the counting operator new is not linked in";
  }
  struct Counter {
    int records = 0;
  } counter;
  const LogSink counting = [](void* user, const LogRecord&) {
    ++static_cast<Counter*>(user)->records;
  };
  std::uint64_t now = 0;
  RateLimiter limiter(10, &fakeNow, &now);
  std::array<char, 128> buffer{};
  testing::internal::CaptureStderr();
  {
    AllocationScope scope;
    setLogSink(counting, &counter);
    mote::log(LogLevel::Info, "a/b", "m", {{"k", 1}});
    mote::log(LogLevel::Trace, "a/b", "filtered");
    logWarnLimited("a/warn", "m", {{"k", 2}});
    logWarnLimited("a/warn", "m", {{"k", 3}});
    for (int i = 0; i < 3; ++i) {
      logRateLimited(limiter, LogLevel::Error, "a/limited", "m");
    }
    formatLogRecord(LogRecord{LogLevel::Warn, "a/b", "m", {}, 4}, buffer);
    setLogSink(nullptr, nullptr);
    mote::log(LogLevel::Warn, "a/default", "to stderr", {{"k", 4}});
    limiter.reset();
    EXPECT_EQ(scope.allocations(), 0u);
  }
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "[warn] a/default: to stderr k=4\n");
  EXPECT_EQ(counter.records, 3);
}

// Not thread-safe on purpose: the logger serializes sink calls, and TSan checks that it does.
struct CountingSink {
  std::uint64_t records = 0;
  std::uint64_t fieldSum = 0;
};

void countingSink(void* user, const LogRecord& record) {
  auto* sink = static_cast<CountingSink*>(user);
  ++sink->records;
  for (const LogField& field : record.fields) {
    sink->fieldSum += static_cast<std::uint64_t>(field.value);
  }
}

TEST_F(LogTest, FourThreadsLogConcurrentlyThroughASerializedSink) {
  constexpr int kThreads = 4;
  constexpr int kPerThread = 200;
  CountingSink a;
  CountingSink b;
  setLogSink(&countingSink, &a);

  std::atomic<std::uint64_t> clock{0};
  RateLimiter limiter(
      1'000'000, [](void* user) { return static_cast<std::atomic<std::uint64_t>*>(user)->load(); },
      &clock);

  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &limiter, &a, &b] {
      for (int i = 0; i < kPerThread; ++i) {
        mote::log(LogLevel::Info, "threads/log", "m", {{"one", 1}});
        logWarnLimited("threads/warn", "m", {{"one", 1}});
        logRateLimited(limiter, LogLevel::Warn, "threads/limited", "m");
        if (t == 0 && i % 16 == 0) {
          // Swapping sinks while others log: each record lands in exactly one of them.
          setLogSink(&countingSink, (i / 16) % 2 == 0 ? &b : &a);
        }
      }
    });
  }
  for (std::thread& thread : threads) {
    thread.join();
  }
  setLogSink(&captureSink, &capture_);

  // Every log() record plus one logWarnLimited record plus one logRateLimited record.
  const std::uint64_t expected = kThreads * kPerThread + 2;
  EXPECT_EQ(a.records + b.records, expected);
  EXPECT_EQ(a.fieldSum + b.fieldSum, kThreads * kPerThread + 1u);

  clock.store(1'000'000);
  logRateLimited(limiter, LogLevel::Warn, "threads/limited", "m");
  ASSERT_EQ(capture_.records.size(), 1u);
  EXPECT_EQ(capture_.records[0].suppressed, kThreads * kPerThread - 1u);
}

}  // namespace
}  // namespace mote
