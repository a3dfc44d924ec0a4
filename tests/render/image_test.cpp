// SPDX-License-Identifier: MIT
// Tests of Image and its readers and writers: PNG round trips and hostile input, the APNG chunk
// layout, the GIF palette quantiser and giflib read-back, image sequences and atomic file writes.
#include <mote/core/alloc_watch.h>
#include <mote/render/image.h>

#include <gif_lib.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace mote::render {
namespace {

namespace fs = std::filesystem;

// 1x1 RGB8, red.
constexpr std::uint8_t kRed1x1[] = {
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48,
    0x44, 0x52, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00,
    0x00, 0x90, 0x77, 0x53, 0xde, 0x00, 0x00, 0x00, 0x0c, 0x49, 0x44, 0x41, 0x54, 0x78,
    0x9c, 0x63, 0xf8, 0xcf, 0xc0, 0x00, 0x00, 0x03, 0x01, 0x01, 0x00, 0xc9, 0xfe, 0x92,
    0xef, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82};
// 2x2 gray8: 0, 85 / 170, 255.
constexpr std::uint8_t kGray2x2[] = {
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44,
    0x52, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x02, 0x08, 0x00, 0x00, 0x00, 0x00, 0x57,
    0xdd, 0x52, 0xf8, 0x00, 0x00, 0x00, 0x0e, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x60,
    0x08, 0x65, 0x58, 0xf5, 0x1f, 0x00, 0x03, 0xad, 0x01, 0xff, 0x67, 0xfb, 0xca, 0x09, 0x00,
    0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82};
// 2x1 palette8: blue with tRNS alpha 64, then opaque green.
constexpr std::uint8_t kPalette2x1[] = {
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44,
    0x52, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x01, 0x08, 0x03, 0x00, 0x00, 0x00, 0xc3,
    0xfc, 0x8f, 0xb8, 0x00, 0x00, 0x00, 0x06, 0x50, 0x4c, 0x54, 0x45, 0x00, 0x00, 0xff, 0x00,
    0xff, 0x00, 0xe8, 0x46, 0x42, 0x4c, 0x00, 0x00, 0x00, 0x01, 0x74, 0x52, 0x4e, 0x53, 0x40,
    0x36, 0x3a, 0x99, 0xf6, 0x00, 0x00, 0x00, 0x0b, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63,
    0x60, 0x60, 0x04, 0x00, 0x00, 0x04, 0x00, 0x02, 0xbf, 0x7a, 0x3f, 0x4a, 0x00, 0x00, 0x00,
    0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82};
// IHDR declares 100000x100000 RGBA8; 5 bytes of image data.
constexpr std::uint8_t kHuge[] = {
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48,
    0x44, 0x52, 0x00, 0x01, 0x86, 0xa0, 0x00, 0x01, 0x86, 0xa0, 0x08, 0x06, 0x00, 0x00,
    0x00, 0xa8, 0x52, 0x0b, 0xc8, 0x00, 0x00, 0x00, 0x0b, 0x49, 0x44, 0x41, 0x54, 0x78,
    0x9c, 0x63, 0x60, 0x00, 0x02, 0x00, 0x00, 0x05, 0x00, 0x01, 0x7a, 0x5e, 0xab, 0x3f,
    0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82};
// IHDR declares 8192x8192 gray8 (within the limits) with one row of image data.
constexpr std::uint8_t kBomb[] = {
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44,
    0x52, 0x00, 0x00, 0x20, 0x00, 0x00, 0x00, 0x20, 0x00, 0x08, 0x00, 0x00, 0x00, 0x00, 0x57,
    0xc1, 0x95, 0x85, 0x00, 0x00, 0x00, 0x1f, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0xed, 0xc1,
    0x01, 0x0d, 0x00, 0x00, 0x00, 0xc2, 0xa0, 0xf7, 0x4f, 0x6d, 0x0e, 0x37, 0xa0, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x7b, 0x03, 0x20, 0x01, 0x00, 0x01, 0x3e, 0x1a, 0xf7,
    0x28, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82};

// A fresh directory per test under the system temporary directory, removed afterwards.
class ImageFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           (std::string("mote_image_test_") + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  // Names in the directory, to prove no temporary file is left behind.
  std::set<std::string> listing() const {
    std::set<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir_))
      names.insert(entry.path().filename());
    return names;
  }
  fs::path dir_;
};

Image makeImage(std::uint32_t width, std::uint32_t height) {
  Result<Image> made = Image::create(width, height);
  EXPECT_TRUE(made.ok()) << made.status().toString();
  return made.ok() ? std::move(made).takeValue() : Image{};
}

// Deterministic test content: every byte varies, alpha included.
Image makeNoise(std::uint32_t width, std::uint32_t height, std::uint32_t seed) {
  Image image = makeImage(width, height);
  std::uint32_t state = seed * 2654435761u + 1;
  for (std::uint8_t& b : image.pixels()) {
    state = state * 1664525u + 1013904223u;
    b = static_cast<std::uint8_t>(state >> 24);
  }
  return image;
}

// A smooth opaque gradient with many distinct colours.
Image makeGradient(std::uint32_t width, std::uint32_t height, std::uint32_t phase) {
  Image image = makeImage(width, height);
  for (std::uint32_t y = 0; y < height; ++y) {
    for (std::uint32_t x = 0; x < width; ++x) {
      image.setPixel(x, y,
                     Rgba8{static_cast<std::uint8_t>((x * 255 / (width - 1) + phase) & 0xFF),
                           static_cast<std::uint8_t>(y * 255 / (height - 1)),
                           static_cast<std::uint8_t>((x + y) * 2), 255});
    }
  }
  return image;
}

std::vector<std::uint8_t> readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<std::uint8_t>(std::istreambuf_iterator<char>(in), {});
}

std::uint32_t be32(const std::uint8_t* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) |
         std::uint32_t{p[3]};
}

// Bitwise CRC-32 (independent of the table-driven one under test).
std::uint32_t referenceCrc(const std::uint8_t* data, std::size_t size) {
  std::uint32_t crc = 0xFFFFFFFFu;
  for (std::size_t i = 0; i < size; ++i) {
    crc ^= data[i];
    for (int k = 0; k < 8; ++k)
      crc = (crc & 1u) != 0 ? (crc >> 1) ^ 0xEDB88320u : crc >> 1;
  }
  return crc ^ 0xFFFFFFFFu;
}

struct Chunk {
  std::string type;
  std::vector<std::uint8_t> data;
};

// Splits a PNG into chunks, checking the signature, bounds and every CRC.
std::vector<Chunk> parseChunks(const std::vector<std::uint8_t>& bytes) {
  std::vector<Chunk> chunks;
  const std::uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  EXPECT_GE(bytes.size(), 8u);
  EXPECT_TRUE(std::equal(signature, signature + 8, bytes.begin()));
  std::size_t at = 8;
  while (at + 12 <= bytes.size()) {
    const std::uint32_t length = be32(bytes.data() + at);
    EXPECT_LE(at + 12 + length, bytes.size());
    if (at + 12 + length > bytes.size()) break;
    Chunk chunk;
    chunk.type.assign(bytes.begin() + static_cast<std::ptrdiff_t>(at + 4),
                      bytes.begin() + static_cast<std::ptrdiff_t>(at + 8));
    chunk.data.assign(bytes.begin() + static_cast<std::ptrdiff_t>(at + 8),
                      bytes.begin() + static_cast<std::ptrdiff_t>(at + 8 + length));
    EXPECT_EQ(be32(bytes.data() + at + 8 + length), referenceCrc(bytes.data() + at + 4, length + 4))
        << "CRC of " << chunk.type;
    chunks.push_back(std::move(chunk));
    at += 12 + length;
  }
  EXPECT_EQ(at, bytes.size());
  return chunks;
}

Image decodeOk(std::span<const std::uint8_t> bytes) {
  Result<Image> decoded = decodePng(bytes, "test.png");
  EXPECT_TRUE(decoded.ok()) << decoded.status().toString();
  return decoded.ok() ? std::move(decoded).takeValue() : Image{};
}

// ---------------------------------------------------------------------------------------------------
// Image

TEST(Image, CreateEnforcesLimits) {
  EXPECT_TRUE(Image::create(1, 1).ok());
  EXPECT_TRUE(Image::validateSize(16384, 4096).ok());
  EXPECT_EQ(Image::validateSize(16384, 4097).code(), StatusCode::InvalidArgument);
  EXPECT_EQ(Image::create(0, 5).status().code(), StatusCode::InvalidArgument);
  EXPECT_EQ(Image::create(5, 0).status().code(), StatusCode::InvalidArgument);
  EXPECT_EQ(Image::create(16385, 1).status().code(), StatusCode::InvalidArgument);
  EXPECT_EQ(Image::create(1, 16385).status().code(), StatusCode::InvalidArgument);
  EXPECT_EQ(Image::create(16384, 16384).status().code(), StatusCode::InvalidArgument);
}

TEST(Image, PixelAccessorsAndLayout) {
  Image image = makeImage(3, 2);
  EXPECT_EQ(image.width(), 3u);
  EXPECT_EQ(image.height(), 2u);
  EXPECT_EQ(image.stride(), 12u);
  EXPECT_EQ(image.pixels().size(), 24u);
  EXPECT_EQ(image.pixel(2, 1), (Rgba8{0, 0, 0, 0}));
  image.setPixel(2, 1, Rgba8{1, 2, 3, 4});
  EXPECT_EQ(image.pixel(2, 1), (Rgba8{1, 2, 3, 4}));
  EXPECT_EQ(image.row(1)[8], 1);
  EXPECT_EQ(image.pixels()[1 * 12 + 2 * 4 + 3], 4);
  image.fill(Rgba8{9, 8, 7, 6});
  EXPECT_EQ(image.pixel(0, 0), (Rgba8{9, 8, 7, 6}));
}

// ---------------------------------------------------------------------------------------------------
// PNG

TEST(Png, EncodeDecodeRoundTripIsExact) {
  for (const auto& [w, h] : {std::pair{1u, 1u}, std::pair{7u, 3u}, std::pair{64u, 33u}}) {
    const Image source = makeNoise(w, h, w * 31 + h);
    Result<std::vector<std::uint8_t>> encoded = encodePng(source);
    ASSERT_TRUE(encoded.ok()) << encoded.status().toString();
    EXPECT_EQ(decodeOk(*encoded), source) << w << "x" << h;
  }
}

TEST(Png, EncodeRejectsEmptyImage) {
  EXPECT_EQ(encodePng(Image{}).status().code(), StatusCode::InvalidArgument);
}

TEST(Png, DecodesHandBuiltRgb) {
  const Image image = decodeOk(kRed1x1);
  ASSERT_EQ(image.width(), 1u);
  ASSERT_EQ(image.height(), 1u);
  EXPECT_EQ(image.pixel(0, 0), (Rgba8{255, 0, 0, 255}));
}

TEST(Png, DecodesGrayscaleToRgba) {
  const Image image = decodeOk(kGray2x2);
  ASSERT_EQ(image.width(), 2u);
  ASSERT_EQ(image.height(), 2u);
  EXPECT_EQ(image.pixel(0, 0), (Rgba8{0, 0, 0, 255}));
  EXPECT_EQ(image.pixel(1, 0), (Rgba8{85, 85, 85, 255}));
  EXPECT_EQ(image.pixel(0, 1), (Rgba8{170, 170, 170, 255}));
  EXPECT_EQ(image.pixel(1, 1), (Rgba8{255, 255, 255, 255}));
}

TEST(Png, DecodesPaletteWithTransparencyToRgba) {
  const Image image = decodeOk(kPalette2x1);
  ASSERT_EQ(image.width(), 2u);
  ASSERT_EQ(image.height(), 1u);
  EXPECT_EQ(image.pixel(0, 0), (Rgba8{0, 0, 255, 64}));
  EXPECT_EQ(image.pixel(1, 0), (Rgba8{0, 255, 0, 255}));
}

TEST(Png, DecodeRejectsTruncatedInput) {
  Result<std::vector<std::uint8_t>> encoded = encodePng(makeNoise(9, 5, 3));
  ASSERT_TRUE(encoded.ok());
  std::vector<std::vector<std::uint8_t>> samples = {
      std::vector<std::uint8_t>(std::begin(kRed1x1), std::end(kRed1x1)),
      std::vector<std::uint8_t>(std::begin(kPalette2x1), std::end(kPalette2x1)), *encoded};
  for (const std::vector<std::uint8_t>& full : samples) {
    for (std::size_t length = 0; length < full.size(); ++length) {
      // A fresh copy of exactly `length` bytes, so ASan sees any read past the end.
      const std::vector<std::uint8_t> prefix(full.begin(),
                                             full.begin() + static_cast<std::ptrdiff_t>(length));
      Result<Image> decoded = decodePng(prefix, "cut.png");
      ASSERT_FALSE(decoded.ok()) << "prefix " << length << " of " << full.size();
      EXPECT_EQ(decoded.status().code(), StatusCode::ParseError) << "prefix " << length;
      EXPECT_NE(decoded.status().message().find("cut.png: "), std::string::npos);
    }
  }
}

TEST(Png, DecodeRejectsCorruptBytesWithLibpngMessage) {
  std::vector<std::uint8_t> bad(std::begin(kRed1x1), std::end(kRed1x1));
  bad[45] ^= 0x40;  // inside IDAT: the CRC no longer matches
  Result<Image> decoded = decodePng(bad, "bad.png");
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.status().code(), StatusCode::ParseError);
  EXPECT_NE(decoded.status().message().find("bad.png: "), std::string::npos);
  EXPECT_GT(decoded.status().message().size(), std::string("bad.png: ").size());

  const std::uint8_t notPng[] = {'G', 'I', 'F', '8', '9', 'a', 0, 0, 0, 0, 0, 0};
  EXPECT_EQ(decodePng(notPng, "x").status().code(), StatusCode::ParseError);
}

TEST(Png, HugeDeclaredSizeIsRejectedBeforeAllocating) {
  AllocationScope scope;
  Result<Image> decoded = decodePng(kHuge, "huge.png");
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.status().code(), StatusCode::Unsupported);
  EXPECT_NE(decoded.status().message().find("100000x100000"), std::string::npos)
      << decoded.status().message();
  if (allocationWatchInstalled()) {
    EXPECT_LT(scope.bytes(), 1u << 20);
  }
}

TEST(Png, TinyDataForLargeDeclaredSizeIsRejectedBeforeAllocating) {
  AllocationScope scope;
  Result<Image> decoded = decodePng(kBomb, "bomb.png");
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.status().code(), StatusCode::ParseError);
  EXPECT_NE(decoded.status().message().find("8192x8192"), std::string::npos)
      << decoded.status().message();
  if (allocationWatchInstalled()) {
    EXPECT_LT(scope.bytes(), 1u << 20);
  }
}

TEST_F(ImageFiles, PngWriteLoadRoundTrip) {
  const Image source = makeNoise(17, 11, 5);
  ASSERT_TRUE(writePng(source, path("a.png")).ok());
  Result<Image> loaded = loadPng(path("a.png"));
  ASSERT_TRUE(loaded.ok()) << loaded.status().toString();
  EXPECT_EQ(*loaded, source);
  EXPECT_EQ(listing(), (std::set<std::string>{"a.png"}));
  struct stat info {};
  ASSERT_EQ(::stat(path("a.png").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0044, 0044u) << "readable by group and others (umask permitting)";
}

TEST_F(ImageFiles, FileErrorsNameThePath) {
  const std::string missingDir = path("no/such/dir/a.png");
  const Status written = writePng(makeNoise(2, 2, 1), missingDir);
  ASSERT_FALSE(written.ok());
  EXPECT_EQ(written.code(), StatusCode::IoError);
  EXPECT_EQ(written.message(), "cannot write " + missingDir + ": No such file or directory");

  Result<Image> loaded = loadPng(path("missing.png"));
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), StatusCode::NotFound);
  EXPECT_NE(loaded.status().message().find(path("missing.png")), std::string::npos);

  // A file that is not a PNG: the error names the file.
  std::ofstream(path("text.png")) << "hello";
  loaded = loadPng(path("text.png"));
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), StatusCode::ParseError);
  EXPECT_EQ(loaded.status().message().rfind(path("text.png") + ": ", 0), 0u);
}

TEST_F(ImageFiles, FailedWriteLeavesExistingFileAndNoTemporary) {
  const Image first = makeNoise(4, 4, 1);
  ASSERT_TRUE(writePng(first, path("a.png")).ok());
  // Renaming a file over a directory fails after the temporary file was written.
  fs::create_directories(dir_ / "dir.png");
  const Status status = writePng(first, path("dir.png"));
  EXPECT_EQ(status.code(), StatusCode::IoError);
  EXPECT_EQ(listing(), (std::set<std::string>{"a.png", "dir.png"}));
  Result<Image> loaded = loadPng(path("a.png"));
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(*loaded, first);
}

TEST_F(ImageFiles, AtomicFileDiscardsUncommittedTemporary) {
  {
    Result<AtomicFile> file = AtomicFile::create(path("x.bin"));
    ASSERT_TRUE(file.ok());
    const std::uint8_t bytes[] = {1, 2, 3};
    ASSERT_TRUE(file->write(bytes).ok());
    EXPECT_TRUE(fs::exists(file->temporaryPath()));
    EXPECT_FALSE(fs::exists(path("x.bin")));
  }
  EXPECT_TRUE(listing().empty());
}

// ---------------------------------------------------------------------------------------------------
// APNG

TEST(Apng, ChunkLayoutSequenceNumbersAndCrcs) {
  std::vector<Image> frames;
  for (std::uint32_t i = 0; i < 3; ++i)
    frames.push_back(makeNoise(6, 4, 100 + i));
  Result<std::vector<std::uint8_t>> apng =
      encodeApng(frames, ApngOptions{.delayNumerator = 1, .delayDenominator = 30, .loopCount = 2});
  ASSERT_TRUE(apng.ok()) << apng.status().toString();
  const std::vector<Chunk> chunks = parseChunks(*apng);
  ASSERT_GE(chunks.size(), 4u);
  EXPECT_EQ(chunks.front().type, "IHDR");
  EXPECT_EQ(chunks.back().type, "IEND");

  std::vector<std::string> order;
  std::uint32_t expectedSequence = 0;
  std::size_t fcTLs = 0;
  for (const Chunk& chunk : chunks) {
    if (chunk.type != "IDAT" || order.empty() || order.back() != "IDAT")
      order.push_back(chunk.type);
    if (chunk.type == "acTL") {
      ASSERT_EQ(chunk.data.size(), 8u);
      EXPECT_EQ(be32(chunk.data.data()), 3u);
      EXPECT_EQ(be32(chunk.data.data() + 4), 2u);
    } else if (chunk.type == "fcTL") {
      ASSERT_EQ(chunk.data.size(), 26u);
      EXPECT_EQ(be32(chunk.data.data()), expectedSequence++);
      EXPECT_EQ(be32(chunk.data.data() + 4), 6u);
      EXPECT_EQ(be32(chunk.data.data() + 8), 4u);
      EXPECT_EQ(be32(chunk.data.data() + 12), 0u);
      EXPECT_EQ(be32(chunk.data.data() + 16), 0u);
      EXPECT_EQ((chunk.data[20] << 8) | chunk.data[21], 1);
      EXPECT_EQ((chunk.data[22] << 8) | chunk.data[23], 30);
      ++fcTLs;
    } else if (chunk.type == "fdAT") {
      ASSERT_GE(chunk.data.size(), 4u);
      EXPECT_EQ(be32(chunk.data.data()), expectedSequence++);
    }
  }
  EXPECT_EQ(fcTLs, 3u);
  EXPECT_EQ(order, (std::vector<std::string>{"IHDR", "acTL", "sRGB", "fcTL", "IDAT", "fcTL", "fdAT",
                                             "fcTL", "fdAT", "IEND"}));
}

TEST(Apng, EveryFrameDecodesAndLibpngSeesFrameZero) {
  std::vector<Image> frames;
  for (std::uint32_t i = 0; i < 3; ++i)
    frames.push_back(makeNoise(5, 7, 200 + i));
  Result<std::vector<std::uint8_t>> apng = encodeApng(frames);
  ASSERT_TRUE(apng.ok());
  // libpng without APNG support skips acTL/fcTL/fdAT: the still image is frame 0.
  EXPECT_EQ(decodeOk(*apng), frames[0]);

  // Rebuild each later frame as a still PNG from its fdAT payload and decode it.
  const std::vector<Chunk> chunks = parseChunks(*apng);
  const Chunk& ihdr = chunks.front();
  std::size_t frameIndex = 1;
  for (const Chunk& chunk : chunks) {
    if (chunk.type != "fdAT") continue;
    std::vector<std::uint8_t> still = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    const auto append = [&](const std::string& type, std::span<const std::uint8_t> data) {
      const auto n = static_cast<std::uint32_t>(data.size());
      still.insert(still.end(),
                   {static_cast<std::uint8_t>(n >> 24), static_cast<std::uint8_t>(n >> 16),
                    static_cast<std::uint8_t>(n >> 8), static_cast<std::uint8_t>(n)});
      const std::size_t typeAt = still.size();
      still.insert(still.end(), type.begin(), type.end());
      still.insert(still.end(), data.begin(), data.end());
      const std::uint32_t crc = referenceCrc(still.data() + typeAt, data.size() + 4);
      still.insert(still.end(),
                   {static_cast<std::uint8_t>(crc >> 24), static_cast<std::uint8_t>(crc >> 16),
                    static_cast<std::uint8_t>(crc >> 8), static_cast<std::uint8_t>(crc)});
    };
    append("IHDR", ihdr.data);
    append("IDAT", std::span<const std::uint8_t>(chunk.data).subspan(4));
    append("IEND", {});
    ASSERT_LT(frameIndex, frames.size());
    EXPECT_EQ(decodeOk(still), frames[frameIndex]) << "frame " << frameIndex;
    ++frameIndex;
  }
  EXPECT_EQ(frameIndex, frames.size());
}

TEST_F(ImageFiles, ApngWriteAndValidation) {
  std::vector<Image> frames = {makeNoise(3, 3, 1), makeNoise(3, 3, 2)};
  ASSERT_TRUE(writeApng(frames, path("a.png")).ok());
  Result<Image> loaded = loadPng(path("a.png"));
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(*loaded, frames[0]);

  EXPECT_EQ(encodeApng({}).status().code(), StatusCode::InvalidArgument);
  frames.push_back(makeNoise(4, 3, 3));
  EXPECT_EQ(encodeApng(frames).status().code(), StatusCode::InvalidArgument);
  EXPECT_EQ(writeApng(std::span<const Image>(frames).first(2), path("missing/a.png")).code(),
            StatusCode::IoError);
}

// ---------------------------------------------------------------------------------------------------
// GIF quantiser

TEST(GifQuantizer, FewColoursRoundTripExactly) {
  // 256 distinct opaque colours, no transparency: every one gets its own entry.
  Image image = makeImage(16, 16);
  for (std::uint32_t i = 0; i < 256; ++i) {
    image.setPixel(i % 16, i / 16,
                   Rgba8{static_cast<std::uint8_t>(i), static_cast<std::uint8_t>(255 - i),
                         static_cast<std::uint8_t>(i * 7), 255});
  }
  for (const bool dither : {false, true}) {
    Result<IndexedFrames> q = quantizeFrames(std::span<const Image>(&image, 1), dither);
    ASSERT_TRUE(q.ok());
    EXPECT_EQ(q->palette.size(), 256u);
    EXPECT_EQ(q->transparentIndex, -1);
    EXPECT_EQ(q->toImage(0), image) << "dither " << dither;
  }
}

TEST(GifQuantizer, TransparentPixelsGetTheirOwnEntry) {
  Image image = makeImage(16, 16);
  for (std::uint32_t i = 0; i < 255; ++i) {
    image.setPixel(i % 16, i / 16, Rgba8{static_cast<std::uint8_t>(i), 3, 4, 255});
  }
  image.setPixel(15, 15, Rgba8{9, 9, 9, 127});  // alpha < 128: transparent
  Result<IndexedFrames> q = quantizeFrames(std::span<const Image>(&image, 1), false);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->palette.size(), 256u);
  ASSERT_EQ(q->transparentIndex, 255);
  EXPECT_EQ(q->palette[255], (Rgba8{0, 0, 0, 0}));
  Image expected = image;
  expected.setPixel(15, 15, Rgba8{0, 0, 0, 0});
  EXPECT_EQ(q->toImage(0), expected);
}

TEST(GifQuantizer, TwoColourImageUsesTwoEntries) {
  Image image = makeImage(8, 8);
  image.fill(Rgba8{10, 20, 30, 255});
  for (std::uint32_t x = 0; x < 8; ++x)
    image.setPixel(x, 3, Rgba8{200, 100, 0, 255});
  Result<IndexedFrames> q = quantizeFrames(std::span<const Image>(&image, 1), true);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->palette.size(), 2u);
  EXPECT_EQ(q->toImage(0), image);
}

TEST(GifQuantizer, ManyColoursAreDeterministicAndIdempotent) {
  const std::vector<Image> frames = {makeGradient(64, 48, 0), makeGradient(64, 48, 40)};
  for (const bool dither : {false, true}) {
    Result<IndexedFrames> a = quantizeFrames(frames, dither);
    Result<IndexedFrames> b = quantizeFrames(frames, dither);
    ASSERT_TRUE(a.ok());
    ASSERT_TRUE(b.ok());
    EXPECT_EQ(a->palette, b->palette);
    EXPECT_EQ(a->indices, b->indices);
    EXPECT_EQ(a->palette.size(), 256u);
    EXPECT_EQ(a->transparentIndex, -1);
  }
  Result<IndexedFrames> once = quantizeFrames(frames, false);
  ASSERT_TRUE(once.ok());
  const std::vector<Image> quantized = {once->toImage(0), once->toImage(1)};
  Result<IndexedFrames> twice = quantizeFrames(quantized, false);
  ASSERT_TRUE(twice.ok());
  EXPECT_EQ(twice->toImage(0), quantized[0]);
  EXPECT_EQ(twice->toImage(1), quantized[1]);
}

// With 256 median-cut entries a smooth gradient stays close in every channel (measured worst: see
// the bound below), and Floyd–Steinberg keeps the image-wide mean colour.
TEST(GifQuantizer, MedianCutErrorIsSmall) {
  const Image source = makeGradient(128, 128, 0);
  Result<IndexedFrames> q = quantizeFrames(std::span<const Image>(&source, 1), false);
  ASSERT_TRUE(q.ok());
  const Image out = q->toImage(0);
  int worst = 0;
  for (std::size_t i = 0; i < source.pixels().size(); ++i) {
    worst = std::max(worst, std::abs(int{source.pixels()[i]} - int{out.pixels()[i]}));
  }
  EXPECT_LE(worst, 24);

  // Error diffusion preserves the mean colour: dithered, each channel's image-wide mean stays
  // within one level of the source's.
  Result<IndexedFrames> dithered = quantizeFrames(std::span<const Image>(&source, 1), true);
  ASSERT_TRUE(dithered.ok());
  const Image ditheredImage = dithered->toImage(0);
  for (int c = 0; c < 3; ++c) {
    std::int64_t sourceSum = 0;
    std::int64_t ditheredSum = 0;
    for (std::size_t i = static_cast<std::size_t>(c); i < source.pixels().size(); i += 4) {
      sourceSum += source.pixels()[i];
      ditheredSum += ditheredImage.pixels()[i];
    }
    const double pixels = 128.0 * 128.0;
    EXPECT_NEAR(static_cast<double>(ditheredSum) / pixels, static_cast<double>(sourceSum) / pixels,
                1.0)
        << "channel " << c;
  }
}

// ---------------------------------------------------------------------------------------------------
// GIF files

struct GifReader {
  explicit GifReader(const std::string& path) {
    int error = 0;
    gif = DGifOpenFileName(path.c_str(), &error);
    EXPECT_NE(gif, nullptr) << GifErrorString(error);
    if (gif != nullptr) {
      EXPECT_EQ(DGifSlurp(gif), GIF_OK) << GifErrorString(gif->Error);
    }
  }
  ~GifReader() {
    int error = 0;
    if (gif != nullptr) DGifCloseFile(gif, &error);
  }
  GifReader(const GifReader&) = delete;
  GifReader& operator=(const GifReader&) = delete;

  Rgba8 pixel(int frame, int x, int y) const {
    const SavedImage& image = gif->SavedImages[frame];
    const int index = image.RasterBits[y * gif->SWidth + x];
    GraphicsControlBlock gcb{};
    DGifSavedExtensionToGCB(gif, frame, &gcb);
    if (index == gcb.TransparentColor) return Rgba8{0, 0, 0, 0};
    const GifColorType c = gif->SColorMap->Colors[index];
    return Rgba8{c.Red, c.Green, c.Blue, 255};
  }

  GifFileType* gif = nullptr;
};

TEST_F(ImageFiles, GifReadsBackWithGiflib) {
  std::vector<Image> frames;
  for (std::uint32_t f = 0; f < 3; ++f) {
    Image image = makeImage(20, 10);
    image.fill(Rgba8{static_cast<std::uint8_t>(f * 80), 40, 200, 255});
    image.setPixel(1, 1, Rgba8{255, 255, 255, 255});
    image.setPixel(2, 2, Rgba8{0, 0, 0, 10});  // transparent
    frames.push_back(image);
  }
  ASSERT_TRUE(writeGif(frames, path("a.gif"),
                       GifOptions{.dither = false, .loopCount = 0, .delayCentiseconds = 7})
                  .ok());
  EXPECT_EQ(listing(), (std::set<std::string>{"a.gif"}));
  struct stat info {};
  ASSERT_EQ(::stat(path("a.gif").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0044, 0044u) << "not giflib's EGifOpenFileName 0600";

  const GifReader reader(path("a.gif"));
  ASSERT_NE(reader.gif, nullptr);
  EXPECT_EQ(reader.gif->SWidth, 20);
  EXPECT_EQ(reader.gif->SHeight, 10);
  ASSERT_EQ(reader.gif->ImageCount, 3);
  for (int f = 0; f < 3; ++f) {
    GraphicsControlBlock gcb{};
    ASSERT_EQ(DGifSavedExtensionToGCB(reader.gif, f, &gcb), GIF_OK);
    EXPECT_EQ(gcb.DelayTime, 7);
    EXPECT_GE(gcb.TransparentColor, 0);
    for (int y = 0; y < 10; ++y) {
      for (int x = 0; x < 20; ++x) {
        const Rgba8 source = frames[static_cast<std::size_t>(f)].pixel(
            static_cast<std::uint32_t>(x), static_cast<std::uint32_t>(y));
        const Rgba8 expected = source.a < 128 ? Rgba8{0, 0, 0, 0} : source;
        EXPECT_EQ(reader.pixel(f, x, y), expected) << f << " " << x << "," << y;
      }
    }
  }
  // The Netscape loop extension is present (loop forever).
  bool foundLoop = false;
  for (int i = 0; i < reader.gif->SavedImages[0].ExtensionBlockCount; ++i) {
    const ExtensionBlock& block = reader.gif->SavedImages[0].ExtensionBlocks[i];
    if (block.Function == APPLICATION_EXT_FUNC_CODE && block.ByteCount == 11 &&
        std::string(reinterpret_cast<const char*>(block.Bytes), 11) == "NETSCAPE2.0") {
      foundLoop = true;
    }
  }
  EXPECT_TRUE(foundLoop);
}

TEST_F(ImageFiles, GifWithManyColoursStaysWithinErrorAndIsDeterministic) {
  const std::vector<Image> frames = {makeGradient(48, 32, 0), makeGradient(48, 32, 90)};
  for (const bool dither : {false, true}) {
    const GifOptions options{.dither = dither, .loopCount = 3, .delayCentiseconds = 5};
    ASSERT_TRUE(writeGif(frames, path("a.gif"), options).ok());
    ASSERT_TRUE(writeGif(frames, path("b.gif"), options).ok());
    EXPECT_EQ(readFile(path("a.gif")), readFile(path("b.gif"))) << "dither " << dither;
    const GifReader reader(path("a.gif"));
    ASSERT_NE(reader.gif, nullptr);
    ASSERT_EQ(reader.gif->ImageCount, 2);
    std::int64_t sumError = 0;
    for (int f = 0; f < 2; ++f) {
      for (int y = 0; y < 32; ++y) {
        for (int x = 0; x < 48; ++x) {
          const Rgba8 s = frames[static_cast<std::size_t>(f)].pixel(static_cast<std::uint32_t>(x),
                                                                    static_cast<std::uint32_t>(y));
          const Rgba8 g = reader.pixel(f, x, y);
          const int error = std::abs(s.r - g.r) + std::abs(s.g - g.g) + std::abs(s.b - g.b);
          if (!dither) {
            EXPECT_LE(error, 3 * 24);
          }
          sumError += error;
        }
      }
    }
    EXPECT_LE(sumError / (2 * 48 * 32), 24) << "mean error, dither " << dither;
  }
}

TEST_F(ImageFiles, GifErrors) {
  const std::vector<Image> frames = {makeNoise(4, 4, 1)};
  const Status missing = writeGif(frames, path("no/dir/a.gif"));
  EXPECT_EQ(missing.code(), StatusCode::IoError);
  EXPECT_EQ(missing.message(),
            "cannot write " + path("no/dir/a.gif") + ": No such file or directory");
  EXPECT_EQ(writeGif({}, path("a.gif")).code(), StatusCode::InvalidArgument);
  EXPECT_EQ(writeGif(frames, path("a.gif"), GifOptions{.loopCount = 70000}).code(),
            StatusCode::InvalidArgument);
  EXPECT_TRUE(listing().empty());
}

// ---------------------------------------------------------------------------------------------------
// Image sequences

TEST(ImageSequence, PatternValidationAndFormatting) {
  EXPECT_EQ(*formatSequencePath("out/frame_%04d.png", 7), "out/frame_0007.png");
  EXPECT_EQ(*formatSequencePath("f%d.png", 12345), "f12345.png");
  EXPECT_EQ(*formatSequencePath("f%3d.png", 5), "f  5.png");
  EXPECT_EQ(*formatSequencePath("f%03d.png", -5), "f-05.png");
  for (const char* bad : {"frame.png", "%s.png", "%d_%d.png", "100%%_%d.png", "%d%", "%0d.png",
                          "%123d.png", "%ld.png", "%x.png", "%n", "%-4d.png", "%.3d.png"}) {
    EXPECT_EQ(formatSequencePath(bad, 1).status().code(), StatusCode::InvalidArgument) << bad;
  }
}

TEST_F(ImageFiles, SequenceWritesNumberedPngs) {
  const std::vector<Image> frames = {makeNoise(3, 2, 1), makeNoise(5, 4, 2), makeNoise(1, 1, 3)};
  ASSERT_TRUE(writeImageSequence(frames, path("frame_%04d.png"), 8).ok());
  EXPECT_EQ(listing(),
            (std::set<std::string>{"frame_0008.png", "frame_0009.png", "frame_0010.png"}));
  for (std::size_t i = 0; i < frames.size(); ++i) {
    Result<Image> loaded =
        loadPng(*formatSequencePath(path("frame_%04d.png"), 8 + static_cast<int>(i)));
    ASSERT_TRUE(loaded.ok());
    EXPECT_EQ(*loaded, frames[i]);
  }
  EXPECT_EQ(writeImageSequence(frames, path("%s_%d.png")).code(), StatusCode::InvalidArgument);
  const Status missing = writeImageSequence(frames, path("none/f%d.png"));
  EXPECT_EQ(missing.code(), StatusCode::IoError);
  EXPECT_NE(missing.message().find(path("none/f0.png")), std::string::npos);
}

// Writes a few encoder outputs as a seed corpus when MOTE_PNG_SEED_DIR is set (fuzzing aid).
TEST(Png, WritesFuzzSeedsWhenAsked) {
  const char* dir = std::getenv("MOTE_PNG_SEED_DIR");
  if (dir == nullptr) GTEST_SKIP() << "set MOTE_PNG_SEED_DIR to write the png_load_fuzz seeds";
  const std::vector<Image> frames = {makeNoise(4, 4, 1), makeNoise(4, 4, 2)};
  ASSERT_TRUE(writePng(makeNoise(1, 1, 1), std::string(dir) + "/noise1.png").ok());
  ASSERT_TRUE(writePng(makeNoise(13, 7, 9), std::string(dir) + "/noise13x7.png").ok());
  ASSERT_TRUE(writePng(makeGradient(32, 16, 0), std::string(dir) + "/gradient.png").ok());
  ASSERT_TRUE(writeApng(frames, std::string(dir) + "/anim.png").ok());
  ASSERT_TRUE(writeFileAtomically(std::string(dir) + "/gray.png", kGray2x2).ok());
  ASSERT_TRUE(writeFileAtomically(std::string(dir) + "/palette.png", kPalette2x1).ok());
}

}  // namespace
}  // namespace mote::render
