// SPDX-License-Identifier: MIT
#include "mdl_track.h"

#include <algorithm>
#include <cmath>

namespace mote::nwn::detail {

float SortedTrack::eval(float time, std::size_t column) const {
  if (keys.empty()) return 0.0f;
  std::size_t i = 0;
  while (i < keys.size() && keys[i].time <= time)
    ++i;
  if (i == 0) return keys.front().value[column];
  if (i == keys.size()) return keys.back().value[column];
  const MdlKey& a = keys[i - 1];
  const MdlKey& b = keys[i];
  const float span = b.time - a.time;  // > 0: a.time <= time < b.time
  const float u = span > 0.0f ? (time - a.time) / span : 1.0f;
  return a.value[column] + (b.value[column] - a.value[column]) * u;
}

float SortedTrack::evalLeft(float time, std::size_t column) const {
  if (keys.empty()) return 0.0f;
  std::size_t i = 0;
  while (i < keys.size() && keys[i].time < time)
    ++i;
  if (i == keys.size()) return keys.back().value[column];
  if (i == 0 || keys[i].time == time) return keys[i].value[column];
  const MdlKey& a = keys[i - 1];
  const MdlKey& b = keys[i];
  const float u = (time - a.time) / (b.time - a.time);
  return a.value[column] + (b.value[column] - a.value[column]) * u;
}

SortedTrack sortTrack(const MdlTrack* track) {
  SortedTrack out;
  if (track == nullptr || track->keys.empty()) return out;
  out.line = track->line;
  out.keys = track->keys;
  out.wasUnsorted =
      !std::is_sorted(out.keys.begin(), out.keys.end(),
                      [](const MdlKey& a, const MdlKey& b) { return a.time < b.time; });
  std::stable_sort(out.keys.begin(), out.keys.end(),
                   [](const MdlKey& a, const MdlKey& b) { return a.time < b.time; });
  for (const MdlKey& k : out.keys)
    if (k.value != out.keys.front().value) out.keyed = true;
  return out;
}

std::vector<Sample> keyTimes(std::initializer_list<const SortedTrack*> tracks) {
  std::vector<float> times;
  std::vector<float> steps;
  for (const SortedTrack* t : tracks) {
    if (t == nullptr || !t->keyed) continue;
    for (std::size_t i = 0; i < t->keys.size(); ++i) {
      const float time = std::max(0.0f, t->keys[i].time);
      times.push_back(time);
      if (i > 0 && t->keys[i].time == t->keys[i - 1].time && t->keys[i].time > 0.0f)
        steps.push_back(time);
    }
  }
  if (times.empty()) return {Sample{}};
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  std::vector<Sample> out;
  for (const float t : times) {
    if (std::find(steps.begin(), steps.end(), t) != steps.end()) out.push_back({t, true});
    out.push_back({t, false});
  }
  return out;
}

std::vector<Sample> withZeroCrossings(const std::vector<Sample>& samples,
                                      std::initializer_list<const std::vector<float>*> factors) {
  std::vector<Sample> out;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    if (i > 0 && samples[i].time > samples[i - 1].time) {
      std::vector<float> cross;
      for (const std::vector<float>* f : factors) {
        const float a = (*f)[i - 1];
        const float b = (*f)[i];
        if ((a < 0.0f && b > 0.0f) || (a > 0.0f && b < 0.0f)) {
          const float t =
              samples[i - 1].time + (samples[i].time - samples[i - 1].time) * (a / (a - b));
          if (t > samples[i - 1].time && t < samples[i].time) cross.push_back(t);
        }
      }
      std::sort(cross.begin(), cross.end());
      cross.erase(std::unique(cross.begin(), cross.end()), cross.end());
      for (const float t : cross)
        out.push_back({t, false});
    }
    out.push_back(samples[i]);
  }
  return out;
}

Staged stage(const SortedTrack& start, const SortedTrack& mid, const SortedTrack& end,
             std::size_t column, float fallbackStart, const std::vector<Sample>& times) {
  std::vector<std::array<float, 3>> v(times.size());
  for (std::size_t i = 0; i < times.size(); ++i) {
    const auto at = [&](const SortedTrack& t) {
      return times[i].left ? t.evalLeft(times[i].time, column) : t.eval(times[i].time, column);
    };
    const float s = start.present() ? at(start) : fallbackStart;
    const float e = end.present() ? at(end) : s;
    const float m = mid.present() ? at(mid) : 0.5f * (s + e);
    v[i] = {s, m, e};
  }
  // The reference shape: the sample with the largest magnitude.
  std::array<float, 3> u{0.0f, 0.0f, 0.0f};
  float best = -1.0f;
  for (const std::array<float, 3>& s : v) {
    const float mag = std::max({std::fabs(s[0]), std::fabs(s[1]), std::fabs(s[2])});
    if (mag > best) {
      best = mag;
      u = s;
    }
  }
  Staged out;
  if (!(best > 0.0f)) {  // all zero
    out.shape = {1.0f, 1.0f, 1.0f};
    out.factor.assign(times.size(), 0.0f);
    return out;
  }
  for (float& c : u)
    c /= best;  // max |u| = 1
  const float uu = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
  out.shape = u;
  out.factor.resize(times.size());
  for (std::size_t i = 0; i < times.size(); ++i) {
    const float k = (v[i][0] * u[0] + v[i][1] * u[1] + v[i][2] * u[2]) / uu;
    out.factor[i] = k;
    for (std::size_t c = 0; c < 3; ++c) {
      const float err = std::fabs(k * u[c] - v[i][c]);
      if (err > 1e-4f * (1.0f + std::fabs(v[i][c]))) out.exact = false;
    }
  }
  return out;
}

}  // namespace mote::nwn::detail
