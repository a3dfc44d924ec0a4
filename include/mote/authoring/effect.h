// SPDX-License-Identifier: MIT
// EffectDesc: the source-neutral authoring model of a particle effect (rollnw's layer 1,
// ARCHITECTURE §5). JSON, node graphs and the NWN importer all produce it; the compiler consumes
// it.
//
// Conventions (docs/effect-format.md has every field with its unit and default):
//   - Right-handed, world up +Y (Mote's 3D default; the NWN importer converts from Z up).
//   - Metres, seconds, degrees; colours are linear RGBA, 0..1 (values above 1 are HDR).
//   - Every default member initialiser below IS the format's default: the JSON writer omits a field
//     equal to it and the reader fills it in.
//   - "Empty means absent": an empty curve, gradient or string is an unset optional.
//
// Thread safety: plain values; const access from any number of threads. Allocation: the vectors
// and strings own heap memory; an EffectDesc is authoring data and never reaches the runtime.
#pragma once

#include <mote/core/effect_enums.h>

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

namespace mote::authoring {

inline constexpr std::string_view kEffectFormat = "mote.effect/1";

/// Capacity limits the validator enforces (and the JSON reader enforces on array sizes before
/// reading them, so a hostile file cannot make it allocate without bound).
inline constexpr std::uint32_t kMaxEmitters = 256;
inline constexpr std::uint32_t kMaxMaterials = 256;
inline constexpr std::uint32_t kMaxParticlesPerEmitter = 1u << 20;
inline constexpr std::uint64_t kMaxParticlesPerEffect = 1u << 22;
inline constexpr std::uint32_t kMaxCurveKeys = 256;
inline constexpr std::uint32_t kMaxModules = 64;
inline constexpr std::uint32_t kMaxBursts = 256;
inline constexpr std::uint32_t kMaxParticleEvents = 16;  ///< per emitter
inline constexpr std::uint32_t kMaxFields = 64;
inline constexpr std::uint32_t kMaxCollisionShapes = 64;
inline constexpr std::uint32_t kMaxGraphNodes = 4096;
inline constexpr std::uint32_t kMaxNameLength = 128;
inline constexpr std::uint32_t kMaxPathLength = 4096;
inline constexpr std::uint32_t kMaxPivots = 256;
inline constexpr std::uint32_t kMaxMotionKeys = 4096;

using Vec3 = std::array<float, 3>;
using Rgba = std::array<float, 4>;

// -------------------------------------------------------------------------------------------------
// Curves and value sources

/// How a keyed curve moves between keys. Before the first key and after the last it holds the end
/// value (curves clamp when evaluated; keys are never clamped).
/// Linear, Step, Smooth (mote/core/effect_enums.h says what each does).
MOTE_DEFINE_EFFECT_ENUM(Interp, MOTE_CURVE_INTERP_LIST);

struct CurveKey {
  float time = 0.0f;
  float value = 0.0f;
  bool operator==(const CurveKey&) const = default;
};

/// A keyed scalar curve. Key times are non-decreasing; two keys at one time make a jump (a step).
/// Its time domain is the field's: emitter seconds, or normalised age 0..1 for over-life curves.
struct Curve {
  Interp interp = Interp::Linear;
  std::vector<CurveKey> keys;  ///< empty: no curve
  /// Two absent (keyless) curves are equal whatever their interp.
  bool operator==(const Curve& o) const {
    return keys == o.keys && (keys.empty() || interp == o.interp);
  }
};

struct GradientKey {
  float time = 0.0f;
  Rgba color{1.0f, 1.0f, 1.0f, 1.0f};
  bool operator==(const GradientKey&) const = default;
};

/// A keyed RGBA curve, the colour counterpart of Curve.
struct Gradient {
  Interp interp = Interp::Linear;
  std::vector<GradientKey> keys;  ///< empty: no gradient
  /// Two absent (keyless) gradients are equal whatever their interp.
  bool operator==(const Gradient& o) const {
    return keys == o.keys && (keys.empty() || interp == o.interp);
  }
};

/// A uniform random value in [min, max] (min == max: a constant).
struct Range {
  float min = 0.0f;
  float max = 0.0f;
  bool operator==(const Range&) const = default;
};

/// A value drawn once per particle at spawn. Spawn-time domain: the value is
/// overEmitterTime(t) + uniform(range) · rangeScaleOverEmitterTime(t), t the emitter time at the
/// spawn — the curve animates what newborns get, the range jitters it and the scale animates the
/// jitter; an absent curve adds 0, an absent scale is 1 (so without either: uniform(range)).
struct ScalarParam {
  Range range;
  Curve overEmitterTime;
  Curve rangeScaleOverEmitterTime;  ///< NWN randvel keys: velocity + u · randvel(t)
  bool operator==(const ScalarParam&) const = default;
};

/// A key of a vector track: a time (s: effect time for motion, emitter time for spawn shapes) and
/// a vector (m, or Euler degrees).
struct Vec3Key {
  float time = 0.0f;
  Vec3 value{0.0f, 0.0f, 0.0f};
  bool operator==(const Vec3Key&) const = default;
};

/// A colour drawn once per particle at spawn: lerp(a, b, u) with one uniform u for all channels,
/// multiplied channel-wise by gradient(emitter time at spawn) when the gradient is set.
struct ColorParam {
  Rgba a{1.0f, 1.0f, 1.0f, 1.0f};
  Rgba b{1.0f, 1.0f, 1.0f, 1.0f};
  Gradient overEmitterTime;
  bool operator==(const ColorParam&) const = default;
};

// -------------------------------------------------------------------------------------------------
// Materials

/// The enumerations shared with the compiled form come from mote/core/effect_enums.h.
MOTE_DEFINE_EFFECT_ENUM(BlendMode, MOTE_BLEND_MODE_LIST);

enum class SheetPlayback : std::uint8_t {
  Fps,      ///< advance at `fps` frames per second from the start frame (fps 0: a still frame)
  OverLife  ///< spread frame_begin..frame_end over the particle's life
};

/// A sprite sheet: columns × rows cells, numbered row-major from the top left.
struct SpriteSheet {
  std::uint32_t columns = 1;
  std::uint32_t rows = 1;
  SheetPlayback playback = SheetPlayback::Fps;
  float fps = 0.0f;
  /// Fps playback: emitter time → frames per second, sampled at each particle's birth and kept
  /// for its life (NWN keyed fps); replaces `fps` when set.
  Curve fpsOverEmitterTime;
  std::uint32_t frameBegin = 0;
  std::int32_t frameEnd = -1;  ///< inclusive; -1: the last cell
  /// Emitter time → first / last frame of the range, sampled at each particle's birth and kept for
  /// its life (NWN keyed frameStart/frameEnd), rounded to the nearest cell and clamped into the
  /// sheet (the last at least the first); replace frameBegin / frameEnd when set.
  Curve frameBeginOverEmitterTime;
  Curve frameEndOverEmitterTime;
  bool randomStart = false;  ///< start at a random frame of the range
  bool loop = true;          ///< Fps playback wraps (else holds the last frame)
  bool frameBlend = false;   ///< cross-fade between consecutive frames
  bool operator==(const SpriteSheet&) const = default;
};

struct Material {
  std::string name;
  /// A file path (relative to the effect file) or a built-in sprite, "builtin:<name>"; empty (the
  /// default): sprites draw builtin:soft_circle, meshes draw untextured.
  std::string texture;
  BlendMode blend = BlendMode::Alpha;
  float alphaCutoff = 0.5f;  ///< Cutout: texels below are discarded
  SpriteSheet sheet;
  float softDistance = 0.0f;  ///< soft-particle fade distance against scene depth, m; 0: hard
  bool lit = false;
  bool doubleSided = false;
  bool ambientTint = false;  ///< tint by the scene's ambient colour (NWN m_isTinted)
  bool operator==(const Material&) const = default;
};

// -------------------------------------------------------------------------------------------------
// Emission and spawn shape

MOTE_DEFINE_EFFECT_ENUM(EmissionMode, MOTE_EMISSION_MODE_LIST);
MOTE_DEFINE_EFFECT_ENUM(SpawnMetric, MOTE_SPAWN_METRIC_LIST);

/// A burst scheduled on the emitter's clock.
struct Burst {
  float time = 0.0f;  ///< s after the emitter starts
  std::uint32_t count = 1;
  float repeatInterval = 0.0f;    ///< s; 0: once
  std::uint32_t repeatCount = 0;  ///< extra repetitions; 0 with an interval: forever
  bool operator==(const Burst&) const = default;
};

struct Emission {
  EmissionMode mode = EmissionMode::Continuous;
  SpawnMetric metric = SpawnMetric::PerSecond;
  /// Continuous: particles per second (per metre of emitter travel for PerDistance).
  /// SingleShot: particles emitted once (again every `duration` when looping).
  /// EventBurst: particles per event. BeamContinuous: particles per second along the beam.
  float rate = 0.0f;
  Curve rateOverTime;  ///< emitter time, s → rate; replaces `rate` when set
  std::vector<Burst> bursts;
  float delay = 0.0f;               ///< s before the emitter starts
  float duration = 0.0f;            ///< s the emitter emits; 0: forever
  bool loop = false;                ///< restart after `duration` (SingleShot: re-emit)
  std::string eventName = "burst";  ///< EventBurst: the host event that fires it
  std::vector<float> eventTimes;    ///< EventBurst: effect-timeline events, s (NWN detonate)
  /// Trails: an emitter of this effect whose live particles each emit this one's particles, `rate`
  /// per second of their life or (PerDistance) per metre each travels, spread along the path it
  /// travelled in the tick and keeping its id (a linked_chain draws one ribbon per source
  /// particle). Empty: the emitter emits by itself.
  std::string source;
  float inheritVelocity = 0.0f;  ///< source: the fraction of the source's velocity newborns add
  bool inheritColor = false;     ///< source: the newborns' colour is multiplied by the source's
  bool inheritSize = false;      ///< source: the newborns' size is multiplied by its width
  bool operator==(const Emission&) const = default;
};

enum class ShapeKind : std::uint8_t { Point, Rect, Box, Sphere, Hemisphere, Disk, Cone, Line };

/// Where particles are born, in the emitter's local frame (rect and disk lie in local XZ, the cone
/// and hemisphere open along local +Y, the line runs from the origin to `end`).
struct SpawnShape {
  ShapeKind kind = ShapeKind::Point;
  Vec3 size{0.0f, 0.0f, 0.0f};  ///< Rect (x, z) and Box extents, m (full widths)
  float radius = 0.0f;          ///< Sphere, Hemisphere, Disk, Cone base, m
  float innerRadius = 0.0f;     ///< hollow core, m (0: solid)
  bool shell = false;           ///< born on the surface only
  float angle = 30.0f;          ///< Cone half-angle, degrees
  float height = 0.0f;          ///< Cone length, m (0: born on the base)
  Vec3 end{0.0f, 1.0f, 0.0f};   ///< Line end, m
  /// Rect (x, z) and Box extents over emitter time, m: [t, [x, y, z]] keys, linear between them,
  /// the end values held outside; replaces `size` when set. A newborn gets the extents of its
  /// spawn's emitter time (NWN xsize/ysize keys).
  std::vector<Vec3Key> sizeOverEmitterTime;
  bool operator==(const SpawnShape&) const = default;
};

// -------------------------------------------------------------------------------------------------
// Initial state

enum class VelocityKind : std::uint8_t {
  None,       ///< born at rest
  Cone,       ///< within `spread` degrees of `direction`
  Sphere,     ///< any direction
  Direction,  ///< exactly `direction`
  Radial,     ///< away from the emitter origin (through the spawn point)
};

struct InitVelocity {
  VelocityKind kind = VelocityKind::None;
  Vec3 direction{0.0f, 1.0f, 0.0f};  ///< local; normalised when used
  float spread = 0.0f;               ///< Cone: half-angle, degrees
  Curve spreadOverEmitterTime;       ///< Cone: emitter time → half-angle; replaces `spread`
  ScalarParam speed;                 ///< m/s
  bool operator==(const InitVelocity&) const = default;
};

enum class FieldType : std::uint8_t { Float, Float2, Float3, Float4 };

/// A field an effect declares: particle fields live per particle, emitter fields per emitter (one
/// program, many emitters with different values — meep), global fields system-wide by name.
struct FieldDecl {
  std::string name;
  FieldType type = FieldType::Float;
  std::vector<float> value;  ///< initial value, one entry per component (empty: zeros)
  bool operator==(const FieldDecl&) const = default;
};

/// An initial value for a declared particle field: uniform per component between min and max.
struct FieldInit {
  std::string field;
  std::vector<float> min;
  std::vector<float> max;  ///< empty: equal to min
  bool operator==(const FieldInit&) const = default;
};

/// A hand-made node graph (INIT or UPDATE). Node types ("op") and their ports are the node
/// library's (the compiler checks them); here a graph is structure: unique ids, inputs that name an
/// existing node's output as "node" or "node.port", and parameters. GraphNode is defined after the
/// update modules, which a "modules" node holds.
struct GraphNode;

struct NodeGraph {
  std::vector<GraphNode> nodes;
  bool operator==(const NodeGraph&) const = default;
};

struct InitModules {
  ScalarParam lifetime{{1.0f, 1.0f}, {}, {}};  ///< s
  bool immortal = false;                       ///< particles never age out (NWN lifeExp < 0)
  InitVelocity velocity;
  ScalarParam mass{{1.0f, 1.0f}, {}, {}};  ///< kg; scales forces that say so
  ScalarParam size{{0.1f, 0.1f}, {}, {}};  ///< quad width, m
  ScalarParam sizeY;                       ///< quad height, m; empty range and curve: square
  bool separateSizeY = false;              ///< use sizeY (else height = width)
  ColorParam color;
  ScalarParam rotation;  ///< roll about the view axis at birth, degrees
  ScalarParam spin;      ///< degrees per second
  /// Orientation quaternion at birth from an axis and an angle (degrees); `randomOrientation`
  /// draws a uniformly random rotation instead.
  Vec3 orientationAxis{0.0f, 0.0f, 1.0f};
  ScalarParam orientationAngle;
  bool randomOrientation = false;
  std::vector<FieldInit> fields;
  NodeGraph graph;  ///< custom INIT graph, runs after the modules above
  bool operator==(const InitModules&) const = default;
};

// -------------------------------------------------------------------------------------------------
// Update modules: a list, run in order every tick.

enum class CurveMode : std::uint8_t {
  Multiply,  ///< scale the value the particle was born with
  Set,       ///< replace it
};

struct GravityModule {
  static constexpr std::string_view kType = "gravity";
  Vec3 acceleration{0.0f, -9.81f, 0.0f};  ///< m/s²
  bool scaleByMass = false;
  /// Emitter time → a factor of the acceleration, sampled at each particle's birth and kept for
  /// its life (0 and negative allowed: NWN's keyed mass); empty: 1.
  Curve scaleOverEmitterTime;
  bool operator==(const GravityModule&) const = default;
};

struct DragModule {
  static constexpr std::string_view kType = "drag";
  float coefficient = 1.0f;  ///< 1/s: v -= v·c·dt
  bool divideByMass = false;
  bool operator==(const DragModule&) const = default;
};

struct CurlNoiseModule {
  static constexpr std::string_view kType = "curl_noise";
  float strength = 1.0f;     ///< m/s²
  float frequency = 1.0f;    ///< 1/m
  float scrollSpeed = 0.0f;  ///< noise field drift along +Y, m/s
  std::uint32_t octaves = 1;
  std::uint32_t seed = 0;
  bool operator==(const CurlNoiseModule&) const = default;
};

struct VortexModule {
  static constexpr std::string_view kType = "vortex";
  Vec3 center{0.0f, 0.0f, 0.0f};  ///< emitter-local, m
  Vec3 axis{0.0f, 1.0f, 0.0f};
  float angularSpeed = 90.0f;  ///< degrees per second about the axis
  float pull = 0.0f;           ///< m/s² toward the axis (negative pushes out)
  bool operator==(const VortexModule&) const = default;
};

struct AttractorModule {
  static constexpr std::string_view kType = "attractor";
  Vec3 position{0.0f, 0.0f, 0.0f};  ///< emitter-local, m
  std::string positionField;        ///< an emitter or global vec3 field overrides `position`
  float strength = 1.0f;            ///< m/s² at 1 m (negative repels)
  float falloff = 0.0f;             ///< 0: constant; 1: 1/d; 2: 1/d²
  float killRadius = 0.0f;          ///< m; 0: never kills
  bool operator==(const AttractorModule&) const = default;
};

enum class TargetMode : std::uint8_t {
  Gravity,  ///< pulled toward the target (rollnw point_gravity)
  Bezier,   ///< flies a cubic Bezier from its spawn point to the target (rollnw point_bezier)
};

/// Point-to-point targeting (NWN p2p).
struct TargetModule {
  static constexpr std::string_view kType = "target";
  TargetMode mode = TargetMode::Gravity;
  Vec3 position{0.0f, 0.0f, 0.0f};  ///< emitter-local, m
  std::string positionField;        ///< an emitter or global vec3 field overrides `position`
  float gravity = 1.0f;             ///< Gravity: m/s² toward the target
  float drag = 0.0f;                ///< Gravity: 1/s
  float killRadius = 0.0f;          ///< Gravity: m; 0: pass through and loop back
  float travelTime = 0.0f;          ///< Bezier: s to reach the target; 0: the particle's life
  float sourceTangent = 0.0f;       ///< Bezier: first handle length, m
  float targetTangent = 0.0f;       ///< Bezier: second handle length, m
  /// Emitter time → each parameter above, sampled at each particle's birth and kept for its life
  /// (NWN keyed grav, drag, threshold, combinetime, p2p_bezier2/3); each replaces its constant
  /// when set.
  Curve gravityOverEmitterTime;
  Curve dragOverEmitterTime;
  Curve killRadiusOverEmitterTime;
  Curve travelTimeOverEmitterTime;
  Curve sourceTangentOverEmitterTime;
  Curve targetTangentOverEmitterTime;
  bool operator==(const TargetModule&) const = default;
};

/// Wind: the host's wind field (SAMPLE_WIND; still air when the host gives none) plus a constant.
struct WindModule {
  static constexpr std::string_view kType = "wind";
  float sceneScale = 1.0f;          ///< multiplier on the host's wind
  Vec3 velocity{0.0f, 0.0f, 0.0f};  ///< constant wind, m/s
  float response = 1.0f;            ///< 1/s: how fast particles take up the wind's speed
  bool operator==(const WindModule&) const = default;
};

/// Host: the world the host gives (ParticleWorld::setCollision: a physics scene, a heightfield, a
/// distance volume), swept from each particle's position along this tick's motion.
enum class ColliderKind : std::uint8_t { Plane, Sphere, Box, Host };

struct Collider {
  ColliderKind kind = ColliderKind::Plane;
  Vec3 position{0.0f, 0.0f, 0.0f};  ///< world, m (a point on the plane; sphere/box centre)
  Vec3 normal{0.0f, 1.0f, 0.0f};    ///< Plane: the side particles live on
  float radius = 1.0f;              ///< Sphere, m
  Vec3 size{1.0f, 1.0f, 1.0f};      ///< Box full extents, m
  bool inside = false;              ///< Sphere/Box: particles live inside
  bool operator==(const Collider&) const = default;
};

enum class CollisionResponse : std::uint8_t {
  Bounce,  ///< reflect with `bounce` restitution and `friction`
  Splat,   ///< stop and lie flat on the surface (NWN splat)
  Kill,
};

struct CollisionModule {
  static constexpr std::string_view kType = "collision";
  std::vector<Collider> colliders;
  CollisionResponse response = CollisionResponse::Bounce;
  float bounce = 0.5f;  ///< restitution along the normal
  /// Emitter time → restitution, sampled at each particle's birth and kept for its life (NWN
  /// keyed bounce_co); replaces `bounce` when set.
  Curve bounceOverEmitterTime;
  float friction = 0.0f;        ///< 0..1 of tangential speed lost per hit
  float particleRadius = 0.0f;  ///< m
  std::string spawnEmitter;     ///< an emitter of this effect to spawn into on each hit
  std::uint32_t spawnCount = 1;
  bool operator==(const CollisionModule&) const = default;
};

enum class KillCondition : std::uint8_t {
  Age,         ///< older than `threshold` s (a cap below the lifetime)
  Plane,       ///< behind a plane
  Sphere,      ///< outside a sphere (inside with `inside`)
  Box,         ///< outside a box (inside with `inside`)
  SpeedBelow,  ///< slower than `threshold` m/s
};

struct KillModule {
  static constexpr std::string_view kType = "kill";
  KillCondition condition = KillCondition::Age;
  Vec3 position{0.0f, 0.0f, 0.0f};  ///< world, m
  Vec3 normal{0.0f, 1.0f, 0.0f};
  float radius = 1.0f;
  Vec3 size{1.0f, 1.0f, 1.0f};
  bool inside = false;
  float threshold = 1.0f;  ///< Age: s; SpeedBelow: m/s
  bool operator==(const KillModule&) const = default;
};

struct ColorOverLifeModule {
  static constexpr std::string_view kType = "color_over_life";
  Gradient gradient;  ///< normalised age 0..1
  CurveMode mode = CurveMode::Multiply;
  bool operator==(const ColorOverLifeModule&) const = default;
};

struct AlphaOverLifeModule {
  static constexpr std::string_view kType = "alpha_over_life";
  Curve curve;  ///< normalised age 0..1; evaluated values clamp to 0..1
  CurveMode mode = CurveMode::Multiply;
  bool operator==(const AlphaOverLifeModule&) const = default;
};

struct SizeOverLifeModule {
  static constexpr std::string_view kType = "size_over_life";
  Curve x;  ///< normalised age 0..1
  Curve y;  ///< empty: follows x
  CurveMode mode = CurveMode::Multiply;
  bool operator==(const SizeOverLifeModule&) const = default;
};

struct SpinOverLifeModule {
  static constexpr std::string_view kType = "spin_over_life";
  Curve curve;  ///< normalised age 0..1 → degrees per second (Set) or a factor (Multiply)
  CurveMode mode = CurveMode::Multiply;
  bool operator==(const SpinOverLifeModule&) const = default;
};

struct SpeedLimitModule {
  static constexpr std::string_view kType = "speed_limit";
  float maxSpeed = 10.0f;  ///< m/s
  bool operator==(const SpeedLimitModule&) const = default;
};

struct GraphModule {
  static constexpr std::string_view kType = "graph";
  NodeGraph graph;
  bool operator==(const GraphModule&) const = default;
};

using UpdateModule =
    std::variant<GravityModule, DragModule, CurlNoiseModule, VortexModule, AttractorModule,
                 TargetModule, WindModule, CollisionModule, KillModule, ColorOverLifeModule,
                 AlphaOverLifeModule, SizeOverLifeModule, SpinOverLifeModule, SpeedLimitModule,
                 GraphModule>;

// -------------------------------------------------------------------------------------------------
// INIT modules as graph nodes: each member group of InitModules (and the spawn shape) as a module
// of its own, for the "modules" nodes of an INIT graph. Each samples and writes what its
// InitModules member does (docs/node-library.md, "modules (module nodes)").

/// The spawn shape: samples a birth position (as Emitter::shape) and writes `position`.
struct InitShapeModule {
  static constexpr std::string_view kType = "shape";
  SpawnShape shape;
  bool operator==(const InitShapeModule&) const = default;
};

/// Writes `lifetime` (as InitModules::lifetime).
struct InitLifetimeModule {
  static constexpr std::string_view kType = "lifetime";
  ScalarParam value{{1.0f, 1.0f}, {}, {}};  ///< s
  bool operator==(const InitLifetimeModule&) const = default;
};

/// Writes `velocity` (as InitModules::velocity; radial is away from the emitter through the
/// particle's position).
struct InitVelocityModule {
  static constexpr std::string_view kType = "velocity";
  InitVelocity velocity;
  bool operator==(const InitVelocityModule&) const = default;
};

/// Writes `size` and the birth size the over-life modules scale (as InitModules::size, sizeY).
struct InitSizeModule {
  static constexpr std::string_view kType = "size";
  ScalarParam value{{0.1f, 0.1f}, {}, {}};  ///< width, m
  ScalarParam y;                            ///< height, m, when `separateY`
  bool separateY = false;
  bool operator==(const InitSizeModule&) const = default;
};

/// Writes `color` and the birth colour (as InitModules::color).
struct InitColorModule {
  static constexpr std::string_view kType = "color";
  ColorParam value;
  bool operator==(const InitColorModule&) const = default;
};

/// Writes `rotation` (as InitModules::rotation), degrees.
struct InitRotationModule {
  static constexpr std::string_view kType = "rotation";
  ScalarParam value;
  bool operator==(const InitRotationModule&) const = default;
};

/// Writes `spin` (as InitModules::spin), degrees per second.
struct InitSpinModule {
  static constexpr std::string_view kType = "spin";
  ScalarParam value;
  bool operator==(const InitSpinModule&) const = default;
};

/// Writes `mass` (as InitModules::mass), kg.
struct InitMassModule {
  static constexpr std::string_view kType = "mass";
  ScalarParam value{{1.0f, 1.0f}, {}, {}};
  bool operator==(const InitMassModule&) const = default;
};

/// Writes `orientation` (as InitModules::orientationAxis, orientationAngle, randomOrientation).
struct InitOrientationModule {
  static constexpr std::string_view kType = "orientation";
  Vec3 axis{0.0f, 0.0f, 1.0f};
  ScalarParam angle;  ///< degrees
  bool random = false;
  bool operator==(const InitOrientationModule&) const = default;
};

/// Writes a declared particle field (as an InitModules::fields entry).
struct InitFieldModule {
  static constexpr std::string_view kType = "field";
  FieldInit value;
  bool operator==(const InitFieldModule&) const = default;
};

using InitModule = std::variant<InitShapeModule, InitLifetimeModule, InitVelocityModule,
                                InitSizeModule, InitColorModule, InitRotationModule, InitSpinModule,
                                InitMassModule, InitOrientationModule, InitFieldModule>;

namespace detail {
template <class A, class B>
struct VariantCat;
template <class... A, class... B>
struct VariantCat<std::variant<A...>, std::variant<B...>> {
  using type = std::variant<A..., B...>;
};
template <class T, class V>
inline constexpr bool kIsAlternative = false;
template <class T, class... A>
inline constexpr bool kIsAlternative<T, std::variant<A...>> = (std::is_same_v<T, A> || ...);
}  // namespace detail

/// A module a "modules" node holds: an update module (UPDATE graphs) or an INIT module (the INIT
/// graph). The alternatives' `type` tags are all distinct.
using NodeModule = detail::VariantCat<UpdateModule, InitModule>::type;

/// One node of a NodeGraph. A node whose op is "modules" holds modules in `modules`: the standard
/// library's module node, which runs them at its place in the graph exactly as they would run at
/// that place in the update list, or in `init` (docs/node-library.md, "modules (module nodes)").
struct GraphNode {
  std::string id;
  std::string op;
  std::map<std::string, std::string> inputs;
  std::map<std::string, std::vector<float>> params;
  std::map<std::string, std::string> names;  ///< name-valued parameters (fields, curves)
  std::vector<NodeModule> modules;           ///< op "modules" only; never a graph module
  Curve curve;                               ///< op "curve" only: the keys it evaluates
  Gradient gradient;                         ///< op "gradient" only: the keys it evaluates
  bool operator==(const GraphNode&) const = default;
};

/// `m` as a module of variant `V` (UpdateModule or InitModule): a copy in `storage` and a pointer
/// to it, or null when `m` is not one of V's alternatives. Allocates as the copy does.
template <class V>
[[nodiscard]] const V* moduleAs(const NodeModule& m, V& storage) {
  return std::visit(
      [&](const auto& alternative) -> const V* {
        if constexpr (detail::kIsAlternative<std::decay_t<decltype(alternative)>, V>) {
          storage = alternative;
          return &storage;
        } else {
          return nullptr;
        }
      },
      m);
}

/// Calls `f(module)` for every module of an update list and, after each graph module, for the
/// update modules its "modules" nodes hold (in node order). Complexity O(modules + nodes).
template <class F>
void forEachUpdateModule(const std::vector<UpdateModule>& update, F&& f) {
  for (const UpdateModule& m : update) {
    f(m);
    if (const auto* g = std::get_if<GraphModule>(&m)) {
      for (const GraphNode& node : g->graph.nodes) {
        for (const NodeModule& inner : node.modules) {
          UpdateModule storage;
          if (const UpdateModule* u = moduleAs(inner, storage)) f(*u);
        }
      }
    }
  }
}

// -------------------------------------------------------------------------------------------------
// Render

MOTE_DEFINE_EFFECT_ENUM(RenderMode, MOTE_RENDER_MODE_LIST);
/// Auto: back to front for alpha blending, none for additive.
MOTE_DEFINE_EFFECT_ENUM(ParticleSort, MOTE_PARTICLE_SORT_LIST);

struct BeamParams {
  Vec3 target{0.0f, 1.0f, 0.0f};   ///< emitter-local end, m
  std::string targetField;         ///< an emitter or global vec3 field overrides `target`
  std::uint32_t subdivisions = 4;  ///< recursive midpoint subdivisions (2^n segments)
  float radius = 0.1f;             ///< maximum lateral displacement, m
  float roughness = 0.5f;          ///< displacement falloff per subdivision, 0..1
  float updateInterval = 0.05f;    ///< s between re-shapes; 0: every tick
  float width = 0.1f;              ///< m
  bool operator==(const BeamParams&) const = default;
};

struct RenderDesc {
  RenderMode mode = RenderMode::Billboard;
  std::int32_t sortOrder = 0;  ///< among emitters: higher draws later (on top)
  ParticleSort sort = ParticleSort::Auto;
  float stretchScale = 0.1f;  ///< Stretched: s of velocity per unit of length (blur length)
  float deadspace = 0.0f;     ///< VelocityAligned: hide within this angle of the view axis, degrees
  BeamParams beam;
  std::string mesh;         ///< Mesh: model name or path
  float chainWidth = 0.1f;  ///< LinkedChain: ribbon width, m
  bool operator==(const RenderDesc&) const = default;
};

// -------------------------------------------------------------------------------------------------
// Emitter and effect

MOTE_DEFINE_EFFECT_ENUM(SimulationSpace, MOTE_SIMULATION_SPACE_LIST);

struct Culling {
  bool enabled = true;             ///< a culled emitter spawns nothing and sleeps
  float maxCatchupSeconds = 1.0f;  ///< on wake, at most this much rate is caught up
  bool operator==(const Culling&) const = default;
};

/// When a particle event fires.
enum class ParticleEventKind : std::uint8_t {
  Death,      ///< the tick a particle dies (its lifetime, a kill module, a killing collision)
  Collision,  ///< each tick a particle hits a collider of one of its collision modules
  Birth,      ///< the tick a particle is born
};

/// A particle event: when it fires for a particle, `count` particles are born in emitter `spawn`
/// of the same effect at the particle's position (where it was born for a birth, its position at
/// the end of the tick for a death, the point of contact for a collision), queued as the collision
/// module's sub-emitter spawns are (the target emits them at the start of the next tick, in
/// source-particle order). They may inherit from the particle what it has at that moment (its
/// velocity after the tick's update, after the collision's response for a collision): the target's
/// own INIT values are then changed — velocity + inheritVelocity × the source's, colour × the
/// source's, size × the source's width.
struct ParticleEvent {
  ParticleEventKind on = ParticleEventKind::Death;
  std::string spawn;  ///< an emitter of this effect, not this one
  std::uint32_t count = 1;
  float inheritVelocity = 0.0f;  ///< the fraction of the source's velocity added to the newborns'
  bool inheritColor = false;     ///< the newborns' colour is multiplied by the source's
  bool inheritSize = false;      ///< the newborns' size is multiplied by the source's width
  /// The host is told too (ParticleWorld::events: kind, emitter, particle, position, velocity,
  /// time, and this event's place in the list as its tag). `spawn` may then be empty.
  bool report = false;
  /// Whether the event passes anything to the particles it spawns.
  bool inherits() const { return inheritVelocity != 0.0f || inheritColor || inheritSize; }
  /// Whether it spawns particles.
  bool spawns() const { return count > 0 && !spawn.empty(); }
  /// Whether it does anything: spawns or reports.
  bool fires() const { return spawns() || report; }
  bool operator==(const ParticleEvent&) const = default;
};

/// A wind burst fired with the emitter's events (NWN blastRadius / blastLength).
struct ForceEvent {
  float radius = 0.0f;     ///< m; 0: none
  float duration = 0.0f;   ///< s
  float strength = 10.0f;  ///< m/s at the centre
  bool operator==(const ForceEvent&) const = default;
};

/// Keyed motion of an emitter or pivot over effect time (seconds since the effect started or
/// restarted), in its parent's frame. A keyed track replaces the static `position`/`rotation`;
/// positions move linearly between keys, rotations by spherical interpolation between the keys'
/// orientations (the shorter way round: a turn of 180° or more needs a key in between). Before
/// the first key and after the last the end value holds, unless `period` repeats the keys.
struct Motion {
  std::vector<Vec3Key> position;  ///< m; empty: the static position
  std::vector<Vec3Key> rotation;  ///< Euler degrees, applied Y·X·Z; empty: the static rotation
  float period = 0.0f;            ///< s; > 0: effect time wraps at this length; 0: played once
  bool operator==(const Motion&) const = default;
};

/// A transform that emitters and other pivots hang from (an NWN dummy node): a frame placed in
/// its parent's (or the effect's), static or keyed. Pivots name their parent among the pivots
/// before them, so a chain has no cycles.
struct Pivot {
  std::string name;
  std::string parent;               ///< a pivot declared earlier; empty: the effect
  Vec3 position{0.0f, 0.0f, 0.0f};  ///< in the parent's frame, m
  Vec3 rotation{0.0f, 0.0f, 0.0f};  ///< Euler degrees, applied Y·X·Z
  Motion motion;
  bool operator==(const Pivot&) const = default;
};

struct Emitter {
  std::string name;
  std::string material;  ///< a Material's name; empty: the default soft circle, alpha blended
  std::string parent;    ///< a pivot's name; empty: the effect
  Vec3 position{0.0f, 0.0f, 0.0f};  ///< offset in the parent (the effect, or a pivot), m
  Vec3 rotation{0.0f, 0.0f, 0.0f};  ///< Euler degrees, applied Y·X·Z
  Motion motion;                    ///< keyed position/rotation over effect time
  std::uint32_t maxParticles = 1000;
  std::uint64_t seed = 0;  ///< mixed with the instance seed
  SimulationSpace space = SimulationSpace::World;
  float velocityInheritance = 0.0f;  ///< fraction of the emitter's velocity newborns take
  float prewarm = 0.0f;              ///< s
  Culling culling;
  Emission spawn;
  SpawnShape shape;
  InitModules init;
  std::vector<UpdateModule> update;
  RenderDesc render;
  std::vector<FieldDecl> particleFields;
  std::vector<FieldDecl> emitterFields;
  ForceEvent forceEvent;
  std::vector<ParticleEvent> events;  ///< particle events
  bool operator==(const Emitter&) const = default;
};

struct EffectDesc {
  std::string name;
  std::string description;
  std::vector<FieldDecl> globalFields;
  std::vector<Material> materials;
  std::vector<Pivot> pivots;  ///< frames emitters hang from (parents before children)
  std::vector<Emitter> emitters;
  bool operator==(const EffectDesc&) const = default;
};

}  // namespace mote::authoring
