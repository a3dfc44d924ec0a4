// SPDX-License-Identifier: MIT
// The GPU renderer against the software renderer on the same particles: a world simulated once on
// the CPU, drawn by ParticleRenderer and, as instances built here from the same render packets
// (the software renderer's own per-particle billboard inputs, colours, stretches and draw keys,
// and the same built-in textures), by gpu::Renderer. Over the pixels either image draws, at
// least 99.5 % agree within 2/255 per channel and at most 0.1 % differ by more than 32/255 (the
// agreement issue 23 asks of every example; the packets' own upload path is not built yet).
#include "gpu_test.h"
#include "support/compile_effect.h"

#include <mote/gpu/renderer.h>
#include <mote/render/particle_instance.h>
#include <mote/render/particle_renderer.h>
#include <mote/render/render_packet.h>
#include <mote/render/sprite_renderer.h>

#include <glm/gtc/quaternion.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <numeric>
#include <vector>

namespace mote {
namespace {

using GpuRendererAgreement = test::GpuTest;

constexpr std::uint32_t kW = 160;
constexpr std::uint32_t kH = 120;
constexpr std::uint32_t kSpriteSize = 64;

// Four emitters: rolled, translucent stars of varied size and colour, one additive, drawn
// as camera-facing billboards, additive flat horizontal cards, and sparks stretched along their
// screen velocity, and dust under a pixel (drawn as one weighted sample, as the software
// renderer draws it).
constexpr const char* kEffect = R"({"format": "mote.effect/1", "name": "agree",
  "materials": [{"name": "puff", "texture": "builtin:star"},
                {"name": "glow", "texture": "builtin:soft_circle", "blend": "additive"},
                {"name": "streak", "texture": "builtin:spark"}],
  "emitters": [
    {"name": "puffs", "material": "puff",
     "spawn": {"rate": 0, "bursts": [{"time": 0, "count": 40}]},
     "shape": {"kind": "sphere", "radius": 1.2},
     "init": {"lifetime": 10, "velocity": {"kind": "sphere", "speed": 0.4},
              "size": [0.3, 0.9], "rotation": [0, 360],
              "color": {"from": [1, 0.5, 0.2, 0.9], "to": [0.2, 0.6, 1, 0.4]}},
     "render": {"mode": "billboard"}},
    {"name": "cards", "material": "glow", "position": [0, -0.8, 0],
     "spawn": {"rate": 0, "bursts": [{"time": 0, "count": 12}]},
     "shape": {"kind": "sphere", "radius": 1.5},
     "init": {"lifetime": 10, "size": [0.4, 1.0], "color": [0.6, 0.4, 0.2, 1]},
     "render": {"mode": "horizontal"}},
    {"name": "streaks", "material": "streak", "position": [0, 0.6, 0],
     "spawn": {"rate": 0, "bursts": [{"time": 0, "count": 16}]},
     "shape": {"kind": "sphere", "radius": 0.6},
     "init": {"lifetime": 10, "velocity": {"kind": "sphere", "speed": 2.5}, "size": [0.1, 0.2],
              "color": [0.7, 0.9, 1, 0.8]},
     "render": {"mode": "stretched", "stretch_scale": 0.3}},
    {"name": "dust", "material": "puff",
     "spawn": {"rate": 0, "bursts": [{"time": 0, "count": 60}]},
     "shape": {"kind": "sphere", "radius": 2.0},
     "init": {"lifetime": 10, "size": [0.01, 0.02], "color": [1, 0.9, 0.6, 1]},
     "render": {"mode": "billboard"}}]})";

// Packet p's particles as instances, each emitter's in its draw order (render::particleDrawKey on
// the centre's clip w, ties in slot order), from the software renderer's own per-particle
// functions (<mote/render/particle_instance.h>).
std::vector<gpu::SpriteInstance> instancesOf(const render::RenderPacket& p,
                                             const render::Camera& camera) {
  const glm::mat4 viewProjection = camera.projectionMatrix() * camera.viewMatrix();
  const bool additive = p.blend == bytecode::BlendMode::Additive;
  std::vector<gpu::SpriteInstance> out;
  std::vector<std::uint32_t> keys;
  for (std::uint32_t i = 0; i < p.count; ++i) {
    gpu::SpriteInstance s;
    s.color = render::particlePremultipliedColor(p, i);
    if (!(s.color[3] > 0.0f) && !additive) continue;
    s.particle = render::particleBillboardInput(p, i);
    s.stretchScaleSeconds = render::particleStretchSeconds(
        camera, p.description->render.stretchScaleSeconds, s.particle);
    out.push_back(s);
    const float w = (viewProjection * glm::vec4(s.particle.position, 1.0f)).w;
    keys.push_back(render::particleDrawKey(p.sort, w, p.ids[i]));
  }
  std::vector<std::uint32_t> order(out.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return keys[a] < keys[b]; });
  std::vector<gpu::SpriteInstance> sorted;
  for (const std::uint32_t k : order)
    sorted.push_back(out[k]);
  return sorted;
}

TEST_F(GpuRendererAgreement, TheSameParticlesDrawTheSamePixelsAsTheSoftwareRenderer) {
  auto world = ParticleWorld::create({}).takeValue();
  ASSERT_TRUE(world->addEffect(test::compileJson(kEffect)).ok());
  for (int t = 0; t < 30; ++t)
    world->tick(1.0f / 30.0f);
  render::Camera camera = render::Camera::perspective(0.9f, 160.0f / 120.0f, 0.1f, 100.0f).value();
  ASSERT_TRUE(camera.lookAt({0.5f, 1.5f, 5.0f}, {0.0f, 0.0f, 0.0f}, {0.0f, 1.0f, 0.0f}).ok());

  render::RendererOptions options;
  options.viewport = {kW, kH};
  options.builtinSpriteSize = kSpriteSize;
  options.drawCache = false;
  auto software = render::ParticleRenderer::create(options).takeValue();
  render::Image cpu;
  ASSERT_TRUE(software.render(*world, camera, cpu).ok());

  gpu::RendererDesc gpuDesc;
  gpuDesc.viewport = options.viewport;
  gpuDesc.background = options.background;
  Result<std::unique_ptr<gpu::Renderer>> made = gpu::Renderer::create(*context(), gpuDesc);
  ASSERT_TRUE(made.ok()) << made.status().toString();
  gpu::Renderer& renderer = **made;
  // The emitters' textures as the software renderer loads them.
  for (const char* name :
       {"builtin:star", "builtin:soft_circle", "builtin:spark", "builtin:star"}) {
    const render::Texture t = render::loadTexture(name, "", kSpriteSize).value();
    ASSERT_TRUE(renderer.addTexture(t.width, t.height, t.texels).ok());
  }
  auto builder = render::RenderPacketBuilder::create(8).takeValue();
  builder.build(*world);
  std::vector<std::vector<gpu::SpriteInstance>> instances;
  std::vector<gpu::SpriteDraw> draws;
  for (const render::RenderPacket& p : builder.packets()) {
    ASSERT_FALSE(p.local);
    instances.push_back(instancesOf(p, camera));
  }
  const std::array<render::BillboardMode, 4> modes{
      render::BillboardMode::Billboard, render::BillboardMode::Horizontal,
      render::BillboardMode::Stretched, render::BillboardMode::Billboard};
  ASSERT_EQ(instances.size(), modes.size());
  for (std::size_t e = 0; e < instances.size(); ++e) {
    for (gpu::SpriteInstance& s : instances[e])
      s.texture = static_cast<std::uint32_t>(e);  // the emitters' textures, in order
    draws.push_back({modes[e], instances[e]});
  }
  std::vector<std::array<float, 4>> linear;
  ASSERT_TRUE(renderer.draw(camera, draws, linear).ok());

  // sRGB bytes of the GPU's linear frame (rounded; the software renderer resolves by a table, so
  // the two backgrounds may differ by a step: each image is measured against its own).
  const auto gpuPixel = [&](std::uint32_t x, std::uint32_t y) {
    const std::array<float, 4>& l = linear[std::size_t{y} * kW + x];
    std::array<int, 3> b;
    for (std::size_t c = 0; c < 3; ++c)
      b[c] = static_cast<int>(std::lround(render::linearToSrgb(l[c]) * 255.0f));
    return b;
  };
  const render::Rgba8 cpuBackground = cpu.pixel(0, 0);
  const std::array<int, 3> gpuBackground = gpuPixel(0, 0);
  std::uint32_t covered = 0;
  std::uint32_t close = 0;
  std::uint32_t far = 0;
  for (std::uint32_t y = 0; y < kH; ++y) {
    for (std::uint32_t x = 0; x < kW; ++x) {
      const render::Rgba8 a = cpu.pixel(x, y);
      const std::array<int, 3> s{a.r, a.g, a.b};
      const std::array<int, 3> b = gpuPixel(x, y);
      const bool drawn = !(a == cpuBackground) || b != gpuBackground;
      if (!drawn) continue;
      ++covered;
      int worst = 0;
      for (std::size_t c = 0; c < 3; ++c)
        worst = std::max(worst, std::abs(s[c] - b[c]));
      close += worst <= 2 ? 1 : 0;
      far += worst > 32 ? 1 : 0;
    }
  }
  EXPECT_GT(covered, kW * kH / 10);  // the particles cover a good part of the frame
  EXPECT_GE(static_cast<double>(close), 0.995 * covered) << close << " of " << covered;
  EXPECT_LE(static_cast<double>(far), 0.001 * covered) << far << " of " << covered;
}

}  // namespace
}  // namespace mote
