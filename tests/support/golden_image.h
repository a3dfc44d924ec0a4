// SPDX-License-Identifier: MIT
// Golden-image comparison for the renderer tests: exact equality with tests/golden/render/NAME.png,
// or (with MOTE_APPROVE_GOLDENS set, as scripts/approve-goldens does) rewriting it.
#pragma once

#include "support/source_dir.h"

#include <mote/render/image.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace mote::test {

inline const std::filesystem::path kRenderGoldenDir =
    std::filesystem::path(mote::test::sourceDir()) / "tests/golden/render";

/// Compares `image` with the approved golden `name` exactly (the rasterizer is deterministic IEEE
/// float code); on a difference, writes what this build rendered next to the temp directory and
/// fails naming both files.
inline void expectGolden(const render::Image& image, const std::string& name) {
  const std::filesystem::path path = kRenderGoldenDir / (name + ".png");
  if (std::getenv("MOTE_APPROVE_GOLDENS") != nullptr) {
    std::filesystem::create_directories(kRenderGoldenDir);
    ASSERT_TRUE(render::writePng(image, path.string()).ok());
    GTEST_SKIP() << "approved " << path;
  }
  Result<render::Image> golden = render::loadPng(path.string());
  ASSERT_TRUE(golden.ok()) << golden.status().message() << " (run scripts/approve-goldens)";
  if (golden.value() == image) return;
  const std::filesystem::path actual =
      std::filesystem::temp_directory_path() / ("mote-" + name + ".actual.png");
  (void)render::writePng(image, actual.string());
  ADD_FAILURE() << name << " differs from " << path << "; this build rendered " << actual
                << ". If the change is intended, run scripts/approve-goldens.";
}

}  // namespace mote::test
