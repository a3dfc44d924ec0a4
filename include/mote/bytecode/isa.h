// SPDX-License-Identifier: MIT
// The particle VM's instruction set: ONE table (MOTE_ISA_OPCODES) is the single source of truth for
// opcode numbers, mnemonics, classes (MOTE_ISA_CLASSES), operand kinds, widths and a one-line
// semantics. The verifier, the reference executor, the batch VM, the assembler and the
// disassembler are driven by or checked against it; a meta-test (tests/bytecode/isa_test.cpp)
// proves every opcode is covered by each of them.
//
// Encoding (meep's 4×u32, docs/isa.md): word 0 = op (bits 0..7) | (width - 1) << 8 | kind(s0) << 16
// | kind(s1) << 18 | kind(s2) << 20 | dst << 24; bits 10..15 and 22..23 are reserved (zero).
// Words 1..3 are the sources; a source word means what its kind says:
//   None  — unused (must be 0), or a raw index the opcode reads itself (a field's word offset, a
//           constant-pool index, a builtin id, a random draw index, ...);
//   Reg   — base slot (bits 0..7) | swizzle (bits 8..15, 2 bits per lane: lane i reads
//           base + ((swizzle >> 2i) & 3)); other bits zero;
//   Imm   — an f32 bit pattern, the same in every lane.
// Registers are f32 slots; a value of width w written to dst occupies slots dst .. dst + w - 1.
// Conditionals are predicated (CMP_*, SELECT); death is KILL; there are no jumps.
//
// Thread safety: constant data only.
#pragma once

#include <mote/core/effect_enums.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace mote::bytecode {

inline constexpr std::uint32_t kWordsPerInstruction = 4;
inline constexpr std::uint32_t kMaxRegisters = 256;
inline constexpr std::uint32_t kMaxWidth = 4;
/// SPAWN's and SPAWNI's target emitter index is below this.
/// REPORT's event kinds (its dst field): what the host is told happened to the particle.
enum class ReportKind : std::uint8_t { Birth = 0, Death = 1, Collision = 2, Custom = 3 };
inline constexpr std::uint32_t kReportKinds = 4;  ///< REPORT's kind is below this
inline constexpr std::uint32_t kMaxSpawnTargets = 256;

enum class OperandKind : std::uint8_t { None = 0, Reg = 1, Imm = 2 };

/// What an opcode's source slot accepts.
enum class SourceRule : std::uint8_t {
  Unused,  ///< kind None, word 0
  Index,   ///< kind None: a raw index whose meaning and range the opcode defines
  Value,   ///< kind Reg or Imm, as wide as the instruction
  Scalar,  ///< kind Reg or Imm, 1 wide
  Vec3,    ///< kind Reg or Imm, 3 wide
  Quat,    ///< kind Reg or Imm, 4 wide (a quaternion x, y, z, w)
};

/// The legal instruction widths and the destination's width.
enum class WidthRule : std::uint8_t {
  Any,       ///< width 1..4; dst as wide
  Reduce,    ///< width 1..4 (the inputs'); dst 1 wide
  Fixed1,    ///< width 1; dst 1 wide
  Fixed3,    ///< width 3; dst 3 wide
  Fixed4,    ///< width 4; dst 4 wide
  NoDst,     ///< writes no register (dst must be 0); width 1..4 with a Value source (stf), else 1
  DstIndex,  ///< writes no register; width 1; the dst field is an index the opcode defines
};

// What kind of work an opcode does: every opcode is of exactly one class (the OpClass column of
// MOTE_ISA_OPCODES). Executors dispatch by it and the verifier's index rules follow it; the
// meta-test checks each class against the width and source rules its meaning implies.
// X(Name, "meaning")
#define MOTE_ISA_CLASSES(X)                                                                    \
  X(Nop, "does nothing")                                                                       \
  X(Load, "dst = the words its Index names (constants, particle, builtin, emitter or global)") \
  X(Store, "particle words = a Value source; no dst")                                          \
  X(Elementwise, "dst lane c from lane c of each source alone, particle by particle")          \
  X(Reduce, "reads a sum over the width of its source lanes (dot, length, normalize)")         \
  X(LaneMixing, "fixed-width dst, each lane from several source lanes (qint also reads DT)")   \
  X(Random, "dst lane c from word c of the particle's draw i (and lane c of the sources)")     \
  X(RandomShape, "a 3-vector from all four words of the particle's draw i")                    \
  X(Curve, "dst = a keyed curve, a table in the constant pool, at a 1-wide t")                 \
  X(Host, "calls the host for each particle (the wind field, the spawn sink, collisions)")     \
  X(Kill, "marks the particle dead; no dst")

enum class OpClass : std::uint8_t {
#define MOTE_ISA_CLASS_ENUM(name, meaning) name,
  MOTE_ISA_CLASSES(MOTE_ISA_CLASS_ENUM)
#undef MOTE_ISA_CLASS_ENUM
};

struct OpClassInfo {
  OpClass opClass;
  std::string_view name;
  std::string_view meaning;
};

inline constexpr std::array kOpClassInfos = {
#define MOTE_ISA_CLASS_INFO(name, meaning) OpClassInfo{OpClass::name, #name, meaning},
    MOTE_ISA_CLASSES(MOTE_ISA_CLASS_INFO)
#undef MOTE_ISA_CLASS_INFO
};

inline constexpr std::uint32_t kOpClassCount = static_cast<std::uint32_t>(kOpClassInfos.size());

// X(Name, code, "mnemonic", OpClass, WidthRule, s0, s1, s2, "semantics")
// Opcode numbers are stable (they are stored in .motefx files): append, never renumber.
// The semantics are the reference executor's, NaN included (docs/isa.md, "Accuracy"): where a
// row says "gives NaN" any NaN will do — a NaN's sign and payload are not part of the semantics
// (ParticleWorld::stateHash hashes every NaN as one quiet NaN).
#define MOTE_ISA_OPCODES(X)                                                                        \
  X(Nop, 0, "nop", Nop, NoDst, Unused, Unused, Unused, "does nothing")                             \
  X(Mov, 1, "mov", Elementwise, Any, Value, Unused, Unused, "dst = a")                             \
  X(LoadConst, 2, "ldc", Load, Any, Index, Unused, Unused, "dst = constants[i] (its first lanes)") \
  X(LoadField, 3, "ldf", Load, Any, Index, Unused, Unused, "dst = particle words [i, i + width)")  \
  X(StoreField, 4, "stf", Store, NoDst, Index, Value, Unused, "particle words [i, i + width) = b") \
  X(LoadBuiltin, 5, "ldb", Load, Any, Index, Unused, Unused, "dst = builtin i (width must match)") \
  X(LoadEmitter, 6, "lde", Load, Any, Index, Unused, Unused,                                       \
    "dst = emitter field words [i, i + w)")                                                        \
  X(LoadGlobal, 7, "ldg", Load, Any, Index, Unused, Unused,                                        \
    "dst = global import i (width matches)")                                                       \
  X(Add, 8, "add", Elementwise, Any, Value, Value, Unused, "dst = a + b")                          \
  X(Sub, 9, "sub", Elementwise, Any, Value, Value, Unused, "dst = a - b")                          \
  X(Mul, 10, "mul", Elementwise, Any, Value, Value, Unused, "dst = a * b")                         \
  X(Div, 11, "div", Elementwise, Any, Value, Value, Unused,                                        \
    "dst = a / b (IEEE: x/0 = ±inf, 0/0 = nan)")                                                   \
  X(Fma, 12, "fma", Elementwise, Any, Value, Value, Value, "dst = fma(a, b, c), one rounding")     \
  X(Min, 13, "min", Elementwise, Any, Value, Value, Unused,                                        \
    "dst = b < a ? b : a: a NaN a gives NaN, a NaN b gives a")                                     \
  X(Max, 14, "max", Elementwise, Any, Value, Value, Unused,                                        \
    "dst = a < b ? b : a: a NaN a gives NaN, a NaN b gives a")                                     \
  X(Abs, 15, "abs", Elementwise, Any, Value, Unused, Unused, "dst = |a|")                          \
  X(Neg, 16, "neg", Elementwise, Any, Value, Unused, Unused, "dst = -a")                           \
  X(Floor, 17, "floor", Elementwise, Any, Value, Unused, Unused, "dst = floor(a)")                 \
  X(Fract, 18, "fract", Elementwise, Any, Value, Unused, Unused, "dst = a - floor(a)")             \
  X(Mod, 19, "mod", Elementwise, Any, Value, Value, Unused, "dst = a - b * floor(a / b)")          \
  X(Sqrt, 20, "sqrt", Elementwise, Any, Value, Unused, Unused,                                     \
    "dst = sqrt(a) (correctly rounded)")                                                           \
  X(Rsqrt, 21, "rsqrt", Elementwise, Any, Value, Unused, Unused, "dst = 1 / sqrt(a)")              \
  X(Sin, 22, "sin", Elementwise, Any, Value, Unused, Unused, "dst = sin(a), a in radians")         \
  X(Cos, 23, "cos", Elementwise, Any, Value, Unused, Unused, "dst = cos(a), a in radians")         \
  X(Exp, 24, "exp", Elementwise, Any, Value, Unused, Unused, "dst = e^a (semantics::exponential)") \
  X(Log, 25, "log", Elementwise, Any, Value, Unused, Unused,                                       \
    "dst = ln(a) (semantics::logarithm; a < 0: NaN)")                                              \
  X(Pow, 26, "pow", Elementwise, Any, Value, Value, Unused,                                        \
    "dst = a^b (semantics::power; Annex F cases)")                                                 \
  X(Dot, 27, "dot", Reduce, Reduce, Value, Value, Unused, "dst = sum of a * b over the width")     \
  X(Cross, 28, "cross", LaneMixing, Fixed3, Value, Value, Unused, "dst = a × b")                   \
  X(Length, 29, "len", Reduce, Reduce, Value, Unused, Unused,                                      \
    "dst = sqrt(dot(a, a)) (overflows beyond |a| ~ 1e19)")                                         \
  X(Normalize, 30, "norm", Reduce, Any, Value, Unused, Unused,                                     \
    "dst = a / length(a); 0 when length(a) is 0 (underflow included)")                             \
  X(Lerp, 31, "lerp", Elementwise, Any, Value, Value, Value, "dst = a + (b - a) * c")              \
  X(Smoothstep, 32, "smooth", Elementwise, Any, Value, Value, Value,                               \
    "t = saturate((c - a) / (b - a)); dst = t * t * (3 - 2t)")                                     \
  X(Clamp, 33, "clamp", Elementwise, Any, Value, Value, Value,                                     \
    "dst = min(max(a, b), c): NaN a gives NaN; a NaN b or c is ignored")                           \
  X(Saturate, 34, "sat", Elementwise, Any, Value, Unused, Unused,                                  \
    "dst = min(max(a, 0), 1): NaN a gives NaN")                                                    \
  X(CmpLt, 35, "lt", Elementwise, Any, Value, Value, Unused,                                       \
    "dst = a < b ? 1 : 0 (0 when a or b is NaN)")                                                  \
  X(CmpLe, 36, "le", Elementwise, Any, Value, Value, Unused,                                       \
    "dst = a <= b ? 1 : 0 (0 when a or b is NaN)")                                                 \
  X(CmpEq, 37, "eq", Elementwise, Any, Value, Value, Unused,                                       \
    "dst = a == b ? 1 : 0 (0 when a or b is NaN)")                                                 \
  X(CmpNe, 38, "ne", Elementwise, Any, Value, Value, Unused,                                       \
    "dst = a != b ? 1 : 0 (1 when a or b is NaN)")                                                 \
  X(Select, 39, "sel", Elementwise, Any, Value, Value, Value,                                      \
    "dst = a != 0 ? b : c: a NaN a picks b")                                                       \
  X(RandUniform, 40, "rand", Random, Any, Index, Unused, Unused,                                   \
    "dst = uniform in [0, 1) per lane: draw i of the particle's stream (section, tick)")           \
  X(RandRange, 41, "randr", Random, Any, Index, Value, Value,                                      \
    "dst = b + (c - b) * uniform (draw i); rounding may give c")                                   \
  X(RandUnitVector, 42, "randdir", RandomShape, Fixed3, Index, Unused, Unused,                     \
    "dst = uniform direction on the unit sphere (draw i)")                                         \
  X(RandSphere, 43, "randball", RandomShape, Fixed3, Index, Unused, Unused,                        \
    "dst = uniform point in the unit ball (draw i)")                                               \
  X(RandDisk, 44, "randdisk", RandomShape, Fixed3, Index, Unused, Unused,                          \
    "dst = uniform point in the unit disk of the XZ plane, y = 0 (draw i)")                        \
  X(RandCone, 45, "randcone", RandomShape, Fixed3, Index, Scalar, Unused,                          \
    "dst = uniform direction within half-angle b (radians) of +Y (draw i)")                        \
  X(CurlNoise, 46, "curl", LaneMixing, Fixed3, Value, Scalar, Unused,                              \
    "dst = curl of a gradient-noise vector potential at a * b (b: frequency)")                     \
  X(QuatFromAxisAngle, 47, "qaxis", LaneMixing, Fixed4, Vec3, Scalar, Unused,                      \
    "dst = (axis / |axis| * sin(b / 2), cos(b / 2)); zero axis: identity")                         \
  X(QuatMul, 48, "qmul", LaneMixing, Fixed4, Value, Value, Unused,                                 \
    "dst = a ⊗ b (Hamilton product)")                                                              \
  X(QuatRotate, 49, "qrot", LaneMixing, Fixed3, Quat, Value, Unused,                               \
    "dst = a · b · a⁻¹ with a normalised first (zero quaternion: b unchanged)")                    \
  X(QuatIntegrate, 50, "qint", LaneMixing, Fixed4, Value, Vec3, Unused,                            \
    "dst = qaxis(b, |b| · DT) ⊗ a: exact for a constant angular velocity b (rad/s)")               \
  X(Kill, 51, "kill", Kill, NoDst, Scalar, Unused, Unused, "the particle dies when a != 0")        \
  X(SampleWind, 52, "wind", Host, Fixed3, Value, Unused, Unused,                                   \
    "dst = the host's wind at world position a, m/s (still air without a host field)")             \
  X(Spawn, 53, "spawn", Host, NoDst, Index, Scalar, Vec3,                                          \
    "queue floor(b) particles (none for b < 1 or nan) into emitter i, born at position c")         \
  X(Curve, 54, "curve", Curve, Any, Index, Scalar, Index,                                          \
    "dst = the keyed curve of c keys (c >> 16: interpolation) in constants from i, at t = b")      \
  X(Collide, 55, "collide", Host, Fixed4, Vec3, Vec3, Scalar,                                      \
    "dst = (n, d): host hit normal n, radius c swept a to b, b's depth d; miss: (0,0,0,-1)")       \
  X(SpawnInherit, 56, "spawni", Host, DstIndex, Quat, Quat, Quat,                                  \
    "spawn floor(a.w) into emitter dst at a.xyz; they read b.xyz, b.w, c as "                      \
    "source_velocity/size/color")                                                                  \
  X(Report, 57, "report", Host, DstIndex, Quat, Quat, Unused,                                      \
    "when a.w >= 1, tell the host: event kind dst, tag floor(b.w), at a.xyz, moving at b.xyz")     \
  X(Trail, 58, "trail", Host, DstIndex, Quat, Quat, Quat,                                          \
    "spawn floor(a.w) into emitter dst spread along b.xyz -> a.xyz; they read b.w, c as "          \
    "source_size/color and keep the asking particle's id")

enum class Opcode : std::uint8_t {
#define MOTE_ISA_ENUM(name, code, mnemonic, cls, width, s0, s1, s2, doc) name = code,
  MOTE_ISA_OPCODES(MOTE_ISA_ENUM)
#undef MOTE_ISA_ENUM
};

struct OpInfo {
  Opcode opcode;
  std::string_view mnemonic;
  OpClass opClass;
  WidthRule width;
  std::array<SourceRule, 3> sources;
  std::string_view semantics;
};

inline constexpr std::array kOpInfos = {
#define MOTE_ISA_INFO(name, code, mnemonic, cls, width, s0, s1, s2, doc) \
  OpInfo{Opcode::name,                                                   \
         mnemonic,                                                       \
         OpClass::cls,                                                   \
         WidthRule::width,                                               \
         {SourceRule::s0, SourceRule::s1, SourceRule::s2},               \
         doc},
    MOTE_ISA_OPCODES(MOTE_ISA_INFO)
#undef MOTE_ISA_INFO
};

inline constexpr std::uint32_t kOpcodeCount = static_cast<std::uint32_t>(kOpInfos.size());

// Codes are dense from 0, in table order (the table is the numbering).
static_assert([] {
  for (std::uint32_t i = 0; i < kOpInfos.size(); ++i)
    if (static_cast<std::uint32_t>(kOpInfos[i].opcode) != i) return false;
  return true;
}());

/// The table row of `code`, or nullptr for a code the ISA does not have. O(1).
constexpr const OpInfo* opInfo(std::uint32_t code) {
  return code < kOpcodeCount ? &kOpInfos[code] : nullptr;
}
constexpr const OpInfo& opInfo(Opcode op) {
  return kOpInfos[static_cast<std::uint32_t>(op)];
}

/// The class of `op`. O(1).
constexpr OpClass opClass(Opcode op) {
  return opInfo(op).opClass;
}
/// Whether lane c of `op`'s result reads lane c of its sources alone (OpClass::Elementwise).
constexpr bool isElementwise(Opcode op) {
  return opClass(op) == OpClass::Elementwise;
}
/// Whether `op` draws from the particle's random stream: its Index operand is the draw, below
/// kMaxRandomDraws of program.h (OpClass::Random and OpClass::RandomShape).
constexpr bool isRandom(Opcode op) {
  return opClass(op) == OpClass::Random || opClass(op) == OpClass::RandomShape;
}
/// `op` where it is of class `c`; otherwise not a constant expression. For the case labels of a
/// dispatch switch that handles one class: `case ofClass(OpClass::RandomShape, Opcode::RandDisk):`
/// stops compiling if RAND_DISK is ever given another class.
consteval Opcode ofClass(OpClass c, Opcode op) {
  if (opClass(op) != c) throw "the opcode is not of the class its case claims";
  return op;
}

/// The width a source slot reads for an instruction of width `width` (0: not a value).
constexpr std::uint32_t sourceWidth(SourceRule rule, std::uint32_t width) {
  switch (rule) {
    case SourceRule::Value:
      return width;
    case SourceRule::Scalar:
      return 1;
    case SourceRule::Vec3:
      return 3;
    case SourceRule::Quat:
      return 4;
    case SourceRule::Unused:
    case SourceRule::Index:
      return 0;
  }
  return 0;
}

/// The width of the destination of an instruction of width `width` (0: no destination).
constexpr std::uint32_t dstWidth(WidthRule rule, std::uint32_t width) {
  switch (rule) {
    case WidthRule::Any:
      return width;
    case WidthRule::Reduce:
    case WidthRule::Fixed1:
      return 1;
    case WidthRule::Fixed3:
      return 3;
    case WidthRule::Fixed4:
      return 4;
    case WidthRule::NoDst:
    case WidthRule::DstIndex:
      return 0;
  }
  return 0;
}

/// The opcode with mnemonic `mnemonic`. O(opcodes).
std::optional<Opcode> opcodeFromMnemonic(std::string_view mnemonic);

// -------------------------------------------------------------------------------------------------
// Builtins (LOAD_BUILTIN's index): per-particle or per-emitter values the host supplies.

// X(Name, id, "name", width)
#define MOTE_ISA_BUILTINS(X)                     \
  X(Dt, 0, "dt", 1)                              \
  X(Time, 1, "time", 1)                          \
  X(EmitterAge, 2, "emitter_age", 1)             \
  X(EmitterPosition, 3, "emitter_position", 3)   \
  X(EmitterDirection, 4, "emitter_direction", 3) \
  X(EmitterUp, 5, "emitter_up", 3)               \
  X(EmitterRotation, 6, "emitter_rotation", 4)   \
  X(EmitterVelocity, 7, "emitter_velocity", 3)   \
  X(SpawnIndex, 8, "spawn_index", 1)             \
  X(SpawnFraction, 9, "spawn_fraction", 1)       \
  X(ParticleId, 10, "particle_id", 1)            \
  X(SourceVelocity, 11, "source_velocity", 3)    \
  X(SourceSize, 12, "source_size", 1)            \
  X(SourceColor, 13, "source_color", 4)

enum class Builtin : std::uint8_t {
#define MOTE_ISA_BUILTIN_ENUM(name, id, text, width) name = id,
  MOTE_ISA_BUILTINS(MOTE_ISA_BUILTIN_ENUM)
#undef MOTE_ISA_BUILTIN_ENUM
};

struct BuiltinInfo {
  Builtin builtin;
  std::string_view name;
  std::uint32_t width;
};

inline constexpr std::array kBuiltinInfos = {
#define MOTE_ISA_BUILTIN_INFO(name, id, text, width) BuiltinInfo{Builtin::name, text, width},
    MOTE_ISA_BUILTINS(MOTE_ISA_BUILTIN_INFO)
#undef MOTE_ISA_BUILTIN_INFO
};

inline constexpr std::uint32_t kBuiltinCount = static_cast<std::uint32_t>(kBuiltinInfos.size());

// -------------------------------------------------------------------------------------------------
// Encoding helpers

struct Instruction {
  Opcode op = Opcode::Nop;
  std::uint32_t width = 1;  ///< 1..4
  std::array<OperandKind, 3> kinds{OperandKind::None, OperandKind::None, OperandKind::None};
  std::uint32_t dst = 0;
  std::array<std::uint32_t, 3> src{0, 0, 0};
  bool operator==(const Instruction&) const = default;
};

/// A Reg source word: base slot and a swizzle (lane i reads base + swizzle[i]).
constexpr std::uint32_t regWord(std::uint32_t base,
                                std::array<std::uint32_t, 4> swizzle = {0, 1, 2, 3}) {
  return (base & 0xFFu) | ((swizzle[0] & 3u) << 8) | ((swizzle[1] & 3u) << 10) |
         ((swizzle[2] & 3u) << 12) | ((swizzle[3] & 3u) << 14);
}

/// The four words of `in`. The caller keeps the fields in range (the verifier checks words).
constexpr std::array<std::uint32_t, 4> encode(const Instruction& in) {
  const std::uint32_t word0 = static_cast<std::uint32_t>(in.op) | ((in.width - 1u) & 3u) << 8 |
                              static_cast<std::uint32_t>(in.kinds[0]) << 16 |
                              static_cast<std::uint32_t>(in.kinds[1]) << 18 |
                              static_cast<std::uint32_t>(in.kinds[2]) << 20 |
                              (in.dst & 0xFFu) << 24;
  return {word0, in.src[0], in.src[1], in.src[2]};
}

/// The fields of four words (no validation: opcode and kinds may be out of range; see verify).
constexpr Instruction decodeRaw(const std::uint32_t* words, std::uint32_t& opcode,
                                std::array<std::uint32_t, 3>& kinds) {
  Instruction in;
  opcode = words[0] & 0xFFu;
  in.op = static_cast<Opcode>(opcode);
  in.width = ((words[0] >> 8) & 3u) + 1u;
  for (std::uint32_t i = 0; i < 3; ++i) {
    kinds[i] = (words[0] >> (16 + 2 * i)) & 3u;
    in.kinds[i] = static_cast<OperandKind>(kinds[i] < 3 ? kinds[i] : 0);
    in.src[i] = words[1 + i];
  }
  in.dst = words[0] >> 24;
  return in;
}

// -------------------------------------------------------------------------------------------------
// CURVE (docs/isa.md, "Curves"): s0 = the first constant of its table, s1 = t (1 wide), s2 = the
// key count k (bits 0..15) | the interpolation (bits 16..17; CurveTableInterp); other bits zero.
// The table is contiguous in the pool, three runs of `width`-lane items, each run packed four items
// an entry for width 1 (item j in lane j % 4 of the run's entry j / 4; unused lanes 0) and one
// item an entry for widths 2..4 (lanes past the width 0):
//   times   k key times (1 lane each, always packed four an entry);
//   values  k values A_j: A_0 = v_0 and A_{j+1} = A_j + d_j (f32), the key values as a running sum
//           of the deltas reaches them (bit for bit the compiler's old arithmetic,
//           docs/compiler.md);
//   deltas  k - 1 segment deltas d_j = v_{j+1} - v_j (f32).

/// CURVE's interpolation between keys: the list the authoring model's Interp comes from too.
MOTE_DEFINE_EFFECT_ENUM(CurveTableInterp, MOTE_CURVE_INTERP_LIST);

inline constexpr std::uint32_t kMaxCurveTableKeys = 256;  ///< keys of one CURVE, 1 at least
inline constexpr std::uint32_t kCurveInterpShift = 16;

/// CURVE's s2 word.
constexpr std::uint32_t curveKeysWord(std::uint32_t keys, CurveTableInterp interp) {
  return keys | static_cast<std::uint32_t>(interp) << kCurveInterpShift;
}
/// Pool entries of `items` CURVE table items `width` lanes wide.
constexpr std::uint32_t curveRunEntries(std::uint32_t items, std::uint32_t width) {
  return width == 1 ? (items + 3) / 4 : items;
}
/// Pool entries of a whole CURVE table (times, values, deltas) of `keys` keys `width` lanes wide.
constexpr std::uint32_t curveTableEntries(std::uint32_t keys, std::uint32_t width) {
  return curveRunEntries(keys, 1) + curveRunEntries(keys, width) + curveRunEntries(keys - 1, width);
}

inline constexpr std::uint32_t kReservedWord0Bits = 0x00C0FC00u;  // bits 10..15 and 22..23

}  // namespace mote::bytecode
