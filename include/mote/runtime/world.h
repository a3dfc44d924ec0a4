// SPDX-License-Identifier: MIT
// ParticleWorld: runs compiled effects (bytecode::CompiledEffect) — emission schedules, INIT and
// UPDATE bytecode on the batched VM, kill compaction, bounds, culling, prewarm, stats and a state
// hash — with fixed capacities and no allocation per tick. docs/runtime.md has the per-tick
// contract, the builtin values the programs see and the state-hash order.
//
// Thread safety: one thread drives a world (every member function); tick() fans work out to the
// JobSystem given at creation and returns when it is done. Results are bit-identical for any
// thread count (work splits into fixed chunks; every output has one writer).
// Allocation: create(), addEffect() and the remove functions allocate or free; tick(), the
// setters, trigger() and the readers never allocate (tests/runtime/world_test.cpp proves tick()).
#pragma once

#include <mote/bytecode/compiled_effect.h>
#include <mote/bytecode/reference.h>
#include <mote/core/job_system.h>
#include <mote/core/status.h>

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

namespace mote {

namespace runtime_detail {
struct WorldAccess;  // the runtime's and the GPU backend's way in (src/runtime/world_impl.h)
}

/// The order ParticleWorld::stateHash visits each emitter's particles in.
enum class HashOrder {
  /// Slot order: where the pool holds them. Kill compaction keeps the CPU's pool in spawn order, so
  /// there this is the id order too (until an emitter's u32 ids wrap).
  Storage,
  /// Ascending particle id (equal ids, once an emitter's u32 ids wrap, in slot order): the same
  /// for any backend's slot allocation. The GPU allocates slots with atomics, so its hash is in
  /// this order (`mote hash --order id`).
  Id,
};

/// A typed handle: a slot index and the slot's generation when the handle was made. Generation 0
/// never names a live object, so a default handle is invalid; a removed object's handles go stale
/// (its slot's generation moves on) and every function given one answers NotFound.
template <class Tag>
struct Handle {
  std::uint32_t index = 0;
  std::uint32_t generation = 0;
  bool valid() const noexcept { return generation != 0; }
  bool operator==(const Handle&) const = default;
};
using EffectHandle = Handle<struct EffectTag>;
using EmitterHandle = Handle<struct EmitterTag>;

/// A rigid transform: position (m) and unit rotation quaternion (x, y, z, w).
struct Transform {
  std::array<float, 3> position{0.0f, 0.0f, 0.0f};
  std::array<float, 4> rotation{0.0f, 0.0f, 0.0f, 1.0f};
};

/// An axis-aligned box in world space. `known` is false while the emitter has no particles.
struct Bounds {
  std::array<float, 3> min{0.0f, 0.0f, 0.0f};
  std::array<float, 3> max{0.0f, 0.0f, 0.0f};
  bool known = false;
};

/// A camera snapshot for culling (render's CullView adapts to it). Called on the ticking thread.
class VisibilityTest {
 public:
  virtual ~VisibilityTest() = default;
  /// True when any of `bounds` (world space, known) may be seen.
  virtual bool visible(const Bounds& bounds) const noexcept = 0;
};

/// The host's wind field for SAMPLE_WIND (world position → m/s); may be called from any worker
/// thread at once, so it must be thread-safe and must not allocate.
using WindField = bytecode::WindFn;

/// What a particle tells the host: an event of its emitter with `"report": true`, or a graph's
/// report node (ParticleWorld::events). Positions and velocities are in world space.
struct HostEvent {
  bytecode::ReportKind kind = bytecode::ReportKind::Custom;
  /// Which event: its place in the emitter's `events` list; a report node's `params.tag`.
  std::uint32_t tag = 0;
  EmitterHandle emitter;
  std::uint32_t particle = 0;  ///< the particle's id
  std::array<float, 3> position{};
  std::array<float, 3> velocity{};
  double time = 0.0;  ///< the world's time at the end of the tick it happened in
};

/// WorldDesc::chunkParticles is a multiple of this: whole SIMD vectors for every target.
inline constexpr std::uint32_t kChunkGranule = 256;

struct WorldDesc {
  std::uint32_t maxEffects = 256;         ///< effect instances alive at once
  std::uint32_t maxEmitters = 1024;       ///< emitters alive at once, all effects together
  std::uint64_t maxParticles = 1u << 22;  ///< the sum of the live emitters' capacities
  std::uint32_t maxGlobals = 256;         ///< distinct global field names
  /// Host events one emitter reports in one tick (ParticleWorld::events); the rest are counted in
  /// WorldStats::eventsDropped. The event buffer is this times the reporting emitters, made at
  /// addEffect and never grown.
  std::uint32_t maxEventsPerEmitter = 1024;
  /// Particles per work item (a multiple of kChunkGranule; the VM runs it in batches of
  /// kBatchLanes, the last one partial): the unit threads share.
  std::uint32_t chunkParticles = 8192;
  /// Where tick() runs its parallel work (borrowed; must outlive the world). Null: the calling
  /// thread only.
  JobSystem* jobs = nullptr;
};

/// Capacities for exactly one instance of `effect` (its emitters and their particles), run on
/// `jobs`. O(emitters). Allocates: never.
WorldDesc worldDescFor(const bytecode::CompiledEffect& effect, JobSystem* jobs = nullptr) noexcept;

/// Options for one effect instance.
struct EffectOptions {
  Transform transform;
  /// Mixed into every emitter's seed: instances of one effect with different seeds differ.
  std::uint64_t seed = 0;
  /// Start with prewarm (each emitter's `prewarm` seconds run forward). Default on.
  bool prewarm = true;
};

struct EmitterStats {
  std::uint32_t live = 0;
  std::uint32_t capacity = 0;
  std::uint64_t spawned = 0;  ///< since the emitter was added or restarted
  std::uint64_t dropped = 0;  ///< spawns refused for want of a free slot (pool overflow)
  std::uint64_t died = 0;
  Bounds bounds;          ///< world space, dilated by the particles' quad extents
  bool culled = false;    ///< culled in the last tick
  bool finished = false;  ///< no live particles and nothing left to emit
  float time = 0.0f;      ///< emitter time, s since its delay ended (negative before)
};

struct WorldStats {
  std::uint64_t tick = 0;
  double time = 0.0;  ///< simulated seconds
  std::uint32_t effects = 0;
  std::uint32_t emitters = 0;
  std::uint64_t live = 0;
  std::uint64_t spawned = 0;  ///< in the last tick
  std::uint64_t dropped = 0;  ///< in the last tick
  std::uint64_t died = 0;     ///< in the last tick
  std::uint64_t spawnedTotal = 0;
  std::uint64_t droppedTotal = 0;
  std::uint32_t culled = 0;         ///< emitters culled in the last tick
  std::uint32_t events = 0;         ///< host events of the last tick (ParticleWorld::events)
  std::uint64_t eventsDropped = 0;  ///< past WorldDesc::maxEventsPerEmitter in the last tick
  /// Wall-clock seconds of the last tick's phases.
  double emitSeconds = 0.0;
  double simulateSeconds = 0.0;
  double compactSeconds = 0.0;
};

/// Read access to one emitter's particles (valid until the next non-const call on the world).
struct EmitterView {
  const bytecode::CompiledEmitter* emitter = nullptr;  ///< its description (channels, render, …)
  const bytecode::CompiledMaterial* material = nullptr;  ///< its material; null: the default
  std::uint32_t live = 0;
  /// One pointer per particle word (emitter->program.particleWords); particle i's word w is
  /// streams[w][i]. Positions are world space, or emitter space for local/emitter_attached.
  std::span<const float* const> streams;
  const std::uint32_t* ids = nullptr;  ///< particle ids (spawn order), live of them
  /// A trail's (spawn.source): the id of the source particle each particle was laid by, live of
  /// them; null for every other emitter.
  const std::uint32_t* sources = nullptr;
  Transform transform;  ///< the emitter's world transform this tick
  Bounds bounds;
  std::span<const float> emitterWords;  ///< the emitter fields' current words
  float time = 0.0f;                    ///< emitter time, s since its delay ended
  /// The emitter's state version: unique among every world of the process, and new whenever
  /// anything this view shows may have changed (a tick, prewarm or seek that stepped the emitter,
  /// a restart, a GPU world's readParticles). Equal versions are the same particles and
  /// transform bit for bit, so a renderer may keep what it drew from them (docs/rendering.md,
  /// "The draw cache").
  std::uint64_t version = 0;
};

class ParticleWorld {
 public:
  /// A world with the capacities of `desc`. InvalidArgument for zero capacities or a
  /// chunkParticles that is not a positive multiple of kChunkGranule. Allocates the tables.
  static Result<std::unique_ptr<ParticleWorld>> create(const WorldDesc& desc);
  ~ParticleWorld();
  ParticleWorld(const ParticleWorld&) = delete;
  ParticleWorld& operator=(const ParticleWorld&) = delete;

  /// Places an instance of `effect` (copied; programs verified again and shared by content hash
  /// with instances already placed). Links the programs' global imports by name (a name the world
  /// does not know yet is added with the effect's declared value). Runs prewarm. Errors:
  /// BudgetExhausted when the effect, emitter or particle capacity would be exceeded;
  /// InvalidArgument for a program that fails verification or a global import whose width
  /// disagrees with the world's. Allocates the emitters' slabs: O(capacity · words).
  Result<EffectHandle> addEffect(const bytecode::CompiledEffect& effect,
                                 const EffectOptions& options = {});
  /// Removes the effect and its emitters; their particles are gone at once. NotFound for a stale
  /// handle. Frees the slabs.
  Status removeEffect(EffectHandle effect);
  /// Removes one emitter (its particles at once); its effect stays. NotFound for a stale handle.
  Status removeEmitter(EmitterHandle emitter);

  /// The emitter at `index` in the effect's emitter list (invalid when out of range, removed or
  /// the effect is stale). O(1).
  EmitterHandle emitter(EffectHandle effect, std::uint32_t index) const noexcept;
  /// The emitter named `name`; NotFound otherwise. O(emitters of the effect).
  Result<EmitterHandle> findEmitter(EffectHandle effect, std::string_view name) const;

  /// The host's transform of the effect for the coming ticks. Spawns in the next tick are
  /// interpolated from the previous transform to this one. NotFound for a stale handle.
  Status setTransform(EffectHandle effect, const Transform& transform);
  /// Sets an emitter field by name (all of its words). InvalidArgument for an unknown name or a
  /// width mismatch; NotFound for a stale handle. Takes effect in the next tick.
  Status setEmitterField(EmitterHandle emitter, std::string_view name,
                         std::span<const float> value);
  /// Binds an emitter field to another effect's transform: every tick the field gets that effect's
  /// position (a 3-wide field) or rotation (a 4-wide field). A stale source leaves the last value.
  /// At most 8 bindings per emitter (BudgetExhausted). `source` invalid: removes the binding.
  Status bindEmitterField(EmitterHandle emitter, std::string_view name, EffectHandle source);
  /// Sets a global field (all effects that import it see it next tick). Unknown names are added
  /// (BudgetExhausted past maxGlobals); InvalidArgument for a width other than 1..4 or one that
  /// disagrees with the name's width.
  Status setGlobal(std::string_view name, std::span<const float> value);
  /// The wind SAMPLE_WIND reads (null: still air).
  void setWind(WindField wind, void* user) noexcept;
  /// The world COLLIDE asks — colliders of kind "host" (null: nothing is hit). Not owned: it must
  /// outlive the ticks that use it. Its cast() is called from every worker at once during tick()
  /// (bytecode/collision.h states what it must do); HeightfieldCollider and SdfCollider
  /// (runtime/colliders.h) are two a tool can give without a physics engine.
  void setCollision(const bytecode::CollisionProvider* world) noexcept;

  /// Fires the event `name` on the effect: every event_burst emitter with that event name emits
  /// its rate of particles in the next tick. Returns how many emitters it fired (0 is not an
  /// error). NotFound for a stale handle.
  Result<std::uint32_t> trigger(EffectHandle effect, std::string_view name);
  /// Restarts the effect: particles cleared, emitter clocks and random ids reset, prewarm run —
  /// the same state addEffect made. NotFound for a stale handle.
  Status restart(EffectHandle effect);
  /// Restarts, then runs the effect forward `seconds` (≥ 0, finite, ≤ 3600) in
  /// `clockSteps(seconds)` equal steps — the clock `mote render` and `mote-view` reach effect
  /// time with too.
  Status seek(EffectHandle effect, float seconds);

  /// Advances every effect by dt seconds (0 ≤ dt ≤ 1 and finite; outside is clamped, NaN is 0):
  /// events and bursts → rates → spawn budget clamp → INIT the newborns → UPDATE the live →
  /// kill compaction → bounds → stats (docs/runtime.md). `view` null: nothing is culled.
  /// O(live · instructions). Allocates: never.
  void tick(float dt, const VisibilityTest* view = nullptr);

  /// The last tick's statistics. O(1).
  const WorldStats& stats() const noexcept;
  /// The host events of the last tick (prewarm and seek report none), in (effect slot, emitter
  /// of the effect, particle id, the particle's own order) order — the same on every thread
  /// count; at most WorldDesc::maxEventsPerEmitter an emitter, its lowest particle ids first.
  /// Valid until the next non-const call. O(1). Allocates: never.
  std::span<const HostEvent> events() const noexcept;
  /// NotFound for a stale handle. O(1).
  Result<EmitterStats> emitterStats(EmitterHandle emitter) const;
  /// NotFound for a stale handle. O(1).
  Result<EmitterView> view(EmitterHandle emitter) const;
  /// The live effects' emitters, in effect slot order then the effect's emitter order (the state
  /// hash's order). Fills `out` up to its size and returns how many there are. O(emitters).
  std::uint32_t emitters(std::span<EmitterHandle> out) const noexcept;

  /// FNV-1a 64 over the live state in the canonical order of docs/runtime.md ("The state hash"),
  /// each emitter's particles in `order`, every NaN word hashed as the quiet NaN 0x7FC00000 (a
  /// NaN's sign and payload are not part of the ISA's semantics, docs/isa.md). O(live · words),
  /// plus O(live log live) to sort by id. Allocates: never (HashOrder::Id sorts in scratch that
  /// addEffect reserved).
  std::uint64_t stateHash(HashOrder order = HashOrder::Storage) const noexcept;

  struct Impl;

 private:
  friend struct runtime_detail::WorldAccess;
  explicit ParticleWorld(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// The one clock every tool reaches an effect time with (docs/runtime.md, "Prewarm, restart and
/// seek"): `seconds` from the start is ⌈60·seconds⌉ equal steps of at most 1/60 s (a step's worth
/// of float noise, 1e-9 of a step, does not add one). 0 for seconds ≤ 0 or NaN. O(1), no
/// allocation.
std::uint32_t clockSteps(double seconds) noexcept;

}  // namespace mote
