// SPDX-License-Identifier: MIT
// Fuzzer for the PNG texture loader: decodePng on arbitrary bytes must return an image or a clean
// error — never crash, leak, hang or read out of bounds (ASan + UBSan in the asan preset). libpng
// is not instrumented and rejects almost every mutation at the first CRC check, so each input is
// also decoded with every chunk CRC recomputed: that lets mutations reach libpng's chunk semantics,
// inflate and row filters.
#include <mote/render/image.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <vector>

namespace {

std::uint32_t crc32(const std::uint8_t* data, std::size_t size) {
  static const std::array<std::uint32_t, 256> table = [] {
    std::array<std::uint32_t, 256> t{};
    for (std::uint32_t n = 0; n < 256; ++n) {
      std::uint32_t c = n;
      for (int k = 0; k < 8; ++k)
        c = (c & 1u) != 0 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[n] = c;
    }
    return t;
  }();
  std::uint32_t crc = 0xFFFFFFFFu;
  for (std::size_t i = 0; i < size; ++i)
    crc = table[(crc ^ data[i]) & 0xFFu] ^ (crc >> 8);
  return crc ^ 0xFFFFFFFFu;
}

void decodeAndCheck(std::span<const std::uint8_t> bytes) {
  const mote::Result<mote::render::Image> image = mote::render::decodePng(bytes, "fuzz.png");
  if (image.ok()) {
    const mote::render::Image& decoded = *image;
    if (decoded.width() < 1 || decoded.height() < 1 ||
        decoded.width() > mote::render::kMaxImageSidePixels ||
        decoded.height() > mote::render::kMaxImageSidePixels ||
        decoded.pixels().size() != decoded.stride() * decoded.height()) {
      std::abort();  // a decoded image honours Image's invariants
    }
  } else if (image.status().message().empty()) {
    std::abort();  // every error explains itself
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  decodeAndCheck(std::span<const std::uint8_t>(data, size));

  // The same bytes with every complete chunk's CRC fixed.
  std::vector<std::uint8_t> fixed(data, data + size);
  bool changed = false;
  std::size_t at = 8;
  while (at + 12 <= fixed.size()) {
    const std::uint32_t length = (std::uint32_t{fixed[at]} << 24) |
                                 (std::uint32_t{fixed[at + 1]} << 16) |
                                 (std::uint32_t{fixed[at + 2]} << 8) | std::uint32_t{fixed[at + 3]};
    if (fixed.size() - at - 12 < length) break;
    const std::uint32_t crc = crc32(fixed.data() + at + 4, std::size_t{length} + 4);
    std::uint8_t* out = fixed.data() + at + 8 + length;
    const std::array<std::uint8_t, 4> want = {
        static_cast<std::uint8_t>(crc >> 24), static_cast<std::uint8_t>(crc >> 16),
        static_cast<std::uint8_t>(crc >> 8), static_cast<std::uint8_t>(crc)};
    for (std::size_t i = 0; i < 4; ++i) {
      changed = changed || out[i] != want[i];
      out[i] = want[i];
    }
    at += std::size_t{length} + 12;
  }
  if (changed) decodeAndCheck(fixed);
  return 0;
}
