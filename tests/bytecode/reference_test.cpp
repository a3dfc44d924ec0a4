// SPDX-License-Identifier: MIT
// The reference executor: one hand-computed known-answer test per opcode (suite ReferenceOp; the
// ISA meta-test in isa_test.cpp lists them in kHandComputed), plus operand forms (swizzles,
// immediates), sections, the random streams and the curl-noise field.
#include "support/bytecode_builder.h"

#include <mote/bytecode/reference.h>
#include <mote/bytecode/semantics.h>
#include <mote/core/counter_rng.h>

#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <numbers>
#include <utility>
#include <vector>

namespace mote::bytecode {
namespace {

using Lanes = std::array<float, 4>;

constexpr float kPi = std::numbers::pi_v<float>;
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

constexpr std::uint32_t kRegisters = 32;
constexpr std::uint32_t kParticleWords = 32;
constexpr std::uint32_t kOut = 16;   // particle words [16, 20): where tests store results
constexpr float kUnset = -12345.0f;  // particle words no instruction wrote

using test::idx;
using test::imm;
using test::op;
using test::Operand;
using test::reg;

// stf.width #at, r<from>
Instruction store(std::uint32_t at, std::uint32_t width, std::uint32_t from) {
  return op(Opcode::StoreField, width, 0, {idx(at), reg(from)});
}

std::vector<std::uint32_t> words(std::initializer_list<Instruction> code) {
  std::vector<std::uint32_t> out;
  for (const Instruction& in : code) {
    const std::array<std::uint32_t, 4> w = encode(in);
    out.insert(out.end(), w.begin(), w.end());
  }
  return out;
}

/// A program layout, a context and one particle. run() verifies `code` as the update section and
/// runs it on the particle.
struct Harness {
  Program program;
  ReferenceContext context;
  std::vector<float> particle = std::vector<float>(kParticleWords, kUnset);
  bool killed = false;

  Harness() {
    program.registerCount = kRegisters;
    program.particleWords = kParticleWords;
  }

  ::testing::AssertionResult run(std::initializer_list<Instruction> code) {
    program.update = words(code);
    Result<VerifiedProgram> verified = verify(program);
    if (!verified.ok()) return ::testing::AssertionFailure() << verified.status().message();
    killed = runReference(*verified, Section::Update, particle, context);
    return ::testing::AssertionSuccess();
  }

  std::vector<float> out(std::uint32_t count, std::uint32_t at = kOut) const {
    return {particle.begin() + at, particle.begin() + at + count};
  }
};

/// Runs `code.width r12, r0, r4, r8` where r0.., r4.., r8.. hold a, b and c (loaded from the
/// constant pool) and returns the lanes it wrote. Every source of `code` must be a value.
std::vector<float> eval(Opcode code, std::uint32_t width, const Lanes& a, const Lanes& b = {},
                        const Lanes& c = {}) {
  Harness h;
  h.program.constants = {a, b, c};
  const OpInfo& info = opInfo(code);
  Instruction in = op(code, width, 12);
  for (std::uint32_t slot = 0; slot < 3; ++slot) {
    if (info.sources[slot] == SourceRule::Unused) continue;
    EXPECT_NE(info.sources[slot], SourceRule::Index) << "eval() feeds values only";
    in.kinds[slot] = OperandKind::Reg;
    in.src[slot] = regWord(4 * slot);
  }
  const std::uint32_t dw = dstWidth(opInfo(code).width, width);
  const auto ldc = [](std::uint32_t dst, std::uint32_t i) {
    return op(Opcode::LoadConst, 4, dst, {idx(i)});
  };
  const ::testing::AssertionResult ran =
      h.run({ldc(0, 0), ldc(4, 1), ldc(8, 2), in, store(kOut, dw, 12)});
  EXPECT_TRUE(ran);
  return h.out(dw);
}

// --- one known answer per opcode

TEST(ReferenceOp, NopChangesNothing) {
  Harness h;
  h.particle[3] = 7.0f;
  ASSERT_TRUE(h.run({op(Opcode::Nop, 1, 0), op(Opcode::Nop, 1, 0)}));
  EXPECT_FALSE(h.killed);
  EXPECT_EQ(h.particle[3], 7.0f);
  for (std::uint32_t i = 0; i < kParticleWords; ++i) {
    if (i != 3) {
      EXPECT_EQ(h.particle[i], kUnset) << i;
    }
  }
}

TEST(ReferenceOp, MovCopiesRegistersAndImmediates) {
  EXPECT_EQ(eval(Opcode::Mov, 4, {1.0f, 2.0f, 3.0f, 4.0f}),
            (std::vector<float>{1.0f, 2.0f, 3.0f, 4.0f}));
  Harness h;
  ASSERT_TRUE(h.run({op(Opcode::Mov, 2, 0, {imm(7.5f)}), store(kOut, 2, 0)}));
  EXPECT_EQ(h.out(3), (std::vector<float>{7.5f, 7.5f, kUnset}));
}

TEST(ReferenceOp, LoadConstReadsTheFirstLanesOfAPoolEntry) {
  Harness h;
  h.program.constants = {{1.0f, 2.0f, 3.0f, 4.0f}, {5.0f, 6.0f, 7.0f, 8.0f}};
  ASSERT_TRUE(h.run({op(Opcode::LoadConst, 3, 0, {idx(1)}), store(kOut, 3, 0)}));
  EXPECT_EQ(h.out(4), (std::vector<float>{5.0f, 6.0f, 7.0f, kUnset}));
}

TEST(ReferenceOp, LoadFieldReadsParticleWords) {
  Harness h;
  h.particle[2] = 10.0f;
  h.particle[3] = 20.0f;
  h.particle[4] = 30.0f;
  ASSERT_TRUE(h.run({op(Opcode::LoadField, 3, 5, {idx(2)}), store(kOut, 3, 5)}));
  EXPECT_EQ(h.out(3), (std::vector<float>{10.0f, 20.0f, 30.0f}));
}

TEST(ReferenceOp, StoreFieldWritesExactlyItsWidth) {
  Harness h;
  // stf.2 #5, 2.5 → words 5 and 6; 4 and 7 untouched.
  ASSERT_TRUE(h.run({op(Opcode::StoreField, 2, 0, {idx(5), imm(2.5f)})}));
  EXPECT_EQ(h.out(4, 4), (std::vector<float>{kUnset, 2.5f, 2.5f, kUnset}));
  EXPECT_FALSE(h.killed);
}

TEST(ReferenceOp, LoadBuiltinReadsTheBuiltinTable) {
  for (const BuiltinInfo& b : kBuiltinInfos) {
    const auto id = static_cast<std::uint32_t>(b.builtin);
    SCOPED_TRACE(b.name);
    Harness h;
    for (std::uint32_t i = 0; i < kBuiltinCount; ++i)  // builtin i = (100i + 1, …, 100i + 4)
      for (std::uint32_t lane = 0; lane < 4; ++lane)
        h.context.builtins[i][lane] = static_cast<float>(100 * i + lane + 1);
    ASSERT_TRUE(h.run({op(Opcode::LoadBuiltin, b.width, 0, {idx(id)}), store(kOut, b.width, 0)}));
    std::vector<float> want;
    for (std::uint32_t lane = 0; lane < b.width; ++lane)
      want.push_back(static_cast<float>(100 * id + lane + 1));
    EXPECT_EQ(h.out(b.width), want);
  }
}

TEST(ReferenceOp, LoadEmitterReadsEmitterWords) {
  Harness h;
  const std::vector<float> emitter{0.5f, 1.5f, 2.5f, 3.5f, 4.5f};
  h.program.emitterWords = 5;
  h.context.emitterWords = emitter;
  // lde.3 #1 → words 1..3 = (1.5, 2.5, 3.5)
  ASSERT_TRUE(h.run({op(Opcode::LoadEmitter, 3, 0, {idx(1)}), store(kOut, 3, 0)}));
  EXPECT_EQ(h.out(3), (std::vector<float>{1.5f, 2.5f, 3.5f}));
}

TEST(ReferenceOp, LoadGlobalReadsTheImportsValue) {
  Harness h;
  h.program.globals = {{"gust", 1}, {"tint", 4}};
  const std::vector<Lanes> globals{{9.0f, -1.0f, -1.0f, -1.0f}, {0.1f, 0.2f, 0.3f, 0.4f}};
  h.context.globals = globals;
  ASSERT_TRUE(h.run({op(Opcode::LoadGlobal, 4, 0, {idx(1)}), op(Opcode::LoadGlobal, 1, 4, {idx(0)}),
                     store(kOut, 4, 0), store(kOut + 4, 1, 4)}));
  EXPECT_EQ(h.out(5), (std::vector<float>{0.1f, 0.2f, 0.3f, 0.4f, 9.0f}));
}

TEST(ReferenceOp, AddIsLanewise) {
  // (1, 2, 3) + (0.5, 0.5, 0.5) = (1.5, 2.5, 3.5)
  EXPECT_EQ(eval(Opcode::Add, 3, {1.0f, 2.0f, 3.0f, 99.0f}, {0.5f, 0.5f, 0.5f, 99.0f}),
            (std::vector<float>{1.5f, 2.5f, 3.5f}));
}

TEST(ReferenceOp, SubIsLanewise) {
  // (1, 2, 3, 4) - (4, 3, 2, 1) = (-3, -1, 1, 3)
  EXPECT_EQ(eval(Opcode::Sub, 4, {1.0f, 2.0f, 3.0f, 4.0f}, {4.0f, 3.0f, 2.0f, 1.0f}),
            (std::vector<float>{-3.0f, -1.0f, 1.0f, 3.0f}));
}

TEST(ReferenceOp, MulIsLanewise) {
  // (1.5, -2, 0.25) * (2, 3, 8) = (3, -6, 2)
  EXPECT_EQ(eval(Opcode::Mul, 3, {1.5f, -2.0f, 0.25f, 0.0f}, {2.0f, 3.0f, 8.0f, 0.0f}),
            (std::vector<float>{3.0f, -6.0f, 2.0f}));
}

TEST(ReferenceOp, DivFollowsIeee) {
  // 1/4 = 0.25; -1/0 = -inf; 0/0 = nan; 3/-0.5 = -6
  const std::vector<float> q =
      eval(Opcode::Div, 4, {1.0f, -1.0f, 0.0f, 3.0f}, {4.0f, 0.0f, 0.0f, -0.5f});
  ASSERT_EQ(q.size(), 4u);
  EXPECT_EQ(q[0], 0.25f);
  EXPECT_EQ(q[1], -kInf);
  EXPECT_TRUE(std::isnan(q[2]));
  EXPECT_EQ(q[3], -6.0f);
}

TEST(ReferenceOp, FmaRoundsOnce) {
  // (1 + 2^-23)(1 - 2^-23) = 1 - 2^-46: rounded on its own it is 1 (and - 1 gives 0), fused it
  // gives -2^-46 exactly. 2 * 3 + 4 = 10.
  const float up = 1.0f + std::ldexp(1.0f, -23);
  const float down = 1.0f - std::ldexp(1.0f, -23);
  EXPECT_EQ(eval(Opcode::Fma, 2, {up, 2.0f, 0, 0}, {down, 3.0f, 0, 0}, {-1.0f, 4.0f, 0, 0}),
            (std::vector<float>{-std::ldexp(1.0f, -46), 10.0f}));
}

TEST(ReferenceOp, MinIsBLessThanAOrA) {
  // min((1, 5, -2, 3), (2, 4, -3, 3)) = (1, 4, -3, 3)
  EXPECT_EQ(eval(Opcode::Min, 4, {1.0f, 5.0f, -2.0f, 3.0f}, {2.0f, 4.0f, -3.0f, 3.0f}),
            (std::vector<float>{1.0f, 4.0f, -3.0f, 3.0f}));
  // "b < a ? b : a": a NaN in a wins, a NaN in b loses.
  const std::vector<float> nan = eval(Opcode::Min, 2, {kNaN, 1.0f, 0, 0}, {1.0f, kNaN, 0, 0});
  EXPECT_TRUE(std::isnan(nan[0]));
  EXPECT_EQ(nan[1], 1.0f);
}

TEST(ReferenceOp, MaxIsALessThanBThenBOrA) {
  // max((1, 5, -2, 3), (2, 4, -3, 3)) = (2, 5, -2, 3)
  EXPECT_EQ(eval(Opcode::Max, 4, {1.0f, 5.0f, -2.0f, 3.0f}, {2.0f, 4.0f, -3.0f, 3.0f}),
            (std::vector<float>{2.0f, 5.0f, -2.0f, 3.0f}));
  // "a < b ? b : a": a NaN in a wins, a NaN in b loses.
  const std::vector<float> nan = eval(Opcode::Max, 2, {kNaN, 1.0f, 0, 0}, {1.0f, kNaN, 0, 0});
  EXPECT_TRUE(std::isnan(nan[0]));
  EXPECT_EQ(nan[1], 1.0f);
}

TEST(ReferenceOp, AbsClearsTheSign) {
  // |(-1.5, 0, 2, -0)| = (1.5, 0, 2, +0)
  const std::vector<float> r = eval(Opcode::Abs, 4, {-1.5f, 0.0f, 2.0f, -0.0f});
  EXPECT_EQ(r, (std::vector<float>{1.5f, 0.0f, 2.0f, 0.0f}));
  EXPECT_FALSE(std::signbit(r[3]));
}

TEST(ReferenceOp, NegFlipsTheSign) {
  // -(1.5, 0) = (-1.5, -0)
  const std::vector<float> r = eval(Opcode::Neg, 2, {1.5f, 0.0f, 0, 0});
  EXPECT_EQ(r, (std::vector<float>{-1.5f, 0.0f}));
  EXPECT_TRUE(std::signbit(r[1]));
}

TEST(ReferenceOp, FloorRoundsDown) {
  // floor(1.5, -1.5, 2, -0.25) = (1, -2, 2, -1)
  EXPECT_EQ(eval(Opcode::Floor, 4, {1.5f, -1.5f, 2.0f, -0.25f}),
            (std::vector<float>{1.0f, -2.0f, 2.0f, -1.0f}));
}

TEST(ReferenceOp, FractIsAMinusFloorA) {
  // fract(-0.25) = -0.25 - (-1) = 0.75; fract(1.75) = 0.75; fract(3) = 0
  EXPECT_EQ(eval(Opcode::Fract, 3, {-0.25f, 1.75f, 3.0f, 0}),
            (std::vector<float>{0.75f, 0.75f, 0.0f}));
}

TEST(ReferenceOp, ModTakesTheDivisorsSign) {
  // mod(-1, 3) = -1 - 3 floor(-1/3) = -1 + 3 = 2; mod(7, 3) = 7 - 6 = 1;
  // mod(5.5, 2) = 5.5 - 4 = 1.5; mod(1, -3) = 1 - (-3) floor(-1/3) = 1 - 3 = -2
  EXPECT_EQ(eval(Opcode::Mod, 4, {-1.0f, 7.0f, 5.5f, 1.0f}, {3.0f, 3.0f, 2.0f, -3.0f}),
            (std::vector<float>{2.0f, 1.0f, 1.5f, -2.0f}));
}

TEST(ReferenceOp, SqrtIsCorrectlyRounded) {
  // sqrt(4) = 2, sqrt(0.25) = 0.5, sqrt(0) = 0; sqrt(2) = 1.41421353816986083984375 (0x3FB504F3,
  // the float nearest to 1.41421356237…)
  const std::vector<float> r = eval(Opcode::Sqrt, 4, {4.0f, 0.25f, 0.0f, 2.0f});
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0], 2.0f);
  EXPECT_EQ(r[1], 0.5f);
  EXPECT_EQ(r[2], 0.0f);
  EXPECT_EQ(std::bit_cast<std::uint32_t>(r[3]), 0x3FB504F3u);
  EXPECT_TRUE(std::isnan(eval(Opcode::Sqrt, 1, {-1.0f, 0, 0, 0})[0]));
}

TEST(ReferenceOp, RsqrtIsOneOverSqrt) {
  // 1/sqrt(4) = 0.5, 1/sqrt(0.25) = 2, 1/sqrt(16) = 0.25, 1/sqrt(0) = inf
  EXPECT_EQ(eval(Opcode::Rsqrt, 4, {4.0f, 0.25f, 16.0f, 0.0f}),
            (std::vector<float>{0.5f, 2.0f, 0.25f, kInf}));
}

TEST(ReferenceOp, SinTakesRadians) {
  // sin(0) = 0 exactly; sin(π/2) = 1; sin(-π/6) = -0.5
  const std::vector<float> r = eval(Opcode::Sin, 3, {0.0f, kPi / 2.0f, -kPi / 6.0f, 0});
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0], 0.0f);
  EXPECT_FLOAT_EQ(r[1], 1.0f);
  EXPECT_FLOAT_EQ(r[2], -0.5f);
}

TEST(ReferenceOp, CosTakesRadians) {
  // cos(0) = 1 exactly; cos(π) = -1; cos(π/3) = 0.5
  const std::vector<float> r = eval(Opcode::Cos, 3, {0.0f, kPi, kPi / 3.0f, 0});
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0], 1.0f);
  EXPECT_FLOAT_EQ(r[1], -1.0f);
  EXPECT_FLOAT_EQ(r[2], 0.5f);
}

TEST(ReferenceOp, ExpIsBaseE) {
  // e^0 = 1 exactly; e^1 = 2.7182818…; e^(ln 2 · 3) = 8
  const std::vector<float> r =
      eval(Opcode::Exp, 3, {0.0f, 1.0f, std::numbers::ln2_v<float> * 3.0f, 0});
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0], 1.0f);
  EXPECT_FLOAT_EQ(r[1], std::numbers::e_v<float>);
  EXPECT_FLOAT_EQ(r[2], 8.0f);
}

TEST(ReferenceOp, LogIsNatural) {
  // ln 1 = 0 exactly; ln e = 1; ln 0 = -inf; ln(-1) = nan
  const std::vector<float> r = eval(Opcode::Log, 4, {1.0f, std::numbers::e_v<float>, 0.0f, -1.0f});
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0], 0.0f);
  EXPECT_FLOAT_EQ(r[1], 1.0f);
  EXPECT_EQ(r[2], -kInf);
  EXPECT_TRUE(std::isnan(r[3]));
}

TEST(ReferenceOp, PowRaisesAToB) {
  // 2^10 = 1024, 9^0.5 = 3, 5^0 = 1, 0.5^-2 = 4 (all exact in glibc's powf)
  EXPECT_EQ(eval(Opcode::Pow, 4, {2.0f, 9.0f, 5.0f, 0.5f}, {10.0f, 0.5f, 0.0f, -2.0f}),
            (std::vector<float>{1024.0f, 3.0f, 1.0f, 4.0f}));
}

TEST(ReferenceOp, DotSumsOverTheWidth) {
  // (1, 2, 3)·(4, 5, 6) = 4 + 10 + 18 = 32; the 4th lane (7·8) is not read at width 3
  EXPECT_EQ(eval(Opcode::Dot, 3, {1.0f, 2.0f, 3.0f, 7.0f}, {4.0f, 5.0f, 6.0f, 8.0f}),
            (std::vector<float>{32.0f}));
  // width 4: 32 + 56 = 88; width 1: 4
  EXPECT_EQ(eval(Opcode::Dot, 4, {1.0f, 2.0f, 3.0f, 7.0f}, {4.0f, 5.0f, 6.0f, 8.0f}),
            (std::vector<float>{88.0f}));
  EXPECT_EQ(eval(Opcode::Dot, 1, {1.0f, 2.0f, 3.0f, 7.0f}, {4.0f, 5.0f, 6.0f, 8.0f}),
            (std::vector<float>{4.0f}));
}

TEST(ReferenceOp, CrossIsRightHanded) {
  // x × y = z
  EXPECT_EQ(eval(Opcode::Cross, 3, {1.0f, 0.0f, 0.0f, 0}, {0.0f, 1.0f, 0.0f, 0}),
            (std::vector<float>{0.0f, 0.0f, 1.0f}));
  // (1, 2, 3) × (4, 5, 6) = (2·6 - 3·5, 3·4 - 1·6, 1·5 - 2·4) = (-3, 6, -3)
  EXPECT_EQ(eval(Opcode::Cross, 3, {1.0f, 2.0f, 3.0f, 0}, {4.0f, 5.0f, 6.0f, 0}),
            (std::vector<float>{-3.0f, 6.0f, -3.0f}));
}

TEST(ReferenceOp, LengthIsSqrtOfDot) {
  // |(3, 4)| = 5; |(2, 3, 6)| = sqrt(49) = 7; |(1, 1, 1, 1)| = 2
  EXPECT_EQ(eval(Opcode::Length, 2, {3.0f, 4.0f, 0, 0}), (std::vector<float>{5.0f}));
  EXPECT_EQ(eval(Opcode::Length, 3, {2.0f, 3.0f, 6.0f, 0}), (std::vector<float>{7.0f}));
  EXPECT_EQ(eval(Opcode::Length, 4, {1.0f, 1.0f, 1.0f, 1.0f}), (std::vector<float>{2.0f}));
}

TEST(ReferenceOp, NormalizeDividesByLengthAndKeepsZero) {
  // (3, 4) / 5 = (0.6, 0.8) (each correctly rounded); normalize(0) = 0
  EXPECT_EQ(eval(Opcode::Normalize, 2, {3.0f, 4.0f, 0, 0}), (std::vector<float>{0.6f, 0.8f}));
  EXPECT_EQ(eval(Opcode::Normalize, 3, {0.0f, 0.0f, 0.0f, 0}),
            (std::vector<float>{0.0f, 0.0f, 0.0f}));
  // (0, 0, -2, 0) / 2 = (0, 0, -1, 0)
  EXPECT_EQ(eval(Opcode::Normalize, 4, {0.0f, 0.0f, -2.0f, 0.0f}),
            (std::vector<float>{0.0f, 0.0f, -1.0f, 0.0f}));
}

TEST(ReferenceOp, LerpIsAPlusBMinusATimesC) {
  // 0 + 10·0.25 = 2.5; 10 + 10·0.5 = 15; -2 + 4·1 = 2; 0 + 10·2 = 20 (extrapolates)
  EXPECT_EQ(eval(Opcode::Lerp, 4, {0.0f, 10.0f, -2.0f, 0.0f}, {10.0f, 20.0f, 2.0f, 10.0f},
                 {0.25f, 0.5f, 1.0f, 2.0f}),
            (std::vector<float>{2.5f, 15.0f, 2.0f, 20.0f}));
}

TEST(ReferenceOp, SmoothstepIsCubicHermiteOfSaturatedT) {
  // edges (0, 1): x = 0.25 → t = 0.25, 0.0625·(3 - 0.5) = 0.15625; x = -1 → 0; x = 2 → 1;
  // edges (2, 4): x = 3 → t = 0.5, 0.25·2 = 0.5
  EXPECT_EQ(eval(Opcode::Smoothstep, 4, {0.0f, 0.0f, 0.0f, 2.0f}, {1.0f, 1.0f, 1.0f, 4.0f},
                 {0.25f, -1.0f, 2.0f, 3.0f}),
            (std::vector<float>{0.15625f, 0.0f, 1.0f, 0.5f}));
  // Reversed edges (1, 0): x = 0.25 → t = 0.75, 0.5625·1.5 = 0.84375
  EXPECT_EQ(eval(Opcode::Smoothstep, 1, {1.0f, 0, 0, 0}, {0.0f, 0, 0, 0}, {0.25f, 0, 0, 0}),
            (std::vector<float>{0.84375f}));
}

TEST(ReferenceOp, ClampBoundsBelowThenAbove) {
  // clamp((-1, 0.5, 3), 0, 1) = (0, 0.5, 1); lo > hi: min(max(0.5, 2), 1) = 1
  EXPECT_EQ(eval(Opcode::Clamp, 4, {-1.0f, 0.5f, 3.0f, 0.5f}, {0.0f, 0.0f, 0.0f, 2.0f},
                 {1.0f, 1.0f, 1.0f, 1.0f}),
            (std::vector<float>{0.0f, 0.5f, 1.0f, 1.0f}));
}

TEST(ReferenceOp, SaturateClampsToZeroOne) {
  // sat(-0.5, 0.25, 1.5, 1) = (0, 0.25, 1, 1)
  EXPECT_EQ(eval(Opcode::Saturate, 4, {-0.5f, 0.25f, 1.5f, 1.0f}),
            (std::vector<float>{0.0f, 0.25f, 1.0f, 1.0f}));
}

TEST(ReferenceOp, CmpLtIsOneOrZero) {
  // (1<2, 2<2, 3<2, nan<0) = (1, 0, 0, 0)
  EXPECT_EQ(eval(Opcode::CmpLt, 4, {1.0f, 2.0f, 3.0f, kNaN}, {2.0f, 2.0f, 2.0f, 0.0f}),
            (std::vector<float>{1.0f, 0.0f, 0.0f, 0.0f}));
}

TEST(ReferenceOp, CmpLeIsOneOrZero) {
  // (1<=2, 2<=2, 3<=2, nan<=0) = (1, 1, 0, 0)
  EXPECT_EQ(eval(Opcode::CmpLe, 4, {1.0f, 2.0f, 3.0f, kNaN}, {2.0f, 2.0f, 2.0f, 0.0f}),
            (std::vector<float>{1.0f, 1.0f, 0.0f, 0.0f}));
}

TEST(ReferenceOp, CmpEqIsOneOrZero) {
  // (1==2, 2==2, -0==0, nan==nan) = (0, 1, 1, 0)
  EXPECT_EQ(eval(Opcode::CmpEq, 4, {1.0f, 2.0f, -0.0f, kNaN}, {2.0f, 2.0f, 0.0f, kNaN}),
            (std::vector<float>{0.0f, 1.0f, 1.0f, 0.0f}));
}

TEST(ReferenceOp, CmpNeIsOneOrZero) {
  // (1!=2, 2!=2, -0!=0, nan!=nan) = (1, 0, 0, 1)
  EXPECT_EQ(eval(Opcode::CmpNe, 4, {1.0f, 2.0f, -0.0f, kNaN}, {2.0f, 2.0f, 0.0f, kNaN}),
            (std::vector<float>{1.0f, 0.0f, 0.0f, 1.0f}));
}

TEST(ReferenceOp, SelectPicksBWhereANonZero) {
  // a = (1, 0, -0, nan): 1 and nan are != 0 → b; 0 and -0 → c
  EXPECT_EQ(eval(Opcode::Select, 4, {1.0f, 0.0f, -0.0f, kNaN}, {10.0f, 20.0f, 30.0f, 40.0f},
                 {-1.0f, -2.0f, -3.0f, -4.0f}),
            (std::vector<float>{10.0f, -2.0f, -3.0f, 40.0f}));
}

constexpr std::uint64_t kSeed = 0x0123456789ABCDEFull;

TEST(ReferenceOp, RandUniformIsTheParticlesCounterStream) {
  Harness h;
  h.context.seed = kSeed;
  h.context.randomCounter = 42;
  ASSERT_TRUE(h.run({op(Opcode::RandUniform, 4, 0, {idx(5)}), store(kOut, 4, 0)}));
  // lane i = unitFloatFromU32(word i of Philox(seed, stream = draw 5 of UPDATE at tick 0,
  // counter = 42)); the stream is 5 | 1 << 16.
  static_assert(randomStream(Section::Update, 0, 5) == (5u | 1u << 16));
  const std::array<std::uint32_t, 4> bits = counterRandom4(kSeed, 5u | 1u << 16, 42);
  const std::vector<float> r = h.out(4);
  for (std::uint32_t lane = 0; lane < 4; ++lane) {
    EXPECT_EQ(r[lane], unitFloatFromU32(bits[lane])) << lane;
    EXPECT_GE(r[lane], 0.0f);
    EXPECT_LT(r[lane], 1.0f);
  }
}

TEST(ReferenceRandom, DrawsDifferBetweenSectionsAndTicks) {
  // The same draw index in INIT, in UPDATE, and in UPDATE one tick later: three streams.
  static_assert(randomStream(Section::Init, 0, 2) == 2u);
  static_assert(randomStream(Section::Update, 3, 2) == (2u | 1u << 16 | std::uint64_t{3} << 17));
  Harness h;
  h.context.seed = kSeed;
  h.context.randomCounter = 9;
  ASSERT_TRUE(h.run({op(Opcode::RandUniform, 1, 0, {idx(2)}), store(kOut, 1, 0)}));
  const float tick0 = h.out(1)[0];
  h.context.tick = 1;
  ASSERT_TRUE(h.run({op(Opcode::RandUniform, 1, 0, {idx(2)}), store(kOut, 1, 0)}));
  const float tick1 = h.out(1)[0];
  EXPECT_NE(tick0, tick1);
  EXPECT_EQ(tick1,
            unitFloatFromU32(counterRandom4(kSeed, randomStream(Section::Update, 1, 2), 9)[0]));
}

TEST(ReferenceOp, RandRangeScalesTheSameDraw) {
  Harness h;
  h.context.seed = kSeed;
  h.context.randomCounter = 7;
  h.program.constants = {{-1.0f, 10.0f, 5.0f, 0.0f}, {1.0f, 20.0f, 5.0f, 0.5f}};
  ASSERT_TRUE(h.run({op(Opcode::LoadConst, 4, 0, {idx(0)}), op(Opcode::LoadConst, 4, 4, {idx(1)}),
                     op(Opcode::RandRange, 4, 8, {idx(3), reg(0), reg(4)}), store(kOut, 4, 8)}));
  // lane i = lo + (hi - lo) · u_i, u from draw 3; lo == hi gives lo exactly
  const std::array<std::uint32_t, 4> bits =
      counterRandom4(kSeed, randomStream(Section::Update, 0, 3), 7);
  const Lanes lo{-1.0f, 10.0f, 5.0f, 0.0f};
  const Lanes hi{1.0f, 20.0f, 5.0f, 0.5f};
  const std::vector<float> r = h.out(4);
  for (std::uint32_t lane = 0; lane < 4; ++lane) {
    const float expected = lo[lane] + (hi[lane] - lo[lane]) * unitFloatFromU32(bits[lane]);
    EXPECT_EQ(r[lane], expected) << lane;
  }
  EXPECT_EQ(r[2], 5.0f);
}

// Runs `code.3 r0, #draw[, extra]` for `count` particles (randomCounter 0..count-1) and returns
// the vectors.
std::vector<std::array<float, 3>> sample3(Opcode code, std::uint32_t count,
                                          std::initializer_list<Operand> extra = {}) {
  Harness h;
  h.context.seed = kSeed;
  Instruction in = op(code, 3, 0, {idx(2)});
  std::size_t slot = 1;
  for (const Operand& e : extra) {
    in.kinds[slot] = e.kind;
    in.src[slot] = e.word;
    ++slot;
  }
  h.program.update = words({in, store(0, 3, 0)});
  Result<VerifiedProgram> verified = verify(h.program);
  EXPECT_TRUE(verified.ok()) << verified.status().message();
  std::vector<std::array<float, 3>> out;
  if (!verified.ok()) return out;
  for (std::uint32_t i = 0; i < count; ++i) {
    h.context.randomCounter = i;
    runReference(*verified, Section::Update, h.particle, h.context);
    out.push_back({h.particle[0], h.particle[1], h.particle[2]});
  }
  return out;
}

float length3(const std::array<float, 3>& v) {
  return std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
}

TEST(ReferenceOp, RandUnitVectorIsUnitAndCentred) {
  const std::vector<std::array<float, 3>> v = sample3(Opcode::RandUnitVector, 4096);
  ASSERT_EQ(v.size(), 4096u);
  std::array<double, 3> mean{};
  for (const auto& d : v) {
    EXPECT_NEAR(length3(d), 1.0f, 1e-6f);
    for (std::size_t i = 0; i < 3; ++i)
      mean[i] += static_cast<double>(d[i]) / 4096.0;
  }
  // A uniform direction has mean 0; each component's mean has σ = sqrt(1/3/4096) ≈ 0.009.
  for (const double m : mean)
    EXPECT_LT(std::abs(m), 0.05);
}

TEST(ReferenceOp, RandSphereIsInsideTheUnitBall) {
  const std::vector<std::array<float, 3>> v = sample3(Opcode::RandSphere, 4096);
  ASSERT_EQ(v.size(), 4096u);
  int inner = 0;
  for (const auto& p : v) {
    EXPECT_LE(length3(p), 1.0f + 1e-6f);
    if (length3(p) < 0.5f) ++inner;
  }
  // Uniform in volume: P(|p| < 0.5) = 1/8 (512 of 4096, σ ≈ 21).
  EXPECT_NEAR(inner, 512, 100);
}

TEST(ReferenceOp, RandDiskIsInTheXzPlaneInsideTheUnitDisk) {
  const std::vector<std::array<float, 3>> v = sample3(Opcode::RandDisk, 4096);
  ASSERT_EQ(v.size(), 4096u);
  int inner = 0;
  for (const auto& p : v) {
    EXPECT_EQ(p[1], 0.0f);
    EXPECT_LE(length3(p), 1.0f + 1e-6f);
    if (length3(p) < 0.5f) ++inner;
  }
  // Uniform in area: P(r < 0.5) = 1/4 (1024 of 4096, σ ≈ 28).
  EXPECT_NEAR(inner, 1024, 140);
}

TEST(ReferenceOp, RandConeStaysWithinTheHalfAngleOfPlusY) {
  const float half = 0.5f;
  const std::vector<std::array<float, 3>> v = sample3(Opcode::RandCone, 2048, {imm(half)});
  ASSERT_EQ(v.size(), 2048u);
  float widest = 0.0f;
  for (const auto& d : v) {
    EXPECT_NEAR(length3(d), 1.0f, 1e-6f);
    const float angle = std::acos(std::fmin(1.0f, d[1] / length3(d)));
    EXPECT_LE(angle, half + 1e-5f);
    widest = std::fmax(widest, angle);
  }
  EXPECT_GT(widest, 0.45f);  // the cap is filled, not just its centre
  // Half-angle 0: exactly +Y.
  for (const auto& d : sample3(Opcode::RandCone, 16, {imm(0.0f)}))
    EXPECT_EQ(d, (std::array<float, 3>{0.0f, 1.0f, 0.0f}));
}

TEST(ReferenceOp, CurlNoiseIsCurlNoiseOfAScaledPosition) {
  Harness h;
  h.program.constants = {{0.3f, 1.7f, -2.2f, 0.0f}};
  // curl.3 r4, r0, 0.5 and curl.3 r8, r0, r3.x (frequency from a register lane: 0 → curl at 0)
  ASSERT_TRUE(h.run(
      {op(Opcode::LoadConst, 4, 0, {idx(0)}), op(Opcode::CurlNoise, 3, 4, {reg(0), imm(0.5f)}),
       op(Opcode::CurlNoise, 3, 8, {reg(0), reg(3)}), store(kOut, 3, 4), store(kOut + 3, 3, 8)}));
  const std::array<float, 3> c = curlNoise({0.3f * 0.5f, 1.7f * 0.5f, -2.2f * 0.5f});
  const std::array<float, 3> c0 = curlNoise({0.0f, 0.0f, -0.0f});
  EXPECT_EQ(h.out(6), (std::vector<float>{c[0], c[1], c[2], c0[0], c0[1], c0[2]}));
  EXPECT_GT(length3(c), 0.0f);
}

TEST(ReferenceOp, QuatFromAxisAngleNormalisesTheAxis) {
  // qaxis((0, 0, 2), π) = ((0, 0, 1)·sin(π/2), cos(π/2)) = (0, 0, 1, 0)
  Harness h;
  h.program.constants = {{0.0f, 0.0f, 2.0f, 0.0f}};
  ASSERT_TRUE(h.run({op(Opcode::LoadConst, 3, 0, {idx(0)}),
                     op(Opcode::QuatFromAxisAngle, 4, 4, {reg(0), imm(kPi)}),
                     op(Opcode::QuatFromAxisAngle, 4, 8, {imm(0.0f), imm(1.0f)}), store(kOut, 4, 4),
                     store(kOut + 4, 4, 8)}));
  const std::vector<float> q = h.out(8);
  EXPECT_NEAR(q[0], 0.0f, 1e-7f);
  EXPECT_NEAR(q[1], 0.0f, 1e-7f);
  EXPECT_NEAR(q[2], 1.0f, 1e-7f);
  EXPECT_NEAR(q[3], 0.0f, 1e-7f);
  // zero axis: the identity (0, 0, 0, 1) whatever the angle
  EXPECT_EQ((std::vector<float>{q[4], q[5], q[6], q[7]}), (std::vector<float>{0, 0, 0, 1.0f}));
}

TEST(ReferenceOp, QuatMulIsTheHamiltonProduct) {
  const Lanes i{1, 0, 0, 0};
  const Lanes j{0, 1, 0, 0};
  const Lanes one{0, 0, 0, 1};
  // i⊗j = k, j⊗i = -k, i⊗i = -1
  EXPECT_EQ(eval(Opcode::QuatMul, 4, i, j), (std::vector<float>{0, 0, 1, 0}));
  EXPECT_EQ(eval(Opcode::QuatMul, 4, j, i), (std::vector<float>{0, 0, -1, 0}));
  EXPECT_EQ(eval(Opcode::QuatMul, 4, i, i), (std::vector<float>{0, 0, 0, -1}));
  // (1, 2, 3, 4)⊗(5, 6, 7, 8): v = 4·(5, 6, 7) + 8·(1, 2, 3) + (1, 2, 3)×(5, 6, 7)
  //   = (20, 24, 28) + (8, 16, 24) + (-4, 8, -4) = (24, 48, 48); w = 4·8 - (5 + 12 + 21) = -6
  EXPECT_EQ(eval(Opcode::QuatMul, 4, {1, 2, 3, 4}, {5, 6, 7, 8}),
            (std::vector<float>{24, 48, 48, -6}));
  // identities on both sides
  EXPECT_EQ(eval(Opcode::QuatMul, 4, one, {1, 2, 3, 4}), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(eval(Opcode::QuatMul, 4, {1, 2, 3, 4}, one), (std::vector<float>{1, 2, 3, 4}));
}

TEST(ReferenceOp, QuatRotateRotatesByTheNormalisedQuaternion) {
  const float s = std::sin(kPi / 4.0f);
  // 90° about z: (1, 0, 0) → (0, 1, 0); the same quaternion scaled by 3 rotates the same way
  for (const float scale : {1.0f, 3.0f}) {
    const std::vector<float> r =
        eval(Opcode::QuatRotate, 3, {0.0f, 0.0f, scale * s, scale * s}, {1.0f, 0.0f, 0.0f, 0});
    ASSERT_EQ(r.size(), 3u);
    EXPECT_NEAR(r[0], 0.0f, 1e-6f) << scale;
    EXPECT_NEAR(r[1], 1.0f, 1e-6f) << scale;
    EXPECT_NEAR(r[2], 0.0f, 1e-6f) << scale;
  }
  // the zero quaternion leaves the vector as it is
  EXPECT_EQ(eval(Opcode::QuatRotate, 3, {0, 0, 0, 0}, {1.5f, -2.0f, 3.0f, 0}),
            (std::vector<float>{1.5f, -2.0f, 3.0f}));
}

TEST(ReferenceOp, QuatIntegrateTurnsByOmegaTimesDt) {
  // From the identity, ω = (0, 0, π) rad/s for dt = 0.5 s: 90° about z = (0, 0, sin 45°, cos 45°)
  Harness h;
  h.context.builtins[static_cast<std::size_t>(Builtin::Dt)] = {0.5f, 0, 0, 0};
  h.program.constants = {{0.0f, 0.0f, 0.0f, 1.0f}, {0.0f, 0.0f, kPi, 0.0f}};
  ASSERT_TRUE(h.run({op(Opcode::LoadConst, 4, 0, {idx(0)}), op(Opcode::LoadConst, 3, 4, {idx(1)}),
                     op(Opcode::QuatIntegrate, 4, 8, {reg(0), reg(4)}),
                     op(Opcode::QuatIntegrate, 4, 12, {reg(0), imm(0.0f)}), store(kOut, 4, 8),
                     store(kOut + 4, 4, 12)}));
  const std::vector<float> q = h.out(8);
  const float s = std::sqrt(0.5f);
  EXPECT_NEAR(q[0], 0.0f, 1e-6f);
  EXPECT_NEAR(q[1], 0.0f, 1e-6f);
  EXPECT_NEAR(q[2], s, 1e-6f);
  EXPECT_NEAR(q[3], s, 1e-6f);
  // ω = 0: unchanged
  EXPECT_EQ((std::vector<float>{q[4], q[5], q[6], q[7]}), (std::vector<float>{0, 0, 0, 1.0f}));

  // From a = 90° about x = (s, 0, 0, s), s = √½, the turn is applied after a (ω is in world
  // axes): (0, 0, s, s) ⊗ (s, 0, 0, s) = (s·s, s·s, s·s, s·s) = (0.5, 0.5, 0.5, 0.5)
  // (the other order, a ⊗ turn, would give (0.5, -0.5, 0.5, 0.5)).
  h.program.constants[0] = {s, 0.0f, 0.0f, s};
  ASSERT_TRUE(h.run({op(Opcode::LoadConst, 4, 0, {idx(0)}), op(Opcode::LoadConst, 3, 4, {idx(1)}),
                     op(Opcode::QuatIntegrate, 4, 8, {reg(0), reg(4)}), store(kOut, 4, 8)}));
  const std::vector<float> turned = h.out(4);
  for (std::size_t i = 0; i < 4; ++i)
    EXPECT_NEAR(turned[i], 0.5f, 1e-6f) << i;
}

TEST(ReferenceOp, KillKillsOnlyForNonZero) {
  const auto killedBy = [](float value) {
    Harness h;
    EXPECT_TRUE(h.run({op(Opcode::Kill, 1, 0, {imm(value)})}));
    return h.killed;
  };
  EXPECT_FALSE(killedBy(0.0f));
  EXPECT_FALSE(killedBy(-0.0f));
  EXPECT_TRUE(killedBy(1.0f));
  EXPECT_TRUE(killedBy(-0.001f));
  EXPECT_TRUE(killedBy(kNaN));  // "a != 0" holds for nan
  // From a register: lane 0 decides; a later zero kill does not revive.
  Harness h;
  h.program.constants = {{0.0f, 1.0f, 0.0f, 0.0f}};
  ASSERT_TRUE(h.run({op(Opcode::LoadConst, 2, 0, {idx(0)}), op(Opcode::Kill, 1, 0, {reg(0)})}));
  EXPECT_FALSE(h.killed);
  ASSERT_TRUE(h.run({op(Opcode::LoadConst, 2, 0, {idx(0)}), op(Opcode::Kill, 1, 0, {reg(1)}),
                     op(Opcode::Kill, 1, 0, {reg(0)})}));
  EXPECT_TRUE(h.killed);
}

std::array<float, 3> testWind(const std::array<float, 3>& p, void* user) {
  const float gust = *static_cast<const float*>(user);
  return {p[0] + gust, 2.0f * p[1], -p[2]};
}

TEST(ReferenceOp, SampleWindAsksTheHostOrIsStill) {
  Harness h;
  h.program.constants = {{1.0f, 2.0f, 3.0f, 0.0f}};
  float gust = 0.5f;
  h.context.wind = &testWind;
  h.context.windUser = &gust;
  const std::initializer_list<Instruction> code{op(Opcode::LoadConst, 3, 0, {idx(0)}),
                                                op(Opcode::SampleWind, 3, 4, {reg(0)}),
                                                store(kOut, 3, 4)};
  // at (1, 2, 3): (1 + 0.5, 2·2, -3)
  ASSERT_TRUE(h.run(code));
  EXPECT_EQ(h.out(3), (std::vector<float>{1.5f, 4.0f, -3.0f}));
  h.context.wind = nullptr;
  ASSERT_TRUE(h.run(code));
  EXPECT_EQ(h.out(3), (std::vector<float>{0.0f, 0.0f, 0.0f}));
}

// The ground y = 0 as a host world: a sphere's centre meets it at y = radius.
class Floor final : public CollisionProvider {
 public:
  void cast(std::span<const CollisionCast> casts, std::span<CollisionHit> hits) const override {
    for (std::size_t i = 0; i < casts.size(); ++i) {
      const CollisionCast& c = casts[i];
      const float above = c.from[1] - c.radius;
      const float below = c.to[1] - c.radius;
      hits[i] = {};
      if (!(above >= 0.0f && below < 0.0f)) continue;
      const float dx = c.to[0] - c.from[0];
      const float dy = c.to[1] - c.from[1];
      const float dz = c.to[2] - c.from[2];
      hits[i].hit = true;
      hits[i].normal = {0.0f, 1.0f, 0.0f};
      hits[i].distance = above / (above - below) * std::sqrt(dx * dx + dy * dy + dz * dz);
    }
  }
};

TEST(ReferenceOp, CollideAsksTheHostOrMisses) {
  Harness h;
  h.program.constants = {
      {0.0f, 2.0f, 0.0f, 0.0f}, {0.0f, -2.0f, 0.0f, 0.0f}, {0.0f, 1.0f, 0.0f, 0.0f}};
  const Floor floor;
  h.context.collision = &floor;
  // From (0, 2, 0) to (0, -2, 0), radius 0.5: the centre meets the ground at y = 0.5, 1.5 m
  // along; the end lies 2.5 m behind that plane.
  const auto run = [&](std::uint32_t to) {
    return h.run({op(Opcode::LoadConst, 3, 0, {idx(0)}), op(Opcode::LoadConst, 3, 4, {idx(to)}),
                  op(Opcode::Collide, 4, 8, {reg(0), reg(4), imm(0.5f)}), store(kOut, 4, 8)});
  };
  ASSERT_TRUE(run(1));
  EXPECT_EQ(h.out(4), (std::vector<float>{0.0f, 1.0f, 0.0f, 2.5f}));
  // To (0, 1, 0): the sphere stops short of the ground.
  ASSERT_TRUE(run(2));
  EXPECT_EQ(h.out(4), (std::vector<float>{0.0f, 0.0f, 0.0f, -1.0f}));
  // No host world: nothing is hit.
  h.context.collision = nullptr;
  ASSERT_TRUE(run(1));
  EXPECT_EQ(h.out(4), (std::vector<float>{0.0f, 0.0f, 0.0f, -1.0f}));
}

struct SpawnLog {
  std::vector<std::array<float, 5>> requests;  // target, count, x, y, z
};

void logSpawn(std::uint32_t target, std::uint32_t count, const std::array<float, 3>& at,
              const Inheritance& /*inherit*/, std::uint32_t /*source*/, void* user) {
  static_cast<SpawnLog*>(user)->requests.push_back(
      {static_cast<float>(target), static_cast<float>(count), at[0], at[1], at[2]});
}

TEST(ReferenceOp, SpawnQueuesWholeParticlesAtAPosition) {
  Harness h;
  h.program.constants = {{1.0f, 2.0f, 3.0f, 0.0f}};
  SpawnLog log;
  h.context.spawn = &logSpawn;
  h.context.spawnUser = &log;
  // floor(2.75) = 2 into emitter 4 at (1, 2, 3); 0.5, -3 and nan queue nothing.
  ASSERT_TRUE(h.run({op(Opcode::LoadConst, 3, 0, {idx(0)}),
                     op(Opcode::Spawn, 1, 0, {idx(4), imm(2.75f), reg(0)}),
                     op(Opcode::Spawn, 1, 0, {idx(4), imm(0.5f), reg(0)}),
                     op(Opcode::Spawn, 1, 0, {idx(4), imm(-3.0f), reg(0)}),
                     op(Opcode::Spawn, 1, 0, {idx(1), imm(kNaN), reg(0)})}));
  ASSERT_EQ(log.requests.size(), 1u);
  EXPECT_EQ(log.requests[0], (std::array<float, 5>{4.0f, 2.0f, 1.0f, 2.0f, 3.0f}));
  // Without a host callback the requests are dropped.
  h.context.spawn = nullptr;
  ASSERT_TRUE(h.run({op(Opcode::LoadConst, 3, 0, {idx(0)}),
                     op(Opcode::Spawn, 1, 0, {idx(4), imm(9.0f), reg(0)})}));
  EXPECT_EQ(log.requests.size(), 1u);
}

TEST(ReferenceOp, SpawniPassesWhatTheNewbornsInherit) {
  Harness h;
  h.program.constants = {{1.0f, 2.0f, 3.0f, 2.5f}, {-1.0f, 0.5f, 0.0f, 3.0f}};
  std::vector<std::pair<std::uint32_t, Inheritance>> log;
  h.context.spawn = [](std::uint32_t target, std::uint32_t count, const std::array<float, 3>& at,
                       const Inheritance& inherit, std::uint32_t /*source*/, void* user) {
    EXPECT_EQ(at, (std::array<float, 3>{1.0f, 2.0f, 3.0f}));
    EXPECT_EQ(count, 2u);
    static_cast<std::vector<std::pair<std::uint32_t, Inheritance>>*>(user)->emplace_back(target,
                                                                                         inherit);
  };
  h.context.spawnUser = &log;
  // floor(2.5) = 2 into emitter 7 (the dst field) at a.xyz, passing b.xyz, b.w and c; an
  // immediate c is the same colour in every lane. A count of 0.5 or NaN queues nothing.
  ASSERT_TRUE(h.run({op(Opcode::LoadConst, 4, 0, {idx(0)}), op(Opcode::LoadConst, 4, 4, {idx(1)}),
                     op(Opcode::SpawnInherit, 1, 7, {reg(0), reg(4), reg(4, {3, 1, 1, 2})}),
                     op(Opcode::SpawnInherit, 1, 7, {reg(0), reg(4), imm(0.25f)}),
                     op(Opcode::Mov, 1, 3, {imm(0.5f)}),
                     op(Opcode::SpawnInherit, 1, 7, {reg(0), reg(4), reg(4)}),
                     op(Opcode::Mov, 1, 3, {imm(kNaN)}),
                     op(Opcode::SpawnInherit, 1, 7, {reg(0), reg(4), reg(4)})}));
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(log[0].first, 7u);
  EXPECT_EQ(log[0].second, (Inheritance{{-1.0f, 0.5f, 0.0f}, 3.0f, {3.0f, 0.5f, 0.5f, 0.0f}}));
  EXPECT_EQ(log[1].second, (Inheritance{{-1.0f, 0.5f, 0.0f}, 3.0f, {0.25f, 0.25f, 0.25f, 0.25f}}));
  // SPAWN passes the neutral inheritance.
  log.clear();
  ASSERT_TRUE(h.run({op(Opcode::LoadConst, 4, 0, {idx(0)}),
                     op(Opcode::Spawn, 1, 0, {idx(7), imm(2.0f), reg(0)})}));
  ASSERT_EQ(log.size(), 1u);
  EXPECT_EQ(log[0].second, Inheritance{});
  EXPECT_EQ(Inheritance{}, (Inheritance{{0.0f, 0.0f, 0.0f}, 1.0f, {1.0f, 1.0f, 1.0f, 1.0f}}));
}

TEST(ReferenceOp, TrailPassesItsPathSizeAndColour) {
  Harness h;
  h.program.constants = {{1.0f, 2.0f, 3.0f, 3.75f}, {-1.0f, 0.5f, 0.0f, 2.0f}};
  std::vector<std::pair<std::uint32_t, Inheritance>> log;
  h.context.spawn = [](std::uint32_t target, std::uint32_t count, const std::array<float, 3>& at,
                       const Inheritance& inherit, std::uint32_t /*source*/, void* user) {
    EXPECT_EQ(at, (std::array<float, 3>{1.0f, 2.0f, 3.0f}));
    EXPECT_EQ(count, 3u);
    static_cast<std::vector<std::pair<std::uint32_t, Inheritance>>*>(user)->emplace_back(target,
                                                                                         inherit);
  };
  h.context.spawnUser = &log;
  // floor(3.75) = 3 into emitter 5 (the dst field) along (-1, 0.5, 0) -> (1, 2, 3), size 2,
  // colour c; no velocity (the runtime makes it from the path). 0.5 and NaN queue nothing.
  ASSERT_TRUE(h.run(
      {op(Opcode::LoadConst, 4, 0, {idx(0)}), op(Opcode::LoadConst, 4, 4, {idx(1)}),
       op(Opcode::Trail, 1, 5, {reg(0), reg(4), reg(4, {3, 1, 1, 2})}),
       op(Opcode::Mov, 1, 3, {imm(0.5f)}), op(Opcode::Trail, 1, 5, {reg(0), reg(4), reg(4)}),
       op(Opcode::Mov, 1, 3, {imm(kNaN)}), op(Opcode::Trail, 1, 5, {reg(0), reg(4), reg(4)})}));
  ASSERT_EQ(log.size(), 1u);
  EXPECT_EQ(log[0].first, 5u);
  Inheritance expected{{0.0f, 0.0f, 0.0f}, 2.0f, {2.0f, 0.5f, 0.5f, 0.0f}};
  expected.from = {-1.0f, 0.5f, 0.0f};
  expected.trail = true;
  EXPECT_EQ(log[0].second, expected);
}

TEST(ReferenceOp, ReportTellsTheHostWhereItsFlagIsSet) {
  Harness h;
  h.program.constants = {{1.0f, 2.0f, 3.0f, 1.0f}, {-1.0f, 0.5f, 0.0f, 7.9f}};
  struct Told {
    ReportKind kind;
    std::uint32_t tag;
    std::array<float, 3> at;
    std::array<float, 3> velocity;
  };
  std::vector<Told> log;
  h.context.report = [](ReportKind kind, std::uint32_t tag, const std::array<float, 3>& at,
                        const std::array<float, 3>& velocity, std::uint32_t /*source*/,
                        void* user) {
    static_cast<std::vector<Told>*>(user)->push_back({kind, tag, at, velocity});
  };
  h.context.reportUser = &log;
  // Kind 1 (death) with flag 1 and tag floor(7.9) = 7; kind 3 (custom) with tag −2 → 0 and NaN →
  // 0; flags 0.5, 0 and NaN tell nothing.
  ASSERT_TRUE(
      h.run({op(Opcode::LoadConst, 4, 0, {idx(0)}), op(Opcode::LoadConst, 4, 4, {idx(1)}),
             op(Opcode::Report, 1, 1, {reg(0), reg(4)}), op(Opcode::Mov, 1, 7, {imm(-2.0f)}),
             op(Opcode::Report, 1, 3, {reg(0), reg(4)}), op(Opcode::Mov, 1, 7, {imm(kNaN)}),
             op(Opcode::Report, 1, 3, {reg(0), reg(4)}), op(Opcode::Mov, 1, 3, {imm(0.5f)}),
             op(Opcode::Report, 1, 2, {reg(0), reg(4)}), op(Opcode::Mov, 1, 3, {imm(kNaN)}),
             op(Opcode::Report, 1, 2, {reg(0), reg(4)})}));
  ASSERT_EQ(log.size(), 3u);
  EXPECT_EQ(log[0].kind, ReportKind::Death);
  EXPECT_EQ(log[0].tag, 7u);
  EXPECT_EQ(log[0].at, (std::array<float, 3>{1.0f, 2.0f, 3.0f}));
  EXPECT_EQ(log[0].velocity, (std::array<float, 3>{-1.0f, 0.5f, 0.0f}));
  EXPECT_EQ(log[1].kind, ReportKind::Custom);
  EXPECT_EQ(log[1].tag, 0u);
  EXPECT_EQ(log[2].tag, 0u);
  // Without a host callback the reports are dropped.
  h.context.report = nullptr;
  ASSERT_TRUE(
      h.run({op(Opcode::LoadConst, 4, 0, {idx(0)}), op(Opcode::Report, 1, 0, {reg(0), reg(0)})}));
  EXPECT_EQ(log.size(), 3u);
}

// --- operand forms, sections, random streams

TEST(Reference, SwizzledSourcesReadTheNamedLanes) {
  Harness h;
  h.program.constants = {{1.0f, 2.0f, 3.0f, 4.0f}};
  ASSERT_TRUE(h.run({op(Opcode::LoadConst, 4, 0, {idx(0)}),
                     op(Opcode::Mov, 4, 4, {reg(0, {2, 1, 0, 3})}),   // r0.zyxw
                     op(Opcode::Mov, 4, 8, {reg(0, {0, 0, 0, 0})}),   // r0.xxxx
                     op(Opcode::Mov, 4, 12, {reg(2, {1, 0, 1, 0})}),  // r2.yxyx = r3, r2, r3, r2
                     // (3, 2, 1)·(1, 1, 1) = 6 reading r0.zyx
                     op(Opcode::Dot, 3, 16, {reg(0, {2, 1, 0, 3}), imm(1.0f)}), store(kOut, 4, 4),
                     store(kOut + 4, 4, 8), store(kOut + 8, 4, 12), store(kOut + 12, 1, 16)}));
  EXPECT_EQ(h.out(13), (std::vector<float>{3, 2, 1, 4, 1, 1, 1, 1, 4, 3, 4, 3, 6}));
}

TEST(Reference, ImmediatesAreTheSameInEveryLaneAndKeepTheirBits) {
  Harness h;
  h.program.constants = {{1.0f, 2.0f, 3.0f, 4.0f}};
  const float tiny = std::numeric_limits<float>::denorm_min();
  ASSERT_TRUE(h.run({op(Opcode::LoadConst, 4, 0, {idx(0)}),
                     op(Opcode::Add, 4, 4, {reg(0), imm(0.5f)}),                // r0 + 0.5
                     op(Opcode::Fma, 2, 8, {imm(2.0f), imm(3.0f), imm(4.0f)}),  // 2·3 + 4
                     op(Opcode::Mov, 2, 10, {imm(-0.0f)}), op(Opcode::Mov, 1, 12, {imm(tiny)}),
                     store(kOut, 4, 4), store(kOut + 4, 2, 8), store(kOut + 6, 3, 10)}));
  const std::vector<float> r = h.out(9);
  EXPECT_EQ(r, (std::vector<float>{1.5f, 2.5f, 3.5f, 4.5f, 10.0f, 10.0f, 0.0f, 0.0f, tiny}));
  EXPECT_TRUE(std::signbit(r[6]));
  EXPECT_TRUE(std::signbit(r[7]));
}

using Keys = std::vector<std::pair<float, Lanes>>;

// CURVE over the table of `keys` at pool entry 0: curve.width r0, #0, t, #(keys | interp << 16).
std::vector<float> curveAt(const Keys& keys, CurveTableInterp interp, std::uint32_t width,
                           float t) {
  Harness h;
  h.program.constants = semantics::curveTableOf(keys, width);
  const auto count = static_cast<std::uint32_t>(keys.size());
  const ::testing::AssertionResult ran =
      h.run({op(Opcode::Curve, width, 0, {idx(0), imm(t), idx(curveKeysWord(count, interp))}),
             store(kOut, width, 0)});
  EXPECT_TRUE(ran);
  return h.out(width);
}

Lanes all(float v) {
  return {v, v, v, v};
}

TEST(ReferenceOp, CurveHoldsTheEndsSearchesTheSegmentAndLerps) {
  // Keys (0, 10), (0.5, 20), (0.5, 40), (1, 0): a jump at 0.5, where the later key wins.
  const Keys keys = {{0.0f, all(10.0f)}, {0.5f, all(20.0f)}, {0.5f, all(40.0f)}, {1.0f, all(0.0f)}};
  // The table: times; values A_j; deltas d_j (four a pool entry at width 1).
  EXPECT_EQ(semantics::curveTableOf(keys, 1), (std::vector<Lanes>{{0.0f, 0.5f, 0.5f, 1.0f},
                                                                  {10.0f, 20.0f, 40.0f, 0.0f},
                                                                  {10.0f, 20.0f, -40.0f, 0.0f}}));
  const auto at = [&](CurveTableInterp interp, float t) { return curveAt(keys, interp, 1, t)[0]; };
  using enum CurveTableInterp;
  EXPECT_EQ(at(Linear, -1.0f), 10.0f);  // before the first key: its value
  EXPECT_EQ(at(Linear, 0.25f), 15.0f);  // fma(20 − 10, saturate(0.25 · (1 / 0.5)), 10)
  EXPECT_EQ(at(Linear, 0.5f), 40.0f);   // the duplicate time: the last key there
  EXPECT_EQ(at(Linear, 0.75f), 20.0f);  // fma(0 − 40, 0.5, 40)
  EXPECT_EQ(at(Linear, 1.0f), 0.0f);
  EXPECT_EQ(at(Linear, 7.0f), 0.0f);  // after the last key: its value
  EXPECT_EQ(at(Linear, kInf), 0.0f);
  EXPECT_EQ(at(Linear, -kInf), 10.0f);
  EXPECT_EQ(at(Linear, kNaN), 10.0f);  // NaN is the first key's time
  EXPECT_EQ(at(Step, 0.25f), 10.0f);   // a step holds each key's value until the next
  EXPECT_EQ(at(Step, 0.75f), 40.0f);
  EXPECT_EQ(at(Step, 1.0f), 0.0f);
  EXPECT_EQ(at(Smooth, 0.25f), 15.0f);                      // smooth(0, 0.5, 0.25) = 0.5
  EXPECT_EQ(at(Smooth, 0.125f), 10.0f + 10.0f * 0.15625f);  // u = 0.25: u² (3 − 2u)
  EXPECT_EQ(at(Smooth, 0.5f), 40.0f);

  // A gradient (4 wide): one pool entry per value and per delta.
  const Keys gradient = {{0.0f, {0.0f, 0.0f, 0.0f, 1.0f}}, {1.0f, {1.0f, 2.0f, 4.0f, 1.0f}}};
  EXPECT_EQ(semantics::curveTableOf(gradient, 4), (std::vector<Lanes>{{0.0f, 1.0f, 0.0f, 0.0f},
                                                                      {0.0f, 0.0f, 0.0f, 1.0f},
                                                                      {1.0f, 2.0f, 4.0f, 1.0f},
                                                                      {1.0f, 2.0f, 4.0f, 0.0f}}));
  EXPECT_EQ(curveAt(gradient, Linear, 4, 0.5f), (std::vector<float>{0.5f, 1.0f, 2.0f, 1.0f}));
  // A single key is its value at every t.
  EXPECT_EQ(curveAt({{0.3f, all(-7.0f)}}, Linear, 1, kNaN)[0], -7.0f);
}

// The values are the running sum of the deltas, as the compiler's old arithmetic reached them
// (v0 + Σ d_i · s_i, one fma a segment): A_j is not always v_j. Keys 1, 1e-8, 1: d_0 = 1e-8 − 1
// rounds to −1, so A_1 = 0 (not 1e-8) and A_2 = 1.
TEST(Reference, CurveValuesAreTheRunningSumOfTheDeltas) {
  const Keys keys = {{0.0f, all(1.0f)}, {0.5f, all(1e-8f)}, {1.0f, all(1.0f)}};
  const std::vector<Lanes> table = semantics::curveTableOf(keys, 1);
  EXPECT_EQ(table[1][1], 0.0f);
  EXPECT_EQ(table[2][0], -1.0f);
  EXPECT_EQ(curveAt(keys, CurveTableInterp::Linear, 1, 0.5f)[0], 0.0f);
  EXPECT_EQ(curveAt(keys, CurveTableInterp::Linear, 1, 1.0f)[0], 1.0f);
}

// Just past a key, a linear segment's parameter saturate((t − a) · (1 / (b − a))) can still be
// below 1 (the reciprocal rounds); the running sum then adds that segment's delta times it, as
// the arithmetic did, not the whole delta.
TEST(Reference, CurveSumsASegmentThatHasNotReachedOneYet) {
  // 0.85 · (1 / 0.85) rounds to 1 − 2^-24 in f32: at t = 0.85 segment 0 is not quite done.
  const float s = 0.85f * (1.0f / 0.85f);
  ASSERT_LT(s, 1.0f);
  const Keys keys = {{0.0f, all(0.0f)}, {0.85f, all(3.0f)}, {1.0f, all(5.0f)}};
  EXPECT_EQ(curveAt(keys, CurveTableInterp::Linear, 1, 0.85f)[0], std::fma(3.0f, s, 0.0f));
  EXPECT_LT(curveAt(keys, CurveTableInterp::Linear, 1, 0.85f)[0], 3.0f);
  EXPECT_EQ(curveAt(keys, CurveTableInterp::Linear, 1, 0.9f)[0],
            std::fma(2.0f, (0.9f - 0.85f) * (1.0f / (1.0f - 0.85f)), 3.0f));
}

// CURVE against the arithmetic the compiler emitted for curves before it (docs/compiler.md,
// "Curves"): v_0 + Σ_i (v_{i+1} − v_i) · s_i(t), one fma per segment over every segment, written
// out here with the ISA's formulas. Bit for bit at and around every key time and over a sweep,
// for keys with jumps, a reciprocal that rounds short (0.85) and random keys.
TEST(Reference, CurveIsTheOldArithmeticBitForBit) {
  const auto arithmetic = [](const Keys& keys, CurveTableInterp interp, std::uint32_t lane,
                             float t) {
    float acc = keys[0].second[lane];
    for (std::size_t i = 0; i + 1 < keys.size(); ++i) {
      const float t0 = keys[i].first;
      const float t1 = keys[i + 1].first;
      float s;
      if (interp == CurveTableInterp::Step || t1 <= t0) {
        s = t1 <= t ? 1.0f : 0.0f;
      } else if (interp == CurveTableInterp::Smooth) {
        float u = (t - t0) / (t1 - t0);
        u = u < 0.0f ? 0.0f : (u > 1.0f ? 1.0f : u);
        s = u * u * (3.0f - 2.0f * u);
      } else {
        const float u = (t - t0) * (1.0f / (t1 - t0));
        const float m = u < 0.0f ? 0.0f : u;
        s = 1.0f < m ? 1.0f : m;
      }
      acc = std::fma(keys[i + 1].second[lane] - keys[i].second[lane], s, acc);
    }
    return acc;
  };
  std::vector<Keys> sets = {{{0.0f, {0.0f, 1.0f, -2.0f, 0.5f}},
                             {0.85f, {3.0f, 0.1f, 7.0f, 1.0f}},
                             {0.85f, {-1.0f, 0.2f, 0.3f, 0.0f}},
                             {0.9f, {2.5f, 1.0f / 3.0f, 5.0f, 0.25f}},
                             {0.95f, {0.7f, 0.6f, 0.1f, 0.2f}},
                             {1.0f, {5.0f, 0.0f, 1.0f, 1.0f}}},
                            // bonfire's flame colour
                            {{0.0f, {1.0f, 1.0f, 1.0f, 0.0f}},
                             {0.15f, {1.0f, 1.0f, 1.0f, 1.0f}},
                             {0.6f, {1.0f, 0.5f, 0.2f, 0.8f}},
                             {1.0f, {0.6f, 0.1f, 0.05f, 0.0f}}}};
  std::uint32_t seed = 12345;
  const auto next = [&seed] {
    seed = seed * 1664525u + 1013904223u;
    return static_cast<float>(seed >> 8) / 16777216.0f;
  };
  for (int set = 0; set < 20; ++set) {
    Keys keys;
    float time = 0.0f;
    const int count = 2 + set % 9;
    for (int k = 0; k < count; ++k) {
      if (k > 0 && next() < 0.8f) time += next() * 0.3f;  // else a jump
      keys.push_back({time, {next() * 4.0f - 2.0f, next(), next() * 100.0f, next() * 1e-3f}});
    }
    sets.push_back(keys);
  }
  int checked = 0;
  for (const Keys& keys : sets) {
    std::vector<float> ts;
    for (const auto& key : keys) {
      float t = key.first;
      for (int k = 0; k < 6; ++k)
        t = std::nextafter(t, -10.0f);
      for (int k = 0; k < 13; ++k, t = std::nextafter(t, 10.0f))
        ts.push_back(t);
    }
    for (int k = 0; k <= 400; ++k)
      ts.push_back(-0.1f + static_cast<float>(k) * (1.2f / 400.0f) * keys.back().first);
    ts.push_back(kInf);
    ts.push_back(-kInf);
    for (const CurveTableInterp interp :
         {CurveTableInterp::Linear, CurveTableInterp::Step, CurveTableInterp::Smooth}) {
      Harness h;
      h.program.constants = semantics::curveTableOf(keys, 4);
      const semantics::CurveTable table{h.program.constants.data(),
                                        static_cast<std::uint32_t>(keys.size()), 4, interp};
      for (const float t : ts) {
        const Lanes got = semantics::curve(table, t);
        for (std::uint32_t lane = 0; lane < 4; ++lane) {
          const float want = arithmetic(keys, interp, lane, t);
          // The arithmetic adds the segments after t's as (+0 or −0) · d: it can turn a −0 into +0.
          if (want == 0.0f && got[lane] == 0.0f) continue;
          ASSERT_EQ(std::bit_cast<std::uint32_t>(got[lane]), std::bit_cast<std::uint32_t>(want))
              << "t " << t << " lane " << lane << " interp " << static_cast<int>(interp) << " keys "
              << keys.size() << ": curve " << got[lane] << ", arithmetic " << want;
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 50000);
}

TEST(Reference, DestinationMayOverlapItsSources) {
  // r0 = (1, 2, 3); cross.3 r0, r0.yzx, r0 reads both before writing:
  // (2, 3, 1) × (1, 2, 3) = (3·3 - 1·2, 1·1 - 2·3, 2·2 - 3·1) = (7, -5, 1)
  Harness h;
  h.program.constants = {{1.0f, 2.0f, 3.0f, 0.0f}};
  ASSERT_TRUE(h.run({op(Opcode::LoadConst, 3, 0, {idx(0)}),
                     op(Opcode::Cross, 3, 0, {reg(0, {1, 2, 0, 3}), reg(0)}), store(kOut, 3, 0)}));
  EXPECT_EQ(h.out(3), (std::vector<float>{7.0f, -5.0f, 1.0f}));
}

TEST(Reference, RunsOnlyTheRequestedSection) {
  Harness h;
  h.program.init = words({op(Opcode::StoreField, 1, 0, {idx(0), imm(1.0f)})});
  h.program.update = words(
      {op(Opcode::StoreField, 1, 0, {idx(1), imm(2.0f)}), op(Opcode::Kill, 1, 0, {imm(1.0f)})});
  Result<VerifiedProgram> verified = verify(h.program);
  ASSERT_TRUE(verified.ok()) << verified.status().message();
  EXPECT_FALSE(runReference(*verified, Section::Init, h.particle, h.context));
  EXPECT_EQ(h.out(2, 0), (std::vector<float>{1.0f, kUnset}));
  EXPECT_TRUE(runReference(*verified, Section::Update, h.particle, h.context));
  EXPECT_EQ(h.out(2, 0), (std::vector<float>{1.0f, 2.0f}));
}

TEST(Reference, RandomDrawsAreDeterministicPerSeedCounterAndDrawIndex) {
  // Draw 0 twice, then draw 1, at each (seed, counter).
  const auto draws = [](std::uint64_t seed, std::uint64_t counter) {
    Harness h;
    h.context.seed = seed;
    h.context.randomCounter = counter;
    EXPECT_TRUE(h.run(
        {op(Opcode::RandUniform, 4, 0, {idx(0)}), op(Opcode::RandUniform, 4, 4, {idx(0)}),
         op(Opcode::RandUniform, 4, 8, {idx(1)}), store(0, 4, 0), store(4, 4, 4), store(8, 4, 8)}));
    return h.out(12, 0);
  };
  const std::vector<float> a = draws(kSeed, 9);
  EXPECT_EQ(a, draws(kSeed, 9));                             // run to run
  EXPECT_EQ((std::vector<float>(a.begin(), a.begin() + 4)),  // same draw index
            (std::vector<float>(a.begin() + 4, a.begin() + 8)));
  EXPECT_NE((std::vector<float>(a.begin(), a.begin() + 4)),  // another draw index
            (std::vector<float>(a.begin() + 8, a.end())));
  EXPECT_NE(a, draws(kSeed, 10));     // another particle
  EXPECT_NE(a, draws(kSeed + 1, 9));  // another seed
  for (std::uint64_t counter = 0; counter < 1000; ++counter)
    for (const float u : draws(kSeed, counter)) {
      EXPECT_GE(u, 0.0f);
      EXPECT_LT(u, 1.0f);
    }
}

TEST(Reference, RandRangeStaysInLoHiForOrdinaryRanges) {
  for (std::uint64_t counter = 0; counter < 1000; ++counter) {
    Harness h;
    h.context.seed = kSeed;
    h.context.randomCounter = counter;
    ASSERT_TRUE(
        h.run({op(Opcode::RandRange, 2, 0, {idx(4), imm(-3.0f), imm(0.25f)}), store(0, 2, 0)}));
    for (const float v : h.out(2, 0)) {
      EXPECT_GE(v, -3.0f);
      EXPECT_LT(v, 0.25f);
    }
  }
}

// The terms ∂c_axis/∂axis of curlNoise's divergence at p, by central differences with `step`.
std::array<float, 3> divergenceTerms(const std::array<float, 3>& p, float step) {
  std::array<float, 3> terms{};
  for (std::size_t axis = 0; axis < 3; ++axis) {
    std::array<float, 3> plus = p;
    std::array<float, 3> minus = p;
    plus[axis] += step;
    minus[axis] -= step;
    terms[axis] = (curlNoise(plus)[axis] - curlNoise(minus)[axis]) / (2.0f * step);
  }
  return terms;
}

TEST(Reference, CurlNoiseIsDivergenceFree) {
  const std::array<std::array<float, 3>, 5> points{{{0.3f, 1.7f, -2.2f},
                                                    {0.5f, 0.5f, 0.5f},
                                                    {-3.7f, 2.1f, 8.9f},
                                                    {10.25f, -0.6f, 0.05f},
                                                    {1.1f, 2.2f, 3.3f}}};
  for (const auto& p : points) {
    SCOPED_TRACE(testing::Message() << p[0] << ", " << p[1] << ", " << p[2]);
    const std::array<float, 3> t = divergenceTerms(p, 1.0f / 64.0f);
    // The terms are O(1) (so a zero sum is not vacuous)…
    EXPECT_GT(std::fmax(std::fabs(t[0]), std::fmax(std::fabs(t[1]), std::fabs(t[2]))), 0.05f);
    // …and cancel up to differencing and rounding error.
    EXPECT_NEAR(t[0] + t[1] + t[2], 0.0f, 1e-2f);
  }
}

}  // namespace
}  // namespace mote::bytecode
