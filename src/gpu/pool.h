// SPDX-License-Identifier: MIT
// The particle pool on the GPU (meep "Particle storage"): one array of records of a fixed stride —
// a three-word header (emitter row, the row's generation, the particle's id) then the particle's
// words — with its dead list, alive list and counters, and the emit pass's allocation: newborns
// dispatched indirectly from the spawn counts' scan, each finding its row and popping a slot. No
// pass here is sized from a readback.
#pragma once

#include "device_memory.h"
#include "kernel.h"
#include "scan.h"

#include <mote/gpu/context.h>

#include <cstdint>

namespace mote::gpu {

/// The counters' words (Pool::counters()).
enum PoolCounter : std::uint32_t {
  kPoolLive = 0,
  kPoolFree = 1,
  kPoolDropped = 2,
  kPoolCounters = 4
};
/// Header words of a record: row, generation, id.
inline constexpr std::uint32_t kRecordHeaderWords = 3;

class Pool {
 public:
  /// `capacity` records of kRecordHeaderWords + `particleWords` words; `rows` emitter rows. Fails
  /// with OutOfMemory naming the capacity that did not fit.
  static Result<Pool> create(Context& context, std::uint32_t capacity, std::uint32_t particleWords,
                             std::uint32_t rows);

  /// Records the reset: every slot free, the counters zero but free = capacity.
  void recordReset(VkCommandBuffer cmd);
  /// Records the frame's spawning from the per-row counts in counts() and the per-row [generation,
  /// first id] pairs in rowState(): the scan, then the indirect emit allocation. Newborns past the
  /// free slots are counted in kPoolDropped.
  void recordEmit(VkCommandBuffer cmd, std::uint32_t rowCount);

  Buffer& counters() { return counters_; }
  Buffer& dead() { return dead_; }
  Buffer& alive() { return alive_; }
  Buffer& records() { return pool_; }
  Buffer& counts() { return counts_; }
  Buffer& rowState() { return rowState_; }
  Buffer& scanResult() { return scanResult_; }
  std::uint32_t capacity() const { return capacity_; }
  std::uint32_t stride() const { return stride_; }

 private:
  Kernel* init_ = nullptr;
  Kernel* emit_ = nullptr;
  PrefixScan scan_;
  Buffer counters_, dead_, alive_, pool_, counts_, sums_, rowState_, scanResult_;
  std::uint32_t capacity_ = 0;
  std::uint32_t stride_ = 0;
  std::uint32_t rows_ = 0;
};

}  // namespace mote::gpu
