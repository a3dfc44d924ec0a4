// SPDX-License-Identifier: MIT
// What the software renderer makes of one particle of a render packet before it draws it — its
// billboard input, colour, stretch and draw-order key, and the ribbons of linked chains and beams —
// for other renderers that must draw the same
// particles the same way (Mote's GPU renderer uploads these; a game's renderer may too). The
// software renderer computes every one of them with this code.
//
// Thread safety: pure functions. Complexity: O(1). Allocation: never.
#pragma once

#include <mote/render/billboard.h>
#include <mote/render/camera.h>
#include <mote/render/lighting.h>
#include <mote/render/render_packet.h>

#include <glm/vec3.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

namespace mote::render {

/// Particle i of `p` (i < p.count, p.position present) as render::billboardCorners takes it: its
/// centre and velocity in world space (a local-space packet carried through its transform), half
/// its size, its orientation channel (normalised) turned by its roll about the quad's normal, and
/// the emitter's rotation.
BillboardInput particleBillboardInput(const RenderPacket& p, std::uint32_t i) noexcept;

/// Particle i's colour as drawn: linear RGB (negatives as 0) times its alpha clamped to [0, 1],
/// and that alpha — 0 for an additive packet (one premultiplied blend for both).
std::array<float, 4> particlePremultipliedColor(const RenderPacket& p, std::uint32_t i) noexcept;

/// `premul` (a particle's premultiplied colour) as an `ambient_tint` material draws it: its RGB
/// times the scene's ambient light; unchanged for other materials (or none).
std::array<float, 4> ambientTinted(std::array<float, 4> premul,
                                   const bytecode::CompiledMaterial* material,
                                   const Lighting& lighting) noexcept;

/// Particle i's texture cells in its packet's sheet (texture UV, v down): the origin of its frame's
/// cell (u, v), of the next frame's (wrapping to the sheet's frameBegin), the cell size, and the
/// weight toward the next one (0 unless the sheet blends frames). A one-cell sheet, or a packet
/// without a frame channel, keeps cell 0.
struct ParticleCells {
  float ua = 0.0f, va = 0.0f;
  float ub = 0.0f, vb = 0.0f;
  float du = 1.0f, dv = 1.0f;
  float frameBlend = 0.0f;
};
ParticleCells particleCells(const RenderPacket& p, std::uint32_t i) noexcept;

/// The billboard mode a packet of a billboard render mode draws with (RenderMode's first values
/// are BillboardMode's).
BillboardMode packetBillboardMode(const RenderPacket& p) noexcept;

/// Whether `p`'s cards show one side only (material double_sided false) and can turn their back to
/// the eye in `mode`: the fixed frames (horizontal, facing_world, billboard_local_z,
/// billboard_world_z) and any quad a 3D orientation turns. Such a card is not drawn when its
/// projected corners 0, 1, 2 wind counter-clockwise on the y-down screen.
bool cullsBackCards(const RenderPacket& p, BillboardMode mode) noexcept;

/// Whether `p`'s sprites are lit (material `lit`, not additive): their colour is then
/// litCornerColors' at each corner, interpolated over the quad.
bool litSprites(const RenderPacket& p) noexcept;

/// A velocity_aligned particle moving within the emitter's deadspace angle of the view axis is
/// hidden (NWN's deadspace). False for other modes and for particles at rest.
bool inDeadspace(const RenderPacket& p, const Camera& camera,
                 const BillboardInput& particle) noexcept;

/// The direction from a world point toward the eye: to the camera's position (perspective) or
/// against its forward axis (orthographic).
glm::vec3 towardEye(const Camera& camera, glm::vec3 point) noexcept;

/// A lit sprite's colour at each of its world corners (billboardCorners' order): the quad's normal,
/// turned to the eye and bent out toward each corner (so the sprite shades like a puff, as meep's
/// particle_billboard_normal), lit by `lighting`, plus the light from behind passed through in
/// proportion to 1 − alpha (Persson, GDC 2012); `premul` is the particle's premultiplied colour.
std::array<std::array<float, 4>, 4> litCornerColors(const Lighting& lighting, const Camera& camera,
                                                    const std::array<glm::vec3, 4>& corners,
                                                    glm::vec3 centre,
                                                    const std::array<float, 4>& premul) noexcept;

/// Stretched's blur for a particle (BillboardView::stretchScaleSeconds): the emitter's
/// stretch_scale (metres per m/s) over the particle's height in viewport heights at its view
/// depth.
float particleStretchSeconds(const Camera& camera, float stretchScale,
                             const BillboardInput& particle) noexcept;

/// Particle i's centre in world space (a local-space packet carried through its transform).
glm::vec3 particleWorldPosition(const RenderPacket& p, std::uint32_t i) noexcept;

/// A ribbon through `points`, `halfWidth` to either side and turned toward the eye at each point:
/// the side at point k is cross(tangent, towardEye) normalised (the camera's up where that
/// vanishes) times halfWidth, the tangent running from the point before k to the point after it.
/// Writes segment k's world corners to out[k] in billboard order — points[k] − side_k,
/// points[k+1] − side_k+1, points[k+1] + side_k+1, points[k] + side_k — and returns the count:
/// points.size() − 1, or 0 for fewer than two points or a halfWidth not above 0. `out` must hold
/// points.size() − 1 quads. The software renderer draws each segment as a quad textured affinely
/// (screen-linear over its two triangles, the diagonal from corner 0 to 2) at the texture's middle
/// column (u = 0.5), v across the ribbon.
std::size_t ribbonQuads(const Camera& camera, std::span<const glm::vec3> points, float halfWidth,
                        std::span<std::array<glm::vec3, 4>> out) noexcept;

/// The order a linked chain joins `p`'s particles in, as one key per particle into `keys` (which
/// must hold p.count): the low 32 bits a slot, the high 32 the chain it belongs to. Consecutive
/// keys of one chain are joined by a segment in the older particle's colour. Without sources every
/// particle is on chain 0 in slot order (the world keeps spawn order: oldest first); a trail's
/// packet (p.sources) has a chain per source particle — its id in the high bits — each in slot
/// order, the chains in ascending source id. O(count) without sources, O(count log count) with;
/// allocates nothing.
void linkedChainOrder(const RenderPacket& p, std::span<std::uint64_t> keys) noexcept;

/// Each segment of `p`'s linked chains, in linkedChainOrder (written into `keys`, which must hold
/// p.count): segment(older, from, to) with the older particle's index and the two particles' world
/// positions (particleWorldPosition, each computed once). What both renderers draw a linked_chain
/// packet's ribbons from.
template <class Segment>
void forEachChainSegment(const RenderPacket& p, std::span<std::uint64_t> keys, Segment&& segment) {
  if (p.count < 2) return;
  linkedChainOrder(p, keys);
  glm::vec3 from = particleWorldPosition(p, static_cast<std::uint32_t>(keys[0]));
  for (std::uint32_t k = 0; k + 1 < p.count; ++k) {
    const glm::vec3 to = particleWorldPosition(p, static_cast<std::uint32_t>(keys[k + 1]));
    if (keys[k] >> 32 == keys[k + 1] >> 32)  // else the next source's chain starts
      segment(static_cast<std::uint32_t>(keys[k]), from, to);
    from = to;
  }
}

/// A beam packet's bolts (render mode beam): from the emitter to its target (emitter-local, or the
/// vec3 emitter field target_field), each particle's bolt made by midpoint subdivision —
/// 2^levels segments, level k displacing each midpoint across the beam by up to
/// radius · roughness^k in a direction drawn from (particle id, shape, draw) — re-shaped every
/// update_interval of emitter time (every 1/60 s without one).
struct BeamPath {
  glm::vec3 start{0.0f}, end{0.0f};
  glm::vec3 u{0.0f}, w{0.0f};  ///< unit axes across the beam
  std::uint32_t levels = 0;    ///< at most kMaxBeamLevels
  std::uint64_t shape = 0;     ///< the shape's epoch
  float radius = 0.0f, roughness = 0.0f;
  float halfWidth = 0.0f;  ///< half the beam's width: ribbonQuads' halfWidth
  std::size_t points() const noexcept { return (std::size_t{1} << levels) + 1; }
};
inline constexpr std::uint32_t kMaxBeamLevels = 10;

/// `p`'s beam path; false (nothing is drawn) where the beam has no finite length.
bool beamPath(const RenderPacket& p, BeamPath& out) noexcept;

/// The bolt of the particle with id `id`: path.points() points from start to end into `bolt`,
/// which must hold that many.
void beamBolt(const BeamPath& path, std::uint32_t id, std::span<glm::vec3> bolt) noexcept;

/// The key an emitter's particles are drawn in ascending order of (stably, slot order breaking
/// ties): for a particle at clip w `depth` with spawn-order id `id`, back to front puts larger
/// depths first, front to back smaller ones, oldest first smaller ids, newest first larger ones.
std::uint32_t particleDrawKey(bytecode::ParticleSort sort, float depth, std::uint32_t id) noexcept;

}  // namespace mote::render
