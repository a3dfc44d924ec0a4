// SPDX-License-Identifier: MIT
// Fuzzer for the host world's grids (runtime/colliders.h): decodeFloatGrid on arbitrary bytes
// must give `count` finite samples or a clean error; a grid it gives becomes a heightfield or a
// distance volume whose casts — from, to and radius also taken from the input, NaN and infinity
// included — end, never crash or read out of bounds (ASan + UBSan), and answer sensibly: a hit
// lies on the cast (0 ≤ distance ≤ its length) with a unit normal and no negative penetration.
#include <mote/runtime/colliders.h>

#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <span>
#include <utility>

namespace {

void check(const mote::bytecode::CollisionProvider& world,
           std::span<const mote::bytecode::CollisionCast> casts) {
  std::array<mote::bytecode::CollisionHit, 4> hits{};
  world.cast(casts, std::span(hits).first(casts.size()));
  for (std::size_t i = 0; i < casts.size(); ++i) {
    const auto& c = casts[i];
    const auto& h = hits[i];
    if (!h.hit) continue;
    const float dx = c.to[0] - c.from[0];
    const float dy = c.to[1] - c.from[1];
    const float dz = c.to[2] - c.from[2];
    const float length = std::sqrt(dx * dx + dy * dy + dz * dz);
    if (!(h.distance >= 0.0f) || h.distance > length * 1.0001f + 1e-6f) std::abort();
    const float n = std::sqrt(h.normal[0] * h.normal[0] + h.normal[1] * h.normal[1] +
                              h.normal[2] * h.normal[2]);
    if (!(std::fabs(n - 1.0f) < 1e-3f)) std::abort();
    if (h.penetration < 0.0f) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // Three bytes of sizes (2..9 samples a side; nz 1: a heightfield of nx × ny), then four casts of
  // seven floats, then the grid.
  constexpr std::size_t kCastBytes = 4 * 7 * 4;
  if (size < 3 + kCastBytes) return 0;
  const std::uint32_t nx = 2u + data[0] % 8u;
  const std::uint32_t ny = 2u + data[1] % 8u;
  const std::uint32_t nz = data[2] % 9u < 1u ? 1u : 2u + data[2] % 8u;
  std::array<mote::bytecode::CollisionCast, 4> casts{};
  for (std::size_t k = 0; k < casts.size(); ++k) {
    std::array<float, 7> f{};
    std::memcpy(f.data(), data + 3 + k * 28, 28);
    casts[k] = {{f[0], f[1], f[2]}, {f[3], f[4], f[5]}, f[6]};
  }
  const std::span<const std::uint8_t> grid(data + 3 + kCastBytes, size - 3 - kCastBytes);
  const std::uint64_t count = std::uint64_t{nx} * ny * nz;
  mote::Result<std::vector<float>> samples = mote::decodeFloatGrid(grid, count, "fuzz.f32");
  if (!samples.ok()) {
    if (samples.status().message().empty()) std::abort();
    return 0;
  }
  if (samples->size() != count) std::abort();
  for (const float s : *samples)
    if (!std::isfinite(s)) std::abort();
  if (nz == 1) {
    mote::HeightfieldDesc d;
    d.columns = nx;
    d.rows = ny;
    d.heights = std::move(samples.value());
    d.min = {-1.0f, 0.0f, -1.0f};
    d.size = {2.0f, 0.5f, 2.0f};
    mote::Result<mote::HeightfieldCollider> h = mote::HeightfieldCollider::create(std::move(d));
    if (!h.ok()) std::abort();
    check(*h, casts);
  } else {
    mote::SdfDesc d;
    d.samples = {nx, ny, nz};
    d.distances = std::move(samples.value());
    d.min = {-1.0f, -1.0f, -1.0f};
    d.size = {2.0f, 2.0f, 2.0f};
    mote::Result<mote::SdfCollider> s = mote::SdfCollider::create(std::move(d));
    if (!s.ok()) std::abort();
    check(*s, casts);
  }
  return 0;
}
