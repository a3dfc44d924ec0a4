// SPDX-License-Identifier: MIT
// The simulation order (shaders/frame_buckets.comp; docs/gpu.md, "Two orderings"): the alive list
// bucketed by program, each bucket padded to whole workgroups, so that a wave of the simulate pass
// runs one program and reads its section's parameters once. Built on the GPU every frame from the
// frame's own counts (never a readback), and its CPU reference for the tests.
#pragma once

#include "device_memory.h"
#include "kernel.h"
#include "scan.h"

#include <mote/gpu/context.h>

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

namespace mote::gpu {

/// The bucketing passes and their buffers: histogram → pad → scan → scatter → tails.
class ProgramBuckets {
 public:
  /// Room for `maxBuckets` buckets (the last one is for records that do not run) over an alive
  /// list of at most `capacity` entries of workgroups of `group` invocations.
  static Result<ProgramBuckets> create(Context& context, std::uint32_t maxBuckets,
                                       std::uint32_t capacity, std::uint32_t group);

  /// The frame's buffers it reads (they must outlive it): the step input, the pool, the alive
  /// lists and the counters (kCountSimulated: the length of the half it buckets).
  Status bind(const Buffer& frameInput, const Buffer& records, const Buffer& alive,
              const Buffer& counters);

  struct Pass {
    std::uint32_t rowCount = 0;
    std::uint32_t capacity = 0;  ///< an alive half's length
    std::uint32_t stride = 0;    ///< words per record
    std::uint32_t parity = 0;    ///< the alive half to bucket
    std::uint32_t buckets = 0;   ///< ≤ maxBuckets, the last one included
  };
  /// Records the passes; `aliveArgs`/`aliveArgsOffset`: the VkDispatchIndirectCommand over the
  /// alive half (the rows pass's). Ends with a barrier before compute and indirect reads.
  void record(VkCommandBuffer cmd, const Pass& pass, const Buffer& aliveArgs,
              std::uint64_t aliveArgsOffset) const;

  /// The order: `result()` word 0 its length (padded), words 1..3 the simulate pass's dispatch.
  const Buffer& order() const noexcept { return order_; }
  const Buffer& result() const noexcept { return result_; }
  /// Per bucket: its entries, and the end of its padded range (inclusive sums).
  const Buffer& counts() const noexcept { return counts_; }
  const Buffer& ends() const noexcept { return sums_; }

 private:
  Kernel* kernel_ = nullptr;
  PrefixScan scan_;
  Buffer counts_, padded_, sums_, cursor_, order_, result_;
  Bindings set_;
  std::uint32_t maxBuckets_ = 0;
  std::uint32_t group_ = 0;
};

/// The CPU reference: what the passes make of `alive` when entry slot s goes to bucket
/// `bucketOf(s)` (< buckets). Within a bucket, entries in the order they come (the GPU's order
/// there is its atomics'; compare buckets as sets).
struct BucketedOrder {
  std::vector<std::uint32_t> counts;  ///< entries per bucket
  std::vector<std::uint32_t> starts;  ///< each bucket's first position (a multiple of group)
  std::vector<std::uint32_t> order;   ///< slots and kPadSlot, padded length
};
BucketedOrder bucketReference(std::span<const std::uint32_t> alive,
                              const std::function<std::uint32_t(std::uint32_t)>& bucketOf,
                              std::uint32_t buckets, std::uint32_t group);

}  // namespace mote::gpu
