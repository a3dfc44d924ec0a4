// SPDX-License-Identifier: MIT
// Whole-file reads with a size limit and atomic file writes (temporary file + rename).
#pragma once

#include <mote/core/status.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace mote {

/// The bytes of the file at `path`. NotFound when it does not exist, IoError "cannot read <path>:
/// <strerror>" when it cannot be read, InvalidArgument when it is larger than `maxBytes` (checked
/// while reading, so a huge or endless file is never held whole). Allocates: the returned bytes.
[[nodiscard]] Result<std::vector<std::uint8_t>> readFile(const std::string& path,
                                                         std::size_t maxBytes);

/// A file written through a temporary file in the same directory (`<path>.tmp.<pid>.<n>`, created
/// with O_EXCL and mode 0644 before the umask) and renamed over `path` by commit(), so readers
/// never see a truncated output and a failed write leaves any earlier file at `path` untouched. The
/// destructor removes the temporary file unless commit() succeeded. The committed file gets mode
/// 0644 & ~umask, not the mode of a file it replaces. No fsync: atomic against failures and
/// concurrent readers, not durable against power loss.
/// Errors are IoError "cannot write <path>: <strerror>". Move-only. Thread safety: one object per
/// thread. Allocates: the path strings.
class AtomicFile {
 public:
  /// Creates and opens the temporary file next to `path`.
  static Result<AtomicFile> create(const std::string& path);

  AtomicFile(AtomicFile&& other) noexcept;
  AtomicFile& operator=(AtomicFile&& other) noexcept;
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile();

  const std::string& path() const noexcept { return path_; }
  const std::string& temporaryPath() const noexcept { return tempPath_; }

  /// Appends `bytes` (retrying short writes and EINTR). Requires an owned descriptor.
  Status write(std::span<const std::uint8_t> bytes);
  /// Hands the open descriptor to a library that will close it itself (giflib's
  /// EGifOpenFileHandle). After this, commit() only renames; the temporary file is still removed
  /// by the destructor if commit() is never reached.
  int releaseDescriptor() noexcept;
  /// Closes the descriptor (if still owned), then renames the temporary file over path().
  /// On failure the temporary file is removed.
  Status commit();

 private:
  AtomicFile(std::string path, std::string tempPath, int fd) noexcept;
  void discard() noexcept;

  std::string path_;
  std::string tempPath_;
  int fd_ = -1;
  bool pending_ = false;  // the temporary file exists and has not been renamed
};

/// Writes `bytes` to `path` through an AtomicFile. IoError naming `path` on failure.
Status writeFileAtomically(const std::string& path, std::span<const std::uint8_t> bytes);

}  // namespace mote
