// SPDX-License-Identifier: MIT
// The renderer's facing-quad fast path against the general one: the 4-lane and (where the CPU has
// AVX2) 8-lane kernels' corners, bounds and centre depths equal billboardCorners() +
// projectCorner() + boundOnScreen() bit for bit, for every mode with a
// uniform frame, rolled and not, in perspective, orthographic and isometric views, including
// particles behind the eye and partial blocks; and appendFacingQuads writes, in order, exactly the
// records and keys the renderer's per-particle append builds from those corners.
#include "facing_quads.h"

#include <mote/core/prng.h>
#include <mote/render/billboard.h>
#include <mote/render/camera.h>
#include <mote/render/depth_key.h>

#include <glm/gtc/quaternion.hpp>
#include <glm/mat3x3.hpp>
#include <glm/vec4.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <limits>
#include <vector>

namespace mote::render {
namespace {

float uniform(Prng& prng, float lo, float hi) {
  const float u = static_cast<float>(prng.nextTap24()) / static_cast<float>(Prng::kTapRange);
  return lo + (hi - lo) * u;
}

std::uint32_t bits(float f) {
  return std::bit_cast<std::uint32_t>(f);
}

std::vector<Camera> cameras() {
  std::vector<Camera> all;
  Camera perspective = Camera::perspective(0.9f, 1.5f, 0.1f, 100.0f).value();
  EXPECT_TRUE(perspective.lookAt({0.3f, 1.3f, 2.8f}, {0.1f, 0.7f, 0.0f}, {0, 1, 0}).ok());
  all.push_back(perspective);
  Camera ortho = Camera::orthographic(3.0f, 1.5f, -10.0f, 10.0f).value();
  EXPECT_TRUE(ortho.lookAt({1.0f, 2.0f, 4.0f}, {0.0f, 0.0f, 0.0f}, {0, 1, 0}).ok());
  all.push_back(ortho);
  all.push_back(Camera::isometric({0, 0, 0}, 10.0f, 4.0f, 1.5f, 0.1f, 50.0f, {0, 0, 1}).value());
  return all;
}

TEST(FacingQuads, BlockCornersAreTheGeneralPathsBitForBit) {
  constexpr std::array<BillboardMode, 5> kModes{
      BillboardMode::Billboard, BillboardMode::Horizontal, BillboardMode::FacingWorld,
      BillboardMode::BillboardLocalZ, BillboardMode::BillboardWorldZ};
  constexpr std::uint32_t kCount = 61;  // not a multiple of 4: the last lanes are partial
  Prng prng(0xFAC1A6ull);
  for (const Camera& camera : cameras()) {
    const BillboardView view = BillboardView::fromCamera(camera, {0, 0, 1});
    const glm::mat4 viewProjection = camera.projectionMatrix() * camera.viewMatrix();
    for (const BillboardMode mode : kModes) {
      for (const bool rolled : {false, true}) {
        EXPECT_TRUE(billboardFrameIsUniform(mode));
        BillboardInput unit;
        unit.halfSize = {1.0f, 1.0f};
        if (rolled) unit.orientation = glm::angleAxis(0.7f, glm::vec3(0, 0, 1));
        unit.emitterRotation = glm::quat(0.9f, 0.1f, -0.3f, 0.2f);
        const glm::mat3 basis = particleBasis(view, mode, unit);
        FacingSetup setup;
        setup.viewProjection = viewProjection;
        setup.width = 96.0f;
        setup.height = 64.0f;
        setup.minW = camera.nearZ * 0.5f;
        setup.right = basis[0];
        setup.up = basis[1];
        std::array<std::vector<float>, 5> in;  // x, y, z, size x, size y
        for (std::uint32_t i = 0; i < kCount; ++i) {
          for (std::size_t c = 0; c < 3; ++c)
            in[c].push_back(uniform(prng, -6.0f, 6.0f));
          in[3].push_back(uniform(prng, 0.001f, 3.0f));
          in[4].push_back(uniform(prng, 0.001f, 3.0f));
        }
        // A zero-sized particle, and one of a NaN size: skipped, not drawn.
        in[3][7] = 0.0f;
        in[4][9] = std::numeric_limits<float>::quiet_NaN();
        for (const auto kernel : {projectFacingBlock4, projectFacingBlock8}) {
          for (const bool sized : {true, false}) {
            if (kernel == projectFacingBlock8 && !facingAvx2Available()) continue;
            FacingBlock block;
            kernel(setup, in[0].data(), in[1].data(), in[2].data(), sized ? in[3].data() : nullptr,
                   sized ? in[4].data() : nullptr, kCount, block);
            std::uint32_t shown = 0;
            for (std::uint32_t i = 0; i < kCount; ++i) {
              if (sized && (i == 7 || i == 9)) {
                EXPECT_EQ(block.sized[i], 0);
                continue;
              }
              BillboardInput particle = unit;
              particle.position = {in[0][i], in[1][i], in[2][i]};
              if (sized)
                particle.halfSize = glm::vec2(in[3][i], in[4][i]) * 0.5f;
              else
                particle.halfSize = {0.5f, 0.5f};
              const std::array<glm::vec3, 4> corners = billboardCorners(view, mode, particle);
              bool ok = true;
              ScreenQuad quad;
              for (std::size_t c = 0; c < 4; ++c) {
                const ScreenPoint at = projectCorner(viewProjection, corners[c], setup.width,
                                                     setup.height, setup.minW);
                ok = ok && at.ok;
                quad.x[c] = at.x;
                quad.y[c] = at.y;
              }
              ok = ok && boundOnScreen(quad, setup.width, setup.height);
              EXPECT_EQ(ok, block.visible[i] != 0) << "particle " << i;
              EXPECT_NE(block.sized[i], 0);
              if (ok) {
                const ScreenQuad& fast = block.quads[i];
                for (std::size_t c = 0; c < 4; ++c) {
                  EXPECT_EQ(bits(quad.x[c]), bits(fast.x[c]));
                  EXPECT_EQ(bits(quad.y[c]), bits(fast.y[c]));
                }
                EXPECT_EQ(bits(quad.minX), bits(fast.minX));
                EXPECT_EQ(bits(quad.maxX), bits(fast.maxX));
                EXPECT_EQ(bits(quad.minY), bits(fast.minY));
                EXPECT_EQ(bits(quad.maxY), bits(fast.maxY));
              }
              shown += ok ? 1u : 0u;
              const glm::vec4 centre = viewProjection * glm::vec4(particle.position, 1.0f);
              EXPECT_EQ(bits(centre.w), bits(block.centerW[i]));
            }
            EXPECT_GT(shown, 0u);
            EXPECT_LT(shown, kCount);
          }
        }
      }
    }
  }
}

// The renderer's per-particle rules (premultiplied: particle_renderer_impl.h; shows:
// particle_renderer_quads.cpp; particleDrawKey: particle_renderer_packets.cpp).
std::array<float, 4> premultipliedColor(const std::array<float, 4>& c, bool additive) {
  const float alpha = std::clamp(c[3], 0.0f, 1.0f);
  return {std::max(c[0], 0.0f) * alpha, std::max(c[1], 0.0f) * alpha, std::max(c[2], 0.0f) * alpha,
          additive ? 0.0f : alpha};
}

std::uint32_t referenceKey(FacingKey key, float depth, std::uint32_t id) {
  switch (key) {
    case FacingKey::NearFirst:
      return viewDepthKeyFrontToBack(depth);
    case FacingKey::Id:
      return id;
    case FacingKey::IdReversed:
      return ~id;
    default:
      return viewDepthKey(depth);
  }
}

TEST(FacingQuads, AppendWritesWhatThePerParticleAppendWould) {
  constexpr std::uint32_t kCount = 203;  // more than one block, not a multiple of 8
  constexpr std::uint32_t kFirst = 5;    // records already in the list
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Prng prng(0xA99E4Dull);
  for (const Camera& camera : cameras()) {
    const BillboardView view = BillboardView::fromCamera(camera, {0, 0, 1});
    BillboardInput unit;
    unit.halfSize = {1.0f, 1.0f};
    const glm::mat3 basis = particleBasis(view, BillboardMode::Billboard, unit);
    FacingSetup setup;
    setup.viewProjection = camera.projectionMatrix() * camera.viewMatrix();
    setup.width = 96.0f;
    setup.height = 64.0f;
    setup.minW = camera.nearZ * 0.5f;
    setup.right = basis[0];
    setup.up = basis[1];
    std::array<std::vector<float>, 9> in;  // x, y, z, size x, size y, r, g, b, a
    std::vector<std::uint32_t> ids;
    for (std::uint32_t i = 0; i < kCount; ++i) {
      for (std::size_t c = 0; c < 3; ++c)
        in[c].push_back(uniform(prng, -6.0f, 6.0f));
      in[3].push_back(uniform(prng, 0.001f, 3.0f));
      in[4].push_back(uniform(prng, 0.001f, 3.0f));
      for (std::size_t c = 5; c < 9; ++c)
        in[c].push_back(uniform(prng, -0.5f, 1.5f));
      ids.push_back(prng.nextU32());
    }
    in[3][7] = 0.0f;
    in[4][9] = nan;
    in[5][11] = nan;
    in[8][12] = nan;
    in[8][13] = 0.0f;
    in[8][14] = -0.0f;
    for (const auto kernel : {appendFacingQuads4, appendFacingQuads8}) {
      if (kernel == appendFacingQuads8 && !facingAvx2Available()) continue;
      for (const bool streams : {true, false}) {
        for (const bool additive : {false, true}) {
          for (const FacingKey keyKind :
               {FacingKey::FarFirst, FacingKey::NearFirst, FacingKey::Id, FacingKey::IdReversed}) {
            FacingAppend append;
            append.color = premultipliedColor({0.9f, 0.5f, -0.2f, 0.7f}, additive);
            append.additive = additive;
            append.key = keyKind;
            FacingParticles particles;
            particles.x = in[0].data();
            particles.y = in[1].data();
            particles.z = in[2].data();
            particles.sizeX = in[3].data();
            particles.sizeY = in[4].data();
            if (streams) particles.color = {in[5].data(), in[6].data(), in[7].data(), in[8].data()};
            particles.ids = ids.data();
            particles.count = kCount;
            std::vector<Quad> quads(kFirst + kCount + 1);
            std::vector<DrawKey> keys(quads.size());
            FacingTally tally;
            tally.next = kFirst;
            kernel(setup, append, particles, quads.data(), keys.data(), tally);
            // The reference: the block kernel (checked against the general path above), then the
            // renderer's per-particle checks and record.
            std::uint32_t next = kFirst;
            std::uint32_t culled = 0;
            KeyRange range;
            for (std::uint32_t begin = 0; begin < kCount; begin += FacingBlock::kSize) {
              const std::uint32_t n = std::min(kCount - begin, FacingBlock::kSize);
              FacingBlock block;
              projectFacingBlock(setup, in[0].data() + begin, in[1].data() + begin,
                                 in[2].data() + begin, in[3].data() + begin, in[4].data() + begin,
                                 n, block);
              for (std::uint32_t k = 0; k < n; ++k) {
                const std::uint32_t i = begin + k;
                std::array<float, 4> color = append.color;
                if (streams) {
                  const std::array<float, 4> straight{in[5][i], in[6][i], in[7][i], in[8][i]};
                  if (!(std::clamp(straight[3], 0.0f, 1.0f) > 0.0f || additive)) continue;
                  color = premultipliedColor(straight, additive);
                }
                if (block.sized[k] == 0) continue;
                if (block.visible[k] == 0) {
                  ++culled;
                  continue;
                }
                const Quad& got = quads[next];
                const ScreenQuad& want = block.quads[k];
                for (std::size_t c = 0; c < 4; ++c) {
                  EXPECT_EQ(bits(got.x[c]), bits(want.x[c]));
                  EXPECT_EQ(bits(got.y[c]), bits(want.y[c]));
                  EXPECT_EQ(bits(got.color[c]), bits(color[c])) << "particle " << i;
                }
                EXPECT_EQ(bits(got.minX), bits(want.minX));
                EXPECT_EQ(bits(got.maxX), bits(want.maxX));
                EXPECT_EQ(bits(got.minY), bits(want.minY));
                EXPECT_EQ(bits(got.maxY), bits(want.maxY));
                const std::uint32_t key = referenceKey(keyKind, block.centerW[k], ids[i]);
                EXPECT_EQ(keys[next].key, key) << "particle " << i;
                EXPECT_EQ(keys[next].index, next);
                range.add(key);
                ++next;
              }
            }
            EXPECT_EQ(tally.next, next);
            EXPECT_EQ(tally.culled, culled);
            EXPECT_EQ(tally.keys.lo, range.lo);
            EXPECT_EQ(tally.keys.hi, range.hi);
            EXPECT_GT(next - kFirst, 10u);
            EXPECT_GT(culled, 10u);
          }
        }
      }
    }
  }
}

TEST(FacingQuads, OnlyFramesThatIgnoreTheParticleAreUniform) {
  const Camera camera = cameras()[0];
  const BillboardView view = BillboardView::fromCamera(camera);
  BillboardInput a;
  a.position = {1.0f, 0.0f, -2.0f};
  a.velocity = {0.0f, 3.0f, 1.0f};
  BillboardInput b;
  b.position = {-2.0f, 1.0f, 0.5f};
  b.velocity = {2.0f, 0.0f, 0.0f};
  for (int m = 0; m < kBillboardModeCount; ++m) {
    const auto mode = static_cast<BillboardMode>(m);
    const bool same = billboardFrame(view, mode, a) == billboardFrame(view, mode, b);
    EXPECT_EQ(billboardFrameIsUniform(mode), same) << "mode " << m;
  }
}

}  // namespace
}  // namespace mote::render
