// SPDX-License-Identifier: MIT
// The text form: known programs assemble to known words, disassemble → assemble is identity on
// any words, and mistakes are reported at line:column.
#include <mote/bytecode/assembler.h>

#include <gtest/gtest.h>

#include <bit>
#include <random>

namespace mote::bytecode {
namespace {

constexpr std::string_view kGravity = R"(; pos += vel * dt; vel += g * dt
.registers 10
.particle 6
.field position 0 3
.field velocity 3 3
.emitter 0
.const 0 -9.81 0 0
.init
  ldb.3 r0, #3          ; spawn at the emitter
  stf.3 #0, r0
  randcone.3 r3, #0, 0.5
  stf.3 #3, r3.xyz
.update
  ldf.3 r0, #0
  ldf.3 r3, #3
  ldb.1 r6, #0
  fma.3 r0, r3, r6.xxxx, r0
  ldc.3 r7, #0
  fma.3 r3, r7, r6.xxxx, r3
  stf.3 #0, r0
  stf.3 #3, r3
  lt.1 r9, r0.yyyy, -1
  kill.1 r9
)";

TEST(Assembler, AssemblesKnownWords) {
  Result<Program> p = assemble(kGravity);
  ASSERT_TRUE(p.ok()) << p.status().toString();
  EXPECT_EQ(p->registerCount, 10u);
  EXPECT_EQ(p->particleWords, 6u);
  EXPECT_EQ(p->particleFields, (std::vector<FieldSlot>{{"position", 0, 3}, {"velocity", 3, 3}}));
  EXPECT_EQ(p->constants, (std::vector<std::array<float, 4>>{{0.0f, -9.81f, 0.0f, 0.0f}}));
  ASSERT_EQ(p->init.size(), 16u);
  ASSERT_EQ(p->update.size(), 40u);
  // randcone.3 r3, #0, 0.5: op 45 | (3-1) << 8 | kinds (none, imm, none) | dst 3 << 24
  EXPECT_EQ(p->init[8], 45u | 2u << 8 | 2u << 18 | 3u << 24);
  EXPECT_EQ(p->init[9], 0u);
  EXPECT_EQ(p->init[10], std::bit_cast<std::uint32_t>(0.5f));
  // fma.3 r0, r3, r6.xxxx, r0: r6.xxxx is base 6, swizzle all zero
  EXPECT_EQ(p->update[12], 12u | 2u << 8 | 1u << 16 | 1u << 18 | 1u << 20 | 0u << 24);
  EXPECT_EQ(p->update[13], regWord(3));
  EXPECT_EQ(p->update[14], 6u);
  EXPECT_EQ(p->update[15], regWord(0));
  EXPECT_TRUE(verify(std::move(p).takeValue()).ok());
}

TEST(Assembler, DisassemblyIsCanonicalAndRoundTrips) {
  Result<Program> p = assemble(kGravity);
  ASSERT_TRUE(p.ok());
  const std::string text = disassemble(*p);
  EXPECT_NE(text.find("  fma.3 r0, r3, r6.xxxx, r0\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  lt.1 r9, r0.yyyy, -1\n"), std::string::npos) << text;
  EXPECT_NE(text.find(".const 0 -9.81 0 0\n"), std::string::npos) << text;
  Result<Program> again = assemble(text);
  ASSERT_TRUE(again.ok()) << again.status().toString();
  EXPECT_EQ(*again, *p);
  EXPECT_EQ(disassemble(*again), text);
}

// A gradient of 3 keys (entries 0..5: times; values A_j; deltas d_j) and a smooth scalar curve of
// 2 keys (entries 6..8): the tables sit in the pool as .const lines, the key word (count |
// interpolation << 16) is a raw #index.
constexpr std::string_view kCurves = R"(.registers 8
.particle 5
.field color 0 4
.field age 4 1
.emitter 0
.const 0 0.5 1 0
.const 1 0 0 1
.const 0 1 0 0.5
.const 0 0 1 0
.const -1 1 0 -0.5
.const 0 -1 1 -0.5
.const 0 1 0 0
.const 2 3 0 0
.const 1 0 0 0
.init
  ldf.1 r0, #4
  curve.4 r1, #0, r0, #3
  stf.4 #0, r1
.update
  curve.1 r5, #6, 0.25, #131074
  stf.1 #4, r5
)";

TEST(Assembler, CurveRoundTripsAndVerifies) {
  Result<Program> p = assemble(kCurves);
  ASSERT_TRUE(p.ok()) << p.status().toString();
  // curve.4 r1, #0, r0, #3: op 54 | (4-1) << 8 | kinds (none, reg, none) | dst 1 << 24
  EXPECT_EQ(p->init[4], 54u | 3u << 8 | 1u << 18 | 1u << 24);
  EXPECT_EQ(p->init[5], 0u);
  EXPECT_EQ(p->init[7], curveKeysWord(3, CurveTableInterp::Linear));
  EXPECT_EQ(p->update[3], curveKeysWord(2, CurveTableInterp::Smooth));
  const std::string text = disassemble(*p);
  EXPECT_NE(text.find("  curve.4 r1, #0, r0, #3\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  curve.1 r5, #6, 0.25, #131074\n"), std::string::npos) << text;
  Result<Program> again = assemble(text);
  ASSERT_TRUE(again.ok()) << again.status().toString();
  EXPECT_EQ(*again, *p);
  EXPECT_TRUE(verify(std::move(p).takeValue()).ok());
}

TEST(Assembler, AnyWordsRoundTripThroughText) {
  std::mt19937 engine(7);
  const auto rng = [&engine] { return static_cast<std::uint32_t>(engine()); };
  for (int trial = 0; trial < 200; ++trial) {
    Program p;
    p.registerCount = rng() % 300;
    p.particleWords = rng() % 300;
    p.constants.push_back({std::bit_cast<float>(0x7fc00001u), -0.0f, 1e-45f, 3.4028235e38f});
    for (int i = 0; i < 40; ++i) {
      // Mostly plausible instructions, some pure noise, sometimes a partial one.
      std::uint32_t op = rng() % (kOpcodeCount + 3);
      const std::uint32_t w0 = op | (rng() % 4) << 8 | (rng() % 64) << 16 | (rng() % 8) << 24 |
                               (trial % 5 == 0 ? rng() & kReservedWord0Bits : 0u);
      p.update.insert(p.update.end(),
                      {w0, rng() % 3 == 0 ? rng() : rng() % 512, rng() % 1024,
                       std::bit_cast<std::uint32_t>(static_cast<float>(i) * 0.37f)});
    }
    if (trial % 7 == 0) p.update.push_back(rng());
    const std::string text = disassemble(p);
    Result<Program> back = assemble(text);
    ASSERT_TRUE(back.ok()) << back.status().toString() << "\n" << text;
    EXPECT_EQ(back->update, p.update) << text;
    using Bits = std::array<std::uint32_t, 4>;
    EXPECT_EQ(std::bit_cast<Bits>(back->constants[0]), std::bit_cast<Bits>(p.constants[0]));
  }
}

TEST(Assembler, MistakesAreLocated) {
  const auto error = [](std::string_view text) {
    Result<Program> p = assemble(text);
    EXPECT_FALSE(p.ok()) << text;
    return p.ok() ? std::string() : p.status().message();
  };
  EXPECT_EQ(error(".update\n  ad.3 r0, r1, r2"), "2:3: unknown mnemonic 'ad'");
  EXPECT_EQ(error(".update\n  add.5 r0, r1, r2"), "2:3: width must be .1 to .4 (got '.5')");
  EXPECT_EQ(error("add.1 r0, r1, r2"), "1:1: an instruction before .init or .update");
  EXPECT_EQ(error(".init\n  add.1 r0 r1, r2"), "2:12: expected ','");
  EXPECT_EQ(error(".init\n  add.1 r0, r1"), "2:15: expected ','");
  EXPECT_EQ(error(".init\n  add.1 r0, r1, pear"),
            "2:17: expected a register, #index or number, got 'pear'");
  EXPECT_EQ(error(".init\n  add.1 #0, r1, r2"),
            "2:9: expected a destination register r0..r255, got '#0'");
  EXPECT_EQ(error(".init\n  add.1 r0, r1, r2 r3"), "2:20: unexpected 'r3'");
  EXPECT_EQ(error(".registers x"), "1:12: expected a register count, got 'x'");
  EXPECT_EQ(error(".bogus 1"), "1:7: unknown directive '.bogus'");
  EXPECT_EQ(error(".const 1 2 3"), "1:13: expected a number, got ''");
  EXPECT_EQ(error(".init\n  ldf.1 r0, #x"), "2:13: bad index '#x'");
}

}  // namespace
}  // namespace mote::bytecode
