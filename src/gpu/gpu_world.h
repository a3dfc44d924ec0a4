// SPDX-License-Identifier: MIT
// gpu::ParticleWorld's state (world.cpp: the public API over the host model; world_frame.cpp: the
// device buffers, the step upload, the frame's passes and the readbacks). The numbers of the
// frame's data are shaders/frame_layout.glsl's; tests/gpu/world_test.cpp checks the two agree.
#pragma once

#include "buckets.h"
#include "device_memory.h"
#include "kernel.h"
#include "scan.h"
#include "world_impl.h"  // the runtime's: the host model and its backend hook

#include <mote/gpu/context.h>
#include <mote/gpu/world.h>

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

namespace mote::gpu {

namespace frame {
// Counters.
inline constexpr std::uint32_t kAlive0 = 0;
inline constexpr std::uint32_t kFree = 1;
inline constexpr std::uint32_t kAlive1 = 2;
inline constexpr std::uint32_t kPoolDropped = 3;
inline constexpr std::uint32_t kSimulateArgs = 4;
inline constexpr std::uint32_t kSimulated = 7;
inline constexpr std::uint32_t kSpawnedTotal = 8;
inline constexpr std::uint32_t kDroppedTotal = 10;
inline constexpr std::uint32_t kRequests0 = 12;
inline constexpr std::uint32_t kRequests1 = 13;
inline constexpr std::uint32_t kRequestOverflow = 14;
inline constexpr std::uint32_t kCarryArgs = 15;
inline constexpr std::uint32_t kBoundsArgs = 18;
inline constexpr std::uint32_t kDrawArgs = 21;
inline constexpr std::uint32_t kCounterWords = 25;
// A row's step block.
inline constexpr std::uint32_t kStepFlags = 0;
inline constexpr std::uint32_t kStepGeneration = 1;
inline constexpr std::uint32_t kStepCapacity = 2;
inline constexpr std::uint32_t kStepCallFirst = 3;
inline constexpr std::uint32_t kStepCallCount = 4;
inline constexpr std::uint32_t kStepInitAt = 5;
inline constexpr std::uint32_t kStepInitCount = 6;
inline constexpr std::uint32_t kStepUpdateAt = 7;
inline constexpr std::uint32_t kStepUpdateCount = 8;
inline constexpr std::uint32_t kStepConstantsAt = 9;
inline constexpr std::uint32_t kStepContextAt = 10;
inline constexpr std::uint32_t kStepEmitterWords = 11;
inline constexpr std::uint32_t kStepParticleWords = 12;
inline constexpr std::uint32_t kStepSpace = 13;
inline constexpr std::uint32_t kStepTick = 14;
inline constexpr std::uint32_t kStepSeed = 16;
inline constexpr std::uint32_t kStepWindowStart = 18;
inline constexpr std::uint32_t kStepSpan = 20;
inline constexpr std::uint32_t kStepT0 = 22;
inline constexpr std::uint32_t kStepDt = 24;
inline constexpr std::uint32_t kStepStop = 26;
inline constexpr std::uint32_t kStepStart = 28;
inline constexpr std::uint32_t kStepPath = 34;
inline constexpr std::uint32_t kStepEffectKey = 40;
inline constexpr std::uint32_t kStepPositionWord = 41;
inline constexpr std::uint32_t kStepBucket = 42;
inline constexpr std::uint32_t kStepSizeWord = 43;
inline constexpr std::uint32_t kStepVelocityWord = 44;
inline constexpr std::uint32_t kStepStretch = 45;
inline constexpr std::uint32_t kStepLoop = 46;
inline constexpr std::uint32_t kStepWords = 48;
// Step flags.
inline constexpr std::uint32_t kRowAlive = 1;
inline constexpr std::uint32_t kRowStepping = 2;
inline constexpr std::uint32_t kRowReset = 4;
inline constexpr std::uint32_t kRowWindowIsStep = 8;
inline constexpr std::uint32_t kRowSpans = 16;
inline constexpr std::uint32_t kRowMoves = 32;
// The GPU's row state.
inline constexpr std::uint32_t kRowLive = 0;
inline constexpr std::uint32_t kRowNextId = 1;
inline constexpr std::uint32_t kRowFirstId = 2;
inline constexpr std::uint32_t kRowStepSpawned = 3;
inline constexpr std::uint32_t kRowStepDropped = 4;
inline constexpr std::uint32_t kRowStepDied = 5;
inline constexpr std::uint32_t kRowSpawned = 6;
inline constexpr std::uint32_t kRowDropped = 8;
inline constexpr std::uint32_t kRowDied = 10;
inline constexpr std::uint32_t kRowRequestFirst = 12;
inline constexpr std::uint32_t kRowRequestCount = 13;
inline constexpr std::uint32_t kRowRequestBorn = 14;
inline constexpr std::uint32_t kRowWords = 16;
// A SPAWN request.
inline constexpr std::uint32_t kRequestKey = 0;
inline constexpr std::uint32_t kRequestSource = 1;
inline constexpr std::uint32_t kRequestId = 2;
inline constexpr std::uint32_t kRequestSeq = 3;
inline constexpr std::uint32_t kRequestCount = 4;
inline constexpr std::uint32_t kRequestRow = 5;
inline constexpr std::uint32_t kRequestGeneration = 6;
inline constexpr std::uint32_t kRequestPosition = 7;
inline constexpr std::uint32_t kRequestVelocity = 10;  // what SPAWNI passes (SPAWN: neutral)
inline constexpr std::uint32_t kRequestSize = 13;
inline constexpr std::uint32_t kRequestColor = 14;
inline constexpr std::uint32_t kRequestWords = 18;
// A spawn call.
inline constexpr std::uint32_t kCallCount = 0;
inline constexpr std::uint32_t kCallFlags = 1;
inline constexpr std::uint32_t kCallFrom = 2;
inline constexpr std::uint32_t kCallScale = 4;
inline constexpr std::uint32_t kCallBefore = 6;
inline constexpr std::uint32_t kCallAmount = 8;
inline constexpr std::uint32_t kCallWords = 10;
// The wind block.
inline constexpr std::uint32_t kWindBursts = 3;
inline constexpr std::uint32_t kWindHeaderWords = 4;
inline constexpr std::uint32_t kBurstWords = 5;
inline constexpr std::uint32_t kWindWords =
    kWindHeaderWords + kBurstWords * emission::ForceBursts::kMaxBursts;

inline constexpr std::uint32_t kBuiltinWords = 4 * bytecode::kBuiltinCount;
inline constexpr std::uint32_t kBoxWords = 8;  // a published box: lo, hi, known
// What the simulate pass does with a record (frame_layout.glsl's recordFate).
inline constexpr std::uint32_t kRecordFree = 0;
inline constexpr std::uint32_t kRecordKeep = 1;
inline constexpr std::uint32_t kRecordRun = 2;
inline std::uint32_t recordFate(std::uint32_t row, std::uint32_t generation, std::uint32_t rowCount,
                                std::uint32_t stepFlags, std::uint32_t stepGeneration) {
  if (row >= rowCount || generation != stepGeneration || (stepFlags & kRowAlive) == 0)
    return kRecordFree;
  return (stepFlags & kRowStepping) == 0 ? kRecordKeep : kRecordRun;
}
inline constexpr std::uint32_t kEmptyLow = 0xff800000u;
inline constexpr std::uint32_t kEmptyHigh = 0x007fffffu;
inline constexpr std::uint32_t kPadSlot = 0xffffffffu;
inline constexpr std::uint32_t kHeaderWords = 3;  // a record's row, generation, id
inline constexpr std::uint32_t kGroup = 64;       // the frame passes' workgroup size
/// Workgroups of one pass at most with the wide register file (its lanes: kWideGroups · kGroup).
inline constexpr std::uint32_t kWideGroups = 256;
inline constexpr std::uint32_t kWideSlots = 256;
}  // namespace frame

/// A program's place in the programs buffer, found by its content (a program the host model
/// dropped and verified again later has the same place).
struct ProgramSlot {
  std::uint64_t hash = 0;     // bytecode::contentHash
  bytecode::Program program;  // for the equality check behind the hash
  std::uint32_t initAt = 0;
  std::uint32_t initCount = 0;  // instructions
  std::uint32_t updateAt = 0;
  std::uint32_t updateCount = 0;
  std::uint32_t constantsAt = 0;
};

struct ParticleWorld::Impl final : runtime_detail::ParticleBackend {
  Context* context = nullptr;
  WorldDesc desc;
  std::unique_ptr<mote::ParticleWorld> host;
  mote::ParticleWorld::Impl* model = nullptr;  // host's state
  Status error;                                // the first device error; every later call's

  // The frame input's layout (words): step blocks | wind | contexts | calls.
  std::uint32_t rowsCapacity = 0;
  std::uint32_t capacity = 0;  // pool slots
  std::uint32_t stride = 0;    // words per record
  std::uint32_t windAt = 0;
  std::uint32_t contextsAt = 0;
  std::uint32_t callsAt = 0;
  std::uint32_t* input = nullptr;  // the inbox's mapping, written each step
  // The outbox's layout (words): counters | row state (rowsCapacity rows) | published boxes.
  std::uint32_t outboxRowsAt = 0;
  std::uint32_t outboxBoxesAt = 0;

  // This step's calls, per row (the schedule visits rows one at a time, so a row's are a run).
  std::uint32_t callCount = 0;
  std::vector<std::uint32_t> rowCallFirst;
  std::vector<std::uint32_t> rowCallCount;
  std::vector<std::uint8_t> resetPending;
  std::vector<std::uint8_t> stepping;
  std::vector<std::uint32_t> rowProgram;  // index into programSlots
  // The simulation order's bucket of each row (its program's among the live rows' programs) and
  // their count with the last bucket, for records that do not run; redone when a row changes
  // hands (programs assigned anew).
  std::vector<std::uint32_t> rowBucket;
  std::vector<std::uint32_t> slotBucket;  // per program slot, scratch
  std::uint32_t bucketCount = 1;
  bool bucketsDirty = true;
  // The generation the records of each row carry: moved on by every reset and removal, so a
  // restart's and a removal's particles are told from the new ones (never 0: died at birth).
  std::vector<std::uint32_t> rowGeneration;
  std::uint32_t rowCount = 0;  // rows the frame covers: past the highest ever placed

  std::vector<std::uint32_t> programWords;
  std::vector<ProgramSlot> programSlots;
  bool programsDirty = false;
  bool wide = false;  // some program needs the wide register file

  std::array<float, 3> wind{0.0f, 0.0f, 0.0f};
  std::uint64_t hostDroppedTotal = 0;  // rates' excess past the capacities, never on the GPU
  std::uint32_t parity = 0;            // the alive half the next simulate pass reads
  // recordTick's: the host's command buffer the frame is recorded into instead of submitted.
  VkCommandBuffer hostCommands = VK_NULL_HANDLE;
  bool boxesPending = false;  // a frame's boxes in the outbox the host model has not taken
  // The frame's start and end on the GPU's clock (none where the queue writes no timestamps),
  // and the last frame's time from them (WorldStats::simulateSeconds).
  VkQueryPool timestamps = VK_NULL_HANDLE;
  double frameSeconds = 0.0;

  ~Impl();

  Buffer programs, records, dead, alive, counters, rowState, frameInput, callStarts, counts, sums,
      scanResult, requests, requestStarts, registers, edges, published;
  // Mapped: the step's input and the programs the host writes (copied in by the frame), and what
  // the frame copies out (counters, row state, boxes) for readStats and culling.
  Buffer inbox, programStaging, outbox;
  PrefixScan scan;
  ProgramBuckets buckets;
  Kernel* rowsKernel = nullptr;
  Kernel* simulateKernel = nullptr;
  Kernel* emitKernel = nullptr;
  Kernel* poolInit = nullptr;
  Kernel* requestsKernel = nullptr;
  Kernel* boundsKernel = nullptr;
  Kernel* argsKernel = nullptr;
  Bindings rowsSet, requestsSet, simulateSet, emitSet, boundsSet, argsSet, poolInitSet;

  // world_frame.cpp
  Status createBuffers();
  /// The simulate and emit pipelines (wide or not) and their bindings.
  Status useFramePasses(bool wideFile);
  Status useWideFile();
  void assignBuckets();
  std::uint32_t programSlot(const runtime_detail::SharedProgram& program);
  /// The slot already holding `program`, or programSlots.size().
  std::uint32_t findProgram(const bytecode::Program& program, std::uint64_t hash) const;
  void writeStep(std::uint32_t row);
  /// Records the frame: the inbox's copies, every pass, the outbox's copies (docs/gpu.md).
  void recordFrame(VkCommandBuffer cmd, std::uint64_t inputUsed) const;
  Status runFrame();
  /// What the last frame left in the outbox, once per frame: its GPU time, and its boxes into the
  /// host model's rows (culling reads them); a row reset since keeps the unknown box it was given.
  void takeFrame();
  Status download(const Buffer& buffer, std::vector<std::uint32_t>& out, std::uint64_t words,
                  std::uint64_t offset = 0);
  Status syncParticles();
  /// The host model's counts from the outbox.
  void syncStats();

  // runtime_detail::ParticleBackend
  Status admit(const bytecode::CompiledEffect& effect) override;
  void reset(std::uint32_t row) override;
  void release(std::uint32_t row) override;
  void spawnCall(std::uint32_t row, std::uint32_t count,
                 const emission::BirthTimes& birth) override;
  void drop(std::uint32_t row, std::uint64_t count) override;
  void step(std::span<const std::uint32_t> stepRows, double dt) override;

  /// Ok, or the error every call returns from now on.
  const Status& healthy();
};

}  // namespace mote::gpu
