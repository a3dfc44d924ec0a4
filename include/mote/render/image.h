// SPDX-License-Identifier: MIT
// Image: an owned RGBA8 picture, its readers (PNG, TGA, DDS) and writers (PNG, APNG, animated GIF,
// numbered PNG sequences), all writing through a temporary file and a rename.
#pragma once

#include <mote/core/file.h>
#include <mote/core/status.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mote::render {

/// The largest width or height an Image may have, in pixels.
inline constexpr std::uint32_t kMaxImageSidePixels = 16384;
/// The largest pixel buffer an Image may own: width · height · 4 ≤ 2^28 bytes (256 MiB).
inline constexpr std::uint64_t kMaxImageBytes = std::uint64_t{1} << 28;

/// One pixel: 8-bit sRGB-encoded colour with straight (not premultiplied) alpha.
struct Rgba8 {
  std::uint8_t r = 0;
  std::uint8_t g = 0;
  std::uint8_t b = 0;
  std::uint8_t a = 0;
  friend bool operator==(const Rgba8&, const Rgba8&) = default;
};

/// An owned RGBA8 image: rows top to bottom, 4 bytes per pixel (R, G, B, A), stride = width · 4,
/// sRGB-encoded colour, straight alpha. A default-constructed Image is empty (0 × 0); every Image
/// made by create() or a decoder has both sides in [1, kMaxImageSidePixels] and at most
/// kMaxImageBytes. Thread safety: a value type; distinct objects on distinct threads, const access
/// shared freely.
class Image {
 public:
  Image() = default;

  /// A width × height image, every pixel transparent black (0, 0, 0, 0). InvalidArgument when a
  /// side is outside [1, kMaxImageSidePixels] or the buffer would exceed kMaxImageBytes (checked
  /// before allocating). Allocates: the pixel buffer.
  static Result<Image> create(std::uint32_t width, std::uint32_t height);
  /// The check create() makes, without allocating: Ok or InvalidArgument naming the sizes.
  static Status validateSize(std::uint64_t width, std::uint64_t height);

  std::uint32_t width() const noexcept { return width_; }
  std::uint32_t height() const noexcept { return height_; }
  /// Bytes per row: width · 4 (rows are tightly packed).
  std::size_t stride() const noexcept { return std::size_t{width_} * 4; }
  bool empty() const noexcept { return pixels_.empty(); }

  /// All pixel bytes, height · stride of them.
  std::span<std::uint8_t> pixels() noexcept { return pixels_; }
  std::span<const std::uint8_t> pixels() const noexcept { return pixels_; }
  /// Row y (y < height): stride bytes.
  std::span<std::uint8_t> row(std::uint32_t y);
  std::span<const std::uint8_t> row(std::uint32_t y) const;

  /// The pixel at (x, y), x < width, y < height (MOTE_ASSERT). O(1), allocates never.
  Rgba8 pixel(std::uint32_t x, std::uint32_t y) const;
  void setPixel(std::uint32_t x, std::uint32_t y, Rgba8 color);
  /// Sets every pixel to `color`.
  void fill(Rgba8 color) noexcept;

  friend bool operator==(const Image&, const Image&) = default;

 private:
  std::uint32_t width_ = 0;
  std::uint32_t height_ = 0;
  std::vector<std::uint8_t> pixels_;
};

// ---------------------------------------------------------------------------------------------------
// PNG (libpng's simplified png_image_* API)

/// The PNG encoding of `image`: 8-bit RGBA (colour type 6), not interlaced, with an sRGB chunk.
/// InvalidArgument for an empty image; Internal if libpng fails. Allocates: the encoded bytes.
Result<std::vector<std::uint8_t>> encodePng(const Image& image);
/// encodePng, then writeFileAtomically.
Status writePng(const Image& image, const std::string& path);

/// Decodes any PNG (every colour type and bit depth, palette, tRNS, interlaced, 16-bit) to RGBA8
/// (16-bit and gamma-tagged inputs are converted to 8-bit sRGB by libpng). Safe on hostile input:
/// a clear error, never a crash, leak or hang. `nameForErrors` prefixes every message.
///   - ParseError: not a PNG, truncated (every proper prefix of a PNG fails), a chunk that runs
///   past
///     the end, bad CRC, anything libpng rejects (its message is included), or image data too short
///     for the declared size (no real deflate stream expands more than 1032:1, so a tiny file
///     declaring a huge image is refused before any pixel buffer is allocated).
///   - Unsupported: a well-formed PNG larger than Image's limits, refused before allocating.
/// Complexity: O(file + pixels). Allocates: the image, plus libpng's row buffers.
Result<Image> decodePng(std::span<const std::uint8_t> bytes, std::string_view nameForErrors);
/// Reads the whole file (IoError "cannot read <path>: <strerror>", NotFound when it does not
/// exist), then decodePng(bytes, path).
Result<Image> loadPng(const std::string& path);

// ---------------------------------------------------------------------------------------------------
// TGA (the texture format of NWN content)

/// Decodes a Truevision TGA: colour-mapped (8-bit indices into a 15/16/24/32-bit map), true-colour
/// (15/16/24/32-bit BGR(A)) and grayscale (8-bit, or 16-bit with alpha) images, raw or run-length
/// encoded, with the origin at the bottom or top and rows in either direction. 16-bit alpha is the
/// attribute bit when the descriptor declares an alpha bit; other formats without alpha are
/// opaque. Safe on hostile input: never a crash, leak or hang. `nameForErrors` prefixes messages.
///   - ParseError: shorter than the header, an unknown image type or depth, a truncated colour map
///     or pixel data, a colour index outside the map, or run-length data too short for the
///     declared size (refused before the pixel buffer is allocated).
///   - Unsupported: an image larger than Image's limits, refused before allocating.
/// Complexity: O(file + pixels). Allocates: the image and the colour map.
Result<Image> decodeTga(std::span<const std::uint8_t> bytes, std::string_view nameForErrors);
/// Reads the whole file (IoError / NotFound as readFile), then decodeTga(bytes, path).
Result<Image> loadTga(const std::string& path);

// ---------------------------------------------------------------------------------------------------
// DDS (the compressed texture format of NWN 1.69 content)

/// Decodes the top mip level of a DDS texture (further mip levels, cube faces and volume slices
/// are ignored). Two containers, told apart by the first four bytes:
///   - Standard DDS: "DDS ", the 124-byte DDS_HEADER, then the data. DDPF_FOURCC 'DXT1', 'DXT3' or
///     'DXT5'; or DDPF_RGB at 16, 24 or 32 bits a pixel with any R, G, B masks (and the A mask
///     when DDPF_ALPHAPIXELS is set; otherwise opaque), each channel scaled to 8 bits rounded to
///     nearest.
///   - BioWare DDS (NWN 1.69): no magic; a 20-byte header of little-endian u32 width, height,
///     channels (3: DXT1, 4: DXT5), the top level's byte count, and an f32 mean alpha (ignored);
///     then the blocks.
/// DXT decoding (sides that are not multiples of 4 use the covered part of their edge blocks):
/// 5:6:5 endpoints expand by bit replication; interpolated values round to nearest, halves up —
/// colours (2·c0 + c1 + 1) / 3 and (c0 + c1 + 1) / 2 on the expanded 8-bit endpoints, DXT5 alpha
/// ((7 − i)·a0 + i·a1 + 3) / 7 or ((5 − i)·a0 + i·a1 + 2) / 5. A DXT1 block with c0 ≤ c1 has
/// three colours and transparent black (0, 0, 0, 0); DXT3/DXT5 colour blocks always have four.
/// DXT3 alpha a (4 bits) is a · 17. The bytes are taken as sRGB-encoded colour with straight
/// alpha, as for TGA (DXT2/DXT4, the premultiplied variants, are refused). Safe on hostile input:
/// never a crash, leak or hang. `nameForErrors` prefixes every message.
///   - ParseError: no "DDS " magic and not a BioWare header (channels other than 3 or 4, or
///     shorter than 20 bytes); a standard header that is truncated or whose header or
///     pixel-format size field is wrong; a side of 0; a BioWare header whose byte count matches
///     neither the block size nor width · height / 2 (DXT1) or width · height (DXT5) ("size
///     mismatch"); data shorter than the top level ("truncated"). The data size is checked before
///     the pixel buffer is allocated, so a header cannot make the reader allocate more than 8 bytes
///     of image per byte of input.
///   - Unsupported: any other fourCC (DX10, ATI1/2, DXT2/4, D3DFORMAT numbers), a non-RGB
///     uncompressed format (luminance, alpha-only, …) or another RGB depth, and an image larger
///     than Image's limits (a side over kMaxImageSidePixels = 16384), refused before allocating.
/// Complexity: O(file header + pixels). Allocates: the image.
Result<Image> decodeDds(std::span<const std::uint8_t> bytes, std::string_view nameForErrors);
/// Reads the whole file (IoError / NotFound as readFile; InvalidArgument beyond kMaxImageBytes +
/// 1 MiB, as loadTga), then decodeDds(bytes, path).
Result<Image> loadDds(const std::string& path);

// ---------------------------------------------------------------------------------------------------
// Animation: APNG, animated GIF, numbered PNG sequences. Frames share one size (InvalidArgument
// otherwise, and for an empty frame list) and one frame delay.

/// Ok when `frames` is non-empty and every frame is non-empty and as large as frame 0; otherwise
/// InvalidArgument starting with `what` and naming the offending frame. O(frames).
Status validateAnimationFrames(std::span<const Image> frames, std::string_view what);

/// APNG settings. The frame delay is delayNumerator / delayDenominator seconds (the fcTL fields; a
/// denominator of 0 means 1/100 s, as in the APNG specification). loopCount 0 loops forever.
struct ApngOptions {
  std::uint16_t delayNumerator = 4;
  std::uint16_t delayDenominator = 100;
  std::uint32_t loopCount = 0;
};

/// An APNG: signature, IHDR (8-bit RGBA), acTL, sRGB, then per frame fcTL (full frame, dispose
/// NONE, blend SOURCE) and its image data — IDAT for frame 0 (so a reader without APNG support,
/// Debian's libpng among them, shows frame 0), one fdAT per later frame — and IEND. Sequence
/// numbers count fcTL and fdAT chunks from 0. Each frame is deflated by libpng
/// (png_image_write_to_memory, whose IDAT payload is copied), so there is no direct zlib
/// dependency. Allocates: the output.
Result<std::vector<std::uint8_t>> encodeApng(std::span<const Image> frames,
                                             const ApngOptions& options = {});
/// encodeApng, then writeFileAtomically.
Status writeApng(std::span<const Image> frames, const std::string& path,
                 const ApngOptions& options = {});

/// Animated-GIF settings. loopCount: 0 loops forever, n in [1, 65535] is written as the Netscape
/// loop count, negative omits the Netscape extension (plays once). delayCentiseconds is each
/// frame's delay in 1/100 s.
struct GifOptions {
  bool dither = false;  ///< Floyd–Steinberg error diffusion (deterministic, left to right)
  int loopCount = 0;
  std::uint16_t delayCentiseconds = 4;
};

/// Frames reduced to one shared palette (the GIF global colour table).
///   - The palette holds at most 256 entries; when some pixel has alpha < 128 one entry is the
///     transparent one (the last, colour (0, 0, 0, 0)) and every such pixel maps to it. All other
///     entries are opaque (alpha 255): GIF has no partial alpha.
///   - When the opaque colours of all frames (pixels with alpha ≥ 128, alpha ignored) number at
///   most
///     the entries left, each gets its own entry and quantisation is exact. Otherwise median cut
///     over the weighted colour histogram of all frames picks the entries (each the rounded
///     weighted mean of its box) and pixels map to the nearest entry (squared RGB distance, lowest
///     index on ties).
///   - Deterministic: the same frames and options give the same palette and indices, on every
///     platform (integer arithmetic only).
struct IndexedFrames {
  std::uint32_t width = 0;
  std::uint32_t height = 0;
  std::vector<Rgba8> palette;  ///< the used entries, 1 to 256
  int transparentIndex = -1;   ///< index of the transparent entry, or -1 when none is needed
  std::vector<std::vector<std::uint8_t>> indices;  ///< per frame, width · height palette indices

  /// Frame `frame` expanded back to RGBA8 through the palette.
  Image toImage(std::size_t frame) const;
};

/// Quantises `frames` to one palette as documented on IndexedFrames; with `dither`, Floyd–Steinberg
/// error diffusion (7/16, 3/16, 5/16, 1/16 in integer arithmetic; transparent pixels neither give
/// nor take error). With dithering off, quantising the output again gives the same pixels.
/// Complexity: O(pixels · log(distinct colours)) plus O(palette) per distinct colour mapped.
/// Allocates: the histogram, a 2^24-entry lookup cache (18 MiB) when the palette is not exact, and
/// the result.
Result<IndexedFrames> quantizeFrames(std::span<const Image> frames, bool dither);

/// Writes an animated GIF89a through giflib (EGifOpenFileHandle on an AtomicFile descriptor, so the
/// file gets mode 0644 & ~umask): one global colour table from quantizeFrames, the Netscape loop
/// extension, and per frame a graphic control extension (delay, transparent index, disposal
/// "restore to background") and a full-size image. GIF colour error: exact when the frames hold few
/// enough colours (see IndexedFrames); otherwise each channel of a pixel is within the extent of
/// its median-cut box. Alpha becomes 0 or 255 (threshold 128).
Status writeGif(std::span<const Image> frames, const std::string& path,
                const GifOptions& options = {});

/// Writes frame i to the path made from `pattern` by replacing its single conversion with
/// firstIndex + i in decimal. The pattern must hold exactly one conversion of the form %d, %Nd or
/// %0Nd (N in 1..99; 0 pads with zeros, otherwise with spaces) and no other '%' (not even "%%");
/// anything else is InvalidArgument. The pattern is never given to printf. Each PNG is written
/// atomically; on a failure the frames already written stay and the error names the failing path.
/// Frames may differ in size here.
Status writeImageSequence(std::span<const Image> frames, std::string_view pattern,
                          int firstIndex = 0);
/// The path writeImageSequence would use for `index`, or InvalidArgument for a bad pattern.
Result<std::string> formatSequencePath(std::string_view pattern, int index);

}  // namespace mote::render
