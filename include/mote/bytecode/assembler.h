// SPDX-License-Identifier: MIT
// The text form of a Program. disassemble() then assemble() gives back identical words for ANY
// program (verified or not: what does not decode cleanly is written as a raw `.word` line).
//
//   ; comment                         (to the end of the line; also after an instruction)
//   .registers 12                     registerCount
//   .particle 8                       particleWords
//   .field position 0 3               a particle field: name, offset, width (in layout order)
//   .emitter 4                        emitterWords
//   .global gust 1                    a global import: name, width (in import order)
//   .const 1 0.5 0 -0                 the next constant-pool entry: four floats
//   .init / .update                   the section the following instructions go to
//   add.3 r4, r0, 1.5                 op.width dst, sources…  (no dst for stf, kill, nop)
//   stf.3 #0, r4.zyxw                 #n: an index operand; r<n>[.swizzle]: a register;
//                                     a number: an immediate (bits:0x7fc00000 for any bit pattern)
//   .word 0x1 0x0 0x0 0x0             one instruction as four raw words
//
// A swizzle names 1–4 lanes with x, y, z, w; lanes it leaves out read their own slot (r4.zy is
// r4.zyzw). Floats are written in their shortest round-trip form.
//
// Thread safety: reentrant. Allocation: the returned text or program.
#pragma once

#include <mote/bytecode/program.h>
#include <mote/core/status.h>

#include <string>
#include <string_view>

namespace mote::bytecode {

/// The text of `program` (any words, verified or not).
[[nodiscard]] std::string disassemble(const Program& program);

/// The program `text` describes, or ParseError "line:column: message" at the first mistake.
/// The result is not verified (verify() it before running).
[[nodiscard]] Result<Program> assemble(std::string_view text);

}  // namespace mote::bytecode
