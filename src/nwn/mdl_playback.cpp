// SPDX-License-Identifier: MIT
// The played animation's loop or end, applied to the lowered effect (mdl_playback.h).
#include "mdl_playback.h"

#include "mdl_tables.h"
#include "mdl_transform.h"

#include <mote/nwn/mdl.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace mote::nwn {

bool animationLoops(std::string_view name) {
  const std::string n = lowerCopy(name);
  // The VFX's `duration` part and the state animations the game holds an object in.
  for (const std::string_view exact :
       {"duration", "default", "on", "off", "activated", "deactivated", "dead", "closed"})
    if (n == exact) return true;
  for (const std::string_view prefix : {"pause", "cpause", "walk", "run", "opened"})
    if (n.rfind(prefix, 0) == 0) return true;
  return false;
}

namespace detail {

using authoring::Vec3Key;

authoring::Motion motionKeys(const SortedTrack& position, const SortedTrack& orientation,
                             float loop, const std::string& node, const Reporter& report,
                             bool& outOfRange) {
  authoring::Motion m;
  for (const SortedTrack* t : {&position, &orientation}) {
    if (!t->keyed) continue;
    const bool isPosition = t == &position;
    std::vector<Vec3Key>& keys = isPosition ? m.position : m.rotation;
    const auto at = [&](const MdlKey& k) {
      const auto& v = k.value;
      return isPosition ? clampVec(toMote(Vec3{v[0], v[1], v[2]}), 1e6f, outOfRange)
                        : eulerYXZ(toMote(axisAngle(v[0], v[1], v[2], v[3])));
    };
    const MdlKey* previous = nullptr;
    for (const MdlKey& k : t->keys) {
      if (keys.size() == authoring::kMaxMotionKeys) {
        report.warn(t->line, "'" + node + "' has more than " +
                                 std::to_string(authoring::kMaxMotionKeys) +
                                 " keys in a track; the rest are dropped");
        break;
      }
      const auto& v = k.value;
      if (!std::isfinite(k.time) || !std::isfinite(v[0]) || !std::isfinite(v[1]) ||
          !std::isfinite(v[2]) || !std::isfinite(v[3]))
        continue;
      const float time = std::max(0.0f, k.time);
      if (loop > 0.0f && time > loop) {
        // The animation wraps at `loop`: the value there ends the cycle.
        if (previous == nullptr) {
          keys.push_back({0.0f, at(k)});
        } else if (std::max(0.0f, previous->time) < loop) {
          const float from = std::max(0.0f, previous->time);
          const float u = (loop - from) / (time - from);
          const auto& a = previous->value;
          Vec3 value{};
          if (isPosition) {
            for (std::size_t c = 0; c < 3; ++c)
              value[c] = a[c] + (v[c] - a[c]) * u;
            value = clampVec(toMote(value), 1e6f, outOfRange);
          } else {
            value = eulerYXZ(toMote(
                slerp(axisAngle(a[0], a[1], a[2], a[3]), axisAngle(v[0], v[1], v[2], v[3]), u)));
          }
          keys.push_back({loop, value});
        }
        break;
      }
      keys.push_back({time, at(k)});
      previous = &k;
    }
  }
  if (loop > 0.0f && (!m.position.empty() || !m.rotation.empty())) m.period = loop;
  return m;
}

float lifetimeBound(const authoring::Emitter& e) {
  if (e.init.immortal) return 30.0f;
  float peak = e.init.lifetime.range.max;
  for (const authoring::CurveKey& k : e.init.lifetime.overEmitterTime.keys)
    peak = std::max(peak, k.value);
  return peak;
}

void playEmission(authoring::EffectDesc& effect, float length, bool loop, const Reporter& report) {
  using authoring::EmissionMode;
  for (authoring::Emitter& e : effect.emitters) {
    authoring::Emission& s = e.spawn;
    if (s.mode == EmissionMode::SingleShot && s.loop) {
      // One particle every `duration` s (lowerEmission): a burst repeating inside the animation.
      authoring::Burst b;
      b.repeatInterval = s.duration;
      if (!loop) {  // the repeats that start before the animation ends
        const double n =
            std::ceil(static_cast<double>(length) / static_cast<double>(s.duration)) - 1.0;
        b.repeatCount = static_cast<std::uint32_t>(std::clamp(n, 0.0, 1e6));
        if (b.repeatCount == 0) b.repeatInterval = 0.0f;
      }
      s.mode = EmissionMode::Continuous;
      s.rate = 0.0f;
      s.bursts = {b};
      s.loop = false;
      s.duration = 0.0f;
    }
    if (loop) {
      s.loop = true;
      s.duration = length;
      const auto late = std::find_if(s.eventTimes.begin(), s.eventTimes.end(),
                                     [&](float t) { return t >= length; });
      if (late != s.eventTimes.end()) {
        report.warn(0, "detonations of '" + e.name + "' at or after the looping animation's end (" +
                           std::to_string(s.eventTimes.end() - late) + ") never happen; dropped");
        s.eventTimes.erase(late, s.eventTimes.end());
      }
      if (s.mode == EmissionMode::EventBurst) {
        // Every cycle detonates again: room for the bursts of the cycles a particle outlives.
        const double cycles =
            std::ceil(static_cast<double>(lifetimeBound(e)) / static_cast<double>(length)) + 1.0;
        e.maxParticles = static_cast<std::uint32_t>(
            std::clamp(std::ceil(static_cast<double>(e.maxParticles) * std::min(cycles, 64.0)),
                       16.0, static_cast<double>(kMaxParticlesPerImportedEmitter)));
      }
    } else if (s.mode == EmissionMode::Continuous || s.mode == EmissionMode::BeamContinuous) {
      s.duration = s.duration > 0.0f ? std::min(s.duration, length) : length;
    }
  }
}

}  // namespace detail
}  // namespace mote::nwn
