// SPDX-License-Identifier: MIT
// What the software renderer makes of one particle of a render packet before it draws it — its
// billboard input, colour, stretch and draw-order key — for other renderers that must draw the same
// particles the same way (Mote's GPU renderer uploads these; a game's renderer may too). The
// software renderer computes every one of them with this code.
//
// Thread safety: pure functions. Complexity: O(1). Allocation: never.
#pragma once

#include <mote/render/billboard.h>
#include <mote/render/camera.h>
#include <mote/render/render_packet.h>

#include <array>
#include <cstdint>

namespace mote::render {

/// Particle i of `p` (i < p.count, p.position present) as render::billboardCorners takes it: its
/// centre and velocity in world space (a local-space packet carried through its transform), half
/// its size, its orientation channel (normalised) turned by its roll about the quad's normal, and
/// the emitter's rotation.
BillboardInput particleBillboardInput(const RenderPacket& p, std::uint32_t i) noexcept;

/// Particle i's colour as drawn: linear RGB (negatives as 0) times its alpha clamped to [0, 1],
/// and that alpha — 0 for an additive packet (one premultiplied blend for both).
std::array<float, 4> particlePremultipliedColor(const RenderPacket& p, std::uint32_t i) noexcept;

/// Stretched's blur for a particle (BillboardView::stretchScaleSeconds): the emitter's
/// stretch_scale (metres per m/s) over the particle's height in viewport heights at its view
/// depth.
float particleStretchSeconds(const Camera& camera, float stretchScale,
                             const BillboardInput& particle) noexcept;

/// The key an emitter's particles are drawn in ascending order of (stably, slot order breaking
/// ties): for a particle at clip w `depth` with spawn-order id `id`, back to front puts larger
/// depths first, front to back smaller ones, oldest first smaller ids, newest first larger ones.
std::uint32_t particleDrawKey(bytecode::ParticleSort sort, float depth, std::uint32_t id) noexcept;

}  // namespace mote::render
