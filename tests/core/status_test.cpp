// SPDX-License-Identifier: MIT
// Tests of Status, Result<T> and MOTE_RETURN_IF_ERROR.
#include "support/assert_trap.h"

#include <mote/core/status.h>

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace mote {
namespace {

TEST(Status, DefaultIsOkAndEmpty) {
  const Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::Ok);
  EXPECT_EQ(s.message(), "");
  EXPECT_FALSE(s.location().has_value());
  EXPECT_EQ(s.toString(), "Ok");
}

TEST(Status, ErrorKeepsCodeAndMessage) {
  const Status s = invalidArgument("maxParticles is 0");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
  EXPECT_EQ(s.message(), "maxParticles is 0");
  EXPECT_EQ(s.toString(), "InvalidArgument: maxParticles is 0");
}

TEST(Status, ShorthandsCarryTheirCodes) {
  EXPECT_EQ(budgetExhausted("x").code(), StatusCode::BudgetExhausted);
  EXPECT_EQ(parseError("x").code(), StatusCode::ParseError);
  EXPECT_EQ(unsupported("x").code(), StatusCode::Unsupported);
  EXPECT_EQ(ioError("x").code(), StatusCode::IoError);
  EXPECT_EQ(notFound("x").code(), StatusCode::NotFound);
}

TEST(Status, CodeNamesAreStable) {
  EXPECT_STREQ(statusCodeName(StatusCode::Ok), "Ok");
  EXPECT_STREQ(statusCodeName(StatusCode::BudgetExhausted), "BudgetExhausted");
  EXPECT_STREQ(statusCodeName(StatusCode::ParseError), "ParseError");
  EXPECT_STREQ(statusCodeName(StatusCode::Internal), "Internal");
  EXPECT_STREQ(statusCodeName(StatusCode::Unavailable), "Unavailable");
  EXPECT_STREQ(statusCodeName(StatusCode::DeviceLost), "DeviceLost");
  EXPECT_STREQ(statusCodeName(StatusCode::OutOfMemory), "OutOfMemory");
  EXPECT_STREQ(statusCodeName(static_cast<StatusCode>(200)), "Unknown");
}

TEST(Status, ToStringNamesFileLineColumnAndPath) {
  const Status s = parseError("expected a number", {"bonfire.json", 12, 7, "/emitters/0/rate"});
  ASSERT_TRUE(s.location().has_value());
  EXPECT_EQ(s.location()->line, 12u);
  EXPECT_EQ(s.toString(), "bonfire.json:12:7: /emitters/0/rate: ParseError: expected a number");
}

TEST(Status, ToStringLeavesOutUnknownParts) {
  EXPECT_EQ(parseError("junk", {"a.mdl", 3, 0, ""}).toString(), "a.mdl:3: ParseError: junk");
  EXPECT_EQ(parseError("junk", {"", 0, 0, "emitter.velMin"}).toString(),
            "emitter.velMin: ParseError: junk");
  EXPECT_EQ(parseError("junk", {"", 4, 2, ""}).toString(), "line 4, column 2: ParseError: junk");
  // An empty location is no location.
  EXPECT_FALSE(parseError("junk", {}).location().has_value());
}

TEST(Status, WithLocationAttachesAndReplaces) {
  Status s = invalidArgument("bad").withLocation({"f.json", 1, 2, ""});
  EXPECT_EQ(s.toString(), "f.json:1:2: InvalidArgument: bad");
  s = std::move(s).withLocation({"g.json", 5, 0, ""});
  EXPECT_EQ(s.toString(), "g.json:5: InvalidArgument: bad");
  s = std::move(s).withLocation({});
  EXPECT_FALSE(s.location().has_value());
}

TEST(Status, CopiesAreDeepAndSuccessIsSmall) {
  Status original = parseError("bad", {"a.json", 2, 3, "/x"});
  Status copy = original;
  EXPECT_EQ(copy, original);
  original = std::move(original).withLocation({"b.json", 9, 0, ""});
  EXPECT_NE(copy, original);  // the copy kept its own location
  EXPECT_EQ(copy.toString(), "a.json:2:3: /x: ParseError: bad");
  Status moved = std::move(copy);
  EXPECT_EQ(moved.toString(), "a.json:2:3: /x: ParseError: bad");
  EXPECT_TRUE(copy.ok());  // NOLINT(bugprone-use-after-move): a moved-from Status is success
  EXPECT_EQ(copy.message(), "");
  copy = Status();
  EXPECT_TRUE(copy.ok());
  EXPECT_EQ(copy.message(), "");
  // Success is a code and a null pointer: cheap to return from per-item hot paths.
  EXPECT_LE(sizeof(Status), 2 * sizeof(void*));
}

TEST(Status, Equality) {
  EXPECT_EQ(Status(), Status());
  EXPECT_EQ(invalidArgument("a"), invalidArgument("a"));
  EXPECT_NE(invalidArgument("a"), invalidArgument("b"));
  EXPECT_NE(invalidArgument("a"), unsupported("a"));
}

TEST(Result, HoldsAValue) {
  Result<int> r = 42;
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r.status().ok());
  EXPECT_EQ(r.value(), 42);
  EXPECT_EQ(*r, 42);
}

TEST(Result, HoldsAnError) {
  const Result<int> r = budgetExhausted("emitter table full");
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::BudgetExhausted);
  EXPECT_EQ(r.status().message(), "emitter table full");
}

TEST(Result, TakeValueMovesAMoveOnlyType) {
  Result<std::unique_ptr<int>> r = std::make_unique<int>(7);
  ASSERT_TRUE(r.ok());
  std::unique_ptr<int> p = std::move(r).takeValue();
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(*p, 7);
}

TEST(Result, ConvertsFromConstructibleValues) {
  Result<std::string> r = "text";
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->size(), 4u);
}

TEST(Result, StatusCanBeMovedOut) {
  Result<int> r = notFound("animation 'cast' not in model");
  Status s = std::move(r).status();
  EXPECT_EQ(s.code(), StatusCode::NotFound);
  EXPECT_EQ(s.message(), "animation 'cast' not in model");
}

#if MOTE_ASSERTS_ENABLED
TEST(Result, ReadingAFailedResultIsAContractViolation) {
  test::AssertTrap trap;
  Result<int> r = ioError("cannot open");
  EXPECT_THROW((void)r.value(), test::AssertTrapped);
  EXPECT_THROW((void)std::move(r).takeValue(), test::AssertTrapped);
}

TEST(Result, BuildingFromAnOkStatusIsAContractViolation) {
  test::AssertTrap trap;
  EXPECT_THROW((void)Result<int>{Status()}, test::AssertTrapped);
  EXPECT_THROW((void)Status(StatusCode::Ok, "no"), test::AssertTrapped);
}
#endif

Status failsAt(int step, int& reached) {
  for (int i = 0; i < 3; ++i) {
    MOTE_RETURN_IF_ERROR(i == step ? invalidArgument("step " + std::to_string(i)) : Status());
    reached = i;
  }
  return {};
}

TEST(Status, ReturnIfErrorStopsAtTheFirstError) {
  int reached = -1;
  const Status s = failsAt(1, reached);
  EXPECT_EQ(s.message(), "step 1");
  EXPECT_EQ(reached, 0);
  reached = -1;
  EXPECT_TRUE(failsAt(5, reached).ok());
  EXPECT_EQ(reached, 2);
}

}  // namespace
}  // namespace mote
