// SPDX-License-Identifier: MIT
// Image, AtomicFile (temporary file + rename) and numbered image sequences.
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

namespace {

Status writeError(const std::string& path, int error) {
  return ioError("cannot write " + path + ": " + std::strerror(error));
}

}  // namespace

AtomicFile::AtomicFile(std::string path, std::string tempPath, int fd) noexcept
    : path_(std::move(path)), tempPath_(std::move(tempPath)), fd_(fd), pending_(true) {}

AtomicFile::AtomicFile(AtomicFile&& other) noexcept
    : path_(std::move(other.path_)),
      tempPath_(std::move(other.tempPath_)),
      fd_(std::exchange(other.fd_, -1)),
      pending_(std::exchange(other.pending_, false)) {}

AtomicFile& AtomicFile::operator=(AtomicFile&& other) noexcept {
  if (this != &other) {
    discard();
    path_ = std::move(other.path_);
    tempPath_ = std::move(other.tempPath_);
    fd_ = std::exchange(other.fd_, -1);
    pending_ = std::exchange(other.pending_, false);
  }
  return *this;
}

AtomicFile::~AtomicFile() {
  discard();
}

void AtomicFile::discard() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (pending_) ::unlink(tempPath_.c_str());
  pending_ = false;
}

Result<AtomicFile> AtomicFile::create(const std::string& path) {
  if (path.empty()) return invalidArgument("cannot write an empty path");
  // A process-wide counter plus the pid keeps names unique across threads and processes; O_EXCL
  // refuses to reuse a name that exists anyway (a crashed run's leftover), so retry a few times.
  static std::atomic<std::uint64_t> counter{0};
  const std::string prefix = path + ".tmp." + std::to_string(::getpid()) + ".";
  for (int attempt = 0; attempt < 16; ++attempt) {
    std::string tempPath = prefix + std::to_string(counter.fetch_add(1));
    const int fd = ::open(tempPath.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0) return AtomicFile(path, std::move(tempPath), fd);
    if (errno != EEXIST) return writeError(path, errno);
  }
  return writeError(path, EEXIST);
}

Status AtomicFile::write(std::span<const std::uint8_t> bytes) {
  MOTE_ASSERT(fd_ >= 0, "AtomicFile::write without an owned descriptor");
  if (fd_ < 0) return writeError(path_, EBADF);
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd_, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return writeError(path_, errno);
    }
    bytes = bytes.subspan(static_cast<std::size_t>(n));
  }
  return {};
}

int AtomicFile::releaseDescriptor() noexcept {
  return std::exchange(fd_, -1);
}

Status AtomicFile::commit() {
  MOTE_ASSERT(pending_, "AtomicFile::commit twice or after a move");
  if (!pending_) return writeError(path_, EBADF);
  if (fd_ >= 0) {
    const int fd = std::exchange(fd_, -1);
    if (::close(fd) != 0) {
      const int error = errno;
      discard();
      return writeError(path_, error);
    }
  }
  if (::rename(tempPath_.c_str(), path_.c_str()) != 0) {
    const int error = errno;
    discard();
    return writeError(path_, error);
  }
  pending_ = false;
  return {};
}

Status writeFileAtomically(const std::string& path, std::span<const std::uint8_t> bytes) {
  Result<AtomicFile> file = AtomicFile::create(path);
  if (!file.ok()) return file.status();
  MOTE_RETURN_IF_ERROR(file->write(bytes));
  return file->commit();
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
