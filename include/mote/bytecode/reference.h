// SPDX-License-Identifier: MIT
// The reference executor: a plain scalar interpreter of the ISA, one particle at a time. It is the
// oracle the runtime's SIMD VM and the GPU backend are tested against, so it favours the obvious
// formula over speed. Transcendentals (sin, cos, exp, log, pow) are the C library's (glibc: within
// 1 ULP of the true value); everything else is exact IEEE single precision with no contraction.
//
// Thread safety: runReference is reentrant; distinct particles may run on distinct threads.
// Allocation: never.
#pragma once

#include <mote/bytecode/program.h>

#include <array>
#include <cstdint>
#include <span>

namespace mote::bytecode {

/// The host's wind at a world position (m/s). Null: still air.
using WindFn = std::array<float, 3> (*)(const std::array<float, 3>& position, void* user);

struct ReferenceContext {
  /// LOAD_BUILTIN values, indexed by Builtin (lanes past a builtin's width are ignored).
  std::array<std::array<float, 4>, kBuiltinCount> builtins{};
  std::span<const float> emitterWords;            ///< LOAD_EMITTER; ≥ program.emitterWords
  std::span<const std::array<float, 4>> globals;  ///< LOAD_GLOBAL, one per import
  std::uint64_t seed = 0;                         ///< the emitter's random seed
  std::uint64_t randomCounter = 0;  ///< the particle's position in its random stream (its id)
  WindFn wind = nullptr;
  void* windUser = nullptr;
};

/// Runs `section` of `program` on one particle's words (≥ program.particleWords). Returns true when
/// the particle was killed (a KILL with a non-zero operand ran). Requires the spans the program
/// addresses to be large enough (asserted). O(instructions). Allocates: never.
bool runReference(const VerifiedProgram& program, Section section, std::span<float> particle,
                  const ReferenceContext& context);

/// The curl-noise vector at `p` (the CURL_NOISE opcode at frequency 1): the curl of the vector
/// potential (n(p), n(p + (31.4, 0, 0)), n(p + (0, 27.1, 0))) where n is 3D gradient noise
/// (Perlin's improved noise with a quintic fade over a hashed gradient lattice), by central
/// differences with step 1/128. Divergence-free up to the differencing error.
std::array<float, 3> curlNoise(const std::array<float, 3>& p);

}  // namespace mote::bytecode
