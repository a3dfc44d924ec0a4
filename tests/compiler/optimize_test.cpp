// SPDX-License-Identifier: MIT
// The compiler's IR passes: each simplification keeps every result bit-exact (signed zeros, NaN,
// infinities), and the ones that would not be exact are not made.
#include "ir.h"

#include <mote/bytecode/assembler.h>
#include <mote/bytecode/reference.h>

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace mote::compiler {
namespace {

// The section as an UPDATE program (register allocation; optimize first when asked).
bytecode::Program program(Builder& b, bool optimized) {
  if (optimized) optimize(b.nodes());
  bytecode::Program p;
  std::vector<Lanes> constants;
  const Result<std::uint32_t> registers = emitSection(b.nodes(), p.update, constants);
  EXPECT_TRUE(registers.ok());
  p.constants = constants;
  p.registerCount = registers.ok() ? registers.value() : 0;
  p.particleWords = 8;
  return p;
}

// The section's assembly after optimize + register allocation (one instruction per line).
std::string emitted(Builder& b) {
  const std::string text = bytecode::disassemble(program(b, true));
  return text.substr(text.find(".update"));
}

TEST(Optimize, ExactIdentitiesAreRemoved) {
  Builder b;
  const Value x = b.loadField(0, 1);
  const Value dt = b.builtin(bytecode::Builtin::Dt);
  // ((x - 0) * 1) / 1 + -0, then sat(sat(·)), then fma(1, ·, dt).
  Value v = b.div(b.mul(b.sub(x, b.scalar(0.0f)), b.scalar(1.0f)), b.scalar(1.0f));
  v = b.add(v, b.scalar(-0.0f));
  v = b.saturate(b.saturate(v));
  v = b.fma(b.scalar(1.0f), v, dt);
  b.storeField(0, v);
  EXPECT_EQ(emitted(b),
            ".update\n"
            "  ldf.1 r0, #0\n"
            "  ldb.1 r1, #0\n"
            "  sat.1 r0, r0\n"
            "  add.1 r0, r0, r1\n"
            "  stf.1 #0, r0\n");
}

TEST(Optimize, InexactLookalikesStay) {
  Builder b;
  const Value x = b.loadField(0, 1);
  // x + (+0) turns -0 into +0, x - (-0) likewise, x * -1 is not x: none is removed.
  Value v = b.add(x, b.scalar(0.0f));
  v = b.sub(v, b.scalar(-0.0f));
  v = b.mul(v, b.scalar(-1.0f));
  b.storeField(0, v);
  const std::string text = emitted(b);
  EXPECT_NE(text.find("add.1"), std::string::npos) << text;
  EXPECT_NE(text.find("sub.1"), std::string::npos) << text;
  EXPECT_NE(text.find("mul.1"), std::string::npos) << text;
}

TEST(Optimize, StoringBackAnUnchangedLoadIsElidedButNotAfterAnotherStore) {
  Builder b;
  const Value v = b.loadField(2, 3);
  b.storeField(2, v);  // a no-op
  const Value w = b.loadField(5, 1);
  b.storeField(5, b.builtin(bytecode::Builtin::Dt));
  b.storeField(5, w);  // restores the old value: must stay
  EXPECT_EQ(emitted(b),
            ".update\n"
            "  ldf.1 r0, #5\n"
            "  ldb.1 r1, #0\n"
            "  stf.1 #5, r1\n"
            "  stf.1 #5, r0\n");
}

TEST(Optimize, SelectsOfOneOperandOrAConstantConditionAndCopiesForward) {
  Builder b;
  const Value x = b.loadField(0, 1);
  const Value y = b.loadField(1, 1);
  const Value same = b.select(y, x, b.lane(x, 0));  // both sides read x
  const Value pick = b.select(b.scalar(1.0f), same, y);
  const Value both = b.compose({pick, pick});  // a 2-wide broadcast through selects
  b.storeField(2, both);
  EXPECT_EQ(emitted(b),
            ".update\n"
            "  ldf.1 r0, #0\n"
            "  stf.2 #2, r0.xxxx\n");
}

// Constant folding computes what the executors compute, bit for bit: each foldable op (Mote's
// own sin, cos, exp, log and pow among them) on literal operands — special values and random
// ones — folds to the reference executor's result of the unfolded instruction.
TEST(Optimize, FoldingGivesTheReferenceExecutorsBits) {
  using bytecode::Opcode;
  constexpr float kInf = std::numeric_limits<float>::infinity();
  std::vector<float> inputs{
      0.0f,   -0.0f, 1.0f,    -1.0f, 0.5f, 2.0f,  -3.0f,
      1e-40f, 88.7f, -104.0f, 1e30f, kInf, -kInf, std::numeric_limits<float>::quiet_NaN()};
  std::mt19937 rng(5);
  for (int k = 0; k < 40; ++k)
    inputs.push_back(std::uniform_real_distribution<float>(-20.0f, 20.0f)(rng));
  const auto run = [](const bytecode::Program& p) {
    const Result<bytecode::VerifiedProgram> verified = bytecode::verify(p);
    EXPECT_TRUE(verified.ok()) << verified.status().toString();
    std::vector<float> particle(8, 0.0f);
    if (verified.ok()) bytecode::runReference(*verified, bytecode::Section::Update, particle, {});
    return particle[0];
  };
  std::size_t folded = 0;
  for (const Opcode op : {Opcode::Sin, Opcode::Cos, Opcode::Exp, Opcode::Log, Opcode::Pow,
                          Opcode::Sqrt, Opcode::Min, Opcode::Max, Opcode::Div, Opcode::Floor}) {
    const bool binary = bytecode::opInfo(op).sources[1] == bytecode::SourceRule::Value;
    for (const float a : inputs) {
      for (std::size_t j = 0; j < (binary ? inputs.size() : 1); ++j) {
        Builder b;
        const Operand second = binary ? b.use(b.scalar(inputs[j])) : Operand{};
        b.storeField(0, b.emit(op, 1, b.use(b.scalar(a)), second));
        Builder unfolded = b;
        const bytecode::Program p = program(b, true);
        const bytecode::Program q = program(unfolded, false);
        ASSERT_EQ(p.update.size(), bytecode::kWordsPerInstruction) << "folded to one store";
        const float want = run(q);
        const float got = run(p);
        EXPECT_TRUE(std::bit_cast<std::uint32_t>(got) == std::bit_cast<std::uint32_t>(want) ||
                    (std::isnan(got) && std::isnan(want)))
            << bytecode::opInfo(op).mnemonic << "(" << a << (binary ? ", " : "")
            << (binary ? std::to_string(inputs[j]) : "") << "): folded " << got << ", executed "
            << want;
        ++folded;
      }
    }
  }
  EXPECT_GT(folded, 10000u);
}

}  // namespace
}  // namespace mote::compiler
