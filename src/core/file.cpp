// SPDX-License-Identifier: MIT
#include <mote/core/assert.h>
#include <mote/core/file.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <string>
#include <unistd.h>
#include <utility>

namespace mote {

Result<std::vector<std::uint8_t>> readFile(const std::string& path, std::size_t maxBytes) {
  std::FILE* file = std::fopen(path.c_str(), "rbe");
  if (file == nullptr) {
    const int error = errno;
    const std::string message = "cannot read " + path + ": " + std::strerror(error);
    return error == ENOENT ? notFound(message) : ioError(message);
  }
  std::vector<std::uint8_t> bytes;
  std::array<std::uint8_t, 65536> chunk{};
  int error = 0;
  bool tooLarge = false;
  while (true) {
    const std::size_t n = std::fread(chunk.data(), 1, chunk.size(), file);
    if (bytes.size() + n > maxBytes) {
      tooLarge = true;
      break;
    }
    bytes.insert(bytes.end(), chunk.begin(), chunk.begin() + static_cast<std::ptrdiff_t>(n));
    if (n < chunk.size()) {
      if (std::ferror(file) != 0) error = errno != 0 ? errno : EIO;
      break;
    }
  }
  std::fclose(file);
  if (tooLarge) {
    return invalidArgument(path + ": larger than " + std::to_string(maxBytes) + " bytes");
  }
  if (error != 0) return ioError("cannot read " + path + ": " + std::strerror(error));
  return bytes;
}

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

}  // namespace mote
