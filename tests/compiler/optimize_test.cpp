// SPDX-License-Identifier: MIT
// The compiler's IR passes: each simplification keeps every result bit-exact (signed zeros, NaN,
// infinities), and the ones that would not be exact are not made.
#include "ir.h"

#include <mote/bytecode/assembler.h>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace mote::compiler {
namespace {

// The section's assembly after optimize + register allocation (one instruction per line).
std::string emitted(Builder& b) {
  optimize(b.nodes());
  bytecode::Program p;
  std::vector<Lanes> constants;
  const Result<std::uint32_t> registers = emitSection(b.nodes(), p.update, constants);
  EXPECT_TRUE(registers.ok());
  p.constants = constants;
  p.registerCount = registers.ok() ? registers.value() : 0;
  p.particleWords = 8;
  const std::string text = bytecode::disassemble(p);
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

}  // namespace
}  // namespace mote::compiler
