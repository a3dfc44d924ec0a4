// SPDX-License-Identifier: MIT
// Animated GIF: our deterministic palette quantiser (exact palette or median cut, optional
// Floyd–Steinberg) and the giflib writer.
#include <mote/render/image.h>

#include <gif_lib.h>

#include <algorithm>
#include <array>
#include <string>
#include <unistd.h>
#include <utility>

namespace mote::render {
namespace {

constexpr int kAlphaThreshold = 128;  // alpha below this is the transparent entry

std::uint32_t packRgb(std::uint32_t r, std::uint32_t g, std::uint32_t b) {
  return (r << 16) | (g << 8) | b;
}
std::uint32_t channelOf(std::uint32_t rgb, std::size_t channel) {
  return (rgb >> (16 - 8 * channel)) & 0xFFu;
}

struct ColorCount {
  std::uint32_t rgb = 0;
  std::uint64_t count = 0;
};

// The weighted histogram of the opaque colours of all frames, sorted by packed RGB. Each frame is
// counted and sorted on its own and merged, so memory stays at a few times the distinct colours.
// Sorts packed 24-bit colours ascending: two passes of a 12-bit LSD radix sort through `scratch`.
// O(n + 2^12) a pass.
void sortColors(std::vector<std::uint32_t>& colors, std::vector<std::uint32_t>& scratch) {
  constexpr std::uint32_t kBits = 12;
  constexpr std::uint32_t kBins = 1u << kBits;
  scratch.resize(colors.size());
  std::vector<std::uint32_t>* from = &colors;
  std::vector<std::uint32_t>* to = &scratch;
  std::array<std::uint32_t, kBins> start{};
  for (std::uint32_t shift = 0; shift < 24; shift += kBits) {
    start.fill(0);
    for (const std::uint32_t c : *from)
      ++start[(c >> shift) & (kBins - 1)];
    std::uint32_t sum = 0;
    for (std::uint32_t& s : start)
      sum += std::exchange(s, sum);
    for (const std::uint32_t c : *from)
      (*to)[start[(c >> shift) & (kBins - 1)]++] = c;
    std::swap(from, to);
  }
  // Two passes: the sorted colours are back in `colors`.
}

// Counts of the colours of one frame: open addressing on the packed colour, the table kept at
// least twice the colours it holds (so probes stay short; it grows with the distinct colours, not
// the pixels); clear() empties the slots the frame used and keeps the size.
class ColorTally {
 public:
  ColorTally() { resize(std::size_t{1} << 12); }
  /// Adds `n` pixels of `rgb`; a colour new to the frame goes to the end of `distinct`.
  void add(std::uint32_t rgb, std::uint32_t n, std::vector<std::uint32_t>& distinct) {
    std::size_t s = slot(rgb);
    if (keys_[s] == kEmpty) {
      if (2 * (used_.size() + 1) > keys_.size()) {
        grow();
        s = slot(rgb);
      }
      keys_[s] = rgb;
      used_.push_back(s);
      distinct.push_back(rgb);
    }
    counts_[s] += n;
  }
  /// The pixels of `rgb` added since the last clear().
  std::uint32_t count(std::uint32_t rgb) const { return counts_[slot(rgb)]; }
  void clear() {
    for (const std::size_t s : used_) {
      keys_[s] = kEmpty;
      counts_[s] = 0;
    }
    used_.clear();
  }

 private:
  static constexpr std::uint32_t kEmpty = 0xFFFFFFFFu;  // not a 24-bit colour
  // The colour's slot, or the empty slot where it would go (linear probing; nothing is removed
  // but by clear(), so no probe chain is cut).
  std::size_t slot(std::uint32_t rgb) const {
    std::size_t s = (rgb * 2654435761u) & mask_;
    while (keys_[s] != kEmpty && keys_[s] != rgb)
      s = (s + 1) & mask_;
    return s;
  }
  void resize(std::size_t size) {
    keys_.assign(size, kEmpty);
    counts_.assign(size, 0);
    mask_ = size - 1;
  }
  // Twice the slots, the colours and counts put back (the frame's order in `distinct` is kept).
  void grow() {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> held;
    held.reserve(used_.size());
    for (const std::size_t s : used_)
      held.emplace_back(keys_[s], counts_[s]);
    resize(2 * keys_.size());
    used_.clear();
    for (const auto& [rgb, n] : held) {
      const std::size_t s = slot(rgb);
      keys_[s] = rgb;
      counts_[s] = n;
      used_.push_back(s);
    }
  }
  std::vector<std::uint32_t> keys_;
  std::vector<std::uint32_t> counts_;  // a frame holds under 2^32 pixels
  std::vector<std::size_t> used_;
  std::size_t mask_ = 0;
};

std::vector<ColorCount> histogram(std::span<const Image> frames, bool& anyTransparent) {
  std::vector<ColorCount> total;
  std::vector<ColorCount> merged;
  std::vector<std::uint32_t> colors;
  std::vector<std::uint32_t> scratch;
  std::vector<ColorCount> frameCounts;
  ColorTally tally;
  anyTransparent = false;
  for (const Image& frame : frames) {
    colors.clear();
    const std::span<const std::uint8_t> px = frame.pixels();
    // Runs of one colour (a plain background) go to the tally as one count.
    std::uint32_t run = 0;
    std::uint32_t length = 0;
    for (std::size_t i = 0; i + 3 < px.size(); i += 4) {
      if (px[i + 3] < kAlphaThreshold) {
        anyTransparent = true;
        continue;
      }
      const std::uint32_t rgb = packRgb(px[i], px[i + 1], px[i + 2]);
      if (length > 0 && rgb == run) {
        ++length;
        continue;
      }
      if (length > 0) tally.add(run, length, colors);
      run = rgb;
      length = 1;
    }
    if (length > 0) tally.add(run, length, colors);
    sortColors(colors, scratch);
    frameCounts.clear();
    for (const std::uint32_t c : colors)
      frameCounts.push_back({c, tally.count(c)});
    tally.clear();
    merged.clear();
    std::size_t a = 0;
    std::size_t b = 0;
    while (a < total.size() || b < frameCounts.size()) {
      if (b == frameCounts.size() || (a < total.size() && total[a].rgb < frameCounts[b].rgb)) {
        merged.push_back(total[a++]);
      } else if (a == total.size() || frameCounts[b].rgb < total[a].rgb) {
        merged.push_back(frameCounts[b++]);
      } else {
        merged.push_back({total[a].rgb, total[a].count + frameCounts[b].count});
        ++a;
        ++b;
      }
    }
    std::swap(total, merged);
  }
  return total;
}

struct Box {
  std::size_t begin = 0;
  std::size_t end = 0;
  std::uint32_t range = 0;   // of the widest channel
  std::size_t channel = 0;   // the widest (the first of equals)
  std::uint64_t weight = 0;  // pixels
};

// Heckbert's median cut over `colors` (reordered in place): split the box with the widest channel
// range (ties: more pixels, then the earlier box) at the weighted median of that channel, until
// `capacity` boxes or every box holds one colour. Each entry is the rounded weighted mean of its
// box.
std::vector<Rgba8> medianCut(std::vector<ColorCount>& colors, std::size_t capacity) {
  // A box of colours [begin, end) with its widest channel's range and its weight, measured once.
  const auto makeBox = [&](std::size_t begin, std::size_t end) {
    std::array<std::uint32_t, 3> lo{255, 255, 255};
    std::array<std::uint32_t, 3> hi{0, 0, 0};
    Box box{begin, end};
    for (std::size_t i = begin; i < end; ++i) {
      for (std::size_t c = 0; c < 3; ++c) {
        const std::uint32_t v = channelOf(colors[i].rgb, c);
        lo[c] = std::min(lo[c], v);
        hi[c] = std::max(hi[c], v);
      }
      box.weight += colors[i].count;
    }
    for (std::size_t c = 1; c < 3; ++c) {
      if (hi[c] - lo[c] > hi[box.channel] - lo[box.channel]) box.channel = c;
    }
    box.range = hi[box.channel] - lo[box.channel];
    return box;
  };
  std::vector<Box> boxes{makeBox(0, colors.size())};
  while (boxes.size() < capacity) {
    std::size_t best = boxes.size();
    for (std::size_t i = 0; i < boxes.size(); ++i) {
      if (boxes[i].end - boxes[i].begin < 2) continue;
      if (best == boxes.size() || boxes[i].range > boxes[best].range ||
          (boxes[i].range == boxes[best].range && boxes[i].weight > boxes[best].weight))
        best = i;
    }
    if (best == boxes.size()) break;
    const Box box = boxes[best];
    const std::size_t channel = box.channel;
    const std::uint64_t bestWeight = box.weight;
    std::sort(colors.begin() + static_cast<std::ptrdiff_t>(box.begin),
              colors.begin() + static_cast<std::ptrdiff_t>(box.end),
              [channel](const ColorCount& x, const ColorCount& y) {
                const std::uint32_t vx = channelOf(x.rgb, channel);
                const std::uint32_t vy = channelOf(y.rgb, channel);
                return vx != vy ? vx < vy : x.rgb < y.rgb;  // a total order: deterministic
              });
    std::uint64_t below = 0;
    std::size_t split = box.begin + 1;
    for (std::size_t i = box.begin; i + 1 < box.end; ++i) {
      below += colors[i].count;
      split = i + 1;
      if (below * 2 >= bestWeight) break;
    }
    boxes[best] = makeBox(box.begin, split);
    boxes.push_back(makeBox(split, box.end));
  }
  std::vector<Rgba8> palette;
  palette.reserve(boxes.size());
  for (const Box& box : boxes) {
    std::array<std::uint64_t, 3> sum{0, 0, 0};
    std::uint64_t w = 0;
    for (std::size_t i = box.begin; i < box.end; ++i) {
      for (std::size_t c = 0; c < 3; ++c)
        sum[c] += std::uint64_t{channelOf(colors[i].rgb, c)} * colors[i].count;
      w += colors[i].count;
    }
    const auto mean = [&](std::size_t c) {
      return static_cast<std::uint8_t>((sum[c] + w / 2) / w);
    };
    palette.push_back(Rgba8{mean(0), mean(1), mean(2), 255});
  }
  return palette;
}

// Maps an opaque RGB colour to its palette index: a binary search when the palette is exact, the
// nearest entry (lowest index on ties) otherwise, memoised in a 2^24-entry table built on demand.
class ColorMapper {
 public:
  ColorMapper(const std::vector<Rgba8>& palette, std::size_t opaqueCount, bool exact)
      : opaqueCount_(opaqueCount), exact_(exact) {
    if (exact_) {
      for (std::size_t i = 0; i < opaqueCount_; ++i) {
        sorted_.push_back(packRgb(palette[i].r, palette[i].g, palette[i].b));
      }
    }
    // The opaque entries' channels as floats, four entries a vector; padding entries lie far
    // outside the RGB cube, so they are never the nearest.
    const std::size_t vectors = (opaqueCount_ + 3) / 4;
    channels_.assign(vectors * 3, F4{} + 1e6f);
    for (std::size_t i = 0; i < opaqueCount_; ++i) {
      channels_[(i / 4) * 3][i % 4] = palette[i].r;
      channels_[(i / 4) * 3 + 1][i % 4] = palette[i].g;
      channels_[(i / 4) * 3 + 2][i % 4] = palette[i].b;
    }
  }

  std::uint8_t map(std::uint32_t r, std::uint32_t g, std::uint32_t b) {
    const std::uint32_t rgb = packRgb(r, g, b);
    if (exact_) {
      // The exact palette is sorted by packed RGB (it is the sorted histogram).
      const auto it = std::lower_bound(sorted_.begin(), sorted_.end(), rgb);
      if (it != sorted_.end() && *it == rgb) {
        return static_cast<std::uint8_t>(it - sorted_.begin());
      }
    }
    if (cache_.empty()) {
      cache_.assign(std::size_t{1} << 24, 0);
      known_.assign((std::size_t{1} << 24) / 64, 0);
    }
    const std::uint64_t bit = std::uint64_t{1} << (rgb & 63u);
    if ((known_[rgb >> 6] & bit) != 0) return cache_[rgb];
    const std::uint32_t best = nearest(r, g, b);
    known_[rgb >> 6] |= bit;
    cache_[rgb] = static_cast<std::uint8_t>(best);
    return static_cast<std::uint8_t>(best);
  }

 private:
  using F4 = float __attribute__((vector_size(16)));
  using I4 = std::int32_t __attribute__((vector_size(16)));

  // The opaque entry nearest to (r, g, b) by squared distance, the lowest index on ties. The
  // distances are integers below 2^18, exact in float: each lane keeps its first smallest, then
  // the lanes compare by distance and index. O(entries), four entries a step.
  std::uint32_t nearest(std::uint32_t r, std::uint32_t g, std::uint32_t b) const {
    if (opaqueCount_ == 0) return 0;
    const F4 fr = F4{} + static_cast<float>(r);
    const F4 fg = F4{} + static_cast<float>(g);
    const F4 fb = F4{} + static_cast<float>(b);
    F4 bestDistance = F4{} + 1e30f;
    I4 bestIndex{};
    I4 index{0, 1, 2, 3};
    for (std::size_t v = 0; v < channels_.size(); v += 3) {
      const F4 dr = channels_[v] - fr;
      const F4 dg = channels_[v + 1] - fg;
      const F4 db = channels_[v + 2] - fb;
      const F4 d = dr * dr + dg * dg + db * db;
      const I4 closer = d < bestDistance;
      bestDistance = closer ? d : bestDistance;
      bestIndex = closer ? index : bestIndex;
      index += 4;
    }
    std::uint32_t best = static_cast<std::uint32_t>(bestIndex[0]);
    float distance = bestDistance[0];
    for (int k = 1; k < 4; ++k) {
      const auto i = static_cast<std::uint32_t>(bestIndex[k]);
      if (bestDistance[k] < distance || (bestDistance[k] == distance && i < best)) {
        best = i;
        distance = bestDistance[k];
      }
    }
    return best;
  }

  std::size_t opaqueCount_;
  bool exact_;
  std::vector<std::uint32_t> sorted_;
  std::vector<F4> channels_;  // per four entries: r, g, b
  std::vector<std::uint8_t> cache_;
  std::vector<std::uint64_t> known_;
};

std::int32_t clampByte(std::int32_t v) {
  return v < 0 ? 0 : (v > 255 ? 255 : v);
}

void quantizeFrame(const Image& frame, ColorMapper& mapper, const std::vector<Rgba8>& palette,
                   int transparentIndex, bool dither, std::vector<std::uint8_t>& out) {
  const std::uint32_t width = frame.width();
  out.resize(std::size_t{width} * frame.height());
  // Floyd–Steinberg error in 1/16 units, two rows with one guard column on each side.
  std::vector<std::int32_t> current;
  std::vector<std::int32_t> next;
  if (dither) {
    current.assign((std::size_t{width} + 2) * 3, 0);
    next.assign((std::size_t{width} + 2) * 3, 0);
  }
  std::uint32_t lastRgb = 1u << 24;  // no colour
  std::uint8_t lastIndex = 0;
  for (std::uint32_t y = 0; y < frame.height(); ++y) {
    const std::span<const std::uint8_t> row = frame.row(y);
    std::uint8_t* indices = out.data() + std::size_t{y} * width;
    for (std::uint32_t x = 0; x < width; ++x) {
      const std::uint8_t* p = row.data() + std::size_t{x} * 4;
      if (p[3] < kAlphaThreshold) {
        indices[x] = static_cast<std::uint8_t>(transparentIndex);
        continue;
      }
      if (!dither) {
        // Neighbours often share a colour (a plain background): the last answer first.
        const std::uint32_t rgb = packRgb(p[0], p[1], p[2]);
        if (rgb != lastRgb) {
          lastRgb = rgb;
          lastIndex = mapper.map(p[0], p[1], p[2]);
        }
        indices[x] = lastIndex;
        continue;
      }
      std::array<std::int32_t, 3> v{};
      const std::size_t e = (std::size_t{x} + 1) * 3;
      for (std::size_t c = 0; c < 3; ++c) {
        v[c] = clampByte((std::int32_t{p[c]} * 16 + current[e + c] + 8) >> 4);
      }
      const std::uint8_t index =
          mapper.map(static_cast<std::uint32_t>(v[0]), static_cast<std::uint32_t>(v[1]),
                     static_cast<std::uint32_t>(v[2]));
      indices[x] = index;
      const std::array<std::int32_t, 3> chosen{palette[index].r, palette[index].g,
                                               palette[index].b};
      for (std::size_t c = 0; c < 3; ++c) {
        const std::int32_t error = v[c] - chosen[c];
        current[e + 3 + c] += error * 7;
        next[e - 3 + c] += error * 3;
        next[e + c] += error * 5;
        next[e + 3 + c] += error;
      }
    }
    if (dither) {
      std::swap(current, next);
      std::fill(next.begin(), next.end(), 0);
    }
  }
}

}  // namespace

Image IndexedFrames::toImage(std::size_t frame) const {
  MOTE_ASSERT(frame < indices.size(), "frame index out of range");
  Result<Image> made = Image::create(width, height);
  MOTE_ASSERT(made.ok(), "IndexedFrames holds a valid size");
  Image image = std::move(made).takeValue();
  std::span<std::uint8_t> px = image.pixels();
  const std::vector<std::uint8_t>& idx = indices[frame];
  for (std::size_t i = 0; i < idx.size(); ++i) {
    const Rgba8 c = palette[idx[i]];
    px[i * 4] = c.r;
    px[i * 4 + 1] = c.g;
    px[i * 4 + 2] = c.b;
    px[i * 4 + 3] = c.a;
  }
  return image;
}

Result<IndexedFrames> quantizeFrames(std::span<const Image> frames, bool dither) {
  MOTE_RETURN_IF_ERROR(validateAnimationFrames(frames, "quantizeFrames"));
  bool anyTransparent = false;
  std::vector<ColorCount> colors = histogram(frames, anyTransparent);
  const std::size_t capacity = anyTransparent ? 255 : 256;

  IndexedFrames result;
  result.width = frames[0].width();
  result.height = frames[0].height();
  const bool exact = colors.size() <= capacity;
  if (exact) {
    for (const ColorCount& c : colors) {
      result.palette.push_back(Rgba8{static_cast<std::uint8_t>(c.rgb >> 16),
                                     static_cast<std::uint8_t>(c.rgb >> 8),
                                     static_cast<std::uint8_t>(c.rgb), 255});
    }
  } else {
    result.palette = medianCut(colors, capacity);
  }
  std::vector<ColorCount>().swap(colors);
  const std::size_t opaqueCount = result.palette.size();
  if (anyTransparent) {
    result.transparentIndex = static_cast<int>(result.palette.size());
    result.palette.push_back(Rgba8{0, 0, 0, 0});
  }
  ColorMapper mapper(result.palette, opaqueCount, exact);
  result.indices.resize(frames.size());
  for (std::size_t f = 0; f < frames.size(); ++f) {
    quantizeFrame(frames[f], mapper, result.palette, result.transparentIndex, dither,
                  result.indices[f]);
  }
  return result;
}

// ---------------------------------------------------------------------------------------------------

namespace {

Status gifError(const std::string& path, int code) {
  const char* text = GifErrorString(code);
  return ioError("cannot write " + path + ": giflib: " +
                 (text != nullptr ? std::string(text) : "error " + std::to_string(code)));
}

// Owns the GifFileType and closes it (which also closes the descriptor) on every path.
class GifOutput {
 public:
  explicit GifOutput(GifFileType* gif) : gif_(gif) {}
  GifOutput(const GifOutput&) = delete;
  GifOutput& operator=(const GifOutput&) = delete;
  ~GifOutput() {
    if (gif_ != nullptr) {
      int ignored = 0;
      EGifCloseFile(gif_, &ignored);
    }
  }
  GifFileType* get() const { return gif_; }
  int lastError() const { return gif_->Error; }
  /// Closes the file; the giflib error code, or 0.
  int close() {
    int error = 0;
    const int rc = EGifCloseFile(std::exchange(gif_, nullptr), &error);
    return rc == GIF_OK ? 0 : (error != 0 ? error : E_GIF_ERR_CLOSE_FAILED);
  }

 private:
  GifFileType* gif_;
};

}  // namespace

Status writeGif(std::span<const Image> frames, const std::string& path, const GifOptions& options) {
  MOTE_RETURN_IF_ERROR(validateAnimationFrames(frames, "writeGif"));
  if (options.loopCount > 65535) {
    return invalidArgument("writeGif: loopCount " + std::to_string(options.loopCount) +
                           " is above 65535");
  }
  if (frames[0].width() > 65535 || frames[0].height() > 65535) {
    return invalidArgument("writeGif: GIF sides are at most 65535 pixels");
  }
  Result<IndexedFrames> quantized = quantizeFrames(frames, options.dither);
  if (!quantized.ok()) return quantized.status();
  const IndexedFrames& indexed = *quantized;

  Result<AtomicFile> file = AtomicFile::create(path);
  if (!file.ok()) return file.status();
  const int fd = file->releaseDescriptor();
  int openError = 0;
  GifFileType* opened = EGifOpenFileHandle(fd, &openError);
  if (opened == nullptr) {
    ::close(fd);
    return gifError(path, openError);
  }
  GifOutput gif(opened);
  EGifSetGifVersion(gif.get(), true);

  int mapSize = 2;
  while (static_cast<std::size_t>(mapSize) < indexed.palette.size())
    mapSize *= 2;
  std::array<GifColorType, 256> colors{};
  for (std::size_t i = 0; i < indexed.palette.size(); ++i) {
    colors[i] = GifColorType{indexed.palette[i].r, indexed.palette[i].g, indexed.palette[i].b};
  }
  ColorMapObject* map = GifMakeMapObject(mapSize, colors.data());
  if (map == nullptr) return gifError(path, E_GIF_ERR_NOT_ENOUGH_MEM);
  const int width = static_cast<int>(indexed.width);
  const int height = static_cast<int>(indexed.height);
  const int screenRc = EGifPutScreenDesc(gif.get(), width, height, 8, 0, map);
  GifFreeMapObject(map);  // giflib keeps its own copy
  if (screenRc != GIF_OK) return gifError(path, gif.lastError());

  if (options.loopCount >= 0) {
    const std::uint8_t loop[3] = {1, static_cast<std::uint8_t>(options.loopCount & 0xFF),
                                  static_cast<std::uint8_t>((options.loopCount >> 8) & 0xFF)};
    if (EGifPutExtensionLeader(gif.get(), APPLICATION_EXT_FUNC_CODE) != GIF_OK ||
        EGifPutExtensionBlock(gif.get(), 11, "NETSCAPE2.0") != GIF_OK ||
        EGifPutExtensionBlock(gif.get(), 3, loop) != GIF_OK ||
        EGifPutExtensionTrailer(gif.get()) != GIF_OK) {
      return gifError(path, gif.lastError());
    }
  }

  std::vector<GifPixelType> line(indexed.width);
  for (const std::vector<std::uint8_t>& frame : indexed.indices) {
    GraphicsControlBlock gcb{};
    gcb.DisposalMode = DISPOSE_BACKGROUND;  // every frame is full size: clear, don't accumulate
    gcb.UserInputFlag = false;
    gcb.DelayTime = options.delayCentiseconds;
    gcb.TransparentColor =
        indexed.transparentIndex >= 0 ? indexed.transparentIndex : NO_TRANSPARENT_COLOR;
    GifByteType extension[4] = {};
    const std::size_t extensionLength = EGifGCBToExtension(&gcb, extension);
    if (EGifPutExtension(gif.get(), GRAPHICS_EXT_FUNC_CODE, static_cast<int>(extensionLength),
                         extension) != GIF_OK ||
        EGifPutImageDesc(gif.get(), 0, 0, width, height, false, nullptr) != GIF_OK) {
      return gifError(path, gif.lastError());
    }
    for (std::uint32_t y = 0; y < indexed.height; ++y) {
      const std::uint8_t* src = frame.data() + std::size_t{y} * indexed.width;
      std::copy(src, src + indexed.width, line.begin());
      if (EGifPutLine(gif.get(), line.data(), width) != GIF_OK) {
        return gifError(path, gif.lastError());
      }
    }
  }
  if (const int closeError = gif.close(); closeError != 0) return gifError(path, closeError);
  return file->commit();
}

}  // namespace mote::render
