// SPDX-License-Identifier: MIT
#include <mote/core/suggest.h>

#include <algorithm>
#include <vector>

namespace mote {

std::size_t editDistance(std::string_view a, std::string_view b) {
  // Optimal string alignment: three rows (two back for the transposition).
  const std::size_t n = b.size() + 1;
  std::vector<std::size_t> rows(3 * n);
  std::size_t* previous2 = rows.data();
  std::size_t* previous = rows.data() + n;
  std::size_t* current = rows.data() + 2 * n;
  for (std::size_t j = 0; j < n; ++j)
    previous[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (std::size_t j = 1; j < n; ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        current[j] = std::min(current[j], previous2[j - 2] + 1);
      }
    }
    std::swap(previous2, previous);
    std::swap(previous, current);
  }
  return previous[b.size()];
}

std::string_view closestMatch(std::string_view name, std::span<const std::string_view> candidates,
                              std::size_t maxDistance) {
  // Short names get a tighter limit (at most half the name may change): "ab" is 2 edits from
  // every other two-letter name.
  const std::size_t limit = std::min(maxDistance, std::max<std::size_t>(1, (name.size() + 1) / 2));
  std::string_view best;
  std::size_t bestDistance = limit + 1;
  for (const std::string_view candidate : candidates) {
    if (candidate == name) return candidate;
    const std::size_t distance = editDistance(name, candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

}  // namespace mote
