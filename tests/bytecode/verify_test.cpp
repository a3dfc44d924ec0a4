// SPDX-License-Identifier: MIT
// The verifier: a catalogue of crafted malformed programs, each refused with its exact message,
// the limits accepted up to and including their values, and well-formed programs accepted
// unchanged.
#include "support/bytecode_builder.h"

#include <mote/bytecode/program.h>

#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

namespace mote::bytecode {
namespace {

using test::idx;
using test::imm;
using test::op;
using test::Operand;
using test::raw;
using test::reg;

std::vector<std::uint32_t> words(std::initializer_list<Instruction> code) {
  std::vector<std::uint32_t> out;
  for (const Instruction& in : code) {
    const std::array<std::uint32_t, 4> w = encode(in);
    out.insert(out.end(), w.begin(), w.end());
  }
  return out;
}

// ldc.w r<dst>, #0 (constant 0 is (1, 2, 3, 4))
Instruction ldc(std::uint32_t width, std::uint32_t dst) {
  return op(Opcode::LoadConst, width, dst, {idx(0)});
}

// 8 registers, 2 constants, an 8-word particle (position, velocity, age), 4 emitter words and
// two globals (gust: 1 wide, tint: 4 wide).
Program layout() {
  Program p;
  p.registerCount = 8;
  p.constants = {{1.0f, 2.0f, 3.0f, 4.0f}, {0.5f, 0.5f, 0.5f, 0.5f}};
  p.particleWords = 8;
  p.particleFields = {{"position", 0, 3}, {"velocity", 3, 3}, {"age", 6, 1}};
  p.emitterWords = 4;
  p.globals = {{"gust", 1}, {"tint", 4}};
  return p;
}

Program withUpdate(std::initializer_list<Instruction> code) {
  Program p = layout();
  p.update = words(code);
  return p;
}

// The verifier's message for `program`, or "(accepted)". Every refusal is InvalidArgument.
std::string rejection(Program program) {
  const Result<VerifiedProgram> r = verify(std::move(program));
  if (r.ok()) return "(accepted)";
  EXPECT_EQ(r.status().code(), StatusCode::InvalidArgument) << r.status().message();
  return r.status().message();
}

// --- program limits and layout

TEST(VerifyRejects, RegisterFileAbove256) {
  Program p = layout();
  p.registerCount = 257;
  EXPECT_EQ(rejection(p), "register count 257 is more than 256");
}

TEST(VerifyRejects, MoreThan4096Constants) {
  Program p = layout();
  p.constants.resize(kMaxConstants + 1);
  EXPECT_EQ(rejection(p), "4097 constants; at most 4096");
}

TEST(VerifyRejects, ParticleLayoutAbove256Words) {
  Program p = layout();
  p.particleWords = 257;
  EXPECT_EQ(rejection(p), "particle layout of 257 words; at most 256");
}

TEST(VerifyRejects, EmitterFieldsAbove1024Words) {
  Program p = layout();
  p.emitterWords = 1025;
  EXPECT_EQ(rejection(p), "emitter fields of 1025 words; at most 1024");
}

TEST(VerifyRejects, MoreThan64GlobalImports) {
  Program p = layout();
  p.globals.assign(kMaxGlobalImports + 1, GlobalImport{"g", 1});
  EXPECT_EQ(rejection(p), "65 global imports; at most 64");
}

TEST(VerifyRejects, GlobalImportOfWidthZero) {
  Program p = layout();
  p.globals[1].width = 0;
  EXPECT_EQ(rejection(p), "global import 1 (tint) has width 0; widths are 1..4");
}

TEST(VerifyRejects, GlobalImportOfWidthFive) {
  Program p = layout();
  p.globals[0].width = 5;
  EXPECT_EQ(rejection(p), "global import 0 (gust) has width 5; widths are 1..4");
}

TEST(VerifyRejects, ParticleFieldPastTheLayout) {
  Program p = layout();
  p.particleFields.push_back({"color", 6, 4});
  EXPECT_EQ(rejection(p), "particle field 3 (color) at words [6, 10) is outside the 8-word layout");
}

TEST(VerifyRejects, ParticleFieldOfWidthZero) {
  Program p = layout();
  p.particleFields[2].width = 0;
  EXPECT_EQ(rejection(p), "particle field 2 (age) is 0 wide; widths are 1..4");
}

TEST(VerifyRejects, ParticleFieldOfWidthFive) {
  Program p = layout();
  p.particleFields[0].width = 5;
  EXPECT_EQ(rejection(p), "particle field 0 (position) is 5 wide; widths are 1..4");
}

TEST(VerifyRejects, ParticleFieldWhoseEndOverflows32Bits) {
  Program p = layout();
  p.particleFields[1].offset = 0xFFFFFFFFu;
  EXPECT_EQ(rejection(p),
            "particle field 1 (velocity) at words [4294967295, 4294967298) is outside the 8-word "
            "layout");
}

TEST(VerifyRejects, SectionThatIsNotWholeInstructions) {
  Program p = layout();
  p.update = {0, 0, 0, 0, 0};
  EXPECT_EQ(rejection(p), "update: 5 words is not a whole number of 4-word instructions");
  p = layout();
  p.init = {0, 0, 0};
  EXPECT_EQ(rejection(p), "init: 3 words is not a whole number of 4-word instructions");
}

TEST(VerifyRejects, SectionOfMoreThan65536Instructions) {
  Program p = layout();
  p.update.assign(std::size_t{kMaxInstructionsPerSection + 1} * kWordsPerInstruction, 0u);  // nops
  EXPECT_EQ(rejection(p), "update: 65537 instructions; at most 65536");
}

// --- instruction words

TEST(VerifyRejects, UnknownOpcode) {
  Program p = layout();
  p.update = {200, 0, 0, 0};
  EXPECT_EQ(rejection(p), "update[0]: unknown opcode 200");
  p.update = {kOpcodeCount, 0, 0, 0};  // the first code past the table
  EXPECT_EQ(rejection(p), "update[0]: unknown opcode 59");
}

TEST(VerifyRejects, ReservedWord0Bits) {
  for (const std::uint32_t bit : {10u, 15u, 22u, 23u}) {
    Program p = layout();
    p.update = words({op(Opcode::Nop, 1, 0)});
    p.update[0] |= 1u << bit;
    EXPECT_EQ(rejection(p), "update[0] nop: reserved bits of word 0 are set") << bit;
  }
}

TEST(VerifyRejects, WidthAFixed3OpcodeDoesNotHave) {
  EXPECT_EQ(rejection(withUpdate({ldc(4, 0), op(Opcode::Cross, 2, 4, {reg(0), reg(0)})})),
            "update[1] cross: width 2; this opcode is 3 wide");
  EXPECT_EQ(rejection(withUpdate({op(Opcode::RandUnitVector, 1, 0, {idx(0)})})),
            "update[0] randdir: width 1; this opcode is 3 wide");
}

TEST(VerifyRejects, WidthAFixed4OpcodeDoesNotHave) {
  EXPECT_EQ(rejection(withUpdate({ldc(4, 0), op(Opcode::QuatMul, 3, 4, {reg(0), reg(0)})})),
            "update[1] qmul: width 3; this opcode is 4 wide");
}

TEST(VerifyRejects, DstOnOpcodesThatWriteNoRegister) {
  EXPECT_EQ(rejection(withUpdate({op(Opcode::StoreField, 1, 5, {idx(0), imm(1.0f)})})),
            "update[0] stf: dst must be 0 (this opcode writes no register)");
  EXPECT_EQ(rejection(withUpdate({op(Opcode::Kill, 1, 1, {imm(1.0f)})})),
            "update[0] kill: dst must be 0 (this opcode writes no register)");
  EXPECT_EQ(rejection(withUpdate({op(Opcode::Nop, 1, 255)})),
            "update[0] nop: dst must be 0 (this opcode writes no register)");
}

TEST(VerifyRejects, DstOutsideTheRegisterFile) {
  EXPECT_EQ(rejection(withUpdate({op(Opcode::Mov, 4, 6, {imm(1.0f)})})),
            "update[0] mov: dst registers 6..9 are outside the 8-register file");
  // Reduce and Fixed rules size the dst themselves.
  EXPECT_EQ(rejection(withUpdate({op(Opcode::Dot, 4, 8, {imm(1.0f), imm(2.0f)})})),
            "update[0] dot: dst register 8 is outside the 8-register file");
  EXPECT_EQ(rejection(withUpdate({op(Opcode::QuatFromAxisAngle, 4, 5, {imm(1.0f), imm(2.0f)})})),
            "update[0] qaxis: dst registers 5..8 are outside the 8-register file");
}

// --- data flow

TEST(VerifyRejects, ReadOfARegisterNeverWritten) {
  EXPECT_EQ(rejection(withUpdate({op(Opcode::Add, 1, 0, {reg(1), imm(1.0f)})})),
            "update[0] add: s0: register 1 is read before it is written");
}

TEST(VerifyRejects, ReadOfItsOwnDstBeforeItIsWritten) {
  EXPECT_EQ(rejection(withUpdate({op(Opcode::Add, 1, 0, {imm(1.0f), reg(0)})})),
            "update[0] add: s1: register 0 is read before it is written");
}

TEST(VerifyRejects, UpdateReadingWhatOnlyInitWrote) {
  Program p = layout();
  p.init = words({ldc(4, 0)});
  p.update = words({op(Opcode::Mov, 1, 4, {reg(0)})});
  EXPECT_EQ(rejection(p), "update[0] mov: s0: register 0 is read before it is written");
}

TEST(VerifyRejects, ReadWiderThanWhatWasWritten) {
  EXPECT_EQ(rejection(withUpdate({ldc(2, 0), op(Opcode::Mov, 3, 4, {reg(0)})})),
            "update[1] mov: s0: register 2 is read before it is written");
}

TEST(VerifyRejects, SwizzledLaneNeverWritten) {
  // r0.xz reads r0 and r2; only r0..r1 were written
  EXPECT_EQ(rejection(withUpdate({ldc(2, 0), op(Opcode::Mov, 2, 4, {reg(0, {0, 2, 2, 3})})})),
            "update[1] mov: s0: register 2 is read before it is written");
}

TEST(VerifyRejects, QuatSourceReadsFourLanes) {
  // qrot.3 reads its quaternion as 4 lanes even though the instruction is 3 wide
  EXPECT_EQ(
      rejection(withUpdate({ldc(3, 0), ldc(3, 4), op(Opcode::QuatRotate, 3, 0, {reg(0), reg(4)})})),
      "update[2] qrot: s0: register 3 is read before it is written");
}

TEST(VerifyRejects, Vec3SourceReadsThreeLanes) {
  EXPECT_EQ(
      rejection(withUpdate({ldc(2, 0), op(Opcode::QuatFromAxisAngle, 4, 4, {reg(0), imm(1.0f)})})),
      "update[1] qaxis: s0: register 2 is read before it is written");
}

// --- operand kinds and words

TEST(VerifyRejects, UnusedSourceOfKindReg) {
  EXPECT_EQ(rejection(withUpdate({ldc(1, 0), op(Opcode::Mov, 1, 4, {imm(1.0f), reg(0)})})),
            "update[1] mov: s1: unused source must be kind none and 0");
}

TEST(VerifyRejects, UnusedSourceWithANonZeroWord) {
  EXPECT_EQ(rejection(withUpdate({op(Opcode::Mov, 1, 4, {imm(1.0f), idx(0), idx(5)})})),
            "update[0] mov: s2: unused source must be kind none and 0");
  EXPECT_EQ(rejection(withUpdate({op(Opcode::Nop, 1, 0, {imm(0.0f)})})),
            "update[0] nop: s0: unused source must be kind none and 0");
}

TEST(VerifyRejects, IndexOperandOfKindReg) {
  EXPECT_EQ(rejection(withUpdate({op(Opcode::LoadConst, 1, 0, {raw(OperandKind::Reg, 0)})})),
            "update[0] ldc: s0: an index operand must be kind none (got reg)");
}

TEST(VerifyRejects, IndexOperandOfKindImm) {
  EXPECT_EQ(rejection(withUpdate({op(Opcode::LoadField, 1, 0, {raw(OperandKind::Imm, 0)})})),
            "update[0] ldf: s0: an index operand must be kind none (got imm)");
}

TEST(VerifyRejects, ValueOperandOfKindNone) {
  EXPECT_EQ(rejection(withUpdate({op(Opcode::Mov, 1, 0, {idx(0)})})),
            "update[0] mov: s0: a value operand must be kind reg or imm");
  EXPECT_EQ(rejection(withUpdate({op(Opcode::Add, 1, 0, {imm(1.0f), idx(3)})})),
            "update[0] add: s1: a value operand must be kind reg or imm");
}

TEST(VerifyRejects, OperandKindThree) {
  Program p = withUpdate({op(Opcode::Mov, 1, 0, {imm(1.0f)})});
  p.update[0] |= 3u << 16;  // s0: kind 3
  EXPECT_EQ(rejection(p), "update[0] mov: s0: operand kind 3 does not exist");
  p = withUpdate({op(Opcode::Mov, 1, 0, {imm(1.0f)})});
  p.update[0] |= 3u << 20;  // s2 (unused): kind 3
  EXPECT_EQ(rejection(p), "update[0] mov: s2: operand kind 3 does not exist");
}

TEST(VerifyRejects, RegisterWordWithReservedBits) {
  EXPECT_EQ(
      rejection(withUpdate({ldc(4, 0), op(Opcode::Mov, 1, 4, {raw(OperandKind::Reg, 0x10000u)})})),
      "update[1] mov: s0: reserved bits of a register word are set");
  EXPECT_EQ(rejection(withUpdate(
                {ldc(4, 0), op(Opcode::Mov, 1, 4, {raw(OperandKind::Reg, 0x80000000u)})})),
            "update[1] mov: s0: reserved bits of a register word are set");
}

TEST(VerifyRejects, SwizzledLaneOutsideTheRegisterFile) {
  // r6 with the identity swizzle at width 4 reads r6..r9
  EXPECT_EQ(rejection(withUpdate({ldc(2, 6), op(Opcode::Mov, 4, 0, {reg(6)})})),
            "update[1] mov: s0: register 8 is outside the 8-register file");
  // r7.y reads r8 even at width 1
  EXPECT_EQ(rejection(withUpdate({ldc(1, 7), op(Opcode::Mov, 1, 0, {reg(7, {1, 0, 0, 0})})})),
            "update[1] mov: s0: register 8 is outside the 8-register file");
}

// --- index operands

TEST(VerifyRejects, ConstantPastThePool) {
  EXPECT_EQ(rejection(withUpdate({op(Opcode::LoadConst, 1, 0, {idx(2)})})),
            "update[0] ldc: constant 2 is outside the pool of 2");
}

TEST(VerifyRejects, LoadFieldPastTheParticle) {
  EXPECT_EQ(rejection(withUpdate({op(Opcode::LoadField, 3, 0, {idx(6)})})),
            "update[0] ldf: particle words [6, 9) are outside the 8-word layout");
}

TEST(VerifyRejects, StoreFieldPastTheParticle) {
  EXPECT_EQ(rejection(withUpdate({op(Opcode::StoreField, 2, 0, {idx(7), imm(1.0f)})})),
            "update[0] stf: particle words [7, 9) are outside the 8-word layout");
  // The end is computed without 32-bit wrap-around.
  EXPECT_EQ(rejection(withUpdate({op(Opcode::StoreField, 4, 0, {idx(0xFFFFFFFFu), imm(1.0f)})})),
            "update[0] stf: particle words [4294967295, 4294967299) are outside the 8-word layout");
}

TEST(VerifyRejects, LoadEmitterPastTheEmitterWords) {
  EXPECT_EQ(rejection(withUpdate({op(Opcode::LoadEmitter, 2, 0, {idx(3)})})),
            "update[0] lde: emitter words [3, 5) are outside the 4 emitter words");
}

TEST(VerifyRejects, AReportOfAnUnknownKind) {
  EXPECT_EQ(rejection(withUpdate({op(Opcode::Report, 1, 4, {imm(1.0f), imm(0.0f)})})),
            "update[0] report: event kind 4 does not exist (0 birth, 1 death, 2 collision, 3 "
            "custom)");
  EXPECT_EQ(rejection(withUpdate({op(Opcode::Report, 2, 3, {imm(1.0f), imm(0.0f)})})),
            "update[0] report: width 2; this opcode is 1 wide");
}

TEST(VerifyRejects, UnknownBuiltin) {
  EXPECT_EQ(rejection(withUpdate({op(Opcode::LoadBuiltin, 1, 0, {idx(kBuiltinCount)})})),
            "update[0] ldb: unknown builtin 14");
}

TEST(VerifyRejects, BuiltinOfAnotherWidth) {
  EXPECT_EQ(rejection(withUpdate({op(Opcode::LoadBuiltin, 1, 0, {idx(3)})})),
            "update[0] ldb: builtin emitter_position is 3 wide, not 1");
  EXPECT_EQ(rejection(withUpdate({op(Opcode::LoadBuiltin, 2, 0, {idx(0)})})),
            "update[0] ldb: builtin dt is 1 wide, not 2");
}

TEST(VerifyRejects, UnknownGlobalImport) {
  EXPECT_EQ(rejection(withUpdate({op(Opcode::LoadGlobal, 1, 0, {idx(2)})})),
            "update[0] ldg: global import 2 does not exist (2 imports)");
}

TEST(VerifyRejects, GlobalImportOfAnotherWidth) {
  EXPECT_EQ(rejection(withUpdate({op(Opcode::LoadGlobal, 2, 0, {idx(1)})})),
            "update[0] ldg: global tint is 4 wide, not 2");
}

TEST(VerifyRejects, NamesTheTextFormCannotWrite) {
  Program p = layout();
  p.particleFields[0].name = "pos ition";
  EXPECT_EQ(rejection(p),
            "particle field 0 has a name that is not letters, digits, '_' and '.' (1..128)");
  p = layout();
  p.globals = {{"", 1}};
  EXPECT_EQ(rejection(p),
            "global import 0 has a name that is not letters, digits, '_' and '.' (1..128)");
}

TEST(VerifyRejects, WidthOfAnOpcodeWithoutValueSources) {
  EXPECT_EQ(rejection(withUpdate({op(Opcode::Nop, 2, 0, {})})),
            "update[0] nop: width 2; this opcode is 1 wide");
  EXPECT_EQ(rejection(withUpdate({op(Opcode::Kill, 4, 0, {imm(1.0f)})})),
            "update[0] kill: width 4; this opcode is 1 wide");
}

TEST(VerifyRejects, SpawnTargetPastTheLimit) {
  EXPECT_EQ(rejection(withUpdate(
                {op(Opcode::Spawn, 1, 0, {idx(kMaxSpawnTargets), imm(1.0f), imm(0.0f)})})),
            "update[0] spawn: spawn target emitter 256 is outside 0..255");
  EXPECT_EQ(rejection(withUpdate({op(Opcode::Spawn, 3, 0, {idx(0), imm(1.0f), imm(0.0f)})})),
            "update[0] spawn: width 3; this opcode is 1 wide");
}

TEST(VerifyRejects, RandomDrawPastTheLimit) {
  EXPECT_EQ(rejection(withUpdate({op(Opcode::RandUniform, 1, 0, {idx(kMaxRandomDraws)})})),
            "update[0] rand: random draw 65536 is outside 0..65535");
  EXPECT_EQ(rejection(withUpdate({op(Opcode::RandCone, 3, 0, {idx(0xFFFFFFFFu), imm(0.5f)})})),
            "update[0] randcone: random draw 4294967295 is outside 0..65535");
  EXPECT_EQ(rejection(withUpdate(
                {ldc(2, 0), op(Opcode::RandRange, 2, 4, {idx(70000), reg(0), imm(9.0f)})})),
            "update[1] randr: random draw 70000 is outside 0..65535");
}

// curve.w r0, #first, 0.5, #keys — over layout()'s pool unless the test replaces it.
Instruction curve(std::uint32_t width, std::uint32_t first, std::uint32_t keysWord) {
  return op(Opcode::Curve, width, 0, {idx(first), imm(0.5f), idx(keysWord)});
}

TEST(VerifyRejects, CurveOfNoKeysOrMoreThan256) {
  EXPECT_EQ(rejection(withUpdate({curve(1, 0, 0)})),
            "update[0] curve: a curve of 0 keys; curves have 1..256");
  EXPECT_EQ(rejection(withUpdate({curve(1, 0, kMaxCurveTableKeys + 1)})),
            "update[0] curve: a curve of 257 keys; curves have 1..256");
}

TEST(VerifyRejects, CurveInterpolationThatDoesNotExist) {
  EXPECT_EQ(rejection(withUpdate({curve(1, 0, 2u | 3u << kCurveInterpShift)})),
            "update[0] curve: s2: interpolation 3 does not exist (0 linear, 1 step, 2 smooth; key "
            "count in bits 0..15)");
  EXPECT_EQ(rejection(withUpdate({curve(1, 0, 2u | 1u << 31)})),
            "update[0] curve: s2: interpolation 32768 does not exist (0 linear, 1 step, 2 smooth; "
            "key count in bits 0..15)");
}

TEST(VerifyRejects, CurveTablePastThePool) {
  // Two 4-wide keys need 1 time entry + 2 value entries + 1 delta entry; the pool has 2.
  EXPECT_EQ(rejection(withUpdate({curve(4, 0, 2)})),
            "update[0] curve: the curve table, constants [0, 4), is outside the pool of 2");
  EXPECT_EQ(rejection(withUpdate({curve(1, 0xFFFFFFFFu, 2)})),
            "update[0] curve: the curve table, constants [4294967295, 4294967298), is outside "
            "the pool of 2");
  Program p = withUpdate({curve(1, 0, 2)});  // 1 + 1 + 1 entries
  EXPECT_EQ(rejection(p),
            "update[0] curve: the curve table, constants [0, 3), is outside the pool "
            "of 2");
  p.constants.push_back({0.0f, 0.0f, 0.0f, 0.0f});
  EXPECT_EQ(rejection(p), "(accepted)");  // times 1, 2
}

TEST(VerifyRejects, CurveKeyTimesThatDecreaseOrAreNotFinite) {
  Program p = withUpdate({curve(1, 0, 3)});
  p.constants.push_back({0.0f, 0.0f, 0.0f, 0.0f});
  p.constants[0] = {0.0f, 0.5f, 0.25f, 0.0f};
  EXPECT_EQ(rejection(p),
            "update[0] curve: curve key 2: time is before key 1's (key times must not decrease)");
  p.constants[0] = {0.0f, std::bit_cast<float>(0x7FC00000u), 1.0f, 0.0f};
  EXPECT_EQ(rejection(p), "update[0] curve: curve key 1: time is not finite");
  p.constants[0] = {-std::bit_cast<float>(0x7F800000u), 0.0f, 1.0f, 0.0f};
  EXPECT_EQ(rejection(p), "update[0] curve: curve key 0: time is not finite");
  p.constants[0] = {0.0f, 0.5f, 0.5f, -9.0f};  // equal times are a jump; lane 3 is no key
  EXPECT_EQ(rejection(p), "(accepted)");
}

// --- where and in which order

TEST(VerifyRejects, NamesTheSectionAndInstructionIndex) {
  // mov.2 writes r4..r5 only, so init[3] reads r7 unwritten (init[2] reads r5 and r1: fine).
  Program p = layout();
  p.init =
      words({ldc(4, 0), op(Opcode::Mov, 2, 4, {reg(0)}), op(Opcode::Add, 1, 0, {reg(5), reg(1)}),
             op(Opcode::Sub, 1, 0, {reg(7), reg(0)})});
  p.update = words({op(Opcode::Nop, 1, 0)});
  EXPECT_EQ(rejection(p), "init[3] sub: s0: register 7 is read before it is written");
}

TEST(VerifyRejects, FirstViolationWins) {
  // Program limits before sections.
  Program p = withUpdate({op(Opcode::Mov, 1, 0, {reg(3)})});
  p.registerCount = 300;
  EXPECT_EQ(rejection(p), "register count 300 is more than 256");
  // Init before update.
  p = layout();
  p.init = {200, 0, 0, 0};
  p.update = {201, 0, 0, 0};
  EXPECT_EQ(rejection(p), "init[0]: unknown opcode 200");
  // Within an instruction: reserved bits, then width, then sources in order, then indices, then
  // dst.
  p = withUpdate({op(Opcode::Cross, 2, 9, {idx(1), idx(2)})});
  p.update[0] |= 1u << 12;
  EXPECT_EQ(rejection(p), "update[0] cross: reserved bits of word 0 are set");
  EXPECT_EQ(rejection(withUpdate({op(Opcode::Cross, 2, 9, {idx(1), idx(2)})})),
            "update[0] cross: width 2; this opcode is 3 wide");
  EXPECT_EQ(rejection(withUpdate({op(Opcode::Cross, 3, 9, {idx(1), idx(2)})})),
            "update[0] cross: s0: a value operand must be kind reg or imm");
  EXPECT_EQ(rejection(withUpdate({op(Opcode::LoadConst, 1, 9, {idx(7)})})),
            "update[0] ldc: constant 7 is outside the pool of 2");
}

// --- accepted programs

TEST(VerifyAccepts, EmptyProgram) {
  EXPECT_EQ(rejection(Program{}), "(accepted)");
}

// A fountain: spawn at the emitter with a random upward velocity and lifetime; each tick integrate
// gravity and die when the age passes the lifetime.
Program fountain() {
  Program p;
  p.registerCount = 16;
  p.particleWords = 8;
  p.particleFields = {{"position", 0, 3}, {"velocity", 3, 3}, {"age", 6, 1}, {"lifetime", 7, 1}};
  p.constants = {{0.0f, -9.81f, 0.0f, 0.0f}};
  p.init = words({
      op(Opcode::LoadBuiltin, 3, 0, {idx(static_cast<std::uint32_t>(Builtin::EmitterPosition))}),
      op(Opcode::StoreField, 3, 0, {idx(0), reg(0)}),
      op(Opcode::RandCone, 3, 3, {idx(0), imm(0.3f)}),
      op(Opcode::Mul, 3, 3, {reg(3), imm(5.0f)}),
      op(Opcode::StoreField, 3, 0, {idx(3), reg(3)}),
      op(Opcode::StoreField, 1, 0, {idx(6), imm(0.0f)}),
      op(Opcode::RandRange, 1, 6, {idx(1), imm(1.0f), imm(2.0f)}),
      op(Opcode::StoreField, 1, 0, {idx(7), reg(6)}),
  });
  p.update = words({
      op(Opcode::LoadField, 3, 0, {idx(0)}),
      op(Opcode::LoadField, 3, 3, {idx(3)}),
      op(Opcode::LoadBuiltin, 1, 6, {idx(static_cast<std::uint32_t>(Builtin::Dt))}),
      op(Opcode::LoadConst, 3, 7, {idx(0)}),
      op(Opcode::Fma, 3, 3, {reg(7), reg(6, {0, 0, 0, 0}), reg(3)}),  // v += g·dt
      op(Opcode::Fma, 3, 0, {reg(3), reg(6, {0, 0, 0, 0}), reg(0)}),  // p += v·dt
      op(Opcode::StoreField, 3, 0, {idx(0), reg(0)}),
      op(Opcode::StoreField, 3, 0, {idx(3), reg(3)}),
      op(Opcode::LoadField, 2, 10, {idx(6)}),  // r10 = age, r11 = lifetime
      op(Opcode::Add, 1, 10, {reg(10), reg(6)}),
      op(Opcode::StoreField, 1, 0, {idx(6), reg(10)}),
      op(Opcode::CmpLe, 1, 12, {reg(11), reg(10)}),
      op(Opcode::Kill, 1, 0, {reg(12)}),
  });
  return p;
}

TEST(VerifyAccepts, RealisticProgram) {
  EXPECT_EQ(rejection(fountain()), "(accepted)");
}

TEST(VerifyAccepts, MovesTheProgramInUnchanged) {
  const Program original = fountain();
  Result<VerifiedProgram> verified = verify(original);
  ASSERT_TRUE(verified.ok()) << verified.status().message();
  EXPECT_EQ(verified->program(), original);
  // Moving the verified program keeps it intact.
  const VerifiedProgram moved = std::move(verified).takeValue();
  EXPECT_EQ(moved.program(), original);
}

TEST(VerifyAccepts, EveryLimitItself) {
  Program p;
  p.registerCount = kMaxRegisters;
  p.constants.resize(kMaxConstants);
  p.particleWords = kMaxParticleWords;
  p.emitterWords = kMaxEmitterWords;
  p.globals.assign(kMaxGlobalImports, GlobalImport{"g", 4});
  p.particleFields = {{"last", kMaxParticleWords - 4, 4}};
  p.init = words({op(Opcode::LoadConst, 4, 252, {idx(kMaxConstants - 1)}),  // r252..r255
                  op(Opcode::Mov, 1, 0, {reg(252, {3, 3, 3, 3})}),
                  op(Opcode::LoadField, 4, 0, {idx(kMaxParticleWords - 4)}),
                  op(Opcode::LoadEmitter, 4, 0, {idx(kMaxEmitterWords - 4)}),
                  op(Opcode::LoadGlobal, 4, 0, {idx(kMaxGlobalImports - 1)}),
                  op(Opcode::RandUniform, 4, 0, {idx(kMaxRandomDraws - 1)}),
                  op(Opcode::StoreField, 4, 0, {idx(kMaxParticleWords - 4), reg(252)})});
  p.update.assign(std::size_t{kMaxInstructionsPerSection} * kWordsPerInstruction, 0u);  // nops
  EXPECT_EQ(rejection(p), "(accepted)");
}

TEST(VerifyAccepts, NarrowSourcesReadOnlyTheirLanes) {
  // randcone's half-angle and kill's operand are Scalar: only lane 0 must be written, whatever
  // the instruction width; lanes past a source's width are not read, so their swizzle is free.
  EXPECT_EQ(rejection(withUpdate({ldc(1, 0), op(Opcode::RandCone, 3, 4, {idx(0), reg(0)}),
                                  op(Opcode::Kill, 1, 0, {reg(0)}),
                                  op(Opcode::Mov, 1, 1, {reg(0, {0, 3, 3, 3})})})),
            "(accepted)");
}

TEST(VerifyAccepts, ImmediatesNeedNoWrittenRegister) {
  EXPECT_EQ(rejection(withUpdate({op(Opcode::Fma, 4, 0, {imm(1.0f), imm(2.0f), imm(-0.0f)}),
                                  op(Opcode::QuatRotate, 3, 4, {imm(0.5f), reg(0)})})),
            "(accepted)");
}

TEST(VerifyAccepts, WrittenLanesStayWrittenWithinASection) {
  EXPECT_EQ(rejection(withUpdate({ldc(1, 0), ldc(1, 1), ldc(2, 2), op(Opcode::Mov, 4, 4, {reg(0)}),
                                  op(Opcode::Dot, 4, 0, {reg(4), reg(0, {3, 2, 1, 0})})})),
            "(accepted)");
}

}  // namespace
}  // namespace mote::bytecode
