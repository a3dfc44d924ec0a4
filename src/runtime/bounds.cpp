// SPDX-License-Identifier: MIT
// boundsOf: min/max of p ± extent a SIMD vector of particles at a time (Highway's foreach_target:
// this file is included again for each target; the best one is picked at run time).

#include "simd_targets.h"  // before Highway

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "bounds.cpp"
#include "bounds.h"

#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <algorithm>
#include <cmath>
#include <limits>

HWY_BEFORE_NAMESPACE();
namespace mote::runtime_detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Whole vectors of particles; returns how many it covered. On x86 MIN(l, m) and MAX(h, m) return
// m when l or h is NaN, so NaN particles are skipped; where a target lets a NaN through instead,
// the result is not finite and the caller falls back to its exact loop. One loop per kind of
// input, so the loop tests nothing but its end.
template <bool kSize, bool kVelocity, bool kSkip>
std::uint32_t BoundsLoop(const BoundsInput& in, float* lo, float* hi) {
  using D = hn::ScalableTag<float>;
  using V = hn::Vec<D>;
  const D d;
  const std::uint32_t step = static_cast<std::uint32_t>(hn::Lanes(d));
  const V halfDiagonal = hn::Set(d, 0.70710678f);
  const V stretch = hn::Set(d, in.stretchFactor);
  const V inf = hn::Set(d, std::numeric_limits<float>::infinity());
  const V nan = hn::Set(d, std::numeric_limits<float>::quiet_NaN());
  const hn::Rebind<std::uint8_t, D> d8;
  const hn::Rebind<std::uint32_t, D> d32;
  const float* const px = in.position[0];
  const float* const py = in.position[1];
  const float* const pz = in.position[2];
  const float* const sx = in.size[0];
  const float* const sy = in.size[1];
  const float* const vx = in.velocity[0];
  const float* const vy = in.velocity[1];
  const float* const vz = in.velocity[2];
  const std::uint8_t* const skip = in.skip;
  V mnx = inf, mny = inf, mnz = inf;
  V mxx = hn::Neg(inf), mxy = hn::Neg(inf), mxz = hn::Neg(inf);
  std::uint32_t i = 0;
  for (; i + step <= in.count; i += step) {
    V e = hn::Zero(d);
    if constexpr (kSize) {
      e = hn::Mul(halfDiagonal,
                  hn::Max(hn::Abs(hn::LoadU(d, sx + i)), hn::Abs(hn::LoadU(d, sy + i))));
    }
    if constexpr (kVelocity) {
      const V v = hn::Max(hn::Max(hn::Abs(hn::LoadU(d, vx + i)), hn::Abs(hn::LoadU(d, vy + i))),
                          hn::Abs(hn::LoadU(d, vz + i)));
      e = hn::Add(e, hn::Mul(v, stretch));
    }
    if constexpr (kSkip) {  // a skipped particle's extent is NaN: its p ± e are skipped
      const auto kept = hn::Eq(hn::PromoteTo(d32, hn::LoadU(d8, skip + i)), hn::Zero(d32));
      e = hn::IfThenElse(hn::RebindMask(d, kept), e, nan);
    }
    const V x = hn::LoadU(d, px + i);
    const V y = hn::LoadU(d, py + i);
    const V z = hn::LoadU(d, pz + i);
    mnx = hn::Min(hn::Sub(x, e), mnx);
    mxx = hn::Max(hn::Add(x, e), mxx);
    mny = hn::Min(hn::Sub(y, e), mny);
    mxy = hn::Max(hn::Add(y, e), mxy);
    mnz = hn::Min(hn::Sub(z, e), mnz);
    mxz = hn::Max(hn::Add(z, e), mxz);
  }
  const std::array<V, 3> mn{mnx, mny, mnz};
  const std::array<V, 3> mx{mxx, mxy, mxz};
  HWY_ALIGN float lanes[2 * hn::MaxLanes(d)];
  for (std::size_t c = 0; c < 3; ++c) {
    hn::Store(mn[c], d, lanes);
    hn::Store(mx[c], d, lanes + step);
    for (std::uint32_t k = 0; k < step; ++k) {
      lo[c] = lanes[k] < lo[c] ? lanes[k] : lo[c];
      hi[c] = lanes[step + k] > hi[c] ? lanes[step + k] : hi[c];
    }
  }
  return i;
}

template <bool kSize, bool kVelocity>
std::uint32_t BoundsLoopSkip(const BoundsInput& in, float* lo, float* hi) {
  return in.skip != nullptr ? BoundsLoop<kSize, kVelocity, true>(in, lo, hi)
                            : BoundsLoop<kSize, kVelocity, false>(in, lo, hi);
}

std::uint32_t BoundsVectors(const BoundsInput& in, float* lo, float* hi) {
  if (in.size[0] != nullptr) {
    return in.velocity[0] != nullptr ? BoundsLoopSkip<true, true>(in, lo, hi)
                                     : BoundsLoopSkip<true, false>(in, lo, hi);
  }
  return in.velocity[0] != nullptr ? BoundsLoopSkip<false, true>(in, lo, hi)
                                   : BoundsLoopSkip<false, false>(in, lo, hi);
}

}  // namespace HWY_NAMESPACE
}  // namespace mote::runtime_detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace mote::runtime_detail {

HWY_EXPORT(BoundsVectors);

float boundsExtent(const BoundsInput& in, std::uint32_t i) noexcept {
  float e = in.size[0] != nullptr
                ? 0.70710678f * std::max(std::fabs(in.size[0][i]), std::fabs(in.size[1][i]))
                : 0.0f;
  if (in.velocity[0] != nullptr) {
    e += std::max({std::fabs(in.velocity[0][i]), std::fabs(in.velocity[1][i]),
                   std::fabs(in.velocity[2][i])}) *
         in.stretchFactor;
  }
  return e;
}

void boundsOf(const BoundsInput& in, std::array<float, 3>& lo, std::array<float, 3>& hi) noexcept {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  lo = {kInf, kInf, kInf};
  hi = {-kInf, -kInf, -kInf};
  std::uint32_t i = HWY_DYNAMIC_DISPATCH(BoundsVectors)(in, lo.data(), hi.data());
  for (; i < in.count; ++i) {
    if (in.skip != nullptr && in.skip[i] != 0) continue;
    const float e = boundsExtent(in, i);
    for (std::size_t c = 0; c < 3; ++c) {
      const float l = in.position[c][i] - e;
      const float h = in.position[c][i] + e;
      lo[c] = l < lo[c] ? l : lo[c];
      hi[c] = h > hi[c] ? h : hi[c];
    }
  }
}

}  // namespace mote::runtime_detail
#endif  // HWY_ONCE
