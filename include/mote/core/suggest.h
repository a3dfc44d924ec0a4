// SPDX-License-Identifier: MIT
// "Did you mean" suggestions for names a user mistyped (fields, enum values, sprite names).
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

namespace mote {

/// Levenshtein distance (insertions, deletions, substitutions; case-sensitive).
/// O(|a|·|b|) time. Allocates: one row of |b| + 1 counters.
[[nodiscard]] std::size_t editDistance(std::string_view a, std::string_view b);

/// The candidate nearest to `name` by edit distance when that distance is at most `maxDistance`
/// (ties: the earliest candidate), else an empty view. An exact match returns itself.
/// O(Σ |name|·|candidate|). Allocates: one row per candidate.
[[nodiscard]] std::string_view closestMatch(std::string_view name,
                                            std::span<const std::string_view> candidates,
                                            std::size_t maxDistance = 3);

}  // namespace mote
