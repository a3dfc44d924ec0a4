// SPDX-License-Identifier: MIT
// The distance in ULPs between two floats, for the accuracy tests of semantics.h's functions.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <thread>
#include <vector>

namespace mote::test {

/// How many floats lie from a to b (either sign; +0 and −0 are one apart). Two NaNs are 0 apart, a
/// NaN and a number 2^40.
inline std::int64_t ulps(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b) ? 0 : 1LL << 40;
  const auto ordered = [](float v) {
    const auto u = std::bit_cast<std::int32_t>(v);
    return u < 0 ? std::int64_t{INT32_MIN} - u : std::int64_t{u};
  };
  const std::int64_t d = ordered(a) - ordered(b);
  return d < 0 ? -d : d;
}

/// True when a and b have the same bits.
inline bool sameBits(float a, float b) {
  return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b);
}

/// The worst error over all 2^32 floats and how many are off at all.
struct EveryFloatError {
  std::int64_t worst = 0;
  std::uint64_t differ = 0;
};

/// errorAt(x), an error in ULPs, over every float, on every core (minutes: for the DISABLED_
/// exhaustive tests scripts/check-sincos runs).
template <class ErrorAt>
EveryFloatError everyFloatError(ErrorAt errorAt) {
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<EveryFloatError> part(threads);
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      for (std::uint64_t u = t; u <= 0xFFFFFFFFull; u += threads) {
        const std::int64_t d = errorAt(std::bit_cast<float>(static_cast<std::uint32_t>(u)));
        part[t].differ += d > 0 ? 1 : 0;
        part[t].worst = std::max(part[t].worst, d);
      }
    });
  }
  for (std::thread& t : pool)
    t.join();
  EveryFloatError all;
  for (const EveryFloatError& p : part) {
    all.worst = std::max(all.worst, p.worst);
    all.differ += p.differ;
  }
  return all;
}

}  // namespace mote::test
