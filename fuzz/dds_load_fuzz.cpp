// SPDX-License-Identifier: MIT
// Fuzzer for the DDS texture loader: decodeDds on arbitrary bytes must return an image or a clean
// error naming the input — never crash, leak, hang or read out of bounds (ASan + UBSan in the fuzz
// preset). A decoded image always has the size its header declares (standard DDS: height at byte
// 12, width at 16; BioWare DDS: width at 0, height at 4).
#include <mote/render/image.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <span>

namespace {

std::uint32_t le32(const std::uint8_t* p) {
  return std::uint32_t{p[0]} | (std::uint32_t{p[1]} << 8) | (std::uint32_t{p[2]} << 16) |
         (std::uint32_t{p[3]} << 24);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const mote::Result<mote::render::Image> image =
      mote::render::decodeDds(std::span<const std::uint8_t>(data, size), "fuzz.dds");
  if (!image.ok()) {
    if (image.status().message().rfind("fuzz.dds: ", 0) != 0) std::abort();
    return 0;
  }
  const bool standard = size >= 4 && std::memcmp(data, "DDS ", 4) == 0;
  const std::uint32_t width = standard ? le32(data + 16) : le32(data);
  const std::uint32_t height = standard ? le32(data + 12) : le32(data + 4);
  if (image->width() != width || image->height() != height) std::abort();
  if (image->pixels().size() != std::size_t{width} * height * 4) std::abort();
  return 0;
}
