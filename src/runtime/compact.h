// SPDX-License-Identifier: MIT
// Kill compaction: the survivors of a run of particles moved down over the killed ones in every
// stream, in order, a SIMD vector of particles at a time (a lane permute from a mask table on x86,
// Highway's Compress elsewhere; the best target for the CPU picked at run time). ParticleWorld's
// step 5 (docs/runtime.md, "One tick").
#pragma once

#include <cstdint>
#include <span>

namespace mote::runtime_detail {

/// The widest vector the kernel uses, in particles: every array it touches must have room for
/// reads and writes up to `count` rounded up to a multiple of this.
inline constexpr std::uint32_t kCompactLanes = 16;

/// The streams of one emitter's particles and which of them die.
struct CompactInput {
  std::span<float* const> streams;   ///< one per particle word
  std::uint32_t* ids = nullptr;      ///< particle ids, moved with the words
  std::uint32_t* sources = nullptr;  ///< null, or a trail's source ids, moved with the words
  /// One byte a particle: 0 survives, anything else is killed.
  const std::uint8_t* killed = nullptr;
  std::uint32_t count = 0;  ///< particles in [0, count)
  std::uint32_t first = 0;  ///< no particle before it is killed
};

/// Moves the surviving particles of [first, count) to [first, first + survivors), keeping their
/// order, in every stream, the ids and the sources; returns first + survivors. What lies past the
/// survivors afterwards is unspecified. Each array, `killed` too, needs room up to `count` rounded
/// up to kCompactLanes (the bytes of `killed` past `count` are read and ignored). O((count − first)
/// · streams), no allocation, reentrant.
std::uint32_t compactInOrder(const CompactInput& in) noexcept;

}  // namespace mote::runtime_detail
