// SPDX-License-Identifier: MIT
// The spawn-time kernel (src/runtime/spawn_times.h): hand-computed lanes for a run of four, and on
// every SIMD target, for every count around the vector widths and every kind of run, the same bits
// as the header's formulas evaluated here one newborn at a time, however the run is split.
#include "spawn_times.h"

#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <random>
#include <vector>

namespace mote {
namespace {

using runtime_detail::SpawnTimes;
using runtime_detail::SpawnWindow;

struct Lanes {
  std::vector<float> fraction, age, rest;
  std::array<std::vector<float>, 3> at;
  explicit Lanes(std::size_t n) : fraction(n, -1.0f), age(n, -1.0f), rest(n, -1.0f) {
    for (auto& c : at)
      c.assign(n, -1.0f);
  }
  // `in` writing newborns [first, first + count) into elements [first, first + count).
  SpawnTimes target(SpawnTimes in, std::uint32_t first, std::uint32_t count, bool position) {
    in.first = first;
    in.count = count;
    in.fraction = fraction.data() + first;
    in.age = age.data() + first;
    in.rest = rest.data() + first;
    in.at = {};
    if (position) in.at = {at[0].data() + first, at[1].data() + first, at[2].data() + first};
    return in;
  }
};

TEST(SpawnTimes, FourNewbornsAlongAWindowOfOneSecond) {
  SpawnTimes in;
  in.window.birth.from = 2.0;  // the window [2, 3): births at 2 + (k + 1 - 0.5) / 4
  in.window.birth.scale = 1.0;
  in.window.birth.before = 0.5;
  in.window.birth.amount = 4.0;
  in.window.birth.constant = false;
  in.window.windowStart = 2.0;
  in.window.span = 1.0;
  in.window.t0 = 2.0;
  in.window.dt = 1.0;
  in.start = {1.0, 0.0, -4.0};
  in.path = {2.0, 8.0, 0.0};
  Lanes out(4);
  runtime_detail::writeSpawnTimes(out.target(in, 0, 4, true));
  EXPECT_EQ(out.age, (std::vector<float>{2.125f, 2.375f, 2.625f, 2.875f}));
  EXPECT_EQ(out.fraction, (std::vector<float>{0.125f, 0.375f, 0.625f, 0.875f}));
  EXPECT_EQ(out.rest, (std::vector<float>{0.875f, 0.625f, 0.375f, 0.125f}));
  EXPECT_EQ(out.at[0], (std::vector<float>{1.25f, 1.75f, 2.25f, 2.75f}));
  EXPECT_EQ(out.at[1], (std::vector<float>{1.0f, 3.0f, 5.0f, 7.0f}));
  EXPECT_EQ(out.at[2], (std::vector<float>{-4.0f, -4.0f, -4.0f, -4.0f}));
}

// The header's formulas, one newborn at a time.
struct Want {
  float fraction, age, rest;
  std::array<float, 3> at;
};
Want expected(const SpawnTimes& in, std::uint32_t k) {
  const SpawnWindow& w = in.window;
  const runtime_detail::BirthTimes& b = w.birth;
  const double stop = w.t0 + w.dt;
  const bool windowIsStep = w.windowStart == w.t0 && w.span == w.dt;
  double birth = b.constant
                     ? b.from
                     : b.from + b.scale * ((static_cast<double>(k) + 1.0 - b.before) / b.amount);
  birth = std::clamp(birth, w.windowStart, stop);
  const double fraction = w.span > 0.0 ? (birth - w.windowStart) / w.span : 1.0;
  double f = 1.0;
  if (w.dt > 0.0) f = std::clamp(windowIsStep ? fraction : (birth - w.t0) / w.dt, 0.0, 1.0);
  Want want{static_cast<float>(fraction),
            static_cast<float>(birth),
            static_cast<float>(stop - birth),
            {}};
  for (std::size_t c = 0; c < 3; ++c)
    want.at[c] = static_cast<float>(in.start[c] + in.path[c] * f);
  return want;
}

TEST(SpawnTimes, EveryNewbornGetsTheFormulasBitsOnEverySimdTargetHoweverTheRunIsSplit) {
  constexpr std::uint32_t kMost = 41;
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::size_t cases = 0;
  for (const std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
    SCOPED_TRACE(hwy::TargetName(target));
    hwy::SetSupportedTargetsForTest(target);
    for (int kind = 0; kind < 16; ++kind) {
      SpawnTimes in;
      in.window.birth.constant = (kind & 1) != 0;
      const bool stepWindow = (kind & 2) != 0;  // no catch-up
      in.window.t0 = 10.0 + unit(rng);
      in.window.dt = (kind & 4) != 0 ? 1.0 / 60.0 : 0.0;
      const double catchup = stepWindow ? 0.0 : 0.3 * unit(rng);
      in.window.windowStart = in.window.t0 - catchup;
      in.window.span = (kind & 8) != 0 ? in.window.dt + catchup : 0.0;
      in.window.birth.amount = 3.0 + 50.0 * unit(rng);
      in.window.birth.before = unit(rng);
      in.window.birth.from =
          in.window.windowStart - 0.01 * unit(rng);   // the first births clamp to the window
      in.window.birth.scale = in.window.span * 1.05;  // and the last ones to its end
      for (std::size_t c = 0; c < 3; ++c) {
        in.start[c] = 100.0 * unit(rng) - 50.0;
        in.path[c] = unit(rng) - 0.5;
      }
      for (std::uint32_t count = 0; count <= kMost; ++count) {
        const std::uint32_t first = count % 5;  // the run's place: k counts from here
        for (const bool position : {false, true}) {
          Lanes whole(first + count);
          runtime_detail::writeSpawnTimes(whole.target(in, first, count, position));
          Lanes split(first + count);  // in two calls, the second from a lane-odd place
          const std::uint32_t cut = std::min(count, 3u);
          runtime_detail::writeSpawnTimes(split.target(in, first, cut, position));
          runtime_detail::writeSpawnTimes(split.target(in, first + cut, count - cut, position));
          for (std::uint32_t k = first; k < first + count; ++k) {
            const Want w = expected(in, k);
            ASSERT_EQ(whole.fraction[k], w.fraction) << "kind " << kind << " newborn " << k;
            ASSERT_EQ(whole.age[k], w.age) << "kind " << kind << " newborn " << k;
            ASSERT_EQ(whole.rest[k], w.rest) << "kind " << kind << " newborn " << k;
            for (std::size_t c = 0; c < 3; ++c)
              ASSERT_EQ(whole.at[c][k], position ? w.at[c] : -1.0f) << "newborn " << k;
          }
          EXPECT_EQ(whole.fraction, split.fraction);
          EXPECT_EQ(whole.age, split.age);
          EXPECT_EQ(whole.rest, split.rest);
          EXPECT_EQ(whole.at, split.at);
          ++cases;
        }
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);
  EXPECT_GE(cases, 16u * 42u * 2u);
}

}  // namespace
}  // namespace mote
