// SPDX-License-Identifier: MIT
// What the binary texture readers (TGA, DDS) share: little-endian field reads, their error
// messages, the size check made before allocating, and the whole-file load.
#pragma once

#include <mote/render/image.h>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace mote::render::detail {

/// The little-endian 16- and 32-bit values at `p` (which must hold 2 or 4 readable bytes).
inline std::uint16_t le16(const std::uint8_t* p) {
  return static_cast<std::uint16_t>(p[0] | (static_cast<unsigned>(p[1]) << 8));
}
inline std::uint32_t le32(const std::uint8_t* p) {
  return std::uint32_t{p[0]} | (std::uint32_t{p[1]} << 8) | (std::uint32_t{p[2]} << 16) |
         (std::uint32_t{p[3]} << 24);
}

/// ParseError "<name>: <message>".
Status imageParseError(std::string_view name, const std::string& message);

/// The check a reader makes on the declared size before anything is allocated: ParseError
/// "<name>: <format> image of size 0" when a side is 0, Unsupported "<name>: …" when the image is
/// beyond Image's limits (Image::validateSize), else Ok.
Status checkDeclaredImageSize(std::string_view name, std::string_view format, std::uint64_t width,
                              std::uint64_t height);

/// Reads the whole file at `path` (IoError / NotFound as readFile; at most kMaxImageBytes + 1 MiB,
/// more than any texture within Image's limits needs), then decode(bytes, path).
Result<Image> loadImageFile(const std::string& path,
                            Result<Image> (*decode)(std::span<const std::uint8_t>,
                                                    std::string_view));

}  // namespace mote::render::detail
