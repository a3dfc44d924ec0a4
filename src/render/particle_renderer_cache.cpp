// SPDX-License-Identifier: MIT
// ParticleRenderer's draw cache (docs/rendering.md, "The draw cache"; pip3d_culling_en.md, "Draw
// cache"): what a frame drew, tagged with its packets' state versions and its camera. Nothing
// changed: the raster's lists are that frame, taken again with no vertex work. A mesh packet whose
// state alone is unchanged: its world-space vertices (and normals) are the ones kept, projected
// and lit again for the new view. Everything else is expanded as without the cache — the frame is
// the same, bit for bit, either way.
#include "particle_renderer_impl.h"

#include <cstddef>
#include <cstring>

namespace mote::render {

namespace {

// The view: the projection, then 17 floats with no padding between them — equal bytes there are
// the same view (a -0 for a 0 counts as a change, which only costs a frame drawn afresh).
constexpr std::size_t kCameraFloats = offsetof(Camera, position);
static_assert(sizeof(Camera) - kCameraFloats == 17 * sizeof(float));
bool sameCamera(const Camera& a, const Camera& b) {
  return a.projection == b.projection &&
         std::memcmp(&a.position, &b.position, sizeof(Camera) - kCameraFloats) == 0;
}

}  // namespace

void ParticleRenderer::Impl::VertexStore::reserve(std::size_t n) {
  if (n <= capacity) return;
  auto bigger = std::make_unique_for_overwrite<glm::vec3[]>(n);
  if (size > 0) std::memcpy(bigger.get(), data.get(), size * sizeof(glm::vec3));
  data = std::move(bigger);
  capacity = n;
}

std::size_t ParticleRenderer::Impl::VertexStore::grow(std::size_t n, VertexStore& twin) {
  if (n > kMaxKeptVertices - size) return ~std::size_t{0};
  if (size + n > capacity) {
    reserve(std::min(std::max(size + n, capacity * 2), kMaxKeptVertices));
    // The store the next frame writes grows now too, so that frame allocates nothing.
    twin.reserve(capacity);
  }
  const std::size_t first = size;
  size += n;
  return first;
}

bool ParticleRenderer::Impl::reuseFrame() {
  if (!options.drawCache || !cache.frameValid || raster.meshFrame != cache.meshFrame ||
      !sameCamera(raster.camera, cache.camera))
    return false;
  const std::span<const RenderPacket> frame = packets.packets();
  if (frame.size() != cache.versions.size()) return false;
  for (std::size_t i = 0; i < frame.size(); ++i)
    if (frame[i].version == 0 || frame[i].version != cache.versions[i]) return false;
  // The lists are that frame's; drawTriangle3D's entries after it go (shrinking never allocates).
  raster.styles.resize(cache.styleEnd);
  raster.triangles.resize(cache.triangleEnd);
  raster.stats = cache.stats;
  raster.stats.cached = static_cast<std::uint32_t>(frame.size());
  raster.stats.reprojected = 0;  // nothing was
  return true;
}

void ParticleRenderer::Impl::beginFrame() {
  cache.frameValid = false;  // until recordFrame: the lists are being rebuilt
  std::swap(cache.meshes, cache.previousMeshes);
  std::swap(cache.world, cache.previousWorld);
  std::swap(cache.normals, cache.previousNormals);
  cache.meshes.clear();
  cache.world.size = 0;
  cache.normals.size = 0;
  if (!options.drawCache) cache.previousMeshes.clear();
}

void ParticleRenderer::Impl::recordFrame() {
  if (!options.drawCache) return;
  cache.versions.clear();  // reserved for kMaxPackets at create: never allocates
  for (const RenderPacket& p : packets.packets())
    cache.versions.push_back(p.version);
  cache.camera = raster.camera;
  cache.meshFrame = raster.meshFrame;
  cache.styleEnd = static_cast<std::uint32_t>(raster.styles.size());
  cache.triangleEnd = static_cast<std::uint32_t>(raster.triangles.size());
  cache.stats = raster.stats;
  cache.frameValid = true;
}

ParticleRenderer::Impl::MeshVertices ParticleRenderer::Impl::meshVertices(const RenderPacket& p,
                                                                          std::uint32_t vertices,
                                                                          bool normals) {
  MeshVertices out;
  if (!options.drawCache || p.version == 0) return out;
  const KeptMesh* kept = nullptr;
  for (const KeptMesh& k : cache.previousMeshes) {
    if (k.version == p.version && k.count == p.count && k.vertices == vertices &&
        (k.normals != ~std::size_t{0}) == normals) {
      kept = &k;
      break;
    }
  }
  const std::size_t n = std::size_t{p.count} * vertices;
  const std::size_t world = cache.world.grow(n, cache.previousWorld);
  const std::size_t normal =
      world != ~std::size_t{0} && normals ? cache.normals.grow(n, cache.previousNormals) : 0;
  if (world == ~std::size_t{0} || normal == ~std::size_t{0}) {
    if (world != ~std::size_t{0}) cache.world.size -= n;
    // No room to keep them again: this frame reads the last frame's in place.
    if (kept != nullptr) {
      out.world = cache.previousWorld.data.get() + kept->world;
      if (normals) out.normals = cache.previousNormals.data.get() + kept->normals;
      out.kept = true;
    }
    return out;
  }
  // meshes is reserved for kMaxPackets at create: never allocates.
  cache.meshes.push_back({p.version, p.count, vertices, world, normals ? normal : ~std::size_t{0}});
  out.world = cache.world.data.get() + world;
  out.normals = normals ? cache.normals.data.get() + normal : nullptr;
  if (kept != nullptr) {
    // Kept for the next frame too: a copy is a fraction of the transform it saves.
    std::memcpy(out.world, cache.previousWorld.data.get() + kept->world, n * sizeof(glm::vec3));
    if (normals) {
      std::memcpy(out.normals, cache.previousNormals.data.get() + kept->normals,
                  n * sizeof(glm::vec3));
    }
    out.kept = true;
  }
  return out;
}

}  // namespace mote::render
