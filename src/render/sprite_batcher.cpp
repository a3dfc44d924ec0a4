// SPDX-License-Identifier: MIT
// SpriteBatcher: a ring of the frame's declarations, an LSD radix sort by depth key and an O(n)
// grouping by (atlasId, materialId, blend).
#include <mote/core/assert.h>
#include <mote/core/log.h>
#include <mote/render/sprite_batcher.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <new>
#include <string>
#include <utility>

namespace mote::render {
namespace {

// Digits of 8 bits, 4 passes. Measured against 11 bits (3 passes) on 10,000 random keys, 4
// materials (2-vCPU EPYC, g++ 12 -O3, /tmp A/B of the whole build()): callgrind 187 vs 178
// instructions per sprite, wall time within the machine's noise (median 30.4 vs 31.4 us), 11 bits
// ahead only at 100k (~7%) and behind at 1k (~10%). 8 bits keeps the histograms at 4 KiB instead
// of 24 KiB of L1 and skips passes at byte granularity (a shared high byte is one skipped pass).
constexpr std::uint32_t kRadixBits = 8;
constexpr std::uint32_t kRadixBuckets = 1u << kRadixBits;
constexpr std::uint32_t kRadixMask = kRadixBuckets - 1;
constexpr std::uint32_t kRadixPasses = (32 + kRadixBits - 1) / kRadixBits;

// The histograms of every pass, pass-major: the counts of pass p are
// [p * kRadixBuckets, (p + 1) * kRadixBuckets).
using Histogram = std::array<std::uint32_t, kRadixPasses * kRadixBuckets>;

// An empty table slot, or a group with no batch yet. Indices stay below kMaxSprites.
constexpr std::uint32_t kNone = 0xFFFFFFFFu;

constexpr std::uint32_t digitOf(std::uint32_t key, std::uint32_t pass) {
  return (key >> (pass * kRadixBits)) & kRadixMask;
}

// The grouping key of a sprite: one batch per distinct value.
struct GroupKey {
  std::uint32_t atlasId = 0;
  std::uint32_t materialId = 0;
  BlendMode blend = BlendMode::Alpha;
};

bool sameGroup(const GroupKey& a, const GroupKey& b) {
  return a.atlasId == b.atlasId && a.materialId == b.materialId && a.blend == b.blend;
}

// splitmix64's finalizer over the whole group key: atlas and material ids are often small and
// sequential, so the low bits of an unmixed key would pile groups into neighbouring slots.
std::uint64_t groupHash(const GroupKey& key) {
  std::uint64_t x = ((std::uint64_t{key.atlasId} << 32) | key.materialId) +
                    std::uint64_t{static_cast<std::uint8_t>(key.blend)} * 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// The loops below are leaf functions over __restrict pointers (STYLE: GCC ignores __restrict on
// local copies), so no uint32_t store can be taken to alias a count, a histogram entry or a
// pointer.

// The radix input in declaration order (so the stable sort breaks ties by declaration) and every
// pass's histogram, in one sequential read of the ring.
void scanKeys(const std::uint32_t* __restrict depthKeys, std::uint32_t capacity, std::uint32_t head,
              std::uint32_t count, std::uint32_t* __restrict keys, std::uint32_t* __restrict slots,
              std::uint32_t* __restrict histogram) {
  std::uint32_t position = head;
  for (std::uint32_t slot = 0; slot < count; ++slot) {
    const std::uint32_t key = depthKeys[position];
    keys[slot] = key;
    slots[slot] = slot;
    for (std::uint32_t pass = 0; pass < kRadixPasses; ++pass)
      ++histogram[pass * kRadixBuckets + digitOf(key, pass)];
    if (++position == capacity) position = 0;
  }
}

// One stable counting-sort pass: `offsets` holds each digit's first output position on entry.
void radixScatter(const std::uint32_t* __restrict keysIn, const std::uint32_t* __restrict slotsIn,
                  std::uint32_t* __restrict keysOut, std::uint32_t* __restrict slotsOut,
                  std::uint32_t* __restrict offsets, std::uint32_t count, std::uint32_t pass) {
  for (std::uint32_t i = 0; i < count; ++i) {
    const std::uint32_t key = keysIn[i];
    const std::uint32_t at = offsets[digitOf(key, pass)]++;
    keysOut[at] = key;
    slotsOut[at] = slotsIn[i];
  }
}

// Numbers the batches by their first sprite in depth order and counts their sprites. Returns the
// number of batches.
std::uint32_t numberBatches(const std::uint32_t* __restrict depthOrder, std::uint32_t count,
                            const std::uint32_t* __restrict groupOf,
                            const GroupKey* __restrict groups,
                            std::uint32_t* __restrict batchOfGroup, SpriteBatch* __restrict batches,
                            std::uint32_t* __restrict batchOf) {
  std::uint32_t batchCount = 0;
  for (std::uint32_t i = 0; i < count; ++i) {
    const std::uint32_t group = groupOf[depthOrder[i]];
    std::uint32_t batch = batchOfGroup[group];
    if (batch == kNone) {
      batch = batchCount++;
      batchOfGroup[group] = batch;
      batches[batch] =
          SpriteBatch{groups[group].atlasId, groups[group].materialId, groups[group].blend, 0, 0};
    }
    ++batches[batch].count;
    batchOf[i] = batch;
  }
  return batchCount;
}

// Lays the batches out with a prefix sum and gives each declaration slot its place in sorted():
// a counting sort on the batch number over the depth order, so each batch keeps depth order.
void placeInBatches(const std::uint32_t* __restrict depthOrder,
                    const std::uint32_t* __restrict batchOf, std::uint32_t count,
                    SpriteBatch* __restrict batches, std::uint32_t batchCount,
                    std::uint32_t* __restrict destination) {
  std::uint32_t first = 0;
  for (std::uint32_t b = 0; b < batchCount; ++b) {
    batches[b].first = first;
    first += batches[b].count;
    batches[b].count = 0;  // refilled below as the write cursor
  }
  for (std::uint32_t i = 0; i < count; ++i) {
    SpriteBatch& batch = batches[batchOf[i]];
    destination[depthOrder[i]] = batch.first + batch.count++;
  }
}

// new[] without exceptions: create() reports a failed allocation as a Status.
template <typename T>
std::unique_ptr<T[]> allocateArray(std::size_t count, bool& failed) {
  std::unique_ptr<T[]> array(new (std::nothrow) T[count]);
  if (!array) failed = true;
  return array;
}

}  // namespace

// Declarations live at ring positions in one of two forms: an add()ed sprite whole (76 bytes, its
// look index kWholeItem), or a claimRun() sprite as 20 bytes of streams plus the index of its run's
// look — the declare pass of 10,000 particles is bound by its stores (10,000 stores of 76 bytes
// measured 32.6 us here, of 32 bytes 12.1 us). Every declaration's depth key is also in the
// depthKeys stream, the one field the sort reads. Full SpriteItems of runs exist only in sorted(),
// written once by build().
//
// build() reads the streams only in declaration order and writes sorted() once, by scatter; all
// the work between is on 4-byte indices. Walking the declarations in depth order (to group, then to
// copy) reads them at random twice, and random reads cost more than random writes here: 13.5 vs
// 6.9 ns per item at 10k (a 76-byte gather/scatter microbenchmark, 2-vCPU EPYC). A first version
// did walk in depth order: build() of 100k sprites took 19.9 ms against 6.1-6.7 ms then
// (BM_Build/100000, medians of 5).
//
// The base's pointers (the inlined add()'s view) point into itemStorage, depthKeyStorage and
// lookOfStorage.
struct SpriteBatcher::Storage : detail::SpriteFrameWindow {
  // Ring position of the oldest surviving declaration. It stays 0 until the ring is full, so
  // while it is not, declaration slot i lives at ring position i.
  std::uint32_t head = 0;
  std::uint32_t lookCount = 0;  // runs this frame: each claims >= 1 slot, so <= capacity
  std::uint32_t groupCount = 0;
  std::uint32_t batchCount = 0;
  std::uint32_t tableMask = 0;
  SpriteBatcherStats stats;

  // Per declaration, by ring position.
  std::unique_ptr<SpriteItem[]> itemStorage;         // items: an add()ed declaration
  std::unique_ptr<std::uint32_t[]> depthKeyStorage;  // depthKeys: every declaration
  std::unique_ptr<std::uint32_t[]> lookOfStorage;    // lookOf: its run's look, or kWholeItem
  std::unique_ptr<float[]> posX, posY, size;         // a run's declaration
  std::unique_ptr<std::array<std::uint8_t, 4>[]> tint8;
  std::unique_ptr<SpriteLook[]> looks;  // the frame's runs' looks

  std::unique_ptr<SpriteItem[]> sorted;           // capacity, batch by batch after build()
  std::unique_ptr<std::uint32_t[]> keys[2];       // radix double buffer: depth keys
  std::unique_ptr<std::uint32_t[]> order[2];      // radix double buffer: declaration slots
  std::unique_ptr<std::uint32_t[]> groupOf;       // per declaration slot: its group
  std::unique_ptr<GroupKey[]> groups;             // groups, numbered in declaration order
  std::unique_ptr<std::uint32_t[]> groupSlot;     // per group: its table slot, to clear only those
  std::unique_ptr<std::uint32_t[]> batchOfGroup;  // per group: its batch, once numbered
  std::unique_ptr<std::uint32_t[]> batchOf;       // per depth position: its batch
  std::unique_ptr<SpriteBatch[]> batches;         // capacity: one sprite per batch at worst
  std::unique_ptr<std::uint32_t[]> table;         // open addressing: slot -> group, kNone when free
  Histogram histogram{};

  std::uint32_t ringPosition(std::uint32_t slot) const {
    const std::uint32_t position = head + slot;
    return position >= capacity ? position - capacity : position;
  }

  // The declaration at `position` as a full SpriteItem, written into `out`.
  void readItem(std::uint32_t position, SpriteItem& out) const {
    const std::uint32_t lookIndex = lookOf[position];
    if (lookIndex == kWholeItem) {
      out = items[position];
      return;
    }
    const SpriteLook& look = looks[lookIndex];
    const float s = size[position];
    const std::array<std::uint8_t, 4> t = tint8[position];
    out.pos = {posX[position], posY[position]};
    out.depthKey = depthKeys[position];
    out.depthOverride = look.depthOverride;
    out.scale = {s, s};
    out.tint = {kSpriteTintFromU8[t[0]], kSpriteTintFromU8[t[1]], kSpriteTintFromU8[t[2]],
                kSpriteTintFromU8[t[3]]};
    out.uv = look.uv;
    out.frameIndex = look.frameIndex;
    out.rotation = look.rotation;
    out.atlasId = look.atlasId;
    out.materialId = look.materialId;
    out.blend = look.blend;
  }

  void store(const SpriteItem& item) {
    std::uint32_t position = head;
    if (count < capacity) {
      position = count++;  // head is 0 until the ring is full
    } else {
      // Full: the newest declaration replaces the oldest (laige's overflow policy).
      head = head + 1 == capacity ? 0 : head + 1;
      ++stats.droppedFrame;
      ++stats.droppedTotal;
    }
    items[position] = item;
    depthKeys[position] = item.depthKey;
    lookOf[position] = kWholeItem;
  }

  std::uint32_t findOrAddGroup(const GroupKey& key) {
    // The table has at least twice as many slots as there can be groups, so a free slot always
    // ends the probe.
    std::uint32_t slot = static_cast<std::uint32_t>(groupHash(key)) & tableMask;
    for (;;) {
      const std::uint32_t group = table[slot];
      if (group == kNone) break;
      if (sameGroup(groups[group], key)) return group;
      slot = (slot + 1) & tableMask;
    }
    const std::uint32_t group = groupCount++;
    groups[group] = key;
    groupSlot[group] = slot;
    batchOfGroup[group] = kNone;
    table[slot] = group;
    return group;
  }

  void assignGroups() {
    std::uint32_t* const groupOfSlot = groupOf.get();
    const std::uint32_t n = count;
    groupCount = 0;
    // Consecutive declarations usually share a group (one emitter's particles, one run): skip the
    // probe.
    std::uint32_t group = kNone;
    std::uint32_t lastLook = kNone;
    std::uint32_t position = head;
    for (std::uint32_t slot = 0; slot < n; ++slot) {
      const std::uint32_t lookIndex = lookOf[position];
      if (lookIndex == kWholeItem) {
        const SpriteItem& item = items[position];
        const GroupKey key{item.atlasId, item.materialId, item.blend};
        if (group == kNone || !sameGroup(groups[group], key)) group = findOrAddGroup(key);
        lastLook = kNone;
      } else if (lookIndex != lastLook) {
        const SpriteLook& look = looks[lookIndex];
        const GroupKey key{look.atlasId, look.materialId, look.blend};
        if (group == kNone || !sameGroup(groups[group], key)) group = findOrAddGroup(key);
        lastLook = lookIndex;
      }
      groupOfSlot[slot] = group;
      if (++position == capacity) position = 0;
    }
  }

  // Declaration slots in ascending depthKey order, equal keys in declaration order. Returns the
  // buffer holding them.
  std::uint32_t* sortByDepth() {
    std::uint32_t* keysIn = keys[0].get();
    std::uint32_t* slotsIn = order[0].get();
    std::uint32_t* keysOut = keys[1].get();
    std::uint32_t* slotsOut = order[1].get();
    histogram.fill(0);
    scanKeys(depthKeys, capacity, head, count, keysIn, slotsIn, histogram.data());
    std::uint32_t passesRun = 0;
    for (std::uint32_t pass = 0; pass < kRadixPasses && count > 0; ++pass) {
      std::uint32_t* const offsets = histogram.data() + pass * kRadixBuckets;
      // Every key shares this digit: the pass would copy the buffers unchanged. Depth keys from
      // one camera often share their high bits, so this skips real work.
      if (offsets[digitOf(keysIn[0], pass)] == count) continue;
      std::uint32_t sum = 0;
      for (std::uint32_t digit = 0; digit < kRadixBuckets; ++digit) {
        const std::uint32_t n = offsets[digit];
        offsets[digit] = sum;
        sum += n;
      }
      radixScatter(keysIn, slotsIn, keysOut, slotsOut, offsets, count, pass);
      std::swap(keysIn, keysOut);
      std::swap(slotsIn, slotsOut);
      ++passesRun;
    }
    stats.radixPassesRun = passesRun;
    return slotsIn;
  }

  // The one write of sorted(): the declarations read in order, scattered to their places.
  void copyToSorted(const std::uint32_t* __restrict destination) {
    SpriteItem* __restrict const out = sorted.get();
    std::uint32_t position = head;
    for (std::uint32_t slot = 0; slot < count; ++slot) {
      readItem(position, out[destination[slot]]);
      if (++position == capacity) position = 0;
    }
  }

  void build() {
    assignGroups();
    const std::uint32_t* const depthOrder = sortByDepth();
    batchCount = numberBatches(depthOrder, count, groupOf.get(), groups.get(), batchOfGroup.get(),
                               batches.get(), batchOf.get());
    stats.batches = batchCount;
    // The radix buffer not holding the result is free now.
    std::uint32_t* const destination =
        depthOrder == order[0].get() ? order[1].get() : order[0].get();
    placeInBatches(depthOrder, batchOf.get(), count, batches.get(), batchCount, destination);
    copyToSorted(destination);
    for (std::uint32_t group = 0; group < groupCount; ++group)
      table[groupSlot[group]] = kNone;
  }
};

Result<SpriteBatcher> SpriteBatcher::create(const SpriteBatcherOptions& options) {
  const std::uint32_t capacity = options.maxSprites;
  if (capacity < 1 || capacity > kMaxSprites) {
    SourceLocation field;
    field.path = "maxSprites";
    return invalidArgument("SpriteBatcher maxSprites " + std::to_string(capacity) +
                           " is outside [1, " + std::to_string(kMaxSprites) + "]")
        .withLocation(std::move(field));
  }
  std::unique_ptr<Storage> storage(new (std::nothrow) Storage);
  if (!storage) return budgetExhausted("SpriteBatcher: could not allocate its state");

  std::uint32_t tableSize = 2;
  while (tableSize < 2 * capacity)
    tableSize *= 2;

  bool failed = false;
  Storage& s = *storage;
  s.capacity = capacity;
  s.tableMask = tableSize - 1;
  s.open = true;
  s.itemStorage = allocateArray<SpriteItem>(capacity, failed);
  s.depthKeyStorage = allocateArray<std::uint32_t>(capacity, failed);
  s.lookOfStorage = allocateArray<std::uint32_t>(capacity, failed);
  s.items = s.itemStorage.get();
  s.depthKeys = s.depthKeyStorage.get();
  s.lookOf = s.lookOfStorage.get();
  s.posX = allocateArray<float>(capacity, failed);
  s.posY = allocateArray<float>(capacity, failed);
  s.size = allocateArray<float>(capacity, failed);
  s.tint8 = allocateArray<std::array<std::uint8_t, 4>>(capacity, failed);
  s.looks = allocateArray<SpriteLook>(capacity, failed);
  s.sorted = allocateArray<SpriteItem>(capacity, failed);
  for (int i = 0; i < 2; ++i) {
    s.keys[i] = allocateArray<std::uint32_t>(capacity, failed);
    s.order[i] = allocateArray<std::uint32_t>(capacity, failed);
  }
  s.groupOf = allocateArray<std::uint32_t>(capacity, failed);
  s.groups = allocateArray<GroupKey>(capacity, failed);
  s.groupSlot = allocateArray<std::uint32_t>(capacity, failed);
  s.batchOfGroup = allocateArray<std::uint32_t>(capacity, failed);
  s.batchOf = allocateArray<std::uint32_t>(capacity, failed);
  s.batches = allocateArray<SpriteBatch>(capacity, failed);
  s.table = allocateArray<std::uint32_t>(tableSize, failed);
  if (failed) {
    return budgetExhausted("SpriteBatcher: could not allocate storage for " +
                           std::to_string(capacity) + " sprites");
  }
  for (std::uint32_t i = 0; i < tableSize; ++i)
    s.table[i] = kNone;
  return SpriteBatcher(std::move(storage));
}

SpriteBatcher::SpriteBatcher() noexcept = default;
SpriteBatcher::SpriteBatcher(std::unique_ptr<Storage> storage) noexcept
    : storage_(std::move(storage)), window_(storage_.get()) {}
// The source is left null on both pointers: the stopped state.
SpriteBatcher::SpriteBatcher(SpriteBatcher&& other) noexcept
    : storage_(std::move(other.storage_)), window_(std::exchange(other.window_, nullptr)) {}
SpriteBatcher& SpriteBatcher::operator=(SpriteBatcher&& other) noexcept {
  storage_ = std::move(other.storage_);
  window_ = std::exchange(other.window_, nullptr);
  return *this;
}
SpriteBatcher::~SpriteBatcher() = default;

bool SpriteBatcher::valid() const noexcept {
  return storage_ != nullptr;
}

std::uint32_t SpriteBatcher::maxSprites() const noexcept {
  return storage_ ? storage_->capacity : 0;
}

bool SpriteBatcher::frameOpen() const noexcept {
  return storage_ && storage_->open;
}

namespace {
void reportFrameOverflow(std::uint32_t dropped, std::uint32_t capacity) noexcept {
  logWarnLimited("sprites/frame_overflow",
                 "sprite frame over capacity; oldest declarations dropped",
                 {{"dropped", dropped}, {"capacity", capacity}});
}
}  // namespace

void SpriteBatcher::beginFrame() noexcept {
  if (!storage_) return;
  Storage& s = *storage_;
  // A frame abandoned without build() still reports what it dropped.
  if (s.open && s.stats.droppedFrame > 0) reportFrameOverflow(s.stats.droppedFrame, s.capacity);
  s.head = 0;
  s.count = 0;
  s.lookCount = 0;
  s.batchCount = 0;
  s.open = true;
  s.stats.droppedFrame = 0;
  s.stats.batches = 0;
  s.stats.radixPassesRun = 0;
}

// The inlined add() handles an open window with room; everything else comes here.
Status SpriteBatcher::addSlow(const SpriteItem& item) noexcept {
  if (!storage_) {
    return budgetExhausted(
        "SpriteBatcher::add on a stopped batcher (default-constructed or moved-from); "
        "create() one first");
  }
  Storage& s = *storage_;
  if (!s.open) {
    return invalidArgument(
        "SpriteBatcher::add into a closed frame window (build() closed it); call beginFrame() "
        "first");
  }
  s.store(item);
  return {};
}

SpriteRunSlots SpriteBatcher::claimRun(std::uint32_t wanted, const SpriteLook& look) noexcept {
  if (!storage_ || !storage_->open) return {};
  Storage& s = *storage_;
  const std::uint32_t room = s.capacity - s.count;
  const std::uint32_t n = wanted < room ? wanted : room;
  if (n == 0) return {};
  // Not full, so head is 0 and the run's ring positions are [count, count + n).
  const std::uint32_t lookIndex = s.lookCount++;
  s.looks[lookIndex] = look;
  const std::uint32_t first = s.count;
  std::uint32_t* const runLooks = s.lookOf + first;
  for (std::uint32_t i = 0; i < n; ++i)
    runLooks[i] = lookIndex;
  s.count += n;
  return SpriteRunSlots{s.posX.get() + first, s.posY.get() + first,  s.depthKeys + first,
                        s.size.get() + first, s.tint8.get() + first, n};
}

Status SpriteBatcher::build() noexcept {
  if (!storage_) return {};
  Storage& s = *storage_;
  if (!s.open) {
    return invalidArgument(
        "SpriteBatcher::build on a closed frame window (build() already ran); call beginFrame() "
        "to open the next frame");
  }
  s.open = false;
  if (s.stats.droppedFrame > 0) reportFrameOverflow(s.stats.droppedFrame, s.capacity);
  s.build();
  return {};
}

std::uint32_t SpriteBatcher::size() const noexcept {
  return storage_ ? storage_->count : 0;
}

SpriteItem SpriteBatcher::at(std::uint32_t slot) const noexcept {
  MOTE_ASSERT(slot < size(), "SpriteBatcher::at: slot must be below size()");
  // With asserts off a bad slot reads a default sprite rather than memory past the ring.
  if (slot >= size()) return SpriteItem{};
  SpriteItem item;
  storage_->readItem(storage_->ringPosition(slot), item);
  return item;
}

std::span<const SpriteItem> SpriteBatcher::sorted() const noexcept {
  if (!storage_ || storage_->open) return {};
  return {storage_->sorted.get(), storage_->count};
}

std::span<const SpriteBatch> SpriteBatcher::batches() const noexcept {
  if (!storage_ || storage_->open) return {};
  return {storage_->batches.get(), storage_->batchCount};
}

SpriteBatcherStats SpriteBatcher::stats() const noexcept {
  if (!storage_) return {};
  SpriteBatcherStats stats = storage_->stats;
  stats.declared = storage_->count;
  return stats;
}

}  // namespace mote::render
