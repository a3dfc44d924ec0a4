// SPDX-License-Identifier: MIT
// ParticleWorld's private state, shared by the files that implement it: world.cpp (the public
// API and placing effects), world_emission.cpp (the emission schedule), world_pool.cpp (slabs and
// kill compaction) and world_tick.cpp (tick orchestration: the phases, the VM runs, the bounds).
#pragma once

#include "spawn_times.h"

#include <mote/bytecode/semantics.h>
#include <mote/runtime/emission.h>
#include <mote/runtime/emitter_frame.h>
#include <mote/runtime/vm.h>
#include <mote/runtime/world.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace mote {

namespace runtime_detail {

inline constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
inline constexpr std::uint32_t kMaxBindings = 8;
inline constexpr std::uint32_t kVmRows = 512;

// Per-newborn value arrays (indexed like the particle streams).
enum LaneArray : std::uint32_t {
  kLaneSpawnIndex,
  kLaneSpawnFraction,
  kLaneEmitterAge,
  kLanePositionX,
  kLanePositionY,
  kLanePositionZ,
  kLaneDt,
  // A SPAWN request's point in a local-space target's frame, added to the position INIT makes
  // (which is emitter-relative in those spaces) when kLaneLocalSet is 1.
  kLaneLocalX,
  kLaneLocalY,
  kLaneLocalZ,
  kLaneLocalSet,
  kLaneArrays,
  // What a SPAWNI request passes (source_velocity, source_size, source_color): allocated after
  // the others only for a program whose INIT reads them.
  kLaneSourceVelocityX = kLaneArrays,
  kLaneSourceVelocityY,
  kLaneSourceVelocityZ,
  kLaneSourceSize,
  kLaneSourceColorR,
  kLaneSourceColorG,
  kLaneSourceColorB,
  kLaneSourceColorA,
  kLaneArraysWithSource
};

using Vec3 = std::array<float, 3>;
using Quat = std::array<float, 4>;

inline Vec3 rotate(const Quat& q, const Vec3& v) {
  const bytecode::semantics::Lanes r = bytecode::semantics::quatRotate(q, {v[0], v[1], v[2], 0.0f});
  return {r[0], r[1], r[2]};
}

inline Quat multiply(const Quat& a, const Quat& b) {
  return bytecode::semantics::quatMul(a, b);
}

inline bool finite(const Vec3& v) {
  return std::isfinite(v[0]) && std::isfinite(v[1]) && std::isfinite(v[2]);
}

struct SpawnRequest {
  std::uint32_t target;
  std::uint32_t count;
  Vec3 position;
  std::uint32_t source;           // the asking particle's id
  std::uint32_t seq;              // its place in the step's requests of the emitter (the tie-break)
  bytecode::Inheritance inherit;  // SPAWN's: the neutral values
};

// A REPORT of a step, as a chunk's run gave it (the emitter's frame).
struct ReportRecord {
  bytecode::ReportKind kind;
  std::uint32_t tag;
  Vec3 position;
  Vec3 velocity;
  std::uint32_t source;  // the reporting particle's id
  std::uint32_t seq;     // its place in the step's reports of the emitter (the tie-break)
};

struct ChunkOutput {           // what one chunk's run leaves; one writer
  std::uint32_t count = 0;     // SPAWN requests
  std::uint32_t reports = 0;   // REPORTs
  std::uint64_t overflow = 0;  // particles asked for past the segment's room
  Vec3 lo;                     // the box of its survivors (runtime_detail::boundsOf)
  Vec3 hi;
};

struct SharedProgram {
  std::uint64_t hash = 0;
  bytecode::Program program;  // for the equality check behind the hash
  PreparedProgram prepared;
  bool spawns = false;          // has a SPAWN or SPAWNI instruction
  std::uint32_t spawnOps = 0;   // SPAWN and SPAWNI instructions, INIT's and UPDATE's: a particle's
                                // requests in a step at most
  bool readsSource = false;     // INIT reads source_velocity, source_size or source_color
  std::uint32_t reportOps = 0;  // REPORT instructions: a particle's reports in a step at most
};

struct Binding {
  std::uint32_t offset = 0;
  std::uint32_t width = 0;
  EffectHandle source;
};

// One spawn() call's newborns, [first, first + count) of the streams, whose spawn lanes and ids
// the chunks holding them write (in parallel, the same per-particle formulas).
struct SpawnRun {
  std::uint32_t first = 0;
  std::uint32_t count = 0;
  std::uint32_t index = 0;  // the first one's spawn index (newborns before it this step)
  std::uint32_t id = 0;     // the first one's id
  SpawnWindow window;
  bool atPosition = false;  // at `position` (a trail: along inherit.from → position), else
                            // along the emitter's path this step
  bool local = false;       // `localOffset` set
  Vec3 position{};
  Vec3 localOffset{};
  bytecode::Inheritance inherit;  // what the newborns' source_* builtins read
  std::uint32_t source = 0;       // a trail's: the asking particle's id
};
inline constexpr std::uint32_t kSpawnRunsPerStep =
    8;  // more calls in a step fill their lanes at once

struct EmitterRow {
  std::uint32_t generation = 0;
  bool alive = false;
  std::uint32_t effect = kNone;  // effect slot
  std::uint32_t index = 0;       // position in the effect's emitter list
  const bytecode::CompiledEmitter* desc = nullptr;
  std::shared_ptr<const SharedProgram> program;
  std::uint32_t words = 0;
  std::uint32_t capacity = 0;
  std::uint32_t stride = 0;  // floats per stream (capacity rounded up)
  std::vector<float> storage;
  std::vector<float*> streams;
  std::vector<std::uint32_t> ids;
  std::vector<std::uint32_t> sources;  // a trail's: each particle's source particle id; else empty
  std::vector<std::uint8_t> killed;
  std::vector<float> lanes;  // kLaneArrays arrays of stride floats
  std::vector<float> emitterWords;
  std::array<Binding, kMaxBindings> bindings{};
  std::uint32_t bindingCount = 0;
  std::vector<std::uint32_t> globalSlots;  // world global per program import
  std::vector<std::array<float, 4>> globals;
  // SPAWN requests: segments × requestsPerSegment (a chunk's particles × the program's SPAWN
  // instructions: never full), then after the step in (source id, seq) order in `ordered`.
  std::vector<SpawnRequest> requests;
  std::uint32_t requestsPerSegment = 0;
  std::vector<SpawnRequest> ordered;
  std::uint32_t orderedCount = 0;
  double stepDt = 0.0;      // this step's dt (schedule)
  double requestsDt = 0.0;  // the dt of the step whose requests `ordered` holds
  // REPORTs, as the requests: segments × reportsPerSegment, then in (source id, seq) order.
  std::vector<ReportRecord> reports;
  std::uint32_t reportsPerSegment = 0;
  std::vector<ReportRecord> orderedReports;
  std::uint32_t orderedReportCount = 0;
  std::vector<ChunkOutput> segments;
  std::uint32_t usedSegments = 0;
  double lastEmission = 0.0;
  std::uint64_t seed = 0;

  // Simulation state.
  emission::Window window;        // this step's (the backend reads it)
  std::uint64_t hostDropped = 0;  // with a backend: the rates' excess past the capacity
  std::uint32_t live = 0;
  std::uint32_t newborn = 0;  // this step's, at [live, live + newborn) until the step ends
  std::array<SpawnRun, kSpawnRunsPerStep> spawnRuns{};  // this step's, lanes not yet written
  std::uint32_t spawnRunCount = 0;
  std::uint32_t nextId = 0;
  std::uint64_t steps = 0;
  std::uint64_t version = 0;  // EmitterView::version: nextStateVersion() at each change
  emission::Clock clock;
  bool culled = false;
  Transform world;
  Transform previous;
  Vec3 velocity{0.0f, 0.0f, 0.0f};
  Bounds bounds;
  std::uint64_t spawned = 0;
  std::uint64_t dropped = 0;
  std::uint64_t died = 0;
  std::uint64_t stepSpawned = 0;
  std::uint64_t stepDropped = 0;
  std::uint64_t stepDied = 0;
  VmContext context;

  float* lane(LaneArray a) { return lanes.data() + std::size_t{a} * stride; }
  double emitterTime() const { return emission::emitterTime(desc->emission, clock); }
};

// A state version no emitter of any world has had (EmitterView::version). Thread-safe.
std::uint64_t nextStateVersion() noexcept;

struct EffectSlot {
  std::uint32_t generation = 0;
  bool alive = false;
  std::unique_ptr<bytecode::CompiledEffect> effect;
  EffectOptions options;
  std::vector<std::uint32_t> rows;  // per emitter index; kNone once removed
  Transform current;
  Transform previous;
};

struct WorkItem {
  std::uint32_t row;
  std::uint32_t first;
  std::uint32_t count;
  std::uint32_t segment;
  bool newborn;
};

struct Global {
  std::string name;
  std::uint32_t width = 0;
  std::array<float, 4> value{};
};

using EmissionWindow = emission::Window;

// Where a world's particles live when they are not the CPU's: gpu::ParticleWorld runs a
// ParticleWorld as its host model — effects, handles, emission schedules, transforms, fields and
// globals — and its particles on the device. The world calls these from the driving thread.
class ParticleBackend {
 public:
  /// addEffect, before anything is committed: can the backend run `effect`? An error says why not.
  virtual Status admit(const bytecode::CompiledEffect& effect) = 0;
  /// Row `row` has a new tenant or restarted: its particles are gone, its counts start again.
  virtual void reset(std::uint32_t row) = 0;
  /// Row `row` was removed: its particles are gone.
  virtual void release(std::uint32_t row) = 0;
  /// One of the step's spawn calls of row `row` (emission::Sink::spawn), in order.
  virtual void spawnCall(std::uint32_t row, std::uint32_t count,
                         const emission::BirthTimes& birth) = 0;
  /// Particles a rate of row `row` asked for past its capacity (emission::Sink::drop).
  virtual void drop(std::uint32_t row, std::uint64_t count) = 0;
  /// Runs one step of `dt` of `stepRows` (scheduled, their contexts prepared; the rows' windows
  /// in EmitterRow::window).
  virtual void step(std::span<const std::uint32_t> stepRows, double dt) = 0;

 protected:
  ~ParticleBackend() = default;
};

}  // namespace runtime_detail

struct ParticleWorld::Impl {
  using BirthTimes = runtime_detail::BirthTimes;
  using EffectSlot = runtime_detail::EffectSlot;
  using EmissionWindow = runtime_detail::EmissionWindow;
  using EmitterRow = runtime_detail::EmitterRow;
  using SpawnRun = runtime_detail::SpawnRun;
  using Vec3 = runtime_detail::Vec3;
  using WorkItem = runtime_detail::WorkItem;

  WorldDesc desc;
  runtime_detail::ParticleBackend* backend = nullptr;  // null: the particles are the CPU's
  InlineJobSystem inlineJobs;
  JobSystem* jobs = nullptr;
  std::vector<BatchVm> vms;
  std::uint32_t vmRows = runtime_detail::kVmRows;
  std::vector<EffectSlot> effects;
  std::vector<EmitterRow> rows;
  std::vector<std::uint32_t> order;  // live rows, canonical order
  std::vector<std::shared_ptr<runtime_detail::SharedProgram>> programs;
  std::vector<runtime_detail::Global> globals;
  std::vector<WorkItem> items;
  std::vector<std::uint32_t> stepRows;  // scratch for prewarm / seek
  // stateHash(HashOrder::Id)'s sort scratch: (id << 32 | slot) keys, as long as the largest
  // emitter's capacity (placeRow grows it). One thread drives a world, so const calls share it.
  mutable std::vector<std::uint64_t> hashKeys;
  std::uint64_t particlesInUse = 0;
  WindField wind = nullptr;
  void* windUser = nullptr;
  const bytecode::CollisionProvider* collision = nullptr;
  WorldStats stats;
  double time = 0.0;
  // The last tick's host events (events()): room for maxEventsPerEmitter per reporting emitter,
  // made by addEffect.
  std::vector<HostEvent> events;
  std::uint32_t eventCount = 0;
  // Force events (an emitter's `force_event`, raised with its events during tick()): wind bursts
  // added to the host's wind for SAMPLE_WIND.
  emission::ForceBursts bursts;
  // True while tick() steps (prewarm and seek do not): only its steps raise force events and
  // count in the world's totals.
  bool ticking = false;

  void raiseBlast(const EmitterRow& r);
  static std::array<float, 3> windWithBlasts(const std::array<float, 3>& position, void* user);

  EffectSlot* effectSlot(EffectHandle h) {
    if (h.index >= effects.size()) return nullptr;
    EffectSlot& e = effects[h.index];
    return e.alive && e.generation == h.generation ? &e : nullptr;
  }
  EmitterRow* emitterRow(EmitterHandle h) {
    if (h.index >= rows.size()) return nullptr;
    EmitterRow& r = rows[h.index];
    return r.alive && r.generation == h.generation ? &r : nullptr;
  }

  // world.cpp
  void rebuildOrder();
  void reserveItems();

  // world_pool.cpp: slabs and kill compaction.
  void placeRow(EmitterRow& r, std::uint32_t effect, std::uint32_t index,
                std::shared_ptr<const runtime_detail::SharedProgram> program,
                std::span<const std::uint32_t> globalSlots);
  void resetRow(EmitterRow& r);
  void freeRow(std::uint32_t row);
  void compact(EmitterRow& r);
  void orderRequests(EmitterRow& r);
  void orderReports(EmitterRow& r);
  void collectEvents(std::span<const std::uint32_t> stepRowList, WorldStats& out);
  void reserveEvents();

  // world_tick.cpp: tick orchestration.
  void prewarm(EffectSlot& e);
  void step(std::span<const std::uint32_t> stepRows, double dt, const VisibilityTest* view,
            WorldStats* out);
  void followHost(EmitterRow& r, double dt);
  void layOutItems(std::span<const std::uint32_t> stepRows);
  void simulate();
  void finishRows(std::span<const std::uint32_t> stepRows);
  void publishStats(std::span<const std::uint32_t> stepRows, WorldStats* out);
  void prepareContext(EmitterRow& r, double dt);
  void runItem(BatchVm& vm, const WorkItem& item);
  void initNewborns(BatchVm& vm, const WorkItem& item, VmContext& c,
                    std::span<std::uint8_t> killed);
  void measureBounds(EmitterRow& r);

  // world_emission.cpp: the emission schedule.
  void schedule(EmitterRow& r, double dt, const VisibilityTest* view);
  void spawn(EmitterRow& r, std::uint32_t count, const BirthTimes& birth, double windowStart,
             double span, double t0, double dt, const Vec3* position,
             const Vec3* localOffset = nullptr, const bytecode::Inheritance& inherit = {},
             std::uint32_t source = 0);
  void fillSpawnLanes(EmitterRow& r, const SpawnRun& run, std::uint32_t begin, std::uint32_t end);
  void consumeRequests(EmitterRow& r, const EmissionWindow& w);
};

namespace runtime_detail {

// The way into a ParticleWorld's state for the runtime's own code and the GPU backend.
struct WorldAccess {
  /// A world whose particles `backend` runs (borrowed; outlives the world).
  static Result<std::unique_ptr<ParticleWorld>> create(const WorldDesc& desc,
                                                       ParticleBackend* backend);
  static ParticleWorld::Impl& impl(ParticleWorld& world) { return *world.impl_; }
  static const ParticleWorld::Impl& impl(const ParticleWorld& world) { return *world.impl_; }
};

}  // namespace runtime_detail

}  // namespace mote
