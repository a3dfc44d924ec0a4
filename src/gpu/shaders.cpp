// SPDX-License-Identifier: MIT
#include "shaders.h"

namespace mote::gpu {
namespace {

constexpr std::uint32_t kSelfTestExact[] = {
#include "self_test_exact.spv.inc"
};
constexpr std::uint32_t kSelfTestFast[] = {
#include "self_test_fast.spv.inc"
};

constexpr std::uint32_t kVmOpsExact[] = {
#include "vm_ops_exact.spv.inc"
};
constexpr std::uint32_t kVmOpsFast[] = {
#include "vm_ops_fast.spv.inc"
};
constexpr std::uint32_t kVmOpsWideExact[] = {
#include "vm_ops_wide_exact.spv.inc"
};
constexpr std::uint32_t kVmOpsWideFast[] = {
#include "vm_ops_wide_fast.spv.inc"
};

}  // namespace

ShaderCode selfTestShader() noexcept {
  return {kSelfTestExact, kSelfTestFast};
}

ShaderCode vmOpsShader(bool wide) noexcept {
  return wide ? ShaderCode{kVmOpsWideExact, kVmOpsWideFast} : ShaderCode{kVmOpsExact, kVmOpsFast};
}

}  // namespace mote::gpu
