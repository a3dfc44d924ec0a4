// SPDX-License-Identifier: MIT
// Lowering of EffectDesc emitters into INIT and UPDATE programs (docs/compiler.md).
#include "ir.h"

#include <mote/authoring/effect_json.h>
#include <mote/bytecode/semantics.h>
#include <mote/compiler/compiler.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

namespace mote::compiler {
namespace {

using namespace authoring;
using bytecode::Builtin;
using bytecode::CompiledEffect;
using bytecode::CompiledEmitter;

constexpr float kDegrees = 3.14159265358979323846f / 180.0f;

// The particle layout, allocated on demand: only fields some section touches exist.
class Layout {
 public:
  std::uint32_t field(const std::string& name, std::uint32_t width) {
    const auto it = offsets_.find(name);
    if (it != offsets_.end()) return it->second;
    const std::uint32_t offset = words_;
    offsets_[name] = offset;
    slots_.push_back(bytecode::FieldSlot{name, offset, width});
    words_ += width;
    return offset;
  }
  std::int32_t find(const std::string& name) const {
    const auto it = offsets_.find(name);
    return it == offsets_.end() ? -1 : static_cast<std::int32_t>(it->second);
  }
  std::uint32_t words() const { return words_; }
  const std::vector<bytecode::FieldSlot>& slots() const { return slots_; }

 private:
  std::map<std::string, std::uint32_t> offsets_;
  std::vector<bytecode::FieldSlot> slots_;
  std::uint32_t words_ = 0;
};

class EmitterCompiler {
 public:
  EmitterCompiler(const EffectDesc& effect, const Emitter& emitter, std::size_t index,
                  std::vector<Diagnostic>& diagnostics)
      : effect_(effect), e_(emitter), index_(index), diagnostics_(diagnostics) {}

  bool compile(CompiledEmitter& out) {
    scanNeeds();
    emitterFields();
    lowerInit();
    lowerUpdate();
    if (failed_) return false;
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
    out.maxSize = maxSize_;
    Result<bytecode::VerifiedProgram> verified = bytecode::verify(p);
    if (!verified.ok()) {
      error("", "internal compiler error: the program failed verification: " +
                    verified.status().message());
      return false;
    }
    return true;
  }

 private:
  // --- diagnostics
  // ---------------------------------------------------------------------------------

  std::string pointer(std::string_view suffix) const {
    return "/emitters/" + std::to_string(index_) + std::string(suffix);
  }
  void error(std::string_view at, std::string message) {
    diagnostics_.push_back(Diagnostic{Severity::Error, pointer(at), std::move(message), {}, 0, 0});
    failed_ = true;
  }

  // --- fields
  // ----------------------------------------------------------------------------------------

  static std::uint32_t widthOf(FieldType t) { return static_cast<std::uint32_t>(t) + 1; }

  void emitterFields() {
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
  Value namedField(Builder& b, const std::string& name, std::uint32_t width,
                   bool globalOnly = false) {
    for (const bytecode::FieldSlot& slot : emitterFieldSlots_)
      if (!globalOnly && slot.name == name) return b.loadEmitter(slot.offset, width);
    for (std::uint32_t i = 0; i < globals_.size(); ++i)
      if (globals_[i].name == name) return b.loadGlobal(i, width);
    globals_.push_back(bytecode::GlobalImport{name, width});
    return b.loadGlobal(static_cast<std::uint32_t>(globals_.size() - 1), width);
  }

  Value load(Builder& b, const std::string& name, std::uint32_t width) {
    return b.loadField(layout_.field(name, width), width);
  }
  void store(Builder& b, const std::string& name, Value v) {
    b.storeField(layout_.field(name, v.width), v);
  }

  // --- curves
  // ------------------------------------------------------------------------------------------

  // A keyed curve: one CURVE instruction over a table of the keys (docs/compiler.md, "Curves");
  // a single key is a constant. 1-wide x; `width` lanes of values.
  Value evalKeys(Builder& b, Interp interp, const std::vector<std::pair<float, Lanes>>& keys,
                 std::uint32_t width, Value x) {
    if (keys.size() == 1) return b.constant(keys[0].second, width);
    return b.curve(keys, static_cast<bytecode::CurveTableInterp>(interp), width, x);
  }

  Value evalCurve(Builder& b, const Curve& c, Value x) {
    std::vector<std::pair<float, Lanes>> keys;
    for (const CurveKey& k : c.keys)
      keys.push_back({k.time, Lanes{k.value, k.value, k.value, k.value}});
    return evalKeys(b, c.interp, keys, 1, x);
  }

  Value evalGradient(Builder& b, const Gradient& g, Value x) {
    std::vector<std::pair<float, Lanes>> keys;
    for (const GradientKey& k : g.keys)
      keys.push_back({k.time, k.color});
    return evalKeys(b, g.interp, keys, 4, x);
  }

  // --- spawn-time values ------------------------------------------------------------------------

  // The largest value a spawn-time parameter can take.
  static float largest(const ScalarParam& p) {
    float curve = 0.0f;
    for (const CurveKey& k : p.overEmitterTime.keys)
      curve = std::max(curve, k.value);
    return p.range.max + curve;
  }

  Value sample(Builder& b, const ScalarParam& p, float scale = 1.0f) {
    Value v;
    const Range& r = p.range;
    if (r.min == r.max) {
      v = b.scalar(r.min * scale);
    } else {
      v = b.emit(Opcode::RandRange, 1, Builder::index(b.nextDraw()), b.use(b.scalar(r.min * scale)),
                 b.use(b.scalar(r.max * scale)));
    }
    if (!p.overEmitterTime.keys.empty()) {
      Value c = evalCurve(b, p.overEmitterTime, b.builtin(Builtin::EmitterAge));
      v = b.fma(c, b.scalar(scale), v);
    }
    return v;
  }

  Value sampleColor(Builder& b, const ColorParam& p) {
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

  // --- INIT
  // ----------------------------------------------------------------------------------------

  // A local spawn point of the shape (emitter frame).
  Value spawnPoint(Builder& b, const SpawnShape& s) {
    const auto draw = [&](Opcode op) { return b.emit(op, 3, Builder::index(b.nextDraw())); };
    const auto uniform = [&](std::uint32_t w) {
      return b.emit(Opcode::RandUniform, w, Builder::index(b.nextDraw()));
    };
    // Radius between inner and outer: shell → outer; volume → r = cbrt/sqrt-distributed.
    switch (s.kind) {
      case ShapeKind::Point:
        return b.vec3(0.0f, 0.0f, 0.0f);
      case ShapeKind::Line:
        return b.mul(b.vec3(s.end[0], s.end[1], s.end[2]), uniform(1));
      case ShapeKind::Rect: {
        const Value u = uniform(3);
        return b.mul(b.sub(u, b.scalar(0.5f)),
                     b.vec3(s.size[0], 0.0f, s.size[2] != 0.0f ? s.size[2] : s.size[1]));
      }
      case ShapeKind::Box: {
        const Value u = uniform(3);
        return b.mul(b.sub(u, b.scalar(0.5f)), b.vec3(s.size[0], s.size[1], s.size[2]));
      }
      case ShapeKind::Sphere:
      case ShapeKind::Hemisphere: {
        Value dir = draw(Opcode::RandUnitVector);
        if (s.kind == ShapeKind::Hemisphere) {
          // Fold the lower half up: y = |y|.
          dir = b.mul(dir, b.vec3(1.0f, 1.0f, 1.0f));
          const Value y = b.unary(Opcode::Abs, b.lane(dir, 1));
          dir = b.add(b.mul(dir, b.vec3(1.0f, 0.0f, 1.0f)), b.mul(b.vec3(0.0f, 1.0f, 0.0f), y));
        }
        return b.mul(dir, radius(b, s, 3));
      }
      case ShapeKind::Disk: {
        const Value u = uniform(1);
        const Value angle = b.mul(u, b.scalar(6.2831853f));
        const Value ring =
            b.compose({b.unary(Opcode::Cos, angle), b.scalar(0.0f), b.unary(Opcode::Sin, angle)});
        return b.mul(ring, radius(b, s, 2));
      }
      case ShapeKind::Cone: {
        const Value dir = b.emit(Opcode::RandCone, 3, Builder::index(b.nextDraw()),
                                 b.use(b.scalar(s.angle * kDegrees)));
        const Value base = b.mul(b.mul(dir, b.vec3(1.0f, 0.0f, 1.0f)), radius(b, s, 2));
        if (s.height == 0.0f) return base;
        return b.add(base, b.mul(dir, b.mul(uniform(1), b.scalar(s.height))));
      }
    }
    return b.vec3(0.0f, 0.0f, 0.0f);
  }

  // The distance from the centre for volume (dims 3) or area (dims 2) shapes.
  Value radius(Builder& b, const SpawnShape& s, int dims) {
    if (s.shell) return b.scalar(s.radius);
    const Value u = b.emit(Opcode::RandUniform, 1, Builder::index(b.nextDraw()));
    // Uniform in the annulus/shell volume: r = (inner^d + u (outer^d - inner^d))^(1/d).
    const float inner = std::pow(s.innerRadius, static_cast<float>(dims));
    const float outer = std::pow(s.radius, static_cast<float>(dims));
    const Value rd = b.fma(u, b.scalar(outer - inner), b.scalar(inner));
    return dims == 2 ? b.unary(Opcode::Sqrt, rd)
                     : b.emit(Opcode::Pow, 1, b.use(rd), b.use(b.scalar(1.0f / 3.0f)));
  }

  // A constant quaternion turning +Y onto `dir` (normalised).
  Lanes quatFromY(const Vec3& dir) {
    const float len = std::sqrt(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
    const float x = dir[0] / len;
    const float y = dir[1] / len;
    const float z = dir[2] / len;
    if (y < -0.999999f) return {1.0f, 0.0f, 0.0f, 0.0f};  // 180° about X
    // axis = Y × d = (z, 0, -x); q = (axis, 1 + y) normalised
    const float w = 1.0f + y;
    const float n = std::sqrt(z * z + x * x + w * w);
    return {z / n, 0.0f, -x / n, w / n};
  }

  // The emitter's frame for INIT: newborns of world-space emitters are placed and aimed through
  // the emitter's transform; local-space ones stay in its frame.
  struct InitFrame {
    Value rotation;
    Value origin;
    bool world = false;
  };

  InitFrame initFrame(Builder& b) const {
    InitFrame f;
    f.rotation = b.builtin(Builtin::EmitterRotation);
    f.origin = b.builtin(Builtin::EmitterPosition);
    f.world = e_.space == SimulationSpace::World || e_.space == SimulationSpace::SpawnAttached;
    return f;
  }

  void lowerInit() {
    Builder& b = init_;
    const InitModules& in = e_.init;
    store(b, "age", b.scalar(0.0f));
    initLifetime(b, in.lifetime);
    const InitFrame frame = initFrame(b);
    const Value local = initPosition(b, e_.shape, frame);
    initVelocity(b, in.velocity, local, frame);
    initSize(b, in.size, in.separateSizeY ? &in.sizeY : nullptr);
    initColor(b, in.color);
    initRotation(b, in.rotation);
    initSpin(b, in.spin);
    if (needsMass_) initMass(b, in.mass);
    if (in.randomOrientation || !isZero(in.orientationAngle))
      initOrientation(b, in.orientationAxis, in.orientationAngle, in.randomOrientation);
    for (const FieldInit& f : in.fields)
      initField(b, f);
    if (!in.graph.nodes.empty()) lowerGraph(b, in.graph, "/init/graph");
    frameInit(b);
  }

  static bool isZero(const ScalarParam& p) {
    return p.range.min == 0.0f && p.range.max == 0.0f && p.overEmitterTime.keys.empty();
  }

  // One INIT module of a modules node of the INIT graph: what the init member it stands for does.
  // Velocity's radial kind points away from the emitter through the particle's position (the
  // list uses the spawn point the shape just gave, which is the same place).
  void lowerInitModule(Builder& b, const InitModule& m) {
    if (const auto* shape = std::get_if<InitShapeModule>(&m)) {
      initPosition(b, shape->shape, initFrame(b));
    } else if (const auto* lifetime = std::get_if<InitLifetimeModule>(&m)) {
      initLifetime(b, lifetime->value);
    } else if (const auto* velocity = std::get_if<InitVelocityModule>(&m)) {
      const InitFrame frame = initFrame(b);
      Value local = load(b, "position", 3);
      if (frame.world) {
        // Back into the emitter's frame: the conjugate rotation of (position − origin).
        const Value inverse = b.mul(frame.rotation, b.constant({-1.0f, -1.0f, -1.0f, 1.0f}, 4));
        local = b.emit(Opcode::QuatRotate, 3, b.use(inverse), b.use(b.sub(local, frame.origin)));
      }
      initVelocity(b, velocity->velocity, local, frame);
    } else if (const auto* size = std::get_if<InitSizeModule>(&m)) {
      initSize(b, size->value, size->separateY ? &size->y : nullptr);
    } else if (const auto* color = std::get_if<InitColorModule>(&m)) {
      initColor(b, color->value);
    } else if (const auto* rotation = std::get_if<InitRotationModule>(&m)) {
      initRotation(b, rotation->value);
    } else if (const auto* spin = std::get_if<InitSpinModule>(&m)) {
      initSpin(b, spin->value);
    } else if (const auto* mass = std::get_if<InitMassModule>(&m)) {
      initMass(b, mass->value);
    } else if (const auto* o = std::get_if<InitOrientationModule>(&m)) {
      initOrientation(b, o->axis, o->angle, o->random);
    } else if (const auto* field = std::get_if<InitFieldModule>(&m)) {
      initField(b, field->value);
    }
  }

  void initLifetime(Builder& b, const ScalarParam& lifetime) {
    store(b, "lifetime", b.max(sample(b, lifetime), b.scalar(0.001f)));
  }

  // Stores the birth position; returns the spawn point in the emitter's frame.
  Value initPosition(Builder& b, const SpawnShape& shape, const InitFrame& frame) {
    const Value local = spawnPoint(b, shape);
    const Value position =
        frame.world ? b.add(frame.origin,
                            b.emit(Opcode::QuatRotate, 3, b.use(frame.rotation), b.use(local)))
                    : local;
    store(b, "position", position);
    if (needsOrigin_) store(b, "origin", position);
    return local;
  }

  // Velocity in the emitter frame, then into the simulation frame. `local`: the spawn point in
  // the emitter's frame (for radial).
  void initVelocity(Builder& b, const InitVelocity& v, Value local, const InitFrame& frame) {
    Value velocity = b.vec3(0.0f, 0.0f, 0.0f);
    const Value speed = sample(b, v.speed);
    switch (v.kind) {
      case VelocityKind::None:
        break;
      case VelocityKind::Direction: {
        const Vec3& d = v.direction;
        const float len = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        velocity = b.mul(b.vec3(d[0] / len, d[1] / len, d[2] / len), speed);
        break;
      }
      case VelocityKind::Cone: {
        const Value around = b.emit(Opcode::RandCone, 3, Builder::index(b.nextDraw()),
                                    b.use(b.scalar(v.spread * kDegrees)));
        const Value turned = b.emit(Opcode::QuatRotate, 3,
                                    b.use(b.constant(quatFromY(v.direction), 4)), b.use(around));
        velocity = b.mul(turned, speed);
        break;
      }
      case VelocityKind::Sphere:
        velocity = b.mul(b.emit(Opcode::RandUnitVector, 3, Builder::index(b.nextDraw())), speed);
        break;
      case VelocityKind::Radial: {
        // Away from the origin; a spawn at the origin gets a random direction.
        const Value random = b.emit(Opcode::RandUnitVector, 3, Builder::index(b.nextDraw()));
        const Value away = b.normalize(local);
        const Value atOrigin =
            b.emit(Opcode::CmpEq, 1, b.use(b.length(local)), b.use(b.scalar(0.0f)));
        velocity = b.mul(b.select(atOrigin, random, away), speed);
        break;
      }
    }
    if (frame.world)
      velocity = b.emit(Opcode::QuatRotate, 3, b.use(frame.rotation), b.use(velocity));
    if (frame.world && e_.velocityInheritance != 0.0f) {  // local spaces move with the emitter
      velocity =
          b.fma(b.builtin(Builtin::EmitterVelocity), b.scalar(e_.velocityInheritance), velocity);
    }
    store(b, "velocity", velocity);
  }

  // Width `x`, height `y` (null: square); the birth size too when an over-life module scales it.
  void initSize(Builder& b, const ScalarParam& x, const ScalarParam* y) {
    const Value width = b.max(sample(b, x), b.scalar(0.0f));
    const Value height = y != nullptr ? b.max(sample(b, *y), b.scalar(0.0f)) : width;
    const Value size = b.compose({width, height});
    store(b, "size", size);
    if (needsSize0_) store(b, "size0", size);
    maxSize_ = std::max({largest(x), y != nullptr ? largest(*y) : 0.0f, maxSize_});
  }

  void initColor(Builder& b, const ColorParam& c) {
    const Value color = sampleColor(b, c);
    store(b, "color", color);
    if (needsColor0_) store(b, "color0", color);
  }

  void initRotation(Builder& b, const ScalarParam& degrees) {
    store(b, "rotation", sample(b, degrees, kDegrees));
  }

  // The spin is drawn even when the emitter never integrates a roll (the draw numbering stays
  // that of the list).
  void initSpin(Builder& b, const ScalarParam& degreesPerSecond) {
    const Value spin = sample(b, degreesPerSecond, kDegrees);
    if (needsSpin_) store(b, "spin", spin);
  }

  void initMass(Builder& b, const ScalarParam& mass) {
    store(b, "mass", b.max(sample(b, mass), b.scalar(0.001f)));
  }

  void initOrientation(Builder& b, const Vec3& axis, const ScalarParam& angle, bool random) {
    if (random) {
      // Shoemake: a uniform random rotation from three uniforms.
      const Value u = b.emit(Opcode::RandUniform, 3, Builder::index(b.nextDraw()));
      const Value u1 = b.lane(u, 0);
      const Value a = b.mul(b.lane(u, 1), b.scalar(6.2831853f));
      const Value c = b.mul(b.lane(u, 2), b.scalar(6.2831853f));
      const Value s1 = b.unary(Opcode::Sqrt, b.sub(b.scalar(1.0f), u1));
      const Value s2 = b.unary(Opcode::Sqrt, u1);
      store(b, "orientation",
            b.compose({b.mul(s1, b.unary(Opcode::Sin, a)), b.mul(s1, b.unary(Opcode::Cos, a)),
                       b.mul(s2, b.unary(Opcode::Sin, c)), b.mul(s2, b.unary(Opcode::Cos, c))}));
    } else {
      store(b, "orientation",
            b.emit(Opcode::QuatFromAxisAngle, 4, b.use(b.vec3(axis[0], axis[1], axis[2])),
                   b.use(sample(b, angle, kDegrees))));
    }
  }

  void initField(Builder& b, const FieldInit& f) {
    const std::uint32_t w = static_cast<std::uint32_t>(f.min.size());
    Lanes lo{};
    Lanes hi{};
    for (std::uint32_t l = 0; l < w; ++l) {
      lo[l] = f.min[l];
      hi[l] = f.max.empty() ? f.min[l] : f.max[l];
    }
    store(b, "field." + f.field,
          lo == hi ? b.constant(lo, w)
                   : b.emit(Opcode::RandRange, w, Builder::index(b.nextDraw()),
                            b.use(b.constant(lo, w)), b.use(b.constant(hi, w))));
  }

  // --- UPDATE ------------------------------------------------------------------------------------

  void scanNeeds() {
    forEachUpdateModule(e_.update, [&](const UpdateModule& m) {
      if (const auto* c = std::get_if<ColorOverLifeModule>(&m); c && c->mode == CurveMode::Multiply)
        needsColor0_ = true;
      if (const auto* a = std::get_if<AlphaOverLifeModule>(&m); a && a->mode == CurveMode::Multiply)
        needsColor0_ = true;
      if (const auto* s = std::get_if<SizeOverLifeModule>(&m); s && s->mode == CurveMode::Multiply)
        needsSize0_ = true;
      if (std::holds_alternative<SpinOverLifeModule>(m)) needsSpin_ = true;
      if (const auto* g = std::get_if<GravityModule>(&m); g && g->scaleByMass) needsMass_ = true;
      if (const auto* d = std::get_if<DragModule>(&m); d && d->divideByMass) needsMass_ = true;
      if (const auto* t = std::get_if<TargetModule>(&m); t && t->mode == TargetMode::Bezier)
        needsOrigin_ = true;
    });
    if (!isZero(e_.init.spin)) needsSpin_ = true;
    // A spin module of the INIT graph asks for a roll as init.spin does.
    for (const GraphNode& node : e_.init.graph.nodes)
      for (const NodeModule& m : node.modules)
        if (const auto* spin = std::get_if<InitSpinModule>(&m); spin && !isZero(spin->value))
          needsSpin_ = true;
  }

  // World position of an emitter-local point, or of a named vec3 field (world) when one is given.
  Value targetPoint(Builder& b, const Vec3& local, const std::string& field) {
    if (!field.empty()) return namedField(b, field, 3);
    const Value rotation = b.builtin(Builtin::EmitterRotation);
    return b.add(b.builtin(Builtin::EmitterPosition),
                 b.emit(Opcode::QuatRotate, 3, b.use(rotation),
                        b.use(b.vec3(local[0], local[1], local[2]))));
  }

  // The running state of one UPDATE section: this tick's age, normalised age and dt, and the
  // particle values the modules carry in registers between their loads and the final stores.
  struct Running {
    Value dt, age, t;
    Value p, v, color, size, spin;
    bool colorChanged = false;
    bool sizeChanged = false;
    bool positionSet = false;
  };

  void lowerUpdate() {
    Builder& b = update_;
    Running& r = run_;
    r.dt = b.builtin(Builtin::Dt);
    r.age = b.add(load(b, "age", 1), r.dt);
    store(b, "age", r.age);
    const Value lifetime = load(b, "lifetime", 1);
    if (!e_.init.immortal) b.kill(b.emit(Opcode::CmpLt, 1, b.use(lifetime), b.use(r.age)));
    r.t = b.saturate(b.div(r.age, lifetime));
    r.p = load(b, "position", 3);
    r.v = load(b, "velocity", 3);
    r.color = needsColor0_ ? load(b, "color0", 4) : Value{};
    r.size = needsSize0_ ? load(b, "size0", 2) : Value{};
    r.spin = needsSpin_ ? load(b, "spin", 1) : Value{};
    for (std::size_t i = 0; i < e_.update.size(); ++i) {
      const std::string at = "/update/" + std::to_string(i);
      if (const auto* gm = std::get_if<GraphModule>(&e_.update[i])) {
        // The graph sees the particle through its fields: flush what the modules changed so far.
        flushRunning(b);
        lowerGraph(b, gm->graph, at + "/graph");
        reloadRunning(b);
      } else {
        lowerModule(b, e_.update[i]);
      }
    }
    if (!r.positionSet) r.p = b.fma(r.v, r.dt, r.p);
    flushRunning(b);
    if (needsSpin_) store(b, "rotation", b.fma(r.spin, r.dt, load(b, "rotation", 1)));
    frameUpdate(b, r.age, r.t);
  }

  // Stores the running position, velocity, and the colour and size when a module changed them.
  void flushRunning(Builder& b) {
    store(b, "position", run_.p);
    store(b, "velocity", run_.v);
    if (run_.colorChanged) store(b, "color", run_.color);
    if (run_.sizeChanged) store(b, "size", run_.size);
  }

  // Reads them back after graph nodes may have written the fields.
  void reloadRunning(Builder& b) {
    run_.p = load(b, "position", 3);
    run_.v = load(b, "velocity", 3);
    if (run_.colorChanged) run_.color = load(b, "color", 4);
    if (run_.sizeChanged) run_.size = load(b, "size", 2);
  }

  // A "modules" node of an UPDATE graph: its modules run as they would at this place in the
  // update list (the running colour, size and spin go on through them), reading position and
  // velocity from the fields as the graph left them, and storing what they change for the nodes
  // after it.
  void lowerModuleNode(Builder& b, const std::vector<NodeModule>& modules) {
    reloadRunning(b);
    UpdateModule storage;
    for (const NodeModule& m : modules)
      if (const UpdateModule* u = moduleAs(m, storage)) lowerModule(b, *u);
    flushRunning(b);
  }

  // One module (never a graph module) on the running state.
  void lowerModule(Builder& b, const UpdateModule& m) {
    Running& state = run_;
    const Value dt = state.dt;
    Value& p = state.p;
    Value& v = state.v;
    Value& color = state.color;
    Value& size = state.size;
    Value& spin = state.spin;
    if (const auto* gravity = std::get_if<GravityModule>(&m)) {
      Value acc =
          b.vec3(gravity->acceleration[0], gravity->acceleration[1], gravity->acceleration[2]);
      if (gravity->scaleByMass) acc = b.mul(acc, load(b, "mass", 1));
      v = b.fma(acc, dt, v);
    } else if (const auto* drag = std::get_if<DragModule>(&m)) {
      Value k = b.mul(b.scalar(-drag->coefficient), dt);
      if (drag->divideByMass) k = b.div(k, load(b, "mass", 1));
      v = b.fma(v, k, v);
    } else if (const auto* curl = std::get_if<CurlNoiseModule>(&m)) {
      const Value scroll = b.mul(b.builtin(Builtin::Time), b.scalar(curl->scrollSpeed));
      const Value q =
          b.add(b.add(p, b.vec3(static_cast<float>(curl->seed % 1024u) * 17.31f, 0.0f, 0.0f)),
                b.mul(b.vec3(0.0f, -1.0f, 0.0f), scroll));
      Value sum = b.vec3(0.0f, 0.0f, 0.0f);
      float amplitude = 1.0f;
      float frequency = curl->frequency;
      for (std::uint32_t o = 0; o < curl->octaves; ++o) {
        const Value n = b.emit(Opcode::CurlNoise, 3, b.use(q), b.use(b.scalar(frequency)));
        sum = b.fma(n, b.scalar(amplitude), sum);
        amplitude *= 0.5f;
        frequency *= 2.0f;
      }
      v = b.fma(sum, b.mul(dt, b.scalar(curl->strength)), v);
    } else if (const auto* vortex = std::get_if<VortexModule>(&m)) {
      const Vec3& ax = vortex->axis;
      const float len = std::sqrt(ax[0] * ax[0] + ax[1] * ax[1] + ax[2] * ax[2]);
      const Value axis = b.emit(Opcode::QuatRotate, 3, b.use(b.builtin(Builtin::EmitterRotation)),
                                b.use(b.vec3(ax[0] / len, ax[1] / len, ax[2] / len)));
      const Value center = targetPoint(b, vortex->center, {});
      const Value r = b.sub(p, center);
      const Value turn = b.emit(Opcode::QuatFromAxisAngle, 4, b.use(axis),
                                b.use(b.mul(dt, b.scalar(vortex->angularSpeed * kDegrees))));
      p = b.add(center, b.emit(Opcode::QuatRotate, 3, b.use(turn), b.use(r)));
      if (vortex->pull != 0.0f) {
        const Value radial = b.sub(r, b.mul(axis, b.dot(axis, r)));
        v = b.fma(b.normalize(radial), b.mul(dt, b.scalar(-vortex->pull)), v);
      }
    } else if (const auto* attractor = std::get_if<AttractorModule>(&m)) {
      const Value d = b.sub(targetPoint(b, attractor->position, attractor->positionField), p);
      const Value dist = b.length(d);
      Value strength = b.scalar(attractor->strength);
      if (attractor->falloff != 0.0f) {
        strength = b.div(strength, b.emit(Opcode::Pow, 1, b.use(b.max(dist, b.scalar(0.01f))),
                                          b.use(b.scalar(attractor->falloff))));
      }
      v = b.fma(b.normalize(d), b.mul(strength, dt), v);
      if (attractor->killRadius > 0.0f) {
        b.kill(b.emit(Opcode::CmpLt, 1, b.use(dist), b.use(b.scalar(attractor->killRadius))));
      }
    } else if (const auto* tm = std::get_if<TargetModule>(&m)) {
      const Value target = targetPoint(b, tm->position, tm->positionField);
      if (tm->mode == TargetMode::Gravity) {
        const Value d = b.sub(target, p);
        const Value dist = b.length(d);
        v = b.fma(b.normalize(d), b.mul(dt, b.scalar(tm->gravity)), v);
        if (tm->drag > 0.0f) v = b.fma(v, b.mul(dt, b.scalar(-tm->drag)), v);
        if (tm->killRadius > 0.0f) {
          b.kill(b.emit(Opcode::CmpLt, 1, b.use(dist), b.use(b.scalar(tm->killRadius))));
        }
      } else {
        // Cubic Bezier from the spawn point to the target: P1 = src + up·b2 and
        // P2 = dst + up·b3, with up the emitter's up axis — the path leaves upward and comes
        // down onto the target, an arc whose height the handle lengths set (rollnw's p2p
        // Bezier; NWN's handles are along the node's Z).
        const Value src = load(b, "origin", 3);
        const Value dir = b.builtin(Builtin::EmitterUp);
        const Value p1 = b.fma(dir, b.scalar(tm->sourceTangent), src);
        const Value p2 = b.fma(dir, b.scalar(tm->targetTangent), target);
        const Value s = tm->travelTime > 0.0f
                            ? b.saturate(b.div(state.age, b.scalar(tm->travelTime)))
                            : state.t;
        const Value u = b.sub(b.scalar(1.0f), s);
        const Value uu = b.mul(u, u);
        const Value ss = b.mul(s, s);
        Value pos = b.mul(src, b.mul(uu, u));
        pos = b.fma(p1, b.mul(b.scalar(3.0f), b.mul(uu, s)), pos);
        pos = b.fma(p2, b.mul(b.scalar(3.0f), b.mul(u, ss)), pos);
        pos = b.fma(target, b.mul(ss, s), pos);
        p = pos;
        state.positionSet = true;
      }
    } else if (const auto* w2 = std::get_if<WindModule>(&m)) {
      const Value host = b.emit(Opcode::SampleWind, 3, b.use(p));
      const Value wind = b.fma(host, b.scalar(w2->sceneScale),
                               b.vec3(w2->velocity[0], w2->velocity[1], w2->velocity[2]));
      const Value k = b.min(b.mul(dt, b.scalar(w2->response)), b.scalar(1.0f));
      v = b.fma(b.sub(wind, v), k, v);
    } else if (const auto* c2 = std::get_if<CollisionModule>(&m)) {
      collide(b, *c2, p, v);
    } else if (const auto* k = std::get_if<KillModule>(&m)) {
      killIf(b, *k, state.age, p, v);
    } else if (const auto* col = std::get_if<ColorOverLifeModule>(&m)) {
      const Value g = evalGradient(b, col->gradient, state.t);
      color =
          col->mode == CurveMode::Set ? g : b.mul(color.valid() ? color : load(b, "color", 4), g);
      state.colorChanged = true;
    } else if (const auto* al = std::get_if<AlphaOverLifeModule>(&m)) {
      const Value a = b.saturate(evalCurve(b, al->curve, state.t));
      if (!color.valid()) color = load(b, "color", 4);
      const Value alpha = al->mode == CurveMode::Set ? a : b.mul(b.lane(color, 3), a);
      // Replace lane w by a select (exact; a non-finite alpha stays in its lane).
      color = b.emit(Opcode::Select, 4, b.use(b.constant({0.0f, 0.0f, 0.0f, 1.0f}, 4)),
                     b.broadcast(alpha), b.use(color));
      state.colorChanged = true;
    } else if (const auto* sz = std::get_if<SizeOverLifeModule>(&m)) {
      const Value x = evalCurve(b, sz->x, state.t);
      const Value y = sz->y.keys.empty() ? x : evalCurve(b, sz->y, state.t);
      const Value f = b.compose({x, y});
      size = sz->mode == CurveMode::Set ? f : b.mul(size.valid() ? size : load(b, "size", 2), f);
      state.sizeChanged = true;
      float peak = 0.0f;
      for (const CurveKey& key : sz->x.keys)
        peak = std::max(peak, key.value);
      for (const CurveKey& key : sz->y.keys)
        peak = std::max(peak, key.value);
      maxSize_ =
          sz->mode == CurveMode::Set ? std::max(maxSize_, peak) : maxSize_ * std::max(1.0f, peak);
    } else if (const auto* sp = std::get_if<SpinOverLifeModule>(&m)) {
      const Value f = evalCurve(b, sp->curve, state.t);
      spin = sp->mode == CurveMode::Set ? b.mul(f, b.scalar(kDegrees)) : b.mul(spin, f);
    } else if (const auto* lim = std::get_if<SpeedLimitModule>(&m)) {
      const Value speed = b.length(v);
      v = b.mul(
          v, b.min(b.scalar(1.0f), b.div(b.scalar(lim->maxSpeed), b.max(speed, b.scalar(1e-12f)))));
    }
  }

  void collide(Builder& b, const CollisionModule& c, Value& p, Value& v) {
    std::uint32_t spawnTarget = 0;
    for (std::size_t t = 0; t < effect_.emitters.size(); ++t)
      if (effect_.emitters[t].name == c.spawnEmitter) spawnTarget = static_cast<std::uint32_t>(t);
    for (std::size_t i = 0; i < c.colliders.size(); ++i) {
      const Collider& k = c.colliders[i];
      const Value center = b.vec3(k.position[0], k.position[1], k.position[2]);
      Value normal;
      Value depth;  // > 0: penetration along `normal`
      if (k.kind == ColliderKind::Plane) {
        const Vec3& n = k.normal;
        const float len = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        normal = b.vec3(n[0] / len, n[1] / len, n[2] / len);
        depth = b.sub(b.scalar(c.particleRadius), b.dot(b.sub(p, center), normal));
      } else if (k.kind == ColliderKind::Sphere) {
        const Value r = b.sub(p, center);
        const Value dist = b.length(r);
        const Value outward = b.normalize(r);
        if (k.inside) {
          normal = b.unary(Opcode::Neg, outward);
          depth = b.sub(b.add(dist, b.scalar(c.particleRadius)), b.scalar(k.radius));
        } else {
          normal = outward;
          depth = b.sub(b.scalar(k.radius + c.particleRadius), dist);
        }
      } else {
        // Axis-aligned box: the face of least penetration (outside) or the face crossed (inside).
        const Value q = b.sub(p, center);
        const Value half = b.vec3(k.size[0] * 0.5f, k.size[1] * 0.5f, k.size[2] * 0.5f);
        const Value aq = b.unary(Opcode::Abs, q);
        const Value sign =
            b.select(b.emit(Opcode::CmpLt, 3, b.use(q), b.use(b.vec3(0.0f, 0.0f, 0.0f))),
                     b.vec3(-1.0f, -1.0f, -1.0f), b.vec3(1.0f, 1.0f, 1.0f));
        const Value gap = k.inside ? b.sub(b.add(aq, b.scalar(c.particleRadius)), half)  // > 0: out
                                   : b.sub(b.add(half, b.scalar(c.particleRadius)), aq);  // > 0: in
        const Value gx = b.lane(gap, 0);
        const Value gy = b.lane(gap, 1);
        const Value gz = b.lane(gap, 2);
        // inside: the axis with the largest gap; outside: the smallest (least penetration)
        const auto first = [&](Value a, Value other) {  // a is chosen over other
          return k.inside ? b.emit(Opcode::CmpLt, 1, b.use(other), b.use(a))
                          : b.emit(Opcode::CmpLe, 1, b.use(a), b.use(other));
        };
        const Value xFirst = b.mul(first(gx, gy), first(gx, gz));
        const Value yFirst = first(gy, gz);
        const Value axis =
            b.select(xFirst, b.vec3(1.0f, 0.0f, 0.0f),
                     b.select(yFirst, b.vec3(0.0f, 1.0f, 0.0f), b.vec3(0.0f, 0.0f, 1.0f)));
        const Value chosen = b.dot(gap, axis);
        normal = b.mul(b.mul(axis, sign), b.scalar(k.inside ? -1.0f : 1.0f));
        if (k.inside) {
          depth = chosen;
        } else {
          const Value all = b.mul(b.mul(b.emit(Opcode::CmpLt, 1, b.use(b.scalar(0.0f)), b.use(gx)),
                                        b.emit(Opcode::CmpLt, 1, b.use(b.scalar(0.0f)), b.use(gy))),
                                  b.emit(Opcode::CmpLt, 1, b.use(b.scalar(0.0f)), b.use(gz)));
          depth = b.select(all, chosen, b.scalar(-1.0f));
        }
      }
      const Value vn = b.dot(v, normal);
      const Value hit = b.mul(b.emit(Opcode::CmpLt, 1, b.use(b.scalar(0.0f)), b.use(depth)),
                              b.emit(Opcode::CmpLe, 1, b.use(vn), b.use(b.scalar(0.0f))));
      if (!c.spawnEmitter.empty() && c.spawnCount > 0) {
        // Sub-emitter: spawn_count particles into the target at the point of contact.
        b.emit(Opcode::Spawn, 1, Builder::index(spawnTarget),
               b.use(b.mul(hit, b.scalar(static_cast<float>(c.spawnCount)))),
               b.use(b.fma(normal, depth, p)));
      }
      if (c.response == CollisionResponse::Kill) {
        b.kill(hit);
        continue;
      }
      const Value pushed = b.fma(normal, depth, p);
      p = b.select(hit, pushed, p);
      if (c.response == CollisionResponse::Splat) {
        v = b.select(hit, b.vec3(0.0f, 0.0f, 0.0f), v);
        continue;
      }
      const Value vNormal = b.mul(normal, vn);
      const Value vTangent = b.sub(v, vNormal);
      const Value bounced =
          b.sub(b.mul(vTangent, b.scalar(1.0f - c.friction)), b.mul(vNormal, b.scalar(c.bounce)));
      v = b.select(hit, bounced, v);
    }
  }

  void killIf(Builder& b, const KillModule& k, Value age, Value p, Value v) {
    const Value center = b.vec3(k.position[0], k.position[1], k.position[2]);
    Value condition;
    switch (k.condition) {
      case KillCondition::Age:
        condition = b.emit(Opcode::CmpLt, 1, b.use(b.scalar(k.threshold)), b.use(age));
        break;
      case KillCondition::Plane: {
        const Vec3& n = k.normal;
        condition =
            b.emit(Opcode::CmpLt, 1, b.use(b.dot(b.sub(p, center), b.vec3(n[0], n[1], n[2]))),
                   b.use(b.scalar(0.0f)));
        break;
      }
      case KillCondition::Sphere: {
        const Value outside =
            b.emit(Opcode::CmpLt, 1, b.use(b.scalar(k.radius)), b.use(b.length(b.sub(p, center))));
        condition = k.inside ? b.sub(b.scalar(1.0f), outside) : outside;
        break;
      }
      case KillCondition::Box: {
        const Value aq = b.unary(Opcode::Abs, b.sub(p, center));
        const Value out3 =
            b.emit(Opcode::CmpLt, 3,
                   b.use(b.vec3(k.size[0] * 0.5f, k.size[1] * 0.5f, k.size[2] * 0.5f)), b.use(aq));
        const Value outside = b.emit(Opcode::CmpLt, 1, b.use(b.scalar(0.0f)),
                                     b.use(b.dot(out3, b.vec3(1.0f, 1.0f, 1.0f))));
        condition = k.inside ? b.sub(b.scalar(1.0f), outside) : outside;
        break;
      }
      case KillCondition::SpeedBelow:
        condition = b.emit(Opcode::CmpLt, 1, b.use(b.length(v)), b.use(b.scalar(k.threshold)));
        break;
    }
    b.kill(condition);
  }

  // Sprite-sheet frames: the program keeps the `frame` channel (fractional for frame blending).
  const Material* material() const {
    for (const Material& m : effect_.materials)
      if (m.name == e_.material) return &m;
    return nullptr;
  }

  void frameInit(Builder& b) {
    const Material* m = material();
    if (m == nullptr || m->sheet.columns * m->sheet.rows <= 1) return;
    const SpriteSheet& s = m->sheet;
    const std::uint32_t last =
        s.frameEnd < 0 ? s.columns * s.rows - 1 : static_cast<std::uint32_t>(s.frameEnd);
    const float count = static_cast<float>(last - s.frameBegin + 1);
    const Value offset =
        s.randomStart ? b.unary(Opcode::Floor,
                                b.mul(b.emit(Opcode::RandUniform, 1, Builder::index(b.nextDraw())),
                                      b.scalar(count)))
                      : b.scalar(0.0f);
    store(b, "frame_offset", offset);
    store(b, "frame", b.add(offset, b.scalar(static_cast<float>(s.frameBegin))));
  }

  void frameUpdate(Builder& b, Value age, Value t) {
    const Material* m = material();
    if (m == nullptr || m->sheet.columns * m->sheet.rows <= 1) return;
    const SpriteSheet& s = m->sheet;
    const std::uint32_t last =
        s.frameEnd < 0 ? s.columns * s.rows - 1 : static_cast<std::uint32_t>(s.frameEnd);
    const float count = static_cast<float>(last - s.frameBegin + 1);
    const Value offset = load(b, "frame_offset", 1);
    Value progress = s.playback == SheetPlayback::OverLife ? b.mul(t, b.scalar(count))
                                                           : b.mul(age, b.scalar(s.fps));
    progress = b.add(progress, offset);
    // loop: wrap into [0, count); else hold the last frame
    const Value within = s.loop && s.playback == SheetPlayback::Fps
                             ? b.emit(Opcode::Mod, 1, b.use(progress), b.use(b.scalar(count)))
                             : b.min(progress, b.scalar(count - (s.frameBlend ? 1.0f : 0.0001f)));
    const Value frame = s.frameBlend ? within : b.unary(Opcode::Floor, within);
    store(b, "frame", b.add(frame, b.scalar(static_cast<float>(s.frameBegin))));
  }

  // --- node graphs
  // ---------------------------------------------------------------------------------

  void lowerGraph(Builder& b, const NodeGraph& graph, const std::string& at);

  // A "modules" node (docs/node-library.md, "modules (module nodes)"). The validator has checked
  // that it holds at least one module, INIT modules in the INIT graph and update modules (no graph
  // module) in UPDATE graphs, and that no other node holds modules; ports are the compiler's to
  // check.
  void lowerModulesNode(Builder& b, const GraphNode& node, const std::string& where) {
    if (!node.inputs.empty()) {
      error(where + "/inputs",
            "a modules node has no input ports (it runs at its place in the "
            "node list)");
      return;
    }
    if (&b == &update_) {
      lowerModuleNode(b, node.modules);
      return;
    }
    InitModule storage;
    for (const NodeModule& m : node.modules)
      if (const InitModule* init = moduleAs(m, storage)) lowerInitModule(b, *init);
  }

  const EffectDesc& effect_;
  const Emitter& e_;
  std::size_t index_;
  std::vector<Diagnostic>& diagnostics_;
  Builder init_;
  Builder update_;
  Layout layout_;
  std::vector<bytecode::FieldSlot> emitterFieldSlots_;
  std::vector<float> emitterFieldValues_;
  std::uint32_t emitterWords_ = 0;
  std::vector<bytecode::GlobalImport> globals_;
  Running run_;
  float maxSize_ = 0.0f;
  bool failed_ = false;
  bool needsColor0_ = false;
  bool needsSize0_ = false;
  bool needsSpin_ = false;
  bool needsMass_ = false;
  bool needsOrigin_ = false;
};

// -------------------------------------------------------------------------------------------------
// Node graphs: each node is a builder call; its output is "out" (or one lane: "x", "y", "z", "w").

// Standard particle fields by name, with their widths.
constexpr std::pair<std::string_view, std::uint32_t> kStandardFields[] = {
    {"position", 3}, {"velocity", 3}, {"age", 1},  {"lifetime", 1}, {"size", 2},
    {"color", 4},    {"rotation", 1}, {"spin", 1}, {"mass", 1},     {"orientation", 4}};

// One lane of a standard field, addressable by itself in graphs.
struct PseudoField {
  std::string_view name;
  std::string_view field;
  std::uint32_t width;
  std::uint32_t lane;
};
constexpr PseudoField kPseudoFields[] = {
    {"alpha", "color", 4, 3}, {"size_x", "size", 2, 0}, {"size_y", "size", 2, 1}};

const PseudoField* pseudoField(const std::string& name) {
  for (const PseudoField& f : kPseudoFields)
    if (f.name == name) return &f;
  return nullptr;
}

void EmitterCompiler::lowerGraph(Builder& b, const NodeGraph& graph, const std::string& at) {
  const std::size_t n = graph.nodes.size();
  std::map<std::string, std::size_t> byId;
  for (std::size_t i = 0; i < n; ++i)
    byId[graph.nodes[i].id] = i;
  // Topological order (depth-first); a cycle is an error.
  std::vector<std::size_t> order;
  std::vector<int> state(n, 0);  // 0 new, 1 on the stack, 2 done
  bool cycle = false;
  const auto visit = [&](auto&& self, std::size_t i) -> void {
    if (state[i] == 2 || cycle) return;
    if (state[i] == 1) {
      cycle = true;
      error(at + "/nodes/" + std::to_string(i),
            "the graph has a cycle through node \"" + graph.nodes[i].id + "\"");
      return;
    }
    state[i] = 1;
    for (const auto& [port, source] : graph.nodes[i].inputs) {
      const auto it = byId.find(source.substr(0, source.find('.')));
      if (it != byId.end()) self(self, it->second);
    }
    state[i] = 2;
    order.push_back(i);
  };
  for (std::size_t i = 0; i < n; ++i)
    visit(visit, i);
  if (cycle) return;
  std::vector<Value> outputs(n);
  const std::size_t diagnosticsBefore = diagnostics_.size();
  for (const std::size_t i : order) {
    // Once a node failed, nodes after it would only report that its output is missing.
    if (diagnostics_.size() > diagnosticsBefore) return;
    const GraphNode& node = graph.nodes[i];
    const std::string where = at + "/nodes/" + std::to_string(i);
    const auto input = [&](const std::string& port) -> Value {
      const auto it = node.inputs.find(port);
      if (it == node.inputs.end()) {
        error(where + "/inputs",
              "node \"" + node.id + "\" (" + node.op + ") needs input \"" + port + "\"");
        return b.scalar(0.0f);
      }
      const std::size_t dot = it->second.find('.');
      const Value v = outputs[byId.at(it->second.substr(0, dot))];
      if (!v.valid()) {
        error(where + "/inputs/" + port, "\"" + it->second + "\" has no output");
        return b.scalar(0.0f);
      }
      if (dot == std::string::npos) return v;
      const std::string lane = it->second.substr(dot + 1);
      if (lane == "out") return v;
      const std::size_t l = std::string_view("xyzw").find(lane);
      if (lane.size() != 1 || l == std::string_view::npos || l >= v.width) {
        error(where + "/inputs/" + port,
              "no output \"" + lane + "\" (use out, or one lane x, y, z, w)");
        return b.scalar(0.0f);
      }
      return b.lane(v, static_cast<std::uint32_t>(l));
    };
    const auto name = [&](const std::string& key) -> std::string {
      const auto it = node.names.find(key);
      if (it == node.names.end()) {
        error(where + "/names",
              "node \"" + node.id + "\" (" + node.op + ") needs name \"" + key + "\"");
        return {};
      }
      return it->second;
    };
    // The width of a named particle field: a standard one or a declared custom one.
    const auto particleField = [&](const std::string& field,
                                   std::string& storage) -> std::uint32_t {
      for (const auto& [std_name, width] : kStandardFields) {
        if (std_name == field) {
          storage = field;
          return width;
        }
      }
      for (const FieldDecl& f : e_.particleFields) {
        if (f.name == field) {
          storage = "field." + field;
          return widthOf(f.type);
        }
      }
      error(where + "/names/field", "no particle field named \"" + field + "\"");
      return 0;
    };
    // Aliases: meep's legacy attribute nodes and descriptive names of ISA operations.
    static constexpr std::pair<std::string_view, std::string_view> kAliases[] = {
        {"attribute_get", "particle_field_get"},
        {"attribute_set", "particle_field_set"},
        {"emitter_time", "emitter_age"},
        {"mul_add", "fma"},
        {"length", "len"},
        {"normalize", "norm"},
        {"saturate", "sat"},
        {"select", "sel"},
        {"smoothstep", "smooth"},
        {"random", "rand"},
        {"random_range", "randr"},
        {"curl_noise", "curl"},
        {"less", "lt"},
        {"less_equal", "le"},
        {"equal", "eq"},
        {"not_equal", "ne"}};
    std::string op = node.op;
    for (const auto& [alias, canonical] : kAliases)
      if (op == alias) op = std::string(canonical);
    // An input port left unconnected may be given as a constant parameter of the same name.
    const auto inputOrParam = [&](const std::string& port) -> Value {
      if (node.inputs.find(port) == node.inputs.end()) {
        const auto it = node.params.find(port);
        if (it != node.params.end() && !it->second.empty() && it->second.size() <= 4) {
          Lanes lanes{};
          for (std::size_t l = 0; l < it->second.size(); ++l)
            lanes[l] = it->second[l];
          return b.constant(lanes, static_cast<std::uint32_t>(it->second.size()));
        }
      }
      return input(port);
    };
    const bytecode::BuiltinInfo* builtinOp = nullptr;
    for (const bytecode::BuiltinInfo& info : bytecode::kBuiltinInfos)
      if (info.name == op) builtinOp = &info;
    if (op == "modules") {
      lowerModulesNode(b, node, where);
    } else if (builtinOp != nullptr) {
      outputs[i] = b.builtin(builtinOp->builtin);
    } else if (op == "curve" || op == "gradient") {
      // The keys on the CURVE opcode (a single key: a constant), at t clamped to the end keys.
      const Value t = inputOrParam("t");
      if (t.width != 1) {
        error(where + "/inputs/t",
              "a " + std::to_string(t.width) + "-wide input where 1 lane is needed");
        continue;
      }
      outputs[i] = op == "curve" ? evalCurve(b, node.curve, t) : evalGradient(b, node.gradient, t);
    } else if (op == "constant") {
      const auto it = node.params.find("value");
      if (it == node.params.end() || it->second.empty() || it->second.size() > 4) {
        error(where + "/params", "a constant needs \"value\": 1 to 4 numbers");
        continue;
      }
      Lanes lanes{};
      for (std::size_t l = 0; l < it->second.size(); ++l)
        lanes[l] = it->second[l];
      outputs[i] = b.constant(lanes, static_cast<std::uint32_t>(it->second.size()));
    } else if (op == "particle_field_get") {
      const std::string field = name("field");
      if (const PseudoField* pf = pseudoField(field)) {
        outputs[i] = b.lane(load(b, std::string(pf->field), pf->width), pf->lane);
        continue;
      }
      std::string storage;
      const std::uint32_t w = particleField(field, storage);
      if (w > 0) outputs[i] = load(b, storage, w);
    } else if (op == "particle_field_set") {
      const std::string field = name("field");
      if (const PseudoField* pf = pseudoField(field)) {
        const Value v = inputOrParam("value");
        if (diagnostics_.size() > diagnosticsBefore) return;
        if (v.width != 1) {
          error(where + "/inputs/value",
                "\"" + field + "\" is one lane; the value is " + std::to_string(v.width) + " wide");
          continue;
        }
        b.storeField(layout_.field(std::string(pf->field), pf->width) + pf->lane, v);
        continue;
      }
      std::string storage;
      const std::uint32_t w = particleField(field, storage);
      const Value v = inputOrParam("value");
      if (w == 0 || diagnostics_.size() > diagnosticsBefore) return;
      if (v.width != w && v.width != 1) {
        error(where + "/inputs/value", "a " + std::to_string(v.width) + "-wide value for a " +
                                           std::to_string(w) + "-wide field");
        continue;
      }
      store(b, storage, v.width == w ? v : b.emit(Opcode::Mov, w, b.broadcast(v)));
    } else if (op == "emitter_field_get" || op == "global_field_get") {
      const std::string field = name("field");
      std::uint32_t w = 0;
      if (op == "emitter_field_get") {
        for (const FieldDecl& f : e_.emitterFields)
          if (f.name == field) w = widthOf(f.type);
      } else {
        for (const FieldDecl& f : effect_.globalFields)
          if (f.name == field) w = widthOf(f.type);
      }
      if (w == 0) {
        error(where + "/names/field",
              "no " + std::string(op == "emitter_field_get" ? "emitter" : "global") +
                  " field named \"" + field + "\"");
        continue;
      }
      outputs[i] = namedField(b, field, w, op == "global_field_get");
    } else if (op == "builtin") {
      const std::string builtin = name("builtin");
      bool found = false;
      for (const bytecode::BuiltinInfo& info : bytecode::kBuiltinInfos) {
        if (info.name == builtin) {
          outputs[i] = b.builtin(info.builtin);
          found = true;
        }
      }
      if (!found && !builtin.empty())
        error(where + "/names/builtin", "no builtin named \"" + builtin + "\"");
    } else if (op == "normalized_age") {
      outputs[i] = b.saturate(b.div(load(b, "age", 1), load(b, "lifetime", 1)));
    } else if (op == "kill") {
      b.kill(b.lane(inputOrParam("condition"), 0));
    } else if (const std::optional<Opcode> isa = bytecode::opcodeFromMnemonic(op)) {
      // Any ISA value instruction by its mnemonic: inputs a, b, c; random draws get fresh indices.
      const bytecode::OpInfo& info = bytecode::opInfo(*isa);
      if (info.width == bytecode::WidthRule::NoDst || info.opClass == bytecode::OpClass::Load) {
        error(where + "/op", "\"" + op +
                                 "\" is not a graph node (use particle_field_get, a builtin, "
                                 "emitter_field_get, global_field_get, particle_field_set or "
                                 "kill)");
        continue;
      }
      static constexpr const char* kPorts[] = {"a", "b", "c"};
      std::array<Value, 3> in{};
      std::uint32_t width = 1;
      for (std::uint32_t slot = 0; slot < 3; ++slot) {
        const bytecode::SourceRule rule = info.sources[slot];
        if (rule == bytecode::SourceRule::Unused || rule == bytecode::SourceRule::Index) continue;
        in[slot] = inputOrParam(kPorts[slot]);
        if (rule == bytecode::SourceRule::Value) width = std::max(width, in[slot].width);
      }
      if (diagnostics_.size() > diagnosticsBefore) return;
      switch (info.width) {
        case bytecode::WidthRule::Fixed1:
          width = 1;
          break;
        case bytecode::WidthRule::Fixed3:
          width = 3;
          break;
        case bytecode::WidthRule::Fixed4:
          width = 4;
          break;
        default:
          break;
      }
      std::array<Operand, 3> operands{};
      bool ok = true;
      for (std::uint32_t slot = 0; slot < 3 && ok; ++slot) {
        const bytecode::SourceRule rule = info.sources[slot];
        if (rule == bytecode::SourceRule::Unused) continue;
        if (rule == bytecode::SourceRule::Index) {
          operands[slot] = Builder::index(b.nextDraw());
          continue;
        }
        const std::uint32_t want = bytecode::sourceWidth(rule, width);
        if (in[slot].width == want) {
          operands[slot] = b.use(in[slot]);
        } else if (in[slot].width == 1) {
          operands[slot] = b.broadcast(in[slot]);
        } else {
          error(where + "/inputs/" + kPorts[slot], "a " + std::to_string(in[slot].width) +
                                                       "-wide input where " + std::to_string(want) +
                                                       " lanes are needed");
          ok = false;
        }
      }
      if (ok) outputs[i] = b.emit(*isa, width, operands[0], operands[1], operands[2]);
    } else {
      error(where + "/op", "unknown node type \"" + op + "\" (docs/node-library.md lists them)");
    }
  }
}

// -------------------------------------------------------------------------------------------------
// The effect

template <class To, class From>
To mirror(From e) {
  return static_cast<To>(static_cast<std::uint8_t>(e));
}

static_assert(static_cast<int>(authoring::RenderMode::Mesh) ==
              static_cast<int>(bytecode::RenderMode::Mesh));
static_assert(static_cast<int>(authoring::ParticleSort::OldestFirst) ==
              static_cast<int>(bytecode::ParticleSort::OldestFirst));
static_assert(static_cast<int>(authoring::BlendMode::Premultiplied) ==
              static_cast<int>(bytecode::BlendMode::Premultiplied));
static_assert(static_cast<int>(authoring::EmissionMode::BeamContinuous) ==
              static_cast<int>(bytecode::EmissionMode::BeamContinuous));
static_assert(static_cast<int>(authoring::SimulationSpace::SpawnAttached) ==
              static_cast<int>(bytecode::SimulationSpace::SpawnAttached));
static_assert(static_cast<int>(authoring::Interp::Smooth) ==
              static_cast<int>(bytecode::CurveInterp::Smooth));
static_assert(static_cast<int>(authoring::Interp::Linear) ==
                  static_cast<int>(bytecode::CurveTableInterp::Linear) &&
              static_cast<int>(authoring::Interp::Step) ==
                  static_cast<int>(bytecode::CurveTableInterp::Step) &&
              static_cast<int>(authoring::Interp::Smooth) ==
                  static_cast<int>(bytecode::CurveTableInterp::Smooth));
static_assert(authoring::kMaxCurveKeys <= bytecode::kMaxCurveTableKeys,
              "every valid curve fits one CURVE");

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
    c.blend = mirror<bytecode::BlendMode>(m.blend);
    c.alphaCutoff = m.alphaCutoff;
    c.columns = m.sheet.columns;
    c.rows = m.sheet.rows;
    c.playOverLife = m.sheet.playback == SheetPlayback::OverLife;
    c.fps = m.sheet.fps;
    c.frameBegin = m.sheet.frameBegin;
    c.frameEnd = m.sheet.frameEnd;
    c.randomStart = m.sheet.randomStart;
    c.loop = m.sheet.loop;
    c.frameBlend = m.sheet.frameBlend;
    c.softDistance = m.softDistance;
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
    c.space = mirror<bytecode::SimulationSpace>(e.space);
    c.velocityInheritance = e.velocityInheritance;
    c.prewarm = e.prewarm;
    c.cull = e.culling.enabled;
    c.maxCatchupSeconds = e.culling.maxCatchupSeconds;
    c.position = e.position;
    c.rotation = eulerQuat(e.rotation);
    bytecode::CompiledEmission& s = c.emission;
    s.mode = mirror<bytecode::EmissionMode>(e.spawn.mode);
    s.metric = mirror<bytecode::SpawnMetric>(e.spawn.metric);
    s.rate = e.spawn.rate;
    s.rateInterp = mirror<bytecode::CurveInterp>(e.spawn.rateOverTime.interp);
    for (const CurveKey& k : e.spawn.rateOverTime.keys)
      s.rateKeys.push_back({k.time, k.value});
    for (const Burst& bu : e.spawn.bursts)
      s.bursts.push_back({bu.time, bu.count, bu.repeatInterval, bu.repeatCount});
    s.delay = e.spawn.delay;
    s.duration = e.spawn.duration;
    s.loop = e.spawn.loop;
    s.eventName = e.spawn.eventName;
    s.eventTimes = e.spawn.eventTimes;
    bytecode::CompiledRender& r = c.render;
    r.mode = mirror<bytecode::RenderMode>(e.render.mode);
    r.sortOrder = e.render.sortOrder;
    r.sort = mirror<bytecode::ParticleSort>(e.render.sort);
    r.stretchScale = e.render.stretchScale;
    r.deadspace = e.render.deadspace * kDegrees;
    r.beamTarget = e.render.beam.target;
    r.beamSubdivisions = e.render.beam.subdivisions;
    r.beamRadius = e.render.beam.radius;
    r.beamRoughness = e.render.beam.roughness;
    r.beamUpdateInterval = e.render.beam.updateInterval;
    r.beamWidth = e.render.beam.width;
    r.mesh = e.render.mesh;
    r.chainWidth = e.render.chainWidth;
    c.forceEvent = {e.forceEvent.radius, e.forceEvent.duration, e.forceEvent.strength};
    EmitterCompiler compiler(effect, e, i, result.diagnostics);
    if (!compiler.compile(c)) continue;
    if (!e.render.beam.targetField.empty()) {
      for (const bytecode::FieldSlot& f : c.emitterFields)
        if (f.name == e.render.beam.targetField)
          c.render.beamTargetField = static_cast<std::int32_t>(f.offset);
      if (c.render.beamTargetField < 0) {
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
