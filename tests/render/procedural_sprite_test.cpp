// SPDX-License-Identifier: MIT
// Tests of the built-in procedural sprites: names and URI parsing, size limits, per-sprite shape
// properties and pinned golden hashes (the same bytes with every compiler).
#include "support/assert_trap.h"

#include <mote/core/fnv1a.h>
#include <mote/render/procedural_sprite.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <span>
#include <string>
#include <string_view>
#include <utility>

namespace mote::render {
namespace {

constexpr std::uint32_t kSize = 64;

constexpr BuiltinSprite kAll[] = {BuiltinSprite::SoftCircle, BuiltinSprite::Spark,
                                  BuiltinSprite::Smoke,      BuiltinSprite::Ring,
                                  BuiltinSprite::Star,       BuiltinSprite::Flare};

Image make(BuiltinSprite sprite, std::uint32_t size = kSize) {
  Result<Image> image = makeBuiltinSprite(sprite, size);
  EXPECT_TRUE(image.ok()) << image.status().toString();
  return image.ok() ? std::move(image).takeValue() : Image{};
}

std::uint8_t alphaAt(const Image& image, std::uint32_t x, std::uint32_t y) {
  return image.pixel(x, y).a;
}

std::uint8_t maxAlpha(const Image& image) {
  std::uint8_t best = 0;
  for (std::uint32_t y = 0; y < image.height(); ++y)
    for (std::uint32_t x = 0; x < image.width(); ++x)
      best = std::max(best, alphaAt(image, x, y));
  return best;
}

std::uint64_t hashPixels(const Image& image) {
  return fnv1a64(std::as_bytes(image.pixels()));
}

TEST(ProceduralSpriteTest, NamesRoundTripThroughParse) {
  constexpr std::string_view kExpected[] = {"soft_circle", "spark", "smoke",
                                            "ring",        "star",  "flare"};
  static_assert(std::size(kAll) == kBuiltinSpriteCount);
  for (std::size_t i = 0; i < std::size(kAll); ++i) {
    EXPECT_EQ(builtinSpriteName(kAll[i]), kExpected[i]);
    const std::string uri = "builtin:" + std::string(kExpected[i]);
    Result<BuiltinSprite> parsed = parseBuiltinSprite(uri);
    ASSERT_TRUE(parsed.ok()) << parsed.status().toString();
    EXPECT_EQ(*parsed, kAll[i]);
  }
}

TEST(ProceduralSpriteTest, NameOfInvalidValueAsserts) {
  if (!MOTE_ASSERTS_ENABLED) GTEST_SKIP() << "asserts are compiled out";
  test::AssertTrap trap;
  EXPECT_THROW((void)builtinSpriteName(static_cast<BuiltinSprite>(200)), test::AssertTrapped);
}

TEST(ProceduralSpriteTest, ParseSuggestsNearestNameForTypo) {
  Result<BuiltinSprite> parsed = parseBuiltinSprite("builtin:soft_circel");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().code(), StatusCode::NotFound);
  EXPECT_EQ(parsed.status().message(),
            "unknown built-in sprite \"builtin:soft_circel\" (did you mean builtin:soft_circle?); "
            "valid: builtin:soft_circle, builtin:spark, builtin:smoke, builtin:ring, "
            "builtin:star, builtin:flare");

  Result<BuiltinSprite> flair = parseBuiltinSprite("builtin:flair");
  ASSERT_FALSE(flair.ok());
  EXPECT_NE(flair.status().message().find("(did you mean builtin:flare?)"), std::string::npos);
}

TEST(ProceduralSpriteTest, ParseGivesNoSuggestionForFarName) {
  Result<BuiltinSprite> parsed = parseBuiltinSprite("builtin:explosion");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().code(), StatusCode::NotFound);
  EXPECT_EQ(parsed.status().message(),
            "unknown built-in sprite \"builtin:explosion\"; valid: builtin:soft_circle, "
            "builtin:spark, builtin:smoke, builtin:ring, builtin:star, builtin:flare");

  Result<BuiltinSprite> empty = parseBuiltinSprite("builtin:");
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.status().code(), StatusCode::NotFound);
}

TEST(ProceduralSpriteTest, ParseRejectsMissingPrefix) {
  for (const char* uri :
       {"soft_circle", "textures/smoke.png", "Builtin:spark", " builtin:ring", ""}) {
    Result<BuiltinSprite> parsed = parseBuiltinSprite(uri);
    ASSERT_FALSE(parsed.ok()) << uri;
    EXPECT_EQ(parsed.status().code(), StatusCode::InvalidArgument) << uri;
  }
  EXPECT_EQ(parseBuiltinSprite("textures/smoke.png").status().message(),
            "\"textures/smoke.png\" is not a built-in sprite URI (expected builtin:<name>)");
}

TEST(ProceduralSpriteTest, ParseIsExact) {
  for (const char* uri : {"builtin:Spark", "builtin:spark ", "builtin:ring\n", "builtin:star:"}) {
    Result<BuiltinSprite> parsed = parseBuiltinSprite(uri);
    ASSERT_FALSE(parsed.ok()) << uri;
    EXPECT_EQ(parsed.status().code(), StatusCode::NotFound) << uri;
  }
}

TEST(ProceduralSpriteTest, SizeLimits) {
  for (std::uint32_t bad : {0U, 1U, 3U, 4097U, 100000U}) {
    Result<Image> image = makeBuiltinSprite(BuiltinSprite::SoftCircle, bad);
    ASSERT_FALSE(image.ok()) << bad;
    EXPECT_EQ(image.status().code(), StatusCode::InvalidArgument);
  }
  EXPECT_EQ(makeBuiltinSprite(BuiltinSprite::Ring, 3).status().message(),
            "built-in sprite size 3 must be in [4, 4096]");
  for (BuiltinSprite sprite : kAll) {
    for (std::uint32_t size : {4U, 5U, 33U}) {
      const Image image = make(sprite, size);
      EXPECT_EQ(image.width(), size);
      EXPECT_EQ(image.height(), size);
    }
  }
  const Image largest = make(BuiltinSprite::SoftCircle, 4096);
  EXPECT_EQ(largest.width(), 4096U);
}

TEST(ProceduralSpriteTest, ColourIsWhiteAndCornersAreTransparent) {
  for (BuiltinSprite sprite : kAll) {
    const Image image = make(sprite);
    for (std::uint32_t y = 0; y < kSize; ++y) {
      for (std::uint32_t x = 0; x < kSize; ++x) {
        const Rgba8 p = image.pixel(x, y);
        ASSERT_TRUE(p.r == 255 && p.g == 255 && p.b == 255) << builtinSpriteName(sprite);
      }
    }
    constexpr std::uint32_t kLast = kSize - 1;
    EXPECT_EQ(alphaAt(image, 0, 0), 0) << builtinSpriteName(sprite);
    EXPECT_EQ(alphaAt(image, kLast, 0), 0) << builtinSpriteName(sprite);
    EXPECT_EQ(alphaAt(image, 0, kLast), 0) << builtinSpriteName(sprite);
    EXPECT_EQ(alphaAt(image, kLast, kLast), 0) << builtinSpriteName(sprite);
  }
}

TEST(ProceduralSpriteTest, CentreIsBrightestForCentredSprites) {
  for (BuiltinSprite sprite : {BuiltinSprite::SoftCircle, BuiltinSprite::Flare, BuiltinSprite::Star,
                               BuiltinSprite::Spark}) {
    const Image image = make(sprite);
    const std::uint8_t centre = alphaAt(image, kSize / 2, kSize / 2);
    EXPECT_GE(centre, 250) << builtinSpriteName(sprite);
    EXPECT_EQ(centre, maxAlpha(image)) << builtinSpriteName(sprite);
  }
}

TEST(ProceduralSpriteTest, SoftCircleAndRingAreExactlySymmetric) {
  for (BuiltinSprite sprite : {BuiltinSprite::SoftCircle, BuiltinSprite::Ring}) {
    for (std::uint32_t size : {kSize, 65U}) {
      const Image image = make(sprite, size);
      for (std::uint32_t y = 0; y < size; ++y) {
        for (std::uint32_t x = 0; x < size; ++x) {
          const Rgba8 p = image.pixel(x, y);
          ASSERT_EQ(p, image.pixel(size - 1 - x, y)) << builtinSpriteName(sprite) << x << "," << y;
          ASSERT_EQ(p, image.pixel(x, size - 1 - y)) << builtinSpriteName(sprite) << x << "," << y;
          ASSERT_EQ(p, image.pixel(y, x)) << builtinSpriteName(sprite) << x << "," << y;
        }
      }
    }
  }
}

TEST(ProceduralSpriteTest, SoftCircleFallsOffMonotonically) {
  const Image image = make(BuiltinSprite::SoftCircle);
  for (std::uint32_t x = kSize / 2; x + 1 < kSize; ++x)
    EXPECT_GE(alphaAt(image, x, kSize / 2), alphaAt(image, x + 1, kSize / 2)) << x;
  EXPECT_EQ(alphaAt(image, kSize - 1, kSize / 2), 0);
}

TEST(ProceduralSpriteTest, RingIsHollowWithBrightMidRadius) {
  const Image image = make(BuiltinSprite::Ring);
  EXPECT_EQ(alphaAt(image, kSize / 2, kSize / 2), 0);
  EXPECT_EQ(alphaAt(image, kSize / 2 - 1, kSize / 2 - 1), 0);
  // Radius 0.62 of the half-size 32 is about 20 pixels from the centre.
  EXPECT_GE(alphaAt(image, kSize / 2 + 19, kSize / 2), 240);
  EXPECT_GE(alphaAt(image, kSize / 2, kSize / 2 - 20), 240);
  EXPECT_EQ(alphaAt(image, kSize - 1, kSize / 2), 0);
}

TEST(ProceduralSpriteTest, SparkIsTallerThanWide) {
  const Image image = make(BuiltinSprite::Spark);
  std::uint64_t alongY = 0;  // the centre column
  std::uint64_t alongX = 0;  // the centre row
  for (std::uint32_t i = 0; i < kSize; ++i) {
    alongY += alphaAt(image, kSize / 2, i);
    alongX += alphaAt(image, i, kSize / 2);
  }
  EXPECT_GE(alongY, 3 * alongX) << alongY << " vs " << alongX;
  // Second moments over the whole image agree: the spread is along Y.
  double momentY = 0;
  double momentX = 0;
  for (std::uint32_t y = 0; y < kSize; ++y) {
    for (std::uint32_t x = 0; x < kSize; ++x) {
      const double a = alphaAt(image, x, y);
      const double dx = x + 0.5 - kSize / 2.0;
      const double dy = y + 0.5 - kSize / 2.0;
      momentX += a * dx * dx;
      momentY += a * dy * dy;
    }
  }
  EXPECT_GE(momentY, 3 * momentX);
}

TEST(ProceduralSpriteTest, SmokeIsIrregularAndFadesAtTheBorder) {
  const Image image = make(BuiltinSprite::Smoke);
  int differingPairs = 0;
  for (std::uint32_t y = 0; y < kSize; ++y)
    for (std::uint32_t x = 0; x < kSize; ++x)
      if (alphaAt(image, x, y) != alphaAt(image, kSize - 1 - x, y) ||
          alphaAt(image, x, y) != alphaAt(image, y, x))
        ++differingPairs;
  EXPECT_GT(differingPairs, 100);
  for (std::uint32_t i = 0; i < kSize; ++i) {
    EXPECT_EQ(alphaAt(image, i, 0), 0) << i;
    EXPECT_EQ(alphaAt(image, i, kSize - 1), 0) << i;
    EXPECT_EQ(alphaAt(image, 0, i), 0) << i;
    EXPECT_EQ(alphaAt(image, kSize - 1, i), 0) << i;
  }
  EXPECT_GE(maxAlpha(image), 180);
}

TEST(ProceduralSpriteTest, SameBytesEveryCall) {
  for (BuiltinSprite sprite : kAll)
    EXPECT_EQ(make(sprite, 37), make(sprite, 37)) << builtinSpriteName(sprite);
}

// Golden FNV-1a 64 of the 64-pixel sprites' bytes. They pin determinism across compilers and
// platforms; a deliberate change of a shape updates them (the test prints the new values).
TEST(ProceduralSpriteTest, GoldenHashes) {
  struct Golden {
    BuiltinSprite sprite;
    std::uint64_t hash;
  };
  constexpr Golden kGolden[] = {
      {BuiltinSprite::SoftCircle, 0xfb2b61675476d535ULL},
      {BuiltinSprite::Spark, 0x492f6fe60a1be1b5ULL},
      {BuiltinSprite::Smoke, 0xbc9309d96a20d116ULL},
      {BuiltinSprite::Ring, 0xdb1f7173b41ccd85ULL},
      {BuiltinSprite::Star, 0x6df3582aea90a985ULL},
      {BuiltinSprite::Flare, 0xc1a10f6b298804d5ULL},
  };
  for (const Golden& golden : kGolden) {
    const std::uint64_t hash = hashPixels(make(golden.sprite));
    std::printf("SPRITE_HASH name=%s hash=0x%016llx\n",
                std::string(builtinSpriteName(golden.sprite)).c_str(),
                static_cast<unsigned long long>(hash));
    EXPECT_EQ(hash, golden.hash) << builtinSpriteName(golden.sprite);
  }
}

// With MOTE_WRITE_SPRITES set, writes each sprite at 128 px as <name>.png, plus <name>_on_black.png
// (composited over black) for viewing, to the directory it names (or a temporary directory when it
// is "1").
TEST(ProceduralSpriteTest, WritesSpritesWhenAsked) {
  const char* target = std::getenv("MOTE_WRITE_SPRITES");
  if (target == nullptr || *target == '\0') GTEST_SKIP() << "MOTE_WRITE_SPRITES not set";
  namespace fs = std::filesystem;
  const fs::path dir =
      std::string(target) == "1" ? fs::temp_directory_path() / "mote_sprites" : fs::path(target);
  fs::create_directories(dir);
  for (BuiltinSprite sprite : kAll) {
    const Image image = make(sprite, 128);
    const std::string name(builtinSpriteName(sprite));
    ASSERT_TRUE(writePng(image, (dir / (name + ".png")).string()).ok());
    Image onBlack = image;
    for (std::uint32_t y = 0; y < onBlack.height(); ++y) {
      for (std::uint32_t x = 0; x < onBlack.width(); ++x) {
        const std::uint8_t a = image.pixel(x, y).a;
        onBlack.setPixel(x, y, Rgba8{a, a, a, 255});
      }
    }
    ASSERT_TRUE(writePng(onBlack, (dir / (name + "_on_black.png")).string()).ok());
    std::printf("wrote %s\n", (dir / (name + ".png")).string().c_str());
  }
}

}  // namespace
}  // namespace mote::render
