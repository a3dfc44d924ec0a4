// SPDX-License-Identifier: MIT
#include "buckets.h"

#include "context_impl.h"
#include "gpu_world.h"
#include "shaders.h"

#include <fmt/format.h>

namespace mote::gpu {

Result<ProgramBuckets> ProgramBuckets::create(Context& context, std::uint32_t maxBuckets,
                                              std::uint32_t capacity, std::uint32_t group) {
  MOTE_ASSERT(maxBuckets > 0 && group > 0, "ProgramBuckets: no buckets");
  ProgramBuckets b;
  b.maxBuckets_ = maxBuckets;
  b.group_ = group;
  Result<Kernel*> k =
      context.impl().kernel(context, "frame_buckets", frameBucketsShader(), 9, 24, 0);
  if (!k.ok()) return std::move(k).status();
  b.kernel_ = *k;
  MOTE_RETURN_IF_ERROR(take(PrefixScan::create(context, maxBuckets, group), b.scan_));
  const auto make = [&](Buffer& out, std::uint64_t words, const std::string& name,
                        VkBufferUsageFlags extra = 0) {
    return take(Buffer::create(context, words * 4, name, extra), out);
  };
  const std::string of = fmt::format("({} buckets)", maxBuckets);
  MOTE_RETURN_IF_ERROR(make(b.counts_, maxBuckets, "the simulation order's counts " + of));
  MOTE_RETURN_IF_ERROR(make(b.padded_, maxBuckets, "the simulation order's padded counts " + of));
  MOTE_RETURN_IF_ERROR(make(b.sums_, maxBuckets, "the simulation order's bucket ends " + of));
  MOTE_RETURN_IF_ERROR(make(b.cursor_, maxBuckets, "the simulation order's cursors " + of));
  MOTE_RETURN_IF_ERROR(
      make(b.result_, 4, "the simulate dispatch", VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT));
  const std::uint64_t length = std::uint64_t{capacity} + std::uint64_t{maxBuckets} * (group - 1);
  MOTE_RETURN_IF_ERROR(make(b.order_, length,
                            fmt::format("the simulation order ({} slots and {} buckets' padding)",
                                        capacity, maxBuckets)));
  MOTE_RETURN_IF_ERROR(b.scan_.bind(b.padded_, b.sums_, b.result_));
  return b;
}

Status ProgramBuckets::bind(const Buffer& frameInput, const Buffer& records, const Buffer& alive,
                            const Buffer& counters) {
  return take(kernel_->bindings({&frameInput, &records, &alive, &counters, &counts_, &padded_,
                                 &sums_, &cursor_, &order_}),
              set_);
}

void ProgramBuckets::record(VkCommandBuffer cmd, const Pass& pass, const Buffer& aliveArgs,
                            std::uint64_t aliveArgsOffset) const {
  MOTE_ASSERT(pass.buckets > 0 && pass.buckets <= maxBuckets_,
              "ProgramBuckets::record: more buckets than its room");
  vkCmdFillBuffer(cmd, counts_.handle(), 0, VK_WHOLE_SIZE, 0);
  vkCmdFillBuffer(cmd, cursor_.handle(), 0, VK_WHOLE_SIZE, 0);
  transferToCompute(cmd);
  const auto push = [&](std::uint32_t mode) {
    return std::array<std::uint32_t, 6>{mode,        pass.rowCount, pass.capacity,
                                        pass.stride, pass.parity,   pass.buckets};
  };
  kernel_->recordIndirect(cmd, set_, push(0), aliveArgs, aliveArgsOffset);
  kernel_->record(cmd, set_, push(1), (pass.buckets + group_ - 1) / group_);
  scan_.record(cmd, pass.buckets);
  kernel_->recordIndirect(cmd, set_, push(2), aliveArgs, aliveArgsOffset);
  kernel_->record(cmd, set_, push(3), pass.buckets);
}

BucketedOrder bucketReference(std::span<const std::uint32_t> alive,
                              const std::function<std::uint32_t(std::uint32_t)>& bucketOf,
                              std::uint32_t buckets, std::uint32_t group) {
  BucketedOrder out;
  out.counts.assign(buckets, 0);
  out.starts.assign(buckets, 0);
  for (const std::uint32_t slot : alive)
    ++out.counts[bucketOf(slot)];
  std::uint32_t at = 0;
  for (std::uint32_t b = 0; b < buckets; ++b) {
    out.starts[b] = at;
    at += (out.counts[b] + group - 1) / group * group;
  }
  out.order.assign(at, frame::kPadSlot);
  std::vector<std::uint32_t> cursor = out.starts;
  for (const std::uint32_t slot : alive)
    out.order[cursor[bucketOf(slot)]++] = slot;
  return out;
}

}  // namespace mote::gpu
