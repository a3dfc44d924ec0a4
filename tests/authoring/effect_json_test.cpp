// SPDX-License-Identifier: MIT
// Reading and writing "mote.effect/1": values land where the file says, the writer's canonical
// text, round trips of every example, and located diagnostics.
#include "support/source_dir.h"

#include <mote/authoring/effect_json.h>
#include <mote/core/file.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace mote::authoring {
namespace {

std::string readText(const std::string& path) {
  Result<std::vector<std::uint8_t>> bytes = readFile(path, kMaxEffectFileBytes);
  EXPECT_TRUE(bytes.ok()) << bytes.status().toString();
  return bytes.ok() ? std::string(bytes->begin(), bytes->end()) : std::string();
}

std::string diagnosticsText(const EffectLoadResult& r) {
  std::string out;
  for (const Diagnostic& d : r.diagnostics)
    out += formatDiagnostic(d) + "\n";
  return out;
}

EffectDesc loadOk(std::string_view text) {
  EffectLoadResult r = parseEffect(text, "test.json");
  EXPECT_TRUE(r.ok()) << diagnosticsText(r);
  return r.effect;
}

TEST(EffectJson, MinimalEffectTakesEveryDefault) {
  const EffectDesc e = loadOk(R"({"format": "mote.effect/1", "emitters": [{"name": "a"}]})");
  ASSERT_EQ(e.emitters.size(), 1u);
  Emitter expected;
  expected.name = "a";
  EXPECT_EQ(e.emitters[0], expected);
  EXPECT_EQ(e.emitters[0].maxParticles, 1000u);
  EXPECT_EQ(e.emitters[0].init.lifetime, (ScalarParam{{1.0f, 1.0f}, {}, {}}));
}

TEST(EffectJson, BonfireValuesLandInTheModel) {
  const EffectLoadResult r = loadEffectFile(mote::test::sourcePath("examples/bonfire.json"));
  ASSERT_TRUE(r.ok()) << diagnosticsText(r);
  const EffectDesc& e = r.effect;
  EXPECT_EQ(e.name, "bonfire");
  ASSERT_EQ(e.materials.size(), 4u);
  EXPECT_EQ(e.materials[0].texture, "builtin:flare");
  EXPECT_EQ(e.materials[0].blend, BlendMode::Additive);
  EXPECT_EQ(e.materials[0].softDistance, 0.2f);
  EXPECT_EQ(e.materials[3].blend, BlendMode::Alpha);  // the default
  ASSERT_EQ(e.emitters.size(), 4u);
  const Emitter& flame = e.emitters[0];
  EXPECT_EQ(flame.material, "flame");
  EXPECT_EQ(flame.maxParticles, 400u);
  EXPECT_EQ(flame.spawn.rate, 90.0f);
  EXPECT_EQ(flame.shape.kind, ShapeKind::Disk);
  EXPECT_EQ(flame.shape.radius, 0.35f);
  EXPECT_EQ(flame.init.lifetime.range, (Range{0.5f, 0.9f}));
  EXPECT_EQ(flame.init.velocity.kind, VelocityKind::Cone);
  EXPECT_EQ(flame.init.velocity.spread, 12.0f);
  EXPECT_EQ(flame.init.color.a, (Rgba{1.0f, 0.55f, 0.15f, 1.0f}));
  ASSERT_EQ(flame.update.size(), 5u);
  EXPECT_EQ(std::get<GravityModule>(flame.update[0]).acceleration, (Vec3{0.0f, 1.5f, 0.0f}));
  const auto& size = std::get<SizeOverLifeModule>(flame.update[3]);
  EXPECT_EQ(size.x.interp, Interp::Smooth);
  EXPECT_EQ(size.x.keys, (std::vector<CurveKey>{{0.0f, 0.6f}, {0.3f, 1.0f}, {1.0f, 0.2f}}));
  const auto& color = std::get<ColorOverLifeModule>(flame.update[4]);
  ASSERT_EQ(color.gradient.keys.size(), 4u);
  EXPECT_EQ(color.gradient.keys[2].color, (Rgba{1.0f, 0.5f, 0.2f, 0.8f}));
  EXPECT_EQ(e.emitters[1].prewarm, 4.0f);
  EXPECT_EQ(e.emitters[1].render.sortOrder, -1);
  EXPECT_EQ(e.emitters[2].spawn.bursts, (std::vector<Burst>{{0.5f, 12, 2.7f, 0}}));
  EXPECT_EQ(e.emitters[2].render.mode, RenderMode::Stretched);
}

TEST(EffectJson, ShortFormsAndLongFormsReadAlike) {
  const EffectDesc a = loadOk(R"({"format": "mote.effect/1", "emitters": [{"name": "a",
      "init": {"size": 0.5, "lifetime": [1, 2], "color": [1, 0, 0, 1]}}]})");
  const EffectDesc b = loadOk(R"({"format": "mote.effect/1", "emitters": [{"name": "a",
      "init": {"size": {"range": [0.5, 0.5]}, "lifetime": {"range": [1, 2]},
               "color": {"from": [1, 0, 0, 1], "to": [1, 0, 0, 1]}}}]})");
  EXPECT_EQ(a, b);
  // The writer picks the short forms.
  EXPECT_EQ(saveEffect(b), saveEffect(a));
  EXPECT_NE(saveEffect(a).find(R"("lifetime": [1, 2], "size": 0.5, "color": [1, 0, 0, 1])"),
            std::string::npos)
      << saveEffect(a);
}

TEST(EffectJson, CanonicalTextIsExact) {
  EffectDesc e;
  e.name = "tiny";
  Material m;
  m.name = "glow";
  m.blend = BlendMode::Additive;
  e.materials.push_back(m);
  Emitter em;
  em.name = "sparks";
  em.material = "glow";
  em.seed = 18446744073709551615u;  // u64 exactly
  em.spawn.rate = 12.5f;
  em.spawn.rateOverTime = Curve{Interp::Step, {{0.0f, 10.0f}, {1.0f, 0.0f}}};
  em.init.spin = ScalarParam{{-1.0f, 1.0f}, Curve{Interp::Linear, {{0.0f, 0.1f}}}, {}};
  em.update.push_back(GravityModule{});
  em.update.push_back(KillModule{KillCondition::Plane,
                                 {0.0f, -1.0f, 0.0f},
                                 {0.0f, 1.0f, 0.0f},
                                 1.0f,
                                 {1.0f, 1.0f, 1.0f},
                                 false,
                                 1.0f});
  e.emitters.push_back(em);
  const std::string expected = R"({
  "format": "mote.effect/1",
  "name": "tiny",
  "materials": [{"name": "glow", "blend": "additive"}],
  "emitters": [
    {
      "name": "sparks",
      "material": "glow",
      "seed": 18446744073709551615,
      "spawn": {
        "rate": 12.5,
        "rate_over_time": {"interp": "step", "keys": [[0, 10], [1, 0]]}
      },
      "init": {
        "spin": {
          "range": [-1, 1],
          "over_emitter_time": {"keys": [[0, 0.1]]}
        }
      },
      "update": [
        {"type": "gravity"},
        {"type": "kill", "condition": "plane", "position": [0, -1, 0]}
      ]
    }
  ]
}
)";
  EXPECT_EQ(saveEffect(e), expected);
  EXPECT_EQ(loadOk(expected), e);
}

TEST(EffectJson, EveryExampleIsValidCanonicalAndRoundTrips) {
  std::size_t count = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(mote::test::sourcePath("examples"))) {
    if (entry.path().extension() != ".json") continue;
    ++count;
    const std::string path = entry.path().string();
    const EffectLoadResult r = loadEffectFile(path);
    ASSERT_TRUE(r.ok()) << path << "\n" << diagnosticsText(r);
    // An example carries no warning at all.
    for (const Diagnostic& d : r.diagnostics)
      ADD_FAILURE() << path << ": " << d.message;
    const std::string saved = saveEffect(r.effect);
    EXPECT_EQ(saved, readText(path)) << path << " is not canonical: run mote format " << path;
    const EffectLoadResult again = parseEffect(saved, path);
    ASSERT_TRUE(again.ok()) << diagnosticsText(again);
    EXPECT_EQ(again.effect, r.effect) << path;
  }
  EXPECT_GE(count, 10u);
}

TEST(EffectJson, SaveFileIsAtomicAndLoadsBack) {
  const std::string dir = ::testing::TempDir() + "mote_effect_save";
  std::filesystem::create_directories(dir);
  const EffectDesc e = loadOk(R"({"format": "mote.effect/1", "emitters": [{"name": "a"}]})");
  const std::string path = dir + "/a.json";
  ASSERT_TRUE(saveEffectFile(e, path).ok());
  const EffectLoadResult r = loadEffectFile(path);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.effect, e);
  const Status bad = saveEffectFile(e, dir + "/no/such/dir/a.json");
  EXPECT_EQ(bad.code(), StatusCode::IoError);
}

TEST(EffectJson, UnreadableFileIsOneDiagnostic) {
  const EffectLoadResult r = loadEffectFile("/nonexistent/effect.json");
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(formatDiagnostic(r.diagnostics[0]),
            "error: cannot read /nonexistent/effect.json: No such file or directory");
}

TEST(EffectJson, SeveralDiagnosticsInOnePassInDocumentOrder) {
  const EffectLoadResult r = parseEffect(R"({
  "format": "mote.effect/1",
  "materials": [{"name": "fire", "blend": "addtive"}],
  "emitters": [
    {"name": "a", "material": "fier", "spawn": {"rate": -3}},
    {"name": "a", "max_particle": 10}
  ]
})",
                                         "bonfire.json");
  EXPECT_EQ(diagnosticsText(r),
            "bonfire.json:3:43: error: /materials/0/blend: unknown value \"addtive\" (did you "
            "mean \"additive\"?); expected one of: alpha, cutout, additive, premultiplied\n"
            "bonfire.json:5:31: error: /emitters/0/material: no material named \"fier\" (did you "
            "mean \"fire\"?)\n"
            "bonfire.json:5:57: error: /emitters/0/spawn/rate: must be >= 0 (got -3)\n"
            "bonfire.json:6:14: error: /emitters/1/name: duplicate name \"a\"\n"
            "bonfire.json:6:19: error: /emitters/1/max_particle: unknown field \"max_particle\" "
            "(did you mean \"max_particles\"?)\n");
}

TEST(EffectJson, EmitterLintsWaitUntilTheEffectHasNoErrors) {
  const EffectLoadResult clean =
      parseEffect(R"({"format": "mote.effect/1", "emitters": [{"name": "a"}]})", "l.json");
  EXPECT_TRUE(clean.ok());
  EXPECT_EQ(diagnosticsText(clean),
            "l.json:1:42: warning: /emitters/0/spawn: the emitter never spawns (rate 0, no "
            "rate_over_time, no bursts, no collision spawns into it)\n");
  const EffectLoadResult broken = parseEffect(
      R"({"format": "mote.effect/1", "emitters": [{"name": "a", "max_particles": 0}]})", "l.json");
  EXPECT_EQ(diagnosticsText(broken),
            "l.json:1:73: error: /emitters/0/max_particles: must be >= 1 (got 0)\n");
}

TEST(EffectJson, WarningsDoNotFailTheLoad) {
  const EffectLoadResult r = parseEffect(
      R"({"format": "mote.effect/1", "emitters": [{"name": "a", "spawn": {"event_times": [1], "rate": 1}}]})",
      "w.json");
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(diagnosticsText(r),
            "w.json:1:81: warning: /emitters/0/spawn/event_times: ignored: the emitter is not "
            "event_burst\n");
}

TEST(EffectJson, OtherFormatsAreRefusedWithoutNoise) {
  const EffectLoadResult r =
      parseEffect(R"({"format": "mote.effect/2", "emitters": 7, "junk": 1})", "v2.json");
  EXPECT_EQ(diagnosticsText(r),
            "v2.json:1:12: error: /format: unsupported format version \"mote.effect/2\" (this "
            "build reads \"mote.effect/1\")\n");
}

TEST(EffectJson, IntegersAreExact) {
  const EffectDesc e = loadOk(
      R"({"format": "mote.effect/1", "emitters": [{"name": "a", "seed": 9007199254740993}]})");
  EXPECT_EQ(e.emitters[0].seed, 9007199254740993u);  // 2^53 + 1: no double holds it
  const EffectLoadResult r = parseEffect(
      R"({"format": "mote.effect/1", "emitters": [{"name": "a", "seed": 18446744073709551616, "spawn": {"rate": 1}}]})",
      "s.json");
  EXPECT_EQ(diagnosticsText(r),
            "s.json:1:64: error: /emitters/0/seed: must be an integer in [0, "
            "18446744073709551615] (got 18446744073709551616)\n");
}

}  // namespace
}  // namespace mote::authoring
