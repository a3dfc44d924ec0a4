// SPDX-License-Identifier: MIT
// "Did you mean" suggestions for names a user mistyped (fields, enum values, sprite names).
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

namespace mote {

/// Edit distance counting insertions, deletions, substitutions and swaps of adjacent characters
/// ("fier" → "fire" is 1), each edited substring at most once (optimal string alignment);
/// case-sensitive. O(|a|·|b|) time. Allocates: three rows of |b| + 1 counters.
[[nodiscard]] std::size_t editDistance(std::string_view a, std::string_view b);

/// The candidate nearest to `name` by edit distance when that distance is at most
/// min(maxDistance, max(1, (|name| + 1) / 2)) — short names get a tighter limit — (ties: the
/// earliest candidate), else an empty view. An exact match returns itself. O(Σ |name|·|candidate|).
/// Allocates: one row per candidate.
[[nodiscard]] std::string_view closestMatch(std::string_view name,
                                            std::span<const std::string_view> candidates,
                                            std::size_t maxDistance = 3);

}  // namespace mote
