// SPDX-License-Identifier: MIT
// The .motefx loader refuses damaged files with a located message, and the v1, v2 and v3 fixtures
// load (the older ones through their upgrade steps).
#include "support/motefx_seal.h"
#include "support/source_dir.h"

#include <mote/authoring/effect_json.h>
#include <mote/bytecode/compiled_effect.h>
#include <mote/compiler/compiler.h>
#include <mote/core/file.h>

#include <gtest/gtest.h>

namespace mote::bytecode {
namespace {

std::vector<std::uint8_t> bonfireBytes() {
  const authoring::EffectLoadResult loaded =
      authoring::loadEffectFile(mote::test::sourcePath("examples/bonfire.json"));
  EXPECT_TRUE(loaded.ok());
  return saveMotefx(compiler::compileEffect(loaded.effect).effect);
}

// `effect` in the layout of versions 4 to 6 — v7's without the trail source (8 bytes) at the end
// of each emitter — labelled `version` and sealed. Emitter k ends where a file of the first k + 1
// emitters ends (the list's count is fixed-width).
std::vector<std::uint8_t> saveInV6Layout(const CompiledEffect& effect, std::uint8_t version) {
  std::vector<std::uint8_t> bytes = saveMotefx(effect);
  for (std::size_t k = effect.emitters.size(); k-- > 0;) {
    CompiledEffect prefix = effect;
    prefix.emitters.resize(k + 1);
    const auto end = static_cast<std::ptrdiff_t>(saveMotefx(prefix).size());
    bytes.erase(bytes.begin() + end - 8, bytes.begin() + end);
  }
  bytes[8] = version;
  mote::test::sealMotefx(bytes);
  return bytes;
}

std::string loadError(const std::vector<std::uint8_t>& bytes) {
  Result<CompiledEffect> r = loadMotefx(bytes);
  EXPECT_FALSE(r.ok());
  return r.ok() ? std::string() : r.status().message();
}

TEST(Motefx, DamagedFilesAreRefusedWithTheReason) {
  const std::vector<std::uint8_t> good = bonfireBytes();
  ASSERT_TRUE(loadMotefx(good).ok());
  std::vector<std::uint8_t> b = good;
  b[0] = 'X';
  EXPECT_EQ(loadError(b), "offset 0: not a .motefx file (bad magic)");
  b = good;
  b[8] = 8;  // a future version
  EXPECT_EQ(loadError(b),
            "offset 8: unsupported .motefx version 8 (this build reads versions 1 to 7)");
  b[8] = 0;
  EXPECT_EQ(loadError(b),
            "offset 8: unsupported .motefx version 0 (this build reads versions 1 to 7)");
  b = good;
  b[12] = 1;
  EXPECT_EQ(loadError(b), "offset 12: unknown flags 1");
  b = good;
  b.back() ^= 0x40;
  EXPECT_EQ(loadError(b), "offset 24: checksum mismatch (the file is damaged)");
  b = good;
  b.push_back(0);
  EXPECT_EQ(loadError(b), "offset 16: payload size " + std::to_string(good.size() - 32) + " but " +
                              std::to_string(good.size() - 31) + " bytes follow the header");
  EXPECT_EQ(loadError({}), "offset 0: truncated header");
}

Result<CompiledEffect> loadFixture(const std::string& name) {
  Result<std::vector<std::uint8_t>> bytes =
      readFile(mote::test::sourcePath("tests/golden/motefx/") + name, kMaxMotefxBytes);
  if (!bytes.ok()) return bytes.status();
  return loadMotefx(*bytes);
}

std::size_t curveInstructions(const CompiledEffect& effect) {
  std::size_t count = 0;
  for (const CompiledEmitter& em : effect.emitters)
    for (const Section s : {Section::Init, Section::Update})
      for (std::size_t at = 0; at < em.program.section(s).size(); at += kWordsPerInstruction)
        if ((em.program.section(s)[at] & 0xFFu) == static_cast<std::uint32_t>(Opcode::Curve))
          ++count;
  return count;
}

TEST(Motefx, SavesVersionSeven) {
  const std::vector<std::uint8_t> bytes = bonfireBytes();
  ASSERT_GE(bytes.size(), 12u);
  EXPECT_EQ(bytes[8], 7u);
  EXPECT_EQ(kMotefxVersion, 7u);
}

std::vector<std::uint8_t> fixtureBytes(const std::string& name) {
  Result<std::vector<std::uint8_t>> bytes =
      readFile(mote::test::sourcePath("tests/golden/motefx/") + name, kMaxMotefxBytes);
  EXPECT_TRUE(bytes.ok()) << name;
  return bytes.ok() ? *bytes : std::vector<std::uint8_t>{};
}

// v7 added TRAIL and each emitter's trail source (an int32 and a float after its parent frames):
// the v6 fixture loads to the effect the v7 fixture holds (no trails), and saving it writes the v7
// file byte for byte, 8 bytes an emitter longer.
TEST(Motefx, TheVersionSixFixtureIsTheVersionSevenEffect) {
  Result<CompiledEffect> v6 = loadFixture("v6/explosion.motefx");
  ASSERT_TRUE(v6.ok()) << v6.status().toString();
  Result<CompiledEffect> v7 = loadFixture("v7/explosion.motefx");
  ASSERT_TRUE(v7.ok()) << v7.status().toString();
  EXPECT_TRUE(*v6 == *v7);
  for (const CompiledEmitter& em : v7->emitters)
    EXPECT_EQ(em.emission.sourceEmitter, -1) << em.name;
  const std::vector<std::uint8_t> v7Bytes = fixtureBytes("v7/explosion.motefx");
  EXPECT_TRUE(saveMotefx(*v6) == v7Bytes);
  EXPECT_EQ(v7Bytes.size(), fixtureBytes("v6/explosion.motefx").size() + 7 * 8);
}

// v6 added SPAWNI and the source_* builtins in v4's layout: the v5 fixture loads to the effect the
// v6 fixture holds, and the two files differ only in the header's version.
TEST(Motefx, TheVersionFiveFixtureIsTheVersionSixEffect) {
  Result<CompiledEffect> v5 = loadFixture("v5/explosion.motefx");
  ASSERT_TRUE(v5.ok()) << v5.status().toString();
  Result<CompiledEffect> v6 = loadFixture("v6/explosion.motefx");
  ASSERT_TRUE(v6.ok()) << v6.status().toString();
  EXPECT_TRUE(*v5 == *v6);
  std::vector<std::uint8_t> v5Bytes = fixtureBytes("v5/explosion.motefx");
  ASSERT_GT(v5Bytes.size(), 8u);
  v5Bytes[8] = 6;
  EXPECT_TRUE(v5Bytes == fixtureBytes("v6/explosion.motefx"));
}

TEST(Motefx, AFileBeforeVersionSixWithInheritanceIsRefused) {
  // The source emitter holds SPAWNI, the target loads source_velocity: both are version 6.
  const authoring::EffectLoadResult loaded = authoring::parseEffect(
      R"({"format": "mote.effect/1", "name": "shells", "materials": [{"name": "m"}],
          "emitters": [{"name": "shells", "material": "m", "events": [
            {"on": "death", "spawn": "sparks", "inherit_velocity": 1}]},
            {"name": "sparks", "material": "m", "spawn": {"rate": 0}}]})",
      "shells.json");
  ASSERT_TRUE(loaded.ok());
  const compiler::CompileResult compiled = compiler::compileEffect(loaded.effect);
  ASSERT_TRUE(compiled.ok());
  std::vector<std::uint8_t> bytes = saveInV6Layout(compiled.effect, 6);
  EXPECT_TRUE(loadMotefx(bytes).ok());
  bytes = saveInV6Layout(compiled.effect, 5);
  const std::string error = loadError(bytes);
  EXPECT_EQ(error.rfind("emitter shells: update[", 0), 0u) << error;
  EXPECT_NE(error.find("]: opcode 56 (spawni) in a version 5 file (spawni is version 6)"),
            std::string::npos)
      << error;
  // REPORT is version 6 too.
  const authoring::EffectLoadResult reports = authoring::parseEffect(
      R"({"format": "mote.effect/1", "name": "shells", "materials": [{"name": "m"}],
          "emitters": [{"name": "shells", "material": "m", "events": [
            {"on": "birth", "report": true}]}]})",
      "reports.json");
  ASSERT_TRUE(reports.ok());
  bytes = saveInV6Layout(compiler::compileEffect(reports.effect).effect, 5);
  EXPECT_NE(
      loadError(bytes).find("]: opcode 57 (report) in a version 5 file (report is version 6)"),
      std::string::npos)
      << loadError(bytes);
  // Without the source, the target's load of source_velocity is what a v5 file cannot hold.
  CompiledEffect targetOnly = compiled.effect;
  targetOnly.emitters.erase(targetOnly.emitters.begin());
  bytes = saveInV6Layout(targetOnly, 6);
  ASSERT_TRUE(loadMotefx(bytes).ok()) << loadError(bytes);
  bytes = saveInV6Layout(targetOnly, 5);
  const std::string targetError = loadError(bytes);
  EXPECT_EQ(targetError.rfind("emitter sparks: init[", 0), 0u) << targetError;
  EXPECT_NE(targetError.find("]: builtin source_velocity in a version 5 file (it is version 6)"),
            std::string::npos)
      << targetError;
}

constexpr const char* kTrailEffect =
    R"({"format": "mote.effect/1", "name": "comets", "materials": [{"name": "m"}],
        "emitters": [{"name": "comets", "material": "m", "spawn": {"rate": 2}},
          {"name": "tails", "material": "m",
           "spawn": {"source": "comets", "metric": "per_distance", "rate": 10}}]})";

TEST(Motefx, AFileBeforeVersionSevenWithATrailIsRefused) {
  const authoring::EffectLoadResult loaded = authoring::parseEffect(kTrailEffect, "comets.json");
  ASSERT_TRUE(loaded.ok());
  const compiler::CompileResult compiled = compiler::compileEffect(loaded.effect);
  ASSERT_TRUE(compiled.ok());
  EXPECT_EQ(compiled.effect.emitters[1].emission.sourceEmitter, 0);
  std::vector<std::uint8_t> bytes = saveMotefx(compiled.effect);
  Result<CompiledEffect> back = loadMotefx(bytes);
  ASSERT_TRUE(back.ok()) << back.status().toString();
  EXPECT_TRUE(*back == compiled.effect);
  // A v6 file of the same program: the source's TRAIL is what it cannot hold.
  bytes = saveInV6Layout(compiled.effect, 6);
  const std::string error = loadError(bytes);
  EXPECT_EQ(error.rfind("emitter comets: update[", 0), 0u) << error;
  EXPECT_NE(error.find("]: opcode 58 (trail) in a version 6 file (trail is version 7)"),
            std::string::npos)
      << error;
}

TEST(Motefx, ATrailIntoAnEmitterOfAnotherSourceIsRefused) {
  const authoring::EffectLoadResult loaded = authoring::parseEffect(kTrailEffect, "comets.json");
  ASSERT_TRUE(loaded.ok());
  CompiledEffect effect = compiler::compileEffect(loaded.effect).effect;
  ASSERT_EQ(effect.emitters.size(), 2u);
  CompiledEffect other = effect;
  other.emitters[1].emission.sourceEmitter = -1;
  EXPECT_EQ(loadError(saveMotefx(other)),
            "emitter comets: trails into emitter 1, whose trail source is not this emitter");
  // A trail source that is not another emitter (in an effect without TRAIL, checked first).
  other = effect;
  other.emitters[0].program = other.emitters[1].program;
  other.emitters[1].emission.sourceEmitter = 1;
  EXPECT_EQ(loadError(saveMotefx(other)),
            "emitter tails: its trail source, emitter 1, is not another emitter of the 2");
  other.emitters[1].emission.sourceEmitter = 0;
  other.emitters[1].space = bytecode::SimulationSpace::Local;
  EXPECT_EQ(loadError(saveMotefx(other)),
            "emitter tails: a trail (its source is emitter 0) simulates in world space");
  other.emitters[1].space = bytecode::SimulationSpace::World;
  other.emitters[1].emission.sourceEmitter = 7;
  EXPECT_EQ(loadError(saveMotefx(other)),
            "emitter tails: its trail source, emitter 7, is not another emitter of the 2");
}

// v5 added COLLIDE in v4's layout: the v4 fixture loads to the effect the v5 fixture holds, and
// the two files differ only in the header's version.
TEST(Motefx, TheVersionFourFixtureIsTheVersionFiveEffect) {
  Result<CompiledEffect> v4 = loadFixture("v4/explosion.motefx");
  ASSERT_TRUE(v4.ok()) << v4.status().toString();
  Result<CompiledEffect> v5 = loadFixture("v5/explosion.motefx");
  ASSERT_TRUE(v5.ok()) << v5.status().toString();
  EXPECT_TRUE(*v4 == *v5);
  std::vector<std::uint8_t> v4Bytes = fixtureBytes("v4/explosion.motefx");
  ASSERT_GT(v4Bytes.size(), 8u);
  v4Bytes[8] = 5;
  EXPECT_TRUE(v4Bytes == fixtureBytes("v5/explosion.motefx"));
}

TEST(Motefx, AFileBeforeVersionFiveWithCollideIsRefused) {
  const authoring::EffectLoadResult loaded = authoring::parseEffect(
      R"({"format": "mote.effect/1", "name": "rainfall", "materials": [{"name": "m"}],
          "emitters": [{"name": "drops", "material": "m", "update": [
            {"type": "collision", "colliders": [{"kind": "host"}]}]}]})",
      "rainfall.json");
  ASSERT_TRUE(loaded.ok());
  const compiler::CompileResult compiled = compiler::compileEffect(loaded.effect);
  ASSERT_TRUE(compiled.ok());
  EXPECT_TRUE(loadMotefx(saveInV6Layout(compiled.effect, 5)).ok());
  for (const std::uint8_t older : {std::uint8_t{4}, std::uint8_t{3}}) {
    const std::string error = loadError(saveInV6Layout(compiled.effect, older));
    if (older == 4) {
      EXPECT_EQ(error.rfind("emitter drops: update[", 0), 0u) << error;
      EXPECT_NE(error.find("]: opcode 55 (collide) in a version 4 file (collide is version 5)"),
                std::string::npos)
          << error;
    } else {
      EXPECT_FALSE(error.empty());  // a v3 file has another layout: refused either way
    }
  }
}

// explosion.motefx in v2/ and v3/ (both written by mote compile from the same effect; v3 without
// the fields nothing reads) and v4/ (the v3 file upgraded by mote compile: v3 plus empty motion and
// parent frames): after upgradeV2ToV3 the v2 file is the v3 file's effect, field for field, and
// the v3 file is the v4 file's. tests/runtime/world_test.cpp runs them to the same state hash.
TEST(Motefx, TheVersionTwoAndThreeFixturesUpgradeToTheVersionFourEffect) {
  Result<CompiledEffect> v2 = loadFixture("v2/explosion.motefx");
  ASSERT_TRUE(v2.ok()) << v2.status().toString();
  Result<CompiledEffect> v3 = loadFixture("v3/explosion.motefx");
  ASSERT_TRUE(v3.ok()) << v3.status().toString();
  Result<CompiledEffect> v4 = loadFixture("v4/explosion.motefx");
  ASSERT_TRUE(v4.ok()) << v4.status().toString();
  EXPECT_EQ(v3->name, "explosion");
  EXPECT_EQ(v3->emitters.size(), 7u);
  EXPECT_TRUE(*v2 == *v3);
  EXPECT_TRUE(*v3 == *v4);
  // The v4 file is the v3 layout, each emitter followed by its (empty) motion and parent frames,
  // 16 bytes; saving the upgraded effect writes the current (v7) file, byte for byte.
  Result<std::vector<std::uint8_t>> v3Bytes =
      readFile(mote::test::sourcePath("tests/golden/motefx/v3/explosion.motefx"), kMaxMotefxBytes);
  Result<std::vector<std::uint8_t>> v4Bytes =
      readFile(mote::test::sourcePath("tests/golden/motefx/v4/explosion.motefx"), kMaxMotefxBytes);
  ASSERT_TRUE(v3Bytes.ok() && v4Bytes.ok());
  // (v4 to v6 share the layout; saving writes v7's: TheVersionSixFixtureIsTheVersionSevenEffect.)
  EXPECT_TRUE(saveMotefx(*v2) == fixtureBytes("v7/explosion.motefx"));
  EXPECT_EQ(v4Bytes->size(), v3Bytes->size() + 7 * 16);
}

TEST(Motefx, EveryTruncatedPrefixOfAVersionTwoFileIsRefused) {
  // The v2 layout has its own reader (visitEffectV2): held to the same bounds checks as v3's.
  Result<std::vector<std::uint8_t>> bytes =
      readFile(mote::test::sourcePath("tests/golden/motefx/v2/explosion.motefx"), kMaxMotefxBytes);
  ASSERT_TRUE(bytes.ok());
  for (std::size_t n = 32; n < bytes->size(); ++n) {
    std::vector<std::uint8_t> cut(bytes->begin(), bytes->begin() + static_cast<std::ptrdiff_t>(n));
    mote::test::sealMotefx(cut);
    const std::string error = loadError(cut);
    EXPECT_NE(error.find("truncated"), std::string::npos) << n << ": " << error;
  }
}

// explosion.motefx in v1/ (written by mote compile before CURVE) and v2/ (after): the same effect,
// its curves arithmetic in v1 and CURVE in v2. Both load; tests/runtime/world_test.cpp runs them.
TEST(Motefx, TheVersionOneAndTwoExplosionFixturesLoad) {
  Result<CompiledEffect> v1 = loadFixture("v1/explosion.motefx");
  ASSERT_TRUE(v1.ok()) << v1.status().toString();
  Result<CompiledEffect> v2 = loadFixture("v2/explosion.motefx");
  ASSERT_TRUE(v2.ok()) << v2.status().toString();
  EXPECT_EQ(v1->name, "explosion");
  EXPECT_EQ(v2->name, "explosion");
  ASSERT_EQ(v1->emitters.size(), v2->emitters.size());
  EXPECT_EQ(curveInstructions(*v1), 0u);
  EXPECT_GT(curveInstructions(*v2), 0u);
  for (std::size_t i = 0; i < v1->emitters.size(); ++i) {
    EXPECT_EQ(v1->emitters[i].name, v2->emitters[i].name);
    EXPECT_EQ(v1->emitters[i].channels, v2->emitters[i].channels);
  }
}

TEST(Motefx, AVersionOneFileWithCurveIsRefused) {
  // The v2 fixture relabelled as v1 (the checksum covers the payload only): v1 has no CURVE.
  Result<std::vector<std::uint8_t>> bytes =
      readFile(mote::test::sourcePath("tests/golden/motefx/v2/explosion.motefx"), kMaxMotefxBytes);
  ASSERT_TRUE(bytes.ok());
  std::vector<std::uint8_t> b = *bytes;
  b[8] = 1;
  const std::string error = loadError(b);
  EXPECT_NE(error.find(": opcode 54 (curve) in a version 1 file (curve is version 2)"),
            std::string::npos)
      << error;
  EXPECT_EQ(error.rfind("emitter ", 0), 0u) << error;
}

TEST(Motefx, TheVersionOneFixtureLoads) {
  // tests/golden/motefx/v1/bonfire.motefx was written by the first version of the format; every
  // later build must keep loading it (through upgrade functions once there is a version 2).
  Result<std::vector<std::uint8_t>> bytes =
      readFile(mote::test::sourcePath("tests/golden/motefx/v1/bonfire.motefx"), kMaxMotefxBytes);
  ASSERT_TRUE(bytes.ok()) << bytes.status().toString();
  Result<CompiledEffect> effect = loadMotefx(*bytes);
  ASSERT_TRUE(effect.ok()) << effect.status().toString();
  EXPECT_EQ(effect->name, "bonfire");
  ASSERT_EQ(effect->emitters.size(), 4u);
  EXPECT_EQ(effect->emitters[0].name, "flame");
  EXPECT_EQ(effect->emitters[0].maxParticles, 400u);
  EXPECT_EQ(effect->materials[0].texture, "builtin:flare");
}

}  // namespace
}  // namespace mote::bytecode
