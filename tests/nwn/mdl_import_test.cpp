// SPDX-License-Identifier: MIT
// The NWN ASCII MDL importer: every fixture in tests/data/nwn (written for the project, one per
// dialect and quirk) imports with the lowered values computed by hand, compiles, simulates 10 s
// and renders a frame; junk warns with its line; malformed structure is a located error.
#include "mesh_loader.h"  // tools/mote: the CLI's chunk-model loader
#include "support/emitter_named.h"
#include "support/golden_image.h"
#include "support/source_dir.h"

#include <mote/authoring/effect_json.h>
#include <mote/compiler/compiler.h>
#include <mote/core/file.h>
#include <mote/nwn/mdl.h>
#include <mote/render/image.h>
#include <mote/render/particle_renderer.h>
#include <mote/runtime/world.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>
#include <string>
#include <unistd.h>
#include <variant>

namespace mote::nwn {
namespace {

using namespace authoring;

const std::filesystem::path kDataDir =
    std::filesystem::path(mote::test::sourceDir()) / "tests/data/nwn";

std::string fixture(const std::string& name) {
  return (kDataDir / name).string();
}

ImportResult importFixture(const std::string& name, const ImportOptions& options = {}) {
  ImportResult r = importMdlFile(fixture(name), options);
  for (const Diagnostic& d : r.diagnostics)
    if (d.severity == Severity::Error) ADD_FAILURE() << formatMdlDiagnostic(d);
  return r;
}

// True when a warning at `line` (0: any line) contains `text`.
bool hasWarning(const std::vector<Diagnostic>& diagnostics, std::uint32_t line,
                const std::string& text) {
  return std::any_of(diagnostics.begin(), diagnostics.end(), [&](const Diagnostic& d) {
    return d.severity == Severity::Warning && (line == 0 || d.line == line) &&
           d.message.find(text) != std::string::npos;
  });
}

std::string allDiagnostics(const std::vector<Diagnostic>& diagnostics) {
  std::string out;
  for (const Diagnostic& d : diagnostics)
    out += formatMdlDiagnostic(d) + "\n";
  return out;
}

const Emitter& emitter(const EffectDesc& effect, const std::string& name) {
  return test::emitterNamed(effect, name);
}

const Material& material(const EffectDesc& effect, const std::string& name) {
  for (const Material& m : effect.materials)
    if (m.name == name) return m;
  ADD_FAILURE() << "no material " << name;
  static const Material none;
  return none;
}

template <class M>
const M* module(const Emitter& e) {
  for (const UpdateModule& m : e.update)
    if (const M* p = std::get_if<M>(&m)) return p;
  return nullptr;
}

void expectVec(const Vec3& v, float x, float y, float z, float tolerance = 1e-4f) {
  EXPECT_NEAR(v[0], x, tolerance);
  EXPECT_NEAR(v[1], y, tolerance);
  EXPECT_NEAR(v[2], z, tolerance);
}

void expectCurve(const Curve& c, std::vector<std::pair<float, float>> keys,
                 float tolerance = 1e-4f) {
  ASSERT_EQ(c.keys.size(), keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    EXPECT_NEAR(c.keys[i].time, keys[i].first, tolerance) << "key " << i;
    EXPECT_NEAR(c.keys[i].value, keys[i].second, tolerance) << "key " << i;
  }
}

void expectRgba(const Rgba& c, float r, float g, float b, float a, float tolerance = 1e-4f) {
  EXPECT_NEAR(c[0], r, tolerance);
  EXPECT_NEAR(c[1], g, tolerance);
  EXPECT_NEAR(c[2], b, tolerance);
  EXPECT_NEAR(c[3], a, tolerance);
}

// -------------------------------------------------------------------------------------------------
// Every fixture: imports, validates, round-trips through JSON, compiles, simulates 10 s, renders.

class EveryFixture : public ::testing::TestWithParam<const char*> {};

TEST_P(EveryFixture, ImportsCompilesSimulatesTenSecondsAndRenders) {
  const ImportResult imported = importFixture(GetParam());
  ASSERT_TRUE(imported.ok()) << allDiagnostics(imported.diagnostics);
  EXPECT_FALSE(hasErrors(validateEffect(imported.effect)));
  const EffectLoadResult reloaded = parseEffect(saveEffect(imported.effect), "roundtrip.json");
  ASSERT_TRUE(reloaded.ok());
  EXPECT_EQ(reloaded.effect, imported.effect);

  compiler::CompileResult compiled = compiler::compileEffect(imported.effect);
  ASSERT_TRUE(compiled.ok()) << (compiled.diagnostics.empty()
                                     ? std::string()
                                     : formatDiagnostic(compiled.diagnostics.front()));
  auto world = ParticleWorld::create(worldDescFor(compiled.effect)).takeValue();
  ASSERT_TRUE(world->addEffect(compiled.effect).ok());
  render::RendererOptions options;
  options.viewport = {64, 48};
  options.builtinSpriteSize = 16;
  options.meshLoader = cli::loadHostMesh;  // chunk models, as `mote render` reads them
  auto renderer = render::ParticleRenderer::create(options).takeValue();
  render::Camera camera = render::Camera::perspective(0.9f, 64.0f / 48.0f, 0.1f, 200.0f).value();
  ASSERT_TRUE(camera.lookAt({0.0f, 2.0f, 8.0f}, {0.0f, 1.0f, 0.0f}, {0.0f, 1.0f, 0.0f}).ok());
  render::Image image;
  std::uint64_t spawned = 0;
  for (int t = 1; t <= 300; ++t) {
    world->tick(1.0f / 30.0f);
    spawned += world->stats().spawned;
    // A frame at 0.6 s, when every fixture's first emission is alive, and one at 10 s.
    if (t == 18 || t == 300) {
      const Status s = renderer.render(*world, camera, image);
      ASSERT_TRUE(s.ok()) << s.message();
      EXPECT_EQ(image.width(), 64u);
      const bool visible = std::string(GetParam()) != "junk.mdl";  // junk: texture NULL only
      if (t == 18 && visible) {
        EXPECT_GT(renderer.stats().quads + renderer.stats().triangles, 0u)
            << "nothing drawn at 0.6 s";
      }
    }
  }
  EXPECT_GT(spawned, 0u) << "nothing was emitted in 10 s";
}

INSTANTIATE_TEST_SUITE_P(Fixtures, EveryFixture,
                         ::testing::Values("bioware_fountain.mdl", "nwmax_gravity.mdl",
                                           "nwnmdlcomp_flash.mdl", "explosion_events.mdl",
                                           "cleanmodels_lightning.mdl", "sprites_single.mdl",
                                           "junk.mdl", "chunks/chunk_rocks.mdl", "three_stage.mdl"),
                         [](const ::testing::TestParamInfo<const char*>& p) {
                           return std::filesystem::path(p.param).stem().string();
                         });

// -------------------------------------------------------------------------------------------------
// BioWare dialect (CRLF): hierarchy, Bezier p2p, keyed birthrate with a hard stop, keyed alpha.

TEST(MdlImport, BiowareFountainLowersEveryFieldByHand) {
  const ImportResult r = importFixture("bioware_fountain.mdl");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.animation, "duration");  // no impact: duration is the default
  EXPECT_EQ(r.effect.name, "fx_fountain");
  ASSERT_EQ(r.effect.emitters.size(), 2u);
  const Emitter& jet = emitter(r.effect, "Jet");
  // spinner at (1, 2, 0.5) turned 90° about Z; Jet 1 m along its X → NWN (1, 3, 0.5) → Mote
  // (x, z, −y) = (1, 0.5, −3); the 90° about NWN Z is 90° about Mote Y.
  expectVec(jet.position, 1.0f, 0.5f, -3.0f);
  expectVec(jet.rotation, 0.0f, 90.0f, 0.0f, 1e-3f);
  EXPECT_EQ(jet.spawn.mode, EmissionMode::Continuous);
  EXPECT_EQ(jet.spawn.metric, SpawnMetric::PerSecond);
  // 20 → −40 between 1.3 and 1.33333 crosses zero at 1.3 + 0.03333·20/60.
  expectCurve(jet.spawn.rateOverTime,
              {{0.5f, 20.0f}, {1.3f, 20.0f}, {1.311111f, 0.0f}, {1.33333f, 0.0f}});
  EXPECT_FLOAT_EQ(jet.init.lifetime.range.min, 2.0f);
  EXPECT_EQ(jet.init.velocity.kind, VelocityKind::Cone);
  EXPECT_NEAR(jet.init.velocity.spread, 15.0f, 1e-3f);  // 0.5236 rad full aperture → 15° half
  EXPECT_FLOAT_EQ(jet.init.velocity.speed.range.min, 3.0f);
  EXPECT_FLOAT_EQ(jet.init.velocity.speed.range.max, 4.0f);
  EXPECT_FLOAT_EQ(jet.init.spin.range.min, 90.0f);  // 0.25 rev/s
  const GravityModule* gravity = module<GravityModule>(jet);
  ASSERT_NE(gravity, nullptr);
  expectVec(gravity->acceleration, 0.0f, -2.0f, 0.0f);
  const TargetModule* target = module<TargetModule>(jet);
  ASSERT_NE(target, nullptr);
  EXPECT_EQ(target->mode, TargetMode::Bezier);
  expectVec(target->position, 0.0f, 2.0f, 0.0f);  // the reference 2 m up its +Z
  EXPECT_FLOAT_EQ(target->travelTime, 1.5f);
  EXPECT_FLOAT_EQ(target->sourceTangent, 0.5f);
  EXPECT_FLOAT_EQ(target->targetTangent, -2.0f);
  // Colour: start (1, .5, 0) → end (.5, .25, 0) is spawn colour × over-life (1 → .75 → .5); alpha
  // start keyed 0 → 1 over 0..1 s with end 0: spawn alpha 0 → 1, over life 1 → .5 → 0.
  ASSERT_EQ(jet.init.color.overEmitterTime.keys.size(), 2u);
  expectRgba(jet.init.color.overEmitterTime.keys[0].color, 1.0f, 0.5f, 0.0f, 0.0f);
  expectRgba(jet.init.color.overEmitterTime.keys[1].color, 1.0f, 0.5f, 0.0f, 1.0f);
  EXPECT_FLOAT_EQ(jet.init.color.overEmitterTime.keys[1].time, 1.0f);
  const ColorOverLifeModule* color = module<ColorOverLifeModule>(jet);
  ASSERT_NE(color, nullptr);
  EXPECT_EQ(color->mode, CurveMode::Multiply);
  ASSERT_EQ(color->gradient.keys.size(), 3u);
  expectRgba(color->gradient.keys[1].color, 0.75f, 0.75f, 1.0f, 1.0f);
  expectRgba(color->gradient.keys[2].color, 0.5f, 0.5f, 1.0f, 1.0f);
  const AlphaOverLifeModule* alpha = module<AlphaOverLifeModule>(jet);
  ASSERT_NE(alpha, nullptr);
  expectCurve(alpha->curve, {{0.0f, 1.0f}, {0.5f, 0.5f}, {1.0f, 0.0f}});
  // Size .2 → .4: spawn .4, over life .5 → .75 → 1.
  EXPECT_FLOAT_EQ(jet.init.size.range.min, 0.4f);
  const SizeOverLifeModule* size = module<SizeOverLifeModule>(jet);
  ASSERT_NE(size, nullptr);
  expectCurve(size->x, {{0.0f, 0.5f}, {0.5f, 0.75f}, {1.0f, 1.0f}});
  EXPECT_EQ(material(r.effect, "Jet").blend, BlendMode::Alpha);
  EXPECT_EQ(material(r.effect, "Jet").texture, "builtin:soft_circle");

  const Emitter& trail = emitter(r.effect, "Trail");
  EXPECT_EQ(trail.spawn.metric, SpawnMetric::PerDistance);
  EXPECT_FLOAT_EQ(trail.spawn.rate, 8.0f);
  EXPECT_EQ(trail.space, SimulationSpace::EmitterAttached);
  EXPECT_FLOAT_EQ(trail.velocityInheritance, 1.0f);
  EXPECT_EQ(material(r.effect, "Trail").blend, BlendMode::Additive);
  EXPECT_EQ(module<SizeOverLifeModule>(trail), nullptr);  // end defaults to start

  EXPECT_TRUE(hasWarning(r.diagnostics, 23, "'update_sel' is an exporter UI field"));
  EXPECT_TRUE(hasWarning(r.diagnostics, 25, "'render_sel'"));
  EXPECT_TRUE(hasWarning(r.diagnostics, 27, "'blend_sel'"));
  EXPECT_TRUE(hasWarning(r.diagnostics, 52, "keyed header field"));
  // Its textures are not next to it (the first directory of the search path).
  EXPECT_TRUE(hasWarning(r.diagnostics, 29, "texture 'fxpa_jet' is not in " + kDataDir.string()));
}

TEST(MdlImport, CrlfAndLfGiveTheSameModel) {
  const MdlParseResult crlf = loadMdlFile(fixture("bioware_fountain.mdl"));
  ASSERT_TRUE(crlf.ok());
  std::string text;
  {
    std::FILE* f = std::fopen(fixture("bioware_fountain.mdl").c_str(), "rb");
    ASSERT_NE(f, nullptr);
    char buffer[4096];
    std::size_t n = 0;
    while ((n = std::fread(buffer, 1, sizeof buffer, f)) > 0)
      text.append(buffer, n);
    std::fclose(f);
  }
  ASSERT_NE(text.find('\r'), std::string::npos);
  text.erase(std::remove(text.begin(), text.end(), '\r'), text.end());
  MdlParseResult lf = parseMdl(text, fixture("bioware_fountain.mdl"));
  ASSERT_TRUE(lf.ok());
  EXPECT_EQ(lf.model, crlf.model);
}

// -------------------------------------------------------------------------------------------------
// NWMax dialect: case, indentation, trailing spaces, typos, junk, Gravity p2p, Motion_Blur.

TEST(MdlImport, NwmaxGravityReadsItsQuirks) {
  const ImportResult r = importFixture("nwmax_gravity.mdl");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.animation, "");
  const Emitter& glow = emitter(r.effect, "glow");
  expectVec(glow.position, 0.0f, 0.0f, -0.0890446f);
  expectVec(glow.rotation, 0.0f, 0.0f, 0.0f);
  EXPECT_EQ(glow.shape.kind, ShapeKind::Rect);
  expectVec(glow.shape.size, 5.0f, 0.0f, 0.2f);  // cm → m, NWN local XY → Mote local XZ
  EXPECT_EQ(glow.space, SimulationSpace::SpawnAttached);
  EXPECT_EQ(glow.render.mode, RenderMode::Stretched);
  EXPECT_FLOAT_EQ(glow.render.stretchScale, 10.0f);
  EXPECT_EQ(glow.render.sortOrder, 2);
  EXPECT_NEAR(glow.render.deadspace, 12.0f, 1e-3f);
  EXPECT_EQ(glow.init.velocity.kind, VelocityKind::Sphere);  // 2π: every direction
  EXPECT_FLOAT_EQ(glow.spawn.rate, 12.5f);
  const TargetModule* target = module<TargetModule>(glow);
  ASSERT_NE(target, nullptr);
  EXPECT_EQ(target->mode, TargetMode::Gravity);  // p2p_type wins over p2p_sel 2
  expectVec(target->position, 0.0f, -0.63f, 0.0f);
  EXPECT_FLOAT_EQ(target->gravity, 6.0f);
  EXPECT_FLOAT_EQ(target->drag, 0.5f);
  EXPECT_FLOAT_EQ(target->killRadius, 0.8f);
  EXPECT_EQ(module<WindModule>(glow), nullptr);  // affectedByWind false
  EXPECT_EQ(module<GravityModule>(glow), nullptr);
  EXPECT_EQ(module<ColorOverLifeModule>(glow), nullptr);
  EXPECT_EQ(module<AlphaOverLifeModule>(glow), nullptr);
  expectRgba(glow.init.color.a, 0.729412f, 0.0f, 1.0f, 0.8f);
  EXPECT_FALSE(glow.init.separateSizeY);  // sizeStart_y 0: square
  const Material& m = material(r.effect, "glow");
  EXPECT_EQ(m.blend, BlendMode::Additive);
  EXPECT_TRUE(m.doubleSided);  // twosidedtext
  EXPECT_TRUE(m.ambientTint);  // m_istnited
  EXPECT_TRUE(hasWarning(r.diagnostics, 17, "'update_sel'"));
  EXPECT_TRUE(hasWarning(r.diagnostics, 34, "'opacity'"));
  EXPECT_TRUE(hasWarning(r.diagnostics, 61, "typo for 'twosidedtex'"));
  EXPECT_TRUE(hasWarning(r.diagnostics, 62, "typo for 'm_istinted'"));
  EXPECT_TRUE(hasWarning(r.diagnostics, 67, "Cone_Angle_Manipulator"));
  EXPECT_TRUE(hasWarning(r.diagnostics, 84, "Dummy Dummy"));
}

// -------------------------------------------------------------------------------------------------
// nwnmdlcomp dialect: counted lists, bare detonate, blank detonatekey row, Explosion.

TEST(MdlImport, NwnmdlcompFlashDetonatesFromItsBlankKeyRow) {
  const ImportResult r = importFixture("nwnmdlcomp_flash.mdl");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.animation, "impact");
  const Emitter& spark = emitter(r.effect, "spark");
  EXPECT_EQ(spark.spawn.mode, EmissionMode::EventBurst);
  EXPECT_EQ(spark.spawn.eventName, "detonate");
  EXPECT_FLOAT_EQ(spark.spawn.rate, 10.0f);
  // Keyed birthrate: the burst is the rate at the detonation (the blank row: 0 s).
  ASSERT_EQ(spark.spawn.bursts.size(), 1u);
  EXPECT_FLOAT_EQ(spark.spawn.bursts[0].time, 0.0f);
  EXPECT_EQ(spark.spawn.bursts[0].count, 10u);
  EXPECT_TRUE(spark.spawn.eventTimes.empty());
  EXPECT_EQ(spark.spawn.metric, SpawnMetric::PerSecond);  // spawntype 1 on a burst: per burst
  EXPECT_EQ(spark.render.mode, RenderMode::Stretched);
  EXPECT_NEAR(spark.render.stretchScale, 0.07f, 1e-6f);
  EXPECT_FLOAT_EQ(spark.forceEvent.radius, 2.5f);
  EXPECT_FLOAT_EQ(spark.forceEvent.duration, 0.75f);
  const CollisionModule* c = module<CollisionModule>(spark);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->response, CollisionResponse::Bounce);
  EXPECT_NEAR(c->bounce, 0.3f, 1e-6f);
  EXPECT_EQ(spark.init.velocity.kind, VelocityKind::Sphere);
  expectRgba(spark.init.color.a, 1.0f, 1.0f, 0.882353f, 1.0f);
  const ColorOverLifeModule* color = module<ColorOverLifeModule>(spark);
  ASSERT_NE(color, nullptr);
  expectRgba(color->gradient.keys[2].color, 0.780392f, 0.203922f, 0.0f, 1.0f);
  expectRgba(color->gradient.keys[1].color, 0.890196f, 0.601961f, 0.5f, 1.0f);
  const AlphaOverLifeModule* alpha = module<AlphaOverLifeModule>(spark);
  ASSERT_NE(alpha, nullptr);
  expectCurve(alpha->curve, {{0.0f, 1.0f}, {0.5f, 0.51f}, {1.0f, 0.02f}});
  EXPECT_NEAR(spark.init.size.range.min, 0.02f, 1e-7f);
  const Material& m = material(r.effect, "spark");
  EXPECT_EQ(m.sheet.columns, 1u);  // xgrid 0 means 1
  EXPECT_EQ(m.sheet.rows, 1u);
  EXPECT_EQ(m.sheet.playback, SheetPlayback::OverLife);
  EXPECT_TRUE(r.diagnostics.size() <= 1u) << allDiagnostics(r.diagnostics);  // textures only
}

TEST(MdlImport, DetonateEventsFireEveryExplosionEmitterAndAddUp) {
  const ImportResult r = importFixture("explosion_events.mdl");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.animation, "impact");
  const Emitter& burst = emitter(r.effect, "Burst");
  EXPECT_EQ(burst.spawn.eventTimes, (std::vector<float>{0.5f, 2.0f, 2.0f, 2.0f}));
  EXPECT_FLOAT_EQ(burst.spawn.rate, 70.0f);
  EXPECT_NEAR(burst.init.velocity.spread, 90.0f, 1e-3f);  // π full aperture: a hemisphere
  EXPECT_EQ(material(r.effect, "Burst").blend, BlendMode::Cutout);
  const Emitter& wind = emitter(r.effect, "WIND_DUMMY");
  EXPECT_EQ(wind.spawn.eventTimes, burst.spawn.eventTimes);
  EXPECT_FLOAT_EQ(wind.forceEvent.radius, 5.0f);
  EXPECT_FLOAT_EQ(wind.forceEvent.duration, 1.0f);
  EXPECT_FLOAT_EQ(wind.init.color.a[3], 0.0f);  // texture NULL: invisible
  const Emitter& pulse = emitter(r.effect, "Pulse");
  ASSERT_EQ(pulse.spawn.bursts.size(), 1u);  // birthrate 0 at 2 s: no burst then
  EXPECT_FLOAT_EQ(pulse.spawn.bursts[0].time, 0.5f);
  EXPECT_EQ(pulse.spawn.bursts[0].count, 30u);
  EXPECT_TRUE(hasWarning(r.diagnostics, 0, "event 'footstep'"));

  ImportOptions cessation;
  cessation.animation = "CESSATION";  // case-insensitive
  const ImportResult c = importFixture("explosion_events.mdl", cessation);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c.animation, "cessation");
  EXPECT_EQ(emitter(c.effect, "Burst").spawn.eventTimes, (std::vector<float>{0.0f}));
  EXPECT_TRUE(hasWarning(c.diagnostics, 0, "has no detonation"));

  ImportOptions missing;
  missing.animation = "nope";
  const ImportResult m = importMdlFile(fixture("explosion_events.mdl"), missing);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(allDiagnostics(m.diagnostics)
                .find("no animation 'nope' in the model (it has: impact, "
                      "cessation)"),
            std::string::npos);
}

// -------------------------------------------------------------------------------------------------
// CleanModels: counted + endlist lists, keykey, stray endlist; Lightning → beam; Linked → chain.

TEST(MdlImport, LightningBecomesABeamToItsReferenceEvenWithoutP2p) {
  const ImportResult r = importFixture("cleanmodels_lightning.mdl");
  ASSERT_TRUE(r.ok());
  const Emitter& column = emitter(r.effect, "maincollum01");
  EXPECT_EQ(column.render.mode, RenderMode::LinkedChain);
  EXPECT_FLOAT_EQ(column.render.chainWidth, 0.5f);
  expectVec(column.position, 0.0f, 1.0f, 0.0f);
  expectCurve(column.spawn.rateOverTime, {{0.0f, 20.0f}, {2.0f, 40.0f}});
  expectCurve(column.init.size.overEmitterTime, {{0.0f, 0.5f}, {2.0f, 1.0f}});
  const Emitter& beam = emitter(r.effect, "Beam");
  expectVec(beam.position, 0.0f, 1.5f, 0.0f);
  EXPECT_EQ(beam.render.mode, RenderMode::Beam);
  EXPECT_EQ(beam.spawn.mode, EmissionMode::BeamContinuous);
  EXPECT_FLOAT_EQ(beam.spawn.rate, 3.0f);
  expectVec(beam.render.beam.target, 0.0f, 17.0f, 0.0f);
  EXPECT_FLOAT_EQ(beam.render.beam.width, 0.2f);
  EXPECT_FLOAT_EQ(beam.render.beam.radius, 0.5f);
  EXPECT_FLOAT_EQ(beam.render.beam.roughness, 1.0f);
  EXPECT_FLOAT_EQ(beam.render.beam.updateInterval, 0.1f);
  EXPECT_EQ(beam.render.beam.subdivisions, 3u);
  EXPECT_EQ(module<TargetModule>(beam), nullptr);
  EXPECT_TRUE(hasWarning(r.diagnostics, 60, "key suffix written twice"));
  EXPECT_TRUE(hasWarning(r.diagnostics, 64, "stray endlist"));
}

// -------------------------------------------------------------------------------------------------
// Sprite sheets, Single + loop, negative and stepping keys, bezier keys, nesting, chunks.

TEST(MdlImport, SpritesSingleClampsFramesAndKeepsStepsAndNegativeKeys) {
  const ImportResult r = importFixture("sprites_single.mdl");
  ASSERT_TRUE(r.ok());
  const Emitter& rune = emitter(r.effect, "Rune");
  // One particle every 1 / birthrate 0.5 = 2 s, within each 3 s cycle of the looping duration
  // animation: a burst at 0 s repeating every 2 s (0, 2; 3, 5; ...).
  EXPECT_EQ(rune.spawn.mode, EmissionMode::Continuous);
  EXPECT_EQ(rune.spawn.rate, 0.0f);
  ASSERT_EQ(rune.spawn.bursts.size(), 1u);
  EXPECT_EQ(rune.spawn.bursts[0], (Burst{0.0f, 1, 2.0f, 0}));
  EXPECT_TRUE(rune.spawn.loop);
  EXPECT_FLOAT_EQ(rune.spawn.duration, 3.0f);
  EXPECT_TRUE(rune.init.immortal);
  EXPECT_EQ(rune.render.mode, RenderMode::BillboardWorldZ);
  const Material& runes = material(r.effect, "Rune");
  EXPECT_EQ(runes.sheet.frameBegin, 2u);
  EXPECT_EQ(runes.sheet.frameEnd, 15);  // 24 on a 4×4 sheet
  EXPECT_TRUE(runes.sheet.randomStart);
  EXPECT_EQ(runes.sheet.playback, SheetPlayback::OverLife);
  EXPECT_TRUE(runes.doubleSided);
  EXPECT_TRUE(hasWarning(r.diagnostics, 21, "outside the 4x4 sheet"));
  // Alpha −0.4 → 0.5 over 0..1 s (crossing 0 at 0.444 s), a step to 1 at 1 s, then 1.
  const auto& keys = rune.init.color.overEmitterTime.keys;
  ASSERT_EQ(keys.size(), 5u);
  const float times[] = {0.0f, 0.444444f, 1.0f, 1.0f, 3.0f};
  const float alphas[] = {0.0f, 0.0f, 0.5f, 1.0f, 1.0f};
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_NEAR(keys[i].time, times[i], 1e-4f) << i;
    EXPECT_NEAR(keys[i].color[3], alphas[i], 1e-4f) << i;
  }

  const Emitter& fire = emitter(r.effect, "fire_29");  // "fire!29" made a valid name
  EXPECT_EQ(fire.space, SimulationSpace::SpawnAttached);
  expectCurve(fire.init.spin.overEmitterTime, {{0.0f, 360.0f}, {1.0f, 720.0f}});
  const Material& flame = material(r.effect, "fire_29");
  EXPECT_EQ(flame.sheet.frameBegin, 3u);
  EXPECT_EQ(flame.sheet.frameEnd, 3);
  EXPECT_EQ(flame.sheet.playback, SheetPlayback::Fps);
  EXPECT_FLOAT_EQ(flame.sheet.fps, 12.0f);
  EXPECT_TRUE(hasWarning(r.diagnostics, 0, "inherit_part"));

  const Emitter& chunks = emitter(r.effect, "Chunks");
  EXPECT_EQ(chunks.render.mode, RenderMode::Mesh);
  EXPECT_EQ(chunks.render.mesh, "builtin:shard");  // no fx_rockchunk.mdl next to the model
  EXPECT_FLOAT_EQ(chunks.init.color.a[3], 1.0f);   // a chunk is visible without a texture
  EXPECT_TRUE(hasWarning(r.diagnostics, 52,
                         "chunk model 'fx_rockchunk' is not in " + kDataDir.string() +
                             " as fx_rockchunk.mdl (any case); builtin:shard is drawn instead"));
}

// -------------------------------------------------------------------------------------------------
// Junk: every line warns with its line number and the import goes on.

TEST(MdlImport, JunkWarnsWithItsLineAndImportGoesOn) {
  const ImportResult r = importFixture("junk.mdl");
  ASSERT_TRUE(r.ok()) << allDiagnostics(r.diagnostics);
  const std::vector<Diagnostic>& d = r.diagnostics;
  EXPECT_TRUE(hasWarning(d, 6, "unknown line 'bogus_top_level 1 2 3'"));
  EXPECT_TRUE(hasWarning(d, 27, "'abc' is not a finite number"));
  EXPECT_TRUE(hasWarning(d, 30, "needs 3 numbers"));
  EXPECT_TRUE(hasWarning(d, 31, "KotOR"));
  EXPECT_TRUE(hasWarning(d, 32, "unknown keyword 'frobnicate'"));
  EXPECT_TRUE(hasWarning(d, 33, "key row outside a key list"));
  EXPECT_TRUE(hasWarning(d, 34, "stray endlist"));
  EXPECT_TRUE(hasWarning(d, 35, "keyed header field"));
  EXPECT_TRUE(hasWarning(d, 37, "'lockaxes' is an exporter UI field"));
  EXPECT_TRUE(hasWarning(d, 40, "above 2"));
  EXPECT_TRUE(hasWarning(d, 44, "ended after 2 of 3 keys"));
  EXPECT_TRUE(hasWarning(d, 48, "has no endlist"));
  EXPECT_TRUE(hasWarning(d, 51, "unknown node type 'weirdtype'"));
  EXPECT_TRUE(hasWarning(d, 51, "parent 'NoSuchParent'"));
  EXPECT_TRUE(hasWarning(d, 55, "doneanim without newanim"));
  EXPECT_TRUE(hasWarning(d, 58, "unknown line 'somethingodd 3'"));
  EXPECT_TRUE(hasWarning(d, 60, "matches no geometry node"));
  EXPECT_TRUE(hasWarning(d, 0, "supermodel 'fx_base'"));
  EXPECT_TRUE(hasWarning(d, 0, "colour/alpha keys of 'Smoke'"));
  EXPECT_TRUE(hasWarning(d, 0, "size keys of 'Smoke'"));
  // Nothing about the trimesh's vertex lists.
  for (const Diagnostic& w : d)
    EXPECT_FALSE(w.line >= 11 && w.line <= 20) << formatMdlDiagnostic(w);
  const Emitter& smoke = emitter(r.effect, "Smoke");
  EXPECT_FLOAT_EQ(smoke.spawn.rate, 4.0f);  // the good birthrate line after the bad one
  EXPECT_EQ(smoke.init.velocity.kind, VelocityKind::Sphere);
}

// -------------------------------------------------------------------------------------------------
// Parser: case-insensitivity, structure errors with their line, diagnostics format.

constexpr const char* kMinimal = R"(newmodel m
beginmodelgeom m
node dummy m
parent null
endnode
node EMITTER e
PARENT M
UPDATE fountain
Render BILLBOARD_TO_LOCAL_Z
BLEND lighten
BirthRate 5
LIFEEXP 1
colorstartKEY 2
0 1 0 0
1 0 1 0
ENDLIST
endnode
endmodelgeom m
donemodel m
)";

TEST(MdlParse, KeywordsAndEnumsAreCaseInsensitive) {
  const MdlParseResult p = parseMdl(kMinimal, "min.mdl");
  ASSERT_TRUE(p.ok()) << allDiagnostics(p.diagnostics);
  EXPECT_TRUE(p.diagnostics.empty()) << allDiagnostics(p.diagnostics);
  ASSERT_EQ(p.model.nodes.size(), 2u);
  const MdlNode& e = p.model.nodes[1];
  EXPECT_EQ(e.type, MdlNodeType::Emitter);
  EXPECT_EQ(e.parent, "M");
  ASSERT_NE(e.track("colorstart"), nullptr);
  EXPECT_EQ(e.track("colorstart")->keys.size(), 2u);
  EXPECT_TRUE(e.track("colorstart")->keyed);
  const ImportResult r = importMdl(p.model);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.effect.emitters[0].render.mode, RenderMode::BillboardLocalZ);
  EXPECT_EQ(r.effect.materials[0].blend, BlendMode::Additive);
  EXPECT_FLOAT_EQ(r.effect.emitters[0].spawn.rate, 5.0f);
}

struct BadInput {
  std::string_view text;
  std::uint32_t line;
  const char* message;
};

// The first error of `diagnostics` is in bad.mdl at c.line and says c.message.
void expectLocatedError(const std::vector<Diagnostic>& diagnostics, const BadInput& c) {
  const auto error = std::find_if(diagnostics.begin(), diagnostics.end(), [](const Diagnostic& d) {
    return d.severity == Severity::Error;
  });
  ASSERT_NE(error, diagnostics.end()) << c.text;
  EXPECT_EQ(error->line, c.line) << c.text;
  EXPECT_NE(error->message.find(c.message), std::string::npos) << error->message;
  EXPECT_EQ(error->file, "bad.mdl");
}

TEST(MdlParse, MalformedStructureIsALocatedError) {
  const BadInput cases[] = {
      {"newmodel m\nnode emitter\nendnode\n", 2, "node needs a type and a name"},
      {"newmodel m\nnode emitter a\nparent m\nnode dummy b\nendnode\n", 4, "is not closed"},
      {"newmodel m\nnode emitter a\nbirthrate 3\n", 2, "has no endnode"},
      {"newmodel m\nnewanim a m\nlength 1\n", 2, "has no doneanim"},
      {"newmodel m\nnewanim a m\nnewanim b m\ndoneanim b m\n", 3, "before its doneanim"},
      {"hello world\n", 1, "not an ASCII MDL model"},
      {"", 1, "not an ASCII MDL model"},
      {std::string_view("newmodel m\0\1\2", 13), 1, "NUL bytes"},
  };
  for (const BadInput& c : cases) {
    const MdlParseResult p = parseMdl(c.text, "bad.mdl");
    ASSERT_FALSE(p.ok()) << c.text;
    expectLocatedError(p.diagnostics, c);
  }
}

TEST(MdlParse, DiagnosticsReadFileLineSeverityMessage) {
  const Diagnostic w{Severity::Warning, {}, "stray endlist; ignored", "a.mdl", 12, 0};
  EXPECT_EQ(formatMdlDiagnostic(w), "a.mdl:12: warning: stray endlist; ignored");
  const Diagnostic e{Severity::Error, {}, "no emitters", "a.mdl", 0, 0};
  EXPECT_EQ(formatMdlDiagnostic(e), "a.mdl: error: no emitters");
}

TEST(MdlParse, AModelWithoutEmittersIsAnImportError) {
  const MdlParseResult p = parseMdl("newmodel m\nnode dummy m\nendnode\n", "d.mdl");
  ASSERT_TRUE(p.ok());
  const ImportResult r = importMdl(p.model);
  EXPECT_FALSE(r.ok());
  EXPECT_NE(allDiagnostics(r.diagnostics).find("no emitter nodes"), std::string::npos);
}

TEST(MdlParse, MissingFileIsAnError) {
  const ImportResult r = importMdlFile("/nonexistent/x.mdl");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.diagnostics.front().file, "/nonexistent/x.mdl");
}

TEST(MdlParse, HugeKeyCountsDoNotAllocateAhead) {
  const MdlParseResult p =
      parseMdl("newmodel m\nnode emitter e\nbirthratekey 4000000000\n0 1\n1 2\nendnode\n", "k.mdl");
  ASSERT_TRUE(p.ok());
  ASSERT_NE(p.model.nodes[0].track("birthrate"), nullptr);
  EXPECT_EQ(p.model.nodes[0].track("birthrate")->keys.size(), 2u);
  EXPECT_TRUE(hasWarning(p.diagnostics, 6, "ended after 2 of 4000000000 keys"));
}

TEST(MdlImport, OrientationBecomesYxzEulerDegrees) {
  const MdlParseResult p = parseMdl(
      "newmodel m\nnode emitter e\norientation 1 2 3 0.7\nbirthrate 1\nendnode\n", "o.mdl");
  ASSERT_TRUE(p.ok());
  const ImportResult r = importMdl(p.model);
  ASSERT_TRUE(r.ok());
  // NWN axis (1, 2, 3) → Mote (1, 3, −2); rebuild R = Ry·Rx·Rz from the Euler angles and compare
  // the rotated axes with the quaternion's.
  const float len = std::sqrt(14.0f);
  const float s = std::sin(0.35f) / len;
  const float q[4] = {1 * s, 3 * s, -2 * s, std::cos(0.35f)};
  const Vec3 euler = r.effect.emitters[0].rotation;
  const float d = 3.14159265f / 180.0f;
  const float cx = std::cos(euler[0] * d), sx = std::sin(euler[0] * d);
  const float cy = std::cos(euler[1] * d), sy = std::sin(euler[1] * d);
  const float cz = std::cos(euler[2] * d), sz = std::sin(euler[2] * d);
  // Columns of Ry·Rx·Rz.
  const float m[3][3] = {{cy * cz + sy * sx * sz, -cy * sz + sy * sx * cz, sy * cx},
                         {cx * sz, cx * cz, -sx},
                         {-sy * cz + cy * sx * sz, sy * sz + cy * sx * cz, cy * cx}};
  const float x = q[0], y = q[1], z = q[2], w = q[3];
  const float e[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)},
                         {2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)},
                         {2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)}};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      EXPECT_NEAR(m[i][j], e[i][j], 1e-4f) << i << "," << j;
}

TEST(MdlImport, TexturesAreFoundInTheTextureDirectory) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("mote-nwn-tex-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  for (const char* file :
       {"FXPA_JET.png", "fxpa_trail.tga", "fxpa_trail.dds", "fxpa_trail.png.bak"}) {
    std::FILE* f = std::fopen((dir / file).c_str(), "wb");
    ASSERT_NE(f, nullptr);
    std::fclose(f);
  }
  ImportOptions options;
  options.textureSearchPath = {dir.string()};
  ImportResult r = importFixture("bioware_fountain.mdl", options);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(material(r.effect, "Jet").texture,
            std::filesystem::absolute(dir / "FXPA_JET.png").string());
  // .tga comes before .dds.
  EXPECT_EQ(material(r.effect, "Trail").texture,
            std::filesystem::absolute(dir / "fxpa_trail.tga").string());
  EXPECT_FALSE(hasWarning(r.diagnostics, 0, "texture"));
  std::filesystem::remove(dir / "fxpa_trail.tga");
  r = importFixture("bioware_fountain.mdl", options);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(material(r.effect, "Trail").texture,
            std::filesystem::absolute(dir / "fxpa_trail.dds").string());
  EXPECT_FALSE(hasWarning(r.diagnostics, 0, "texture"));
  std::filesystem::remove(dir / "fxpa_trail.dds");
  r = importFixture("bioware_fountain.mdl", options);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(material(r.effect, "Trail").texture, "builtin:soft_circle");
  EXPECT_TRUE(hasWarning(r.diagnostics, 68,
                         "texture 'fxpa_trail' is not in " + kDataDir.string() + ", " +
                             dir.string() +
                             " as fxpa_trail.png, .tga or .dds; builtin:soft_circle is drawn "
                             "instead"));
  std::filesystem::remove_all(dir);
}

TEST(MdlImport, DdsOnlyTexturesAreFoundWithoutAFallbackWarning) {
  // tests/data/nwn/textures holds fx_mist only as a BioWare DDS (DXT5) and fx_lightning only as
  // a standard DDS (DXT1), each 8 × 8 with one more mip level.
  const std::filesystem::path textures = kDataDir / "textures";
  ImportOptions options;
  options.textureSearchPath = {textures.string()};
  const ImportResult r = importFixture("cleanmodels_lightning.mdl", options);
  ASSERT_TRUE(r.ok());
  const std::string mist = std::filesystem::absolute(textures / "fx_mist.dds").string();
  const std::string lightning = std::filesystem::absolute(textures / "fx_lightning.dds").string();
  EXPECT_EQ(material(r.effect, "maincollum01").texture, mist);
  EXPECT_EQ(material(r.effect, "Beam").texture, lightning);
  EXPECT_FALSE(hasWarning(r.diagnostics, 0, "texture")) << allDiagnostics(r.diagnostics);
  // Both files are what the renderer will read: a soft white blob (opaque middle, clear corner)
  // and a white core fading to blue.
  const Result<render::Image> blob = render::loadDds(mist);
  ASSERT_TRUE(blob.ok()) << blob.status().message();
  EXPECT_EQ(blob->width(), 8u);
  EXPECT_EQ(blob->pixel(4, 4), (render::Rgba8{255, 255, 255, 219}));  // index 2: (6·255 + 3) / 7
  EXPECT_EQ(blob->pixel(0, 0).a, 0u);
  const Result<render::Image> bolt = render::loadDds(lightning);
  ASSERT_TRUE(bolt.ok()) << bolt.status().message();
  EXPECT_EQ(bolt->pixel(3, 0), (render::Rgba8{255, 255, 255, 255}));
  EXPECT_EQ(bolt->pixel(0, 0), (render::Rgba8{33, 56, 255, 255}));  // 5:6:5 (4, 14, 31)
}

constexpr const char* kP2pAndMotion = R"(newmodel m
beginmodelgeom m
node dummy m
parent NULL
endnode
node dummy arm
parent m
endnode
node trimesh cloak
parent m
endnode
node emitter bez
parent arm
p2p 1
p2p_sel 1
birthrate 1
sizeStart 0.1
endnode
node reference bez_ref
parent bez
position 0 1 0
endnode
node emitter grav
parent m
p2p 1
p2p_sel 2
birthrate 1
sizeStart 0.1
endnode
node dummy grav_ref
parent grav
endnode
node reference grav_ref2
parent grav
position 0 0 -1
endnode
node emitter lonely
parent m
p2p 1
birthrate 1
sizeStart 0.1
endnode
endmodelgeom m
newanim spin m
length 1
node dummy arm
parent m
orientationkey 2
0 0 0 1 0
1 0 0 1 3.14159
endnode
node trimesh cloak
parent m
alphakey 2
0 1
1 0
selfillumcolorkey
0 1 1 1
endlist
endnode
node dummy BEZ_REF
parent bez
endnode
doneanim spin m
donemodel m
)";

TEST(MdlImport, P2pSelectorFallsBackToP2pSelAndNeedsAReferenceChild) {
  const MdlParseResult p = parseMdl(kP2pAndMotion, "p2p.mdl");
  ASSERT_TRUE(p.ok()) << allDiagnostics(p.diagnostics);
  const ImportResult r = importMdl(p.model);
  ASSERT_TRUE(r.ok()) << allDiagnostics(r.diagnostics);
  const TargetModule* bez = module<TargetModule>(emitter(r.effect, "bez"));
  ASSERT_NE(bez, nullptr);
  EXPECT_EQ(bez->mode, TargetMode::Bezier);     // p2p_sel 1, no p2p_type
  expectVec(bez->position, 0.0f, 0.0f, -1.0f);  // NWN +Y is Mote −Z
  const TargetModule* grav = module<TargetModule>(emitter(r.effect, "grav"));
  ASSERT_NE(grav, nullptr);
  EXPECT_EQ(grav->mode, TargetMode::Gravity);    // p2p_sel 2: Gravity (not the bit's Bezier)
  expectVec(grav->position, 0.0f, -1.0f, 0.0f);  // the first *reference* child, not the dummy
  EXPECT_EQ(module<TargetModule>(emitter(r.effect, "lonely")), nullptr);
  EXPECT_TRUE(hasWarning(r.diagnostics, 39, "p2p emitter 'lonely' has no reference child"));
  // The rotating dummy becomes a pivot with its keys that `bez` hangs from (mdl_motion_test.cpp
  // has the motion); the mesh's keys stay quiet.
  EXPECT_EQ(emitter(r.effect, "bez").parent, "arm");
  ASSERT_EQ(r.effect.pivots.size(), 2u);  // m, arm
  EXPECT_EQ(r.effect.pivots[1].motion.rotation.size(), 2u);
  EXPECT_EQ(emitter(r.effect, "grav").parent, "");  // nothing above it moves
  for (const Diagnostic& d : p.diagnostics)
    EXPECT_FALSE(d.line >= 52 && d.line <= 63) << formatMdlDiagnostic(d);
}

TEST(MdlImport, ValuesBeyondTheFormatsRangesAreClampedWithAWarning) {
  const MdlParseResult p = parseMdl(R"(newmodel m
node dummy m
position 3e38 3e38 3e38
endnode
node emitter e
parent m
position 3e38 3e38 3e38
update Explosion
birthrate 1e30
lifeExp 1e30
xsize 1e30
sizeStart 1e30
velocity -1e30
spread 1e30
xgrid 100000
frameEnd 1e30
endnode
newanim a m
event 1e30 detonate
event 1 detonate
doneanim a m
)",
                                    "huge.mdl");
  ASSERT_TRUE(p.ok()) << allDiagnostics(p.diagnostics);
  const ImportResult r = importMdl(p.model);
  ASSERT_TRUE(r.ok()) << allDiagnostics(r.diagnostics);
  EXPECT_FALSE(hasErrors(validateEffect(r.effect)));
  const Emitter& e = r.effect.emitters[0];
  EXPECT_EQ(e.spawn.eventTimes, (std::vector<float>{1.0f}));
  EXPECT_TRUE(hasWarning(r.diagnostics, 5, "position of 'e' is not finite"));
  EXPECT_TRUE(hasWarning(r.diagnostics, 0, "later than 1e6 s are dropped"));
  EXPECT_TRUE(compiler::compileEffect(r.effect).ok());
}

// -------------------------------------------------------------------------------------------------
// Chunk models: the ASCII trimesh a chunkName emitter instances, or the built-in shard.

void expectVertex(const ChunkMesh& mesh, std::size_t i, float x, float y, float z, float u,
                  float v) {
  ASSERT_LT(i, mesh.vertexCount());
  EXPECT_NEAR(mesh.positions[3 * i + 0], x, 1e-5f) << "vertex " << i;
  EXPECT_NEAR(mesh.positions[3 * i + 1], y, 1e-5f) << "vertex " << i;
  EXPECT_NEAR(mesh.positions[3 * i + 2], z, 1e-5f) << "vertex " << i;
  EXPECT_FLOAT_EQ(mesh.uvs[2 * i + 0], u) << "vertex " << i;
  EXPECT_FLOAT_EQ(mesh.uvs[2 * i + 1], v) << "vertex " << i;
}

TEST(ChunkMesh, TrimeshVerticesAreBroughtIntoModelSpaceInMetres) {
  const ChunkMeshResult r = loadChunkMesh(fixture("chunks/fx_shard01.mdl"));
  ASSERT_TRUE(r.ok()) << allDiagnostics(r.diagnostics);
  EXPECT_TRUE(r.diagnostics.empty()) << allDiagnostics(r.diagnostics);
  const ChunkMesh& m = r.mesh;
  EXPECT_EQ(m.source, fixture("chunks/fx_shard01.mdl"));
  EXPECT_EQ(m.texture, "fx_shardtex");  // the flap's FX_ShardTex is the same texture
  // shard: v ×2 (its scale), turned 90° about NWN +Z ((x, y) → (−y, x)) by the dummy, moved by
  // the dummy's (1, 0, 0) plus the turned (0, 0, 0.5); then NWN (x, y, z) → Mote (x, z, −y).
  // v0 (0.1, 0, 0) → (0.2, 0, 0) → (0, 0.2, 0) → (1, 0.2, 0.5) → (1, 0.5, −0.2).
  ASSERT_EQ(m.triangleCount(), 4u);  // 3 + the flap's 1; shard_shadow is `render 0`
  ASSERT_EQ(m.vertexCount(), 8u);    // 5 (v0 twice: tverts 0 and 1) + 3
  expectVertex(m, 0, 1.0f, 0.5f, -0.2f, 0.0f, 0.0f);
  expectVertex(m, 1, 0.6f, 0.5f, 0.0f, 1.0f, 0.0f);   // v1 (0, 0.2, 0) → (−0.4, 0, 0) + …
  expectVertex(m, 2, 1.0f, 1.1f, 0.0f, 0.0f, 1.0f);   // v2 (0, 0, 0.3) → (0, 0, 0.6) + …
  expectVertex(m, 3, 0.6f, 0.5f, -0.2f, 1.0f, 1.0f);  // v3 (0.1, 0.2, 0) → (−0.4, 0.2, 0) + …
  expectVertex(m, 4, 1.0f, 0.5f, -0.2f, 1.0f, 0.0f);  // v0 again, with tvert 1
  // flap: at the root, untransformed; no tverts, so every corner reads 0 0.
  expectVertex(m, 5, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f);
  expectVertex(m, 6, 0.1f, 0.0f, 0.0f, 0.0f, 0.0f);
  expectVertex(m, 7, 0.0f, 0.0f, -0.1f, 0.0f, 0.0f);
  const std::vector<std::uint32_t> indices{0, 1, 2, 0, 3, 1, 2, 3, 4, 5, 6, 7};
  EXPECT_EQ(m.indices, indices);
}

TEST(ChunkMesh, CrlfAndLfGiveTheSameMesh) {
  Result<std::vector<std::uint8_t>> bytes =
      readFile(fixture("chunks/fx_shard01.mdl"), kMaxMdlFileBytes);
  ASSERT_TRUE(bytes.ok());
  std::string crlf(bytes->begin(), bytes->end());
  ASSERT_NE(crlf.find("\r\n"), std::string::npos);  // the fixture is CRLF
  std::string lf;
  for (const char c : crlf)
    if (c != '\r') lf += c;
  const ChunkMeshResult a = parseChunkMesh(crlf, "x.mdl");
  const ChunkMeshResult b = parseChunkMesh(lf, "x.mdl");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a.mesh, b.mesh);
  EXPECT_EQ(a.mesh.triangleCount(), 4u);
}

TEST(ChunkMesh, BuiltinShardIsASmallClosedOutwardTetrahedron) {
  const ChunkMesh m = builtinShardMesh();
  EXPECT_EQ(m.source, "builtin:shard");
  EXPECT_EQ(m.vertexCount(), 4u);
  ASSERT_EQ(m.triangleCount(), 4u);
  EXPECT_EQ(m.uvs.size(), 8u);
  EXPECT_EQ(m, builtinShardMesh());  // deterministic
  const auto at = [&](std::uint32_t i) {
    return Vec3{m.positions[3 * i], m.positions[3 * i + 1], m.positions[3 * i + 2]};
  };
  Vec3 centre{0, 0, 0};
  for (std::uint32_t i = 0; i < 4; ++i)
    for (std::size_t c = 0; c < 3; ++c)
      centre[c] += at(i)[c] / 4.0f;
  float extent = 0.0f;
  for (std::uint32_t i = 0; i < 4; ++i)
    for (std::size_t c = 0; c < 3; ++c)
      extent = std::max(extent, std::fabs(at(i)[c] - centre[c]));
  EXPECT_GT(extent, 0.03f);  // about 0.1 m across
  EXPECT_LT(extent, 0.08f);
  // Every face is counter-clockwise seen from outside: its normal points away from the centre.
  std::set<std::uint32_t> used;
  for (std::size_t t = 0; t < 4; ++t) {
    const Vec3 a = at(m.indices[3 * t]), b = at(m.indices[3 * t + 1]), c = at(m.indices[3 * t + 2]);
    used.insert({m.indices[3 * t], m.indices[3 * t + 1], m.indices[3 * t + 2]});
    const Vec3 u{b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    const Vec3 v{c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    const Vec3 n{u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
    const Vec3 out{(a[0] + b[0] + c[0]) / 3 - centre[0], (a[1] + b[1] + c[1]) / 3 - centre[1],
                   (a[2] + b[2] + c[2]) / 3 - centre[2]};
    EXPECT_GT(n[0] * out[0] + n[1] * out[1] + n[2] * out[2], 0.0f) << "face " << t;
  }
  EXPECT_EQ(used.size(), 4u);
}

TEST(MdlImport, ChunkModelsAreLoadedFromTheModelDirectoryElseTheShard) {
  const ImportResult r = importFixture("chunks/chunk_rocks.mdl");
  ASSERT_TRUE(r.ok()) << allDiagnostics(r.diagnostics);
  const std::string shard =
      std::filesystem::absolute(kDataDir / "chunks" / "fx_shard01.mdl").string();
  // FX_SHARD01 and fx_shard01 both find fx_shard01.mdl, loaded once and without a warning.
  for (const char* name : {"Rocks", "Rubble"}) {
    const Emitter& e = emitter(r.effect, name);
    EXPECT_EQ(e.render.mode, RenderMode::Mesh) << name;
    EXPECT_EQ(e.render.mesh, shard) << name;
  }
  EXPECT_FALSE(hasWarning(r.diagnostics, 15, "chunk"));
  EXPECT_FALSE(hasWarning(r.diagnostics, 25, "chunk"));
  // fx_missing and FX_Missing: one chunk, the shard, one warning saying what was looked for where.
  EXPECT_EQ(emitter(r.effect, "Pebbles").render.mesh, "builtin:shard");
  EXPECT_EQ(emitter(r.effect, "Gravel").render.mesh, "builtin:shard");
  const std::string directory = (kDataDir / "chunks").string();
  EXPECT_TRUE(hasWarning(r.diagnostics, 33,
                         "chunk model 'fx_missing' is not in " + directory +
                             " as fx_missing.mdl (any case); builtin:shard is drawn instead"));
  // The malformed chunk: the shard, and a warning that names the error and its line.
  EXPECT_EQ(emitter(r.effect, "Bad").render.mesh, "builtin:shard");
  const std::string bad =
      std::filesystem::absolute(kDataDir / "chunks" / "fx_badchunk.mdl").string();
  EXPECT_TRUE(hasWarning(r.diagnostics, 49,
                         "chunk model 'fx_badchunk' does not load (" + bad +
                             ":12: error: face vertex 7 of 'bad' is outside its 3 verts); "
                             "builtin:shard is drawn instead"));
  std::size_t chunkWarnings = 0;
  for (const Diagnostic& d : r.diagnostics)
    chunkWarnings += d.message.find("chunk model") != std::string::npos ? 1 : 0;
  EXPECT_EQ(chunkWarnings, 2u) << allDiagnostics(r.diagnostics);
  const std::vector<ImportedChunk> chunks{{"FX_SHARD01", shard, 4},
                                          {"fx_missing", "builtin:shard", 4},
                                          {"fx_badchunk", "builtin:shard", 4}};
  EXPECT_EQ(r.chunks, chunks);
}

// examples/nwn/fx_rockslide.mdl: its chunk model (beside it, with its own texture) drawn as lit,
// textured mesh particles that bounce on the ground, as `mote render` draws it.
TEST(MdlImport, TheRockslideExampleDrawsItsChunkModelAsLitTexturedMeshes) {
  const std::filesystem::path dir = std::filesystem::path(mote::test::sourceDir()) / "examples/nwn";
  const ImportResult r = importMdlFile((dir / "fx_rockslide.mdl").string());
  ASSERT_TRUE(r.ok()) << allDiagnostics(r.diagnostics);
  EXPECT_TRUE(r.diagnostics.empty()) << allDiagnostics(r.diagnostics);
  const Emitter& rocks = emitter(r.effect, "Rocks");
  EXPECT_EQ(rocks.render.mode, RenderMode::Mesh);
  EXPECT_EQ(rocks.render.mesh, std::filesystem::absolute(dir / "fx_rock01.mdl").string());
  ASSERT_EQ(r.effect.materials.size(), 1u);
  EXPECT_TRUE(r.effect.materials[0].lit);  // chunks are lit by the scene
  const std::vector<ImportedChunk> chunks{
      {"fx_rock01", std::filesystem::absolute(dir / "fx_rock01.mdl").string(), 32}};
  EXPECT_EQ(r.chunks, chunks);

  compiler::CompileResult compiled = compiler::compileEffect(r.effect);
  ASSERT_TRUE(compiled.ok());
  auto world = ParticleWorld::create(worldDescFor(compiled.effect)).takeValue();
  ASSERT_TRUE(world->addEffect(compiled.effect).ok());
  for (int t = 0; t < 60; ++t)
    world->tick(1.0f / 30.0f);
  render::RendererOptions options;
  options.viewport = {240, 160};
  options.ground = true;
  options.textureDirectory = dir.string();
  options.meshLoader = cli::loadHostMesh;
  auto renderer = render::ParticleRenderer::create(options).takeValue();
  render::Camera camera = render::Camera::perspective(0.8f, 1.5f, 0.1f, 200.0f).value();
  ASSERT_TRUE(camera.lookAt({0.0f, 1.6f, 4.0f}, {0.0f, 0.3f, 0.0f}, {0.0f, 1.0f, 0.0f}).ok());
  render::Image image;
  const Status s = renderer.render(*world, camera, image);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_GT(renderer.stats().triangles, 100u);  // a score of rocks, back faces culled
  EXPECT_EQ(renderer.stats().quads, 0u);
  test::expectGolden(image, "nwn_rockslide");
}

TEST(MdlImport, AChunkOfAModelReadFromTextIsTheShardUnlessADirectoryIsGiven) {
  Result<std::vector<std::uint8_t>> bytes =
      readFile(fixture("chunks/chunk_rocks.mdl"), kMaxMdlFileBytes);
  ASSERT_TRUE(bytes.ok());
  const MdlParseResult p = parseMdl(std::string(bytes->begin(), bytes->end()), "text.mdl");
  ASSERT_TRUE(p.ok());
  ImportResult r = importMdl(p.model);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(emitter(r.effect, "Rocks").render.mesh, "builtin:shard");
  EXPECT_TRUE(hasWarning(r.diagnostics, 15,
                         "chunk model 'FX_SHARD01' is not loaded: no model search path to look "
                         "for FX_SHARD01.mdl in"));
  ImportOptions options;
  options.modelSearchPath = {(kDataDir / "chunks").string()};
  r = importMdl(p.model, options);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(emitter(r.effect, "Rocks").render.mesh,
            std::filesystem::absolute(kDataDir / "chunks" / "fx_shard01.mdl").string());
}

TEST(MdlImport, ChunkWarningsKeepTheirOwnFileAndLine) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("mote-nwn-chunk-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto write = [&](const char* name, const std::string& text) {
    std::FILE* f = std::fopen((dir / name).c_str(), "wb");
    ASSERT_NE(f, nullptr);
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
  };
  write("Fx_Warn.MDL",
        "newmodel fx_warn\nnode trimesh a\nparent NULL\nverts 3\n0 0 0\n1 0 0\n0 1 0\n"
        "faces 1\n0 1 2 1 0 0 0 1 9\nendnode\n");
  write("fx_flat.mdl", "newmodel fx_flat\nnode dummy a\nparent NULL\nendnode\n");
  write("fx_fx.mdl",
        "newmodel fx_fx\nnode emitter e\nchunkName fx_warn\nbirthrate 1\nsizeStart 1\nendnode\n"
        "node emitter f\nchunkName FX_FLAT\nbirthrate 1\nsizeStart 1\nendnode\n");
  const ImportResult r = importFixture((dir / "fx_fx.mdl").string());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(emitter(r.effect, "e").render.mesh,
            std::filesystem::absolute(dir / "Fx_Warn.MDL").string());
  const auto forwarded = std::find_if(r.diagnostics.begin(), r.diagnostics.end(), [](auto& d) {
    return d.message.find("extra values in a row of 'faces'") != std::string::npos;
  });
  ASSERT_NE(forwarded, r.diagnostics.end()) << allDiagnostics(r.diagnostics);
  EXPECT_EQ(forwarded->line, 9u);
  EXPECT_EQ(forwarded->file, std::filesystem::absolute(dir / "Fx_Warn.MDL").string());
  EXPECT_EQ(emitter(r.effect, "f").render.mesh, "builtin:shard");
  EXPECT_TRUE(hasWarning(r.diagnostics, 8, "chunk model 'FX_FLAT' ("));
  EXPECT_TRUE(hasWarning(r.diagnostics, 8, ") has no triangles"));
  std::filesystem::remove_all(dir);
}

TEST(ChunkMesh, MalformedListsAreErrorsWithTheirLine) {
  const std::string head = "newmodel m\nnode trimesh a\nparent NULL\n";  // lines 1–3
  const BadInput cases[] = {
      // A count that lies: fewer rows, then more rows than it says.
      {"verts 3\n0 0 0\n1 0 0\nfaces 0\nendnode\n", 7, "'verts' (line 4) has 2 of 3 rows"},
      {"verts 2\n0 0 0\n1 0 0\n0 1 0\nendnode\n", 7, "has more rows than its count 2"},
      {"verts 1\nnan 0 0\nendnode\n", 5, "'verts' (line 4) has 0 of 1 rows"},  // not a row
      {"verts 1\n0 nan 0\nendnode\n", 5, "a row of 'verts' needs 3 finite numbers"},
      {"verts 1\n0 0 inf\nendnode\n", 5, "a row of 'verts' needs 3 finite numbers"},
      {"verts 1\n1e39 0 0\nendnode\n", 5, "needs 3 finite numbers"},
      {"verts 1\n0 0\nendnode\n", 5, "needs 3 finite numbers"},
      {"tverts 1\n0 x\nendnode\n", 5, "a row of 'tverts' needs 2 finite numbers"},
      {"faces 1\n0 1 -2 1 0 0 0 1\nendnode\n", 5, "a row of 'faces' needs 7 indices"},
      {"faces 1\n0 1 2.0 1 0 0 0 1\nendnode\n", 5, "needs 7 indices"},
      {"faces 1\n0 1 2 1 0 0\nendnode\n", 5, "needs 7 indices"},
      {"verts 4000000000\n0 0 0\nendnode\n", 4, "'verts 4000000000': more than 65536 rows"},
      {"verts\n0 0 0\nendnode\n", 4, "'verts' needs a row count"},
      {"verts x\nendnode\n", 4, "'verts' needs a row count"},
      // Indices outside the lists (checked when the mesh is built).
      {"verts 3\n0 0 0\n1 0 0\n0 1 0\nfaces 1\n0 1 3 1 0 0 0 1\nendnode\n", 9,
       "face vertex 3 of 'a' is outside its 3 verts"},
      {"verts 3\n0 0 0\n1 0 0\n0 1 0\ntverts 1\n0 0 0\nfaces 1\n0 1 2 1 0 0 1 1\nendnode\n", 11,
       "face texture vertex 1 of 'a' is outside its 1 tverts"},
      // A vertex that overflows once scaled.
      {"scale 1e30\nverts 3\n3e38 0 0\n1 0 0\n0 1 0\nfaces 1\n0 1 2 1 0 0 0 1\nendnode\n", 5,
       "vertex 0 of 'a' is not finite in model space"},
  };
  for (const BadInput& c : cases) {
    const std::string text = head + std::string(c.text);
    const ChunkMeshResult r = parseChunkMesh(text, "bad.mdl");
    ASSERT_FALSE(r.ok()) << c.text;
    expectLocatedError(r.diagnostics, c);
    // The emitter import never reads mesh lists: the same text is not an error there.
    EXPECT_TRUE(parseMdl(text, "bad.mdl").ok()) << c.text;
  }
}

TEST(ChunkMesh, ListsEndingWithTheFileAndHugeCountsAllocateNothingAhead) {
  const ChunkMeshResult r =
      parseChunkMesh("newmodel m\nnode trimesh a\nparent NULL\nverts 65536\n0 0 0\nendnode\n");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(allDiagnostics(r.diagnostics).find(":6: error: 'verts' (line 4) has 1 of 65536 rows"),
            std::string::npos)
      << allDiagnostics(r.diagnostics);
  const ChunkMeshResult end = parseChunkMesh("newmodel m\nnode trimesh a\nverts 2\n0 0 0\n");
  ASSERT_FALSE(end.ok());
  EXPECT_NE(allDiagnostics(end.diagnostics).find(":3: error: 'verts' (line 3) has 1 of 2 rows"),
            std::string::npos)
      << allDiagnostics(end.diagnostics);
}

TEST(ChunkMesh, TexturesOfSeveralNodesWarnAndTheFirstIsKept) {
  const ChunkMeshResult r = parseChunkMesh(
      "newmodel m\nnode trimesh a\nbitmap NULL\nverts 3\n0 0 0\n1 0 0\n0 1 0\nfaces 1\n"
      "0 1 2 1 0 0 0 1\nendnode\nnode trimesh b\nbitmap rock\nverts 3\n0 0 0\n1 0 0\n0 1 0\n"
      "faces 1\n0 1 2 1 0 0 0 1\nendnode\nnode skin c\nbitmap moss\nverts 3\n0 0 0\n1 0 0\n"
      "0 1 0\nfaces 1\n0 1 2 1 0 0 0 1\nweights 3\nroot 1\nroot 1\nroot 1\nendnode\n",
      "t.mdl");
  ASSERT_TRUE(r.ok()) << allDiagnostics(r.diagnostics);
  EXPECT_EQ(r.mesh.texture, "rock");
  EXPECT_EQ(r.mesh.triangleCount(), 3u);
  EXPECT_TRUE(hasWarning(r.diagnostics, 20, "'c' has the texture 'moss' and 'b' has 'rock'"));
}

TEST(MdlImport, ValidationKnowsTheBuiltinMeshNames) {
  EffectDesc effect;
  Emitter e;
  e.name = "e";
  e.render.mode = RenderMode::Mesh;
  e.render.mesh = "builtin:shard";
  effect.emitters.push_back(e);
  EXPECT_FALSE(hasErrors(validateEffect(effect)));
  effect.emitters[0].render.mesh = "builtin:shardd";
  const std::vector<Diagnostic> d = validateEffect(effect);
  ASSERT_TRUE(hasErrors(d));
  EXPECT_NE(allDiagnostics(d).find("unknown built-in mesh \"builtin:shardd\" (did you mean "
                                   "\"builtin:shard\"?)"),
            std::string::npos)
      << allDiagnostics(d);
  effect.emitters[0].render.mesh = "rocks/fx_shard01.mdl";  // a file: not checked here
  EXPECT_FALSE(hasErrors(validateEffect(effect)));
}

}  // namespace
}  // namespace mote::nwn
