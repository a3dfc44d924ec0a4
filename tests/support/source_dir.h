// SPDX-License-Identifier: MIT
// Where the tests find the checkout's files (examples, fixtures, goldens, docs).
#pragma once

#include <string>
#include <string_view>

namespace mote::test {

/// The absolute path of the Mote checkout these tests were built from (or the environment's
/// MOTE_SOURCE_DIR, for binaries run from a copy of the checkout elsewhere). It is compiled into
/// one small file (source_dir.cpp), so every other test file compiles to the same object in any
/// checkout folder and the compiler cache hits across them.
const std::string& sourceDir();

/// sourceDir() + "/" + `relative`.
inline std::string sourcePath(std::string_view relative) {
  std::string path = sourceDir();
  path += '/';
  path += relative;
  return path;
}

}  // namespace mote::test
