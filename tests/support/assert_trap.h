// SPDX-License-Identifier: MIT
// AssertTrap: turns MOTE_ASSERT failures into C++ exceptions for the duration of a test scope.
#pragma once

#include <mote/core/assert.h>

#include <string>

namespace mote::test {

/// Thrown by the trap's handler; carries the failed expression and message.
struct AssertTrapped {
  std::string expression;
  std::string message;
};

/// While alive, a failed MOTE_ASSERT throws AssertTrapped instead of aborting, so tests can check
/// that a contract violation is caught: EXPECT_THROW(call(), AssertTrapped).
class AssertTrap {
 public:
  AssertTrap() noexcept : previous_(setAssertHandler(&raise)) {}
  ~AssertTrap() { setAssertHandler(previous_); }
  AssertTrap(const AssertTrap&) = delete;
  AssertTrap& operator=(const AssertTrap&) = delete;

 private:
  static void raise(const AssertInfo& info) { throw AssertTrapped{info.expression, info.message}; }
  AssertHandler previous_;
};

}  // namespace mote::test
