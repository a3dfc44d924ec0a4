// SPDX-License-Identifier: MIT
// Node-graph lowering: a graph's nodes in dependency order through the section's builder.
#include "lower.h"

#include <array>
#include <map>
#include <optional>
#include <string>

namespace mote::compiler {

using namespace authoring;
using bytecode::Builtin;

// A "modules" node (docs/node-library.md, "modules (module nodes)"). The validator has checked
// that it holds at least one module, INIT modules in the INIT graph and update modules (no graph
// module) in UPDATE graphs, and that no other node holds modules; ports are the compiler's to
// check.
void EmitterCompiler::lowerModulesNode(Builder& b, const GraphNode& node,
                                       const std::string& where) {
  if (!node.inputs.empty()) {
    error(where + "/inputs",
          "a modules node has no input ports (it runs at its place in the "
          "node list)");
    return;
  }
  if (&b == &update_) {
    lowerModuleNode(b, node.modules);
    return;
  }
  InitModule storage;
  for (const NodeModule& m : node.modules)
    if (const InitModule* init = moduleAs(m, storage)) lowerInitModule(b, *init);
}

namespace {

// Node graphs: each node is a builder call; its output is "out" (or one lane: "x", "y", "z", "w").

// Standard particle fields by name, with their widths.
constexpr std::pair<std::string_view, std::uint32_t> kStandardFields[] = {
    {"position", 3}, {"velocity", 3}, {"age", 1},  {"lifetime", 1}, {"size", 2},
    {"color", 4},    {"rotation", 1}, {"spin", 1}, {"mass", 1},     {"orientation", 4}};

// One lane of a standard field, addressable by itself in graphs.
struct PseudoField {
  std::string_view name;
  std::string_view field;
  std::uint32_t width;
  std::uint32_t lane;
};
constexpr PseudoField kPseudoFields[] = {
    {"alpha", "color", 4, 3}, {"size_x", "size", 2, 0}, {"size_y", "size", 2, 1}};

const PseudoField* pseudoField(const std::string& name) {
  for (const PseudoField& f : kPseudoFields)
    if (f.name == name) return &f;
  return nullptr;
}

}  // namespace

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
    const auto input = [&](const std::string& port) -> Value {
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
    };
    const auto name = [&](const std::string& key) -> std::string {
      const auto it = node.names.find(key);
      if (it == node.names.end()) {
        error(where + "/names",
              "node \"" + node.id + "\" (" + node.op + ") needs name \"" + key + "\"");
        return {};
      }
      return it->second;
    };
    // The width of a named particle field: a standard one or a declared custom one.
    const auto particleField = [&](const std::string& field,
                                   std::string& storage) -> std::uint32_t {
      for (const auto& [std_name, width] : kStandardFields) {
        if (std_name == field) {
          storage = field;
          return width;
        }
      }
      for (const FieldDecl& f : e_.particleFields) {
        if (f.name == field) {
          storage = "field." + field;
          return widthOf(f.type);
        }
      }
      error(where + "/names/field", "no particle field named \"" + field + "\"");
      return 0;
    };
    // Aliases: meep's legacy attribute nodes and descriptive names of ISA operations.
    static constexpr std::pair<std::string_view, std::string_view> kAliases[] = {
        {"attribute_get", "particle_field_get"},
        {"attribute_set", "particle_field_set"},
        {"emitter_time", "emitter_age"},
        {"mul_add", "fma"},
        {"length", "len"},
        {"normalize", "norm"},
        {"saturate", "sat"},
        {"select", "sel"},
        {"smoothstep", "smooth"},
        {"random", "rand"},
        {"random_range", "randr"},
        {"curl_noise", "curl"},
        {"less", "lt"},
        {"less_equal", "le"},
        {"equal", "eq"},
        {"not_equal", "ne"}};
    std::string op = node.op;
    for (const auto& [alias, canonical] : kAliases)
      if (op == alias) op = std::string(canonical);
    // An input port left unconnected may be given as a constant parameter of the same name.
    const auto inputOrParam = [&](const std::string& port) -> Value {
      if (node.inputs.find(port) == node.inputs.end()) {
        const auto it = node.params.find(port);
        if (it != node.params.end() && !it->second.empty() && it->second.size() <= 4) {
          Lanes lanes{};
          for (std::size_t l = 0; l < it->second.size(); ++l)
            lanes[l] = it->second[l];
          return b.constant(lanes, static_cast<std::uint32_t>(it->second.size()));
        }
      }
      return input(port);
    };
    const bytecode::BuiltinInfo* builtinOp = nullptr;
    for (const bytecode::BuiltinInfo& info : bytecode::kBuiltinInfos)
      if (info.name == op) builtinOp = &info;
    if (op == "modules") {
      lowerModulesNode(b, node, where);
    } else if (builtinOp != nullptr) {
      outputs[i] = b.builtin(builtinOp->builtin);
    } else if (op == "curve" || op == "gradient") {
      // The keys on the CURVE opcode (a single key: a constant), at t clamped to the end keys.
      const Value t = inputOrParam("t");
      if (t.width != 1) {
        error(where + "/inputs/t",
              "a " + std::to_string(t.width) + "-wide input where 1 lane is needed");
        continue;
      }
      outputs[i] = op == "curve" ? evalCurve(b, node.curve, t) : evalGradient(b, node.gradient, t);
    } else if (op == "constant") {
      const auto it = node.params.find("value");
      if (it == node.params.end() || it->second.empty() || it->second.size() > 4) {
        error(where + "/params", "a constant needs \"value\": 1 to 4 numbers");
        continue;
      }
      Lanes lanes{};
      for (std::size_t l = 0; l < it->second.size(); ++l)
        lanes[l] = it->second[l];
      outputs[i] = b.constant(lanes, static_cast<std::uint32_t>(it->second.size()));
    } else if (op == "particle_field_get") {
      const std::string field = name("field");
      if (const PseudoField* pf = pseudoField(field)) {
        outputs[i] = b.lane(load(b, std::string(pf->field), pf->width), pf->lane);
        continue;
      }
      std::string storage;
      const std::uint32_t w = particleField(field, storage);
      if (w > 0) outputs[i] = load(b, storage, w);
    } else if (op == "particle_field_set") {
      const std::string field = name("field");
      if (const PseudoField* pf = pseudoField(field)) {
        const Value v = inputOrParam("value");
        if (diagnostics_.size() > diagnosticsBefore) return;
        if (v.width != 1) {
          error(where + "/inputs/value",
                "\"" + field + "\" is one lane; the value is " + std::to_string(v.width) + " wide");
          continue;
        }
        b.storeField(layout_.field(std::string(pf->field), pf->width) + pf->lane, v);
        continue;
      }
      std::string storage;
      const std::uint32_t w = particleField(field, storage);
      const Value v = inputOrParam("value");
      if (w == 0 || diagnostics_.size() > diagnosticsBefore) return;
      if (v.width != w && v.width != 1) {
        error(where + "/inputs/value", "a " + std::to_string(v.width) + "-wide value for a " +
                                           std::to_string(w) + "-wide field");
        continue;
      }
      store(b, storage, v.width == w ? v : b.emit(Opcode::Mov, w, b.broadcast(v)));
    } else if (op == "emitter_field_get" || op == "global_field_get") {
      const std::string field = name("field");
      std::uint32_t w = 0;
      if (op == "emitter_field_get") {
        for (const FieldDecl& f : e_.emitterFields)
          if (f.name == field) w = widthOf(f.type);
      } else {
        for (const FieldDecl& f : effect_.globalFields)
          if (f.name == field) w = widthOf(f.type);
      }
      if (w == 0) {
        error(where + "/names/field",
              "no " + std::string(op == "emitter_field_get" ? "emitter" : "global") +
                  " field named \"" + field + "\"");
        continue;
      }
      outputs[i] = namedField(b, field, w, op == "global_field_get");
    } else if (op == "builtin") {
      const std::string builtin = name("builtin");
      bool found = false;
      for (const bytecode::BuiltinInfo& info : bytecode::kBuiltinInfos) {
        if (info.name == builtin) {
          outputs[i] = b.builtin(info.builtin);
          found = true;
        }
      }
      if (!found && !builtin.empty())
        error(where + "/names/builtin", "no builtin named \"" + builtin + "\"");
    } else if (op == "normalized_age") {
      outputs[i] = b.saturate(b.div(load(b, "age", 1), load(b, "lifetime", 1)));
    } else if (op == "kill") {
      b.kill(b.lane(inputOrParam("condition"), 0));
    } else if (const std::optional<Opcode> isa = bytecode::opcodeFromMnemonic(op)) {
      // Any ISA value instruction by its mnemonic: inputs a, b, c; random draws get fresh indices.
      const bytecode::OpInfo& info = bytecode::opInfo(*isa);
      if (info.width == bytecode::WidthRule::NoDst || *isa == Opcode::LoadConst ||
          *isa == Opcode::LoadField || *isa == Opcode::LoadBuiltin || *isa == Opcode::LoadEmitter ||
          *isa == Opcode::LoadGlobal) {
        error(where + "/op", "\"" + op +
                                 "\" is not a graph node (use particle_field_get, a builtin, "
                                 "emitter_field_get, global_field_get, particle_field_set or "
                                 "kill)");
        continue;
      }
      static constexpr const char* kPorts[] = {"a", "b", "c"};
      std::array<Value, 3> in{};
      std::uint32_t width = 1;
      for (std::uint32_t slot = 0; slot < 3; ++slot) {
        const bytecode::SourceRule rule = info.sources[slot];
        if (rule == bytecode::SourceRule::Unused || rule == bytecode::SourceRule::Index) continue;
        in[slot] = inputOrParam(kPorts[slot]);
        if (rule == bytecode::SourceRule::Value) width = std::max(width, in[slot].width);
      }
      if (diagnostics_.size() > diagnosticsBefore) return;
      switch (info.width) {
        case bytecode::WidthRule::Fixed1:
          width = 1;
          break;
        case bytecode::WidthRule::Fixed3:
          width = 3;
          break;
        case bytecode::WidthRule::Fixed4:
          width = 4;
          break;
        default:
          break;
      }
      std::array<Operand, 3> operands{};
      bool ok = true;
      for (std::uint32_t slot = 0; slot < 3 && ok; ++slot) {
        const bytecode::SourceRule rule = info.sources[slot];
        if (rule == bytecode::SourceRule::Unused) continue;
        if (rule == bytecode::SourceRule::Index) {
          operands[slot] = Builder::index(b.nextDraw());
          continue;
        }
        const std::uint32_t want = bytecode::sourceWidth(rule, width);
        if (in[slot].width == want) {
          operands[slot] = b.use(in[slot]);
        } else if (in[slot].width == 1) {
          operands[slot] = b.broadcast(in[slot]);
        } else {
          error(where + "/inputs/" + kPorts[slot], "a " + std::to_string(in[slot].width) +
                                                       "-wide input where " + std::to_string(want) +
                                                       " lanes are needed");
          ok = false;
        }
      }
      if (ok) outputs[i] = b.emit(*isa, width, operands[0], operands[1], operands[2]);
    } else {
      error(where + "/op", "unknown node type \"" + op + "\" (docs/node-library.md lists them)");
    }
  }
}

}  // namespace mote::compiler
