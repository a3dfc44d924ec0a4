// SPDX-License-Identifier: MIT
// The host's per-emitter values of a step (include/mote/runtime/emitter_frame.h).
#include <mote/bytecode/semantics.h>
#include <mote/runtime/emitter_frame.h>

#include <cmath>

namespace mote::emission {

namespace {

using Vec3 = std::array<float, 3>;

Vec3 rotate(const std::array<float, 4>& q, const Vec3& v) {
  const bytecode::semantics::Lanes r = bytecode::semantics::quatRotate(q, {v[0], v[1], v[2], 0.0f});
  return {r[0], r[1], r[2]};
}

std::uint64_t mix64(std::uint64_t x) {  // splitmix64's finaliser
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

}  // namespace

Transform emitterTransform(const Transform& effect, const bytecode::CompiledEmitter& emitter) {
  Transform t;
  const Vec3 offset = rotate(effect.rotation, emitter.positionMeters);
  for (std::size_t c = 0; c < 3; ++c)
    t.position[c] = effect.position[c] + offset[c];
  t.rotation = bytecode::semantics::quatMul(effect.rotation, emitter.rotationQuaternion);
  return t;
}

Vec3 emitterVelocity(const Transform& previous, const Transform& current, double dt) {
  Vec3 v{0.0f, 0.0f, 0.0f};
  if (!(dt > 0.0)) return v;
  for (std::size_t c = 0; c < 3; ++c) {
    v[c] = static_cast<float>(static_cast<double>(current.position[c] - previous.position[c]) / dt);
  }
  return v;
}

Builtins emitterBuiltins(const Transform& world, const Vec3& velocity, double dt, double time,
                         double emitterTime) {
  using bytecode::Builtin;
  Builtins b{};
  const auto set = [&](Builtin id, std::initializer_list<float> v) {
    std::copy(v.begin(), v.end(), b[static_cast<std::size_t>(id)].begin());
  };
  const Vec3 direction = rotate(world.rotation, {0.0f, 0.0f, 1.0f});
  const Vec3 up = rotate(world.rotation, {0.0f, 1.0f, 0.0f});
  set(Builtin::Dt, {static_cast<float>(dt)});
  set(Builtin::Time, {static_cast<float>(time)});
  set(Builtin::EmitterAge, {static_cast<float>(emitterTime)});
  set(Builtin::EmitterPosition, {world.position[0], world.position[1], world.position[2]});
  set(Builtin::EmitterDirection, {direction[0], direction[1], direction[2]});
  set(Builtin::EmitterUp, {up[0], up[1], up[2]});
  set(Builtin::EmitterRotation,
      {world.rotation[0], world.rotation[1], world.rotation[2], world.rotation[3]});
  set(Builtin::EmitterVelocity, {velocity[0], velocity[1], velocity[2]});
  return b;
}

std::uint64_t emitterSeed(std::uint64_t seed, std::uint64_t effectSeed, std::uint32_t index) {
  return mix64(seed ^ mix64(effectSeed ^ mix64(index)));
}

void ForceBursts::expire(double time) noexcept {
  std::uint32_t kept = 0;
  for (std::uint32_t b = 0; b < count_; ++b)
    if (bursts_[b].end > time) bursts_[kept++] = bursts_[b];
  count_ = kept;
}

void ForceBursts::raise(const bytecode::CompiledForceEvent& event, const Vec3& position,
                        double time) noexcept {
  if (!(event.radiusMeters > 0.0f) || !(event.durationSeconds > 0.0f)) return;
  const Burst burst{position, event.radiusMeters, event.strengthMetersPerSecond,
                    time + static_cast<double>(event.durationSeconds)};
  if (count_ < kMaxBursts) {
    bursts_[count_++] = burst;
    return;
  }
  std::uint32_t first = 0;
  for (std::uint32_t b = 1; b < count_; ++b)
    if (bursts_[b].end < bursts_[first].end) first = b;
  bursts_[first] = burst;
}

Vec3 ForceBursts::add(const Vec3& position, Vec3 out) const noexcept {
  for (std::uint32_t b = 0; b < count_; ++b) {
    const Burst& burst = bursts_[b];
    const float dx = position[0] - burst.centre[0];
    const float dy = position[1] - burst.centre[1];
    const float dz = position[2] - burst.centre[2];
    const float distance = std::sqrt(dx * dx + dy * dy + dz * dz);
    if (!(distance < burst.radius)) continue;
    const float push = burst.strength * (1.0f - distance / burst.radius);
    if (distance > 1e-6f) {
      out[0] += dx / distance * push;
      out[1] += dy / distance * push;
      out[2] += dz / distance * push;
    } else {
      out[1] += push;
    }
  }
  return out;
}

}  // namespace mote::emission
