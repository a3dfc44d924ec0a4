// SPDX-License-Identifier: MIT
// The enumerations the authoring model and the compiled form share, each as one X-macro list:
// enumerator, number, JSON spelling. Both layers generate their enum from the list
// (MOTE_DEFINE_EFFECT_ENUM), the JSON reader and writer take the spellings from it, and the
// compiler's conversions are generated from it, so no layer can renumber or swap two values.
//
// The numbers are stored in .motefx files (docs/motefx.md): append, never renumber or reorder. The
// spellings are the effect format's (docs/effect-format.md): never respell. Numbers run 0..n-1.
//
// A list is called as LIST(X) with X(Enumerator, number, "spelling") for every enumerator.
#pragma once

#include <cstdint>

/// Blending of a material's quads: alpha (over), cutout (alpha test, opaque), additive,
/// premultiplied alpha.
#define MOTE_BLEND_MODE_LIST(X) \
  X(Alpha, 0, "alpha")          \
  X(Cutout, 1, "cutout")        \
  X(Additive, 2, "additive")    \
  X(Premultiplied, 3, "premultiplied")

/// How an emitter spawns: a continuous rate, one shot at start, a burst per named event, or the
/// continuous stream of a beam.
#define MOTE_EMISSION_MODE_LIST(X) \
  X(Continuous, 0, "continuous")   \
  X(SingleShot, 1, "single_shot")  \
  X(EventBurst, 2, "event_burst")  \
  X(BeamContinuous, 3, "beam_continuous")

/// What a continuous rate counts per: seconds of emitter time, or metres the emitter moved.
#define MOTE_SPAWN_METRIC_LIST(X) \
  X(PerSecond, 0, "per_second")   \
  X(PerDistance, 1, "per_distance")

/// Where particles live: world positions (world, spawn_attached) or emitter-space positions that
/// the emitter's transform carries (local, emitter_attached).
#define MOTE_SIMULATION_SPACE_LIST(X)       \
  X(World, 0, "world")                      \
  X(Local, 1, "local")                      \
  X(EmitterAttached, 2, "emitter_attached") \
  X(SpawnAttached, 3, "spawn_attached")

/// A particle's shape and orientation (docs/rendering.md has each frame).
#define MOTE_RENDER_MODE_LIST(X)             \
  X(Billboard, 0, "billboard")               \
  X(Stretched, 1, "stretched")               \
  X(Vertical, 2, "vertical")                 \
  X(Horizontal, 3, "horizontal")             \
  X(FacingWorld, 4, "facing_world")          \
  X(BillboardLocalZ, 5, "billboard_local_z") \
  X(BillboardWorldZ, 6, "billboard_world_z") \
  X(AlignedWorldZ, 7, "aligned_world_z")     \
  X(VelocityAligned, 8, "velocity_aligned")  \
  X(LinkedChain, 9, "linked_chain")          \
  X(Beam, 10, "beam")                        \
  X(Mesh, 11, "mesh")

/// Draw order of an emitter's particles. Auto: back to front for alpha blending, none for
/// additive.
#define MOTE_PARTICLE_SORT_LIST(X)   \
  X(Auto, 0, "auto")                 \
  X(None, 1, "none")                 \
  X(BackToFront, 2, "back_to_front") \
  X(FrontToBack, 3, "front_to_back") \
  X(NewestFirst, 4, "newest_first")  \
  X(OldestFirst, 5, "oldest_first")

/// Interpolation between curve keys: linear (a straight line between keys), step (holds each key's
/// value until the next key), smooth (smoothstep between keys: zero slope at every key). Also the
/// interpolation bits of the CURVE instruction (docs/isa.md, "Curves").
#define MOTE_CURVE_INTERP_LIST(X) \
  X(Linear, 0, "linear")          \
  X(Step, 1, "step")              \
  X(Smooth, 2, "smooth")

#define MOTE_EFFECT_ENUMERATOR_(name, number, spelling) name = number,
#define MOTE_EFFECT_ENUM_COUNT_(name, number, spelling) +1
#define MOTE_EFFECT_ENUM_IN_ORDER_(name, number, spelling) &&(number) == next++

/// Defines `enum class Type : std::uint8_t` with LIST's enumerators and numbers, and, next to it
/// (found by argument-dependent lookup), `enumeratorCount(Type)`: how many enumerators there are,
/// every number below it being one. Fails to compile unless the numbers run 0, 1, … in order.
#define MOTE_DEFINE_EFFECT_ENUM(Type, LIST)                         \
  enum class Type : std::uint8_t { LIST(MOTE_EFFECT_ENUMERATOR_) }; \
  constexpr std::uint8_t enumeratorCount(Type) noexcept {           \
    return 0 LIST(MOTE_EFFECT_ENUM_COUNT_);                         \
  }                                                                 \
  static_assert(                                                    \
      [] {                                                          \
        int next = 0;                                               \
        return true LIST(MOTE_EFFECT_ENUM_IN_ORDER_);               \
      }(),                                                          \
      #LIST ": the numbers must run 0, 1, … in order (they are stored in .motefx files)")
