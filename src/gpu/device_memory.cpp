// SPDX-License-Identifier: MIT
#include "device_memory.h"

#include "context_impl.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <utility>

namespace mote::gpu {
namespace {

// A buffer and its memory, unowned: the pieces Buffer and the staging copies share.
struct RawBuffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
};

void destroy(VkDevice device, RawBuffer& raw) noexcept {
  if (raw.buffer != VK_NULL_HANDLE) vkDestroyBuffer(device, raw.buffer, nullptr);
  if (raw.memory != VK_NULL_HANDLE) vkFreeMemory(device, raw.memory, nullptr);
  raw = {};
}

Status allocate(Context::Impl& c, std::uint64_t bytes, VkBufferUsageFlags usage,
                VkMemoryPropertyFlags required, VkMemoryPropertyFlags preferred,
                std::string_view name, RawBuffer& out) {
  VkBufferCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  info.size = bytes;
  info.usage = usage;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  const auto named = [&](Status s) {
    if (s.ok()) return s;
    return Status(s.code(), fmt::format("{} ({} bytes): {}", name, bytes, s.message()));
  };
  MOTE_RETURN_IF_ERROR(
      named(vkStatus(vkCreateBuffer(c.device, &info, nullptr, &out.buffer), "vkCreateBuffer")));
  VkMemoryRequirements needs{};
  vkGetBufferMemoryRequirements(c.device, out.buffer, &needs);
  const int type = c.memoryType(needs.memoryTypeBits, required, preferred);
  if (type < 0) {
    destroy(c.device, out);
    return {StatusCode::Unavailable,
            fmt::format("{}: the device has no suitable memory type", name)};
  }
  VkMemoryAllocateInfo alloc{};
  alloc.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  alloc.allocationSize = needs.size;
  alloc.memoryTypeIndex = static_cast<std::uint32_t>(type);
  Status s =
      named(vkStatus(vkAllocateMemory(c.device, &alloc, nullptr, &out.memory), "vkAllocateMemory"));
  if (s.ok())
    s = named(
        vkStatus(vkBindBufferMemory(c.device, out.buffer, out.memory, 0), "vkBindBufferMemory"));
  if (!s.ok()) destroy(c.device, out);
  return s;
}

// A host-visible buffer for one copy, filled from (or read into) host memory by the caller.
class Staging {
 public:
  Staging(Context::Impl& c) : c_(c) {}
  ~Staging() {
    if (mapped_ != nullptr) vkUnmapMemory(c_.device, raw_.memory);
    destroy(c_.device, raw_);
  }
  Staging(const Staging&) = delete;
  Staging& operator=(const Staging&) = delete;

  Status create(std::uint64_t bytes) {
    MOTE_RETURN_IF_ERROR(
        allocate(c_, bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                 VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                 VK_MEMORY_PROPERTY_HOST_CACHED_BIT, "a staging buffer", raw_));
    return vkStatus(vkMapMemory(c_.device, raw_.memory, 0, bytes, 0, &mapped_), "vkMapMemory");
  }
  VkBuffer buffer() const { return raw_.buffer; }
  void* data() const { return mapped_; }

 private:
  Context::Impl& c_;
  RawBuffer raw_;
  void* mapped_ = nullptr;
};

}  // namespace

Result<Buffer> Buffer::create(Context& context, std::uint64_t bytes, std::string_view name,
                              VkBufferUsageFlags extraUsage) {
  Context::Impl& c = context.impl();
  if (!c.lost.ok()) return c.lost;
  bytes = (bytes + 15u) & ~std::uint64_t{15};
  if (bytes == 0) bytes = 16;
  if (bytes > c.info.maxStorageBufferRange)
    return Status(StatusCode::OutOfMemory,
                  fmt::format("{} needs {} bytes, past the {} bytes one storage buffer may span on "
                              "'{}'",
                              name, bytes, c.info.maxStorageBufferRange, c.info.name));
  RawBuffer raw;
  MOTE_RETURN_IF_ERROR(allocate(c, bytes,
                                VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                    VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                    VK_BUFFER_USAGE_TRANSFER_DST_BIT | extraUsage,
                                VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0, name, raw));
  return adopt(context, raw.buffer, raw.memory, bytes, nullptr);
}

Buffer Buffer::adopt(Context& context, VkBuffer buffer, VkDeviceMemory memory, std::uint64_t bytes,
                     void* mapped) {
  Buffer b;
  b.context_ = &context;
  b.device_ = context.impl().device;
  b.buffer_ = buffer;
  b.memory_ = memory;
  b.bytes_ = bytes;
  b.mapped_ = static_cast<std::uint32_t*>(mapped);
  return b;
}

Result<Buffer> Buffer::createMapped(Context& context, std::uint64_t bytes, std::string_view name) {
  Context::Impl& c = context.impl();
  if (!c.lost.ok()) return c.lost;
  bytes = std::max<std::uint64_t>((bytes + 15u) & ~std::uint64_t{15}, 16);
  RawBuffer raw;
  MOTE_RETURN_IF_ERROR(
      allocate(c, bytes,
               VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                   VK_BUFFER_USAGE_TRANSFER_DST_BIT,
               VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
               VK_MEMORY_PROPERTY_HOST_CACHED_BIT, name, raw));
  void* mapped = nullptr;
  if (const Status s = vkStatus(vkMapMemory(c.device, raw.memory, 0, bytes, 0, &mapped),
                                fmt::format("vkMapMemory of {}", name));
      !s.ok()) {
    destroy(c.device, raw);
    return s;
  }
  return adopt(context, raw.buffer, raw.memory, bytes, mapped);
}

Buffer::Buffer(Buffer&& other) noexcept
    : context_(std::exchange(other.context_, nullptr)),
      device_(std::exchange(other.device_, VK_NULL_HANDLE)),
      buffer_(std::exchange(other.buffer_, VK_NULL_HANDLE)),
      memory_(std::exchange(other.memory_, VK_NULL_HANDLE)),
      bytes_(std::exchange(other.bytes_, 0)),
      mapped_(std::exchange(other.mapped_, nullptr)) {}

Buffer& Buffer::operator=(Buffer&& other) noexcept {
  if (this != &other) {
    release();
    context_ = std::exchange(other.context_, nullptr);
    device_ = std::exchange(other.device_, VK_NULL_HANDLE);
    buffer_ = std::exchange(other.buffer_, VK_NULL_HANDLE);
    memory_ = std::exchange(other.memory_, VK_NULL_HANDLE);
    bytes_ = std::exchange(other.bytes_, 0);
    mapped_ = std::exchange(other.mapped_, nullptr);
  }
  return *this;
}

Buffer::~Buffer() {
  release();
}

void Buffer::release() noexcept {
  if (context_ == nullptr) return;
  if (mapped_ != nullptr) vkUnmapMemory(device_, memory_);
  mapped_ = nullptr;
  RawBuffer raw{buffer_, memory_};
  destroy(device_, raw);
  buffer_ = VK_NULL_HANDLE;
  memory_ = VK_NULL_HANDLE;
  context_ = nullptr;
}

Status Buffer::copy(const void* from, void* to, std::uint64_t bytes,
                    std::uint64_t offsetWords) const {
  const bool toDevice = from != nullptr;
  if (bytes == 0) return {};
  MOTE_ASSERT((offsetWords * 4u + bytes) <= bytes_, "Buffer: a copy past the end");
  Context::Impl& c = context_->impl();
  Staging staging(c);
  MOTE_RETURN_IF_ERROR(staging.create(bytes));
  if (toDevice) std::memcpy(staging.data(), from, bytes);
  MOTE_RETURN_IF_ERROR(c.submit([&](VkCommandBuffer cmd) {
    const VkBufferCopy region{toDevice ? 0 : offsetWords * 4u, toDevice ? offsetWords * 4u : 0,
                              bytes};
    vkCmdCopyBuffer(cmd, toDevice ? staging.buffer() : buffer_,
                    toDevice ? buffer_ : staging.buffer(), 1, &region);
  }));
  if (!toDevice) std::memcpy(to, staging.data(), bytes);
  return {};
}

Status Buffer::upload(std::span<const std::uint32_t> words, std::uint64_t offsetWords) {
  return copy(words.data(), nullptr, words.size_bytes(), offsetWords);
}

Status Buffer::download(std::span<std::uint32_t> out, std::uint64_t offsetWords) const {
  return copy(nullptr, out.data(), out.size_bytes(), offsetWords);
}

}  // namespace mote::gpu
