// SPDX-License-Identifier: MIT
// The renderer's draw order: quads drawn in ascending key, equal keys in the order they were
// appended (a stable LSD radix sort on the bits where the keys differ). Private to src/render.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace mote {
class JobSystem;
}

namespace mote::render {

/// A draw-order key and the quad it orders.
struct DrawKey {
  std::uint32_t key;
  std::uint32_t index;
};

/// The smallest and largest key of a set of keys (empty: lo > hi).
struct KeyRange {
  std::uint32_t lo = ~0u;
  std::uint32_t hi = 0;
  void add(std::uint32_t key) noexcept {
    lo = key < lo ? key : lo;
    hi = key > hi ? key : hi;
  }
};

/// Sorts keys[0, n) by key, stably (the order std::stable_sort by key gives), when every key lies
/// in `range`. Sorts key − range.lo on the fewest digits that hold range.hi − range.lo: 10k depth
/// keys of one scene (23 bits) take two 12-bit passes instead of three 11-bit ones. `scratch`
/// holds n keys; its contents after are unspecified. Complexity: O(n + 2^12). Allocates: never.
void sortDrawKeys(DrawKey* keys, DrawKey* scratch, std::size_t n, KeyRange range) noexcept;

/// The counters sortDrawKeys needs for one range of keys on `jobs`.
inline constexpr std::size_t kDrawKeyBuckets = std::size_t{1} << 12;

/// sortDrawKeys for many keys, on `jobs`: from kSplitDrawKeys keys whose range spans more than 12
/// bits (kSplitDrawKeysAlone where `jobs` runs one task at a time), a first pass splits the keys
/// stably by their top 8 bits of key − range.lo into buckets (in up to counts.size() /
/// kDrawKeyBuckets ranges of keys on the threads: each counts its digits, the counts are summed
/// in (digit, range) order, each moves its keys), then each bucket — a few thousand keys that stay
/// in the core's cache — is sorted on its own by sortDrawKeys, the buckets shared among the
/// threads. The same order as sortDrawKeys, bit for bit, on any thread count; smaller or narrower
/// sets, or no counters, take sortDrawKeys itself. A range of keys that crowd into one bucket is
/// sorted by one thread. Thread safety: `jobs` runs the parts, which write disjoint parts of
/// keys, scratch and counts. Complexity: O(n + 2^12 · buckets). Allocates: never.
inline constexpr std::size_t kSplitDrawKeys = std::size_t{1} << 16;
inline constexpr std::size_t kSplitDrawKeysAlone = std::size_t{1} << 20;
void sortDrawKeys(JobSystem& jobs, DrawKey* keys, DrawKey* scratch, std::size_t n, KeyRange range,
                  std::span<std::uint32_t> counts) noexcept;

}  // namespace mote::render
