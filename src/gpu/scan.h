// SPDX-License-Identifier: MIT
// The GPU prefix scan (shaders/scan*.comp): inclusive sums of u32 counts and the indirect dispatch
// that covers their total, in three passes none of which waits on another workgroup — the frame's
// spawn counts to its emit dispatch (meep's "scan → emit dispatch"), sized by the caller's fixed
// capacity, never by a readback.
#pragma once

#include "device_memory.h"
#include "kernel.h"

#include <mote/gpu/context.h>

#include <cstdint>

namespace mote::gpu {

class PrefixScan {
 public:
  /// Room for `capacity` counts; the dispatch it writes is for a pass of `groupSize` invocations
  /// per workgroup. The pipelines come from the context's cache; the block totals are its own.
  static Result<PrefixScan> create(Context& context, std::uint32_t capacity,
                                   std::uint32_t groupSize);

  /// Points this scan at its buffers (once; they must outlive it): the counts it reads, the sums
  /// it writes and the four result words.
  Status bind(const Buffer& counts, const Buffer& sums, const Buffer& result);
  /// Records the scan of counts[0, count) (count <= capacity): sums[i] = counts[0] + … +
  /// counts[i]; result words: [0] the total, [1..3] a VkDispatchIndirectCommand of ceil(total /
  /// groupSize) workgroups (at most the device's limit; the pass must stride past it), 1, 1.
  void record(VkCommandBuffer cmd, std::uint32_t count) const;

  static constexpr std::uint32_t kBlock = 256;  // scan.glsl's kScanBlock

 private:
  Kernel* blocks_ = nullptr;
  Kernel* partials_ = nullptr;
  Kernel* add_ = nullptr;
  Bindings blocksSet_, partialsSet_, addSet_;
  Buffer totals_;
  std::uint32_t capacity_ = 0;
  std::uint32_t groupSize_ = 0;
  std::uint32_t maxGroups_ = 0;
};

}  // namespace mote::gpu
