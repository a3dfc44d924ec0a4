// SPDX-License-Identifier: MIT
// Emitters that move (issue 27, deliverable 1): position and orientation keys of an emitter and of
// its ancestor dummies become pivots with Motion keys, and the imported emitter moves along them
// when it runs — where the importer used to freeze every node at its 0 s transform.
#include <mote/authoring/effect_json.h>
#include <mote/compiler/compiler.h>
#include <mote/nwn/mdl.h>
#include <mote/runtime/world.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

namespace mote::nwn {
namespace {

using namespace authoring;

// A root dummy `m`; a dummy `spinner` turning about NWN +Z (up) through 90° a second with keys
// every 90°; the emitter `orbiter` 1 m out along NWN +X under it, and `climber`, whose own
// position keys raise it 2 m in 2 s; `still` hangs from the root and does not move.
constexpr const char* kMovingModel = R"(newmodel moving
setsupermodel moving NULL
beginmodelgeom moving
node dummy m
parent NULL
endnode
node dummy spinner
parent m
position 0 0 0
endnode
node emitter orbiter
parent spinner
position 1 0 0
birthrate 10
lifeExp 1
sizeStart 0.1
endnode
node emitter climber
parent m
position 0 0 0
birthrate 10
lifeExp 1
sizeStart 0.1
endnode
node emitter still
parent m
position 0 3 0
birthrate 10
lifeExp 1
sizeStart 0.1
endnode
endmodelgeom moving
newanim duration moving
length 4
node dummy spinner
parent m
orientationkey 5
0 0 0 1 0
1 0 0 1 1.5707963
2 0 0 1 3.1415927
3 0 0 1 4.712389
4 0 0 1 6.2831853
endnode
node emitter climber
parent m
positionkey 2
0 0 0 0
2 0 0 2
endnode
doneanim duration moving
donemodel moving
)";

const Emitter* findEmitter(const EffectDesc& effect, const std::string& name) {
  const auto it = std::find_if(effect.emitters.begin(), effect.emitters.end(),
                               [&](const Emitter& e) { return e.name == name; });
  return it == effect.emitters.end() ? nullptr : &*it;
}

TEST(MdlMotion, KeyedDummiesAndEmittersBecomePivotsAndMotionKeys) {
  const MdlParseResult p = parseMdl(kMovingModel, "moving.mdl");
  ASSERT_TRUE(p.ok());
  const ImportResult r = importMdl(p.model);
  ASSERT_TRUE(r.ok());
  for (const Diagnostic& d : r.diagnostics)
    EXPECT_EQ(d.message.find("keys"), std::string::npos) << formatMdlDiagnostic(d);

  // The orbiter hangs from `spinner`, which hangs from `m`: parents before children.
  ASSERT_EQ(r.effect.pivots.size(), 2u);
  EXPECT_EQ(r.effect.pivots[0].name, "m");
  EXPECT_EQ(r.effect.pivots[0].parent, "");
  EXPECT_TRUE(r.effect.pivots[0].motion.rotation.empty());
  const Pivot& spinner = r.effect.pivots[1];
  EXPECT_EQ(spinner.name, "spinner");
  EXPECT_EQ(spinner.parent, "m");
  ASSERT_EQ(spinner.motion.rotation.size(), 5u);
  EXPECT_TRUE(spinner.motion.position.empty());
  // NWN's turn about +Z (up) is a turn about Mote's +Y: 90° at 1 s.
  EXPECT_FLOAT_EQ(spinner.motion.rotation[1].time, 1.0f);
  EXPECT_NEAR(spinner.motion.rotation[1].value[0], 0.0f, 1e-3f);
  EXPECT_NEAR(spinner.motion.rotation[1].value[1], 90.0f, 1e-3f);
  EXPECT_NEAR(spinner.motion.rotation[1].value[2], 0.0f, 1e-3f);

  const Emitter* orbiter = findEmitter(r.effect, "orbiter");
  ASSERT_NE(orbiter, nullptr);
  EXPECT_EQ(orbiter->parent, "spinner");
  EXPECT_EQ(orbiter->position, (Vec3{1.0f, 0.0f, 0.0f}));
  EXPECT_TRUE(orbiter->motion.position.empty());

  const Emitter* climber = findEmitter(r.effect, "climber");
  ASSERT_NE(climber, nullptr);
  EXPECT_EQ(climber->parent, "m");
  ASSERT_EQ(climber->motion.position.size(), 2u);
  EXPECT_EQ(climber->motion.position[1].time, 2.0f);
  EXPECT_EQ(climber->motion.position[1].value, (Vec3{0.0f, 2.0f, 0.0f}));  // NWN +Z is Mote +Y

  // An emitter whose chain has no keys is placed as before: no parent, its model transform.
  const Emitter* still = findEmitter(r.effect, "still");
  ASSERT_NE(still, nullptr);
  EXPECT_EQ(still->parent, "");
  EXPECT_EQ(still->position, (Vec3{0.0f, 0.0f, -3.0f}));  // NWN +Y is Mote −Z
  EXPECT_TRUE(validateEffect(r.effect).empty());
}

TEST(MdlMotion, TheImportedEmittersMoveAlongTheirKeysWhenTheyRun) {
  const MdlParseResult p = parseMdl(kMovingModel, "moving.mdl");
  ASSERT_TRUE(p.ok());
  const ImportResult r = importMdl(p.model);
  ASSERT_TRUE(r.ok());
  compiler::CompileResult compiled = compiler::compileEffect(r.effect);
  ASSERT_TRUE(compiled.ok());
  auto world = ParticleWorld::create(worldDescFor(compiled.effect)).takeValue();
  const Result<EffectHandle> effect = world->addEffect(compiled.effect);
  ASSERT_TRUE(effect.ok());
  const auto where = [&](const std::string& name) {
    for (std::uint32_t i = 0; i < compiled.effect.emitters.size(); ++i)
      if (compiled.effect.emitters[i].name == name)
        return world->view(world->emitter(*effect, i)).value().transform.position;
    ADD_FAILURE() << "no emitter " << name;
    return std::array<float, 3>{};
  };
  // At 1 s the spinner has turned 90° about +Y: the orbiter's (1, 0, 0) is at (0, 0, −1); the
  // climber is half way up. At 1.5 s the spinner is at 135° (slerp between the 90° and 180° keys).
  for (int t = 0; t < 60; ++t)
    world->tick(1.0f / 60.0f);
  const std::array<float, 3> orbiter = where("orbiter");
  EXPECT_NEAR(orbiter[0], 0.0f, 1e-4f);
  EXPECT_NEAR(orbiter[1], 0.0f, 1e-4f);
  EXPECT_NEAR(orbiter[2], -1.0f, 1e-4f);
  EXPECT_NEAR(where("climber")[1], 1.0f, 1e-4f);
  for (int t = 0; t < 30; ++t)
    world->tick(1.0f / 60.0f);
  const std::array<float, 3> later = where("orbiter");
  EXPECT_NEAR(later[0], -std::sqrt(0.5f), 1e-4f);
  EXPECT_NEAR(later[2], -std::sqrt(0.5f), 1e-4f);
  EXPECT_NEAR(where("climber")[1], 1.5f, 1e-4f);
  const std::array<float, 3> still = where("still");
  EXPECT_EQ(still, (std::array<float, 3>{0.0f, 0.0f, -3.0f}));
}

TEST(MdlMotion, AChainTooDeepForThePivotsIsPlacedStillWithAWarning) {
  // 300 dummies, each the child of the one before, the first spinning; an emitter at the bottom.
  std::string text = "newmodel deep\nbeginmodelgeom deep\nnode dummy d0\nparent NULL\nendnode\n";
  for (int i = 1; i < 300; ++i) {
    text += "node dummy d" + std::to_string(i) + "\nparent d" + std::to_string(i - 1) +
            "\nposition 0 0 0.01\nendnode\n";
  }
  text += "node emitter e\nparent d299\nbirthrate 1\nendnode\nendmodelgeom deep\n";
  text +=
      "newanim duration deep\nlength 1\nnode dummy d0\nparent NULL\norientationkey 2\n"
      "0 0 0 1 0\n1 0 0 1 1\nendnode\ndoneanim duration deep\ndonemodel deep\n";
  const MdlParseResult p = parseMdl(text, "deep.mdl");
  ASSERT_TRUE(p.ok());
  const ImportResult r = importMdl(p.model);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r.effect.pivots.empty());
  ASSERT_EQ(r.effect.emitters.size(), 1u);
  EXPECT_EQ(r.effect.emitters[0].parent, "");
  EXPECT_NEAR(r.effect.emitters[0].position[1], 2.99f, 1e-3f);  // 299 × 1 cm up
  EXPECT_TRUE(std::any_of(r.diagnostics.begin(), r.diagnostics.end(), [](const Diagnostic& d) {
    return d.message.find("would make more than 256 pivots") != std::string::npos;
  }));
  EXPECT_TRUE(validateEffect(r.effect).empty());
}

}  // namespace
}  // namespace mote::nwn
