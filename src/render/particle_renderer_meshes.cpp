// SPDX-License-Identifier: MIT
// ParticleRenderer's mesh particles (docs/rendering.md, "Mesh particles"): each particle of a
// `mesh` emitter draws its mesh at its position, turned by its orientation (and roll about the
// mesh's Z), scaled by its size (x, y, x), in its colour; the mesh's vertices are transformed and
// projected once per particle, and each triangle goes through the triangle layer's near-plane path
// (triangle_layer.h) into the rasterizer's triangle list. drawTriangle3D adds debug triangles to
// the same list.
#include "particle_renderer_impl.h"

#include <mote/core/builtin_sprites.h>

#include <glm/geometric.hpp>
#include <glm/gtc/quaternion.hpp>

#include <algorithm>
#include <cmath>

namespace mote::render {

namespace {

// The extension of `path` in lower case ("" when none).
std::string lowerExtension(const std::string& path) {
  const std::size_t dot = path.find_last_of('.');
  const std::size_t slash = path.find_last_of('/');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return {};
  std::string e = path.substr(dot);
  for (char& c : e)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return e;
}

}  // namespace

std::uint32_t ParticleRenderer::Impl::white() {
  if (whiteTexture < 0) {
    Texture t;
    t.width = 1;
    t.height = 1;
    t.texels = {{1.0f, 1.0f, 1.0f, 1.0f}};
    raster.textures.push_back(std::move(t));
    raster.textureNames.emplace_back();  // "": never looked up by name
    whiteTexture = static_cast<std::int64_t>(raster.textures.size() - 1);
  }
  return static_cast<std::uint32_t>(whiteTexture);
}

Result<const ParticleRenderer::Impl::MeshEntry*> ParticleRenderer::Impl::meshNamed(
    const std::string& name) {
  for (const MeshEntry& m : meshes)
    if (m.name == name) return &m;
  Result<Mesh> loaded = invalidArgument("");
  if (name.starts_with(kBuiltinSpriteUriPrefix)) {
    loaded = builtinMesh(name);
  } else {
    const std::string path = pathIn(options.textureDirectory, name);
    if (lowerExtension(path) == ".obj") {
      loaded = loadObj(path);
    } else if (options.meshLoader) {
      loaded = options.meshLoader(path);
    } else {
      return unsupported("mesh '" + name +
                         "': only builtin: meshes and .obj files are read here (give "
                         "RendererOptions::meshLoader for other formats)");
    }
  }
  if (!loaded.ok()) return loaded.status();
  if (Status s = loaded->validate(name); !s.ok()) return s;
  MeshEntry entry;
  entry.name = name;
  entry.mesh = std::move(loaded.value());
  if (!entry.mesh.texture.empty()) {
    Result<std::uint32_t> texture = raster.textureNamed(entry.mesh.texture);
    if (!texture.ok()) return texture.status();
    entry.texture = texture.value();
  }
  const std::size_t vertices = entry.mesh.vertexCount();
  if (meshWorld.size() < vertices) {
    meshWorld.resize(vertices);
    meshNormal.resize(vertices);
    meshLit.resize(vertices * 2);
    meshLitAt.resize(vertices * 2);
    meshProjected.resize(vertices);
  }
  meshes.push_back(std::move(entry));
  return &meshes.back();
}

Status ParticleRenderer::Impl::prepareMeshes(std::span<const RenderPacket> frame) {
  raster.meshFrame = false;
  for (const RenderPacket& p : frame) {
    if (p.mode != bytecode::RenderMode::Mesh || p.description == nullptr) continue;
    Result<const MeshEntry*> mesh = meshNamed(p.description->render.mesh);
    if (!mesh.ok()) {
      return Status(mesh.status().code(),
                    "emitter '" + p.description->name + "': " + mesh.status().message(), {});
    }
    raster.meshFrame = true;
  }
  if (raster.meshFrame) raster.ensureTriangles(options.maxTriangles);
  return {};
}

void ParticleRenderer::Impl::pushTriangle(const std::array<MeshClipVertex, 3>& v,
                                          std::uint32_t style, bool depthWrite, bool cullBack) {
  pushTriangle(
      v,
      {projector.project(v[0].world), projector.project(v[1].world), projector.project(v[2].world)},
      style, depthWrite, cullBack);
}

void ParticleRenderer::Impl::pushTriangle(const std::array<MeshClipVertex, 3>& v,
                                          const std::array<ProjectedVertex, 3>& p,
                                          std::uint32_t style, bool depthWrite, bool cullBack) {
  const auto project = [this](const MeshClipVertex& m) { return projector.project(m.world); };
  const auto draw = [&](const MeshClipVertex& a, const MeshClipVertex& b, const MeshClipVertex& c,
                        const ProjectedVertex& pa, const ProjectedVertex& pb,
                        const ProjectedVertex& pc) {
    ScreenTriangle t;
    const std::array<const MeshClipVertex*, 3> in{&a, &b, &c};
    const std::array<const ProjectedVertex*, 3> at{&pa, &pb, &pc};
    for (std::size_t k = 0; k < 3; ++k)
      t.v[k] = {snapToSubpixel(at[k]->x),
                snapToSubpixel(at[k]->y),
                at[k]->invW,
                at[k]->depth,
                in[k]->u,
                in[k]->v,
                in[k]->color};
    t.style = style;
    t.depthWrite = depthWrite;
    if (!boundTriangle(t, projector.width, projector.height)) return;
    // Front faces are counter-clockwise seen from the front: clockwise on the y-down screen.
    if (cullBack && (t.v[1].x - t.v[0].x) * (t.v[2].y - t.v[0].y) -
                            (t.v[2].x - t.v[0].x) * (t.v[1].y - t.v[0].y) >
                        0.0f)
      return;
    if (raster.triangles.size() == raster.triangleCapacity) {
      ++raster.stats.dropped;
      return;
    }
    raster.triangles.push_back(t);
  };
  clipDrawNearFan(v, p, projector.nearDepth, project, draw);
}

void ParticleRenderer::Impl::emitMeshes(const RenderPacket& p, Blend blend,
                                        std::uint32_t materialTexture) {
  const Result<const MeshEntry*> found = meshNamed(p.description->render.mesh);
  if (!found.ok()) return;  // prepareMeshes loaded it or failed the frame
  const MeshEntry& entry = *found.value();
  const Mesh& mesh = entry.mesh;
  const bytecode::CompiledMaterial* m = p.material;
  QuadStyle style;
  style.blend = blend;
  style.cutoff = m != nullptr ? m->alphaCutoff : 0.5f;
  // The mesh's own texture, else the material's, else none (white).
  style.texture = entry.texture >= 0                    ? static_cast<std::uint32_t>(entry.texture)
                  : m != nullptr && !m->texture.empty() ? materialTexture
                                                        : white();
  const auto styleIndex = static_cast<std::uint32_t>(raster.styles.size());
  raster.styles.push_back(style);
  // Opaque and cutout meshes write depth; additive ones never, translucent ones not under OIT.
  const bool depthWrite = blend == Blend::Cutout || (blend == Blend::Over && !raster.oitFrame);
  const bool cullBack = m == nullptr || !m->doubleSided;
  // The particles in the emitter's order.
  if (meshOrder.size() < p.count) {
    meshOrder.resize(p.count);
    meshOrderScratch.resize(p.count);
  }
  const glm::quat emitterRotation = emitterRotationOf(p);
  const glm::vec3 emitterPosition = emitterPositionOf(p);
  KeyRange range;
  for (std::uint32_t i = 0; i < p.count; ++i) {
    const BillboardInput in = billboardInput(p, i, emitterPosition, emitterRotation);
    const std::uint32_t key =
        particleDrawKey(p.sort, (viewProjection * glm::vec4(in.position, 1.0f)).w, p.ids[i]);
    meshOrder[i] = {key, i};
    range.add(key);
  }
  if (p.sort != bytecode::ParticleSort::None && p.count > 0)
    sortDrawKeys(meshOrder.data(), meshOrderScratch.data(), p.count, range);
  const std::size_t vertices = mesh.vertexCount();
  // Lit meshes: flat (one normal a face) or, where the mesh has normals, Gouraud (per vertex, both
  // sides where it is double-sided). Additive ones are emissive: never lit.
  const bool lit = m != nullptr && m->lit && blend != Blend::Additive;
  const bool smooth = lit && !mesh.normals.empty();
  // The world-space vertices: kept by the draw cache when the packet's state is unchanged,
  // else transformed (into the cache's store, or a particle at a time).
  const MeshVertices store = meshVertices(p, static_cast<std::uint32_t>(vertices), smooth);
  if (store.kept) ++raster.stats.reprojected;
  for (std::uint32_t k = 0; k < p.count; ++k) {
    const std::uint32_t i = meshOrder[k].index;
    const std::array<float, 4> color = particleColor(p, i);
    if (!shows(color[3], blend)) continue;
    const BillboardInput in = billboardInput(p, i, emitterPosition, emitterRotation);
    const glm::vec3 scale(in.halfSize.x * 2.0f, in.halfSize.y * 2.0f, in.halfSize.x * 2.0f);
    if (!(scale.x > 0.0f) || !(scale.y > 0.0f)) continue;
    glm::vec3* world = meshWorld.data();
    glm::vec3* normal = meshNormal.data();
    if (store.world != nullptr) {
      world = store.world + std::size_t{i} * vertices;
      if (smooth) normal = store.normals + std::size_t{i} * vertices;
    }
    if (!store.kept) {
      const glm::quat turn = (p.local ? emitterRotation : glm::quat(1.0f, 0.0f, 0.0f, 0.0f)) *
                             particleOrientation(p, i);
      for (std::size_t v = 0; v < vertices; ++v) {
        const glm::vec3 local(mesh.positions[v * 3], mesh.positions[v * 3 + 1],
                              mesh.positions[v * 3 + 2]);
        world[v] = in.position + turn * (local * scale);
        if (smooth) {
          // Normals take the inverse scale (the inverse transpose of turn · scale).
          const glm::vec3 n(mesh.normals[v * 3], mesh.normals[v * 3 + 1], mesh.normals[v * 3 + 2]);
          normal[v] = glm::normalize(turn * (n / scale));
        }
      }
    }
    for (std::size_t v = 0; v < vertices; ++v)
      meshProjected[v] = projector.project(world[v]);  // once a vertex, shared by its faces
    const std::array<float, 4> premul =
        ambientTinted(premultiplied(color, blend), m, options.lighting);
    // Smooth lighting: each vertex lit once for the side the eye sees it from (both, on a
    // double-sided mesh), when a face first needs it.
    if (smooth && ++meshLitStamp == 0) {
      std::fill(meshLitAt.begin(), meshLitAt.end(), 0u);
      meshLitStamp = 1;
    }
    const auto litVertex = [&](std::uint32_t index, bool back) -> const std::array<float, 4>& {
      const std::size_t slot = std::size_t{index} * 2 + (back ? 1 : 0);
      if (meshLitAt[slot] != meshLitStamp) {
        meshLitAt[slot] = meshLitStamp;
        meshLit[slot] = lightColor(premul, world[index], normal[index] * (back ? -1.0f : 1.0f));
      }
      return meshLit[slot];
    };
    for (std::size_t t = 0; t < mesh.triangleCount(); ++t) {
      std::array<ProjectedVertex, 3> projected;
      for (std::size_t c = 0; c < 3; ++c)
        projected[c] = meshProjected[mesh.indices[t * 3 + c]];
      // A back face wholly in front of the near plane is culled before any lighting: the test
      // pushTriangle would make on the same projections.
      if (cullBack && projected[0].depth >= projector.nearDepth &&
          projected[1].depth >= projector.nearDepth && projected[2].depth >= projector.nearDepth &&
          (projected[1].x - projected[0].x) * (projected[2].y - projected[0].y) -
                  (projected[2].x - projected[0].x) * (projected[1].y - projected[0].y) >
              0.0f)
        continue;
      std::array<MeshClipVertex, 3> tri;
      for (std::size_t c = 0; c < 3; ++c) {
        const std::uint32_t index = mesh.indices[t * 3 + c];
        tri[c].world = world[index];
        if (!mesh.uvs.empty()) {
          tri[c].u = mesh.uvs[std::size_t{index} * 2];
          tri[c].v = mesh.uvs[std::size_t{index} * 2 + 1];
        }
        tri[c].color = premul;
      }
      if (lit) {
        if (smooth) {
          // A back face seen (double-sided) is lit on the side the eye is on.
          const bool back = !facesEye(tri);
          for (std::size_t c = 0; c < 3; ++c)
            tri[c].color = litVertex(mesh.indices[t * 3 + c], back);
        } else {
          shadeFlat(tri);
        }
      }
      pushTriangle(tri, projected, styleIndex, depthWrite, cullBack);
    }
  }
}

bool ParticleRenderer::Impl::facesEye(const std::array<MeshClipVertex, 3>& tri) const {
  const glm::vec3 n = glm::cross(tri[1].world - tri[0].world, tri[2].world - tri[0].world);
  return glm::dot(n, towardEye(tri[0].world)) >= 0.0f;
}

std::array<float, 4> ParticleRenderer::Impl::lightColor(const std::array<float, 4>& premul,
                                                        glm::vec3 position,
                                                        glm::vec3 normal) const {
  const glm::vec3 e = irradiance(options.lighting, position, normal);
  return {premul[0] * e.x, premul[1] * e.y, premul[2] * e.z, premul[3]};
}

void ParticleRenderer::Impl::shadeFlat(std::array<MeshClipVertex, 3>& tri) const {
  glm::vec3 n = glm::cross(tri[1].world - tri[0].world, tri[2].world - tri[0].world);
  const float length = glm::length(n);
  if (!(length > 0.0f)) return;
  n /= length;
  const glm::vec3 centre = (tri[0].world + tri[1].world + tri[2].world) / 3.0f;
  if (glm::dot(n, towardEye(centre)) < 0.0f) n = -n;  // the side the eye sees
  const std::array<float, 4> shaded = lightColor(tri[0].color, centre, n);
  for (MeshClipVertex& v : tri)
    v.color = shaded;
}

namespace {
bool finite3(glm::vec3 v) {
  return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z);
}
}  // namespace

Status ParticleRenderer::Impl::beginDebug(const char* who, std::size_t triangles,
                                          std::span<const glm::vec3> points,
                                          const std::array<float, 3>& color) {
  if (!raster.prepared)
    return invalidArgument(std::string(who) + ": no frame prepared (call prepare())");
  for (const glm::vec3& p : points) {
    if (!finite3(p) || !std::isfinite(color[0]) || !std::isfinite(color[1]) ||
        !std::isfinite(color[2]))
      return invalidArgument(std::string(who) + ": a coordinate or colour is not finite");
  }
  if (!raster.meshFrame) {
    raster.ensureTriangles(options.maxTriangles);
    raster.meshFrame = true;
  }
  if (raster.triangles.size() + triangles > raster.triangleCapacity) {
    ++raster.stats.dropped;
    return invalidArgument(std::string(who) + ": maxTriangles (" +
                           std::to_string(options.maxTriangles) + ") are drawn already");
  }
  if (debugStyle == kNoStyle) {  // one style for the frame's debug triangles
    QuadStyle style;
    style.texture = white();
    debugStyle = static_cast<std::uint32_t>(raster.styles.size());
    raster.styles.push_back(style);
  }
  return {};
}

Status ParticleRenderer::drawTriangle3D(glm::vec3 v0, glm::vec3 v1, glm::vec3 v2,
                                        std::array<float, 3> color) {
  Impl& r = *impl_;
  const std::array<glm::vec3, 3> at{v0, v1, v2};
  if (Status s = r.beginDebug("ParticleRenderer::drawTriangle3D", 1, at, color); !s.ok()) return s;
  std::array<MeshClipVertex, 3> tri;
  for (std::size_t k = 0; k < 3; ++k) {
    tri[k].world = at[k];
    tri[k].color = {std::max(color[0], 0.0f), std::max(color[1], 0.0f), std::max(color[2], 0.0f),
                    1.0f};
  }
  r.shadeFlat(tri);  // flat-lit by the scene's lights
  r.pushTriangle(tri, r.debugStyle, true, false);
  r.raster.stats.triangles = static_cast<std::uint32_t>(r.raster.triangles.size());
  return {};
}

Status ParticleRenderer::drawLine3D(glm::vec3 a, glm::vec3 b, std::array<float, 3> color,
                                    float widthPixels) {
  Impl& r = *impl_;
  if (!(widthPixels > 0.0f) || !(widthPixels <= 16.0f))
    return invalidArgument("ParticleRenderer::drawLine3D: widthPixels must be in (0, 16]");
  const std::array<glm::vec3, 2> ends{a, b};
  if (Status s = r.beginDebug("ParticleRenderer::drawLine3D", 2, ends, color); !s.ok()) return s;
  const Camera& camera = r.raster.camera;
  const float height = static_cast<float>(r.options.viewport.height);
  // Half the width in metres at p's view depth (at least the near plane's).
  const auto halfWidth = [&](glm::vec3 p) {
    const float pixel =
        camera.projection == Projection::Perspective
            ? 2.0f * std::max(glm::dot(p - camera.position, camera.forward), camera.nearZ) *
                  std::tan(camera.fovYRadians * 0.5f) / height
            : 2.0f * camera.orthoHalfHeight / height;
    return 0.5f * widthPixels * pixel;
  };
  glm::vec3 side = glm::cross(b - a, r.towardEye((a + b) * 0.5f));
  const float length = glm::length(side);
  if (!(length > 0.0f) || !std::isfinite(length)) return {};  // end on, or a point
  side /= length;
  const glm::vec3 sa = side * halfWidth(a);
  const glm::vec3 sb = side * halfWidth(b);
  std::array<MeshClipVertex, 4> quad;
  const std::array<glm::vec3, 4> corners{a - sa, a + sa, b + sb, b - sb};
  for (std::size_t k = 0; k < 4; ++k) {
    quad[k].world = corners[k];
    quad[k].color = {std::max(color[0], 0.0f), std::max(color[1], 0.0f), std::max(color[2], 0.0f),
                     1.0f};
  }
  r.pushTriangle({quad[0], quad[1], quad[2]}, r.debugStyle, false, false);
  r.pushTriangle({quad[0], quad[2], quad[3]}, r.debugStyle, false, false);
  r.raster.stats.triangles = static_cast<std::uint32_t>(r.raster.triangles.size());
  return {};
}

Status ParticleRenderer::prepareTriangles(std::span<const RenderPacket> packets,
                                          const Camera& camera) {
  return impl_->preparePackets(packets, camera, true);
}

Status ParticleRenderer::prepare(std::span<const RenderPacket> packets, const Camera& camera) {
  return impl_->preparePackets(packets, camera, false);
}

Status ParticleRenderer::Impl::preparePackets(std::span<const RenderPacket> frame,
                                              const Camera& camera, bool meshesOnly) {
  raster.prepared = false;
  if (Status s = camera.validate(); !s.ok()) return s;
  beginView(camera);
  debugStyle = kNoStyle;
  if (Status s = prepareMeshes(frame); !s.ok()) return s;
  // Kept vertices carry over from the last frame; this one is not recorded (no draw cache reuse).
  if (Status s = emitFrame(frame, BillboardView::fromCamera(camera), meshesOnly); !s.ok()) return s;
  raster.prepared = true;
  return {};
}

Status ParticleRenderer::triangles(std::vector<RasterTriangle>& out) const {
  out.clear();
  const SpriteRenderer::Impl& raster = impl_->raster;
  if (!raster.prepared)
    return invalidArgument("ParticleRenderer::triangles: no frame prepared (call prepare() first)");
  out.reserve(raster.triangles.size());
  for (const ScreenTriangle& t : raster.triangles) {
    const QuadStyle& style = raster.styles[t.style];
    RasterTriangle& made = out.emplace_back();
    made.v = t.v;
    made.texture = style.texture;
    made.blend = style.blend == Blend::Additive ? TriangleBlend::Additive
                 : style.blend == Blend::Cutout ? TriangleBlend::Cutout
                                                : TriangleBlend::Over;
    made.cutoff = style.cutoff;
    made.depthWrite = t.depthWrite;
  }
  return {};
}

Result<const Texture*> ParticleRenderer::texture(std::uint32_t index) const {
  return impl_->raster.textureAt(index);
}

}  // namespace mote::render
