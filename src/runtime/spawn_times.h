// SPDX-License-Identifier: MIT
// The time and place of each newborn of one spawn() call: the kernel behind ParticleWorld's spawn
// lanes (docs/runtime.md, "One tick", step 3), double-precision SIMD vectors of newborns (Highway,
// the best target for the CPU picked at run time) with a scalar loop for the rest, the same IEEE
// operations in the same order in both, so every newborn's lanes are the same bits however a run
// is split.
#pragma once

#include <mote/runtime/emission.h>

#include <array>
#include <cstdint>

namespace mote::runtime_detail {

using BirthTimes = emission::BirthTimes;

/// The window one spawn() call births into: [windowStart, windowStart + span), ending at the
/// step's end stop = t0 + dt. Without a catch-up (windowStart == t0, span == dt) the window is
/// the step.
struct SpawnWindow {
  BirthTimes birth;
  double windowStart = 0.0;
  double span = 0.0;
  double t0 = 0.0;
  double dt = 0.0;
  double loop = 0.0;  ///< emission::loopLength: the emitter age wraps at it (0: never)
};

/// The window's end, t0 + dt.
inline double stopOf(const SpawnWindow& w) {
  return w.t0 + w.dt;
}
/// Without a catch-up the window is the step: the spawn fraction's quotient is the path's.
inline bool isStep(const SpawnWindow& w) {
  return w.windowStart == w.t0 && w.span == w.dt;
}

/// One run of newborns and where their lanes go. Newborn k of the call (k counted from the call's
/// first) is born at birth(k) clamped to [windowStart, stop], and gets fraction =
/// (birth − windowStart) / span (1 when span ≤ 0), emitter age = emission::cycleTime(birth, loop),
/// rest = stop − birth, and,
/// unless `at` is null, the position start + path · f with f = clamp(the window is the step ?
/// fraction : (birth − t0) / dt, 0, 1) (1 when dt ≤ 0), all in double and rounded to float once.
struct SpawnTimes {
  SpawnWindow window;
  std::array<double, 3> start{};  ///< the emitter's position at the step's start
  std::array<double, 3> path{};   ///< its motion over the step
  std::uint32_t first = 0;        ///< k of the first newborn written
  std::uint32_t count = 0;        ///< newborns written: k in [first, first + count)
  float* fraction = nullptr;      ///< count floats each
  float* age = nullptr;
  float* rest = nullptr;
  std::array<float*, 3> at{};  ///< all null: the position is not written
};

/// Writes the lanes of newborns [first, first + count) as SpawnTimes describes, element 0 of each
/// output the first's. O(count), no allocation, reentrant (distinct outputs).
void writeSpawnTimes(const SpawnTimes& in) noexcept;

}  // namespace mote::runtime_detail
