// SPDX-License-Identifier: MIT
// ParticleWorld's tick orchestration. A tick is three phases: a serial one that schedules emission
// and lays out the work (per emitter, not per particle: the newborns' spawn values are recorded
// as runs), a parallel one that writes the newborns' spawn values, runs INIT and UPDATE and
// measures the survivors' box over fixed chunks of particles, and a parallel one over emitters
// that compacts kills and merges the boxes. Every chunk writes only its own particles, kill
// flags, spawn values, spawn-request segment and box, so the result does not depend on which
// thread ran which chunk.
#include "bounds.h"
#include "world_impl.h"

#include <mote/core/assert.h>
#include <mote/runtime/vm.h>
#include <mote/runtime/world.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>

namespace mote {

using bytecode::Builtin;
using bytecode::Section;
// The world's private types and helpers (world_impl.h).
using namespace runtime_detail;

namespace {

constexpr double kPrewarmStep = 1.0 / 30.0;

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
    in.stretchFactor = 1.7320508f * std::fabs(r.desc->render.stretchScaleSeconds);
  }
  in.skip = skip;
  in.count = count;
  return in;
}

struct SpawnSink {
  SpawnRequest* requests;
  std::uint32_t room;  // the chunk's particles × the program's SPAWN instructions: never full
  ChunkOutput* segment;
  ReportRecord* reports = nullptr;
  std::uint32_t reportRoom = 0;  // the chunk's particles × its REPORT instructions: never full
};

void sinkReport(bytecode::ReportKind kind, std::uint32_t tag, const Vec3& position,
                const Vec3& velocity, std::uint32_t source, void* user) {
  SpawnSink& sink = *static_cast<SpawnSink*>(user);
  MOTE_ASSERT(sink.segment->reports < sink.reportRoom, "a chunk made more REPORTs than it can");
  if (sink.segment->reports < sink.reportRoom)
    sink.reports[sink.segment->reports++] = {kind, tag, position, velocity, source, 0};
}

void sinkSpawn(std::uint32_t target, std::uint32_t count, const Vec3& position,
               const bytecode::Inheritance& inherit, std::uint32_t source, void* user) {
  SpawnSink& sink = *static_cast<SpawnSink*>(user);
  MOTE_ASSERT(sink.segment->count < sink.room, "a chunk asked for more SPAWNs than it can");
  if (sink.segment->count < sink.room) {
    sink.requests[sink.segment->count++] = {target, count, position, source, 0, inherit};
  } else {
    sink.segment->overflow += count;
  }
}

double seconds(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// Points the lane builtin `b` of `c` at the lane arrays of `r`, one per component.
void setLaneBuiltin(VmContext& c, EmitterRow& r, Builtin b,
                    std::initializer_list<LaneArray> arrays) {
  std::size_t k = 0;
  for (const LaneArray a : arrays)
    c.laneBuiltins[static_cast<std::size_t>(b)][k++] = r.lane(a);
}

// A SPAWN request's point in a local-space target's frame, added to the positions INIT made for
// the newborns [first, first + count) that have one.
void addLocalOffsets(EmitterRow& r, std::uint32_t first, std::uint32_t count) {
  const std::int32_t position = r.desc->channels.position;
  if (position < 0 || !bytecode::movesWithEmitter(r.desc->space)) return;
  const float* set = r.lane(kLaneLocalSet);
  for (std::uint32_t i = first; i < first + count; ++i) {
    if (set[i] == 0.0f) continue;
    for (std::uint32_t k = 0; k < 3; ++k) {
      r.streams[static_cast<std::size_t>(position) + k][i] +=
          r.lane(static_cast<LaneArray>(kLaneLocalX + k))[i];
    }
  }
}

constexpr float kInf = std::numeric_limits<float>::infinity();

// The chunks' boxes of `r` merged.
void mergeChunkBoxes(const EmitterRow& r, Vec3& lo, Vec3& hi) {
  lo = {kInf, kInf, kInf};
  hi = {-kInf, -kInf, -kInf};
  for (std::uint32_t s = 0; s < r.usedSegments; ++s) {
    const ChunkOutput& chunk = r.segments[s];
    for (std::size_t c = 0; c < 3; ++c) {
      lo[c] = chunk.lo[c] < lo[c] ? chunk.lo[c] : lo[c];
      hi[c] = chunk.hi[c] > hi[c] ? chunk.hi[c] : hi[c];
    }
  }
}

// The box of the live particles of `r` by the exact loop, skipping non-finite ones.
void exactBox(const EmitterRow& r, Vec3& lo, Vec3& hi) {
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

// The box around the eight corners of the local box [lo, hi] of `r` carried to world space.
void localBoxToWorld(const EmitterRow& r, Vec3& lo, Vec3& hi) {
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

}  // namespace

void ParticleWorld::tick(float dt, const VisibilityTest* view) {
  Impl& w = *impl_;
  const double h = std::isnan(dt) ? 0.0 : std::clamp(static_cast<double>(dt), 0.0, 1.0);
  w.time += h;
  // Bursts that ended by this tick's start stop blowing.
  w.bursts.expire(w.time - h);
  WorldStats s;
  s.tick = w.stats.tick + 1;
  s.time = w.time;
  s.spawnedTotal = w.stats.spawnedTotal;
  s.droppedTotal = w.stats.droppedTotal;
  w.eventCount = 0;
  w.ticking = true;
  w.step(w.order, h, view, &s);
  w.ticking = false;
  for (const EffectSlot& e : w.effects)
    s.effects += e.alive ? 1 : 0;
  s.emitters = static_cast<std::uint32_t>(w.order.size());
  s.spawnedTotal += s.spawned;
  s.droppedTotal += s.dropped;
  w.stats = s;
}

void ParticleWorld::Impl::prewarm(EffectSlot& e) {
  double longest = 0.0;
  for (const std::uint32_t row : e.rows)
    if (row != kNone)
      longest = std::max(longest, static_cast<double>(rows[row].desc->prewarmSeconds));
  if (!(longest > 0.0)) return;
  const auto steps = static_cast<std::uint32_t>(std::ceil(longest / kPrewarmStep));
  const double h = longest / steps;
  for (std::uint32_t k = 0; k < steps; ++k) {
    // An emitter with a shorter prewarm joins for the last of its seconds only.
    const double remaining = (steps - k) * h;
    stepRows.clear();
    for (const std::uint32_t row : e.rows)
      if (row != kNone &&
          remaining <= static_cast<double>(rows[row].desc->prewarmSeconds) + h * 0.5)
        stepRows.push_back(row);
    step(stepRows, h, nullptr, nullptr);
  }
}

// One step of `dt` for `stepRows` (every live emitter for tick(); one effect's for prewarm and
// seek). Allocates: never.
void ParticleWorld::Impl::step(std::span<const std::uint32_t> stepRowList, double dt,
                               const VisibilityTest* view, WorldStats* out) {
  const auto t0 = std::chrono::steady_clock::now();
  // Effect transforms: this step moves each effect from `previous` to `current`; whatever the
  // step does, the rows' state is a new version.
  for (const std::uint32_t row : stepRowList) {
    rows[row].version = runtime_detail::nextStateVersion();
    followHost(rows[row], dt);
  }
  // Emission: reads the SPAWN requests the last step left, so all of it comes before any chunk
  // runs.
  for (const std::uint32_t row : stepRowList)
    schedule(rows[row], dt, view);
  // With bursts blowing — this step's force events too, whichever emitter raised them — SAMPLE_WIND
  // reads the host's wind plus theirs.
  for (const std::uint32_t row : stepRowList) {
    VmContext& c = rows[row].context;
    c.wind = bursts.size() > 0 ? &Impl::windWithBlasts : wind;
    c.windUser = bursts.size() > 0 ? static_cast<void*>(this) : windUser;
    c.collision = collision;
  }
  if (backend != nullptr) {  // the particles are the backend's; its counts come back on request
    backend->step(stepRowList, dt);
    for (const std::uint32_t row : stepRowList) {
      ++rows[row].steps;
      if (out != nullptr) out->culled += rows[row].culled ? 1 : 0;
    }
    return;
  }
  layOutItems(stepRowList);
  const auto t1 = std::chrono::steady_clock::now();
  simulate();
  const auto t2 = std::chrono::steady_clock::now();
  finishRows(stepRowList);
  const auto t3 = std::chrono::steady_clock::now();
  publishStats(stepRowList, out);
  if (out != nullptr) {
    collectEvents(stepRowList, *out);
    out->emitSeconds = seconds(t0, t1);
    out->simulateSeconds = seconds(t1, t2);
    out->compactSeconds = seconds(t2, t3);
  }
}

// The host's part of a step for `r`: its world transform from its effect's (and the velocity
// that moved it), bound emitter fields and the world's globals.
void ParticleWorld::Impl::followHost(EmitterRow& r, double dt) {
  const EffectSlot& e = effects[r.effect];
  r.previous = r.world;
  // The transform at the end of the step: the clock reaches effectTime + dt in schedule().
  r.world = emission::emitterTransform(e.current, *r.desc, r.clock.effectTime + dt);
  r.velocity = emission::emitterVelocity(r.previous, r.world, dt);
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

// The step's work items: each emitter's live particles, then its newborns, in chunks of
// desc.chunkParticles, each with a fresh output segment.
void ParticleWorld::Impl::layOutItems(std::span<const std::uint32_t> stepRowList) {
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
}

// Simulation: one task per worker pulls items until none are left.
void ParticleWorld::Impl::simulate() {
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
}

// Compaction and bounds, per emitter.
void ParticleWorld::Impl::finishRows(std::span<const std::uint32_t> stepRowList) {
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
        f.world->orderRequests(r);
        f.world->orderReports(r);
      },
      &finish);
}

// The step's counts into each emitter's totals and, with `out`, the tick's stats.
void ParticleWorld::Impl::publishStats(std::span<const std::uint32_t> stepRowList,
                                       WorldStats* out) {
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
}

void ParticleWorld::Impl::prepareContext(EmitterRow& r, double dt) {
  VmContext& c = r.context;
  c.builtins = emission::emitterBuiltins(
      r.world, r.velocity, dt, time,
      emission::cycleTime(r.emitterTime(), emission::loopLength(r.desc->emission)));
  c.laneBuiltins = {};
  c.particleIds = r.ids.data();
  c.emitterWords = r.emitterWords;
  c.globals = r.globals;
  c.seed = r.seed;
  c.tick = r.steps;
  c.spawn = nullptr;
  c.spawnUser = nullptr;
  c.report = nullptr;
  c.reportUser = nullptr;
}

// Runs one work item: its newborns' INIT (item.newborn), UPDATE, and the box of its survivors.
void ParticleWorld::Impl::runItem(BatchVm& vm, const WorkItem& item) {
  EmitterRow& r = rows[item.row];
  const PreparedProgram& program = r.program->prepared;
  VmContext c = r.context;
  // Only a spawning program has request storage: the sink points into it only then (an offset
  // from an empty vector's null data() is undefined behaviour).
  SpawnSink sink{nullptr, r.requestsPerSegment, &r.segments[item.segment]};
  if (r.program->spawns) {
    sink.requests = r.requests.data() + std::size_t{item.segment} * r.requestsPerSegment;
    c.spawn = &sinkSpawn;
    c.spawnUser = &sink;
  }
  // Only tick()'s steps tell the host (prewarm and seek report nothing).
  if (r.program->reportOps > 0 && ticking) {
    sink.reports = r.reports.data() + std::size_t{item.segment} * r.reportsPerSegment;
    sink.reportRoom = r.reportsPerSegment;
    c.report = &sinkReport;
    c.reportUser = &sink;
  }
  std::fill_n(r.killed.data() + item.first, item.count, std::uint8_t{0});
  const std::span<std::uint8_t> killed(r.killed.data() + item.first, item.count);
  if (item.newborn) initNewborns(vm, item, c, killed);
  vm.run(program, Section::Update, r.streams, item.first, item.count, c, killed);
  // The box of the chunk's survivors, while the chunk is still in cache (measureBounds merges).
  if (r.desc->channels.position >= 0) {
    runtime_detail::boundsOf(boundsInput(r, item.first, item.count, killed.data()),
                             sink.segment->lo, sink.segment->hi);
  }
}

// INIT for a chunk of newborns: their spawn lanes (the runs not yet written), zeroed words and
// the lane builtins, then the SPAWN requests' local offsets. Leaves `c` set for the first UPDATE,
// which covers the part of the step after the birth.
void ParticleWorld::Impl::initNewborns(BatchVm& vm, const WorkItem& item, VmContext& c,
                                       std::span<std::uint8_t> killed) {
  EmitterRow& r = rows[item.row];
  const PreparedProgram& program = r.program->prepared;
  for (std::uint32_t k = 0; k < r.spawnRunCount; ++k) {
    const SpawnRun& run = r.spawnRuns[k];
    const std::uint32_t begin = std::max(run.first, item.first);
    const std::uint32_t end = std::min(run.first + run.count, item.first + item.count);
    if (begin < end) fillSpawnLanes(r, run, begin, end);
  }
  // A newborn's words are zero when INIT runs (the program contract): the ones it can see.
  for (const std::uint32_t word : program.initZeroWords())
    std::fill_n(r.streams[word] + item.first, item.count, 0.0f);
  setLaneBuiltin(c, r, Builtin::SpawnIndex, {kLaneSpawnIndex});
  setLaneBuiltin(c, r, Builtin::SpawnFraction, {kLaneSpawnFraction});
  setLaneBuiltin(c, r, Builtin::EmitterAge, {kLaneEmitterAge});
  setLaneBuiltin(c, r, Builtin::EmitterPosition, {kLanePositionX, kLanePositionY, kLanePositionZ});
  if (r.program->readsSource) {
    setLaneBuiltin(c, r, Builtin::SourceVelocity,
                   {kLaneSourceVelocityX, kLaneSourceVelocityY, kLaneSourceVelocityZ});
    setLaneBuiltin(c, r, Builtin::SourceSize, {kLaneSourceSize});
    setLaneBuiltin(c, r, Builtin::SourceColor,
                   {kLaneSourceColorR, kLaneSourceColorG, kLaneSourceColorB, kLaneSourceColorA});
  }
  vm.run(program, Section::Init, r.streams, item.first, item.count, c, killed);
  addLocalOffsets(r, item.first, item.count);
  c.laneBuiltins = {};
  setLaneBuiltin(c, r, Builtin::Dt, {kLaneDt});
}

// The emitter's box after compaction: the chunks' boxes merged. Min and max do not depend on the
// order, so this is the box of the live particles whichever chunks held them.
void ParticleWorld::Impl::measureBounds(EmitterRow& r) {
  r.bounds = {};
  if (r.live == 0 || r.desc->channels.position < 0) return;
  Vec3 lo;
  Vec3 hi;
  mergeChunkBoxes(r, lo, hi);
  // An infinity would win, so a non-finite result falls back to the exact loop: some particle
  // is infinite (or every one is NaN).
  if (!finite(lo) || !finite(hi)) exactBox(r, lo, hi);
  if (!(lo[0] <= hi[0])) return;         // no finite particle
  for (std::size_t c = 0; c < 3; ++c) {  // an edge at 0 is +0, whichever particle gave it
    lo[c] += 0.0f;
    hi[c] += 0.0f;
  }
  if (bytecode::movesWithEmitter(r.desc->space)) localBoxToWorld(r, lo, hi);
  r.bounds = {lo, hi, true};
}

}  // namespace mote
