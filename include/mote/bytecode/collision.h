// SPDX-License-Identifier: MIT
// The host's collision seam: what the COLLIDE instruction asks the world (a physics engine's
// scene, a heightfield, a distance volume) about a chunk of particles at once — rollnw's
// ParticleCollisionProvider::trace_particle, batched. The runtime's VM calls cast() from its
// worker threads with up to kCollisionChunk casts per call; the reference executor calls it with
// one.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <span>

namespace mote::bytecode {

/// A sphere of `radius` (m, ≥ 0) swept from `from` to `to` (world space, m).
struct CollisionCast {
  std::array<float, 3> from{};
  std::array<float, 3> to{};
  float radius = 0.0f;
};

/// The first contact along a cast. `hit` false: the sphere reaches `to` untouched (the other fields
/// are ignored). `hit` true: the sphere's centre touches the surface `distance` metres from `from`
/// (≤ |to − from|; 0 when it starts in contact or inside) where the surface's unit normal,
/// pointing to the free side, is `normal`; a sphere that starts inside says how far `from` lies
/// behind the surface along that normal in `penetration` (else 0).
struct CollisionHit {
  std::array<float, 3> normal{};
  float distance = 0.0f;
  float penetration = 0.0f;
  bool hit = false;
};

/// The most casts one cast() call carries.
inline constexpr std::uint32_t kCollisionChunk = 64;

/// A host's world for COLLIDE. cast() answers casts[i] in hits[i] (the spans are equally long,
/// 1 to kCollisionChunk). Contract for implementations: thread-safe (called concurrently from
/// every worker, on distinct spans), allocation-free, deterministic (the same casts give the same
/// hits on any thread), and total — any float input, NaN and infinity included, gives some answer
/// (a NaN cast should miss). The world holds a non-owning pointer: it must outlive its use.
class CollisionProvider {
 public:
  virtual ~CollisionProvider() = default;
  virtual void cast(std::span<const CollisionCast> casts, std::span<CollisionHit> hits) const = 0;

 protected:
  CollisionProvider() = default;
  CollisionProvider(const CollisionProvider&) = default;
  CollisionProvider& operator=(const CollisionProvider&) = default;
};

/// COLLIDE's result for one cast (the ISA's semantics, shared by the reference, the VM and tests):
/// (normal, depth) with depth = dot(contact − to, normal) + penetration, how far `to` lies behind
/// the surface's tangent plane at the contact (contact = from + (to − from) · distance /
/// |to − from|, clamped to the segment, or `from` for a zero-length cast); no hit: (0, 0, 0, −1).
/// Moving `to` by normal · depth puts the sphere on that plane.
inline std::array<float, 4> collideResult(const CollisionCast& c, const CollisionHit& h) {
  if (!h.hit) return {0.0f, 0.0f, 0.0f, -1.0f};
  const float dx = c.to[0] - c.from[0];
  const float dy = c.to[1] - c.from[1];
  const float dz = c.to[2] - c.from[2];
  const float lengthSquared = dx * dx + dy * dy + dz * dz;
  float f = 0.0f;
  if (lengthSquared > 0.0f) {
    f = h.distance / std::sqrt(lengthSquared);
    f = f < 0.0f ? 0.0f : (f > 1.0f ? 1.0f : f);
  }
  // contact − to = (from − to) · (1 − f)
  const float g = 1.0f - f;
  const float depth = -(dx * h.normal[0] + dy * h.normal[1] + dz * h.normal[2]) * g + h.penetration;
  return {h.normal[0], h.normal[1], h.normal[2], depth};
}

}  // namespace mote::bytecode
