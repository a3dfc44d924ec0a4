// SPDX-License-Identifier: MIT
// The host's per-emitter values of a step that every backend computes the same way (docs/
// runtime.md, "One tick" and "Builtins"): an emitter's world transform and velocity, the builtin
// values its programs read, its random seed, force-event wind bursts, and the word the state hash
// reads for a float. ParticleWorld (CPU) and gpu::ParticleWorld both use these, so what the
// programs see agrees by construction.
//
// Thread safety: pure functions; a ForceBursts is one thread's. Allocation: never.
#pragma once

#include <mote/bytecode/compiled_effect.h>
#include <mote/runtime/world.h>

#include <array>
#include <bit>
#include <cstdint>

namespace mote::emission {

/// The world transform of `emitter` placed in an effect at `effect`, `effectTime` seconds after the
/// effect started: its offset and rotation (moved by its keys at that time) composed onto its
/// parent frames' (each moved by theirs) and the effect's. Complexity: O(frames · log keys).
Transform emitterTransform(const Transform& effect, const bytecode::CompiledEmitter& emitter,
                           double effectTime);

/// A frame's offset and rotation at `effectTime`: `position`/`rotation` where `motion` has no keys,
/// else its keys there — positions linear, orientations slerped (the shorter way; normalised), end
/// values held, the time wrapped by a positive period.
Transform sampleMotion(const std::array<float, 3>& position, const std::array<float, 4>& rotation,
                       const bytecode::CompiledMotion& motion, double effectTime);

/// The velocity that moved an emitter from `previous` to `current` in `dt` seconds (0 at dt = 0).
std::array<float, 3> emitterVelocity(const Transform& previous, const Transform& current,
                                     double dt);

/// LOAD_BUILTIN's per-emitter values, indexed by bytecode::Builtin.
using Builtins = std::array<std::array<float, 4>, bytecode::kBuiltinCount>;

/// The builtins of a step of `dt` at world time `time` for an emitter at `world` moving at
/// `velocity`, `emitterTime` seconds after its delay ended (the caller wraps it into a looping
/// emission's cycle: emission::cycleTime). The spawn index, spawn fraction and
/// particle id are per particle (zero here).
Builtins emitterBuiltins(const Transform& world, const std::array<float, 3>& velocity, double dt,
                         double time, double emitterTime);

/// The random seed of emitter `index` of an effect placed with `effectSeed` (EffectOptions::seed),
/// from the emitter's own `seed`: splitmix64 mixes of the three.
std::uint64_t emitterSeed(std::uint64_t seed, std::uint64_t effectSeed, std::uint32_t index);

/// The word the state hash reads for `v`: its bits, every NaN the one quiet NaN 0x7FC00000.
constexpr std::uint32_t hashWord(float v) noexcept {
  return v != v ? 0x7FC00000u : std::bit_cast<std::uint32_t>(v);
}

/// Wind bursts of emitters' force events: for each burst within its radius, `strength` m/s
/// straight away from its centre, falling linearly to 0 at the radius (up at the centre). A fixed
/// table; when it is full, the burst that ends first makes room.
class ForceBursts {
 public:
  struct Burst {
    std::array<float, 3> centre{};
    float radius = 0.0f;
    float strength = 0.0f;
    double end = 0.0;  ///< world time the burst stops
  };
  static constexpr std::uint32_t kMaxBursts = 64;

  /// Forgets the bursts that ended by `time`.
  void expire(double time) noexcept;
  /// `event` of an emitter at `position` starts at world time `time` (nothing for a zero radius
  /// or duration).
  void raise(const bytecode::CompiledForceEvent& event, const std::array<float, 3>& position,
             double time) noexcept;
  /// `wind` plus every burst's push at `position`.
  std::array<float, 3> add(const std::array<float, 3>& position,
                           std::array<float, 3> wind) const noexcept;

  std::uint32_t size() const noexcept { return count_; }
  const Burst& operator[](std::uint32_t i) const noexcept { return bursts_[i]; }
  void clear() noexcept { count_ = 0; }

 private:
  std::array<Burst, kMaxBursts> bursts_{};
  std::uint32_t count_ = 0;
};

}  // namespace mote::emission
