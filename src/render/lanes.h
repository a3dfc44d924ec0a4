// SPDX-License-Identifier: MIT
// The lane vocabulary of the renderers' vector kernels (GCC/clang vector extensions): 4- and 8-lane
// float and uint vectors, loads and stores, x86-exact min/max, transposes and lane masks. Shared
// by the rasterizer's span loop (raster_kernel.h) and mote_render's facing-quad kernel
// (facing_kernel.h). Everything here has internal linkage, so a file built with -mavx2 and one
// built for baseline x86-64 never share a copy at link time. Private to the sprite layer and
// mote_render.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

namespace mote::render {
namespace {

// GCC/clang vector extensions: lane by lane the same IEEE operations as scalar floats (fp
// contraction is off project-wide), so each lane is bit-identical to the scalar formulation.
using F4 = float __attribute__((vector_size(16)));
using F8 = float __attribute__((vector_size(32)));
using U4 = std::uint32_t __attribute__((vector_size(16)));
using U8 = std::uint32_t __attribute__((vector_size(32)));
template <class V>
using MaskOf = decltype(V{} < V{});
template <class V>
constexpr std::uint32_t kLanesOf = sizeof(V) / sizeof(float);
template <class V>
using UintOf = std::conditional_t<kLanesOf<V> == 4, U4, U8>;

// Lanes [i, i + lanes) of p, the lanes at or past n zero.
template <class V, class T>
inline V loadLanes(const T* p, std::uint32_t i, std::uint32_t n) {
  static_assert(sizeof(T) == sizeof(float));
  V r{};
  if (i + kLanesOf<V> <= n) {
    std::memcpy(&r, p + i, sizeof r);
    return r;
  }
  for (std::uint32_t k = 0; i + k < n; ++k)
    r[k] = p[i + k];
  return r;
}

template <class T, class V>
inline void storeLanes(T* p, V v) {
  std::memcpy(p, &v, sizeof v);
}

// Lane-wise a < b ? a : b (min), or a < b ? b : a (max): x86's MINPS (a, b) and MAXPS (b, a)
// exactly, NaNs and zeros included, which the compilers do not always see.
template <bool Max, class V>
inline V pickLanes(V a, V b) {
#if defined(__AVX__)
  if constexpr (kLanesOf<V> == 8)
    return Max ? __builtin_ia32_maxps256(b, a) : __builtin_ia32_minps256(a, b);
#endif
#if defined(__SSE__)
  if constexpr (kLanesOf<V> == 4)
    return Max ? __builtin_ia32_maxps(b, a) : __builtin_ia32_minps(a, b);
#endif
  return Max ? (a < b ? b : a) : (a < b ? a : b);
}

template <class V>
inline V minLanes(V a, V b) {
  return pickLanes<false>(a, b);
}

template <class V>
inline V maxLanes(V a, V b) {
  return pickLanes<true>(a, b);
}

// Rows a, b, c, d (lane k: particle k) to columns: particle k's (a[k], b[k], c[k], d[k]).
inline std::array<F4, 4> transpose(F4 a, F4 b, F4 c, F4 d) {
  const F4 ab0 = __builtin_shufflevector(a, b, 0, 4, 1, 5);
  const F4 ab1 = __builtin_shufflevector(a, b, 2, 6, 3, 7);
  const F4 cd0 = __builtin_shufflevector(c, d, 0, 4, 1, 5);
  const F4 cd1 = __builtin_shufflevector(c, d, 2, 6, 3, 7);
  return {
      __builtin_shufflevector(ab0, cd0, 0, 1, 4, 5), __builtin_shufflevector(ab0, cd0, 2, 3, 6, 7),
      __builtin_shufflevector(ab1, cd1, 0, 1, 4, 5), __builtin_shufflevector(ab1, cd1, 2, 3, 6, 7)};
}

inline std::array<F4, 4> transpose(const std::array<F4, 4>& rows) {
  return transpose(rows[0], rows[1], rows[2], rows[3]);
}

// Lanes 0–3 (or 4–7) of an 8-lane vector; a 4-lane vector is its own low half.
template <bool High, class T>
inline auto halfOf(T v) {
  if constexpr (sizeof(T) == 16) {
    static_assert(!High);
    return v;
  } else {
    if constexpr (High) {
#if defined(__AVX__)
      if constexpr (std::is_same_v<T, F8>) return F4(__builtin_ia32_vextractf128_ps256(v, 1));
#endif
      return __builtin_shufflevector(v, v, 4, 5, 6, 7);
    } else {
      return __builtin_shufflevector(v, v, 0, 1, 2, 3);
    }
  }
}

// Rows r0..r3 (lane k: particle k) to particle vectors, four lanes at a time: p[j] holds
// particle j's (r0, r1, r2, r3) in lanes 0–3 and, on 8 lanes, particle j + 4's in lanes 4–7 (the
// shuffles stay within 128-bit halves).
template <class V>
inline std::array<V, 4> transposeInLanes(const std::array<V, 4>& r) {
  if constexpr (kLanesOf<V> == 4) {
    return transpose(r[0], r[1], r[2], r[3]);
  } else {
    const V ab0 = __builtin_shufflevector(r[0], r[1], 0, 8, 1, 9, 4, 12, 5, 13);
    const V ab1 = __builtin_shufflevector(r[0], r[1], 2, 10, 3, 11, 6, 14, 7, 15);
    const V cd0 = __builtin_shufflevector(r[2], r[3], 0, 8, 1, 9, 4, 12, 5, 13);
    const V cd1 = __builtin_shufflevector(r[2], r[3], 2, 10, 3, 11, 6, 14, 7, 15);
    return {__builtin_shufflevector(ab0, cd0, 0, 1, 8, 9, 4, 5, 12, 13),
            __builtin_shufflevector(ab0, cd0, 2, 3, 10, 11, 6, 7, 14, 15),
            __builtin_shufflevector(ab1, cd1, 0, 1, 8, 9, 4, 5, 12, 13),
            __builtin_shufflevector(ab1, cd1, 2, 3, 10, 11, 6, 7, 14, 15)};
  }
}

// Particle J's four values from transposeInLanes' vectors.
template <std::uint32_t J, class V>
inline F4 particleOf(const std::array<V, 4>& p) {
  return halfOf<(J >= 4)>(p[J % 4]);
}

// f.template operator()<J>() for J = 0 .. N − 1, in order.
template <std::uint32_t N, class F>
inline void forLanes(const F& f) {
  [&]<std::uint32_t... J>(std::integer_sequence<std::uint32_t, J...>) {
    (f.template operator()<J>(), ...);
  }
  (std::make_integer_sequence<std::uint32_t, N>{});
}

// Bit k set where lane k of mask is.
template <class V>
inline std::uint32_t laneBits(MaskOf<V> mask) {
#if defined(__AVX__)
  if constexpr (kLanesOf<V> == 8)
    return static_cast<std::uint32_t>(__builtin_ia32_movmskps256(std::bit_cast<F8>(mask)));
#endif
#if defined(__SSE__)
  if constexpr (kLanesOf<V> == 4)
    return static_cast<std::uint32_t>(__builtin_ia32_movmskps(std::bit_cast<F4>(mask)));
#endif
  std::uint32_t bits = 0;
  for (std::uint32_t k = 0; k < kLanesOf<V>; ++k)
    bits |= mask[k] != 0 ? 1u << k : 0u;
  return bits;
}

}  // namespace
}  // namespace mote::render
