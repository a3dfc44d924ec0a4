// SPDX-License-Identifier: MIT
// The Markdown node reference of docs/node-library.md, printed from the node table.
#include "node_table.h"

#include <mote/compiler/compiler.h>

#include <string>
#include <string_view>

namespace mote::compiler {
namespace {

std::string code(std::string_view s) {
  return "`" + std::string(s) + "`";
}

// A table cell: `|` would end it.
std::string cell(std::string_view s) {
  std::string out;
  for (const char c : s) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

std::string joined(const std::vector<std::string_view>& items) {
  std::string out;
  for (const std::string_view item : items)
    out += (out.empty() ? "" : ", ") + code(item);
  return out;
}

std::string inputText(const NodePort& p) {
  switch (p.width) {
    case PortWidth::Fixed:
      return code(p.name) + " (" + std::to_string(p.lanes) + ")";
    case PortWidth::Node:
      return code(p.name) + " (w)";
    case PortWidth::Field:
      return code(p.name) + " (the field's width, or 1)";
    case PortWidth::Lane:
      return code(p.name) + " (any width; lane x is read)";
    case PortWidth::Draw:
      return "— (draw: automatic)";
    case PortWidth::None:
    case PortWidth::Named:
    case PortWidth::Params:
      break;
  }
  return "?";
}

std::string inputsText(const NodeType& row) {
  if (row.inputs.empty()) return "—";
  std::string out;
  for (const NodePort& p : row.inputs)
    out += (out.empty() ? "" : ", ") + inputText(p);
  return out;
}

std::string outputText(const NodeType& row) {
  switch (row.output.width) {
    case PortWidth::None:
      return "—";
    case PortWidth::Fixed:
      return std::to_string(row.output.lanes);
    case PortWidth::Node:
      // No input sets w (rand): the node is 1 wide.
      for (const NodePort& p : row.inputs)
        if (p.width == PortWidth::Node) return "w";
      return "1";
    case PortWidth::Named:
      return !row.names.empty() && row.names[0] == "builtin" ? "the builtin's width"
                                                             : "the field's width";
    case PortWidth::Params:
      return "as many as `params.value` has numbers";
    case PortWidth::Field:
    case PortWidth::Lane:
    case PortWidth::Draw:
      break;
  }
  return "?";
}

void graphNodes(std::string& out) {
  out +=
      "### Node table: graph nodes\n\n"
      "The nodes of the graph lowering itself; the sections below say more about each.\n\n"
      "| op | alias | inputs (lanes) | names | output lanes | does |\n"
      "|---|---|---|---|---|---|\n";
  for (const NodeType& row : nodeTypes()) {
    if (row.group != NodeGroup::Graph) continue;
    out += "| " + code(row.name) + " | " + joined(row.aliases) + " | " + inputsText(row) + " | " +
           joined(row.names) + " | " + outputText(row) + " | " + cell(row.summary) + " |\n";
  }
}

void builtinNodes(std::string& out) {
  out +=
      "\n### Node table: builtins\n\n"
      "A node whose `op` is a builtin's name outputs that builtin; it has no inputs.\n\n"
      "| op | alias | lanes |\n"
      "|---|---|---|\n";
  for (const NodeType& row : nodeTypes()) {
    if (row.group != NodeGroup::Builtin) continue;
    out += "| " + code(row.name) + " | " + joined(row.aliases) + " | " + outputText(row) + " |\n";
  }
}

void isaNodes(std::string& out) {
  out +=
      "\n### Node table: ISA operations\n\n"
      "*w* is the node's width: the widest of its `(w)` inputs, 1 when it has none. Each input "
      "must "
      "be as wide as its port needs or 1 wide (then it is broadcast). The semantics column is the "
      "ISA table's one-line description (`isa.h`).\n\n"
      "| op | alias | inputs (lanes) | output lanes | semantics (isa.h) |\n"
      "|---|---|---|---|---|\n";
  for (const NodeType& row : nodeTypes()) {
    if (row.group != NodeGroup::Isa) continue;
    out += "| " + code(row.name) + " | " + joined(row.aliases) + " | " + inputsText(row) + " | " +
           outputText(row) + " | " + cell(row.summary) + " |\n";
  }
}

void particleFields(std::string& out) {
  out +=
      "\n### Node table: particle fields\n\n"
      "The standard fields `particle_field_get` and `particle_field_set` name, in the units the "
      "program stores (angles are radians here, although the effect file writes degrees):\n\n"
      "| field | lanes | what |\n"
      "|---|---|---|\n";
  for (const StandardField& f : kStandardFields)
    out += "| " + code(f.name) + " | " + std::to_string(f.width) + " | " + cell(f.what) + " |\n";
  out +=
      "\nThe pseudo-fields, each one lane of a standard field:\n\n"
      "| pseudo-field | is |\n"
      "|---|---|\n";
  for (const PseudoField& f : kPseudoFields) {
    out += "| " + code(f.name) + " | " + code(f.field) + " lane " + std::string(1, "xyzw"[f.lane]) +
           " |\n";
  }
}

void aliases(std::string& out) {
  out +=
      "\n### Node table: aliases\n\n"
      "| alias | is |\n"
      "|---|---|\n";
  for (const NodeType& row : nodeTypes())
    for (const std::string_view alias : row.aliases)
      out += "| " + code(alias) + " | " + code(row.name) + " |\n";
}

}  // namespace

std::string nodeLibraryReference() {
  std::string out;
  graphNodes(out);
  builtinNodes(out);
  isaNodes(out);
  particleFields(out);
  aliases(out);
  return out;
}

}  // namespace mote::compiler
