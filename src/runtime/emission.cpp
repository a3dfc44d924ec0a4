// SPDX-License-Identifier: MIT
// The emission schedule (include/mote/runtime/emission.h): windows with catch-up, continuous rates
// (per second or per distance), shots and bursts with loops, and events.
#include <mote/runtime/emission.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace mote::emission {

using bytecode::CompiledEmission;
using bytecode::EmissionMode;

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

// What a continuous rate asks for in the window: `amount` particles (fractional), born over
// [from, w.hi). Per second, the rate at the middle of [lo, hi) times its length; per distance,
// the rate at hi times the distance the emitter moved this step (the part of the step in
// [lo, hi)), born from the step's start on.
struct RateAmount {
  double amount = 0.0;
  double from = 0.0;
};

RateAmount rateAmount(const CompiledEmission& em, const Window& w,
                      const std::array<float, 3>& previous, const std::array<float, 3>& current) {
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
    const double d = static_cast<double>(current[c]) - static_cast<double>(previous[c]);
    distance += d * d;
  }
  const double t = w.looping ? std::fmod(hi, w.duration) : hi;
  out.amount =
      static_cast<double>(evalRate(em, t)) * std::sqrt(distance) * std::min(1.0, (hi - lo) / w.dt);
  out.from = std::max(lo, w.t0);
  return out;
}

// Continuous rates: the rate's particles carried in the accumulator, the whole ones born.
void emitRate(const CompiledEmission& em, Clock& clock, const Window& w,
              const std::array<float, 3>& previous, const std::array<float, 3>& current,
              std::uint32_t capacity, Sink& sink) {
  if (!((em.mode == EmissionMode::Continuous || em.mode == EmissionMode::BeamContinuous) &&
        w.hi > w.lo))
    return;
  const auto [amount, from] = rateAmount(em, w, previous, current);
  if (!(amount > 0.0 && std::isfinite(amount))) return;
  const double before = clock.accumulator;
  clock.accumulator += amount;
  const double whole = std::floor(clock.accumulator);
  clock.accumulator -= whole;
  const double asked = std::min(whole, static_cast<double>(capacity));
  sink.spawn(static_cast<std::uint32_t>(asked),
             BirthTimes{from, w.hi - from, before, amount, false});
  sink.drop(static_cast<std::uint64_t>(whole - asked));
}

// Shots (single_shot), scheduled bursts, with loops: occurrences in emitter time, at most
// kMaxOccurrencesPerTick of them.
void emitShots(const CompiledEmission& em, const Window& w, Sink& sink) {
  if (!(w.hi > w.lo)) return;
  std::uint32_t budget = kMaxOccurrencesPerTick;
  const auto shots = [&](double cycleStart, double l, double h) {
    if (em.mode == EmissionMode::SingleShot) {
      const std::uint32_t count = shotCount(em);
      occurrences(0.0, 0.0, 0, l, h, budget,
                  [&](double t) { sink.spawn(count, BirthTimes{cycleStart + t}); });
    }
    for (const bytecode::CompiledBurst& b : em.bursts) {
      occurrences(static_cast<double>(b.timeSeconds), static_cast<double>(b.repeatIntervalSeconds),
                  b.repeatCount, l, h, budget,
                  [&](double t) { sink.spawn(b.count, BirthTimes{cycleStart + t}); });
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
void emitEvents(const CompiledEmission& em, Clock& clock, const Window& w, Sink& sink) {
  if (em.mode != EmissionMode::EventBurst) return;
  const std::uint32_t count = shotCount(em);
  for (; clock.pendingEvents > 0; --clock.pendingEvents) {
    sink.spawn(count, BirthTimes{w.start});
    sink.forceEvent();
  }
  // A looping emission repeats them every cycle: at + k · duration, k = 0, 1, ...
  std::uint32_t budget = kMaxOccurrencesPerTick;
  const double period = w.looping ? w.duration : 0.0;
  for (const float e : em.eventTimesSeconds) {
    occurrences(static_cast<double>(e), period, 0, w.effect0 - w.catchup, w.effect0 + w.dt, budget,
                [&](double at) {
                  sink.spawn(count, BirthTimes{at - static_cast<double>(em.delaySeconds)});
                  sink.forceEvent();
                });
  }
}

}  // namespace

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

void sleepStep(const bytecode::CompiledEmitter& /*emitter*/, Clock& clock, double dt) {
  clock.effectTime += dt;
  clock.sleep += dt;
  clock.pendingEvents = 0;
}

Window openStep(const bytecode::CompiledEmitter& emitter, Clock& clock, double dt) {
  const CompiledEmission& em = emitter.emission;
  Window w;
  w.t0 = emitterTime(em, clock);
  w.dt = dt;
  w.effect0 = clock.effectTime;
  clock.effectTime += dt;
  // Waking: the window reaches back over the sleep, at most max_catchup_seconds.
  w.catchup = std::min(clock.sleep, static_cast<double>(std::max(0.0f, emitter.maxCatchupSeconds)));
  clock.sleep = 0.0;
  w.start = w.t0 - w.catchup;
  w.span = dt + w.catchup;
  w.duration = static_cast<double>(em.durationSeconds);
  w.looping = loopLength(em) > 0.0;
  w.lo = std::max(w.start, 0.0);
  w.hi = (w.duration > 0.0 && !w.looping) ? std::min(w.t0 + dt, w.duration) : w.t0 + dt;
  return w;
}

void emitScheduled(const bytecode::CompiledEmitter& emitter, Clock& clock, const Window& window,
                   const std::array<float, 3>& previous, const std::array<float, 3>& current,
                   std::uint32_t capacity, Sink& sink) {
  const CompiledEmission& em = emitter.emission;
  emitRate(em, clock, window, previous, current, capacity, sink);
  emitShots(em, window, sink);
  emitEvents(em, clock, window, sink);
  clock.pendingEvents = 0;
}

}  // namespace mote::emission
