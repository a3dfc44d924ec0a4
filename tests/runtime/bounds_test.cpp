// SPDX-License-Identifier: MIT
// The bounds kernel (src/runtime/bounds.h) against the plain loop over the same extents: exact
// min and max on every SIMD target, for every count around the vector widths, with NaN particles
// skipped, with and without skip flags (killed particles), and an emitter with and without size
// and velocity streams.
#include "bounds.h"

#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace mote {
namespace {

using runtime_detail::BoundsInput;

struct Streams {
  std::array<std::vector<float>, 8> words;  // position 0..2, size 3..4, velocity 5..7
  BoundsInput input(std::uint32_t count, bool size, bool velocity) const {
    BoundsInput in;
    in.position = {words[0].data(), words[1].data(), words[2].data()};
    if (size) in.size = {words[3].data(), words[4].data()};
    if (velocity) {
      in.velocity = {words[5].data(), words[6].data(), words[7].data()};
      in.stretchFactor = 1.7320508f * 0.3f;
    }
    in.count = count;
    return in;
  }
};

TEST(BoundsKernel, IsTheMinAndMaxOfEveryParticleOnEverySimdTarget) {
  constexpr std::uint32_t kMost = 70;
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> value(-50.0f, 50.0f);
  Streams s;
  for (auto& w : s.words) {
    w.resize(kMost);
    for (float& v : w)
      v = value(rng);
  }
  s.words[1][13] = std::numeric_limits<float>::quiet_NaN();  // skipped on y only
  s.words[3][40] = std::numeric_limits<float>::quiet_NaN();
  s.words[0][5] = -1000.0f;  // the extremes in a middle lane
  s.words[2][66] = 1000.0f;
  std::vector<std::uint8_t> killed(kMost, 0);
  for (std::uint32_t i = 0; i < kMost; i += 3)
    killed[i] = 1;
  killed[66] = 0xff;  // any nonzero byte skips; the extreme in z goes
  std::size_t cases = 0;
  for (const std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
    SCOPED_TRACE(hwy::TargetName(target));
    hwy::SetSupportedTargetsForTest(target);
    for (std::uint32_t count = 0; count <= kMost; ++count) {
      for (const bool size : {false, true}) {
        for (const bool velocity : {false, true}) {
          for (const std::uint8_t* skip :
               std::array<const std::uint8_t*, 2>{nullptr, killed.data()}) {
            BoundsInput in = s.input(count, size, velocity);
            in.skip = skip;
            std::array<float, 3> lo{};
            std::array<float, 3> hi{};
            runtime_detail::boundsOf(in, lo, hi);
            constexpr float kInf = std::numeric_limits<float>::infinity();
            std::array<float, 3> wantLo{kInf, kInf, kInf};
            std::array<float, 3> wantHi{-kInf, -kInf, -kInf};
            for (std::uint32_t i = 0; i < count; ++i) {
              if (skip != nullptr && skip[i] != 0) continue;
              const float e = runtime_detail::boundsExtent(in, i);
              for (std::size_t c = 0; c < 3; ++c) {
                const float p = s.words[c][i];
                if (p - e < wantLo[c]) wantLo[c] = p - e;
                if (p + e > wantHi[c]) wantHi[c] = p + e;
              }
            }
            for (std::size_t c = 0; c < 3; ++c) {
              EXPECT_EQ(lo[c], wantLo[c]) << "count " << count << " axis " << c;
              EXPECT_EQ(hi[c], wantHi[c]) << "count " << count << " axis " << c;
            }
            ++cases;
          }
        }
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);
  EXPECT_GE(cases, 71u * 8u);
}

}  // namespace
}  // namespace mote
