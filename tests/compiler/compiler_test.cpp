// SPDX-License-Identifier: MIT
// The compiler: every example compiles to verified programs that survive the text and binary
// round trips; module lowering gives hand-computed results on the reference executor; graphs,
// folding, interning and diagnostics.
#include "support/motefx_seal.h"
#include "support/source_dir.h"

#include <mote/authoring/effect_json.h>
#include <mote/bytecode/assembler.h>
#include <mote/bytecode/reference.h>
#include <mote/compiler/compiler.h>

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace mote::compiler {
namespace {

using bytecode::Builtin;
using bytecode::CompiledEffect;
using bytecode::CompiledEmitter;
using bytecode::ReferenceContext;
using bytecode::Section;

std::string diagnosticsText(const std::vector<authoring::Diagnostic>& diagnostics) {
  std::string out;
  for (const authoring::Diagnostic& d : diagnostics)
    out += authoring::formatDiagnostic(d) + "\n";
  return out;
}

CompiledEffect compileText(std::string_view json) {
  const authoring::EffectLoadResult loaded = authoring::parseEffect(json, "test.json");
  EXPECT_TRUE(loaded.ok()) << diagnosticsText(loaded.diagnostics);
  CompileResult compiled = compileEffect(loaded.effect);
  EXPECT_TRUE(compiled.ok()) << diagnosticsText(compiled.diagnostics);
  return compiled.effect;
}

// One particle run through a compiled emitter on the reference executor.
struct Particle {
  explicit Particle(const CompiledEmitter& e) : emitter(e), words(e.program.particleWords, 0.0f) {
    Result<bytecode::VerifiedProgram> v = bytecode::verify(e.program);
    EXPECT_TRUE(v.ok()) << v.status().toString();
    program.emplace(std::move(v).takeValue());
    context.builtins[static_cast<std::size_t>(Builtin::EmitterRotation)] = {0.0f, 0.0f, 0.0f, 1.0f};
    context.emitterWords = e.emitterFieldValues;
  }
  void set(Builtin b, std::array<float, 4> v) { context.builtins[static_cast<std::size_t>(b)] = v; }
  bool run(Section s) { return bytecode::runReference(*program, s, words, context); }
  float at(std::int32_t channel, std::size_t lane = 0) const {
    EXPECT_GE(channel, 0);
    return words[static_cast<std::size_t>(channel) + lane];
  }
  // A channel as its readers see it: `absent` where the compiler kept the field out of the layout
  // (a spawn-constant field equal to what a missing channel reads as, docs/compiler.md).
  float seen(std::int32_t channel, std::size_t lane, float absent) const {
    return channel < 0 ? absent : words[static_cast<std::size_t>(channel) + lane];
  }
  const CompiledEmitter& emitter;
  std::optional<bytecode::VerifiedProgram> program;
  std::vector<float> words;
  ReferenceContext context;
};

// The word offset of custom particle field `name` (stored as field.NAME), or -1.
std::int32_t fieldOffset(const CompiledEmitter& e, std::string_view name) {
  for (const bytecode::FieldSlot& f : e.program.particleFields)
    if (f.name == "field." + std::string(name)) return static_cast<std::int32_t>(f.offset);
  return -1;
}

TEST(Compiler, EveryExampleCompilesVerifiesAndRoundTrips) {
  std::size_t examples = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(mote::test::sourcePath("examples"))) {
    if (entry.path().extension() != ".json") continue;
    ++examples;
    const authoring::EffectLoadResult loaded = authoring::loadEffectFile(entry.path().string());
    ASSERT_TRUE(loaded.ok()) << entry.path();
    const CompileResult compiled = compileEffect(loaded.effect);
    ASSERT_TRUE(compiled.ok()) << entry.path() << "\n" << diagnosticsText(compiled.diagnostics);
    ASSERT_EQ(compiled.effect.emitters.size(), loaded.effect.emitters.size());
    for (const CompiledEmitter& e : compiled.effect.emitters) {
      EXPECT_TRUE(bytecode::verify(e.program).ok()) << e.name;
      // compile → disasm → asm gives identical words.
      Result<bytecode::Program> again = bytecode::assemble(bytecode::disassemble(e.program));
      ASSERT_TRUE(again.ok()) << again.status().toString();
      EXPECT_EQ(*again, e.program) << entry.path() << " " << e.name;
    }
    // Deterministic bytes, and the binary form loads back equal.
    const std::vector<std::uint8_t> bytes = bytecode::saveMotefx(compiled.effect);
    EXPECT_EQ(bytecode::saveMotefx(compileEffect(loaded.effect).effect), bytes) << entry.path();
    Result<CompiledEffect> back = bytecode::loadMotefx(bytes);
    ASSERT_TRUE(back.ok()) << back.status().toString();
    EXPECT_EQ(*back, compiled.effect) << entry.path();
    // Every truncated prefix is refused cleanly — by the header check as it is, and, with its
    // header sealed to the cut payload (size and checksum patched), by the section readers.
    for (std::size_t n = 0; n < bytes.size(); ++n) {
      EXPECT_FALSE(bytecode::loadMotefx(std::span(bytes).first(n)).ok())
          << entry.path() << " " << n;
      if (n < 32) continue;
      std::vector<std::uint8_t> cut(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n));
      mote::test::sealMotefx(cut);
      const Result<CompiledEffect> sealed = bytecode::loadMotefx(cut);
      ASSERT_FALSE(sealed.ok()) << entry.path() << " " << n;
      EXPECT_NE(sealed.status().message().find("truncated"), std::string::npos)
          << entry.path() << " " << n << ": " << sealed.status().message();
    }
  }
  EXPECT_GE(examples, 10u);
}

TEST(Compiler, GravityAndDragGiveHandComputedMotion) {
  const CompiledEffect fx = compileText(R"({"format": "mote.effect/1", "emitters": [{"name": "a",
      "spawn": {"rate": 1}, "init": {"lifetime": 10,
        "velocity": {"kind": "direction", "direction": [0, 2, 0], "speed": 4}},
      "update": [{"type": "gravity", "acceleration": [0, -10, 0]}, {"type": "drag", "coefficient": 0.5}]}]})");
  ASSERT_EQ(fx.emitters.size(), 1u);
  Particle p(fx.emitters[0]);
  p.set(Builtin::EmitterPosition, {1.0f, 2.0f, 3.0f, 0.0f});
  p.set(Builtin::Dt, {0.25f, 0.0f, 0.0f, 0.0f});
  EXPECT_FALSE(p.run(Section::Init));
  const auto& c = fx.emitters[0].channels;
  // Born at the emitter with v = (0, 4, 0).
  EXPECT_EQ(p.at(c.position, 0), 1.0f);
  EXPECT_EQ(p.at(c.position, 1), 2.0f);
  EXPECT_EQ(p.at(c.velocity, 1), 4.0f);
  // A lifetime of 10 for every particle is a literal in the program, not a field.
  EXPECT_EQ(c.lifetime, -1);
  EXPECT_FALSE(p.run(Section::Update));
  // gravity: vy = 4 + (-10)(0.25) = 1.5; drag: vy = 1.5 + 1.5·(-0.5·0.25) = 1.3125;
  // position: y = 2 + 1.3125·0.25 = 2.328125. All exact in binary.
  EXPECT_EQ(p.at(c.velocity, 1), 1.3125f);
  EXPECT_EQ(p.at(c.position, 1), 2.328125f);
  EXPECT_EQ(p.at(c.age), 0.25f);
}

// A field INIT sets to one literal and nothing else writes is not a stream (docs/compiler.md,
// "Spawn-constant fields"): the compiler's own fields with any literal, channels only with the
// value a missing channel reads as. What the program computes does not change.
TEST(Compiler, SpawnConstantFieldsLeaveTheLayout) {
  const auto names = [](const CompiledEmitter& e) {
    std::vector<std::string> out;
    for (const bytecode::FieldSlot& f : e.program.particleFields)
      out.push_back(f.name);
    return out;
  };
  const auto has = [&](const CompiledEmitter& e, std::string_view name) {
    const std::vector<std::string> all = names(e);
    return std::find(all.begin(), all.end(), name) != all.end();
  };
  // Lifetime 2, white, no roll, a size curve over a constant size: age, position, velocity and
  // size are left.
  const CompiledEffect folded =
      compileText(R"({"format": "mote.effect/1", "emitters": [{"name": "a",
      "spawn": {"rate": 1}, "particle_fields": [{"name": "heat"}],
      "init": {"lifetime": 2, "size": 0.5, "fields": [{"field": "heat", "min": [3], "max": [3]}]},
      "update": [{"type": "size_over_life", "x": {"keys": [[0, 1], [1, 3]]}}]}]})");
  const CompiledEmitter& e = folded.emitters[0];
  EXPECT_EQ(names(e),
            (std::vector<std::string>{"age", "position", "velocity", "size", "field.heat"}));
  EXPECT_EQ(e.channels.lifetime, -1);
  EXPECT_EQ(e.channels.color, -1);
  EXPECT_EQ(e.channels.rotation, -1);
  EXPECT_EQ(e.program.particleWords, 10u);
  // The program still ages, kills at 2 s and scales the constant size by the curve:
  // at age 1 (t = 0.5) the size is 0.5 · 2 = 1.
  Particle p(e);
  p.set(Builtin::Dt, {1.0f, 0.0f, 0.0f, 0.0f});
  EXPECT_FALSE(p.run(Section::Init));
  EXPECT_FALSE(p.run(Section::Update));
  EXPECT_EQ(p.at(e.channels.age), 1.0f);
  EXPECT_EQ(p.at(e.channels.size, 0), 1.0f);
  EXPECT_EQ(p.at(fieldOffset(e, "heat")), 3.0f);  // a host reads it by name: kept
  EXPECT_FALSE(p.run(Section::Update));           // age 2: its last tick
  EXPECT_TRUE(p.run(Section::Update));            // age 3: past its lifetime, dead

  // What changes per particle or over its life, and channels not at their absent value, stay.
  const CompiledEffect kept = compileText(R"({"format": "mote.effect/1", "emitters": [{"name": "a",
      "spawn": {"rate": 1}, "init": {"lifetime": [1, 2], "color": [1, 0.5, 0.2, 1], "rotation": 30},
      "update": [{"type": "size_over_life", "x": {"keys": [[0, 1], [1, 3]]}}]},
      {"name": "b", "spawn": {"rate": 1}, "init": {"size": [0.1, 0.2]},
      "update": [{"type": "color_over_life", "gradient": {"keys": [[0, [1, 1, 1, 1]], [1, [0, 0, 0, 0]]]}},
                 {"type": "size_over_life", "x": {"keys": [[0, 1], [1, 3]]}}]}]})");
  EXPECT_TRUE(has(kept.emitters[0], "lifetime"));
  EXPECT_TRUE(has(kept.emitters[0], "color"));
  EXPECT_TRUE(has(kept.emitters[0], "rotation"));
  EXPECT_FALSE(has(kept.emitters[0], "size0"));
  EXPECT_TRUE(has(kept.emitters[1], "color"));
  EXPECT_TRUE(has(kept.emitters[1], "size0"));
  EXPECT_FALSE(has(kept.emitters[1], "lifetime"));
}

TEST(Compiler, LifetimeKillsAndImmortalDoesNot) {
  for (const bool immortal : {false, true}) {
    const CompiledEffect fx = compileText(
        std::string(R"({"format": "mote.effect/1", "emitters": [{"name": "a", "spawn": {"rate": 1},
        "init": {"lifetime": 0.5, "immortal": )") +
        (immortal ? "true" : "false") + "}}]}");
    Particle p(fx.emitters[0]);
    p.set(Builtin::Dt, {0.375f, 0.0f, 0.0f, 0.0f});
    p.run(Section::Init);
    EXPECT_FALSE(p.run(Section::Update));          // age 0.375 < 0.5
    EXPECT_EQ(p.run(Section::Update), !immortal);  // age 0.75 > 0.5
  }
}

TEST(Compiler, OverLifeCurvesAreThePiecewiseFunction) {
  const CompiledEffect fx = compileText(R"({"format": "mote.effect/1", "emitters": [{"name": "a",
      "spawn": {"rate": 1}, "init": {"lifetime": 1, "color": [1, 1, 1, 0.5], "size": 2},
      "update": [
        {"type": "alpha_over_life", "curve": {"keys": [[0, 0], [0.25, 1], [1, 0]]}},
        {"type": "size_over_life", "x": {"interp": "step", "keys": [[0, 1], [0.5, 3]]}}]}]})");
  Particle p(fx.emitters[0]);
  const auto& c = fx.emitters[0].channels;
  p.run(Section::Init);
  // dt 0.125: t = 0.125 → alpha curve 0 + 1·saturate(0.125·4) = 0.5, times birth alpha 0.5.
  p.set(Builtin::Dt, {0.125f, 0.0f, 0.0f, 0.0f});
  p.run(Section::Update);
  EXPECT_EQ(p.at(c.color, 3), 0.25f);
  EXPECT_EQ(p.at(c.color, 0), 1.0f);
  EXPECT_EQ(p.at(c.size, 0), 2.0f);  // step: 1 until t reaches 0.5
  // dt 0.5 more: t = 0.625 → 1 − saturate((0.625 − 0.25)·(1/0.75)) ≈ 0.5; size steps to 3 × 2.
  p.set(Builtin::Dt, {0.5f, 0.0f, 0.0f, 0.0f});
  p.run(Section::Update);
  EXPECT_NEAR(p.at(c.color, 3), 0.25f, 1e-7f);
  EXPECT_EQ(p.at(c.size, 0), 6.0f);
  EXPECT_EQ(p.at(c.size, 1), 6.0f);
}

TEST(Compiler, GroundPlaneBouncesWithRestitutionAndFriction) {
  const CompiledEffect fx = compileText(R"({"format": "mote.effect/1", "emitters": [{"name": "a",
      "spawn": {"rate": 1}, "init": {"lifetime": 10,
        "velocity": {"kind": "direction", "direction": [1, -1, 0], "speed": 1.4142135}},
      "update": [{"type": "collision", "colliders": [{}], "bounce": 0.5, "friction": 0.25}]}]})");
  Particle p(fx.emitters[0]);
  const auto& c = fx.emitters[0].channels;
  p.set(Builtin::EmitterPosition, {0.0f, -0.5f, 0.0f, 0.0f});  // born below the plane y = 0
  p.set(Builtin::Dt, {0.0f, 0.0f, 0.0f, 0.0f});
  p.run(Section::Init);
  p.run(Section::Update);
  // Hit: pushed onto the plane; vy = -(-1)·0.5 = 0.5, vx = 1·(1 - 0.25) = 0.75.
  EXPECT_EQ(p.at(c.position, 1), 0.0f);
  EXPECT_NEAR(p.at(c.velocity, 1), 0.5f, 1e-6f);
  EXPECT_NEAR(p.at(c.velocity, 0), 0.75f, 1e-6f);
}

TEST(Compiler, OutsideABoxParticlesLeaveThroughTheNearestFace) {
  const CompiledEffect fx = compileText(R"({"format": "mote.effect/1", "emitters": [{"name": "a",
      "spawn": {"rate": 1}, "init": {"lifetime": 10,
        "velocity": {"kind": "direction", "direction": [0, -1, 0], "speed": 1}},
      "update": [{"type": "collision", "colliders": [{"kind": "box", "size": [10, 1, 10]}],
                  "bounce": 0.5}]}]})");
  Particle p(fx.emitters[0]);
  const auto& c = fx.emitters[0].channels;
  p.set(Builtin::EmitterPosition, {0.0f, 0.45f, 0.0f, 0.0f});  // 0.05 below the top face
  p.set(Builtin::Dt, {0.0f, 0.0f, 0.0f, 0.0f});
  p.run(Section::Init);
  p.run(Section::Update);
  // Least penetration is +Y (0.05; X and Z are 5): out through the top, bounced up at half speed.
  EXPECT_NEAR(p.at(c.position, 1), 0.5f, 1e-6f);
  EXPECT_EQ(p.at(c.position, 0), 0.0f);
  EXPECT_NEAR(p.at(c.velocity, 1), 0.5f, 1e-6f);
}

TEST(Compiler, GlobalFieldNodesReadTheGlobalEvenWhenAnEmitterFieldSharesTheName) {
  const CompiledEffect fx = compileText(R"({"format": "mote.effect/1",
      "global_fields": [{"name": "gust", "type": "vec3"}],
      "emitters": [{"name": "a", "spawn": {"rate": 1}, "emitter_fields": [{"name": "gust", "value": [7]}],
        "update": [{"type": "graph", "graph": {"nodes": [
          {"id": "g", "op": "global_field_get", "names": {"field": "gust"}},
          {"id": "s", "op": "particle_field_set", "inputs": {"value": "g"}, "names": {"field": "velocity"}}]}}]}]})");
  ASSERT_EQ(fx.emitters[0].program.globals.size(), 1u);
  EXPECT_EQ(fx.emitters[0].program.globals[0], (bytecode::GlobalImport{"gust", 3}));
}

TEST(Compiler, GraphsLowerAndReportMistakes) {
  const CompiledEffect fx = compileText(R"({"format": "mote.effect/1", "emitters": [{"name": "a",
      "spawn": {"rate": 1}, "particle_fields": [{"name": "heat"}],
      "init": {"fields": [{"field": "heat", "min": [2]}]},
      "update": [{"type": "graph", "graph": {"nodes": [
        {"id": "h", "op": "particle_field_get", "names": {"field": "heat"}},
        {"id": "cool", "op": "mul", "inputs": {"a": "h"}, "params": {"b": 0.75}},
        {"id": "store", "op": "particle_field_set", "inputs": {"value": "cool"}, "names": {"field": "heat"}},
        {"id": "a", "op": "particle_field_set", "params": {"value": 0.5}, "names": {"field": "alpha"}}
      ]}}]}]})");
  Particle p(fx.emitters[0]);
  const std::int32_t heat = fieldOffset(fx.emitters[0], "heat");
  p.run(Section::Init);
  p.run(Section::Update);
  EXPECT_EQ(p.at(heat), 1.5f);
  EXPECT_EQ(p.at(fx.emitters[0].channels.color, 3), 0.5f);

  const authoring::EffectLoadResult bad = authoring::parseEffect(R"({"format": "mote.effect/1",
      "emitters": [{"name": "a", "spawn": {"rate": 1}, "update": [{"type": "graph", "graph": {"nodes": [
        {"id": "x", "op": "sinn", "inputs": {"a": "y"}},
        {"id": "y", "op": "add", "inputs": {"a": "z"}},
        {"id": "z", "op": "add", "inputs": {"a": "y", "b": "y"}}]}}]}]})");
  ASSERT_TRUE(bad.ok()) << diagnosticsText(bad.diagnostics);
  const CompileResult r = compileEffect(bad.effect);
  EXPECT_EQ(
      diagnosticsText(r.diagnostics),
      "error: /emitters/0/update/0/graph/nodes/1: the graph has a cycle through node \"y\"\n");
}

TEST(Compiler, ASpawnNodeCannotSpawnIntoATrail) {
  // A trail's particles carry their source particles' ids: only its source's TRAIL fills it.
  const authoring::EffectLoadResult loaded = authoring::parseEffect(
      R"({"format": "mote.effect/1", "emitters": [{"name": "a", "update": [{"type": "graph",
          "graph": {"nodes": [{"id": "s", "op": "spawn", "params": {"count": 1},
                               "names": {"emitter": "t"}}]}}]},
          {"name": "t", "spawn": {"source": "a", "rate": 5}}]})");
  ASSERT_TRUE(loaded.ok()) << diagnosticsText(loaded.diagnostics);
  EXPECT_EQ(diagnosticsText(compileEffect(loaded.effect).diagnostics),
            "error: /emitters/0/update/0/graph/nodes/0/names/emitter: \"t\" is a trail of "
            "\"a\" (spawn.source): only its source's particles spawn into it\n");
}

TEST(Compiler, ASpawnNodeNamesAnotherEmitterAndTakesItsWidths) {
  const auto errors = [](const std::string& node) {
    const authoring::EffectLoadResult loaded = authoring::parseEffect(
        R"({"format": "mote.effect/1", "emitters": [{"name": "a", "update": [{"type": "graph",
            "graph": {"nodes": [)" +
        node + R"(]}}]}, {"name": "b", "spawn": {"rate": 0}}]})");
    EXPECT_TRUE(loaded.ok()) << diagnosticsText(loaded.diagnostics);
    return diagnosticsText(compileEffect(loaded.effect).diagnostics);
  };
  EXPECT_EQ(
      errors(R"({"id": "s", "op": "spawn", "params": {"count": 1}, "names": {"emitter": "a"}})"),
      "error: /emitters/0/update/0/graph/nodes/0/names/emitter: \"a\" is not another emitter "
      "of this effect (a spawn node's target)\n");
  EXPECT_EQ(
      errors(R"({"id": "s", "op": "spawn", "params": {"count": 1}, "names": {"emitter": "c"}})"),
      "error: /emitters/0/update/0/graph/nodes/0/names/emitter: \"c\" is not another emitter "
      "of this effect (a spawn node's target)\n");
  EXPECT_EQ(
      errors(R"({"id": "s", "op": "spawn", "params": {"count": 1, "velocity": [1, 2]},
                       "names": {"emitter": "b"}})"),
      "error: /emitters/0/update/0/graph/nodes/0/inputs/velocity: a 2-wide input where 3 lanes "
      "are needed\n");
  EXPECT_EQ(errors(R"({"id": "s", "op": "spawn", "params": {"count": 1}})"),
            "error: /emitters/0/update/0/graph/nodes/0/names: node \"s\" (spawn) needs name "
            "\"emitter\"\n");
  // A velocity, size or colour makes it SPAWNI; one lane is broadcast.
  EXPECT_EQ(errors(R"({"id": "s", "op": "spawn", "params": {"count": 1, "color": 0.5},
                       "names": {"emitter": "b"}})"),
            "");
}

// Every module type (but graph), as the update list writes them.
constexpr std::string_view kEveryModule[] = {
    R"({"type": "gravity", "acceleration": [0, -9.81, 0]})",
    R"({"type": "drag", "coefficient": 0.7})",
    R"({"type": "curl_noise", "strength": 2, "frequency": 1.5, "octaves": 2})",
    R"({"type": "vortex", "axis": [0, 1, 0.2], "angular_speed": 120, "pull": 0.5})",
    R"({"type": "attractor", "position": [1, 2, 0], "strength": 3, "falloff": 1})",
    R"({"type": "target", "position": [0, 3, 1], "gravity": 2, "drag": 0.25})",
    R"({"type": "wind", "velocity": [1, 0, 0.5], "response": 2})",
    R"({"type": "collision", "colliders": [{"position": [0, -0.2, 0]}], "bounce": 0.6, "friction": 0.1})",
    R"({"type": "kill", "condition": "sphere", "radius": 50})",
    R"({"type": "color_over_life", "gradient": {"keys": [[0, [1, 0.5, 0.2, 1]], [1, [0.2, 0.1, 0.5, 0.5]]]}})",
    R"({"type": "alpha_over_life", "curve": {"keys": [[0, 1], [0.5, 0.8], [1, 0]]}})",
    R"({"type": "size_over_life", "x": {"keys": [[0, 1], [1, 3]]}, "y": {"keys": [[0, 2], [1, 0.5]]}})",
    R"({"type": "spin_over_life", "curve": {"keys": [[0, 1], [1, 4]]}})",
    R"({"type": "speed_limit", "max_speed": 3})"};

// An emitter whose update list is `update` (JSON items), with a random-ish birth state.
std::string moduleEffect(const std::string& update) {
  return R"({"format": "mote.effect/1", "emitters": [{"name": "a", "spawn": {"rate": 1},
      "shape": {"kind": "sphere", "radius": 0.5},
      "init": {"lifetime": [3, 4], "size": [0.1, 0.3], "spin": [-90, 90], "rotation": [0, 360],
               "color": {"from": [1, 0.8, 0.6, 1], "to": [0.5, 0.9, 1, 0.7]},
               "velocity": {"kind": "cone", "spread": 30, "speed": [1, 3]}},
      "update": [)" +
         update + "]}]}";
}

std::string joined(std::span<const std::string_view> items) {
  std::string out;
  for (const std::string_view item : items)
    out += (out.empty() ? "" : ", ") + std::string(item);
  return out;
}

// Runs 40 ticks of dt 1/30 on the reference executor; the standard channels after each tick.
std::vector<float> trajectory(const CompiledEffect& fx) {
  const CompiledEmitter& e = fx.emitters[0];
  Particle p(e);
  p.set(Builtin::EmitterPosition, {0.25f, 0.5f, -0.25f, 0.0f});
  p.set(Builtin::EmitterRotation, {0.1f, 0.3f, -0.2f, 0.9273618f});  // about unit length
  p.set(Builtin::ParticleId, {7.0f, 0.0f, 0.0f, 0.0f});
  p.set(Builtin::Dt, {1.0f / 30.0f, 0.0f, 0.0f, 0.0f});
  p.run(Section::Init);
  std::vector<float> out;
  const auto& c = e.channels;
  // Each channel with what it reads as when the compiler kept it out of the layout.
  struct Channel {
    std::int32_t first;
    std::size_t lanes;
    float absent;
  };
  std::vector<Channel> channels = {{c.position, 3, 0.0f}, {c.velocity, 3, 0.0f}, {c.color, 4, 1.0f},
                                   {c.size, 2, 0.0f},     {c.rotation, 1, 0.0f}, {c.age, 1, 0.0f}};
  if (c.orientation >= 0) channels.push_back({c.orientation, 4, 0.0f});
  for (const bytecode::FieldSlot& f : e.program.particleFields)
    if (f.name.starts_with("field."))
      channels.push_back({static_cast<std::int32_t>(f.offset), 1, 0.0f});
  for (int tick = 0; tick < 40; ++tick) {
    p.set(Builtin::Time, {static_cast<float>(tick) / 30.0f, 0.0f, 0.0f, 0.0f});
    const bool killed = p.run(Section::Update);
    out.push_back(killed ? 1.0f : 0.0f);
    for (const Channel& channel : channels)
      for (std::size_t l = 0; l < channel.lanes; ++l)
        out.push_back(p.seen(channel.first, l, channel.absent));
  }
  return out;
}

bool bitEqual(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::bit_cast<std::uint32_t>(a[i]) != std::bit_cast<std::uint32_t>(b[i])) return false;
  return true;
}

TEST(Compiler, ModulesNodesRunEveryModuleAsTheUpdateListDoes) {
  const std::string all = joined(kEveryModule);
  const std::vector<float> list = trajectory(compileText(moduleEffect(all)));
  // The whole list as one modules node of a graph module.
  const std::vector<float> oneNode = trajectory(compileText(moduleEffect(
      R"({"type": "graph", "graph": {"nodes": [{"id": "m", "op": "modules", "modules": [)" + all +
      "]}]}}")));
  EXPECT_TRUE(bitEqual(list, oneNode));
  // Split across the list, two modules nodes and a second graph: the running colour, size and
  // spin go on through them (the colour and alpha chain starts in the list and ends in a node).
  const std::span<const std::string_view> every(kEveryModule);
  const std::string split = joined(every.first(4)) +
                            R"(, {"type": "graph", "graph": {"nodes": [
        {"id": "m1", "op": "modules", "modules": [)" +
                            joined(every.subspan(4, 6)) + R"(]},
        {"id": "m2", "op": "modules", "modules": [)" +
                            joined(every.subspan(10, 2)) + R"(]}]}}, )" +
                            joined(every.subspan(12, 1)) +
                            R"(, {"type": "graph", "graph": {"nodes": [
        {"id": "m3", "op": "modules", "modules": [)" +
                            joined(every.subspan(13)) + "]}]}}";
  EXPECT_TRUE(bitEqual(list, trajectory(compileText(moduleEffect(split)))));
  // Each module alone, in the list and as a node: the same particle.
  for (const std::string_view module : kEveryModule) {
    const std::vector<float> a = trajectory(compileText(moduleEffect(std::string(module))));
    const std::vector<float> b = trajectory(compileText(moduleEffect(
        R"({"type": "graph", "graph": {"nodes": [{"id": "m", "op": "modules", "modules": [)" +
        std::string(module) + "]}]}}")));
    EXPECT_TRUE(bitEqual(a, b)) << module;
  }
  // The Bezier target sets the position (no integration after it), in a node as in the list.
  const std::string bezier =
      R"({"type": "target", "mode": "bezier", "position": [2, 1, 0], "source_tangent": 1, "target_tangent": 0.5})";
  EXPECT_TRUE(bitEqual(
      trajectory(compileText(moduleEffect(bezier))),
      trajectory(compileText(moduleEffect(
          R"({"type": "graph", "graph": {"nodes": [{"id": "m", "op": "modules", "modules": [)" +
          bezier + "]}]}}")))));
}

// An emitter whose INIT is `init` (JSON members) and whose update multiplies the birth colour and
// size and scales gravity by mass, so that every init value is stored and used.
std::string initEffect(const std::string& init, const std::string& shape = "") {
  return R"({"format": "mote.effect/1", "emitters": [{"name": "a", "spawn": {"rate": 1},)" + shape +
         R"("particle_fields": [{"name": "heat"}], "init": {)" + init + R"(},
      "update": [{"type": "gravity", "scale_by_mass": true},
                 {"type": "color_over_life", "gradient": {"keys": [[0, [1, 1, 1, 1]], [1, [0.5, 0.2, 0.1, 0]]]}},
                 {"type": "size_over_life", "x": {"keys": [[0, 1], [1, 2]]}}]}]})";
}

TEST(Compiler, InitModulesNodesDoWhatTheInitMembersDo) {
  // Every init member (and the shape), in the list's order of random draws.
  const std::string members = R"("lifetime": [2, 3],
      "velocity": {"kind": "cone", "direction": [1, 1, 0], "spread": 30, "speed": [1, 3]},
      "mass": [1, 2], "size": [0.1, 0.3], "separate_size_y": true, "size_y": [0.2, 0.4],
      "color": {"from": [1, 0.8, 0.6, 1], "to": [0.5, 0.9, 1, 0.7]},
      "rotation": [0, 360], "spin": [-90, 90],
      "orientation_axis": [0, 1, 1], "orientation_angle": [10, 20],
      "fields": [{"field": "heat", "min": [0], "max": [1]}])";
  const std::string list =
      initEffect(members, R"("shape": {"kind": "sphere", "radius": 0.5, "inner_radius": 0.2},)");
  const std::string nodes =
      initEffect(R"("graph": {"nodes": [{"id": "m", "op": "modules", "modules": [
      {"type": "lifetime", "value": [2, 3]},
      {"type": "shape", "kind": "sphere", "radius": 0.5, "inner_radius": 0.2},
      {"type": "velocity", "kind": "cone", "direction": [1, 1, 0], "spread": 30, "speed": [1, 3]},
      {"type": "size", "value": [0.1, 0.3], "separate_y": true, "y": [0.2, 0.4]},
      {"type": "color", "value": {"from": [1, 0.8, 0.6, 1], "to": [0.5, 0.9, 1, 0.7]}},
      {"type": "rotation", "value": [0, 360]},
      {"type": "spin", "value": [-90, 90]},
      {"type": "mass", "value": [1, 2]},
      {"type": "orientation", "axis": [0, 1, 1], "angle": [10, 20]},
      {"type": "field", "field": "heat", "min": [0], "max": [1]}]}]})");
  const CompiledEffect a = compileText(list);
  const CompiledEffect b = compileText(nodes);
  // The nodes draw the same random numbers in the same order (the defaults they override draw
  // none), so the particle is the same bit for bit.
  EXPECT_TRUE(bitEqual(trajectory(a), trajectory(b)));
  // A random orientation, in a node as in the list.
  EXPECT_TRUE(
      bitEqual(trajectory(compileText(initEffect(R"("random_orientation": true)"))),
               trajectory(compileText(initEffect(R"("graph": {"nodes": [{"id": "m", "op": "modules",
          "modules": [{"type": "orientation", "random": true}]}]})")))));
}

TEST(Compiler, ARadialVelocityNodeAimsAwayFromTheEmitterThroughThePosition) {
  const std::string shape = R"("shape": {"kind": "sphere", "radius": 0.5},)";
  const std::vector<float> a =
      trajectory(compileText(initEffect(R"("velocity": {"kind": "radial", "speed": 2})", shape)));
  const std::vector<float> b = trajectory(compileText(initEffect(
      R"("graph": {"nodes": [{"id": "m", "op": "modules",
      "modules": [{"type": "velocity", "kind": "radial", "speed": 2}]}]})",
      shape)));
  // The node recovers the emitter-frame spawn point by the inverse rotation: equal to rounding.
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i)
    EXPECT_NEAR(a[i], b[i], 1e-5f * (1.0f + std::fabs(a[i]))) << i;
}

TEST(Compiler, AModulesNodeSeesTheNodesBeforeItAndTheNodesAfterItSeeIt) {
  const CompiledEffect fx = compileText(R"({"format": "mote.effect/1", "emitters": [{"name": "a",
      "spawn": {"rate": 1}, "particle_fields": [{"name": "vy"}], "init": {"lifetime": 10},
      "update": [{"type": "graph", "graph": {"nodes": [
        {"id": "up", "op": "particle_field_set", "params": {"value": [0, 1, 0]}, "names": {"field": "velocity"}},
        {"id": "fall", "op": "modules", "modules": [
          {"type": "gravity", "acceleration": [0, -10, 0]}, {"type": "drag", "coefficient": 2}]},
        {"id": "v", "op": "particle_field_get", "names": {"field": "velocity"}},
        {"id": "keep", "op": "particle_field_set", "inputs": {"value": "v.y"}, "names": {"field": "vy"}}
      ]}}]}]})");
  Particle p(fx.emitters[0]);
  const std::int32_t vy = fieldOffset(fx.emitters[0], "vy");
  p.set(Builtin::Dt, {0.25f, 0.0f, 0.0f, 0.0f});
  p.run(Section::Init);
  p.run(Section::Update);
  // vy = 1 − 10·0.25 = −1.5; drag: −1.5 + (−1.5)(−2·0.25) = −0.75; the list then integrates
  // y = 0 + (−0.75)(0.25) = −0.1875. All exact.
  EXPECT_EQ(p.at(vy), -0.75f);
  EXPECT_EQ(p.at(fx.emitters[0].channels.velocity, 1), -0.75f);
  EXPECT_EQ(p.at(fx.emitters[0].channels.position, 1), -0.1875f);
}

TEST(Compiler, AModulesNodeHasNoPorts) {
  const authoring::EffectLoadResult loaded = authoring::parseEffect(R"({"format": "mote.effect/1",
      "emitters": [{"name": "a", "spawn": {"rate": 1}, "update": [{"type": "graph", "graph": {"nodes": [
        {"id": "t", "op": "dt"},
        {"id": "m", "op": "modules", "inputs": {"a": "t"}, "modules": [{"type": "drag"}]}]}}]}]})");
  ASSERT_TRUE(loaded.ok()) << diagnosticsText(loaded.diagnostics);
  EXPECT_EQ(diagnosticsText(compileEffect(loaded.effect).diagnostics),
            "error: /emitters/0/update/0/graph/nodes/1/inputs: a modules node has no input ports "
            "(it runs at its place in the node list)\n");
}

TEST(Compiler, CurveAndGradientNodesEvaluateTheirKeysAtT) {
  const CompiledEffect fx = compileText(R"({"format": "mote.effect/1", "emitters": [{"name": "a",
      "spawn": {"rate": 1}, "particle_fields": [{"name": "k"}], "init": {"lifetime": 10},
      "update": [{"type": "graph", "graph": {"nodes": [
        {"id": "v", "op": "particle_field_get", "names": {"field": "velocity"}},
        {"id": "speed", "op": "length", "inputs": {"a": "v"}},
        {"id": "c", "op": "curve", "inputs": {"t": "speed"},
         "curve": {"keys": [[0, 1], [2, 5], [4, 3]]}},
        {"id": "g", "op": "gradient", "params": {"t": 0.25},
         "gradient": {"interp": "step", "keys": [[0, [1, 0, 0, 1]], [0.5, [0, 1, 0, 0.5]]]}},
        {"id": "setk", "op": "particle_field_set", "inputs": {"value": "c"}, "names": {"field": "k"}},
        {"id": "setc", "op": "particle_field_set", "inputs": {"value": "g"}, "names": {"field": "color"}}
      ]}}]}]})");
  Particle p(fx.emitters[0]);
  const std::int32_t k = fieldOffset(fx.emitters[0], "k");
  p.run(Section::Init);
  const auto& c = fx.emitters[0].channels;
  for (const auto& [speed, expected] : {std::pair{0.0f, 1.0f}, std::pair{1.0f, 3.0f},
                                        std::pair{3.0f, 4.0f}, std::pair{9.0f, 3.0f}}) {
    p.words[static_cast<std::size_t>(c.velocity)] = speed;  // |(speed, 0, 0)|
    p.run(Section::Update);
    // Linear between the keys: 1 → 5 over speed 0..2, 5 → 3 over 2..4, held after the last.
    EXPECT_EQ(p.at(k), expected) << speed;
  }
  // Step: the key at 0 holds until 0.5.
  EXPECT_EQ(p.at(c.color, 0), 1.0f);
  EXPECT_EQ(p.at(c.color, 1), 0.0f);
  EXPECT_EQ(p.at(c.color, 3), 1.0f);

  const authoring::EffectLoadResult wide = authoring::parseEffect(R"({"format": "mote.effect/1",
      "emitters": [{"name": "a", "spawn": {"rate": 1}, "update": [{"type": "graph", "graph": {"nodes": [
        {"id": "p", "op": "particle_field_get", "names": {"field": "position"}},
        {"id": "c", "op": "curve", "inputs": {"t": "p"}, "curve": {"keys": [[0, 1]]}},
        {"id": "s", "op": "particle_field_set", "inputs": {"value": "c"}, "names": {"field": "alpha"}}]}}]}]})");
  ASSERT_TRUE(wide.ok()) << diagnosticsText(wide.diagnostics);
  EXPECT_EQ(diagnosticsText(compileEffect(wide.effect).diagnostics),
            "error: /emitters/0/update/0/graph/nodes/1/inputs/t: a 3-wide input where 1 lane is "
            "needed\n");
}

TEST(Compiler, AGraphsErrorDoesNotSpillIntoTheNextGraph) {
  const authoring::EffectLoadResult bad = authoring::parseEffect(R"({"format": "mote.effect/1",
      "emitters": [{"name": "a", "spawn": {"rate": 1},
        "init": {"graph": {"nodes": [{"id": "x", "op": "nosuch"}]}},
        "update": [{"type": "graph", "graph": {"nodes": [
          {"id": "n", "op": "constant", "params": {"value": 0.5}},
          {"id": "s", "op": "particle_field_set", "inputs": {"value": "n"}, "names": {"field": "alpha"}}]}}]}]})");
  ASSERT_TRUE(bad.ok());
  const CompileResult r = compileEffect(bad.effect);
  EXPECT_EQ(diagnosticsText(r.diagnostics),
            "error: /emitters/0/init/graph/nodes/0/op: unknown node type \"nosuch\" "
            "(docs/node-library.md lists them)\n");
}

TEST(Compiler, UnknownNodeTypesAreNamed) {
  const authoring::EffectLoadResult bad = authoring::parseEffect(R"({"format": "mote.effect/1",
      "emitters": [{"name": "a", "spawn": {"rate": 1}, "update": [{"type": "graph", "graph": {"nodes": [
        {"id": "x", "op": "sinn", "params": {"a": 1}}]}}]}]})");
  const CompileResult r = compileEffect(bad.effect);
  EXPECT_EQ(diagnosticsText(r.diagnostics),
            "error: /emitters/0/update/0/graph/nodes/0/op: unknown node type \"sinn\" "
            "(docs/node-library.md lists them)\n");
}

TEST(Compiler, ConstantsAreInternedByBitPatternAndFolded) {
  const CompiledEffect fx = compileText(R"({"format": "mote.effect/1", "emitters": [{"name": "a",
      "spawn": {"rate": 1}, "init": {"color": [0, -0, 0.5, 1]},
      "update": [{"type": "gravity", "acceleration": [0, -0, 1]}, {"type": "wind", "velocity": [0, 0, 1]}]}]})");
  const auto& constants = fx.emitters[0].program.constants;
  // Every pool entry is distinct bit for bit, and -0 stays -0.
  using Bits = std::array<std::uint32_t, 4>;
  for (std::size_t i = 0; i < constants.size(); ++i) {
    for (std::size_t j = i + 1; j < constants.size(); ++j)
      EXPECT_NE(std::bit_cast<Bits>(constants[i]), std::bit_cast<Bits>(constants[j]));
  }
  bool negativeZero = false;
  for (const auto& c : constants)
    for (const float v : c)
      negativeZero = negativeZero || (v == 0.0f && std::signbit(v));
  EXPECT_TRUE(negativeZero);
}

TEST(Compiler, InvalidEffectsAreErrorsNotCrashes) {
  authoring::EffectDesc effect;  // no emitters
  const CompileResult r = compileEffect(effect);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(diagnosticsText(r.diagnostics),
            "error: /emitters: an effect needs at least one emitter\n");
}

}  // namespace
}  // namespace mote::compiler
