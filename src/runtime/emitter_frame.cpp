// SPDX-License-Identifier: MIT
// The host's per-emitter values of a step (include/mote/runtime/emitter_frame.h).
#include <mote/bytecode/semantics.h>
#include <mote/runtime/emitter_frame.h>

#include <algorithm>
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

// `child` placed in `parent`.
Transform compose(const Transform& parent, const Transform& child) {
  Transform t;
  const Vec3 offset = rotate(parent.rotation, child.position);
  for (std::size_t c = 0; c < 3; ++c)
    t.position[c] = parent.position[c] + offset[c];
  t.rotation = bytecode::semantics::quatMul(parent.rotation, child.rotation);
  return t;
}

using Quat = std::array<float, 4>;

constexpr double wide(float v) {
  return static_cast<double>(v);
}

double dot4(const Quat& a, const Quat& b) {
  double sum = 0.0;
  for (std::size_t c = 0; c < 4; ++c)
    sum += wide(a[c]) * wide(b[c]);
  return sum;
}

Quat normalised(const Quat& q) {
  const double n = std::sqrt(dot4(q, q));
  if (!(n > 0.0) || !std::isfinite(n)) return {0.0f, 0.0f, 0.0f, 1.0f};
  Quat out;
  for (std::size_t c = 0; c < 4; ++c)
    out[c] = static_cast<float>(wide(q[c]) / n);
  return out;
}

// Spherical interpolation from `a` to `b` (unit) by `u`, the shorter way; in double and rounded
// once, so every backend (they all call this on the host) gets the same bits.
Quat slerp(const Quat& a, Quat b, double u) {
  double dot = dot4(a, b);
  if (dot < 0.0) {
    dot = -dot;
    for (float& v : b)
      v = -v;
  }
  double wa = 1.0 - u;
  double wb = u;
  if (dot < 0.9999) {  // nearer than that, the linear weights are as good and stable
    const double angle = std::atan2(std::sqrt(std::max(0.0, 1.0 - dot * dot)), dot);
    const double s = std::sin(angle);
    wa = std::sin((1.0 - u) * angle) / s;
    wb = std::sin(u * angle) / s;
  }
  Quat q;
  for (std::size_t c = 0; c < 4; ++c)
    q[c] = static_cast<float>(wa * wide(a[c]) + wb * wide(b[c]));
  return normalised(q);
}

// The key segment of `keys` (non-empty, in time order) at `t`: the last key at or before it and
// the fraction of the way to the next; before the first key, the first (u 0).
struct Segment {
  std::size_t key = 0;
  double u = 0.0;
};
Segment findSegment(const std::vector<bytecode::MotionKey>& keys, double t) {
  const auto next = std::upper_bound(
      keys.begin(), keys.end(), t,
      [](double time, const bytecode::MotionKey& k) { return time < wide(k.timeSeconds); });
  if (next == keys.begin()) return {0, 0.0};
  const std::size_t key = static_cast<std::size_t>(next - keys.begin()) - 1;
  if (next == keys.end()) return {key, 0.0};
  const double span = wide(next->timeSeconds) - wide(keys[key].timeSeconds);
  return {key, span > 0.0 ? (t - wide(keys[key].timeSeconds)) / span : 0.0};
}

}  // namespace

Transform sampleMotion(const Vec3& position, const Quat& rotation,
                       const bytecode::CompiledMotion& motion, double effectTime) {
  Transform t{position, rotation};
  if (motion.empty()) return t;
  double time = effectTime;
  if (motion.periodSeconds > 0.0f) {
    const double period = wide(motion.periodSeconds);
    time = std::fmod(time, period);
    if (time < 0.0) time += period;
  }
  if (!motion.position.empty()) {
    const Segment s = findSegment(motion.position, time);
    const auto& a = motion.position[s.key].value;
    const auto& b = motion.position[std::min(s.key + 1, motion.position.size() - 1)].value;
    for (std::size_t c = 0; c < 3; ++c)
      t.position[c] = static_cast<float>(wide(a[c]) + (wide(b[c]) - wide(a[c])) * s.u);
  }
  if (!motion.rotation.empty()) {
    const Segment s = findSegment(motion.rotation, time);
    const Quat a = normalised(motion.rotation[s.key].value);
    t.rotation = s.u > 0.0 ? slerp(a, normalised(motion.rotation[s.key + 1].value), s.u) : a;
  }
  return t;
}

Transform emitterTransform(const Transform& effect, const bytecode::CompiledEmitter& emitter,
                           double effectTime) {
  Transform local =
      sampleMotion(emitter.positionMeters, emitter.rotationQuaternion, emitter.motion, effectTime);
  for (const bytecode::CompiledFrame& f : emitter.parents)
    local =
        compose(sampleMotion(f.positionMeters, f.rotationQuaternion, f.motion, effectTime), local);
  return compose(effect, local);
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
  // What a particle not born from a SPAWNI request inherits: nothing (isa.h).
  set(Builtin::SourceSize, {1.0f});
  set(Builtin::SourceColor, {1.0f, 1.0f, 1.0f, 1.0f});
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
