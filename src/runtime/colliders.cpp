// SPDX-License-Identifier: MIT
// Heightfield, distance-volume and set worlds for COLLIDE (include/mote/runtime/colliders.h): one
// march along the cast over a signed gap (> 0 free, < 0 inside) that each field defines.
#include <mote/runtime/colliders.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <utility>

namespace mote {
namespace {

using bytecode::CollisionCast;
using bytecode::CollisionHit;
using Vec = std::array<float, 3>;

constexpr std::uint32_t kBisections = 16;

std::string hex(std::uint64_t v) {
  std::array<char, 16> text{};
  const auto end = std::to_chars(text.data(), text.data() + text.size(), v, 16).ptr;
  return {text.data(), end};
}

bool finite(const Vec& v) {
  return std::isfinite(v[0]) && std::isfinite(v[1]) && std::isfinite(v[2]);
}

Vec along(const Vec& from, const Vec& d, float t) {
  return {from[0] + d[0] * t, from[1] + d[1] * t, from[2] + d[2] * t};
}

// v / |v|, scaled by its largest component first so that neither a tiny (subnormal squares) nor a
// huge (overflowing squares) gradient loses its direction; `fallback` for a zero or non-finite v.
Vec unit(const Vec& v, const Vec& fallback) {
  if (!finite(v)) return fallback;  // (std::max would pass a NaN lane by)
  const float m = std::max({std::fabs(v[0]), std::fabs(v[1]), std::fabs(v[2])});
  if (!(m > 0.0f)) return fallback;
  const Vec s{v[0] / m, v[1] / m, v[2] / m};
  const float len = std::sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
  return {s[0] / len, s[1] / len, s[2] / len};
}

// The first contact of the cast with `field`'s surface: field.gap(p, r) > 0 where a sphere of
// radius r centred at p is free, < 0 where it is inside; field.normal(p) the surface's unit normal
// near p; field.penetration(p, r, n) how deep a sphere at p lies along n. Steps of at most `step`
// metres (at most kMostCastSteps of them), then bisection; the contact is on the free side.
template <class Field>
CollisionHit march(const Field& field, const CollisionCast& c, float step) {
  CollisionHit out;
  if (!finite(c.from) || !finite(c.to) || !std::isfinite(c.radius)) return out;
  const float r = std::max(c.radius, 0.0f);
  const float g0 = field.gap(c.from, r);
  if (g0 < 0.0f) {
    out.hit = true;
    out.normal = field.normal(c.from);
    out.penetration = field.penetration(c.from, r, out.normal);
    return out;
  }
  const Vec d{c.to[0] - c.from[0], c.to[1] - c.from[1], c.to[2] - c.from[2]};
  const float len = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  if (!(len > 0.0f) || !std::isfinite(len)) return out;
  const float wanted = std::ceil(len / step);
  const std::uint32_t steps = wanted >= static_cast<float>(kMostCastSteps)
                                  ? kMostCastSteps
                                  : std::max(1u, static_cast<std::uint32_t>(wanted));
  float lo = 0.0f;
  for (std::uint32_t s = 1; s <= steps; ++s) {
    const float t = static_cast<float>(s) / static_cast<float>(steps);
    if (!(field.gap(along(c.from, d, t), r) < 0.0f)) {
      lo = t;
      continue;
    }
    float hi = t;
    for (std::uint32_t k = 0; k < kBisections; ++k) {
      const float mid = 0.5f * (lo + hi);
      (field.gap(along(c.from, d, mid), r) < 0.0f ? hi : lo) = mid;
    }
    out.hit = true;
    out.distance = lo * len;
    out.normal = field.normal(along(c.from, d, lo));
    return out;
  }
  return out;
}

Status checkGrid(std::span<const float> values, std::uint64_t expected,
                 std::span<const std::uint32_t> samples, const Vec& min, const Vec& size,
                 std::string_view what, std::string_view valuesName) {
  std::uint64_t count = 1;
  for (const std::uint32_t n : samples) {
    if (n < 2) return invalidArgument(std::string(what) + ": every side needs at least 2 samples");
    count *= n;
    if (count > kMaxColliderSamples) {
      return invalidArgument(std::string(what) + ": more than " +
                             std::to_string(kMaxColliderSamples) + " samples");
    }
  }
  if (values.size() != expected) {
    return invalidArgument(std::string(what) + ": " + std::string(valuesName) + " has " +
                           std::to_string(values.size()) + " values; the grid needs " +
                           std::to_string(expected));
  }
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!std::isfinite(values[i]))
      return invalidArgument(std::string(what) + ": " + std::string(valuesName) + "[" +
                             std::to_string(i) + "] is not finite");
  }
  if (!finite(min)) return invalidArgument(std::string(what) + ": min is not finite");
  for (const float s : size) {
    if (!(s > 0.0f) || !std::isfinite(s))
      return invalidArgument(std::string(what) + ": size must be positive and finite");
  }
  return {};
}

}  // namespace

// -------------------------------------------------------------------------------------------------
// Heightfield

Result<HeightfieldCollider> HeightfieldCollider::create(HeightfieldDesc desc) {
  const std::array<std::uint32_t, 2> samples{desc.columns, desc.rows};
  const std::uint64_t expected = std::uint64_t{desc.columns} * desc.rows;
  MOTE_RETURN_IF_ERROR(
      checkGrid(desc.heights, expected, samples, desc.min, desc.size, "heightfield", "heights"));
  return HeightfieldCollider(std::move(desc));
}

HeightfieldCollider::HeightfieldCollider(HeightfieldDesc desc)
    : d_(std::move(desc)),
      cellX_(d_.size[0] / static_cast<float>(d_.columns - 1)),
      cellZ_(d_.size[2] / static_cast<float>(d_.rows - 1)) {}

namespace {

// The cell under (x, z) and the place in it; false outside the rectangle.
struct Cell {
  std::uint32_t i = 0;
  std::uint32_t j = 0;
  float fx = 0.0f;
  float fz = 0.0f;
};

bool cellOf(float u, float v, std::uint32_t columns, std::uint32_t rows, Cell& cell) {
  const auto lastX = static_cast<float>(columns - 1);
  const auto lastZ = static_cast<float>(rows - 1);
  if (!(u >= 0.0f && u <= lastX && v >= 0.0f && v <= lastZ)) return false;
  cell.i = std::min(static_cast<std::uint32_t>(u), columns - 2);
  cell.j = std::min(static_cast<std::uint32_t>(v), rows - 2);
  cell.fx = u - static_cast<float>(cell.i);
  cell.fz = v - static_cast<float>(cell.j);
  return true;
}

}  // namespace

float HeightfieldCollider::heightAt(float x, float z) const noexcept {
  Cell c;
  if (!cellOf((x - d_.min[0]) / cellX_, (z - d_.min[2]) / cellZ_, d_.columns, d_.rows, c))
    return std::numeric_limits<float>::quiet_NaN();
  const float* row0 = d_.heights.data() + std::size_t{c.j} * d_.columns + c.i;
  const float* row1 = row0 + d_.columns;
  const float near = row0[0] + (row0[1] - row0[0]) * c.fx;
  const float far = row1[0] + (row1[1] - row1[0]) * c.fx;
  return d_.min[1] + (near + (far - near) * c.fz) * d_.size[1];
}

void HeightfieldCollider::cast(std::span<const CollisionCast> casts,
                               std::span<CollisionHit> hits) const {
  struct Field {
    const HeightfieldCollider& h;
    float gap(const Vec& p, float r) const {
      const float ground = h.heightAt(p[0], p[2]);
      return std::isnan(ground) ? 1.0f : p[1] - r - ground;  // no ground: free
    }
    Vec normal(const Vec& p) const {
      Cell c;
      const HeightfieldDesc& d = h.d_;
      if (!cellOf((p[0] - d.min[0]) / h.cellX_, (p[2] - d.min[2]) / h.cellZ_, d.columns, d.rows, c))
        return {0.0f, 1.0f, 0.0f};
      const float* row0 = d.heights.data() + std::size_t{c.j} * d.columns + c.i;
      const float* row1 = row0 + d.columns;
      const float dx =
          ((row0[1] - row0[0]) * (1.0f - c.fz) + (row1[1] - row1[0]) * c.fz) * d.size[1] / h.cellX_;
      const float dz =
          ((row1[0] - row0[0]) * (1.0f - c.fx) + (row1[1] - row0[1]) * c.fx) * d.size[1] / h.cellZ_;
      return unit({-dx, 1.0f, -dz}, {0.0f, 1.0f, 0.0f});
    }
    // The vertical depth below the ground, along the normal.
    float penetration(const Vec& p, float r, const Vec& n) const { return -gap(p, r) * n[1]; }
  };
  const float step = 0.5f * std::min(cellX_, cellZ_);
  for (std::size_t i = 0; i < casts.size() && i < hits.size(); ++i)
    hits[i] = march(Field{*this}, casts[i], step);
}

// -------------------------------------------------------------------------------------------------
// Signed-distance volume

Result<SdfCollider> SdfCollider::create(SdfDesc desc) {
  const std::uint64_t expected =
      std::uint64_t{desc.samples[0]} * desc.samples[1] * std::uint64_t{desc.samples[2]};
  MOTE_RETURN_IF_ERROR(
      checkGrid(desc.distances, expected, desc.samples, desc.min, desc.size, "sdf", "distances"));
  return SdfCollider(std::move(desc));
}

SdfCollider::SdfCollider(SdfDesc desc) : d_(std::move(desc)) {
  for (std::size_t a = 0; a < 3; ++a)
    cell_[a] = d_.size[a] / static_cast<float>(d_.samples[a] - 1);
}

float SdfCollider::distanceAt(const Vec& p) const noexcept {
  // Clamp into the box; outside, add the distance to it.
  std::array<std::uint32_t, 3> base{};
  Vec f{};
  Vec out{};
  for (std::size_t a = 0; a < 3; ++a) {
    const auto last = static_cast<float>(d_.samples[a] - 1);
    const float u = (p[a] - d_.min[a]) / cell_[a];
    const float clamped = u > 0.0f ? (u < last ? u : last) : 0.0f;  // NaN → 0
    out[a] = (u - clamped) * cell_[a];
    base[a] = std::min(static_cast<std::uint32_t>(clamped), d_.samples[a] - 2);
    f[a] = clamped - static_cast<float>(base[a]);
  }
  const std::size_t nx = d_.samples[0];
  const std::size_t nxy = nx * d_.samples[1];
  const float* s = d_.distances.data() + base[2] * nxy + base[1] * nx + base[0];
  const auto lerp = [](float a, float b, float t) { return a + (b - a) * t; };
  const float c00 = lerp(s[0], s[1], f[0]);
  const float c10 = lerp(s[nx], s[nx + 1], f[0]);
  const float c01 = lerp(s[nxy], s[nxy + 1], f[0]);
  const float c11 = lerp(s[nxy + nx], s[nxy + nx + 1], f[0]);
  const float inside = lerp(lerp(c00, c10, f[1]), lerp(c01, c11, f[1]), f[2]);
  const float outside = std::sqrt(out[0] * out[0] + out[1] * out[1] + out[2] * out[2]);
  return std::isnan(p[0] + p[1] + p[2]) ? std::numeric_limits<float>::quiet_NaN()
                                        : inside + outside;
}

void SdfCollider::cast(std::span<const CollisionCast> casts, std::span<CollisionHit> hits) const {
  struct Field {
    const SdfCollider& s;
    float h;  // the gradient's step
    float gap(const Vec& p, float r) const { return s.distanceAt(p) - r; }
    Vec normal(const Vec& p) const {
      Vec g{};
      for (std::size_t a = 0; a < 3; ++a) {
        Vec hi = p;
        Vec lo = p;
        hi[a] += h;
        lo[a] -= h;
        g[a] = s.distanceAt(hi) - s.distanceAt(lo);
      }
      return unit(g, {0.0f, 1.0f, 0.0f});
    }
    float penetration(const Vec& p, float r, const Vec& /*n*/) const { return -gap(p, r); }
  };
  const float minCell = std::min({cell_[0], cell_[1], cell_[2]});
  const Field field{*this, 0.5f * minCell};
  for (std::size_t i = 0; i < casts.size() && i < hits.size(); ++i)
    hits[i] = march(field, casts[i], 0.5f * minCell);
}

// -------------------------------------------------------------------------------------------------
// Sets

Result<CollisionSet> CollisionSet::create(
    std::span<const bytecode::CollisionProvider* const> worlds) {
  if (worlds.size() > kMostWorlds) {
    return invalidArgument("CollisionSet: " + std::to_string(worlds.size()) + " worlds; at most " +
                           std::to_string(kMostWorlds));
  }
  CollisionSet set;
  for (const bytecode::CollisionProvider* w : worlds) {
    if (w == nullptr) return invalidArgument("CollisionSet: a null world");
    set.worlds_[set.count_++] = w;
  }
  return set;
}

void CollisionSet::cast(std::span<const CollisionCast> casts, std::span<CollisionHit> hits) const {
  std::array<CollisionHit, bytecode::kCollisionChunk> theirs;
  for (std::size_t first = 0; first < casts.size(); first += theirs.size()) {
    const std::size_t n = std::min(theirs.size(), casts.size() - first);
    for (std::size_t k = 0; k < n; ++k)
      hits[first + k] = {};
    for (std::size_t w = 0; w < count_; ++w) {
      worlds_[w]->cast(casts.subspan(first, n), {theirs.data(), n});
      for (std::size_t k = 0; k < n; ++k) {
        CollisionHit& best = hits[first + k];
        if (theirs[k].hit && (!best.hit || theirs[k].distance < best.distance)) best = theirs[k];
      }
    }
  }
}

// -------------------------------------------------------------------------------------------------
// Raw grids

Result<std::vector<float>> decodeFloatGrid(std::span<const std::uint8_t> bytes, std::uint64_t count,
                                           std::string_view nameForErrors) {
  if (count > kMaxColliderSamples) {
    return Status(StatusCode::ParseError, std::string(nameForErrors) + ": a grid of " +
                                              std::to_string(count) + " samples; at most " +
                                              std::to_string(kMaxColliderSamples));
  }
  if (bytes.size() != count * 4) {
    return Status(StatusCode::ParseError,
                  std::string(nameForErrors) + ": offset 0x" +
                      hex(std::min<std::uint64_t>(bytes.size(), count * 4)) + ": " +
                      std::to_string(bytes.size()) + " bytes; a grid of " + std::to_string(count) +
                      " float32 samples is " + std::to_string(count * 4));
  }
  std::vector<float> out(count);
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint8_t* b = bytes.data() + 4 * i;
    const std::uint32_t word = std::uint32_t{b[0]} | std::uint32_t{b[1]} << 8 |
                               std::uint32_t{b[2]} << 16 | std::uint32_t{b[3]} << 24;
    out[i] = std::bit_cast<float>(word);
    if (!std::isfinite(out[i])) {
      return Status(StatusCode::ParseError, std::string(nameForErrors) + ": offset 0x" +
                                                hex(4 * i) + ": sample " + std::to_string(i) +
                                                " is not a finite number");
    }
  }
  return out;
}

}  // namespace mote
