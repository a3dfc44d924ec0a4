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

constexpr std::uint32_t kMaxOccurrencesPerTick = 4096;  // shots/bursts/loops looked at per tick

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

// The particles of one shot or event: the emission's rate, rounded, at most 10^7.
std::uint32_t shotCount(const CompiledEmission& em) {
  return static_cast<std::uint32_t>(std::min(std::round(static_cast<double>(em.rate)), 1e7));
}

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

// The window of one step of `dt` from emitter time `t0` (effect time `effect0`), reaching back
// `catchup` seconds, and the part of it the emission's duration lets emit.
EmissionWindow emissionWindow(const CompiledEmission& em, double t0, double dt, double effect0,
                              double catchup) {
  EmissionWindow w;
  w.t0 = t0;
  w.dt = dt;
  w.effect0 = effect0;
  w.catchup = catchup;
  const double t1 = t0 + dt;
  w.start = t0 - catchup;
  w.span = dt + catchup;
  w.duration = static_cast<double>(em.durationSeconds);
  w.looping = em.loop && w.duration > 0.0;
  w.lo = std::max(w.start, 0.0);
  w.hi = (w.duration > 0.0 && !w.looping) ? std::min(t1, w.duration) : t1;
  return w;
}

// What a continuous rate asks for in the window: `amount` particles (fractional), born over
// [from, w.hi). Per second, the rate at the middle of [lo, hi) times its length; per distance,
// the rate at hi times the distance the emitter moved this step (the part of the step in
// [lo, hi)), born from the step's start on.
struct RateAmount {
  double amount = 0.0;
  double from = 0.0;
};

RateAmount rateAmount(const EmitterRow& r, const EmissionWindow& w) {
  const CompiledEmission& em = r.desc->emission;
  const double lo = w.lo;
  const double hi = w.hi;
  RateAmount out;
  out.from = lo;
  if (em.metric == bytecode::SpawnMetric::PerSecond) {
    const double mid = (lo + hi) * 0.5;
    out.amount =
        static_cast<double>(evalRate(em, w.looping ? std::fmod(mid, w.duration) : mid)) * (hi - lo);
    return out;
  }
  double distance = 0.0;
  for (std::size_t c = 0; c < 3; ++c) {
    const double d =
        static_cast<double>(r.world.position[c]) - static_cast<double>(r.previous.position[c]);
    distance += d * d;
  }
  const double t = w.looping ? std::fmod(hi, w.duration) : hi;
  out.amount =
      static_cast<double>(evalRate(em, t)) * std::sqrt(distance) * std::min(1.0, (hi - lo) / w.dt);
  out.from = std::max(lo, w.t0);
  return out;
}

}  // namespace

namespace runtime_detail {

// The emitter time after which it emits nothing more by itself (infinity: it may emit forever).
double lastEmission(const CompiledEmission& e) {
  constexpr double kForever = std::numeric_limits<double>::infinity();
  if (e.loop && e.durationSeconds > 0.0f) return kForever;
  double last = 0.0;
  const bool rated = e.rate > 0.0f || !e.rateKeys.empty();
  if ((e.mode == EmissionMode::Continuous || e.mode == EmissionMode::BeamContinuous) && rated) {
    if (e.durationSeconds <= 0.0f) return kForever;
    last = static_cast<double>(e.durationSeconds);
  }
  for (const bytecode::CompiledBurst& b : e.bursts) {
    if (b.repeatIntervalSeconds > 0.0f && b.repeatCount == 0) return kForever;
    last = std::max(last, static_cast<double>(b.timeSeconds) +
                              static_cast<double>(b.repeatIntervalSeconds) * b.repeatCount);
  }
  for (const float t : e.eventTimesSeconds)
    last = std::max(last, static_cast<double>(t) - static_cast<double>(e.delaySeconds));
  return last;
}

}  // namespace runtime_detail

// Emission for one emitter and one step (docs/runtime.md, "One tick", step 3): SPAWN requests,
// rates, shots and bursts, events, in that order; a culled emitter sleeps instead. Allocates:
// never.
void ParticleWorld::Impl::schedule(EmitterRow& r, double dt, const VisibilityTest* view) {
  r.newborn = 0;
  r.spawnRunCount = 0;
  r.stepSpawned = r.stepDropped = r.stepDied = 0;
  const double t0 = r.emitterTime();
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
  const EmissionWindow w = emissionWindow(r.desc->emission, t0, dt, effect0, catchup);
  consumeRequests(r, w);
  emitRate(r, w);
  emitShots(r, w);
  emitEvents(r, w);
  r.pendingEvents = 0;
  prepareContext(r, dt);
}

// Continuous rates: the rate's particles carried in the accumulator, the whole ones born.
void ParticleWorld::Impl::emitRate(EmitterRow& r, const EmissionWindow& w) {
  const CompiledEmission& em = r.desc->emission;
  if (!((em.mode == EmissionMode::Continuous || em.mode == EmissionMode::BeamContinuous) &&
        w.hi > w.lo))
    return;
  const auto [amount, from] = rateAmount(r, w);
  if (!(amount > 0.0 && std::isfinite(amount))) return;
  const double before = r.accumulator;
  r.accumulator += amount;
  const double whole = std::floor(r.accumulator);
  r.accumulator -= whole;
  const auto free = static_cast<double>(r.capacity - r.live - r.newborn);
  const double born = std::min(whole, std::max(free, 0.0));
  spawn(r, static_cast<std::uint32_t>(born), BirthTimes{from, w.hi - from, before, amount, false},
        w.start, w.span, w.t0, w.dt, nullptr);
  r.stepDropped += static_cast<std::uint64_t>(whole - born);
}

// Shots (single_shot), scheduled bursts, with loops: occurrences in emitter time, at most
// kMaxOccurrencesPerTick of them.
void ParticleWorld::Impl::emitShots(EmitterRow& r, const EmissionWindow& w) {
  const CompiledEmission& em = r.desc->emission;
  if (!(w.hi > w.lo)) return;
  std::uint32_t budget = kMaxOccurrencesPerTick;
  const auto shots = [&](double cycleStart, double l, double h) {
    if (em.mode == EmissionMode::SingleShot) {
      const std::uint32_t count = shotCount(em);
      occurrences(0.0, 0.0, 0, l, h, budget,
                  [&](double t) { emitAt(r, w, cycleStart + t, count); });
    }
    for (const bytecode::CompiledBurst& b : em.bursts) {
      occurrences(static_cast<double>(b.timeSeconds), static_cast<double>(b.repeatIntervalSeconds),
                  b.repeatCount, l, h, budget,
                  [&](double t) { emitAt(r, w, cycleStart + t, b.count); });
    }
  };
  if (w.looping) {
    for (double c = std::floor(w.lo / w.duration); c * w.duration < w.hi && budget > 0; c += 1.0) {
      const double start = c * w.duration;
      shots(start, std::max(w.lo, start) - start, std::min(w.hi, start + w.duration) - start);
    }
  } else {
    shots(0.0, w.lo, w.hi);
  }
}

// Events: the host's, at the window's start; the effect's own, on the effect timeline. Each
// raises the emitter's force event.
void ParticleWorld::Impl::emitEvents(EmitterRow& r, const EmissionWindow& w) {
  const CompiledEmission& em = r.desc->emission;
  if (em.mode != EmissionMode::EventBurst) return;
  const std::uint32_t count = shotCount(em);
  for (; r.pendingEvents > 0; --r.pendingEvents) {
    emitAt(r, w, w.start, count);
    raiseBlast(r);
  }
  for (const float e : em.eventTimesSeconds) {
    const auto at = static_cast<double>(e);
    if (at >= w.effect0 - w.catchup && at < w.effect0 + w.dt) {
      emitAt(r, w, at - static_cast<double>(em.delaySeconds), count);
      raiseBlast(r);
    }
  }
}

// `count` particles born at emitter time `t`, at the emitter's position along this step's path.
void ParticleWorld::Impl::emitAt(EmitterRow& r, const EmissionWindow& w, double t,
                                 std::uint32_t count) {
  spawn(r, count, BirthTimes{t}, w.start, w.span, w.t0, w.dt, nullptr);
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

// A force event of `r` starts now at the emitter's position (tick() only).
void ParticleWorld::Impl::raiseBlast(const EmitterRow& r) {
  const bytecode::CompiledForceEvent& f = r.desc->forceEvent;
  if (!raisingBlasts || !(f.radiusMeters > 0.0f) || !(f.durationSeconds > 0.0f)) return;
  const Blast blast{r.world.position, f.radiusMeters, f.strengthMetersPerSecond,
                    time + static_cast<double>(f.durationSeconds)};
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
// chunk, request) order, born at the window's start. A request's position is the source
// particle's, in world space.
void ParticleWorld::Impl::consumeRequests(EmitterRow& r, const EmissionWindow& w) {
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
        spawn(r, request.count, BirthTimes{w.start}, w.start, w.span, w.t0, w.dt, &p,
              targetLocal ? &offset : nullptr);
      }
    }
  }
}

}  // namespace mote
