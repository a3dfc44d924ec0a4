// SPDX-License-Identifier: MIT
// The ISA meta-test: every row of MOTE_ISA_OPCODES has a well-formed instance the verifier accepts
// and the reference executor runs, a unique mnemonic, and a hand-computed known-answer test
// (kHandComputed); a class that fits its rows; plus the encoding (encode/decodeRaw, reserved bits,
// register words) and the builtin table.
#include "support/assert_trap.h"
#include "support/isa_widths.h"

#include <mote/bytecode/program.h>
#include <mote/bytecode/reference.h>
#include <mote/core/counter_rng.h>

#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace mote::bytecode {
namespace {

// --- every opcode has a hand-computed test

struct HandComputed {
  Opcode opcode;
  std::string_view test;  ///< a TEST of suite ReferenceOp in reference_test.cpp
};

// One row per opcode. Adding an opcode to the ISA without a known-answer test fails the
// static_assert below; naming a test that does not exist fails HandComputedTestsExist.
constexpr std::array kHandComputed = {
    HandComputed{Opcode::Nop, "NopChangesNothing"},
    HandComputed{Opcode::Mov, "MovCopiesRegistersAndImmediates"},
    HandComputed{Opcode::LoadConst, "LoadConstReadsTheFirstLanesOfAPoolEntry"},
    HandComputed{Opcode::LoadField, "LoadFieldReadsParticleWords"},
    HandComputed{Opcode::StoreField, "StoreFieldWritesExactlyItsWidth"},
    HandComputed{Opcode::LoadBuiltin, "LoadBuiltinReadsTheBuiltinTable"},
    HandComputed{Opcode::LoadEmitter, "LoadEmitterReadsEmitterWords"},
    HandComputed{Opcode::LoadGlobal, "LoadGlobalReadsTheImportsValue"},
    HandComputed{Opcode::Add, "AddIsLanewise"},
    HandComputed{Opcode::Sub, "SubIsLanewise"},
    HandComputed{Opcode::Mul, "MulIsLanewise"},
    HandComputed{Opcode::Div, "DivFollowsIeee"},
    HandComputed{Opcode::Fma, "FmaRoundsOnce"},
    HandComputed{Opcode::Min, "MinIsBLessThanAOrA"},
    HandComputed{Opcode::Max, "MaxIsALessThanBThenBOrA"},
    HandComputed{Opcode::Abs, "AbsClearsTheSign"},
    HandComputed{Opcode::Neg, "NegFlipsTheSign"},
    HandComputed{Opcode::Floor, "FloorRoundsDown"},
    HandComputed{Opcode::Fract, "FractIsAMinusFloorA"},
    HandComputed{Opcode::Mod, "ModTakesTheDivisorsSign"},
    HandComputed{Opcode::Sqrt, "SqrtIsCorrectlyRounded"},
    HandComputed{Opcode::Rsqrt, "RsqrtIsOneOverSqrt"},
    HandComputed{Opcode::Sin, "SinTakesRadians"},
    HandComputed{Opcode::Cos, "CosTakesRadians"},
    HandComputed{Opcode::Exp, "ExpIsBaseE"},
    HandComputed{Opcode::Log, "LogIsNatural"},
    HandComputed{Opcode::Pow, "PowRaisesAToB"},
    HandComputed{Opcode::Dot, "DotSumsOverTheWidth"},
    HandComputed{Opcode::Cross, "CrossIsRightHanded"},
    HandComputed{Opcode::Length, "LengthIsSqrtOfDot"},
    HandComputed{Opcode::Normalize, "NormalizeDividesByLengthAndKeepsZero"},
    HandComputed{Opcode::Lerp, "LerpIsAPlusBMinusATimesC"},
    HandComputed{Opcode::Smoothstep, "SmoothstepIsCubicHermiteOfSaturatedT"},
    HandComputed{Opcode::Clamp, "ClampBoundsBelowThenAbove"},
    HandComputed{Opcode::Saturate, "SaturateClampsToZeroOne"},
    HandComputed{Opcode::CmpLt, "CmpLtIsOneOrZero"},
    HandComputed{Opcode::CmpLe, "CmpLeIsOneOrZero"},
    HandComputed{Opcode::CmpEq, "CmpEqIsOneOrZero"},
    HandComputed{Opcode::CmpNe, "CmpNeIsOneOrZero"},
    HandComputed{Opcode::Select, "SelectPicksBWhereANonZero"},
    HandComputed{Opcode::RandUniform, "RandUniformIsTheParticlesCounterStream"},
    HandComputed{Opcode::RandRange, "RandRangeScalesTheSameDraw"},
    HandComputed{Opcode::RandUnitVector, "RandUnitVectorIsUnitAndCentred"},
    HandComputed{Opcode::RandSphere, "RandSphereIsInsideTheUnitBall"},
    HandComputed{Opcode::RandDisk, "RandDiskIsInTheXzPlaneInsideTheUnitDisk"},
    HandComputed{Opcode::RandCone, "RandConeStaysWithinTheHalfAngleOfPlusY"},
    HandComputed{Opcode::CurlNoise, "CurlNoiseIsCurlNoiseOfAScaledPosition"},
    HandComputed{Opcode::QuatFromAxisAngle, "QuatFromAxisAngleNormalisesTheAxis"},
    HandComputed{Opcode::QuatMul, "QuatMulIsTheHamiltonProduct"},
    HandComputed{Opcode::QuatRotate, "QuatRotateRotatesByTheNormalisedQuaternion"},
    HandComputed{Opcode::QuatIntegrate, "QuatIntegrateTurnsByOmegaTimesDt"},
    HandComputed{Opcode::Kill, "KillKillsOnlyForNonZero"},
    HandComputed{Opcode::SampleWind, "SampleWindAsksTheHostOrIsStill"},
    HandComputed{Opcode::Spawn, "SpawnQueuesWholeParticlesAtAPosition"},
    HandComputed{Opcode::Curve, "CurveHoldsTheEndsSearchesTheSegmentAndLerps"},
    HandComputed{Opcode::Collide, "CollideAsksTheHostOrMisses"},
    HandComputed{Opcode::SpawnInherit, "SpawniPassesWhatTheNewbornsInherit"},
    HandComputed{Opcode::Report, "ReportTellsTheHostWhereItsFlagIsSet"},
    HandComputed{Opcode::Trail, "TrailPassesItsPathSizeAndColour"},
};

constexpr bool everyOpcodeHandComputedExactlyOnce() {
  if (kHandComputed.size() != kOpInfos.size()) return false;
  for (const OpInfo& info : kOpInfos) {
    int rows = 0;
    for (const HandComputed& h : kHandComputed)
      if (h.opcode == info.opcode) ++rows;
    if (rows != 1) return false;
  }
  return true;
}
static_assert(everyOpcodeHandComputedExactlyOnce(),
              "every opcode of kOpInfos needs exactly one hand-computed test in kHandComputed");

TEST(IsaTable, HandComputedTestsExist) {
  // The ReferenceOp suite and kHandComputed name the same tests, both ways.
  std::set<std::string> registered;
  const ::testing::UnitTest& unit = *::testing::UnitTest::GetInstance();
  for (int s = 0; s < unit.total_test_suite_count(); ++s) {
    const ::testing::TestSuite& suite = *unit.GetTestSuite(s);
    if (std::string_view(suite.name()) != "ReferenceOp") continue;
    for (int t = 0; t < suite.total_test_count(); ++t)
      registered.insert(suite.GetTestInfo(t)->name());
  }
  std::set<std::string> listed;
  for (const HandComputed& h : kHandComputed) {
    EXPECT_TRUE(listed.insert(std::string(h.test)).second) << h.test << " is listed twice";
    EXPECT_EQ(registered.count(std::string(h.test)), 1u)
        << opInfo(h.opcode).mnemonic << ": ReferenceOp." << h.test << " is not a registered test";
  }
  for (const std::string& name : registered)
    EXPECT_EQ(listed.count(name), 1u) << "ReferenceOp." << name << " is not in kHandComputed";
}

// --- every opcode has a well-formed instance

constexpr std::uint32_t kDst = 8;  // instances write r8..r11; the prelude fills r0..r3

// The layout every instance is built against: each index kind has something to address.
Program instanceLayout() {
  Program p;
  p.registerCount = 16;
  // Entry 0 doubles as CURVE's key times (1, 2: finite, non-decreasing); the next three as its
  // values and deltas (two keys at width 4 need 1 + 2 + 1 entries).
  p.constants = {{1.0f, 2.0f, 3.0f, 4.0f},
                 {5.0f, 6.0f, 7.0f, 8.0f},
                 {9.0f, 10.0f, 11.0f, 12.0f},
                 {13.0f, 14.0f, 15.0f, 16.0f}};
  p.particleWords = 8;
  p.particleFields = {{"position", 0, 3}, {"velocity", 3, 3}, {"age", 6, 1}};
  p.emitterWords = 8;
  p.globals = {{"g1", 1}, {"g2", 2}, {"g3", 3}, {"g4", 4}};
  return p;
}

using test::legalWidths;

// A valid Index operand for `info` at `width` in instanceLayout(), or nullopt where none exists
// (no builtin is 2 wide). An Index opcode this function does not know fails the test: a new one
// needs its index rule here (and in the verifier).
std::optional<std::uint32_t> validIndex(const OpInfo& info, std::uint32_t width, std::size_t slot) {
  if (isRandom(info.opcode)) return kMaxRandomDraws - 1;
  switch (info.opcode) {
    case Opcode::Curve:  // the table at entry 0, two linear keys
      return slot == 0 ? 0 : curveKeysWord(2, CurveTableInterp::Linear);
    case Opcode::LoadConst:
      return 0;
    case Opcode::LoadField:
    case Opcode::StoreField:
    case Opcode::LoadEmitter:
      return 8 - width;  // the last words: [8 - w, 8)
    case Opcode::LoadGlobal:
      return width - 1;  // g<width>
    case Opcode::LoadBuiltin:
      for (const BuiltinInfo& b : kBuiltinInfos)
        if (b.width == width) return static_cast<std::uint32_t>(b.builtin);
      return std::nullopt;
    case Opcode::Spawn:
      return kMaxSpawnTargets - 1;
    default:
      ADD_FAILURE() << info.mnemonic << ": an Index source this test has no rule for";
      return 0;
  }
}

// A well-formed `info` instruction of `width` whose value sources are of kind `valueKind` (Reg:
// r0 with the identity swizzle; Imm: 0.5), or nullopt where the width has no valid index.
std::optional<Instruction> wellFormed(const OpInfo& info, std::uint32_t width,
                                      OperandKind valueKind) {
  Instruction in;
  in.op = info.opcode;
  in.width = width;
  in.dst = info.width == WidthRule::NoDst ? 0 : kDst;
  if (info.width == WidthRule::DstIndex) in.dst = 2;  // SPAWNI's target, REPORT's kind
  for (std::size_t slot = 0; slot < 3; ++slot) {
    switch (info.sources[slot]) {
      case SourceRule::Unused:
        break;
      case SourceRule::Index: {
        const std::optional<std::uint32_t> i = validIndex(info, width, slot);
        if (!i) return std::nullopt;
        in.src[slot] = *i;
        break;
      }
      case SourceRule::Value:
      case SourceRule::Scalar:
      case SourceRule::Vec3:
      case SourceRule::Quat:
        in.kinds[slot] = valueKind;
        in.src[slot] =
            valueKind == OperandKind::Reg ? regWord(0) : std::bit_cast<std::uint32_t>(0.5f);
        break;
    }
  }
  return in;
}

// The instance in both sections after a prelude that defines r0..r3 (ldc.4 r0, #0).
Program programOf(const Instruction& in) {
  Program p = instanceLayout();
  Instruction prelude;
  prelude.op = Opcode::LoadConst;
  prelude.width = 4;
  for (const Instruction& i : {prelude, in}) {
    const std::array<std::uint32_t, 4> w = encode(i);
    p.init.insert(p.init.end(), w.begin(), w.end());
    p.update.insert(p.update.end(), w.begin(), w.end());
  }
  return p;
}

TEST(IsaTable, VerifierAcceptsAWellFormedInstanceOfEveryOpcode) {
  for (const OpInfo& info : kOpInfos) {
    SCOPED_TRACE(info.mnemonic);
    int accepted = 0;
    for (const std::uint32_t width : legalWidths(info)) {
      for (const OperandKind kind : {OperandKind::Reg, OperandKind::Imm}) {
        const std::optional<Instruction> in = wellFormed(info, width, kind);
        if (!in) continue;
        const Result<VerifiedProgram> verified = verify(programOf(*in));
        EXPECT_TRUE(verified.ok()) << "width " << width << ", kind " << static_cast<int>(kind)
                                   << ": " << verified.status().message();
        if (verified.ok()) ++accepted;
      }
    }
    EXPECT_GT(accepted, 0) << "no accepted instance";
  }
}

TEST(IsaTable, ReferenceRunsEveryOpcodeWithoutAsserting) {
  test::AssertTrap trap;
  const std::vector<float> emitter(8, 0.25f);
  const std::vector<std::array<float, 4>> globals(4, {0.5f, 0.5f, 0.5f, 0.5f});
  ReferenceContext context;
  context.emitterWords = emitter;
  context.globals = globals;
  context.seed = 1;
  context.randomCounter = 2;
  context.builtins[static_cast<std::size_t>(Builtin::Dt)][0] = 1.0f / 60.0f;
  int ran = 0;
  for (const OpInfo& info : kOpInfos) {
    SCOPED_TRACE(info.mnemonic);
    for (const std::uint32_t width : legalWidths(info)) {
      for (const OperandKind kind : {OperandKind::Reg, OperandKind::Imm}) {
        const std::optional<Instruction> in = wellFormed(info, width, kind);
        if (!in) continue;
        Result<VerifiedProgram> verified = verify(programOf(*in));
        ASSERT_TRUE(verified.ok()) << verified.status().message();
        std::vector<float> particle(8, 1.0f);
        for (const Section section : {Section::Init, Section::Update}) {
          bool killed = false;
          EXPECT_NO_THROW(killed = runReference(*verified, section, particle, context))
              << "width " << width;
          // Only the Kill class kills; its operand here (1 or 0.5) is non-zero.
          EXPECT_EQ(killed, info.opClass == OpClass::Kill);
        }
        ++ran;
      }
    }
  }
  EXPECT_GE(ran, static_cast<int>(kOpcodeCount));
}

TEST(IsaTable, OpcodesAreDenseAndRowsAreWellFormed) {
  for (std::uint32_t code = 0; code < kOpcodeCount; ++code) {
    const OpInfo* info = opInfo(code);
    ASSERT_NE(info, nullptr);
    EXPECT_EQ(static_cast<std::uint32_t>(info->opcode), code);
    EXPECT_EQ(&opInfo(info->opcode), info);
    EXPECT_FALSE(info->semantics.empty()) << info->mnemonic;
    // Index operands are read from word 1 (the verifier's and executor's src[0]); CURVE alone has
    // a second one, its key word in s2, which its verifier rule and executors read by name.
    for (std::size_t slot = 1; slot < 3; ++slot) {
      if (info->opClass == OpClass::Curve && slot == 2) continue;
      EXPECT_NE(info->sources[slot], SourceRule::Index) << info->mnemonic << " s" << slot;
    }
  }
  EXPECT_EQ(opInfo(kOpcodeCount), nullptr);
  EXPECT_EQ(opInfo(255u), nullptr);
  EXPECT_EQ(kOpcodeCount, 59u);  // append-only: a new opcode updates this and kHandComputed
}

// --- every opcode is of one class, and each class means what isa.h says

// Whether `info`'s width and source rules fit its class's meaning (MOTE_ISA_CLASSES).
bool rowFitsItsClass(const OpInfo& info) {
  const auto sourcesAre = [&](std::initializer_list<SourceRule> allowed) {
    for (const SourceRule rule : info.sources) {
      bool ok = rule == SourceRule::Unused;
      for (const SourceRule a : allowed)
        ok = ok || rule == a;
      if (!ok) return false;
    }
    return true;
  };
  const bool indexFirst = info.sources[0] == SourceRule::Index;
  const bool fixedDst = info.width == WidthRule::Fixed3 || info.width == WidthRule::Fixed4;
  switch (info.opClass) {
    case OpClass::Nop:
      return info.width == WidthRule::NoDst && sourcesAre({});
    case OpClass::Load:
      return indexFirst && info.width == WidthRule::Any && sourcesAre({SourceRule::Index});
    case OpClass::Store:
      return indexFirst && info.width == WidthRule::NoDst && info.sources[1] == SourceRule::Value;
    case OpClass::Elementwise:
      return info.width == WidthRule::Any && info.sources[0] == SourceRule::Value &&
             sourcesAre({SourceRule::Value});
    case OpClass::Reduce:
      return (info.width == WidthRule::Reduce || info.width == WidthRule::Any) &&
             sourcesAre({SourceRule::Value});
    case OpClass::LaneMixing:
      return fixedDst && !indexFirst &&
             sourcesAre(
                 {SourceRule::Value, SourceRule::Scalar, SourceRule::Vec3, SourceRule::Quat});
    case OpClass::Random:
      return indexFirst && info.width == WidthRule::Any &&
             sourcesAre({SourceRule::Index, SourceRule::Value});
    case OpClass::RandomShape:
      return indexFirst && info.width == WidthRule::Fixed3 &&
             sourcesAre({SourceRule::Index, SourceRule::Scalar});
    case OpClass::Curve:
      return indexFirst && info.sources[1] == SourceRule::Scalar &&
             info.sources[2] == SourceRule::Index;
    case OpClass::Host:
      return info.width != WidthRule::Any;
    case OpClass::Kill:
      return info.width == WidthRule::NoDst && info.sources[0] == SourceRule::Scalar &&
             sourcesAre({SourceRule::Scalar});
  }
  return false;
}

TEST(IsaClasses, EveryClassIsDenseNamedAndUsed) {
  std::set<std::string_view> names;
  for (std::uint32_t c = 0; c < kOpClassCount; ++c) {
    const OpClassInfo& cls = kOpClassInfos[c];
    EXPECT_EQ(static_cast<std::uint32_t>(cls.opClass), c);
    EXPECT_TRUE(names.insert(cls.name).second) << cls.name;
    EXPECT_FALSE(cls.meaning.empty()) << cls.name;
    int members = 0;
    for (const OpInfo& info : kOpInfos)
      if (info.opClass == cls.opClass) ++members;
    EXPECT_GT(members, 0) << cls.name << " has no opcode";
  }
}

TEST(IsaClasses, EveryOpcodeFitsItsClass) {
  for (const OpInfo& info : kOpInfos) {
    ASSERT_LT(static_cast<std::uint32_t>(info.opClass), kOpClassCount) << info.mnemonic;
    EXPECT_EQ(opClass(info.opcode), info.opClass);
    EXPECT_TRUE(rowFitsItsClass(info))
        << info.mnemonic << " does not fit class "
        << kOpClassInfos[static_cast<std::size_t>(info.opClass)].name;
    EXPECT_EQ(isElementwise(info.opcode), info.opClass == OpClass::Elementwise) << info.mnemonic;
    EXPECT_EQ(isRandom(info.opcode),
              info.opClass == OpClass::Random || info.opClass == OpClass::RandomShape)
        << info.mnemonic;
  }
}

TEST(IsaTable, MnemonicsAreUniqueAndRoundTrip) {
  std::set<std::string_view> seen;
  for (const OpInfo& info : kOpInfos) {
    EXPECT_TRUE(seen.insert(info.mnemonic).second) << "duplicate mnemonic " << info.mnemonic;
    EXPECT_FALSE(info.mnemonic.empty());
    EXPECT_EQ(info.mnemonic.find_first_of(". \t#,;"), std::string_view::npos) << info.mnemonic;
    const std::optional<Opcode> back = opcodeFromMnemonic(info.mnemonic);
    ASSERT_TRUE(back.has_value()) << info.mnemonic;
    EXPECT_EQ(*back, info.opcode);
  }
  EXPECT_EQ(opcodeFromMnemonic("bogus"), std::nullopt);
  EXPECT_EQ(opcodeFromMnemonic(""), std::nullopt);
  EXPECT_EQ(opcodeFromMnemonic("ADD"), std::nullopt);    // case-sensitive
  EXPECT_EQ(opcodeFromMnemonic("add.3"), std::nullopt);  // the width suffix is not part of it
  EXPECT_EQ(opcodeFromMnemonic("ad"), std::nullopt);
}

TEST(IsaBuiltins, IdsAreDenseAndNamesUnique) {
  std::set<std::string_view> names;
  for (std::uint32_t id = 0; id < kBuiltinCount; ++id) {
    const BuiltinInfo& b = kBuiltinInfos[id];
    EXPECT_EQ(static_cast<std::uint32_t>(b.builtin), id);
    EXPECT_TRUE(names.insert(b.name).second) << b.name;
    EXPECT_GE(b.width, 1u) << b.name;
    EXPECT_LE(b.width, kMaxWidth) << b.name;
  }
  EXPECT_EQ(kBuiltinCount, 14u);
  EXPECT_EQ(kBuiltinInfos[static_cast<std::size_t>(Builtin::Dt)].width, 1u);
  EXPECT_EQ(kBuiltinInfos[static_cast<std::size_t>(Builtin::EmitterPosition)].width, 3u);
  EXPECT_EQ(kBuiltinInfos[static_cast<std::size_t>(Builtin::EmitterRotation)].width, 4u);
}

// --- encoding

TEST(IsaEncoding, ReservedBitsAreTheGapsBetweenFields) {
  // bits 10..15 and 22..23
  EXPECT_EQ(kReservedWord0Bits, ((1u << 16) - (1u << 10)) | (3u << 22));
  EXPECT_EQ(kReservedWord0Bits, 0x00C0FC00u);
  // The fields: op 0..7, width 8..9, kinds 16..21, dst 24..31; with the reserved bits they tile
  // the word exactly.
  constexpr std::uint32_t kFields = 0x000000FFu | 0x00000300u | 0x003F0000u | 0xFF000000u;
  EXPECT_EQ(kFields & kReservedWord0Bits, 0u);
  EXPECT_EQ(kFields | kReservedWord0Bits, 0xFFFFFFFFu);
  // A maximal instruction sets every field bit and no reserved bit.
  Instruction all;
  all.op = static_cast<Opcode>(255);
  all.width = 4;
  all.kinds = {OperandKind::Imm, OperandKind::Imm, OperandKind::Imm};
  all.dst = 255;
  EXPECT_EQ(encode(all)[0] & kReservedWord0Bits, 0u);
  EXPECT_EQ(encode(all)[0], 0xFF2A03FFu);
}

TEST(IsaEncoding, EncodeThenDecodeRawRoundTripsRandomFields) {
  for (std::uint32_t n = 0; n < 10000; ++n) {
    const std::array<std::uint32_t, 4> r0 = counterRandom4(7, 0, n);
    const std::array<std::uint32_t, 4> r1 = counterRandom4(7, 1, n);
    Instruction in;
    in.op = static_cast<Opcode>(r0[0] % kOpcodeCount);
    in.width = 1 + r0[1] % 4;
    for (std::size_t i = 0; i < 3; ++i)
      in.kinds[i] = static_cast<OperandKind>((r0[2] >> (4 * i)) % 3);
    in.dst = r0[3] & 0xFFu;
    in.src = {r1[0], r1[1], r1[2]};
    const std::array<std::uint32_t, 4> w = encode(in);
    EXPECT_EQ(w[0] & kReservedWord0Bits, 0u);
    std::uint32_t code = 0;
    std::array<std::uint32_t, 3> kinds{};
    const Instruction back = decodeRaw(w.data(), code, kinds);
    ASSERT_EQ(back, in) << "n = " << n;
    EXPECT_EQ(code, static_cast<std::uint32_t>(in.op));
    for (std::size_t i = 0; i < 3; ++i)
      EXPECT_EQ(kinds[i], static_cast<std::uint32_t>(in.kinds[i]));
  }
}

TEST(IsaEncoding, DecodeRawThenEncodeRoundTripsCleanWords) {
  // Any words with zero reserved bits and kinds 0..2 are re-encoded bit for bit (unknown opcodes
  // included: decodeRaw does not validate).
  for (std::uint32_t n = 0; n < 10000; ++n) {
    std::array<std::uint32_t, 4> w = counterRandom4(11, 0, n);
    w[0] &= ~kReservedWord0Bits;
    for (std::uint32_t i = 0; i < 3; ++i)
      if (((w[0] >> (16 + 2 * i)) & 3u) == 3u) w[0] &= ~(1u << (16 + 2 * i));  // kind 3 → 2
    std::uint32_t code = 0;
    std::array<std::uint32_t, 3> kinds{};
    const Instruction in = decodeRaw(w.data(), code, kinds);
    EXPECT_EQ(code, w[0] & 0xFFu);
    ASSERT_EQ(encode(in), w) << "n = " << n;
  }
}

TEST(IsaEncoding, DecodeRawReportsKindThreeRaw) {
  // word 0: op mov, kinds (3, 0, 3): the raw kinds say 3, the Instruction holds None.
  const std::array<std::uint32_t, 4> w{1u | 3u << 16 | 3u << 20, 0, 0, 0};
  std::uint32_t code = 0;
  std::array<std::uint32_t, 3> kinds{};
  const Instruction in = decodeRaw(w.data(), code, kinds);
  EXPECT_EQ(code, 1u);
  EXPECT_EQ(kinds, (std::array<std::uint32_t, 3>{3, 0, 3}));
  EXPECT_EQ(in.kinds[0], OperandKind::None);
  EXPECT_EQ(in.kinds[2], OperandKind::None);
}

TEST(IsaEncoding, RegisterWordPacksBaseAndTwoBitSwizzles) {
  EXPECT_EQ(regWord(5), 5u | 0u << 8 | 1u << 10 | 2u << 12 | 3u << 14);  // identity: xyzw
  EXPECT_EQ(regWord(5, {2, 1, 0, 3}), 5u | 2u << 8 | 1u << 10 | 0u << 12 | 3u << 14);
  EXPECT_EQ(regWord(255, {3, 3, 3, 3}), 0xFFFFu);
  EXPECT_EQ(regWord(0, {0, 0, 0, 0}), 0u);
  // Only bits 0..15: the verifier refuses anything above.
  for (std::uint32_t base = 0; base < 256; base += 17)
    EXPECT_EQ(regWord(base, {1, 3, 0, 2}) & 0xFFFF0000u, 0u);
}

}  // namespace
}  // namespace mote::bytecode
