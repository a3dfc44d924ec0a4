// SPDX-License-Identifier: MIT
// Keyed controllers (issue 27, deliverable 2): spread, randvel and xsize/ysize keys in the played
// animation become spawn-time curves of the EffectDesc — the cone's spread_over_emitter_time, the
// speed's range_scale_over_emitter_time, the rect's size_over_emitter_time — where the importer
// used to keep their 0 s value — and keyed mass, a gravity whose scale each particle samples at its
// birth.
#include "support/emitter_named.h"

#include <mote/authoring/effect_json.h>
#include <mote/nwn/mdl.h>

#include <gtest/gtest.h>

#include <string>
#include <variant>

namespace mote::nwn {
namespace {

using namespace authoring;

// `wide`: spread from 0 to π (a 90° half-angle) over 2 s, randvel from 0 to 3 m/s at a static
// velocity of 2, xsize keyed 0 → 200 cm with a step to 400 cm at 3 s, ysize static 50 cm, mass
// keyed 1 → 5 and a 4-frame sheet's fps keyed 2 → 10, its frameStart 0 → 2 and frameEnd 1 → 5
// (past the sheet). `steady`: the same controllers static.
// `seeker`: p2p gravity toward its reference child, grav keyed 6 → 2 and threshold 0.8 → 0.2.
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
xgrid 4
ygrid 1
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
node emitter seeker
parent keyed
birthrate 10
lifeExp 1
p2p 1
p2p_type Gravity
grav 6
threshold 0.8
drag 0.5
endnode
node reference seeker_ref
parent seeker
position 0 0 2
refModel fx_ref
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
fpskey 2
0 2
2 10
endlist
framestartkey 2
0 0
2 2
endlist
frameEndkey 2
0 1
2 5
endlist
endnode
node emitter seeker
parent keyed
gravkey 2
0 6
1 2
endlist
thresholdkey 2
0 0.8
1 0.2
endlist
endnode
doneanim duration keyed
donemodel keyed
)";

const Emitter& named(const EffectDesc& effect, const std::string& name) {
  return test::emitterNamed(effect, name);
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

  // Mass 1 → 5 m/s² world-down over 2 s: a downward unit acceleration scaled by the curve at
  // each particle's birth. Nothing warns that it cannot be represented.
  ASSERT_FALSE(wide.update.empty());
  const auto* gravity = std::get_if<GravityModule>(&wide.update.front());
  ASSERT_NE(gravity, nullptr);
  EXPECT_EQ(gravity->acceleration, (Vec3{0.0f, -1.0f, 0.0f}));
  ASSERT_EQ(gravity->scaleOverEmitterTime.keys.size(), 2u);
  EXPECT_EQ(gravity->scaleOverEmitterTime.keys[0].value, 1.0f);
  EXPECT_EQ(gravity->scaleOverEmitterTime.keys[1].time, 2.0f);
  EXPECT_EQ(gravity->scaleOverEmitterTime.keys[1].value, 5.0f);
  // fps 2 → 10 over 2 s: each particle's frame rate is the one of its birth.
  const Material* sheet = nullptr;
  for (const Material& m : r.effect.materials)
    if (m.name == wide.material) sheet = &m;
  ASSERT_NE(sheet, nullptr);
  EXPECT_EQ(sheet->sheet.columns, 4u);
  EXPECT_EQ(sheet->sheet.playback, SheetPlayback::Fps);
  EXPECT_EQ(sheet->sheet.fps, 2.0f);
  ASSERT_EQ(sheet->sheet.fpsOverEmitterTime.keys.size(), 2u);
  EXPECT_EQ(sheet->sheet.fpsOverEmitterTime.keys[1].time, 2.0f);
  EXPECT_EQ(sheet->sheet.fpsOverEmitterTime.keys[1].value, 10.0f);
  // The frame range of each particle's birth: the values at 0 s, and the keys (clamped into the
  // sheet).
  EXPECT_EQ(sheet->sheet.frameBegin, 0u);
  EXPECT_EQ(sheet->sheet.frameEnd, 1);
  EXPECT_EQ(sheet->sheet.frameBeginOverEmitterTime.keys,
            (std::vector<CurveKey>{{0.0f, 0.0f}, {2.0f, 2.0f}}));
  EXPECT_EQ(sheet->sheet.frameEndOverEmitterTime.keys,
            (std::vector<CurveKey>{{0.0f, 1.0f}, {2.0f, 3.0f}}));
  for (const Diagnostic& d : r.diagnostics)
    EXPECT_EQ(d.message.find("cannot be represented"), std::string::npos) << d.message;

  // p2p gravity: each particle pulled and killed with the values of its birth; drag stays constant.
  const Emitter& seeker = named(r.effect, "seeker");
  const TargetModule* target = nullptr;
  for (const UpdateModule& m : seeker.update)
    if (const auto* t = std::get_if<TargetModule>(&m)) target = t;
  ASSERT_NE(target, nullptr);
  EXPECT_EQ(target->mode, TargetMode::Gravity);
  EXPECT_EQ(target->gravity, 6.0f);
  EXPECT_EQ(target->gravityOverEmitterTime.keys,
            (std::vector<CurveKey>{{0.0f, 6.0f}, {1.0f, 2.0f}}));
  EXPECT_EQ(target->killRadiusOverEmitterTime.keys,
            (std::vector<CurveKey>{{0.0f, 0.8f}, {1.0f, 0.2f}}));
  EXPECT_EQ(target->drag, 0.5f);
  EXPECT_TRUE(target->dragOverEmitterTime.keys.empty());

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
