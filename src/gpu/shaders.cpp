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

constexpr std::uint32_t kBillboardCasesExact[] = {
#include "billboard_cases_exact.spv.inc"
};
constexpr std::uint32_t kBillboardCasesFast[] = {
#include "billboard_cases_fast.spv.inc"
};

constexpr std::uint32_t kSpriteVertexExact[] = {
#include "sprite_vert_exact.spv.inc"
};
constexpr std::uint32_t kSpriteVertexFast[] = {
#include "sprite_vert_fast.spv.inc"
};
constexpr std::uint32_t kSpriteFragment[] = {
#include "sprite_frag_fast.spv.inc"
};
constexpr std::uint32_t kSpriteOitFragment[] = {
#include "sprite_oit_frag_fast.spv.inc"
};
constexpr std::uint32_t kGroundVertex[] = {
#include "ground_vert_fast.spv.inc"
};
constexpr std::uint32_t kGroundFragment[] = {
#include "ground_frag_fast.spv.inc"
};
constexpr std::uint32_t kTriangleVertex[] = {
#include "triangle_vert_fast.spv.inc"
};
constexpr std::uint32_t kTriangleFragment[] = {
#include "triangle_frag_fast.spv.inc"
};
constexpr std::uint32_t kTriangleOitFragment[] = {
#include "triangle_oit_frag_fast.spv.inc"
};

constexpr std::uint32_t kDrawPool[] = {
#include "draw_pool_fast.spv.inc"
};
constexpr std::uint32_t kDrawSort[] = {
#include "draw_sort_fast.spv.inc"
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

constexpr std::uint32_t kFrameBoundsExact[] = {
#include "frame_bounds_exact.spv.inc"
};
constexpr std::uint32_t kFrameBoundsFast[] = {
#include "frame_bounds_fast.spv.inc"
};
constexpr std::uint32_t kFrameBuckets[] = {
#include "frame_buckets_fast.spv.inc"
};
constexpr std::uint32_t kFrameArgs[] = {
#include "frame_args_fast.spv.inc"
};

constexpr std::uint32_t kFrameExact[] = {
#include "frame_exact.spv.inc"
};
constexpr std::uint32_t kFrameFast[] = {
#include "frame_fast.spv.inc"
};
constexpr std::uint32_t kFrameWideExact[] = {
#include "frame_wide_exact.spv.inc"
};
constexpr std::uint32_t kFrameWideFast[] = {
#include "frame_wide_fast.spv.inc"
};
constexpr std::uint32_t kFrameRows[] = {
#include "frame_rows_fast.spv.inc"
};

constexpr std::uint32_t kRequests[] = {
#include "requests_fast.spv.inc"
};

constexpr std::uint32_t kScanBlocks[] = {
#include "scan_blocks_fast.spv.inc"
};
constexpr std::uint32_t kScanPartials[] = {
#include "scan_partials_fast.spv.inc"
};
constexpr std::uint32_t kScanAdd[] = {
#include "scan_add_fast.spv.inc"
};

constexpr std::uint32_t kPoolInit[] = {
#include "pool_init_fast.spv.inc"
};

}  // namespace

std::span<const std::uint32_t> poolInitShader() noexcept {
  return kPoolInit;
}
std::span<const std::uint32_t> scanBlocksShader() noexcept {
  return kScanBlocks;
}
std::span<const std::uint32_t> scanPartialsShader() noexcept {
  return kScanPartials;
}
std::span<const std::uint32_t> scanAddShader() noexcept {
  return kScanAdd;
}

ShaderCode selfTestShader() noexcept {
  return {kSelfTestExact, kSelfTestFast};
}

ShaderCode billboardCasesShader() noexcept {
  return {kBillboardCasesExact, kBillboardCasesFast};
}

ShaderCode spriteVertexShader() noexcept {
  return {kSpriteVertexExact, kSpriteVertexFast};
}

std::span<const std::uint32_t> spriteFragmentShader() noexcept {
  return kSpriteFragment;
}

std::span<const std::uint32_t> spriteOitFragmentShader() noexcept {
  return kSpriteOitFragment;
}

std::span<const std::uint32_t> groundVertexShader() noexcept {
  return kGroundVertex;
}

std::span<const std::uint32_t> groundFragmentShader() noexcept {
  return kGroundFragment;
}

std::span<const std::uint32_t> triangleVertexShader() noexcept {
  return kTriangleVertex;
}

std::span<const std::uint32_t> triangleFragmentShader() noexcept {
  return kTriangleFragment;
}

std::span<const std::uint32_t> triangleOitFragmentShader() noexcept {
  return kTriangleOitFragment;
}

ShaderCode vmOpsShader(bool wide) noexcept {
  return wide ? ShaderCode{kVmOpsWideExact, kVmOpsWideFast} : ShaderCode{kVmOpsExact, kVmOpsFast};
}

ShaderCode frameShader(bool wide) noexcept {
  return wide ? ShaderCode{kFrameWideExact, kFrameWideFast} : ShaderCode{kFrameExact, kFrameFast};
}

std::span<const std::uint32_t> frameRowsShader() noexcept {
  return kFrameRows;
}

ShaderCode frameBoundsShader() noexcept {
  return {kFrameBoundsExact, kFrameBoundsFast};
}

std::span<const std::uint32_t> frameBucketsShader() noexcept {
  return kFrameBuckets;
}

std::span<const std::uint32_t> frameArgsShader() noexcept {
  return kFrameArgs;
}

std::span<const std::uint32_t> drawPoolShader() noexcept {
  return kDrawPool;
}

std::span<const std::uint32_t> drawSortShader() noexcept {
  return kDrawSort;
}

std::span<const std::uint32_t> requestsShader() noexcept {
  return kRequests;
}

}  // namespace mote::gpu
