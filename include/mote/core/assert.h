// SPDX-License-Identifier: MIT
// MOTE_ASSERT: contract checks for caller bugs, routed through a replaceable handler (ARCHITECTURE
// §4.1).
#pragma once

namespace mote {

/// What a failed assertion reports to the handler. All strings are static (they point into the
/// binary).
struct AssertInfo {
  const char* expression;
  const char* message;  ///< the assert's explanation; never null (empty when none was given)
  const char* file;
  int line;
};

/// Called on a failed MOTE_ASSERT. If the handler returns, the process aborts; a test harness may
/// throw from it instead (never across a `noexcept` boundary). Must be safe to call from any
/// thread.
using AssertHandler = void (*)(const AssertInfo& info);

/// Installs `handler` (nullptr restores the default, which prints to stderr) and returns the
/// previous one. Thread safety: atomic; install handlers at start-up, not while other threads
/// assert.
AssertHandler setAssertHandler(AssertHandler handler) noexcept;

/// Reports a failure through the current handler, then aborts if the handler returned.
[[noreturn]] void assertFailed(const AssertInfo& info);

}  // namespace mote

#if defined(MOTE_ENABLE_ASSERTS) || !defined(NDEBUG)
#define MOTE_ASSERTS_ENABLED 1
/// Checks a caller contract. On in builds without NDEBUG and wherever MOTE_ENABLE_ASSERTS is
/// defined; otherwise the expression is not evaluated (but still compiled, so it cannot rot).
#define MOTE_ASSERT(expr, ...) \
  (static_cast<bool>(expr)     \
       ? static_cast<void>(0)  \
       : ::mote::assertFailed(::mote::AssertInfo{#expr, "" __VA_ARGS__, __FILE__, __LINE__}))
#else
#define MOTE_ASSERTS_ENABLED 0
#define MOTE_ASSERT(expr, ...) static_cast<void>(sizeof(static_cast<bool>(expr)))
#endif
