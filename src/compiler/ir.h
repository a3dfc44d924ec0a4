// SPDX-License-Identifier: MIT
// The compiler's intermediate form: one section of a program as a list of SSA nodes, each an ISA
// instruction whose register operands are earlier nodes' values. Module lowering and node graphs
// both build it through Builder; the passes (constant folding, dead-code elimination) rewrite it;
// emitProgram allocates registers (linear scan over live ranges) and interns constants.
#pragma once

#include <mote/bytecode/isa.h>
#include <mote/bytecode/program.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mote::compiler {

using bytecode::Opcode;
using Lanes = std::array<float, 4>;

/// An SSA value: the index of the node that produced it, and its width.
struct Value {
  std::uint32_t node = UINT32_MAX;
  std::uint32_t width = 0;
  bool valid() const { return node != UINT32_MAX; }
};

enum class OperandType : std::uint8_t { None, Value, Index };

struct Operand {
  OperandType type = OperandType::None;
  std::uint32_t node = 0;                           ///< Value: the producing node
  std::uint32_t index = 0;                          ///< Index: the raw index
  std::array<std::uint8_t, 4> swizzle{0, 1, 2, 3};  ///< Value: lane i reads lane swizzle[i]
};

struct Node {
  Opcode op = Opcode::Nop;
  std::uint32_t width = 1;        ///< the instruction's width
  std::uint32_t resultWidth = 0;  ///< 0: no result (stores, kill, spawn)
  std::array<Operand, 3> src{};
  std::uint32_t dstIndex = 0;  ///< the dst field of an opcode whose dst is an index (WidthRule)
  bool isConstant = false;     ///< a literal (op LoadConst, value in `constant`)
  Lanes constant{};
  std::vector<Lanes> table;  ///< CURVE: its constant-pool table (isa.h), placed by emitSection
  bool dead = false;
};

class Builder {
 public:
  const std::vector<Node>& nodes() const { return nodes_; }
  std::vector<Node>& nodes() { return nodes_; }

  /// A literal of `width` lanes.
  Value constant(const Lanes& lanes, std::uint32_t width);
  Value scalar(float v) { return constant({v, v, v, v}, 1); }
  Value vec3(float x, float y, float z) { return constant({x, y, z, 0.0f}, 3); }

  /// `v` broadcast (v.xxxx) or swizzled to `width` lanes: an operand view, not a node.
  Operand broadcast(Value v) const;
  Operand use(Value v) const;
  Operand swizzle(Value v, std::array<std::uint8_t, 4> lanes) const;
  static Operand index(std::uint32_t i);

  /// Appends an instruction; returns its result (invalid for stores and kill).
  Value emit(Opcode op, std::uint32_t width, Operand a = {}, Operand b = {}, Operand c = {});
  /// Appends an instruction whose dst field is an index (WidthRule::DstIndex: SPAWNI's target).
  void emitTo(Opcode op, std::uint32_t dstIndex, Operand a, Operand b, Operand c) {
    emit(op, 1, a, b, c);
    nodes_.back().dstIndex = dstIndex;
  }

  // Shorthands for same-width arithmetic.
  Value add(Value a, Value b) { return binary(Opcode::Add, a, b); }
  Value sub(Value a, Value b) { return binary(Opcode::Sub, a, b); }
  Value mul(Value a, Value b) { return binary(Opcode::Mul, a, b); }
  Value div(Value a, Value b) { return binary(Opcode::Div, a, b); }
  Value min(Value a, Value b) { return binary(Opcode::Min, a, b); }
  Value max(Value a, Value b) { return binary(Opcode::Max, a, b); }
  Value unary(Opcode op, Value a) { return emit(op, a.width, use(a)); }
  /// a op b where b may be 1 wide (then broadcast to a's width).
  Value binary(Opcode op, Value a, Value b);
  /// fma(a, b, c) with b possibly 1 wide.
  Value fma(Value a, Value b, Value c);
  Value select(Value condition, Value a, Value b);
  Value dot(Value a, Value b) { return emit(Opcode::Dot, a.width, use(a), use(b)); }
  Value length(Value a) { return emit(Opcode::Length, a.width, use(a)); }
  Value normalize(Value a) { return emit(Opcode::Normalize, a.width, use(a)); }
  Value saturate(Value a) { return emit(Opcode::Saturate, a.width, use(a)); }
  /// Lane `lane` of `v` as a 1-wide value (a mov).
  Value lane(Value v, std::uint32_t lane);
  /// A 3/4-wide value from 1-wide parts.
  Value compose(std::initializer_list<Value> parts);

  Value loadField(std::uint32_t offset, std::uint32_t width);
  void storeField(std::uint32_t offset, Value v);
  Value builtin(bytecode::Builtin b);
  Value loadEmitter(std::uint32_t offset, std::uint32_t width);
  Value loadGlobal(std::uint32_t import, std::uint32_t width);
  /// A fresh random-draw index for this section (each draw gets its own counter stream).
  std::uint32_t nextDraw() { return draws_++; }
  void kill(Value condition);
  /// From here on, killed() is 1 where a KILL of this section has fired for the particle (a
  /// non-zero or NaN condition, as KILL reads it), else 0: what particle death events read.
  void trackKills() {
    killed_ = scalar(0.0f);
    trackingKills_ = true;
  }
  [[nodiscard]] Value killed() const { return killed_; }
  /// CURVE over `keys` (time, value) pairs, `width` lanes of value, at 1-wide `x`; 2 keys or more,
  /// times finite and non-decreasing. The table goes into the pool whole when emitted.
  Value curve(const std::vector<std::pair<float, Lanes>>& keys, bytecode::CurveTableInterp interp,
              std::uint32_t width, Value x);

 private:
  std::vector<Node> nodes_;
  std::uint32_t draws_ = 0;
  bool trackingKills_ = false;
  Value killed_{};
};

/// The lanes a Value operand reads (its swizzle applied) when its node is a literal; else none.
std::optional<Lanes> literalLanes(const std::vector<Node>& nodes, const Operand& o);

/// Folds nodes whose operands are all literals (pure arithmetic, with the reference executor's
/// float semantics), then marks nodes that no store or kill needs as dead.
void optimize(std::vector<Node>& nodes);

/// Register allocation and encoding of one section into `out` (4 words per live node); constants
/// are interned into `constants` by bit pattern (-0 and +0 are different constants), a CURVE's
/// table as one contiguous run (an identical run already in the pool is shared), and a
/// literal whose lanes are all one value becomes an immediate operand. Returns the number of
/// registers the section needs, or an error when more than 256 would be live at once.
Result<std::uint32_t> emitSection(const std::vector<Node>& nodes, std::vector<std::uint32_t>& out,
                                  std::vector<Lanes>& constants);

}  // namespace mote::compiler
