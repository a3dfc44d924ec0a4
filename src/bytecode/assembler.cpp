// SPDX-License-Identifier: MIT
#include <mote/bytecode/assembler.h>

#include <bit>
#include <charconv>
#include <cmath>
#include <string>
#include <vector>

namespace mote::bytecode {
namespace {

constexpr char kLaneNames[] = "xyzw";

std::string floatText(float v) {
  if (!std::isfinite(v)) {
    char buffer[16];
    const auto r =
        std::to_chars(buffer, buffer + sizeof buffer, std::bit_cast<std::uint32_t>(v), 16);
    return "bits:0x" + std::string(buffer, r.ptr);
  }
  char buffer[32];
  const auto r = std::to_chars(buffer, buffer + sizeof buffer, v);
  return std::string(buffer, r.ptr);
}

std::string hex(std::uint32_t v) {
  char buffer[16];
  const auto r = std::to_chars(buffer, buffer + sizeof buffer, v, 16);
  return "0x" + std::string(buffer, r.ptr);
}

std::string regText(std::uint32_t word) {
  std::string out = "r" + std::to_string(word & 0xFFu);
  const std::uint32_t swizzle = (word >> 8) & 0xFFu;
  if (swizzle != 0xE4u) {  // 0xE4: x, y, z, w — the identity
    out += '.';
    for (std::uint32_t lane = 0; lane < 4; ++lane)
      out += kLaneNames[(swizzle >> (2 * lane)) & 3u];
  }
  return out;
}

// One instruction as text, or empty when it cannot be written as a mnemonic line exactly (then the
// caller writes .word).
std::string instructionText(const std::uint32_t* words) {
  std::uint32_t code = 0;
  std::array<std::uint32_t, 3> kinds{};
  const Instruction in = decodeRaw(words, code, kinds);
  const OpInfo* info = opInfo(code);
  if (info == nullptr || (words[0] & kReservedWord0Bits) != 0) return {};
  const bool hasDst = info->width != WidthRule::NoDst;
  if (!hasDst && in.dst != 0) return {};
  std::string out(info->mnemonic);
  out += '.';
  out += std::to_string(in.width);
  std::vector<std::string> operands;
  if (info->width == WidthRule::DstIndex) {
    operands.push_back("#" + std::to_string(in.dst));
  } else if (hasDst) {
    operands.push_back("r" + std::to_string(in.dst));
  }
  for (std::uint32_t slot = 0; slot < 3; ++slot) {
    const SourceRule rule = info->sources[slot];
    const std::uint32_t word = in.src[slot];
    if (rule == SourceRule::Unused) {
      if (kinds[slot] != 0 || word != 0) return {};
      continue;
    }
    if (kinds[slot] == 0) {
      operands.push_back("#" + std::to_string(word));
    } else if (kinds[slot] == 1) {
      if ((word & 0xFFFF0000u) != 0) return {};
      operands.push_back(regText(word));
    } else if (kinds[slot] == 2) {
      operands.push_back(floatText(std::bit_cast<float>(word)));
    } else {
      return {};
    }
  }
  for (std::size_t i = 0; i < operands.size(); ++i) {
    out += i == 0 ? " " : ", ";
    out += operands[i];
  }
  return out;
}

void appendSection(std::string& out, std::string_view name, std::span<const std::uint32_t> code) {
  out += name;
  out += '\n';
  std::size_t at = 0;
  for (; at + kWordsPerInstruction <= code.size(); at += kWordsPerInstruction) {
    const std::string text = instructionText(code.data() + at);
    out += "  ";
    if (text.empty()) {
      out += ".word " + hex(code[at]) + " " + hex(code[at + 1]) + " " + hex(code[at + 2]) + " " +
             hex(code[at + 3]);
    } else {
      out += text;
    }
    out += '\n';
  }
  for (; at < code.size(); ++at)  // a partial instruction: words one by one
    out += "  .word " + hex(code[at]) + "\n";
}

}  // namespace

std::string disassemble(const Program& p) {
  std::string out;
  out += ".registers " + std::to_string(p.registerCount) + "\n";
  out += ".particle " + std::to_string(p.particleWords) + "\n";
  for (const FieldSlot& f : p.particleFields)
    out +=
        ".field " + f.name + " " + std::to_string(f.offset) + " " + std::to_string(f.width) + "\n";
  out += ".emitter " + std::to_string(p.emitterWords) + "\n";
  for (const GlobalImport& g : p.globals)
    out += ".global " + g.name + " " + std::to_string(g.width) + "\n";
  for (const std::array<float, 4>& c : p.constants) {
    out += ".const";
    for (const float v : c)
      out += " " + floatText(v);
    out += "\n";
  }
  appendSection(out, ".init", p.init);
  appendSection(out, ".update", p.update);
  return out;
}

// -------------------------------------------------------------------------------------------------
// Assembler

namespace {

class Assembler {
 public:
  explicit Assembler(std::string_view text) : text_(text) {}

  Result<Program> run() {
    std::size_t lineStart = 0;
    while (lineStart <= text_.size() && error_.ok()) {
      std::size_t end = text_.find('\n', lineStart);
      if (end == std::string_view::npos) end = text_.size();
      line_ = text_.substr(lineStart, end - lineStart);
      const std::size_t comment = line_.find(';');
      if (comment != std::string_view::npos) line_ = line_.substr(0, comment);
      at_ = 0;
      ++lineNumber_;
      parseLine();
      if (end == text_.size()) break;
      lineStart = end + 1;
    }
    if (!error_.ok()) return error_;
    return std::move(program_);
  }

 private:
  void fail(std::string message) {
    if (error_.ok()) {
      error_ = parseError(std::to_string(lineNumber_) + ":" + std::to_string(at_ + 1) + ": " +
                          std::move(message));
    }
  }

  void skipSpace() {
    while (at_ < line_.size() && (line_[at_] == ' ' || line_[at_] == '\t' || line_[at_] == '\r'))
      ++at_;
  }

  std::string_view token() {
    skipSpace();
    const std::size_t start = at_;
    tokenStart_ = start;
    while (at_ < line_.size() && line_[at_] != ' ' && line_[at_] != '\t' && line_[at_] != ',' &&
           line_[at_] != '\r')
      ++at_;
    return line_.substr(start, at_ - start);
  }

  bool atEnd() {
    skipSpace();
    return at_ >= line_.size();
  }

  static bool number(std::string_view t, std::uint32_t& out, int base = 10) {
    const auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), out, base);
    return ec == std::errc() && p == t.data() + t.size();
  }

  static bool number(std::string_view t, float& out) {
    const auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), out);
    return ec == std::errc() && p == t.data() + t.size();
  }

  bool unsignedToken(std::uint32_t& out, std::string_view what) {
    const std::size_t start = at_;
    const std::string_view t = token();
    if (t.starts_with("0x") ? number(t.substr(2), out, 16) : number(t, out)) return true;
    at_ = start;
    skipSpace();
    fail("expected " + std::string(what) + ", got '" + std::string(t) + "'");
    return false;
  }

  // A float literal, or bits:0x… for an exact bit pattern.
  bool floatText(std::string_view t, float& out) {
    if (t.starts_with("bits:0x")) {
      std::uint32_t bits = 0;
      if (!number(t.substr(7), bits, 16)) return false;
      out = std::bit_cast<float>(bits);
      return true;
    }
    return number(t, out);
  }

  bool floatToken(float& out) {
    const std::size_t start = at_;
    const std::string_view t = token();
    if (floatText(t, out)) return true;
    at_ = start;
    skipSpace();
    fail("expected a number, got '" + std::string(t) + "'");
    return false;
  }

  void expectEnd() {
    if (!atEnd()) fail("unexpected '" + std::string(line_.substr(at_)) + "'");
  }

  std::vector<std::uint32_t>* sectionOrFail() {
    if (section_ == nullptr) fail("an instruction before .init or .update");
    return section_;
  }

  void parseLine() {
    if (atEnd()) return;
    const std::size_t start = at_;
    const std::string_view head = token();
    if (head.starts_with('.')) {
      directive(head);
    } else {
      at_ = start;
      instruction();
    }
  }

  void directive(std::string_view head) {
    std::uint32_t a = 0;
    std::uint32_t b = 0;
    if (head == ".registers") {
      if (unsignedToken(a, "a register count")) program_.registerCount = a;
    } else if (head == ".particle") {
      if (unsignedToken(a, "a word count")) program_.particleWords = a;
    } else if (head == ".emitter") {
      if (unsignedToken(a, "a word count")) program_.emitterWords = a;
    } else if (head == ".field") {
      const std::string name(token());
      if (name.empty()) return fail("expected a field name");
      if (unsignedToken(a, "an offset") && unsignedToken(b, "a width")) {
        program_.particleFields.push_back(FieldSlot{name, a, b});
      }
    } else if (head == ".global") {
      const std::string name(token());
      if (name.empty()) return fail("expected a global name");
      if (unsignedToken(a, "a width")) program_.globals.push_back(GlobalImport{name, a});
    } else if (head == ".const") {
      std::array<float, 4> c{};
      for (float& v : c)
        if (!floatToken(v)) return;
      program_.constants.push_back(c);
    } else if (head == ".init") {
      section_ = &program_.init;
    } else if (head == ".update") {
      section_ = &program_.update;
    } else if (head == ".word") {
      std::vector<std::uint32_t>* section = sectionOrFail();
      if (section == nullptr) return;
      while (!atEnd() && error_.ok()) {
        if (unsignedToken(a, "a word")) section->push_back(a);
      }
      return;
    } else {
      return fail("unknown directive '" + std::string(head) + "'");
    }
    expectEnd();
  }

  // r<n>[.swizzle]
  bool registerOperand(std::string_view t, std::uint32_t& word) {
    if (!t.starts_with('r')) return false;
    const std::size_t dot = t.find('.');
    std::uint32_t base = 0;
    if (!number(t.substr(1, dot == std::string_view::npos ? std::string_view::npos : dot - 1),
                base) ||
        base >= kMaxRegisters) {
      return false;
    }
    std::array<std::uint32_t, 4> swizzle{0, 1, 2, 3};
    if (dot != std::string_view::npos) {
      const std::string_view lanes = t.substr(dot + 1);
      if (lanes.empty() || lanes.size() > 4) return false;
      for (std::size_t i = 0; i < lanes.size(); ++i) {
        const std::string_view names(kLaneNames, 4);
        const std::size_t lane = names.find(lanes[i]);
        if (lane == std::string_view::npos) return false;
        swizzle[i] = static_cast<std::uint32_t>(lane);
      }
    }
    word = regWord(base, swizzle);
    return true;
  }

  void instruction() {
    std::vector<std::uint32_t>* section = sectionOrFail();
    if (section == nullptr) return;
    const std::size_t start = at_;
    const std::string_view head = token();
    const std::size_t dot = head.find('.');
    const std::optional<Opcode> op = opcodeFromMnemonic(head.substr(0, dot));
    if (!op) {
      at_ = start;
      skipSpace();
      return fail("unknown mnemonic '" + std::string(head.substr(0, dot)) + "'");
    }
    const OpInfo& info = opInfo(*op);
    std::uint32_t width = 1;
    if (dot != std::string_view::npos &&
        (!number(head.substr(dot + 1), width) || width < 1 || width > kMaxWidth)) {
      at_ = start;
      skipSpace();
      return fail("width must be .1 to .4 (got '" + std::string(head.substr(dot)) + "')");
    }
    Instruction in;
    in.op = *op;
    in.width = width;
    bool first = true;
    const auto operand = [&]() -> std::string_view {
      skipSpace();
      if (!first) {
        if (at_ >= line_.size() || line_[at_] != ',') {
          fail("expected ','");
          return {};
        }
        ++at_;
      }
      first = false;
      const std::string_view t = token();
      if (t.empty()) fail("expected an operand");
      return t;
    };
    if (info.width == WidthRule::DstIndex) {
      const std::string_view t = operand();
      if (!error_.ok()) return;
      if (!t.starts_with('#') || !number(t.substr(1), in.dst) || in.dst > 0xFFu) {
        at_ = tokenStart_;
        return fail("expected a destination index #0..#255, got '" + std::string(t) + "'");
      }
    } else if (info.width != WidthRule::NoDst) {
      const std::string_view t = operand();
      if (!error_.ok()) return;
      std::uint32_t word = 0;
      if (!registerOperand(t, word) || t.find('.') != std::string_view::npos) {
        at_ = tokenStart_;
        return fail("expected a destination register r0..r255, got '" + std::string(t) + "'");
      }
      in.dst = word & 0xFFu;
    }
    for (std::uint32_t slot = 0; slot < 3; ++slot) {
      const SourceRule rule = info.sources[slot];
      if (rule == SourceRule::Unused) continue;
      const std::string_view t = operand();
      if (!error_.ok()) return;
      std::uint32_t word = 0;
      if (t.starts_with('#')) {
        if (!number(t.substr(1), word)) {
          at_ = tokenStart_;
          return fail("bad index '" + std::string(t) + "'");
        }
        in.kinds[slot] = OperandKind::None;
      } else if (registerOperand(t, word)) {
        in.kinds[slot] = OperandKind::Reg;
      } else {
        float value = 0.0f;
        if (!floatText(t, value)) {
          at_ = tokenStart_;
          return fail("expected a register, #index or number, got '" + std::string(t) + "'");
        }
        word = std::bit_cast<std::uint32_t>(value);
        in.kinds[slot] = OperandKind::Imm;
      }
      in.src[slot] = word;
    }
    expectEnd();
    if (!error_.ok()) return;
    const std::array<std::uint32_t, 4> words = encode(in);
    section->insert(section->end(), words.begin(), words.end());
  }

  std::string_view text_;
  std::string_view line_;
  std::size_t at_ = 0;
  std::size_t tokenStart_ = 0;  // where the last token began (for messages about it)
  std::size_t lineNumber_ = 0;
  Program program_;
  std::vector<std::uint32_t>* section_ = nullptr;
  Status error_;
};

}  // namespace

Result<Program> assemble(std::string_view text) {
  return Assembler(text).run();
}

}  // namespace mote::bytecode
