// SPDX-License-Identifier: MIT
// Fuzzer for the effect-file reader: parseEffect on arbitrary bytes must return diagnostics or an
// effect — never crash, hang, leak or read out of bounds (ASan + UBSan in the asan preset). Every
// input that loads is also held to the format's round-trip contract: save → parse gives back an
// equal effect, and saving that is byte-identical (a violation aborts, which libFuzzer reports).
#include <mote/authoring/effect_json.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const mote::authoring::EffectLoadResult loaded = mote::authoring::parseEffect(text, "fuzz.json");
  for (const mote::authoring::Diagnostic& d : loaded.diagnostics) {
    if (d.message.empty()) std::abort();  // every diagnostic says what is wrong
    (void)mote::authoring::formatDiagnostic(d);
  }
  if (!loaded.ok()) return 0;
  const std::string saved = mote::authoring::saveEffect(loaded.effect);
  const mote::authoring::EffectLoadResult again = mote::authoring::parseEffect(saved, "saved.json");
  if (!again.ok() || !(again.effect == loaded.effect)) {
    std::fprintf(stderr, "round trip broke; saved text:\n%s\n", saved.c_str());
    std::abort();
  }
  if (mote::authoring::saveEffect(again.effect) != saved) std::abort();
  return 0;
}
