// SPDX-License-Identifier: MIT
// CompiledEffect: what a game ships and the runtime loads — per emitter its verified program, the
// particle layout and the named channels the runtime and renderer read, and the emitter's
// emission, render and material parameters as plain data (no authoring types: the runtime links
// neither the JSON reader nor the compiler). The `.motefx` binary form is defined here too
// (docs/motefx.md): magic, version, an XXH3-64 checksum of the payload, and one upgrade function
// per old version step.
//
// Thread safety: value types. Allocation: vectors and strings; loading allocates the result.
#pragma once

#include <mote/bytecode/program.h>
#include <mote/core/effect_enums.h>
#include <mote/core/status.h>

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace mote::bytecode {

inline constexpr std::array<std::uint8_t, 8> kMotefxMagic = {'M', 'O', 'T',  'E',
                                                             'F', 'X', 0x1A, 0x0A};
/// The version saveMotefx writes. 6: programs may hold SPAWNI (opcode 56) and REPORT (57) and
/// load the source_* builtins, in v4's layout; 5: programs may hold COLLIDE (opcode 55), in v4's
/// layout; 4: v3's with each emitter's motion and parent frames after its program; 3: v2's layout
/// without the fields nothing reads (docs/motefx.md, "Versions"); 2: programs may hold CURVE
/// (opcode 54), in v1's layout.
inline constexpr std::uint32_t kMotefxVersion = 7;
/// The oldest version loadMotefx reads (upgraded one version at a time).
inline constexpr std::uint32_t kMotefxOldestVersion = 1;
inline constexpr std::size_t kMaxMotefxBytes = std::size_t{64} << 20;

// The enumerations the authoring model shares, generated from the lists of
// mote/core/effect_enums.h (which say what each enumerator means): the same numbers in both
// layers by construction. The numbers are stored in .motefx files.
MOTE_DEFINE_EFFECT_ENUM(BlendMode, MOTE_BLEND_MODE_LIST);
MOTE_DEFINE_EFFECT_ENUM(EmissionMode, MOTE_EMISSION_MODE_LIST);
MOTE_DEFINE_EFFECT_ENUM(SpawnMetric, MOTE_SPAWN_METRIC_LIST);
MOTE_DEFINE_EFFECT_ENUM(SimulationSpace, MOTE_SIMULATION_SPACE_LIST);
/// Local and emitter-attached particles keep emitter-space positions (the emitter's transform
/// carries them to the world); world and spawn-attached ones keep world positions.
constexpr bool movesWithEmitter(SimulationSpace space) noexcept {
  return space == SimulationSpace::Local || space == SimulationSpace::EmitterAttached;
}

MOTE_DEFINE_EFFECT_ENUM(RenderMode, MOTE_RENDER_MODE_LIST);
MOTE_DEFINE_EFFECT_ENUM(ParticleSort, MOTE_PARTICLE_SORT_LIST);
/// The rate curve's interpolation; the CURVE instruction's is the same type (CurveTableInterp).
using CurveInterp = CurveTableInterp;

/// How a material draws. The sprite sheet's playback (fps, over-life spread, random start, loop)
/// is compiled into the program, which writes the frame channel; the renderer reads only the
/// grid, where a blended last frame wraps to, and whether frames blend.
struct CompiledMaterial {
  std::string name;
  std::string texture;  ///< a file path or "builtin:<name>"
  BlendMode blend = BlendMode::Alpha;
  float alphaCutoff = 0.5f;      ///< Cutout: texels of lower alpha (0..1) are discarded
  std::uint32_t columns = 1;     ///< sprite-sheet cells across, 1..256
  std::uint32_t rows = 1;        ///< sprite-sheet cells down, 1..256
  std::uint32_t frameBegin = 0;  ///< the sheet's first frame (cell index): a blended end wraps here
  bool frameBlend = false;       ///< cross-fade between consecutive frames
  float softDistanceMeters = 0.0f;  ///< soft particles fade over this depth distance; 0: hard
  bool lit = false;                 ///< not drawn yet (the lighting issue reads it)
  bool doubleSided = false;         ///< not drawn yet
  bool ambientTint = false;         ///< not drawn yet: tint by the scene's ambient colour
  bool operator==(const CompiledMaterial&) const = default;
};

/// `count` particles at `timeSeconds` of emitter time, then `repeatCount` more times every
/// `repeatIntervalSeconds` (0 repeats: once).
struct CompiledBurst {
  float timeSeconds = 0.0f;
  std::uint32_t count = 0;
  float repeatIntervalSeconds = 0.0f;
  std::uint32_t repeatCount = 0;
  bool operator==(const CompiledBurst&) const = default;
};

/// The emitter-side schedule the runtime evaluates every tick (spawn counts are the CPU's).
/// Emitter time is effect time less `delaySeconds`.
struct CompiledEmission {
  EmissionMode mode = EmissionMode::Continuous;
  SpawnMetric metric = SpawnMetric::PerSecond;
  /// Particles per second of emitter time (PerSecond) or per metre the emitter moved
  /// (PerDistance); SingleShot and EventBurst: particles per shot.
  float rate = 0.0f;
  CurveInterp rateInterp = CurveInterp::Linear;
  /// (emitter time s, rate in `rate`'s unit) keys; empty: the constant `rate`.
  std::vector<std::array<float, 2>> rateKeys;
  std::vector<CompiledBurst> bursts;
  float delaySeconds = 0.0f;             ///< effect time before the emitter starts
  float durationSeconds = 0.0f;          ///< emitter time it emits for; 0: forever
  bool loop = false;                     ///< with a duration: start over at its end
  std::string eventName;                 ///< EventBurst: the event that fires a burst
  std::vector<float> eventTimesSeconds;  ///< effect times of scheduled events
  /// Trails: the emitter of the effect whose live particles ask for this one's particles (TRAIL
  /// requests, which only it may make), or -1. Its particles keep the asking particle's id.
  std::int32_t sourceEmitter = -1;
  /// Trails: the fraction of the source particle's velocity over its step (its path ÷ dt) that a
  /// newborn's source_velocity carries.
  float sourceInheritVelocity = 0.0f;
  bool operator==(const CompiledEmission&) const = default;
};

struct CompiledRender {
  RenderMode mode = RenderMode::Billboard;
  std::int32_t sortOrder = 0;  ///< among emitters: higher draws later (on top)
  ParticleSort sort = ParticleSort::Auto;
  float stretchScaleSeconds = 0.1f;  ///< Stretched: length added per m/s of speed (blur length)
  /// VelocityAligned: hide within this angle of the view axis; not drawn yet.
  float deadspaceRadians = 0.0f;
  std::array<float, 3> beamTargetMeters{0.0f, 1.0f, 0.0f};  ///< Beam: emitter-local end
  /// Beam: the emitter-field word offset of a vec3 that overrides the target, or -1.
  std::int32_t beamTargetFieldWord = -1;
  std::uint32_t beamSubdivisions = 4;       ///< recursive midpoint subdivisions (2^n segments)
  float beamRadiusMeters = 0.1f;            ///< largest sideways displacement of a midpoint
  float beamRoughness = 0.5f;               ///< displacement falloff per subdivision, 0..1
  float beamUpdateIntervalSeconds = 0.05f;  ///< between re-shapes; 0: every tick
  float beamWidthMeters = 0.1f;
  std::string mesh;               ///< Mesh: builtin:NAME, an .obj path, or a loader's (.mdl)
  float chainWidthMeters = 0.1f;  ///< LinkedChain: ribbon width
  bool operator==(const CompiledRender&) const = default;
};

/// A wind burst fired with the emitter's events: `strengthMetersPerSecond` outward at the centre,
/// falling linearly to nothing at `radiusMeters`, for `durationSeconds`. Radius or duration 0:
/// none.
struct CompiledForceEvent {
  float radiusMeters = 0.0f;
  float durationSeconds = 0.0f;
  float strengthMetersPerSecond = 0.0f;
  bool operator==(const CompiledForceEvent&) const = default;
};

/// A key of a motion track: effect time (s) and a position (x, y, z, 0; m) or an orientation
/// quaternion (x, y, z, w).
struct MotionKey {
  float timeSeconds = 0.0f;
  std::array<float, 4> value{0.0f, 0.0f, 0.0f, 0.0f};
  bool operator==(const MotionKey&) const = default;
};

/// A frame's keyed motion over effect time (authoring::Motion): positions linear between keys,
/// orientations slerped the shorter way, end values held outside the keys unless `periodSeconds`
/// (> 0) wraps the time. Keys are in time order; an empty track leaves the static value.
struct CompiledMotion {
  std::vector<MotionKey> position;
  std::vector<MotionKey> rotation;
  float periodSeconds = 0.0f;
  [[nodiscard]] bool empty() const { return position.empty() && rotation.empty(); }
  bool operator==(const CompiledMotion&) const = default;
};

/// A frame of an emitter's transform chain (a pivot it hangs from): its offset and rotation in
/// its own parent, and their keys.
struct CompiledFrame {
  std::array<float, 3> positionMeters{};
  std::array<float, 4> rotationQuaternion{0.0f, 0.0f, 0.0f, 1.0f};  ///< x, y, z, w
  CompiledMotion motion;
  bool operator==(const CompiledFrame&) const = default;
};

/// The most keys of one motion track and the deepest frame chain a file may hold.
inline constexpr std::uint32_t kMaxMotionKeys = 4096;
inline constexpr std::uint32_t kMaxFrameChain = 256;

/// Word offsets of the particle fields the runtime and renderer read by meaning (-1: absent —
/// the compiler narrows the layout to what the program and renderer need).
struct ParticleChannels {
  std::int32_t position = -1;     ///< 3 words, world (or local per space) metres
  std::int32_t velocity = -1;     ///< 3 words, m/s
  std::int32_t age = -1;          ///< 1 word, s
  std::int32_t lifetime = -1;     ///< 1 word, s
  std::int32_t size = -1;         ///< 2 words, m (width, height)
  std::int32_t color = -1;        ///< 4 words, linear RGBA
  std::int32_t rotation = -1;     ///< 1 word, radians (roll)
  std::int32_t orientation = -1;  ///< 4 words, quaternion
  std::int32_t frame = -1;        ///< 1 word, sprite-sheet frame (fractional: blend)
  bool operator==(const ParticleChannels&) const = default;
};

/// A global field the effect declares: `width` words (1..4), initially `value`'s first ones.
struct GlobalFieldDecl {
  std::string name;
  std::uint32_t width = 1;
  std::array<float, 4> value{};
  bool operator==(const GlobalFieldDecl&) const = default;
};

struct CompiledEmitter {
  std::string name;
  std::int32_t material = -1;  ///< index into CompiledEffect::materials; -1: the default sprite
  std::uint32_t maxParticles = 1000;
  std::uint64_t seed = 0;
  SimulationSpace space = SimulationSpace::World;
  float prewarmSeconds = 0.0f;            ///< run forward this long before the first frame
  bool cull = true;                       ///< a culled emitter spawns nothing and sleeps
  float maxCatchupSeconds = 1.0f;         ///< on waking, at most this much emission is caught up
  std::array<float, 3> positionMeters{};  ///< offset in its parent (the effect, or `parents[0]`)
  std::array<float, 4> rotationQuaternion{0.0f, 0.0f, 0.0f, 1.0f};  ///< in the effect (x, y, z, w)
  /// Keys that move positionMeters/rotationQuaternion over effect time (none: they stand still).
  CompiledMotion motion;
  /// The pivots the emitter hangs from, its parent first and the effect's child last (none: the
  /// effect is its parent). Its world transform is effect · parents[n−1] · … · parents[0] · own.
  std::vector<CompiledFrame> parents;
  CompiledEmission emission;
  CompiledRender render;
  CompiledForceEvent forceEvent;
  std::vector<FieldSlot> emitterFields;   ///< names and words of emitter fields
  std::vector<float> emitterFieldValues;  ///< initial words (program.emitterWords of them)
  ParticleChannels channels;
  Program program;  ///< verified when loaded or compiled
  bool operator==(const CompiledEmitter&) const = default;
};

struct CompiledEffect {
  std::string name;
  std::vector<GlobalFieldDecl> globals;
  std::vector<CompiledMaterial> materials;
  std::vector<CompiledEmitter> emitters;
  bool operator==(const CompiledEffect&) const = default;
};

/// XXH3-64 of a program's words, constants and layout: equal programs hash equal (dedupe).
std::uint64_t contentHash(const Program& program);

/// The `.motefx` bytes of `effect` (little-endian; docs/motefx.md).
std::vector<std::uint8_t> saveMotefx(const CompiledEffect& effect);

/// Parses `.motefx` bytes: checks magic, version (upgrading older versions), size limits and the
/// checksum, reads every section with bounds checks, and verifies every program. Errors are
/// ParseError "offset N: …" / the verifier's message prefixed with the emitter name.
/// Never crashes or over-allocates on any input (fuzz/bytecode_fuzz.cpp).
Result<CompiledEffect> loadMotefx(std::span<const std::uint8_t> bytes);

}  // namespace mote::bytecode
