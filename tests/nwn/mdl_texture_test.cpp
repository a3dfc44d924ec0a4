// SPDX-License-Identifier: MIT
// Textures as a user has them (issue 27, deliverable 6): the search path (the model's folder,
// then the given folders), case-insensitive names, TXI files read and lowered (blending, an
// animated `cycle` texture) or warned about, and what the import reports it found where.
#include <mote/authoring/effect_json.h>
#include <mote/nwn/mdl.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <unistd.h>

namespace mote::nwn {
namespace {

using namespace authoring;
namespace fs = std::filesystem;

bool hasWarning(const std::vector<Diagnostic>& diagnostics, std::uint32_t line,
                const std::string& text) {
  return std::any_of(diagnostics.begin(), diagnostics.end(), [&](const Diagnostic& d) {
    return d.severity == Severity::Warning && (line == 0 || d.line == line) &&
           d.message.find(text) != std::string::npos;
  });
}

TEST(Txi, TheFieldsEmittersUseAreReadAndTheRestIgnoredOrWarned) {
  const TxiParseResult r = parseTxi(
      "# a flipbook\r\n"
      "Blending Additive\r\n"
      "proceduretype CYCLE\r\n"
      "numx 4\n"
      "numy 300\n"
      "fps 12.5\n"
      "mipmap 0\n"
      "upperleftcoords 2\n"
      "0.0 0.0 0\n"
      "0.5 0.0 0\n"
      "sparkle 1\n"
      "blending sideways\n"
      "fps\n",
      "glow.txi");
  EXPECT_EQ(r.txi.blending, "additive");
  EXPECT_EQ(r.txi.procedureType, "cycle");
  EXPECT_EQ(r.txi.numx, 4u);
  EXPECT_EQ(r.txi.numy, 256u);  // clamped, with a warning
  EXPECT_FLOAT_EQ(r.txi.fps, 12.5f);
  ASSERT_EQ(r.diagnostics.size(), 4u);
  EXPECT_TRUE(hasWarning(r.diagnostics, 5, "numy 300 is not 1..256; 256 is used"));
  EXPECT_TRUE(hasWarning(r.diagnostics, 11, "unknown TXI keyword 'sparkle'"));
  EXPECT_TRUE(hasWarning(r.diagnostics, 12, "blending 'sideways' is not additive"));
  EXPECT_TRUE(hasWarning(r.diagnostics, 13, "'fps' needs a number"));
  for (const Diagnostic& d : r.diagnostics)
    EXPECT_EQ(d.file, "glow.txi");
  // A list that counts past the end, or a count that is not one, never loops or fails.
  EXPECT_TRUE(hasWarning(parseTxi("lowerrightcoords 9\n1 2 3\n").diagnostics, 1,
                         "the file ends before the list's rows do"));
  EXPECT_TRUE(hasWarning(parseTxi("upperleftcoords -3\n").diagnostics, 1, "needs a row count"));
  EXPECT_TRUE(parseTxi("").diagnostics.empty());
}

TEST(Txi, SearchPathListsSplitOnColonsAndSemicolons) {
  EXPECT_EQ(splitSearchPath("/a:/b;;/c d:"), (std::vector<std::string>{"/a", "/b", "/c d"}));
  EXPECT_TRUE(splitSearchPath("").empty());
}

class TextureFolders : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("mote-nwn-txi-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "model");
    fs::create_directories(root_ / "more");
  }
  void TearDown() override { fs::remove_all(root_); }
  void write(const fs::path& path, const std::string& text) {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
  }
  // A model of emitters `glow` (blend Normal), `lit` (blend Lighten) and `grid` (xgrid 2), all
  // textured fx_glow, and `other` textured FX_Other.
  std::string model() {
    std::string text = "newmodel m\nbeginmodelgeom m\nnode dummy m\nparent NULL\nendnode\n";
    for (const char* e : {"glow", "lit", "grid", "other"}) {
      text += std::string("node emitter ") + e + "\nparent m\nbirthrate 1\n";
      text += std::string(e) == "other" ? "texture FX_Other\n" : "texture fx_glow\n";
      if (std::string(e) == "lit") text += "blend Lighten\n";
      if (std::string(e) == "grid") text += "xgrid 2\n";
      text += "endnode\n";
    }
    text += "endmodelgeom m\ndonemodel m\n";
    const fs::path path = root_ / "model" / "m.mdl";
    write(path, text);
    return path.string();
  }
  static const Material& material(const EffectDesc& effect, const std::string& name) {
    const auto it = std::find_if(effect.materials.begin(), effect.materials.end(),
                                 [&](const Material& m) { return m.name == name; });
    EXPECT_NE(it, effect.materials.end()) << name;
    static const Material none;
    return it == effect.materials.end() ? none : *it;
  }
  fs::path root_;
};

TEST_F(TextureFolders, TheModelsFolderComesFirstThenTheGivenOnesInOrder) {
  const std::string path = model();
  write(root_ / "model" / "FX_GLOW.tga", "");
  write(root_ / "more" / "fx_glow.png", "");  // shadowed by the model's folder
  write(root_ / "more" / "fx_other.dds", "");
  write(root_ / "more" / "Fx_Other.txi", "mipmap 0\n");
  ImportOptions options;
  options.textureSearchPath = {(root_ / "more").string()};
  const ImportResult r = importMdlFile(path, options);
  ASSERT_TRUE(r.ok());
  const std::string glow = fs::absolute(root_ / "model" / "FX_GLOW.tga").string();
  const std::string other = fs::absolute(root_ / "more" / "fx_other.dds").string();
  EXPECT_EQ(material(r.effect, "glow").texture, glow);
  EXPECT_EQ(material(r.effect, "other").texture, other);
  const std::vector<ImportedTexture> expected{
      {"fx_glow", glow, ""},
      {"FX_Other", other, fs::absolute(root_ / "more" / "Fx_Other.txi").string()}};
  EXPECT_EQ(r.textures, expected);
  EXPECT_FALSE(hasWarning(r.diagnostics, 0, "texture"));
  // Found nowhere: the built-in sprite, one warning naming every folder searched.
  fs::remove(root_ / "more" / "fx_other.dds");
  const ImportResult missing = importMdlFile(path, options);
  EXPECT_EQ(material(missing.effect, "other").texture, "builtin:soft_circle");
  EXPECT_TRUE(hasWarning(missing.diagnostics, 0,
                         "texture 'FX_Other' is not in " + (root_ / "model").string() + ", " +
                             (root_ / "more").string() + " as FX_Other.png, .tga or .dds"));
  EXPECT_EQ(missing.textures[1].path, "");
}

TEST_F(TextureFolders, ATxiBlendsAndAnimatesTheEmittersThatLeaveItToTheTexture) {
  const std::string path = model();
  write(root_ / "model" / "fx_glow.tga", "");
  write(root_ / "model" / "fx_glow.txi",
        "blending punchthrough\nproceduretype cycle\nnumx 4\nnumy 2\nfps 12\nbogus 1\n");
  const ImportResult r = importMdlFile(path);
  ASSERT_TRUE(r.ok());
  // `glow` (blend Normal, no grid): the texture's blending and its 4 × 2 cycle at 12 fps.
  const Material& glow = material(r.effect, "glow");
  EXPECT_EQ(glow.blend, BlendMode::Cutout);
  EXPECT_EQ(glow.sheet.columns, 4u);
  EXPECT_EQ(glow.sheet.rows, 2u);
  EXPECT_EQ(glow.sheet.playback, SheetPlayback::Fps);
  EXPECT_FLOAT_EQ(glow.sheet.fps, 12.0f);
  EXPECT_EQ(glow.sheet.frameEnd, -1);
  // `lit` blends by its own `blend Lighten`; `grid` keeps its own 2 × 1 sheet: each warned.
  EXPECT_EQ(material(r.effect, "lit").blend, BlendMode::Additive);
  EXPECT_TRUE(hasWarning(r.diagnostics, 0, "'lit' blends by its own `blend`"));
  EXPECT_EQ(material(r.effect, "grid").sheet.columns, 2u);
  EXPECT_TRUE(hasWarning(r.diagnostics, 0, "'grid' has an xgrid × ygrid sheet of its own"));
  // The TXI's own warning is reported once, against the .txi file and its line.
  const std::string txi = fs::absolute(root_ / "model" / "fx_glow.txi").string();
  EXPECT_EQ(std::count_if(r.diagnostics.begin(), r.diagnostics.end(),
                          [&](const Diagnostic& d) {
                            return d.file == txi && d.line == 6 &&
                                   d.message.find("'bogus'") != std::string::npos;
                          }),
            1);
  EXPECT_TRUE(validateEffect(r.effect).empty());
}

}  // namespace
}  // namespace mote::nwn
