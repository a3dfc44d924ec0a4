// SPDX-License-Identifier: MIT
// The node table: one row per node type with unique names and aliases, every builtin and every
// value instruction a graph may use among them, ports that follow the ISA's source rules, and the
// node reference in docs/node-library.md printed from it.
#include "node_table.h"

#include "support/generated_docs.h"
#include "support/source_dir.h"

#include <mote/compiler/compiler.h>

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace mote::compiler {
namespace {

TEST(NodeTable, NamesAndAliasesAreUnique) {
  std::set<std::string_view> seen;
  for (const NodeType& row : nodeTypes()) {
    EXPECT_TRUE(seen.insert(row.name).second) << row.name;
    for (const std::string_view alias : row.aliases)
      EXPECT_TRUE(seen.insert(alias).second) << alias;
    EXPECT_NE(row.lower, nullptr) << row.name;
  }
}

TEST(NodeTable, FindsRowsByNameAndAlias) {
  ASSERT_NE(findNodeType("mul_add"), nullptr);
  EXPECT_EQ(findNodeType("mul_add")->name, "fma");
  ASSERT_NE(findNodeType("emitter_time"), nullptr);
  EXPECT_EQ(findNodeType("emitter_time")->name, "emitter_age");
  ASSERT_NE(findNodeType("attribute_set"), nullptr);
  EXPECT_EQ(findNodeType("attribute_set")->name, "particle_field_set");
  EXPECT_EQ(findNodeType("sinn"), nullptr);
  EXPECT_EQ(findNodeType("ldf"), nullptr);
  // `curve` and `kill` are the graph's own nodes, not the instructions.
  EXPECT_EQ(findNodeType("curve")->group, NodeGroup::Graph);
  EXPECT_EQ(findNodeType("kill")->group, NodeGroup::Graph);
}

TEST(NodeTable, EveryBuiltinAndValueInstructionIsARow) {
  for (const bytecode::BuiltinInfo& info : bytecode::kBuiltinInfos) {
    const NodeType* row = findNodeType(info.name);
    ASSERT_NE(row, nullptr) << info.name;
    EXPECT_EQ(row->output.lanes, info.width) << info.name;
  }
  for (const bytecode::OpInfo& info : bytecode::kOpInfos) {
    const NodeType* row = findNodeType(info.mnemonic);
    // curve, kill, spawn and report are graph nodes of their own (the spawn node may emit
    // spawni).
    if (info.opcode == bytecode::Opcode::Curve || info.opcode == bytecode::Opcode::Kill ||
        info.opcode == bytecode::Opcode::Spawn || info.opcode == bytecode::Opcode::Report)
      continue;
    if (row == nullptr) {
      // Only the loads and the instructions without a destination are left out.
      EXPECT_TRUE(bytecode::dstWidth(info.width, 1) == 0 || info.mnemonic.starts_with("ld"))
          << info.mnemonic;
      continue;
    }
    EXPECT_EQ(row->isa, &info);
    std::size_t used = 0;
    for (const bytecode::SourceRule rule : info.sources)
      if (rule != bytecode::SourceRule::Unused) ++used;
    EXPECT_EQ(row->inputs.size(), used) << info.mnemonic;
  }
}

TEST(NodeLibrary, DocsCarryTheGeneratedNodeReference) {
  EXPECT_EQ(
      test::generatedSection(mote::test::sourcePath("docs/node-library.md"), "NODE REFERENCE"),
      "\n" + nodeLibraryReference())
      << "docs/node-library.md's node reference is stale; regenerate with "
         "scripts/update-effect-docs";
}

}  // namespace
}  // namespace mote::compiler
