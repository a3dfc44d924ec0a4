// SPDX-License-Identifier: MIT
// The one test file that knows the checkout's folder (MOTE_SOURCE_DIR; see source_dir.h).
#include "support/source_dir.h"

namespace mote::test {

const std::string& sourceDir() {
  static const std::string dir = MOTE_SOURCE_DIR;
  return dir;
}

}  // namespace mote::test
