// SPDX-License-Identifier: MIT
// Binary (compiled) models (issue 27, deliverable 5). The binary fixtures in
// tests/data/nwn/binary were compiled from the ASCII fixtures by Torlack's nwnmdlcomp, an
// independent compiler (tests/data/nwn/binary/README.md has the command): each must import to the
// EffectDesc its ASCII source imports to, except where the compiler itself drops what it does not
// know (stated per fixture below). Every truncated prefix and a set of corruptions are refused with
// the byte offset where the reader found the fault.
#include "support/source_dir.h"

#include <mote/authoring/effect_json.h>
#include <mote/core/file.h>
#include <mote/nwn/mdl.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <string>
#include <tuple>
#include <vector>

namespace mote::nwn {
namespace {

using namespace authoring;

const std::filesystem::path kDir =
    std::filesystem::path(mote::test::sourceDir()) / "tests/data/nwn";

std::string bytesOf(const std::filesystem::path& path) {
  Result<std::vector<std::uint8_t>> bytes = readFile(path.string(), kMaxMdlFileBytes);
  EXPECT_TRUE(bytes.ok()) << path;
  return bytes.ok() ? std::string(bytes->begin(), bytes->end()) : std::string();
}

ImportResult importWithTheFixturesPaths(const std::filesystem::path& path) {
  ImportOptions options;
  options.textureSearchPath = {(kDir / "textures").string()};
  options.modelSearchPath = {(kDir / "chunks").string()};
  return importMdlFile(path.string(), options);
}

std::string firstError(const MdlParseResult& r) {
  for (const Diagnostic& d : r.diagnostics)
    if (d.severity == Severity::Error) return d.message;
  return {};
}

class BinaryFixture : public ::testing::TestWithParam<const char*> {};

TEST_P(BinaryFixture, ImportsAsItsAsciiSourceDoes) {
  const std::string name = GetParam();
  const ImportResult ascii =
      importWithTheFixturesPaths(kDir / (name == "chunk_rocks" ? "chunks" : "") / (name + ".mdl"));
  const ImportResult binary = importWithTheFixturesPaths(kDir / "binary" / (name + ".mdl"));
  ASSERT_TRUE(ascii.ok());
  ASSERT_TRUE(binary.ok()) << (binary.diagnostics.empty() ? "" : binary.diagnostics[0].message);
  EffectDesc expected = ascii.effect;
  // What nwnmdlcomp does not compile (MDL_EMITTERS.md §4.4, §7.5): keywords it does not know are
  // lost, and `p2p_sel` is one bit set by any non-zero value.
  if (name == "cleanmodels_lightning") {
    expected.emitters[0].spawn.rateOverTime = {};  // `birthratekeykey`: a doubled suffix
    expected.emitters[0].maxParticles = binary.effect.emitters[0].maxParticles;  // from the rate
    expected.emitters[1].render.beam.subdivisions = RenderDesc{}.beam.subdivisions;  // SubDiv
  } else if (name == "nwmax_gravity") {
    expected.materials[0].doubleSided = false;  // `twosidedtext` (a typo)
    expected.materials[0].ambientTint = false;  // `m_istnited` (a typo)
    for (UpdateModule& m : expected.emitters[0].update)
      if (auto* target = std::get_if<TargetModule>(&m)) target->mode = TargetMode::Bezier;
  }
  EXPECT_EQ(binary.effect, expected) << "binary:\n"
                                     << saveEffect(binary.effect) << "\nASCII, as compiled:\n"
                                     << saveEffect(expected);
  EXPECT_EQ(binary.animation, ascii.animation);
  EXPECT_EQ(binary.length, ascii.length);
  EXPECT_EQ(binary.looping, ascii.looping);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, BinaryFixture,
                         ::testing::Values("bioware_fountain", "chunk_rocks",
                                           "cleanmodels_lightning", "explosion_events",
                                           "nwmax_gravity", "nwnmdlcomp_flash", "sprites_single",
                                           "three_stage"));

// A chunk model's triangles, each as its three (position, uv) corners in order, sorted: the
// compiler splits and reorders vertices, so indices differ while the triangles do not.
std::vector<std::vector<float>> triangles(const ChunkMesh& mesh) {
  std::vector<std::vector<float>> out;
  for (std::size_t t = 0; t < mesh.triangleCount(); ++t) {
    std::vector<float> corners;
    for (std::size_t c = 0; c < 3; ++c) {
      const std::uint32_t v = mesh.indices[3 * t + c];
      corners.insert(corners.end(),
                     {mesh.positions[3 * v], mesh.positions[3 * v + 1], mesh.positions[3 * v + 2],
                      mesh.uvs[2 * v], mesh.uvs[2 * v + 1]});
    }
    out.push_back(std::move(corners));
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(MdlBinary, AChunkModelsTrianglesAreItsAsciiSources) {
  const ChunkMeshResult ascii = loadChunkMesh((kDir / "chunks/fx_pebble.mdl").string());
  const ChunkMeshResult binary = loadChunkMesh((kDir / "binary/fx_pebble.mdl").string());
  ASSERT_TRUE(ascii.ok());
  ASSERT_TRUE(binary.ok()) << (binary.diagnostics.empty() ? "" : binary.diagnostics[0].message);
  ASSERT_GT(ascii.mesh.triangleCount(), 0u);
  EXPECT_EQ(binary.mesh.texture, ascii.mesh.texture);
  EXPECT_EQ(triangles(binary.mesh), triangles(ascii.mesh));
}

TEST(MdlBinary, TheModelHeaderAnimationsAndEventsAreRead) {
  const MdlParseResult r = loadMdlFile((kDir / "binary/explosion_events.mdl").string());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.model.name, "fx_boom");
  EXPECT_EQ(r.model.supermodel, "");
  EXPECT_EQ(r.model.classification, "effect");
  const MdlParseResult source = loadMdlFile((kDir / "explosion_events.mdl").string());
  ASSERT_TRUE(source.ok());
  ASSERT_EQ(r.model.animations.size(), source.model.animations.size());
  for (std::size_t a = 0; a < r.model.animations.size(); ++a) {
    const MdlAnimation& got = r.model.animations[a];
    const MdlAnimation& want = source.model.animations[a];
    EXPECT_EQ(got.name, want.name);
    EXPECT_EQ(got.length, want.length);
    EXPECT_EQ(got.transtime, want.transtime);
    EXPECT_EQ(got.animroot, want.animroot);
    // nwnmdlcomp sorts an animation's events by time (the order the game fires them in).
    const auto timed = [](const std::vector<MdlEvent>& events) {
      std::vector<std::pair<float, std::string>> out;
      for (const MdlEvent& e : events)
        out.emplace_back(e.time, e.name);
      std::stable_sort(out.begin(), out.end(),
                       [](const auto& x, const auto& y) { return x.first < y.first; });
      return out;
    };
    EXPECT_EQ(timed(got.events), timed(want.events)) << got.name;
  }
  // Nodes come in the ASCII file's order (pre-order), with their parents' names.
  ASSERT_EQ(r.model.nodes.size(), source.model.nodes.size());
  for (std::size_t n = 0; n < r.model.nodes.size(); ++n) {
    EXPECT_EQ(r.model.nodes[n].name, source.model.nodes[n].name);
    EXPECT_EQ(r.model.nodes[n].parent, source.model.nodes[n].parent);
    EXPECT_EQ(r.model.nodes[n].type, source.model.nodes[n].type);
  }
}

TEST(MdlBinary, EveryTruncatedPrefixIsRefusedWithAnOffset) {
  for (const char* name : {"bioware_fountain", "fx_pebble", "three_stage"}) {
    const std::string bytes = bytesOf(kDir / "binary" / (std::string(name) + ".mdl"));
    ASSERT_FALSE(bytes.empty());
    for (std::size_t n = 1; n < bytes.size(); ++n) {
      const MdlParseResult r =
          parseMdl(std::string_view(bytes).substr(0, n), name, MdlParseOptions{.meshes = true});
      ASSERT_FALSE(r.ok()) << name << " cut at " << n;
      ASSERT_EQ(firstError(r).rfind("offset 0x", 0), 0u)
          << name << " cut at " << n << ": " << firstError(r);
    }
  }
}

// A prefix whose header is rewritten to claim only the bytes it has (model data cut, no raw
// data): whatever structure it cuts is refused where the reader finds it, never read past.
TEST(MdlBinary, APrefixThatClaimsItsLengthIsRefusedWhereItIsCut) {
  for (const char* name : {"bioware_fountain", "fx_pebble", "three_stage"}) {
    const std::string bytes = bytesOf(kDir / "binary" / (std::string(name) + ".mdl"));
    std::size_t refused = 0;
    for (std::size_t n = 12; n < bytes.size(); ++n) {
      std::string cut = bytes.substr(0, n);
      const auto modelBytes = static_cast<std::uint32_t>(n - 12);
      const std::uint32_t noRaw = 0;
      std::memcpy(cut.data() + 4, &modelBytes, 4);
      std::memcpy(cut.data() + 8, &noRaw, 4);
      const MdlParseResult r = parseMdl(cut, name, MdlParseOptions{.meshes = true});
      if (r.ok()) continue;
      ++refused;
      ASSERT_EQ(firstError(r).rfind("offset 0x", 0), 0u)
          << name << " cut at " << n << ": " << firstError(r);
    }
    EXPECT_EQ(refused, bytes.size() - 12) << name;
  }
}

// The fountain's structure, read from its bytes (nwnmdlcomp's layout): the root node's offset in
// the model data, and the file offset of a model-data offset.
std::uint32_t word(const std::string& bytes, std::size_t fileOffset) {
  std::uint32_t v = 0;
  std::memcpy(&v, bytes.data() + fileOffset, 4);
  return v;
}
void setWord(std::string& bytes, std::size_t fileOffset, std::uint32_t v) {
  std::memcpy(bytes.data() + fileOffset, &v, 4);
}
constexpr std::size_t kModel = 12;  // the model data starts after the file header

TEST(MdlBinary, CorruptStructureIsRefusedWithWhereAndWhat) {
  const std::string good = bytesOf(kDir / "binary/bioware_fountain.mdl");
  ASSERT_TRUE(parseMdl(good, "f").ok());
  const std::uint32_t root = word(good, kModel + 0x48);
  const std::uint32_t children = word(good, kModel + root + 0x48);
  ASSERT_GE(word(good, kModel + root + 0x4C), 1u);
  const auto expectError = [](const std::string& bytes, const std::string& text) {
    const MdlParseResult r = parseMdl(bytes, "f");
    EXPECT_FALSE(r.ok()) << text;
    EXPECT_NE(firstError(r).find(text), std::string::npos) << firstError(r);
  };
  {  // a cycle: the root's first child is the root
    std::string bytes = good;
    setWord(bytes, kModel + children, root);
    expectError(bytes, "is reached twice (a cycle or a shared node)");
  }
  {  // a child list past the end of the model data
    std::string bytes = good;
    setWord(bytes, kModel + root + 0x4C, 1000);
    expectError(bytes, "a child list (4000 bytes) lies past the end of the model data");
  }
  {  // a node name that is not text
    std::string bytes = good;
    bytes[kModel + root + 0x20] = '\x01';
    expectError(bytes, "a node name is not text");
  }
  {  // the raw data's size past the end of the file
    std::string bytes = good;
    setWord(bytes, 8, 100);
    expectError(bytes, "(truncated?)");
  }
  {  // not a model header
    std::string bytes = good;
    bytes[kModel + 0x6C] = 7;
    expectError(bytes, "not a model header (geometry type 7");
  }
  {  // a key time that is not a number
    std::string bytes = good;
    const std::uint32_t spinner = word(good, kModel + children);
    const std::uint32_t data = word(good, kModel + spinner + 0x60);
    setWord(bytes, kModel + data, 0x7FC00000u);  // NaN
    expectError(bytes, "a key time is not a finite number");
  }
}

// BioWare's compiler numbers the mid/percent controllers differently (MDL_EMITTERS.md §5) and
// writes empty arrays with a non-zero offset, which tells the two apart (CleanModels' fingerprint).
// This rewrites the nwnmdlcomp fixture into BioWare's numbering — the only bytes this test writes.
TEST(MdlBinary, BioWaresMidAndPercentControllerIdsAreRead) {
  std::string bytes = bytesOf(kDir / "binary/three_stage.mdl");
  const MdlParseResult nwnmdlcomp = parseMdl(bytes, "three_stage");
  ASSERT_TRUE(nwnmdlcomp.ok());
  const std::vector<std::pair<std::uint32_t, std::uint32_t>> renumber = {
      {464, 448}, {468, 452}, {480, 464}, {481, 465}, {482, 466}, {484, 468}, {488, 472}};
  std::size_t renumbered = 0;
  const std::uint32_t root = word(bytes, kModel + 0x48);
  std::vector<std::uint32_t> nodes = {root};
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const std::uint32_t n = nodes[i];
    for (std::uint32_t c = 0; c < word(bytes, kModel + n + 0x4C); ++c)
      nodes.push_back(word(bytes, kModel + word(bytes, kModel + n + 0x48) + 4 * c));
    const std::uint32_t keys = word(bytes, kModel + n + 0x54);
    for (std::uint32_t k = 0; k < word(bytes, kModel + n + 0x58); ++k) {
      const std::size_t at = kModel + keys + 12 * k;
      for (const auto& [from, to] : renumber) {
        if (word(bytes, at) == from) {
          setWord(bytes, at, to);
          ++renumbered;
          break;
        }
      }
    }
  }
  EXPECT_EQ(renumbered, 7u);
  setWord(bytes, kModel + 0x50, 0x1234);  // an empty array with an offset: BioWare's
  const MdlParseResult bioware = parseMdl(bytes, "three_stage");
  ASSERT_TRUE(bioware.ok());
  EXPECT_EQ(bioware.model.nodes, nwnmdlcomp.model.nodes);
}

}  // namespace
}  // namespace mote::nwn
