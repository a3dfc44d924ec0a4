// SPDX-License-Identifier: MIT
// Fuzzer for the TGA texture loader: decodeTga on arbitrary bytes must return an image or a clean
// error — never crash, leak, hang or read out of bounds (ASan + UBSan in the asan preset). A
// decoded image always has the size its header declares.
#include <mote/render/image.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const mote::Result<mote::render::Image> image =
      mote::render::decodeTga(std::span<const std::uint8_t>(data, size), "fuzz.tga");
  if (!image.ok()) {
    if (image.status().message().empty()) std::abort();
    return 0;
  }
  const std::uint32_t width = static_cast<std::uint32_t>(data[12] | (data[13] << 8));
  const std::uint32_t height = static_cast<std::uint32_t>(data[14] | (data[15] << 8));
  if (image->width() != width || image->height() != height) std::abort();
  if (image->pixels().size() != std::size_t{width} * height * 4) std::abort();
  return 0;
}
