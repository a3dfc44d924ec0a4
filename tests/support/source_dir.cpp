// SPDX-License-Identifier: MIT
// The one test file that knows the checkout's folder (MOTE_SOURCE_DIR; see source_dir.h).
#include "support/source_dir.h"

#include <cstdlib>

namespace mote::test {

const std::string& sourceDir() {
  // MOTE_SOURCE_DIR in the environment moves it: binaries built here and run from a copy of the
  // checkout elsewhere (scripts/gpu-bench on a GPU machine).
  static const std::string dir = [] {
    const char* moved = std::getenv("MOTE_SOURCE_DIR");
    return std::string(moved != nullptr && moved[0] != '\0' ? moved : MOTE_SOURCE_DIR);
  }();
  return dir;
}

}  // namespace mote::test
