// SPDX-License-Identifier: MIT
// ParticleWorld's emission schedule (docs/runtime.md, "One tick", step 3): per emitter and step,
// the window of emitter time with its catch-up, SPAWN requests, continuous rates (per second or per
// distance), shots and bursts with loops, events and force events, births into the spawn budget
// and the newborns' spawn lanes.
#include "world_impl.h"

#include <mote/runtime/vm.h>
#include <mote/runtime/world.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace mote {

using bytecode::CompiledEmission;
using bytecode::EmissionMode;
// The world's private types and helpers (world_impl.h).
using namespace runtime_detail;

namespace {

// The CPU world's sink: births into the emitter's slab, force events into the world's bursts.
class RowSink final : public emission::Sink {
 public:
  RowSink(ParticleWorld::Impl& world, EmitterRow& row, const EmissionWindow& window)
      : world_(world), row_(row), window_(window) {}
  void spawn(std::uint32_t count, const emission::BirthTimes& birth) override {
    if (world_.backend != nullptr) {
      world_.backend->spawnCall(static_cast<std::uint32_t>(&row_ - world_.rows.data()), count,
                                birth);
      return;
    }
    world_.spawn(row_, count, birth, window_.start, window_.span, window_.t0, window_.dt, nullptr);
  }
  void drop(std::uint64_t count) override {
    row_.stepDropped += count;
    row_.hostDropped += count;
    if (world_.backend != nullptr)
      world_.backend->drop(static_cast<std::uint32_t>(&row_ - world_.rows.data()), count);
  }
  void forceEvent() override { world_.raiseBlast(row_); }

 private:
  ParticleWorld::Impl& world_;
  EmitterRow& row_;
  const EmissionWindow& window_;
};

}  // namespace

// Emission for one emitter and one step (docs/runtime.md, "One tick", step 3): SPAWN requests,
// rates, shots and bursts, events, in that order; a culled emitter sleeps instead. Allocates:
// never.
void ParticleWorld::Impl::schedule(EmitterRow& r, double dt, const VisibilityTest* view) {
  r.newborn = 0;
  r.spawnRunCount = 0;
  r.stepDt = dt;
  r.stepSpawned = r.stepDropped = r.stepDied = 0;
  r.culled = r.desc->cull && view != nullptr && r.bounds.known && !view->visible(r.bounds);
  if (r.culled) {
    emission::sleepStep(*r.desc, r.clock, dt);
    prepareContext(r, dt);
    return;
  }
  const EmissionWindow w = emission::openStep(*r.desc, r.clock, dt);
  r.window = w;
  if (backend == nullptr) consumeRequests(r, w);  // a backend runs SPAWN requests itself
  RowSink sink(*this, r, w);
  emission::emitScheduled(*r.desc, r.clock, w, r.previous.position, r.world.position, r.capacity,
                          sink);
  prepareContext(r, dt);
}

// Births `count` particles, particle k at emitter time birth(k) (BirthTimes), in the window
// [windowStart, windowStart + span) that ends at this step's end (t0 + dt); those past the free
// slots are dropped and counted. `position` null: the emitter's position, interpolated along this
// step's path. The newborns' spawn lanes and ids are written by fillSpawnLanes, in runItem by the
// chunks that hold them (after the step's first kSpawnRunsPerStep calls, here).
// Complexity: O(1), or O(count) past the runs. Allocates: never.
void ParticleWorld::Impl::spawn(EmitterRow& r, std::uint32_t count, const BirthTimes& birth,
                                double windowStart, double span, double t0, double dt,
                                const Vec3* position, const Vec3* localOffset,
                                const bytecode::Inheritance& inherit, std::uint32_t source) {
  const std::uint32_t first = r.live + r.newborn;
  const std::uint32_t born = std::min(count, r.capacity - first);
  r.stepDropped += count - born;
  if (born == 0) return;
  SpawnRun run;
  run.first = first;
  run.count = born;
  run.index = r.newborn;
  run.id = r.nextId;
  run.window = {birth, windowStart, span, t0, dt, emission::loopLength(r.desc->emission)};
  run.atPosition = position != nullptr;
  if (position != nullptr) run.position = *position;
  run.local = localOffset != nullptr;
  if (localOffset != nullptr) run.localOffset = *localOffset;
  run.inherit = inherit;
  run.source = source;
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
  // A trail's newborns lie along its source's path (inherit.from → position), else along the
  // emitter's.
  const bool trail = run.atPosition && run.inherit.trail;
  runtime_detail::SpawnTimes times;
  times.window = run.window;
  for (std::size_t c = 0; c < 3; ++c) {
    times.start[c] = static_cast<double>(trail ? run.inherit.from[c] : r.previous.position[c]);
    times.path[c] =
        trail ? static_cast<double>(run.position[c]) - static_cast<double>(run.inherit.from[c])
              : static_cast<double>(r.world.position[c] - r.previous.position[c]);
  }
  times.first = k0;  // the place in the run: any split writes the same bits
  times.count = n;
  times.fraction = r.lane(kLaneSpawnFraction) + begin;
  times.age = r.lane(kLaneEmitterAge) + begin;
  times.rest = r.lane(kLaneDt) + begin;
  if (!run.atPosition || trail) times.at = at;
  runtime_detail::writeSpawnTimes(times);
  if (!r.sources.empty()) std::fill_n(r.sources.data() + begin, n, run.source);
  if (run.atPosition && !trail) {
    for (std::size_t c = 0; c < 3; ++c)
      std::fill_n(at[c], n, run.position[c]);
  }
  // Only local-space emitters read the request offset lanes (after INIT, in runItem).
  if (bytecode::movesWithEmitter(r.desc->space)) {
    for (std::uint32_t c = 0; c < 3; ++c)
      std::fill_n(r.lane(static_cast<LaneArray>(kLaneLocalX + c)) + begin, n, run.localOffset[c]);
    std::fill_n(r.lane(kLaneLocalSet) + begin, n, run.local ? 1.0f : 0.0f);
  }
  if (r.program->readsSource) {
    const bytecode::Inheritance& from = run.inherit;
    const std::array<float, 8> values{from.velocity[0], from.velocity[1], from.velocity[2],
                                      from.size,        from.color[0],    from.color[1],
                                      from.color[2],    from.color[3]};
    for (std::uint32_t k = 0; k < values.size(); ++k)
      std::fill_n(r.lane(static_cast<LaneArray>(kLaneSourceVelocityX + k)) + begin, n, values[k]);
  }
}

// A force event of `r` starts now at the emitter's position (tick() only).
void ParticleWorld::Impl::raiseBlast(const EmitterRow& r) {
  if (ticking) bursts.raise(r.desc->forceEvent, r.world.position, time);
}

// SAMPLE_WIND with bursts: the host's wind plus theirs. Read-only during the simulation phase, so
// safe from every worker.
std::array<float, 3> ParticleWorld::Impl::windWithBlasts(const std::array<float, 3>& position,
                                                         void* user) {
  const Impl& w = *static_cast<const Impl*>(user);
  std::array<float, 3> out{0.0f, 0.0f, 0.0f};
  if (w.wind != nullptr) out = w.wind(position, w.windUser);
  return w.bursts.add(position, out);
}

// SPAWN requests the effect's emitters queued for `r` in the last step, in (source emitter, source
// particle id, the particle's own order) order, born at the window's start — a TRAIL's newborns k
// of n at t0 + dt · (k + 1) / n instead, spread along the path its particle travelled (from →
// position), their velocity the path over that step's dt × the trail's inherit_velocity. A
// request's points and inherited velocity are the source particle's frame's: they are taken to
// world space, and into the target's frame for a target simulating in its emitter's.
void ParticleWorld::Impl::consumeRequests(EmitterRow& r, const EmissionWindow& w) {
  const EffectSlot& e = effects[r.effect];
  const bool targetLocal = bytecode::movesWithEmitter(r.desc->space);
  const bool inherits = r.program->readsSource;  // else the inheritance is never read
  for (const std::uint32_t row : e.rows) {
    if (row == kNone) continue;
    const EmitterRow& source = rows[row];
    const bool local = bytecode::movesWithEmitter(source.desc->space);
    for (std::uint32_t q = 0; q < source.orderedCount; ++q) {
      const SpawnRequest& request = source.ordered[q];
      if (request.target != r.index) continue;
      Vec3 p = request.position;
      bytecode::Inheritance inherit = request.inherit;
      if (local) {
        const auto toWorld = [&](Vec3& point) {
          const Vec3 turned = rotate(source.world.rotation, point);
          for (std::size_t c = 0; c < 3; ++c)
            point[c] = source.world.position[c] + turned[c];
        };
        toWorld(p);
        if (inherit.trail) toWorld(inherit.from);
        if (inherits) inherit.velocity = rotate(source.world.rotation, inherit.velocity);
      }
      if (inherit.trail) {
        // Trails simulate in world space (the validator's rule): no target frame to turn into.
        const auto k = static_cast<double>(r.desc->emission.sourceInheritVelocity);
        const double dt = source.requestsDt;
        for (std::size_t c = 0; c < 3; ++c) {
          inherit.velocity[c] =
              dt > 0.0
                  ? static_cast<float>(
                        k * (static_cast<double>(p[c]) - static_cast<double>(inherit.from[c])) / dt)
                  : 0.0f;
        }
        const double n = request.count;
        spawn(
            r, request.count,
            BirthTimes{.from = w.t0, .scale = w.dt, .before = 0.0, .amount = n, .constant = false},
            w.start, w.span, w.t0, w.dt, &p, nullptr, inherit, request.source);
        continue;
      }
      // A target simulating in its emitter's frame gets the point in that frame.
      Vec3 offset{};
      if (targetLocal) {
        const Quat& turn = r.world.rotation;
        const Quat inverse{-turn[0], -turn[1], -turn[2], turn[3]};
        offset = rotate(inverse, {p[0] - r.world.position[0], p[1] - r.world.position[1],
                                  p[2] - r.world.position[2]});
        if (inherits) inherit.velocity = rotate(inverse, inherit.velocity);
      }
      spawn(r, request.count, BirthTimes{w.start}, w.start, w.span, w.t0, w.dt, &p,
            targetLocal ? &offset : nullptr, inherit);
    }
  }
}

}  // namespace mote
