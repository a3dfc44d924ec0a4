// SPDX-License-Identifier: MIT
// laige seed 000 unit suite: the depth conversion, the iso key, the per-particle declaration and
// the frame protocol of declareParticles.
#include "declare_run.h"
#include "lockstep/scenario.h"
#include "support/log_capture.h"

#include <mote/core/alloc_watch.h>
#include <mote/core/fnv1a.h>
#include <mote/core/prng.h>
#include <mote/lockstep/particle_render.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdio>
#include <limits>
#include <span>
#include <type_traits>
#include <vector>

namespace mote::lockstep {
namespace {

using fixtures::makeSystem;
using fixtures::num;
using fixtures::sparks;
using fixtures::vec;
using Fx = Fpx16_16;
using render::BlendMode;
using render::SpriteBatcher;

SpriteBatcher makeBatcher(std::uint32_t maxSprites) {
  return std::move(SpriteBatcher::create({maxSprites})).takeValue();
}

template <typename B>
class ParticleRenderTyped : public ::testing::Test {};
using Backends = ::testing::Types<Fpx16_16, Fp32>;
TYPED_TEST_SUITE(ParticleRenderTyped, Backends);

TYPED_TEST(ParticleRenderTyped, DepthToStepHeightClampsFirstThenRoundsTiesToEven) {
  const auto step = [](float d) { return particleDepthToStepHeight(TypeParam::fromFloat(d)); };
  EXPECT_EQ(step(0.5f), 0);
  EXPECT_EQ(step(1.5f), 2);
  EXPECT_EQ(step(2.5f), 2);
  EXPECT_EQ(step(-0.5f), 0);
  EXPECT_EQ(step(-1.5f), -2);
  EXPECT_EQ(step(0.75f), 1);
  EXPECT_EQ(step(3000.0f), 2047);
  EXPECT_EQ(step(-3000.0f), -2047);
  EXPECT_EQ(step(2047.5f), 2047);  // clamped before rounding (rounding first would give 2048)
  EXPECT_EQ(step(-2047.5f), -2047);
  EXPECT_EQ(step(2046.5f), 2046);
}

TEST(ParticleRender, NaNDepthFallsThroughToPlus2047) {
  EXPECT_EQ(particleDepthToStepHeight(Fp32::fromFloat(std::numeric_limits<float>::quiet_NaN())),
            2047);
  EXPECT_EQ(particleDepthToStepHeight(Fp32::fromFloat(std::numeric_limits<float>::infinity())),
            2047);
  EXPECT_EQ(particleDepthToStepHeight(Fp32::fromFloat(-std::numeric_limits<float>::infinity())),
            -2047);
}

TYPED_TEST(ParticleRenderTyped, IsoDepthKeyPacking) {
  const auto key = [](float x, float y, std::int32_t z, std::int32_t layer) {
    return isoDepthKey(vec<TypeParam>(x, y), z, layer);
  };
  // (0 + 512) << 22 = 0x80000000; round((1.5 + 2.25) · 16) = 60; 2^21 = 0x200000.
  EXPECT_EQ(key(1.5f, 2.25f, 0, 0), 0x8020003Cu);
  EXPECT_EQ(key(1.5f, 2.25f, 2, 0), 0x8020001Cu);      // − 2 · 16
  EXPECT_EQ(key(1.5f, 2.25f, -2047, 0), 0x8020802Cu);  // + 32752
  EXPECT_EQ(key(1.5f, 2.25f, 0, -1), 0x7FE0003Cu);     // layer −1 → 511 << 22
  EXPECT_EQ(key(1.5f, 2.25f, 0, 511), 0xFFE0003Cu);
  EXPECT_EQ(key(0.0f, 0.0f, 0, -512), 0x00200000u);
  EXPECT_EQ(key(-1.0f, -2.0f, 0, 0), 0x80200000u - 48u);  // round(−3 · 16) = −48
  // Ties to even in the (x + y) · 16 rounding: 1/32 · 16 = 0.5 → 0; 3/32 · 16 = 1.5 → 2.
  EXPECT_EQ(key(0.03125f, 0.0f, 0, 0), 0x80200000u);
  EXPECT_EQ(key(0.09375f, 0.0f, 0, 0), 0x80200002u);
  // Out-of-domain inputs clamp: z beyond ±2047 and layers beyond [−512, 511].
  EXPECT_EQ(key(0.0f, 0.0f, 5000, 0), key(0.0f, 0.0f, 2047, 0));
  EXPECT_EQ(key(0.0f, 0.0f, 0, 900), key(0.0f, 0.0f, 0, 511));
  // Larger x + y draws later (nearer the viewer in iso).
  EXPECT_LT(key(1.0f, 1.0f, 0, 0), key(1.0f, 2.0f, 0, 0));
}

TEST(ParticleRender, IsoDepthKeyIsExactAcrossTheWholeFpxRange) {
  // No saturation at the Q16.16 range: x + y = 65535.99… still packs; 2^21 + 1048576 fits 22 bits.
  const Vec2<Fx> far{Fx::max(), Fx::max()};
  EXPECT_EQ(isoDepthKey(far, 0, 0), 0x80000000u | (0x200000u + 1048576u));
  const Vec2<Fx> near{Fx::min(), Fx::min()};
  EXPECT_EQ(isoDepthKey(near, 0, 0), 0x80000000u | (0x200000u - 1048576u));
}

TEST(ParticleRender, Fp32IsoDepthKeyMatchesTheToInt32DefinitionEverywhere) {
  // The key's fp32 path clamps (x + y)·16 to ±2^23 before rounding instead of saturating in
  // toInt32; the field clamp makes the two agree. Checked against the definition on edge values
  // (NaN, infinities, the float range, ties, the clamp points) and random bit patterns.
  const auto reference = [](float x, float y, std::int32_t z, std::int32_t layer) {
    const std::int64_t xy16 =
        ((Fp32::fromFloat(x) + Fp32::fromFloat(y)) * Fp32::fromInt(16)).toInt32();
    const std::int64_t zc = std::clamp(z, -kIsoDepthMaxStepHeight, kIsoDepthMaxStepHeight);
    const std::int64_t field =
        std::clamp<std::int64_t>(xy16 - zc * 16 + (1 << 21), 0, (1 << 22) - 1);
    const std::int32_t lc = std::clamp(layer, -512, 511);
    return (static_cast<std::uint32_t>(lc + 512) << 22) | static_cast<std::uint32_t>(field);
  };
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const float big = std::numeric_limits<float>::max();
  std::vector<float> values{0.0f,  -0.0f,     0.03125f,      0.09375f,   -0.03125f, 1.5f,
                            -2.5f, 131072.0f, 131072.03125f, -131072.0f, 262144.0f, 524288.0f,
                            1e9f,  -1e9f,     big,           -big,       inf,       -inf,
                            nan,   65535.97f, 8388608.0f,    -8388607.5f};
  Prng rng(7);
  for (int i = 0; i < 4000; ++i)
    values.push_back(std::bit_cast<float>(rng.nextU32()));
  for (std::size_t i = 0; i < values.size(); ++i) {
    const float x = values[i];
    const float y = values[(i * 7 + 3) % values.size()];
    for (const std::int32_t z : {0, 2047, -2047}) {
      const std::uint32_t got =
          isoDepthKey(Vec2<Fp32>{Fp32::fromFloat(x), Fp32::fromFloat(y)}, z, 0);
      ASSERT_EQ(got, reference(x, y, z, 0)) << x << " + " << y << ", z " << z;
    }
  }
}

TEST(ParticleRender, OptionDefaults) {
  const ParticleDeclareOptions o;
  EXPECT_EQ(o.blend, BlendMode::Additive);
  EXPECT_EQ(o.uv, (render::SpriteUvRect{0.0f, 0.0f, 1.0f, 1.0f}));
  EXPECT_EQ(o.layer, 0);
  EXPECT_EQ(o.atlasId, 0u);
  EXPECT_EQ(o.materialId, 0u);
  EXPECT_EQ(kTintChannelDivisor, 255.0f);
}

TYPED_TEST(ParticleRenderTyped, DeclaresEachLiveParticleAsDocumented) {
  auto s = makeSystem<TypeParam>(8, 1, 42);
  ParticleEmitterDef<TypeParam> def = sparks<TypeParam>();
  def.origin = vec<TypeParam>(1.5f, 2.25f);
  def.depth = num<TypeParam>(0.5f);  // step height 0 (ties to even)
  def.velMin = def.velMax = vec<TypeParam>(0.25f, -0.5f);
  def.sizeMin = def.sizeMax = num<TypeParam>(0.75f);
  def.tint = {255, 128, 0, 200};
  def.lifeMin = def.lifeMax = 10;
  def.fadeTicks = 8;
  const auto id = s.addEmitter(def).value();
  ASSERT_TRUE(s.burst(id, 2).ok());
  for (int t = 0; t < 3; ++t)
    s.update();  // age 3, remaining 7 < 8: alpha 200 · 7 / 8 = 175

  SpriteBatcher batcher = makeBatcher(16);
  ParticleDeclareOptions options;
  options.atlasId = 7;
  options.materialId = 3;
  options.blend = BlendMode::Premultiplied;
  options.uv = {0.25f, 0.5f, 0.5f, 0.75f};
  options.layer = 2;
  ASSERT_TRUE(declareParticles(batcher, s, options).ok());
  ASSERT_EQ(batcher.size(), 2u);
  for (std::uint32_t slot = 0; slot < 2; ++slot) {
    const render::SpriteItem& item = batcher.at(slot);
    EXPECT_EQ(item.pos.x, 2.25f);  // 1.5 + 3 · 0.25
    EXPECT_EQ(item.pos.y, 0.75f);  // 2.25 − 3 · 0.5
    // (2 + 512) << 22 | (round(3 · 16) − 0 + 2^21)
    EXPECT_EQ(item.depthKey, (514u << 22) | (0x200000u + 48u));
    EXPECT_FALSE(item.depthOverride);
    EXPECT_EQ(item.scale, (render::SpriteVec2{0.75f, 0.75f}));
    EXPECT_EQ(item.tint.r, 1.0f);
    EXPECT_EQ(item.tint.g, 128.0f / 255.0f);
    EXPECT_EQ(item.tint.b, 0.0f);
    EXPECT_EQ(item.tint.a, 175.0f / 255.0f);
    EXPECT_EQ(item.uv, options.uv);
    EXPECT_EQ(item.frameIndex, 0u);
    EXPECT_EQ(item.rotation, 0.0f);
    EXPECT_EQ(item.atlasId, 7u);
    EXPECT_EQ(item.materialId, 3u);
    EXPECT_EQ(item.blend, BlendMode::Premultiplied);
  }
}

TYPED_TEST(ParticleRenderTyped, FrameProtocolFailuresAndTheEmptySystem) {
  mote::test::LogCounter quiet;
  auto empty = makeSystem<TypeParam>(8, 1, 1);
  auto s = makeSystem<TypeParam>(8, 1, 1);
  const auto id = s.addEmitter(sparks<TypeParam>()).value();
  ASSERT_TRUE(s.burst(id, 3).ok());

  SpriteBatcher stopped;
  EXPECT_TRUE(declareParticles(stopped, empty).ok());  // no add attempted
  EXPECT_EQ(declareParticles(stopped, s).code(), StatusCode::BudgetExhausted);

  SpriteBatcher batcher = makeBatcher(8);
  ASSERT_TRUE(batcher.build().ok());
  EXPECT_EQ(declareParticles(batcher, s).code(), StatusCode::InvalidArgument);  // closed window
  EXPECT_TRUE(declareParticles(batcher, empty).ok());
  batcher.beginFrame();
  EXPECT_TRUE(declareParticles(batcher, s).ok());
  EXPECT_EQ(batcher.size(), 3u);

  // Over the batcher's budget: the oldest declarations go, and the call still succeeds.
  SpriteBatcher small = makeBatcher(2);
  EXPECT_TRUE(declareParticles(small, s).ok());
  EXPECT_EQ(small.size(), 2u);
  EXPECT_EQ(small.at(0).pos, batcher.at(1).pos);
  EXPECT_EQ(small.stats().droppedFrame, 1u);
}

TYPED_TEST(ParticleRenderTyped, EachSystemIsOneBatch) {
  mote::test::LogCounter quiet;
  auto a = makeSystem<TypeParam>(64, 1, 1);
  auto b = makeSystem<TypeParam>(64, 1, 2);
  ParticleEmitterDef<TypeParam> def = sparks<TypeParam>();
  def.continuousRate = 5;
  ASSERT_TRUE(a.addEmitter(def).ok());
  def.origin = vec<TypeParam>(-3.0f, 4.0f);
  ASSERT_TRUE(b.addEmitter(def).ok());
  for (int t = 0; t < 10; ++t) {
    a.update();
    b.update();
  }
  SpriteBatcher batcher = makeBatcher(256);
  ASSERT_TRUE(declareParticles(batcher, a, {.atlasId = 1}).ok());
  ASSERT_TRUE(declareParticles(batcher, b, {.atlasId = 2}).ok());
  ASSERT_TRUE(batcher.build().ok());
  ASSERT_EQ(batcher.batches().size(), 2u);
  EXPECT_EQ(batcher.batches()[0].count + batcher.batches()[1].count, a.liveCount() + b.liveCount());
  for (const render::SpriteBatch& batch : batcher.batches()) {
    EXPECT_EQ(batch.count, batch.atlasId == 1 ? a.liveCount() : b.liveCount());
    const auto sprites = batcher.sorted().subspan(batch.first, batch.count);
    for (std::size_t i = 1; i < sprites.size(); ++i) {
      EXPECT_LE(sprites[i - 1].depthKey, sprites[i].depthKey);
    }
  }
}

template <typename B>
std::uint64_t declaredHash(const SpriteBatcher& batcher) {
  Fnv1a64 h;
  for (std::uint32_t slot = 0; slot < batcher.size(); ++slot) {
    const render::SpriteItem& item = batcher.at(slot);
    h.updateU32(item.depthKey);
    h.updateU32(std::bit_cast<std::uint32_t>(item.pos.x));
    h.updateU32(std::bit_cast<std::uint32_t>(item.pos.y));
  }
  return h.value();
}

template <typename B>
void expectDeclaredPinned(const char* backend, std::uint64_t seed, std::uint64_t expected) {
  mote::test::LogCounter quiet;
  const auto s = fixtures::runScenario<B>(seed);
  SpriteBatcher batcher = makeBatcher(256);
  ASSERT_TRUE(declareParticles(batcher, s).ok());
  ASSERT_EQ(batcher.size(), s.liveCount());
  const std::uint64_t hash = declaredHash<B>(batcher);
  std::printf("DECLARE_HASH=0x%016llx backend=%s seed=0x%llx\n",
              static_cast<unsigned long long>(hash), backend,
              static_cast<unsigned long long>(seed));
  EXPECT_EQ(hash, expected) << backend;
}

TEST(ParticleRenderDeterminism, DeclaredSequenceMatchesTheIndependentModel) {
  // tests/lockstep/reference/lockstep_reference.py computes the same (depthKey, x, y) sequence.
  expectDeclaredPinned<Fx>("Fpx16_16", 0x5EED, 0xcaa0258edba1fb66ULL);
  expectDeclaredPinned<Fx>("Fpx16_16", 0x5EEE, 0x28a8cfd62459603cULL);
  expectDeclaredPinned<Fp32>("Fp32", 0x5EED, 0x4a1cf25c6b2098d3ULL);
  expectDeclaredPinned<Fp32>("Fp32", 0x5EEE, 0x70b4b1dcc3a5dfc0ULL);
}

// The run kernels (scalar, SSE2 four particles at a time, AVX2 eight) against the contract computed
// here one particle at a time, over random bit patterns in every field plus the edges: NaN and
// infinite Fp32 values, depths at and beyond ±2047, the Fpx range ends, fading and not-fading
// lanes, and counts that leave a scalar tail.
template <typename B>
render::SpriteItem contractItem(const Particle<B>& p, std::int32_t layer) {
  render::SpriteItem item;
  item.pos = {p.pos.x.toFloat(), p.pos.y.toFloat()};
  item.depthKey = isoDepthKey(p.pos, particleDepthToStepHeight(p.depth), layer);
  item.scale = {p.size.toFloat(), p.size.toFloat()};
  item.tint = {static_cast<float>(p.tint[0]) / 255.0f, static_cast<float>(p.tint[1]) / 255.0f,
               static_cast<float>(p.tint[2]) / 255.0f,
               static_cast<float>(ParticleSystem<B>::fadeAlpha(p)) / 255.0f};
  return item;
}

template <typename B>
B fromBits(std::uint32_t bits) {
  if constexpr (std::is_same_v<B, Fpx16_16>) {
    return B::fromRaw(static_cast<std::int32_t>(bits));
  } else {
    return B::fromFloat(std::bit_cast<float>(bits));
  }
}

template <typename B>
std::vector<std::uint32_t> edgeBits() {
  if constexpr (std::is_same_v<B, Fpx16_16>) {
    return {0u,
            1u,
            0x7FFFFFFFu,
            0x80000000u,
            0xFFFFFFFFu,
            2047u << 16,
            (2047u << 16) + 1,
            (2047u << 16) + 0x8000u,
            0u - (2047u << 16),
            0u - (2047u << 16) - 1,
            0x8000u,
            0x18000u,
            0x800u,
            0x1800u,
            0x7FFFF800u};
  } else {
    return {0x7FC00000u,
            0xFFC00000u,
            0x7F800000u,
            0xFF800000u,
            0x00000001u,
            0x80000000u,
            std::bit_cast<std::uint32_t>(2047.0f),
            std::bit_cast<std::uint32_t>(2047.5f),
            std::bit_cast<std::uint32_t>(-2047.5f),
            std::bit_cast<std::uint32_t>(0x1p23f),
            std::bit_cast<std::uint32_t>(-0x1p23f),
            std::bit_cast<std::uint32_t>(0x1p19f),
            std::bit_cast<std::uint32_t>(0.5f),
            std::bit_cast<std::uint32_t>(1.5f),
            std::bit_cast<std::uint32_t>(3.4e38f)};
  }
}

TYPED_TEST(ParticleRenderTyped, EveryKernelMatchesTheContractOnEveryBitPattern) {
  using B = TypeParam;
  Prng prng(0xDEC1A4E);
  const std::vector<std::uint32_t> edges = edgeBits<B>();
  const auto pick = [&]() {
    return prng.nextRange(0, 4) == 0
               ? edges[prng.nextRange(0, static_cast<std::uint32_t>(edges.size()))]
               : prng.nextU32();
  };
  for (std::uint32_t count : {1u, 3u, 4u, 5u, 7u, 8u, 1001u, 4099u}) {
    std::vector<Particle<B>> particles(count);
    for (Particle<B>& p : particles) {
      p.pos = {fromBits<B>(pick()), fromBits<B>(pick())};
      p.depth = fromBits<B>(pick());
      p.vel = {fromBits<B>(prng.nextU32()), fromBits<B>(prng.nextU32())};
      p.size = fromBits<B>(pick());
      const std::uint32_t tint = prng.nextU32();
      p.tint = {static_cast<std::uint8_t>(tint), static_cast<std::uint8_t>(tint >> 8),
                static_cast<std::uint8_t>(tint >> 16), static_cast<std::uint8_t>(tint >> 24)};
      // A third fade, a third not yet, a third without a fade window; ages past life too.
      p.life = prng.nextRange(1, 200);
      p.age = prng.nextRange(0, 220);
      const std::uint32_t kind = prng.nextRange(0, 3);
      p.fadeTicks = kind == 0 ? 0 : (kind == 1 ? prng.nextRange(1, 300) : prng.nextU32());
    }
    const std::int32_t layer = static_cast<std::int32_t>(prng.nextRange(0, 1200)) - 600;
    // Every kernel this build and CPU have (scalar, SSE2, AVX2) writes the contract's bits.
    for (const detail::DeclareIsa isa :
         {detail::DeclareIsa::Scalar, detail::DeclareIsa::Sse2, detail::DeclareIsa::Avx2}) {
      if (!detail::declareIsaAvailable(isa)) continue;
      std::vector<float> posX(count), posY(count), size(count);
      std::vector<std::uint32_t> depthKey(count);
      std::vector<std::array<std::uint8_t, 4>> tint8(count);
      const render::SpriteRunSlots run{posX.data(), posY.data(),  depthKey.data(),
                                       size.data(), tint8.data(), count};
      detail::declareRun(particles.data(), run, layer, isa);
      for (std::uint32_t i = 0; i < count; ++i) {
        const render::SpriteItem want = contractItem(particles[i], layer);
        const auto where = [&] {
          return ::testing::Message()
                 << "isa " << static_cast<int>(isa) << ", count " << count << ", particle " << i;
        };
        ASSERT_EQ(depthKey[i], want.depthKey) << where();
        ASSERT_EQ(std::bit_cast<std::uint32_t>(posX[i]), std::bit_cast<std::uint32_t>(want.pos.x))
            << where();
        ASSERT_EQ(std::bit_cast<std::uint32_t>(posY[i]), std::bit_cast<std::uint32_t>(want.pos.y))
            << where();
        ASSERT_EQ(std::bit_cast<std::uint32_t>(size[i]), std::bit_cast<std::uint32_t>(want.scale.x))
            << where();
        const std::array<std::uint8_t, 4> tint = tint8[i];
        ASSERT_EQ(render::SpriteColor(
                      {static_cast<float>(tint[0]) / 255.0f, static_cast<float>(tint[1]) / 255.0f,
                       static_cast<float>(tint[2]) / 255.0f, static_cast<float>(tint[3]) / 255.0f}),
                  want.tint)
            << where();
      }
    }
    // And through the public call, read back from the batcher as full SpriteItems.
    SpriteBatcher batcher = makeBatcher(count);
    const ParticleDeclareOptions options{.atlasId = 2, .materialId = 5, .layer = layer};
    ASSERT_TRUE(declareParticles(batcher, std::span<const Particle<B>>(particles), options).ok());
    ASSERT_EQ(batcher.size(), count);
    for (std::uint32_t i = 0; i < count; ++i) {
      const render::SpriteItem got = batcher.at(i);
      const render::SpriteItem want = contractItem(particles[i], layer);
      ASSERT_EQ(got.depthKey, want.depthKey) << "particle " << i;
      ASSERT_EQ(std::bit_cast<std::uint32_t>(got.pos.x), std::bit_cast<std::uint32_t>(want.pos.x));
      ASSERT_EQ(std::bit_cast<std::uint32_t>(got.scale.y),
                std::bit_cast<std::uint32_t>(want.scale.y));
      ASSERT_EQ(got.tint, want.tint) << "particle " << i;
      ASSERT_EQ(got.atlasId, 2u);
      ASSERT_EQ(got.materialId, 5u);
    }
  }
}

TYPED_TEST(ParticleRenderTyped, ThousandFramesOfTenThousandAllocateNothing) {
  if (!allocationWatchInstalled())
    GTEST_SKIP() << "the allocation watch is not linked (sanitizer build)";
  mote::test::LogCounter quiet;
  auto s = makeSystem<TypeParam>(10000, 1, 4);
  ParticleEmitterDef<TypeParam> def = sparks<TypeParam>();
  def.lifeMin = def.lifeMax = 1000;
  def.fadeTicks = 100;
  const auto id = s.addEmitter(def).value();
  ASSERT_TRUE(s.burst(id, 10000).ok());
  ASSERT_EQ(s.liveCount(), 10000u);
  SpriteBatcher batcher = makeBatcher(10000);
  AllocationScope scope;
  for (int frame = 0; frame < 1000; ++frame) {
    batcher.beginFrame();
    if (!declareParticles(batcher, s).ok()) break;
    if (!batcher.build().ok()) break;
  }
  EXPECT_EQ(scope.allocations(), 0u);
  EXPECT_EQ(batcher.size(), 10000u);
  EXPECT_EQ(batcher.batches().size(), 1u);
}

}  // namespace
}  // namespace mote::lockstep
