// SPDX-License-Identifier: MIT
// The field table of the effect format: for every EffectDesc struct, its JSON keys in canonical
// order with their documentation, unit and bounds. The reader, the writer, the validator's generic
// checks, the JSON Schema and the docs' field reference all walk this one table, so they cannot
// disagree about a name, an enum value, a bound or a default (the defaults are the structs' own
// member initialisers).
//
// A visitor is called as `v(member, FieldInfo)` for every field; `Reflect<T>::fields(v, s)` works
// on `T&` and `const T&` alike.
#pragma once

#include <mote/authoring/effect.h>

#include <array>
#include <cstdint>
#include <limits>
#include <string_view>
#include <type_traits>

namespace mote::authoring::reflect {

inline constexpr double kUnbounded = std::numeric_limits<double>::infinity();

/// The time domain of a curve's keys.
enum class Domain : std::uint8_t {
  None,
  EmitterTime,  ///< seconds since the emitter started: key times >= 0
  EffectTime,   ///< seconds since the effect started: key times >= 0
  OverLife,     ///< normalised age: key times in [0, 1]
};

struct FieldInfo {
  std::string_view key;
  std::string_view doc;
  std::string_view unit = {};
  bool required = false;
  bool alwaysWritten = false;  ///< the writer keeps it even at its default (a discriminator)
  double min = -kUnbounded;    ///< numbers, range ends and list items: inclusive bounds
  double max = kUnbounded;
  Domain domain = Domain::None;
  std::uint32_t maxItems = 0;                ///< lists; 0: no list
  std::uint32_t maxLength = kMaxNameLength;  ///< strings, bytes
};

// -------------------------------------------------------------------------------------------------
// Enums

template <class E>
struct EnumName {
  std::string_view name;
  E value;
};

template <class E>
struct EnumTraits;

#define MOTE_ENUM_TRAITS(Type, schemaName, ...)                                   \
  template <>                                                                     \
  struct EnumTraits<Type> {                                                       \
    static constexpr std::string_view kName = schemaName;                         \
    static constexpr auto kValues = std::to_array<EnumName<Type>>({__VA_ARGS__}); \
  }

// The enums shared with the compiled form: their spellings from mote/core/effect_enums.h.
#define MOTE_ENUM_NAME_(name, number, spelling) EnumName<E>{spelling, E::name},
#define MOTE_SHARED_ENUM_TRAITS(Type, schemaName, LIST)                                  \
  template <>                                                                            \
  struct EnumTraits<Type> {                                                              \
    using E = Type;                                                                      \
    static constexpr std::string_view kName = schemaName;                                \
    static constexpr auto kValues = std::to_array<EnumName<E>>({LIST(MOTE_ENUM_NAME_)}); \
  }

MOTE_SHARED_ENUM_TRAITS(Interp, "Interp", MOTE_CURVE_INTERP_LIST);
MOTE_SHARED_ENUM_TRAITS(BlendMode, "BlendMode", MOTE_BLEND_MODE_LIST);
MOTE_SHARED_ENUM_TRAITS(EmissionMode, "EmissionMode", MOTE_EMISSION_MODE_LIST);
MOTE_SHARED_ENUM_TRAITS(SpawnMetric, "SpawnMetric", MOTE_SPAWN_METRIC_LIST);
MOTE_SHARED_ENUM_TRAITS(RenderMode, "RenderMode", MOTE_RENDER_MODE_LIST);
MOTE_SHARED_ENUM_TRAITS(ParticleSort, "ParticleSort", MOTE_PARTICLE_SORT_LIST);
MOTE_SHARED_ENUM_TRAITS(SimulationSpace, "SimulationSpace", MOTE_SIMULATION_SPACE_LIST);

#undef MOTE_SHARED_ENUM_TRAITS
#undef MOTE_ENUM_NAME_

MOTE_ENUM_TRAITS(SheetPlayback, "SheetPlayback", {"fps", SheetPlayback::Fps},
                 {"over_life", SheetPlayback::OverLife});
MOTE_ENUM_TRAITS(ShapeKind, "ShapeKind", {"point", ShapeKind::Point}, {"rect", ShapeKind::Rect},
                 {"box", ShapeKind::Box}, {"sphere", ShapeKind::Sphere},
                 {"hemisphere", ShapeKind::Hemisphere}, {"disk", ShapeKind::Disk},
                 {"cone", ShapeKind::Cone}, {"line", ShapeKind::Line});
MOTE_ENUM_TRAITS(VelocityKind, "VelocityKind", {"none", VelocityKind::None},
                 {"cone", VelocityKind::Cone}, {"sphere", VelocityKind::Sphere},
                 {"direction", VelocityKind::Direction}, {"radial", VelocityKind::Radial});
MOTE_ENUM_TRAITS(FieldType, "FieldType", {"float", FieldType::Float}, {"vec2", FieldType::Float2},
                 {"vec3", FieldType::Float3}, {"vec4", FieldType::Float4});
MOTE_ENUM_TRAITS(CurveMode, "CurveMode", {"multiply", CurveMode::Multiply},
                 {"set", CurveMode::Set});
MOTE_ENUM_TRAITS(TargetMode, "TargetMode", {"gravity", TargetMode::Gravity},
                 {"bezier", TargetMode::Bezier});
MOTE_ENUM_TRAITS(ColliderKind, "ColliderKind", {"plane", ColliderKind::Plane},
                 {"sphere", ColliderKind::Sphere}, {"box", ColliderKind::Box},
                 {"host", ColliderKind::Host});
MOTE_ENUM_TRAITS(CollisionResponse, "CollisionResponse", {"bounce", CollisionResponse::Bounce},
                 {"splat", CollisionResponse::Splat}, {"kill", CollisionResponse::Kill});
MOTE_ENUM_TRAITS(ParticleEventKind, "ParticleEventKind", {"death", ParticleEventKind::Death},
                 {"collision", ParticleEventKind::Collision}, {"birth", ParticleEventKind::Birth});
MOTE_ENUM_TRAITS(KillCondition, "KillCondition", {"age", KillCondition::Age},
                 {"plane", KillCondition::Plane}, {"sphere", KillCondition::Sphere},
                 {"box", KillCondition::Box}, {"speed_below", KillCondition::SpeedBelow});

#undef MOTE_ENUM_TRAITS

template <class T>
concept ReflectedEnum = requires {
  EnumTraits<T>::kValues;
};

template <class E>
constexpr std::string_view enumName(E value) {
  for (const auto& entry : EnumTraits<E>::kValues)
    if (entry.value == value) return entry.name;
  return {};
}

// -------------------------------------------------------------------------------------------------
// Structs

template <class T>
struct Reflect;

template <class T>
concept ReflectedStruct = requires {
  Reflect<T>::kName;
};

/// Update modules (the alternatives of UpdateModule) carry a `type` tag instead of a key.
template <class T>
concept TaggedModule = requires {
  T::kType;
};

template <>
struct Reflect<Curve> {
  static constexpr std::string_view kName = "Curve";
  static constexpr std::string_view kDoc =
      "A keyed scalar curve: [time, value] keys with non-decreasing times (two keys at one time "
      "make a jump). Evaluation clamps to the end keys.";
  template <class V, class S>
  static void fields(V& v, S& s) {
    v(s.interp, {.key = "interp", .doc = "How values move between keys."});
    v(s.keys,
      {.key = "keys", .doc = "[time, value] pairs.", .required = true, .maxItems = kMaxCurveKeys});
  }
};

template <>
struct Reflect<Gradient> {
  static constexpr std::string_view kName = "Gradient";
  static constexpr std::string_view kDoc =
      "A keyed RGBA curve: [time, [r, g, b, a]] keys with non-decreasing times.";
  template <class V, class S>
  static void fields(V& v, S& s) {
    v(s.interp, {.key = "interp", .doc = "How colours move between keys."});
    v(s.keys, {.key = "keys",
               .doc = "[time, [r, g, b, a]] pairs.",
               .required = true,
               .maxItems = kMaxCurveKeys});
  }
};

/// ScalarParam's object form (a number or [min, max] is the short form).
template <>
struct Reflect<ScalarParam> {
  static constexpr std::string_view kName = "ScalarParam";
  static constexpr std::string_view kDoc =
      "A value drawn per particle at spawn: a number, [min, max] (uniform), or an object: "
      "over_emitter_time(t) + uniform(range) · range_scale_over_emitter_time(t), t the emitter "
      "time of the spawn (an absent curve adds 0, an absent scale is 1).";
  template <class V, class S>
  static void fields(V& v, S& s) {
    v(s.range, {.key = "range", .doc = "Uniform random range (a number: a constant)."});
    v(s.overEmitterTime, {.key = "over_emitter_time",
                          .doc = "Emitter time (s) → base value at spawn.",
                          .domain = Domain::EmitterTime});
    v(s.rangeScaleOverEmitterTime,
      {.key = "range_scale_over_emitter_time",
       .doc = "Emitter time (s) → multiplier of the uniform draw at spawn (the jitter's size).",
       .min = -1e5,
       .max = 1e5,
       .domain = Domain::EmitterTime});
  }
};

/// ColorParam's object form ([r, g, b, a] is the short form).
template <>
struct Reflect<ColorParam> {
  static constexpr std::string_view kName = "ColorParam";
  static constexpr std::string_view kDoc =
      "A colour drawn per particle at spawn: [r, g, b, a], or an object: lerp(from, to, u) with "
      "one "
      "uniform u, times over_emitter_time(emitter time of the spawn) when set.";
  template <class V, class S>
  static void fields(V& v, S& s) {
    v(s.a, {.key = "from", .doc = "One end of the random colour range.", .min = 0.0});
    v(s.b, {.key = "to", .doc = "The other end.", .min = 0.0});
    v(s.overEmitterTime, {.key = "over_emitter_time",
                          .doc = "Emitter time (s) → colour multiplier at spawn.",
                          .domain = Domain::EmitterTime});
  }
};

template <>
struct Reflect<SpriteSheet> {
  static constexpr std::string_view kName = "SpriteSheet";
  static constexpr std::string_view kDoc =
      "A flipbook: columns × rows cells numbered row-major from the top left.";
  template <class V, class S>
  static void fields(V& v, S& s) {
    v(s.columns, {.key = "columns", .doc = "Cells across.", .min = 1, .max = 256});
    v(s.rows, {.key = "rows", .doc = "Cells down.", .min = 1, .max = 256});
    v(s.playback, {.key = "playback", .doc = "Frame timing: fps from birth, or spread over life."});
    v(s.fps, {.key = "fps",
              .doc = "Frames per second (fps playback; 0: a still frame).",
              .unit = "1/s",
              .min = 0,
              .max = 1000});
    v(s.fpsOverEmitterTime, {.key = "fps_over_emitter_time",
                             .doc = "Emitter time (s) → frames per second at each particle's "
                                    "birth, kept for its life; replaces fps when set.",
                             .unit = "1/s",
                             .min = 0,
                             .max = 1000,
                             .domain = Domain::EmitterTime});
    v(s.frameBegin,
      {.key = "frame_begin", .doc = "First frame of the range.", .min = 0, .max = 65535});
    v(s.frameEnd, {.key = "frame_end",
                   .doc = "Last frame of the range, inclusive; -1: the last cell.",
                   .min = -1,
                   .max = 65535});
    v(s.frameBeginOverEmitterTime,
      {.key = "frame_begin_over_emitter_time",
       .doc = "Emitter time (s) → first frame at each particle's birth (rounded to the nearest "
              "cell, clamped into the sheet), kept for its life; replaces frame_begin when set.",
       .min = 0,
       .max = 65535,
       .domain = Domain::EmitterTime});
    v(s.frameEndOverEmitterTime,
      {.key = "frame_end_over_emitter_time",
       .doc = "Emitter time (s) → last frame at each particle's birth (rounded, clamped into the "
              "sheet, at least the first), kept for its life; replaces frame_end when set.",
       .min = 0,
       .max = 65535,
       .domain = Domain::EmitterTime});
    v(s.randomStart,
      {.key = "random_start", .doc = "Each particle starts at a random frame of the range."});
    v(s.loop,
      {.key = "loop", .doc = "fps playback wraps around the range (else holds the last frame)."});
    v(s.frameBlend, {.key = "frame_blend", .doc = "Cross-fade between consecutive frames."});
  }
};

template <>
struct Reflect<Material> {
  static constexpr std::string_view kName = "Material";
  static constexpr std::string_view kDoc = "How particles are drawn: texture, blending and sheet.";
  template <class V, class S>
  static void fields(V& v, S& s) {
    v(s.name, {.key = "name", .doc = "Unique name; emitters refer to it.", .required = true});
    v(s.texture, {.key = "texture",
                  .doc = "Image path relative to the effect file, or builtin:soft_circle, "
                         "builtin:spark, builtin:smoke, builtin:ring, builtin:star, builtin:flare; "
                         "none: sprites draw builtin:soft_circle, meshes draw untextured.",
                  .maxLength = kMaxPathLength});
    v(s.blend, {.key = "blend", .doc = "Blend equation (additive needs no sorting)."});
    v(s.alphaCutoff, {.key = "alpha_cutoff",
                      .doc = "cutout: texels with alpha below are discarded.",
                      .min = 0,
                      .max = 1});
    v(s.sheet, {.key = "sheet", .doc = "Sprite-sheet layout and playback."});
    v(s.softDistance,
      {.key = "soft_distance",
       .doc = "Soft particles: fade over this distance in front of scene depth; 0: hard.",
       .unit = "m",
       .min = 0,
       .max = 1000});
    v(s.lit,
      {.key = "lit",
       .doc = "Lit by the scene's lights (meshes flat or Gouraud, sprites with a bent normal and "
              "back-light transmission); additive materials never are."});
    v(s.doubleSided,
      {.key = "double_sided",
       .doc = "Draw the back face too (meshes, and cards whose face can turn away)."});
    v(s.ambientTint,
      {.key = "ambient_tint", .doc = "Tint by the scene's ambient colour (NWN m_isTinted)."});
  }
};

template <>
struct Reflect<ParticleEvent> {
  static constexpr std::string_view kName = "ParticleEvent";
  static constexpr std::string_view kDoc =
      "Particles born in another emitter when a particle of this one is born, dies or collides.";
  template <class V, class S>
  static void fields(V& v, S& s) {
    v(s.on, {.key = "on",
             .doc = "death: the tick the particle dies; collision: each tick it hits a collider; "
                    "birth: when it is born.",
             .alwaysWritten = true});
    v(s.spawn, {.key = "spawn",
                .doc = "The emitter of this effect the particles are born in (may be left out "
                       "when the event reports)."});
    v(s.count, {.key = "count",
                .doc = "Particles born per event.",
                .min = 0,
                .max = kMaxParticlesPerEmitter});
    v(s.inheritVelocity,
      {.key = "inherit_velocity",
       .doc = "Fraction of the particle's velocity added to the velocity the spawned particles "
              "are born with (its velocity after the tick; for a collision, as it hit).",
       .min = -10,
       .max = 10});
    v(s.inheritColor, {.key = "inherit_color",
                       .doc = "The spawned particles' birth colour is multiplied by the "
                              "particle's colour."});
    v(s.inheritSize, {.key = "inherit_size",
                      .doc = "The spawned particles' birth size is multiplied by the particle's "
                             "width (size x)."});
    v(s.report, {.key = "report",
                 .doc = "Tell the host too: the world's event buffer lists each event (kind, "
                        "emitter, particle id, position, velocity, time, and this event's place in "
                        "the list). With report, spawn may be left out."});
  }
};

template <>
struct Reflect<Burst> {
  static constexpr std::string_view kName = "Burst";
  static constexpr std::string_view kDoc = "A burst of particles on the emitter's clock.";
  template <class V, class S>
  static void fields(V& v, S& s) {
    v(s.time,
      {.key = "time", .doc = "When, after the emitter starts.", .unit = "s", .min = 0, .max = 1e6});
    v(s.count, {.key = "count",
                .doc = "Particles per burst.",
                .alwaysWritten = true,
                .min = 0,
                .max = kMaxParticlesPerEmitter});
    v(s.repeatInterval, {.key = "repeat_interval",
                         .doc = "Repeat period; 0: once.",
                         .unit = "s",
                         .min = 0,
                         .max = 1e6});
    v(s.repeatCount, {.key = "repeat_count",
                      .doc = "Extra repetitions; 0 with an interval: forever.",
                      .min = 0,
                      .max = 1e6});
  }
};

template <>
struct Reflect<Emission> {
  static constexpr std::string_view kName = "Emission";
  static constexpr std::string_view kDoc = "When and how many particles are born.";
  template <class V, class S>
  static void fields(V& v, S& s) {
    v(s.mode, {.key = "mode", .doc = "Emission model."});
    v(s.metric, {.key = "metric", .doc = "Rate per second, or per metre the emitter travels."});
    v(s.rate, {.key = "rate",
               .doc = "continuous: particles per second (per metre with per_distance); "
                      "single_shot: particles per shot; event_burst: particles per event; "
                      "beam_continuous: particles per second along the beam.",
               .unit = "1/s or 1/m",
               .min = 0,
               .max = 1e7});
    v(s.rateOverTime, {.key = "rate_over_time",
                       .doc = "Emitter time (s) → rate; replaces rate when set.",
                       .domain = Domain::EmitterTime});
    v(s.bursts, {.key = "bursts", .doc = "Scheduled bursts.", .maxItems = kMaxBursts});
    v(s.delay, {.key = "delay",
                .doc = "Wait before the emitter starts.",
                .unit = "s",
                .min = 0,
                .max = 1e6});
    v(s.duration, {.key = "duration",
                   .doc = "How long the emitter emits; 0: forever.",
                   .unit = "s",
                   .min = 0,
                   .max = 1e6});
    v(s.loop, {.key = "loop", .doc = "Restart after duration (single_shot: shoot again)."});
    v(s.eventName, {.key = "event_name", .doc = "event_burst: the host event that fires it."});
    v(s.eventTimes, {.key = "event_times",
                     .doc = "event_burst: events on the effect's own timeline.",
                     .unit = "s",
                     .min = 0,
                     .max = 1e6,
                     .maxItems = kMaxBursts});
    v(s.source, {.key = "source",
                 .doc = "Trails: an emitter of this effect whose live particles each emit this "
                        "one's particles, rate per second of their life (per metre each travels "
                        "with per_distance), spread along the path each travelled in the tick; a "
                        "linked_chain then draws one ribbon per source particle."});
    v(s.inheritVelocity,
      {.key = "inherit_velocity",
       .doc = "source: fraction of the source particle's velocity over the tick added to the "
              "velocity the trail's particles are born with.",
       .min = -10,
       .max = 10});
    v(s.inheritColor, {.key = "inherit_color",
                       .doc = "source: the trail's birth colour is multiplied by the source "
                              "particle's colour."});
    v(s.inheritSize, {.key = "inherit_size",
                      .doc = "source: the trail's birth size is multiplied by the source "
                             "particle's width (size x)."});
  }
};

template <>
struct Reflect<SpawnShape> {
  static constexpr std::string_view kName = "SpawnShape";
  static constexpr std::string_view kDoc =
      "Where particles are born, in the emitter's frame: rect and disk lie in local XZ, cone and "
      "hemisphere open along local +Y, line runs from the origin to end.";
  template <class V, class S>
  static void fields(V& v, S& s) {
    v(s.kind, {.key = "kind",
               .doc = "Shape; host: the world the host gives (a heightfield, a distance volume, "
                      "a physics scene), swept along each particle's motion.",
               .alwaysWritten = true});
    v(s.size, {.key = "size",
               .doc = "rect (x, z) and box full extents.",
               .unit = "m",
               .min = 0,
               .max = 1e5});
    v(s.radius, {.key = "radius",
                 .doc = "sphere, hemisphere, disk radius; cone base radius.",
                 .unit = "m",
                 .min = 0,
                 .max = 1e5});
    v(s.innerRadius, {.key = "inner_radius",
                      .doc = "Hollow core (<= radius).",
                      .unit = "m",
                      .min = 0,
                      .max = 1e5});
    v(s.shell, {.key = "shell", .doc = "Born on the surface only."});
    v(s.angle, {.key = "angle", .doc = "cone half-angle.", .unit = "deg", .min = 0, .max = 180});
    v(s.height, {.key = "height",
                 .doc = "cone length (0: born on the base).",
                 .unit = "m",
                 .min = 0,
                 .max = 1e5});
    v(s.end, {.key = "end", .doc = "line end point.", .unit = "m", .min = -1e5, .max = 1e5});
    v(s.sizeOverEmitterTime,
      {.key = "size_over_emitter_time",
       .doc = "rect (x, z) and box extents over emitter time: [time, [x, y, z]] keys, linear, "
              "sampled at each spawn; replace size.",
       .unit = "m",
       .min = 0,
       .max = 1e5,
       .domain = Domain::EmitterTime,
       .maxItems = kMaxCurveKeys});
  }
};

template <>
struct Reflect<InitVelocity> {
  static constexpr std::string_view kName = "InitVelocity";
  static constexpr std::string_view kDoc = "Initial velocity: a direction model and a speed.";
  template <class V, class S>
  static void fields(V& v, S& s) {
    v(s.kind, {.key = "kind", .doc = "Direction model.", .alwaysWritten = true});
    v(s.direction, {.key = "direction",
                    .doc = "Local direction (normalised when used).",
                    .min = -1e5,
                    .max = 1e5});
    v(s.spread, {.key = "spread",
                 .doc = "cone half-angle around direction.",
                 .unit = "deg",
                 .min = 0,
                 .max = 180});
    v(s.spreadOverEmitterTime, {.key = "spread_over_emitter_time",
                                .doc = "Emitter time (s) → cone half-angle at spawn; replaces "
                                       "spread when set.",
                                .unit = "deg",
                                .min = 0,
                                .max = 180,
                                .domain = Domain::EmitterTime});
    v(s.speed, {.key = "speed", .doc = "Speed.", .unit = "m/s", .min = -1e5, .max = 1e5});
  }
};

template <>
struct Reflect<FieldDecl> {
  static constexpr std::string_view kName = "FieldDecl";
  static constexpr std::string_view kDoc = "A named field the effect declares.";
  template <class V, class S>
  static void fields(V& v, S& s) {
    v(s.name, {.key = "name",
               .doc = "Unique name (letters, digits, _; not starting with a digit).",
               .required = true});
    v(s.type, {.key = "type", .doc = "Components."});
    v(s.value, {.key = "value",
                .doc = "Initial value, one number per component (empty: zeros).",
                .min = -1e30,
                .max = 1e30,
                .maxItems = 4});
  }
};

template <>
struct Reflect<FieldInit> {
  static constexpr std::string_view kName = "FieldInit";
  static constexpr std::string_view kDoc =
      "Initial value of a declared particle field: uniform per component in [min, max].";
  template <class V, class S>
  static void fields(V& v, S& s) {
    v(s.field, {.key = "field", .doc = "A particle_fields name.", .required = true});
    v(s.min, {.key = "min",
              .doc = "Lower end, one number per component.",
              .required = true,
              .min = -1e30,
              .max = 1e30,
              .maxItems = 4});
    v(s.max, {.key = "max",
              .doc = "Upper end (empty: equal to min).",
              .min = -1e30,
              .max = 1e30,
              .maxItems = 4});
  }
};

template <>
struct Reflect<GraphNode> {
  static constexpr std::string_view kName = "GraphNode";
  static constexpr std::string_view kDoc = "One node of a custom graph.";
  template <class V, class S>
  static void fields(V& v, S& s) {
    v(s.id, {.key = "id", .doc = "Unique id within the graph.", .required = true});
    v(s.op, {.key = "op",
             .doc = "Node type from the node library (docs/node-library.md).",
             .required = true});
    v(s.inputs,
      {.key = "inputs", .doc = "Port → source, \"node\" or \"node.port\".", .maxItems = 64});
    v(s.params, {.key = "params",
                 .doc = "Numeric parameters (a number or a list).",
                 .min = -1e30,
                 .max = 1e30,
                 .maxItems = 64});
    v(s.names, {.key = "names", .doc = "Name-valued parameters (fields, curves).", .maxItems = 64});
    v(s.curve, {.key = "curve", .doc = "op \"curve\": the keyed curve it evaluates at t."});
    v(s.gradient,
      {.key = "gradient", .doc = "op \"gradient\": the keyed gradient it evaluates at t."});
    v(s.modules, {.key = "modules",
                  .doc = "op \"modules\": update modules run at this node's place.",
                  .maxItems = kMaxModules});
  }
};

template <>
struct Reflect<NodeGraph> {
  static constexpr std::string_view kName = "NodeGraph";
  static constexpr std::string_view kDoc = "A hand-made node graph.";
  template <class V, class S>
  static void fields(V& v, S& s) {
    v(s.nodes, {.key = "nodes",
                .doc = "Nodes, in any order (the compiler sorts them).",
                .required = true,
                .maxItems = kMaxGraphNodes});
  }
};

// The bounds of the init members' values, shared by InitModules and the INIT modules that stand
// for them (so the two forms cannot disagree); `keyed` gives one under another key (and doc).
namespace init_field {
inline constexpr FieldInfo kLifetime{
    .key = "lifetime", .doc = "Lifetime.", .unit = "s", .min = 0.001, .max = 1e5};
inline constexpr FieldInfo kMass{
    .key = "mass", .doc = "Mass (forces may scale by it).", .unit = "kg", .min = 0.001, .max = 1e6};
inline constexpr FieldInfo kSize{
    .key = "size", .doc = "Quad width.", .unit = "m", .min = 0, .max = 1e5};
inline constexpr FieldInfo kSizeY{
    .key = "size_y", .doc = "Quad height when separate_size_y.", .unit = "m", .min = 0, .max = 1e5};
inline constexpr FieldInfo kColor{.key = "color", .doc = "Colour (linear RGBA)."};
inline constexpr FieldInfo kRotation{
    .key = "rotation", .doc = "Roll at birth.", .unit = "deg", .min = -1e6, .max = 1e6};
inline constexpr FieldInfo kSpin{
    .key = "spin", .doc = "Roll speed.", .unit = "deg/s", .min = -1e6, .max = 1e6};
inline constexpr FieldInfo kOrientationAxis{
    .key = "orientation_axis", .doc = "Axis of the birth orientation.", .min = -1e5, .max = 1e5};
inline constexpr FieldInfo kOrientationAngle{.key = "orientation_angle",
                                             .doc = "Angle about orientation_axis.",
                                             .unit = "deg",
                                             .min = -1e6,
                                             .max = 1e6};
}  // namespace init_field

constexpr FieldInfo keyed(FieldInfo info, std::string_view key, std::string_view doc = {}) {
  info.key = key;
  if (!doc.empty()) info.doc = doc;
  return info;
}

template <>
struct Reflect<InitModules> {
  static constexpr std::string_view kName = "InitModules";
  static constexpr std::string_view kDoc =
      "A newborn particle's state (position comes from the shape).";
  template <class V, class S>
  static void fields(V& v, S& s) {
    v(s.lifetime, init_field::kLifetime);
    v(s.immortal,
      {.key = "immortal", .doc = "Never age out (lifetime only drives over-life curves)."});
    v(s.velocity, {.key = "velocity", .doc = "Initial velocity."});
    v(s.mass, init_field::kMass);
    v(s.size, init_field::kSize);
    v(s.separateSizeY,
      {.key = "separate_size_y", .doc = "Use size_y for the height (else square)."});
    v(s.sizeY, init_field::kSizeY);
    v(s.color, init_field::kColor);
    v(s.rotation, init_field::kRotation);
    v(s.spin, init_field::kSpin);
    v(s.orientationAxis, init_field::kOrientationAxis);
    v(s.orientationAngle, init_field::kOrientationAngle);
    v(s.randomOrientation, {.key = "random_orientation",
                            .doc = "A uniformly random orientation instead of axis and angle."});
    v(s.fields, {.key = "fields",
                 .doc = "Initial values of declared particle fields.",
                 .maxItems = kMaxFields});
    v(s.graph, {.key = "graph", .doc = "Custom INIT graph, run after the modules."});
  }
};

// INIT modules (the "modules" nodes of an INIT graph)
// -------------------------------------------------------------

template <>
struct Reflect<InitShapeModule> {
  static constexpr std::string_view kName = "InitShapeModule";
  static constexpr std::string_view kDoc =
      "A birth position sampled from a spawn shape (the SpawnShape fields), written to position.";
  template <class V, class S>
  static void fields(V& v, S& s) {
    Reflect<SpawnShape>::fields(v, s.shape);
  }
};

template <>
struct Reflect<InitLifetimeModule> {
  static constexpr std::string_view kName = "InitLifetimeModule";
  static constexpr std::string_view kDoc = "Writes lifetime (as init.lifetime).";
  template <class V, class S>
  static void fields(V& v, S& s) {
    v(s.value, keyed(init_field::kLifetime, "value"));
  }
};

template <>
struct Reflect<InitVelocityModule> {
  static constexpr std::string_view kName = "InitVelocityModule";
  static constexpr std::string_view kDoc =
      "Writes velocity (the InitVelocity fields, as init.velocity).";
  template <class V, class S>
  static void fields(V& v, S& s) {
    Reflect<InitVelocity>::fields(v, s.velocity);
  }
};

template <>
struct Reflect<InitSizeModule> {
  static constexpr std::string_view kName = "InitSizeModule";
  static constexpr std::string_view kDoc =
      "Writes size and the birth size (as init.size, separate_size_y, size_y).";
  template <class V, class S>
  static void fields(V& v, S& s) {
    v(s.value, keyed(init_field::kSize, "value"));
    v(s.separateY, {.key = "separate_y", .doc = "Use y for the height (else square)."});
    v(s.y, keyed(init_field::kSizeY, "y", "Quad height when separate_y."));
  }
};

template <>
struct Reflect<InitColorModule> {
  static constexpr std::string_view kName = "InitColorModule";
  static constexpr std::string_view kDoc = "Writes color and the birth colour (as init.color).";
  template <class V, class S>
  static void fields(V& v, S& s) {
    v(s.value, keyed(init_field::kColor, "value"));
  }
};

template <>
struct Reflect<InitRotationModule> {
  static constexpr std::string_view kName = "InitRotationModule";
  static constexpr std::string_view kDoc = "Writes rotation (as init.rotation).";
  template <class V, class S>
  static void fields(V& v, S& s) {
    v(s.value, keyed(init_field::kRotation, "value"));
  }
};

template <>
struct Reflect<InitSpinModule> {
  static constexpr std::string_view kName = "InitSpinModule";
  static constexpr std::string_view kDoc = "Writes spin (as init.spin).";
  template <class V, class S>
  static void fields(V& v, S& s) {
    v(s.value, keyed(init_field::kSpin, "value"));
  }
};

template <>
struct Reflect<InitMassModule> {
  static constexpr std::string_view kName = "InitMassModule";
  static constexpr std::string_view kDoc = "Writes mass (as init.mass).";
  template <class V, class S>
  static void fields(V& v, S& s) {
    v(s.value, keyed(init_field::kMass, "value"));
  }
};

template <>
struct Reflect<InitOrientationModule> {
  static constexpr std::string_view kName = "InitOrientationModule";
  static constexpr std::string_view kDoc =
      "Writes orientation (as init.orientation_axis, orientation_angle, random_orientation).";
  template <class V, class S>
  static void fields(V& v, S& s) {
    v(s.axis, keyed(init_field::kOrientationAxis, "axis", "Rotation axis."));
    v(s.angle, keyed(init_field::kOrientationAngle, "angle", "Angle about axis."));
    v(s.random, {.key = "random", .doc = "A uniformly random orientation instead."});
  }
};

template <>
struct Reflect<InitFieldModule> {
  static constexpr std::string_view kName = "InitFieldModule";
  static constexpr std::string_view kDoc =
      "Writes a declared particle field (the FieldInit fields, as an init.fields entry).";
  template <class V, class S>
  static void fields(V& v, S& s) {
    Reflect<FieldInit>::fields(v, s.value);
  }
};

// Update modules
// ------------------------------------------------------------------------------------

template <>
struct Reflect<GravityModule> {
  static constexpr std::string_view kName = "GravityModule";
  static constexpr std::string_view kDoc = "Constant acceleration.";
  template <class V, class S>
  static void fields(V& v, S& s) {
    v(s.acceleration, {.key = "acceleration",
                       .doc = "World acceleration.",
                       .unit = "m/s²",
                       .min = -1e5,
                       .max = 1e5});
    v(s.scaleByMass, {.key = "scale_by_mass", .doc = "Multiply by the particle's mass."});
    v(s.scaleOverEmitterTime,
      {.key = "scale_over_emitter_time",
       .doc = "Emitter time (s) → a factor of the acceleration, sampled at each particle's birth "
              "and kept for its life (may be 0 or negative).",
       .min = -1e5,
       .max = 1e5,
       .domain = Domain::EmitterTime});
  }
};

template <>
struct Reflect<DragModule> {
  static constexpr std::string_view kName = "DragModule";
  static constexpr std::string_view kDoc = "Linear drag: v -= v · coefficient · dt.";
  template <class V, class S>
  static void fields(V& v, S& s) {
    v(s.coefficient, {.key = "coefficient", .doc = "Drag.", .unit = "1/s", .min = 0, .max = 1e4});
    v(s.divideByMass, {.key = "divide_by_mass", .doc = "Heavier particles slow less."});
  }
};

template <>
struct Reflect<CurlNoiseModule> {
  static constexpr std::string_view kName = "CurlNoiseModule";
  static constexpr std::string_view kDoc = "Divergence-free turbulence (curl of a noise field).";
  template <class V, class S>
  static void fields(V& v, S& s) {
    v(s.strength,
      {.key = "strength", .doc = "Acceleration scale.", .unit = "m/s²", .min = 0, .max = 1e5});
    v(s.frequency,
      {.key = "frequency", .doc = "Spatial frequency.", .unit = "1/m", .min = 0, .max = 1e4});
    v(s.scrollSpeed, {.key = "scroll_speed",
                      .doc = "Drift of the field along +Y.",
                      .unit = "m/s",
                      .min = -1e4,
                      .max = 1e4});
    v(s.octaves, {.key = "octaves", .doc = "Noise octaves.", .min = 1, .max = 4});
    v(s.seed, {.key = "seed", .doc = "Noise seed.", .min = 0, .max = 4294967295.0});
  }
};

template <>
struct Reflect<VortexModule> {
  static constexpr std::string_view kName = "VortexModule";
  static constexpr std::string_view kDoc = "Swirl about an axis, with an optional pull toward it.";
  template <class V, class S>
  static void fields(V& v, S& s) {
    v(s.center, {.key = "center",
                 .doc = "A point on the axis, emitter-local.",
                 .unit = "m",
                 .min = -1e5,
                 .max = 1e5});
    v(s.axis,
      {.key = "axis", .doc = "Axis direction (normalised when used).", .min = -1e5, .max = 1e5});
    v(s.angularSpeed,
      {.key = "angular_speed", .doc = "Swirl speed.", .unit = "deg/s", .min = -1e6, .max = 1e6});
    v(s.pull, {.key = "pull",
               .doc = "Acceleration toward the axis (negative: away).",
               .unit = "m/s²",
               .min = -1e5,
               .max = 1e5});
  }
};

template <>
struct Reflect<AttractorModule> {
  static constexpr std::string_view kName = "AttractorModule";
  static constexpr std::string_view kDoc = "Point attractor (negative strength repels).";
  template <class V, class S>
  static void fields(V& v, S& s) {
    v(s.position,
      {.key = "position", .doc = "Emitter-local position.", .unit = "m", .min = -1e5, .max = 1e5});
    v(s.positionField,
      {.key = "position_field",
       .doc = "A vec3 emitter or global field (world space) that overrides position."});
    v(s.strength,
      {.key = "strength", .doc = "Acceleration at 1 m.", .unit = "m/s²", .min = -1e5, .max = 1e5});
    v(s.falloff, {.key = "falloff",
                  .doc = "Distance exponent: 0 constant, 1 1/d, 2 1/d².",
                  .min = 0,
                  .max = 4});
    v(s.killRadius, {.key = "kill_radius",
                     .doc = "Kill within this distance; 0: never.",
                     .unit = "m",
                     .min = 0,
                     .max = 1e5});
  }
};

template <>
struct Reflect<TargetModule> {
  static constexpr std::string_view kName = "TargetModule";
  static constexpr std::string_view kDoc =
      "Point-to-point targeting: pulled toward a target (gravity) or flying a Bezier to it.";
  template <class V, class S>
  static void fields(V& v, S& s) {
    v(s.mode, {.key = "mode", .doc = "Targeting model.", .alwaysWritten = true});
    v(s.position,
      {.key = "position", .doc = "Emitter-local target.", .unit = "m", .min = -1e5, .max = 1e5});
    v(s.positionField, {.key = "position_field",
                        .doc = "A vec3 emitter or global field that overrides position (bind it "
                               "to a host transform)."});
    v(s.gravity, {.key = "gravity",
                  .doc = "gravity: pull toward the target.",
                  .unit = "m/s²",
                  .min = -1e5,
                  .max = 1e5});
    v(s.drag, {.key = "drag", .doc = "gravity: damping.", .unit = "1/s", .min = 0, .max = 1e4});
    v(s.killRadius, {.key = "kill_radius",
                     .doc = "gravity: kill within this distance; 0: pass through and loop back.",
                     .unit = "m",
                     .min = 0,
                     .max = 1e5});
    v(s.travelTime, {.key = "travel_time",
                     .doc = "bezier: time to reach the target; 0: the particle's lifetime.",
                     .unit = "s",
                     .min = 0,
                     .max = 1e5});
    v(s.sourceTangent, {.key = "source_tangent",
                        .doc = "bezier: first handle length.",
                        .unit = "m",
                        .min = -1e5,
                        .max = 1e5});
    v(s.targetTangent, {.key = "target_tangent",
                        .doc = "bezier: second handle length.",
                        .unit = "m",
                        .min = -1e5,
                        .max = 1e5});
    v(s.gravityOverEmitterTime, {.key = "gravity_over_emitter_time",
                                 .doc = "Emitter time (s) → gravity at each particle's birth, kept "
                                        "for its life; replaces gravity when set.",
                                 .unit = "m/s²",
                                 .min = -1e5,
                                 .max = 1e5,
                                 .domain = Domain::EmitterTime});
    v(s.dragOverEmitterTime, {.key = "drag_over_emitter_time",
                              .doc = "Emitter time (s) → drag at each particle's birth, kept for "
                                     "its life; replaces drag when set.",
                              .unit = "1/s",
                              .min = 0,
                              .max = 1e4,
                              .domain = Domain::EmitterTime});
    v(s.killRadiusOverEmitterTime, {.key = "kill_radius_over_emitter_time",
                                    .doc = "Emitter time (s) → kill radius at each particle's "
                                           "birth, kept for its life; replaces kill_radius when "
                                           "set.",
                                    .unit = "m",
                                    .min = 0,
                                    .max = 1e5,
                                    .domain = Domain::EmitterTime});
    v(s.travelTimeOverEmitterTime, {.key = "travel_time_over_emitter_time",
                                    .doc = "Emitter time (s) → travel time at each particle's "
                                           "birth, kept for its life; replaces travel_time when "
                                           "set.",
                                    .unit = "s",
                                    .min = 0,
                                    .max = 1e5,
                                    .domain = Domain::EmitterTime});
    v(s.sourceTangentOverEmitterTime, {.key = "source_tangent_over_emitter_time",
                                       .doc = "Emitter time (s) → first handle length at each "
                                              "particle's birth, kept for its life; replaces "
                                              "source_tangent when set.",
                                       .unit = "m",
                                       .min = -1e5,
                                       .max = 1e5,
                                       .domain = Domain::EmitterTime});
    v(s.targetTangentOverEmitterTime, {.key = "target_tangent_over_emitter_time",
                                       .doc = "Emitter time (s) → second handle length at each "
                                              "particle's birth, kept for its life; replaces "
                                              "target_tangent when set.",
                                       .unit = "m",
                                       .min = -1e5,
                                       .max = 1e5,
                                       .domain = Domain::EmitterTime});
  }
};

template <>
struct Reflect<WindModule> {
  static constexpr std::string_view kName = "WindModule";
  static constexpr std::string_view kDoc =
      "Wind: the host's wind field (still air when the host gives none) plus a constant.";
  template <class V, class S>
  static void fields(V& v, S& s) {
    v(s.sceneScale,
      {.key = "scene_scale", .doc = "Multiplier on the host's wind.", .min = 0, .max = 1e4});
    v(s.velocity,
      {.key = "velocity", .doc = "Constant wind.", .unit = "m/s", .min = -1e5, .max = 1e5});
    v(s.response, {.key = "response",
                   .doc = "How fast particles take up the wind's speed.",
                   .unit = "1/s",
                   .min = 0,
                   .max = 1e4});
  }
};

template <>
struct Reflect<Collider> {
  static constexpr std::string_view kName = "Collider";
  static constexpr std::string_view kDoc = "A static collision shape in world space.";
  template <class V, class S>
  static void fields(V& v, S& s) {
    v(s.kind, {.key = "kind",
               .doc = "Shape; host: the world the host gives (a heightfield, a distance volume, "
                      "a physics scene), swept along each particle's motion.",
               .alwaysWritten = true});
    v(s.position, {.key = "position",
                   .doc = "plane: a point on it; sphere, box: centre.",
                   .unit = "m",
                   .min = -1e6,
                   .max = 1e6});
    v(s.normal,
      {.key = "normal", .doc = "plane: the side particles live on.", .min = -1e5, .max = 1e5});
    v(s.radius, {.key = "radius", .doc = "sphere radius.", .unit = "m", .min = 0, .max = 1e6});
    v(s.size, {.key = "size", .doc = "box full extents.", .unit = "m", .min = 0, .max = 1e6});
    v(s.inside, {.key = "inside", .doc = "sphere, box: particles live inside."});
  }
};

template <>
struct Reflect<CollisionModule> {
  static constexpr std::string_view kName = "CollisionModule";
  static constexpr std::string_view kDoc = "Collision with static shapes, and what a hit does.";
  template <class V, class S>
  static void fields(V& v, S& s) {
    v(s.colliders,
      {.key = "colliders", .doc = "Shapes.", .required = true, .maxItems = kMaxCollisionShapes});
    v(s.response, {.key = "response", .doc = "What a hit does."});
    v(s.bounce,
      {.key = "bounce", .doc = "bounce: restitution along the normal.", .min = 0, .max = 10});
    v(s.bounceOverEmitterTime, {.key = "bounce_over_emitter_time",
                                .doc = "Emitter time (s) → restitution at each particle's birth, "
                                       "kept for its life; replaces bounce when set.",
                                .min = 0,
                                .max = 10,
                                .domain = Domain::EmitterTime});
    v(s.friction,
      {.key = "friction", .doc = "Fraction of tangential speed lost per hit.", .min = 0, .max = 1});
    v(s.particleRadius, {.key = "particle_radius",
                         .doc = "Collision radius of a particle.",
                         .unit = "m",
                         .min = 0,
                         .max = 1e4});
    v(s.spawnEmitter, {.key = "spawn_emitter",
                       .doc = "An emitter of this effect that gets particles at each hit."});
    v(s.spawnCount,
      {.key = "spawn_count", .doc = "Particles spawned per hit.", .min = 0, .max = 1024});
  }
};

template <>
struct Reflect<KillModule> {
  static constexpr std::string_view kName = "KillModule";
  static constexpr std::string_view kDoc = "Kills particles that meet a condition.";
  template <class V, class S>
  static void fields(V& v, S& s) {
    v(s.condition, {.key = "condition", .doc = "Condition.", .alwaysWritten = true});
    v(s.position, {.key = "position",
                   .doc = "plane: a point on it; sphere, box: centre.",
                   .unit = "m",
                   .min = -1e6,
                   .max = 1e6});
    v(s.normal, {.key = "normal", .doc = "plane: the side that lives.", .min = -1e5, .max = 1e5});
    v(s.radius, {.key = "radius", .doc = "sphere radius.", .unit = "m", .min = 0, .max = 1e6});
    v(s.size, {.key = "size", .doc = "box full extents.", .unit = "m", .min = 0, .max = 1e6});
    v(s.inside, {.key = "inside", .doc = "sphere, box: kill inside instead of outside."});
    v(s.threshold, {.key = "threshold", .doc = "age: s; speed_below: m/s.", .min = 0, .max = 1e6});
  }
};

template <>
struct Reflect<ColorOverLifeModule> {
  static constexpr std::string_view kName = "ColorOverLifeModule";
  static constexpr std::string_view kDoc = "Colour over normalised age.";
  template <class V, class S>
  static void fields(V& v, S& s) {
    v(s.gradient, {.key = "gradient",
                   .doc = "Age 0..1 → colour.",
                   .required = true,
                   .domain = Domain::OverLife});
    v(s.mode, {.key = "mode", .doc = "Multiply the birth colour, or set it."});
  }
};

template <>
struct Reflect<AlphaOverLifeModule> {
  static constexpr std::string_view kName = "AlphaOverLifeModule";
  static constexpr std::string_view kDoc = "Opacity over normalised age (clamped to 0..1).";
  template <class V, class S>
  static void fields(V& v, S& s) {
    v(s.curve,
      {.key = "curve", .doc = "Age 0..1 → alpha.", .required = true, .domain = Domain::OverLife});
    v(s.mode, {.key = "mode", .doc = "Multiply the birth alpha, or set it."});
  }
};

template <>
struct Reflect<SizeOverLifeModule> {
  static constexpr std::string_view kName = "SizeOverLifeModule";
  static constexpr std::string_view kDoc = "Size over normalised age.";
  template <class V, class S>
  static void fields(V& v, S& s) {
    v(s.x, {.key = "x", .doc = "Age 0..1 → width.", .required = true, .domain = Domain::OverLife});
    v(s.y,
      {.key = "y", .doc = "Age 0..1 → height (unset: follows x).", .domain = Domain::OverLife});
    v(s.mode, {.key = "mode", .doc = "Multiply the birth size, or set it (m)."});
  }
};

template <>
struct Reflect<SpinOverLifeModule> {
  static constexpr std::string_view kName = "SpinOverLifeModule";
  static constexpr std::string_view kDoc = "Spin over normalised age.";
  template <class V, class S>
  static void fields(V& v, S& s) {
    v(s.curve, {.key = "curve",
                .doc = "Age 0..1 → spin factor (multiply) or deg/s (set).",
                .required = true,
                .domain = Domain::OverLife});
    v(s.mode, {.key = "mode", .doc = "Multiply the birth spin, or set it."});
  }
};

template <>
struct Reflect<SpeedLimitModule> {
  static constexpr std::string_view kName = "SpeedLimitModule";
  static constexpr std::string_view kDoc = "Clamps the speed.";
  template <class V, class S>
  static void fields(V& v, S& s) {
    v(s.maxSpeed, {.key = "max_speed", .doc = "Speed limit.", .unit = "m/s", .min = 0, .max = 1e6});
  }
};

template <>
struct Reflect<GraphModule> {
  static constexpr std::string_view kName = "GraphModule";
  static constexpr std::string_view kDoc = "A custom UPDATE node graph.";
  template <class V, class S>
  static void fields(V& v, S& s) {
    v(s.graph, {.key = "graph", .doc = "The graph.", .required = true});
  }
};

// Render, emitter, effect
// ---------------------------------------------------------------------------

template <>
struct Reflect<BeamParams> {
  static constexpr std::string_view kName = "BeamParams";
  static constexpr std::string_view kDoc = "A lightning-like beam from the emitter to a target.";
  template <class V, class S>
  static void fields(V& v, S& s) {
    v(s.target,
      {.key = "target", .doc = "Emitter-local end point.", .unit = "m", .min = -1e5, .max = 1e5});
    v(s.targetField,
      {.key = "target_field", .doc = "A vec3 emitter or global field that overrides target."});
    v(s.subdivisions,
      {.key = "subdivisions", .doc = "Midpoint subdivisions (2^n segments).", .min = 0, .max = 10});
    v(s.radius,
      {.key = "radius", .doc = "Maximum lateral displacement.", .unit = "m", .min = 0, .max = 1e4});
    v(s.roughness,
      {.key = "roughness", .doc = "Displacement falloff per subdivision.", .min = 0, .max = 1});
    v(s.updateInterval, {.key = "update_interval",
                         .doc = "Time between re-shapes; 0: every tick.",
                         .unit = "s",
                         .min = 0,
                         .max = 1e4});
    v(s.width, {.key = "width", .doc = "Beam width.", .unit = "m", .min = 0, .max = 1e4});
  }
};

template <>
struct Reflect<RenderDesc> {
  static constexpr std::string_view kName = "RenderDesc";
  static constexpr std::string_view kDoc = "How an emitter's particles are shaped and ordered.";
  template <class V, class S>
  static void fields(V& v, S& s) {
    v(s.mode, {.key = "mode", .doc = "Shape and orientation (docs/render.md has each frame)."});
    v(s.sortOrder, {.key = "sort_order",
                    .doc = "Among emitters: higher draws later (on top).",
                    .min = -1000000,
                    .max = 1000000});
    v(s.sort, {.key = "sort", .doc = "Order of particles within the emitter."});
    v(s.stretchScale, {.key = "stretch_scale",
                       .doc = "stretched: length added per m/s of screen speed (blur length).",
                       .unit = "s",
                       .min = 0,
                       .max = 100});
    v(s.deadspace, {.key = "deadspace",
                    .doc = "velocity_aligned: hide particles moving within this angle of the "
                           "view axis.",
                    .unit = "deg",
                    .min = 0,
                    .max = 90});
    v(s.beam, {.key = "beam", .doc = "beam parameters."});
    v(s.mesh, {.key = "mesh",
               .doc = "mesh: builtin:cube, builtin:quad, builtin:icosphere, builtin:shard, an .obj "
                      "file, or an NWN chunk .mdl (through the host's mesh loader).",
               .maxLength = kMaxPathLength});
    v(s.chainWidth, {.key = "chain_width",
                     .doc = "linked_chain: ribbon width.",
                     .unit = "m",
                     .min = 0,
                     .max = 1e4});
  }
};

template <>
struct Reflect<Culling> {
  static constexpr std::string_view kName = "Culling";
  static constexpr std::string_view kDoc = "Frustum culling of the emitter by its measured bounds.";
  template <class V, class S>
  static void fields(V& v, S& s) {
    v(s.enabled,
      {.key = "enabled", .doc = "Cull: an off-screen emitter spawns nothing and sleeps."});
    v(s.maxCatchupSeconds, {.key = "max_catchup_seconds",
                            .doc = "On wake, catch up at most this much emission.",
                            .unit = "s",
                            .min = 0,
                            .max = 3600});
  }
};

template <>
struct Reflect<ForceEvent> {
  static constexpr std::string_view kName = "ForceEvent";
  static constexpr std::string_view kDoc =
      "A wind burst fired with the emitter's events (NWN blastRadius/blastLength).";
  template <class V, class S>
  static void fields(V& v, S& s) {
    v(s.radius, {.key = "radius", .doc = "Reach; 0: none.", .unit = "m", .min = 0, .max = 1e5});
    v(s.duration,
      {.key = "duration", .doc = "How long it blows.", .unit = "s", .min = 0, .max = 1e5});
    v(s.strength,
      {.key = "strength", .doc = "Wind speed at the centre.", .unit = "m/s", .min = 0, .max = 1e5});
  }
};

template <>
struct Reflect<Motion> {
  static constexpr std::string_view kName = "Motion";
  static constexpr std::string_view kDoc =
      "Keyed position and rotation over effect time, in the parent's frame: positions move "
      "linearly between keys, rotations the shorter way between the keys' orientations (a turn of "
      "180 degrees or more needs a key in between); the end values hold outside the keys unless "
      "period repeats them.";
  template <class V, class S>
  static void fields(V& v, S& s) {
    v(s.position, {.key = "position",
                   .doc = "[time, [x, y, z]] keys; replace the static position.",
                   .unit = "m",
                   .min = -1e6,
                   .max = 1e6,
                   .domain = Domain::EffectTime,
                   .maxItems = kMaxMotionKeys});
    v(s.rotation, {.key = "rotation",
                   .doc = "[time, [x, y, z]] keys of Euler angles (Y, then X, then Z); replace "
                          "the static rotation.",
                   .unit = "deg",
                   .min = -3600,
                   .max = 3600,
                   .domain = Domain::EffectTime,
                   .maxItems = kMaxMotionKeys});
    v(s.period, {.key = "period",
                 .doc = "Effect time wraps at this length (the keys repeat); 0: played once.",
                 .unit = "s",
                 .min = 0,
                 .max = 1e6});
  }
};

/// Where an emitter or pivot hangs: `parent`, `position`, `rotation` and `motion`.
template <class V, class S>
void placementFields(V& v, S& s) {
  v(s.parent, {.key = "parent", .doc = "A pivot listed before it; empty: the effect."});
  v(s.position, {.key = "position",
                 .doc = "Offset within the parent (the effect, or a pivot).",
                 .unit = "m",
                 .min = -1e6,
                 .max = 1e6});
  v(s.rotation, {.key = "rotation",
                 .doc = "Euler angles, applied Y, then X, then Z.",
                 .unit = "deg",
                 .min = -3600,
                 .max = 3600});
  v(s.motion, {.key = "motion", .doc = "Keyed position and rotation over effect time."});
}

template <>
struct Reflect<Pivot> {
  static constexpr std::string_view kName = "Pivot";
  static constexpr std::string_view kDoc =
      "A frame emitters and pivots hang from (an NWN dummy), static or keyed.";
  template <class V, class S>
  static void fields(V& v, S& s) {
    v(s.name, {.key = "name", .doc = "Unique name among the pivots.", .required = true});
    placementFields(v, s);
  }
};

template <>
struct Reflect<Emitter> {
  static constexpr std::string_view kName = "Emitter";
  static constexpr std::string_view kDoc = "One particle emitter of the effect.";
  template <class V, class S>
  static void fields(V& v, S& s) {
    v(s.name, {.key = "name", .doc = "Unique name.", .required = true});
    v(s.material,
      {.key = "material", .doc = "A materials name; empty: builtin:soft_circle, alpha blended."});
    placementFields(v, s);
    v(s.maxParticles, {.key = "max_particles",
                       .doc = "Capacity (spawns beyond it are dropped).",
                       .min = 1,
                       .max = kMaxParticlesPerEmitter});
    v(s.seed, {.key = "seed", .doc = "Random seed, mixed with the instance's."});
    v(s.space, {.key = "space", .doc = "Simulation space."});
    v(s.velocityInheritance, {.key = "velocity_inheritance",
                              .doc = "Fraction of the emitter's velocity newborns take.",
                              .min = -10,
                              .max = 10});
    v(s.prewarm, {.key = "prewarm",
                  .doc = "Run forward this long before the first frame.",
                  .unit = "s",
                  .min = 0,
                  .max = 600});
    v(s.culling, {.key = "culling", .doc = "Culling policy."});
    v(s.spawn, {.key = "spawn", .doc = "Emission."});
    v(s.shape, {.key = "shape", .doc = "Spawn shape."});
    v(s.init, {.key = "init", .doc = "Initial state."});
    v(s.update, {.key = "update",
                 .doc = "Update modules, run in order every tick.",
                 .maxItems = kMaxModules});
    v(s.render, {.key = "render", .doc = "Render description."});
    v(s.particleFields,
      {.key = "particle_fields", .doc = "Custom per-particle fields.", .maxItems = kMaxFields});
    v(s.emitterFields, {.key = "emitter_fields",
                        .doc = "Per-emitter fields (settable at run time without recompiling).",
                        .maxItems = kMaxFields});
    v(s.forceEvent, {.key = "force_event", .doc = "Wind burst with the emitter's events."});
    v(s.events, {.key = "events",
                 .doc = "Particle events: particles born in another emitter of the effect when a "
                        "particle of this one is born, dies or collides.",
                 .maxItems = kMaxParticleEvents});
  }
};

template <>
struct Reflect<EffectDesc> {
  static constexpr std::string_view kName = "Effect";
  static constexpr std::string_view kDoc = "A particle effect (the document root).";
  template <class V, class S>
  static void fields(V& v, S& s) {
    v(s.name, {.key = "name", .doc = "Display name."});
    v(s.description, {.key = "description", .doc = "Free text.", .maxLength = 65536});
    v(s.globalFields, {.key = "global_fields",
                       .doc = "System-wide fields the effect reads (e.g. a gust strength).",
                       .maxItems = kMaxFields});
    v(s.materials, {.key = "materials", .doc = "Materials.", .maxItems = kMaxMaterials});
    v(s.pivots, {.key = "pivots",
                 .doc = "Frames emitters hang from (parents before children).",
                 .maxItems = kMaxPivots});
    v(s.emitters,
      {.key = "emitters", .doc = "Emitters.", .required = true, .maxItems = kMaxEmitters});
  }
};

/// The `type` tags of a module variant's alternatives, in order.
template <class V, std::size_t... I>
constexpr std::array<std::string_view, sizeof...(I)> moduleTypesImpl(std::index_sequence<I...>) {
  return {std::variant_alternative_t<I, V>::kType...};
}
template <class V>
inline constexpr auto kModuleTypesOf =
    moduleTypesImpl<V>(std::make_index_sequence<std::variant_size_v<V>>());
inline constexpr auto kModuleTypes = kModuleTypesOf<UpdateModule>;

/// A module variant: UpdateModule (the update list) or NodeModule (a modules node).
template <class V>
concept ModuleVariant = std::is_same_v<V, UpdateModule> || std::is_same_v<V, NodeModule>;

}  // namespace mote::authoring::reflect
