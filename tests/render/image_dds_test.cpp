// SPDX-License-Identifier: MIT
// The DDS reader: DXT1 (both modes), DXT3, DXT5 (both alpha modes), partial edge blocks, the
// BioWare header and uncompressed RGB(A), each decoded to pixels derived by hand from the block
// bytes; and every class of bad input as a clean error naming the file.
#include <mote/core/file.h>
#include <mote/render/image.h>

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <unistd.h>
#include <vector>

namespace mote::render {
namespace {

using Bytes = std::vector<std::uint8_t>;

Bytes operator+(Bytes a, const Bytes& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

void put32(Bytes& b, std::size_t at, std::uint32_t v) {
  for (std::size_t k = 0; k < 4; ++k)
    b[at + k] = static_cast<std::uint8_t>(v >> (8 * k));
}

std::uint32_t fourCc(const char* s) {
  return static_cast<std::uint32_t>(s[0]) | static_cast<std::uint32_t>(s[1]) << 8 |
         static_cast<std::uint32_t>(s[2]) << 16 | static_cast<std::uint32_t>(s[3]) << 24;
}

// "DDS " and a 124-byte header for a width × height texture: DDPF_FOURCC `code`.
Bytes ddsHeader(std::uint32_t width, std::uint32_t height, const char* code) {
  Bytes b(128, 0);
  put32(b, 0, fourCc("DDS "));
  put32(b, 4, 124);
  put32(b, 8, 0x1007);  // CAPS | HEIGHT | WIDTH | PIXELFORMAT
  put32(b, 12, height);
  put32(b, 16, width);
  put32(b, 76, 32);
  put32(b, 80, 0x4);  // DDPF_FOURCC
  put32(b, 84, fourCc(code));
  put32(b, 108, 0x1000);  // DDSCAPS_TEXTURE
  return b;
}

// The same for uncompressed DDPF_RGB (with DDPF_ALPHAPIXELS when `alphaPixels`).
Bytes ddsRgbHeader(std::uint32_t width, std::uint32_t height, std::uint32_t bits, std::uint32_t r,
                   std::uint32_t g, std::uint32_t b, std::uint32_t a, bool alphaPixels) {
  Bytes h = ddsHeader(width, height, "\0\0\0\0");
  put32(h, 80, 0x40u | (alphaPixels ? 0x1u : 0u));
  put32(h, 88, bits);
  put32(h, 92, r);
  put32(h, 96, g);
  put32(h, 100, b);
  put32(h, 104, a);
  return h;
}

// NWN's BioWare header: width, height, channels, top-level bytes, mean alpha (f32 0.5).
Bytes bioWareHeader(std::uint32_t width, std::uint32_t height, std::uint32_t channels,
                    std::uint32_t bytes) {
  Bytes b(20, 0);
  put32(b, 0, width);
  put32(b, 4, height);
  put32(b, 8, channels);
  put32(b, 12, bytes);
  put32(b, 16, 0x3F000000);
  return b;
}

// A colour block: endpoints c0, c1 (5:6:5, little-endian) and one index byte per row (pixel x
// in bits 2x, 2x+1).
Bytes colorBlock(std::uint16_t c0, std::uint16_t c1, std::array<std::uint8_t, 4> rows) {
  return {static_cast<std::uint8_t>(c0 & 0xFF),
          static_cast<std::uint8_t>(c0 >> 8),
          static_cast<std::uint8_t>(c1 & 0xFF),
          static_cast<std::uint8_t>(c1 >> 8),
          rows[0],
          rows[1],
          rows[2],
          rows[3]};
}

// Endpoints used throughout. 0xA50A = (20, 40, 10) → (165, 162, 82) by bit replication
// (20 → 160 | 5, 40 → 160 | 2, 10 → 80 | 2); 0x18FF = (3, 7, 31) → (24, 28, 255).
constexpr std::uint16_t kWarm = 0xA50A;
constexpr std::uint16_t kCool = 0x18FF;
constexpr Rgba8 kWarmRgb{165, 162, 82, 255};
constexpr Rgba8 kCoolRgb{24, 28, 255, 255};
// (2·warm + cool + 1) / 3 = (355/3, 353/3, 420/3) = (118, 117, 140).
constexpr Rgba8 kTwoThirdsWarm{118, 117, 140, 255};
// (warm + 2·cool + 1) / 3 = (214/3, 219/3, 593/3) = (71, 73, 197).
constexpr Rgba8 kTwoThirdsCool{71, 73, 197, 255};
// (warm + cool + 1) / 2 = (190/2, 191/2, 338/2) = (95, 95, 169): 94.5 and 168.5 round up.
constexpr Rgba8 kHalfway{95, 95, 169, 255};

void expectRow(const Image& image, std::uint32_t y, std::array<Rgba8, 4> expected) {
  for (std::uint32_t x = 0; x < 4; ++x)
    EXPECT_EQ(image.pixel(x, y), expected[x]) << "pixel (" << x << ", " << y << ")";
}

TEST(Dds, Dxt1FourColourBlock) {
  // warm > cool: four colours. Rows: indices 0 1 2 3, 3 2 1 0, all 2, all 0.
  const Bytes dds = ddsHeader(4, 4, "DXT1") + colorBlock(kWarm, kCool, {0xE4, 0x1B, 0xAA, 0x00});
  const Result<Image> image = decodeDds(dds, "a.dds");
  ASSERT_TRUE(image.ok()) << image.status().message();
  ASSERT_EQ(image->width(), 4u);
  ASSERT_EQ(image->height(), 4u);
  expectRow(*image, 0, {kWarmRgb, kCoolRgb, kTwoThirdsWarm, kTwoThirdsCool});
  expectRow(*image, 1, {kTwoThirdsCool, kTwoThirdsWarm, kCoolRgb, kWarmRgb});
  expectRow(*image, 2, {kTwoThirdsWarm, kTwoThirdsWarm, kTwoThirdsWarm, kTwoThirdsWarm});
  expectRow(*image, 3, {kWarmRgb, kWarmRgb, kWarmRgb, kWarmRgb});
}

TEST(Dds, Dxt1ThreeColourBlockHasTransparentBlack) {
  // cool < warm as c0 < c1: three colours and transparent black; equal endpoints too.
  constexpr Rgba8 kClear{0, 0, 0, 0};
  const Bytes dds = ddsHeader(8, 4, "DXT1") + colorBlock(kCool, kWarm, {0xE4, 0xFF, 0xFF, 0xFF}) +
                    colorBlock(kWarm, kWarm, {0xE4, 0xE4, 0xE4, 0xE4});
  const Result<Image> image = decodeDds(dds, "b.dds");
  ASSERT_TRUE(image.ok()) << image.status().message();
  expectRow(*image, 0, {kCoolRgb, kWarmRgb, kHalfway, kClear});
  expectRow(*image, 3, {kClear, kClear, kClear, kClear});
  for (std::uint32_t y = 0; y < 4; ++y) {
    EXPECT_EQ(image->pixel(4, y), kWarmRgb);
    EXPECT_EQ(image->pixel(6, y), kWarmRgb);  // (warm + warm + 1) / 2 = warm
    EXPECT_EQ(image->pixel(7, y), kClear);
  }
}

TEST(Dds, Dxt3ExplicitAlphaAndAlwaysFourColours) {
  // Alpha of pixel i (row-major) is i, four bits, low nibble first: 0x10, 0x32, … 0xFE.
  const Bytes alpha{0x10, 0x32, 0x54, 0x76, 0x98, 0xBA, 0xDC, 0xFE};
  // c0 = cool ≤ c1 = warm would be three-colour in DXT1, but not here: index 3 is a colour.
  // Rows: all 3, all 2, all 0, all 1.
  const Bytes dds =
      ddsHeader(4, 4, "DXT3") + alpha + colorBlock(kCool, kWarm, {0xFF, 0xAA, 0x00, 0x55});
  const Result<Image> image = decodeDds(dds, "c.dds");
  ASSERT_TRUE(image.ok()) << image.status().message();
  // With c0 = cool, c1 = warm: index 2 = (2·cool + warm + 1) / 3, index 3 = (cool + 2·warm + 1)/3.
  const std::array<Rgba8, 4> rowColour{kTwoThirdsWarm, kTwoThirdsCool, kCoolRgb, kWarmRgb};
  for (std::uint32_t y = 0; y < 4; ++y)
    for (std::uint32_t x = 0; x < 4; ++x) {
      Rgba8 expected = rowColour[y];
      expected.a = static_cast<std::uint8_t>((y * 4 + x) * 17);
      EXPECT_EQ(image->pixel(x, y), expected) << x << ", " << y;
    }
}

TEST(Dds, Dxt5InterpolatedAlphaInBothModes) {
  // Indices 0..7 then 0..7 again, three bits each, little-endian: 88 C6 FA 88 C6 FA.
  const Bytes indices{0x88, 0xC6, 0xFA, 0x88, 0xC6, 0xFA};
  const Bytes red = colorBlock(0xF800, 0x0000, {0, 0, 0, 0});  // all index 0: (255, 0, 0)
  // a0 = 200 > a1 = 10: ((7 − i)·200 + i·10 + 3) / 7 for i = 1..6 is 1213/7, 1023/7, 833/7,
  // 643/7, 453/7, 263/7 = 173, 146, 119, 91, 64, 37.
  // a0 = 7 ≤ a1 = 100: ((5 − i)·7 + i·100 + 2) / 5 for i = 1..4 is 130/5, 223/5, 316/5, 409/5 =
  // 26, 44, 63, 81; then 0 and 255.
  const Bytes dds =
      ddsHeader(8, 4, "DXT5") + Bytes{200, 10} + indices + red + Bytes{7, 100} + indices + red;
  const Result<Image> image = decodeDds(dds, "d.dds");
  ASSERT_TRUE(image.ok()) << image.status().message();
  const std::array<std::uint8_t, 8> eight{200, 10, 173, 146, 119, 91, 64, 37};
  const std::array<std::uint8_t, 8> six{7, 100, 26, 44, 63, 81, 0, 255};
  for (std::uint32_t i = 0; i < 16; ++i) {
    const std::uint32_t x = i % 4;
    const std::uint32_t y = i / 4;
    EXPECT_EQ(image->pixel(x, y), (Rgba8{255, 0, 0, eight[i % 8]})) << i;
    EXPECT_EQ(image->pixel(4 + x, y), (Rgba8{255, 0, 0, six[i % 8]})) << i;
  }
}

TEST(Dds, SidesThatAreNotMultiplesOfFourUseThePartOfTheEdgeBlocksInside) {
  // 5 × 3: two blocks across, one down. Block 0 is white; block 1's visible column (x = 4) has
  // red, blue and (2·red + blue + 1) / 3 = (170, 0, 85) in rows 0–2 (row 3 lies outside).
  const Bytes dds = ddsHeader(5, 3, "DXT1") + colorBlock(0xFFFF, 0x0000, {0, 0, 0, 0}) +
                    colorBlock(0xF800, 0x001F, {0x00, 0x55, 0xAA, 0xFF});
  const Result<Image> image = decodeDds(dds, "e.dds");
  ASSERT_TRUE(image.ok()) << image.status().message();
  ASSERT_EQ(image->width(), 5u);
  ASSERT_EQ(image->height(), 3u);
  for (std::uint32_t y = 0; y < 3; ++y)
    for (std::uint32_t x = 0; x < 4; ++x)
      EXPECT_EQ(image->pixel(x, y), (Rgba8{255, 255, 255, 255}));
  EXPECT_EQ(image->pixel(4, 0), (Rgba8{255, 0, 0, 255}));
  EXPECT_EQ(image->pixel(4, 1), (Rgba8{0, 0, 255, 255}));
  EXPECT_EQ(image->pixel(4, 2), (Rgba8{170, 0, 85, 255}));
  // One byte less than the two blocks is truncated.
  EXPECT_EQ(
      decodeDds(std::span<const std::uint8_t>(dds.data(), dds.size() - 1), "e.dds").status().code(),
      StatusCode::ParseError);
}

TEST(Dds, BioWareHeaderSelectsDxt1OrDxt5ByChannelCount) {
  // 3 channels: DXT1, 8 bytes for 4 × 4, followed by a smaller mip level (ignored).
  const Bytes dxt1 = bioWareHeader(4, 4, 3, 8) +
                     colorBlock(kWarm, kCool, {0xE4, 0xE4, 0xE4, 0xE4}) +
                     colorBlock(0, 0, {0, 0, 0, 0});
  Result<Image> image = decodeDds(dxt1, "f.dds");
  ASSERT_TRUE(image.ok()) << image.status().message();
  ASSERT_EQ(image->width(), 4u);
  expectRow(*image, 2, {kWarmRgb, kCoolRgb, kTwoThirdsWarm, kTwoThirdsCool});
  // 4 channels: DXT5, 16 bytes for 4 × 4; alpha endpoints 200, 10, indices 0..7 twice.
  const Bytes dxt5 = bioWareHeader(4, 4, 4, 16) +
                     Bytes{200, 10, 0x88, 0xC6, 0xFA, 0x88, 0xC6, 0xFA} +
                     colorBlock(kWarm, kCool, {0, 0, 0, 0});
  image = decodeDds(dxt5, "g.dds");
  ASSERT_TRUE(image.ok()) << image.status().message();
  EXPECT_EQ(image->pixel(0, 0), (Rgba8{165, 162, 82, 200}));  // index 0: a0
  EXPECT_EQ(image->pixel(3, 1), (Rgba8{165, 162, 82, 37}));   // index 7 of 200 > 10
  // A side under 4: 2 × 2 DXT1 may declare its 8 block bytes or w·h/2 = 2 (what xoreos checks).
  for (std::uint32_t declared : {8u, 2u}) {
    const Bytes small =
        bioWareHeader(2, 2, 3, declared) + colorBlock(kWarm, kCool, {0x04, 0, 0, 0});
    image = decodeDds(small, "h.dds");
    ASSERT_TRUE(image.ok()) << declared << ": " << image.status().message();
    EXPECT_EQ(image->pixel(0, 0), kWarmRgb);
    EXPECT_EQ(image->pixel(1, 0), kCoolRgb);
    EXPECT_EQ(image->pixel(0, 1), kWarmRgb);
  }
}

TEST(Dds, UncompressedRgbWithMasks) {
  // 24-bit BGR in memory (R mask 0xFF0000): two pixels.
  Result<Image> image = decodeDds(
      ddsRgbHeader(2, 1, 24, 0xFF0000, 0xFF00, 0xFF, 0, false) + Bytes{1, 2, 3, 4, 5, 6}, "i.dds");
  ASSERT_TRUE(image.ok()) << image.status().message();
  EXPECT_EQ(image->pixel(0, 0), (Rgba8{3, 2, 1, 255}));
  EXPECT_EQ(image->pixel(1, 0), (Rgba8{6, 5, 4, 255}));
  // 32-bit BGRA with DDPF_ALPHAPIXELS; without it the alpha mask is ignored (opaque).
  const Bytes bgra{10, 20, 30, 40};
  image =
      decodeDds(ddsRgbHeader(1, 1, 32, 0xFF0000, 0xFF00, 0xFF, 0xFF000000, true) + bgra, "j.dds");
  ASSERT_TRUE(image.ok()) << image.status().message();
  EXPECT_EQ(image->pixel(0, 0), (Rgba8{30, 20, 10, 40}));
  image =
      decodeDds(ddsRgbHeader(1, 1, 32, 0xFF0000, 0xFF00, 0xFF, 0xFF000000, false) + bgra, "k.dds");
  ASSERT_TRUE(image.ok()) << image.status().message();
  EXPECT_EQ(image->pixel(0, 0), (Rgba8{30, 20, 10, 255}));
  // 16-bit 5:6:5 holding kWarm (20, 40, 10), each scaled and rounded: (20·255 + 15) / 31 = 165,
  // (40·255 + 31) / 63 = 162, (10·255 + 15) / 31 = 82.
  image = decodeDds(ddsRgbHeader(1, 1, 16, 0xF800, 0x07E0, 0x001F, 0, false) + Bytes{0x0A, 0xA5},
                    "l.dds");
  ASSERT_TRUE(image.ok()) << image.status().message();
  EXPECT_EQ(image->pixel(0, 0), (Rgba8{165, 162, 82, 255}));
}

TEST(Dds, EveryProperPrefixIsAParseError) {
  const Bytes standard = ddsHeader(5, 3, "DXT5") + Bytes(32, 0x5A);
  const Bytes bioWare = bioWareHeader(8, 4, 3, 16) + Bytes(16, 0xA5);
  for (const Bytes* dds : {&standard, &bioWare}) {
    ASSERT_TRUE(decodeDds(*dds, "m.dds").ok());
    for (std::size_t n = 0; n < dds->size(); ++n) {
      const Result<Image> image = decodeDds(std::span<const std::uint8_t>(dds->data(), n), "m.dds");
      ASSERT_FALSE(image.ok()) << n;
      EXPECT_EQ(image.status().code(), StatusCode::ParseError) << n;
      EXPECT_EQ(image.status().message().rfind("m.dds: ", 0), 0u) << image.status().message();
    }
  }
}

// The error of decoding `bytes`, which must fail.
Status errorOf(const Bytes& bytes) {
  const Result<Image> image = decodeDds(bytes, "bad.dds");
  EXPECT_FALSE(image.ok());
  EXPECT_EQ(image.status().message().rfind("bad.dds: ", 0), 0u) << image.status().message();
  return image.status();
}

void expectError(const Bytes& bytes, StatusCode code, const std::string& part) {
  const Status s = errorOf(bytes);
  EXPECT_EQ(s.code(), code) << s.message();
  EXPECT_NE(s.message().find(part), std::string::npos) << s.message();
}

TEST(Dds, EachKindOfBadInputIsAClearError) {
  const Bytes block(16, 0);
  // Zero size, in either container.
  expectError(ddsHeader(0, 4, "DXT1"), StatusCode::ParseError, "DDS image of size 0");
  expectError(bioWareHeader(4, 0, 3, 0), StatusCode::ParseError, "DDS image of size 0");
  // Beyond 16384 a side, refused before allocating or reading data.
  expectError(ddsHeader(16385, 4, "DXT1") + block, StatusCode::Unsupported, "16385x4");
  expectError(bioWareHeader(0xFFFFFFFF, 0xFFFFFFFF, 4, 0), StatusCode::Unsupported, "each side");
  // The largest square Image allows, with almost no data: truncated, never allocated.
  expectError(ddsHeader(8192, 8192, "DXT1") + block, StatusCode::ParseError,
              "truncated DDS data: the top level of a 8192x8192 DXT1 image needs 33554432 bytes, "
              "the file has 16");
  // Unsupported compression, named.
  expectError(ddsHeader(4, 4, "ATI2") + block, StatusCode::Unsupported,
              "unsupported DDS compression 'ATI2'");
  expectError(ddsHeader(4, 4, "DX10") + block, StatusCode::Unsupported, "'DX10' (a DXGI-format");
  expectError(ddsHeader(4, 4, "DXT2") + block, StatusCode::Unsupported, "'DXT2'");
  expectError(ddsHeader(4, 4, "q\0\0\0") + block, StatusCode::Unsupported, "compression 113");
  // Unsupported uncompressed formats.
  Bytes luminance = ddsRgbHeader(4, 4, 8, 0xFF, 0, 0, 0, false) + Bytes(16, 0);
  put32(luminance, 80, 0x20000);  // DDPF_LUMINANCE
  expectError(luminance, StatusCode::Unsupported, "neither DXT-compressed nor RGB");
  expectError(ddsRgbHeader(4, 4, 8, 0xE0, 0x1C, 0x03, 0, false) + Bytes(16, 0),
              StatusCode::Unsupported, "RGB depth of 8 bits");
  // A BioWare header whose byte count fits neither the blocks nor w·h/2.
  expectError(bioWareHeader(8, 8, 3, 64) + Bytes(64, 0), StatusCode::ParseError,
              "size mismatch: the BioWare DDS header declares 64 bytes for the top level, a 8x8 "
              "DXT1 image has 32");
  // Neither container.
  expectError(Bytes(40, 7), StatusCode::ParseError, "not a DDS file");
  expectError(Bytes{'D', 'D', 'S'}, StatusCode::ParseError, "not a DDS file");
  // Standard header fields that must be fixed.
  Bytes badSize = ddsHeader(4, 4, "DXT1") + block;
  put32(badSize, 4, 100);
  expectError(badSize, StatusCode::ParseError, "bad DDS header size 100");
  Bytes badFormatSize = ddsHeader(4, 4, "DXT1") + block;
  put32(badFormatSize, 76, 0);
  expectError(badFormatSize, StatusCode::ParseError, "bad DDS pixel-format size 0");
}

TEST(Dds, LoadReadsTheFileAndNamesItInErrors) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("mote-dds-" + std::to_string(::getpid()) + ".dds"))
          .string();
  const Bytes dds = ddsHeader(4, 4, "DXT1") + colorBlock(kWarm, kCool, {0, 0, 0, 0xFF});
  ASSERT_TRUE(writeFileAtomically(path, dds).ok());
  const Result<Image> image = loadDds(path);
  ASSERT_TRUE(image.ok()) << image.status().message();
  EXPECT_EQ(image->pixel(3, 3), kTwoThirdsCool);
  ASSERT_TRUE(writeFileAtomically(path, Bytes(dds.begin(), dds.end() - 1)).ok());
  EXPECT_EQ(loadDds(path).status().message().rfind(path + ": truncated", 0), 0u);
  std::filesystem::remove(path);
  EXPECT_EQ(loadDds("/nonexistent/x.dds").status().code(), StatusCode::NotFound);
}

}  // namespace
}  // namespace mote::render
