// SPDX-License-Identifier: MIT
// One legal instance of every opcode at every width, for the parity tests of the CPU's batched VM
// (tests/runtime/vm_parity_test.cpp) and the GPU's (tests/gpu/vm_ops_test.cpp) against the
// reference executor: inputs loaded from the particle's first 12 words (special values among
// them), the result stored to words 12.., random swizzles and immediates.
#pragma once

#include "support/isa_widths.h"

#include <mote/bytecode/program.h>
#include <mote/bytecode/semantics.h>

#include <array>
#include <bit>
#include <cstdint>
#include <limits>
#include <random>
#include <utility>
#include <vector>

namespace mote::test {

inline constexpr std::uint32_t kInstanceWords = 16;  // 12 input words, 4 output words

// The bytecode vocabulary in a namespace of its own, so the includer's scope is left alone.
namespace opcode_instances {
using namespace bytecode;  // NOLINT(google-build-using-namespace)

// A random operand: ordinary values in [-4, 4] mostly, and the special ones — zeros, infinities,
// NaN, subnormals, and huge values (past sin/cos's 2^20 reduction limit, near the float maximum).
inline float randomInput(std::mt19937& rng) {
  switch (rng() % 22) {
    case 0:
      return 0.0f;
    case 1:
      return -0.0f;
    case 2:
      return std::numeric_limits<float>::infinity();
    case 3:
      return std::numeric_limits<float>::quiet_NaN();
    case 4:
      return 1e-40f;  // denormal
    case 5:
      return 3.0f;
    case 6:
      return -std::numeric_limits<float>::infinity();
    case 7:
      return -3.0e7f;  // sin/cos's exact large-argument reduction
    case 8:
      return 1.0e30f;
    case 9:
      return -std::numeric_limits<float>::max();
    case 10:
      return -2.5e-42f;  // a negative subnormal
    default:
      return std::uniform_real_distribution<float>(-4.0f, 4.0f)(rng);
  }
}

// CURVE's keys in the parity instances: inside the inputs' range [-4, 4], a jump at -1 and two
// keys at 2 (equal times), values that are not exact sums of each other (the lerp's rounding).
constexpr std::array<std::pair<float, float>, 7> kCurveKeys = {{{-3.0f, 0.1f},
                                                                {-1.0f, -2.7f},
                                                                {-1.0f, 5.3f},
                                                                {0.3f, 1.0f / 3.0f},
                                                                {2.0f, 7.77f},
                                                                {2.0f, -0.0f},
                                                                {3.5f, 1e-3f}}};

// kCurveKeys as a CURVE table `width` wide (lane c of a key's value: value · (c + 1)).
inline std::vector<std::array<float, 4>> curveTable(std::uint32_t width) {
  std::vector<std::pair<float, std::array<float, 4>>> keys;
  for (const auto& [time, value] : kCurveKeys)
    keys.push_back({time, {value, value * 2.0f, value * 3.0f, value * 4.0f}});
  return semantics::curveTableOf(keys, width);
}

// One legal instance of `info` at `width`, reading r0.., r4.., r8.. (loaded from the particle's
// input words) with random swizzles, writing r12.. (or, in place, r0..), then storing the result.
inline bytecode::Program instance(const bytecode::OpInfo& info, std::uint32_t width, bool inPlace,
                                  std::mt19937& rng) {
  Program p;
  p.registerCount = 16;
  p.particleWords = kInstanceWords;
  p.emitterWords = 4;
  p.globals = {{"g1", 1}, {"g2", 2}, {"g3", 3}, {"g4", 4}};
  p.constants = {{1.5f, -2.0f, 0.25f, 8.0f}};
  std::vector<Instruction> code;
  const auto load = [&](std::uint32_t dst, std::uint32_t word) {
    Instruction in;
    in.op = Opcode::LoadField;
    in.width = 4;
    in.dst = dst;
    in.src[0] = word;
    code.push_back(in);
  };
  load(0, 0);
  load(4, 4);
  load(8, 8);
  Instruction in;
  in.op = info.opcode;
  in.width = width;
  const std::uint32_t dw = dstWidth(info.width, width);
  in.dst = dw == 0 ? 0 : (inPlace ? 0 : 12);
  if (info.width == WidthRule::DstIndex) in.dst = 2;  // SPAWNI's target, as SPAWN's below
  for (std::uint32_t slot = 0; slot < 3; ++slot) {
    const SourceRule rule = info.sources[slot];
    if (rule == SourceRule::Unused) continue;
    if (rule == SourceRule::Index) {
      std::uint32_t index = 0;
      switch (info.opcode) {
        case Opcode::LoadField:
        case Opcode::StoreField:
          index = 12 - (info.opcode == Opcode::StoreField ? 0 : 4);
          break;
        case Opcode::LoadEmitter:
          index = 4 - width;
          break;
        case Opcode::LoadGlobal:
          index = width - 1;
          break;
        case Opcode::LoadBuiltin:
          for (const BuiltinInfo& b : kBuiltinInfos)
            if (b.width == width) index = static_cast<std::uint32_t>(b.builtin);
          break;
        default:
          index = 3;  // constant 0 does not exist past 0: handled below
      }
      if (info.opcode == Opcode::LoadConst) index = 0;
      if (info.opcode == Opcode::Spawn) index = 2;
      if (info.opcode == Opcode::Curve) {
        // The table of curveTable() at entry 1; linear, step or smooth.
        index = slot == 0 ? 1
                          : curveKeysWord(static_cast<std::uint32_t>(kCurveKeys.size()),
                                          static_cast<CurveTableInterp>(rng() % 3));
      }
      in.src[slot] = index;
      continue;
    }
    if (rng() % 5 == 0) {
      in.kinds[slot] = OperandKind::Imm;
      in.src[slot] = std::bit_cast<std::uint32_t>(randomInput(rng));
      continue;
    }
    in.kinds[slot] = OperandKind::Reg;
    std::array<std::uint32_t, 4> swizzle{0, 1, 2, 3};
    if (rng() % 2 == 0)
      for (std::uint32_t& s : swizzle)
        s = rng() % 4;
    in.src[slot] = regWord(4 * slot, swizzle);
  }
  code.push_back(in);
  if (info.opcode == Opcode::Curve) {
    const std::vector<std::array<float, 4>> table = curveTable(width);
    p.constants.insert(p.constants.end(), table.begin(), table.end());
  }
  if (dw > 0) {
    Instruction store;
    store.op = Opcode::StoreField;
    store.width = dw;
    store.kinds[1] = OperandKind::Reg;
    store.src = {12, regWord(in.dst), 0};
    code.push_back(store);
  }
  for (const Instruction& i : code) {
    const auto words = encode(i);
    p.update.insert(p.update.end(), words.begin(), words.end());
  }
  return p;
}

inline std::vector<std::uint32_t> widthsOf(const bytecode::OpInfo& info) {
  std::vector<std::uint32_t> widths = legalWidths(info);
  if (info.opcode == Opcode::LoadBuiltin) std::erase(widths, 2u);  // no builtin is 2 wide
  return widths;
}

}  // namespace opcode_instances

using opcode_instances::curveTable;
using opcode_instances::instance;
using opcode_instances::kCurveKeys;
using opcode_instances::randomInput;
using opcode_instances::widthsOf;

}  // namespace mote::test
