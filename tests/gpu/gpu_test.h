// SPDX-License-Identifier: MIT
// The GPU tests' device: one Context with the Khronos validation layer on, shared by every test of
// the program. A test skips, with the reason on one line, only where no Vulkan device exists at
// all; every test ends with zero validation messages (an assertion, TearDown).
#pragma once

#include <mote/gpu/context.h>

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace mote::test {

class GpuTest : public ::testing::Test {
 protected:
  /// The shared context, or null (with `unavailable()` saying why).
  static gpu::Context* context() {
    State& s = state();
    return s.context.get();
  }
  static const std::string& unavailable() { return state().reason; }

  void SetUp() override {
    if (context() == nullptr) GTEST_SKIP() << "no Vulkan device: " << unavailable();
    before_ = context()->validationMessageCount();
  }
  void TearDown() override {
    if (context() == nullptr) return;
    const std::uint64_t messages = context()->validationMessageCount() - before_;
    EXPECT_EQ(messages, 0u) << "validation messages; the first: "
                            << (context()->validationMessages().empty()
                                    ? std::string("(none kept)")
                                    : context()->validationMessages().front());
  }

 private:
  struct State {
    std::unique_ptr<gpu::Context> context;
    std::string reason;
  };
  // Never destroyed: the driver stays loaded until the process ends, so a leak checker can name
  // what the driver itself leaves behind (tests/gpu/lsan.supp) instead of an unloaded module.
  static State& state() {
    static State& s = *new State([] {
      State made;
      gpu::ContextDesc desc;
      desc.validation = true;
      Result<std::unique_ptr<gpu::Context>> c = gpu::Context::create(desc);
      if (c.ok()) {
        made.context = std::move(c).takeValue();
      } else {
        made.reason = c.status().toString();
      }
      return made;
    }());
    return s;
  }
  std::uint64_t before_ = 0;
};

}  // namespace mote::test
