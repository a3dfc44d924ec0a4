// SPDX-License-Identifier: MIT
// Buffers on the device: one VkBuffer with its own memory (a frame holds a handful of large ones,
// so no suballocator is needed yet), and the staging copies that move words to and from it.
#pragma once

#include "vk.h"

#include <mote/gpu/context.h>

#include <cstdint>
#include <span>
#include <utility>

namespace mote::gpu {

/// `made`'s value moved into `out`, or its error: for members made by fallible factories.
template <class T>
Status take(Result<T> made, T& out) {
  if (!made.ok()) return std::move(made).status();
  out = std::move(made).takeValue();
  return Status();
}

/// A storage buffer. Move-only; destroys its buffer and memory. Not thread-safe.
class Buffer {
 public:
  Buffer() = default;
  Buffer(Buffer&& other) noexcept;
  Buffer& operator=(Buffer&& other) noexcept;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer();

  /// A device-local storage buffer of `bytes` (rounded up to 16) that transfers may read and write.
  /// `name` says what it holds in an OutOfMemory error ("the particle pool: 1048576 particles").
  static Result<Buffer> create(Context& context, std::uint64_t bytes, std::string_view name,
                               VkBufferUsageFlags extraUsage = 0);

  /// A buffer in host-visible, coherent memory, mapped for its whole life: the frame's staging
  /// (the host writes, a recorded copy moves it to the device) and its outbox (a recorded copy
  /// lands there; the host reads it once the submission has completed).
  static Result<Buffer> createMapped(Context& context, std::uint64_t bytes, std::string_view name);

  VkBuffer handle() const noexcept { return buffer_; }
  /// The mapping of a createMapped buffer (nullptr otherwise).
  std::uint32_t* mapped() const noexcept { return mapped_; }
  std::uint64_t bytes() const noexcept { return bytes_; }

  /// Copies `words` to the start of the buffer (`offsetWords` on), through a staging buffer.
  Status upload(std::span<const std::uint32_t> words, std::uint64_t offsetWords = 0);
  /// Copies `out.size()` words from `offsetWords` on into `out`.
  Status download(std::span<std::uint32_t> out, std::uint64_t offsetWords = 0) const;

 private:
  void release() noexcept;
  static Buffer adopt(Context& context, VkBuffer buffer, VkDeviceMemory memory, std::uint64_t bytes,
                      void* mapped);
  // Through a staging buffer: `from` (host) → the buffer, or, with `from` null, the buffer → `to`.
  Status copy(const void* from, void* to, std::uint64_t bytes, std::uint64_t offsetWords) const;
  Context* context_ = nullptr;
  VkDevice device_ = VK_NULL_HANDLE;  // for release: valid while the Context's device is
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  std::uint64_t bytes_ = 0;
  std::uint32_t* mapped_ = nullptr;
};

}  // namespace mote::gpu
