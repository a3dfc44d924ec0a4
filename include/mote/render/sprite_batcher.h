// SPDX-License-Identifier: MIT
// SpriteBatcher: laige's frame-window sprite batcher — declare, stable radix sort by depth key,
// group by material.
#pragma once

#include <mote/core/status.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

namespace mote::render {

/// How a sprite's colour combines with what is behind it. Every mode is one premultiplied equation
/// dst = src.rgb·k + dst·(1 − src.a·k') in the rasterizer (ARCHITECTURE §9); the batcher only
/// groups.
enum class BlendMode : std::uint8_t {
  Alpha,          ///< straight alpha: src·a + dst·(1 − a)
  Additive,       ///< src + dst: particles, light, glow (laige's particle default)
  Premultiplied,  ///< src + dst·(1 − a), colour already multiplied by alpha
  Cutout,         ///< alpha test at 0.5, then opaque
};

struct SpriteVec2 {
  float x = 0.0f;
  float y = 0.0f;
  friend bool operator==(const SpriteVec2&, const SpriteVec2&) = default;
};

struct SpriteColor {
  float r = 1.0f;
  float g = 1.0f;
  float b = 1.0f;
  float a = 1.0f;
  friend bool operator==(const SpriteColor&, const SpriteColor&) = default;
};

/// A sub-rectangle of an atlas in normalised texture coordinates; the default is the whole atlas.
struct SpriteUvRect {
  float u0 = 0.0f;
  float v0 = 0.0f;
  float u1 = 1.0f;
  float v1 = 1.0f;
  friend bool operator==(const SpriteUvRect&, const SpriteUvRect&) = default;
};

/// One sprite declaration (laige sprite_batcher field names). A plain value; the batcher copies it.
struct SpriteItem {
  SpriteVec2 pos;              ///< position in render units (world units for particles)
  std::uint32_t depthKey = 0;  ///< sort key: ascending = drawn first (back to front)
  bool depthOverride =
      false;  ///< true when the caller chose depthKey itself rather than the engine
  SpriteVec2 scale{1.0f, 1.0f};  ///< size in render units
  SpriteColor tint;              ///< linear RGBA multiplier, straight alpha
  SpriteUvRect uv;               ///< atlas sub-rectangle
  std::uint32_t frameIndex = 0;  ///< flipbook frame within uv
  float rotation = 0.0f;         ///< radians, counter-clockwise
  std::uint32_t atlasId = 0;
  std::uint32_t materialId = 0;
  BlendMode blend = BlendMode::Alpha;
};

/// One draw call: every sprite of the frame with the same (atlasId, materialId, blend), in depth
/// order, as the range [first, first + count) of SpriteBatcher::sorted().
struct SpriteBatch {
  std::uint32_t atlasId = 0;
  std::uint32_t materialId = 0;
  BlendMode blend = BlendMode::Alpha;
  std::uint32_t first = 0;
  std::uint32_t count = 0;
  friend bool operator==(const SpriteBatch&, const SpriteBatch&) = default;
};

struct SpriteBatcherOptions {
  /// Sprites one frame can hold, in [1, kMaxSprites]. Size it to the scene's worst visible count:
  /// beyond it the oldest declarations are dropped.
  std::uint32_t maxSprites = 4096;
};

/// Counters of the batcher; frame values reset at beginFrame().
struct SpriteBatcherStats {
  std::uint32_t declared = 0;      ///< sprites held this frame (== size())
  std::uint32_t droppedFrame = 0;  ///< declarations dropped (oldest first) this frame
  std::uint64_t droppedTotal = 0;  ///< since create()
  std::uint32_t batches = 0;       ///< groups made by the last build()
  std::uint32_t radixPassesRun =
      0;  ///< sort passes the last build() needed (0–4; uniform digits skip)
};

/// The fields a run of declarations shares — every SpriteItem field but pos, depthKey, scale and
/// tint (see SpriteBatcher::claimRun).
struct SpriteLook {
  SpriteUvRect uv;
  std::uint32_t frameIndex = 0;
  float rotation = 0.0f;
  std::uint32_t atlasId = 0;
  std::uint32_t materialId = 0;
  BlendMode blend = BlendMode::Alpha;
  bool depthOverride = false;
  friend bool operator==(const SpriteLook&, const SpriteLook&) = default;
};

/// c / 255 for every 8-bit channel c (one IEEE division each): how a run's tint8 becomes
/// SpriteItem::tint.
inline constexpr std::array<float, 256> kSpriteTintFromU8 = [] {
  std::array<float, 256> table{};
  for (std::size_t i = 0; i < table.size(); ++i)
    table[i] = static_cast<float>(i) / 255.0f;
  return table;
}();

/// Declarations handed out by SpriteBatcher::claimRun(): `count` square sprites with 8-bit tints,
/// as parallel arrays — entry i of every array is the i-th claimed declaration. Each declares the
/// SpriteItem {pos = (posX[i], posY[i]), depthKey[i], scale = (size[i], size[i]),
/// tint = tint8[i] / 255 channel by channel (one IEEE division each), the run's look}. The caller
/// writes every entry of every array before its next call on the batcher (they start
/// uninitialised); the arrays stay valid until then.
struct SpriteRunSlots {
  float* posX = nullptr;
  float* posY = nullptr;
  std::uint32_t* depthKey = nullptr;
  float* size = nullptr;
  std::array<std::uint8_t, 4>* tint8 = nullptr;  ///< r, g, b, a
  std::uint32_t count = 0;
};

namespace detail {
/// The part of a batcher's state that the inlined add() touches (the rest stays private in the
/// implementation). Not API.
struct SpriteFrameWindow {
  static constexpr std::uint32_t kWholeItem = 0xFFFFFFFFu;  ///< lookOf: the item is in `items`
  SpriteItem* items = nullptr;
  std::uint32_t* depthKeys = nullptr;
  std::uint32_t* lookOf = nullptr;
  std::uint32_t capacity = 0;
  std::uint32_t count = 0;
  bool open = false;
};
}  // namespace detail

/// laige's sprite batcher (ARCHITECTURE §9). The frame protocol:
///
///     batcher.beginFrame();  // open the window (create() leaves the first one open)
///     batcher.add(item);     // declare, as often as needed: the window must be open
///     batcher.build();       // close: stable radix sort by depthKey, group by material
///     for (const SpriteBatch& b : batcher.batches()) {
///       draw(batcher.sorted().subspan(b.first, b.count));  // one draw call per batch
///     }
///
/// add(): a stopped batcher gives BudgetExhausted; a closed window gives InvalidArgument; a full
/// frame drops the OLDEST declaration to make room and the add succeeds. The frame's drops are
/// reported once, as a rate-limited `sprites/frame_overflow` warning (fields dropped, capacity),
/// by build() — or by beginFrame() when the frame is abandoned without a build().
///
/// build(): sorts the surviving declarations by depthKey with an LSD radix sort (stable: equal
/// keys keep declaration order, the deterministic tie-break), then groups them into one batch per
/// distinct (atlasId, materialId, blend). Batches are ordered by their first sprite in depth
/// order; each batch's sprites are in depth order. Never std::sort.
///
/// A default-constructed batcher is the stopped state: valid() false, add() fails, build() is a
/// no-op.
///
/// Ownership: owns all its storage (allocated once in create()). Move-only; the moved-from
/// batcher is stopped. Thread safety: one owner thread; const accessors may be read concurrently
/// after build().
class SpriteBatcher {
 public:
  static constexpr std::uint32_t kMaxSprites = 1u << 22;

  /// Allocates storage for options.maxSprites sprites and opens the first frame window.
  /// maxSprites outside [1, kMaxSprites] → InvalidArgument; the allocation failing →
  /// BudgetExhausted. Allocates: everything, once — about 290 bytes per sprite of capacity.
  static Result<SpriteBatcher> create(const SpriteBatcherOptions& options);

  SpriteBatcher() noexcept;
  SpriteBatcher(SpriteBatcher&& other) noexcept;
  SpriteBatcher& operator=(SpriteBatcher&& other) noexcept;
  SpriteBatcher(const SpriteBatcher&) = delete;
  SpriteBatcher& operator=(const SpriteBatcher&) = delete;
  ~SpriteBatcher();

  bool valid() const noexcept;
  std::uint32_t maxSprites() const noexcept;
  /// True between beginFrame()/create() and build().
  bool frameOpen() const noexcept;

  /// Opens a new frame window and forgets the previous frame. No-op when stopped.
  /// Complexity: O(1). Allocates: never.
  void beginFrame() noexcept;

  /// Declares one sprite into the open window (see the class comment for failures).
  /// Complexity: O(1). Allocates: never on success (an error's Status holds its message).
  Status add(const SpriteItem& item) noexcept {
    // Inlined fast path: an open window with room.
    detail::SpriteFrameWindow* const window = window_;
    if (window != nullptr && window->open && window->count < window->capacity) [[likely]] {
      const std::uint32_t slot = window->count++;
      window->items[slot] = item;
      window->depthKeys[slot] = item.depthKey;
      window->lookOf[slot] = detail::SpriteFrameWindow::kWholeItem;
      return {};
    }
    return addSlow(item);
  }

  /// add() of the item `fill(SpriteItem&)` builds, starting from a default SpriteItem.
  template <typename Fill>
  Status addInPlace(Fill&& fill) noexcept {
    SpriteItem item;
    fill(item);
    return add(item);
  }

  /// The bulk declaration for per-element loops (declareParticles): claims up to `wanted`
  /// declarations at the end of the open window, all with `look`, and returns them as
  /// SpriteRunSlots (already counted in size(), in declaration order). A run stores 24 bytes per
  /// sprite where add() stores the 76-byte SpriteItem: a pass declaring 10,000 particles is bound
  /// by its stores.
  /// Returns fewer than `wanted` when the frame has less room — declare the rest through add(),
  /// whose overflow policy (drop the oldest) then applies — and none when the batcher is stopped,
  /// the window closed, or the frame full: add() reports which. Complexity: O(count) (the run's
  /// look index is stored per slot). Allocates: never.
  SpriteRunSlots claimRun(std::uint32_t wanted, const SpriteLook& look) noexcept;

  /// Closes the window, sorts and groups. Stopped → no-op success; a closed window (build() twice)
  /// → InvalidArgument. Complexity: O(n) (radix sort + one grouping pass). Allocates: never.
  Status build() noexcept;

  /// Sprites held this frame. Complexity: O(1).
  std::uint32_t size() const noexcept;
  /// The slot-th surviving declaration of this frame in declaration order, rebuilt from its stored
  /// form; slot < size() (MOTE_ASSERT; with asserts off a default SpriteItem). Complexity: O(1).
  SpriteItem at(std::uint32_t slot) const noexcept;
  /// After build(): the frame's sprites, batch by batch, each batch in depth order. Empty before.
  std::span<const SpriteItem> sorted() const noexcept;
  /// After build(): the batches over sorted(). Empty before.
  std::span<const SpriteBatch> batches() const noexcept;
  SpriteBatcherStats stats() const noexcept;

 private:
  struct Storage;
  explicit SpriteBatcher(std::unique_ptr<Storage> storage) noexcept;
  Status addSlow(const SpriteItem& item) noexcept;

  std::unique_ptr<Storage> storage_;
  detail::SpriteFrameWindow* window_ = nullptr;  // storage_'s base: moves with it
};

}  // namespace mote::render
