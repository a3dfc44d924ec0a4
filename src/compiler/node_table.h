// SPDX-License-Identifier: MIT
// The node library as one table: every graph node type with its aliases, ports and lowering.
#pragma once

#include "ir.h"

#include <mote/authoring/effect.h>
#include <mote/bytecode/isa.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mote::compiler {

class EmitterCompiler;

/// How many lanes a port carries, as the lowering checks it. Every input may also be 1 wide (then
/// it is broadcast), except where the rule says otherwise.
enum class PortWidth : std::uint8_t {
  None,    ///< output only: the node has no output
  Fixed,   ///< `lanes` lanes
  Node,    ///< w, the node's width: the widest of its Node inputs (1 when it has none)
  Field,   ///< input: as wide as the field `names.field` names, or 1 wide
  Named,   ///< output: as wide as the field or builtin the node's first name names
  Lane,    ///< input: any width; lane x is read
  Params,  ///< output: as many lanes as `params.value` has numbers (1 to 4)
  Draw,    ///< input slot of an ISA operation: the section's next random draw, not a port
};

struct NodePort {
  std::string_view name{};  ///< the port (an ISA operation's slots are a, b, c); empty for a Draw
  PortWidth width = PortWidth::None;
  std::uint32_t lanes = 0;  ///< Fixed: 1 to 4
};

/// Where a node type comes from, and the table of the reference it is listed in.
enum class NodeGroup : std::uint8_t {
  Graph,    ///< a node of the graph lowering itself
  Builtin,  ///< a builtin by its name (bytecode::kBuiltinInfos)
  Isa,      ///< a value instruction by its mnemonic (bytecode::kOpInfos)
};

/// Whether instructions of `rule` have one width of their own (cross, curl, the quaternion and
/// random-direction operations, wind).
constexpr bool isFixedWidth(bytecode::WidthRule rule) {
  return rule == bytecode::WidthRule::Fixed1 || rule == bytecode::WidthRule::Fixed3 ||
         rule == bytecode::WidthRule::Fixed4;
}

struct NodeType;
struct NodeLowering;
using NodeLowerFn = void (EmitterCompiler::*)(NodeLowering& n);

/// One row of the node table (docs/node-library.md is printed from the rows).
struct NodeType {
  std::string_view name{};
  std::vector<std::string_view> aliases{};
  std::vector<NodePort> inputs{};         ///< Isa: one per used source slot, in slot order (s0 = a)
  NodePort output{};                      ///< its name is "out" when it has one
  std::vector<std::string_view> names{};  ///< the `names` keys the node reads
  std::string_view summary{};             ///< what it does, one line (Isa: isa.h's semantics)
  NodeGroup group = NodeGroup::Graph;
  NodeLowerFn lower = nullptr;
  const bytecode::OpInfo* isa = nullptr;           ///< Isa rows
  const bytecode::BuiltinInfo* builtin = nullptr;  ///< Builtin rows
};

/// The node table: the graph nodes, then every builtin, then every value instruction the graph
/// may use. Names and aliases are unique across it. Built once; thread-safe.
const std::vector<NodeType>& nodeTypes();

/// The row whose name or alias is `op`, or nullptr.
const NodeType* findNodeType(std::string_view op);

/// A standard particle field, by name, with its width and what it holds.
struct StandardField {
  std::string_view name;
  std::uint32_t width;
  std::string_view what;
};
inline constexpr StandardField kStandardFields[] = {
    {"position", 3, "metres (world or emitter frame, per the emitter's `space`)"},
    {"velocity", 3, "m/s"},
    {"age", 1, "seconds since birth"},
    {"lifetime", 1, "seconds"},
    {"size", 2, "width, height in metres"},
    {"color", 4, "linear RGBA"},
    {"rotation", 1, "roll, radians"},
    {"spin", 1, "roll speed, radians per second"},
    {"mass", 1, "kg"},
    {"orientation", 4, "a quaternion"}};

/// One lane of a standard field, addressable by itself in graphs.
struct PseudoField {
  std::string_view name;
  std::string_view field;
  std::uint32_t width;
  std::uint32_t lane;
};
inline constexpr PseudoField kPseudoFields[] = {
    {"alpha", "color", 4, 3}, {"size_x", "size", 2, 0}, {"size_y", "size", 2, 1}};

/// The lowering of one node of a graph: what the row's lowering function reads and sets.
/// Whether `node` is given input `port`: connected, or as a parameter of that name.
inline bool givenPort(const authoring::GraphNode& node, const std::string& port) {
  return node.inputs.count(port) > 0 || node.params.count(port) > 0;
}

struct NodeLowering {
  EmitterCompiler& compiler;
  Builder& b;
  const authoring::GraphNode& node;
  const NodeType& type;
  const std::string& where;  ///< the node's JSON pointer
  const std::map<std::string, std::size_t>& byId;
  const std::vector<Value>& outputs;  ///< the outputs of the nodes lowered so far
  std::size_t diagnosticsBefore = 0;
  Value out;  ///< the node's output (invalid: none)

  /// The value connected to input `port` (a port of the row), or an error and a placeholder.
  Value input(const std::string& port);
  /// input(port), or the constant `params[port]` when the port is unconnected.
  Value inputOrParam(const std::string& port);
  /// `params[key]` as a constant when it has 1 to 4 numbers, else nullopt.
  std::optional<Value> param(const std::string& key);
  /// `v`, the value of input `port`, as an operand of `want` lanes: itself, or a 1-wide value
  /// broadcast; any other width is an error (and nullopt).
  std::optional<Operand> fit(const std::string& port, Value v, std::uint32_t want);
  /// Input `port` (connected or a parameter) as `lanes` lanes, one lane broadcast; `fallback`
  /// where it is not given, or after an error for another width.
  Value portOr(const std::string& port, std::uint32_t lanes, Value fallback);
  /// `names[key]`, or an error and "".
  std::string name(const std::string& key);
  /// Whether this node reported an error.
  bool failed() const;
  void error(const std::string& at, std::string message);
};

}  // namespace mote::compiler
