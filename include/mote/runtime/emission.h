// SPDX-License-Identifier: MIT
// The emission schedule (docs/runtime.md, "One tick", step 3): per emitter and step, the window of
// emitter time with its catch-up over a sleep, then the spawn calls of continuous rates (per second
// or per distance), shots and bursts with loops, and events — the decisions that are the same
// whichever backend runs the particles. ParticleWorld (CPU) and gpu::ParticleWorld both run it, so
// their emission agrees by construction; only the spawn budget clamp and SPAWN requests (which
// need the particles) are the backend's.
//
// Thread safety: the functions are pure but for the Clock and Sink they are given. Allocation:
// never. Complexity: O(bursts + events + occurrences in the step), occurrences at most 4096.
#pragma once

#include <mote/bytecode/compiled_effect.h>

#include <array>
#include <cmath>
#include <cstdint>

namespace mote::emission {

/// When the newborns of one spawn call are born: `from` for every one (constant), or along the
/// rate's window, from + scale · ((k + 1 − before) / amount) for the call's k-th newborn.
struct BirthTimes {
  double from = 0.0;
  double scale = 0.0;
  double before = 0.0;
  double amount = 1.0;
  bool constant = true;
};

/// One step's emission window for one emitter: emitter time [t0, t0 + dt), reaching back `catchup`
/// seconds over a sleep.
struct Window {
  double t0 = 0.0;
  double dt = 0.0;
  double start = 0.0;  ///< t0 − catchup: where the window starts
  double span = 0.0;   ///< dt + catchup
  double lo = 0.0;     ///< [lo, hi): the part of the window in which the emitter emits
  double hi = 0.0;
  double effect0 = 0.0;  ///< the effect time at t0 (the effect's own events are on it)
  double catchup = 0.0;
  double duration = 0.0;
  bool looping = false;
};

/// What an emitter's emission carries from step to step.
struct Clock {
  double effectTime = 0.0;          ///< seconds since the instance started (or restarted)
  double accumulator = 0.0;         ///< the fraction of a particle the rate owes
  double sleep = 0.0;               ///< seconds culled since it last emitted
  std::uint32_t pendingEvents = 0;  ///< trigger()s not yet emitted
};

/// The emitter time of `clock`: seconds since the emission's delay ended (negative before).
inline double emitterTime(const bytecode::CompiledEmission& e, const Clock& clock) {
  return clock.effectTime - static_cast<double>(e.delaySeconds);
}

/// The length emitter time wraps at: `duration` for a looping emission (every emitter-time curve,
/// shot, burst and effect event repeats with it), 0 for one that does not loop.
inline double loopLength(const bytecode::CompiledEmission& e) {
  return e.loop && e.durationSeconds > 0.0f ? static_cast<double>(e.durationSeconds) : 0.0;
}

/// Emitter time `t` within its loop's cycle, what `emitter_age` reads: t − loop · ⌊t / loop⌋, 0
/// where rounding would make it negative; `t` itself when `loop` ≤ 0. Each step one IEEE double
/// operation in this order, as the spawn lanes' vector code and the GPU's exact mode compute it.
inline double cycleTime(double t, double loop) {
  if (!(loop > 0.0)) return t;
  const double c = t - loop * std::floor(t / loop);
  return c < 0.0 ? 0.0 : c;
}

/// The most trigger()s an emitter holds before its next step; more are not counted.
inline constexpr std::uint32_t kMaxPendingEvents = 1u << 16;

/// The emitter time after which it emits nothing more by itself (infinity: it may emit forever).
double lastEmission(const bytecode::CompiledEmission& e);

/// Receives one step's spawn calls, in the schedule's order. A backend births min(count, its free
/// slots) of each and counts the rest as dropped.
class Sink {
 public:
  /// `count` particles born at `birth` in the step's window (never more than the emitter's
  /// capacity: a rate's excess arrives through drop()).
  virtual void spawn(std::uint32_t count, const BirthTimes& birth) = 0;
  /// Particles the rate asked for past the emitter's capacity: dropped without a call.
  virtual void drop(std::uint64_t count) = 0;
  /// The emitter's force event fires (each event does, with its particles).
  virtual void forceEvent() = 0;

 protected:
  ~Sink() = default;
};

/// A culled step of `dt`: the clock moves on and sleeps; pending events are forgotten.
void sleepStep(const bytecode::CompiledEmitter& emitter, Clock& clock, double dt);

/// Opens an awake step of `dt`: its window, reaching back over the sleep (at most the emitter's
/// max_catchup_seconds); the clock moves on and wakes.
Window openStep(const bytecode::CompiledEmitter& emitter, Clock& clock, double dt);

/// The emitter's own spawn calls in `window` (after any SPAWN requests, which are the backend's):
/// rates, shots and bursts, events, in that order. `previous` and `current` are the emitter's world
/// positions at the step's start and end (per-distance rates); `capacity` is its particle capacity.
/// Clears the pending events.
void emitScheduled(const bytecode::CompiledEmitter& emitter, Clock& clock, const Window& window,
                   const std::array<float, 3>& previous, const std::array<float, 3>& current,
                   std::uint32_t capacity, Sink& sink);

}  // namespace mote::emission
