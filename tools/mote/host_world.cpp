// SPDX-License-Identifier: MIT
#include "host_world.h"

#include "scene.h"

#include <mote/core/file.h>
#include <mote/render/image.h>

#include <glm/geometric.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

namespace mote::cli {
namespace {

bool endsWith(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// "a,b" or "a,b,c" → positive integers.
bool parseCounts(const std::string& text, std::span<std::uint32_t> out) {
  std::size_t from = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const std::size_t comma = text.find(',', from);
    const bool last = i + 1 == out.size();
    if (last != (comma == std::string::npos)) return false;
    const std::string part = text.substr(from, last ? std::string::npos : comma - from);
    unsigned long value = 0;
    char tail = 0;
    if (part.empty() || part[0] == '-' || std::sscanf(part.c_str(), "%lu%c", &value, &tail) != 1 ||
        value == 0 || value > (1ul << 24))
      return false;
    out[i] = static_cast<std::uint32_t>(value);
    from = comma + 1;
  }
  return true;
}

Status placement(const std::string& flag, const std::string& minText, const std::string& sizeText,
                 std::array<float, 3>& min, std::array<float, 3>& size) {
  if (!parseTriple(minText, min))
    return invalidArgument(flag + "-min must be x,y,z (got '" + minText + "')");
  if (!parseTriple(sizeText, size) || !(size[0] > 0.0f && size[1] > 0.0f && size[2] > 0.0f))
    return invalidArgument(flag + "-size must be three positive numbers x,y,z (got '" + sizeText +
                           "')");
  return {};
}

// A raw .f32 grid of `count` samples.
Result<std::vector<float>> rawGrid(const std::string& path, std::uint64_t count) {
  Result<std::vector<std::uint8_t>> bytes = readFile(path, (kMaxColliderSamples + 1) * 4);
  if (!bytes.ok()) return bytes.status();
  return decodeFloatGrid(*bytes, count, path);
}

Result<HeightfieldCollider> loadHeightfield(const HostWorldOptions& o) {
  const std::string flag = "--heightfield " + o.heightfield;
  HeightfieldDesc d;
  MOTE_RETURN_IF_ERROR(
      placement("--heightfield", o.heightfieldMin, o.heightfieldSize, d.min, d.size));
  if (endsWith(o.heightfield, ".png")) {
    if (!o.heightfieldSamples.empty())
      return invalidArgument("--heightfield-samples is for a raw .f32 file; a PNG has its size");
    Result<render::Image> image = render::loadPng(o.heightfield);
    if (!image.ok()) return image.status();
    d.columns = image->width();
    d.rows = image->height();
    if (d.columns < 2 || d.rows < 2)
      return invalidArgument(flag + ": the image must be at least 2 × 2 pixels");
    d.heights.reserve(std::size_t{d.columns} * d.rows);
    // Pixel (i, j): column i along x, row j along z (the top camera's picture, -z up).
    for (std::uint32_t j = 0; j < d.rows; ++j)
      for (std::uint32_t i = 0; i < d.columns; ++i)
        d.heights.push_back(static_cast<float>(image->pixel(i, j).r) / 255.0f);
  } else if (endsWith(o.heightfield, ".f32")) {
    std::array<std::uint32_t, 2> n{};
    if (!parseCounts(o.heightfieldSamples, n))
      return invalidArgument("--heightfield-samples must be columns,rows for a .f32 file (got '" +
                             o.heightfieldSamples + "')");
    d.columns = n[0];
    d.rows = n[1];
    Result<std::vector<float>> heights = rawGrid(o.heightfield, std::uint64_t{n[0]} * n[1]);
    if (!heights.ok()) return heights.status();
    d.heights = std::move(heights.value());
  } else {
    return invalidArgument(flag + ": a heightfield is a .png or a raw .f32 file");
  }
  Result<HeightfieldCollider> made = HeightfieldCollider::create(std::move(d));
  if (!made.ok()) return Status(made.status().code(), flag + ": " + made.status().message());
  return made;
}

Result<SdfCollider> loadSdf(const HostWorldOptions& o) {
  const std::string flag = "--sdf " + o.sdf;
  SdfDesc d;
  MOTE_RETURN_IF_ERROR(placement("--sdf", o.sdfMin, o.sdfSize, d.min, d.size));
  if (!parseCounts(o.sdfSamples, d.samples))
    return invalidArgument("--sdf-samples must be nx,ny,nz (got '" + o.sdfSamples + "')");
  const std::uint64_t count =
      std::uint64_t{d.samples[0]} * d.samples[1] * std::uint64_t{d.samples[2]};
  if (count > kMaxColliderSamples)
    return invalidArgument(flag + ": more than " + std::to_string(kMaxColliderSamples) +
                           " samples");
  Result<std::vector<float>> distances = rawGrid(o.sdf, count);
  if (!distances.ok()) return distances.status();
  d.distances = std::move(distances.value());
  Result<SdfCollider> made = SdfCollider::create(std::move(d));
  if (!made.ok()) return Status(made.status().code(), flag + ": " + made.status().message());
  return made;
}

// The heightfield's surface in at most kCells × kCells cells, lit by a light from above.
std::vector<SceneTriangle> terrainOf(const HeightfieldCollider& h, const HostWorldOptions& o) {
  constexpr std::uint32_t kCells = 96;
  std::array<float, 3> min{};
  std::array<float, 3> size{};
  (void)placement("--heightfield", o.heightfieldMin, o.heightfieldSize, min, size);
  const auto at = [&](std::uint32_t i, std::uint32_t j) {
    // Pulled a hair inside so the rectangle's far edges have ground.
    const float x = min[0] + size[0] * (static_cast<float>(i) / kCells) * 0.99999f;
    const float z = min[2] + size[2] * (static_cast<float>(j) / kCells) * 0.99999f;
    return glm::vec3(x, h.heightAt(x, z), z);
  };
  const glm::vec3 light = glm::normalize(glm::vec3(0.4f, 1.0f, 0.3f));
  const std::array<float, 3> base{0.045f, 0.05f, 0.055f};  // wet slate
  std::vector<SceneTriangle> out;
  out.reserve(std::size_t{2} * kCells * kCells);
  const auto add = [&](glm::vec3 a, glm::vec3 b, glm::vec3 c) {
    const glm::vec3 n = glm::normalize(glm::cross(c - a, b - a));
    const float shade = 0.35f + 0.65f * std::max(0.0f, glm::dot(n, light));
    out.push_back({a, b, c, {base[0] * shade, base[1] * shade, base[2] * shade}});
  };
  for (std::uint32_t j = 0; j < kCells; ++j)
    for (std::uint32_t i = 0; i < kCells; ++i) {
      add(at(i, j), at(i + 1, j), at(i + 1, j + 1));
      add(at(i, j), at(i + 1, j + 1), at(i, j + 1));
    }
  return out;
}

}  // namespace

Result<std::unique_ptr<HostWorld>> HostWorld::load(const HostWorldOptions& o) {
  auto world = std::make_unique<HostWorld>();
  std::vector<const bytecode::CollisionProvider*> worlds;
  if (!o.heightfield.empty()) {
    Result<HeightfieldCollider> h = loadHeightfield(o);
    if (!h.ok()) return h.status();
    world->heightfield_.emplace(std::move(h.value()));
    worlds.push_back(&*world->heightfield_);
    world->terrain_ = terrainOf(*world->heightfield_, o);
  } else if (!o.heightfieldSamples.empty()) {
    return invalidArgument("--heightfield-samples without --heightfield");
  }
  if (!o.sdf.empty()) {
    Result<SdfCollider> s = loadSdf(o);
    if (!s.ok()) return s.status();
    world->sdf_.emplace(std::move(s.value()));
    worlds.push_back(&*world->sdf_);
  } else if (!o.sdfSamples.empty()) {
    return invalidArgument("--sdf-samples without --sdf");
  }
  if (worlds.size() > 1) {
    Result<CollisionSet> set = CollisionSet::create(worlds);
    if (!set.ok()) return set.status();
    world->set_.emplace(std::move(set.value()));
  }
  return world;
}

const bytecode::CollisionProvider* HostWorld::collision() const noexcept {
  if (set_) return &*set_;
  if (heightfield_) return &*heightfield_;
  if (sdf_) return &*sdf_;
  return nullptr;
}

}  // namespace mote::cli
