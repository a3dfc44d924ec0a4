// SPDX-License-Identifier: MIT
// Fuzzer for the NWN TXI reader: parseTxi on arbitrary bytes must return what it read and its
// warnings — never crash, hang, leak or read out of bounds (ASan + UBSan in the asan preset) —
// and everything it returns is in the ranges the importer relies on.
#include <mote/nwn/mdl.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const mote::nwn::TxiParseResult r = mote::nwn::parseTxi(text, "fuzz.txi");
  const mote::nwn::Txi& t = r.txi;
  if (t.numx < 1 || t.numx > 256 || t.numy < 1 || t.numy > 256) std::abort();
  if (!std::isfinite(t.fps) || t.fps < 0.0f || t.fps > 1000.0f) std::abort();
  if (!t.blending.empty() && t.blending != "additive" && t.blending != "punchthrough" &&
      t.blending != "default")
    std::abort();
  for (const mote::authoring::Diagnostic& d : r.diagnostics)
    if (d.message.empty() || d.severity != mote::authoring::Severity::Warning) std::abort();
  (void)mote::nwn::splitSearchPath(text);
  return 0;
}
