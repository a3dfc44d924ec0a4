// SPDX-License-Identifier: MIT
// The GPU renderer's pool drawing (renderer_pool.cpp, docs/gpu.md "Drawing the pool in place"): the
// words the host writes each frame for draw_pool.comp — a header, then one block per emitter row
// of the GPU world — and the sort entries. One source: gen_shader_constants.cpp writes these
// numbers for the shaders (draw_layout_constants.glsl). Private to mote_gpu.
#pragma once

#include <cstdint>

// X(name, value). The header (kDrawHeaderWords): the camera's view-projection (16 words,
// column-major), its position (3), forward (3), 1 for perspective, the half height extent, the
// near distance, the transparency (0 emitter, 1 sorted, 2 OIT), the rows, the pool's record words,
// the alive list's first word and the counter word holding its length.
// A row's block (kDrawRowWords at kDrawHeaderWords + row · kDrawRowWords): what its render packet
// would say, the software renderer's per-emitter decisions made on the host — flags, the
// generation its live records carry, its packet's place in the emitter order, its
// bytecode::ParticleSort (Auto resolved), its render::BillboardMode, the renderer's texture index,
// 7 particle word offsets (~0: absent; position, velocity, size, colour, orientation, rotation,
// frame), the sheet's columns, rows and first frame, then floats: the cutoff, the soft inverse
// distance, the stretch scale, cos(deadspace), the ambient tint's factor (3; 1, 1, 1 without one),
// the emitter's position (3) and rotation (x, y, z, w).
// A sort entry (kSortWords): three key words compared in order, then the pool slot (~0: nothing
// drawn).
#define MOTE_DRAW_LAYOUT(X)      \
  X(kDrawViewProjection, 0)      \
  X(kDrawEye, 16)                \
  X(kDrawForward, 19)            \
  X(kDrawPerspective, 22)        \
  X(kDrawHalfHeight, 23)         \
  X(kDrawNear, 24)               \
  X(kDrawTransparency, 25)       \
  X(kDrawRows, 26)               \
  X(kDrawStride, 27)             \
  X(kDrawAliveAt, 28)            \
  X(kDrawAliveCount, 29)         \
  X(kDrawHeaderWords, 32)        \
  X(kRowDrawFlags, 0)            \
  X(kRowDrawGeneration, 1)       \
  X(kRowDrawRank, 2)             \
  X(kRowDrawSort, 3)             \
  X(kRowDrawMode, 4)             \
  X(kRowDrawTexture, 5)          \
  X(kRowDrawChannels, 6)         \
  X(kRowDrawColumns, 13)         \
  X(kRowDrawSheetRows, 14)       \
  X(kRowDrawFrameBegin, 15)      \
  X(kRowDrawCutoff, 16)          \
  X(kRowDrawSoftInverse, 17)     \
  X(kRowDrawStretchScale, 18)    \
  X(kRowDrawCosDeadspace, 19)    \
  X(kRowDrawTint, 20)            \
  X(kRowDrawEmitterPosition, 23) \
  X(kRowDrawEmitterRotation, 26) \
  X(kDrawRowWords, 32)           \
  X(kRowDrawn, 1)                \
  X(kRowLocal, 2)                \
  X(kRowAdditive, 4)             \
  X(kRowCutout, 8)               \
  X(kRowCullBack, 16)            \
  X(kRowFrameBlend, 32)          \
  X(kRowDeadspace, 64)           \
  X(kRowLit, 128)                \
  X(kChannelPosition, 0)         \
  X(kChannelVelocity, 1)         \
  X(kChannelSize, 2)             \
  X(kChannelColor, 3)            \
  X(kChannelOrientation, 4)      \
  X(kChannelRotation, 5)         \
  X(kChannelFrame, 6)            \
  X(kSortWords, 4)

namespace mote::gpu::draw {

#define MOTE_DRAW_CONSTANT(name, value) inline constexpr std::uint32_t name = value;
MOTE_DRAW_LAYOUT(MOTE_DRAW_CONSTANT)
#undef MOTE_DRAW_CONSTANT

}  // namespace mote::gpu::draw
