// SPDX-License-Identifier: MIT
// Render packets: what a renderer needs of a ParticleWorld, per emitter — material, blend, sprite
// sheet, draw order, the particles' fields as stream views, and uniformity hints (a field every
// particle holds the same value of) so consumers skip per-particle work. Built read-only; the
// software rasterizer draws from them, and a GPU renderer uploads them.
#pragma once

#include <mote/bytecode/compiled_effect.h>
#include <mote/core/job_system.h>
#include <mote/core/status.h>
#include <mote/runtime/world.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

namespace mote::render {

/// One particle field as consumers read it: component c of particle i is streams[c][i]. When
/// `uniform`, every live particle holds `value` bit for bit (a field the effect does not have is
/// uniform at its default and has null streams), and consumers may use `value` instead.
template <std::size_t N>
struct ParticleChannel {
  std::array<const float*, N> streams{};
  bool uniform = true;
  std::array<float, N> value{};

  bool present() const noexcept { return streams[0] != nullptr; }
  /// Component c of particle i (the uniform value when the field is absent). O(1).
  float at(std::size_t c, std::uint32_t i) const noexcept {
    return streams[c] != nullptr ? streams[c][i] : value[c];
  }
};

/// The material's sprite sheet as the renderer samples it: 1 × 1 for a built-in sprite, which is
/// one picture (on a sheet material every cell is the whole sprite).
struct SpriteSheetInfo {
  std::uint32_t columns = 1;
  std::uint32_t rows = 1;
  std::uint32_t frameBegin = 0;  ///< where a blended last frame wraps to
  bool frameBlend = false;       ///< blend toward the next frame by the fractional frame
};

/// One emitter's particles, ready to draw. Pointers and spans borrow the world's (and its
/// effect's) storage: valid until the world next ticks or changes.
struct RenderPacket {
  EmitterHandle emitter;
  const bytecode::CompiledEmitter* description = nullptr;  ///< render mode settings, space, …
  const bytecode::CompiledMaterial* material = nullptr;    ///< null: the default soft circle, alpha
  bytecode::BlendMode blend = bytecode::BlendMode::Alpha;
  SpriteSheetInfo sheet;
  bytecode::RenderMode mode = bytecode::RenderMode::Billboard;
  std::int32_t sortOrder = 0;
  /// The particle order within the packet, `Auto` resolved: additive draws in slot order (None),
  /// everything else back to front.
  bytecode::ParticleSort sort = bytecode::ParticleSort::BackToFront;
  std::uint32_t count = 0;             ///< live particles
  const std::uint32_t* ids = nullptr;  ///< spawn-order ids, count of them
  /// A trail's source particle ids (EmitterView::sources), count of them; null otherwise. A
  /// linked_chain draws one ribbon per source id (linkedChainOrder).
  const std::uint32_t* sources = nullptr;
  Transform transform;  ///< the emitter's world transform this tick
  bool local = false;   ///< positions are emitter space (see transform)
  float time = 0.0f;    ///< emitter time, s
  /// EmitterView::version: a packet of the same emitter and version draws the same, bit for bit
  /// (what ParticleRenderer's draw cache keys on). 0: unversioned (a packet a host built itself),
  /// never cached.
  std::uint64_t version = 0;
  std::span<const float> emitterWords;  ///< the emitter fields' current words
  ParticleChannel<3> position;          ///< metres (world, or emitter space when local)
  ParticleChannel<3> velocity;          ///< m/s
  ParticleChannel<2> size;              ///< metres, width and height
  ParticleChannel<4> color;             ///< linear RGBA, straight alpha; default white
  ParticleChannel<4> orientation;       ///< quaternion x, y, z, w; default identity
  ParticleChannel<1> rotation;          ///< roll, radians
  ParticleChannel<1> frame;             ///< sprite-sheet frame (fraction: blend)
};

/// Builds a world's render packets. create() sizes it; build() fills it each frame.
///
/// Ownership: owns its packet array; packets borrow the world. Thread safety: one thread builds;
/// packets() may be read concurrently afterwards. Allocation: create() only.
class RenderPacketBuilder {
 public:
  /// Room for `maxEmitters` packets, in [1, 2^20]; InvalidArgument otherwise.
  static Result<RenderPacketBuilder> create(std::uint32_t maxEmitters);
  RenderPacketBuilder() noexcept;
  RenderPacketBuilder(RenderPacketBuilder&&) noexcept;
  RenderPacketBuilder& operator=(RenderPacketBuilder&&) noexcept;
  ~RenderPacketBuilder();

  /// Rebuilds the packets of every emitter of `world` that has live particles, ordered by the
  /// emitter's sort order — ties keep the world's emitter order. Emitters past maxEmitters are
  /// counted in dropped(). The colour, frame and rotation fields are scanned for uniformity (the
  /// scan stops at the first particle that differs). Complexity: O(emitters) when sort orders are
  /// already ascending in world order, O(emitters²) at worst; plus the particles of uniform fields
  /// — except for an emitter whose state version (EmitterView::version) is the one the last
  /// build() saw at the same place in the world's list: its fields' uniformity is kept. `jobs`
  /// (borrowed; null: the calling thread) scans the fields of emitters of 2^16 particles and more
  /// in parts on its threads — the same packets. Allocates: never.
  void build(const ParticleWorld& world, JobSystem* jobs = nullptr) noexcept;

  std::span<const RenderPacket> packets() const noexcept;
  /// Emitters the last build() had no room for.
  std::uint32_t dropped() const noexcept;

 private:
  struct Storage;
  explicit RenderPacketBuilder(std::unique_ptr<Storage> storage) noexcept;
  std::unique_ptr<Storage> storage_;
};

/// Fills a packet from a world's emitter view (build() does this for every emitter). Exposed for
/// consumers that walk the world themselves; `jobs` as in build(). O(particles of the scanned
/// uniform fields).
RenderPacket makeRenderPacket(EmitterHandle handle, const EmitterView& view,
                              JobSystem* jobs = nullptr) noexcept;

}  // namespace mote::render
