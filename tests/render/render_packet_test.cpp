// SPDX-License-Identifier: MIT
// Render packets: what they carry of the world, their order, the uniformity hints, capacity and
// allocation.
#include "support/compile_effect.h"

#include <mote/core/alloc_watch.h>
#include <mote/core/job_system.h>
#include <mote/render/render_packet.h>

#include <gtest/gtest.h>

#include <array>
#include <string>
#include <tuple>
#include <vector>

namespace mote::render {
namespace {

using test::compileJson;

// Three emitters: "smoke" (alpha, constant colour, sort 5), "sparks" (additive, random colour,
// rolled, 2×2 sheet, sort −1) and "idle" (no particles yet: a burst at t = 5 s).
constexpr const char* kEffect = R"({"format": "mote.effect/1", "name": "packets",
  "materials": [
    {"name": "soft", "texture": "builtin:smoke"},
    {"name": "hot", "texture": "sparks_sheet.png", "blend": "additive",
     "sheet": {"columns": 2, "rows": 2, "fps": 4, "frame_blend": true}}],
  "emitters": [
    {"name": "smoke", "material": "soft", "spawn": {"rate": 0, "bursts": [{"time": 0, "count": 6}]},
     "init": {"lifetime": 10, "size": 0.5, "color": [0.5, 0.25, 1, 0.75]},
     "render": {"sort_order": 5}},
    {"name": "sparks", "material": "hot", "spawn": {"rate": 0, "bursts": [{"time": 0, "count": 9}]},
     "init": {"lifetime": 10, "size": 0.2, "rotation": [0, 90],
              "color": {"from": [1, 0, 0, 1], "to": [0, 1, 0, 1]}},
     "render": {"sort_order": -1}},
    {"name": "idle", "spawn": {"rate": 0, "bursts": [{"time": 5, "count": 3}]},
     "init": {"lifetime": 10, "size": 0.2}}]})";

std::unique_ptr<ParticleWorld> world() {
  auto w = ParticleWorld::create({}).takeValue();
  EXPECT_TRUE(w->addEffect(compileJson(kEffect)).ok());
  w->tick(1.0f / 30.0f);
  return w;
}

TEST(RenderPackets, OnePerEmitterWithParticlesInSortOrder) {
  const auto w = world();
  auto builder = RenderPacketBuilder::create(16).takeValue();
  builder.build(*w);
  ASSERT_EQ(builder.packets().size(), 2u);  // "idle" has no particles yet
  EXPECT_EQ(builder.dropped(), 0u);
  const RenderPacket& sparks = builder.packets()[0];
  const RenderPacket& smoke = builder.packets()[1];
  EXPECT_EQ(sparks.sortOrder, -1);
  EXPECT_EQ(smoke.sortOrder, 5);
  EXPECT_EQ(sparks.description->name, "sparks");
  EXPECT_EQ(smoke.description->name, "smoke");
  EXPECT_EQ(sparks.count, 9u);
  EXPECT_EQ(smoke.count, 6u);
  // Blend and the resolved order: additive draws in slot order, alpha back to front.
  EXPECT_EQ(sparks.blend, bytecode::BlendMode::Additive);
  EXPECT_EQ(sparks.sort, bytecode::ParticleSort::None);
  EXPECT_EQ(smoke.blend, bytecode::BlendMode::Alpha);
  EXPECT_EQ(smoke.sort, bytecode::ParticleSort::BackToFront);
  EXPECT_EQ(sparks.sheet.columns, 2u);
  EXPECT_EQ(sparks.sheet.rows, 2u);
  EXPECT_TRUE(sparks.sheet.frameBlend);
  EXPECT_EQ(smoke.sheet.columns, 1u);
  // The streams are the world's.
  const EmitterView view = w->view(smoke.emitter).value();
  ASSERT_TRUE(smoke.position.present());
  const auto p = static_cast<std::size_t>(view.emitter->channels.position);
  EXPECT_EQ(smoke.position.streams[0], view.streams[p]);
  EXPECT_EQ(smoke.position.streams[2], view.streams[p + 2]);
  EXPECT_EQ(smoke.ids, view.ids);
}

TEST(RenderPackets, UniformFieldsAreFlaggedWithTheirValue) {
  const auto w = world();
  auto builder = RenderPacketBuilder::create(16).takeValue();
  builder.build(*w);
  const RenderPacket& sparks = builder.packets()[0];
  const RenderPacket& smoke = builder.packets()[1];
  // A constant colour is uniform; a random one is not.
  EXPECT_TRUE(smoke.color.uniform);
  EXPECT_EQ(smoke.color.value, (std::array<float, 4>{0.5f, 0.25f, 1.0f, 0.75f}));
  EXPECT_FALSE(sparks.color.uniform);
  EXPECT_TRUE(sparks.color.present());
  // Rolled sparks vary; the smoke's roll is 0 for every particle.
  EXPECT_FALSE(sparks.rotation.uniform);
  EXPECT_TRUE(smoke.rotation.uniform);
  EXPECT_EQ(smoke.rotation.value[0], 0.0f);
  EXPECT_EQ(smoke.rotation.at(0, 3), 0.0f);
  // No orientation field (no mode here needs one): no streams, the identity quaternion.
  EXPECT_FALSE(smoke.orientation.present());
  EXPECT_TRUE(smoke.orientation.uniform);
  EXPECT_EQ(smoke.orientation.value, (std::array<float, 4>{0.0f, 0.0f, 0.0f, 1.0f}));
  EXPECT_EQ(smoke.orientation.at(3, 2), 1.0f);
}

TEST(RenderPackets, LargeEmittersAreScannedInPartsToTheSameHints) {
  // 70,000 particles of one colour: uniform on any thread count; then one word changed — in the
  // first part, the last, or by sign alone (−0 ≠ +0) — is not, on any thread count.
  constexpr std::uint32_t kCount = 70000;
  auto w = ParticleWorld::create({}).takeValue();
  ASSERT_TRUE(w->addEffect(compileJson(R"({"format": "mote.effect/1", "emitters": [{"name": "e",
      "max_particles": 70000, "spawn": {"rate": 0, "bursts": [{"time": 0, "count": 70000}]},
      "init": {"lifetime": 10, "size": 0.1, "color": [0.5, 0.25, 0, 0.75]}}]})"))
                  .ok());
  w->tick(1.0f / 30.0f);
  std::array<EmitterHandle, 1> handles{};
  ASSERT_EQ(w->emitters(handles), 1u);
  const EmitterView view = w->view(handles[0]).value();
  ASSERT_EQ(view.live, kCount);
  // A copy of the streams that the test may change.
  std::vector<std::vector<float>> words;
  std::vector<const float*> streams;
  for (const float* stream : view.streams)
    words.emplace_back(stream, stream + kCount);
  for (const std::vector<float>& word : words)
    streams.push_back(word.data());
  EmitterView copy = view;
  copy.streams = streams;
  auto pool = ThreadPool::create(3).takeValue();
  const auto c = static_cast<std::size_t>(view.emitter->channels.color);
  for (JobSystem* jobs : {static_cast<JobSystem*>(nullptr), static_cast<JobSystem*>(pool.get())}) {
    const RenderPacket p = makeRenderPacket(handles[0], copy, jobs);
    EXPECT_TRUE(p.color.uniform);
    EXPECT_EQ(p.color.value, (std::array<float, 4>{0.5f, 0.25f, 0.0f, 0.75f}));
  }
  for (const auto& [word, at, value] :
       {std::tuple{c + 3, 5u, 0.7f}, std::tuple{c, kCount - 1, 0.4f},
        std::tuple{c + 2, kCount / 2, -0.0f}}) {
    const float before = words[word][at];
    words[word][at] = value;
    for (JobSystem* jobs :
         {static_cast<JobSystem*>(nullptr), static_cast<JobSystem*>(pool.get())}) {
      const RenderPacket p = makeRenderPacket(handles[0], copy, jobs);
      EXPECT_FALSE(p.color.uniform) << "word " << word << " particle " << at;
      EXPECT_TRUE(p.color.present());
    }
    words[word][at] = before;
  }
}

TEST(RenderPackets, CapacityMisuseAndTheStoppedState) {
  EXPECT_EQ(RenderPacketBuilder::create(0).status().code(), StatusCode::InvalidArgument);
  EXPECT_EQ(RenderPacketBuilder::create((1u << 20) + 1).status().code(),
            StatusCode::InvalidArgument);
  const auto w = world();
  // Room for one emitter of three: the first one listed is kept, the others are dropped.
  auto small = RenderPacketBuilder::create(1).takeValue();
  small.build(*w);
  ASSERT_EQ(small.packets().size(), 1u);
  EXPECT_EQ(small.packets()[0].description->name, "smoke");
  EXPECT_EQ(small.dropped(), 2u);
  RenderPacketBuilder stopped;
  stopped.build(*w);
  EXPECT_TRUE(stopped.packets().empty());
  EXPECT_EQ(stopped.dropped(), 0u);
}

TEST(RenderPackets, BuildingAllocatesNothing) {
#if !defined(MOTE_TEST_ALLOC_WATCH_LINKED)
  GTEST_SKIP() << "the allocation watch is not linked in sanitizer builds";
#else
  const auto w = world();
  auto builder = RenderPacketBuilder::create(16).takeValue();
  AllocationScope scope;
  for (int i = 0; i < 10; ++i)
    builder.build(*w);
  EXPECT_EQ(scope.allocations(), 0u);
#endif
}

}  // namespace
}  // namespace mote::render
