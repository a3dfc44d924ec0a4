// SPDX-License-Identifier: MIT
// The DDS reader: the standard container (DXT1, DXT3, DXT5 and uncompressed RGB(A) with bit masks)
// and the BioWare variant of NWN 1.69 textures (a 20-byte header, then DXT1 or DXT5 blocks); top
// mip level only.
#include "image_reader.h"

#include <mote/render/image.h>

#include <array>
#include <bit>
#include <optional>
#include <string>

namespace mote::render {
namespace {

using detail::imageParseError;
using detail::le16;
using detail::le32;

// "DDS " and the 124-byte DDS_HEADER, whose DDS_PIXELFORMAT (32 bytes) starts at file byte 76.
constexpr std::size_t kDdsDataOffset = 128;
// BioWare: width, height, channels, top-level byte count (u32 each), mean alpha (f32).
constexpr std::size_t kBioWareDataOffset = 20;
constexpr std::uint32_t kPixelFormatAlphaPixels = 0x1;
constexpr std::uint32_t kPixelFormatFourCc = 0x4;
constexpr std::uint32_t kPixelFormatRgb = 0x40;

constexpr std::uint32_t fourCc(const char (&code)[5]) {
  return static_cast<std::uint32_t>(static_cast<unsigned char>(code[0])) |
         (static_cast<std::uint32_t>(static_cast<unsigned char>(code[1])) << 8) |
         (static_cast<std::uint32_t>(static_cast<unsigned char>(code[2])) << 16) |
         (static_cast<std::uint32_t>(static_cast<unsigned char>(code[3])) << 24);
}

enum class Encoding { Dxt1, Dxt3, Dxt5, Masked };

const char* encodingName(Encoding e) {
  switch (e) {
    case Encoding::Dxt1:
      return "DXT1";
    case Encoding::Dxt3:
      return "DXT3";
    case Encoding::Dxt5:
      return "DXT5";
    case Encoding::Masked:
      break;
  }
  return "uncompressed RGB(A)";
}

// Where the top mip level is and how it is encoded.
struct Layout {
  std::uint32_t width = 0;
  std::uint32_t height = 0;
  Encoding encoding = Encoding::Dxt1;
  std::size_t offset = 0;  // of the top level's first byte
  // BioWare: the top level's byte count as its header declares it (DXT1: w·h/2, DXT5: w·h).
  std::optional<std::uint32_t> declaredBytes;
  // Masked: 2, 3 or 4 bytes a pixel, little-endian; the R, G, B, A masks (A 0: opaque).
  std::uint32_t bytesPerPixel = 0;
  std::array<std::uint32_t, 4> masks{};
};

// The top level's byte count. Only called once the size is within Image's limits, so it fits.
std::uint64_t topLevelBytes(const Layout& l) {
  if (l.encoding == Encoding::Masked) return std::uint64_t{l.width} * l.height * l.bytesPerPixel;
  const std::uint64_t blocks =
      (std::uint64_t{l.width} + 3) / 4 * ((std::uint64_t{l.height} + 3) / 4);
  return blocks * (l.encoding == Encoding::Dxt1 ? 8u : 16u);
}

std::string fourCcName(std::uint32_t code) {
  std::string name;
  for (int shift = 0; shift < 32; shift += 8) {
    const auto c = static_cast<char>((code >> shift) & 0xFFu);
    if (c < ' ' || c > '~') return std::to_string(code);  // a D3DFORMAT number (113: RGBA16F, …)
    name += c;
  }
  return "'" + name + "'";
}

Result<Layout> readDdsHeader(std::span<const std::uint8_t> bytes, std::string_view name) {
  if (bytes.size() < kDdsDataOffset)
    return imageParseError(name, "truncated DDS header (" + std::to_string(bytes.size()) +
                                     " bytes, the header has 128)");
  const std::uint8_t* b = bytes.data();
  if (le32(b + 4) != 124)
    return imageParseError(name,
                           "bad DDS header size " + std::to_string(le32(b + 4)) + " (must be 124)");
  if (le32(b + 76) != 32)
    return imageParseError(
        name, "bad DDS pixel-format size " + std::to_string(le32(b + 76)) + " (must be 32)");
  Layout l;
  l.height = le32(b + 12);
  l.width = le32(b + 16);
  l.offset = kDdsDataOffset;
  const std::uint32_t flags = le32(b + 80);
  const std::uint32_t code = le32(b + 84);
  if ((flags & kPixelFormatFourCc) != 0) {
    if (code == fourCc("DXT1")) {
      l.encoding = Encoding::Dxt1;
    } else if (code == fourCc("DXT3")) {
      l.encoding = Encoding::Dxt3;
    } else if (code == fourCc("DXT5")) {
      l.encoding = Encoding::Dxt5;
    } else {
      return unsupported(std::string(name) + ": unsupported DDS compression " + fourCcName(code) +
                         (code == fourCc("DX10") ? " (a DXGI-format extension header)" : "") +
                         "; DXT1, DXT3, DXT5 and uncompressed RGB(A) are read");
    }
    return l;
  }
  const std::uint32_t bits = le32(b + 88);
  if ((flags & kPixelFormatRgb) == 0)
    return unsupported(std::string(name) +
                       ": unsupported DDS pixel format (neither DXT-compressed nor RGB: luminance, "
                       "alpha-only, YUV or palette); DXT1, DXT3, DXT5 and uncompressed RGB(A) are "
                       "read");
  if (bits != 16 && bits != 24 && bits != 32)
    return unsupported(std::string(name) + ": unsupported DDS RGB depth of " +
                       std::to_string(bits) + " bits (16, 24 and 32 are read)");
  l.encoding = Encoding::Masked;
  l.bytesPerPixel = bits / 8;
  l.masks = {le32(b + 92), le32(b + 96), le32(b + 100),
             (flags & kPixelFormatAlphaPixels) != 0 ? le32(b + 104) : 0u};
  return l;
}

Result<Layout> readBioWareHeader(std::span<const std::uint8_t> bytes, std::string_view name) {
  if (bytes.size() < kBioWareDataOffset)
    return imageParseError(name,
                           "not a DDS file (no 'DDS ' magic, and shorter than the 20-byte header "
                           "of a BioWare DDS)");
  const std::uint8_t* b = bytes.data();
  const std::uint32_t channels = le32(b + 8);
  if (channels != 3 && channels != 4)
    return imageParseError(name,
                           "not a DDS file (no 'DDS ' magic, and not a BioWare DDS: channel "
                           "count " +
                               std::to_string(channels) + ", must be 3 or 4)");
  Layout l;
  l.width = le32(b);
  l.height = le32(b + 4);
  l.encoding = channels == 3 ? Encoding::Dxt1 : Encoding::Dxt5;
  l.offset = kBioWareDataOffset;
  l.declaredBytes = le32(b + 12);
  return l;
}

// A 5:6:5 colour as RGB8 by bit replication (the exact mapping of 0 → 0 and 31/63 → 255).
Rgba8 expand565(unsigned v) {
  const unsigned r = (v >> 11) & 31u;
  const unsigned g = (v >> 5) & 63u;
  const unsigned b = v & 31u;
  return {static_cast<std::uint8_t>((r << 3) | (r >> 2)),
          static_cast<std::uint8_t>((g << 2) | (g >> 4)),
          static_cast<std::uint8_t>((b << 3) | (b >> 2)), 255};
}

// (wa·a + wb·b) / (wa + wb) per colour channel, rounded to nearest (halves up), alpha 255.
Rgba8 mix(Rgba8 a, Rgba8 b, unsigned wa, unsigned wb) {
  const unsigned d = wa + wb;
  const auto channel = [&](unsigned x, unsigned y) {
    return static_cast<std::uint8_t>((wa * x + wb * y + d / 2) / d);
  };
  return {channel(a.r, b.r), channel(a.g, b.g), channel(a.b, b.b), 255};
}

// The colour half of a block (8 bytes: two 5:6:5 endpoints, 16 two-bit indices, row-major from
// the low bits). DXT1 blocks whose first endpoint is not greater than the second have three
// colours and transparent black; DXT3 and DXT5 colour blocks always have four (the D3D rule).
void decodeColors(const std::uint8_t* p, bool dxt1, std::array<Rgba8, 16>& out) {
  const unsigned c0 = le16(p);
  const unsigned c1 = le16(p + 2);
  std::array<Rgba8, 4> palette{expand565(c0), expand565(c1), {}, {}};
  if (!dxt1 || c0 > c1) {
    palette[2] = mix(palette[0], palette[1], 2, 1);
    palette[3] = mix(palette[0], palette[1], 1, 2);
  } else {
    palette[2] = mix(palette[0], palette[1], 1, 1);
    palette[3] = {0, 0, 0, 0};
  }
  const std::uint32_t indices = le32(p + 4);
  for (unsigned i = 0; i < 16; ++i)
    out[i] = palette[(indices >> (2 * i)) & 3u];
}

// DXT3's alpha: 16 explicit 4-bit values (row-major from the low bits), a · 17 as 8 bits.
void decodeExplicitAlpha(const std::uint8_t* p, std::array<Rgba8, 16>& out) {
  const std::uint64_t bits = le32(p) | (std::uint64_t{le32(p + 4)} << 32);
  for (unsigned i = 0; i < 16; ++i)
    out[i].a = static_cast<std::uint8_t>(((bits >> (4 * i)) & 15u) * 17u);
}

// DXT5's alpha: two 8-bit endpoints and 16 three-bit indices. a0 > a1: eight values, six
// interpolated in sevenths; otherwise six values, four interpolated in fifths, then 0 and 255.
// Interpolation rounds to nearest: ((7 − i)·a0 + i·a1 + 3) / 7 and ((5 − i)·a0 + i·a1 + 2) / 5.
void decodeInterpolatedAlpha(const std::uint8_t* p, std::array<Rgba8, 16>& out) {
  const unsigned a0 = p[0];
  const unsigned a1 = p[1];
  std::array<std::uint8_t, 8> palette{static_cast<std::uint8_t>(a0), static_cast<std::uint8_t>(a1)};
  if (a0 > a1) {
    for (unsigned i = 1; i < 7; ++i)
      palette[i + 1] = static_cast<std::uint8_t>(((7 - i) * a0 + i * a1 + 3) / 7);
  } else {
    for (unsigned i = 1; i < 5; ++i)
      palette[i + 1] = static_cast<std::uint8_t>(((5 - i) * a0 + i * a1 + 2) / 5);
    palette[6] = 0;
    palette[7] = 255;
  }
  const std::uint64_t indices = le16(p + 2) | (std::uint64_t{le32(p + 4)} << 16);
  for (unsigned i = 0; i < 16; ++i)
    out[i].a = palette[(indices >> (3 * i)) & 7u];
}

void decodeBlocks(const Layout& l, const std::uint8_t* data, Image& image) {
  const std::size_t blockBytes = l.encoding == Encoding::Dxt1 ? 8 : 16;
  std::array<Rgba8, 16> texels;
  for (std::uint32_t by = 0; by < l.height; by += 4) {
    for (std::uint32_t bx = 0; bx < l.width; bx += 4, data += blockBytes) {
      if (l.encoding == Encoding::Dxt1) {
        decodeColors(data, true, texels);
      } else {
        decodeColors(data + 8, false, texels);
        if (l.encoding == Encoding::Dxt3)
          decodeExplicitAlpha(data, texels);
        else
          decodeInterpolatedAlpha(data, texels);
      }
      // A block past the right or bottom edge keeps only its texels inside the image.
      for (std::uint32_t y = by; y < by + 4 && y < l.height; ++y)
        for (std::uint32_t x = bx; x < bx + 4 && x < l.width; ++x)
          image.setPixel(x, y, texels[(y - by) * 4 + (x - bx)]);
    }
  }
}

// A channel under `mask` scaled to 8 bits, rounded to nearest; an empty mask reads as 0.
std::uint8_t maskedChannel(std::uint32_t value, std::uint32_t mask) {
  if (mask == 0) return 0;
  const int shift = std::countr_zero(mask);
  const std::uint64_t max = mask >> shift;
  return static_cast<std::uint8_t>((((value & mask) >> shift) * std::uint64_t{255} + max / 2) /
                                   max);
}

void decodeMasked(const Layout& l, const std::uint8_t* data, Image& image) {
  for (std::uint32_t y = 0; y < l.height; ++y) {
    for (std::uint32_t x = 0; x < l.width; ++x, data += l.bytesPerPixel) {
      std::uint32_t v = 0;
      for (std::uint32_t k = 0; k < l.bytesPerPixel; ++k)
        v |= std::uint32_t{data[k]} << (8 * k);
      image.setPixel(
          x, y,
          {maskedChannel(v, l.masks[0]), maskedChannel(v, l.masks[1]), maskedChannel(v, l.masks[2]),
           l.masks[3] == 0 ? std::uint8_t{255} : maskedChannel(v, l.masks[3])});
    }
  }
}

}  // namespace

Result<Image> decodeDds(std::span<const std::uint8_t> bytes, std::string_view nameForErrors) {
  const bool standard = bytes.size() >= 4 && le32(bytes.data()) == fourCc("DDS ");
  Result<Layout> header =
      standard ? readDdsHeader(bytes, nameForErrors) : readBioWareHeader(bytes, nameForErrors);
  if (!header.ok()) return header.status();
  const Layout l = std::move(header).takeValue();
  if (Status s = detail::checkDeclaredImageSize(nameForErrors, "DDS", l.width, l.height); !s.ok())
    return s;

  const std::uint64_t needed = topLevelBytes(l);
  const auto described = [&] {
    return std::to_string(l.width) + "x" + std::to_string(l.height) + " " +
           encodingName(l.encoding);
  };
  // xoreos checks a BioWare header against w·h/2 (DXT1) or w·h (DXT5); that is the block byte
  // count whenever both sides are multiples of 4, so either is accepted.
  if (l.declaredBytes.has_value() && *l.declaredBytes != needed &&
      *l.declaredBytes !=
          std::uint64_t{l.width} * l.height / (l.encoding == Encoding::Dxt1 ? 2 : 1))
    return imageParseError(nameForErrors, "size mismatch: the BioWare DDS header declares " +
                                              std::to_string(*l.declaredBytes) +
                                              " bytes for the top level, a " + described() +
                                              " image has " + std::to_string(needed));
  // Refuse before allocating: the file must hold the whole top level.
  if (bytes.size() - l.offset < needed)
    return imageParseError(nameForErrors, "truncated DDS data: the top level of a " + described() +
                                              " image needs " + std::to_string(needed) +
                                              " bytes, the file has " +
                                              std::to_string(bytes.size() - l.offset));

  Result<Image> created = Image::create(l.width, l.height);
  if (!created.ok()) return created.status();
  Image image = std::move(created).takeValue();
  if (l.encoding == Encoding::Masked)
    decodeMasked(l, bytes.data() + l.offset, image);
  else
    decodeBlocks(l, bytes.data() + l.offset, image);
  return image;
}

Result<Image> loadDds(const std::string& path) {
  return detail::loadImageFile(path, decodeDds);
}

}  // namespace mote::render
