// SPDX-License-Identifier: MIT
// A particle program (INIT and UPDATE bytecode, constants, the layouts it addresses) and the
// verifier that turns untrusted bytecode into a VerifiedProgram — the only form anything runs.
//
// Thread safety: value types; a VerifiedProgram is immutable and may be shared across threads.
// Allocation: programs own vectors; verify() allocates its result and, on failure, the message.
#pragma once

#include <mote/bytecode/isa.h>
#include <mote/core/status.h>

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace mote::bytecode {

/// Limits the verifier enforces (a program beyond them is refused, not truncated).
inline constexpr std::uint32_t kMaxInstructionsPerSection = 1u << 16;
inline constexpr std::uint32_t kMaxConstants = 4096;
inline constexpr std::uint32_t kMaxParticleWords = 256;
inline constexpr std::uint32_t kMaxEmitterWords = 1024;
inline constexpr std::uint32_t kMaxGlobalImports = 64;
inline constexpr std::uint32_t kMaxRandomDraws = 1u << 16;

enum class Section : std::uint8_t { Init, Update };

/// One particle field in the program's layout: words [offset, offset + width) of a particle.
struct FieldSlot {
  std::string name;
  std::uint32_t offset = 0;
  std::uint32_t width = 1;
  bool operator==(const FieldSlot&) const = default;
};

/// A global field the program reads by name (meep: linked to an offset when placed).
struct GlobalImport {
  std::string name;
  std::uint32_t width = 1;
  bool operator==(const GlobalImport&) const = default;
};

/// A program's particle words are all a runtime keeps per particle; a newborn's words are zero
/// when INIT runs (the runtime's contract), so a field INIT does not write reads 0.
struct Program {
  std::vector<std::uint32_t> init;    ///< 4 words per instruction
  std::vector<std::uint32_t> update;  ///< 4 words per instruction
  std::vector<std::array<float, 4>> constants;
  std::vector<FieldSlot> particleFields;  ///< the particle layout (names for tools)
  std::uint32_t particleWords = 0;        ///< words per particle
  std::uint32_t emitterWords = 0;         ///< words of emitter fields
  std::vector<GlobalImport> globals;
  std::uint32_t registerCount = 0;  ///< slots the sections use, ≤ kMaxRegisters

  std::span<const std::uint32_t> section(Section s) const {
    return s == Section::Init ? init : update;
  }
  /// The instructions of opcode `op` in INIT and UPDATE together (for SPAWN: the most requests
  /// one particle makes in a step). O(instructions).
  std::uint32_t countOf(Opcode op) const {
    std::uint32_t n = 0;
    for (const std::span<const std::uint32_t> code :
         {section(Section::Init), section(Section::Update)})
      for (std::size_t i = 0; i < code.size(); i += 4)
        n += (code[i] & 0xffu) == static_cast<std::uint32_t>(op) ? 1u : 0u;
    return n;
  }
  /// SPAWN and SPAWNI instructions together: the most requests one particle makes in a step.
  /// O(instructions).
  std::uint32_t spawnOps() const {
    return countOf(Opcode::Spawn) + countOf(Opcode::SpawnInherit) + countOf(Opcode::Trail);
  }
  /// Whether `s` loads builtin `b` (LOAD_BUILTIN). O(instructions).
  bool loadsBuiltin(Section s, Builtin b) const {
    const std::span<const std::uint32_t> code = section(s);
    for (std::size_t i = 0; i < code.size(); i += 4)
      if ((code[i] & 0xffu) == static_cast<std::uint32_t>(Opcode::LoadBuiltin) &&
          code[i + 1] == static_cast<std::uint32_t>(b))
        return true;
    return false;
  }
  bool operator==(const Program&) const = default;
};

/// A program the verifier accepted. Construct only through verify(); moving is cheap.
class VerifiedProgram {
 public:
  const Program& program() const noexcept { return program_; }

 private:
  friend Result<VerifiedProgram> verify(Program program);
  explicit VerifiedProgram(Program program) : program_(std::move(program)) {}
  Program program_;
};

/// Checks everything that makes bytecode safe to run, or returns InvalidArgument naming the first
/// violation ("update[3] add: s1: register 7 is read before it is written"):
///   - names of particle fields and global imports: letters, digits, '_' and '.' (1..128);
///   - sizes: sections whole instructions and within kMaxInstructionsPerSection; constants,
///     layout words, globals and registerCount within their limits; particle fields inside the
///     particle words;
///   - every instruction: a known opcode, reserved bits zero, a width its rule allows, dst 0 for
///     NoDst opcodes and inside the register file otherwise, each source of the kind its rule
///     wants (Unused sources None and 0; Reg words with reserved bits zero and every lane's slot
///     inside the file), every index in range (constants, particle and emitter words, builtins
///     with matching width, global imports with matching width, random draws, spawn targets
///     below kMaxSpawnTargets); nop, kill and spawn 1 wide;
///   - data flow: no register lane is read before an earlier instruction of the same section
///     wrote it (sections start with an undefined register file).
/// O(instructions). Allocates: the result, or the error message.
[[nodiscard]] Result<VerifiedProgram> verify(Program program);

}  // namespace mote::bytecode
