// SPDX-License-Identifier: MIT
// `mote render`'s framing (docs/rendering.md, "Framing"): where a clip's particles cover the
// picture, from samples of their positions weighted by area × opacity. Pure functions on plain
// values; thread-safe; allocation only in the caller's vectors.
#pragma once

#include <glm/geometric.hpp>
#include <glm/vec3.hpp>

#include <algorithm>
#include <array>
#include <vector>

namespace mote::cli {

struct Framing {
  glm::vec3 center{0.0f, 1.0f, 0.0f};
  float radius = 2.0f;
};

/// One sampled value (a coordinate, a particle's half-size) and its weight (> 0).
struct Sample {
  float value;
  float weight;
};

/// The value below which the fraction `q` of the weight of `samples` (sorted by value, non-empty)
/// lies. O(n).
inline float weightedPercentile(const std::vector<Sample>& samples, double q) {
  double total = 0.0;
  for (const Sample& s : samples)
    total += static_cast<double>(s.weight);
  double below = 0.0;
  for (const Sample& s : samples) {
    below += static_cast<double>(s.weight);
    if (below >= total * q) return s.value;
  }
  return samples.back().value;
}

/// The framing of position samples (one vector per axis) and the particles' half-sizes: the box
/// between the weighted 3rd and 97th percentile on each axis, padded by the weighted 90th
/// percentile of the half-sizes (a portal ring 4 m across at one point is 4 m wide), at least 0.5
/// m. Framing{} when there are no samples. Sorts the vectors. O(n log n).
inline Framing frameSamples(std::array<std::vector<Sample>, 3>& axes, std::vector<Sample>& radii) {
  Framing f;
  if (axes[0].empty() || radii.empty()) return f;
  const auto byValue = [](const Sample& a, const Sample& b) { return a.value < b.value; };
  glm::vec3 lo;
  glm::vec3 hi;
  for (glm::length_t c = 0; c < 3; ++c) {
    std::vector<Sample>& axis = axes[static_cast<std::size_t>(c)];
    std::sort(axis.begin(), axis.end(), byValue);
    lo[c] = weightedPercentile(axis, 0.03);
    hi[c] = weightedPercentile(axis, 0.97);
  }
  std::sort(radii.begin(), radii.end(), byValue);
  f.center = (lo + hi) * 0.5f;
  f.radius = std::max(0.5f, glm::length(hi - lo) * 0.5f * 1.15f + weightedPercentile(radii, 0.9));
  return f;
}

}  // namespace mote::cli
