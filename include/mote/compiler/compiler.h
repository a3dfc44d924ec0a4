// SPDX-License-Identifier: MIT
// The effect compiler: EffectDesc → CompiledEffect. Every module of every emitter lowers, through
// one SSA builder, into that emitter's INIT and UPDATE programs (node graphs lower through the
// same builder), which are then constant-folded, stripped of dead code, register-allocated
// (linear scan over live ranges), given an interned constant pool, narrowed to the particle fields
// they touch and verified. docs/compiler.md has the lowering of each module.
//
// Thread safety: reentrant. Allocation: everything (authoring-time code).
#pragma once

#include <mote/authoring/diagnostic.h>
#include <mote/authoring/effect.h>
#include <mote/bytecode/compiled_effect.h>

#include <string>
#include <vector>

namespace mote::compiler {

struct CompileResult {
  bytecode::CompiledEffect effect;                 ///< meaningful only when ok()
  std::vector<authoring::Diagnostic> diagnostics;  ///< pointers name the EffectDesc value
  [[nodiscard]] bool ok() const { return !authoring::hasErrors(diagnostics); }
};

/// Compiles a valid effect (run authoring::validateEffect first; an invalid one gives errors, not
/// undefined behaviour). Deterministic: the same effect gives the same bytes every time, and every
/// constant the compiler computes — folded sin, cos, exp, log and pow, the shell spawn shapes'
/// powers, the emitter quaternion's sine and cosine — comes from bytecode::semantics, the same
/// bits on every platform. (Builds with other compilers or standard libraries may still order
/// constants differently; each output verifies and behaves the same.)
[[nodiscard]] CompileResult compileEffect(const authoring::EffectDesc& effect);

/// The node reference of docs/node-library.md (the part between its GENERATED NODE REFERENCE
/// markers), printed as Markdown from the compiler's node table: every node type a graph may use
/// with its aliases, ports and output width, the particle fields and the aliases. The same text
/// every time.
[[nodiscard]] std::string nodeLibraryReference();

}  // namespace mote::compiler
