// SPDX-License-Identifier: MIT
// ParticleRenderer's private state, shared by the files that implement it: particle_renderer.cpp
// (the API, material textures, the sprite forwards), particle_renderer_packets.cpp (walking a
// frame's render packets), particle_renderer_quads.cpp (quads per billboard mode) and
// particle_renderer_ribbons.cpp (linked chains and beams). The quads are drawn by the sprite
// layer's rasterizer, which it embeds (sprite_renderer_impl.h: bands, rasterization, resolve).
#pragma once

#include "draw_order.h"
#include "facing_quads.h"
#include "sprite_renderer_impl.h"  // the rasterizer: quads, styles, draw keys, textures, finish()

#include <mote/core/assert.h>
#include <mote/render/billboard.h>
#include <mote/render/depth_key.h>
#include <mote/render/mesh.h>
#include <mote/render/particle_instance.h>
#include <mote/render/particle_renderer.h>
#include <mote/render/render_packet.h>

#include <glm/gtc/quaternion.hpp>
#include <glm/mat4x4.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mote::render {

// The premultiplied colour of a particle of straight-alpha `color` (alpha clamped to [0, 1]):
// rgb (negatives as 0) times alpha, and alpha — 0 for additive.
inline std::array<float, 4> premultiplied(const std::array<float, 4>& color, Blend blend) {
  const float alpha = std::clamp(color[3], 0.0f, 1.0f);
  return {std::max(color[0], 0.0f) * alpha, std::max(color[1], 0.0f) * alpha,
          std::max(color[2], 0.0f) * alpha, blend == Blend::Additive ? 0.0f : alpha};
}

// A packet's blend as the rasterizer draws it (premultiplied materials blend as alpha ones).
inline Blend packetBlend(const RenderPacket& p) {
  return p.blend == bytecode::BlendMode::Additive ? Blend::Additive
         : p.blend == bytecode::BlendMode::Cutout ? Blend::Cutout
                                                  : Blend::Over;
}

// Whether a packet of `blend` keeps its emitter's own order under `transparency`, else its
// particles are keyed by view depth. OIT draws cutout quads opaque in emitter order, so they keep
// their emitter's own order.
inline bool emitterOrdered(Transparency transparency, Blend blend) {
  return transparency == Transparency::Emitter ||
         (transparency == Transparency::Oit && blend == Blend::Cutout);
}

// The packet's emitter transform (x, y, z, w rotation; position) as glm values.
inline glm::quat emitterRotationOf(const RenderPacket& p) {
  return glm::quat(p.transform.rotation[3], p.transform.rotation[0], p.transform.rotation[1],
                   p.transform.rotation[2]);
}
inline glm::vec3 emitterPositionOf(const RenderPacket& p) {
  return glm::vec3(p.transform.position[0], p.transform.position[1], p.transform.position[2]);
}

// A particle of straight alpha `alpha` shows: it adds light (additive) or covers something.
inline bool shows(float alpha, Blend blend) {
  return std::clamp(alpha, 0.0f, 1.0f) > 0.0f || blend == Blend::Additive;
}

// Particle i's colour (linear RGBA, straight alpha).
inline std::array<float, 4> particleColor(const RenderPacket& p, std::uint32_t i) {
  return p.color.uniform ? p.color.value
                         : std::array<float, 4>{p.color.streams[0][i], p.color.streams[1][i],
                                                p.color.streams[2][i], p.color.streams[3][i]};
}

// Particle i's centre, velocity (in world space) and half size.
inline BillboardInput billboardInput(const RenderPacket& p, std::uint32_t i,
                                     glm::vec3 emitterPosition, const glm::quat& emitterRotation) {
  BillboardInput in;
  in.position =
      glm::vec3(p.position.streams[0][i], p.position.streams[1][i], p.position.streams[2][i]);
  if (p.velocity.present()) {
    in.velocity =
        glm::vec3(p.velocity.streams[0][i], p.velocity.streams[1][i], p.velocity.streams[2][i]);
  }
  if (p.local) {
    in.position = emitterPosition + emitterRotation * in.position;
    in.velocity = emitterRotation * in.velocity;
  }
  if (p.size.present()) in.halfSize = glm::vec2(p.size.streams[0][i], p.size.streams[1][i]) * 0.5f;
  return in;
}

// Particle i's turn: its orientation channel (normalised), then its roll about the quad's normal
// (a mesh's local Z).
inline glm::quat particleOrientation(const RenderPacket& p, std::uint32_t i) {
  glm::quat q(1.0f, 0.0f, 0.0f, 0.0f);
  if (p.orientation.present()) {
    q = normalizedOrientation(glm::quat(p.orientation.streams[3][i], p.orientation.streams[0][i],
                                        p.orientation.streams[1][i], p.orientation.streams[2][i]));
  }
  if (p.rotation.present()) q = q * glm::angleAxis(p.rotation.at(0, i), glm::vec3(0, 0, 1));
  return q;
}

struct ParticleRenderer::Impl {
  RendererOptions options;
  // The sprite layer's rasterizer: the frame's quads, styles and draw keys, the textures (material
  // and atlas ones alike), the stats, and the draw (finish). Its jobs run this renderer's ranges.
  SpriteRenderer::Impl raster;
  // Quad styles: at most one per quad plus one per packet (reserved for maxQuads + kMaxPackets).
  static constexpr std::uint32_t kMaxPackets = 4096;
  static constexpr std::uint32_t kNoStyle = ~0u;
  std::vector<DrawKey> scratch;
  // The split sort's counters (sortDrawKeys on jobs): kDrawKeyBuckets for each range of keys (one
  // per thread, at most kPrepRanges).
  static constexpr std::uint32_t kPrepRanges = 16;
  std::vector<std::uint32_t> sortCounts;
  // The fast path's ranges when one emitter's quads are made on several threads.
  std::array<FacingTally, kPrepRanges> rangeTallies{};
  RenderPacketBuilder packets;
  // Per-frame view (the camera itself is raster.camera, which the ground grid reads too).
  glm::mat4 viewProjection{1.0f};
  KeyRange packetKeys;  // the range of the keys of the packet being emitted
  KeyRange frameKeys;   // and of the frame's
  // Ribbon segments are keyed by their view depth (Transparency Sorted and Oit), not in path order.
  bool depthKeyedStrips = false;
  FacingBlock facing;  // the fast path's corners, one block at a time
  std::array<std::array<float, FacingBlock::kSize>, 3> worldCentres{};  // a block's local → world
  std::vector<glm::vec3> bolt;  // a beam's points (reserved at create: 2^10 + 1)
  std::vector<std::array<glm::vec3, 4>> boltQuads;  // and its segments (2^10)
  std::vector<std::uint64_t> chainKeys;  // a linked chain's order (linkedChainOrder); grows once
  // Mesh particles (particle_renderer_meshes.cpp): the meshes by render.mesh name, loaded on first
  // sight with their own textures; per-vertex scratch for one particle (sized to the largest
  // mesh); a mesh packet's particle order (grown to the largest packet); the frame's projector.
  struct MeshEntry {
    std::string name;
    Mesh mesh;
    std::int64_t texture = -1;  // the mesh's own texture, or −1: the material's
  };
  std::vector<MeshEntry> meshes;
  std::vector<glm::vec3> meshWorld;  // one particle's, when the draw cache keeps none
  std::vector<glm::vec3> meshNormal;
  // A particle's smooth-lit vertex colours, front and back (2 × V), valid where meshLitAt holds
  // the particle's stamp.
  std::vector<std::array<float, 4>> meshLit;
  std::vector<std::uint32_t> meshLitAt;
  std::uint32_t meshLitStamp = 0;
  std::vector<ProjectedVertex> meshProjected;
  std::vector<DrawKey> meshOrder;
  std::vector<DrawKey> meshOrderScratch;
  std::int64_t whiteTexture = -1;       // untextured meshes and debug triangles
  std::uint32_t debugStyle = kNoStyle;  // this frame's drawTriangle3D style, once one is drawn
  TriangleProjector projector;

  // The draw cache (particle_renderer_cache.cpp; docs/rendering.md, "The draw cache", after
  // pip3d's DrawCache). A frame whose packets all have the state versions of the last one
  // (RenderPacket::version), under the same camera, is the frame the raster's lists hold already:
  // prepare() takes it again with no vertex work. A mesh packet whose state version alone is
  // unchanged (the view moved, or another packet changed) projects the world-space vertices (and
  // normals) it kept, instead of transforming the mesh again.
  struct KeptMesh {
    std::uint64_t version = 0;   // the packet's state version
    std::uint32_t count = 0;     // its particles
    std::uint32_t vertices = 0;  // V, its mesh's vertex count
    std::size_t world = 0;       // into the world store: particle i's vertices at world + i·V
    std::size_t normals = ~std::size_t{0};  // into the normal store likewise (~0: none kept)
  };
  // A growable array of vertices whose growth alone allocates (never zero-fills).
  struct VertexStore {
    std::unique_ptr<glm::vec3[]> data;
    std::size_t size = 0;
    std::size_t capacity = 0;
    // Room for n more (the first's index), or ~0 past kMaxKeptVertices; growing grows `twin`
    // (the other frame's store) to the same capacity, keeping what either holds.
    std::size_t grow(std::size_t n, VertexStore& twin);
    void reserve(std::size_t n);
  };
  // What the kept vertices of one frame may take (2^21 vertices: 24 MiB a store); a mesh packet
  // past it is transformed every frame.
  static constexpr std::size_t kMaxKeptVertices = std::size_t{1} << 21;
  struct DrawCache {
    bool frameValid = false;              // the raster's lists are the frame below
    std::vector<std::uint64_t> versions;  // its packets' state versions, in draw order
    Camera camera;
    bool meshFrame = false;
    std::uint32_t styleEnd = 0, triangleEnd = 0;   // its packets' entries (debug ones follow)
    RenderStats stats;                             // its packets' stats
    std::vector<KeptMesh> meshes, previousMeshes;  // this frame's kept mesh packets, the last's
    VertexStore world, normals, previousWorld, previousNormals;
  };
  DrawCache cache;
  // Where a mesh packet's vertices are this frame: null world, a particle at a time in meshWorld
  // (and meshNormal); else particle i's at world + i·V, transformed already when `kept`.
  struct MeshVertices {
    glm::vec3* world = nullptr;
    glm::vec3* normals = nullptr;
    bool kept = false;
  };

  // particle_renderer_cache.cpp: takes the last frame again when nothing it shows changed
  // (restoring its stats); else readies the kept vertices for this one; records the frame.
  bool reuseFrame();
  void beginFrame();
  void recordFrame();
  MeshVertices meshVertices(const RenderPacket& p, std::uint32_t vertices, bool normals);

  // particle_renderer.cpp: the lists of a frame of `frame`'s packets (only its mesh packets where
  // `meshesOnly`: prepareTriangles), emitted and ordered, as prepare() and prepareTriangles()
  // build them.
  Status emitFrame(std::span<const RenderPacket> frame, const BillboardView& view, bool meshesOnly);
  // particle_renderer_meshes.cpp: prepare(packets) and prepareTriangles() (`meshesOnly`): a frame
  // of `frame` under `camera`, not recorded for the draw cache.
  Status preparePackets(std::span<const RenderPacket> frame, const Camera& camera, bool meshesOnly);
  // particle_renderer.cpp: a frame's view of `camera` (stats reset, the projector, ground and OIT
  // flags), as prepare() and prepareTriangles() begin.
  void beginView(const Camera& camera);
  // particle_renderer.cpp: a material's texture (loaded once, by name, into raster.textures).
  Result<std::uint32_t> texture(const bytecode::CompiledMaterial* material);

  // particle_renderer_packets.cpp: a packet's quads, by its render mode, and the frame's order
  // across packets once all are emitted (Transparency::Sorted).
  void emitQuads(const RenderPacket& p, const BillboardView& view, std::uint32_t texture);
  void orderFrame();
  // A packet's style, shared by its quads unless each needs its own (a flipbook frame or a soft
  // depth per particle).
  struct PacketStyle {
    QuadStyle style;
    bool perQuad = false;
    std::uint32_t shared = 0;  // into styles, when not perQuad
  };
  PacketStyle beginPacket(const RenderPacket& p, Blend blend, std::uint32_t texture);
  // Appends particle i's quad (bounds set, room checked) with its style and draw key.
  void pushParticleQuad(const PacketStyle& ps, const RenderPacket& p, std::uint32_t i,
                        const ScreenQuad& screen, const std::array<float, 4>& color,
                        glm::vec3 centre, float centreW,
                        const std::array<std::array<float, 4>, 4>* corners = nullptr);

  // particle_renderer_quads.cpp: billboard quads.
  bool emitFacingQuads(const RenderPacket& p, const BillboardView& view, BillboardMode mode,
                       const PacketStyle& style);
  FacingSetup facingSetup(const BillboardView& view, BillboardMode mode,
                          const BillboardInput& unit) const;
  std::array<const float*, 3> blockCentres(const RenderPacket& p, std::uint32_t begin,
                                           std::uint32_t n, const BillboardInput& unit);
  void appendFacingDirect(const FacingSetup& setup, const FacingAppend& append,
                          const FacingParticles& in, std::uint32_t style);
  void appendFacingInRanges(const FacingSetup& setup, const FacingAppend& append,
                            const FacingParticles& in, FacingTally& tally);
  void pushFacingBlock(const RenderPacket& p, const FacingSetup& setup, const PacketStyle& style,
                       std::uint32_t begin, const FacingParticles& in,
                       const std::array<float, 4>& uniformColor);
  void emitBillboards(const RenderPacket& p, BillboardView view, BillboardMode mode,
                      const PacketStyle& style);
  bool project(const std::array<glm::vec3, 4>& corners, ScreenQuad& quad);
  bool placeQuad(ScreenQuad& quad);

  // particle_renderer_meshes.cpp: mesh particles and the triangles they and drawTriangle3D make.
  Result<const MeshEntry*> meshNamed(const std::string& name);
  std::uint32_t white();
  // Loads the frame's meshes and makes room for triangles when a packet draws meshes.
  Status prepareMeshes(std::span<const RenderPacket> frame);
  void emitMeshes(const RenderPacket& p, Blend blend, std::uint32_t materialTexture);
  // Lighting (options.lighting): the side of a surface the eye is on, a premultiplied colour
  // lit at a point with a normal, a triangle lit flat (its face normal turned to the eye).
  glm::vec3 towardEye(glm::vec3 p) const { return render::towardEye(raster.camera, p); }
  bool facesEye(const std::array<MeshClipVertex, 3>& tri) const;
  std::array<float, 4> lightColor(const std::array<float, 4>& premul, glm::vec3 position,
                                  glm::vec3 normal) const;
  void shadeFlat(std::array<MeshClipVertex, 3>& tri) const;
  // drawTriangle3D's and drawLine3D's checks (`who` names the call) and the debug style: room for
  // `triangles` more, the points and colour finite.
  Status beginDebug(const char* who, std::size_t triangles, std::span<const glm::vec3> points,
                    const std::array<float, 3>& color);
  // Clips (near plane) and appends one triangle of clipper vertices in `style`.
  void pushTriangle(const std::array<MeshClipVertex, 3>& v, std::uint32_t style, bool depthWrite,
                    bool cullBack);
  // The same with the vertices' projections made already (a mesh's, once per vertex).
  void pushTriangle(const std::array<MeshClipVertex, 3>& v, const std::array<ProjectedVertex, 3>& p,
                    std::uint32_t style, bool depthWrite, bool cullBack);
  // particle_renderer_ribbons.cpp: linked chains and beams. `style`: kNoStyle, or the one a
  // strip of the same packet pushed (a packet's strips share it).
  void pushStrip(std::span<const glm::vec3> points,
                 std::span<const std::array<glm::vec3, 4>> segments,
                 const std::array<float, 4>& color, Blend blend, std::uint32_t texture,
                 std::uint32_t& style);
  void emitChain(const RenderPacket& p, Blend blend, std::uint32_t texture);
  void emitBeams(const RenderPacket& p, Blend blend, std::uint32_t texture);
};

}  // namespace mote::render
