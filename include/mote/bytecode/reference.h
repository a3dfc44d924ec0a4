// SPDX-License-Identifier: MIT
// The reference executor: a plain scalar interpreter of the ISA, one particle at a time. It is the
// oracle the runtime's SIMD VM and the GPU backend are tested against, so it favours the obvious
// formula over speed. sin, cos, exp, log, pow and the cbrt inside randball are Mote's own
// (semantics.h: the same bits everywhere, within 1 ULP of the true value); everything else is
// exact IEEE single precision with no contraction. It takes nothing from the C library but the
// correctly rounded IEEE operations (sqrt, floor, fabs, fma).
//
// Thread safety: runReference is reentrant; distinct particles may run on distinct threads.
// Allocation: never.
#pragma once

#include <mote/bytecode/collision.h>
#include <mote/bytecode/program.h>

#include <array>
#include <cstdint>
#include <span>

namespace mote::bytecode {

/// The host's wind at a world position (m/s). Null: still air.
using WindFn = std::array<float, 3> (*)(const std::array<float, 3>& position, void* user);

/// What a SPAWNI or TRAIL request passes to the particles it asks for: their source_velocity,
/// source_size and source_color builtins in INIT. A SPAWN request passes the neutral values below
/// (what every particle not born from a SPAWNI or TRAIL request reads).
struct Inheritance {
  std::array<float, 3> velocity{0.0f, 0.0f, 0.0f};
  float size = 1.0f;
  std::array<float, 4> color{1.0f, 1.0f, 1.0f, 1.0f};
  /// TRAIL's: the newborns are spread along the path from `from` to the request's position (where
  /// the asking particle was at the start and at the end of its step), and keep its id. The
  /// velocity a TRAIL passes is the runtime's to make (the path over the step's dt, scaled by the
  /// target's inherit_velocity): the executors leave it neutral.
  std::array<float, 3> from{0.0f, 0.0f, 0.0f};
  bool trail = false;
  bool operator==(const Inheritance&) const = default;
};

/// What TRAIL passes for its operands b = (from, size) and c = colour.
inline Inheritance trailInheritance(const std::array<float, 4>& fromSize,
                                    const std::array<float, 4>& color) noexcept {
  Inheritance out;
  out.size = fromSize[3];
  out.color = color;
  out.from = {fromSize[0], fromSize[1], fromSize[2]};
  out.trail = true;
  return out;
}

/// A SPAWN, SPAWNI or TRAIL request: `count` particles into emitter `target` of the effect, born
/// at `position` with `inherit`, asked for by the particle whose id is `source` (its random
/// counter).
using SpawnFn = void (*)(std::uint32_t target, std::uint32_t count,
                         const std::array<float, 3>& position, const Inheritance& inherit,
                         std::uint32_t source, void* user);

/// A REPORT: the particle whose id is `source` tells the host that an event of `kind` (tag `tag`)
/// happened to it, at `position`, moving at `velocity` (the section's frame: world, or the
/// emitter's for local spaces).
using ReportFn = void (*)(ReportKind kind, std::uint32_t tag, const std::array<float, 3>& position,
                          const std::array<float, 3>& velocity, std::uint32_t source, void* user);

struct ReferenceContext {
  /// LOAD_BUILTIN values, indexed by Builtin (lanes past a builtin's width are ignored).
  std::array<std::array<float, 4>, kBuiltinCount> builtins{};
  std::span<const float> emitterWords;            ///< LOAD_EMITTER; ≥ program.emitterWords
  std::span<const std::array<float, 4>> globals;  ///< LOAD_GLOBAL, one per import
  std::uint64_t seed = 0;                         ///< the emitter's random seed
  std::uint64_t randomCounter = 0;  ///< the particle's id: its position in every random stream
  std::uint64_t tick = 0;           ///< the simulation tick (UPDATE draws differ every tick)
  WindFn wind = nullptr;
  void* windUser = nullptr;
  SpawnFn spawn = nullptr;  ///< null: SPAWN and SPAWNI requests are dropped
  void* spawnUser = nullptr;
  ReportFn report = nullptr;  ///< null: REPORTs are dropped
  void* reportUser = nullptr;
  const CollisionProvider* collision = nullptr;  ///< COLLIDE's world; null: nothing is hit
};

/// The Philox stream of random draw `index` (< kMaxRandomDraws = 2^16) of `section` at `tick`:
/// index | section << 16 | tick << 17, so INIT and UPDATE and every tick draw independently.
/// A draw is counterRandom4(seed, randomStream(...), randomCounter); lane i uses word i.
constexpr std::uint64_t randomStream(Section section, std::uint64_t tick, std::uint32_t index) {
  return std::uint64_t{index} | std::uint64_t{section == Section::Update ? 1u : 0u} << 16 |
         tick << 17;
}

/// Runs `section` of `program` on one particle's words (≥ program.particleWords). Returns true when
/// the particle was killed (a KILL with a non-zero operand ran). Requires the spans the program
/// addresses to be large enough (asserted). O(instructions). Allocates: never.
bool runReference(const VerifiedProgram& program, Section section, std::span<float> particle,
                  const ReferenceContext& context);

/// The curl-noise vector at `p` (the CURL_NOISE opcode at frequency 1; NaN for a non-finite p): the
/// curl of the vector potential (n(p), n(p + (31.4, 0, 0)), n(p + (0, 27.1, 0))) where n is 3D
/// gradient noise (Perlin's improved noise with a quintic fade over a hashed gradient lattice), by
/// central differences with step 1/128. Divergence-free up to the differencing error.
std::array<float, 3> curlNoise(const std::array<float, 3>& p);

}  // namespace mote::bytecode
