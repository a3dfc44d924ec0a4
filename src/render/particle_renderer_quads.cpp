// SPDX-License-Identifier: MIT
// ParticleRenderer's billboard quads (docs/rendering.md): the fast path for modes whose frame is
// the same for every particle (one basis, corners projected a block of particles at a time,
// split over threads for large emitters), the general path per particle for the others
// (stretched, velocity-aligned, per-particle orientation), and projecting a quad's corners.
#include "particle_renderer_impl.h"

#include <glm/geometric.hpp>
#include <glm/gtc/quaternion.hpp>
#include <glm/vec4.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace mote::render {

namespace {

// The fast path's form of particleDrawKey.
FacingKey facingKey(bytecode::ParticleSort sort) {
  switch (sort) {
    case bytecode::ParticleSort::FrontToBack:
      return FacingKey::NearFirst;
    case bytecode::ParticleSort::OldestFirst:
      return FacingKey::Id;
    case bytecode::ParticleSort::NewestFirst:
      return FacingKey::IdReversed;
    default:
      return FacingKey::FarFirst;
  }
}

// The streams appendFacingQuads reads for all of `p`'s particles (the centres set per block).
FacingParticles facingParticles(const RenderPacket& p) {
  FacingParticles whole;
  whole.sizeX = p.size.streams[0];
  whole.sizeY = p.size.streams[1];
  if (!p.color.uniform) {
    for (std::size_t c = 0; c < 4; ++c)
      whole.color[c] = p.color.streams[c];
  }
  whole.ids = p.ids;
  whole.count = p.count;
  return whole;
}

}  // namespace

// The modes whose frame is the same for every particle, with no per-particle turn (no orientation
// channel, one roll for all): one basis for the whole emitter, corners projected four particles at
// a time (facing_quads.h), bit-identical to the general path.
bool ParticleRenderer::Impl::emitFacingQuads(const RenderPacket& p, const BillboardView& view,
                                             BillboardMode mode, const PacketStyle& style) {
  // Lit, tinted and one-sided cards shade or hide per particle: the general path.
  if (!billboardFrameIsUniform(mode) || p.orientation.present() ||
      (p.rotation.present() && !p.rotation.uniform) || litSprites(p) ||
      (p.material != nullptr && p.material->ambientTint) || cullsBackCards(p, mode))
    return false;
  const Blend blend = style.style.blend;
  if (p.color.uniform && !shows(p.color.value[3], blend)) return true;  // nothing shows
  BillboardInput unit;
  unit.halfSize = glm::vec2(1.0f, 1.0f);
  if (p.rotation.present()) {
    unit.orientation =
        glm::quat(1.0f, 0.0f, 0.0f, 0.0f) * glm::angleAxis(p.rotation.value[0], glm::vec3(0, 0, 1));
  }
  unit.emitterRotation = emitterRotationOf(p);
  const FacingSetup setup = facingSetup(view, mode, unit);
  const std::array<float, 4> uniformColor = premultiplied(p.color.value, blend);
  // Quads of a shared style go straight from the kernel into quads and keys (appendFacingQuads);
  // a style per quad, or too little room left to write a whole block in place, takes the
  // per-particle loop (pushFacingBlock).
  FacingAppend append;
  append.color = uniformColor;
  append.additive = blend == Blend::Additive;
  append.key = facingKey(p.sort);
  const FacingParticles whole = facingParticles(p);
  for (std::uint32_t begin = 0, n = 0; begin < p.count; begin += n) {
    n = std::min(p.count - begin, FacingBlock::kSize);
    const std::size_t room = raster.quads.capacity() - raster.quads.size();
    const bool direct = !style.perQuad && room > n;
    // Particles in world space need no block of world centres: the rest in one call.
    if (direct && !p.local && room > p.count - begin) n = p.count - begin;
    const std::array<const float*, 3> centre = blockCentres(p, begin, n, unit);
    FacingParticles in = facingSlice(whole, begin, n);
    in.x = centre[0];  // the streams' own, or the block's world centres
    in.y = centre[1];
    in.z = centre[2];
    if (direct)
      appendFacingDirect(setup, append, in, style.shared);
    else
      pushFacingBlock(p, setup, style, begin, in, uniformColor);
  }
  return true;
}

// The fast path's setup for `mode`: the one basis of a unit quad turned as `unit`.
FacingSetup ParticleRenderer::Impl::facingSetup(const BillboardView& view, BillboardMode mode,
                                                const BillboardInput& unit) const {
  const glm::mat3 basis = particleBasis(view, mode, unit);
  FacingSetup setup;
  setup.viewProjection = viewProjection;
  setup.width = static_cast<float>(options.viewport.width);
  setup.height = static_cast<float>(options.viewport.height);
  setup.minW = raster.camera.nearZ * 0.5f;
  setup.right = basis[0];
  setup.up = basis[1];
  return setup;
}

// The centres of particles [begin, begin + n) in world space: the position streams' own, or, for
// a local-space packet, carried through the emitter's transform into worldCentres (n at most a
// block).
std::array<const float*, 3> ParticleRenderer::Impl::blockCentres(const RenderPacket& p,
                                                                 std::uint32_t begin,
                                                                 std::uint32_t n,
                                                                 const BillboardInput& unit) {
  const std::array<const float*, 3> centre{
      p.position.streams[0] + begin, p.position.streams[1] + begin, p.position.streams[2] + begin};
  if (!p.local) return centre;
  const glm::vec3 emitterPosition = emitterPositionOf(p);
  for (std::uint32_t k = 0; k < n; ++k) {
    const glm::vec3 w = emitterPosition +
                        unit.emitterRotation * glm::vec3(centre[0][k], centre[1][k], centre[2][k]);
    for (std::size_t c = 0; c < 3; ++c)
      worldCentres[c][k] = w[static_cast<glm::length_t>(c)];
  }
  return {worldCentres[0].data(), worldCentres[1].data(), worldCentres[2].data()};
}

// The quads of `in` written in place by the kernel, all in style `style` (room checked by the
// caller: more than in.count records).
void ParticleRenderer::Impl::appendFacingDirect(const FacingSetup& setup,
                                                const FacingAppend& append,
                                                const FacingParticles& in, std::uint32_t style) {
  FacingTally tally;
  tally.next = static_cast<std::uint32_t>(raster.quads.size());
  tally.keys = packetKeys;
  appendFacingInRanges(setup, append, in, tally);
  std::fill(raster.quads.styles() + raster.quads.size(), raster.quads.styles() + tally.next, style);
  raster.quads.commit(tally.next);
  raster.stats.culled += tally.culled;
  packetKeys = tally.keys;
}

// A block of particles (`in`, from particle `begin`, at most FacingBlock::kSize) projected
// together, then appended one by one with pushParticleQuad: a style per quad, or too little room
// to write the block in place.
void ParticleRenderer::Impl::pushFacingBlock(const RenderPacket& p, const FacingSetup& setup,
                                             const PacketStyle& style, std::uint32_t begin,
                                             const FacingParticles& in,
                                             const std::array<float, 4>& uniformColor) {
  const std::uint32_t n = in.count;
  const Blend blend = style.style.blend;
  projectFacingBlock(setup, in.x, in.y, in.z, in.sizeX, in.sizeY, n, facing);
  // Locals, so the loop's stores cannot make the compiler reload them.
  auto next = static_cast<std::uint32_t>(raster.quads.size());
  const auto capacity = static_cast<std::uint32_t>(raster.quads.capacity());
  const bool colorUniform = p.color.uniform;
  for (std::uint32_t k = 0; k < n; ++k) {
    const std::uint32_t i = begin + k;
    std::array<float, 4> color = uniformColor;
    if (!colorUniform) {
      const std::array<float, 4> straight = particleColor(p, i);
      if (!shows(straight[3], blend)) continue;
      color = premultiplied(straight, blend);
    }
    if (facing.sized[k] == 0) continue;
    if (facing.visible[k] == 0) {
      ++raster.stats.culled;
      continue;
    }
    if (next == capacity) {
      ++raster.stats.dropped;
      continue;
    }
    pushParticleQuad(style, p, i, facing.quads[k], color, glm::vec3(in.x[k], in.y[k], in.z[k]),
                     facing.centerW[k]);
    ++next;
  }
}

// appendFacingQuads on the jobs: ranges of whole blocks of particles (so that a range's writes past
// its last drawn record stay inside its own records), each writing from the record of its first
// particle; then the drawn records closed up in range order with their keys renumbered. The same
// records, keys and tally as one call on the whole, whatever the thread count.
void ParticleRenderer::Impl::appendFacingInRanges(const FacingSetup& setup,
                                                  const FacingAppend& append,
                                                  const FacingParticles& in, FacingTally& tally) {
  // Ranges of at least 16 blocks (1,024 particles, ~4 µs of work): a hand-off to a thread costs
  // a few microseconds.
  constexpr std::uint32_t kMinRange = 16 * FacingBlock::kSize;
  const std::uint32_t ranges =
      std::min({raster.jobs->concurrency(), kPrepRanges, in.count / kMinRange});
  if (ranges < 2) {
    appendFacingQuads(setup, append, in, raster.quads.data(), raster.keys.data(), tally);
    return;
  }
  const std::uint32_t blocks = (in.count + FacingBlock::kSize - 1) / FacingBlock::kSize;
  const std::uint32_t step = (blocks + ranges - 1) / ranges * FacingBlock::kSize;
  const std::uint32_t base = tally.next;
  parallelFor(*raster.jobs, in.count, step, [&](std::size_t begin, std::size_t end) {
    const auto first = static_cast<std::uint32_t>(begin);
    const FacingParticles part = facingSlice(in, first, static_cast<std::uint32_t>(end - begin));
    FacingTally& t = rangeTallies[begin / step];
    t = FacingTally{};
    t.next = base + first;
    appendFacingQuads(setup, append, part, raster.quads.data(), raster.keys.data(), t);
  });
  std::uint32_t next = base;
  for (std::uint32_t r = 0; r * step < in.count; ++r) {
    const FacingTally& t = rangeTallies[r];
    const std::uint32_t from = base + r * step;
    const std::uint32_t drawn = t.next - from;
    if (from != next) {
      std::memmove(raster.quads.data() + next, raster.quads.data() + from,
                   std::size_t{drawn} * sizeof(Quad));
      for (std::uint32_t k = 0; k < drawn; ++k)
        raster.keys[next + k] = {raster.keys[from + k].key, next + k};
    }
    next += drawn;
    tally.culled += t.culled;
    if (drawn != 0) {
      tally.keys.add(t.keys.lo);
      tally.keys.add(t.keys.hi);
    }
  }
  tally.next = next;
}

// The general path: each particle's corners from its own frame (billboardCorners), projected.
void ParticleRenderer::Impl::emitBillboards(const RenderPacket& p, BillboardView view,
                                            BillboardMode mode, const PacketStyle& style) {
  const Blend blend = style.style.blend;
  const glm::quat emitterRotation = emitterRotationOf(p);
  const glm::vec3 emitterPosition = emitterPositionOf(p);
  const float stretchScale = p.description->render.stretchScaleSeconds;
  const bool lit = litSprites(p);
  const bool cullBack = cullsBackCards(p, mode);
  std::array<std::array<float, 4>, 4> cornerColors;
  for (std::uint32_t i = 0; i < p.count; ++i) {
    const std::array<float, 4> color = particleColor(p, i);
    if (!shows(color[3], blend)) continue;
    BillboardInput in = billboardInput(p, i, emitterPosition, emitterRotation);
    if (!(in.halfSize.x > 0.0f) || !(in.halfSize.y > 0.0f)) continue;
    if (inDeadspace(p, raster.camera, in)) continue;
    in.orientation = particleOrientation(p, i);
    in.emitterRotation = emitterRotation;
    if (mode == BillboardMode::Stretched)
      view.stretchScaleSeconds = particleStretchSeconds(raster.camera, stretchScale, in);
    const std::array<glm::vec3, 4> corners = billboardCorners(view, mode, in);
    ScreenQuad quad;
    if (!project(corners, quad)) continue;
    // Seen from the front a quad winds clockwise on the y-down screen (negative doubled area).
    if (cullBack && (quad.x[1] - quad.x[0]) * (quad.y[2] - quad.y[0]) -
                            (quad.x[2] - quad.x[0]) * (quad.y[1] - quad.y[0]) >
                        0.0f) {
      ++raster.stats.culled;
      continue;
    }
    const glm::vec4 center = viewProjection * glm::vec4(in.position, 1.0f);
    const std::array<float, 4> premul =
        ambientTinted(premultiplied(color, blend), p.material, options.lighting);
    if (lit)
      cornerColors = litCornerColors(options.lighting, raster.camera, corners, in.position, premul);
    pushParticleQuad(style, p, i, quad, premul, in.position, center.w,
                     lit ? &cornerColors : nullptr);
  }
}

std::array<std::array<float, 4>, 4> litCornerColors(const Lighting& lighting, const Camera& camera,
                                                    const std::array<glm::vec3, 4>& corners,
                                                    glm::vec3 centre,
                                                    const std::array<float, 4>& premul) noexcept {
  constexpr float kBend = 0.8f;
  glm::vec3 n = glm::cross(corners[1] - corners[0], corners[3] - corners[0]);
  const float length = glm::length(n);
  n = length > 0.0f ? n / length : -camera.forward;
  if (glm::dot(n, towardEye(camera, centre)) < 0.0f) n = -n;
  const float through = 1.0f - std::clamp(premul[3], 0.0f, 1.0f);
  std::array<std::array<float, 4>, 4> out;
  for (std::size_t k = 0; k < 4; ++k) {
    glm::vec3 out3 = corners[k] - centre;
    const float l = glm::length(out3);
    out3 = l > 0.0f ? out3 / l : glm::vec3(0.0f);
    const glm::vec3 bent = glm::normalize(n + out3 * kBend);
    const glm::vec3 e =
        irradiance(lighting, corners[k], bent) + transmitted(lighting, corners[k], bent) * through;
    out[k] = {premul[0] * e.x, premul[1] * e.y, premul[2] * e.z, premul[3]};
  }
  return out;
}

// Projects a quad's world corners to the screen; false (counted) when it is behind the camera,
// off screen, or the quad budget is spent.
bool ParticleRenderer::Impl::project(const std::array<glm::vec3, 4>& corners, ScreenQuad& quad) {
  const float width = static_cast<float>(options.viewport.width);
  const float height = static_cast<float>(options.viewport.height);
  for (std::size_t c = 0; c < 4; ++c) {
    const ScreenPoint at =
        projectCorner(viewProjection, corners[c], width, height, raster.camera.nearZ * 0.5f);
    if (!at.ok) {
      ++raster.stats.culled;
      return false;
    }
    quad.x[c] = at.x;
    quad.y[c] = at.y;
  }
  return placeQuad(quad);
}

// Bounds a projected quad; false (counted) when it is off screen or the quad budget is spent.
bool ParticleRenderer::Impl::placeQuad(ScreenQuad& quad) {
  if (!boundOnScreen(quad, static_cast<float>(options.viewport.width),
                     static_cast<float>(options.viewport.height))) {
    ++raster.stats.culled;
    return false;
  }
  if (raster.quads.size() == raster.quads.capacity()) {
    ++raster.stats.dropped;
    return false;
  }
  return true;
}

// A camera-facing ribbon through `points`, `halfWidth` to each side: one quad per segment, the

}  // namespace mote::render
