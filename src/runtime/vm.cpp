// SPDX-License-Identifier: MIT
// The batched VM: BatchVm and its dispatch to the best SIMD target. Every operand is a row of
// kBatchLanes floats read through a per-batch table of row sources (a register row, an immediate's
// row filled once per run, or a particle stream read in place), so each instruction is a loop over
// particles. The interpreter (vm-inl.h, over the row kernels of vm_kernels-inl.h) is compiled once
// per SIMD target (Highway's foreach_target: this file is included again for each) and the best
// target for the CPU is picked at run time. Vector ops are used only where they are exact: the
// formulas are the reference executor's, written for one lane, so results match it bit for bit.
// The per-particle ops are vm_per_particle.cpp's, PreparedProgram::prepare vm_prepare.cpp's.
#include "simd_targets.h"  // before Highway

#include <mote/core/assert.h>
#include <mote/runtime/vm.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <new>
#include <string>
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "vm.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>
// The interpreter for the target being compiled: after foreach_target and highway.h.
#include "vm-inl.h"

#if HWY_ONCE
#include "vm_detail.h"

namespace mote {

HWY_EXPORT(RunBatches);

using bytecode::Section;
using vm_detail::kScratchRows;

Result<BatchVm> BatchVm::create(std::uint32_t maxRows) {
  if (maxRows < kScratchRows + 1 || maxRows > 1u << 16) {
    return invalidArgument("BatchVm rows must be in [5, 65536] (got " + std::to_string(maxRows) +
                           ")");
  }
  return BatchVm(maxRows);
}

namespace {
constexpr std::align_val_t kRowAlignment{64};  // one cache line, one AVX-512 vector
}  // namespace

void BatchVm::AlignedFree::operator()(float* p) const noexcept {
  ::operator delete[](p, kRowAlignment);
}

BatchVm::BatchVm(std::uint32_t maxRows)
    : maxRows_(maxRows),
      registers_(static_cast<float*>(
          ::operator new[](std::size_t{maxRows} * kBatchLanes * sizeof(float), kRowAlignment))),
      rowSources_(new const float*[maxRows]()),
      laneWords_(new std::uint32_t[std::size_t{kLaneWordRows} * kBatchLanes]()),
      curveRows_(new float[std::size_t{vm_detail::kCurveRows} * kBatchLanes]()) {
  std::fill_n(registers_.get(), std::size_t{maxRows} * kBatchLanes, 0.0f);
}

void BatchVm::run(const PreparedProgram& program, Section section, std::span<float* const> streams,
                  std::uint32_t first, std::uint32_t count, const VmContext& context,
                  std::span<std::uint8_t> killed) {
  MOTE_ASSERT(program.rowsNeeded() <= maxRows_, "BatchVm::run: the program needs more rows");
  MOTE_ASSERT(streams.size() >= program.particleWords(), "BatchVm::run: missing particle streams");
  MOTE_ASSERT(killed.size() >= count, "BatchVm::run: killed span too small");
  // The section's immediate rows: filled once, never written by instructions — as far as a batch of
  // this run reaches, in whole vectors of the widest target (the random ops run to the end of a
  // vector).
  float* const rows = registers_.get();
  const std::uint32_t immBase = program.registerCount() + kScratchRows;
  const std::uint32_t reach = std::min(kBatchLanes, (count + 15) / 16 * 16);
  for (const std::uint32_t k : program.sectionImmediates(section)) {
    const std::uint32_t r = immBase + k;
    float* row = rows + std::size_t{r} * kBatchLanes;
    std::fill(row, row + reach, std::bit_cast<float>(program.immediates()[k]));
    rowSources_[r] = row;
  }
  std::uint32_t* const ids = laneWords_.get();
  const vm_detail::RunArgs args{&program,
                                section,
                                streams.data(),
                                first,
                                count,
                                &context,
                                killed.data(),
                                rows,
                                rowSources_.get(),
                                ids,
                                ids + kBatchLanes,
                                curveRows_.get()};
  HWY_DYNAMIC_DISPATCH(RunBatches)(args);
}

}  // namespace mote
#endif  // HWY_ONCE
