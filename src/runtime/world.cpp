// SPDX-License-Identifier: MIT
// ParticleWorld (docs/runtime.md). A tick is three phases: a serial one that schedules emission
// and lays out the work (per emitter, not per particle: the newborns' spawn values are recorded
// as runs), a parallel one that writes the newborns' spawn values, runs INIT and UPDATE and
// measures the survivors' box over fixed chunks of particles, and a parallel one over emitters
// that compacts kills and merges the boxes. Every chunk writes only its own particles, kill
// flags, spawn values, spawn-request segment and box, so the result does not depend on which
// thread ran which chunk.
#include "bounds.h"
#include "spawn_times.h"

#include <mote/bytecode/semantics.h>
#include <mote/core/assert.h>
#include <mote/core/fnv1a.h>
#include <mote/runtime/vm.h>
#include <mote/runtime/world.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace mote {

using bytecode::Builtin;
using bytecode::CompiledEffect;
using bytecode::CompiledEmission;
using bytecode::CompiledEmitter;
using bytecode::EmissionMode;
using bytecode::Section;
using bytecode::SimulationSpace;

namespace {

constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
constexpr std::uint32_t kMaxBindings = 8;
constexpr std::uint32_t kSpawnRequestsPerChunk = 256;
constexpr std::uint32_t kMaxPendingEvents = 1u << 16;
constexpr std::uint32_t kMaxOccurrencesPerTick = 4096;  // shots/bursts/loops looked at per tick
constexpr double kPrewarmStep = 1.0 / 30.0;
constexpr double kSeekStep = 1.0 / 60.0;
constexpr std::uint32_t kVmRows = 512;

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
  kLaneArrays
};

std::uint64_t mix64(std::uint64_t x) {  // splitmix64's finaliser
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

using Vec3 = std::array<float, 3>;
using Quat = std::array<float, 4>;

Vec3 rotate(const Quat& q, const Vec3& v) {
  const bytecode::semantics::Lanes r = bytecode::semantics::quatRotate(q, {v[0], v[1], v[2], 0.0f});
  return {r[0], r[1], r[2]};
}

Quat multiply(const Quat& a, const Quat& b) {
  return bytecode::semantics::quatMul(a, b);
}

Transform compose(const Transform& parent, const Vec3& position, const Quat& rotation) {
  Transform t;
  const Vec3 offset = rotate(parent.rotation, position);
  for (std::size_t c = 0; c < 3; ++c)
    t.position[c] = parent.position[c] + offset[c];
  t.rotation = multiply(parent.rotation, rotation);
  return t;
}

bool finite(const Vec3& v) {
  return std::isfinite(v[0]) && std::isfinite(v[1]) && std::isfinite(v[2]);
}

// The emitter-time rate curve, evaluated as the compiler's evalKeys evaluates curves.
float evalRate(const CompiledEmission& e, double t) {
  if (e.rateKeys.empty()) return e.rate;
  const float x = static_cast<float>(t);
  float v = e.rateKeys[0][1];
  for (std::size_t i = 0; i + 1 < e.rateKeys.size(); ++i) {
    const float t0 = e.rateKeys[i][0];
    const float t1 = e.rateKeys[i + 1][0];
    float s = 0.0f;
    if (t1 <= t0 || e.rateInterp == bytecode::CurveInterp::Step) {
      s = t1 <= x ? 1.0f : 0.0f;
    } else {
      s = std::clamp((x - t0) / (t1 - t0), 0.0f, 1.0f);
      if (e.rateInterp == bytecode::CurveInterp::Smooth) s = s * s * (3.0f - 2.0f * s);
    }
    v += (e.rateKeys[i + 1][1] - e.rateKeys[i][1]) * s;
  }
  return std::max(v, 0.0f);
}

// The emitter time after which it emits nothing more by itself (infinity: it may emit forever).
double lastEmission(const CompiledEmission& e) {
  constexpr double kForever = std::numeric_limits<double>::infinity();
  if (e.loop && e.duration > 0.0f) return kForever;
  double last = 0.0;
  const bool rated = e.rate > 0.0f || !e.rateKeys.empty();
  if ((e.mode == EmissionMode::Continuous || e.mode == EmissionMode::BeamContinuous) && rated) {
    if (e.duration <= 0.0f) return kForever;
    last = static_cast<double>(e.duration);
  }
  for (const bytecode::CompiledBurst& b : e.bursts) {
    if (b.repeatInterval > 0.0f && b.repeatCount == 0) return kForever;
    last = std::max(
        last, static_cast<double>(b.time) + static_cast<double>(b.repeatInterval) * b.repeatCount);
  }
  for (const float t : e.eventTimes)
    last = std::max(last, static_cast<double>(t) - static_cast<double>(e.delay));
  return last;
}

struct SpawnRequest {
  std::uint32_t target;
  std::uint32_t count;
  Vec3 position;
};

struct ChunkOutput {           // what one chunk's run leaves; one writer
  std::uint32_t count = 0;     // SPAWN requests
  std::uint64_t overflow = 0;  // particles asked for past the segment's room
  Vec3 lo;                     // the box of its survivors (runtime_detail::boundsOf)
  Vec3 hi;
};

struct SharedProgram {
  std::uint64_t hash = 0;
  bytecode::Program program;  // for the equality check behind the hash
  PreparedProgram prepared;
  bool spawns = false;  // has a SPAWN instruction
};

struct Binding {
  std::uint32_t offset = 0;
  std::uint32_t width = 0;
  EffectHandle source;
};

using runtime_detail::BirthTimes;

// One spawn() call's newborns, [first, first + count) of the streams, whose spawn lanes and ids
// the chunks holding them write (in parallel, the same per-particle formulas).
struct SpawnRun {
  std::uint32_t first = 0;
  std::uint32_t count = 0;
  std::uint32_t index = 0;  // the first one's spawn index (newborns before it this step)
  std::uint32_t id = 0;     // the first one's id
  runtime_detail::SpawnWindow window;
  bool atPosition = false;  // at `position`, else along the emitter's path this step
  bool local = false;       // `localOffset` set
  Vec3 position{};
  Vec3 localOffset{};
};
constexpr std::uint32_t kSpawnRunsPerStep = 8;  // more calls in a step fill their lanes at once

struct EmitterRow {
  std::uint32_t generation = 0;
  bool alive = false;
  std::uint32_t effect = kNone;  // effect slot
  std::uint32_t index = 0;       // position in the effect's emitter list
  const CompiledEmitter* desc = nullptr;
  std::shared_ptr<const SharedProgram> program;
  std::uint32_t words = 0;
  std::uint32_t capacity = 0;
  std::uint32_t stride = 0;  // floats per stream (capacity rounded up)
  std::vector<float> storage;
  std::vector<float*> streams;
  std::vector<std::uint32_t> ids;
  std::vector<std::uint8_t> killed;
  std::vector<float> lanes;  // kLaneArrays arrays of stride floats
  std::vector<float> emitterWords;
  std::array<Binding, kMaxBindings> bindings{};
  std::uint32_t bindingCount = 0;
  std::vector<std::uint32_t> globalSlots;  // world global per program import
  std::vector<std::array<float, 4>> globals;
  std::vector<SpawnRequest> requests;  // segments × kSpawnRequestsPerChunk
  std::vector<ChunkOutput> segments;
  std::uint32_t usedSegments = 0;
  double lastEmission = 0.0;
  std::uint64_t seed = 0;

  // Simulation state.
  std::uint32_t live = 0;
  std::uint32_t newborn = 0;  // this step's, at [live, live + newborn) until the step ends
  std::array<SpawnRun, kSpawnRunsPerStep> spawnRuns{};  // this step's, lanes not yet written
  std::uint32_t spawnRunCount = 0;
  std::uint32_t nextId = 0;
  std::uint64_t steps = 0;
  double effectTime = 0.0;  // seconds since the instance started (or restarted)
  double accumulator = 0.0;
  std::uint32_t pendingEvents = 0;
  double sleep = 0.0;
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
  double emitterTime() const { return effectTime - static_cast<double>(desc->emission.delay); }
};

struct EffectSlot {
  std::uint32_t generation = 0;
  bool alive = false;
  std::unique_ptr<CompiledEffect> effect;
  EffectOptions options;
  std::vector<std::uint32_t> rows;  // per emitter index; kNone once removed
  Transform current;
  Transform previous;
};

// The streams boundsOf reads for particles [first, first + count) of `r`; `skip` as in
// BoundsInput. Precondition: the emitter has a position channel.
runtime_detail::BoundsInput boundsInput(const EmitterRow& r, std::uint32_t first,
                                        std::uint32_t count, const std::uint8_t* skip) {
  const bytecode::ParticleChannels& ch = r.desc->channels;
  const auto stream = [&](std::int32_t channel, std::int32_t k) {
    return r.streams[static_cast<std::size_t>(channel + k)] + first;
  };
  runtime_detail::BoundsInput in;
  in.position = {stream(ch.position, 0), stream(ch.position, 1), stream(ch.position, 2)};
  if (ch.size >= 0) in.size = {stream(ch.size, 0), stream(ch.size, 1)};
  const bytecode::RenderMode mode = r.desc->render.mode;
  // Half the quad's diagonal holds it at any roll: ½√(w² + h²) ≤ ½√2 · max(|w|, |h|), and
  // |v| ≤ √3 · max(|vx|, |vy|, |vz|): conservative without a square root.
  if (ch.velocity >= 0 &&
      (mode == bytecode::RenderMode::Stretched || mode == bytecode::RenderMode::VelocityAligned)) {
    in.velocity = {stream(ch.velocity, 0), stream(ch.velocity, 1), stream(ch.velocity, 2)};
    in.stretchFactor = 1.7320508f * std::fabs(r.desc->render.stretchScale);
  }
  in.skip = skip;
  in.count = count;
  return in;
}

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

struct SpawnSink {
  SpawnRequest* requests;
  ChunkOutput* segment;
};

void sinkSpawn(std::uint32_t target, std::uint32_t count, const Vec3& position, void* user) {
  SpawnSink& sink = *static_cast<SpawnSink*>(user);
  if (sink.segment->count < kSpawnRequestsPerChunk) {
    sink.requests[sink.segment->count++] = {target, count, position};
  } else {
    sink.segment->overflow += count;
  }
}

double seconds(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

}  // namespace

struct ParticleWorld::Impl {
  WorldDesc desc;
  InlineJobSystem inlineJobs;
  JobSystem* jobs = nullptr;
  std::vector<BatchVm> vms;
  std::uint32_t vmRows = kVmRows;
  std::vector<EffectSlot> effects;
  std::vector<EmitterRow> rows;
  std::vector<std::uint32_t> order;  // live rows, canonical order
  std::vector<std::shared_ptr<SharedProgram>> programs;
  std::vector<Global> globals;
  std::vector<WorkItem> items;
  std::vector<std::uint32_t> stepRows;  // scratch for prewarm / seek
  std::uint64_t particlesInUse = 0;
  WindField wind = nullptr;
  void* windUser = nullptr;
  WorldStats stats;
  double time = 0.0;
  // Force events (an emitter's `force_event`, raised with its events during tick()): wind bursts
  // added to the host's wind for SAMPLE_WIND. A fixed table; when it is full the burst that ends
  // first makes room.
  struct Blast {
    std::array<float, 3> centre{};
    float radius = 0.0f;
    float strength = 0.0f;
    double end = 0.0;  // world time the burst stops
  };
  static constexpr std::size_t kMaxBlasts = 64;
  std::array<Blast, kMaxBlasts> blasts{};
  std::uint32_t blastCount = 0;
  bool raisingBlasts = false;  // true while tick() steps: prewarm and seek raise none

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

  void rebuildOrder();
  void reserveItems();
  void resetRow(EmitterRow& r);
  void freeRow(std::uint32_t row);
  void prewarm(EffectSlot& e);
  void step(std::span<const std::uint32_t> stepRows, double dt, const VisibilityTest* view,
            WorldStats* out);
  void schedule(EmitterRow& r, double dt, const VisibilityTest* view);
  void spawn(EmitterRow& r, std::uint32_t count, const BirthTimes& birth, double windowStart,
             double span, double t0, double dt, const Vec3* position,
             const Vec3* localOffset = nullptr);
  void fillSpawnLanes(EmitterRow& r, const SpawnRun& run, std::uint32_t begin, std::uint32_t end);
  void consumeRequests(EmitterRow& r, double windowStart, double span, double t0, double dt);
  void prepareContext(EmitterRow& r, double dt);
  void runItem(BatchVm& vm, const WorkItem& item);
  void compact(EmitterRow& r);
  void measureBounds(EmitterRow& r);
};

WorldDesc worldDescFor(const CompiledEffect& effect, JobSystem* jobs) noexcept {
  WorldDesc desc;
  desc.jobs = jobs;
  std::uint64_t particles = 0;
  for (const CompiledEmitter& e : effect.emitters)
    particles += e.maxParticles;
  desc.maxParticles = std::max<std::uint64_t>(particles, 1);
  desc.maxEmitters = static_cast<std::uint32_t>(
      std::clamp<std::size_t>(effect.emitters.size(), 1, std::size_t{1} << 20));
  return desc;
}

ParticleWorld::ParticleWorld(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ParticleWorld::~ParticleWorld() = default;

const WorldStats& ParticleWorld::stats() const noexcept {
  return impl_->stats;
}

Result<std::unique_ptr<ParticleWorld>> ParticleWorld::create(const WorldDesc& desc) {
  if (desc.maxEffects == 0 || desc.maxEmitters == 0 || desc.maxParticles == 0 ||
      desc.maxGlobals == 0) {
    return invalidArgument(
        "WorldDesc: maxEffects, maxEmitters, maxParticles and maxGlobals must "
        "be at least 1");
  }
  if (desc.maxEffects > (1u << 20) || desc.maxEmitters > (1u << 20) || desc.maxGlobals > 4096) {
    return invalidArgument(
        "WorldDesc: maxEffects and maxEmitters are at most 2^20, maxGlobals "
        "at most 4096");
  }
  if (desc.chunkParticles == 0 || desc.chunkParticles % kChunkGranule != 0 ||
      desc.chunkParticles > (1u << 24)) {
    return invalidArgument("WorldDesc: chunkParticles must be a positive multiple of " +
                           std::to_string(kChunkGranule) + " up to 2^24 (got " +
                           std::to_string(desc.chunkParticles) + ")");
  }
  auto impl = std::make_unique<Impl>();
  impl->desc = desc;
  impl->jobs = desc.jobs != nullptr ? desc.jobs : &impl->inlineJobs;
  const std::uint32_t workers = std::max(1u, impl->jobs->concurrency());
  for (std::uint32_t i = 0; i < workers; ++i) {
    Result<BatchVm> vm = BatchVm::create(impl->vmRows);
    if (!vm.ok()) return std::move(vm).status();
    impl->vms.push_back(std::move(vm.value()));
  }
  impl->effects.resize(desc.maxEffects);
  impl->rows.resize(desc.maxEmitters);
  impl->order.reserve(desc.maxEmitters);
  impl->stepRows.reserve(desc.maxEmitters);
  impl->globals.reserve(desc.maxGlobals);
  return std::unique_ptr<ParticleWorld>(new ParticleWorld(std::move(impl)));
}

void ParticleWorld::Impl::rebuildOrder() {
  order.clear();
  for (const EffectSlot& e : effects) {
    if (!e.alive) continue;
    for (const std::uint32_t row : e.rows)
      if (row != kNone) order.push_back(row);
  }
}

void ParticleWorld::Impl::reserveItems() {
  std::size_t total = 0;
  for (const std::uint32_t row : order)
    total += rows[row].segments.size();
  items.reserve(total);
}

void ParticleWorld::Impl::resetRow(EmitterRow& r) {
  r.live = 0;
  r.newborn = 0;
  r.spawnRunCount = 0;
  r.nextId = 0;
  r.steps = 0;
  r.effectTime = 0.0;
  r.accumulator = 0.0;
  r.pendingEvents = 0;
  r.sleep = 0.0;
  r.culled = false;
  r.velocity = {0.0f, 0.0f, 0.0f};
  r.bounds = {};
  r.spawned = r.dropped = r.died = 0;
  r.stepSpawned = r.stepDropped = r.stepDied = 0;
  r.usedSegments = 0;
  for (ChunkOutput& s : r.segments)
    s = {};
  const EffectSlot& e = effects[r.effect];
  r.world = compose(e.current, r.desc->position, r.desc->rotation);
  r.previous = r.world;
}

void ParticleWorld::Impl::freeRow(std::uint32_t row) {
  EmitterRow& r = rows[row];
  particlesInUse -= r.capacity;
  const std::uint32_t generation = r.generation + 1 == 0 ? 1 : r.generation + 1;
  r = EmitterRow{};  // frees the slabs; a later tenant starts from nothing
  r.generation = generation;
  // Programs nobody runs any more leave the cache.
  std::erase_if(programs,
                [](const std::shared_ptr<SharedProgram>& p) { return p.use_count() == 1; });
}

Result<EffectHandle> ParticleWorld::addEffect(const CompiledEffect& effect,
                                              const EffectOptions& options) {
  Impl& w = *impl_;
  const auto freeEffect = std::find_if(w.effects.begin(), w.effects.end(),
                                       [](const EffectSlot& e) { return !e.alive; });
  if (freeEffect == w.effects.end()) {
    return budgetExhausted("addEffect: the world holds its maximum of " +
                           std::to_string(w.desc.maxEffects) + " effects");
  }
  std::uint32_t freeRows = 0;
  for (const EmitterRow& r : w.rows)
    freeRows += r.alive ? 0 : 1;
  if (effect.emitters.size() > freeRows) {
    return budgetExhausted("addEffect: '" + effect.name + "' has " +
                           std::to_string(effect.emitters.size()) + " emitters; the world has " +
                           std::to_string(freeRows) + " free of " +
                           std::to_string(w.desc.maxEmitters));
  }
  std::uint64_t particles = 0;
  for (const CompiledEmitter& e : effect.emitters)
    particles += e.maxParticles;
  if (w.particlesInUse + particles > w.desc.maxParticles) {
    return budgetExhausted("addEffect: '" + effect.name + "' needs " + std::to_string(particles) +
                           " particle slots; " +
                           std::to_string(w.desc.maxParticles - w.particlesInUse) + " of " +
                           std::to_string(w.desc.maxParticles) + " are free");
  }
  for (const Transform* t : {&options.transform}) {
    if (!finite(t->position) || !std::isfinite(t->rotation[0]) || !std::isfinite(t->rotation[1]) ||
        !std::isfinite(t->rotation[2]) || !std::isfinite(t->rotation[3])) {
      return invalidArgument("addEffect: the transform is not finite");
    }
  }

  // Verify, prepare and share programs; link globals. Nothing is committed until all succeed.
  auto copy = std::make_unique<CompiledEffect>(effect);
  std::vector<std::shared_ptr<SharedProgram>> shared(copy->emitters.size());
  std::vector<Global> newGlobals;
  std::vector<std::vector<std::uint32_t>> globalSlots(copy->emitters.size());
  const auto findGlobal = [&](const std::string& name) -> std::uint32_t {
    for (std::size_t i = 0; i < w.globals.size(); ++i)
      if (w.globals[i].name == name) return static_cast<std::uint32_t>(i);
    for (std::size_t i = 0; i < newGlobals.size(); ++i)
      if (newGlobals[i].name == name) return static_cast<std::uint32_t>(w.globals.size() + i);
    return kNone;
  };
  for (std::size_t i = 0; i < copy->emitters.size(); ++i) {
    const CompiledEmitter& e = copy->emitters[i];
    const std::string where = "addEffect: '" + copy->name + "' emitter '" + e.name + "': ";
    if (e.maxParticles == 0 || e.maxParticles > (1u << 26)) {
      return invalidArgument(where + "max_particles must be in [1, 2^26]");
    }
    if (e.emitterFieldValues.size() < e.program.emitterWords) {
      return invalidArgument(where + "fewer emitter field values than the program's words");
    }
    const std::uint64_t hash = bytecode::contentHash(e.program);
    for (const auto& p : w.programs)
      if (p->hash == hash && p->program == e.program) shared[i] = p;
    for (std::size_t j = 0; j < i && !shared[i]; ++j)
      if (shared[j]->hash == hash && shared[j]->program == e.program) shared[i] = shared[j];
    if (!shared[i]) {
      Result<bytecode::VerifiedProgram> verified = bytecode::verify(e.program);
      if (!verified.ok()) return invalidArgument(where + verified.status().message());
      auto p = std::make_shared<SharedProgram>();
      p->hash = hash;
      p->program = e.program;
      p->prepared = PreparedProgram::prepare(verified.value());
      for (const auto* code :
           {&p->prepared.section(Section::Init), &p->prepared.section(Section::Update)}) {
        for (const PreparedProgram::Op& op : *code)
          p->spawns = p->spawns || op.op == bytecode::Opcode::Spawn;
      }
      shared[i] = std::move(p);
    }
    for (const bytecode::GlobalImport& import : e.program.globals) {
      std::uint32_t slot = findGlobal(import.name);
      if (slot == kNone) {
        if (w.globals.size() + newGlobals.size() >= w.desc.maxGlobals) {
          return budgetExhausted(where + "global '" + import.name + "' would exceed the world's " +
                                 std::to_string(w.desc.maxGlobals) + " globals");
        }
        Global g{import.name, import.width, {}};
        for (const bytecode::GlobalFieldDecl& d : copy->globals)
          if (d.name == import.name && d.width == import.width) g.value = d.value;
        newGlobals.push_back(std::move(g));
        slot = static_cast<std::uint32_t>(w.globals.size() + newGlobals.size() - 1);
      }
      const std::uint32_t width = slot < w.globals.size()
                                      ? w.globals[slot].width
                                      : newGlobals[slot - w.globals.size()].width;
      if (width != import.width) {
        return invalidArgument(where + "global '" + import.name + "' is " +
                               std::to_string(import.width) + " wide; the world's is " +
                               std::to_string(width));
      }
      globalSlots[i].push_back(slot);
    }
  }
  std::uint32_t rowsNeeded = 0;
  for (const auto& p : shared)
    rowsNeeded = std::max(rowsNeeded, p->prepared.rowsNeeded());
  if (rowsNeeded > w.vmRows) {
    std::vector<BatchVm> vms;
    for (std::size_t i = 0; i < w.vms.size(); ++i) {
      Result<BatchVm> vm = BatchVm::create(rowsNeeded);
      if (!vm.ok()) return std::move(vm).status();
      vms.push_back(std::move(vm.value()));
    }
    w.vms = std::move(vms);
    w.vmRows = rowsNeeded;
  }

  // Commit.
  for (Global& g : newGlobals)
    w.globals.push_back(std::move(g));
  for (const auto& p : shared)
    if (std::find(w.programs.begin(), w.programs.end(), p) == w.programs.end())
      w.programs.push_back(p);
  const auto slot = static_cast<std::uint32_t>(freeEffect - w.effects.begin());
  EffectSlot& e = *freeEffect;
  e.generation = e.generation + 1 == 0 ? 1 : e.generation + 1;
  e.alive = true;
  e.effect = std::move(copy);
  e.options = options;
  e.current = e.previous = options.transform;
  e.rows.assign(e.effect->emitters.size(), kNone);
  std::uint32_t nextRow = 0;
  for (std::size_t i = 0; i < e.effect->emitters.size(); ++i) {
    while (w.rows[nextRow].alive)
      ++nextRow;
    EmitterRow& r = w.rows[nextRow];
    const CompiledEmitter& d = e.effect->emitters[i];
    r.alive = true;
    if (r.generation == 0) r.generation = 1;
    r.effect = slot;
    r.index = static_cast<std::uint32_t>(i);
    r.desc = &d;
    r.program = shared[i];
    r.words = d.program.particleWords;
    r.capacity = d.maxParticles;
    r.stride = (r.capacity + 15u) & ~15u;
    r.storage.assign(std::size_t{r.words} * r.stride, 0.0f);
    r.streams.resize(r.words);
    for (std::uint32_t word = 0; word < r.words; ++word)
      r.streams[word] = r.storage.data() + std::size_t{word} * r.stride;
    r.ids.assign(r.stride, 0);
    r.killed.assign(r.stride, 0);
    r.lanes.assign(std::size_t{kLaneArrays} * r.stride, 0.0f);
    r.emitterWords.assign(d.emitterFieldValues.begin(),
                          d.emitterFieldValues.begin() + d.program.emitterWords);
    r.globalSlots = globalSlots[i];
    r.globals.assign(r.globalSlots.size(), {});
    const std::uint32_t segments =
        (r.capacity + w.desc.chunkParticles - 1) / w.desc.chunkParticles + 1;
    r.segments.assign(segments, {});
    if (r.program->spawns) r.requests.resize(std::size_t{segments} * kSpawnRequestsPerChunk);
    r.lastEmission = lastEmission(d.emission);
    r.seed = mix64(d.seed ^ mix64(options.seed ^ mix64(i)));
    w.particlesInUse += r.capacity;
    w.resetRow(r);
    e.rows[i] = nextRow;
  }
  w.rebuildOrder();
  w.reserveItems();
  const EffectHandle handle{slot, e.generation};
  if (options.prewarm) w.prewarm(e);
  return handle;
}

Status ParticleWorld::removeEffect(EffectHandle handle) {
  Impl& w = *impl_;
  EffectSlot* e = w.effectSlot(handle);
  if (e == nullptr) return notFound("removeEffect: a stale or invalid effect handle");
  for (const std::uint32_t row : e->rows)
    if (row != kNone) w.freeRow(row);
  const std::uint32_t generation = e->generation;
  *e = EffectSlot{};
  e->generation = generation;
  w.rebuildOrder();
  return {};
}

Status ParticleWorld::removeEmitter(EmitterHandle handle) {
  Impl& w = *impl_;
  EmitterRow* r = w.emitterRow(handle);
  if (r == nullptr) return notFound("removeEmitter: a stale or invalid emitter handle");
  w.effects[r->effect].rows[r->index] = kNone;
  w.freeRow(handle.index);
  w.rebuildOrder();
  return {};
}

EmitterHandle ParticleWorld::emitter(EffectHandle effect, std::uint32_t index) const noexcept {
  EffectSlot* e = impl_->effectSlot(effect);
  if (e == nullptr || index >= e->rows.size() || e->rows[index] == kNone) return {};
  return {e->rows[index], impl_->rows[e->rows[index]].generation};
}

Result<EmitterHandle> ParticleWorld::findEmitter(EffectHandle effect, std::string_view name) const {
  EffectSlot* e = impl_->effectSlot(effect);
  if (e == nullptr) return notFound("findEmitter: a stale or invalid effect handle");
  for (std::size_t i = 0; i < e->rows.size(); ++i) {
    if (e->rows[i] != kNone && e->effect->emitters[i].name == name)
      return emitter(effect, static_cast<std::uint32_t>(i));
  }
  return notFound("findEmitter: '" + e->effect->name + "' has no emitter '" + std::string(name) +
                  "'");
}

Status ParticleWorld::setTransform(EffectHandle effect, const Transform& transform) {
  EffectSlot* e = impl_->effectSlot(effect);
  if (e == nullptr) return notFound("setTransform: a stale or invalid effect handle");
  const Quat& q = transform.rotation;
  if (!finite(transform.position) || !std::isfinite(q[0]) || !std::isfinite(q[1]) ||
      !std::isfinite(q[2]) || !std::isfinite(q[3])) {
    return invalidArgument("setTransform: the transform is not finite");
  }
  e->current = transform;
  return {};
}

namespace {
// The emitter field `name` of a live emitter, or the error naming what is wrong (`who` is the
// calling function's name).
Result<const bytecode::FieldSlot*> findField(const EmitterRow* r, std::string_view name,
                                             std::string_view who) {
  if (r == nullptr) return notFound(std::string(who) + ": a stale or invalid emitter handle");
  for (const bytecode::FieldSlot& f : r->desc->emitterFields) {
    if (f.name == name && f.offset + f.width <= r->emitterWords.size()) return &f;
  }
  return invalidArgument(std::string(who) + ": emitter '" + r->desc->name + "' has no field '" +
                         std::string(name) + "'");
}
}  // namespace

Status ParticleWorld::setEmitterField(EmitterHandle emitter, std::string_view name,
                                      std::span<const float> value) {
  EmitterRow* r = impl_->emitterRow(emitter);
  const Result<const bytecode::FieldSlot*> field = findField(r, name, "setEmitterField");
  if (!field.ok()) return field.status();
  const bytecode::FieldSlot* f = field.value();
  if (value.size() != f->width) {
    return invalidArgument("setEmitterField: '" + std::string(name) + "' is " +
                           std::to_string(f->width) + " wide, got " + std::to_string(value.size()) +
                           " values");
  }
  std::copy(value.begin(), value.end(), r->emitterWords.begin() + f->offset);
  return {};
}

Status ParticleWorld::bindEmitterField(EmitterHandle emitter, std::string_view name,
                                       EffectHandle source) {
  EmitterRow* r = impl_->emitterRow(emitter);
  const Result<const bytecode::FieldSlot*> field = findField(r, name, "bindEmitterField");
  if (!field.ok()) return field.status();
  const bytecode::FieldSlot* f = field.value();
  if (f->width != 3 && f->width != 4) {
    return invalidArgument("bindEmitterField: '" + std::string(name) +
                           "' must be 3 wide (position) or 4 wide (rotation)");
  }
  auto* begin = r->bindings.begin();
  auto* end = begin + r->bindingCount;
  auto* it = std::find_if(begin, end, [&](const Binding& b) { return b.offset == f->offset; });
  if (!source.valid()) {
    if (it != end) {
      std::move(it + 1, end, it);
      --r->bindingCount;
    }
    return {};
  }
  if (impl_->effectSlot(source) == nullptr) {
    return notFound("bindEmitterField: a stale or invalid source effect handle");
  }
  if (it == end) {
    if (r->bindingCount == kMaxBindings) {
      return budgetExhausted("bindEmitterField: emitter '" + r->desc->name + "' has " +
                             std::to_string(kMaxBindings) + " bindings already");
    }
    ++r->bindingCount;
  }
  *it = {f->offset, f->width, source};
  return {};
}

Status ParticleWorld::setGlobal(std::string_view name, std::span<const float> value) {
  Impl& w = *impl_;
  if (value.empty() || value.size() > 4) {
    return invalidArgument("setGlobal: '" + std::string(name) + "' needs 1 to 4 values (got " +
                           std::to_string(value.size()) + ")");
  }
  for (Global& g : w.globals) {
    if (g.name != name) continue;
    if (g.width != value.size()) {
      return invalidArgument("setGlobal: '" + std::string(name) + "' is " +
                             std::to_string(g.width) + " wide, got " +
                             std::to_string(value.size()) + " values");
    }
    std::copy(value.begin(), value.end(), g.value.begin());
    return {};
  }
  if (w.globals.size() >= w.desc.maxGlobals) {
    return budgetExhausted("setGlobal: the world holds its maximum of " +
                           std::to_string(w.desc.maxGlobals) + " globals");
  }
  Global g{std::string(name), static_cast<std::uint32_t>(value.size()), {}};
  std::copy(value.begin(), value.end(), g.value.begin());
  w.globals.push_back(std::move(g));
  return {};
}

void ParticleWorld::setWind(WindField wind, void* user) noexcept {
  impl_->wind = wind;
  impl_->windUser = user;
}

Result<std::uint32_t> ParticleWorld::trigger(EffectHandle effect, std::string_view name) {
  Impl& w = *impl_;
  EffectSlot* e = w.effectSlot(effect);
  if (e == nullptr) return notFound("trigger: a stale or invalid effect handle");
  std::uint32_t fired = 0;
  for (const std::uint32_t row : e->rows) {
    if (row == kNone) continue;
    EmitterRow& r = w.rows[row];
    const CompiledEmission& em = r.desc->emission;
    if (em.mode != EmissionMode::EventBurst || em.eventName != name) continue;
    if (r.pendingEvents < kMaxPendingEvents) ++r.pendingEvents;
    ++fired;
  }
  return fired;
}

void ParticleWorld::Impl::prewarm(EffectSlot& e) {
  double longest = 0.0;
  for (const std::uint32_t row : e.rows)
    if (row != kNone) longest = std::max(longest, static_cast<double>(rows[row].desc->prewarm));
  if (!(longest > 0.0)) return;
  const auto steps = static_cast<std::uint32_t>(std::ceil(longest / kPrewarmStep));
  const double h = longest / steps;
  for (std::uint32_t k = 0; k < steps; ++k) {
    // An emitter with a shorter prewarm joins for the last of its seconds only.
    const double remaining = (steps - k) * h;
    stepRows.clear();
    for (const std::uint32_t row : e.rows)
      if (row != kNone && remaining <= static_cast<double>(rows[row].desc->prewarm) + h * 0.5)
        stepRows.push_back(row);
    step(stepRows, h, nullptr, nullptr);
  }
}

Status ParticleWorld::restart(EffectHandle effect) {
  Impl& w = *impl_;
  EffectSlot* e = w.effectSlot(effect);
  if (e == nullptr) return notFound("restart: a stale or invalid effect handle");
  e->previous = e->current;
  for (const std::uint32_t row : e->rows)
    if (row != kNone) w.resetRow(w.rows[row]);
  if (e->options.prewarm) w.prewarm(*e);
  return {};
}

Status ParticleWorld::seek(EffectHandle effect, float time) {
  if (!std::isfinite(time) || time < 0.0f || time > 3600.0f) {
    return invalidArgument("seek: the time must be finite and in [0, 3600] s (got " +
                           std::to_string(time) + ")");
  }
  Impl& w = *impl_;
  if (Status s = restart(effect); !s.ok()) return s;
  EffectSlot& e = *w.effectSlot(effect);
  const auto steps = static_cast<std::uint32_t>(std::ceil(static_cast<double>(time) / kSeekStep));
  for (std::uint32_t k = 0; k < steps; ++k) {
    w.stepRows.clear();
    for (const std::uint32_t row : e.rows)
      if (row != kNone) w.stepRows.push_back(row);
    w.step(w.stepRows, static_cast<double>(time) / steps, nullptr, nullptr);
  }
  return {};
}

void ParticleWorld::tick(float dt, const VisibilityTest* view) {
  Impl& w = *impl_;
  const double h = std::isnan(dt) ? 0.0 : std::clamp(static_cast<double>(dt), 0.0, 1.0);
  w.time += h;
  // Bursts that ended by this tick's start stop blowing.
  std::uint32_t kept = 0;
  for (std::uint32_t b = 0; b < w.blastCount; ++b)
    if (w.blasts[b].end > w.time - h) w.blasts[kept++] = w.blasts[b];
  w.blastCount = kept;
  WorldStats s;
  s.tick = w.stats.tick + 1;
  s.time = w.time;
  s.spawnedTotal = w.stats.spawnedTotal;
  s.droppedTotal = w.stats.droppedTotal;
  w.raisingBlasts = true;
  w.step(w.order, h, view, &s);
  w.raisingBlasts = false;
  for (const EffectSlot& e : w.effects)
    s.effects += e.alive ? 1 : 0;
  s.emitters = static_cast<std::uint32_t>(w.order.size());
  s.spawnedTotal += s.spawned;
  s.droppedTotal += s.dropped;
  w.stats = s;
}

// One step of `dt` for `stepRows` (every live emitter for tick(); one effect's for prewarm and
// seek). Allocates: never.
void ParticleWorld::Impl::step(std::span<const std::uint32_t> stepRowList, double dt,
                               const VisibilityTest* view, WorldStats* out) {
  const auto t0 = std::chrono::steady_clock::now();
  // Effect transforms: this step moves each effect from `previous` to `current`.
  for (const std::uint32_t row : stepRowList) {
    EmitterRow& r = rows[row];
    const EffectSlot& e = effects[r.effect];
    r.previous = r.world;
    r.world = compose(e.current, r.desc->position, r.desc->rotation);
    for (std::size_t c = 0; c < 3; ++c) {
      r.velocity[c] =
          dt > 0.0 ? static_cast<float>(
                         static_cast<double>(r.world.position[c] - r.previous.position[c]) / dt)
                   : 0.0f;
    }
    for (std::uint32_t b = 0; b < r.bindingCount; ++b) {
      const Binding& binding = r.bindings[b];
      const EffectSlot* source =
          binding.source.index < effects.size() ? &effects[binding.source.index] : nullptr;
      if (source == nullptr || !source->alive || source->generation != binding.source.generation)
        continue;
      const float* v =
          binding.width == 3 ? source->current.position.data() : source->current.rotation.data();
      std::copy(v, v + binding.width, r.emitterWords.begin() + binding.offset);
    }
    for (std::size_t g = 0; g < r.globalSlots.size(); ++g)
      r.globals[g] = globals[r.globalSlots[g]].value;
  }
  // Emission: reads the SPAWN requests the last step left, so all of it comes before any chunk
  // runs.
  for (const std::uint32_t row : stepRowList)
    schedule(rows[row], dt, view);
  items.clear();
  for (const std::uint32_t row : stepRowList) {
    EmitterRow& r = rows[row];
    r.usedSegments = 0;
    const auto add = [&](std::uint32_t first, std::uint32_t count, bool newborn) {
      for (std::uint32_t at = 0; at < count; at += desc.chunkParticles) {
        const std::uint32_t n = std::min(desc.chunkParticles, count - at);
        items.push_back({row, first + at, n, r.usedSegments, newborn});
        r.segments[r.usedSegments++] = {};
      }
    };
    add(0, r.live, false);
    add(r.live, r.newborn, true);
  }
  const auto t1 = std::chrono::steady_clock::now();
  // Simulation: one task per worker pulls items until none are left.
  std::atomic<std::size_t> next{0};
  struct Simulate {
    Impl* world;
    std::atomic<std::size_t>* next;
  } simulate{this, &next};
  const std::size_t tasks = std::min(vms.size(), items.size());
  jobs->dispatch(
      tasks,
      [](void* context, std::size_t task) {
        Simulate& s = *static_cast<Simulate*>(context);
        for (std::size_t k = s.next->fetch_add(1); k < s.world->items.size();
             k = s.next->fetch_add(1)) {
          s.world->runItem(s.world->vms[task], s.world->items[k]);
        }
      },
      &simulate);
  const auto t2 = std::chrono::steady_clock::now();
  // Compaction and bounds, per emitter.
  struct Finish {
    Impl* world;
    std::span<const std::uint32_t> rows;
  } finish{this, stepRowList};
  jobs->dispatch(
      stepRowList.size(),
      [](void* context, std::size_t k) {
        Finish& f = *static_cast<Finish*>(context);
        EmitterRow& r = f.world->rows[f.rows[k]];
        f.world->compact(r);
        f.world->measureBounds(r);
      },
      &finish);
  const auto t3 = std::chrono::steady_clock::now();
  for (const std::uint32_t row : stepRowList) {
    EmitterRow& r = rows[row];
    for (std::uint32_t s = 0; s < r.usedSegments; ++s)
      r.stepDropped += r.segments[s].overflow;
    r.spawned += r.stepSpawned;
    r.dropped += r.stepDropped;
    r.died += r.stepDied;
    if (out != nullptr) {
      out->live += r.live;
      out->spawned += r.stepSpawned;
      out->dropped += r.stepDropped;
      out->died += r.stepDied;
      out->culled += r.culled ? 1 : 0;
    }
    ++r.steps;
  }
  if (out != nullptr) {
    out->emitSeconds = seconds(t0, t1);
    out->simulateSeconds = seconds(t1, t2);
    out->compactSeconds = seconds(t2, t3);
  }
}

// Births `count` particles, particle k at emitter time birth(k) (BirthTimes), in the window
// [windowStart, windowStart + span) that ends at this step's end (t0 + dt); those past the free
// slots are dropped and counted. `position` null: the emitter's position, interpolated along this
// step's path. The newborns' spawn lanes and ids are written by fillSpawnLanes, in runItem by the
// chunks that hold them (after the step's first kSpawnRunsPerStep calls, here).
// Complexity: O(1), or O(count) past the runs. Allocates: never.
void ParticleWorld::Impl::spawn(EmitterRow& r, std::uint32_t count, const BirthTimes& birth,
                                double windowStart, double span, double t0, double dt,
                                const Vec3* position, const Vec3* localOffset) {
  const std::uint32_t first = r.live + r.newborn;
  const std::uint32_t born = std::min(count, r.capacity - first);
  r.stepDropped += count - born;
  if (born == 0) return;
  SpawnRun run;
  run.first = first;
  run.count = born;
  run.index = r.newborn;
  run.id = r.nextId;
  run.window = {birth, windowStart, span, t0, dt};
  run.atPosition = position != nullptr;
  if (position != nullptr) run.position = *position;
  run.local = localOffset != nullptr;
  if (localOffset != nullptr) run.localOffset = *localOffset;
  if (r.spawnRunCount < kSpawnRunsPerStep)
    r.spawnRuns[r.spawnRunCount++] = run;
  else
    fillSpawnLanes(r, run, first, first + born);
  r.nextId += born;
  r.newborn += born;
  r.stepSpawned += born;
}

// The spawn lanes and ids of `run`'s newborns in [begin, end): spawn index, fraction, emitter age,
// the rest of the step, position and the local offset. Each particle's formulas depend only on
// its place in the run, so any split of the run writes the same bits.
// Complexity: O(end − begin). Allocates: never. Writes only rows [begin, end).
void ParticleWorld::Impl::fillSpawnLanes(EmitterRow& r, const SpawnRun& run, std::uint32_t begin,
                                         std::uint32_t end) {
  const std::uint32_t k0 = begin - run.first;
  const std::uint32_t n = end - begin;
  float* const index = r.lane(kLaneSpawnIndex) + begin;
  const std::array<float*, 3> at{r.lane(kLanePositionX) + begin, r.lane(kLanePositionY) + begin,
                                 r.lane(kLanePositionZ) + begin};
  std::uint32_t* const ids = r.ids.data() + begin;
  const std::uint32_t firstIndex = run.index + k0;
  const std::uint32_t firstId = run.id + k0;
  for (std::uint32_t k = 0; k < n; ++k) {
    index[k] = static_cast<float>(firstIndex + k);
    ids[k] = firstId + k;
  }
  runtime_detail::SpawnTimes times;
  times.window = run.window;
  for (std::size_t c = 0; c < 3; ++c) {
    times.start[c] = static_cast<double>(r.previous.position[c]);
    times.path[c] = static_cast<double>(r.world.position[c] - r.previous.position[c]);
  }
  times.first = k0;  // the place in the run: any split writes the same bits
  times.count = n;
  times.fraction = r.lane(kLaneSpawnFraction) + begin;
  times.age = r.lane(kLaneEmitterAge) + begin;
  times.rest = r.lane(kLaneDt) + begin;
  if (!run.atPosition) times.at = at;
  runtime_detail::writeSpawnTimes(times);
  if (run.atPosition) {
    for (std::size_t c = 0; c < 3; ++c)
      std::fill_n(at[c], n, run.position[c]);
  }
  // Only local-space emitters read the request offset lanes (after INIT, in runItem).
  if (bytecode::movesWithEmitter(r.desc->space)) {
    for (std::uint32_t c = 0; c < 3; ++c)
      std::fill_n(r.lane(static_cast<LaneArray>(kLaneLocalX + c)) + begin, n, run.localOffset[c]);
    std::fill_n(r.lane(kLaneLocalSet) + begin, n, run.local ? 1.0f : 0.0f);
  }
}

namespace {

// Calls fn(time) for each occurrence first + j·interval (j = 0 .. repeats, or unbounded when
// interval > 0 and repeats is 0) in [lo, hi), at most `budget` times.
template <class F>
void occurrences(double first, double interval, std::uint32_t repeats, double lo, double hi,
                 std::uint32_t& budget, F fn) {
  if (!(interval > 0.0)) {
    if (first >= lo && first < hi && budget > 0) {
      --budget;
      fn(first);
    }
    return;
  }
  double j = std::max(0.0, std::ceil((lo - first) / interval));
  for (; budget > 0; j += 1.0) {
    if (repeats != 0 && j > repeats) break;
    const double t = first + j * interval;
    if (t >= hi) break;
    if (t < lo) continue;
    --budget;
    fn(t);
  }
}

}  // namespace

// Emission for one emitter and one step (docs/runtime.md, "Emission").
void ParticleWorld::Impl::schedule(EmitterRow& r, double dt, const VisibilityTest* view) {
  r.newborn = 0;
  r.spawnRunCount = 0;
  r.stepSpawned = r.stepDropped = r.stepDied = 0;
  const CompiledEmission& em = r.desc->emission;
  const double t0 = r.emitterTime();
  const double t1 = t0 + dt;
  const double effect0 = r.effectTime;
  r.effectTime += dt;
  r.culled = r.desc->cull && view != nullptr && r.bounds.known && !view->visible(r.bounds);
  if (r.culled) {
    r.sleep += dt;
    r.pendingEvents = 0;
    prepareContext(r, dt);
    return;
  }
  // Waking: the window reaches back over the sleep, at most max_catchup_seconds.
  const double catchup =
      std::min(r.sleep, static_cast<double>(std::max(0.0f, r.desc->maxCatchupSeconds)));
  r.sleep = 0.0;
  const double a = t0 - catchup;
  const double span = dt + catchup;
  const double duration = static_cast<double>(em.duration);
  const bool looping = em.loop && duration > 0.0;
  const double lo = std::max(a, 0.0);
  const double hi = (duration > 0.0 && !looping) ? std::min(t1, duration) : t1;

  consumeRequests(r, a, span, t0, dt);

  // Continuous rates.
  if ((em.mode == EmissionMode::Continuous || em.mode == EmissionMode::BeamContinuous) && hi > lo) {
    double amount = 0.0;
    double from = lo;
    double to = hi;
    if (em.metric == bytecode::SpawnMetric::PerSecond) {
      const double mid = (lo + hi) * 0.5;
      amount =
          static_cast<double>(evalRate(em, looping ? std::fmod(mid, duration) : mid)) * (hi - lo);
    } else {
      double distance = 0.0;
      for (std::size_t c = 0; c < 3; ++c) {
        const double d =
            static_cast<double>(r.world.position[c]) - static_cast<double>(r.previous.position[c]);
        distance += d * d;
      }
      const double t = looping ? std::fmod(hi, duration) : hi;
      amount = static_cast<double>(evalRate(em, t)) * std::sqrt(distance) *
               std::min(1.0, (hi - lo) / dt);
      from = std::max(lo, t0);
    }
    if (amount > 0.0 && std::isfinite(amount)) {
      const double before = r.accumulator;
      r.accumulator += amount;
      const double whole = std::floor(r.accumulator);
      r.accumulator -= whole;
      const auto free = static_cast<double>(r.capacity - r.live - r.newborn);
      const double born = std::min(whole, std::max(free, 0.0));
      spawn(r, static_cast<std::uint32_t>(born), BirthTimes{from, to - from, before, amount, false},
            a, span, t0, dt, nullptr);
      r.stepDropped += static_cast<std::uint64_t>(whole - born);
    }
  }

  // Shots (single_shot), scheduled bursts, with loops: occurrences in emitter time.
  std::uint32_t budget = kMaxOccurrencesPerTick;
  const auto emitCount = [&](double t, std::uint32_t count) {
    spawn(r, count, BirthTimes{t}, a, span, t0, dt, nullptr);
  };
  const auto shots = [&](double cycleStart, double l, double h) {
    if (em.mode == EmissionMode::SingleShot) {
      const auto count =
          static_cast<std::uint32_t>(std::min(std::round(static_cast<double>(em.rate)), 1e7));
      occurrences(0.0, 0.0, 0, l, h, budget, [&](double t) { emitCount(cycleStart + t, count); });
    }
    for (const bytecode::CompiledBurst& b : em.bursts) {
      occurrences(static_cast<double>(b.time), static_cast<double>(b.repeatInterval), b.repeatCount,
                  l, h, budget, [&](double t) { emitCount(cycleStart + t, b.count); });
    }
  };
  if (hi > lo) {
    if (looping) {
      for (double c = std::floor(lo / duration); c * duration < hi && budget > 0; c += 1.0) {
        const double start = c * duration;
        shots(start, std::max(lo, start) - start, std::min(hi, start + duration) - start);
      }
    } else {
      shots(0.0, lo, hi);
    }
  }

  // Events: the host's, at the window's start; the effect's own, on the effect timeline.
  if (em.mode == EmissionMode::EventBurst) {
    const auto count =
        static_cast<std::uint32_t>(std::min(std::round(static_cast<double>(em.rate)), 1e7));
    for (; r.pendingEvents > 0; --r.pendingEvents) {
      emitCount(a, count);
      raiseBlast(r);
    }
    for (const float e : em.eventTimes) {
      const auto at = static_cast<double>(e);
      if (at >= effect0 - catchup && at < effect0 + dt) {
        emitCount(at - static_cast<double>(em.delay), count);
        raiseBlast(r);
      }
    }
  }
  r.pendingEvents = 0;
  prepareContext(r, dt);
}

// A force event of `r` starts now at the emitter's position (tick() only).
void ParticleWorld::Impl::raiseBlast(const EmitterRow& r) {
  const std::array<float, 3>& f = r.desc->forceEvent;  // radius, duration, strength
  if (!raisingBlasts || !(f[0] > 0.0f) || !(f[1] > 0.0f)) return;
  const Blast blast{r.world.position, f[0], f[2], time + static_cast<double>(f[1])};
  if (blastCount < kMaxBlasts) {
    blasts[blastCount++] = blast;
    return;
  }
  std::uint32_t first = 0;
  for (std::uint32_t b = 1; b < blastCount; ++b)
    if (blasts[b].end < blasts[first].end) first = b;
  blasts[first] = blast;
}

// SAMPLE_WIND with bursts: the host's wind plus, for each burst within its radius, `strength`
// m/s straight away from its centre, falling linearly to 0 at the radius (up at the centre).
// Read-only during the simulation phase, so safe from every worker.
std::array<float, 3> ParticleWorld::Impl::windWithBlasts(const std::array<float, 3>& position,
                                                         void* user) {
  const Impl& w = *static_cast<const Impl*>(user);
  std::array<float, 3> out{0.0f, 0.0f, 0.0f};
  if (w.wind != nullptr) out = w.wind(position, w.windUser);
  for (std::uint32_t b = 0; b < w.blastCount; ++b) {
    const Blast& blast = w.blasts[b];
    const float dx = position[0] - blast.centre[0];
    const float dy = position[1] - blast.centre[1];
    const float dz = position[2] - blast.centre[2];
    const float distance = std::sqrt(dx * dx + dy * dy + dz * dz);
    if (!(distance < blast.radius)) continue;
    const float push = blast.strength * (1.0f - distance / blast.radius);
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

// SPAWN requests the effect's emitters queued for `r` in the last step, in (source emitter,
// chunk, request) order. A request's position is the source particle's, in world space.
void ParticleWorld::Impl::consumeRequests(EmitterRow& r, double windowStart, double span, double t0,
                                          double dt) {
  const EffectSlot& e = effects[r.effect];
  const bool targetLocal = bytecode::movesWithEmitter(r.desc->space);
  for (const std::uint32_t row : e.rows) {
    if (row == kNone) continue;
    const EmitterRow& source = rows[row];
    if (!source.program->spawns) continue;
    const bool local = bytecode::movesWithEmitter(source.desc->space);
    for (std::uint32_t s = 0; s < source.usedSegments; ++s) {
      const SpawnRequest* requests =
          source.requests.data() + std::size_t{s} * kSpawnRequestsPerChunk;
      for (std::uint32_t q = 0; q < source.segments[s].count; ++q) {
        const SpawnRequest& request = requests[q];
        if (request.target != r.index) continue;
        Vec3 p = request.position;
        if (local) {
          const Vec3 turned = rotate(source.world.rotation, p);
          for (std::size_t c = 0; c < 3; ++c)
            p[c] = source.world.position[c] + turned[c];
        }
        // A target simulating in its emitter's frame gets the point in that frame.
        Vec3 offset{};
        if (targetLocal) {
          const Quat& turn = r.world.rotation;
          const Quat inverse{-turn[0], -turn[1], -turn[2], turn[3]};
          offset = rotate(inverse, {p[0] - r.world.position[0], p[1] - r.world.position[1],
                                    p[2] - r.world.position[2]});
        }
        spawn(r, request.count, BirthTimes{windowStart}, windowStart, span, t0, dt, &p,
              targetLocal ? &offset : nullptr);
      }
    }
  }
}

void ParticleWorld::Impl::prepareContext(EmitterRow& r, double dt) {
  VmContext& c = r.context;
  const auto set = [&](Builtin b, std::initializer_list<float> v) {
    std::copy(v.begin(), v.end(), c.builtins[static_cast<std::size_t>(b)].begin());
  };
  const Vec3 direction = rotate(r.world.rotation, {0.0f, 0.0f, 1.0f});
  const Vec3 up = rotate(r.world.rotation, {0.0f, 1.0f, 0.0f});
  set(Builtin::Dt, {static_cast<float>(dt)});
  set(Builtin::Time, {static_cast<float>(time)});
  set(Builtin::EmitterAge, {static_cast<float>(r.emitterTime())});
  set(Builtin::EmitterPosition, {r.world.position[0], r.world.position[1], r.world.position[2]});
  set(Builtin::EmitterDirection, {direction[0], direction[1], direction[2]});
  set(Builtin::EmitterUp, {up[0], up[1], up[2]});
  set(Builtin::EmitterRotation,
      {r.world.rotation[0], r.world.rotation[1], r.world.rotation[2], r.world.rotation[3]});
  set(Builtin::EmitterVelocity, {r.velocity[0], r.velocity[1], r.velocity[2]});
  set(Builtin::SpawnIndex, {0.0f});
  set(Builtin::SpawnFraction, {0.0f});
  c.laneBuiltins = {};
  c.particleIds = r.ids.data();
  c.emitterWords = r.emitterWords;
  c.globals = r.globals;
  c.seed = r.seed;
  c.tick = r.steps;
  // With bursts blowing, SAMPLE_WIND reads the host's wind plus theirs.
  c.wind = blastCount > 0 ? &Impl::windWithBlasts : wind;
  c.windUser = blastCount > 0 ? static_cast<void*>(this) : windUser;
  c.spawn = nullptr;
  c.spawnUser = nullptr;
}

void ParticleWorld::Impl::runItem(BatchVm& vm, const WorkItem& item) {
  EmitterRow& r = rows[item.row];
  const PreparedProgram& program = r.program->prepared;
  VmContext c = r.context;
  SpawnSink sink{r.requests.data() + std::size_t{item.segment} * kSpawnRequestsPerChunk,
                 &r.segments[item.segment]};
  if (r.program->spawns) {
    c.spawn = &sinkSpawn;
    c.spawnUser = &sink;
  }
  std::fill_n(r.killed.data() + item.first, item.count, std::uint8_t{0});
  const std::span<std::uint8_t> killed(r.killed.data() + item.first, item.count);
  if (item.newborn) {
    for (std::uint32_t k = 0; k < r.spawnRunCount; ++k) {
      const SpawnRun& run = r.spawnRuns[k];
      const std::uint32_t begin = std::max(run.first, item.first);
      const std::uint32_t end = std::min(run.first + run.count, item.first + item.count);
      if (begin < end) fillSpawnLanes(r, run, begin, end);
    }
    // A newborn's words are zero when INIT runs (the program contract): the ones it can see.
    for (const std::uint32_t word : program.initZeroWords())
      std::fill_n(r.streams[word] + item.first, item.count, 0.0f);
    const auto laneBuiltin = [&](Builtin b, std::initializer_list<LaneArray> arrays) {
      std::size_t k = 0;
      for (const LaneArray a : arrays)
        c.laneBuiltins[static_cast<std::size_t>(b)][k++] = r.lane(a);
    };
    laneBuiltin(Builtin::SpawnIndex, {kLaneSpawnIndex});
    laneBuiltin(Builtin::SpawnFraction, {kLaneSpawnFraction});
    laneBuiltin(Builtin::EmitterAge, {kLaneEmitterAge});
    laneBuiltin(Builtin::EmitterPosition, {kLanePositionX, kLanePositionY, kLanePositionZ});
    vm.run(program, Section::Init, r.streams, item.first, item.count, c, killed);
    const std::int32_t position = r.desc->channels.position;
    if (position >= 0 && bytecode::movesWithEmitter(r.desc->space)) {
      const float* set = r.lane(kLaneLocalSet);
      for (std::uint32_t i = item.first; i < item.first + item.count; ++i) {
        if (set[i] == 0.0f) continue;
        for (std::uint32_t k = 0; k < 3; ++k) {
          r.streams[static_cast<std::size_t>(position) + k][i] +=
              r.lane(static_cast<LaneArray>(kLaneLocalX + k))[i];
        }
      }
    }
    // The first UPDATE covers the part of the step after the birth.
    c.laneBuiltins = {};
    laneBuiltin(Builtin::Dt, {kLaneDt});
  }
  vm.run(program, Section::Update, r.streams, item.first, item.count, c, killed);
  // The box of the chunk's survivors, while the chunk is still in cache (measureBounds merges).
  if (r.desc->channels.position >= 0) {
    runtime_detail::boundsOf(boundsInput(r, item.first, item.count, killed.data()),
                             sink.segment->lo, sink.segment->hi);
  }
}

// Removes the killed particles of [0, live + newborn): swap-removal, or order-preserving where
// the render mode draws particles as a chain in age order.
void ParticleWorld::Impl::compact(EmitterRow& r) {
  std::uint32_t n = r.live + r.newborn;
  r.newborn = 0;
  const std::uint8_t* killed = r.killed.data();
  const auto move = [&](std::uint32_t from, std::uint32_t to) {
    for (float* stream : r.streams)
      stream[to] = stream[from];
    r.ids[to] = r.ids[from];
  };
  // The VM sets a flag to 1: memchr skips runs of survivors a vector at a time.
  const auto nextKilled = [&](std::uint32_t i, std::uint32_t end) {
    if (i >= end) return end;
    const void* at = std::memchr(killed + i, 1, end - i);
    return at == nullptr
               ? end
               : static_cast<std::uint32_t>(static_cast<const std::uint8_t*>(at) - killed);
  };
  const bool ordered = r.desc->render.mode == bytecode::RenderMode::LinkedChain ||
                       r.desc->render.mode == bytecode::RenderMode::Beam;
  const std::uint32_t total = n;
  std::uint32_t i = nextKilled(0, n);
  if (ordered) {
    std::uint32_t to = i;
    for (std::uint32_t from = i; from < total; ++from) {
      if (killed[from] != 0) continue;
      move(from, to++);
    }
    n = std::min(n, to);
  } else {
    while (i < n) {
      // i is killed: fill it from the last survivor, skipping runs of eight killed at a time.
      --n;
      while (n >= i + 8) {
        std::uint64_t block;
        std::memcpy(&block, killed + n - 7, 8);
        if (block != 0x0101010101010101u) break;
        n -= 8;
      }
      while (n > i && killed[n] != 0)
        --n;
      if (n == i) break;
      move(n, i);
      i = nextKilled(i + 1, n);
    }
  }
  r.stepDied = total - n;
  r.live = n;
}

// The emitter's box after compaction: the chunks' boxes merged. Min and max do not depend on the
// order, so this is the box of the live particles whichever chunks held them.
void ParticleWorld::Impl::measureBounds(EmitterRow& r) {
  const bytecode::ParticleChannels& ch = r.desc->channels;
  r.bounds = {};
  if (r.live == 0 || ch.position < 0) return;
  constexpr float kInf = std::numeric_limits<float>::infinity();
  Vec3 lo{kInf, kInf, kInf};
  Vec3 hi{-kInf, -kInf, -kInf};
  for (std::uint32_t s = 0; s < r.usedSegments; ++s) {
    const ChunkOutput& chunk = r.segments[s];
    for (std::size_t c = 0; c < 3; ++c) {
      lo[c] = chunk.lo[c] < lo[c] ? chunk.lo[c] : lo[c];
      hi[c] = chunk.hi[c] > hi[c] ? chunk.hi[c] : hi[c];
    }
  }
  // An infinity would win, so a non-finite result falls back to the exact loop.
  if (!finite(lo) || !finite(hi)) {
    // Some particle is infinite (or every one is NaN): the exact loop, skipping non-finite ones.
    const runtime_detail::BoundsInput in = boundsInput(r, 0, r.live, nullptr);
    lo = {kInf, kInf, kInf};
    hi = {-kInf, -kInf, -kInf};
    for (std::uint32_t k = 0; k < r.live; ++k) {
      const Vec3 p{in.position[0][k], in.position[1][k], in.position[2][k]};
      const float e = runtime_detail::boundsExtent(in, k);
      if (!finite(p) || !std::isfinite(e)) continue;
      for (std::size_t c = 0; c < 3; ++c) {
        lo[c] = std::min(lo[c], p[c] - e);
        hi[c] = std::max(hi[c], p[c] + e);
      }
    }
  }
  if (!(lo[0] <= hi[0])) return;         // no finite particle
  for (std::size_t c = 0; c < 3; ++c) {  // an edge at 0 is +0, whichever particle gave it
    lo[c] += 0.0f;
    hi[c] += 0.0f;
  }
  const SimulationSpace space = r.desc->space;
  if (bytecode::movesWithEmitter(space)) {
    // The local box's corners in world space.
    Vec3 wlo{kInf, kInf, kInf};
    Vec3 whi{-kInf, -kInf, -kInf};
    for (int corner = 0; corner < 8; ++corner) {
      const Vec3 local{(corner & 1) != 0 ? hi[0] : lo[0], (corner & 2) != 0 ? hi[1] : lo[1],
                       (corner & 4) != 0 ? hi[2] : lo[2]};
      const Vec3 turned = rotate(r.world.rotation, local);
      for (std::size_t c = 0; c < 3; ++c) {
        wlo[c] = std::min(wlo[c], r.world.position[c] + turned[c]);
        whi[c] = std::max(whi[c], r.world.position[c] + turned[c]);
      }
    }
    lo = wlo;
    hi = whi;
  }
  r.bounds = {lo, hi, true};
}

Result<EmitterStats> ParticleWorld::emitterStats(EmitterHandle emitter) const {
  const EmitterRow* r = impl_->emitterRow(emitter);
  if (r == nullptr) return notFound("emitterStats: a stale or invalid emitter handle");
  EmitterStats s;
  s.live = r->live;
  s.capacity = r->capacity;
  s.spawned = r->spawned;
  s.dropped = r->dropped;
  s.died = r->died;
  s.bounds = r->bounds;
  s.culled = r->culled;
  s.finished = r->live == 0 && r->pendingEvents == 0 && r->emitterTime() > r->lastEmission;
  s.time = static_cast<float>(r->emitterTime());
  return s;
}

Result<EmitterView> ParticleWorld::view(EmitterHandle emitter) const {
  const EmitterRow* r = impl_->emitterRow(emitter);
  if (r == nullptr) return notFound("view: a stale or invalid emitter handle");
  EmitterView v;
  v.emitter = r->desc;
  const std::vector<bytecode::CompiledMaterial>& materials =
      impl_->effects[r->effect].effect->materials;
  if (r->desc->material >= 0 && static_cast<std::size_t>(r->desc->material) < materials.size())
    v.material = &materials[static_cast<std::size_t>(r->desc->material)];
  v.live = r->live;
  v.streams = std::span<const float* const>(r->streams.data(), r->streams.size());
  v.ids = r->ids.data();
  v.transform = r->world;
  v.bounds = r->bounds;
  v.emitterWords = r->emitterWords;
  v.time = static_cast<float>(r->emitterTime());
  return v;
}

std::uint32_t ParticleWorld::emitters(std::span<EmitterHandle> out) const noexcept {
  const Impl& w = *impl_;
  for (std::size_t k = 0; k < w.order.size() && k < out.size(); ++k)
    out[k] = {w.order[k], w.rows[w.order[k]].generation};
  return static_cast<std::uint32_t>(w.order.size());
}

std::uint64_t ParticleWorld::stateHash() const noexcept {
  const Impl& w = *impl_;
  Fnv1a64 h;
  for (const std::uint32_t row : w.order) {
    const EmitterRow& r = w.rows[row];
    h.updateU32(r.index);
    h.updateU32(r.live);
    for (std::uint32_t i = 0; i < r.live; ++i) {
      h.updateU32(r.ids[i]);
      for (const float* stream : r.streams)
        h.updateU32(std::bit_cast<std::uint32_t>(stream[i]));
    }
  }
  return h.value();
}

}  // namespace mote
