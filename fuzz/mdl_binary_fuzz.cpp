// SPDX-License-Identifier: MIT
// Fuzzer for the binary (compiled) MDL reader: every input is read as a binary model (its first
// byte set to 0, which is how a binary model is told from an ASCII one), then checked as
// fuzz/mdl_fuzz_checks.h says. Seeds: the nwnmdlcomp-compiled fixtures (tests/data/nwn/binary).
#include "mdl_fuzz_checks.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  if (!bytes.empty()) bytes[0] = '\0';
  mote_fuzz::fuzzMdl(bytes);
  return 0;
}
