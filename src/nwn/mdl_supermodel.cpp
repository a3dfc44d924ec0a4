// SPDX-License-Identifier: MIT
// Supermodels: the chain of models a model inherits animations from (`setsupermodel`), loaded
// along the model search path, and the inherited animations merged into the model.
#include "mdl_report.h"
#include "mdl_tables.h"
#include "mdl_texture.h"

#include <mote/nwn/mdl.h>

#include <algorithm>
#include <set>
#include <string>

namespace mote::nwn {

SupermodelChain loadSupermodels(const MdlModel& model, const std::vector<std::string>& searchPath) {
  SupermodelChain chain;
  detail::SearchPath path(searchPath);
  const detail::Reporter report{&chain.diagnostics, model.file};
  std::set<std::string> seen{lowerCopy(model.name)};
  for (std::string name = model.supermodel; !name.empty();) {
    const std::string key = lowerCopy(name);
    const std::string gone = ": the animations it would give the model are not available";
    if (chain.models.size() == kMaxSupermodelChain) {
      report.warn(0, "the supermodel chain is deeper than " + std::to_string(kMaxSupermodelChain) +
                         " models; '" + name + "' and what it inherits are not loaded");
      break;
    }
    if (!seen.insert(key).second) {
      report.warn(0, "the supermodel '" + name +
                         "' is already in the chain (a cycle); the chain stops there");
      break;
    }
    const std::string* file = path.find({key + ".mdl"});
    if (file == nullptr) {
      report.warn(0, "the supermodel '" + name + "' is not in " +
                         (path.empty() ? std::string("any folder (no model search path)")
                                       : path.describe()) +
                         " as " + name + ".mdl (any case)" + gone);
      break;
    }
    MdlParseResult parsed = loadMdlFile(*file);
    if (!parsed.ok()) {
      const auto failed = std::find_if(parsed.diagnostics.begin(), parsed.diagnostics.end(),
                                       [](const authoring::Diagnostic& d) {
                                         return d.severity != authoring::Severity::Warning;
                                       });
      report.warn(0, "the supermodel '" + name + "' does not load (" +
                         formatMdlDiagnostic(*failed) + ")" + gone);
      break;
    }
    for (authoring::Diagnostic& d : parsed.diagnostics)
      chain.diagnostics.push_back(std::move(d));
    name = parsed.model.supermodel;
    chain.models.push_back(std::move(parsed.model));
  }
  return chain;
}

MdlModel withInheritedAnimations(const MdlModel& model, const std::vector<MdlModel>& supermodels) {
  MdlModel out = model;
  std::set<std::string> names;
  for (const MdlAnimation& a : model.animations)
    names.insert(lowerCopy(a.name));
  for (const MdlModel& super : supermodels) {
    for (const MdlAnimation& a : super.animations) {
      if (out.animations.size() >= kMaxMdlAnimations) return out;
      if (!names.insert(lowerCopy(a.name)).second) continue;
      MdlAnimation& inherited = out.animations.emplace_back(a);
      inherited.inheritedFrom = super.name.empty() ? super.file : super.name;
      // Its line numbers are the supermodel file's: diagnostics against the model say none.
      inherited.line = 0;
      for (MdlEvent& e : inherited.events)
        e.line = 0;
      for (MdlNode& n : inherited.nodes) {
        n.line = 0;
        for (MdlTrack& t : n.tracks)
          t.line = 0;
        for (MdlProperty& p : n.properties)
          p.line = 0;
      }
    }
  }
  return out;
}

}  // namespace mote::nwn
