// SPDX-License-Identifier: MIT
// What the batched VM's files share (vm.cpp, vm-inl.h, vm_kernels-inl.h, vm_per_particle.cpp,
// vm_prepare.cpp): the row layout, a run as the per-target code sees it, the per-particle ops'
// entry points and the VM's op groups, derived from the ISA's classes.
#pragma once

#include <mote/bytecode/isa.h>
#include <mote/runtime/vm.h>

#include <array>
#include <cstdint>
#include <vector>

namespace mote::vm_detail {

// Rows past the program's registers: 4 scratch rows, then one per distinct immediate.
constexpr std::uint32_t kScratchRows = 4;
// Rows for values the same for every particle of a run (PreparedProgram::Op::hoistUnless): at
// most this many, and only while a program stays within BatchVm::create()'s default rows.
constexpr std::uint32_t kMostHoistedRows = 64;

// One run() call, as the per-target code sees it.
struct RunArgs {
  const PreparedProgram* program;
  bytecode::Section section;
  float* const* streams;
  std::uint32_t first;
  std::uint32_t count;
  const VmContext* ctx;
  std::uint8_t* killed;
  float* rows;               // row r at rows + r * kBatchLanes
  const float** rowSources;  // where row r is read from in the current batch
  // The VM's lane buffers, allocated with it so a run sets up nothing: the batch's particle ids
  // (kBatchLanes), Philox words (word k at k * kBatchLanes, 4 words) and curveSegments' rows.
  std::uint32_t* ids;
  std::uint32_t* bits;
  float* curveRows;
};

// The batch being run, as the per-particle ops see it.
struct BatchState {
  const VmContext* ctx;
  bytecode::Section section;
  std::uint32_t first;
  std::uint32_t n;
  float* rows;
  const float** rowSources;
};

// The lane-mixing ops and the host calls (runsPerParticle: cross, quaternions, noise, wind, spawn),
// one particle at a time.
// Compiled once, for the baseline target like the reference executor, not per SIMD target: GCC 12
// turns the alternating +/- of a Hamilton product into vfmsubadd when FMA is available, despite
// -ffp-contract=off, which breaks parity with the reference.
void runPerParticle(const BatchState& batch, const PreparedProgram::Op& op);

// RAND_SPHERE, RAND_DISK and RAND_CONE from the batch's Philox words (word k of particle i at
// bits[k * kBatchLanes + i], drawn by the per-target code): the reference's formulas, one particle
// at a time, compiled once like runPerParticle. For RAND_SPHERE the per-target code has already
// computed rho, sin phi and z into dst rows 0..2 and cos phi into `cosines` (and left only the
// third word in bits); RAND_UNIT_VECTOR it finishes itself.
void randomShapes(const BatchState& batch, const PreparedProgram::Op& op, const std::uint32_t* bits,
                  const float* cosines);

// CURVE's per-particle part, compiled once like runPerParticle: semantics.h's segment search for
// particles [begin, end) of the batch, into rows of `out` (kBatchLanes floats each): row 0 the
// segment parameter s, rows 1 + c the running sum where the segment starts (lane c), rows 5 + c
// the segment's delta. The caller finishes with fma(delta, s, start). Needs 2 or more keys.
void curveSegments(const BatchState& batch, const PreparedProgram::Op& op,
                   const std::vector<std::array<float, 4>>& constants, float* out,
                   std::uint32_t begin, std::uint32_t end);
inline constexpr std::uint32_t kCurveRows = 9;

// The VM's op groups, from the ISA's classes. Elementwise ops (bytecode::isElementwise) compute
// lane c of dst from lane c of their sources, particle by particle: they may read streams in place
// and write their result straight into a stream. The ops runPerParticle computes (the lane-mixing
// ops and the host calls): on every target for some, on the scalar target for all (the vector
// kernels of CROSS, QUAT_MUL, QUAT_ROTATE and CURL need SSE4 or better).
constexpr bool runsPerParticle(bytecode::Opcode op) {
  const bytecode::OpClass c = bytecode::opClass(op);
  return c == bytecode::OpClass::LaneMixing || c == bytecode::OpClass::Host;
}
/// `op` where runsPerParticle(op); otherwise not a constant expression. For the case labels of a
/// switch that sends ops to runPerParticle, or of its own dispatch.
consteval bytecode::Opcode perParticle(bytecode::Opcode op) {
  if (!runsPerParticle(op)) throw "the opcode is not a lane-mixing op or a host call";
  return op;
}

// CROSS, QUAT_MUL and QUAT_ROTATE: the lane-mixing ops the VM computes for one vector and
// broadcasts when their sources hold one value for the whole batch (PreparedProgram::Op::
// uniformUnless), and hoists like elementwise ops (resultDepends). A choice of the VM, not a class
// of the ISA: these are the ops of its quaternion kernel, cheap to run on a shortened batch.
constexpr bool tracksUniformSources(bytecode::Opcode op) {
  using bytecode::Opcode;
  return op == Opcode::Cross || op == Opcode::QuatMul || op == Opcode::QuatRotate;
}
static_assert([] {
  for (const bytecode::OpInfo& info : bytecode::kOpInfos)
    if (tracksUniformSources(info.opcode) && info.opClass != bytecode::OpClass::LaneMixing)
      return false;
  return true;
}());

}  // namespace mote::vm_detail
