// SPDX-License-Identifier: MIT
// Image, animation-frame checks and numbered image sequences.
#include <mote/render/image.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <limits>
#include <string>
#include <unistd.h>
#include <utility>

namespace mote::render {

Status Image::validateSize(std::uint64_t width, std::uint64_t height) {
  if (width < 1 || width > kMaxImageSidePixels || height < 1 || height > kMaxImageSidePixels) {
    return invalidArgument("image size " + std::to_string(width) + "x" + std::to_string(height) +
                           ": each side must be in [1, " + std::to_string(kMaxImageSidePixels) +
                           "]");
  }
  if (width * height * 4 > kMaxImageBytes) {
    return invalidArgument("image size " + std::to_string(width) + "x" + std::to_string(height) +
                           ": more than " + std::to_string(kMaxImageBytes) + " bytes of RGBA8");
  }
  return {};
}

Result<Image> Image::create(std::uint32_t width, std::uint32_t height) {
  MOTE_RETURN_IF_ERROR(validateSize(width, height));
  Image image;
  image.width_ = width;
  image.height_ = height;
  image.pixels_.assign(std::size_t{width} * height * 4, 0);
  return image;
}

std::span<std::uint8_t> Image::row(std::uint32_t y) {
  MOTE_ASSERT(y < height_, "row index out of range");
  return std::span<std::uint8_t>(pixels_).subspan(y * stride(), stride());
}

std::span<const std::uint8_t> Image::row(std::uint32_t y) const {
  MOTE_ASSERT(y < height_, "row index out of range");
  return std::span<const std::uint8_t>(pixels_).subspan(y * stride(), stride());
}

Rgba8 Image::pixel(std::uint32_t x, std::uint32_t y) const {
  MOTE_ASSERT(x < width_ && y < height_, "pixel coordinates out of range");
  const std::uint8_t* p = pixels_.data() + y * stride() + std::size_t{x} * 4;
  return Rgba8{p[0], p[1], p[2], p[3]};
}

void Image::setPixel(std::uint32_t x, std::uint32_t y, Rgba8 color) {
  MOTE_ASSERT(x < width_ && y < height_, "pixel coordinates out of range");
  std::uint8_t* p = pixels_.data() + y * stride() + std::size_t{x} * 4;
  p[0] = color.r;
  p[1] = color.g;
  p[2] = color.b;
  p[3] = color.a;
}

void Image::fill(Rgba8 color) noexcept {
  for (std::size_t i = 0; i + 3 < pixels_.size(); i += 4) {
    pixels_[i] = color.r;
    pixels_[i + 1] = color.g;
    pixels_[i + 2] = color.b;
    pixels_[i + 3] = color.a;
  }
}

// ---------------------------------------------------------------------------------------------------

Status validateAnimationFrames(std::span<const Image> frames, std::string_view what) {
  if (frames.empty()) return invalidArgument(std::string(what) + ": no frames");
  for (std::size_t i = 0; i < frames.size(); ++i) {
    if (frames[i].empty()) {
      return invalidArgument(std::string(what) + ": frame " + std::to_string(i) + " is empty");
    }
    if (frames[i].width() != frames[0].width() || frames[i].height() != frames[0].height()) {
      return invalidArgument(std::string(what) + ": frame " + std::to_string(i) + " is " +
                             std::to_string(frames[i].width()) + "x" +
                             std::to_string(frames[i].height()) + ", frame 0 is " +
                             std::to_string(frames[0].width()) + "x" +
                             std::to_string(frames[0].height()));
    }
  }
  return {};
}

namespace {

struct SequencePattern {
  std::string_view before;
  std::string_view after;
  int width = 0;
  bool zeroPad = false;
};

bool isDigit(char c) {
  return c >= '0' && c <= '9';
}

Result<SequencePattern> parseSequencePattern(std::string_view pattern) {
  const auto bad = [&](const char* why) {
    return invalidArgument("image sequence pattern \"" + std::string(pattern) + "\": " + why);
  };
  const std::size_t percent = pattern.find('%');
  if (percent == std::string_view::npos) return bad("needs one %d, %Nd or %0Nd conversion");
  SequencePattern parsed;
  parsed.before = pattern.substr(0, percent);
  std::size_t i = percent + 1;
  if (i < pattern.size() && pattern[i] == '0') {
    parsed.zeroPad = true;
    ++i;
  }
  const std::size_t digitsStart = i;
  while (i < pattern.size() && isDigit(pattern[i]) && i - digitsStart < 3) {
    parsed.width = parsed.width * 10 + (pattern[i] - '0');
    ++i;
  }
  const std::size_t digits = i - digitsStart;
  if (digits > 2) return bad("field width above 99");
  if (parsed.zeroPad && digits == 0) return bad("%0 needs a field width (%04d)");
  if (i >= pattern.size() || pattern[i] != 'd') {
    return bad("the conversion must be %d, %Nd or %0Nd");
  }
  parsed.after = pattern.substr(i + 1);
  if (parsed.after.find('%') != std::string_view::npos) {
    return bad("only one '%' is allowed (no %% either)");
  }
  return parsed;
}

std::string formatIndex(const SequencePattern& p, int index) {
  std::string digits = std::to_string(index < 0 ? -static_cast<std::int64_t>(index) : index);
  const std::size_t sign = index < 0 ? 1 : 0;
  std::string out(p.before);
  const std::size_t used = digits.size() + sign;
  const auto width = static_cast<std::size_t>(p.width);
  const std::size_t pad = width > used ? width - used : 0;
  if (!p.zeroPad) out.append(pad, ' ');
  if (sign != 0) out.push_back('-');
  if (p.zeroPad) out.append(pad, '0');
  out += digits;
  out += p.after;
  return out;
}

}  // namespace

Result<std::string> formatSequencePath(std::string_view pattern, int index) {
  Result<SequencePattern> parsed = parseSequencePattern(pattern);
  if (!parsed.ok()) return parsed.status();
  return formatIndex(*parsed, index);
}

Status writeImageSequence(std::span<const Image> frames, std::string_view pattern, int firstIndex) {
  Result<SequencePattern> parsed = parseSequencePattern(pattern);
  if (!parsed.ok()) return parsed.status();
  if (frames.empty()) return invalidArgument("image sequence: no frames");
  if (static_cast<std::int64_t>(firstIndex) + static_cast<std::int64_t>(frames.size()) - 1 >
      std::numeric_limits<int>::max()) {
    return invalidArgument("image sequence: frame numbers overflow int");
  }
  for (std::size_t i = 0; i < frames.size(); ++i) {
    const std::string path = formatIndex(*parsed, firstIndex + static_cast<int>(i));
    MOTE_RETURN_IF_ERROR(writePng(frames[i], path));
  }
  return {};
}

}  // namespace mote::render
