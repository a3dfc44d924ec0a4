// SPDX-License-Identifier: MIT
// How the played animation runs in the lowered effect (docs/nwn-import.md, "Time domains and
// animations"): a looping animation wraps every emitter's emission and the nodes' motion at its
// length; a one-shot animation ends the emission at its length and holds the keys' end values.
#pragma once

#include "mdl_report.h"
#include "mdl_track.h"

#include <mote/authoring/effect.h>

#include <cstdint>
#include <string>

namespace mote::nwn::detail {

/// The most particles an imported emitter holds: × 256 emitters, the effect's cap.
inline constexpr std::uint32_t kMaxParticlesPerImportedEmitter = 16384;

/// A node's position and orientation tracks (NWN axes: position m, orientation axis-angle) as
/// Motion keys in Mote's axes. Keys before 0 s move to 0 s, non-finite ones are dropped, beyond
/// authoring::kMaxMotionKeys a track is cut (with a warning naming `node`); a track that never
/// changes adds no keys. With `loop` > 0 the motion repeats every `loop` seconds (Motion::period):
/// keys after it are replaced by one at `loop`, between the two around it (linear for positions,
/// slerp for orientations). `outOfRange` is set when a position had to be clamped (±1000 km).
/// Complexity: O(keys). Allocates: the keys.
authoring::Motion motionKeys(const SortedTrack& position, const SortedTrack& orientation,
                             float loop, const std::string& node, const Reporter& report,
                             bool& outOfRange);

/// Makes every emitter of `effect` play as an animation of `length` seconds does. `loop`: each
/// emission loops with it (rates, shots, bursts, detonations and spawn-time keys repeat; effect
/// events at or after `length`, which the wrapping animation never reaches, are dropped with a
/// warning). Otherwise continuous emission ends at `length`. Either way a Single emitter's
/// repeats (`loop 1`: an emission looping at its repeat interval) become a burst repeating within
/// the animation, so the emission's own loop is the animation's.
void playEmission(authoring::EffectDesc& effect, float length, bool loop, const Reporter& report);

/// The longest an emitter's particles live, s (30 for immortal ones): for capacity estimates.
float lifetimeBound(const authoring::Emitter& e);

}  // namespace mote::nwn::detail
