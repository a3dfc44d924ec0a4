// SPDX-License-Identifier: MIT
// The batched particle VM: runs a verified program over up to kBatchLanes particles at a time,
// one instruction at a time over the whole batch. Particle words are SoA streams (one array per
// word); registers are SoA rows of kBatchLanes floats, so every instruction is a loop over
// particles, run with explicit SIMD (Highway, chosen at run time: SSE4, AVX2 or AVX-512; a scalar
// path elsewhere). Operands address the particle streams directly where that is exact: a loaded
// field is read in place, and a result that is only stored is written straight into its stream.
// Results are bit-identical to the reference executor, except which NaN a NaN result is
// (tests/runtime/vm_parity_test.cpp runs every opcode through both, on every SIMD target).
//
// Thread safety: a BatchVm owns its register file — one per thread; PreparedProgram is immutable
// and may be shared. Allocation: create() and prepare() allocate; run() never does.
#pragma once

#include <mote/bytecode/collision.h>
#include <mote/bytecode/program.h>
#include <mote/bytecode/reference.h>
#include <mote/core/status.h>

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace mote {

/// Particles a batch holds: each instruction runs over a batch before the next one starts. 1024
/// measured best on Zen 3 (docs/performance-history.md, "Batch size"): longer runs of each stream
/// let the hardware prefetchers keep up, and the per-instruction overhead is spread wider.
inline constexpr std::uint32_t kBatchLanes = 1024;

/// A verified program decoded once into the VM's execution form (operands resolved to register
/// rows or immediates, stream operands decided). O(instructions²) to build: each candidate stream
/// operand is checked by simulating the section once.
class PreparedProgram {
 public:
  static PreparedProgram prepare(const bytecode::VerifiedProgram& program);

  static constexpr std::uint32_t kNoWord = 0xFFFFFFFFu;  ///< Op::directWord: rows, not a stream

  struct Source {
    bool immediate = false;
    float value = 0.0f;                   ///< immediate
    std::array<std::uint16_t, 4> rows{};  ///< register rows read by lanes 0..3
  };
  struct Op {
    bytecode::Opcode op;
    std::uint8_t width;
    std::uint16_t dst;
    std::uint32_t index;       ///< the Index operand (field word, constant, builtin, draw, target)
    std::uint32_t index2 = 0;  ///< s2 when it is an Index operand (CURVE's key word)
    std::array<Source, 3> src;
    /// A later lane reads a row an earlier lane writes (mov.2 r0, r0.yx): computed through
    /// scratch rows, unless the op writes a stream (directWord): its rows then keep their old
    /// values until the last lane is done. Decided once here, not per batch.
    bool viaScratch;
    /// Streams as operands, each proved exact for this program when it was prepared:
    /// LOAD_FIELD — the dst rows read the particle words in place (no copy);
    /// STORE_FIELD — nothing to do: the op that computed the value wrote the words already;
    /// an elementwise op — writes its result into particle words [directWord, + width) (read in
    /// place as its dst rows once every lane is written) instead of into the rows.
    bool inPlace = false;
    std::uint32_t directWord = kNoWord;
    /// A CROSS, QUAT_MUL or QUAT_ROTATE whose sources hold one value for every particle as long
    /// as the builtins in this mask (bit b: builtin b) are not per-particle in the run: it is
    /// computed for one vector and broadcast. kVaries: it reads per-particle values.
    std::uint32_t uniformUnless = kVaries;
    /// The op's value is the same for every particle of a run as long as the builtins in this
    /// mask are not per-particle in it, and it sits in rows of its own (no other op writes them):
    /// the VM computes it in a run's first batch only. kVaries: every batch.
    std::uint32_t hoistUnless = kVaries;
  };
  static constexpr std::uint32_t kVaries = 0xFFFFFFFFu;

  const std::vector<Op>& section(bytecode::Section s) const {
    return s == bytecode::Section::Init ? init_ : update_;
  }
  std::uint32_t registerCount() const { return registerCount_; }
  /// Register rows the VM needs: the program's registers, 4 scratch rows, one per immediate,
  /// then the rows of run-invariant values (Op::hoistUnless).
  std::uint32_t rowsNeeded() const {
    return registerCount_ + 4 + static_cast<std::uint32_t>(immediates_.size()) + hoistedRows_;
  }
  /// Distinct immediates (bit patterns), each given a row of its own.
  const std::vector<std::uint32_t>& immediates() const { return immediates_; }
  /// The immediates (indices into immediates()) a section reads.
  const std::vector<std::uint32_t>& sectionImmediates(bytecode::Section s) const {
    return sectionImmediates_[s == bytecode::Section::Init ? 0 : 1];
  }
  std::uint32_t particleWords() const { return particleWords_; }
  /// The particle words a newborn must hold zero when INIT runs (the program contract): those
  /// INIT loads before it stores them, or never stores. INIT has no branches and a STORE_FIELD
  /// writes every particle of the run, so the other words end INIT with the same value whatever
  /// they held: a caller may leave them unzeroed.
  const std::vector<std::uint32_t>& initZeroWords() const { return initZeroWords_; }
  const std::vector<std::array<float, 4>>& constants() const { return constants_; }
  /// The pool as one float array (entry e's lane l at 4e + l): what CURVE's gathers index.
  const float* constantLanes() const { return constantLanes_.data(); }

 private:
  std::vector<Op> init_;
  std::vector<Op> update_;
  std::vector<std::array<float, 4>> constants_;
  std::vector<float> constantLanes_;
  std::vector<std::uint32_t> immediates_;
  std::array<std::vector<std::uint32_t>, 2> sectionImmediates_;  // INIT's, UPDATE's
  std::vector<std::uint32_t> initZeroWords_;
  std::uint32_t registerCount_ = 0;
  std::uint32_t particleWords_ = 0;
  std::uint32_t hoistedRows_ = 0;
};

/// What a batch run reads besides the particle streams.
struct VmContext {
  /// Builtin values the same for every particle of the batch (dt, time, the emitter's frame).
  std::array<std::array<float, 4>, bytecode::kBuiltinCount> builtins{};
  /// Per-particle builtin values, indexed like the streams: when laneBuiltins[b][0] is set, lane
  /// c of builtin b reads laneBuiltins[b][c][particle] (all of the builtin's lanes must be set)
  /// instead of builtins[b] — spawn index and fraction, a newborn's sub-tick dt and emitter age,
  /// the emitter position interpolated along its path. QUAT_INTEGRATE reads DT the same way.
  std::array<std::array<const float*, 4>, bytecode::kBuiltinCount> laneBuiltins{};
  /// Per-particle ids: the random counter, and the particle_id builtin (as float).
  const std::uint32_t* particleIds = nullptr;
  std::span<const float> emitterWords;
  std::span<const std::array<float, 4>> globals;
  std::uint64_t seed = 0;
  std::uint64_t tick = 0;
  bytecode::WindFn wind = nullptr;
  void* windUser = nullptr;
  bytecode::SpawnFn spawn = nullptr;
  void* spawnUser = nullptr;
  bytecode::ReportFn report = nullptr;  ///< REPORT's sink (null: dropped)
  void* reportUser = nullptr;
  /// COLLIDE's world (null: nothing is hit), asked kCollisionChunk particles at a time.
  const bytecode::CollisionProvider* collision = nullptr;
};

class BatchVm {
 public:
  /// A VM with `maxRows` register rows of kBatchLanes floats (programs need rowsNeeded();
  /// 512 rows is 2 MiB and fits any program the compiler makes today).
  static Result<BatchVm> create(std::uint32_t maxRows = kDefaultRows);
  static constexpr std::uint32_t kDefaultRows = 512;

  BatchVm(BatchVm&&) noexcept = default;
  BatchVm& operator=(BatchVm&&) noexcept = default;

  /// Runs `section` over particles [first, first + count) of `streams` (one pointer per particle
  /// word, program.particleWords() of them, not overlapping each other), in batches of
  /// kBatchLanes. killed[i - first] is set to 1 for each particle a KILL fired for (and left alone
  /// otherwise). Requires the program's registers to fit (asserted). O(instructions · count).
  /// Allocates: never.
  void run(const PreparedProgram& program, bytecode::Section section,
           std::span<float* const> streams, std::uint32_t first, std::uint32_t count,
           const VmContext& context, std::span<std::uint8_t> killed);

 private:
  explicit BatchVm(std::uint32_t maxRows);

  struct AlignedFree {
    void operator()(float* p) const noexcept;
  };

  std::uint32_t maxRows_ = 0;
  std::unique_ptr<float[], AlignedFree> registers_;  // maxRows_ rows of kBatchLanes, 64-aligned
  // Where each row is read from in the current batch: its own storage, or a particle stream
  // (or a per-lane builtin) read in place.
  std::unique_ptr<const float*[]> rowSources_;
  // Per-batch lane buffers the interpreter reuses (allocated here, so run() sets up nothing): the
  // particle ids, then 4 rows of random words.
  static constexpr std::uint32_t kLaneWordRows = 5;
  std::unique_ptr<std::uint32_t[]> laneWords_;
  std::unique_ptr<float[]> curveRows_;  // CURVE's per-particle search rows
};

}  // namespace mote
