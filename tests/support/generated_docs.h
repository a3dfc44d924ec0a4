// SPDX-License-Identifier: MIT
// Reading the generated part of a checked-in doc: the text between its GENERATED markers.
#pragma once

#include <mote/core/file.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace mote::test {

/// The whole text of the file at `path` (a test failure and "" when it cannot be read).
inline std::string readText(const std::string& path) {
  Result<std::vector<std::uint8_t>> bytes = readFile(path, std::size_t{16} << 20);
  EXPECT_TRUE(bytes.ok()) << bytes.status().toString();
  return bytes.ok() ? std::string(bytes->begin(), bytes->end()) : std::string();
}

/// The text of `path` between "<!-- BEGIN GENERATED `what` (scripts/update-effect-docs) -->\n" and
/// "<!-- END GENERATED `what` -->" (a test failure and "" when a marker is missing).
inline std::string generatedSection(const std::string& path, const std::string& what) {
  const std::string doc = readText(path);
  const std::string begin = "<!-- BEGIN GENERATED " + what + " (scripts/update-effect-docs) -->\n";
  const std::string end = "<!-- END GENERATED " + what + " -->";
  const std::size_t b = doc.find(begin);
  const std::size_t e = doc.find(end);
  EXPECT_NE(b, std::string::npos) << path << " has no " << begin;
  EXPECT_NE(e, std::string::npos) << path << " has no " << end;
  if (b == std::string::npos || e == std::string::npos || e < b) return {};
  return doc.substr(b + begin.size(), e - b - begin.size());
}

}  // namespace mote::test
