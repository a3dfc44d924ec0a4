// SPDX-License-Identifier: MIT
// The TGA reader (Truevision TGA 2.0, the texture format of NWN content): colour-mapped,
// true-colour and grayscale images, raw or run-length encoded, in either row and column order.
#include "image_reader.h"

#include <mote/render/image.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <string>

namespace mote::render {
namespace {

using detail::le16;

// The 18-byte header (little-endian fields).
struct TgaHeader {
  std::uint8_t idLength = 0;
  std::uint8_t colorMapType = 0;
  std::uint8_t imageType = 0;
  std::uint16_t mapFirst = 0;
  std::uint16_t mapLength = 0;
  std::uint8_t mapEntryBits = 0;
  std::uint16_t width = 0;
  std::uint16_t height = 0;
  std::uint8_t pixelBits = 0;
  std::uint8_t descriptor = 0;
};

// A 15/16-, 24- or 32-bit BGR(A) value as RGBA8; 16-bit alpha is the attribute bit when the
// descriptor declares an alpha bit, else opaque.
Rgba8 decodeColor(const std::uint8_t* p, unsigned bits, bool alpha16) {
  switch (bits) {
    case 15:
    case 16: {
      const unsigned v = le16(p);
      const auto five = [](unsigned x) { return static_cast<std::uint8_t>((x << 3) | (x >> 2)); };
      return {
          five((v >> 10) & 31u), five((v >> 5) & 31u), five(v & 31u),
          static_cast<std::uint8_t>(alpha16 && bits == 16 ? ((v & 0x8000u) != 0 ? 255 : 0) : 255)};
    }
    case 24:
      return {p[2], p[1], p[0], 255};
    default:  // 32
      return {p[2], p[1], p[0], p[3]};
  }
}

}  // namespace

Result<Image> decodeTga(std::span<const std::uint8_t> bytes, std::string_view nameForErrors) {
  if (bytes.size() < 18)
    return detail::imageParseError(nameForErrors, "not a TGA file (shorter than its header)");
  const std::uint8_t* b = bytes.data();
  TgaHeader h;
  h.idLength = b[0];
  h.colorMapType = b[1];
  h.imageType = b[2];
  h.mapFirst = le16(b + 3);
  h.mapLength = le16(b + 5);
  h.mapEntryBits = b[7];
  h.width = le16(b + 12);
  h.height = le16(b + 14);
  h.pixelBits = b[16];
  h.descriptor = b[17];

  const unsigned base = h.imageType & 7u;  // 1 mapped, 2 true colour, 3 grayscale
  const bool rle = (h.imageType & 8u) != 0;
  if ((h.imageType & ~0x0Bu) != 0 || base == 0 || base > 3)
    return detail::imageParseError(nameForErrors,
                                   "unsupported TGA image type " + std::to_string(h.imageType));
  if (h.colorMapType > 1) return detail::imageParseError(nameForErrors, "bad TGA colour-map type");
  if (base == 1 && (h.colorMapType != 1 || h.pixelBits != 8))
    return detail::imageParseError(nameForErrors,
                                   "colour-mapped TGA needs a colour map and 8-bit indices");
  if (base == 2 && h.pixelBits != 15 && h.pixelBits != 16 && h.pixelBits != 24 && h.pixelBits != 32)
    return detail::imageParseError(nameForErrors,
                                   "unsupported true-colour depth " + std::to_string(h.pixelBits));
  if (base == 3 && h.pixelBits != 8 && h.pixelBits != 16)
    return detail::imageParseError(nameForErrors,
                                   "unsupported grayscale depth " + std::to_string(h.pixelBits));
  if (h.colorMapType == 1 && h.mapEntryBits != 15 && h.mapEntryBits != 16 && h.mapEntryBits != 24 &&
      h.mapEntryBits != 32)
    return detail::imageParseError(
        nameForErrors, "unsupported colour-map entry size " + std::to_string(h.mapEntryBits));
  if (Status s = detail::checkDeclaredImageSize(nameForErrors, "TGA", h.width, h.height); !s.ok())
    return s;

  std::size_t pos = 18 + std::size_t{h.idLength};
  // The colour map.
  std::vector<Rgba8> palette;
  const bool alpha16 = (h.descriptor & 0x0Fu) != 0;
  if (h.colorMapType == 1) {
    const std::size_t entryBytes = (std::size_t{h.mapEntryBits} + 7) / 8;
    const std::size_t mapBytes = entryBytes * h.mapLength;
    if (pos > bytes.size() || bytes.size() - pos < mapBytes)
      return detail::imageParseError(nameForErrors, "truncated TGA colour map");
    if (base == 1) {
      palette.reserve(h.mapLength);
      for (std::size_t i = 0; i < h.mapLength; ++i)
        palette.push_back(decodeColor(b + pos + i * entryBytes, h.mapEntryBits, alpha16));
    }
    pos += mapBytes;
  }
  if (pos > bytes.size()) return detail::imageParseError(nameForErrors, "truncated TGA header");

  const std::size_t pixelBytes = (std::size_t{h.pixelBits} + 7) / 8;
  const std::uint64_t pixels = std::uint64_t{h.width} * h.height;
  const std::size_t available = bytes.size() - pos;
  // Refuse before allocating: raw data must hold every pixel; a run-length packet yields at most
  // 128 pixels from at least 1 + pixelBytes bytes.
  if (!rle && available / pixelBytes < pixels)
    return detail::imageParseError(nameForErrors, "truncated TGA image data");
  if (rle && std::uint64_t{available} / (1 + pixelBytes) * 128 + 128 < pixels)
    return detail::imageParseError(nameForErrors,
                                   "TGA run-length data too short for the declared size");

  Result<Image> created = Image::create(h.width, h.height);
  if (!created.ok()) return created.status();
  Image image = std::move(created.value());

  const auto pixelAt = [&](const std::uint8_t* p, Rgba8& out) -> bool {
    if (base == 1) {
      const unsigned index = p[0];
      if (index < h.mapFirst || index - h.mapFirst >= palette.size()) return false;
      out = palette[index - h.mapFirst];
    } else if (base == 3) {
      out = {p[0], p[0], p[0], h.pixelBits == 16 ? p[1] : std::uint8_t{255}};
    } else {
      out = decodeColor(p, h.pixelBits, alpha16);
    }
    return true;
  };
  const bool topDown = (h.descriptor & 0x20u) != 0;
  const bool rightToLeft = (h.descriptor & 0x10u) != 0;
  const auto store = [&](std::uint64_t n, Rgba8 c) {
    const auto x = static_cast<std::uint32_t>(n % h.width);
    const auto y = static_cast<std::uint32_t>(n / h.width);
    image.setPixel(rightToLeft ? h.width - 1u - x : x, topDown ? y : h.height - 1u - y, c);
  };

  std::uint64_t n = 0;
  while (n < pixels) {
    if (!rle) {
      Rgba8 c;
      if (!pixelAt(b + pos, c))
        return detail::imageParseError(nameForErrors, "TGA colour index outside the map");
      store(n++, c);
      pos += pixelBytes;
      continue;
    }
    if (pos >= bytes.size())
      return detail::imageParseError(nameForErrors, "truncated TGA run-length data");
    const std::uint8_t packet = b[pos++];
    const std::uint64_t count = std::min<std::uint64_t>((packet & 0x7Fu) + 1u, pixels - n);
    if ((packet & 0x80u) != 0) {
      if (bytes.size() - pos < pixelBytes)
        return detail::imageParseError(nameForErrors, "truncated TGA run-length data");
      Rgba8 c;
      if (!pixelAt(b + pos, c))
        return detail::imageParseError(nameForErrors, "TGA colour index outside the map");
      pos += pixelBytes;
      for (std::uint64_t k = 0; k < count; ++k)
        store(n++, c);
    } else {
      if ((bytes.size() - pos) / pixelBytes < count)
        return detail::imageParseError(nameForErrors, "truncated TGA run-length data");
      for (std::uint64_t k = 0; k < count; ++k) {
        Rgba8 c;
        if (!pixelAt(b + pos, c))
          return detail::imageParseError(nameForErrors, "TGA colour index outside the map");
        pos += pixelBytes;
        store(n++, c);
      }
    }
  }
  return image;
}

Result<Image> loadTga(const std::string& path) {
  return detail::loadImageFile(path, decodeTga);
}

}  // namespace mote::render
