// SPDX-License-Identifier: MIT
// Keyed MDL tracks as the lowering reads them: sorted keys, linear evaluation with held ends and
// steps at duplicate times (MDL_EMITTERS.md §7.12), and the start/mid/end factorisation that maps
// NWN's spawn-time × over-life values onto EffectDesc's spawn value × over-life multiplier.
#pragma once

#include <mote/nwn/mdl.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

namespace mote::nwn::detail {

/// A track ready to evaluate: keys sorted by time (stable, so duplicate times keep file order).
struct SortedTrack {
  std::vector<MdlKey> keys;  ///< empty: absent
  bool keyed = false;        ///< more than one distinct value over time
  std::uint32_t line = 0;
  bool wasUnsorted = false;

  [[nodiscard]] bool present() const { return !keys.empty(); }
  /// Linear between keys, the end values held outside them, the later key at a duplicate time.
  /// Complexity: O(keys).
  [[nodiscard]] float eval(float time, std::size_t column) const;
  /// The value just before `time`: the first key at a duplicate time (the step's lower side).
  [[nodiscard]] float evalLeft(float time, std::size_t column) const;
};

/// A moment to sample tracks at: `left` takes the value before a step at that time.
struct Sample {
  float time = 0.0f;
  bool left = false;
};

[[nodiscard]] SortedTrack sortTrack(const MdlTrack* track);

/// The key times of the keyed tracks among `tracks` (null entries skipped), negative times moved
/// to 0, sorted and unique — except that a time where a track steps (two keys at one time) comes
/// twice, its left side first; {0} when none is keyed.
[[nodiscard]] std::vector<Sample> keyTimes(std::initializer_list<const SortedTrack*> tracks);

/// One channel of a start/mid/end property: value(spawn t, life stage i) ≈ factor(t) · shape[i].
struct Staged {
  std::vector<float> factor;     ///< one per sample given
  std::array<float, 3> shape{};  ///< at percentStart, percentMid, percentEnd; max |shape| is 1
  bool exact = true;             ///< false: the values do not factor; least squares was used
};

/// Factors start/mid/end (mid absent: the average of start and end; end absent: start) sampled at
/// `samples` (an absent start reads `fallbackStart`). The factor is piecewise linear between the
/// samples, like the tracks, so keys at the samples reproduce it exactly.
[[nodiscard]] Staged stage(const SortedTrack& start, const SortedTrack& mid, const SortedTrack& end,
                           std::size_t column, float fallbackStart,
                           const std::vector<Sample>& samples);

/// `samples` plus the moments where one of the factor lists (each one per sample) crosses zero
/// between two samples, so clamping the factors at the samples clamps the curve exactly.
[[nodiscard]] std::vector<Sample> withZeroCrossings(
    const std::vector<Sample>& samples, std::initializer_list<const std::vector<float>*> factors);

}  // namespace mote::nwn::detail
