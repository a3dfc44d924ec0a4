// SPDX-License-Identifier: MIT
// Node-graph lowering: a graph's nodes in dependency order through the section's builder.
#include "lower.h"
#include "node_table.h"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <string>

namespace mote::compiler {

using namespace authoring;
using bytecode::Builtin;

void EmitterCompiler::lowerGraph(Builder& b, const NodeGraph& graph, const std::string& at) {
  const std::size_t n = graph.nodes.size();
  std::map<std::string, std::size_t> byId;
  for (std::size_t i = 0; i < n; ++i)
    byId[graph.nodes[i].id] = i;
  // Topological order (depth-first); a cycle is an error.
  std::vector<std::size_t> order;
  std::vector<int> state(n, 0);  // 0 new, 1 on the stack, 2 done
  bool cycle = false;
  const auto visit = [&](auto&& self, std::size_t i) -> void {
    if (state[i] == 2 || cycle) return;
    if (state[i] == 1) {
      cycle = true;
      error(at + "/nodes/" + std::to_string(i),
            "the graph has a cycle through node \"" + graph.nodes[i].id + "\"");
      return;
    }
    state[i] = 1;
    for (const auto& [port, source] : graph.nodes[i].inputs) {
      const auto it = byId.find(source.substr(0, source.find('.')));
      if (it != byId.end()) self(self, it->second);
    }
    state[i] = 2;
    order.push_back(i);
  };
  for (std::size_t i = 0; i < n; ++i)
    visit(visit, i);
  if (cycle) return;
  std::vector<Value> outputs(n);
  const std::size_t diagnosticsBefore = diagnostics_.size();
  for (const std::size_t i : order) {
    // Once a node failed, nodes after it would only report that its output is missing.
    if (diagnostics_.size() > diagnosticsBefore) return;
    const GraphNode& node = graph.nodes[i];
    const std::string where = at + "/nodes/" + std::to_string(i);
    const NodeType* type = findNodeType(node.op);
    if (type == nullptr) {
      unknownNode(node.op, where);
      continue;
    }
    NodeLowering lowering{*this, b, node, *type, where, byId, outputs, diagnostics_.size(), {}};
    (this->*type->lower)(lowering);
    outputs[i] = lowering.out;
  }
}

// An op that no row of the node table has: an instruction that is not a node, or a typo.
void EmitterCompiler::unknownNode(const std::string& op, const std::string& where) {
  if (bytecode::opcodeFromMnemonic(op)) {
    error(where + "/op", "\"" + op +
                             "\" is not a graph node (use particle_field_get, a builtin, "
                             "emitter_field_get, global_field_get, particle_field_set or "
                             "kill)");
    return;
  }
  error(where + "/op", "unknown node type \"" + op + "\" (docs/node-library.md lists them)");
}

// -------------------------------------------------------------------------------------------------
// The node types (the rows of node_table.cpp)

// A "modules" node (docs/node-library.md, "modules (module nodes)"). The validator has checked
// that it holds at least one module, INIT modules in the INIT graph and update modules (no graph
// module) in UPDATE graphs, and that no other node holds modules; ports are the compiler's to
// check.
void EmitterCompiler::lowerModulesNode(NodeLowering& n) {
  if (!n.node.inputs.empty()) {
    error(n.where + "/inputs",
          "a modules node has no input ports (it runs at its place in the "
          "node list)");
    return;
  }
  if (&n.b == &update_) {
    lowerModuleNode(n.b, n.node.modules);
    return;
  }
  InitModule storage;
  for (const NodeModule& m : n.node.modules)
    if (const InitModule* init = moduleAs(m, storage)) lowerInitModule(n.b, *init);
}

void EmitterCompiler::lowerConstantNode(NodeLowering& n) {
  const std::optional<Value> value = n.param("value");
  if (!value) {
    error(n.where + "/params", "a constant needs \"value\": 1 to 4 numbers");
    return;
  }
  n.out = *value;
}

// The keys on the CURVE opcode (a single key: a constant), at t clamped to the end keys.
Value EmitterCompiler::curveInput(NodeLowering& n) {
  const Value t = n.inputOrParam("t");
  if (t.width != 1) {
    error(n.where + "/inputs/t",
          "a " + std::to_string(t.width) + "-wide input where 1 lane is needed");
    return {};
  }
  return t;
}

void EmitterCompiler::lowerCurveNode(NodeLowering& n) {
  if (const Value t = curveInput(n); t.valid()) n.out = evalCurve(n.b, n.node.curve, t);
}

void EmitterCompiler::lowerGradientNode(NodeLowering& n) {
  if (const Value t = curveInput(n); t.valid()) n.out = evalGradient(n.b, n.node.gradient, t);
}

namespace {

const PseudoField* pseudoField(const std::string& name) {
  for (const PseudoField& f : kPseudoFields)
    if (f.name == name) return &f;
  return nullptr;
}

}  // namespace

// The width of a named particle field: a standard one or a declared custom one (0: an error).
std::uint32_t EmitterCompiler::particleFieldWidth(NodeLowering& n, const std::string& field,
                                                  std::string& storage) {
  for (const StandardField& f : kStandardFields) {
    if (f.name == field) {
      storage = field;
      return f.width;
    }
  }
  for (const FieldDecl& f : e_.particleFields) {
    if (f.name == field) {
      storage = "field." + field;
      return widthOf(f.type);
    }
  }
  error(n.where + "/names/field", "no particle field named \"" + field + "\"");
  return 0;
}

void EmitterCompiler::lowerFieldGetNode(NodeLowering& n) {
  Builder& b = n.b;
  const std::string field = n.name("field");
  if (const PseudoField* pf = pseudoField(field)) {
    n.out = b.lane(load(b, std::string(pf->field), pf->width), pf->lane);
    return;
  }
  std::string storage;
  const std::uint32_t w = particleFieldWidth(n, field, storage);
  if (w > 0) n.out = load(b, storage, w);
}

void EmitterCompiler::lowerFieldSetNode(NodeLowering& n) {
  Builder& b = n.b;
  const std::string field = n.name("field");
  if (const PseudoField* pf = pseudoField(field)) {
    const Value v = n.inputOrParam("value");
    if (n.failed()) return;
    if (v.width != 1) {
      error(n.where + "/inputs/value",
            "\"" + field + "\" is one lane; the value is " + std::to_string(v.width) + " wide");
      return;
    }
    b.storeField(layout_.field(std::string(pf->field), pf->width) + pf->lane, v);
    return;
  }
  std::string storage;
  const std::uint32_t w = particleFieldWidth(n, field, storage);
  const Value v = n.inputOrParam("value");
  if (w == 0 || n.failed()) return;
  if (v.width != w && v.width != 1) {
    error(n.where + "/inputs/value", "a " + std::to_string(v.width) + "-wide value for a " +
                                         std::to_string(w) + "-wide field");
    return;
  }
  store(b, storage, v.width == w ? v : b.emit(Opcode::Mov, w, b.broadcast(v)));
}

// An emitter or global field by name: `kind` names the list in the error.
void EmitterCompiler::lowerFieldDeclNode(NodeLowering& n, const std::vector<FieldDecl>& fields,
                                         std::string_view kind, bool global) {
  const std::string field = n.name("field");
  std::uint32_t w = 0;
  for (const FieldDecl& f : fields)
    if (f.name == field) w = widthOf(f.type);
  if (w == 0) {
    error(n.where + "/names/field", "no " + std::string(kind) + " field named \"" + field + "\"");
    return;
  }
  n.out = namedField(n.b, field, w, global);
}

void EmitterCompiler::lowerEmitterFieldNode(NodeLowering& n) {
  lowerFieldDeclNode(n, e_.emitterFields, "emitter", false);
}

void EmitterCompiler::lowerGlobalFieldNode(NodeLowering& n) {
  lowerFieldDeclNode(n, effect_.globalFields, "global", true);
}

void EmitterCompiler::lowerBuiltinNode(NodeLowering& n) {
  const std::string builtin = n.name("builtin");
  bool found = false;
  for (const bytecode::BuiltinInfo& info : bytecode::kBuiltinInfos) {
    if (info.name == builtin) {
      n.out = n.b.builtin(info.builtin);
      found = true;
    }
  }
  if (!found && !builtin.empty())
    error(n.where + "/names/builtin", "no builtin named \"" + builtin + "\"");
}

void EmitterCompiler::lowerNamedBuiltinNode(NodeLowering& n) {
  n.out = n.b.builtin(n.type.builtin->builtin);
}

void EmitterCompiler::lowerNormalizedAgeNode(NodeLowering& n) {
  Builder& b = n.b;
  n.out = b.saturate(b.div(load(b, "age", 1), load(b, "lifetime", 1)));
}

void EmitterCompiler::lowerKillNode(NodeLowering& n) {
  n.b.kill(n.b.lane(n.inputOrParam("condition"), 0));
}

// A spawn node (the event node for custom conditions): SPAWN, or SPAWNI when it passes a velocity,
// size or colour — the target adds the velocity to its newborns' and multiplies their size and
// colour, as for an event's inheritance (scanNeeds).
void EmitterCompiler::lowerSpawnNode(NodeLowering& n) {
  Builder& b = n.b;
  const std::string target = n.name("emitter");
  if (n.failed()) return;
  const auto named = std::find_if(effect_.emitters.begin(), effect_.emitters.end(),
                                  [&](const Emitter& e) { return e.name == target; });
  if (named == effect_.emitters.end() || &*named == &e_) {
    n.error(n.where + "/names/emitter",
            "\"" + target + "\" is not another emitter of this effect (a spawn node's target)");
    return;
  }
  if (!named->spawn.source.empty()) {
    n.error(n.where + "/names/emitter",
            "\"" + target + "\" is a trail of \"" + named->spawn.source +
                "\" (spawn.source): only its source's particles spawn into it");
    return;
  }
  const auto index = static_cast<std::uint32_t>(named - effect_.emitters.begin());
  const Value count = b.lane(n.inputOrParam("count"), 0);
  const Value position = n.portOr("position", 3, Value{});
  const Value at = position.valid() ? position : load(b, "position", 3);
  const bool passes =
      givenPort(n.node, "velocity") || givenPort(n.node, "size") || givenPort(n.node, "color");
  if (n.failed()) return;
  if (!passes) {
    b.emit(Opcode::Spawn, 1, Builder::index(index), b.use(count), b.use(at));
    return;
  }
  const Value velocity = n.portOr("velocity", 3, b.vec3(0.0f, 0.0f, 0.0f));
  const Value size = n.portOr("size", 1, b.scalar(1.0f));
  const Value color = n.portOr("color", 4, b.constant({1.0f, 1.0f, 1.0f, 1.0f}, 4));
  if (n.failed()) return;
  spawnInherit(b, index, count, at, velocity, size, color);
}

// A report node: a custom event for the host (REPORT of kind custom) where `when` holds.
void EmitterCompiler::lowerReportNode(NodeLowering& n) {
  Builder& b = n.b;
  const Value when = b.lane(n.inputOrParam("when"), 0);
  const Value position = n.portOr("position", 3, Value{});
  const Value velocity = n.portOr("velocity", 3, Value{});
  const Value tag = givenPort(n.node, "tag") ? b.lane(n.inputOrParam("tag"), 0) : b.scalar(0.0f);
  if (n.failed()) return;
  report(b, bytecode::ReportKind::Custom, tag, when,
         position.valid() ? position : load(b, "position", 3),
         velocity.valid() ? velocity : load(b, "velocity", 3));
}

// Any ISA value instruction by its mnemonic: the row's ports a, b, c are its sources; random draws
// get fresh indices.
void EmitterCompiler::lowerIsaNode(NodeLowering& n) {
  Builder& b = n.b;
  const std::vector<NodePort>& ports = n.type.inputs;
  std::array<Value, 3> in{};
  std::uint32_t width = 1;
  for (std::size_t slot = 0; slot < ports.size(); ++slot) {
    if (ports[slot].width == PortWidth::Draw) continue;
    in[slot] = n.inputOrParam(std::string(ports[slot].name));
    if (ports[slot].width == PortWidth::Node) width = std::max(width, in[slot].width);
  }
  if (n.failed()) return;
  if (isFixedWidth(n.type.isa->width)) width = bytecode::dstWidth(n.type.isa->width, width);
  std::array<Operand, 3> operands{};
  for (std::size_t slot = 0; slot < ports.size(); ++slot) {
    if (ports[slot].width == PortWidth::Draw) {
      operands[slot] = Builder::index(b.nextDraw());
      continue;
    }
    const std::uint32_t want = ports[slot].width == PortWidth::Node ? width : ports[slot].lanes;
    const std::optional<Operand> operand = n.fit(std::string(ports[slot].name), in[slot], want);
    if (!operand) return;
    operands[slot] = *operand;
  }
  n.out = b.emit(n.type.isa->opcode, width, operands[0], operands[1], operands[2]);
}

}  // namespace mote::compiler
