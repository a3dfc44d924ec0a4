// SPDX-License-Identifier: MIT
// ParticleWorld (docs/runtime.md): creating a world, placing and removing effects, the host's
// setters, restart and seek, and the readers. The tick lives in world_tick.cpp, the emission
// schedule in world_emission.cpp, slabs and kill compaction in world_pool.cpp; world_impl.h holds
// the state they share.
#include "world_impl.h"

#include <mote/core/assert.h>
#include <mote/core/fnv1a.h>
#include <mote/runtime/vm.h>
#include <mote/runtime/world.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace mote {

using bytecode::CompiledEffect;
using bytecode::CompiledEmission;
using bytecode::CompiledEmitter;
using bytecode::EmissionMode;
using bytecode::Section;
// The world's private types and helpers (world_impl.h).
using namespace runtime_detail;

std::uint64_t runtime_detail::nextStateVersion() noexcept {
  static std::atomic<std::uint64_t> clock{0};
  return clock.fetch_add(1, std::memory_order_relaxed) + 1;
}

namespace {

constexpr double kSeekStep = 1.0 / 60.0;

bool finiteTransform(const Transform& t) {
  return finite(t.position) && std::isfinite(t.rotation[0]) && std::isfinite(t.rotation[1]) &&
         std::isfinite(t.rotation[2]) && std::isfinite(t.rotation[3]);
}

// What addEffect prepares before it commits anything: its copy of the effect, each emitter's
// shared program and world global slots, and the globals the effect adds to the world.
struct EffectPlan {
  std::unique_ptr<CompiledEffect> effect;
  std::vector<std::shared_ptr<SharedProgram>> shared;
  std::vector<std::vector<std::uint32_t>> globalSlots;
  std::vector<Global> newGlobals;
};

// Room in the world for `effect`: an effect slot (`freeEffect`), emitter rows and particle slots;
// and a finite transform in `options`. BudgetExhausted or InvalidArgument naming what is short.
Status checkRoom(const ParticleWorld::Impl& w, bool freeEffect, const CompiledEffect& effect,
                 const EffectOptions& options) {
  if (!freeEffect) {
    return budgetExhausted("addEffect: the world holds its maximum of " +
                           std::to_string(w.desc.maxEffects) + " effects");
  }
  std::uint32_t freeRows = 0;
  for (const EmitterRow& r : w.rows)
    freeRows += r.alive ? 0 : 1;
  if (effect.emitters.size() > freeRows) {
    return budgetExhausted("addEffect: '" + effect.name + "' has " +
                           std::to_string(effect.emitters.size()) + " emitters; the world has " +
                           std::to_string(freeRows) + " free of " +
                           std::to_string(w.desc.maxEmitters));
  }
  std::uint64_t particles = 0;
  for (const CompiledEmitter& e : effect.emitters)
    particles += e.maxParticles;
  if (w.particlesInUse + particles > w.desc.maxParticles) {
    return budgetExhausted("addEffect: '" + effect.name + "' needs " + std::to_string(particles) +
                           " particle slots; " +
                           std::to_string(w.desc.maxParticles - w.particlesInUse) + " of " +
                           std::to_string(w.desc.maxParticles) + " are free");
  }
  if (!finiteTransform(options.transform))
    return invalidArgument("addEffect: the transform is not finite");
  return {};
}

// An emitter's own limits (`where` names it in the message).
Status validateEmitter(const CompiledEmitter& e, const std::string& where) {
  if (e.maxParticles == 0 || e.maxParticles > (1u << 26)) {
    return invalidArgument(where + "max_particles must be in [1, 2^26]");
  }
  if (e.emitterFieldValues.size() < e.program.emitterWords) {
    return invalidArgument(where + "fewer emitter field values than the program's words");
  }
  return {};
}

// `program` (content hash `hash`) verified and prepared for the VM, to be shared.
Result<std::shared_ptr<SharedProgram>> prepareProgram(const bytecode::Program& program,
                                                      std::uint64_t hash,
                                                      const std::string& where) {
  Result<bytecode::VerifiedProgram> verified = bytecode::verify(program);
  if (!verified.ok()) return invalidArgument(where + verified.status().message());
  auto p = std::make_shared<SharedProgram>();
  p->hash = hash;
  p->program = program;
  p->prepared = PreparedProgram::prepare(verified.value());
  p->spawnOps = program.spawnOps();
  p->spawns = p->spawnOps > 0;
  p->reportOps = program.countOf(bytecode::Opcode::Report);
  for (const bytecode::Builtin b : {bytecode::Builtin::SourceVelocity,
                                    bytecode::Builtin::SourceSize, bytecode::Builtin::SourceColor})
    p->readsSource = p->readsSource || program.loadsBuiltin(bytecode::Section::Init, b);
  return p;
}

// Emitter i's program: one the world or an earlier emitter of the plan already runs with the
// same content, else verified and prepared anew.
Status shareProgram(const ParticleWorld::Impl& w, EffectPlan& plan, std::size_t i,
                    const std::string& where) {
  const bytecode::Program& program = plan.effect->emitters[i].program;
  std::vector<std::shared_ptr<SharedProgram>>& shared = plan.shared;
  const std::uint64_t hash = bytecode::contentHash(program);
  for (const auto& p : w.programs)
    if (p->hash == hash && p->program == program) shared[i] = p;
  for (std::size_t j = 0; j < i && !shared[i]; ++j)
    if (shared[j]->hash == hash && shared[j]->program == program) shared[i] = shared[j];
  if (shared[i]) return {};
  Result<std::shared_ptr<SharedProgram>> p = prepareProgram(program, hash, where);
  if (!p.ok()) return p.status();
  shared[i] = std::move(p.value());
  return {};
}

// The slot of the global `name`: the world's, then the plan's new ones after them; kNone.
std::uint32_t findGlobal(const ParticleWorld::Impl& w, const EffectPlan& plan,
                         const std::string& name) {
  for (std::size_t i = 0; i < w.globals.size(); ++i)
    if (w.globals[i].name == name) return static_cast<std::uint32_t>(i);
  for (std::size_t i = 0; i < plan.newGlobals.size(); ++i)
    if (plan.newGlobals[i].name == name) return static_cast<std::uint32_t>(w.globals.size() + i);
  return kNone;
}

// Links emitter i's global imports by name; a name the world does not know yet is added with the
// effect's declared value. BudgetExhausted past maxGlobals; InvalidArgument for a width mismatch.
Status linkGlobals(const ParticleWorld::Impl& w, EffectPlan& plan, std::size_t i,
                   const std::string& where) {
  std::vector<Global>& newGlobals = plan.newGlobals;
  for (const bytecode::GlobalImport& import : plan.effect->emitters[i].program.globals) {
    std::uint32_t slot = findGlobal(w, plan, import.name);
    if (slot == kNone) {
      if (w.globals.size() + newGlobals.size() >= w.desc.maxGlobals) {
        return budgetExhausted(where + "global '" + import.name + "' would exceed the world's " +
                               std::to_string(w.desc.maxGlobals) + " globals");
      }
      Global g{import.name, import.width, {}};
      for (const bytecode::GlobalFieldDecl& d : plan.effect->globals)
        if (d.name == import.name && d.width == import.width) g.value = d.value;
      newGlobals.push_back(std::move(g));
      slot = static_cast<std::uint32_t>(w.globals.size() + newGlobals.size() - 1);
    }
    const std::uint32_t width =
        slot < w.globals.size() ? w.globals[slot].width : newGlobals[slot - w.globals.size()].width;
    if (width != import.width) {
      return invalidArgument(where + "global '" + import.name + "' is " +
                             std::to_string(import.width) + " wide; the world's is " +
                             std::to_string(width));
    }
    plan.globalSlots[i].push_back(slot);
  }
  return {};
}

// Verifies, prepares and shares the programs of `effect` and links their globals, emitter by
// emitter; nothing in the world changes.
Result<EffectPlan> planEffect(const ParticleWorld::Impl& w, const CompiledEffect& effect) {
  EffectPlan plan;
  plan.effect = std::make_unique<CompiledEffect>(effect);
  plan.shared.resize(plan.effect->emitters.size());
  plan.globalSlots.resize(plan.effect->emitters.size());
  for (std::size_t i = 0; i < plan.effect->emitters.size(); ++i) {
    const CompiledEmitter& e = plan.effect->emitters[i];
    const std::string where = "addEffect: '" + plan.effect->name + "' emitter '" + e.name + "': ";
    if (Status s = validateEmitter(e, where); !s.ok()) return s;
    if (Status s = shareProgram(w, plan, i, where); !s.ok()) return s;
    if (Status s = linkGlobals(w, plan, i, where); !s.ok()) return s;
  }
  return plan;
}

// VMs with room for the registers every program of `shared` needs (the world's are replaced
// only when one needs more than they have).
Status growVms(ParticleWorld::Impl& w, const std::vector<std::shared_ptr<SharedProgram>>& shared) {
  std::uint32_t rowsNeeded = 0;
  for (const auto& p : shared)
    rowsNeeded = std::max(rowsNeeded, p->prepared.rowsNeeded());
  if (rowsNeeded <= w.vmRows) return {};
  std::vector<BatchVm> vms;
  for (std::size_t i = 0; i < w.vms.size(); ++i) {
    Result<BatchVm> vm = BatchVm::create(rowsNeeded);
    if (!vm.ok()) return std::move(vm).status();
    vms.push_back(std::move(vm.value()));
  }
  w.vms = std::move(vms);
  w.vmRows = rowsNeeded;
  return {};
}

// Commits `plan` into the free effect slot `slot`: the new globals and programs, the slot, and
// an emitter row per emitter (the first free rows, in order). Returns the effect's handle.
EffectHandle commitEffect(ParticleWorld::Impl& w, std::uint32_t slot, EffectPlan&& plan,
                          const EffectOptions& options) {
  for (Global& g : plan.newGlobals)
    w.globals.push_back(std::move(g));
  for (const auto& p : plan.shared)
    if (std::find(w.programs.begin(), w.programs.end(), p) == w.programs.end())
      w.programs.push_back(p);
  EffectSlot& e = w.effects[slot];
  e.generation = e.generation + 1 == 0 ? 1 : e.generation + 1;
  e.alive = true;
  e.effect = std::move(plan.effect);
  e.options = options;
  e.current = e.previous = options.transform;
  e.rows.assign(e.effect->emitters.size(), kNone);
  std::uint32_t nextRow = 0;
  for (std::size_t i = 0; i < e.effect->emitters.size(); ++i) {
    while (w.rows[nextRow].alive)
      ++nextRow;
    w.placeRow(w.rows[nextRow], slot, static_cast<std::uint32_t>(i), plan.shared[i],
               plan.globalSlots[i]);
    e.rows[i] = nextRow;
  }
  w.rebuildOrder();
  w.reserveItems();
  w.reserveEvents();
  return {slot, e.generation};
}

}  // namespace

WorldDesc worldDescFor(const CompiledEffect& effect, JobSystem* jobs) noexcept {
  WorldDesc desc;
  desc.jobs = jobs;
  std::uint64_t particles = 0;
  for (const CompiledEmitter& e : effect.emitters)
    particles += e.maxParticles;
  desc.maxParticles = std::max<std::uint64_t>(particles, 1);
  desc.maxEmitters = static_cast<std::uint32_t>(
      std::clamp<std::size_t>(effect.emitters.size(), 1, std::size_t{1} << 20));
  return desc;
}

ParticleWorld::ParticleWorld(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ParticleWorld::~ParticleWorld() = default;

const WorldStats& ParticleWorld::stats() const noexcept {
  return impl_->stats;
}

std::span<const HostEvent> ParticleWorld::events() const noexcept {
  return {impl_->events.data(), impl_->eventCount};
}

Result<std::unique_ptr<ParticleWorld>> ParticleWorld::create(const WorldDesc& desc) {
  return runtime_detail::WorldAccess::create(desc, nullptr);
}

Result<std::unique_ptr<ParticleWorld>> runtime_detail::WorldAccess::create(
    const WorldDesc& desc, ParticleBackend* backend) {
  if (desc.maxEffects == 0 || desc.maxEmitters == 0 || desc.maxParticles == 0 ||
      desc.maxGlobals == 0) {
    return invalidArgument(
        "WorldDesc: maxEffects, maxEmitters, maxParticles and maxGlobals must "
        "be at least 1");
  }
  if (desc.maxEffects > (1u << 20) || desc.maxEmitters > (1u << 20) || desc.maxGlobals > 4096) {
    return invalidArgument(
        "WorldDesc: maxEffects and maxEmitters are at most 2^20, maxGlobals "
        "at most 4096");
  }
  if (desc.chunkParticles == 0 || desc.chunkParticles % kChunkGranule != 0 ||
      desc.chunkParticles > (1u << 24)) {
    return invalidArgument("WorldDesc: chunkParticles must be a positive multiple of " +
                           std::to_string(kChunkGranule) + " up to 2^24 (got " +
                           std::to_string(desc.chunkParticles) + ")");
  }
  auto impl = std::make_unique<ParticleWorld::Impl>();
  impl->desc = desc;
  impl->backend = backend;
  impl->jobs = desc.jobs != nullptr ? desc.jobs : &impl->inlineJobs;
  const std::uint32_t workers = std::max(1u, impl->jobs->concurrency());
  for (std::uint32_t i = 0; i < workers; ++i) {
    Result<BatchVm> vm = BatchVm::create(impl->vmRows);
    if (!vm.ok()) return std::move(vm).status();
    impl->vms.push_back(std::move(vm.value()));
  }
  impl->effects.resize(desc.maxEffects);
  impl->rows.resize(desc.maxEmitters);
  impl->order.reserve(desc.maxEmitters);
  impl->stepRows.reserve(desc.maxEmitters);
  impl->globals.reserve(desc.maxGlobals);
  return std::unique_ptr<ParticleWorld>(new ParticleWorld(std::move(impl)));
}

void ParticleWorld::Impl::rebuildOrder() {
  order.clear();
  for (const EffectSlot& e : effects) {
    if (!e.alive) continue;
    for (const std::uint32_t row : e.rows)
      if (row != kNone) order.push_back(row);
  }
}

// Room in `events` for every reporting emitter's maxEventsPerEmitter (addEffect; never shrinks).
void ParticleWorld::Impl::reserveEvents() {
  std::size_t total = 0;
  for (const std::uint32_t row : order) {
    const EmitterRow& r = rows[row];
    total += std::min<std::uint64_t>(desc.maxEventsPerEmitter,
                                     std::uint64_t{r.capacity} * r.program->reportOps);
  }
  if (total > events.size()) events.resize(total);
}

void ParticleWorld::Impl::reserveItems() {
  std::size_t total = 0;
  for (const std::uint32_t row : order)
    total += rows[row].segments.size();
  items.reserve(total);
}

Result<EffectHandle> ParticleWorld::addEffect(const CompiledEffect& effect,
                                              const EffectOptions& options) {
  Impl& w = *impl_;
  const auto freeEffect = std::find_if(w.effects.begin(), w.effects.end(),
                                       [](const EffectSlot& e) { return !e.alive; });
  if (Status s = checkRoom(w, freeEffect != w.effects.end(), effect, options); !s.ok()) return s;
  // Nothing is committed until every program is verified and every global linked.
  Result<EffectPlan> plan = planEffect(w, effect);
  if (!plan.ok()) return plan.status();
  if (w.backend != nullptr) {
    if (Status s = w.backend->admit(*plan.value().effect); !s.ok()) return s;
  }
  if (Status s = growVms(w, plan.value().shared); !s.ok()) return s;
  const auto slot = static_cast<std::uint32_t>(freeEffect - w.effects.begin());
  const EffectHandle handle = commitEffect(w, slot, std::move(plan.value()), options);
  if (options.prewarm) w.prewarm(w.effects[slot]);
  return handle;
}

Status ParticleWorld::removeEffect(EffectHandle handle) {
  Impl& w = *impl_;
  EffectSlot* e = w.effectSlot(handle);
  if (e == nullptr) return notFound("removeEffect: a stale or invalid effect handle");
  for (const std::uint32_t row : e->rows)
    if (row != kNone) w.freeRow(row);
  const std::uint32_t generation = e->generation;
  *e = EffectSlot{};
  e->generation = generation;
  w.rebuildOrder();
  return {};
}

Status ParticleWorld::removeEmitter(EmitterHandle handle) {
  Impl& w = *impl_;
  EmitterRow* r = w.emitterRow(handle);
  if (r == nullptr) return notFound("removeEmitter: a stale or invalid emitter handle");
  w.effects[r->effect].rows[r->index] = kNone;
  w.freeRow(handle.index);
  w.rebuildOrder();
  return {};
}

EmitterHandle ParticleWorld::emitter(EffectHandle effect, std::uint32_t index) const noexcept {
  EffectSlot* e = impl_->effectSlot(effect);
  if (e == nullptr || index >= e->rows.size() || e->rows[index] == kNone) return {};
  return {e->rows[index], impl_->rows[e->rows[index]].generation};
}

Result<EmitterHandle> ParticleWorld::findEmitter(EffectHandle effect, std::string_view name) const {
  EffectSlot* e = impl_->effectSlot(effect);
  if (e == nullptr) return notFound("findEmitter: a stale or invalid effect handle");
  for (std::size_t i = 0; i < e->rows.size(); ++i) {
    if (e->rows[i] != kNone && e->effect->emitters[i].name == name)
      return emitter(effect, static_cast<std::uint32_t>(i));
  }
  return notFound("findEmitter: '" + e->effect->name + "' has no emitter '" + std::string(name) +
                  "'");
}

Status ParticleWorld::setTransform(EffectHandle effect, const Transform& transform) {
  EffectSlot* e = impl_->effectSlot(effect);
  if (e == nullptr) return notFound("setTransform: a stale or invalid effect handle");
  if (!finiteTransform(transform))
    return invalidArgument("setTransform: the transform is not finite");
  e->current = transform;
  return {};
}

namespace {
// The emitter field `name` of a live emitter, or the error naming what is wrong (`who` is the
// calling function's name).
Result<const bytecode::FieldSlot*> findField(const EmitterRow* r, std::string_view name,
                                             std::string_view who) {
  if (r == nullptr) return notFound(std::string(who) + ": a stale or invalid emitter handle");
  for (const bytecode::FieldSlot& f : r->desc->emitterFields) {
    if (f.name == name && f.offset + f.width <= r->emitterWords.size()) return &f;
  }
  return invalidArgument(std::string(who) + ": emitter '" + r->desc->name + "' has no field '" +
                         std::string(name) + "'");
}
}  // namespace

Status ParticleWorld::setEmitterField(EmitterHandle emitter, std::string_view name,
                                      std::span<const float> value) {
  EmitterRow* r = impl_->emitterRow(emitter);
  const Result<const bytecode::FieldSlot*> field = findField(r, name, "setEmitterField");
  if (!field.ok()) return field.status();
  const bytecode::FieldSlot* f = field.value();
  if (value.size() != f->width) {
    return invalidArgument("setEmitterField: '" + std::string(name) + "' is " +
                           std::to_string(f->width) + " wide, got " + std::to_string(value.size()) +
                           " values");
  }
  std::copy(value.begin(), value.end(), r->emitterWords.begin() + f->offset);
  r->version = nextStateVersion();  // the view shows the new words
  return {};
}

Status ParticleWorld::bindEmitterField(EmitterHandle emitter, std::string_view name,
                                       EffectHandle source) {
  EmitterRow* r = impl_->emitterRow(emitter);
  const Result<const bytecode::FieldSlot*> field = findField(r, name, "bindEmitterField");
  if (!field.ok()) return field.status();
  const bytecode::FieldSlot* f = field.value();
  if (f->width != 3 && f->width != 4) {
    return invalidArgument("bindEmitterField: '" + std::string(name) +
                           "' must be 3 wide (position) or 4 wide (rotation)");
  }
  auto* begin = r->bindings.begin();
  auto* end = begin + r->bindingCount;
  auto* it = std::find_if(begin, end, [&](const Binding& b) { return b.offset == f->offset; });
  if (!source.valid()) {
    if (it != end) {
      std::move(it + 1, end, it);
      --r->bindingCount;
    }
    return {};
  }
  if (impl_->effectSlot(source) == nullptr) {
    return notFound("bindEmitterField: a stale or invalid source effect handle");
  }
  if (it == end) {
    if (r->bindingCount == kMaxBindings) {
      return budgetExhausted("bindEmitterField: emitter '" + r->desc->name + "' has " +
                             std::to_string(kMaxBindings) + " bindings already");
    }
    ++r->bindingCount;
  }
  *it = {f->offset, f->width, source};
  return {};
}

Status ParticleWorld::setGlobal(std::string_view name, std::span<const float> value) {
  Impl& w = *impl_;
  if (value.empty() || value.size() > 4) {
    return invalidArgument("setGlobal: '" + std::string(name) + "' needs 1 to 4 values (got " +
                           std::to_string(value.size()) + ")");
  }
  for (Global& g : w.globals) {
    if (g.name != name) continue;
    if (g.width != value.size()) {
      return invalidArgument("setGlobal: '" + std::string(name) + "' is " +
                             std::to_string(g.width) + " wide, got " +
                             std::to_string(value.size()) + " values");
    }
    std::copy(value.begin(), value.end(), g.value.begin());
    return {};
  }
  if (w.globals.size() >= w.desc.maxGlobals) {
    return budgetExhausted("setGlobal: the world holds its maximum of " +
                           std::to_string(w.desc.maxGlobals) + " globals");
  }
  Global g{std::string(name), static_cast<std::uint32_t>(value.size()), {}};
  std::copy(value.begin(), value.end(), g.value.begin());
  w.globals.push_back(std::move(g));
  return {};
}

void ParticleWorld::setWind(WindField wind, void* user) noexcept {
  impl_->wind = wind;
  impl_->windUser = user;
}

void ParticleWorld::setCollision(const bytecode::CollisionProvider* world) noexcept {
  impl_->collision = world;
}

Result<std::uint32_t> ParticleWorld::trigger(EffectHandle effect, std::string_view name) {
  Impl& w = *impl_;
  EffectSlot* e = w.effectSlot(effect);
  if (e == nullptr) return notFound("trigger: a stale or invalid effect handle");
  std::uint32_t fired = 0;
  for (const std::uint32_t row : e->rows) {
    if (row == kNone) continue;
    EmitterRow& r = w.rows[row];
    const CompiledEmission& em = r.desc->emission;
    if (em.mode != EmissionMode::EventBurst || em.eventName != name) continue;
    if (r.clock.pendingEvents < emission::kMaxPendingEvents) ++r.clock.pendingEvents;
    ++fired;
  }
  return fired;
}

Status ParticleWorld::restart(EffectHandle effect) {
  Impl& w = *impl_;
  EffectSlot* e = w.effectSlot(effect);
  if (e == nullptr) return notFound("restart: a stale or invalid effect handle");
  e->previous = e->current;
  for (const std::uint32_t row : e->rows)
    if (row != kNone) w.resetRow(w.rows[row]);
  if (e->options.prewarm) w.prewarm(*e);
  return {};
}

std::uint32_t clockSteps(double seconds) noexcept {
  if (!(seconds > 0.0)) return 0;
  return static_cast<std::uint32_t>(std::ceil(seconds / kSeekStep - 1e-9));
}

Status ParticleWorld::seek(EffectHandle effect, float time) {
  if (!std::isfinite(time) || time < 0.0f || time > 3600.0f) {
    return invalidArgument("seek: the time must be finite and in [0, 3600] s (got " +
                           std::to_string(time) + ")");
  }
  Impl& w = *impl_;
  if (Status s = restart(effect); !s.ok()) return s;
  EffectSlot& e = *w.effectSlot(effect);
  const std::uint32_t steps = clockSteps(static_cast<double>(time));
  for (std::uint32_t k = 0; k < steps; ++k) {
    w.stepRows.clear();
    for (const std::uint32_t row : e.rows)
      if (row != kNone) w.stepRows.push_back(row);
    w.step(w.stepRows, static_cast<double>(time) / steps, nullptr, nullptr);
  }
  return {};
}

Result<EmitterStats> ParticleWorld::emitterStats(EmitterHandle emitter) const {
  const EmitterRow* r = impl_->emitterRow(emitter);
  if (r == nullptr) return notFound("emitterStats: a stale or invalid emitter handle");
  EmitterStats s;
  s.live = r->live;
  s.capacity = r->capacity;
  s.spawned = r->spawned;
  s.dropped = r->dropped;
  s.died = r->died;
  s.bounds = r->bounds;
  s.culled = r->culled;
  s.finished = r->live == 0 && r->clock.pendingEvents == 0 && r->emitterTime() > r->lastEmission;
  s.time = static_cast<float>(r->emitterTime());
  return s;
}

Result<EmitterView> ParticleWorld::view(EmitterHandle emitter) const {
  const EmitterRow* r = impl_->emitterRow(emitter);
  if (r == nullptr) return notFound("view: a stale or invalid emitter handle");
  EmitterView v;
  v.emitter = r->desc;
  const std::vector<bytecode::CompiledMaterial>& materials =
      impl_->effects[r->effect].effect->materials;
  if (r->desc->material >= 0 && static_cast<std::size_t>(r->desc->material) < materials.size())
    v.material = &materials[static_cast<std::size_t>(r->desc->material)];
  v.live = r->live;
  v.streams = std::span<const float* const>(r->streams.data(), r->streams.size());
  v.ids = r->ids.data();
  v.sources = r->sources.empty() ? nullptr : r->sources.data();
  v.transform = r->world;
  v.bounds = r->bounds;
  v.emitterWords = r->emitterWords;
  v.time = static_cast<float>(r->emitterTime());
  v.version = r->version;
  return v;
}

std::uint32_t ParticleWorld::emitters(std::span<EmitterHandle> out) const noexcept {
  const Impl& w = *impl_;
  for (std::size_t k = 0; k < w.order.size() && k < out.size(); ++k)
    out[k] = {w.order[k], w.rows[w.order[k]].generation};
  return static_cast<std::uint32_t>(w.order.size());
}

std::uint64_t ParticleWorld::stateHash(HashOrder order) const noexcept {
  const Impl& w = *impl_;
  Fnv1a64 h;
  for (const std::uint32_t row : w.order) {
    const EmitterRow& r = w.rows[row];
    h.updateU32(r.index);
    h.updateU32(r.live);
    std::uint64_t* keys = w.hashKeys.data();
    if (order == HashOrder::Id) {
      MOTE_ASSERT(w.hashKeys.size() >= r.live);
      for (std::uint32_t i = 0; i < r.live; ++i)
        keys[i] = std::uint64_t{r.ids[i]} << 32 | i;
      std::sort(keys, keys + r.live);  // in place: ids are unique, so id order is the key order
    }
    for (std::uint32_t k = 0; k < r.live; ++k) {
      const auto i = order == HashOrder::Id ? static_cast<std::uint32_t>(keys[k]) : k;
      h.updateU32(r.ids[i]);
      if (!r.sources.empty()) h.updateU32(r.sources[i]);
      for (const float* stream : r.streams)
        h.updateU32(emission::hashWord(stream[i]));
    }
  }
  return h.value();
}

}  // namespace mote
