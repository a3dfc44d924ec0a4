// SPDX-License-Identifier: MIT
#include "effect_commands.h"

#include <mote/authoring/effect_json.h>
#include <mote/core/file.h>

#include <fmt/core.h>

#include <cstdio>

namespace mote::cli {
namespace {

using authoring::EffectLoadResult;
using authoring::Severity;

// Prints the diagnostics; true when the file passes.
bool report(const EffectLoadResult& result, bool warningsAreErrors) {
  bool pass = result.ok();
  for (const authoring::Diagnostic& d : result.diagnostics) {
    fmt::print(stderr, "{}\n", authoring::formatDiagnostic(d));
    if (d.severity == Severity::Warning && warningsAreErrors) pass = false;
  }
  return pass;
}

}  // namespace

int runValidate(const std::vector<std::string>& files, bool warningsAreErrors) {
  bool allValid = true;
  for (const std::string& file : files) {
    const EffectLoadResult result = authoring::loadEffectFile(file);
    if (!report(result, warningsAreErrors)) {
      allValid = false;
      continue;
    }
    std::size_t particles = 0;
    for (const authoring::Emitter& e : result.effect.emitters)
      particles += e.maxParticles;
    const std::size_t emitters = result.effect.emitters.size();
    const std::size_t materials = result.effect.materials.size();
    fmt::print("{}: valid ({} emitter{}, {} material{}, up to {} particles)\n", file, emitters,
               emitters == 1 ? "" : "s", materials, materials == 1 ? "" : "s", particles);
  }
  return allValid ? 0 : 1;
}

int runSchema(bool reference) {
  fmt::print("{}", reference ? authoring::effectFieldReference() : authoring::effectJsonSchema());
  return 0;
}

int runFormat(const std::vector<std::string>& files, bool check) {
  bool allGood = true;
  for (const std::string& file : files) {
    const EffectLoadResult result = authoring::loadEffectFile(file);
    if (!report(result, false)) {
      allGood = false;
      continue;
    }
    const std::string canonical = authoring::saveEffect(result.effect);
    Result<std::vector<std::uint8_t>> bytes = readFile(file, authoring::kMaxEffectFileBytes);
    const bool same = bytes.ok() && std::string(bytes->begin(), bytes->end()) == canonical;
    if (same) continue;
    if (check) {
      fmt::print(stderr, "{}: not in canonical form (run mote format {})\n", file, file);
      allGood = false;
      continue;
    }
    const Status written = authoring::saveEffectFile(result.effect, file);
    if (!written.ok()) {
      fmt::print(stderr, "error: {}\n", written.message());
      allGood = false;
    } else {
      fmt::print("{}: formatted\n", file);
    }
  }
  return allGood ? 0 : 1;
}

}  // namespace mote::cli
