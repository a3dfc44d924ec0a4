// SPDX-License-Identifier: MIT
// `mote bench`'s runtime cases: the VM against the native standard kernel, the sprite effect, the
// spawn cost and one thread against two (docs/performance.md).
#pragma once

#include <mote/bytecode/compiled_effect.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mote::cli {

struct RuntimeBenchResult {
  std::string name;  ///< standard/…, sprite/…, spawn/…, threads/…
  std::uint64_t particles = 0;
  double nsPerParticle = 0.0;
  double baselineNsPerParticle = 0.0;  ///< 0: no baseline (a plain measurement)
};

/// A benchmark's effect JSON compiled; nullopt when it does not parse or compile.
std::optional<bytecode::CompiledEffect> compileBenchEffect(std::string_view json);

/// Runs every runtime case: each repetition lasts at least `minSeconds`; the median of
/// `repetitions` is reported. Empty (with a message on stderr) when a case cannot be set up.
std::vector<RuntimeBenchResult> runRuntimeBenches(double minSeconds, int repetitions);

}  // namespace mote::cli
