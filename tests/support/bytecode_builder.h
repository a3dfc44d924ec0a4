// SPDX-License-Identifier: MIT
// Building instructions by hand in bytecode tests: op(Opcode::Add, 3, dst, {reg(0), imm(1.5f)}).
#pragma once

#include <mote/bytecode/isa.h>

#include <array>
#include <bit>
#include <cstdint>
#include <initializer_list>

namespace mote::test {

struct Operand {
  bytecode::OperandKind kind = bytecode::OperandKind::None;
  std::uint32_t word = 0;
};

inline Operand reg(std::uint32_t base, std::array<std::uint32_t, 4> swizzle = {0, 1, 2, 3}) {
  return {bytecode::OperandKind::Reg, bytecode::regWord(base, swizzle)};
}
inline Operand imm(float value) {
  return {bytecode::OperandKind::Imm, std::bit_cast<std::uint32_t>(value)};
}
inline Operand idx(std::uint32_t i) {
  return {bytecode::OperandKind::None, i};
}
inline Operand raw(bytecode::OperandKind kind, std::uint32_t word) {
  return {kind, word};
}

inline bytecode::Instruction op(bytecode::Opcode code, std::uint32_t width, std::uint32_t dst,
                                std::initializer_list<Operand> sources = {}) {
  bytecode::Instruction in;
  in.op = code;
  in.width = width;
  in.dst = dst;
  std::size_t slot = 0;
  for (const Operand& s : sources) {
    in.kinds[slot] = s.kind;
    in.src[slot] = s.word;
    ++slot;
  }
  return in;
}

}  // namespace mote::test
