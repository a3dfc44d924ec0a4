// SPDX-License-Identifier: MIT
// Parent resolution of the geometry nodes (mdl_transform.h).
#include "mdl_transform.h"

#include "mdl_report.h"
#include "mdl_tables.h"

namespace mote::nwn::detail {

NodeHierarchy indexHierarchy(const MdlModel& model,
                             std::vector<authoring::Diagnostic>& diagnostics) {
  const Reporter report{&diagnostics, model.file};
  NodeHierarchy h;
  h.parent.assign(model.nodes.size(), kRootNode);
  for (std::size_t i = 0; i < model.nodes.size(); ++i) {
    const MdlNode& node = model.nodes[i];
    if (!h.byName.emplace(lowerCopy(node.name), i).second)
      report.warn(node.line,
                  "a second node named '" + node.name + "'; children attach to the first");
    if (node.parent.empty()) continue;
    const auto it = h.byName.find(lowerCopy(node.parent));
    if (it == h.byName.end() || it->second == i) {
      report.warn(node.line, "the parent '" + node.parent + "' of '" + node.name +
                                 "' is not declared before it; the node is placed at the root");
    } else {
      h.parent[i] = it->second;
    }
  }
  return h;
}

}  // namespace mote::nwn::detail
