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
// the result is not finite and the caller falls back to its exact loop.
std::uint32_t BoundsVectors(const BoundsInput& in, float* lo, float* hi) {
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
  std::array<V, 3> mn{inf, inf, inf};
  std::array<V, 3> mx{hn::Neg(inf), hn::Neg(inf), hn::Neg(inf)};
  std::uint32_t i = 0;
  for (; i + step <= in.count; i += step) {
    V e = hn::Zero(d);
    if (in.size[0] != nullptr) {
      e = hn::Mul(halfDiagonal, hn::Max(hn::Abs(hn::LoadU(d, in.size[0] + i)),
                                        hn::Abs(hn::LoadU(d, in.size[1] + i))));
    }
    if (in.velocity[0] != nullptr) {
      const V v = hn::Max(hn::Max(hn::Abs(hn::LoadU(d, in.velocity[0] + i)),
                                  hn::Abs(hn::LoadU(d, in.velocity[1] + i))),
                          hn::Abs(hn::LoadU(d, in.velocity[2] + i)));
      e = hn::Add(e, hn::Mul(v, stretch));
    }
    if (in.skip != nullptr) {  // a skipped particle's extent is NaN: its p ± e are skipped
      const auto skipped = hn::Ne(hn::PromoteTo(d32, hn::LoadU(d8, in.skip + i)), hn::Zero(d32));
      e = hn::IfThenElse(hn::RebindMask(d, skipped), nan, e);
    }
    for (std::size_t c = 0; c < 3; ++c) {
      const V p = hn::LoadU(d, in.position[c] + i);
      const V l = hn::Sub(p, e);
      const V h = hn::Add(p, e);
      mn[c] = hn::Min(l, mn[c]);
      mx[c] = hn::Max(h, mx[c]);
    }
  }
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
