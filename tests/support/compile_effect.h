// SPDX-License-Identifier: MIT
// Compiles an effect written inline as JSON (tests of the runtime and renderer); every error is a
// test failure (warnings, e.g. a beam without beam_continuous emission, are allowed); and effect
// files likewise.
#pragma once

#include <mote/authoring/effect_json.h>
#include <mote/compiler/compiler.h>

#include <gtest/gtest.h>

#include <string>

namespace mote::test {

inline bytecode::CompiledEffect compileJson(const std::string& json) {
  const authoring::EffectLoadResult loaded = authoring::parseEffect(json, "test.json");
  for (const authoring::Diagnostic& d : loaded.diagnostics)
    if (d.severity == authoring::Severity::Error) ADD_FAILURE() << authoring::formatDiagnostic(d);
  compiler::CompileResult compiled = compiler::compileEffect(loaded.effect);
  for (const authoring::Diagnostic& d : compiled.diagnostics)
    if (d.severity == authoring::Severity::Error) ADD_FAILURE() << authoring::formatDiagnostic(d);
  return std::move(compiled.effect);
}

/// An effect file (an example) loaded and compiled; a load or compile error is a test failure.
inline bytecode::CompiledEffect compileFile(const std::string& path) {
  const authoring::EffectLoadResult loaded = authoring::loadEffectFile(path);
  EXPECT_TRUE(loaded.ok()) << path;
  compiler::CompileResult compiled = compiler::compileEffect(loaded.effect);
  EXPECT_TRUE(compiled.ok()) << path;
  return std::move(compiled.effect);
}

}  // namespace mote::test
