// SPDX-License-Identifier: MIT
// Supermodels (issue 27, deliverable 3): the chain is loaded along the model search path (any case
// of the file name), its animations are the model's (its own first), and a missing supermodel or a
// cycle warns once and ends the chain. Fixtures: tests/data/nwn/supermodel.
#include "support/source_dir.h"

#include <mote/authoring/effect_json.h>
#include <mote/nwn/mdl.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

namespace mote::nwn {
namespace {

using namespace authoring;

const std::filesystem::path kDir =
    std::filesystem::path(mote::test::sourceDir()) / "tests/data/nwn/supermodel";

std::size_t countWarnings(const std::vector<Diagnostic>& diagnostics, const std::string& text) {
  return static_cast<std::size_t>(
      std::count_if(diagnostics.begin(), diagnostics.end(), [&](const Diagnostic& d) {
        return d.severity == Severity::Warning && d.message.find(text) != std::string::npos;
      }));
}

TEST(MdlSupermodel, TheChainLoadsAlongThePathAndStopsAtACycle) {
  const MdlParseResult child = loadMdlFile((kDir / "vfx_child.mdl").string());
  ASSERT_TRUE(child.ok());
  const SupermodelChain chain = loadSupermodels(child.model, {kDir.string()});
  ASSERT_EQ(chain.models.size(), 2u);  // FX_BASE.mdl (written fx_base), fx_root.mdl
  EXPECT_EQ(chain.models[0].name, "fx_base");
  EXPECT_EQ(chain.models[1].name, "fx_root");
  EXPECT_EQ(countWarnings(chain.diagnostics,
                          "the supermodel 'fx_base' is already in the chain (a cycle)"),
            1u);
  // The model's own animations first, then each supermodel's it lacks, marked with their origin.
  const MdlModel merged = withInheritedAnimations(child.model, chain.models);
  ASSERT_EQ(merged.animations.size(), 3u);
  EXPECT_EQ(merged.animations[0].name, "impact");
  EXPECT_EQ(merged.animations[0].inheritedFrom, "");
  EXPECT_EQ(merged.animations[1].name, "duration");
  EXPECT_EQ(merged.animations[1].inheritedFrom, "fx_base");
  EXPECT_FLOAT_EQ(merged.animations[1].transtime, 0.25f);
  EXPECT_EQ(merged.animations[2].name, "cessation");
  EXPECT_EQ(merged.animations[2].inheritedFrom, "fx_root");
  EXPECT_EQ(defaultAnimation(merged), "impact");
}

TEST(MdlSupermodel, AnInheritedAnimationDrivesTheModelsEmitters) {
  ImportOptions options;
  options.animation = "duration";
  const ImportResult r = importMdlFile((kDir / "vfx_child.mdl").string(), options);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.animation, "duration");
  ASSERT_EQ(r.effect.emitters.size(), 1u);
  const Curve& rate = r.effect.emitters[0].spawn.rateOverTime;
  ASSERT_EQ(rate.keys.size(), 2u);
  EXPECT_EQ(rate.keys[1].time, 2.0f);
  EXPECT_EQ(rate.keys[1].value, 20.0f);
  // `tail` is a node of the supermodel's family the child lacks: no warning for it; the cycle is
  // warned once.
  EXPECT_EQ(countWarnings(r.diagnostics, "tail"), 0u);
  EXPECT_EQ(countWarnings(r.diagnostics, "a cycle"), 1u);
  EXPECT_EQ(countWarnings(r.diagnostics, "is not loaded"), 0u);
  EXPECT_TRUE(validateEffect(r.effect).empty());
  // Its own `impact` is the default, and wins over the supermodel's.
  const ImportResult own = importMdlFile((kDir / "vfx_child.mdl").string());
  ASSERT_TRUE(own.ok());
  EXPECT_EQ(own.animation, "impact");
  ASSERT_EQ(own.effect.emitters.size(), 1u);
  EXPECT_EQ(own.effect.emitters[0].spawn.rate, 5.0f);  // its keys hold 5: a constant
  EXPECT_TRUE(own.effect.emitters[0].spawn.rateOverTime.keys.empty());
}

TEST(MdlSupermodel, AMissingSupermodelWarnsOnceAndTheImportGoesOn) {
  MdlParseResult p = parseMdl(
      "newmodel m\nsetsupermodel m a_nothere\nbeginmodelgeom m\nnode emitter e\nparent NULL\n"
      "birthrate 1\nendnode\nendmodelgeom m\ndonemodel m\n",
      "m.mdl");
  ASSERT_TRUE(p.ok());
  const SupermodelChain chain = loadSupermodels(p.model, {kDir.string(), "/nonexistent"});
  EXPECT_TRUE(chain.models.empty());
  EXPECT_EQ(
      countWarnings(chain.diagnostics, "the supermodel 'a_nothere' is not in " + kDir.string() +
                                           ", /nonexistent as a_nothere.mdl (any case)"),
      1u);
  // In memory with no search path: importMdl says the inherited animations are missing.
  const ImportResult r = importMdl(p.model);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(countWarnings(r.diagnostics, "the supermodel 'a_nothere' is not loaded"), 1u);
}

}  // namespace
}  // namespace mote::nwn
