// SPDX-License-Identifier: MIT
// Lowering of an effect: each emitter through EmitterCompiler, and the effect's own tables
// (docs/compiler.md).
#include "lower.h"

#include <mote/authoring/effect_json.h>
#include <mote/bytecode/semantics.h>
#include <mote/compiler/compiler.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

namespace mote::compiler {

using namespace authoring;
using bytecode::Builtin;
using bytecode::CompiledEffect;
using bytecode::CompiledEmitter;

namespace {

// The authoring enums to the compiled ones, enumerator by enumerator from the one list of
// mote/core/effect_enums.h that both layers' types come from: -Wswitch flags a missing case.
#define MOTE_MIRROR_CASE_(name, number, spelling) \
  case From::name:                                \
    return To::name;
#define MOTE_MIRROR(Type, CompiledType, LIST)                  \
  constexpr bytecode::CompiledType mirror(authoring::Type e) { \
    using From = authoring::Type;                              \
    using To = bytecode::CompiledType;                         \
    switch (e) { LIST(MOTE_MIRROR_CASE_) }                     \
    return To{};                                               \
  }

MOTE_MIRROR(BlendMode, BlendMode, MOTE_BLEND_MODE_LIST)
MOTE_MIRROR(EmissionMode, EmissionMode, MOTE_EMISSION_MODE_LIST)
MOTE_MIRROR(SpawnMetric, SpawnMetric, MOTE_SPAWN_METRIC_LIST)
MOTE_MIRROR(SimulationSpace, SimulationSpace, MOTE_SIMULATION_SPACE_LIST)
MOTE_MIRROR(RenderMode, RenderMode, MOTE_RENDER_MODE_LIST)
MOTE_MIRROR(ParticleSort, ParticleSort, MOTE_PARTICLE_SORT_LIST)
MOTE_MIRROR(Interp, CurveInterp, MOTE_CURVE_INTERP_LIST)

#undef MOTE_MIRROR
#undef MOTE_MIRROR_CASE_

}  // namespace

bool EmitterCompiler::compile(CompiledEmitter& out) {
  scanNeeds();
  emitterFields();
  lowerInit();
  lowerUpdate();
  if (failed_) return false;
  optimize(init_.nodes());  // the values INIT stores, folded to literals where they are
  foldSpawnConstants();
  optimize(init_.nodes());
  optimize(update_.nodes());
  bytecode::Program& p = out.program;
  std::vector<Lanes> constants;
  Result<std::uint32_t> initRegisters = emitSection(init_.nodes(), p.init, constants);
  Result<std::uint32_t> updateRegisters = emitSection(update_.nodes(), p.update, constants);
  if (!initRegisters.ok() || !updateRegisters.ok()) {
    error("", "the program needs more than 256 registers at once");
    return false;
  }
  p.constants.assign(constants.begin(), constants.end());
  p.registerCount = std::max(*initRegisters, *updateRegisters);
  p.particleFields = layout_.slots();
  p.particleWords = layout_.words();
  p.emitterWords = emitterWords_;
  p.globals = globals_;
  out.emitterFields = emitterFieldSlots_;
  out.emitterFieldValues = emitterFieldValues_;
  out.channels.position = layout_.find("position");
  out.channels.velocity = layout_.find("velocity");
  out.channels.age = layout_.find("age");
  out.channels.lifetime = layout_.find("lifetime");
  out.channels.size = layout_.find("size");
  out.channels.color = layout_.find("color");
  out.channels.rotation = layout_.find("rotation");
  out.channels.orientation = layout_.find("orientation");
  out.channels.frame = layout_.find("frame");
  Result<bytecode::VerifiedProgram> verified = bytecode::verify(p);
  if (!verified.ok()) {
    error("", "internal compiler error: the program failed verification: " +
                  verified.status().message());
    return false;
  }
  return true;
}

std::string EmitterCompiler::pointer(std::string_view suffix) const {
  return "/emitters/" + std::to_string(index_) + std::string(suffix);
}

void EmitterCompiler::error(std::string_view at, std::string message) {
  diagnostics_.push_back(Diagnostic{Severity::Error, pointer(at), std::move(message), {}, 0, 0});
  failed_ = true;
}

void EmitterCompiler::emitterFields() {
  for (const FieldDecl& f : e_.emitterFields) {
    const std::uint32_t w = widthOf(f.type);
    emitterFieldSlots_.push_back(bytecode::FieldSlot{f.name, emitterWords_, w});
    for (std::uint32_t i = 0; i < w; ++i)
      emitterFieldValues_.push_back(i < f.value.size() ? f.value[i] : 0.0f);
    emitterWords_ += w;
  }
}

// A named vec field: an emitter field of this emitter (unless `globalOnly`), else a global
// (imported once).
Value EmitterCompiler::namedField(Builder& b, const std::string& name, std::uint32_t width,
                                  bool globalOnly) {
  for (const bytecode::FieldSlot& slot : emitterFieldSlots_)
    if (!globalOnly && slot.name == name) return b.loadEmitter(slot.offset, width);
  for (std::uint32_t i = 0; i < globals_.size(); ++i)
    if (globals_[i].name == name) return b.loadGlobal(i, width);
  globals_.push_back(bytecode::GlobalImport{name, width});
  return b.loadGlobal(static_cast<std::uint32_t>(globals_.size() - 1), width);
}

Value EmitterCompiler::load(Builder& b, const std::string& name, std::uint32_t width) {
  return b.loadField(layout_.field(name, width), width);
}

void EmitterCompiler::store(Builder& b, const std::string& name, Value v) {
  b.storeField(layout_.field(name, v.width), v);
}

// A keyed curve: one CURVE instruction over a table of the keys (docs/compiler.md, "Curves");
// a single key is a constant. 1-wide x; `width` lanes of values.
Value EmitterCompiler::evalKeys(Builder& b, Interp interp,
                                const std::vector<std::pair<float, Lanes>>& keys,
                                std::uint32_t width, Value x) {
  if (keys.size() == 1) return b.constant(keys[0].second, width);
  return b.curve(keys, mirror(interp), width, x);
}

Value EmitterCompiler::evalCurve(Builder& b, const Curve& c, Value x) {
  std::vector<std::pair<float, Lanes>> keys;
  for (const CurveKey& k : c.keys)
    keys.push_back({k.time, Lanes{k.value, k.value, k.value, k.value}});
  return evalKeys(b, c.interp, keys, 1, x);
}

Value EmitterCompiler::evalVec3Keys(Builder& b, const std::vector<Vec3Key>& keys, Value x) {
  std::vector<std::pair<float, Lanes>> lanes;
  for (const Vec3Key& k : keys)
    lanes.push_back({k.time, Lanes{k.value[0], k.value[1], k.value[2], 0.0f}});
  return evalKeys(b, Interp::Linear, lanes, 3, x);
}

Value EmitterCompiler::evalGradient(Builder& b, const Gradient& g, Value x) {
  std::vector<std::pair<float, Lanes>> keys;
  for (const GradientKey& k : g.keys)
    keys.push_back({k.time, k.color});
  return evalKeys(b, g.interp, keys, 4, x);
}

Value EmitterCompiler::sample(Builder& b, const ScalarParam& p, float scale) {
  Value v;
  const Range& r = p.range;
  if (r.min == r.max) {
    v = b.scalar(r.min * scale);
  } else {
    v = b.emit(Opcode::RandRange, 1, Builder::index(b.nextDraw()), b.use(b.scalar(r.min * scale)),
               b.use(b.scalar(r.max * scale)));
  }
  if (!p.rangeScaleOverEmitterTime.keys.empty())
    v = b.mul(v, evalCurve(b, p.rangeScaleOverEmitterTime, b.builtin(Builtin::EmitterAge)));
  if (!p.overEmitterTime.keys.empty()) {
    Value c = evalCurve(b, p.overEmitterTime, b.builtin(Builtin::EmitterAge));
    v = b.fma(c, b.scalar(scale), v);
  }
  return v;
}

Value EmitterCompiler::sampleColor(Builder& b, const ColorParam& p) {
  Value c;
  if (p.a == p.b) {
    c = b.constant(p.a, 4);
  } else {
    const Value u = b.emit(Opcode::RandUniform, 1, Builder::index(b.nextDraw()));
    c = b.emit(Opcode::Lerp, 4, b.use(b.constant(p.a, 4)), b.use(b.constant(p.b, 4)),
               b.broadcast(u));
  }
  if (!p.overEmitterTime.keys.empty()) {
    c = b.mul(c, evalGradient(b, p.overEmitterTime, b.builtin(Builtin::EmitterAge)));
  }
  return c;
}

// Sprite-sheet frames: the program keeps the `frame` channel (fractional for frame blending) when
// the emitter's material has a sheet of more than one frame.
const SpriteSheet* EmitterCompiler::animatedSheet() const {
  for (const Material& m : effect_.materials)
    if (m.name == e_.material) return m.sheet.columns * m.sheet.rows <= 1 ? nullptr : &m.sheet;
  return nullptr;
}

float EmitterCompiler::framesPlayed(const SpriteSheet& s) {
  const std::uint32_t last =
      s.frameEnd < 0 ? s.columns * s.rows - 1 : static_cast<std::uint32_t>(s.frameEnd);
  return static_cast<float>(last - s.frameBegin + 1);
}

EmitterCompiler::FrameRange EmitterCompiler::frameRange(Builder& b, const SpriteSheet& s) {
  const float last = static_cast<float>(s.columns * s.rows - 1);
  // A sampled frame: clamped into the sheet, rounded to the nearest cell.
  const auto cell = [&](Value v) {
    return b.unary(Opcode::Floor,
                   b.add(b.min(b.max(v, b.scalar(0.0f)), b.scalar(last)), b.scalar(0.5f)));
  };
  const Value begin =
      cell(sampledOr(b, static_cast<float>(s.frameBegin), s.frameBeginOverEmitterTime));
  const float end = s.frameEnd < 0 ? last : static_cast<float>(s.frameEnd);
  const Value endFrame = b.max(cell(sampledOr(b, end, s.frameEndOverEmitterTime)), begin);
  return {begin, b.add(b.sub(endFrame, begin), b.scalar(1.0f))};
}

namespace {

static_assert(authoring::kMaxCurveKeys <= bytecode::kMaxCurveTableKeys,
              "every valid curve fits one CURVE");
static_assert(authoring::kMaxMotionKeys <= bytecode::kMaxMotionKeys &&
                  authoring::kMaxPivots <= bytecode::kMaxFrameChain,
              "every valid motion fits a .motefx");

// Euler degrees (applied Y, then X, then Z) as a quaternion: q = qY · qX · qZ.
std::array<float, 4> eulerQuat(const Vec3& degrees) {
  const auto axis = [](int a, float deg) {
    // Mote's own sine and cosine: the same constants from every compiler and C library.
    const bytecode::semantics::SinCos half = bytecode::semantics::sinCos(deg * kDegrees * 0.5f);
    std::array<float, 4> q{0.0f, 0.0f, 0.0f, half.cos};
    q[static_cast<std::size_t>(a)] = half.sin;
    return q;
  };
  const auto mul = [](const std::array<float, 4>& a, const std::array<float, 4>& b) {
    return std::array<float, 4>{a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
                                a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
                                a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
                                a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]};
  };
  return mul(mul(axis(1, degrees[1]), axis(0, degrees[0])), axis(2, degrees[2]));
}

// Motion keys as the runtime samples them: orientations as quaternions, each on the same side as
// the one before (so slerp between them turns the shorter way).
bytecode::CompiledMotion lowerMotion(const Motion& motion) {
  bytecode::CompiledMotion out;
  out.periodSeconds = motion.period;
  for (const Vec3Key& k : motion.position)
    out.position.push_back({k.time, {k.value[0], k.value[1], k.value[2], 0.0f}});
  for (const Vec3Key& k : motion.rotation) {
    std::array<float, 4> q = eulerQuat(k.value);
    if (!out.rotation.empty()) {
      const std::array<float, 4>& p = out.rotation.back().value;
      if (p[0] * q[0] + p[1] * q[1] + p[2] * q[2] + p[3] * q[3] < 0.0f)
        for (float& v : q)
          v = -v;
    }
    out.rotation.push_back({k.time, q});
  }
  return out;
}

}  // namespace

CompileResult compileEffect(const EffectDesc& effect) {
  CompileResult result;
  for (Diagnostic& d : validateEffect(effect)) {
    if (d.severity == Severity::Error) result.diagnostics.push_back(std::move(d));
  }
  if (!result.ok()) return result;
  CompiledEffect& out = result.effect;
  out.name = effect.name;
  for (const FieldDecl& g : effect.globalFields) {
    bytecode::GlobalFieldDecl decl;
    decl.name = g.name;
    decl.width = static_cast<std::uint32_t>(g.type) + 1;
    for (std::size_t i = 0; i < g.value.size() && i < 4; ++i)
      decl.value[i] = g.value[i];
    out.globals.push_back(decl);
  }
  for (const Material& m : effect.materials) {
    bytecode::CompiledMaterial c;
    c.name = m.name;
    c.texture = m.texture;
    c.blend = mirror(m.blend);
    c.alphaCutoff = m.alphaCutoff;
    c.columns = m.sheet.columns;
    c.rows = m.sheet.rows;
    c.frameBegin = m.sheet.frameBegin;
    c.frameBlend = m.sheet.frameBlend;
    c.softDistanceMeters = m.softDistance;
    c.lit = m.lit;
    c.doubleSided = m.doubleSided;
    c.ambientTint = m.ambientTint;
    out.materials.push_back(std::move(c));
  }
  for (std::size_t i = 0; i < effect.emitters.size(); ++i) {
    const Emitter& e = effect.emitters[i];
    CompiledEmitter c;
    c.name = e.name;
    for (std::size_t m = 0; m < effect.materials.size(); ++m)
      if (effect.materials[m].name == e.material) c.material = static_cast<std::int32_t>(m);
    c.maxParticles = e.maxParticles;
    c.seed = e.seed;
    c.space = mirror(e.space);
    c.prewarmSeconds = e.prewarm;
    c.cull = e.culling.enabled;
    c.maxCatchupSeconds = e.culling.maxCatchupSeconds;
    c.positionMeters = e.position;
    c.rotationQuaternion = eulerQuat(e.rotation);
    c.motion = lowerMotion(e.motion);
    // The pivots it hangs from, its parent first (validation put each parent before its child).
    for (std::string_view parent = e.parent; !parent.empty();) {
      const auto p = std::find_if(effect.pivots.begin(), effect.pivots.end(),
                                  [&](const Pivot& x) { return x.name == parent; });
      if (p == effect.pivots.end() || c.parents.size() >= effect.pivots.size()) break;
      c.parents.push_back({p->position, eulerQuat(p->rotation), lowerMotion(p->motion)});
      parent = p->parent;
    }
    bytecode::CompiledEmission& s = c.emission;
    s.mode = mirror(e.spawn.mode);
    s.metric = mirror(e.spawn.metric);
    s.rate = e.spawn.rate;
    s.rateInterp = mirror(e.spawn.rateOverTime.interp);
    for (const CurveKey& k : e.spawn.rateOverTime.keys)
      s.rateKeys.push_back({k.time, k.value});
    for (const Burst& bu : e.spawn.bursts)
      s.bursts.push_back({.timeSeconds = bu.time,
                          .count = bu.count,
                          .repeatIntervalSeconds = bu.repeatInterval,
                          .repeatCount = bu.repeatCount});
    s.delaySeconds = e.spawn.delay;
    s.durationSeconds = e.spawn.duration;
    s.loop = e.spawn.loop;
    s.eventName = e.spawn.eventName;
    s.eventTimesSeconds = e.spawn.eventTimes;
    if (!e.spawn.source.empty()) {
      // A trail: its source's program holds the rate (TRAIL); the emitter emits nothing itself.
      const auto source = std::find_if(effect.emitters.begin(), effect.emitters.end(),
                                       [&](const Emitter& x) { return x.name == e.spawn.source; });
      s.sourceEmitter = static_cast<std::int32_t>(source - effect.emitters.begin());
      s.sourceInheritVelocity = e.spawn.inheritVelocity;
      s.rate = 0.0f;
    }
    bytecode::CompiledRender& r = c.render;
    r.mode = mirror(e.render.mode);
    r.sortOrder = e.render.sortOrder;
    r.sort = mirror(e.render.sort);
    r.stretchScaleSeconds = e.render.stretchScale;
    r.deadspaceRadians = e.render.deadspace * kDegrees;
    r.beamTargetMeters = e.render.beam.target;
    r.beamSubdivisions = e.render.beam.subdivisions;
    r.beamRadiusMeters = e.render.beam.radius;
    r.beamRoughness = e.render.beam.roughness;
    r.beamUpdateIntervalSeconds = e.render.beam.updateInterval;
    r.beamWidthMeters = e.render.beam.width;
    r.mesh = e.render.mesh;
    r.chainWidthMeters = e.render.chainWidth;
    c.forceEvent = {.radiusMeters = e.forceEvent.radius,
                    .durationSeconds = e.forceEvent.duration,
                    .strengthMetersPerSecond = e.forceEvent.strength};
    EmitterCompiler compiler(effect, e, i, result.diagnostics);
    if (!compiler.compile(c)) continue;
    if (!e.render.beam.targetField.empty()) {
      for (const bytecode::FieldSlot& f : c.emitterFields)
        if (f.name == e.render.beam.targetField)
          c.render.beamTargetFieldWord = static_cast<std::int32_t>(f.offset);
      if (c.render.beamTargetFieldWord < 0) {
        result.diagnostics.push_back(
            Diagnostic{Severity::Warning,
                       "/emitters/" + std::to_string(i) + "/render/beam/target_field",
                       "a beam bound to a global field is not compiled yet; the beam uses target",
                       {},
                       0,
                       0});
      }
    }
    out.emitters.push_back(std::move(c));
  }
  return result;
}

}  // namespace mote::compiler
