// SPDX-License-Identifier: MIT
// The verifier: every rule of ISA table row and program layout, plus a linear data-flow check
// (there are no jumps, so "written before read" is one pass with a bit per register slot).
#include <mote/bytecode/program.h>

#include <bitset>
#include <cmath>
#include <string>
#include <utility>

namespace mote::bytecode {

std::optional<Opcode> opcodeFromMnemonic(std::string_view mnemonic) {
  for (const OpInfo& info : kOpInfos)
    if (info.mnemonic == mnemonic) return info.opcode;
  return std::nullopt;
}

namespace {

constexpr std::string_view kKindNames[] = {"none", "reg", "imm", "kind 3"};

std::string sectionName(Section s) {
  return s == Section::Init ? "init" : "update";
}

// Names in a program (particle fields, global imports) are what the text form writes bare:
// letters, digits, '_' and '.', 1 to 128 of them.
bool validName(const std::string& name) {
  if (name.empty() || name.size() > 128) return false;
  for (const char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '.';
    if (!ok) return false;
  }
  return true;
}

class Verifier {
 public:
  explicit Verifier(const Program& p) : p_(p) {}

  Status run() {
    if (p_.registerCount > kMaxRegisters) {
      return invalidArgument("register count " + std::to_string(p_.registerCount) +
                             " is more than " + std::to_string(kMaxRegisters));
    }
    if (p_.constants.size() > kMaxConstants) {
      return invalidArgument(std::to_string(p_.constants.size()) + " constants; at most " +
                             std::to_string(kMaxConstants));
    }
    if (p_.particleWords > kMaxParticleWords) {
      return invalidArgument("particle layout of " + std::to_string(p_.particleWords) +
                             " words; at most " + std::to_string(kMaxParticleWords));
    }
    if (p_.emitterWords > kMaxEmitterWords) {
      return invalidArgument("emitter fields of " + std::to_string(p_.emitterWords) +
                             " words; at most " + std::to_string(kMaxEmitterWords));
    }
    if (p_.globals.size() > kMaxGlobalImports) {
      return invalidArgument(std::to_string(p_.globals.size()) + " global imports; at most " +
                             std::to_string(kMaxGlobalImports));
    }
    for (std::size_t i = 0; i < p_.globals.size(); ++i) {
      if (!validName(p_.globals[i].name)) {
        return invalidArgument("global import " + std::to_string(i) +
                               " has a name that is not letters, digits, '_' and '.' (1..128)");
      }
      const std::uint32_t w = p_.globals[i].width;
      if (w < 1 || w > kMaxWidth) {
        return invalidArgument("global import " + std::to_string(i) + " (" + p_.globals[i].name +
                               ") has width " + std::to_string(w) + "; widths are 1..4");
      }
    }
    for (std::size_t i = 0; i < p_.particleFields.size(); ++i) {
      const FieldSlot& f = p_.particleFields[i];
      if (!validName(f.name)) {
        return invalidArgument("particle field " + std::to_string(i) +
                               " has a name that is not letters, digits, '_' and '.' (1..128)");
      }
      const std::string field = "particle field " + std::to_string(i) + " (" + f.name + ")";
      if (f.width < 1 || f.width > kMaxWidth) {
        return invalidArgument(field + " is " + std::to_string(f.width) + " wide; widths are 1..4");
      }
      if (std::uint64_t{f.offset} + f.width > p_.particleWords) {
        return invalidArgument(field + " at words [" + std::to_string(f.offset) + ", " +
                               std::to_string(std::uint64_t{f.offset} + f.width) +
                               ") is outside the " + std::to_string(p_.particleWords) +
                               "-word layout");
      }
    }
    MOTE_RETURN_IF_ERROR(section(Section::Init));
    return section(Section::Update);
  }

 private:
  Status section(Section s) {
    const std::span<const std::uint32_t> words = p_.section(s);
    if (words.size() % kWordsPerInstruction != 0) {
      return invalidArgument(sectionName(s) + ": " + std::to_string(words.size()) +
                             " words is not a whole number of 4-word instructions");
    }
    const std::size_t count = words.size() / kWordsPerInstruction;
    if (count > kMaxInstructionsPerSection) {
      return invalidArgument(sectionName(s) + ": " + std::to_string(count) +
                             " instructions; at most " +
                             std::to_string(kMaxInstructionsPerSection));
    }
    written_.reset();
    for (std::size_t i = 0; i < count; ++i) {
      where_ = sectionName(s) + "[" + std::to_string(i) + "]";
      MOTE_RETURN_IF_ERROR(instruction(words.data() + i * kWordsPerInstruction));
    }
    return {};
  }

  Status fail(const std::string& what) const { return invalidArgument(where_ + ": " + what); }

  Status instruction(const std::uint32_t* words) {
    std::uint32_t code = 0;
    std::array<std::uint32_t, 3> kinds{};
    const Instruction in = decodeRaw(words, code, kinds);
    const OpInfo* info = opInfo(code);
    if (info == nullptr) return fail("unknown opcode " + std::to_string(code));
    where_ += " ";
    where_ += info->mnemonic;
    if ((words[0] & kReservedWord0Bits) != 0) return fail("reserved bits of word 0 are set");
    const std::uint32_t width = in.width;
    switch (info->width) {
      case WidthRule::Fixed1:
        if (width != 1) return fail("width " + std::to_string(width) + "; this opcode is 1 wide");
        break;
      case WidthRule::Fixed3:
        if (width != 3) return fail("width " + std::to_string(width) + "; this opcode is 3 wide");
        break;
      case WidthRule::Fixed4:
        if (width != 4) return fail("width " + std::to_string(width) + "; this opcode is 4 wide");
        break;
      case WidthRule::NoDst: {
        // Without a value source (nop, kill, spawn) the width means nothing: one encoding, 1.
        bool hasValue = false;
        for (const SourceRule r : info->sources)
          hasValue = hasValue || r == SourceRule::Value;
        if (!hasValue && width != 1) {
          return fail("width " + std::to_string(width) + "; this opcode is 1 wide");
        }
        break;
      }
      case WidthRule::DstIndex:
        if (width != 1) return fail("width " + std::to_string(width) + "; this opcode is 1 wide");
        break;
      case WidthRule::Any:
      case WidthRule::Reduce:
        break;
    }
    for (std::uint32_t slot = 0; slot < 3; ++slot) {
      MOTE_RETURN_IF_ERROR(source(*info, in, kinds[slot], slot));
    }
    MOTE_RETURN_IF_ERROR(indices(*info, in));
    const std::uint32_t dw = dstWidth(info->width, width);
    if (info->opcode == Opcode::Report) {
      if (in.dst >= kReportKinds) {
        return fail("event kind " + std::to_string(in.dst) +
                    " does not exist (0 birth, 1 death, 2 collision, 3 custom)");
      }
      return {};
    }
    if (info->width == WidthRule::DstIndex) return spawnTarget(in.dst);
    if (dw == 0) {
      if (in.dst != 0) return fail("dst must be 0 (this opcode writes no register)");
      return {};
    }
    if (in.dst + dw > p_.registerCount) {
      const std::string regs = dw == 1 ? "dst register " + std::to_string(in.dst) + " is"
                                       : "dst registers " + std::to_string(in.dst) + ".." +
                                             std::to_string(in.dst + dw - 1) + " are";
      return fail(regs + " outside the " + std::to_string(p_.registerCount) + "-register file");
    }
    for (std::uint32_t lane = 0; lane < dw; ++lane)
      written_.set(in.dst + lane);
    return {};
  }

  Status source(const OpInfo& info, const Instruction& in, std::uint32_t kind, std::uint32_t slot) {
    const std::string name = "s" + std::to_string(slot);
    const SourceRule rule = info.sources[slot];
    const std::uint32_t word = in.src[slot];
    if (kind > 2) return fail(name + ": operand kind 3 does not exist");
    switch (rule) {
      case SourceRule::Unused:
        if (kind != 0 || word != 0) return fail(name + ": unused source must be kind none and 0");
        return {};
      case SourceRule::Index:
        if (kind != 0) {
          return fail(name + ": an index operand must be kind none (got " +
                      std::string(kKindNames[kind]) + ")");
        }
        return {};
      case SourceRule::Value:
      case SourceRule::Scalar:
      case SourceRule::Vec3:
      case SourceRule::Quat:
        break;
    }
    if (kind == 0) return fail(name + ": a value operand must be kind reg or imm");
    if (kind == 2) return {};  // an immediate: any bit pattern
    if ((word & 0xFFFF0000u) != 0) return fail(name + ": reserved bits of a register word are set");
    const std::uint32_t base = word & 0xFFu;
    const std::uint32_t lanes = sourceWidth(rule, in.width);
    for (std::uint32_t lane = 0; lane < lanes; ++lane) {
      const std::uint32_t r = base + ((word >> (8 + 2 * lane)) & 3u);
      if (r >= p_.registerCount) {
        return fail(name + ": register " + std::to_string(r) + " is outside the " +
                    std::to_string(p_.registerCount) + "-register file");
      }
      if (!written_.test(r)) {
        return fail(name + ": register " + std::to_string(r) + " is read before it is written");
      }
    }
    return {};
  }

  // The ranges of Index operands: a random op's draw (isRandom), the others' by opcode.
  Status indices(const OpInfo& info, const Instruction& in) {
    const std::uint32_t i = in.src[0];
    const std::uint64_t end = std::uint64_t{i} + in.width;
    if (isRandom(info.opcode)) {
      if (i >= kMaxRandomDraws) {
        return fail("random draw " + std::to_string(i) + " is outside 0.." +
                    std::to_string(kMaxRandomDraws - 1));
      }
      return {};
    }
    switch (info.opcode) {
      case Opcode::LoadConst:
        if (i >= p_.constants.size()) {
          return fail("constant " + std::to_string(i) + " is outside the pool of " +
                      std::to_string(p_.constants.size()));
        }
        return {};
      case Opcode::LoadField:
      case Opcode::StoreField:
        if (end > p_.particleWords) {
          return fail("particle words [" + std::to_string(i) + ", " + std::to_string(end) +
                      ") are outside the " + std::to_string(p_.particleWords) + "-word layout");
        }
        return {};
      case Opcode::LoadEmitter:
        if (end > p_.emitterWords) {
          return fail("emitter words [" + std::to_string(i) + ", " + std::to_string(end) +
                      ") are outside the " + std::to_string(p_.emitterWords) + " emitter words");
        }
        return {};
      case Opcode::LoadBuiltin:
        if (i >= kBuiltinCount) return fail("unknown builtin " + std::to_string(i));
        if (kBuiltinInfos[i].width != in.width) {
          return fail("builtin " + std::string(kBuiltinInfos[i].name) + " is " +
                      std::to_string(kBuiltinInfos[i].width) + " wide, not " +
                      std::to_string(in.width));
        }
        return {};
      case Opcode::LoadGlobal:
        if (i >= p_.globals.size()) {
          return fail("global import " + std::to_string(i) + " does not exist (" +
                      std::to_string(p_.globals.size()) + " imports)");
        }
        if (p_.globals[i].width != in.width) {
          return fail("global " + p_.globals[i].name + " is " +
                      std::to_string(p_.globals[i].width) + " wide, not " +
                      std::to_string(in.width));
        }
        return {};
      case Opcode::Spawn:
        return spawnTarget(i);
      case Opcode::Curve:
        return curve(in);
      default:
        return {};
    }
  }

  // SPAWN's s0 and SPAWNI's dst: an emitter index (the .motefx loader checks it names another
  // emitter of the effect).
  Status spawnTarget(std::uint32_t target) {
    if (target >= kMaxSpawnTargets) {
      return fail("spawn target emitter " + std::to_string(target) + " is outside 0.." +
                  std::to_string(kMaxSpawnTargets - 1));
    }
    return {};
  }

  // CURVE: a legal key word, the whole table inside the pool, key times finite and non-decreasing.
  Status curve(const Instruction& in) {
    const std::uint32_t first = in.src[0];
    const std::uint32_t keys = in.src[2] & 0xFFFFu;
    const std::uint32_t interp = in.src[2] >> kCurveInterpShift;
    if (interp > static_cast<std::uint32_t>(CurveTableInterp::Smooth)) {
      return fail("s2: interpolation " + std::to_string(interp) +
                  " does not exist (0 linear, 1 step, 2 smooth; key count in bits 0..15)");
    }
    if (keys < 1 || keys > kMaxCurveTableKeys) {
      return fail("a curve of " + std::to_string(keys) + " keys; curves have 1.." +
                  std::to_string(kMaxCurveTableKeys));
    }
    const std::uint64_t end = std::uint64_t{first} + curveTableEntries(keys, in.width);
    if (end > p_.constants.size()) {
      return fail("the curve table, constants [" + std::to_string(first) + ", " +
                  std::to_string(end) + "), is outside the pool of " +
                  std::to_string(p_.constants.size()));
    }
    const std::array<float, 4>* table = p_.constants.data() + first;
    for (std::uint32_t j = 0; j < keys; ++j) {
      const float t = table[j / 4][j % 4];
      if (!std::isfinite(t)) return fail("curve key " + std::to_string(j) + ": time is not finite");
      if (j > 0 && t < table[(j - 1) / 4][(j - 1) % 4]) {
        return fail("curve key " + std::to_string(j) + ": time is before key " +
                    std::to_string(j - 1) + "'s (key times must not decrease)");
      }
    }
    return {};
  }

  const Program& p_;
  std::bitset<kMaxRegisters> written_;
  std::string where_;
};

}  // namespace

Result<VerifiedProgram> verify(Program program) {
  const Status status = Verifier(program).run();
  if (!status.ok()) return status;
  return VerifiedProgram(std::move(program));
}

}  // namespace mote::bytecode
