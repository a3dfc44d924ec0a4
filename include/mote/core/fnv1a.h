// SPDX-License-Identifier: MIT
// FNV-1a 64-bit: the state hash of ARCHITECTURE §4.3 (laige's KAT convention).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace mote {

/// Incremental FNV-1a 64 (Fowler, Noll, Vo; offset basis 0xcbf29ce484222325, prime 0x100000001b3).
/// Multi-byte integers are fed little-endian whatever the host, so a state hash is the same on
/// every platform for the same values. Not a cryptographic hash.
/// Complexity: O(bytes). Allocates: never. Thread safety: a plain value.
class Fnv1a64 {
 public:
  static constexpr std::uint64_t kOffsetBasis = 0xcbf29ce484222325ULL;
  static constexpr std::uint64_t kPrime = 0x100000001b3ULL;

  constexpr Fnv1a64& update(std::span<const std::byte> bytes) noexcept {
    for (std::byte b : bytes)
      mixByte(static_cast<std::uint8_t>(b));
    return *this;
  }
  constexpr Fnv1a64& update(std::string_view text) noexcept {
    for (char c : text)
      mixByte(static_cast<std::uint8_t>(c));
    return *this;
  }
  constexpr Fnv1a64& updateU8(std::uint8_t v) noexcept {
    mixByte(v);
    return *this;
  }
  constexpr Fnv1a64& updateU32(std::uint32_t v) noexcept {
    for (int i = 0; i < 4; ++i)
      mixByte(static_cast<std::uint8_t>(v >> (8 * i)));
    return *this;
  }
  constexpr Fnv1a64& updateU64(std::uint64_t v) noexcept {
    for (int i = 0; i < 8; ++i)
      mixByte(static_cast<std::uint8_t>(v >> (8 * i)));
    return *this;
  }

  constexpr std::uint64_t value() const noexcept { return hash_; }

 private:
  constexpr void mixByte(std::uint8_t b) noexcept {
    hash_ ^= b;
    hash_ *= kPrime;
  }
  std::uint64_t hash_ = kOffsetBasis;
};

/// FNV-1a 64 of a byte string in one call.
constexpr std::uint64_t fnv1a64(std::string_view text) noexcept {
  return Fnv1a64{}.update(text).value();
}
inline std::uint64_t fnv1a64(std::span<const std::byte> bytes) noexcept {
  return Fnv1a64{}.update(bytes).value();
}

}  // namespace mote
