// SPDX-License-Identifier: MIT
// tests/data/invalid/: crafted bad effect files, each with the exact diagnostics it must produce
// (NAME.expected: one formatted diagnostic per line). Reviewed goldens: when a message changes on
// purpose, update the .expected file by hand after reading the new text.
#include "support/source_dir.h"

#include <mote/authoring/effect_json.h>
#include <mote/core/file.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace mote::authoring {
namespace {

const std::filesystem::path kDir = mote::test::sourcePath("tests/data/invalid");

std::string readText(const std::filesystem::path& path) {
  Result<std::vector<std::uint8_t>> bytes = readFile(path.string(), kMaxEffectFileBytes + 1024);
  EXPECT_TRUE(bytes.ok()) << bytes.status().toString();
  return bytes.ok() ? std::string(bytes->begin(), bytes->end()) : std::string();
}

TEST(InvalidCorpus, EveryFileFailsWithExactlyItsExpectedDiagnostics) {
  std::size_t cases = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kDir)) {
    if (entry.path().extension() != ".json") continue;
    ++cases;
    const std::string name = entry.path().filename().string();
    std::filesystem::path expectedPath = entry.path();
    expectedPath.replace_extension(".expected");
    ASSERT_TRUE(std::filesystem::exists(expectedPath)) << name << " has no .expected file";
    const EffectLoadResult r = parseEffect(readText(entry.path()), name);
    EXPECT_FALSE(r.ok()) << name << " was accepted";
    std::string actual;
    for (const Diagnostic& d : r.diagnostics)
      actual += formatDiagnostic(d) + "\n";
    EXPECT_EQ(actual, readText(expectedPath)) << name;
  }
  EXPECT_GE(cases, 40u);
}

}  // namespace
}  // namespace mote::authoring
