// SPDX-License-Identifier: MIT
// Compiles an effect written inline as JSON (tests of the runtime and renderer); every diagnostic
// is a test failure.
#pragma once

#include <mote/authoring/effect_json.h>
#include <mote/compiler/compiler.h>

#include <gtest/gtest.h>

#include <string>

namespace mote::test {

inline bytecode::CompiledEffect compileJson(const std::string& json) {
  const authoring::EffectLoadResult loaded = authoring::parseEffect(json, "test.json");
  for (const authoring::Diagnostic& d : loaded.diagnostics)
    ADD_FAILURE() << authoring::formatDiagnostic(d);
  compiler::CompileResult compiled = compiler::compileEffect(loaded.effect);
  for (const authoring::Diagnostic& d : compiled.diagnostics)
    ADD_FAILURE() << authoring::formatDiagnostic(d);
  return std::move(compiled.effect);
}

}  // namespace mote::test
