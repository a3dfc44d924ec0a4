// SPDX-License-Identifier: MIT
// The GPU's billboard basis over independent cases: the corners the vertex stage of Mote's GPU
// renderer expands a particle's quad to (src/gpu/shaders/billboard.glsl, meep "Orientation"),
// evaluated by a compute shader for one view, one mode and any number of particles, so they can be
// compared with render::billboardCorners — bit for bit in exact mode (the same operations in the
// same order on exact.glsl's arithmetic), to the device's division and square root in fast mode.
// For the agreement tests and for tools that check a device.
//
// Thread safety: as Context (one thread at a time per Context). Allocation: per call (buffers and
// the pipeline are created for it); not for a frame loop.
#pragma once

#include <mote/core/status.h>
#include <mote/gpu/context.h>
#include <mote/render/billboard.h>

#include <array>
#include <span>
#include <vector>

namespace mote::gpu {

/// render::billboardCorners(view, mode, input) for every input, on `context`'s device: one result
/// per input, in order. An empty span gives an empty vector and touches no device. InvalidArgument
/// for a mode outside render::BillboardMode; the device's errors (DeviceLost, OutOfMemory)
/// otherwise.
Result<std::vector<std::array<glm::vec3, 4>>> billboardCornersOnGpu(
    Context& context, const render::BillboardView& view, render::BillboardMode mode,
    std::span<const render::BillboardInput> inputs);

}  // namespace mote::gpu
