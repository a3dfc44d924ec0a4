// SPDX-License-Identifier: MIT
// The .motefx loader refuses damaged files with a located message, and the v1 fixture loads.
#include <mote/authoring/effect_json.h>
#include <mote/bytecode/compiled_effect.h>
#include <mote/compiler/compiler.h>
#include <mote/core/file.h>

#include <gtest/gtest.h>

namespace mote::bytecode {
namespace {

std::vector<std::uint8_t> bonfireBytes() {
  const authoring::EffectLoadResult loaded =
      authoring::loadEffectFile(MOTE_SOURCE_DIR "/examples/bonfire.json");
  EXPECT_TRUE(loaded.ok());
  return saveMotefx(compiler::compileEffect(loaded.effect).effect);
}

std::string loadError(const std::vector<std::uint8_t>& bytes) {
  Result<CompiledEffect> r = loadMotefx(bytes);
  EXPECT_FALSE(r.ok());
  return r.ok() ? std::string() : r.status().message();
}

TEST(Motefx, DamagedFilesAreRefusedWithTheReason) {
  const std::vector<std::uint8_t> good = bonfireBytes();
  ASSERT_TRUE(loadMotefx(good).ok());
  std::vector<std::uint8_t> b = good;
  b[0] = 'X';
  EXPECT_EQ(loadError(b), "offset 0: not a .motefx file (bad magic)");
  b = good;
  b[8] = 2;
  EXPECT_EQ(loadError(b), "offset 8: unsupported .motefx version 2 (this build reads version 1)");
  b = good;
  b[12] = 1;
  EXPECT_EQ(loadError(b), "offset 12: unknown flags 1");
  b = good;
  b.back() ^= 0x40;
  EXPECT_EQ(loadError(b), "offset 24: checksum mismatch (the file is damaged)");
  b = good;
  b.push_back(0);
  EXPECT_EQ(loadError(b), "offset 16: payload size " + std::to_string(good.size() - 32) + " but " +
                              std::to_string(good.size() - 31) + " bytes follow the header");
  EXPECT_EQ(loadError({}), "offset 0: truncated header");
}

TEST(Motefx, TheVersionOneFixtureLoads) {
  // tests/golden/motefx/v1/bonfire.motefx was written by the first version of the format; every
  // later build must keep loading it (through upgrade functions once there is a version 2).
  Result<std::vector<std::uint8_t>> bytes =
      readFile(MOTE_SOURCE_DIR "/tests/golden/motefx/v1/bonfire.motefx", kMaxMotefxBytes);
  ASSERT_TRUE(bytes.ok()) << bytes.status().toString();
  Result<CompiledEffect> effect = loadMotefx(*bytes);
  ASSERT_TRUE(effect.ok()) << effect.status().toString();
  EXPECT_EQ(effect->name, "bonfire");
  ASSERT_EQ(effect->emitters.size(), 4u);
  EXPECT_EQ(effect->emitters[0].name, "flame");
  EXPECT_EQ(effect->emitters[0].maxParticles, 400u);
  EXPECT_EQ(effect->materials[0].texture, "builtin:flare");
}

}  // namespace
}  // namespace mote::bytecode
