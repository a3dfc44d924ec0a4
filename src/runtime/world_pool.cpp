// SPDX-License-Identifier: MIT
// ParticleWorld's pool (docs/runtime.md, "One tick", steps 3 and 5: the budget clamp and kill
// compaction): an emitter row's slab of SoA streams and per-particle arrays, its reset and release,
// and the compaction that keeps the live particles a prefix.
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
  r.stride = (r.capacity + 15u) & ~15u;
  r.storage.assign(std::size_t{r.words} * r.stride, 0.0f);
  r.streams.resize(r.words);
  for (std::uint32_t word = 0; word < r.words; ++word)
    r.streams[word] = r.storage.data() + std::size_t{word} * r.stride;
  r.ids.assign(r.stride, 0);
  r.killed.assign(r.stride, 0);
  r.lanes.assign(std::size_t{kLaneArrays} * r.stride, 0.0f);
  const std::uint32_t segments = (r.capacity + chunkParticles - 1) / chunkParticles + 1;
  r.segments.assign(segments, {});
  if (r.program->spawns) {
    r.requestsPerSegment = std::min(chunkParticles, r.capacity) * r.program->spawnOps;
    r.requests.resize(std::size_t{segments} * r.requestsPerSegment);
    r.ordered.resize(std::size_t{r.capacity} * r.program->spawnOps);
  }
}

void moveParticle(EmitterRow& r, std::uint32_t from, std::uint32_t to) {
  for (float* stream : r.streams)
    stream[to] = stream[from];
  r.ids[to] = r.ids[from];
}

// The first killed particle in [i, end), or end. The VM sets a flag to 1: memchr skips runs of
// survivors a vector at a time.
std::uint32_t nextKilled(const std::uint8_t* killed, std::uint32_t i, std::uint32_t end) {
  if (i >= end) return end;
  const void* at = std::memchr(killed + i, 1, end - i);
  return at == nullptr ? end
                       : static_cast<std::uint32_t>(static_cast<const std::uint8_t*>(at) - killed);
}

// Order-preserving compaction of [0, n) from its first killed particle `i`; returns the survivors.
std::uint32_t compactInOrder(EmitterRow& r, std::uint32_t n, std::uint32_t i) {
  const std::uint8_t* killed = r.killed.data();
  std::uint32_t to = i;
  for (std::uint32_t from = i; from < n; ++from) {
    if (killed[from] != 0) continue;
    moveParticle(r, from, to++);
  }
  return to;
}

// Swap-removal of the killed particles of [0, n) from the first one, `i`; returns the survivors.
std::uint32_t compactBySwap(EmitterRow& r, std::uint32_t n, std::uint32_t i) {
  const std::uint8_t* killed = r.killed.data();
  while (i < n) {
    // i is killed: fill it from the last survivor, skipping runs of eight killed at a time.
    --n;
    while (n >= i + 8) {
      std::uint64_t block;
      std::memcpy(&block, killed + n - 7, 8);
      if (block != 0x0101010101010101u) break;
      n -= 8;
    }
    while (n > i && killed[n] != 0)
      --n;
    if (n == i) break;
    moveParticle(r, n, i);
    i = nextKilled(killed, i + 1, n);
  }
  return n;
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
  for (ChunkOutput& s : r.segments)
    s = {};
  const EffectSlot& e = effects[r.effect];
  r.world = emission::emitterTransform(e.current, *r.desc);
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

// Removes the killed particles of [0, live + newborn): swap-removal, or order-preserving where
// the render mode draws particles as a chain in age order. Complexity: O(live + newborn).
// Allocates: never.
void ParticleWorld::Impl::compact(EmitterRow& r) {
  const std::uint32_t total = r.live + r.newborn;
  r.newborn = 0;
  const bool ordered = r.desc->render.mode == bytecode::RenderMode::LinkedChain ||
                       r.desc->render.mode == bytecode::RenderMode::Beam;
  const std::uint32_t first = nextKilled(r.killed.data(), 0, total);
  const std::uint32_t n =
      ordered ? compactInOrder(r, total, first) : compactBySwap(r, total, first);
  r.stepDied = total - n;
  r.live = n;
}

// The step's SPAWN requests of `r` in (source id, seq) order — the order a target emits them in,
// whatever chunks (or, on the GPU, atomics) gathered them. Complexity: O(q log q) for q requests.
// Allocates: never.
void ParticleWorld::Impl::orderRequests(EmitterRow& r) {
  r.orderedCount = 0;
  if (!r.program->spawns) return;
  for (std::uint32_t s = 0; s < r.usedSegments; ++s) {
    const SpawnRequest* from = r.requests.data() + std::size_t{s} * r.requestsPerSegment;
    for (std::uint32_t q = 0; q < r.segments[s].count; ++q) {
      SpawnRequest& to = r.ordered[r.orderedCount];
      to = from[q];
      to.seq = r.orderedCount++;
    }
  }
  std::sort(r.ordered.begin(), r.ordered.begin() + r.orderedCount,
            [](const SpawnRequest& a, const SpawnRequest& b) {
              return a.source != b.source ? a.source < b.source : a.seq < b.seq;
            });
}

}  // namespace mote
