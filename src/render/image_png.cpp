// SPDX-License-Identifier: MIT
// PNG through libpng's simplified png_image_* API (no setjmp anywhere), and the APNG chunk writer.
#include <mote/render/image.h>

#include <png.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>

namespace mote::render {
namespace {

constexpr std::array<std::uint8_t, 8> kPngSignature = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};

// No deflate stream expands more than 1032:1 (a 258-byte match coded in two bits); the slack covers
// the zlib header and a stored tail.
constexpr std::uint64_t kMaxInflateRatio = 1032;
constexpr std::uint64_t kInflateSlackBytes = 1024;

std::uint32_t readBe32(const std::uint8_t* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) |
         std::uint32_t{p[3]};
}

void appendBe32(std::vector<std::uint8_t>& out, std::uint32_t v) {
  out.push_back(static_cast<std::uint8_t>(v >> 24));
  out.push_back(static_cast<std::uint8_t>(v >> 16));
  out.push_back(static_cast<std::uint8_t>(v >> 8));
  out.push_back(static_cast<std::uint8_t>(v));
}

void appendBe16(std::vector<std::uint8_t>& out, std::uint16_t v) {
  out.push_back(static_cast<std::uint8_t>(v >> 8));
  out.push_back(static_cast<std::uint8_t>(v));
}

// CRC-32 as PNG defines it (ISO 3309 / ITU-T V.42, reflected polynomial 0xEDB88320).
constexpr std::array<std::uint32_t, 256> makeCrcTable() {
  std::array<std::uint32_t, 256> table{};
  for (std::uint32_t n = 0; n < 256; ++n) {
    std::uint32_t c = n;
    for (int k = 0; k < 8; ++k)
      c = (c & 1u) != 0 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    table[n] = c;
  }
  return table;
}
constexpr std::array<std::uint32_t, 256> kCrcTable = makeCrcTable();

std::uint32_t crc32Update(std::uint32_t crc, std::span<const std::uint8_t> bytes) {
  for (const std::uint8_t b : bytes)
    crc = kCrcTable[(crc ^ b) & 0xFFu] ^ (crc >> 8);
  return crc;
}

// Appends one chunk: length, type, data, CRC over type and data.
void appendChunk(std::vector<std::uint8_t>& out, const char (&type)[5],
                 std::span<const std::uint8_t> data) {
  appendBe32(out, static_cast<std::uint32_t>(data.size()));
  const std::size_t typeAt = out.size();
  out.insert(out.end(), type, type + 4);
  out.insert(out.end(), data.begin(), data.end());
  const std::uint32_t crc =
      crc32Update(0xFFFFFFFFu, std::span<const std::uint8_t>(out).subspan(typeAt)) ^ 0xFFFFFFFFu;
  appendBe32(out, crc);
}

struct PngLayout {
  std::uint32_t width = 0;
  std::uint32_t height = 0;
  std::uint32_t bitsPerPixel = 0;  // 0 when IHDR's depth / colour type are invalid
  std::uint64_t idatBytes = 0;
};

// A structural walk over the chunks before libpng sees the bytes: signature, IHDR first, every
// chunk inside the buffer, IEND present. It makes every truncation a ParseError (libpng stops
// reading once it has the rows) and sums the IDAT payload for the decompression-bomb check.
Result<PngLayout> scanPng(std::span<const std::uint8_t> bytes, std::string_view name) {
  const auto fail = [&](const std::string& why) {
    return parseError(std::string(name) + ": " + why);
  };
  if (bytes.size() < kPngSignature.size() ||
      std::memcmp(bytes.data(), kPngSignature.data(), kPngSignature.size()) != 0) {
    return fail("not a PNG file (bad signature)");
  }
  PngLayout layout;
  std::size_t at = kPngSignature.size();
  bool first = true;
  while (true) {
    if (bytes.size() - at < 12) {
      return fail("truncated at byte " + std::to_string(at) + " (no IEND chunk)");
    }
    const std::uint32_t length = readBe32(bytes.data() + at);
    const std::uint8_t* type = bytes.data() + at + 4;
    if (length > 0x7FFFFFFFu || bytes.size() - at - 12 < length) {
      return fail("truncated: the chunk at byte " + std::to_string(at) +
                  " runs past the end of the file");
    }
    const std::uint8_t* data = type + 4;
    if (first) {
      if (std::memcmp(type, "IHDR", 4) != 0 || length != 13) return fail("IHDR is not first");
      layout.width = readBe32(data);
      layout.height = readBe32(data + 4);
      const std::uint32_t depth = data[8];
      const std::uint32_t colorType = data[9];
      const std::uint32_t channels = colorType == 0   ? 1
                                     : colorType == 2 ? 3
                                     : colorType == 3 ? 1
                                     : colorType == 4 ? 2
                                     : colorType == 6 ? 4
                                                      : 0;
      if (depth == 1 || depth == 2 || depth == 4 || depth == 8 || depth == 16) {
        layout.bitsPerPixel = channels * depth;
      }
      first = false;
    } else if (std::memcmp(type, "IDAT", 4) == 0) {
      layout.idatBytes += length;
    } else if (std::memcmp(type, "IEND", 4) == 0) {
      return layout;
    }
    at += std::size_t{length} + 12;
  }
}

// The simplified API's image struct, freed on every path (png_image_free is a no-op once
// png_image_finish_read has cleaned up, and on a zeroed struct).
struct PngImage {
  png_image image;
  PngImage() {
    std::memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
  }
  PngImage(const PngImage&) = delete;
  PngImage& operator=(const PngImage&) = delete;
  ~PngImage() { png_image_free(&image); }
};

std::string libpngMessage(const png_image& image) {
  const std::size_t n = strnlen(image.message, sizeof image.message);
  return n == 0 ? std::string("libpng error") : std::string(image.message, n);
}

}  // namespace

Result<std::vector<std::uint8_t>> encodePng(const Image& image) {
  if (image.empty()) return invalidArgument("encodePng: the image is empty");
  PngImage png;
  png.image.width = image.width();
  png.image.height = image.height();
  png.image.format = PNG_FORMAT_RGBA;
  png.image.flags = 0;
  const auto stride = static_cast<png_int_32>(image.stride());
  // Deflate never grows data by more than a few bytes per 16 KiB block and libpng adds 12 bytes per
  // IDAT chunk, so raw + 1/64 + 1 KiB is always enough; the retry below covers any surprise.
  const std::size_t raw = (image.stride() + 1) * image.height();
  std::vector<std::uint8_t> out(raw + raw / 64 + 1024);
  for (int attempt = 0; attempt < 2; ++attempt) {
    png_alloc_size_t size = out.size();
    if (png_image_write_to_memory(&png.image, out.data(), &size, 0, image.pixels().data(), stride,
                                  nullptr) != 0) {
      out.resize(size);
      return out;
    }
    if (size <= out.size()) break;  // a real failure, not a short buffer
    out.resize(size);
    png_image_free(&png.image);
    png.image.warning_or_error = 0;
  }
  return Status(StatusCode::Internal, "encodePng: libpng: " + libpngMessage(png.image));
}

Status writePng(const Image& image, const std::string& path) {
  Result<std::vector<std::uint8_t>> encoded = encodePng(image);
  if (!encoded.ok()) return encoded.status();
  return writeFileAtomically(path, *encoded);
}

Result<Image> decodePng(std::span<const std::uint8_t> bytes, std::string_view nameForErrors) {
  const std::string name(nameForErrors);
  Result<PngLayout> layout = scanPng(bytes, name);
  if (!layout.ok()) return layout.status();

  PngImage png;
  if (png_image_begin_read_from_memory(&png.image, bytes.data(), bytes.size()) == 0) {
    return parseError(name + ": " + libpngMessage(png.image));
  }
  const std::uint64_t width = png.image.width;
  const std::uint64_t height = png.image.height;
  if (!Image::validateSize(width, height).ok()) {
    return unsupported(name + ": image size " + std::to_string(width) + "x" +
                       std::to_string(height) + " is above the limits (each side at most " +
                       std::to_string(kMaxImageSidePixels) + ", at most " +
                       std::to_string(kMaxImageBytes) + " bytes of RGBA8)");
  }
  // Refuse before allocating when the compressed data cannot fill the declared rows.
  const std::uint64_t minRawBytes = width * height * layout->bitsPerPixel / 8;
  if (minRawBytes > layout->idatBytes * kMaxInflateRatio + kInflateSlackBytes) {
    return parseError(name + ": " + std::to_string(layout->idatBytes) +
                      " bytes of image data cannot hold a " + std::to_string(width) + "x" +
                      std::to_string(height) + " image");
  }

  png.image.format = PNG_FORMAT_RGBA;
  Result<Image> created =
      Image::create(static_cast<std::uint32_t>(width), static_cast<std::uint32_t>(height));
  if (!created.ok()) return created.status();
  Image image = std::move(created).takeValue();
  if (png_image_finish_read(&png.image, nullptr, image.pixels().data(),
                            static_cast<png_int_32>(image.stride()), nullptr) == 0) {
    return parseError(name + ": " + libpngMessage(png.image));
  }
  return image;
}

// A PNG file is compressed pixels plus chunks: no valid one is larger than the raw RGBA8 bound.
constexpr std::size_t kMaxPngFileBytes = kMaxImageBytes;

Result<Image> loadPng(const std::string& path) {
  Result<std::vector<std::uint8_t>> bytes = readFile(path, kMaxPngFileBytes);
  if (!bytes.ok()) return bytes.status();
  return decodePng(*bytes, path);
}

// ---------------------------------------------------------------------------------------------------
// APNG

namespace {

// The zlib stream libpng produced for `image`: the concatenated IDAT payloads of encodePng's
// output.
Result<std::vector<std::uint8_t>> deflateFrame(const Image& image) {
  Result<std::vector<std::uint8_t>> png = encodePng(image);
  if (!png.ok()) return png.status();
  const std::vector<std::uint8_t>& bytes = *png;
  std::vector<std::uint8_t> stream;
  std::size_t at = kPngSignature.size();
  while (at + 12 <= bytes.size()) {
    const std::uint32_t length = readBe32(bytes.data() + at);
    if (bytes.size() - at - 12 < length) break;
    const std::uint8_t* type = bytes.data() + at + 4;
    if (at == kPngSignature.size()) {
      // Our IHDR claims 8-bit RGBA, non-interlaced: make sure libpng wrote exactly that.
      if (std::memcmp(type, "IHDR", 4) != 0 || length != 13 || type[4 + 8] != 8 ||
          type[4 + 9] != 6 || type[4 + 12] != 0) {
        break;
      }
    }
    if (std::memcmp(type, "IDAT", 4) == 0) stream.insert(stream.end(), type + 4, type + 4 + length);
    if (std::memcmp(type, "IEND", 4) == 0) return stream;
    at += std::size_t{length} + 12;
  }
  return Status(StatusCode::Internal, "encodeApng: unexpected libpng output layout");
}

}  // namespace

Result<std::vector<std::uint8_t>> encodeApng(std::span<const Image> frames,
                                             const ApngOptions& options) {
  MOTE_RETURN_IF_ERROR(validateAnimationFrames(frames, "encodeApng"));
  if (frames.size() > 0x7FFFFFFFu / 2) return invalidArgument("encodeApng: too many frames");
  const std::uint32_t width = frames[0].width();
  const std::uint32_t height = frames[0].height();

  std::vector<std::uint8_t> out(kPngSignature.begin(), kPngSignature.end());
  std::vector<std::uint8_t> data;
  appendBe32(data, width);
  appendBe32(data, height);
  data.insert(data.end(),
              {8, 6, 0, 0, 0});  // depth 8, RGBA, deflate, adaptive filter, no interlace
  appendChunk(out, "IHDR", data);

  data.clear();
  appendBe32(data, static_cast<std::uint32_t>(frames.size()));
  appendBe32(data, options.loopCount);
  appendChunk(out, "acTL", data);

  const std::uint8_t perceptual = 0;
  appendChunk(out, "sRGB", std::span<const std::uint8_t>(&perceptual, 1));

  std::uint32_t sequence = 0;
  for (std::size_t i = 0; i < frames.size(); ++i) {
    data.clear();
    appendBe32(data, sequence++);
    appendBe32(data, width);
    appendBe32(data, height);
    appendBe32(data, 0);  // x offset
    appendBe32(data, 0);  // y offset
    appendBe16(data, options.delayNumerator);
    appendBe16(data, options.delayDenominator);
    data.push_back(0);  // dispose_op NONE: every frame covers the whole canvas
    data.push_back(0);  // blend_op SOURCE: replace, alpha included
    appendChunk(out, "fcTL", data);

    Result<std::vector<std::uint8_t>> stream = deflateFrame(frames[i]);
    if (!stream.ok()) return stream.status();
    if (stream->size() > 0x7FFFFFFFu - 4) return invalidArgument("encodeApng: frame too large");
    if (i == 0) {
      appendChunk(out, "IDAT", *stream);
    } else {
      data.clear();
      appendBe32(data, sequence++);
      data.insert(data.end(), stream->begin(), stream->end());
      appendChunk(out, "fdAT", data);
    }
  }
  appendChunk(out, "IEND", {});
  return out;
}

Status writeApng(std::span<const Image> frames, const std::string& path,
                 const ApngOptions& options) {
  Result<std::vector<std::uint8_t>> encoded = encodeApng(frames, options);
  if (!encoded.ok()) return encoded.status();
  return writeFileAtomically(path, *encoded);
}

}  // namespace mote::render
