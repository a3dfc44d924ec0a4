// SPDX-License-Identifier: MIT
// What the binary texture readers (TGA, DDS) share; see image_reader.h.
#include "image_reader.h"

#include <mote/core/file.h>

#include <vector>

namespace mote::render::detail {

Status imageParseError(std::string_view name, const std::string& message) {
  return parseError(std::string(name) + ": " + message);
}

Status checkDeclaredImageSize(std::string_view name, std::string_view format, std::uint64_t width,
                              std::uint64_t height) {
  if (width == 0 || height == 0)
    return imageParseError(name, std::string(format) + " image of size 0");
  if (Status s = Image::validateSize(width, height); !s.ok())
    return Status(StatusCode::Unsupported, std::string(name) + ": " + s.message());
  return {};
}

Result<Image> loadImageFile(const std::string& path,
                            Result<Image> (*decode)(std::span<const std::uint8_t>,
                                                    std::string_view)) {
  Result<std::vector<std::uint8_t>> bytes = readFile(path, kMaxImageBytes + (std::size_t{1} << 20));
  if (!bytes.ok()) return bytes.status();
  return decode(bytes.value(), path);
}

}  // namespace mote::render::detail
