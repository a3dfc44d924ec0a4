// SPDX-License-Identifier: MIT
// gpu::ParticleWorld's device side: the buffers, the programs' upload, each step's upload of the
// emitters' step blocks, contexts, wind and spawn calls, the frame's passes in one submission
// (rows → scan → simulate → emit; docs/gpu.md, "The frame"), and the readbacks.
#include "context_impl.h"
#include "gpu_world.h"
#include "self_test.h"
#include "shaders.h"

#include <mote/gpu/vm_cases.h>

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>

namespace mote::gpu {

using runtime_detail::EmitterRow;
using runtime_detail::SharedProgram;

namespace {

std::uint32_t bits(float v) {
  return std::bit_cast<std::uint32_t>(v);
}

void putDouble(std::uint32_t* at, double v) {
  const auto b = std::bit_cast<std::uint64_t>(v);
  at[0] = static_cast<std::uint32_t>(b);
  at[1] = static_cast<std::uint32_t>(b >> 32);
}

void putU64(std::uint32_t* at, std::uint64_t v) {
  at[0] = static_cast<std::uint32_t>(v);
  at[1] = static_cast<std::uint32_t>(v >> 32);
}

std::uint64_t getU64(const std::uint32_t* at) {
  return std::uint64_t{at[0]} | std::uint64_t{at[1]} << 32;
}

}  // namespace

const Status& ParticleWorld::Impl::healthy() {
  if (error.ok() && !context->health().ok()) error = context->health();
  return error;
}

Status ParticleWorld::Impl::createBuffers() {
  const mote::WorldDesc& h = desc.host;
  rowsCapacity = h.maxEmitters;
  capacity = static_cast<std::uint32_t>(h.maxParticles);
  stride = frame::kHeaderWords + desc.maxParticleWords;
  windAt = rowsCapacity * frame::kStepWords;
  contextsAt = windAt + frame::kWindWords;
  callsAt = contextsAt + rowsCapacity * desc.maxContextWords;
  const std::uint64_t inputWords =
      std::uint64_t{callsAt} + std::uint64_t{desc.maxSpawnCalls} * frame::kCallWords;
  outboxRowsAt = frame::kCounterWords;
  outboxBoxesAt = outboxRowsAt + rowsCapacity * frame::kRowWords;
  const std::uint64_t outboxWords =
      std::uint64_t{outboxBoxesAt} + std::uint64_t{rowsCapacity} * frame::kBoxWords;
  rowCallFirst.assign(rowsCapacity, 0);
  rowCallCount.assign(rowsCapacity, 0);
  resetPending.assign(rowsCapacity, 0);
  stepping.assign(rowsCapacity, 0);
  rowProgram.assign(rowsCapacity, 0);
  rowBucket.assign(rowsCapacity, 0);
  rowGeneration.assign(rowsCapacity, 0);

  const auto make = [&](Buffer& out, std::uint64_t words, const std::string& name,
                        VkBufferUsageFlags extra = 0) {
    return take(Buffer::create(*context, std::max<std::uint64_t>(words, 1) * 4, name, extra), out);
  };
  const auto mapped = [&](Buffer& out, std::uint64_t words, const std::string& name) {
    return take(Buffer::createMapped(*context, std::max<std::uint64_t>(words, 1) * 4, name), out);
  };
  MOTE_RETURN_IF_ERROR(
      make(records, std::uint64_t{capacity} * stride,
           fmt::format("the particle pool ({} particles of {} words)", capacity, stride)));
  MOTE_RETURN_IF_ERROR(make(dead, capacity, fmt::format("the dead list ({} slots)", capacity)));
  MOTE_RETURN_IF_ERROR(
      make(alive, 2ull * capacity, fmt::format("the alive lists (2 × {} slots)", capacity)));
  MOTE_RETURN_IF_ERROR(make(counters, frame::kCounterWords, "the pool's counters",
                            VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT));
  MOTE_RETURN_IF_ERROR(make(rowState, std::uint64_t{rowsCapacity} * frame::kRowWords,
                            fmt::format("the row state ({} emitters)", rowsCapacity)));
  const std::string stepInput =
      fmt::format("the step input ({} emitters, {} spawn calls)", rowsCapacity, desc.maxSpawnCalls);
  MOTE_RETURN_IF_ERROR(make(frameInput, inputWords, stepInput));
  MOTE_RETURN_IF_ERROR(mapped(inbox, inputWords, "the staging of " + stepInput));
  input = inbox.mapped();
  std::fill_n(input, inputWords, 0u);
  MOTE_RETURN_IF_ERROR(
      mapped(outbox, outboxWords, fmt::format("the frame's outbox ({} emitters)", rowsCapacity)));
  // Before the first frame fills it, the outbox reads as an empty world (no particles, no counts).
  std::fill_n(outbox.mapped(), outboxWords, 0u);
  MOTE_RETURN_IF_ERROR(make(callStarts, desc.maxSpawnCalls,
                            fmt::format("the spawn calls' starts ({})", desc.maxSpawnCalls)));
  MOTE_RETURN_IF_ERROR(
      make(counts, rowsCapacity, fmt::format("the spawn counts ({} emitters)", rowsCapacity)));
  MOTE_RETURN_IF_ERROR(
      make(sums, rowsCapacity, fmt::format("the spawn sums ({} emitters)", rowsCapacity)));
  MOTE_RETURN_IF_ERROR(
      make(scanResult, 4, "the emit dispatch", VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT));
  const std::string programsName = fmt::format("the programs ({} words)", desc.maxProgramWords);
  MOTE_RETURN_IF_ERROR(make(programs, desc.maxProgramWords, programsName));
  MOTE_RETURN_IF_ERROR(
      mapped(programStaging, desc.maxProgramWords, "the staging of " + programsName));
  MOTE_RETURN_IF_ERROR(make(registers, 4, "the wide register file (unused)"));
  MOTE_RETURN_IF_ERROR(make(requests, 2ull * desc.maxSpawnRequests * frame::kRequestWords,
                            fmt::format("the SPAWN requests (2 × {})", desc.maxSpawnRequests)));
  MOTE_RETURN_IF_ERROR(make(requestStarts, desc.maxSpawnRequests,
                            fmt::format("the SPAWN requests' starts ({})", desc.maxSpawnRequests)));
  MOTE_RETURN_IF_ERROR(make(edges, 12ull * rowsCapacity,
                            fmt::format("the bounds' edges ({} emitters)", rowsCapacity)));
  MOTE_RETURN_IF_ERROR(make(published, std::uint64_t{rowsCapacity} * frame::kBoxWords,
                            fmt::format("the published bounds ({} emitters)", rowsCapacity)));

  Context::Impl& c = context->impl();
  MOTE_RETURN_IF_ERROR(take(PrefixScan::create(*context, rowsCapacity, frame::kGroup), scan));
  MOTE_RETURN_IF_ERROR(scan.bind(counts, sums, scanResult));
  MOTE_RETURN_IF_ERROR(
      take(ProgramBuckets::create(*context, rowsCapacity + 1, capacity, frame::kGroup), buckets));
  MOTE_RETURN_IF_ERROR(buckets.bind(frameInput, records, alive, counters));
  const auto kernel = [&](Kernel*& out, const char* name, std::span<const std::uint32_t> spirv,
                          std::uint32_t bindings, std::uint32_t pushBytes, std::uint32_t flags) {
    Result<Kernel*> k = c.kernel(*context, name, spirv, bindings, pushBytes, flags);
    if (!k.ok()) return std::move(k).status();
    out = *k;
    return Status();
  };
  const bool fp64 = hasFp64Shaders(context->device());
  const std::uint32_t flags = context->selfTest().flags;
  MOTE_RETURN_IF_ERROR(kernel(rowsKernel, "frame_rows", frameRowsShader(), 7, 24, 0));
  MOTE_RETURN_IF_ERROR(take(rowsKernel->bindings({&frameInput, &rowState, &counters, &counts,
                                                  &callStarts, &requests, &requestStarts}),
                            rowsSet));
  MOTE_RETURN_IF_ERROR(kernel(requestsKernel, "requests", requestsShader(), 3, 16, 0));
  MOTE_RETURN_IF_ERROR(
      take(requestsKernel->bindings({&frameInput, &counters, &requests}), requestsSet));
  MOTE_RETURN_IF_ERROR(kernel(poolInit, "pool_init", poolInitShader(), 2, 4, 0));
  MOTE_RETURN_IF_ERROR(take(poolInit->bindings({&counters, &dead}), poolInitSet));
  MOTE_RETURN_IF_ERROR(
      kernel(boundsKernel, "frame_bounds", frameBoundsShader().pick(fp64), 6, 24, flags));
  MOTE_RETURN_IF_ERROR(
      take(boundsKernel->bindings({&frameInput, &records, &alive, &counters, &edges, &published}),
           boundsSet));
  MOTE_RETURN_IF_ERROR(kernel(argsKernel, "frame_args", frameArgsShader(), 1, 12, 0));
  MOTE_RETURN_IF_ERROR(take(argsKernel->bindings({&counters}), argsSet));
  MOTE_RETURN_IF_ERROR(useFramePasses(false));
  if (context->device().timestampPeriod > 0.0f) {
    VkQueryPoolCreateInfo query{};
    query.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO;
    query.queryType = VK_QUERY_TYPE_TIMESTAMP;
    query.queryCount = 2;
    MOTE_RETURN_IF_ERROR(vkStatus(vkCreateQueryPool(c.device, &query, nullptr, &timestamps),
                                  "vkCreateQueryPool for the frame's timestamps"));
  }

  // Every slot free, every counter and row zero, every box empty.
  return c.submit([&](VkCommandBuffer cmd) {
    vkCmdFillBuffer(cmd, rowState.handle(), 0, VK_WHOLE_SIZE, 0);
    vkCmdFillBuffer(cmd, counters.handle(), 0, VK_WHOLE_SIZE, 0);
    vkCmdFillBuffer(cmd, published.handle(), 0, VK_WHOLE_SIZE, 0);
    vkCmdFillBuffer(cmd, edges.handle(), 0, 24ull * rowsCapacity, frame::kEmptyLow);
    vkCmdFillBuffer(cmd, edges.handle(), 24ull * rowsCapacity, 24ull * rowsCapacity,
                    frame::kEmptyHigh);
    transferToCompute(cmd);
    const std::uint32_t push[] = {capacity};
    poolInit->record(cmd, poolInitSet, push, (capacity + 255) / 256);
  });
}

ParticleWorld::Impl::~Impl() {
  if (timestamps != VK_NULL_HANDLE) vkDestroyQueryPool(context->impl().device, timestamps, nullptr);
}

Status ParticleWorld::Impl::useFramePasses(bool wideFile) {
  const bool fp64 = hasFp64Shaders(context->device());
  const std::uint32_t flags = context->selfTest().flags;
  const std::uint32_t bindings = wideFile ? 14 : 13;
  const ShaderCode code = frameShader(wideFile);
  const char* name = wideFile ? "frame_wide" : "frame";
  Context::Impl& c = context->impl();
  Result<Kernel*> sim = c.kernel(*context, name, code.pick(fp64), bindings, 32, flags, 0);
  if (!sim.ok()) return std::move(sim).status();
  Result<Kernel*> emit = c.kernel(*context, name, code.pick(fp64), bindings, 32, flags, 1);
  if (!emit.ok()) return std::move(emit).status();
  // Simulate reads the order and its length; emit the scan's newborns (Total), the order unused.
  std::vector<const Buffer*> common{&programs, &records,    &dead,       &alive, &counters,
                                    &rowState, &frameInput, &callStarts, &sums};
  const auto set = [&](Kernel* k, const Buffer& total, Bindings& out) {
    std::vector<const Buffer*> all = common;
    all.insert(all.end(), {&total, &requests, &requestStarts, &buckets.order()});
    if (wideFile) all.push_back(&registers);
    return take(k->bindings(all), out);
  };
  MOTE_RETURN_IF_ERROR(set(*sim, buckets.result(), simulateSet));
  MOTE_RETURN_IF_ERROR(set(*emit, scanResult, emitSet));
  simulateKernel = *sim;
  emitKernel = *emit;
  return {};
}

Status ParticleWorld::Impl::useWideFile() {
  if (wide) return {};
  Result<Buffer> file = Buffer::create(
      *context, std::uint64_t{frame::kWideSlots} * frame::kWideGroups * frame::kGroup * 4,
      "the wide register file");
  if (!file.ok()) return std::move(file).status();
  registers = std::move(file).takeValue();
  MOTE_RETURN_IF_ERROR(useFramePasses(true));
  wide = true;
  return {};
}

std::uint32_t ParticleWorld::Impl::findProgram(const bytecode::Program& program,
                                               std::uint64_t hash) const {
  for (std::uint32_t i = 0; i < programSlots.size(); ++i)
    if (programSlots[i].hash == hash && programSlots[i].program == program) return i;
  return static_cast<std::uint32_t>(programSlots.size());
}

std::uint32_t ParticleWorld::Impl::programSlot(const SharedProgram& shared) {
  const bytecode::Program& p = shared.program;
  if (const std::uint32_t found = findProgram(p, shared.hash); found < programSlots.size())
    return found;
  ProgramSlot slot;
  slot.hash = shared.hash;
  slot.program = p;
  const auto append = [&](std::span<const std::uint32_t> code, std::uint32_t& at,
                          std::uint32_t& count) {
    at = static_cast<std::uint32_t>(programWords.size());
    count = static_cast<std::uint32_t>(code.size() / 4);
    programWords.insert(programWords.end(), code.begin(), code.end());
  };
  append(p.section(bytecode::Section::Init), slot.initAt, slot.initCount);
  append(p.section(bytecode::Section::Update), slot.updateAt, slot.updateCount);
  slot.constantsAt = static_cast<std::uint32_t>(programWords.size());
  for (const auto& c : p.constants)
    for (const float v : c)
      programWords.push_back(bits(v));
  programSlots.push_back(slot);
  programsDirty = true;
  return static_cast<std::uint32_t>(programSlots.size() - 1);
}

// Row `row`'s step block and context in `input`.
void ParticleWorld::Impl::writeStep(std::uint32_t row) {
  std::uint32_t* s = input + std::size_t{row} * frame::kStepWords;
  std::fill_n(s, frame::kStepWords, 0u);
  const EmitterRow& r = model->rows[row];
  std::uint32_t flags = resetPending[row] != 0 ? frame::kRowReset : 0u;
  s[frame::kStepGeneration] = rowGeneration[row];
  if (!r.alive) {
    s[frame::kStepFlags] = flags;
    return;
  }
  flags |= frame::kRowAlive;
  if (stepping[row] != 0) flags |= frame::kRowStepping;
  const emission::Window& w = r.window;
  if (w.start == w.t0 && w.span == w.dt) flags |= frame::kRowWindowIsStep;
  if (w.span > 0.0) flags |= frame::kRowSpans;
  if (w.dt > 0.0) flags |= frame::kRowMoves;
  s[frame::kStepFlags] = flags;
  s[frame::kStepCapacity] = r.capacity;
  s[frame::kStepCallFirst] = rowCallFirst[row];
  s[frame::kStepCallCount] = rowCallCount[row];
  const ProgramSlot& p = programSlots[rowProgram[row]];
  s[frame::kStepInitAt] = p.initAt;
  s[frame::kStepInitCount] = p.initCount;
  s[frame::kStepUpdateAt] = p.updateAt;
  s[frame::kStepUpdateCount] = p.updateCount;
  s[frame::kStepConstantsAt] = p.constantsAt;
  const std::uint32_t contextAt = contextsAt + row * desc.maxContextWords;
  s[frame::kStepContextAt] = contextAt;
  s[frame::kStepEmitterWords] = static_cast<std::uint32_t>(r.emitterWords.size());
  s[frame::kStepParticleWords] = r.words;
  s[frame::kStepSpace] = bytecode::movesWithEmitter(r.desc->space) ? 1u : 0u;
  s[frame::kStepEffectKey] = r.effect << 16 | r.index;
  const bytecode::ParticleChannels& ch = r.desc->channels;
  const auto word = [](std::int32_t channel) {
    return channel >= 0 ? static_cast<std::uint32_t>(channel) : 0xffffffffu;
  };
  s[frame::kStepPositionWord] = word(ch.position);
  s[frame::kStepBucket] = rowBucket[row];
  // The quad's extent, as the CPU's boundsInput reads it.
  s[frame::kStepSizeWord] = word(ch.size);
  const bytecode::RenderMode mode = r.desc->render.mode;
  const bool stretched =
      mode == bytecode::RenderMode::Stretched || mode == bytecode::RenderMode::VelocityAligned;
  s[frame::kStepVelocityWord] = stretched ? word(ch.velocity) : 0xffffffffu;
  s[frame::kStepStretch] = bits(1.7320508f * std::fabs(r.desc->render.stretchScaleSeconds));
  putU64(s + frame::kStepTick, r.steps);
  putU64(s + frame::kStepSeed, r.seed);
  putDouble(s + frame::kStepWindowStart, w.start);
  putDouble(s + frame::kStepSpan, w.span);
  putDouble(s + frame::kStepT0, w.t0);
  putDouble(s + frame::kStepDt, w.dt);
  putDouble(s + frame::kStepStop, w.t0 + w.dt);  // runtime_detail::stopOf
  putDouble(s + frame::kStepLoop, emission::loopLength(r.desc->emission));
  for (std::uint32_t c = 0; c < 3; ++c) {
    putDouble(s + frame::kStepStart + 2 * c, static_cast<double>(r.previous.position[c]));
    putDouble(s + frame::kStepPath + 2 * c,
              static_cast<double>(r.world.position[c] - r.previous.position[c]));
  }
  // The context: builtins, emitter words, globals (admit() checked they fit).
  std::uint32_t* c = input + contextAt;
  for (const auto& b : r.context.builtins)
    for (const float v : b)
      *c++ = bits(v);
  for (const float v : r.emitterWords)
    *c++ = bits(v);
  for (const auto& g : r.globals)
    for (const float v : g)
      *c++ = bits(v);
}

// The simulation order's buckets: one per program among the live rows (a program shared by
// emitters of many effects is one bucket), then the one for records that do not run.
void ParticleWorld::Impl::assignBuckets() {
  if (!bucketsDirty) return;
  slotBucket.assign(programSlots.size(), frame::kPadSlot);
  bucketCount = 0;
  for (std::uint32_t row = 0; row < rowCount; ++row) {
    if (!model->rows[row].alive) continue;
    std::uint32_t& b = slotBucket[rowProgram[row]];
    if (b == frame::kPadSlot) b = bucketCount++;
    rowBucket[row] = b;
  }
  ++bucketCount;
  bucketsDirty = false;
}

void ParticleWorld::Impl::recordFrame(VkCommandBuffer cmd, std::uint64_t inputUsed) const {
  // The last frame's reads of what this one overwrites come first (a host recording frames ahead).
  memoryBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT,
                VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT);
  if (timestamps != VK_NULL_HANDLE) {
    vkCmdResetQueryPool(cmd, timestamps, 0, 2);
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, timestamps, 0);
  }
  const VkBufferCopy in{0, 0, inputUsed * 4};
  vkCmdCopyBuffer(cmd, inbox.handle(), frameInput.handle(), 1, &in);
  if (callCount > 0) {
    const VkBufferCopy calls{std::uint64_t{callsAt} * 4, std::uint64_t{callsAt} * 4,
                             std::uint64_t{callCount} * frame::kCallWords * 4};
    vkCmdCopyBuffer(cmd, inbox.handle(), frameInput.handle(), 1, &calls);
  }
  if (programsDirty && !programWords.empty()) {
    const VkBufferCopy code{0, 0, programWords.size() * 4};
    vkCmdCopyBuffer(cmd, programStaging.handle(), programs.handle(), 1, &code);
  }
  transferToCompute(cmd);

  const std::uint32_t threads =
      wide ? frame::kWideGroups * frame::kGroup
           : std::max(1u, context->device().maxComputeWorkGroupCount[0]) * frame::kGroup;
  const std::uint32_t maxGroups = threads / frame::kGroup;
  const std::uint32_t requestCapacity = desc.maxSpawnRequests;
  const std::uint32_t rowGroups = (rowCount + frame::kGroup - 1) / frame::kGroup;
  // The world's totals count tick()s' steps only, as the CPU's do.
  const std::uint32_t rowsPush[] = {
      rowCount, parity, callsAt, maxGroups, model->ticking ? 1u : 0u, requestCapacity};
  rowsKernel->record(cmd, rowsSet, rowsPush, rowGroups);
  const std::uint32_t carry[] = {0, rowCount, parity, requestCapacity};
  requestsKernel->recordIndirect(cmd, requestsSet, carry, counters, frame::kCarryArgs * 4);
  scan.record(cmd, rowCount);
  buckets.record(cmd, {rowCount, capacity, stride, parity, bucketCount}, counters,
                 frame::kSimulateArgs * 4);
  const std::uint32_t pass[] = {rowCount, capacity, stride,  parity,
                                callsAt,  windAt,   threads, requestCapacity};
  simulateKernel->recordIndirect(cmd, simulateSet, pass, buckets.result(), 4);
  emitKernel->recordIndirect(cmd, emitSet, pass, scanResult, 4);
  // This frame's requests sorted for the next one (one workgroup: requests.comp).
  const std::uint32_t sort[] = {1, rowCount, parity, requestCapacity};
  requestsKernel->record(cmd, requestsSet, sort, 1);
  // The alive list this frame leaves: its indirect arguments, then its boxes.
  const std::uint32_t args[] = {rowCount, parity, maxGroups};
  argsKernel->record(cmd, argsSet, args, 1);
  const std::uint32_t accumulate[] = {0, rowCount, capacity, stride, parity, rowsCapacity};
  boundsKernel->recordIndirect(cmd, boundsSet, accumulate, counters, frame::kBoundsArgs * 4);
  const std::uint32_t publish[] = {1, rowCount, capacity, stride, parity, rowsCapacity};
  boundsKernel->record(cmd, boundsSet, publish, rowGroups);
  if (timestamps != VK_NULL_HANDLE)
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, timestamps, 1);

  // The outbox: counters, row state, boxes, for the host once the frame has completed.
  const VkBufferCopy out[] = {
      {0, 0, frame::kCounterWords * 4},
      {0, std::uint64_t{outboxRowsAt} * 4, std::uint64_t{rowCount} * frame::kRowWords * 4},
      {0, std::uint64_t{outboxBoxesAt} * 4, std::uint64_t{rowCount} * frame::kBoxWords * 4}};
  vkCmdCopyBuffer(cmd, counters.handle(), outbox.handle(), 1, &out[0]);
  if (rowCount > 0) {
    vkCmdCopyBuffer(cmd, rowState.handle(), outbox.handle(), 1, &out[1]);
    vkCmdCopyBuffer(cmd, published.handle(), outbox.handle(), 1, &out[2]);
  }
  memoryBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
}

Status ParticleWorld::Impl::runFrame() {
  assignBuckets();
  for (std::uint32_t row = 0; row < rowCount; ++row)
    writeStep(row);
  // The wind: the host's uniform wind, then the force events' bursts.
  std::uint32_t* wnd = input + windAt;
  for (std::uint32_t c = 0; c < 3; ++c)
    wnd[c] = bits(wind[c]);
  const emission::ForceBursts& bursts = model->bursts;
  wnd[frame::kWindBursts] = bursts.size();
  for (std::uint32_t b = 0; b < bursts.size(); ++b) {
    std::uint32_t* at = wnd + frame::kWindHeaderWords + b * frame::kBurstWords;
    const emission::ForceBursts::Burst& burst = bursts[b];
    at[0] = bits(burst.centre[0]);
    at[1] = bits(burst.centre[1]);
    at[2] = bits(burst.centre[2]);
    at[3] = bits(burst.radius);
    at[4] = bits(burst.strength);
  }
  if (programsDirty) std::copy(programWords.begin(), programWords.end(), programStaging.mapped());
  const std::uint64_t inputUsed = contextsAt + std::uint64_t{rowCount} * desc.maxContextWords;
  if (hostCommands != VK_NULL_HANDLE) {  // recordTick: the host submits; the boxes come later
    recordFrame(hostCommands, inputUsed);
    programsDirty = false;
    boxesPending = true;
    return {};
  }
  MOTE_RETURN_IF_ERROR(
      context->impl().submit([&](VkCommandBuffer cmd) { recordFrame(cmd, inputUsed); }));
  programsDirty = false;
  boxesPending = true;
  return {};
}

void ParticleWorld::Impl::takeFrame() {
  if (!boxesPending) return;
  boxesPending = false;
  if (timestamps != VK_NULL_HANDLE) {
    std::array<std::uint64_t, 2> at{};
    const VkResult r =
        vkGetQueryPoolResults(context->impl().device, timestamps, 0, 2, sizeof(at), at.data(),
                              sizeof(std::uint64_t), VK_QUERY_RESULT_64_BIT);
    frameSeconds = r == VK_SUCCESS && at[1] >= at[0]
                       ? static_cast<double>(at[1] - at[0]) *
                             static_cast<double>(context->device().timestampPeriod) * 1e-9
                       : 0.0;
  }
  const std::uint32_t* box = outbox.mapped() + outboxBoxesAt;
  for (std::uint32_t row = 0; row < rowCount; ++row, box += frame::kBoxWords) {
    if (resetPending[row] != 0) continue;  // a new tenant or a restart since: no box yet
    Bounds& b = model->rows[row].bounds;
    b.known = box[6] != 0;
    for (std::size_t c = 0; c < 3; ++c) {
      b.min[c] = b.known ? std::bit_cast<float>(box[c]) : 0.0f;
      b.max[c] = b.known ? std::bit_cast<float>(box[3 + c]) : 0.0f;
    }
  }
}

void ParticleWorld::Impl::step(std::span<const std::uint32_t> stepRows, double /*dt*/) {
  if (healthy().ok()) {
    for (const std::uint32_t row : stepRows)
      stepping[row] = 1;
    error = runFrame();
    if (error.ok()) {
      parity ^= 1u;
      std::fill(resetPending.begin(), resetPending.begin() + rowCount, std::uint8_t{0});
      if (hostCommands == VK_NULL_HANDLE) takeFrame();  // a recorded frame's: at the next call
    }
  }
  for (const std::uint32_t row : stepRows) {
    stepping[row] = 0;
    rowCallCount[row] = 0;
  }
  callCount = 0;
}

void ParticleWorld::Impl::spawnCall(std::uint32_t row, std::uint32_t count,
                                    const emission::BirthTimes& birth) {
  EmitterRow& r = model->rows[row];
  if (count == 0) return;
  if (callCount >= desc.maxSpawnCalls) {  // counted as dropped, never a larger buffer
    r.hostDropped += count;
    if (model->ticking) hostDroppedTotal += count;
    return;
  }
  if (rowCallCount[row] == 0) rowCallFirst[row] = callCount;
  ++rowCallCount[row];
  std::uint32_t* c = input + callsAt + std::size_t{callCount++} * frame::kCallWords;
  c[frame::kCallCount] = count;
  c[frame::kCallFlags] = birth.constant ? 1u : 0u;
  putDouble(c + frame::kCallFrom, birth.from);
  putDouble(c + frame::kCallScale, birth.scale);
  putDouble(c + frame::kCallBefore, birth.before);
  putDouble(c + frame::kCallAmount, birth.amount);
}

namespace {
std::uint32_t nextGeneration(std::uint32_t g) {
  return g + 1 == 0 ? 1 : g + 1;
}
}  // namespace

void ParticleWorld::Impl::drop(std::uint32_t /*row*/, std::uint64_t count) {
  if (model->ticking)
    hostDroppedTotal += count;  // the row's own count is the host model's (EmitterRow::hostDropped)
}

void ParticleWorld::Impl::reset(std::uint32_t row) {
  release(row);  // the row's records are void from now on
  bucketsDirty = true;
  rowProgram[row] = programSlot(*model->rows[row].program);
  rowCount = std::max(rowCount, row + 1);
}

void ParticleWorld::Impl::release(std::uint32_t row) {
  resetPending[row] = 1;  // its particles go in the next simulate pass (the generation moved on)
  bucketsDirty = true;
  rowGeneration[row] = nextGeneration(rowGeneration[row]);
}

Status ParticleWorld::Impl::download(const Buffer& buffer, std::vector<std::uint32_t>& out,
                                     std::uint64_t words, std::uint64_t offset) {
  out.resize(words);
  if (words == 0) return {};
  return buffer.download(out, offset);
}

// The host model's counts from the outbox the last frame filled.
void ParticleWorld::Impl::syncStats() {
  const std::uint32_t* totals = outbox.mapped();
  WorldStats& s = model->stats;
  s.live = s.spawned = s.dropped = s.died = 0;
  s.emitSeconds = s.compactSeconds = 0.0;
  s.simulateSeconds = frameSeconds;  // the whole frame on the GPU's clock
  s.spawnedTotal = getU64(totals + frame::kSpawnedTotal);
  s.droppedTotal = getU64(totals + frame::kDroppedTotal) + hostDroppedTotal;
  for (const std::uint32_t row : model->order) {
    EmitterRow& r = model->rows[row];
    const std::uint32_t* g = totals + outboxRowsAt + std::size_t{row} * frame::kRowWords;
    if (resetPending[row] != 0) {  // restarted or placed since the last frame: empty until it runs
      r.live = 0;
      r.stepSpawned = r.stepDropped = r.stepDied = 0;
      r.spawned = r.died = 0;
      r.dropped = r.hostDropped;
      continue;
    }
    r.live = g[frame::kRowLive];
    r.stepSpawned = g[frame::kRowStepSpawned];
    r.stepDropped = g[frame::kRowStepDropped];
    r.stepDied = g[frame::kRowStepDied];
    r.spawned = getU64(g + frame::kRowSpawned);
    r.dropped = getU64(g + frame::kRowDropped) + r.hostDropped;
    r.died = getU64(g + frame::kRowDied) + r.stepDied;
    s.live += r.live;
    s.spawned += r.stepSpawned;
    s.dropped += r.stepDropped;
    s.died += r.stepDied;
  }
}

Status ParticleWorld::Impl::syncParticles() {
  const std::uint32_t* count = outbox.mapped();
  const std::uint32_t n = count[parity == 0 ? frame::kAlive0 : frame::kAlive1];
  if (n > capacity)
    return Status(StatusCode::Internal,
                  fmt::format("readParticles: the GPU's alive list counts {} particles in a pool "
                              "of {}",
                              n, capacity));
  std::vector<std::uint32_t> slots;
  MOTE_RETURN_IF_ERROR(download(alive, slots, n, std::uint64_t{parity} * capacity));
  std::vector<std::uint32_t> pool;
  MOTE_RETURN_IF_ERROR(download(records, pool, std::uint64_t{capacity} * stride));
  syncStats();
  // Each live row's particles in id order: (row, id, slot) keys sorted.
  struct Key {
    std::uint32_t row, id, slot;
  };
  std::vector<Key> keys;
  keys.reserve(n);
  for (const std::uint32_t slot : slots) {
    const std::uint32_t* rec = pool.data() + std::size_t{slot} * stride;
    const std::uint32_t row = rec[0];
    if (row >= rowCount) continue;
    const EmitterRow& r = model->rows[row];
    if (!r.alive || rowGeneration[row] != rec[1]) continue;  // removed, restarted, or died at birth
    keys.push_back({row, rec[2], slot});
  }
  std::sort(keys.begin(), keys.end(), [](const Key& a, const Key& b) {
    return a.row != b.row ? a.row < b.row : a.id < b.id;
  });
  for (const std::uint32_t row : model->order)
    model->rows[row].live = 0;
  for (const Key& k : keys) {
    EmitterRow& r = model->rows[k.row];
    if (r.live >= r.capacity) {
      return Status(StatusCode::Internal,
                    fmt::format("readParticles: emitter '{}' holds more particles than its "
                                "capacity {} on the GPU",
                                r.desc->name, r.capacity));
    }
    const std::uint32_t i = r.live++;
    r.ids[i] = k.id;
    const std::uint32_t* words = pool.data() + std::size_t{k.slot} * stride + frame::kHeaderWords;
    for (std::uint32_t w = 0; w < r.words; ++w)
      r.streams[w][i] = std::bit_cast<float>(words[w]);
  }
  for (const std::uint32_t row : model->order) {
    EmitterRow& r = model->rows[row];
    // A row restarted (or newly placed) since the last frame holds no particles until it runs.
    const std::uint32_t counted =
        resetPending[row] != 0
            ? 0
            : count[outboxRowsAt + std::size_t{row} * frame::kRowWords + frame::kRowLive];
    if (counted != r.live) {
      return Status(StatusCode::Internal,
                    fmt::format("readParticles: emitter '{}' counts {} live particles on the GPU "
                                "but its records hold {}",
                                r.desc->name, counted, r.live));
    }
    r.usedSegments = 0;                              // the bounds are the GPU's (takeFrame)
    r.version = runtime_detail::nextStateVersion();  // the views show the GPU's particles now
  }
  return {};
}

}  // namespace mote::gpu
