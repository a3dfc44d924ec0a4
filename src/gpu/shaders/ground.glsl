// SPDX-License-Identifier: MIT
// The software renderer's ground grid on y = 0 (sprite_renderer_raster.cpp's groundLanes, the same
// float operations in the same order; the GPU may fuse or round a few of them differently, so the
// grid agrees to a step, not bit for bit): the view ray through a pixel centre, where it meets the
// ground in front of the eye, that point's view depth and the grid's colour there. ground.frag
// draws it; sprite.frag's soft particles fade against its depth.

struct GroundView {
  vec3 position, forward, right, up;
  bool perspective;
  float halfWidth, halfHeight;  // the camera's half extents
  vec3 background;
  vec2 size;  // the viewport, pixels
};

// std::round: half away from zero.
float roundHalfAway(float x) { return sign(x) * floor(abs(x) + 0.5); }
float unitClamp(float v) { return v < 0.0 ? 0.0 : (1.0 < v ? 1.0 : v); }

// At pixel centre `pixel` (gl_FragCoord.xy: x right, y down from the top row).
bool groundAt(GroundView g, vec2 pixel, out float depth, out vec3 rgb) {
  const float ndcX = pixel.x / g.size.x * 2.0 - 1.0;
  const float ndcY = 1.0 - pixel.y / g.size.y * 2.0;
  const vec3 upTerm = g.up * (ndcY * g.halfHeight);
  const float s = ndcX * g.halfWidth;
  const vec3 side = g.right * s + upTerm;
  const vec3 o = g.perspective ? g.position : g.position + side;
  const vec3 d = g.perspective ? g.forward + side : g.forward;
  const float t = -o.y / d.y;
  depth = t;
  rgb = g.background;
  if (!(d.y < -1e-4) || !(t > 0.0)) return false;
  const float gx = o.x + d.x * t;
  const float gz = o.z + d.z * t;
  const float dist = t * sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
  const float scaled = dist * 0.004;
  const float footprint = 0.02 < scaled ? scaled : 0.02;
  const float cx = unitClamp(1.0 - abs(gx - roundHalfAway(gx)) / footprint);
  const float cz = unitClamp(1.0 - abs(gz - roundHalfAway(gz)) / footprint);
  const float line = cx < cz ? cz : cx;
  const float fade = unitClamp(1.0 - dist / 40.0);
  const float base = 0.02 * fade;
  const float ink = 0.035 * line * fade;
  rgb = vec3(g.background.x + base + ink, g.background.y + base + ink,
             g.background.z + base * 1.2 + ink);
  return true;
}

// The frame's ground view from the renderer's frame words, which the including shader reads with
// frameWord(k) (renderer.cpp's layout: the billboard view's eye, forward, right and up at 0, 3, 6,
// 9, orthographic at 21; the size at 41, 42; the half extents at 43, 44; the background at 45..47).
vec3 frameVec3(uint k) {
  return uintBitsToFloat(uvec3(frameWord(k), frameWord(k + 1u), frameWord(k + 2u)));
}
GroundView groundView() {
  GroundView g;
  g.position = frameVec3(0u);
  g.forward = frameVec3(3u);
  g.right = frameVec3(6u);
  g.up = frameVec3(9u);
  g.perspective = frameWord(21u) == 0u;
  g.size = uintBitsToFloat(uvec2(frameWord(41u), frameWord(42u)));
  g.halfWidth = uintBitsToFloat(frameWord(43u));
  g.halfHeight = uintBitsToFloat(frameWord(44u));
  g.background = frameVec3(45u);
  return g;
}
