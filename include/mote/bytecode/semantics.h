// SPDX-License-Identifier: MIT
// The per-particle formulas of the opcodes that mix lanes (quaternions, random shapes), shared by
// the reference executor and the runtime VM so both compute them with the same operations in the
// same order. Single-precision IEEE arithmetic, no contraction (the build uses -ffp-contract=off).
#pragma once

#include <mote/core/counter_rng.h>

#include <array>
#include <cmath>
#include <cstdint>

namespace mote::bytecode::semantics {

using Lanes = std::array<float, 4>;

inline constexpr float kPi = 3.14159265358979323846f;

/// Hamilton product a ⊗ b, quaternions as (x, y, z, w).
inline Lanes quatMul(const Lanes& a, const Lanes& b) {
  return {a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
          a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
          a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
          a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]};
}

/// The rotation by `angle` radians about (ax, ay, az); identity for a zero axis.
inline Lanes quatAxisAngle(float ax, float ay, float az, float angle) {
  const float len = std::sqrt(ax * ax + ay * ay + az * az);
  if (len == 0.0f) return {0.0f, 0.0f, 0.0f, 1.0f};
  const float s = std::sin(angle * 0.5f) / len;
  return {ax * s, ay * s, az * s, std::cos(angle * 0.5f)};
}

/// `v` turned by `q` normalised first (a zero quaternion leaves `v` unchanged).
inline Lanes quatRotate(Lanes q, const Lanes& v) {
  const float n = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (n == 0.0f) return {v[0], v[1], v[2], 0.0f};
  for (float& c : q)
    c /= n;
  const Lanes conj{-q[0], -q[1], -q[2], q[3]};
  const Lanes r = quatMul(quatMul(q, {v[0], v[1], v[2], 0.0f}), conj);
  return {r[0], r[1], r[2], 0.0f};
}

/// A uniform direction on the unit sphere from two random words.
inline Lanes unitVector(const std::array<std::uint32_t, 4>& bits) {
  const float z = 1.0f - 2.0f * unitFloatFromU32(bits[0]);
  const float phi = 2.0f * kPi * unitFloatFromU32(bits[1]);
  const float rho = std::sqrt(std::fmax(0.0f, 1.0f - z * z));
  return {rho * std::cos(phi), rho * std::sin(phi), z, 0.0f};
}

/// A uniform point in the unit ball: unitVector's direction at radius cbrt(third word).
inline Lanes ballPoint(const std::array<std::uint32_t, 4>& bits) {
  const float z = 1.0f - 2.0f * unitFloatFromU32(bits[0]);
  const float phi = 2.0f * kPi * unitFloatFromU32(bits[1]);
  const float rho = std::sqrt(std::fmax(0.0f, 1.0f - z * z));
  const float r = std::cbrt(unitFloatFromU32(bits[2]));
  return {r * rho * std::cos(phi), r * rho * std::sin(phi), r * z, 0.0f};
}

/// A uniform point in the unit disk of the XZ plane.
inline Lanes diskPoint(const std::array<std::uint32_t, 4>& bits) {
  const float r = std::sqrt(unitFloatFromU32(bits[0]));
  const float phi = 2.0f * kPi * unitFloatFromU32(bits[1]);
  return {r * std::cos(phi), 0.0f, r * std::sin(phi), 0.0f};
}

/// A uniform direction within `halfAngle` radians of +Y (cos θ uniform over the cap).
inline Lanes coneDirection(const std::array<std::uint32_t, 4>& bits, float halfAngle) {
  const float cosMax = std::cos(halfAngle);
  const float cosT = 1.0f - (1.0f - cosMax) * unitFloatFromU32(bits[0]);
  const float sinT = std::sqrt(std::fmax(0.0f, 1.0f - cosT * cosT));
  const float phi = 2.0f * kPi * unitFloatFromU32(bits[1]);
  return {sinT * std::cos(phi), cosT, sinT * std::sin(phi), 0.0f};
}

}  // namespace mote::bytecode::semantics
