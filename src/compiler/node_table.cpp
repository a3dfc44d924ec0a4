// SPDX-License-Identifier: MIT
// The node table's rows (docs/node-library.md is printed from them) and the ports' reading.
#include "node_table.h"

#include "lower.h"

#include <mote/core/assert.h>

#include <algorithm>
#include <optional>
#include <utility>

namespace mote::compiler {
namespace {

using PW = PortWidth;

constexpr NodePort port(std::string_view name, PortWidth width, std::uint32_t lanes = 0) {
  return NodePort{name, width, lanes};
}
constexpr NodePort kNoOutput{};
constexpr NodePort output(PortWidth width, std::uint32_t lanes = 0) {
  return NodePort{"out", width, lanes};
}

// Descriptive names of ISA operations, by mnemonic.
constexpr std::pair<std::string_view, std::string_view> kIsaAliases[] = {
    {"fma", "mul_add"},  {"len", "length"},         {"norm", "normalize"},
    {"sat", "saturate"}, {"sel", "select"},         {"smooth", "smoothstep"},
    {"rand", "random"},  {"randr", "random_range"}, {"curl", "curl_noise"},
    {"lt", "less"},      {"le", "less_equal"},      {"eq", "equal"},
    {"ne", "not_equal"}};

// The instructions that load, store or have no destination are not graph nodes: the nodes of
// the table stand for them (particle_field_get, a builtin, kill, …).
constexpr bool isGraphInstruction(const bytecode::OpInfo& info) {
  return bytecode::dstWidth(info.width, 1) > 0 && info.opClass != bytecode::OpClass::Load;
}

// An ISA operation's ports follow from its source rules: a value source is w wide, or as wide
// as a fixed-width instruction; the other rules fix the width; an index source is a draw.
static_assert(
    [] {
      for (const bytecode::OpInfo& info : bytecode::kOpInfos)
        for (std::size_t s = 1; s < 3; ++s)
          if (info.sources[s] != bytecode::SourceRule::Unused &&
              info.sources[s - 1] == bytecode::SourceRule::Unused)
            return false;
      return true;
    }(),
    "a row's inputs are the used source slots in order");

NodeType isaRow(const bytecode::OpInfo& info) {
  NodeType row;
  row.name = info.mnemonic;
  row.group = NodeGroup::Isa;
  row.isa = &info;
  row.summary = info.semantics;
  row.lower = &EmitterCompiler::lowerIsaNode;
  for (const auto& [mnemonic, alias] : kIsaAliases)
    if (mnemonic == info.mnemonic) row.aliases.push_back(alias);
  const bool fixed = isFixedWidth(info.width);
  const std::uint32_t fixedWidth = bytecode::dstWidth(info.width, 1);  // Reduce: 1
  static constexpr std::string_view kSlots[] = {"a", "b", "c"};
  for (std::size_t s = 0; s < 3; ++s) {
    const bytecode::SourceRule rule = info.sources[s];
    if (rule == bytecode::SourceRule::Unused) break;
    if (rule == bytecode::SourceRule::Index) {
      row.inputs.push_back(port("", PW::Draw));
    } else if (rule == bytecode::SourceRule::Value && !fixed) {
      row.inputs.push_back(port(kSlots[s], PW::Node));
    } else {
      row.inputs.push_back(port(kSlots[s], PW::Fixed, bytecode::sourceWidth(rule, fixedWidth)));
    }
  }
  row.output =
      info.width == bytecode::WidthRule::Any ? output(PW::Node) : output(PW::Fixed, fixedWidth);
  return row;
}

std::vector<NodeType> buildNodeTypes() {
  using C = EmitterCompiler;
  std::vector<NodeType> rows = {
      {.name = "modules",
       .output = kNoOutput,
       .summary = "runs its `modules` at its place in the node list (no ports)",
       .lower = &C::lowerModulesNode},
      {.name = "constant",
       .output = output(PW::Params),
       .summary = "`params.value` (1 to 4 numbers)",
       .lower = &C::lowerConstantNode},
      {.name = "curve",
       .inputs = {port("t", PW::Fixed, 1)},
       .output = output(PW::Fixed, 1),
       .summary = "the node's `curve` at `t` (the `curve` instruction)",
       .lower = &C::lowerCurveNode},
      {.name = "gradient",
       .inputs = {port("t", PW::Fixed, 1)},
       .output = output(PW::Fixed, 4),
       .summary = "the node's `gradient` at `t`, RGBA (the `curve` instruction)",
       .lower = &C::lowerGradientNode},
      {.name = "particle_field_get",
       .aliases = {"attribute_get"},
       .output = output(PW::Named),
       .names = {"field"},
       .summary = "the particle field's value (a standard field, a pseudo-field or a custom one)",
       .lower = &C::lowerFieldGetNode},
      {.name = "particle_field_set",
       .aliases = {"attribute_set"},
       .inputs = {port("value", PW::Field)},
       .output = kNoOutput,
       .names = {"field"},
       .summary = "writes `value` to the particle field (a pseudo-field: a 1-wide value)",
       .lower = &C::lowerFieldSetNode},
      {.name = "emitter_field_get",
       .output = output(PW::Named),
       .names = {"field"},
       .summary = "an emitter field of this emitter (`emitter_fields`)",
       .lower = &C::lowerEmitterFieldNode},
      {.name = "global_field_get",
       .output = output(PW::Named),
       .names = {"field"},
       .summary = "a global field of the effect (`global_fields`), imported by name",
       .lower = &C::lowerGlobalFieldNode},
      {.name = "builtin",
       .output = output(PW::Named),
       .names = {"builtin"},
       .summary = "the builtin `names.builtin` names (by its name, not an alias)",
       .lower = &C::lowerBuiltinNode},
      {.name = "normalized_age",
       .output = output(PW::Fixed, 1),
       .summary = "saturate(age / lifetime), from the `age` and `lifetime` fields",
       .lower = &C::lowerNormalizedAgeNode},
      {.name = "kill",
       .inputs = {port("condition", PW::Lane)},
       .output = kNoOutput,
       .summary = "the particle dies when lane x of `condition` is not 0",
       .lower = &C::lowerKillNode},
      {.name = "spawn",
       .aliases = {"event"},
       .inputs = {port("count", PW::Lane), port("position", PW::Fixed, 3),
                  port("velocity", PW::Fixed, 3), port("size", PW::Fixed, 1),
                  port("color", PW::Fixed, 4)},
       .output = kNoOutput,
       .names = {"emitter"},
       .summary = "floor(lane x of `count`) particles into emitter `names.emitter` at `position` "
                  "(default: the particle's); `velocity`, `size`, `color` where given are passed "
                  "as an event's inheritance (added, multiplied)",
       .lower = &C::lowerSpawnNode},
      {.name = "report",
       .inputs = {port("when", PW::Lane), port("position", PW::Fixed, 3),
                  port("velocity", PW::Fixed, 3), port("tag", PW::Lane)},
       .output = kNoOutput,
       .summary = "tells the host (its event buffer) of a custom event where lane x of `when` is "
                  "1 or more, at `position`, moving at `velocity` (defaults: the particle's), "
                  "tagged floor(`tag`) (default 0)",
       .lower = &C::lowerReportNode},
  };
  for (const bytecode::BuiltinInfo& info : bytecode::kBuiltinInfos) {
    NodeType row;
    row.name = info.name;
    if (info.builtin == bytecode::Builtin::EmitterAge) row.aliases.push_back("emitter_time");
    row.output = output(PW::Fixed, info.width);
    row.summary = "the builtin from the host (docs/isa.md, \"Builtins\")";
    row.group = NodeGroup::Builtin;
    row.lower = &C::lowerNamedBuiltinNode;
    row.builtin = &info;
    rows.push_back(std::move(row));
  }
  for (const bytecode::OpInfo& info : bytecode::kOpInfos) {
    // `curve` is the curve node: its key table is not a port.
    if (!isGraphInstruction(info) || info.opcode == Opcode::Curve) continue;
    rows.push_back(isaRow(info));
  }
  return rows;
}

}  // namespace

const std::vector<NodeType>& nodeTypes() {
  static const std::vector<NodeType> rows = buildNodeTypes();
  return rows;
}

const NodeType* findNodeType(std::string_view op) {
  for (const NodeType& row : nodeTypes()) {
    if (row.name == op) return &row;
    if (std::find(row.aliases.begin(), row.aliases.end(), op) != row.aliases.end()) return &row;
  }
  return nullptr;
}

// -------------------------------------------------------------------------------------------------
// Reading a node's ports

Value NodeLowering::input(const std::string& port) {
  const auto it = node.inputs.find(port);
  if (it == node.inputs.end()) {
    error(where + "/inputs",
          "node \"" + node.id + "\" (" + node.op + ") needs input \"" + port + "\"");
    return b.scalar(0.0f);
  }
  const std::size_t dot = it->second.find('.');
  const Value v = outputs[byId.at(it->second.substr(0, dot))];
  if (!v.valid()) {
    error(where + "/inputs/" + port, "\"" + it->second + "\" has no output");
    return b.scalar(0.0f);
  }
  if (dot == std::string::npos) return v;
  const std::string lane = it->second.substr(dot + 1);
  if (lane == "out") return v;
  const std::size_t l = std::string_view("xyzw").find(lane);
  if (lane.size() != 1 || l == std::string_view::npos || l >= v.width) {
    error(where + "/inputs/" + port,
          "no output \"" + lane + "\" (use out, or one lane x, y, z, w)");
    return b.scalar(0.0f);
  }
  return b.lane(v, static_cast<std::uint32_t>(l));
}

Value NodeLowering::inputOrParam(const std::string& port) {
  MOTE_ASSERT(std::any_of(type.inputs.begin(), type.inputs.end(),
                          [&](const NodePort& p) { return p.name == port; }),
              "the lowering reads a port its row of the node table declares");
  // An input port left unconnected may be given as a constant parameter of the same name.
  if (node.inputs.find(port) == node.inputs.end()) {
    if (const std::optional<Value> constant = param(port)) return *constant;
  }
  return input(port);
}

std::optional<Operand> NodeLowering::fit(const std::string& port, Value v, std::uint32_t want) {
  if (v.width == want) return b.use(v);
  if (v.width == 1) return b.broadcast(v);
  error(where + "/inputs/" + port, "a " + std::to_string(v.width) + "-wide input where " +
                                       std::to_string(want) + " lanes are needed");
  return std::nullopt;
}

Value NodeLowering::portOr(const std::string& port, std::uint32_t lanes, Value fallback) {
  if (!givenPort(node, port)) return fallback;
  const Value v = inputOrParam(port);
  const std::optional<Operand> operand = fit(port, v, lanes);
  if (!operand) return fallback;
  return v.width == lanes ? v : b.emit(bytecode::Opcode::Mov, lanes, *operand);
}

std::optional<Value> NodeLowering::param(const std::string& key) {
  const auto it = node.params.find(key);
  if (it == node.params.end() || it->second.empty() || it->second.size() > 4) return std::nullopt;
  Lanes lanes{};
  for (std::size_t l = 0; l < it->second.size(); ++l)
    lanes[l] = it->second[l];
  return b.constant(lanes, static_cast<std::uint32_t>(it->second.size()));
}

std::string NodeLowering::name(const std::string& key) {
  const auto it = node.names.find(key);
  if (it == node.names.end()) {
    error(where + "/names",
          "node \"" + node.id + "\" (" + node.op + ") needs name \"" + key + "\"");
    return {};
  }
  return it->second;
}

bool NodeLowering::failed() const {
  return compiler.diagnostics_.size() > diagnosticsBefore;
}

void NodeLowering::error(const std::string& at, std::string message) {
  compiler.error(at, std::move(message));
}

}  // namespace mote::compiler
