// SPDX-License-Identifier: MIT
// Keyed controllers (issue 27, deliverable 2): spread, randvel and xsize/ysize keys in the played
// animation become spawn-time curves of the EffectDesc — the cone's spread_over_emitter_time, the
// speed's range_scale_over_emitter_time, the rect's size_over_emitter_time — where the importer
// used to keep their 0 s value; what EffectDesc cannot follow yet (mass) still warns.
#include <mote/authoring/effect_json.h>
#include <mote/nwn/mdl.h>

#include <gtest/gtest.h>

#include <string>

namespace mote::nwn {
namespace {

using namespace authoring;

// `wide`: spread from 0 to π (a 90° half-angle) over 2 s, randvel from 0 to 3 m/s at a static
// velocity of 2, xsize keyed 0 → 200 cm with a step to 400 cm at 3 s, ysize static 50 cm, and mass
// keyed. `steady`: the same controllers static.
constexpr const char* kKeyedModel = R"(newmodel keyed
beginmodelgeom keyed
node dummy keyed
parent NULL
endnode
node emitter wide
parent keyed
birthrate 10
lifeExp 1
velocity 2
ysize 50
endnode
node emitter steady
parent keyed
birthrate 10
lifeExp 1
velocity 2
randvel 1
spread 7
xsize 100
ysize 0
endnode
endmodelgeom keyed
newanim duration keyed
length 4
node emitter wide
parent keyed
spreadkey 2
0 0
2 3.1415927
endlist
randvelkey 2
0 0
2 3
endlist
xsizekey 3
0 0
3 200
3 400
endlist
masskey 2
0 1
2 5
endlist
endnode
doneanim duration keyed
donemodel keyed
)";

const Emitter& named(const EffectDesc& effect, const std::string& name) {
  for (const Emitter& e : effect.emitters)
    if (e.name == name) return e;
  ADD_FAILURE() << "no emitter " << name;
  return effect.emitters.front();
}

TEST(MdlKeyed, SpreadRandvelAndTheRegionFollowEmitterTime) {
  const MdlParseResult p = parseMdl(kKeyedModel, "keyed.mdl");
  ASSERT_TRUE(p.ok());
  const ImportResult r = importMdl(p.model);
  ASSERT_TRUE(r.ok());
  const Emitter& wide = named(r.effect, "wide");

  // spread is NWN's full aperture in radians: π → a half-angle of 90°.
  EXPECT_EQ(wide.init.velocity.kind, VelocityKind::Cone);
  const Curve& spread = wide.init.velocity.spreadOverEmitterTime;
  ASSERT_EQ(spread.keys.size(), 2u);
  EXPECT_EQ(spread.keys[0].time, 0.0f);
  EXPECT_EQ(spread.keys[0].value, 0.0f);
  EXPECT_EQ(spread.keys[1].time, 2.0f);
  EXPECT_NEAR(spread.keys[1].value, 90.0f, 1e-4f);

  // speed = 2 + u · randvel(t), u in [0, 1].
  const ScalarParam& speed = wide.init.velocity.speed;
  EXPECT_EQ(speed.range.min, 0.0f);
  EXPECT_EQ(speed.range.max, 1.0f);
  ASSERT_EQ(speed.overEmitterTime.keys.size(), 1u);
  EXPECT_EQ(speed.overEmitterTime.keys[0].value, 2.0f);
  ASSERT_EQ(speed.rangeScaleOverEmitterTime.keys.size(), 2u);
  EXPECT_EQ(speed.rangeScaleOverEmitterTime.keys[1].time, 2.0f);
  EXPECT_EQ(speed.rangeScaleOverEmitterTime.keys[1].value, 3.0f);

  // The rect in local XZ (NWN's XY), in metres: xsize keyed with its step kept as two keys at
  // 3 s, ysize's static 0.5 m at every key.
  EXPECT_EQ(wide.shape.kind, ShapeKind::Rect);
  const std::vector<Vec3Key>& size = wide.shape.sizeOverEmitterTime;
  ASSERT_EQ(size.size(), 3u);
  EXPECT_EQ(size[0].time, 0.0f);
  EXPECT_EQ(size[0].value, (Vec3{0.0f, 0.0f, 0.5f}));
  EXPECT_EQ(size[1].time, 3.0f);
  EXPECT_EQ(size[1].value, (Vec3{2.0f, 0.0f, 0.5f}));
  EXPECT_EQ(size[2].time, 3.0f);
  EXPECT_EQ(size[2].value, (Vec3{4.0f, 0.0f, 0.5f}));

  // Only mass, which EffectDesc has no spawn-time form for, still warns.
  std::size_t keyWarnings = 0;
  for (const Diagnostic& d : r.diagnostics) {
    if (d.message.find("cannot be represented") == std::string::npos) continue;
    ++keyWarnings;
    EXPECT_NE(d.message.find("'mass' keys of 'wide'"), std::string::npos) << d.message;
  }
  EXPECT_EQ(keyWarnings, 1u);

  // The static controllers are the constants they were.
  const Emitter& steady = named(r.effect, "steady");
  EXPECT_TRUE(steady.init.velocity.spreadOverEmitterTime.keys.empty());
  EXPECT_EQ(steady.init.velocity.kind, VelocityKind::Sphere);  // 7 rad is past 2π
  EXPECT_EQ(steady.init.velocity.spread, 0.0f);
  EXPECT_TRUE(steady.init.velocity.speed.rangeScaleOverEmitterTime.keys.empty());
  EXPECT_EQ(steady.init.velocity.speed.range.min, 2.0f);
  EXPECT_EQ(steady.init.velocity.speed.range.max, 3.0f);
  EXPECT_TRUE(steady.shape.sizeOverEmitterTime.empty());
  EXPECT_EQ(steady.shape.size, (Vec3{1.0f, 0.0f, 0.0f}));

  // What the importer hands on is a valid effect, and a canonical file reads back as it.
  std::string errors;
  for (const Diagnostic& d : validateEffect(r.effect))
    if (d.severity == Severity::Error) errors += formatDiagnostic(d) + "\n";
  EXPECT_EQ(errors, "");
  const EffectLoadResult again = parseEffect(saveEffect(r.effect), "keyed.json");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again.effect, r.effect);
}

}  // namespace
}  // namespace mote::nwn
