// SPDX-License-Identifier: MIT
// ParticleSystem<Backend>: laige's bit-deterministic, pooled, budgeted 2.5D particle system (seed
// 001).
#pragma once

#include <mote/core/fixed.h>
#include <mote/core/prng.h>
#include <mote/core/status.h>

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>

namespace mote::lockstep {

inline constexpr std::uint32_t kParticlePoolMaxParticles = 65536;
inline constexpr std::uint32_t kParticlePoolDefaultMaxParticles = 4096;
inline constexpr std::uint32_t kParticleEmitterMaxEmitters = 256;
inline constexpr std::uint32_t kParticleEmitterDefaultMaxEmitters = 32;
/// The longest particle life in sim ticks (keeps tint.a · remaining below 2^32 in fadeAlpha).
inline constexpr std::uint32_t kParticleMaxLifeTicks = 1u << 20;

/// The options of ParticleSystem::create. A plain value.
struct ParticleSystemOptions {
  std::uint32_t maxParticles = kParticlePoolDefaultMaxParticles;   ///< [1, 65536]
  std::uint32_t maxEmitters = kParticleEmitterDefaultMaxEmitters;  ///< [1, 256]
  std::uint64_t seed = 0;                                          ///< any value
};

/// An emitter's id: its registration index. Ids are never reused (the registry only grows).
enum class ParticleEmitterId : std::uint32_t {};

/// One particle: 40 bytes on both backends. pos and vel are sim-space (vel in world units per tick,
/// constant), depth is constant over life, age/life in sim ticks, size in world units, tint the
/// base RGBA, fadeTicks the emitter's fade window.
template <SimScalar Backend>
struct Particle {
  Vec2<Backend> pos;
  Backend depth;
  Vec2<Backend> vel;
  std::uint32_t age = 0;
  std::uint32_t life = 0;
  Backend size;
  std::array<std::uint8_t, 4> tint{255, 255, 255, 255};
  std::uint32_t fadeTicks = 0;
};
static_assert(sizeof(Particle<Fpx16_16>) == 40, "laige: the Particle layout is 40 bytes");
static_assert(sizeof(Particle<Fp32>) == 40, "laige: the Particle layout is 40 bytes");

/// An emitter definition: a plain value, validated when addEmitter() is called. A particle spawns
/// exactly at origin (no position jitter). velMin/velMax is the per-tick velocity box
/// (componentwise), lifeMin/lifeMax sim ticks (inclusive), sizeMin/sizeMax world units, fadeTicks 0
/// = no fade, continuousRate particles per sim tick (0 = burst only).
template <SimScalar Backend>
struct ParticleEmitterDef {
  Vec2<Backend> origin{};
  Backend depth{};
  Vec2<Backend> velMin{};
  Vec2<Backend> velMax{};
  std::uint32_t lifeMin = 1;
  std::uint32_t lifeMax = 1;
  Backend sizeMin{};
  Backend sizeMax{};
  std::array<std::uint8_t, 4> tint{255, 255, 255, 255};
  std::uint32_t fadeTicks = 0;
  std::uint32_t continuousRate = 0;
};

/// The def checks, in validation order (first failure wins). The warning's `field` is the name
/// particleEmitterFieldName() gives (origin, depth, vel_min, …).
enum class ParticleEmitterField : std::uint8_t {
  Origin,     ///< finite
  Depth,      ///< finite
  VelMin,     ///< finite
  VelMax,     ///< finite
  VelBox,     ///< velMin <= velMax per axis
  LifeMin,    ///< >= 1
  LifeBox,    ///< lifeMin <= lifeMax
  LifeMax,    ///< <= 2^20
  SizeMin,    ///< finite and >= 0
  SizeMax,    ///< finite
  SizeBox,    ///< sizeMin <= sizeMax
  FadeTicks,  ///< <= lifeMax
};

/// "origin", "depth", "vel_min", "vel_max", "vel_box", "life_min", "life_box", "life_max",
/// "size_min", "size_max", "size_box", "fade_ticks". Never null.
const char* particleEmitterFieldName(ParticleEmitterField field) noexcept;

/// The first failing check of `def` in the documented order, or nullopt when the def is valid.
/// Pure; O(1). Allocates: never.
template <SimScalar Backend>
std::optional<ParticleEmitterField> validateParticleEmitterDef(
    const ParticleEmitterDef<Backend>& def) noexcept;

/// The system's counters, all O(1) to read.
struct ParticleSystemStats {
  std::uint32_t liveCount = 0;
  std::uint32_t maxParticles = 0;
  std::uint32_t emitterCount = 0;
  std::uint32_t droppedLastUpdate = 0;  ///< spawns the last update() dropped (pool full)
  std::uint64_t spawnedTotal = 0;
  std::uint64_t droppedTotal = 0;
  std::uint64_t updates = 0;
};

/// laige's particle system (seed 001, ARCHITECTURE §8), instantiated for Fpx16_16 and Fp32.
///
/// The per-tick contract — update() runs exactly once per completed sim tick:
///  1. advance every live particle in live-array order: age += 1, pos += vel; age >= life kills it
///     by swap-removal with the last live particle, and the swapped-in particle (not yet advanced
///     this tick) is examined at the same index;
///  2. emit continuousRate particles from every emitter, in registration order;
///  3. report the tick's overflow: at most one `particles/pool_overflow` warning (fields dropped,
///     live, capacity), rate-limited.
/// A particle spawned by update() at tick T is live after ticks T … T+life−1 (visible for exactly
/// `life` renders); one spawned by burst() before tick T's update is advanced by that update.
///
/// Spawning: a spawn into a full pool is dropped and counted, consumes no Prng draw and changes no
/// live state. A successful spawn consumes exactly four Prng draws, each one Prng::nextTap24() (one
/// generator step), in the order vx, vy, life, size: vx = lerpTap24(velMin.x, velMax.x, u),
/// vy likewise, life = lifeMin + ((lifeMax − lifeMin + 1) · u) >> 24 (the integer draw: uniform
/// over [lifeMin, lifeMax]), size = lerpTap24(sizeMin, sizeMax, u). See Backend::lerpTap24 for the
/// one rounding of each backend.
///
/// Determinism: the state after N updates is a pure function of (seed, defs, operation sequence);
/// Fpx16_16 is bit-identical on every platform and compiler, Fp32 across runs of the same build.
///
/// Ownership and threads: one owner thread. create() makes the only allocations (the system's state
/// block, the pool and the emitter table); nothing allocates afterwards. Move-only: the move swaps
/// one pointer, and the moved-from system is stopped. A default-constructed system is stopped:
/// valid() false, addEmitter/burst fail with InvalidArgument (no log), update() does nothing,
/// liveParticles() is empty, stats() zero.
template <SimScalar Backend>
class ParticleSystem {
 public:
  using ParticleType = Particle<Backend>;
  using EmitterDef = ParticleEmitterDef<Backend>;

  /// Validates (no log) and pre-allocates. maxParticles ∉ [1, 65536] or maxEmitters ∉ [1, 256] →
  /// InvalidArgument. Allocates: a small state block, maxParticles × 40 B and
  /// maxEmitters × sizeof(def), once.
  static Result<ParticleSystem> create(const ParticleSystemOptions& options);

  ParticleSystem() noexcept;
  ParticleSystem(ParticleSystem&& other) noexcept;
  ParticleSystem& operator=(ParticleSystem&& other) noexcept;
  ParticleSystem(const ParticleSystem&) = delete;
  ParticleSystem& operator=(const ParticleSystem&) = delete;
  ~ParticleSystem();

  /// Registers an emitter (setup phase). Stopped → InvalidArgument (no log); registry full →
  /// BudgetExhausted + `particles/emitters_exhausted` warning (field capacity); a def field out of
  /// domain → InvalidArgument naming the field + one rate-limited `particles/emitter_invalid`
  /// warning (fields emitter, field); a rejection leaves the registry unchanged. O(1).
  Result<ParticleEmitterId> addEmitter(const EmitterDef& def);

  /// Spawns `count` particles from emitter `id` now (sim phase). Stopped or unknown id →
  /// InvalidArgument (no log); count 0 → success, nothing happens. Drops beyond the pool are
  /// counted with at most one `particles/pool_overflow` warning per call. O(count). Allocates:
  /// never.
  Status burst(ParticleEmitterId id, std::uint32_t count) noexcept;

  /// One sim tick (the per-tick contract above). No-op when stopped.
  /// Complexity: O(live + Σ continuousRate). Allocates: never. Logs nothing unless the pool
  /// overflows.
  void update() noexcept;

  /// The compact live prefix [0, liveCount), in live-array order (spawn order with swap-removal —
  /// deterministic, but not a render order). Read-only; valid until the next mutating call. O(1).
  std::span<const ParticleType> liveParticles() const noexcept;

  /// The particle's fade alpha in exact u32 arithmetic: fadeTicks == 0 → tint.a; otherwise with
  /// remaining = life − age, remaining >= fadeTicks → tint.a, else tint.a · remaining / fadeTicks
  /// (truncating division). O(1). Allocates: never.
  static constexpr std::uint8_t fadeAlpha(const ParticleType& p) noexcept {
    const std::uint32_t alpha = p.tint[3];
    if (p.fadeTicks == 0) return p.tint[3];
    const std::uint32_t remaining = p.life - p.age;
    if (remaining >= p.fadeTicks) return p.tint[3];
    return static_cast<std::uint8_t>(alpha * remaining / p.fadeTicks);
  }

  // Introspection, all O(1).
  bool valid() const noexcept;
  std::uint32_t maxParticles() const noexcept;
  std::uint32_t maxEmitters() const noexcept;
  std::uint64_t seed() const noexcept;
  std::uint32_t liveCount() const noexcept;
  std::uint64_t spawnedTotal() const noexcept;
  std::uint64_t droppedTotal() const noexcept;
  ParticleSystemStats stats() const noexcept;
  std::uint32_t emitterCount() const noexcept;
  bool hasEmitter(ParticleEmitterId id) const noexcept;
  /// The registered def of `id`, or nullptr when the id is unknown (or the system is stopped).
  const EmitterDef* emitterAt(ParticleEmitterId id) const noexcept;
  /// The Prng stream state (seed, part1, part2): part of the deterministic state (replay identity).
  std::uint64_t prngSeed() const noexcept;
  std::uint64_t prngStatePart1() const noexcept;
  std::uint64_t prngStatePart2() const noexcept;

  /// FNV-1a 64 over the deterministic state: counters, Prng state and every live particle's fields
  /// (raw values, little-endian), in live order. Equal hashes ⇔ (almost surely) equal state.
  /// Complexity: O(live). Allocates: never.
  std::uint64_t stateHash() const noexcept;

 private:
  struct Storage;
  explicit ParticleSystem(std::unique_ptr<Storage> storage) noexcept;
  void spawn(const EmitterDef& def, std::uint32_t count, std::uint32_t& dropped) noexcept;

  std::unique_ptr<Storage> storage_;
};

extern template class ParticleSystem<Fpx16_16>;
extern template class ParticleSystem<Fp32>;
extern template std::optional<ParticleEmitterField> validateParticleEmitterDef(
    const ParticleEmitterDef<Fpx16_16>&) noexcept;
extern template std::optional<ParticleEmitterField> validateParticleEmitterDef(
    const ParticleEmitterDef<Fp32>&) noexcept;

}  // namespace mote::lockstep
