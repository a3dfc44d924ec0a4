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
/// The prefix scan's three passes (scan_blocks.comp, scan_partials.comp, scan_add.comp): integer
/// code only, one build each.
std::span<const std::uint32_t> scanBlocksShader() noexcept;
std::span<const std::uint32_t> scanPartialsShader() noexcept;
std::span<const std::uint32_t> scanAddShader() noexcept;

/// The pool's free-list fill (pool_init.comp).
std::span<const std::uint32_t> poolInitShader() noexcept;

/// billboard_cases.comp: billboard.glsl's corners for independent cases.
ShaderCode billboardCasesShader() noexcept;

/// The GPU renderer's stages: sprite.vert (exact arithmetic: two builds) and sprite.frag.
ShaderCode spriteVertexShader() noexcept;
std::span<const std::uint32_t> spriteFragmentShader() noexcept;
/// sprite.frag with weighted blended OIT's two planes (sprite_oit.frag).
std::span<const std::uint32_t> spriteOitFragmentShader() noexcept;
/// The ground pass's stages: ground.vert (the viewport's triangle) and ground.frag (the grid).
std::span<const std::uint32_t> groundVertexShader() noexcept;
std::span<const std::uint32_t> groundFragmentShader() noexcept;
/// The mesh triangles' stages: triangle.vert (the software triangle layer's screen vertices) and
/// triangle.frag, or triangle_oit.frag with weighted blended OIT's planes.
std::span<const std::uint32_t> triangleVertexShader() noexcept;
std::span<const std::uint32_t> triangleFragmentShader() noexcept;
std::span<const std::uint32_t> triangleOitFragmentShader() noexcept;

/// The GPU renderer's pool drawing: its keys and instances (draw_pool.comp) and its sort's steps
/// (draw_sort.comp), plain float and integer code: one build each.
std::span<const std::uint32_t> drawPoolShader() noexcept;
std::span<const std::uint32_t> drawSortShader() noexcept;

/// vm_ops.comp, or vm_ops_wide.comp (the register file in a storage buffer).
ShaderCode vmOpsShader(bool wide) noexcept;

/// The frame's simulate and emit passes (frame.comp, or frame_wide.comp with the register file in
/// a storage buffer) and its rows pass (frame_rows.comp, integer code only).
ShaderCode frameShader(bool wide) noexcept;
std::span<const std::uint32_t> frameRowsShader() noexcept;
/// The frame's bounds passes (frame_bounds.comp: accumulate and publish, exact arithmetic), its
/// simulation order (frame_buckets.comp) and its indirect arguments (frame_args.comp), the last
/// two integer code only.
ShaderCode frameBoundsShader() noexcept;
std::span<const std::uint32_t> frameBucketsShader() noexcept;
std::span<const std::uint32_t> frameArgsShader() noexcept;
/// The SPAWN requests' carry and sort passes (requests.comp, integer code only).
std::span<const std::uint32_t> requestsShader() noexcept;

}  // namespace mote::gpu
