// SPDX-License-Identifier: MIT
// INIT lowering: the spawn shape and the init members (and INIT modules) of a newborn.
#include "lower.h"

#include <mote/bytecode/semantics.h>

#include <algorithm>
#include <cmath>
#include <variant>

namespace mote::compiler {

using namespace authoring;
using bytecode::Builtin;

// A local spawn point of the shape (emitter frame).
Value EmitterCompiler::spawnPoint(Builder& b, const SpawnShape& s) {
  const auto draw = [&](Opcode op) { return b.emit(op, 3, Builder::index(b.nextDraw())); };
  const bool keyedSize = !s.sizeOverEmitterTime.empty();
  const auto emitterTime = [&] { return b.builtin(Builtin::EmitterAge); };
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
      // Keyed extents: x and z (y is 0); the static size's z, or its y where z is 0.
      const Value extents =
          keyedSize ? b.mul(evalVec3Keys(b, s.sizeOverEmitterTime, emitterTime()),
                            b.vec3(1.0f, 0.0f, 1.0f))
                    : b.vec3(s.size[0], 0.0f, s.size[2] != 0.0f ? s.size[2] : s.size[1]);
      return b.mul(b.sub(u, b.scalar(0.5f)), extents);
    }
    case ShapeKind::Box: {
      const Value u = uniform(3);
      const Value extents = keyedSize ? evalVec3Keys(b, s.sizeOverEmitterTime, emitterTime())
                                      : b.vec3(s.size[0], s.size[1], s.size[2]);
      return b.mul(b.sub(u, b.scalar(0.5f)), extents);
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
Value EmitterCompiler::radius(Builder& b, const SpawnShape& s, int dims) {
  if (s.shell) return b.scalar(s.radius);
  const Value u = b.emit(Opcode::RandUniform, 1, Builder::index(b.nextDraw()));
  // Uniform in the annulus/shell volume: r = (inner^d + u (outer^d - inner^d))^(1/d).
  // Mote's pow (semantics.h), not the C library's: the same constants on every platform.
  const float inner = bytecode::semantics::power(s.innerRadius, static_cast<float>(dims));
  const float outer = bytecode::semantics::power(s.radius, static_cast<float>(dims));
  const Value rd = b.fma(u, b.scalar(outer - inner), b.scalar(inner));
  return dims == 2 ? b.unary(Opcode::Sqrt, rd)
                   : b.emit(Opcode::Pow, 1, b.use(rd), b.use(b.scalar(1.0f / 3.0f)));
}

// A constant quaternion turning +Y onto `dir` (normalised).
Lanes EmitterCompiler::quatFromY(const Vec3& dir) {
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

EmitterCompiler::InitFrame EmitterCompiler::initFrame(Builder& b) const {
  InitFrame f;
  f.rotation = b.builtin(Builtin::EmitterRotation);
  f.origin = b.builtin(Builtin::EmitterPosition);
  f.world = e_.space == SimulationSpace::World || e_.space == SimulationSpace::SpawnAttached;
  return f;
}

void EmitterCompiler::lowerInit() {
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
  // Trails this emitter's particles emit: nothing owed at birth.
  for (std::size_t t = 0; t < effect_.emitters.size(); ++t)
    if (effect_.emitters[t].spawn.source == e_.name)
      store(b, "trail." + std::to_string(t), b.scalar(0.0f));
  // Update-module parameters that follow emitter time: each particle's sample at its birth.
  for (std::size_t k = 0; k < spawnSampled_.size(); ++k)
    store(b, "spawn_sample." + std::to_string(k),
          evalCurve(b, *spawnSampled_[k], b.builtin(Builtin::EmitterAge)));
  if (in.randomOrientation || !isZero(in.orientationAngle))
    initOrientation(b, in.orientationAxis, in.orientationAngle, in.randomOrientation);
  for (const FieldInit& f : in.fields)
    initField(b, f);
  if (!in.graph.nodes.empty()) lowerGraph(b, in.graph, "/init/graph");
  frameInit(b);
  // Birth events: every newborn, where it was born.
  for (std::size_t i = 0; i < e_.events.size(); ++i)
    if (e_.events[i].on == ParticleEventKind::Birth)
      fireEvent(b, i, b.scalar(1.0f), load(b, "position", 3), load(b, "velocity", 3));
}

// One INIT module of a modules node of the INIT graph: what the init member it stands for does.
// Velocity's radial kind points away from the emitter through the particle's position (the
// list uses the spawn point the shape just gave, which is the same place).
void EmitterCompiler::lowerInitModule(Builder& b, const InitModule& m) {
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

void EmitterCompiler::initLifetime(Builder& b, const ScalarParam& lifetime) {
  store(b, "lifetime", b.max(sample(b, lifetime), b.scalar(0.001f)));
}

// Stores the birth position; returns the spawn point in the emitter's frame.
Value EmitterCompiler::initPosition(Builder& b, const SpawnShape& shape, const InitFrame& frame) {
  const Value local = spawnPoint(b, shape);
  const Value position =
      frame.world
          ? b.add(frame.origin, b.emit(Opcode::QuatRotate, 3, b.use(frame.rotation), b.use(local)))
          : local;
  store(b, "position", position);
  if (needsOrigin_) store(b, "origin", position);
  return local;
}

// Velocity in the emitter frame, then into the simulation frame. `local`: the spawn point in
// the emitter's frame (for radial).
void EmitterCompiler::initVelocity(Builder& b, const InitVelocity& v, Value local,
                                   const InitFrame& frame) {
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
      // A keyed half-angle is clamped to [0°, 180°] (a smooth curve may overshoot its keys).
      const Value spread = v.spreadOverEmitterTime.keys.empty()
                               ? b.scalar(v.spread * kDegrees)
                               : b.mul(b.min(b.max(evalCurve(b, v.spreadOverEmitterTime,
                                                             b.builtin(Builtin::EmitterAge)),
                                                   b.scalar(0.0f)),
                                             b.scalar(180.0f)),
                                       b.scalar(kDegrees));
      const Value around = b.emit(Opcode::RandCone, 3, Builder::index(b.nextDraw()), b.use(spread));
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
  if (frame.world) velocity = b.emit(Opcode::QuatRotate, 3, b.use(frame.rotation), b.use(velocity));
  if (frame.world && e_.velocityInheritance != 0.0f) {  // local spaces move with the emitter
    velocity =
        b.fma(b.builtin(Builtin::EmitterVelocity), b.scalar(e_.velocityInheritance), velocity);
  }
  // What a particle event's source passes: its velocity, already scaled (zero for the others).
  if (inheritsVelocity_) velocity = b.add(velocity, b.builtin(Builtin::SourceVelocity));
  store(b, "velocity", velocity);
}

// Width `x`, height `y` (null: square); the birth size too when an over-life module scales it.
void EmitterCompiler::initSize(Builder& b, const ScalarParam& x, const ScalarParam* y) {
  const Value width = b.max(sample(b, x), b.scalar(0.0f));
  const Value height = y != nullptr ? b.max(sample(b, *y), b.scalar(0.0f)) : width;
  Value size = b.compose({width, height});
  if (inheritsSize_) size = b.mul(size, b.builtin(Builtin::SourceSize));
  store(b, "size", size);
  if (needsSize0_) store(b, "size0", size);
}

void EmitterCompiler::initColor(Builder& b, const ColorParam& c) {
  Value color = sampleColor(b, c);
  if (inheritsColor_) color = b.mul(color, b.builtin(Builtin::SourceColor));
  store(b, "color", color);
  if (needsColor0_) store(b, "color0", color);
}

void EmitterCompiler::initRotation(Builder& b, const ScalarParam& degrees) {
  store(b, "rotation", sample(b, degrees, kDegrees));
}

// The spin is drawn even when the emitter never integrates a roll (the draw numbering stays
// that of the list).
void EmitterCompiler::initSpin(Builder& b, const ScalarParam& degreesPerSecond) {
  const Value spin = sample(b, degreesPerSecond, kDegrees);
  if (needsSpin_) store(b, "spin", spin);
}

void EmitterCompiler::initMass(Builder& b, const ScalarParam& mass) {
  store(b, "mass", b.max(sample(b, mass), b.scalar(0.001f)));
}

void EmitterCompiler::initOrientation(Builder& b, const Vec3& axis, const ScalarParam& angle,
                                      bool random) {
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

void EmitterCompiler::initField(Builder& b, const FieldInit& f) {
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

void EmitterCompiler::frameInit(Builder& b) {
  const SpriteSheet* sheet = animatedSheet();
  if (sheet == nullptr) return;
  const SpriteSheet& s = *sheet;
  const bool keyed = keyedFrameRange(s);
  const FrameRange range = keyed ? frameRange(b, s) : FrameRange{};
  const Value offset =
      s.randomStart ? b.unary(Opcode::Floor,
                              b.mul(b.emit(Opcode::RandUniform, 1, Builder::index(b.nextDraw())),
                                    keyed ? range.count : b.scalar(framesPlayed(s))))
                    : b.scalar(0.0f);
  store(b, "frame_offset", offset);
  store(b, "frame",
        b.add(offset, keyed ? range.begin : b.scalar(static_cast<float>(s.frameBegin))));
}

}  // namespace mote::compiler
