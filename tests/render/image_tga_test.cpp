// SPDX-License-Identifier: MIT
// The TGA reader: every image type and origin it supports, decoded to the pixels written by hand,
// and hostile input (every proper prefix, huge declared sizes, bad indices) as clean errors.
#include <mote/render/image.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace mote::render {
namespace {

// An 18-byte header: image type, width × height, depth, descriptor, and an optional colour map.
std::vector<std::uint8_t> header(std::uint8_t type, std::uint16_t w, std::uint16_t h,
                                 std::uint8_t bits, std::uint8_t descriptor,
                                 std::uint16_t mapLength = 0, std::uint8_t mapBits = 0) {
  return {0,
          static_cast<std::uint8_t>(mapLength > 0 ? 1 : 0),
          type,
          0,
          0,
          static_cast<std::uint8_t>(mapLength & 0xFF),
          static_cast<std::uint8_t>(mapLength >> 8),
          mapBits,
          0,
          0,
          0,
          0,
          static_cast<std::uint8_t>(w & 0xFF),
          static_cast<std::uint8_t>(w >> 8),
          static_cast<std::uint8_t>(h & 0xFF),
          static_cast<std::uint8_t>(h >> 8),
          bits,
          descriptor};
}

std::vector<std::uint8_t> operator+(std::vector<std::uint8_t> a,
                                    const std::vector<std::uint8_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

constexpr Rgba8 kRed{255, 0, 0, 255};
constexpr Rgba8 kGreen{0, 255, 0, 255};
constexpr Rgba8 kBlue{0, 0, 255, 255};
constexpr Rgba8 kWhiteHalf{255, 255, 255, 128};

TEST(Tga, RawTrueColour24BottomUpPutsTheFirstRowAtTheBottom) {
  // Rows bottom to top: red, green / blue, white (BGR order).
  const auto tga = header(2, 2, 2, 24, 0) +
                   std::vector<std::uint8_t>{0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255};
  const Result<Image> image = decodeTga(tga, "a.tga");
  ASSERT_TRUE(image.ok()) << image.status().message();
  EXPECT_EQ(image->pixel(0, 1), kRed);
  EXPECT_EQ(image->pixel(1, 1), kGreen);
  EXPECT_EQ(image->pixel(0, 0), kBlue);
  EXPECT_EQ(image->pixel(1, 0), (Rgba8{255, 255, 255, 255}));
}

TEST(Tga, RunLengthTrueColour32TopDownRightToLeft) {
  // A run of 3 half-white, then a raw packet of one red; top-left origin, right to left.
  const auto tga = header(10, 2, 2, 32, 0x20 | 0x10 | 8) +
                   std::vector<std::uint8_t>{0x82, 255, 255, 255, 128, 0x00, 0, 0, 255, 255};
  const Result<Image> image = decodeTga(tga, "b.tga");
  ASSERT_TRUE(image.ok()) << image.status().message();
  EXPECT_EQ(image->pixel(1, 0), kWhiteHalf);
  EXPECT_EQ(image->pixel(0, 0), kWhiteHalf);
  EXPECT_EQ(image->pixel(1, 1), kWhiteHalf);
  EXPECT_EQ(image->pixel(0, 1), kRed);
}

TEST(Tga, ColourMappedAndGrayscaleAndSixteenBit) {
  // 2×1 colour-mapped (24-bit map of blue, green), top-down.
  const auto mapped = header(1, 2, 1, 8, 0x20, 2, 24) +
                      std::vector<std::uint8_t>{255, 0, 0, 0, 255, 0, /*indices*/ 1, 0};
  Result<Image> image = decodeTga(mapped, "c.tga");
  ASSERT_TRUE(image.ok()) << image.status().message();
  EXPECT_EQ(image->pixel(0, 0), kGreen);
  EXPECT_EQ(image->pixel(1, 0), kBlue);
  // Grayscale RLE: a run of two 0x40.
  const auto gray = header(11, 2, 1, 8, 0x20) + std::vector<std::uint8_t>{0x81, 0x40};
  image = decodeTga(gray, "d.tga");
  ASSERT_TRUE(image.ok());
  EXPECT_EQ(image->pixel(1, 0), (Rgba8{0x40, 0x40, 0x40, 255}));
  // 16-bit A1R5G5B5 with an alpha bit declared: pure red, transparent.
  const auto sixteen = header(2, 1, 1, 16, 0x20 | 1) + std::vector<std::uint8_t>{0x00, 0x7C};
  image = decodeTga(sixteen, "e.tga");
  ASSERT_TRUE(image.ok());
  EXPECT_EQ(image->pixel(0, 0), (Rgba8{255, 0, 0, 0}));
}

TEST(Tga, EveryProperPrefixIsAParseError) {
  const auto tga = header(10, 3, 2, 24, 0) +
                   std::vector<std::uint8_t>{0x81, 1, 2, 3, 0x01, 4, 5, 6, 7, 8, 9, 0x81, 1, 1, 1};
  ASSERT_TRUE(decodeTga(tga, "f.tga").ok());
  for (std::size_t n = 0; n < tga.size(); ++n) {
    const Result<Image> image = decodeTga(std::span<const std::uint8_t>(tga.data(), n), "f.tga");
    ASSERT_FALSE(image.ok()) << n;
    EXPECT_EQ(image.status().code(), StatusCode::ParseError) << n;
  }
}

TEST(Tga, HostileHeadersAreRefusedBeforeAllocating) {
  // 65535 × 65535 declared: beyond Image's limits.
  EXPECT_EQ(decodeTga(header(2, 65535, 65535, 32, 0), "g.tga").status().code(),
            StatusCode::Unsupported);
  // 16384 × 4096 RLE from four bytes.
  const auto tiny = header(10, 16384, 4096, 32, 0) + std::vector<std::uint8_t>{0xFF, 1, 2, 3};
  EXPECT_EQ(decodeTga(tiny, "h.tga").status().code(), StatusCode::ParseError);
  // An index outside the colour map, an unknown type, a bad depth, a zero size.
  const auto badIndex = header(1, 1, 1, 8, 0, 1, 24) + std::vector<std::uint8_t>{1, 2, 3, 7};
  EXPECT_NE(decodeTga(badIndex, "i.tga").status().message().find("outside the map"),
            std::string::npos);
  EXPECT_EQ(decodeTga(header(4, 1, 1, 24, 0), "j.tga").status().code(), StatusCode::ParseError);
  EXPECT_EQ(decodeTga(header(2, 1, 1, 12, 0), "k.tga").status().code(), StatusCode::ParseError);
  EXPECT_EQ(decodeTga(header(2, 0, 1, 24, 0), "l.tga").status().code(), StatusCode::ParseError);
  EXPECT_EQ(loadTga("/nonexistent/x.tga").status().code(), StatusCode::NotFound);
}

}  // namespace
}  // namespace mote::render
