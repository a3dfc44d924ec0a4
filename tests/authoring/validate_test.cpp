// SPDX-License-Identifier: MIT
// validateEffect on models built in code (as an importer or a tool would build them): each check
// names the value it is about with the pointer the JSON would have.
#include <mote/authoring/effect_json.h>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace mote::authoring {
namespace {

EffectDesc minimal() {
  EffectDesc e;
  Emitter em;
  em.name = "a";
  em.spawn.rate = 10.0f;
  e.emitters.push_back(em);
  return e;
}

// A graph node with an op, inputs and modules (the rest empty).
GraphNode node(std::string id, std::string op, std::map<std::string, std::string> inputs = {},
               std::vector<NodeModule> modules = {}) {
  GraphNode n;
  n.id = std::move(id);
  n.op = std::move(op);
  n.inputs = std::move(inputs);
  n.modules = std::move(modules);
  return n;
}

std::string findings(const EffectDesc& e) {
  std::string out;
  for (const Diagnostic& d : validateEffect(e))
    out += formatDiagnostic(d) + "\n";
  return out;
}

TEST(Validate, MinimalEffectIsValid) {
  EXPECT_EQ(findings(minimal()), "");
}

TEST(Validate, AnEffectNeedsAnEmitter) {
  EXPECT_EQ(findings(EffectDesc{}), "error: /emitters: an effect needs at least one emitter\n");
}

// Spawn-time curves of the spread, the jitter's scale and the spawn region: their keys' bounds and
// order, and a curve on a velocity or shape that has no use for it (ignored, with a warning).
TEST(Validate, SpawnTimeCurvesAreCheckedWhereTheyApply) {
  EffectDesc e = minimal();
  Emitter& em = e.emitters[0];
  em.init.velocity.kind = VelocityKind::Cone;
  em.init.velocity.spreadOverEmitterTime = Curve{Interp::Linear, {{0.0f, 10.0f}, {1.0f, 200.0f}}};
  em.init.velocity.speed.rangeScaleOverEmitterTime =
      Curve{Interp::Linear, {{1.0f, 1.0f}, {0.5f, 2.0f}}};
  em.shape.kind = ShapeKind::Rect;
  em.shape.sizeOverEmitterTime = {Vec3Key{0.0f, {1.0f, 0.0f, -1.0f}}};
  EXPECT_EQ(findings(e),
            "error: /emitters/0/shape/size_over_emitter_time/0/1/2: must be >= 0 (got -1)\n"
            "error: /emitters/0/init/velocity/spread_over_emitter_time/keys/1/1: must be <= 180 "
            "(got 200)\n"
            "error: /emitters/0/init/velocity/speed/range_scale_over_emitter_time/keys/1: key "
            "time 0.5 is before the previous key's 1 (keys must be in time order)\n");
  em.init.velocity.spreadOverEmitterTime.keys[1].value = 90.0f;
  em.init.velocity.speed.rangeScaleOverEmitterTime.keys[1].time = 2.0f;
  em.shape.sizeOverEmitterTime[0].value[2] = 1.0f;
  EXPECT_EQ(findings(e), "");
  em.init.velocity.kind = VelocityKind::Sphere;
  em.shape.kind = ShapeKind::Sphere;
  EXPECT_EQ(findings(e),
            "warning: /emitters/0/init/velocity/spread_over_emitter_time: ignored: the velocity "
            "is not a cone\n"
            "warning: /emitters/0/shape/size_over_emitter_time: ignored: the shape is neither "
            "rect nor box\n");
}

// Update-module parameters sampled at birth: a gravity's scale may be negative (NWN mass), a
// sheet's frame rate may not; each is ignored, with a warning, where its module does not use it.
TEST(Validate, BirthSampledUpdateParametersAreCheckedWhereTheyApply) {
  EffectDesc e = minimal();
  Emitter& em = e.emitters[0];
  GravityModule gravity;
  gravity.scaleOverEmitterTime = Curve{Interp::Linear, {{0.0f, -3.0f}, {1.0f, 2.0f}}};
  CollisionModule collision;
  collision.colliders.push_back(Collider{});
  collision.response = CollisionResponse::Splat;
  collision.bounceOverEmitterTime = Curve{Interp::Linear, {{0.0f, 0.5f}}};
  em.update = {gravity, collision};
  Material m;
  m.name = "sheet";
  m.sheet.columns = 4;
  m.sheet.fpsOverEmitterTime = Curve{Interp::Linear, {{0.0f, -1.0f}}};
  e.materials.push_back(m);
  em.material = "sheet";
  EXPECT_EQ(findings(e),
            "error: /materials/0/sheet/fps_over_emitter_time/keys/0/1: must be >= 0 (got -1)\n"
            "warning: /emitters/0/update/1/bounce_over_emitter_time: ignored: the response is not "
            "bounce\n");
  e.materials[0].sheet.fpsOverEmitterTime.keys[0].value = 12.0f;
  e.materials[0].sheet.playback = SheetPlayback::OverLife;
  std::get<CollisionModule>(em.update[1]).response = CollisionResponse::Bounce;
  EXPECT_EQ(findings(e),
            "warning: /materials/0/sheet/fps_over_emitter_time: ignored: the sheet plays over "
            "life, not at a frame rate\n");
  // A frame range that follows emitter time needs more than one cell.
  e.materials[0].sheet.playback = SheetPlayback::Fps;
  e.materials[0].sheet.columns = 1;
  e.materials[0].sheet.frameEndOverEmitterTime = Curve{Interp::Linear, {{0.0f, 3.0f}}};
  EXPECT_EQ(findings(e),
            "warning: /materials/0/sheet/frame_end_over_emitter_time: ignored: a one-cell sheet "
            "has one frame\n");
}

TEST(Validate, ParticleEventsNameAnotherEmitter) {
  EffectDesc e = minimal();
  Emitter sparks = e.emitters[0];
  sparks.name = "sparks";
  e.emitters.push_back(sparks);
  e.emitters[0].events = {ParticleEvent{ParticleEventKind::Death, "sparkz", 3},
                          ParticleEvent{ParticleEventKind::Collision, "sparks", 1},
                          ParticleEvent{ParticleEventKind::Death, e.emitters[0].name, 1},
                          ParticleEvent{ParticleEventKind::Death, "", 1}};
  EXPECT_EQ(findings(e),
            "error: /emitters/0/events/0/spawn: no emitter named \"sparkz\" (did you mean "
            "\"sparks\"?)\n"
            "warning: /emitters/0/events/1/on: ignored: the emitter has no collision module\n"
            "error: /emitters/0/events/2/spawn: an emitter cannot spawn into itself\n"
            "error: /emitters/0/events/3/spawn: names no emitter (and the event does not "
            "report)\n");
  // An event that only reports names no emitter.
  e.emitters[0].events = {ParticleEvent{ParticleEventKind::Death, "", 0}};
  e.emitters[0].events[0].report = true;
  EXPECT_EQ(findings(e), "");
}

TEST(Validate, ATrailNamesAnotherEmitterAndTakesARateAlone) {
  EffectDesc e = minimal();
  Emitter tail = e.emitters[0];
  tail.name = "tail";
  e.emitters[0].name = "comet";
  tail.spawn.source = "comit";
  e.emitters.push_back(tail);
  EXPECT_EQ(findings(e),
            "error: /emitters/1/spawn/source: no emitter named \"comit\" (did you mean "
            "\"comet\"?)\n");
  e.emitters[1].spawn.source = "tail";
  EXPECT_EQ(findings(e),
            "error: /emitters/1/spawn/source: an emitter cannot be its own trail source\n");
  // A schedule of its own, or a local space, does not go with a trail; nor does an event into it.
  Emitter& t = e.emitters[1];
  t.spawn.source = "comet";
  t.spawn.bursts = {Burst{}};
  t.spawn.loop = true;
  t.spawn.duration = 1.0f;
  t.space = SimulationSpace::Local;
  e.emitters[0].events = {ParticleEvent{ParticleEventKind::Death, "tail", 3}};
  EXPECT_EQ(findings(e),
            "error: /emitters/1/space: a trail (spawn.source) simulates in world space: it is "
            "laid along its source's path\n"
            "error: /emitters/1/spawn/source: a particle event or collision spawns into this "
            "trail; only its source's particles may\n"
            "error: /emitters/1/spawn/bursts: a trail (spawn.source) takes rate and metric only: "
            "its source's particles emit it\n"
            "error: /emitters/1/spawn/duration: a trail (spawn.source) takes rate and metric "
            "only: its source's particles emit it\n"
            "error: /emitters/1/spawn/loop: a trail (spawn.source) takes rate and metric only: "
            "its source's particles emit it\n");
  // inherit_* without a source do nothing.
  e = minimal();
  e.emitters[0].spawn.inheritColor = true;
  EXPECT_EQ(findings(e),
            "warning: /emitters/0/spawn: ignored: inherit_* apply to a trail "
            "(spawn.source)\n");
}

TEST(Validate, InheritanceATargetOverwritesIsLost) {
  EffectDesc e = minimal();
  Emitter sparks = e.emitters[0];
  sparks.name = "sparks";
  ColorOverLifeModule color;
  color.gradient.keys = {GradientKey{0.0f, {1.0f, 1.0f, 1.0f, 1.0f}}};
  color.mode = CurveMode::Set;
  SizeOverLifeModule size;
  size.x.keys = {CurveKey{0.0f, 1.0f}};
  size.mode = CurveMode::Set;
  sparks.update = {color, size};
  e.emitters.push_back(sparks);
  ParticleEvent passes{ParticleEventKind::Death, "sparks", 3};
  passes.inheritColor = passes.inheritSize = true;
  passes.inheritVelocity = 0.5f;  // nothing overwrites a velocity at birth
  e.emitters[0].events = {passes};
  EXPECT_EQ(findings(e),
            "warning: /emitters/0/events/0/inherit_color: lost: sparks's color_over_life sets the "
            "colour every tick (use mode multiply to keep it)\n"
            "warning: /emitters/0/events/0/inherit_size: lost: sparks's size_over_life sets the "
            "size every tick (use mode multiply to keep it)\n");
  // In mode multiply (the default) they scale what was inherited: nothing to say.
  color.mode = size.mode = CurveMode::Multiply;
  e.emitters[1].update = {color, size};
  EXPECT_EQ(findings(e), "");
}

TEST(Validate, NonFiniteValuesAreNamed) {
  EffectDesc e = minimal();
  e.emitters[0].spawn.rate = std::numeric_limits<float>::quiet_NaN();
  e.emitters[0].position[1] = std::numeric_limits<float>::infinity();
  e.emitters[0].init.size.range = Range{1.0f, -std::numeric_limits<float>::infinity()};
  EXPECT_EQ(findings(e),
            "error: /emitters/0/position/1: must be finite (got inf)\n"
            "error: /emitters/0/spawn/rate: must be finite (got nan)\n"
            "error: /emitters/0/init/size/1: must be finite (got -inf)\n"
            "error: /emitters/0/init/size: min 1 is greater than max -inf\n");
}

TEST(Validate, BoundsAndOrder) {
  EffectDesc e = minimal();
  Emitter& em = e.emitters[0];
  em.maxParticles = 0;
  em.shape.angle = 190.0f;
  em.init.lifetime.range = Range{3.0f, 1.0f};
  em.init.spin.overEmitterTime = Curve{Interp::Linear, {{2.0f, 1.0f}, {1.0f, 0.0f}}};
  em.update.push_back(AlphaOverLifeModule{Curve{Interp::Linear, {{0.0f, 1.0f}, {1.5f, 0.0f}}}, {}});
  em.update.push_back(SizeOverLifeModule{});
  EXPECT_EQ(findings(e),
            "error: /emitters/0/max_particles: must be >= 1 (got 0)\n"
            "error: /emitters/0/shape/angle: must be <= 180 (got 190)\n"
            "error: /emitters/0/init/lifetime: min 3 is greater than max 1\n"
            "error: /emitters/0/init/spin/over_emitter_time/keys/1: key time 1 is before the "
            "previous key's 2 (keys must be in time order)\n"
            "error: /emitters/0/update/0/curve/keys/1: over-life key time must be in [0, 1] (got "
            "1.5)\n"
            "error: /emitters/0/update/1/x/keys: needs at least one key\n");
}

TEST(Validate, NamesAndReferences) {
  EffectDesc e = minimal();
  Material smoke;
  smoke.name = "smoke";
  e.materials.push_back(smoke);
  smoke.texture = "builtin:sparkk";
  e.materials.push_back(smoke);
  e.emitters.push_back(e.emitters[0]);
  e.emitters[0].material = "smok";
  e.emitters[0].particleFields.push_back(FieldDecl{"heat", FieldType::Float, {}});
  e.emitters[0].particleFields.push_back(FieldDecl{"2hot", FieldType::Float2, {1.0f}});
  e.emitters[0].init.fields.push_back(FieldInit{"heet", {1.0f}, {}});
  e.emitters[0].init.fields.push_back(FieldInit{"heat", {1.0f, 2.0f}, {}});
  CollisionModule hit;
  hit.colliders.emplace_back();
  hit.spawnEmitter = "splash";
  e.emitters[0].update.push_back(hit);
  TargetModule target;
  target.positionField = "goal";
  e.emitters[0].update.push_back(target);
  EXPECT_EQ(findings(e),
            "error: /materials/1/name: duplicate name \"smoke\"\n"
            "error: /emitters/1/name: duplicate name \"a\"\n"
            "error: /materials/1/texture: unknown built-in sprite \"builtin:sparkk\" (did you "
            "mean \"builtin:spark\"?)\n"
            "error: /emitters/0/material: no material named \"smok\" (did you mean \"smoke\"?)\n"
            "error: /emitters/0/particle_fields/1/name: \"2hot\" is not a valid field name "
            "(letters, digits and _, not starting with a digit)\n"
            "error: /emitters/0/particle_fields/1/value: has 1 numbers; a vec2 needs 2\n"
            "error: /emitters/0/init/fields/0/field: no particle field named \"heet\" (did you "
            "mean \"heat\"?)\n"
            "error: /emitters/0/init/fields/1/min: has 2 numbers; field \"heat\" has 1\n"
            "error: /emitters/0/update/0/spawn_emitter: no emitter named \"splash\"\n"
            "error: /emitters/0/update/1/position_field: no vec3 emitter or global field named "
            "\"goal\"\n");
}

TEST(Validate, SheetsShapesAndModes) {
  EffectDesc e = minimal();
  Material m;
  m.name = "sheet";
  m.sheet.columns = 4;
  m.sheet.rows = 2;
  m.sheet.frameBegin = 5;
  m.sheet.frameEnd = 3;
  e.materials.push_back(m);
  Emitter& em = e.emitters[0];
  em.spawn.mode = EmissionMode::SingleShot;
  em.spawn.metric = SpawnMetric::PerDistance;
  em.shape.radius = 1.0f;
  em.shape.innerRadius = 2.0f;
  em.render.mode = RenderMode::Mesh;
  EXPECT_EQ(findings(e),
            "error: /materials/0/sheet/frame_end: frame_end 3 is before frame_begin 5\n"
            "error: /emitters/0/spawn/metric: per_distance applies to continuous emission only\n"
            "error: /emitters/0/shape/inner_radius: inner_radius 2 is greater than radius 1\n"
            "error: /emitters/0/render/mesh: mesh mode needs a mesh name\n");
}

// The material and render fields that once warned "not drawn yet" are drawn now: they say
// nothing.
TEST(Validate, LitDoubleSidedTintDeadspaceAndMeshesAreDrawnAndDoNotWarn) {
  EffectDesc e = minimal();
  Material m;
  m.name = "leaf";
  m.lit = true;
  m.ambientTint = true;
  e.materials.push_back(m);
  Material plain;
  plain.name = "plain";
  plain.doubleSided = true;
  e.materials.push_back(plain);
  e.emitters[0].render.mode = RenderMode::VelocityAligned;
  e.emitters[0].render.deadspace = 4.0f;
  Emitter rock = e.emitters[0];
  rock.name = "rock";
  rock.render = {};
  rock.render.mode = RenderMode::Mesh;
  rock.render.mesh = "builtin:icosphere";
  e.emitters.push_back(rock);
  EXPECT_EQ(findings(e), "");
  rock.render.mesh = "builtin:sphere";
  e.emitters.back() = rock;
  EXPECT_NE(findings(e).find("unknown built-in mesh \"builtin:sphere\""), std::string::npos)
      << findings(e);
}

TEST(Validate, CapacityPerEffect) {
  EffectDesc e = minimal();
  e.emitters[0].maxParticles = kMaxParticlesPerEmitter;
  for (int i = 1; i < 5; ++i) {
    e.emitters.push_back(e.emitters[0]);
    e.emitters.back().name = "e" + std::to_string(i);
  }
  EXPECT_EQ(findings(e),
            "error: /emitters: the emitters' max_particles add up to 5242880; at most 4194304 per "
            "effect\n");
}

TEST(Validate, GraphsAreStructurallyChecked) {
  EffectDesc e = minimal();
  GraphModule g;
  g.graph.nodes.push_back(node("n1", "add", {{"a", "n0.out"}, {"b", "n1"}}));
  g.graph.nodes.push_back(node("n1", ""));
  e.emitters[0].update.push_back(g);
  e.emitters[0].update.push_back(GraphModule{});
  EXPECT_EQ(findings(e),
            "error: /emitters/0/update/0/graph/nodes/1/id: duplicate name \"n1\"\n"
            "error: /emitters/0/update/0/graph/nodes/0/inputs/a: no node named \"n0\" (did you "
            "mean \"n1\"?)\n"
            "error: /emitters/0/update/0/graph/nodes/1/op: must not be empty\n"
            "error: /emitters/0/update/1/graph/nodes: needs at least one node\n");
}

TEST(Validate, CurvesAndGradientsBelongToTheirNodes) {
  EffectDesc e = minimal();
  GraphModule g;
  g.graph.nodes.push_back(node("c", "curve", {{"t", "c"}}));  // no keys
  g.graph.nodes.push_back(node("g", "gradient"));
  g.graph.nodes.push_back(node("x", "add"));
  g.graph.nodes[2].curve.keys = {{0.0f, 1.0f}};
  g.graph.nodes.push_back(node("y", "curve"));
  g.graph.nodes[3].curve.keys = {{1.0f, 1.0f}, {0.5f, 2.0f}};  // out of order
  e.emitters[0].update.push_back(g);
  EXPECT_EQ(findings(e),
            "error: /emitters/0/update/0/graph/nodes/3/curve/keys/1: key time 0.5 is before the "
            "previous key's 1 (keys must be in time order)\n"
            "error: /emitters/0/update/0/graph/nodes/0/curve: a curve node needs \"curve\" with "
            "at least one key\n"
            "error: /emitters/0/update/0/graph/nodes/1/gradient: a gradient node needs "
            "\"gradient\" with at least one key\n"
            "error: /emitters/0/update/0/graph/nodes/2/curve: only a node with op \"curve\" has a "
            "curve (this one is \"add\")\n");
}

TEST(Validate, ModulesNodesAreCheckedLikeTheUpdateList) {
  EffectDesc e = minimal();
  e.emitters.push_back(minimal().emitters[0]);
  e.emitters[1].name = "sparks";
  // The INIT graph's modules nodes hold INIT modules, checked like the init members.
  InitVelocityModule aimless;
  aimless.velocity.kind = VelocityKind::Cone;
  aimless.velocity.direction = {0.0f, 0.0f, 0.0f};
  InitShapeModule ring;
  ring.shape.innerRadius = 2.0f;
  ring.shape.radius = 1.0f;
  InitFieldModule heat;
  heat.value.field = "heat";
  heat.value.min = {1.0f};
  e.emitters[0].init.graph.nodes.push_back(
      node("m", "modules", {}, {DragModule{}, aimless, ring, heat}));
  GraphModule g;
  g.graph.nodes.push_back(node("i", "modules", {}, {InitSpinModule{}}));
  // Only op "modules" holds modules; an empty modules node; graphs do not nest.
  g.graph.nodes.push_back(node("t", "dt", {}, {DragModule{}}));
  g.graph.nodes.push_back(node("empty", "modules", {}, {}));
  CollisionModule hit;  // no collider, a zero normal
  hit.colliders.push_back(Collider{});
  hit.colliders[0].normal = {0.0f, 0.0f, 0.0f};
  hit.spawnEmitter = "sprks";
  g.graph.nodes.push_back(node("m", "modules", {}, {GraphModule{}, hit}));
  e.emitters[0].update.push_back(g);
  EXPECT_EQ(findings(e),
            "error: /emitters/0/init/graph/nodes/0/modules/0/type: \"drag\" is an update "
            "module; the INIT graph's modules nodes hold INIT modules\n"
            "error: /emitters/0/init/graph/nodes/0/modules/1/direction: must not be [0, 0, 0] (it "
            "is a direction)\n"
            "error: /emitters/0/init/graph/nodes/0/modules/2/inner_radius: inner_radius 2 is "
            "greater than radius 1\n"
            "error: /emitters/0/init/graph/nodes/0/modules/3/field: no particle field named "
            "\"heat\"\n"
            "error: /emitters/0/update/0/graph/nodes/0/modules/0/type: \"spin\" is an INIT "
            "module; it belongs in a modules node of init.graph\n"
            "error: /emitters/0/update/0/graph/nodes/1/modules: only a node with op \"modules\" "
            "holds modules (this one is \"dt\")\n"
            "error: /emitters/0/update/0/graph/nodes/2/modules: a modules node needs at least one "
            "module\n"
            "error: /emitters/0/update/0/graph/nodes/3/modules/0/type: a modules node cannot hold "
            "a graph module (graphs do not nest)\n"
            "error: /emitters/0/update/0/graph/nodes/3/modules/1/colliders/0/normal: must not be "
            "[0, 0, 0] (it is a direction)\n"
            "error: /emitters/0/update/0/graph/nodes/3/modules/1/spawn_emitter: no emitter named "
            "\"sprks\" (did you mean \"sparks\"?)\n");
  // A collision in a modules node makes its spawn target an emitter that needs no rate.
  EffectDesc fed = minimal();
  fed.emitters.push_back(minimal().emitters[0]);
  fed.emitters[1].name = "sparks";
  fed.emitters[1].spawn.rate = 0.0f;
  hit.colliders[0].normal = {0.0f, 1.0f, 0.0f};
  hit.spawnEmitter = "sparks";
  GraphModule feeder;
  feeder.graph.nodes.push_back(node("m", "modules", {}, {hit}));
  fed.emitters[0].update.push_back(feeder);
  const std::string withTarget = findings(fed);
  fed.emitters[0].update.clear();
  EXPECT_EQ(withTarget, "");
  EXPECT_NE(findings(fed), "");  // without the node, "sparks" never spawns: a warning
}

}  // namespace
}  // namespace mote::authoring
