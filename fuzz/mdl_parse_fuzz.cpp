// SPDX-License-Identifier: MIT
// Fuzzer for the NWN MDL importer on arbitrary bytes (ASCII models, and binary ones when the first
// byte is 0): fuzz/mdl_fuzz_checks.h says what is checked.
#include "mdl_fuzz_checks.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  mote_fuzz::fuzzMdl(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
