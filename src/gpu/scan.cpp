// SPDX-License-Identifier: MIT
#include "scan.h"

#include "context_impl.h"
#include "shaders.h"

namespace mote::gpu {

Result<PrefixScan> PrefixScan::create(Context& context, std::uint32_t capacity,
                                      std::uint32_t groupSize) {
  MOTE_ASSERT(groupSize > 0, "PrefixScan: a dispatch of empty workgroups");
  Context::Impl& c = context.impl();
  PrefixScan s;
  s.capacity_ = capacity;
  s.groupSize_ = groupSize;
  s.maxGroups_ = context.device().maxComputeWorkGroupCount[0];
  const auto kernel = [&](const char* name, std::span<const std::uint32_t> spirv,
                          std::uint32_t bindings, std::uint32_t pushBytes, Kernel*& out) {
    Result<Kernel*> k = c.kernel(context, name, spirv, bindings, pushBytes, 0);
    if (!k.ok()) return std::move(k).status();
    out = *k;
    return Status();
  };
  MOTE_RETURN_IF_ERROR(kernel("scan_blocks", scanBlocksShader(), 3, 4, s.blocks_));
  MOTE_RETURN_IF_ERROR(kernel("scan_partials", scanPartialsShader(), 2, 12, s.partials_));
  MOTE_RETURN_IF_ERROR(kernel("scan_add", scanAddShader(), 2, 4, s.add_));
  const std::uint32_t blocks = (capacity + kBlock - 1) / kBlock;
  Result<Buffer> totals = Buffer::create(context, std::uint64_t{blocks == 0 ? 1 : blocks} * 4,
                                         "the scan's block totals");
  if (!totals.ok()) return std::move(totals).status();
  s.totals_ = std::move(totals).takeValue();
  return s;
}

Status PrefixScan::bind(const Buffer& counts, const Buffer& sums, const Buffer& result) {
  MOTE_RETURN_IF_ERROR(take(blocks_->bindings({&counts, &sums, &totals_}), blocksSet_));
  MOTE_RETURN_IF_ERROR(take(partials_->bindings({&totals_, &result}), partialsSet_));
  return take(add_->bindings({&sums, &totals_}), addSet_);
}

void PrefixScan::record(VkCommandBuffer cmd, std::uint32_t count) const {
  MOTE_ASSERT(count <= capacity_, "PrefixScan::record: more counts than its capacity");
  const std::uint32_t blocks = (count + kBlock - 1) / kBlock;
  const std::uint32_t one[] = {count};
  const std::uint32_t partials[] = {blocks, groupSize_, maxGroups_};
  blocks_->record(cmd, blocksSet_, one, blocks);
  partials_->record(cmd, partialsSet_, partials, 1);
  add_->record(cmd, addSet_, one, blocks);
}

}  // namespace mote::gpu
