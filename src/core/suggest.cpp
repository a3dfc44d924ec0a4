// SPDX-License-Identifier: MIT
#include <mote/core/suggest.h>

#include <algorithm>
#include <vector>

namespace mote {

std::size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j < row.size(); ++j)
    row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      const std::size_t substitute = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      row[j] = std::min({above + 1, row[j - 1] + 1, substitute});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string_view closestMatch(std::string_view name, std::span<const std::string_view> candidates,
                              std::size_t maxDistance) {
  std::string_view best;
  std::size_t bestDistance = maxDistance + 1;
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
