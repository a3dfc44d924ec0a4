// SPDX-License-Identifier: MIT
#include "pool.h"

#include "context_impl.h"
#include "shaders.h"

#include <fmt/format.h>

namespace mote::gpu {
namespace {
constexpr std::uint32_t kEmitGroup = 64;  // emit_alloc.comp's local size
}

Result<Pool> Pool::create(Context& context, std::uint32_t capacity, std::uint32_t particleWords,
                          std::uint32_t rows) {
  Context::Impl& c = context.impl();
  Pool p;
  p.capacity_ = capacity;
  p.stride_ = kRecordHeaderWords + particleWords;
  p.rows_ = rows;
  Result<Kernel*> init = c.kernel(context, "pool_init", poolInitShader(), 2, 4, 0);
  if (!init.ok()) return std::move(init).status();
  p.init_ = *init;
  Result<Kernel*> emit = c.kernel(context, "emit_alloc", emitAllocShader(), 7, 12, 0);
  if (!emit.ok()) return std::move(emit).status();
  p.emit_ = *emit;
  Result<PrefixScan> scan = PrefixScan::create(context, rows, kEmitGroup);
  if (!scan.ok()) return std::move(scan).status();
  p.scan_ = std::move(scan).takeValue();
  const std::string pool =
      fmt::format("the particle pool ({} particles of {} words)", capacity, p.stride_);
  const auto make = [&](Buffer& out, std::uint64_t words, const std::string& name,
                        VkBufferUsageFlags extra = 0) {
    Result<Buffer> b = Buffer::create(context, words * 4, name, extra);
    if (!b.ok()) return std::move(b).status();
    out = std::move(b).takeValue();
    return Status();
  };
  MOTE_RETURN_IF_ERROR(make(p.pool_, std::uint64_t{capacity} * p.stride_, pool));
  MOTE_RETURN_IF_ERROR(make(p.dead_, capacity, fmt::format("the dead list ({} slots)", capacity)));
  MOTE_RETURN_IF_ERROR(
      make(p.alive_, capacity, fmt::format("the alive list ({} slots)", capacity)));
  MOTE_RETURN_IF_ERROR(make(p.counters_, kPoolCounters, "the pool's counters"));
  MOTE_RETURN_IF_ERROR(make(p.counts_, rows, fmt::format("the spawn counts ({} rows)", rows)));
  MOTE_RETURN_IF_ERROR(make(p.sums_, rows, fmt::format("the spawn sums ({} rows)", rows)));
  MOTE_RETURN_IF_ERROR(make(p.rowState_, 2u * rows, fmt::format("the row state ({} rows)", rows)));
  MOTE_RETURN_IF_ERROR(
      make(p.scanResult_, 4, "the emit dispatch", VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT));
  return p;
}

void Pool::recordReset(VkCommandBuffer cmd) {
  init_->bind({&counters_, &dead_});
  const std::uint32_t push[] = {capacity_};
  init_->record(cmd, push, (capacity_ + 255) / 256);
}

void Pool::recordEmit(VkCommandBuffer cmd, std::uint32_t rowCount) {
  MOTE_ASSERT(rowCount <= rows_, "Pool::recordEmit: more rows than the pool was made for");
  if (rowCount == 0) return;
  scan_.record(cmd, counts_, sums_, scanResult_, rowCount);
  emit_->bind({&counters_, &dead_, &alive_, &pool_, &sums_, &rowState_, &scanResult_});
  const std::uint32_t push[] = {rowCount, capacity_, stride_};
  emit_->recordIndirect(cmd, push, scanResult_, 4);
}

}  // namespace mote::gpu
