// SPDX-License-Identifier: MIT
// Tests of SpriteBatcher: create validation, the frame protocol, the stable radix sort, grouping,
// the overflow policy, zero allocation and a randomized comparison against a reference.
#include "support/assert_trap.h"

#include <mote/core/alloc_watch.h>
#include <mote/core/log.h>
#include <mote/core/prng.h>
#include <mote/render/depth_key.h>
#include <mote/render/sprite_batcher.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <numeric>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace mote::render {
namespace {

// Every test item carries its declaration number in frameIndex, so an order is a list of numbers.
SpriteItem makeItem(std::uint32_t tag, std::uint32_t depthKey, std::uint32_t materialId = 0,
                    std::uint32_t atlasId = 0, BlendMode blend = BlendMode::Alpha) {
  SpriteItem item;
  item.frameIndex = tag;
  item.depthKey = depthKey;
  item.materialId = materialId;
  item.atlasId = atlasId;
  item.blend = blend;
  return item;
}

SpriteBatcher makeBatcher(std::uint32_t maxSprites) {
  Result<SpriteBatcher> created = SpriteBatcher::create({.maxSprites = maxSprites});
  EXPECT_TRUE(created.ok()) << created.status().toString();
  return std::move(created).takeValue();
}

std::vector<std::uint32_t> tags(std::span<const SpriteItem> items) {
  std::vector<std::uint32_t> out;
  for (const SpriteItem& item : items)
    out.push_back(item.frameIndex);
  return out;
}

std::vector<std::uint32_t> declaredTags(const SpriteBatcher& batcher) {
  std::vector<std::uint32_t> out;
  for (std::uint32_t slot = 0; slot < batcher.size(); ++slot)
    out.push_back(batcher.at(slot).frameIndex);
  return out;
}

// Declares items with the given keys (tag = position in `keys`) and builds.
void declareKeysAndBuild(SpriteBatcher& batcher, const std::vector<std::uint32_t>& keys) {
  batcher.beginFrame();
  for (std::uint32_t i = 0; i < keys.size(); ++i)
    ASSERT_TRUE(batcher.add(makeItem(i, keys[i])).ok());
  ASSERT_TRUE(batcher.build().ok());
}

bool sameItem(const SpriteItem& a, const SpriteItem& b) {
  return a.pos == b.pos && a.depthKey == b.depthKey && a.depthOverride == b.depthOverride &&
         a.scale == b.scale && a.tint == b.tint && a.uv == b.uv && a.frameIndex == b.frameIndex &&
         a.rotation == b.rotation && a.atlasId == b.atlasId && a.materialId == b.materialId &&
         a.blend == b.blend;
}

// ---------------------------------------------------------------------------------------------
// create() and the stopped state

TEST(SpriteBatcherCreate, RejectsZeroMaxSprites) {
  Result<SpriteBatcher> created = SpriteBatcher::create({.maxSprites = 0});
  ASSERT_FALSE(created.ok());
  EXPECT_EQ(created.status().code(), StatusCode::InvalidArgument);
  EXPECT_EQ(created.status().message(), "SpriteBatcher maxSprites 0 is outside [1, 4194304]");
  ASSERT_TRUE(created.status().location().has_value());
  EXPECT_EQ(created.status().location()->path, "maxSprites");
}

TEST(SpriteBatcherCreate, RejectsMaxSpritesAboveKMaxSprites) {
  Result<SpriteBatcher> created =
      SpriteBatcher::create({.maxSprites = SpriteBatcher::kMaxSprites + 1});
  ASSERT_FALSE(created.ok());
  EXPECT_EQ(created.status().code(), StatusCode::InvalidArgument);
  EXPECT_EQ(created.status().message(), "SpriteBatcher maxSprites 4194305 is outside [1, 4194304]");
}

TEST(SpriteBatcherCreate, OpensAnEmptyFirstFrame) {
  SpriteBatcher batcher = makeBatcher(1);
  EXPECT_TRUE(batcher.valid());
  EXPECT_EQ(batcher.maxSprites(), 1u);
  EXPECT_TRUE(batcher.frameOpen());
  EXPECT_EQ(batcher.size(), 0u);
  EXPECT_TRUE(batcher.sorted().empty());
  EXPECT_TRUE(batcher.batches().empty());
  EXPECT_EQ(batcher.stats().declared, 0u);
  EXPECT_EQ(batcher.stats().droppedTotal, 0u);
  // The first frame needs no beginFrame().
  EXPECT_TRUE(batcher.add(makeItem(7, 1)).ok());
  EXPECT_EQ(batcher.size(), 1u);
}

TEST(SpriteBatcherStopped, DefaultConstructedIsStopped) {
  SpriteBatcher batcher;
  EXPECT_FALSE(batcher.valid());
  EXPECT_EQ(batcher.maxSprites(), 0u);
  EXPECT_FALSE(batcher.frameOpen());

  const Status added = batcher.add(makeItem(0, 0));
  EXPECT_EQ(added.code(), StatusCode::BudgetExhausted);
  EXPECT_NE(added.message().find("stopped"), std::string::npos) << added.message();

  EXPECT_TRUE(batcher.build().ok());
  EXPECT_TRUE(batcher.build().ok());  // a no-op every time, not a protocol error
  batcher.beginFrame();
  EXPECT_FALSE(batcher.frameOpen());
  EXPECT_EQ(batcher.add(makeItem(0, 0)).code(), StatusCode::BudgetExhausted);

  EXPECT_EQ(batcher.size(), 0u);
  EXPECT_TRUE(batcher.sorted().empty());
  EXPECT_TRUE(batcher.batches().empty());
  EXPECT_EQ(batcher.stats().declared, 0u);
  EXPECT_EQ(batcher.stats().droppedFrame, 0u);
  EXPECT_EQ(batcher.stats().droppedTotal, 0u);
  EXPECT_EQ(batcher.stats().batches, 0u);
  EXPECT_EQ(batcher.stats().radixPassesRun, 0u);
}

TEST(SpriteBatcherStopped, MoveConstructionTransfersTheFrameAndStopsTheSource) {
  SpriteBatcher source = makeBatcher(8);
  ASSERT_TRUE(source.add(makeItem(1, 20)).ok());
  ASSERT_TRUE(source.add(makeItem(2, 10)).ok());

  SpriteBatcher moved(std::move(source));
  EXPECT_FALSE(source.valid());  // NOLINT(bugprone-use-after-move): the stopped state is the point
  EXPECT_EQ(source.size(), 0u);
  EXPECT_EQ(source.add(makeItem(3, 0)).code(), StatusCode::BudgetExhausted);

  EXPECT_TRUE(moved.valid());
  EXPECT_EQ(moved.maxSprites(), 8u);
  EXPECT_TRUE(moved.frameOpen());
  EXPECT_EQ(declaredTags(moved), (std::vector<std::uint32_t>{1, 2}));
  ASSERT_TRUE(moved.build().ok());
  EXPECT_EQ(tags(moved.sorted()), (std::vector<std::uint32_t>{2, 1}));
}

TEST(SpriteBatcherStopped, MoveAssignmentReplacesTheTargetAndStopsTheSource) {
  SpriteBatcher source = makeBatcher(4);
  ASSERT_TRUE(source.add(makeItem(5, 0)).ok());
  ASSERT_TRUE(source.build().ok());
  SpriteBatcher target = makeBatcher(16);
  ASSERT_TRUE(target.add(makeItem(9, 0)).ok());

  target = std::move(source);
  EXPECT_FALSE(source.valid());  // NOLINT(bugprone-use-after-move)
  EXPECT_TRUE(source.sorted().empty());
  EXPECT_EQ(target.maxSprites(), 4u);
  EXPECT_FALSE(target.frameOpen());  // the source's frame was built
  EXPECT_EQ(tags(target.sorted()), (std::vector<std::uint32_t>{5}));

  SpriteBatcher stopped;
  target = std::move(stopped);
  EXPECT_FALSE(target.valid());
}

// ---------------------------------------------------------------------------------------------
// The frame protocol

TEST(SpriteBatcherProtocol, AddAfterBuildIsInvalidArgumentNamingBeginFrame) {
  SpriteBatcher batcher = makeBatcher(4);
  ASSERT_TRUE(batcher.add(makeItem(0, 3)).ok());
  ASSERT_TRUE(batcher.build().ok());
  EXPECT_FALSE(batcher.frameOpen());

  const Status added = batcher.add(makeItem(1, 1));
  EXPECT_EQ(added.code(), StatusCode::InvalidArgument);
  EXPECT_NE(added.message().find("call beginFrame()"), std::string::npos) << added.message();
  // The refused declaration changed nothing.
  EXPECT_EQ(batcher.size(), 1u);
  EXPECT_EQ(batcher.stats().declared, 1u);
  EXPECT_EQ(tags(batcher.sorted()), (std::vector<std::uint32_t>{0}));
}

TEST(SpriteBatcherProtocol, BeginFrameReopensAndForgetsThePreviousFrame) {
  SpriteBatcher batcher = makeBatcher(4);
  ASSERT_TRUE(batcher.add(makeItem(0, 3, 1)).ok());
  ASSERT_TRUE(batcher.add(makeItem(1, 2, 2)).ok());
  ASSERT_TRUE(batcher.build().ok());
  ASSERT_EQ(batcher.batches().size(), 2u);

  batcher.beginFrame();
  EXPECT_TRUE(batcher.frameOpen());
  EXPECT_EQ(batcher.size(), 0u);
  EXPECT_TRUE(batcher.sorted().empty());
  EXPECT_TRUE(batcher.batches().empty());
  EXPECT_EQ(batcher.stats().declared, 0u);
  EXPECT_EQ(batcher.stats().batches, 0u);
  EXPECT_EQ(batcher.stats().radixPassesRun, 0u);

  ASSERT_TRUE(batcher.add(makeItem(2, 9, 1)).ok());
  EXPECT_EQ(declaredTags(batcher), (std::vector<std::uint32_t>{2}));
  ASSERT_TRUE(batcher.build().ok());
  EXPECT_EQ(tags(batcher.sorted()), (std::vector<std::uint32_t>{2}));
  EXPECT_EQ(batcher.batches().size(), 1u);
}

TEST(SpriteBatcherProtocol, BuildTwiceIsInvalidArgumentAndKeepsTheResult) {
  SpriteBatcher batcher = makeBatcher(4);
  ASSERT_TRUE(batcher.add(makeItem(0, 3)).ok());
  ASSERT_TRUE(batcher.add(makeItem(1, 1)).ok());
  ASSERT_TRUE(batcher.build().ok());

  const Status again = batcher.build();
  EXPECT_EQ(again.code(), StatusCode::InvalidArgument);
  EXPECT_NE(again.message().find("beginFrame()"), std::string::npos) << again.message();
  EXPECT_EQ(tags(batcher.sorted()), (std::vector<std::uint32_t>{1, 0}));
  EXPECT_EQ(batcher.batches().size(), 1u);
}

TEST(SpriteBatcherProtocol, SortedAndBatchesStayEmptyUntilBuild) {
  SpriteBatcher batcher = makeBatcher(4);
  ASSERT_TRUE(batcher.add(makeItem(0, 3)).ok());
  EXPECT_TRUE(batcher.sorted().empty());
  EXPECT_TRUE(batcher.batches().empty());
  ASSERT_TRUE(batcher.build().ok());
  EXPECT_EQ(batcher.sorted().size(), 1u);
  // at() stays valid after build() and until the next beginFrame().
  EXPECT_EQ(batcher.at(0).frameIndex, 0u);
}

TEST(SpriteBatcherProtocol, EmptyFrameBuildsNothing) {
  SpriteBatcher batcher = makeBatcher(4);
  ASSERT_TRUE(batcher.build().ok());
  EXPECT_TRUE(batcher.sorted().empty());
  EXPECT_TRUE(batcher.batches().empty());
  EXPECT_EQ(batcher.stats().batches, 0u);
  EXPECT_EQ(batcher.stats().radixPassesRun, 0u);
}

#if MOTE_ASSERTS_ENABLED
// at() is noexcept, so a trapping (throwing) assert handler would terminate inside it; the default
// handler's report-and-abort is what a caller sees.
TEST(SpriteBatcherProtocolDeathTest, AtPastSizeIsAContractViolation) {
  SpriteBatcher batcher = makeBatcher(4);
  ASSERT_TRUE(batcher.add(makeItem(0, 3)).ok());
  EXPECT_EQ(batcher.at(0).frameIndex, 0u);
  EXPECT_DEATH(static_cast<void>(batcher.at(1)), "slot < size\\(\\).*slot must be below size");
  SpriteBatcher stopped;
  EXPECT_DEATH(static_cast<void>(stopped.at(0)), "slot must be below size");
}

TEST(SpriteBatcherProtocol, OverflowAndBuildDoNotAssert) {
  test::AssertTrap trap;
  SpriteBatcher batcher = makeBatcher(2);
  ASSERT_TRUE(batcher.add(makeItem(0, 1)).ok());
  ASSERT_TRUE(batcher.add(makeItem(1, 0)).ok());
  ASSERT_TRUE(batcher.add(makeItem(2, 2)).ok());
  EXPECT_NO_THROW(static_cast<void>(batcher.at(0)));
  EXPECT_NO_THROW(static_cast<void>(batcher.at(1)));
  EXPECT_NO_THROW(static_cast<void>(batcher.build()));
}
#else
TEST(SpriteBatcherProtocol, AtPastSizeReadsADefaultSpriteWithAssertsOff) {
  SpriteBatcher batcher = makeBatcher(4);
  ASSERT_TRUE(batcher.add(makeItem(3, 3)).ok());
  EXPECT_TRUE(sameItem(batcher.at(1), SpriteItem{}));
  EXPECT_TRUE(sameItem(SpriteBatcher{}.at(0), SpriteItem{}));
}
#endif

// ---------------------------------------------------------------------------------------------
// The radix sort

TEST(SpriteBatcherProtocol, ClaimRunHandsOutTheRoomLeftInDeclarationOrder) {
  SpriteBatcher batcher = makeBatcher(5);
  ASSERT_TRUE(batcher.add(makeItem(0, 30)).ok());
  SpriteLook look;
  look.uv = {0.0f, 0.5f, 0.25f, 1.0f};
  look.frameIndex = 7;
  look.rotation = 0.25f;
  look.atlasId = 3;
  look.materialId = 4;
  look.blend = BlendMode::Premultiplied;
  look.depthOverride = true;
  SpriteRunSlots run = batcher.claimRun(3, look);
  ASSERT_EQ(run.count, 3u);
  EXPECT_EQ(batcher.size(), 4u);
  for (std::uint32_t i = 0; i < 3; ++i) {
    run.posX[i] = static_cast<float>(i) + 0.5f;
    run.posY[i] = -static_cast<float>(i);
    run.depthKey[i] = 20 - i;
    run.size[i] = 2.0f * static_cast<float>(i + 1);
    run.tint8[i] = {255, 51, 0, static_cast<std::uint8_t>(i * 100)};
  }
  // Only one slot is left: claimRun gives what there is, then nothing.
  look.frameIndex = 8;
  run = batcher.claimRun(3, look);
  ASSERT_EQ(run.count, 1u);
  run.posX[0] = 9.0f;
  run.posY[0] = 9.0f;
  run.depthKey[0] = 10;
  run.size[0] = 1.0f;
  run.tint8[0] = {0, 0, 0, 0};
  EXPECT_EQ(batcher.claimRun(1, look).count, 0u);
  EXPECT_EQ(batcher.size(), 5u);

  // Slot 2 reads back as the full SpriteItem the run declared: tint8 / 255, square scale, the look.
  SpriteItem expected;
  expected.pos = {1.5f, -1.0f};
  expected.depthKey = 19;
  expected.depthOverride = true;
  expected.scale = {4.0f, 4.0f};
  expected.tint = {1.0f, 0.2f, 0.0f, 100.0f / 255.0f};  // 51/255 = 0.2 exactly rounded
  expected.uv = {0.0f, 0.5f, 0.25f, 1.0f};
  expected.frameIndex = 7;
  expected.rotation = 0.25f;
  expected.atlasId = 3;
  expected.materialId = 4;
  expected.blend = BlendMode::Premultiplied;
  EXPECT_TRUE(sameItem(batcher.at(2), expected));
  EXPECT_TRUE(sameItem(batcher.at(0), makeItem(0, 30)));

  ASSERT_TRUE(batcher.build().ok());
  std::vector<std::uint32_t> keys;
  for (const SpriteItem& item : batcher.sorted())
    keys.push_back(item.depthKey);
  // Two groups (the add()ed sprite's material, then the runs' shared one), each in depth order.
  EXPECT_EQ(keys, (std::vector<std::uint32_t>{10, 18, 19, 20, 30}));
  ASSERT_EQ(batcher.batches().size(), 2u);
  EXPECT_TRUE(sameItem(batcher.sorted()[2], expected));
  EXPECT_EQ(batcher.sorted()[0].frameIndex, 8u);
  // Closed window and stopped batcher: nothing to claim (add() says why).
  EXPECT_EQ(batcher.claimRun(1, look).count, 0u);
  EXPECT_EQ(SpriteBatcher{}.claimRun(1, look).count, 0u);
  batcher.beginFrame();
  EXPECT_EQ(batcher.claimRun(0, look).count, 0u);
  EXPECT_EQ(batcher.size(), 0u);
}

TEST(SpriteBatcherProtocol, RunsAndAddsInAnOverflowingFrameReadBackExactly) {
  // Runs fill the first slots, then adds with distinct looks overflow the ring many times over
  // them: each survivor must read back as exactly what was added.
  SpriteBatcher batcher = makeBatcher(7);
  for (std::uint32_t i = 0; i < 200; ++i) {
    ASSERT_TRUE(batcher.add(makeItem(i, 1000 - i, i, i % 5)).ok());
    if (i % 3 == 0) {
      SpriteLook look;
      look.frameIndex = 10000 + i;
      const SpriteRunSlots run = batcher.claimRun(1, look);
      for (std::uint32_t k = 0; k < run.count; ++k) {
        run.posX[k] = run.posY[k] = run.size[k] = 1.0f;
        run.depthKey[k] = 0;
        run.tint8[k] = {1, 2, 3, 4};
      }
    }
  }
  ASSERT_EQ(batcher.size(), 7u);
  for (std::uint32_t slot = 0; slot < 7; ++slot)
    EXPECT_TRUE(sameItem(batcher.at(slot),
                         makeItem(193 + slot, 1000 - (193 + slot), 193 + slot, (193 + slot) % 5)))
        << slot;
}

TEST(SpriteBatcherSort, ViewDepthKeysDrawThreeDSpritesBackToFront) {
  // Hand-checked bit maps: +0 → 0x80000000, 1.0 → 0xBF800000, −1.0 → ~0xBF800000 = 0x407FFFFF.
  static_assert(orderedFloatBits(0.0f) == 0x80000000u);
  static_assert(orderedFloatBits(1.0f) == 0xBF800000u);
  static_assert(orderedFloatBits(-1.0f) == 0x407FFFFFu);
  static_assert(orderedFloatBits(-0.0f) == 0x7FFFFFFFu);  // −0 just below +0
  static_assert(viewDepthKey(10.0f) < viewDepthKey(2.0f));
  static_assert(viewDepthKeyFrontToBack(2.0f) < viewDepthKeyFrontToBack(10.0f));
  SpriteBatcher batcher = makeBatcher(8);
  const std::array<float, 5> depths{3.0f, 40.0f, 0.5f, 3.0f, 12.0f};
  for (std::uint32_t i = 0; i < depths.size(); ++i)
    ASSERT_TRUE(batcher.add(makeItem(i, viewDepthKey(depths[i]))).ok());
  ASSERT_TRUE(batcher.build().ok());
  std::vector<std::uint32_t> order;
  for (const SpriteItem& item : batcher.sorted())
    order.push_back(item.frameIndex);
  // Farthest first; the two at 3 m keep their declaration order.
  EXPECT_EQ(order, (std::vector<std::uint32_t>{1, 4, 0, 3, 2}));
}

TEST(SpriteBatcherSort, EqualKeysKeepDeclarationOrder) {
  SpriteBatcher batcher = makeBatcher(8);
  declareKeysAndBuild(batcher, {5, 5, 5, 1, 5, 1, 0x0100});
  EXPECT_EQ(tags(batcher.sorted()), (std::vector<std::uint32_t>{3, 5, 0, 1, 2, 4, 6}));
}

TEST(SpriteBatcherSort, AllEqualKeysRunNoPass) {
  SpriteBatcher batcher = makeBatcher(8);
  declareKeysAndBuild(batcher, {0xDEADBEEF, 0xDEADBEEF, 0xDEADBEEF, 0xDEADBEEF});
  EXPECT_EQ(tags(batcher.sorted()), (std::vector<std::uint32_t>{0, 1, 2, 3}));
  EXPECT_EQ(batcher.stats().radixPassesRun, 0u);
}

TEST(SpriteBatcherSort, KeysDifferingOnlyInTheLowByteRunOnePass) {
  SpriteBatcher batcher = makeBatcher(8);
  declareKeysAndBuild(batcher, {0xAB0000F3, 0xAB000001, 0xAB000002, 0xAB000001, 0xAB000000});
  EXPECT_EQ(tags(batcher.sorted()), (std::vector<std::uint32_t>{4, 1, 3, 2, 0}));
  EXPECT_EQ(batcher.stats().radixPassesRun, 1u);
}

TEST(SpriteBatcherSort, KeysDifferingOnlyInTheHighByteRunOnePass) {
  SpriteBatcher batcher = makeBatcher(8);
  declareKeysAndBuild(batcher, {0x0300FFFF, 0x0100FFFF, 0xFF00FFFF, 0x0200FFFF, 0x0100FFFF});
  EXPECT_EQ(tags(batcher.sorted()), (std::vector<std::uint32_t>{1, 4, 3, 0, 2}));
  EXPECT_EQ(batcher.stats().radixPassesRun, 1u);
}

TEST(SpriteBatcherSort, KeysDifferingInTheLowAndHighBytesRunTwoPasses) {
  SpriteBatcher batcher = makeBatcher(8);
  // Bits 0-7 and 24-31 vary, bits 8-23 never do.
  declareKeysAndBuild(batcher, {0x02123402, 0x01123403, 0x02123401, 0x01123403});
  EXPECT_EQ(tags(batcher.sorted()), (std::vector<std::uint32_t>{1, 3, 2, 0}));
  EXPECT_EQ(batcher.stats().radixPassesRun, 2u);
}

TEST(SpriteBatcherSort, FullRangeKeysIncludingTheExtremes) {
  SpriteBatcher batcher = makeBatcher(16);
  declareKeysAndBuild(batcher, {
                                   0xFFFFFFFF,  // 0
                                   0x00000000,  // 1
                                   0x80000000,  // 2
                                   0x7FFFFFFF,  // 3
                                   0x00000001,  // 4
                                   0xFFFFFFFE,  // 5
                                   0x00FF00FF,  // 6
                                   0xFFFFFFFF,  // 7
                                   0x00000000,  // 8
                                   0x01000000,  // 9
                               });
  EXPECT_EQ(tags(batcher.sorted()), (std::vector<std::uint32_t>{1, 8, 4, 6, 9, 3, 2, 5, 0, 7}));
  EXPECT_EQ(batcher.stats().radixPassesRun, 4u);  // every digit varies
}

TEST(SpriteBatcherSort, DescendingInputComesOutAscending) {
  SpriteBatcher batcher = makeBatcher(1024);
  std::vector<std::uint32_t> keys;
  for (std::uint32_t i = 0; i < 1000; ++i)
    keys.push_back((999 - i) * 4099u);
  declareKeysAndBuild(batcher, keys);
  const std::span<const SpriteItem> sorted = batcher.sorted();
  ASSERT_EQ(sorted.size(), 1000u);
  for (std::uint32_t i = 0; i < 1000; ++i)
    EXPECT_EQ(sorted[i].frameIndex, 999 - i);
}

// ---------------------------------------------------------------------------------------------
// Grouping

TEST(SpriteBatcherGroup, InterleavedMaterialsMakeOneBatchEachInFirstDepthOrder) {
  SpriteBatcher batcher = makeBatcher(16);
  // tag, depthKey, materialId, atlasId, blend
  ASSERT_TRUE(batcher.add(makeItem(0, 40, 1)).ok());
  ASSERT_TRUE(batcher.add(makeItem(1, 10, 2)).ok());
  ASSERT_TRUE(batcher.add(makeItem(2, 30, 1)).ok());
  ASSERT_TRUE(batcher.add(makeItem(3, 20, 1, 0, BlendMode::Additive)).ok());
  ASSERT_TRUE(batcher.add(makeItem(4, 10, 1)).ok());
  ASSERT_TRUE(batcher.add(makeItem(5, 50, 1, 1)).ok());
  ASSERT_TRUE(batcher.add(makeItem(6, 20, 2)).ok());
  ASSERT_TRUE(batcher.build().ok());
  // Depth order: 1 (M2), 4 (M1), 3 (M1 additive), 6 (M2), 2 (M1), 0 (M1), 5 (atlas 1).
  EXPECT_EQ(tags(batcher.sorted()), (std::vector<std::uint32_t>{1, 6, 4, 2, 0, 3, 5}));
  const std::vector<SpriteBatch> expected = {
      {0, 2, BlendMode::Alpha, 0, 2},
      {0, 1, BlendMode::Alpha, 2, 3},
      {0, 1, BlendMode::Additive, 5, 1},
      {1, 1, BlendMode::Alpha, 6, 1},
  };
  EXPECT_EQ(std::vector<SpriteBatch>(batcher.batches().begin(), batcher.batches().end()), expected);
  EXPECT_EQ(batcher.stats().batches, 4u);
  // at() still reads declaration order.
  EXPECT_EQ(declaredTags(batcher), (std::vector<std::uint32_t>{0, 1, 2, 3, 4, 5, 6}));
}

TEST(SpriteBatcherGroup, OneMaterialIsOneBatch) {
  SpriteBatcher batcher = makeBatcher(10000);
  batcher.beginFrame();
  for (std::uint32_t i = 0; i < 10000; ++i)
    ASSERT_TRUE(batcher.add(makeItem(i, 10000 - i, 7, 3, BlendMode::Additive)).ok());
  ASSERT_TRUE(batcher.build().ok());
  ASSERT_EQ(batcher.batches().size(), 1u);
  EXPECT_EQ(batcher.batches()[0], (SpriteBatch{3, 7, BlendMode::Additive, 0, 10000}));
  EXPECT_EQ(batcher.sorted().front().frameIndex, 9999u);
  EXPECT_EQ(batcher.sorted().back().frameIndex, 0u);
}

TEST(SpriteBatcherGroup, EverySpriteItsOwnMaterialFillsTheTable) {
  // As many distinct groups as the capacity, twice, so the second frame probes a table the first
  // frame must have cleared.
  SpriteBatcher batcher = makeBatcher(257);
  for (int frame = 0; frame < 2; ++frame) {
    batcher.beginFrame();
    for (std::uint32_t i = 0; i < 257; ++i)
      ASSERT_TRUE(batcher
                      .add(makeItem(i, 257 - i, i * 31u + static_cast<std::uint32_t>(frame), i % 3,
                                    static_cast<BlendMode>(i % 4)))
                      .ok());
    ASSERT_TRUE(batcher.build().ok());
    ASSERT_EQ(batcher.batches().size(), 257u);
    for (std::uint32_t b = 0; b < 257; ++b) {
      const SpriteBatch& batch = batcher.batches()[b];
      EXPECT_EQ(batch.first, b);
      EXPECT_EQ(batch.count, 1u);
      EXPECT_EQ(batch.materialId, (256 - b) * 31u + static_cast<std::uint32_t>(frame));
      EXPECT_EQ(batcher.sorted()[b].frameIndex, 256 - b);
    }
  }
}

TEST(SpriteBatcherGroup, SortedItemsAreFullCopies) {
  SpriteBatcher batcher = makeBatcher(4);
  SpriteItem item;
  item.pos = {1.5f, -2.0f};
  item.depthKey = 77;
  item.depthOverride = true;
  item.scale = {3.0f, 4.0f};
  item.tint = {0.1f, 0.2f, 0.3f, 0.4f};
  item.uv = {0.25f, 0.5f, 0.75f, 1.0f};
  item.frameIndex = 12;
  item.rotation = 0.5f;
  item.atlasId = 9;
  item.materialId = 8;
  item.blend = BlendMode::Cutout;
  ASSERT_TRUE(batcher.add(item).ok());
  ASSERT_TRUE(batcher.build().ok());
  ASSERT_EQ(batcher.sorted().size(), 1u);
  EXPECT_TRUE(sameItem(batcher.sorted()[0], item));
  EXPECT_TRUE(sameItem(batcher.at(0), item));
}

// ---------------------------------------------------------------------------------------------
// Overflow

struct CapturedWarning {
  LogLevel level = LogLevel::Off;
  std::string tag;
  std::string message;
  std::vector<std::pair<std::string, std::int64_t>> fields;
};

void captureSink(void* user, const LogRecord& record) {
  CapturedWarning copy{record.level, std::string(record.tag), std::string(record.message), {}};
  for (const LogField& field : record.fields)
    copy.fields.emplace_back(std::string(field.key), field.value);
  static_cast<std::vector<CapturedWarning>*>(user)->push_back(std::move(copy));
}

using Fields = std::vector<std::pair<std::string, std::int64_t>>;

class SpriteBatcherOverflow : public ::testing::Test {
 protected:
  void SetUp() override {
    savedLevel_ = logLevel();
    setLogLevel(LogLevel::Info);
    defaultRateLimiter().reset();
    setLogSink(&captureSink, &warnings_);
  }
  void TearDown() override {
    setLogSink(nullptr, nullptr);
    setLogLevel(savedLevel_);
    defaultRateLimiter().reset();
  }

  std::vector<CapturedWarning> warnings_;

 private:
  LogLevel savedLevel_ = LogLevel::Info;
};

TEST_F(SpriteBatcherOverflow, DropsTheOldestDeclarations) {
  SpriteBatcher batcher = makeBatcher(3);
  for (std::uint32_t tag = 1; tag <= 5; ++tag)
    ASSERT_TRUE(batcher.add(makeItem(tag, 10 - tag)).ok());  // overflow is not an error
  EXPECT_EQ(batcher.size(), 3u);
  EXPECT_EQ(declaredTags(batcher), (std::vector<std::uint32_t>{3, 4, 5}));
  EXPECT_EQ(batcher.stats().declared, 3u);
  EXPECT_EQ(batcher.stats().droppedFrame, 2u);
  EXPECT_EQ(batcher.stats().droppedTotal, 2u);
  EXPECT_TRUE(warnings_.empty());  // build() reports, not add()

  ASSERT_TRUE(batcher.build().ok());
  EXPECT_EQ(tags(batcher.sorted()), (std::vector<std::uint32_t>{5, 4, 3}));
  ASSERT_EQ(warnings_.size(), 1u);
  EXPECT_EQ(warnings_[0].level, LogLevel::Warn);
  EXPECT_EQ(warnings_[0].tag, "sprites/frame_overflow");
  EXPECT_EQ(warnings_[0].message, "sprite frame over capacity; oldest declarations dropped");
  EXPECT_EQ(warnings_[0].fields, (Fields{{"dropped", 2}, {"capacity", 3}}));
}

TEST_F(SpriteBatcherOverflow, AnAbandonedFrameReportsItsDropsAtBeginFrame) {
  SpriteBatcher batcher = makeBatcher(2);
  for (std::uint32_t tag = 1; tag <= 5; ++tag)
    ASSERT_TRUE(batcher.add(makeItem(tag, 0)).ok());
  EXPECT_TRUE(warnings_.empty());
  batcher.beginFrame();  // no build(): the frame is abandoned, its 3 drops still reported
  ASSERT_EQ(warnings_.size(), 1u);
  EXPECT_EQ(warnings_[0].fields, (Fields{{"dropped", 3}, {"capacity", 2}}));
  defaultRateLimiter().reset();
  batcher.beginFrame();  // nothing dropped in that frame: nothing more
  EXPECT_EQ(warnings_.size(), 1u);
}

TEST_F(SpriteBatcherOverflow, TheRingWrapsManyTimes) {
  SpriteBatcher batcher = makeBatcher(4);
  for (std::uint32_t tag = 0; tag < 11; ++tag)
    ASSERT_TRUE(batcher.add(makeItem(tag, tag % 2)).ok());
  EXPECT_EQ(declaredTags(batcher), (std::vector<std::uint32_t>{7, 8, 9, 10}));
  EXPECT_EQ(batcher.stats().droppedFrame, 7u);
  ASSERT_TRUE(batcher.build().ok());
  // Keys 1, 0, 1, 0: the stable tie-break follows the surviving declaration order.
  EXPECT_EQ(tags(batcher.sorted()), (std::vector<std::uint32_t>{8, 10, 7, 9}));
}

TEST_F(SpriteBatcherOverflow, OneWarningPerOverflowingFrame) {
  SpriteBatcher batcher = makeBatcher(2);
  for (std::uint32_t tag = 0; tag < 5; ++tag)
    ASSERT_TRUE(batcher.add(makeItem(tag, 0)).ok());
  ASSERT_TRUE(batcher.build().ok());
  ASSERT_EQ(warnings_.size(), 1u);
  EXPECT_EQ(warnings_[0].fields, (Fields{{"dropped", 3}, {"capacity", 2}}));

  // A frame that fits warns nothing; droppedTotal keeps counting across frames.
  batcher.beginFrame();
  EXPECT_EQ(batcher.stats().droppedFrame, 0u);
  ASSERT_TRUE(batcher.add(makeItem(0, 0)).ok());
  ASSERT_TRUE(batcher.build().ok());
  EXPECT_EQ(warnings_.size(), 1u);

  defaultRateLimiter().reset();  // start a fresh limiter window
  batcher.beginFrame();
  for (std::uint32_t tag = 0; tag < 3; ++tag)
    ASSERT_TRUE(batcher.add(makeItem(tag, 0)).ok());
  ASSERT_TRUE(batcher.build().ok());
  ASSERT_EQ(warnings_.size(), 2u);
  EXPECT_EQ(warnings_[1].fields, (Fields{{"dropped", 1}, {"capacity", 2}}));
  EXPECT_EQ(batcher.stats().droppedTotal, 4u);

  // The warning goes through the process-wide limiter: a second overflowing frame within its
  // window (1 s; this frame takes microseconds) is suppressed there.
  batcher.beginFrame();
  for (std::uint32_t tag = 0; tag < 3; ++tag)
    ASSERT_TRUE(batcher.add(makeItem(tag, 0)).ok());
  ASSERT_TRUE(batcher.build().ok());
  EXPECT_EQ(warnings_.size(), 2u);
  EXPECT_EQ(batcher.stats().droppedTotal, 5u);
}

// ---------------------------------------------------------------------------------------------
// Allocation

TEST(SpriteBatcherAllocation, DeclareAndBuildAllocateNothing) {
  if (!allocationWatchInstalled()) GTEST_SKIP() << "the allocation watch is not linked";
  constexpr std::uint32_t kSprites = 10000;
  SpriteBatcher batcher = makeBatcher(kSprites);
  std::vector<SpriteItem> items;
  Prng prng(2024);
  for (std::uint32_t i = 0; i < kSprites; ++i)
    items.push_back(makeItem(i, prng.nextU32(), prng.nextRange(0, 4)));

  std::uint64_t failures = 0;
  std::uint64_t batchSum = 0;
  AllocationScope scope;
  for (std::uint32_t frame = 0; frame < 1000; ++frame) {
    batcher.beginFrame();
    for (SpriteItem& item : items) {
      item.depthKey += frame;  // a moving scene: the keys change every frame
      if (!batcher.add(item).ok()) ++failures;
    }
    if (!batcher.build().ok()) ++failures;
    batchSum += batcher.batches().size();
  }
  const std::uint64_t allocations = scope.allocations();
  EXPECT_EQ(allocations, 0u);
  EXPECT_EQ(failures, 0u);
  EXPECT_EQ(batchSum, 4000u);
  EXPECT_EQ(batcher.sorted().size(), kSprites);
}

// ---------------------------------------------------------------------------------------------
// Randomized comparison against a reference built from std::stable_sort

struct Reference {
  std::vector<std::uint32_t> sortedTags;
  std::vector<SpriteBatch> batches;
  std::uint32_t passes = 0;
};

Reference referenceBuild(const std::vector<SpriteItem>& survivors) {
  std::vector<std::uint32_t> depthOrder(survivors.size());
  std::iota(depthOrder.begin(), depthOrder.end(), 0u);
  std::stable_sort(depthOrder.begin(), depthOrder.end(), [&](std::uint32_t a, std::uint32_t b) {
    return survivors[a].depthKey < survivors[b].depthKey;
  });

  using GroupKey = std::tuple<std::uint32_t, std::uint32_t, BlendMode>;
  std::map<GroupKey, std::size_t> groupIndex;
  std::vector<std::vector<std::uint32_t>> members;
  Reference ref;
  for (std::uint32_t i : depthOrder) {
    const SpriteItem& item = survivors[i];
    const GroupKey key{item.atlasId, item.materialId, item.blend};
    auto [it, inserted] = groupIndex.try_emplace(key, members.size());
    if (inserted) {
      members.emplace_back();
      ref.batches.push_back({item.atlasId, item.materialId, item.blend, 0, 0});
    }
    members[it->second].push_back(item.frameIndex);
  }
  std::uint32_t first = 0;
  for (std::size_t b = 0; b < members.size(); ++b) {
    ref.batches[b].first = first;
    ref.batches[b].count = static_cast<std::uint32_t>(members[b].size());
    first += ref.batches[b].count;
    ref.sortedTags.insert(ref.sortedTags.end(), members[b].begin(), members[b].end());
  }
  for (std::uint32_t shift = 0; shift < 32; shift += 8) {
    bool varies = false;
    for (const SpriteItem& item : survivors)
      varies =
          varies || ((item.depthKey >> shift) & 0xFF) != ((survivors[0].depthKey >> shift) & 0xFF);
    if (varies) ++ref.passes;
  }
  return ref;
}

// Overflowing frames warn: the fixture captures the records instead of printing them.
using SpriteBatcherRandomized = SpriteBatcherOverflow;

TEST_F(SpriteBatcherRandomized, MatchesAStableSortReference) {
  constexpr std::uint32_t kCapacity = 512;
  SpriteBatcher batcher = makeBatcher(kCapacity);  // reused: every frame starts from beginFrame()
  Prng prng(0x5EED);
  for (int frame = 0; frame < 50; ++frame) {
    SCOPED_TRACE("frame " + std::to_string(frame));
    const std::uint32_t declared = prng.nextRange(0, kCapacity + kCapacity / 2);
    const std::uint32_t keyMode = prng.nextRange(0, 5);
    const std::uint32_t materialRange = prng.nextRange(0, 3) == 0 ? 100000 : 4;
    std::vector<SpriteItem> all;
    for (std::uint32_t i = 0; i < declared; ++i) {
      const std::uint32_t random = prng.nextU32();
      // Key shapes: the full 32-bit range, many ties, the high byte only, the low byte only, and
      // only the extremes 0 and 0xFFFFFFFF.
      const std::uint32_t keys[] = {random, random & 7, (random & 0xFF000000u) | 0x00ABCDEFu,
                                    0x12345600u | (random & 0xFF),
                                    (random & 1) == 0 ? 0u : 0xFFFFFFFFu};
      const std::uint32_t key = keys[keyMode];
      SpriteItem item = makeItem(i, key, prng.nextRange(0, materialRange), prng.nextRange(0, 2),
                                 static_cast<BlendMode>(prng.nextRange(0, 4)));
      item.pos = {static_cast<float>(i), static_cast<float>(key & 0xFFFF)};
      all.push_back(item);
    }

    batcher.beginFrame();
    for (const SpriteItem& item : all)
      ASSERT_TRUE(batcher.add(item).ok());
    ASSERT_TRUE(batcher.build().ok());

    const std::size_t dropped = all.size() > kCapacity ? all.size() - kCapacity : 0;
    const std::vector<SpriteItem> survivors(all.begin() + static_cast<std::ptrdiff_t>(dropped),
                                            all.end());
    EXPECT_EQ(batcher.stats().droppedFrame, dropped);
    ASSERT_EQ(batcher.size(), survivors.size());
    for (std::uint32_t slot = 0; slot < batcher.size(); ++slot)
      ASSERT_TRUE(sameItem(batcher.at(slot), survivors[slot])) << "slot " << slot;

    const Reference ref = referenceBuild(survivors);
    EXPECT_EQ(tags(batcher.sorted()), ref.sortedTags);
    EXPECT_EQ(std::vector<SpriteBatch>(batcher.batches().begin(), batcher.batches().end()),
              ref.batches);
    EXPECT_EQ(batcher.stats().batches, ref.batches.size());
    EXPECT_EQ(batcher.stats().radixPassesRun, ref.passes);
    for (const SpriteItem& item : batcher.sorted())
      ASSERT_TRUE(sameItem(item, survivors[item.frameIndex - dropped]));
  }
}

}  // namespace
}  // namespace mote::render
