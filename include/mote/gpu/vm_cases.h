// SPDX-License-Identifier: MIT
// The GPU's particle VM over independent cases: one section of one verified program, each case on
// its own particle record with its own builtins, random stream, emitter words and globals — the
// reference executor's inputs (bytecode/reference.h), so the two can be compared bit for bit. For
// the opcode parity tests and for tools that check a device; the simulation runs the same
// interpreter over its pool (docs/gpu.md).
//
// Thread safety: as Context (one thread at a time per Context). Allocation: per call (buffers and
// pipelines are created for it); not for a frame loop.
#pragma once

#include <mote/bytecode/program.h>
#include <mote/bytecode/reference.h>
#include <mote/core/status.h>
#include <mote/gpu/context.h>

#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace mote::gpu {

/// The register file the GPU VM keeps in private memory; a program with more registers runs with
/// the wide file (a storage buffer) instead.
inline constexpr std::uint32_t kFastRegisterSlots = 64;
/// SPAWN requests kept per case (more are counted in VmCaseResult::spawnCount).
inline constexpr std::uint32_t kMaxCaseSpawns = 8;

struct VmCase {
  std::vector<float> particle;  ///< the record, program.particleWords long
  std::array<std::array<float, 4>, bytecode::kBuiltinCount> builtins{};
  std::vector<float> emitterWords;            ///< >= program.emitterWords
  std::vector<std::array<float, 4>> globals;  ///< one per import
  std::uint64_t seed = 0;
  std::uint64_t randomCounter = 0;
  std::uint64_t tick = 0;
};

struct VmSpawn {
  std::uint32_t target = 0;
  std::uint32_t count = 0;
  std::array<float, 3> position{};
  bytecode::Inheritance inherit;
};

struct VmReport {
  std::uint32_t kind = 0;  ///< bytecode::ReportKind
  std::uint32_t tag = 0;
  std::array<float, 3> position{};
  std::array<float, 3> velocity{};
};

struct VmCaseResult {
  std::vector<float> particle;
  bool killed = false;
  std::uint32_t spawnCount = 0;  ///< SPAWN requests made (the first kMaxCaseSpawns are kept)
  std::vector<VmSpawn> spawns;
  std::uint32_t reportCount = 0;  ///< REPORTs made (the first kMaxCaseSpawns are kept)
  std::vector<VmReport> reports;
};

enum class RegisterFile : std::uint8_t {
  Auto,  ///< private when the program fits kFastRegisterSlots, else wide
  Wide,  ///< the storage-buffer file whatever the program needs
};

/// The wind the cases see (SAMPLE_WIND): (x · 0.5, y − 1, 2) at position (x, y, z), in float
/// arithmetic. A pure function, so the reference executor can be given the same one.
std::array<float, 3> caseWind(const std::array<float, 3>& position, void* user);

/// Runs `section` of `program` on every case, in the context's mode (exact or fast). Returns one
/// result per case, or the device's error (OutOfMemory, DeviceLost, ...). InvalidArgument when a
/// case's particle, emitter or global data is shorter than the program addresses.
Result<std::vector<VmCaseResult>> runCases(Context& context,
                                           const bytecode::VerifiedProgram& program,
                                           bytecode::Section section, std::span<const VmCase> cases,
                                           RegisterFile file = RegisterFile::Auto);

}  // namespace mote::gpu
