// SPDX-License-Identifier: MIT
// The deterministic simulation scalars: Q16.16 fixed point (Fpx16_16) and pinned fp32 (Fp32), one
// interface.
#pragma once

#include <mote/core/assert.h>

#include <cmath>
#include <concepts>
#include <cstdint>
#include <limits>

namespace mote {

namespace detail {

/// Rounds value / 2^shift to the nearest integer, ties to even. Exact integer arithmetic, and
/// branch-free: adding half − 1 plus the quotient's low bit carries into the quotient exactly when
/// the remainder is above half, or equal to half with an odd quotient. (A branch on the remainder
/// mispredicts half the time on real positions; this made the declare pass markedly cheaper.)
/// |value| must be below 2^62.
constexpr std::int64_t roundShiftTiesEven(std::int64_t value, int shift) noexcept {
  const std::int64_t half = std::int64_t{1} << (shift - 1);
  return (value + (half - 1) + ((value >> shift) & 1)) >> shift;  // >> is floor division (C++20)
}

/// Rounds a float with |v| <= 2^23 (not NaN) to the nearest integer, ties to even, in float:
/// adding and subtracting 2^23 leaves the nearest integer in the default rounding mode
/// (ARCHITECTURE §8 pins it). Fp32::toInt32 without its NaN and saturation checks, for callers
/// that clamped already. Branch-free.
constexpr std::int32_t roundSmallTiesEven(float v) noexcept {
  const float magnitude = v < 0.0f ? -v : v;
  const auto rounded = static_cast<std::int32_t>((magnitude + 0x1p23f) - 0x1p23f);
  return v < 0.0f ? -rounded : rounded;
}

/// Rounds num / den (den > 0) to the nearest integer, ties to even. Exact integer arithmetic.
constexpr std::int64_t divRoundTiesEven(std::int64_t num, std::int64_t den) noexcept {
  const bool negative = num < 0;
  const std::uint64_t n = negative ? std::uint64_t{0} - static_cast<std::uint64_t>(num)
                                   : static_cast<std::uint64_t>(num);
  const auto d = static_cast<std::uint64_t>(den);
  std::uint64_t q = n / d;
  const std::uint64_t r = n % d;
  if (2 * r > d || (2 * r == d && (q & 1) != 0)) ++q;
  return negative ? -static_cast<std::int64_t>(q) : static_cast<std::int64_t>(q);
}

constexpr std::int32_t saturateToInt32(std::int64_t v) noexcept {
  if (v > std::numeric_limits<std::int32_t>::max()) return std::numeric_limits<std::int32_t>::max();
  if (v < std::numeric_limits<std::int32_t>::min()) return std::numeric_limits<std::int32_t>::min();
  return static_cast<std::int32_t>(v);
}

/// Round to nearest, ties to even, of a finite double, computed exactly without the FPU rounding
/// mode (so the result does not depend on fesetround) and without a libm call (baseline x86-64 has
/// no roundsd: std::floor is a function call, which tripled the cost of Fp32::toInt32 in the
/// declare pass). |d| must be below 2^62.
inline std::int64_t roundDoubleTiesEven(double d) noexcept {
  auto q = static_cast<std::int64_t>(d);                       // truncates toward zero
  q -= static_cast<std::int64_t>(static_cast<double>(q) > d);  // now floor(d)
  const double frac = d - static_cast<double>(q);              // exact, in [0, 1)
  // Non-short-circuit operators keep this branch-free (the fraction is random in real data).
  const bool up = (frac > 0.5) | ((frac == 0.5) & ((q & 1) != 0));
  return q + static_cast<std::int64_t>(up);
}

}  // namespace detail

/// Q16.16 signed fixed point: value = raw / 65536, raw an int32; range [-32768, 32768 - 2^-16],
/// resolution 2^-16. Bit-identical on every platform and compiler: all arithmetic is integer.
///
/// Rounding and overflow (every operation; none is undefined behaviour):
/// - add, sub, neg: exact; results outside the range saturate to the nearest end.
/// - mul: the exact 64-bit product rounded to the nearest raw, ties to even, then saturated.
/// - div: the exact quotient rounded to the nearest raw, ties to even, then saturated; x / 0 is the
///   range end with x's sign (0 / 0 is 0).
/// - fromInt saturates; fromFloat rounds ties to even and saturates (NaN → 0); toInt32 rounds to
///   nearest, ties to even; toFloat is exact for |value| < 256 and otherwise one rounding (ties to
///   even, the int → float conversion).
/// Thread safety: a plain value. Allocates: never.
class Fpx16_16 {
 public:
  using Raw = std::int32_t;
  static constexpr int kFractionBits = 16;
  static constexpr Raw kOneRaw = Raw{1} << kFractionBits;

  constexpr Fpx16_16() noexcept = default;

  static constexpr Fpx16_16 fromRaw(Raw raw) noexcept { return Fpx16_16(raw); }
  static constexpr Fpx16_16 fromInt(std::int32_t value) noexcept {
    return Fpx16_16(detail::saturateToInt32(std::int64_t{value} * kOneRaw));
  }
  static Fpx16_16 fromFloat(float value) noexcept {
    if (std::isnan(value)) return Fpx16_16(0);
    const double scaled = static_cast<double>(value) * kOneRaw;  // exact
    if (scaled >= 2147483647.0) return max();
    if (scaled <= -2147483648.0) return min();
    return Fpx16_16(static_cast<Raw>(detail::roundDoubleTiesEven(scaled)));
  }
  static constexpr Fpx16_16 max() noexcept { return Fpx16_16(std::numeric_limits<Raw>::max()); }
  static constexpr Fpx16_16 min() noexcept { return Fpx16_16(std::numeric_limits<Raw>::min()); }

  constexpr Raw raw() const noexcept { return raw_; }
  constexpr std::int32_t toInt32() const noexcept {
    return static_cast<std::int32_t>(detail::roundShiftTiesEven(raw_, kFractionBits));
  }
  float toFloat() const noexcept {
    return static_cast<float>(raw_) * (1.0f / static_cast<float>(kOneRaw));
  }
  /// Always true: every raw value is a number.
  constexpr bool isFinite() const noexcept { return true; }

  /// a + (b − a) · u / 2^24 for a 24-bit tap u in [0, 2^24) (Prng::nextTap24): the exact 64-bit
  /// product rounded once to the nearest raw, ties to even. The result lies between a and b.
  static constexpr Fpx16_16 lerpTap24(Fpx16_16 a, Fpx16_16 b, std::uint32_t u) noexcept {
    MOTE_ASSERT(u < (1u << 24), "lerpTap24 takes a 24-bit tap");
    const std::int64_t span = std::int64_t{b.raw_} - a.raw_;  // |span| < 2^32
    const std::int64_t offset =
        detail::roundShiftTiesEven(span * static_cast<std::int64_t>(u & 0xFFFFFFu), 24);
    return Fpx16_16(static_cast<Raw>(a.raw_ + offset));
  }

  // add/sub use the overflow builtins (GCC and clang): on the hot path (pos += vel) this is one add
  // and a rarely taken branch instead of a 64-bit add and two clamps.
  friend constexpr Fpx16_16 operator+(Fpx16_16 a, Fpx16_16 b) noexcept {
    Raw sum = 0;
    if (__builtin_add_overflow(a.raw_, b.raw_, &sum)) [[unlikely]] {
      return a.raw_ < 0 ? min() : max();
    }
    return Fpx16_16(sum);
  }
  friend constexpr Fpx16_16 operator-(Fpx16_16 a, Fpx16_16 b) noexcept {
    Raw difference = 0;
    if (__builtin_sub_overflow(a.raw_, b.raw_, &difference)) [[unlikely]] {
      return a.raw_ < 0 ? min() : max();
    }
    return Fpx16_16(difference);
  }
  friend constexpr Fpx16_16 operator-(Fpx16_16 a) noexcept {
    return Fpx16_16(detail::saturateToInt32(-std::int64_t{a.raw_}));
  }
  friend constexpr Fpx16_16 operator*(Fpx16_16 a, Fpx16_16 b) noexcept {
    return Fpx16_16(detail::saturateToInt32(
        detail::roundShiftTiesEven(std::int64_t{a.raw_} * b.raw_, kFractionBits)));
  }
  friend constexpr Fpx16_16 operator/(Fpx16_16 a, Fpx16_16 b) noexcept {
    if (b.raw_ == 0) return a.raw_ > 0 ? max() : (a.raw_ < 0 ? min() : Fpx16_16(0));
    std::int64_t num = std::int64_t{a.raw_} * kOneRaw;
    std::int64_t den = b.raw_;
    if (den < 0) {
      num = -num;
      den = -den;
    }
    return Fpx16_16(detail::saturateToInt32(detail::divRoundTiesEven(num, den)));
  }
  constexpr Fpx16_16& operator+=(Fpx16_16 b) noexcept { return *this = *this + b; }
  constexpr Fpx16_16& operator-=(Fpx16_16 b) noexcept { return *this = *this - b; }
  constexpr Fpx16_16& operator*=(Fpx16_16 b) noexcept { return *this = *this * b; }
  constexpr Fpx16_16& operator/=(Fpx16_16 b) noexcept { return *this = *this / b; }

  friend constexpr bool operator==(Fpx16_16, Fpx16_16) noexcept = default;
  friend constexpr auto operator<=>(Fpx16_16, Fpx16_16) noexcept = default;

 private:
  constexpr explicit Fpx16_16(Raw raw) noexcept : raw_(raw) {}
  Raw raw_ = 0;
};

/// IEEE-754 binary32 behind the same interface as Fpx16_16 ("fp32 pinned"). Each operation is one
/// IEEE operation rounded to nearest, ties to even (the default mode, which Mote never changes);
/// Mote compiles with -ffp-contract=off so no multiply-add is fused. Bit-identical across runs of
/// the same build; not promised across compilers or ISAs (use Fpx16_16 for that).
/// - fromInt: one rounding (exact for |value| <= 2^24); fromFloat / toFloat: identity;
/// - toInt32: round to nearest, ties to even, saturated to the int32 range; NaN → 0.
/// Thread safety: a plain value. Allocates: never.
class Fp32 {
 public:
  using Raw = float;

  constexpr Fp32() noexcept = default;

  static constexpr Fp32 fromRaw(Raw raw) noexcept { return Fp32(raw); }
  static constexpr Fp32 fromInt(std::int32_t value) noexcept {
    return Fp32(static_cast<float>(value));
  }
  static constexpr Fp32 fromFloat(float value) noexcept { return Fp32(value); }
  static constexpr Fp32 max() noexcept { return Fp32(std::numeric_limits<float>::max()); }
  static constexpr Fp32 min() noexcept { return Fp32(std::numeric_limits<float>::lowest()); }

  constexpr Raw raw() const noexcept { return value_; }
  std::int32_t toInt32() const noexcept {
    if (std::isnan(value_)) return 0;
    if (value_ >= 2147483647.0f) return std::numeric_limits<std::int32_t>::max();
    if (value_ <= -2147483648.0f) return std::numeric_limits<std::int32_t>::min();
    // Round to nearest, ties to even, in float: no libm call (std::nearbyint is one on baseline
    // x86-64) and no branch on the (random) fraction.
    if (std::fabs(value_) < 0x1p23f) return detail::roundSmallTiesEven(value_);
    return static_cast<std::int32_t>(value_);  // from 2^23 up every float is an integer
  }
  constexpr float toFloat() const noexcept { return value_; }
  bool isFinite() const noexcept { return std::isfinite(value_); }

  /// a + (b − a) · u / 2^24 for a 24-bit tap u in [0, 2^24), evaluated in double and rounded once
  /// to float. The double steps are exact whenever b − a and the product fit 53 bits (always for
  /// the dyadic values of the cross-backend exactness zone); the final conversion is the one
  /// rounding (to nearest, ties to even).
  static Fp32 lerpTap24(Fp32 a, Fp32 b, std::uint32_t u) noexcept {
    MOTE_ASSERT(u < (1u << 24), "lerpTap24 takes a 24-bit tap");
    const double t = static_cast<double>(u & 0xFFFFFFu) * 0x1p-24;
    const double da = static_cast<double>(a.value_);
    return Fp32(static_cast<float>(da + (static_cast<double>(b.value_) - da) * t));
  }

  friend constexpr Fp32 operator+(Fp32 a, Fp32 b) noexcept { return Fp32(a.value_ + b.value_); }
  friend constexpr Fp32 operator-(Fp32 a, Fp32 b) noexcept { return Fp32(a.value_ - b.value_); }
  friend constexpr Fp32 operator-(Fp32 a) noexcept { return Fp32(-a.value_); }
  friend constexpr Fp32 operator*(Fp32 a, Fp32 b) noexcept { return Fp32(a.value_ * b.value_); }
  friend constexpr Fp32 operator/(Fp32 a, Fp32 b) noexcept { return Fp32(a.value_ / b.value_); }
  constexpr Fp32& operator+=(Fp32 b) noexcept { return *this = *this + b; }
  constexpr Fp32& operator-=(Fp32 b) noexcept { return *this = *this - b; }
  constexpr Fp32& operator*=(Fp32 b) noexcept { return *this = *this * b; }
  constexpr Fp32& operator/=(Fp32 b) noexcept { return *this = *this / b; }

  friend constexpr bool operator==(Fp32 a, Fp32 b) noexcept { return a.value_ == b.value_; }
  friend constexpr auto operator<=>(Fp32 a, Fp32 b) noexcept { return a.value_ <=> b.value_; }

 private:
  constexpr explicit Fp32(Raw raw) noexcept : value_(raw) {}
  Raw value_ = 0.0f;
};

/// The interface every simulation backend provides (laige's SimMath backends). Generic code —
/// lockstep::ParticleSystem<Backend> — is written against this and nothing else.
template <typename S>
concept SimScalar = std::regular<S> && std::totally_ordered<S> &&
    requires(S a, S b, std::int32_t i, float f, std::uint32_t u) {
  typename S::Raw;
  { a.isFinite() } -> std::same_as<bool>;
  { S::lerpTap24(a, b, u) } -> std::same_as<S>;
  { S::fromRaw(a.raw()) } -> std::same_as<S>;
  { S::fromInt(i) } -> std::same_as<S>;
  { S::fromFloat(f) } -> std::same_as<S>;
  { a.toInt32() } -> std::same_as<std::int32_t>;
  { a.toFloat() } -> std::same_as<float>;
  { a + b } -> std::same_as<S>;
  { a - b } -> std::same_as<S>;
  { -a } -> std::same_as<S>;
  { a* b } -> std::same_as<S>;
  { a / b } -> std::same_as<S>;
};

static_assert(SimScalar<Fpx16_16>);
static_assert(SimScalar<Fp32>);
static_assert(sizeof(Fpx16_16) == 4 && sizeof(Fp32) == 4);

/// A 2-vector over a backend: componentwise +, −, and scaling, each one backend operation per
/// component (so it inherits the backend's rounding and determinism).
template <SimScalar S>
struct Vec2 {
  S x{};
  S y{};

  friend constexpr Vec2 operator+(Vec2 a, Vec2 b) noexcept { return {a.x + b.x, a.y + b.y}; }
  friend constexpr Vec2 operator-(Vec2 a, Vec2 b) noexcept { return {a.x - b.x, a.y - b.y}; }
  friend constexpr Vec2 operator-(Vec2 a) noexcept { return {-a.x, -a.y}; }
  friend constexpr Vec2 operator*(Vec2 a, S s) noexcept { return {a.x * s, a.y * s}; }
  friend constexpr Vec2 operator*(S s, Vec2 a) noexcept { return {s * a.x, s * a.y}; }
  constexpr Vec2& operator+=(Vec2 b) noexcept { return *this = *this + b; }
  constexpr Vec2& operator-=(Vec2 b) noexcept { return *this = *this - b; }
  friend constexpr bool operator==(Vec2, Vec2) noexcept = default;
};

/// A 3-vector over a backend; see Vec2.
template <SimScalar S>
struct Vec3 {
  S x{};
  S y{};
  S z{};

  friend constexpr Vec3 operator+(Vec3 a, Vec3 b) noexcept {
    return {a.x + b.x, a.y + b.y, a.z + b.z};
  }
  friend constexpr Vec3 operator-(Vec3 a, Vec3 b) noexcept {
    return {a.x - b.x, a.y - b.y, a.z - b.z};
  }
  friend constexpr Vec3 operator-(Vec3 a) noexcept { return {-a.x, -a.y, -a.z}; }
  friend constexpr Vec3 operator*(Vec3 a, S s) noexcept { return {a.x * s, a.y * s, a.z * s}; }
  friend constexpr Vec3 operator*(S s, Vec3 a) noexcept { return {s * a.x, s * a.y, s * a.z}; }
  constexpr Vec3& operator+=(Vec3 b) noexcept { return *this = *this + b; }
  constexpr Vec3& operator-=(Vec3 b) noexcept { return *this = *this - b; }
  friend constexpr bool operator==(Vec3, Vec3) noexcept = default;
};

/// Dot product: products then sums left to right, each one backend operation.
template <SimScalar S>
constexpr S dot(Vec2<S> a, Vec2<S> b) noexcept {
  return a.x * b.x + a.y * b.y;
}
template <SimScalar S>
constexpr S dot(Vec3<S> a, Vec3<S> b) noexcept {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}

}  // namespace mote
