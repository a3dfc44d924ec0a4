// SPDX-License-Identifier: MIT
// Animations as the game plays them (issue 27, deliverable 4): a looping animation (`duration`, the
// resting states) wraps every emitter's emission and the nodes' motion at its length; a one-shot
// one (`impact`) ends continuous emission at its length; --play overrides the name; an animation
// inherited from a supermodel moves the nodes by its translations times the model's
// setanimationscale. Checked on the EffectDesc the importer writes and on the running world.
#include "support/emitter_named.h"

#include <mote/compiler/compiler.h>
#include <mote/nwn/mdl.h>
#include <mote/runtime/world.h>

#include <gtest/gtest.h>

#include <string>

namespace mote::nwn {
namespace {

using namespace authoring;

// `fountain` (10/s, 1 s lives) hangs from the dummy `arm`, which the duration animation moves 4 m
// along NWN +X over 4 s — past the animation's 2 s; `single` emits one particle every 0.25 s
// (loop 1, birthrate 4); `boom` detonates 5 particles at 0.5 s, and at 2.5 s in the duration
// animation (after its end). `impact` (1.1 s) moves nothing.
constexpr const char* kModel = R"(newmodel play
beginmodelgeom play
node dummy play
parent NULL
endnode
node dummy arm
parent play
endnode
node emitter fountain
parent arm
update Fountain
birthrate 10
lifeExp 1
velocity 1
sizeStart 0.1
endnode
node emitter single
parent play
update Single
loop 1
birthrate 4
lifeExp 1
sizeStart 0.1
endnode
node emitter boom
parent play
update Explosion
birthrate 5
lifeExp 0.5
sizeStart 0.1
endnode
endmodelgeom play
newanim duration play
length 2
transtime 0
event 0.5 detonate
event 2.5 detonate
node dummy arm
parent play
positionkey 2
0 0 0 0
4 4 0 0
endlist
endnode
doneanim duration play
newanim impact play
length 1.1
event 0.5 detonate
doneanim impact play
donemodel play
)";

const Emitter& named(const EffectDesc& effect, const std::string& name) {
  return test::emitterNamed(effect, name);
}

ImportResult imported(const std::string& animation, AnimationPlay play = AnimationPlay::Auto) {
  const MdlParseResult p = parseMdl(kModel, "play.mdl");
  EXPECT_TRUE(p.ok());
  ImportOptions options;
  options.animation = animation;
  options.play = play;
  ImportResult r = importMdl(p.model, options);
  EXPECT_TRUE(r.ok());
  return r;
}

bool warned(const ImportResult& r, const std::string& text) {
  for (const Diagnostic& d : r.diagnostics)
    if (d.message.find(text) != std::string::npos) return true;
  return false;
}

TEST(MdlPlayback, WhichAnimationsLoop) {
  for (const char* name : {"duration", "DURATION", "default", "on", "off", "pause1", "cpause1",
                           "walk", "run", "opened1", "closed", "dead", "activated"})
    EXPECT_TRUE(animationLoops(name)) << name;
  for (const char* name :
       {"impact", "cessation", "on2off", "open", "close", "damage", "die", "ca1slashl", ""})
    EXPECT_FALSE(animationLoops(name)) << name;
}

TEST(MdlPlayback, ADurationAnimationLoopsEveryEmitterAndItsMotion) {
  const ImportResult r = imported("duration");
  EXPECT_TRUE(r.looping);
  EXPECT_FLOAT_EQ(r.length, 2.0f);

  const Emitter& fountain = named(r.effect, "fountain");
  EXPECT_EQ(fountain.spawn.mode, EmissionMode::Continuous);
  EXPECT_TRUE(fountain.spawn.loop);
  EXPECT_FLOAT_EQ(fountain.spawn.duration, 2.0f);

  // One particle every 0.25 s within each 2 s cycle: a burst, the emission's loop the animation's.
  const Emitter& single = named(r.effect, "single");
  EXPECT_EQ(single.spawn.mode, EmissionMode::Continuous);
  EXPECT_EQ(single.spawn.rate, 0.0f);
  ASSERT_EQ(single.spawn.bursts.size(), 1u);
  EXPECT_EQ(single.spawn.bursts[0], (Burst{0.0f, 1, 0.25f, 0}));
  EXPECT_TRUE(single.spawn.loop);
  EXPECT_FLOAT_EQ(single.spawn.duration, 2.0f);

  // The detonation at 2.5 s is after the animation wraps: never reached.
  const Emitter& boom = named(r.effect, "boom");
  EXPECT_EQ(boom.spawn.mode, EmissionMode::EventBurst);
  EXPECT_EQ(boom.spawn.eventTimes, (std::vector<float>{0.5f}));
  EXPECT_TRUE(boom.spawn.loop);
  EXPECT_TRUE(warned(r, "detonations of 'boom' at or after the looping animation's end (1)"));

  // The arm's keys end at the loop: 2 m along NWN +X (Mote +X) at 2 s, and the motion repeats.
  ASSERT_EQ(r.effect.pivots.size(), 2u);  // play, arm
  const Pivot& arm = r.effect.pivots[1];
  EXPECT_EQ(arm.name, "arm");
  EXPECT_EQ(fountain.parent, "arm");
  EXPECT_FLOAT_EQ(arm.motion.period, 2.0f);
  ASSERT_EQ(arm.motion.position.size(), 2u);
  EXPECT_EQ(arm.motion.position[0].time, 0.0f);
  EXPECT_EQ(arm.motion.position[1].time, 2.0f);
  EXPECT_FLOAT_EQ(arm.motion.position[1].value[0], 2.0f);
  EXPECT_FLOAT_EQ(arm.motion.position[1].value[1], 0.0f);
  EXPECT_FLOAT_EQ(arm.motion.position[1].value[2], 0.0f);
}

TEST(MdlPlayback, AnImpactAnimationPlaysOnceAndTheEmissionEnds) {
  const ImportResult r = imported("impact");
  EXPECT_FALSE(r.looping);
  EXPECT_FLOAT_EQ(r.length, 1.1f);
  const Emitter& fountain = named(r.effect, "fountain");
  EXPECT_FALSE(fountain.spawn.loop);
  EXPECT_FLOAT_EQ(fountain.spawn.duration, 1.1f);
  // Repeats at 0, 0.25, 0.5, 0.75 and 1 s: the five that start before 1.1 s.
  const Emitter& single = named(r.effect, "single");
  ASSERT_EQ(single.spawn.bursts.size(), 1u);
  EXPECT_EQ(single.spawn.bursts[0], (Burst{0.0f, 1, 0.25f, 4}));
  EXPECT_FALSE(single.spawn.loop);
  EXPECT_EQ(named(r.effect, "boom").spawn.eventTimes, (std::vector<float>{0.5f}));
  EXPECT_FALSE(named(r.effect, "boom").spawn.loop);
  EXPECT_TRUE(r.effect.pivots.empty());  // impact moves nothing
}

TEST(MdlPlayback, PlayOverridesTheName) {
  const ImportResult looped = imported("impact", AnimationPlay::Loop);
  EXPECT_TRUE(looped.looping);
  EXPECT_TRUE(named(looped.effect, "fountain").spawn.loop);
  EXPECT_FLOAT_EQ(named(looped.effect, "fountain").spawn.duration, 1.1f);

  // Played once, the arm's keys are kept whole (4 m at 4 s) and hold after them.
  const ImportResult once = imported("duration", AnimationPlay::Once);
  EXPECT_FALSE(once.looping);
  EXPECT_FALSE(named(once.effect, "fountain").spawn.loop);
  EXPECT_FLOAT_EQ(named(once.effect, "fountain").spawn.duration, 2.0f);
  const Pivot& arm = once.effect.pivots[1];
  EXPECT_EQ(arm.motion.period, 0.0f);
  ASSERT_EQ(arm.motion.position.size(), 2u);
  EXPECT_EQ(arm.motion.position[1].time, 4.0f);
  EXPECT_FLOAT_EQ(arm.motion.position[1].value[0], 4.0f);
  // Both detonations are kept (the one at 2.5 s happens after the emission's end, on the effect's
  // timeline, as the game's events do while the effect lives).
  EXPECT_EQ(named(once.effect, "boom").spawn.eventTimes, (std::vector<float>{0.5f, 2.5f}));
}

// The fountain's live particles at 2.2 s: a one-shot impact's emission ended at 1.1 s and its
// last particles (1 s lives) are gone; the looping duration's are still being born.
std::uint32_t fountainLiveAt2_2(const ImportResult& r) {
  compiler::CompileResult compiled = compiler::compileEffect(r.effect);
  EXPECT_TRUE(compiled.ok());
  auto world = ParticleWorld::create(worldDescFor(compiled.effect)).takeValue();
  const EffectHandle h = world->addEffect(compiled.effect).value();
  std::uint32_t index = 0;
  for (std::uint32_t i = 0; i < r.effect.emitters.size(); ++i)
    if (r.effect.emitters[i].name == "fountain") index = i;
  for (int t = 0; t < 132; ++t)
    world->tick(1.0f / 60.0f);
  return world->view(world->emitter(h, index)).value().live;
}

TEST(MdlPlayback, TheWorldStopsEmittingAfterAOneShotAnimation) {
  EXPECT_EQ(fountainLiveAt2_2(imported("impact")), 0u);
  EXPECT_GE(fountainLiveAt2_2(imported("duration")), 5u);
}

// A creature-like model at half its family's size: its supermodel's `pause1` moves `arm` 4 m,
// which moves this model's arm 2 m; its own animation `wave` is not scaled.
constexpr const char* kSmall = R"(newmodel small
setsupermodel small base
setanimationscale 0.5
beginmodelgeom small
node dummy small
parent NULL
endnode
node dummy arm
parent small
endnode
node emitter puff
parent arm
update Fountain
birthrate 10
lifeExp 1
sizeStart 0.1
endnode
endmodelgeom small
newanim wave small
length 2
node dummy arm
parent small
positionkey 2
0 0 0 0
2 4 0 0
endlist
endnode
doneanim wave small
donemodel small
)";
constexpr const char* kBase = R"(newmodel base
beginmodelgeom base
node dummy base
parent NULL
endnode
endmodelgeom base
newanim pause1 base
length 2
node dummy arm
parent base
positionkey 2
0 0 0 0
2 4 0 0
endlist
endnode
doneanim pause1 base
donemodel base
)";

TEST(MdlPlayback, AnInheritedAnimationsTranslationsScaleByTheModelsAnimationScale) {
  const MdlParseResult small = parseMdl(kSmall, "small.mdl");
  const MdlParseResult base = parseMdl(kBase, "base.mdl");
  ASSERT_TRUE(small.ok());
  ASSERT_TRUE(base.ok());
  EXPECT_FLOAT_EQ(small.model.animationScale, 0.5f);
  for (const auto& [animation, meters] : {std::pair{"pause1", 2.0f}, std::pair{"wave", 4.0f}}) {
    ImportOptions options;
    options.animation = animation;
    options.supermodels = {base.model};
    const ImportResult r = importMdl(small.model, options);
    ASSERT_TRUE(r.ok()) << animation;
    EXPECT_EQ(r.looping, std::string(animation) == "pause1");
    ASSERT_EQ(r.effect.pivots.size(), 2u) << animation;
    const Motion& m = r.effect.pivots[1].motion;
    ASSERT_EQ(m.position.size(), 2u) << animation;
    EXPECT_FLOAT_EQ(m.position[1].value[0], meters) << animation;
  }
}

}  // namespace
}  // namespace mote::nwn
