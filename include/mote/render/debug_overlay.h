// SPDX-License-Identifier: MIT
// The debug overlay `mote render --debug` draws (docs/rendering.md, "The debug overlay"): each
// emitter's axes, its bounds box and its particles' velocity rays, and the collision shapes the
// host names, as debug lines added to a prepared ParticleRenderer frame.
#pragma once

#include <mote/core/status.h>
#include <mote/render/particle_renderer.h>
#include <mote/render/render_packet.h>
#include <mote/runtime/world.h>

#include <array>
#include <cstdint>
#include <span>

namespace mote::render {

/// A collision shape to outline, in world space (an effect's `collision` colliders: the compiled
/// effect inlines them into its bytecode, so the host passes them from the authored effect).
struct DebugCollider {
  enum class Kind : std::uint8_t { Plane, Sphere, Box };
  Kind kind = Kind::Plane;
  std::array<float, 3> position{0.0f, 0.0f, 0.0f};
  std::array<float, 3> normal{0.0f, 1.0f, 0.0f};  ///< plane: the side particles live on
  float radius = 1.0f;                            ///< sphere, m
  std::array<float, 3> size{1.0f, 1.0f, 1.0f};    ///< box: full extents, m
};

struct DebugOverlayOptions {
  bool axes = true;         ///< each emitter's X, Y, Z (red, green, blue), axisLength long
  bool bounds = true;       ///< each emitter's bounds box (yellow), where the world knows it
  bool velocities = true;   ///< a ray per particle along its velocity (cyan), raySeconds long
  float axisLength = 0.5f;  ///< m
  float raySeconds = 0.1f;  ///< a ray is the distance the particle covers in this
  std::uint32_t maxRaysPerEmitter = 256;  ///< evenly sampled past this many particles
  float lineWidthPixels = 1.5f;
  std::span<const DebugCollider> colliders;  ///< outlined in magenta (a plane as a 4 m grid)
};

/// Adds the overlay of `packets` (the frame's: RenderPacketBuilder over `world`) to `renderer`'s
/// prepared frame with drawLine3D. Errors: the renderer's (no frame prepared, maxTriangles
/// reached: the lines drawn so far stay), or InvalidArgument for a non-finite or non-positive
/// option or collider size. O(emitters + rays + colliders); allocates nothing; the renderer's
/// thread.
Status drawDebugOverlay(ParticleRenderer& renderer, const ParticleWorld& world,
                        std::span<const RenderPacket> packets, const DebugOverlayOptions& options);

}  // namespace mote::render
