// SPDX-License-Identifier: MIT
// UPDATE lowering: the update modules of one tick on the running particle state.
#include "lower.h"
#include "node_table.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <variant>

namespace mote::compiler {

using namespace authoring;
using bytecode::Builtin;

void EmitterCompiler::scanNeeds() {
  forEachUpdateModule(e_.update, [&](const UpdateModule& m) {
    if (const auto* c = std::get_if<ColorOverLifeModule>(&m); c && c->mode == CurveMode::Multiply)
      needsColor0_ = true;
    if (const auto* a = std::get_if<AlphaOverLifeModule>(&m); a && a->mode == CurveMode::Multiply)
      needsColor0_ = true;
    if (const auto* s = std::get_if<SizeOverLifeModule>(&m); s && s->mode == CurveMode::Multiply)
      needsSize0_ = true;
    if (std::holds_alternative<SpinOverLifeModule>(m)) needsSpin_ = true;
    if (const auto* g = std::get_if<GravityModule>(&m); g && g->scaleByMass) needsMass_ = true;
    if (const auto* g = std::get_if<GravityModule>(&m); g && !g->scaleOverEmitterTime.keys.empty())
      spawnSampled_.push_back(&g->scaleOverEmitterTime);
    if (const auto* c = std::get_if<CollisionModule>(&m);
        c && c->response == CollisionResponse::Bounce && !c->bounceOverEmitterTime.keys.empty())
      spawnSampled_.push_back(&c->bounceOverEmitterTime);
    if (const auto* d = std::get_if<DragModule>(&m); d && d->divideByMass) needsMass_ = true;
    if (const auto* t = std::get_if<TargetModule>(&m); t && t->mode == TargetMode::Bezier)
      needsOrigin_ = true;
    if (const auto* t = std::get_if<TargetModule>(&m)) {  // the curves its mode reads
      const std::array<const Curve*, 3> curves =
          t->mode == TargetMode::Gravity
              ? std::array<const Curve*, 3>{&t->gravityOverEmitterTime, &t->dragOverEmitterTime,
                                            &t->killRadiusOverEmitterTime}
              : std::array<const Curve*, 3>{&t->travelTimeOverEmitterTime,
                                            &t->sourceTangentOverEmitterTime,
                                            &t->targetTangentOverEmitterTime};
      for (const Curve* c : curves)
        if (!c->keys.empty()) spawnSampled_.push_back(c);
    }
  });
  if (const SpriteSheet* s = animatedSheet()) {
    if (s->playback == SheetPlayback::Fps && !s->fpsOverEmitterTime.keys.empty())
      spawnSampled_.push_back(&s->fpsOverEmitterTime);
    for (const Curve* c : {&s->frameBeginOverEmitterTime, &s->frameEndOverEmitterTime})
      if (!c->keys.empty()) spawnSampled_.push_back(c);
  }
  if (!isZero(e_.init.spin)) needsSpin_ = true;
  // What a trail's source passes (TRAIL), and what the other emitters' events and spawn nodes
  // pass to this one's newborns.
  if (!e_.spawn.source.empty()) {
    inheritsVelocity_ = e_.spawn.inheritVelocity != 0.0f;
    inheritsColor_ = e_.spawn.inheritColor;
    inheritsSize_ = e_.spawn.inheritSize;
  }
  for (const Emitter& source : effect_.emitters) {
    for (const ParticleEvent& event : source.events) {
      if (event.spawn != e_.name || event.count == 0) continue;
      inheritsVelocity_ = inheritsVelocity_ || event.inheritVelocity != 0.0f;
      inheritsColor_ = inheritsColor_ || event.inheritColor;
      inheritsSize_ = inheritsSize_ || event.inheritSize;
    }
    const auto scan = [&](const NodeGraph& graph) {
      for (const GraphNode& node : graph.nodes) {
        const auto it = node.names.find("emitter");
        if (node.op != "spawn" || it == node.names.end() || it->second != e_.name) continue;
        inheritsVelocity_ = inheritsVelocity_ || givenPort(node, "velocity");
        inheritsColor_ = inheritsColor_ || givenPort(node, "color");
        inheritsSize_ = inheritsSize_ || givenPort(node, "size");
      }
    };
    scan(source.init.graph);
    for (const UpdateModule& m : source.update)
      if (const auto* gm = std::get_if<GraphModule>(&m)) scan(gm->graph);
  }
  // A spin module of the INIT graph asks for a roll as init.spin does.
  for (const GraphNode& node : e_.init.graph.nodes)
    for (const NodeModule& m : node.modules)
      if (const auto* spin = std::get_if<InitSpinModule>(&m); spin && !isZero(spin->value))
        needsSpin_ = true;
}

// World position of an emitter-local point, or of a named vec3 field (world) when one is given.
Value EmitterCompiler::targetPoint(Builder& b, const Vec3& local, const std::string& field) {
  if (!field.empty()) return namedField(b, field, 3);
  const Value rotation = b.builtin(Builtin::EmitterRotation);
  return b.add(
      b.builtin(Builtin::EmitterPosition),
      b.emit(Opcode::QuatRotate, 3, b.use(rotation), b.use(b.vec3(local[0], local[1], local[2]))));
}

Value EmitterCompiler::spawnSample(Builder& b, const Curve& curve) {
  const auto at = std::find(spawnSampled_.begin(), spawnSampled_.end(), &curve);
  return load(b, "spawn_sample." + std::to_string(at - spawnSampled_.begin()), 1);
}

Value EmitterCompiler::sampledOr(Builder& b, float constant, const Curve& curve) {
  return curve.keys.empty() ? b.scalar(constant) : spawnSample(b, curve);
}

void EmitterCompiler::lowerUpdate() {
  Builder& b = update_;
  Running& r = run_;
  r.dt = b.builtin(Builtin::Dt);
  r.age = b.add(load(b, "age", 1), r.dt);
  store(b, "age", r.age);
  const Value lifetime = load(b, "lifetime", 1);
  const bool deathEvents = std::any_of(e_.events.begin(), e_.events.end(), [](const auto& event) {
    return event.on == ParticleEventKind::Death && event.fires();
  });
  if (deathEvents) b.trackKills();
  if (!e_.init.immortal) b.kill(b.emit(Opcode::CmpLt, 1, b.use(lifetime), b.use(r.age)));
  r.t = b.saturate(b.div(r.age, lifetime));
  r.p = load(b, "position", 3);
  const Value start = r.p;  // where the particle begins the tick (trails)
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
  // Trails: the emitters this one's particles emit, along the path each travelled this tick.
  for (std::size_t t = 0; t < effect_.emitters.size(); ++t)
    if (effect_.emitters[t].spawn.source == e_.name) trail(b, static_cast<std::uint32_t>(t), start);
  // Death events: where a KILL fired this tick, at the particle's last position.
  for (std::size_t i = 0; i < e_.events.size(); ++i)
    if (e_.events[i].on == ParticleEventKind::Death) fireEvent(b, i, b.killed(), r.p, r.v);
  if (needsSpin_) store(b, "rotation", b.fma(r.spin, r.dt, load(b, "rotation", 1)));
  frameUpdate(b, r.age, r.t);
}

// Stores the running position, velocity, and the colour and size when a module changed them.
void EmitterCompiler::flushRunning(Builder& b) {
  store(b, "position", run_.p);
  store(b, "velocity", run_.v);
  if (run_.colorChanged) store(b, "color", run_.color);
  if (run_.sizeChanged) store(b, "size", run_.size);
}

// Reads them back after graph nodes may have written the fields.
void EmitterCompiler::reloadRunning(Builder& b) {
  run_.p = load(b, "position", 3);
  run_.v = load(b, "velocity", 3);
  if (run_.colorChanged) run_.color = load(b, "color", 4);
  if (run_.sizeChanged) run_.size = load(b, "size", 2);
}

// A "modules" node of an UPDATE graph: its modules run as they would at this place in the
// update list (the running colour, size and spin go on through them), reading position and
// velocity from the fields as the graph left them, and storing what they change for the nodes
// after it.
void EmitterCompiler::lowerModuleNode(Builder& b, const std::vector<NodeModule>& modules) {
  reloadRunning(b);
  UpdateModule storage;
  for (const NodeModule& m : modules)
    if (const UpdateModule* u = moduleAs(m, storage)) lowerModule(b, *u);
  flushRunning(b);
}

// One module (never a graph module) on the running state.
void EmitterCompiler::lowerModule(Builder& b, const UpdateModule& m) {
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
    if (!gravity->scaleOverEmitterTime.keys.empty())
      acc = b.mul(acc, spawnSample(b, gravity->scaleOverEmitterTime));
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
      v = b.fma(b.normalize(d), b.mul(dt, sampledOr(b, tm->gravity, tm->gravityOverEmitterTime)),
                v);
      if (!tm->dragOverEmitterTime.keys.empty()) {
        v = b.fma(v, b.mul(dt, b.mul(spawnSample(b, tm->dragOverEmitterTime), b.scalar(-1.0f))), v);
      } else if (tm->drag > 0.0f) {
        v = b.fma(v, b.mul(dt, b.scalar(-tm->drag)), v);
      }
      if (tm->killRadius > 0.0f || !tm->killRadiusOverEmitterTime.keys.empty()) {
        const Value radius = sampledOr(b, tm->killRadius, tm->killRadiusOverEmitterTime);
        b.kill(b.emit(Opcode::CmpLt, 1, b.use(dist), b.use(radius)));
      }
    } else {
      // Cubic Bezier from the spawn point to the target: P1 = src + up·b2 and
      // P2 = dst + up·b3, with up the emitter's up axis — the path leaves upward and comes
      // down onto the target, an arc whose height the handle lengths set (rollnw's p2p
      // Bezier; NWN's handles are along the node's Z).
      const Value src = load(b, "origin", 3);
      const Value dir = b.builtin(Builtin::EmitterUp);
      const Value p1 =
          b.fma(dir, sampledOr(b, tm->sourceTangent, tm->sourceTangentOverEmitterTime), src);
      const Value p2 =
          b.fma(dir, sampledOr(b, tm->targetTangent, tm->targetTangentOverEmitterTime), target);
      Value s = state.t;
      if (!tm->travelTimeOverEmitterTime.keys.empty()) {
        // A travel time of 0 at a particle's birth: its life, as the constant's 0 is.
        const Value travel = spawnSample(b, tm->travelTimeOverEmitterTime);
        const Value timed = b.emit(Opcode::CmpLt, 1, b.use(b.scalar(0.0f)), b.use(travel));
        s = b.select(timed, b.saturate(b.div(state.age, b.max(travel, b.scalar(1e-30f)))), s);
      } else if (tm->travelTime > 0.0f) {
        s = b.saturate(b.div(state.age, b.scalar(tm->travelTime)));
      }
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
    color = col->mode == CurveMode::Set ? g : b.mul(color.valid() ? color : load(b, "color", 4), g);
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
  } else if (const auto* sp = std::get_if<SpinOverLifeModule>(&m)) {
    const Value f = evalCurve(b, sp->curve, state.t);
    spin = sp->mode == CurveMode::Set ? b.mul(f, b.scalar(kDegrees)) : b.mul(spin, f);
  } else if (const auto* lim = std::get_if<SpeedLimitModule>(&m)) {
    const Value speed = b.length(v);
    v = b.mul(
        v, b.min(b.scalar(1.0f), b.div(b.scalar(lim->maxSpeed), b.max(speed, b.scalar(1e-12f)))));
  }
}

// The index of the effect's emitter named `name` (validated to exist).
std::uint32_t EmitterCompiler::emitterIndex(const std::string& name) const {
  for (std::size_t t = 0; t < effect_.emitters.size(); ++t)
    if (effect_.emitters[t].name == name) return static_cast<std::uint32_t>(t);
  return 0;
}

// The particle's width and colour as a request passes them (neutral where it does not): as the
// running state has them, the fields where no module changed them yet.
Value EmitterCompiler::passedSize(Builder& b, bool passes) {
  if (!passes) return b.scalar(1.0f);
  return run_.sizeChanged ? b.lane(run_.size, 0) : b.lane(load(b, "size", 2), 0);
}
Value EmitterCompiler::passedColor(Builder& b, bool passes) {
  if (!passes) return b.constant({1.0f, 1.0f, 1.0f, 1.0f}, 4);
  return run_.colorChanged ? run_.color : load(b, "color", 4);
}

// SPAWN `count` × `fired` (0 or 1) particles into emitter `target` at `point`; SPAWNI when
// `event` passes something on: the particle's `velocity` × inherit_velocity, its width and colour.
void EmitterCompiler::spawnWhere(Builder& b, std::uint32_t target, std::uint32_t count, Value fired,
                                 Value point, const ParticleEvent* event, Value velocity) {
  const Value n = b.mul(fired, b.scalar(static_cast<float>(count)));
  if (event == nullptr || !event->inherits()) {
    b.emit(Opcode::Spawn, 1, Builder::index(target), b.use(n), b.use(point));
    return;
  }
  const Value v = event->inheritVelocity != 0.0f ? b.mul(velocity, b.scalar(event->inheritVelocity))
                                                 : b.vec3(0.0f, 0.0f, 0.0f);
  spawnInherit(b, target, n, point, v, passedSize(b, event->inheritSize),
               passedColor(b, event->inheritColor));
}

// TRAIL into emitter `target` (whose spawn source is this emitter): its rate a second, or a metre
// of the path from `start` to where the particle ends the tick, accumulates in the particle's
// field "trail.<target>" (INIT starts it at 0); the whole particles of it are asked for, spread
// along that path, and the fraction is kept for the next tick.
void EmitterCompiler::trail(Builder& b, std::uint32_t target, Value start) {
  const Emission& s = effect_.emitters[target].spawn;
  const std::string field = "trail." + std::to_string(target);
  const Value amount =
      s.metric == SpawnMetric::PerDistance ? b.length(b.sub(run_.p, start)) : run_.dt;
  const Value owed = b.fma(amount, b.scalar(s.rate), load(b, field, 1));
  const Value whole = b.unary(Opcode::Floor, owed);
  store(b, field, b.sub(owed, whole));
  b.emitTo(Opcode::Trail, target, xyzw(b, run_.p, whole),
           xyzw(b, start, passedSize(b, s.inheritSize)), b.use(passedColor(b, s.inheritColor)));
}

// Event `index` of the emitter where `fired` (0 or 1) is 1, for a particle at `point` moving at
// `velocity`: its particles (SPAWN or SPAWNI) and its report to the host (REPORT, tagged with
// `index`).
void EmitterCompiler::fireEvent(Builder& b, std::size_t index, Value fired, Value point,
                                Value velocity) {
  const ParticleEvent& event = e_.events[index];
  if (event.spawns())
    spawnWhere(b, emitterIndex(event.spawn), event.count, fired, point, &event, velocity);
  if (event.report) {
    const auto kind = event.on == ParticleEventKind::Birth   ? bytecode::ReportKind::Birth
                      : event.on == ParticleEventKind::Death ? bytecode::ReportKind::Death
                                                             : bytecode::ReportKind::Collision;
    report(b, kind, b.scalar(static_cast<float>(index)), fired, point, velocity);
  }
}

// (xyz.x, xyz.y, xyz.z, w.x) as one 4-wide operand: how SPAWNI and REPORT take a point or a
// velocity with a scalar beside it.
Operand EmitterCompiler::xyzw(Builder& b, Value xyz, Value w) {
  return b.use(b.compose({b.lane(xyz, 0), b.lane(xyz, 1), b.lane(xyz, 2), b.lane(w, 0)}));
}

// REPORT of an event of `kind` tagged `tag` (lane x) where lane x of `fired` is 1 or more.
void EmitterCompiler::report(Builder& b, bytecode::ReportKind kind, Value tag, Value fired,
                             Value point, Value velocity) {
  b.emitTo(Opcode::Report, static_cast<std::uint32_t>(kind), xyzw(b, point, fired),
           xyzw(b, velocity, tag), {});
}

// SPAWNI of `count` (lane x) particles into `target` at `point`, passing `velocity` (3), `size`
// (1) and `color` (4).
void EmitterCompiler::spawnInherit(Builder& b, std::uint32_t target, Value count, Value point,
                                   Value velocity, Value size, Value color) {
  b.emitTo(Opcode::SpawnInherit, target, xyzw(b, point, count), xyzw(b, velocity, size),
           b.use(color));
}

void EmitterCompiler::collide(Builder& b, const CollisionModule& c, Value& p, Value& v) {
  // Sub-emitters: the module's spawn_emitter, then the emitter's collision events.
  const bool subEmitter = !c.spawnEmitter.empty() && c.spawnCount > 0;
  std::vector<std::size_t> events;  // indices into e_.events
  for (std::size_t i = 0; i < e_.events.size(); ++i)
    if (e_.events[i].on == ParticleEventKind::Collision) events.push_back(i);
  for (std::size_t i = 0; i < c.colliders.size(); ++i) {
    const Collider& k = c.colliders[i];
    const Value center = b.vec3(k.position[0], k.position[1], k.position[2]);
    Value normal;
    Value depth;   // > 0: penetration of `at` along `normal`
    Value at = p;  // the shapes test where the particle is now
    if (k.kind == ColliderKind::Host) {
      // The host's world, swept along this tick's motion: depth is how far the end of the sweep
      // lies behind the contact plane (bytecode/collision.h), so the response below puts the
      // particle on it.
      const Value to = b.fma(v, run_.dt, p);
      const Value r =
          b.emit(Opcode::Collide, 4, b.use(p), b.use(to), b.use(b.scalar(c.particleRadius)));
      normal = b.emit(Opcode::Mov, 3, b.use(r));
      depth = b.lane(r, 3);
      at = to;
    } else if (k.kind == ColliderKind::Plane) {
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
      const Value gap = k.inside ? b.sub(b.add(aq, b.scalar(c.particleRadius)), half)   // > 0: out
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
    // At the point of contact, as it hit.
    const Value contact = b.fma(normal, depth, at);
    if (subEmitter) spawnWhere(b, emitterIndex(c.spawnEmitter), c.spawnCount, hit, contact);
    for (const std::size_t event : events)
      fireEvent(b, event, hit, contact, v);
    if (c.response == CollisionResponse::Kill) {
      b.kill(hit);
      continue;
    }
    const Value pushed = b.fma(normal, depth, at);
    p = b.select(hit, pushed, p);
    if (c.response == CollisionResponse::Splat) {
      v = b.select(hit, b.vec3(0.0f, 0.0f, 0.0f), v);
      continue;
    }
    const Value vNormal = b.mul(normal, vn);
    const Value vTangent = b.sub(v, vNormal);
    const Value restitution = sampledOr(b, c.bounce, c.bounceOverEmitterTime);
    const Value bounced =
        b.sub(b.mul(vTangent, b.scalar(1.0f - c.friction)), b.mul(vNormal, restitution));
    v = b.select(hit, bounced, v);
  }
}

void EmitterCompiler::killIf(Builder& b, const KillModule& k, Value age, Value p, Value v) {
  const Value center = b.vec3(k.position[0], k.position[1], k.position[2]);
  Value condition;
  switch (k.condition) {
    case KillCondition::Age:
      condition = b.emit(Opcode::CmpLt, 1, b.use(b.scalar(k.threshold)), b.use(age));
      break;
    case KillCondition::Plane: {
      const Vec3& n = k.normal;
      condition = b.emit(Opcode::CmpLt, 1, b.use(b.dot(b.sub(p, center), b.vec3(n[0], n[1], n[2]))),
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

void EmitterCompiler::frameUpdate(Builder& b, Value age, Value t) {
  const SpriteSheet* sheet = animatedSheet();
  if (sheet == nullptr) return;
  const SpriteSheet& s = *sheet;
  // A range that follows emitter time is the particle's own (frameRange); a fixed one is constant.
  const bool keyed = keyedFrameRange(s);
  const FrameRange range = keyed ? frameRange(b, s) : FrameRange{};
  const float count = framesPlayed(s);
  const auto frames = [&] { return keyed ? range.count : b.scalar(count); };
  const Value offset = load(b, "frame_offset", 1);
  Value progress = s.playback == SheetPlayback::OverLife
                       ? b.mul(t, frames())
                       : b.mul(age, sampledOr(b, s.fps, s.fpsOverEmitterTime));
  progress = b.add(progress, offset);
  // loop: wrap into [0, count); else hold the last frame
  const float hold = s.frameBlend ? 1.0f : 0.0001f;
  const Value within =
      s.loop && s.playback == SheetPlayback::Fps
          ? b.emit(Opcode::Mod, 1, b.use(progress), b.use(frames()))
          : b.min(progress, keyed ? b.sub(range.count, b.scalar(hold)) : b.scalar(count - hold));
  const Value frame = s.frameBlend ? within : b.unary(Opcode::Floor, within);
  store(b, "frame", b.add(frame, keyed ? range.begin : b.scalar(static_cast<float>(s.frameBegin))));
}

}  // namespace mote::compiler
