// SPDX-License-Identifier: MIT
// The GPU world's pool drawn where it lives (docs/gpu.md, "Drawing the pool in place"): each entry
// of the alive list the last frame left becomes what the software renderer makes of its particle
// (<mote/render/particle_instance.h>, ported here: the billboard input carried out of its emitter's
// frame, the premultiplied and ambient-tinted colour, the flipbook cells, the stretch, deadspace,
// the draw key) without a readback.
//   pass 0  keys — one invocation per sort entry (the padded length): the entry's key words and
//           pool slot, or the largest key and no slot past the alive list or for a particle that
//           draws nothing (the software renderer skips it);
//   pass 1  instances — one invocation per alive entry, after the sort (draw_sort.comp): the
//           instance of the particle in that place, as sprite.vert reads it (36 words; all zero,
//           a quad without area that sprite.vert drops, for an entry without a slot).
// The key orders the frame as the software renderer orders a world read back in id order: emitter
// order (its packet's rank, its particles' draw key, id), sorted (view depth back to front, rank,
// id) or OIT (rank, cutout particles' draw key, id) — one order on every run, whatever order the
// frame's atomics left the alive list in, since ids are unique within an emitter.
#version 460

#include "draw_layout_constants.glsl"  // src/gpu/draw_layout.h
#include "frame_layout.glsl"

layout(local_size_x = 64) in;

layout(std430, binding = 0) readonly buffer Draw { uint draw[]; };
layout(std430, binding = 1) readonly buffer Records { uint records[]; };
layout(std430, binding = 2) readonly buffer Alive { uint alive[]; };
layout(std430, binding = 3) readonly buffer Counters { uint counters[]; };
layout(std430, binding = 4) buffer Keys { uint keys[]; };
layout(std430, binding = 5) writeonly buffer Instances { uint instances[]; };

layout(push_constant) uniform Push {
  uint pass_;
  uint entries;  // pass 0: the sort's padded length; pass 1: the instances' room (0: priming)
  uint threads;  // invocations dispatched (each strides past them)
} push;

const uint kNone = 0xffffffffu;
const uint kInstanceWords = 36u;
const uint kSortNone = 1u;  // bytecode::ParticleSort
const uint kSortFrontToBack = 3u;
const uint kSortNewestFirst = 4u;
const uint kSortOldestFirst = 5u;
const uint kModeStretched = 1u;  // render::BillboardMode

float drawFloat(uint k) { return uintBitsToFloat(draw[k]); }
vec3 drawVec3(uint k) { return vec3(drawFloat(k), drawFloat(k + 1u), drawFloat(k + 2u)); }
uint rowWord(uint row, uint k) { return draw[kDrawHeaderWords + row * kDrawRowWords + k]; }
float rowFloat(uint row, uint k) { return uintBitsToFloat(rowWord(row, k)); }

// std::clamp's and std::max's answers, NaN included (the first operand when no comparison holds).
float clampStd(float v, float lo, float hi) { return v < lo ? lo : (hi < v ? hi : v); }
float maxStd(float a, float b) { return a < b ? b : a; }

// glm's q * v for a unit quaternion (x, y, z, w).
vec3 rotated(vec4 q, vec3 v) {
  precise vec3 uv = cross(q.xyz, v);
  precise vec3 uuv = cross(q.xyz, uv);
  precise vec3 r = v + ((uv * q.w) + uuv) * 2.0;
  return r;
}
// glm's p * q.
vec4 quatProduct(vec4 p, vec4 q) {
  precise vec4 r = vec4(p.w * q.x + p.x * q.w + p.y * q.z - p.z * q.y,
                        p.w * q.y + p.y * q.w + p.z * q.x - p.x * q.z,
                        p.w * q.z + p.z * q.w + p.x * q.y - p.y * q.x,
                        p.w * q.w - p.x * q.x - p.y * q.y - p.z * q.z);
  return r;
}
// render::normalizedOrientation: identity for a zero or non-finite quaternion.
vec4 normalizedOrientation(vec4 q) {
  if (any(isnan(q)) || any(isinf(q))) return vec4(0.0, 0.0, 0.0, 1.0);
  const float m = max(max(abs(q.x), abs(q.y)), max(abs(q.z), abs(q.w)));
  if (!(m > 0.0)) return vec4(0.0, 0.0, 0.0, 1.0);
  precise vec4 s = q / m;
  precise float length_ = sqrt(s.x * s.x + s.y * s.y + s.z * s.z + s.w * s.w);
  return s / length_;
}
uint orderedBits(float f) {
  const uint u = floatBitsToUint(f);
  return (u & 0x80000000u) != 0u ? ~u : u | 0x80000000u;
}

// One alive entry's particle as the software renderer sees it.
struct Particle {
  bool shown;
  uint row, id;
  vec3 position, velocity;
  vec2 halfSize;
  vec4 orientation, emitterRotation, color;
  float w;  // clip w: the draw keys' depth
};

vec4 channel4(uint at, uint word, vec4 absent) {
  if (word == kNone) return absent;
  return uintBitsToFloat(uvec4(records[at + word], records[at + word + 1u],
                               records[at + word + 2u], records[at + word + 3u]));
}
vec3 channel3(uint at, uint word) {
  if (word == kNone) return vec3(0.0);
  return uintBitsToFloat(uvec3(records[at + word], records[at + word + 1u], records[at + word + 2u]));
}
uint channelWord(uint row, uint c) { return rowWord(row, kRowDrawChannels + c); }

Particle particleAt(uint slot) {
  Particle p;
  p.shown = false;
  const uint at = slot * draw[kDrawStride];
  p.row = records[at];
  p.id = records[at + 2u];
  if (p.row >= draw[kDrawRows]) return p;
  const uint row = p.row;
  const uint flags = rowWord(row, kRowDrawFlags);
  if ((flags & kRowDrawn) == 0u || records[at + 1u] != rowWord(row, kRowDrawGeneration)) return p;
  const uint words = at + kHeaderWords;
  // The colour (particlePremultipliedColor, ambientTinted): nothing shows without alpha unless
  // additive.
  const vec4 straight = channel4(words, channelWord(row, kChannelColor), vec4(1.0));
  const float alpha = clampStd(straight.a, 0.0, 1.0);
  const bool additive = (flags & kRowAdditive) != 0u;
  const vec3 tint = vec3(rowFloat(row, kRowDrawTint), rowFloat(row, kRowDrawTint + 1u),
                         rowFloat(row, kRowDrawTint + 2u));
  precise vec3 rgb = vec3(maxStd(straight.r, 0.0), maxStd(straight.g, 0.0),
                          maxStd(straight.b, 0.0)) * alpha * tint;
  p.color = vec4(rgb, additive ? 0.0 : alpha);
  if (!additive && !(p.color.a > 0.0)) return p;
  // The billboard input (particleBillboardInput): out of the emitter's frame where local.
  p.position = channel3(words, channelWord(row, kChannelPosition));
  p.velocity = channel3(words, channelWord(row, kChannelVelocity));
  const vec4 emitterRotation =
      uintBitsToFloat(uvec4(rowWord(row, kRowDrawEmitterRotation), rowWord(row, kRowDrawEmitterRotation + 1u),
                            rowWord(row, kRowDrawEmitterRotation + 2u), rowWord(row, kRowDrawEmitterRotation + 3u)));
  if ((flags & kRowLocal) != 0u) {
    const vec3 origin = vec3(rowFloat(row, kRowDrawEmitterPosition),
                             rowFloat(row, kRowDrawEmitterPosition + 1u),
                             rowFloat(row, kRowDrawEmitterPosition + 2u));
    precise vec3 placed = origin + rotated(emitterRotation, p.position);
    p.position = placed;
    p.velocity = rotated(emitterRotation, p.velocity);
  }
  p.emitterRotation = emitterRotation;
  const uint size = channelWord(row, kChannelSize);
  p.halfSize = vec2(0.5);
  if (size != kNone) {
    precise vec2 half_ = uintBitsToFloat(uvec2(records[words + size], records[words + size + 1u])) * 0.5;
    p.halfSize = half_;
  }
  if (!(p.halfSize.x > 0.0) || !(p.halfSize.y > 0.0)) return p;
  // Its turn (particleOrientation): the orientation channel normalised, then the roll about +Z.
  vec4 q = vec4(0.0, 0.0, 0.0, 1.0);
  if (channelWord(row, kChannelOrientation) != kNone)
    q = normalizedOrientation(channel4(words, channelWord(row, kChannelOrientation), q));
  const uint rotation = channelWord(row, kChannelRotation);
  if (rotation != kNone) {
    const float half_ = uintBitsToFloat(records[words + rotation]) * 0.5;
    q = quatProduct(q, vec4(0.0, 0.0, sin(half_), cos(half_)));
  }
  p.orientation = q;
  const vec3 eye = drawVec3(kDrawEye);
  // Deadspace (inDeadspace): a velocity_aligned particle moving along the view axis is hidden.
  if ((flags & kRowDeadspace) != 0u) {
    const vec3 toward = draw[kDrawPerspective] != 0u ? eye - p.position : -drawVec3(kDrawForward);
    const vec3 axis = normalize(toward);
    const float speed = length(p.velocity);
    if (speed > 0.0 && abs(dot(p.velocity / speed, axis)) > rowFloat(row, kRowDrawCosDeadspace))
      return p;
  }
  // Clip w as glm's viewProjection * vec4(position, 1) computes it.
  precise float w = (drawFloat(kDrawViewProjection + 3u) * p.position.x +
                     drawFloat(kDrawViewProjection + 7u) * p.position.y) +
                    (drawFloat(kDrawViewProjection + 11u) * p.position.z +
                     drawFloat(kDrawViewProjection + 15u));
  p.w = w;
  p.shown = true;
  return p;
}

// The particle's key words (particleDrawKey within its emitter, the frame's order around it).
uvec3 keyOf(Particle p) {
  const uint row = p.row;
  const uint rank = rowWord(row, kRowDrawRank);
  const uint sort = rowWord(row, kRowDrawSort);
  const uint depthKey = ~orderedBits(p.w);  // back to front
  const uint transparency = draw[kDrawTransparency];
  if (transparency == 1u) return uvec3(depthKey, rank, p.id);
  uint drawKey = depthKey;
  if (sort == kSortNone) drawKey = 0u;
  else if (sort == kSortFrontToBack) drawKey = orderedBits(p.w);
  else if (sort == kSortOldestFirst) drawKey = p.id;
  else if (sort == kSortNewestFirst) drawKey = ~p.id;
  // OIT: translucent particles accumulate in any order (id order here); cutout ones keep theirs.
  if (transparency == 2u && (rowWord(row, kRowDrawFlags) & kRowCutout) == 0u) drawKey = 0u;
  return uvec3(rank, drawKey, p.id);
}

void writeKeys(uint entry) {
  const uint n = counters[draw[kDrawAliveCount]];
  uvec4 out_ = uvec4(kNone);
  if (entry < n) {
    const uint slot = alive[draw[kDrawAliveAt] + entry];
    const Particle p = particleAt(slot);
    if (p.shown) out_ = uvec4(keyOf(p), slot);
  }
  const uint at = entry * kSortWords;
  keys[at] = out_.x;
  keys[at + 1u] = out_.y;
  keys[at + 2u] = out_.z;
  keys[at + 3u] = out_.w;
}

void put(inout uint at, float v) { instances[at++] = floatBitsToUint(v); }

// sprite.vert's instance (SpriteInstance's words, drawFrame's order).
void writeInstance(uint entry) {
  const uint n = counters[draw[kDrawAliveCount]];
  if (entry >= n) return;
  uint at = entry * kInstanceWords;
  const uint slot = keys[entry * kSortWords + 3u];
  if (slot == kNone) {
    for (uint k = 0u; k < kInstanceWords; ++k)
      instances[at + k] = 0u;
    return;
  }
  const Particle p = particleAt(slot);
  const uint row = p.row;
  const uint flags = rowWord(row, kRowDrawFlags);
  const uint mode = rowWord(row, kRowDrawMode);
  const vec3 eye = drawVec3(kDrawEye);
  const vec3 forward = drawVec3(kDrawForward);
  precise float viewDepth = dot(p.position - eye, forward);
  // Stretched's seconds (particleStretchSeconds): stretch_scale over the particle's height in
  // viewport heights at its depth.
  float stretch = 1.0;
  if (mode == kModeStretched) {
    const float depth = draw[kDrawPerspective] != 0u ? maxStd(viewDepth, drawFloat(kDrawNear)) : 1.0;
    precise float perHeight = 2.0 * drawFloat(kDrawHalfHeight) * depth;
    precise float seconds = rowFloat(row, kRowDrawStretchScale) * perHeight / (2.0 * p.halfSize.y);
    stretch = seconds;
  }
  // The flipbook cells (particleCells).
  const uint columns = rowWord(row, kRowDrawColumns);
  const uint cells = columns * rowWord(row, kRowDrawSheetRows);
  const float du = 1.0 / float(columns);
  const float dv = 1.0 / float(rowWord(row, kRowDrawSheetRows));
  vec4 cell = vec4(0.0, 0.0, du, dv);
  vec2 next = vec2(0.0);
  float blend = 0.0;
  const uint frameWord = channelWord(row, kChannelFrame);
  if (cells > 1u && frameWord != kNone) {
    const float frame_ = uintBitsToFloat(records[slot * draw[kDrawStride] + kHeaderWords + frameWord]);
    const float whole = floor(frame_);
    const float last = float(cells - 1u);
    const uint a = uint(clampStd(whole, 0.0, last));
    const float nextFrame = whole + 1.0 < float(cells) ? whole + 1.0 : float(rowWord(row, kRowDrawFrameBegin));
    const uint b = uint(clampStd(nextFrame, 0.0, last));
    cell.xy = vec2(float(a % columns) * du, float(a / columns) * dv);
    next = vec2(float(b % columns) * du, float(b / columns) * dv);
    if ((flags & kRowFrameBlend) != 0u) blend = frame_ - whole;
  }
  const bool cutout = (flags & kRowCutout) != 0u;
  const bool oit = draw[kDrawTransparency] == 2u && !cutout;
  float oitWeight = 0.0;
  if (oit) {  // render::oitDepthWeight
    const float a = abs(p.w) / 5.0;
    const float b = abs(p.w) / 200.0;
    const float b3 = b * b * b;
    precise float weight = 10.0 / (1e-5 + a * a + b3 * b3);
    oitWeight = clampStd(weight, 1e-2, 3e3);
  }
  put(at, p.position.x); put(at, p.position.y); put(at, p.position.z);
  put(at, p.velocity.x); put(at, p.velocity.y); put(at, p.velocity.z);
  put(at, p.halfSize.x); put(at, p.halfSize.y);
  put(at, p.orientation.x); put(at, p.orientation.y); put(at, p.orientation.z); put(at, p.orientation.w);
  put(at, p.emitterRotation.x); put(at, p.emitterRotation.y); put(at, p.emitterRotation.z);
  put(at, p.emitterRotation.w);
  put(at, p.color.r); put(at, p.color.g); put(at, p.color.b); put(at, p.color.a);
  put(at, cell.x); put(at, cell.y); put(at, cell.z); put(at, cell.w);
  instances[at++] = rowWord(row, kRowDrawTexture);
  instances[at++] = mode;
  put(at, stretch);
  instances[at++] = (cutout ? 1u : 0u) | ((flags & kRowCullBack) != 0u ? 2u : 0u) |
                    (oit && (flags & kRowAdditive) != 0u ? 8u : 0u) |
                    ((flags & kRowLit) != 0u ? 32u : 0u);  // lit in the vertex stage
  put(at, next.x); put(at, next.y);
  put(at, blend);
  put(at, rowFloat(row, kRowDrawCutoff));
  put(at, rowFloat(row, kRowDrawSoftInverse));
  put(at, viewDepth);
  instances[at++] = kNone;  // no lit corners
  put(at, oitWeight);
}

void main() {
  if (push.entries == 0u) return;
  for (uint i = gl_GlobalInvocationID.x; i < push.entries; i += push.threads) {
    if (push.pass_ == 0u) {
      writeKeys(i);
    } else {
      writeInstance(i);
    }
  }
}
