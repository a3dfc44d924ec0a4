// SPDX-License-Identifier: MIT
// The device self-test Context::create runs (self_test.cpp, shaders/self_test.comp).
#pragma once

#include <mote/gpu/context.h>

#include <cstdint>

namespace mote::gpu {

// exact.glsl's specialisation flags (constant_id 0), the same values as its MOTE_* constants.
inline constexpr std::uint32_t kGuardFlag = 1u;
inline constexpr std::uint32_t kEmulateFmaFlag = 2u;
inline constexpr std::uint32_t kEmulateDivFlag = 4u;
inline constexpr std::uint32_t kEmulateSqrtFlag = 8u;

/// Whether the device can run the shaders' fp64 build (exact mode's emulation needs both).
inline bool hasFp64Shaders(const DeviceInfo& d) {
  return d.float64 && d.int64;
}

/// Runs the self-test on `context`'s device. An error only when the device fails to run it at all.
Result<SelfTest> runSelfTest(Context& context);

}  // namespace mote::gpu
