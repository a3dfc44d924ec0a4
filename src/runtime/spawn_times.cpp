// SPDX-License-Identifier: MIT
// writeSpawnTimes: whole double-precision vectors of newborns (Highway's foreach_target: this file
// is included again for each target; the best one is picked at run time), the rest one at a time
// with the same operations.

#include "simd_targets.h"  // before Highway

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "spawn_times.cpp"
#include "spawn_times.h"

#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <algorithm>

HWY_BEFORE_NAMESPACE();
namespace mote::runtime_detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Whole vectors of newborns from in.first; returns how many it wrote. Each lane runs the scalar
// loop's operations (writeSpawnTimes below) in its order: explicit vector ops, nothing contracted.
std::uint32_t SpawnTimesVectors(const SpawnTimes& in) {
#if HWY_HAVE_FLOAT64
  const SpawnWindow& w = in.window;
  using D = hn::ScalableTag<double>;
  using V = hn::Vec<D>;
  const D d;
  const hn::Rebind<float, D> df;
  const auto step = static_cast<std::uint32_t>(hn::Lanes(d));
  // std::clamp's v < lo ? lo : (hi < v ? hi : v).
  const auto clamp = [](V v, V lo, V hi) {
    return hn::IfThenElse(hn::Lt(v, lo), lo, hn::IfThenElse(hn::Lt(hi, v), hi, v));
  };
  const V one = hn::Set(d, 1.0);
  const V zero = hn::Zero(d);
  const V from = hn::Set(d, w.birth.from);
  const V scale = hn::Set(d, w.birth.scale);
  const V before = hn::Set(d, w.birth.before);
  const V amount = hn::Set(d, w.birth.amount);
  const V windowStart = hn::Set(d, w.windowStart);
  const V span = hn::Set(d, w.span);
  const V stop = hn::Set(d, stopOf(w));
  const V t0 = hn::Set(d, w.t0);
  const V dt = hn::Set(d, w.dt);
  const V iota = hn::Iota(d, 0.0);  // k + lane is exact: k < 2^32
  const V loop = hn::Set(d, w.loop);
  const bool loops = w.loop > 0.0;
  // emission::cycleTime: t − loop · ⌊t / loop⌋, 0 where that is negative.
  const auto cycle = [&](V t) {
    const V c = hn::Sub(t, hn::Mul(loop, hn::Floor(hn::Div(t, loop))));
    return hn::IfThenElse(hn::Lt(c, zero), zero, c);
  };
  const bool spans = w.span > 0.0;
  const bool moves = w.dt > 0.0;
  const bool windowIsStep = isStep(w);
  std::uint32_t i = 0;
  for (; i + step <= in.count; i += step) {
    V birth = from;
    if (!w.birth.constant) {
      const V k = hn::Add(hn::Set(d, static_cast<double>(in.first + i)), iota);
      birth = hn::Add(from, hn::Mul(scale, hn::Div(hn::Sub(hn::Add(k, one), before), amount)));
    }
    birth = clamp(birth, windowStart, stop);
    const V along = spans ? hn::Div(hn::Sub(birth, windowStart), span) : one;
    hn::StoreU(hn::DemoteTo(df, along), df, in.fraction + i);
    hn::StoreU(hn::DemoteTo(df, loops ? cycle(birth) : birth), df, in.age + i);
    hn::StoreU(hn::DemoteTo(df, hn::Sub(stop, birth)), df, in.rest + i);
    if (in.at[0] == nullptr) continue;
    const V f =
        moves ? clamp(windowIsStep ? along : hn::Div(hn::Sub(birth, t0), dt), zero, one) : one;
    for (std::size_t c = 0; c < 3; ++c) {
      const V p = hn::Add(hn::Set(d, in.start[c]), hn::Mul(hn::Set(d, in.path[c]), f));
      hn::StoreU(hn::DemoteTo(df, p), df, in.at[c] + i);
    }
  }
  return i;
#else
  (void)in;
  return 0;
#endif
}

}  // namespace HWY_NAMESPACE
}  // namespace mote::runtime_detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace mote::runtime_detail {

HWY_EXPORT(SpawnTimesVectors);

void writeSpawnTimes(const SpawnTimes& in) noexcept {
  const SpawnWindow& w = in.window;
  const BirthTimes& b = w.birth;
  const double stop = stopOf(w);
  const bool windowIsStep = isStep(w);
  // A run shorter than the widest vector (a trail request's few newborns) skips the vector
  // kernel's setup: the scalar loop writes the same bits.
  constexpr std::uint32_t kWidestVector = 8;  // doubles in 512 bits
  const std::uint32_t vectored =
      in.count >= kWidestVector ? HWY_DYNAMIC_DISPATCH(SpawnTimesVectors)(in) : 0;
  for (std::uint32_t i = vectored; i < in.count; ++i) {
    const double k = static_cast<double>(in.first + i);
    const double birth =
        std::clamp(b.constant ? b.from : b.from + b.scale * ((k + 1.0 - b.before) / b.amount),
                   w.windowStart, stop);
    const double along = w.span > 0.0 ? (birth - w.windowStart) / w.span : 1.0;
    in.fraction[i] = static_cast<float>(along);
    in.age[i] = static_cast<float>(emission::cycleTime(birth, w.loop));
    in.rest[i] = static_cast<float>(stop - birth);
    if (in.at[0] == nullptr) continue;
    const double f =
        w.dt > 0.0 ? std::clamp(windowIsStep ? along : (birth - w.t0) / w.dt, 0.0, 1.0) : 1.0;
    for (std::size_t c = 0; c < 3; ++c)
      in.at[c][i] = static_cast<float>(in.start[c] + in.path[c] * f);
  }
}

}  // namespace mote::runtime_detail
#endif  // HWY_ONCE
