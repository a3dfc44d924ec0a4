// SPDX-License-Identifier: MIT
// Fuzzer for untrusted bytecode: arbitrary bytes become a Program (a small header, then the words
// of both sections), which is verified; every program the verifier accepts then runs on the
// reference executor over buffers exactly as large as it declares — so a verifier gap shows up as
// an ASan/UBSan report. Inputs starting with 'T' go through the text assembler instead, inputs
// starting with 'M' through the .motefx loader (whose checksum is patched so mutations reach the
// payload reader); every program is held to disassemble → assemble being the identity.
#include "support/motefx_seal.h"

#include <mote/bytecode/assembler.h>
#include <mote/bytecode/compiled_effect.h>
#include <mote/bytecode/reference.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <vector>

#define XXH_INLINE_ALL

namespace {

using namespace mote::bytecode;

std::uint32_t take(const std::uint8_t*& data, std::size_t& size) {
  std::uint32_t v = 0;
  const std::size_t n = std::min<std::size_t>(4, size);
  std::memcpy(&v, data, n);
  data += n;
  size -= n;
  return v;
}

Program fromBytes(const std::uint8_t* data, std::size_t size) {
  Program p;
  p.registerCount = take(data, size) % 300;
  p.particleWords = take(data, size) % 300;
  p.emitterWords = take(data, size) % 40;
  const std::uint32_t constants = take(data, size) % 8;
  for (std::uint32_t i = 0; i < constants; ++i) {
    std::array<float, 4> c{};
    for (float& v : c) {
      const std::uint32_t bits = take(data, size);
      std::memcpy(&v, &bits, 4);
    }
    p.constants.push_back(c);
  }
  const std::uint32_t globals = take(data, size) % 4;
  for (std::uint32_t i = 0; i < globals; ++i)
    p.globals.push_back(GlobalImport{"g", take(data, size) % 6});
  const std::uint32_t initWords = take(data, size) % 4096;
  while (size > 0 && p.init.size() < initWords)
    p.init.push_back(take(data, size));
  while (size > 0)
    p.update.push_back(take(data, size));
  return p;
}

std::array<float, 3> gust(const std::array<float, 3>& position, void*) {
  return {position[1], 0.5f, -position[0]};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Program program;
  if (size > 0 && data[0] == 'M') {
    std::vector<std::uint8_t> file(data + 1, data + size);
    mote::test::sealMotefx(file);  // the header agrees with the payload: the readers are reached
    mote::Result<CompiledEffect> effect = loadMotefx(file);
    if (!effect.ok()) return 0;
    if (effect->emitters.empty()) return 0;
    program = effect->emitters.front().program;  // verified by the loader; run it below
  } else if (size > 0 && data[0] == 'T') {
    mote::Result<Program> assembled =
        assemble(std::string_view(reinterpret_cast<const char*>(data + 1), size - 1));
    if (!assembled.ok()) return 0;
    program = std::move(assembled).takeValue();
  } else {
    program = fromBytes(data, size);
  }
  mote::Result<Program> again = assemble(disassemble(program));
  if (!again.ok() || again->init != program.init || again->update != program.update) std::abort();

  mote::Result<VerifiedProgram> verified = verify(std::move(program));
  if (!verified.ok()) {
    if (verified.status().message().empty()) std::abort();
    return 0;
  }
  const Program& p = verified->program();
  std::vector<float> particle(p.particleWords, 0.25f);
  std::vector<float> emitter(p.emitterWords, 1.5f);
  std::vector<std::array<float, 4>> globals(p.globals.size(), {2.0f, 3.0f, 4.0f, 5.0f});
  ReferenceContext context;
  context.emitterWords = emitter;
  context.globals = globals;
  context.seed = size;
  context.randomCounter = 7;
  context.wind = gust;
  for (std::size_t i = 0; i < context.builtins.size(); ++i)
    context.builtins[i] = {0.016f, static_cast<float>(i), -1.0f, 2.0f};
  (void)runReference(*verified, Section::Init, particle, context);
  (void)runReference(*verified, Section::Update, particle, context);
  return 0;
}
