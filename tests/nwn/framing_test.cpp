// SPDX-License-Identifier: MIT
// `mote render`'s framing (tools/mote/framing.h): weighted by what particles cover, padded by
// their size. Built into this program, which already compiles the CLI's mesh loader.
#include "framing.h"

#include <gtest/gtest.h>

namespace mote::cli {
namespace {

TEST(Framing, AFewHeavyParticlesOutweighASprayOfSparks) {
  std::array<std::vector<Sample>, 3> axes;
  std::vector<Sample> radii;
  const auto add = [&](float x, float weight, float radius) {
    axes[0].push_back({x, weight});
    axes[1].push_back({1.0f, weight});
    axes[2].push_back({0.0f, weight});
    radii.push_back({radius, weight});
  };
  for (int i = 0; i < 10; ++i)
    add(-0.5f + 0.1f * static_cast<float>(i), 1.0f, 0.8f);  // a fireball: x in [-0.5, 0.4]
  for (int i = 0; i < 90; ++i)
    add(8.0f + 0.05f * static_cast<float>(i), 0.0004f, 0.02f);  // sparks far to the right
  const Framing f = frameSamples(axes, radii);
  // By count the sparks are 90 % of the samples and the centre would sit among them near x = 8.
  EXPECT_NEAR(f.center.x, -0.05f, 1e-6f);  // between the fireball's 3rd and 97th weight percentile
  EXPECT_FLOAT_EQ(f.center.y, 1.0f);
  // Half the box (0.9 m) × 1.15, padded by the fireball's half-size.
  EXPECT_NEAR(f.radius, 0.45f * 1.15f + 0.8f, 1e-5f);
}

TEST(Framing, OneLargeParticleIsFramedByItsSize) {
  std::array<std::vector<Sample>, 3> axes{std::vector<Sample>{{0.0f, 16.0f}},
                                          std::vector<Sample>{{2.0f, 16.0f}},
                                          std::vector<Sample>{{0.0f, 16.0f}}};
  std::vector<Sample> radii{{2.0f, 16.0f}};  // a 4 m portal ring
  const Framing f = frameSamples(axes, radii);
  EXPECT_FLOAT_EQ(f.center.y, 2.0f);
  EXPECT_FLOAT_EQ(f.radius, 2.0f);
}

TEST(Framing, NoSamplesKeepTheDefault) {
  std::array<std::vector<Sample>, 3> axes;
  std::vector<Sample> radii;
  const Framing f = frameSamples(axes, radii);
  EXPECT_FLOAT_EQ(f.radius, Framing{}.radius);
  EXPECT_FLOAT_EQ(f.center.y, Framing{}.center.y);
}

}  // namespace
}  // namespace mote::cli
