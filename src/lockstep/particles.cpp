// SPDX-License-Identifier: MIT
// ParticleSystem<Backend> for Fpx16_16 and Fp32: the pool, the emitter registry and the per-tick
// contract.
#include <mote/core/fnv1a.h>
#include <mote/core/log.h>
#include <mote/lockstep/particles.h>

#include <bit>
#include <string>
#include <utility>

namespace mote::lockstep {

const char* particleEmitterFieldName(ParticleEmitterField field) noexcept {
  switch (field) {
    case ParticleEmitterField::Origin:
      return "origin";
    case ParticleEmitterField::Depth:
      return "depth";
    case ParticleEmitterField::VelMin:
      return "vel_min";
    case ParticleEmitterField::VelMax:
      return "vel_max";
    case ParticleEmitterField::VelBox:
      return "vel_box";
    case ParticleEmitterField::LifeMin:
      return "life_min";
    case ParticleEmitterField::LifeBox:
      return "life_box";
    case ParticleEmitterField::LifeMax:
      return "life_max";
    case ParticleEmitterField::SizeMin:
      return "size_min";
    case ParticleEmitterField::SizeMax:
      return "size_max";
    case ParticleEmitterField::SizeBox:
      return "size_box";
    case ParticleEmitterField::FadeTicks:
      return "fade_ticks";
  }
  return "unknown";
}

template <SimScalar Backend>
std::optional<ParticleEmitterField> validateParticleEmitterDef(
    const ParticleEmitterDef<Backend>& def) noexcept {
  using F = ParticleEmitterField;
  const auto finite = [](Vec2<Backend> v) { return v.x.isFinite() && v.y.isFinite(); };
  // laige particles.md, "The def validation order": every field checked, first failure wins.
  if (!finite(def.origin)) return F::Origin;
  if (!def.depth.isFinite()) return F::Depth;
  if (!finite(def.velMin)) return F::VelMin;
  if (!finite(def.velMax)) return F::VelMax;
  if (!(def.velMin.x <= def.velMax.x && def.velMin.y <= def.velMax.y)) return F::VelBox;
  if (def.lifeMin < 1) return F::LifeMin;
  if (def.lifeMin > def.lifeMax) return F::LifeBox;
  if (def.lifeMax > kParticleMaxLifeTicks) return F::LifeMax;
  if (!def.sizeMin.isFinite() || def.sizeMin < Backend::fromInt(0)) return F::SizeMin;
  if (!def.sizeMax.isFinite()) return F::SizeMax;
  if (!(def.sizeMin <= def.sizeMax)) return F::SizeBox;
  if (def.fadeTicks > def.lifeMax) return F::FadeTicks;
  return std::nullopt;
}

// Everything a system owns lives behind one pointer, so a move is one pointer swap and a
// moved-from system is exactly the stopped state.
template <SimScalar Backend>
struct ParticleSystem<Backend>::Storage {
  std::unique_ptr<ParticleType[]> pool;
  std::unique_ptr<EmitterDef[]> emitters;
  std::uint32_t maxParticles = 0;
  std::uint32_t maxEmitters = 0;
  std::uint32_t liveCount = 0;
  std::uint32_t emitterCount = 0;
  std::uint32_t droppedLastUpdate = 0;
  std::uint64_t spawnedTotal = 0;
  std::uint64_t droppedTotal = 0;
  std::uint64_t updates = 0;
  Prng prng;
};

template <SimScalar Backend>
Result<ParticleSystem<Backend>> ParticleSystem<Backend>::create(
    const ParticleSystemOptions& options) {
  if (options.maxParticles < 1 || options.maxParticles > kParticlePoolMaxParticles) {
    return invalidArgument("ParticleSystem maxParticles " + std::to_string(options.maxParticles) +
                           " is outside [1, " + std::to_string(kParticlePoolMaxParticles) + "]");
  }
  if (options.maxEmitters < 1 || options.maxEmitters > kParticleEmitterMaxEmitters) {
    return invalidArgument("ParticleSystem maxEmitters " + std::to_string(options.maxEmitters) +
                           " is outside [1, " + std::to_string(kParticleEmitterMaxEmitters) + "]");
  }
  auto storage = std::make_unique<Storage>();
  storage->pool = std::make_unique<ParticleType[]>(options.maxParticles);
  storage->emitters = std::make_unique<EmitterDef[]>(options.maxEmitters);
  storage->maxParticles = options.maxParticles;
  storage->maxEmitters = options.maxEmitters;
  storage->prng = Prng(options.seed);
  return ParticleSystem(std::move(storage));
}

template <SimScalar Backend>
ParticleSystem<Backend>::ParticleSystem() noexcept = default;
template <SimScalar Backend>
ParticleSystem<Backend>::ParticleSystem(std::unique_ptr<Storage> storage) noexcept
    : storage_(std::move(storage)) {}
template <SimScalar Backend>
ParticleSystem<Backend>::ParticleSystem(ParticleSystem&& other) noexcept = default;
template <SimScalar Backend>
ParticleSystem<Backend>& ParticleSystem<Backend>::operator=(ParticleSystem&& other) noexcept =
    default;
template <SimScalar Backend>
ParticleSystem<Backend>::~ParticleSystem() = default;

template <SimScalar Backend>
Result<ParticleEmitterId> ParticleSystem<Backend>::addEmitter(const EmitterDef& def) {
  if (!storage_) return invalidArgument("addEmitter on a stopped ParticleSystem");
  Storage& s = *storage_;
  if (s.emitterCount == s.maxEmitters) {
    logWarnLimited("particles/emitters_exhausted", "emitter registry full",
                   {{"capacity", s.maxEmitters}});
    return budgetExhausted("ParticleSystem emitter registry is full (" +
                           std::to_string(s.maxEmitters) + " emitters)");
  }
  if (const std::optional<ParticleEmitterField> bad = validateParticleEmitterDef(def)) {
    const char* name = particleEmitterFieldName(*bad);
    logWarnLimited("particles/emitter_invalid", "emitter def rejected",
                   {{"emitter", s.emitterCount}, {"field", 0, name}});
    return Status(StatusCode::InvalidArgument,
                  std::string("emitter def field '") + name + "' is out of its domain",
                  SourceLocation{"", 0, 0, std::string("emitter.") + name});
  }
  s.emitters[s.emitterCount] = def;
  return ParticleEmitterId{s.emitterCount++};
}

template <SimScalar Backend>
void ParticleSystem<Backend>::spawn(const EmitterDef& def, std::uint32_t count,
                                    std::uint32_t& dropped) noexcept {
  Storage& s = *storage_;
  const std::uint32_t free = s.maxParticles - s.liveCount;
  const std::uint32_t spawned = count < free ? count : free;
  // The pool check precedes the draws: a dropped spawn consumes no Prng draw (laige determinism).
  dropped += count - spawned;
  const std::uint64_t lifeSpan = std::uint64_t{def.lifeMax} - def.lifeMin + 1;  // <= 2^20
  for (std::uint32_t i = 0; i < spawned; ++i) {
    ParticleType& p = s.pool[s.liveCount++];
    p.pos = def.origin;
    p.depth = def.depth;
    // Exactly four draws, in the order vx, vy, life, size.
    p.vel.x = Backend::lerpTap24(def.velMin.x, def.velMax.x, s.prng.nextTap24());
    p.vel.y = Backend::lerpTap24(def.velMin.y, def.velMax.y, s.prng.nextTap24());
    p.life = def.lifeMin + static_cast<std::uint32_t>((lifeSpan * s.prng.nextTap24()) >> 24);
    p.size = Backend::lerpTap24(def.sizeMin, def.sizeMax, s.prng.nextTap24());
    p.age = 0;
    p.tint = def.tint;
    p.fadeTicks = def.fadeTicks;
  }
  s.spawnedTotal += spawned;
  s.droppedTotal += count - spawned;
}

namespace {
void reportOverflow(std::uint32_t dropped, std::uint32_t live, std::uint32_t capacity) noexcept {
  logWarnLimited("particles/pool_overflow", "particle pool full; spawns dropped",
                 {{"dropped", dropped}, {"live", live}, {"capacity", capacity}});
}
}  // namespace

template <SimScalar Backend>
Status ParticleSystem<Backend>::burst(ParticleEmitterId id, std::uint32_t count) noexcept {
  if (!storage_) return {StatusCode::InvalidArgument, "burst on a stopped ParticleSystem"};
  if (!hasEmitter(id)) return {StatusCode::InvalidArgument, "burst: unknown emitter id"};
  if (count == 0) return {};
  std::uint32_t dropped = 0;
  spawn(storage_->emitters[static_cast<std::uint32_t>(id)], count, dropped);
  if (dropped != 0) reportOverflow(dropped, storage_->liveCount, storage_->maxParticles);
  return {};
}

template <SimScalar Backend>
void ParticleSystem<Backend>::update() noexcept {
  if (!storage_) return;
  Storage& s = *storage_;
  ParticleType* const pool = s.pool.get();
  // 1. Advance in live order; a death swap-removes the last live particle into this slot, and that
  //    particle (not yet advanced this tick) is examined next at the same index.
  std::uint32_t live = s.liveCount;
  std::uint32_t i = 0;
  while (i < live) {
    ParticleType& p = pool[i];
    p.age += 1;
    p.pos += p.vel;
    if (p.age >= p.life) {
      p = pool[--live];
    } else {
      ++i;
    }
  }
  s.liveCount = live;
  // 2. Emit in registration order.
  std::uint32_t dropped = 0;
  for (std::uint32_t e = 0; e < s.emitterCount; ++e) {
    const EmitterDef& def = s.emitters[e];
    if (def.continuousRate != 0) spawn(def, def.continuousRate, dropped);
  }
  // 3. At most one overflow report per tick.
  s.droppedLastUpdate = dropped;
  if (dropped != 0) reportOverflow(dropped, s.liveCount, s.maxParticles);
  ++s.updates;
}

template <SimScalar Backend>
std::span<const Particle<Backend>> ParticleSystem<Backend>::liveParticles() const noexcept {
  if (!storage_) return {};
  return {storage_->pool.get(), storage_->liveCount};
}

template <SimScalar Backend>
bool ParticleSystem<Backend>::valid() const noexcept {
  return storage_ != nullptr;
}
template <SimScalar Backend>
std::uint32_t ParticleSystem<Backend>::maxParticles() const noexcept {
  return storage_ ? storage_->maxParticles : 0;
}
template <SimScalar Backend>
std::uint32_t ParticleSystem<Backend>::maxEmitters() const noexcept {
  return storage_ ? storage_->maxEmitters : 0;
}
template <SimScalar Backend>
std::uint64_t ParticleSystem<Backend>::seed() const noexcept {
  return storage_ ? storage_->prng.seed() : 0;
}
template <SimScalar Backend>
std::uint32_t ParticleSystem<Backend>::liveCount() const noexcept {
  return storage_ ? storage_->liveCount : 0;
}
template <SimScalar Backend>
std::uint64_t ParticleSystem<Backend>::spawnedTotal() const noexcept {
  return storage_ ? storage_->spawnedTotal : 0;
}
template <SimScalar Backend>
std::uint64_t ParticleSystem<Backend>::droppedTotal() const noexcept {
  return storage_ ? storage_->droppedTotal : 0;
}
template <SimScalar Backend>
ParticleSystemStats ParticleSystem<Backend>::stats() const noexcept {
  if (!storage_) return {};
  const Storage& s = *storage_;
  return {s.liveCount,    s.maxParticles, s.emitterCount, s.droppedLastUpdate,
          s.spawnedTotal, s.droppedTotal, s.updates};
}
template <SimScalar Backend>
std::uint32_t ParticleSystem<Backend>::emitterCount() const noexcept {
  return storage_ ? storage_->emitterCount : 0;
}
template <SimScalar Backend>
bool ParticleSystem<Backend>::hasEmitter(ParticleEmitterId id) const noexcept {
  return storage_ && static_cast<std::uint32_t>(id) < storage_->emitterCount;
}
template <SimScalar Backend>
const ParticleEmitterDef<Backend>* ParticleSystem<Backend>::emitterAt(
    ParticleEmitterId id) const noexcept {
  return hasEmitter(id) ? &storage_->emitters[static_cast<std::uint32_t>(id)] : nullptr;
}
template <SimScalar Backend>
std::uint64_t ParticleSystem<Backend>::prngSeed() const noexcept {
  return storage_ ? storage_->prng.seed() : 0;
}
template <SimScalar Backend>
std::uint64_t ParticleSystem<Backend>::prngStatePart1() const noexcept {
  return storage_ ? storage_->prng.part1() : 0;
}
template <SimScalar Backend>
std::uint64_t ParticleSystem<Backend>::prngStatePart2() const noexcept {
  return storage_ ? storage_->prng.part2() : 0;
}

namespace {
std::uint32_t rawBits(Fpx16_16 v) noexcept {
  return static_cast<std::uint32_t>(v.raw());
}
std::uint32_t rawBits(Fp32 v) noexcept {
  return std::bit_cast<std::uint32_t>(v.raw());
}
}  // namespace

template <SimScalar Backend>
std::uint64_t ParticleSystem<Backend>::stateHash() const noexcept {
  Fnv1a64 h;
  if (!storage_) return h.value();
  const Storage& s = *storage_;
  h.updateU32(s.liveCount).updateU64(s.spawnedTotal).updateU64(s.droppedTotal);
  h.updateU64(s.prng.seed()).updateU64(s.prng.part1()).updateU64(s.prng.part2());
  for (std::uint32_t i = 0; i < s.liveCount; ++i) {
    const ParticleType& p = s.pool[i];
    h.updateU32(rawBits(p.pos.x)).updateU32(rawBits(p.pos.y)).updateU32(rawBits(p.depth));
    h.updateU32(rawBits(p.vel.x)).updateU32(rawBits(p.vel.y));
    h.updateU32(p.age).updateU32(p.life).updateU32(rawBits(p.size));
    for (std::uint8_t c : p.tint)
      h.updateU8(c);
    h.updateU32(p.fadeTicks);
  }
  return h.value();
}

template class ParticleSystem<Fpx16_16>;
template class ParticleSystem<Fp32>;
template std::optional<ParticleEmitterField> validateParticleEmitterDef(
    const ParticleEmitterDef<Fpx16_16>&) noexcept;
template std::optional<ParticleEmitterField> validateParticleEmitterDef(
    const ParticleEmitterDef<Fp32>&) noexcept;

}  // namespace mote::lockstep
