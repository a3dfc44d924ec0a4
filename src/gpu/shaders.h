// SPDX-License-Identifier: MIT
// The SPIR-V of mote_gpu's compute shaders (src/gpu/shaders/*.comp), compiled at build time.
#pragma once

#include <cstdint>
#include <span>

namespace mote::gpu {

/// One shader in its two builds: with fp64 (exact mode's emulation available) and without.
struct ShaderCode {
  std::span<const std::uint32_t> exact;
  std::span<const std::uint32_t> fast;
  std::span<const std::uint32_t> pick(bool fp64) const { return fp64 ? exact : fast; }
};

ShaderCode selfTestShader() noexcept;
/// vm_ops.comp, or vm_ops_wide.comp (the register file in a storage buffer).
ShaderCode vmOpsShader(bool wide) noexcept;

}  // namespace mote::gpu
