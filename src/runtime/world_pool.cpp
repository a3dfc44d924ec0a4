// SPDX-License-Identifier: MIT
// ParticleWorld's pool (docs/runtime.md, "One tick", steps 3 and 5: the budget clamp and kill
// compaction): an emitter row's slab of SoA streams and per-particle arrays, its reset and release,
// and the compaction that keeps the live particles a prefix.
#include "compact.h"
#include "world_impl.h"

#include <mote/runtime/world.h>

#include <algorithm>
#include <cstring>

namespace mote {

// The world's private types and helpers (world_impl.h).
using namespace runtime_detail;

namespace {

// The slab of `r` (capacity, words and program set): the particle streams, ids, kill flags,
// spawn lanes, the chunks' outputs and, for a program that spawns, their request segments.
// `chunkParticles` as in WorldDesc.
void allocateSlab(EmitterRow& r, std::uint32_t chunkParticles) {
  // Room for compact.h's vectors, and an odd number of 64-byte lines: streams a power of two
  // apart share their L1 sets (4,096 particles of 13 words thrashed a 12-way cache, and the kill
  // compaction of such an emitter took 3.5 times as long).
  r.stride = (r.capacity + kCompactLanes - 1) / kCompactLanes * kCompactLanes;
  if (r.stride / kCompactLanes % 2 == 0) r.stride += kCompactLanes;
  r.storage.assign(std::size_t{r.words} * r.stride, 0.0f);
  r.streams.resize(r.words);
  for (std::uint32_t word = 0; word < r.words; ++word)
    r.streams[word] = r.storage.data() + std::size_t{word} * r.stride;
  r.ids.assign(r.stride, 0);
  if (r.desc->emission.sourceEmitter >= 0) r.sources.assign(r.stride, 0);
  r.killed.assign(r.stride, 0);
  r.lanes.assign(
      std::size_t{r.program->readsSource ? kLaneArraysWithSource : kLaneArrays} * r.stride, 0.0f);
  const std::uint32_t segments = (r.capacity + chunkParticles - 1) / chunkParticles + 1;
  r.segments.assign(segments, {});
  if (r.program->spawns) {
    r.requestsPerSegment = std::min(chunkParticles, r.capacity) * r.program->spawnOps;
    r.requests.resize(std::size_t{segments} * r.requestsPerSegment);
    r.ordered.resize(std::size_t{r.capacity} * r.program->spawnOps);
  }
  if (r.program->reportOps > 0) {
    r.reportsPerSegment = std::min(chunkParticles, r.capacity) * r.program->reportOps;
    r.reports.resize(std::size_t{segments} * r.reportsPerSegment);
    r.orderedReports.resize(std::size_t{r.capacity} * r.program->reportOps);
  }
}

// The first killed particle in [0, end), or end. The VM sets a flag to 1: memchr skips runs of
// survivors a vector at a time.
std::uint32_t firstKilled(const std::uint8_t* killed, std::uint32_t end) {
  const void* at = std::memchr(killed, 1, end);
  return at == nullptr ? end
                       : static_cast<std::uint32_t>(static_cast<const std::uint8_t*>(at) - killed);
}

}  // namespace

// Makes `r` (a free row) emitter `index` of effect slot `effect` (placed, its options set):
// its descriptor, shared program and linked global slots, its slab, emitter words and seed, then
// reset. Allocates the slab: O(capacity · words).
void ParticleWorld::Impl::placeRow(EmitterRow& r, std::uint32_t effect, std::uint32_t index,
                                   std::shared_ptr<const SharedProgram> program,
                                   std::span<const std::uint32_t> slots) {
  const EffectSlot& e = effects[effect];
  const bytecode::CompiledEmitter& d = e.effect->emitters[index];
  r.alive = true;
  if (r.generation == 0) r.generation = 1;
  r.effect = effect;
  r.index = index;
  r.desc = &d;
  r.program = std::move(program);
  r.words = d.program.particleWords;
  r.capacity = d.maxParticles;
  allocateSlab(r, desc.chunkParticles);
  if (hashKeys.size() < r.capacity) {
    hashKeys.resize(r.capacity);
  }
  r.emitterWords.assign(d.emitterFieldValues.begin(),
                        d.emitterFieldValues.begin() + d.program.emitterWords);
  r.globalSlots.assign(slots.begin(), slots.end());
  r.globals.assign(r.globalSlots.size(), {});
  r.lastEmission = emission::lastEmission(d.emission);
  r.seed = emission::emitterSeed(d.seed, e.options.seed, index);
  particlesInUse += r.capacity;
  resetRow(r);
}

void ParticleWorld::Impl::resetRow(EmitterRow& r) {
  r.version = runtime_detail::nextStateVersion();
  r.live = 0;
  r.newborn = 0;
  r.spawnRunCount = 0;
  r.nextId = 0;
  r.steps = 0;
  r.clock = {};
  r.culled = false;
  r.velocity = {0.0f, 0.0f, 0.0f};
  r.bounds = {};
  r.spawned = r.dropped = r.died = 0;
  r.stepSpawned = r.stepDropped = r.stepDied = 0;
  r.usedSegments = 0;
  r.orderedCount = 0;
  r.orderedReportCount = 0;
  for (ChunkOutput& s : r.segments)
    s = {};
  const EffectSlot& e = effects[r.effect];
  r.world = emission::emitterTransform(e.current, *r.desc, 0.0);
  r.previous = r.world;
  r.hostDropped = 0;
  if (backend != nullptr) backend->reset(static_cast<std::uint32_t>(&r - rows.data()));
}

void ParticleWorld::Impl::freeRow(std::uint32_t row) {
  EmitterRow& r = rows[row];
  if (backend != nullptr) backend->release(row);
  particlesInUse -= r.capacity;
  const std::uint32_t generation = r.generation + 1 == 0 ? 1 : r.generation + 1;
  r = EmitterRow{};  // frees the slabs; a later tenant starts from nothing
  r.generation = generation;
  // Programs nobody runs any more leave the cache.
  std::erase_if(programs,
                [](const std::shared_ptr<SharedProgram>& p) { return p.use_count() == 1; });
}

// Removes the killed particles of [0, live + newborn), keeping the survivors in order (spawn
// order: ids ascend through the streams). Complexity: O(live + newborn − first killed) · words, a
// SIMD vector of particles at a time. Allocates: never.
void ParticleWorld::Impl::compact(EmitterRow& r) {
  const std::uint32_t total = r.live + r.newborn;
  r.newborn = 0;
  const CompactInput in{.streams = r.streams,
                        .ids = r.ids.data(),
                        .sources = r.sources.empty() ? nullptr : r.sources.data(),
                        .killed = r.killed.data(),
                        .count = total,
                        .first = firstKilled(r.killed.data(), total)};
  const std::uint32_t n = compactInOrder(in);
  r.stepDied = total - n;
  r.live = n;
}

namespace {

// Requests and reports sort by the asking particle's id, then its own order.
constexpr auto bySourceThenSeq = [](const auto& a, const auto& b) {
  return a.source != b.source ? a.source < b.source : a.seq < b.seq;
};

// The records the chunks left — segment s holds count(s) of them from s × perSegment — copied into
// `ordered` in (source id, seq) order, seq their place in segment order: the order whatever
// chunks (or, on the GPU, atomics) gathered them. Returns how many. Complexity: O(q) for records
// already in that order, O(q log q) else. Allocates: never.
template <class Record, class Count>
std::uint32_t gatherInOrder(const std::vector<Record>& records, std::uint32_t perSegment,
                            std::uint32_t segments, Count count, std::vector<Record>& ordered) {
  std::uint32_t n = 0;
  for (std::uint32_t s = 0; s < segments; ++s) {
    const Record* from = records.data() + std::size_t{s} * perSegment;
    for (std::uint32_t q = 0; q < count(s); ++q) {
      ordered[n] = from[q];
      ordered[n].seq = n;
      ++n;
    }
  }
  // The CPU's slots keep spawn order (kill compaction), so the records are already in order but
  // after an emitter's u32 ids wrap: the check is O(q), the sort only then.
  if (!std::is_sorted(ordered.begin(), ordered.begin() + n, bySourceThenSeq))
    std::sort(ordered.begin(), ordered.begin() + n, bySourceThenSeq);
  return n;
}

}  // namespace

// The step's SPAWN requests of `r` in the order a target emits them in.
void ParticleWorld::Impl::orderRequests(EmitterRow& r) {
  r.orderedCount = r.program->spawns
                       ? gatherInOrder(
                             r.requests, r.requestsPerSegment, r.usedSegments,
                             [&](std::uint32_t s) { return r.segments[s].count; }, r.ordered)
                       : 0;
  r.requestsDt = r.stepDt;
}

// The step's REPORTs of `r` in the order the host reads them in.
void ParticleWorld::Impl::orderReports(EmitterRow& r) {
  r.orderedReportCount =
      r.program->reportOps > 0
          ? gatherInOrder(
                r.reports, r.reportsPerSegment, r.usedSegments,
                [&](std::uint32_t s) { return r.segments[s].reports; }, r.orderedReports)
          : 0;
}

// The step's reports of every row, in the rows' order, into `events` (maxEventsPerEmitter a row;
// the rest counted), in world space. Serial. Allocates: never (reserveEvents made the room).
void ParticleWorld::Impl::collectEvents(std::span<const std::uint32_t> stepRowList,
                                        WorldStats& out) {
  for (const std::uint32_t row : stepRowList) {
    const EmitterRow& r = rows[row];
    if (r.orderedReportCount == 0) continue;
    const std::uint32_t kept = std::min(r.orderedReportCount, desc.maxEventsPerEmitter);
    out.eventsDropped += r.orderedReportCount - kept;
    const bool local = bytecode::movesWithEmitter(r.desc->space);
    for (std::uint32_t q = 0; q < kept && eventCount < events.size(); ++q) {
      const ReportRecord& from = r.orderedReports[q];
      HostEvent& e = events[eventCount++];
      e.kind = from.kind;
      e.tag = from.tag;
      e.emitter = EmitterHandle{row, r.generation};
      e.particle = from.source;
      e.position = from.position;
      e.velocity = from.velocity;
      e.time = time;
      if (local) {
        const Vec3 turned = rotate(r.world.rotation, e.position);
        for (std::size_t c = 0; c < 3; ++c)
          e.position[c] = r.world.position[c] + turned[c];
        e.velocity = rotate(r.world.rotation, e.velocity);
      }
    }
  }
  out.events = eventCount;
}

}  // namespace mote
