// SPDX-License-Identifier: MIT
#include "ir.h"

#include <mote/bytecode/semantics.h>
#include <mote/core/assert.h>

#include <algorithm>
#include <bit>
#include <bitset>
#include <cmath>
#include <optional>

namespace mote::compiler {

using bytecode::Builtin;
using bytecode::kBuiltinInfos;
using bytecode::kMaxRegisters;
using bytecode::OpInfo;
using bytecode::opInfo;
using bytecode::SourceRule;
using bytecode::WidthRule;

Value Builder::constant(const Lanes& lanes, std::uint32_t width) {
  Node n;
  n.op = Opcode::LoadConst;
  n.width = width;
  n.resultWidth = width;
  n.isConstant = true;
  n.constant = lanes;
  for (std::uint32_t i = width; i < 4; ++i)
    n.constant[i] = 0.0f;
  nodes_.push_back(n);
  return Value{static_cast<std::uint32_t>(nodes_.size() - 1), width};
}

Operand Builder::use(Value v) const {
  MOTE_ASSERT(v.valid(), "use of an invalid value");
  Operand o;
  o.type = OperandType::Value;
  o.node = v.node;
  return o;
}

Operand Builder::broadcast(Value v) const {
  return swizzle(v, {0, 0, 0, 0});
}

Operand Builder::swizzle(Value v, std::array<std::uint8_t, 4> lanes) const {
  Operand o = use(v);
  o.swizzle = lanes;
  return o;
}

Operand Builder::index(std::uint32_t i) {
  Operand o;
  o.type = OperandType::Index;
  o.index = i;
  return o;
}

Value Builder::emit(Opcode op, std::uint32_t width, Operand a, Operand b, Operand c) {
  const OpInfo& info = opInfo(op);
  Node n;
  n.op = op;
  n.width = width;
  n.resultWidth = bytecode::dstWidth(info.width, width);
  n.src = {a, b, c};
  nodes_.push_back(n);
  if (n.resultWidth == 0) return Value{};
  return Value{static_cast<std::uint32_t>(nodes_.size() - 1), n.resultWidth};
}

Value Builder::binary(Opcode op, Value a, Value b) {
  const std::uint32_t w = std::max(a.width, b.width);
  const Operand oa = a.width == w ? use(a) : broadcast(a);
  const Operand ob = b.width == w ? use(b) : broadcast(b);
  return emit(op, w, oa, ob);
}

Value Builder::fma(Value a, Value b, Value c) {
  const std::uint32_t w = std::max({a.width, b.width, c.width});
  const auto widen = [&](Value v) { return v.width == w ? use(v) : broadcast(v); };
  return emit(Opcode::Fma, w, widen(a), widen(b), widen(c));
}

Value Builder::select(Value condition, Value a, Value b) {
  const std::uint32_t w = std::max(a.width, b.width);
  const auto widen = [&](Value v) { return v.width == w ? use(v) : broadcast(v); };
  return emit(Opcode::Select, w, widen(condition), widen(a), widen(b));
}

Value Builder::lane(Value v, std::uint32_t laneIndex) {
  const auto l = static_cast<std::uint8_t>(laneIndex);
  return emit(Opcode::Mov, 1, swizzle(v, {l, l, l, l}));
}

Value Builder::compose(std::initializer_list<Value> parts) {
  // Part 0 broadcast, then each later lane replaced by a select on a lane mask: exact, and a
  // non-finite part stays in its own lane (a multiply-add by basis vectors would spread NaN).
  const std::uint32_t w = static_cast<std::uint32_t>(parts.size());
  Value out;
  std::uint32_t i = 0;
  for (const Value p : parts) {
    if (i == 0) {
      out = emit(Opcode::Mov, w, broadcast(p));
    } else {
      Lanes mask{0.0f, 0.0f, 0.0f, 0.0f};
      mask[i] = 1.0f;
      out = emit(Opcode::Select, w, use(constant(mask, w)), broadcast(p), use(out));
    }
    ++i;
  }
  return out;
}

Value Builder::loadField(std::uint32_t offset, std::uint32_t width) {
  return emit(Opcode::LoadField, width, index(offset));
}

void Builder::storeField(std::uint32_t offset, Value v) {
  emit(Opcode::StoreField, v.width, index(offset), use(v));
}

Value Builder::builtin(Builtin b) {
  const std::uint32_t id = static_cast<std::uint32_t>(b);
  return emit(Opcode::LoadBuiltin, kBuiltinInfos[id].width, index(id));
}

Value Builder::loadEmitter(std::uint32_t offset, std::uint32_t width) {
  return emit(Opcode::LoadEmitter, width, index(offset));
}

Value Builder::loadGlobal(std::uint32_t import, std::uint32_t width) {
  return emit(Opcode::LoadGlobal, width, index(import));
}

void Builder::kill(Value condition) {
  emit(Opcode::Kill, 1, use(condition));
  if (trackingKills_) killed_ = select(condition, scalar(1.0f), killed_);
}

Value Builder::curve(const std::vector<std::pair<float, Lanes>>& keys,
                     bytecode::CurveTableInterp interp, std::uint32_t width, Value x) {
  const auto count = static_cast<std::uint32_t>(keys.size());
  MOTE_ASSERT(count >= 2 && count <= bytecode::kMaxCurveTableKeys, "Builder::curve: key count");
  const Value v =
      emit(Opcode::Curve, width, index(0), use(x), index(bytecode::curveKeysWord(count, interp)));
  nodes_[v.node].table = bytecode::semantics::curveTableOf(keys, width);
  return v;
}

// -------------------------------------------------------------------------------------------------
// Passes

std::optional<Lanes> literalLanes(const std::vector<Node>& nodes, const Operand& o) {
  if (o.type != OperandType::Value || !nodes[o.node].isConstant) return std::nullopt;
  const Lanes& c = nodes[o.node].constant;
  return Lanes{c[o.swizzle[0]], c[o.swizzle[1]], c[o.swizzle[2]], c[o.swizzle[3]]};
}

namespace {

// Pure lane-wise arithmetic with the reference executor's exact float semantics.
std::optional<float> foldLane(Opcode op, float a, float b, float c) {
  switch (op) {
    case Opcode::Mov:
      return a;
    case Opcode::Add:
      return a + b;
    case Opcode::Sub:
      return a - b;
    case Opcode::Mul:
      return a * b;
    case Opcode::Div:
      return a / b;
    case Opcode::Fma:
      return std::fma(a, b, c);
    case Opcode::Min:
      return b < a ? b : a;
    case Opcode::Max:
      return a < b ? b : a;
    case Opcode::Abs:
      return std::fabs(a);
    case Opcode::Neg:
      return -a;
    case Opcode::Floor:
      return std::floor(a);
    case Opcode::Lerp:
      return a + (b - a) * c;
    case Opcode::Select:
      return a != 0.0f ? b : c;
    case Opcode::Sqrt:
      return std::sqrt(a);
    // Mote's own transcendentals (semantics.h): the executors' bits on every platform.
    case Opcode::Sin:
      return bytecode::semantics::sine(a);
    case Opcode::Cos:
      return bytecode::semantics::cosine(a);
    case Opcode::Exp:
      return bytecode::semantics::exponential(a);
    case Opcode::Log:
      return bytecode::semantics::logarithm(a);
    case Opcode::Pow:
      return bytecode::semantics::power(a, b);
    default:
      return std::nullopt;
  }
}

}  // namespace

namespace {

// True when every lane of `o` the instruction reads (its width) is the literal with bit pattern
// `bits`.
bool literalIs(const std::vector<Node>& nodes, const Operand& o, std::uint32_t width,
               std::uint32_t bits) {
  const std::optional<Lanes> lanes = literalLanes(nodes, o);
  if (!lanes) return false;
  for (std::uint32_t i = 0; i < width; ++i)
    if (std::bit_cast<std::uint32_t>((*lanes)[i]) != bits) return false;
  return true;
}

bool sameOperand(const Operand& a, const Operand& b, std::uint32_t width) {
  if (a.type != OperandType::Value || b.type != OperandType::Value || a.node != b.node)
    return false;
  for (std::uint32_t i = 0; i < width; ++i)
    if (a.swizzle[i] != b.swizzle[i]) return false;
  return true;
}

constexpr std::uint32_t kPlusZero = 0x00000000u;
constexpr std::uint32_t kMinusZero = 0x80000000u;
constexpr std::uint32_t kOne = 0x3F800000u;

// An operand this node's value equals in every lane and every case (NaN, infinities, signed
// zeros included), so its users can read that instead: x - (+0), x + (-0), x * 1, x / 1, a copy,
// the saturate of a saturate, a select whose two sides are one operand or whose condition is a
// literal all-true or all-false.
std::optional<Operand> identity(const std::vector<Node>& nodes, const Node& n) {
  const std::uint32_t w = n.width;
  const std::array<Operand, 3>& s = n.src;
  switch (n.op) {
    case Opcode::Mov:
      return s[0];
    case Opcode::Sub:
      if (literalIs(nodes, s[1], w, kPlusZero)) return s[0];
      break;
    case Opcode::Add:
      if (literalIs(nodes, s[1], w, kMinusZero)) return s[0];
      if (literalIs(nodes, s[0], w, kMinusZero)) return s[1];
      break;
    case Opcode::Mul:
      if (literalIs(nodes, s[1], w, kOne)) return s[0];
      if (literalIs(nodes, s[0], w, kOne)) return s[1];
      break;
    case Opcode::Div:
      if (literalIs(nodes, s[1], w, kOne)) return s[0];
      break;
    case Opcode::Saturate:
      if (s[0].type == OperandType::Value && nodes[s[0].node].op == Opcode::Saturate) {
        const Node& inner = nodes[s[0].node];
        // sat(sat(x)) lane i is sat(x) lane swizzle[i]: the inner node read through our swizzle.
        bool plain = true;
        for (std::uint32_t i = 0; i < w; ++i)
          plain = plain && s[0].swizzle[i] < inner.resultWidth;
        if (plain) return s[0];
      }
      break;
    case Opcode::Select: {
      if (sameOperand(s[1], s[2], w)) return s[1];
      const std::optional<Lanes> c = literalLanes(nodes, s[0]);
      if (!c) break;
      bool allTrue = true;
      bool allFalse = true;
      for (std::uint32_t i = 0; i < w; ++i) {
        allTrue = allTrue && (*c)[i] != 0.0f;
        allFalse = allFalse && !((*c)[i] != 0.0f);
      }
      if (allTrue) return s[1];
      if (allFalse) return s[2];
      break;
    }
    default:
      break;
  }
  return std::nullopt;
}

}  // namespace

void optimize(std::vector<Node>& nodes) {
  // Forwarding (a node equal to one of its operands is replaced by it in its users), folding
  // (literal operands) and store elision, in order: each rewritten node can feed the next.
  std::vector<std::optional<Operand>> forward(nodes.size());
  const auto resolve = [&](Operand o) {
    while (o.type == OperandType::Value && forward[o.node]) {
      const Operand& f = *forward[o.node];
      Operand r = f;
      for (std::size_t i = 0; i < 4; ++i)
        r.swizzle[i] = f.swizzle[o.swizzle[i] & 3u];
      o = r;
    }
    return o;
  };
  // The node index of the last store to each particle word (a load after it reads its value).
  std::vector<std::int64_t> lastStore(bytecode::kMaxParticleWords, -1);
  for (std::size_t k = 0; k < nodes.size(); ++k) {
    Node& n = nodes[k];
    for (Operand& o : n.src)
      o = resolve(o);
    if (n.op == Opcode::StoreField) {
      // Storing back what a load of the same words read, with no store to them in between, is a
      // no-op.
      const Operand& v = n.src[1];
      const std::uint32_t word = n.src[0].index;
      bool unchanged = v.type == OperandType::Value && nodes[v.node].op == Opcode::LoadField &&
                       nodes[v.node].src[0].index == word && nodes[v.node].width == n.width;
      for (std::uint32_t i = 0; unchanged && i < n.width; ++i) {
        unchanged = v.swizzle[i] == i && word + i < lastStore.size() &&
                    lastStore[word + i] < static_cast<std::int64_t>(v.node);
      }
      if (unchanged) {
        n.op = Opcode::Nop;
        n.src = {};
        continue;
      }
      for (std::uint32_t i = 0; i < n.width && word + i < lastStore.size(); ++i)
        lastStore[word + i] = static_cast<std::int64_t>(k);
      continue;
    }
    if (n.op == Opcode::Fma) {
      // fma(1, x, c) and fma(x, 1, c) round x + c once: an add.
      if (literalIs(nodes, n.src[0], n.width, kOne))
        n.src = {n.src[1], n.src[2], Operand{}};
      else if (literalIs(nodes, n.src[1], n.width, kOne))
        n.src = {n.src[0], n.src[2], Operand{}};
      if (n.src[2].type == OperandType::None) n.op = Opcode::Add;
    }
    if (!n.isConstant && n.resultWidth != 0 && n.resultWidth == n.width) {
      if (const std::optional<Operand> same = identity(nodes, n)) {
        forward[k] = *same;
        continue;
      }
    }
    if (n.isConstant || n.resultWidth == 0 || n.resultWidth != n.width) continue;
    const OpInfo& info = opInfo(n.op);
    std::array<Lanes, 3> in{};
    bool foldable = true;
    for (std::uint32_t s = 0; s < 3 && foldable; ++s) {
      if (info.sources[s] == SourceRule::Unused) continue;
      if (info.sources[s] != SourceRule::Value) {
        foldable = false;
        break;
      }
      const std::optional<Lanes> lanes = literalLanes(nodes, n.src[s]);
      if (!lanes)
        foldable = false;
      else
        in[s] = *lanes;
    }
    if (!foldable) continue;
    Lanes out{};
    for (std::uint32_t i = 0; i < n.width && foldable; ++i) {
      const std::optional<float> v = foldLane(n.op, in[0][i], in[1][i], in[2][i]);
      if (!v)
        foldable = false;
      else
        out[i] = *v;
    }
    if (!foldable) continue;
    n.isConstant = true;
    n.op = Opcode::LoadConst;
    n.constant = out;
    n.src = {};
  }
  // Dead-code elimination: keep what a store or kill needs.
  std::vector<bool> live(nodes.size(), false);
  for (std::size_t i = nodes.size(); i-- > 0;) {
    const Node& n = nodes[i];
    if (n.resultWidth == 0 && n.op != Opcode::Nop) live[i] = true;
    if (!live[i]) continue;
    for (const Operand& o : n.src)
      if (o.type == OperandType::Value) live[o.node] = true;
  }
  for (std::size_t i = 0; i < nodes.size(); ++i)
    nodes[i].dead = !live[i];
}

namespace {

bool sameBits(const Lanes& a, const Lanes& b) {
  return std::bit_cast<std::array<std::uint32_t, 4>>(a) ==
         std::bit_cast<std::array<std::uint32_t, 4>>(b);
}

// The first pool index of `table` as one contiguous run: an identical run already in the pool, or
// appended whole. O(pool · table).
std::uint32_t internTable(std::vector<Lanes>& constants, const std::vector<Lanes>& table) {
  for (std::size_t start = 0; start + table.size() <= constants.size(); ++start) {
    bool same = true;
    for (std::size_t k = 0; k < table.size() && same; ++k)
      same = sameBits(constants[start + k], table[k]);
    if (same) return static_cast<std::uint32_t>(start);
  }
  constants.insert(constants.end(), table.begin(), table.end());
  return static_cast<std::uint32_t>(constants.size() - table.size());
}

}  // namespace

Result<std::uint32_t> emitSection(const std::vector<Node>& nodes, std::vector<std::uint32_t>& out,
                                  std::vector<Lanes>& constants) {
  using bytecode::OperandKind;
  const std::size_t count = nodes.size();
  // Which operands are immediates (a literal read with all its lanes equal).
  const auto immediate = [&](const Node& n, std::uint32_t slot) -> std::optional<std::uint32_t> {
    const Operand& o = n.src[slot];
    const std::optional<Lanes> lanes = literalLanes(nodes, o);
    if (!lanes) return std::nullopt;
    const std::uint32_t w = bytecode::sourceWidth(opInfo(n.op).sources[slot], n.width);
    const std::uint32_t bits = std::bit_cast<std::uint32_t>((*lanes)[0]);
    for (std::uint32_t i = 1; i < w; ++i)
      if (std::bit_cast<std::uint32_t>((*lanes)[i]) != bits) return std::nullopt;
    return bits;
  };
  // Last register use of every node (literals used only as immediates need no register).
  std::vector<std::int64_t> lastUse(count, -1);
  for (std::size_t i = 0; i < count; ++i) {
    const Node& n = nodes[i];
    if (n.dead) continue;
    for (std::uint32_t s = 0; s < 3; ++s) {
      if (n.src[s].type != OperandType::Value || immediate(n, s)) continue;
      lastUse[n.src[s].node] = static_cast<std::int64_t>(i);
    }
  }
  std::bitset<kMaxRegisters> busy;
  std::vector<std::uint32_t> reg(count, 0);
  std::uint32_t high = 0;
  const auto allocate = [&](std::uint32_t width) -> std::optional<std::uint32_t> {
    for (std::uint32_t base = 0; base + width <= kMaxRegisters; ++base) {
      bool free = true;
      for (std::uint32_t l = 0; l < width && free; ++l)
        free = !busy.test(base + l);
      if (!free) continue;
      for (std::uint32_t l = 0; l < width; ++l)
        busy.set(base + l);
      high = std::max(high, base + width);
      return base;
    }
    return std::nullopt;
  };
  for (std::size_t i = 0; i < count; ++i) {
    const Node& n = nodes[i];
    if (n.dead) continue;
    const bool needsRegister = n.resultWidth > 0 && lastUse[i] >= 0;
    if (n.isConstant && !needsRegister) continue;  // only ever an immediate
    bytecode::Instruction in;
    in.op = n.op;
    in.width = n.width;
    std::uint32_t constIndex = 0;
    if (n.isConstant) {
      // Intern by bit pattern.
      std::size_t found = constants.size();
      for (std::size_t c = 0; c < constants.size(); ++c)
        if (sameBits(constants[c], n.constant)) found = c;
      if (found == constants.size()) constants.push_back(n.constant);
      constIndex = static_cast<std::uint32_t>(found);
      in.kinds = {OperandKind::None, OperandKind::None, OperandKind::None};
      in.src = {constIndex, 0, 0};
    } else {
      for (std::uint32_t s = 0; s < 3; ++s) {
        const Operand& o = n.src[s];
        if (o.type == OperandType::None) continue;
        if (o.type == OperandType::Index) {
          in.kinds[s] = OperandKind::None;
          in.src[s] = s == 0 && n.op == Opcode::Curve ? internTable(constants, n.table) : o.index;
        } else if (const std::optional<std::uint32_t> bits = immediate(n, s)) {
          in.kinds[s] = OperandKind::Imm;
          in.src[s] = *bits;
        } else {
          in.kinds[s] = OperandKind::Reg;
          in.src[s] = bytecode::regWord(reg[o.node],
                                        {o.swizzle[0], o.swizzle[1], o.swizzle[2], o.swizzle[3]});
        }
      }
    }
    // Sources that die here free their registers before the result is placed (every executor
    // reads all sources before writing the destination).
    for (const Operand& o : n.src) {
      if (o.type == OperandType::Value && lastUse[o.node] == static_cast<std::int64_t>(i)) {
        for (std::uint32_t l = 0; l < nodes[o.node].resultWidth; ++l)
          busy.reset(reg[o.node] + l);
      }
    }
    if (needsRegister) {
      const std::optional<std::uint32_t> base = allocate(n.resultWidth);
      if (!base) return invalidArgument("more than 256 registers live at once");
      reg[i] = *base;
      in.dst = *base;
    } else if (n.resultWidth > 0) {
      continue;  // a result nobody reads (DCE keeps no such node; defensive)
    } else {
      in.dst = n.dstIndex;
    }
    const std::array<std::uint32_t, 4> words = bytecode::encode(in);
    out.insert(out.end(), words.begin(), words.end());
  }
  return high;
}

}  // namespace mote::compiler
