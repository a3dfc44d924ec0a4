// SPDX-License-Identifier: MIT
// The assertion handler registry and the default handler.
#include <mote/core/assert.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>

namespace mote {
namespace {

void defaultAssertHandler(const AssertInfo& info) {
  std::fprintf(stderr, "%s:%d: MOTE_ASSERT(%s) failed%s%s\n", info.file, info.line, info.expression,
               info.message[0] != '\0' ? ": " : "", info.message);
  std::fflush(stderr);
}

std::atomic<AssertHandler> gHandler{&defaultAssertHandler};

}  // namespace

AssertHandler setAssertHandler(AssertHandler handler) noexcept {
  return gHandler.exchange(handler != nullptr ? handler : &defaultAssertHandler);
}

void assertFailed(const AssertInfo& info) {
  gHandler.load()(info);
  std::abort();
}

}  // namespace mote
