// SPDX-License-Identifier: MIT
// The GPU's billboard basis (src/gpu/shaders/billboard.glsl, what the GPU renderer's vertex stage
// expands quads with) against render::billboardCorners: bit for bit in exact mode, for every mode
// under perspective and orthographic views, on random particles and on the edge cases the CPU
// code branches on (no velocity, velocity along the line of sight, the zero, a NaN and an
// unnormalised quaternion, an axis parallel to the eye direction).
#include "gpu_test.h"

#include <mote/core/prng.h>
#include <mote/gpu/billboard_cases.h>
#include <mote/render/billboard.h>
#include <mote/render/camera.h>

#include <glm/gtc/quaternion.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace mote {
namespace {

using GpuBillboard = test::GpuTest;

float uniform(Prng& prng, float lo, float hi) {
  const float u = static_cast<float>(prng.nextTap24()) / static_cast<float>(Prng::kTapRange);
  return lo + (hi - lo) * u;
}

glm::vec3 randomVec(Prng& prng, float extent) {
  return {uniform(prng, -extent, extent), uniform(prng, -extent, extent),
          uniform(prng, -extent, extent)};
}

// Random particles around the view's target, then the edge cases.
std::vector<render::BillboardInput> particles(const render::BillboardView& view) {
  Prng prng(0xb111b0a7du);
  std::vector<render::BillboardInput> out;
  for (int i = 0; i < 400; ++i) {
    render::BillboardInput in;
    in.position = randomVec(prng, 4.0f);
    in.velocity = randomVec(prng, i % 5 == 0 ? 0.01f : 6.0f);
    in.halfSize = {uniform(prng, 0.01f, 2.0f), uniform(prng, 0.01f, 2.0f)};
    if (i % 3 != 0) {
      in.orientation = glm::quat(uniform(prng, -1.0f, 1.0f), uniform(prng, -1.0f, 1.0f),
                                 uniform(prng, -1.0f, 1.0f), uniform(prng, -1.0f, 1.0f));
    }
    in.emitterRotation = glm::quat(uniform(prng, -1.0f, 1.0f), uniform(prng, -1.0f, 1.0f),
                                   uniform(prng, -1.0f, 1.0f), uniform(prng, -1.0f, 1.0f));
    out.push_back(in);
  }
  render::BillboardInput still;  // no velocity
  out.push_back(still);
  render::BillboardInput alongSight;  // moving along the line of sight, and straight up
  alongSight.position = view.eye + view.forward * 3.0f;
  alongSight.velocity = view.forward * 2.0f;
  out.push_back(alongSight);
  alongSight.velocity = glm::vec3(0.0f, 5.0f, 0.0f);
  alongSight.position = view.eye + glm::vec3(0.0f, -2.0f, 0.0f);  // +Y is the eye direction
  out.push_back(alongSight);
  render::BillboardInput zero;  // the quaternion nobody wrote, a NaN one, a long one
  zero.orientation = glm::quat(0.0f, 0.0f, 0.0f, 0.0f);
  zero.emitterRotation = glm::quat(0.0f, 0.0f, 0.0f, 0.0f);
  out.push_back(zero);
  render::BillboardInput nan = zero;
  nan.orientation.x = std::numeric_limits<float>::quiet_NaN();
  out.push_back(nan);
  render::BillboardInput longQuat;
  longQuat.orientation = glm::quat(3e30f, 1e30f, -2e30f, 5e29f);
  longQuat.velocity = glm::vec3(1e-20f, 0.0f, 0.0f);
  out.push_back(longQuat);
  return out;
}

// Every mode's corners on the GPU against the CPU's, for `camera`: bit for bit in exact mode,
// within a few float steps of the quad's size in fast mode.
void expectCornersAgree(gpu::Context& context, const render::Camera& camera, glm::vec3 worldUp) {
  const render::BillboardView view = render::BillboardView::fromCamera(camera, worldUp, 0.7f);
  const std::vector<render::BillboardInput> inputs = particles(view);
  const bool exact = context.selfTest().mode == gpu::Mode::Exact;
  for (int m = 0; m < render::kBillboardModeCount; ++m) {
    SCOPED_TRACE(m);
    const auto mode = static_cast<render::BillboardMode>(m);
    Result<std::vector<std::array<glm::vec3, 4>>> gpu =
        gpu::billboardCornersOnGpu(context, view, mode, inputs);
    ASSERT_TRUE(gpu.ok()) << gpu.status().toString();
    ASSERT_EQ(gpu->size(), inputs.size());
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      const std::array<glm::vec3, 4> cpu = render::billboardCorners(view, mode, inputs[i]);
      for (std::size_t c = 0; c < 4; ++c) {
        for (glm::length_t k = 0; k < 3; ++k) {
          const float want = cpu[c][k];
          const float got = (*gpu)[i][c][k];
          if (exact) {
            ASSERT_EQ(std::bit_cast<std::uint32_t>(want), std::bit_cast<std::uint32_t>(got))
                << "particle " << i << " corner " << c << " axis " << k << ": " << want
                << " on the CPU, " << got << " on the GPU";
          } else {
            ASSERT_NEAR(want, got, 1e-4f * (1.0f + std::fabs(want))) << "particle " << i;
          }
        }
      }
    }
  }
}

TEST_F(GpuBillboard, EveryModesCornersAreTheCpusBitForBit) {
  render::Camera perspective = render::Camera::perspective(0.9f, 1.5f, 0.1f, 100.0f).value();
  ASSERT_TRUE(perspective.lookAt({1.5f, 2.0f, 7.0f}, {0.0f, 0.5f, 0.0f}, {0.0f, 1.0f, 0.0f}).ok());
  expectCornersAgree(*context(), perspective, {0.0f, 1.0f, 0.0f});
  render::Camera iso = render::Camera::isometric({0.0f, 0.0f, 0.0f}, 20.0f, 6.0f, 1.5f, 0.1f,
                                                 100.0f, {0.0f, 0.0f, 1.0f})
                           .value();
  expectCornersAgree(*context(), iso, {0.0f, 0.0f, 1.0f});
}

TEST_F(GpuBillboard, AModeOutsideTheEnumIsRefusedAndNoParticlesNeedNoDevice) {
  const render::BillboardView view;
  const std::vector<render::BillboardInput> one(1);
  Result<std::vector<std::array<glm::vec3, 4>>> bad =
      gpu::billboardCornersOnGpu(*context(), view, static_cast<render::BillboardMode>(9), one);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::InvalidArgument);
  EXPECT_NE(bad.status().message().find("mode 9"), std::string::npos) << bad.status().message();
  Result<std::vector<std::array<glm::vec3, 4>>> none =
      gpu::billboardCornersOnGpu(*context(), view, render::BillboardMode::Billboard,
                                 std::span<const render::BillboardInput>{});
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

}  // namespace
}  // namespace mote
