// SPDX-License-Identifier: MIT
// Render packets from a ParticleWorld (render_packet.h).
#include <mote/core/builtin_sprites.h>
#include <mote/render/render_packet.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <string>
#include <vector>

namespace mote::render {
namespace {

// Points the channel at `words` consecutive particle words from `first`; absent (first < 0) keeps
// the default value and uniform.
template <std::size_t N>
void bind(ParticleChannel<N>& channel, const EmitterView& v, std::int32_t first,
          std::array<float, N> defaults) {
  channel.value = defaults;
  channel.uniform = true;
  if (first < 0 || static_cast<std::size_t>(first) + N > v.streams.size()) return;
  for (std::size_t c = 0; c < N; ++c)
    channel.streams[c] = v.streams[static_cast<std::size_t>(first) + c];
  channel.uniform = false;
}

// Whether any of s[begin, end) differs from `first` bit for bit, in blocks of 256 without an
// early exit inside, so that the compare vectorizes; stops after the first block that differs.
bool anyDiffers(const float* s, std::uint32_t begin, std::uint32_t end, std::uint32_t first) {
  constexpr std::uint32_t kBlock = 256;
  for (std::uint32_t at = begin; at < end; at += kBlock) {
    const std::uint32_t stop = std::min(end, at + kBlock);
    std::uint32_t differ = 0;
    // Four vectors an iteration: the loop's own three instructions were half of it.
#pragma GCC unroll 16
    for (std::uint32_t i = at; i < stop; ++i) {
      std::uint32_t bits = 0;
      std::memcpy(&bits, s + i, sizeof bits);
      differ |= bits ^ first;
    }
    if (differ != 0) return true;
  }
  return false;
}

// Uniformity: every particle's components equal particle 0's, bit for bit (so −0 ≠ +0 and a NaN
// equals only itself). Stops at the first difference. From kParallelScan particles on a JobSystem
// of several threads, each stream is scanned in parts claimed by the threads, which skip their
// part once any part has found a difference.
constexpr std::uint32_t kParallelScan = 1u << 16;
template <std::size_t N>
void scanUniform(ParticleChannel<N>& channel, std::uint32_t count, JobSystem* jobs) {
  if (!channel.present() || count == 0) return;
  const bool parallel = jobs != nullptr && jobs->concurrency() > 1 && count >= kParallelScan;
  for (std::size_t c = 0; c < N; ++c) {
    const float* s = channel.streams[c];
    std::uint32_t first = 0;
    std::memcpy(&first, s, sizeof first);
    if (!parallel) {
      if (anyDiffers(s, 0, count, first)) return;
      continue;
    }
    std::atomic<bool> differs{false};
    parallelFor(*jobs, count, kParallelScan / 4, [&](std::size_t begin, std::size_t end) {
      if (differs.load(std::memory_order_relaxed)) return;
      if (anyDiffers(s, static_cast<std::uint32_t>(begin), static_cast<std::uint32_t>(end), first))
        differs.store(true, std::memory_order_relaxed);
    });
    if (differs.load(std::memory_order_relaxed)) return;
  }
  for (std::size_t c = 0; c < N; ++c)
    channel.value[c] = channel.streams[c][0];
  channel.uniform = true;
}

}  // namespace

namespace {

// makeRenderPacket, taking the uniformity of the scanned channels from `same` when it is a packet
// of the same state version (so the same particles: no scan).
RenderPacket makePacket(EmitterHandle handle, const EmitterView& v, JobSystem* jobs,
                        const RenderPacket* same) noexcept {
  RenderPacket p;
  p.emitter = handle;
  p.description = v.emitter;
  p.material = v.material;
  p.count = v.live;
  p.ids = v.ids;
  p.sources = v.sources;
  p.transform = v.transform;
  p.time = v.time;
  p.emitterWords = v.emitterWords;
  p.version = v.version;
  if (v.material != nullptr) {
    p.blend = v.material->blend;
    // A built-in sprite is one picture: on a sheet, every cell is the whole sprite (a stand-in
    // for a sheet texture that is missing, as the NWN importer draws one), never a sprite cut
    // into cells.
    if (!v.material->texture.empty() && !v.material->texture.starts_with(kBuiltinSpriteUriPrefix)) {
      p.sheet.columns = std::max(1u, v.material->columns);
      p.sheet.rows = std::max(1u, v.material->rows);
      p.sheet.frameBegin = v.material->frameBegin;
      p.sheet.frameBlend = v.material->frameBlend;
    }
  }
  if (v.emitter == nullptr) return p;
  const bytecode::CompiledEmitter& e = *v.emitter;
  p.mode = e.render.mode;
  p.sortOrder = e.render.sortOrder;
  p.sort = e.render.sort;
  if (p.sort == bytecode::ParticleSort::Auto) {
    p.sort = p.blend == bytecode::BlendMode::Additive ? bytecode::ParticleSort::None
                                                      : bytecode::ParticleSort::BackToFront;
  }
  p.local = bytecode::movesWithEmitter(e.space);
  const bytecode::ParticleChannels& ch = e.channels;
  bind<3>(p.position, v, ch.position, {0.0f, 0.0f, 0.0f});
  bind<3>(p.velocity, v, ch.velocity, {0.0f, 0.0f, 0.0f});
  bind<2>(p.size, v, ch.size, {0.0f, 0.0f});
  bind<4>(p.color, v, ch.color, {1.0f, 1.0f, 1.0f, 1.0f});
  bind<4>(p.orientation, v, ch.orientation, {0.0f, 0.0f, 0.0f, 1.0f});
  bind<1>(p.rotation, v, ch.rotation, {0.0f});
  bind<1>(p.frame, v, ch.frame, {0.0f});
  if (same != nullptr && same->version == p.version && p.version != 0 && same->count == p.count) {
    const auto take = [](auto& channel, const auto& from) {
      channel.uniform = from.uniform;
      channel.value = from.value;
    };
    take(p.color, same->color);
    take(p.frame, same->frame);
    take(p.rotation, same->rotation);
    return p;
  }
  scanUniform(p.color, p.count, jobs);
  scanUniform(p.frame, p.count, jobs);
  scanUniform(p.rotation, p.count, jobs);
  return p;
}

}  // namespace

RenderPacket makeRenderPacket(EmitterHandle handle, const EmitterView& v,
                              JobSystem* jobs) noexcept {
  return makePacket(handle, v, jobs, nullptr);
}

struct RenderPacketBuilder::Storage {
  std::vector<EmitterHandle> handles;
  std::vector<RenderPacket> packets;
  // The last build's packet of each listed emitter (version 0: none): a packet of an unchanged
  // state version takes its uniformity instead of scanning the particles again.
  std::vector<RenderPacket> listed;
  std::uint32_t used = 0;
  std::uint32_t dropped = 0;
};

RenderPacketBuilder::RenderPacketBuilder() noexcept = default;
RenderPacketBuilder::RenderPacketBuilder(std::unique_ptr<Storage> storage) noexcept
    : storage_(std::move(storage)) {}
RenderPacketBuilder::RenderPacketBuilder(RenderPacketBuilder&&) noexcept = default;
RenderPacketBuilder& RenderPacketBuilder::operator=(RenderPacketBuilder&&) noexcept = default;
RenderPacketBuilder::~RenderPacketBuilder() = default;

Result<RenderPacketBuilder> RenderPacketBuilder::create(std::uint32_t maxEmitters) {
  if (maxEmitters == 0 || maxEmitters > (1u << 20)) {
    return invalidArgument("RenderPacketBuilder: maxEmitters must be in [1, 2^20] (got " +
                           std::to_string(maxEmitters) + ")");
  }
  auto storage = std::make_unique<Storage>();
  storage->handles.resize(maxEmitters);
  storage->packets.resize(maxEmitters);
  storage->listed.resize(maxEmitters);
  return RenderPacketBuilder(std::move(storage));
}

void RenderPacketBuilder::build(const ParticleWorld& world, JobSystem* jobs) noexcept {
  if (!storage_) return;
  Storage& s = *storage_;
  s.used = 0;
  s.dropped = 0;
  const std::uint32_t total = world.emitters(s.handles);
  const auto room = static_cast<std::uint32_t>(s.handles.size());
  const std::uint32_t listed = std::min(total, room);
  for (std::uint32_t i = 0; i < listed; ++i) {
    Result<EmitterView> v = world.view(s.handles[i]);
    if (!v.ok() || v.value().live == 0) {
      s.listed[i].version = 0;
      continue;
    }
    const RenderPacket packet = makePacket(s.handles[i], v.value(), jobs, &s.listed[i]);
    s.listed[i] = packet;
    // Insertion by sort order, after equal orders: stable, allocation-free, O(n) when the orders
    // are already in order (the usual case: most effects leave sort_order at 0).
    std::uint32_t at = s.used;
    while (at > 0 && s.packets[at - 1].sortOrder > packet.sortOrder) {
      s.packets[at] = s.packets[at - 1];
      --at;
    }
    s.packets[at] = packet;
    ++s.used;
  }
  s.dropped = total - listed;
}

std::span<const RenderPacket> RenderPacketBuilder::packets() const noexcept {
  if (!storage_) return {};
  return {storage_->packets.data(), storage_->used};
}

std::uint32_t RenderPacketBuilder::dropped() const noexcept {
  return storage_ ? storage_->dropped : 0;
}

}  // namespace mote::render
