// SPDX-License-Identifier: MIT
// The GPU renderer's vertex stage (src/gpu/renderer.cpp): one instance a particle, six vertices
// (its quad's two triangles, corners 0 1 2 and 0 2 3 in billboard order), each expanded with
// billboard.glsl's basis and projected with the camera's view-projection as glm computes it —
// in exact mode the corners and their clip coordinates are the software renderer's bits. A quad
// with a corner at or behind kHalf the near distance, a non-finite corner or no area is dropped
// whole, as the software renderer drops it.
#version 460
#include "billboard.glsl"

// The view (billboard_cases.comp's 24 words), the view-projection (16 words, column-major), the
// near limit (clip w a corner must exceed), the viewport's width and height.
layout(std430, binding = 0) readonly buffer FrameWords { uint frame[]; };
// Per instance 36 words: position, velocity, half size, orientation (x, y, z, w), emitter
// rotation (16); colour (premultiplied linear; alpha 0 for additive), cell (u, v origin and size),
// texture, mode, Stretched's stretch seconds, flags (1: cutout, 2: one-sided, 4: a ribbon segment,
// its world corners in the first 12 words, textured affinely; 8: additive under OIT; 16: hidden
// behind mesh triangles; 32: a lit sprite whose corner colours this stage makes) (at 16); the next flipbook cell's origin, its weight, the cutoff, the soft
// inverse distance, the view depth, the lit corner colours' index (~0: none), the OIT depth weight
// (0: blended) (at 28).
layout(std430, binding = 1) readonly buffer InstanceWords { uint instances[]; };

layout(location = 0) out vec2 outQuad;  // (s, t): (0, 0) at corner 0 to (1, 1) at corner 2
layout(location = 1) flat out vec4 outColor;
layout(location = 2) flat out vec4 outCell;
layout(location = 3) flat out uint outTexture;
layout(location = 4) flat out vec4 outNext;   // the next cell's origin, its weight, the cutoff
layout(location = 5) flat out uvec4 outStyle;  // flags, soft inverse, view depth, corners
// The coverage (1, or a sub-pixel quad's area) and the OIT depth weight (0: blended).
layout(location = 6) flat out vec2 outWeights;
layout(location = 7) noperspective out vec2 outAffine;  // (s, t) screen-linearly: ribbons'
// A lit sprite lit here (flag 32): its corners' colours (billboard order).
layout(location = 8) flat out vec4 outLit[4];

#include "sprite_lighting.glsl"

const uint kInstanceWords = 36u;
const uint kCornerOf[6] = uint[6](0u, 1u, 2u, 0u, 2u, 3u);

uvec3 frameVec(uint k) { return uvec3(frame[3u * k], frame[3u * k + 1u], frame[3u * k + 2u]); }
uvec4 column(uint k) {
  const uint at = 24u + 4u * k;
  return uvec4(frame[at], frame[at + 1u], frame[at + 2u], frame[at + 3u]);
}
uvec4 vScale(uvec4 v, uint s) { return uvec4(xMul(v.x, s), xMul(v.y, s), xMul(v.z, s), xMul(v.w, s)); }
uvec4 vAdd(uvec4 a, uvec4 b) {
  return uvec4(xAdd(a.x, b.x), xAdd(a.y, b.y), xAdd(a.z, b.z), xAdd(a.w, b.w));
}
// glm's viewProjection * vec4(p, 1): (m0·x + m1·y) + (m2·z + m3·1).
uvec4 clipOf(uvec3 p) {
  return vAdd(vAdd(vScale(column(0u), p.x), vScale(column(1u), p.y)),
              vAdd(vScale(column(2u), p.z), vScale(column(3u), kOne)));
}
uint word(uint at) { return instances[at]; }

void main() {
  BillboardView view;
  view.eye = frameVec(0u);
  view.forward = frameVec(1u);
  view.right = frameVec(2u);
  view.up = frameVec(3u);
  view.worldUp = frameVec(4u);
  view.groundRight = frameVec(5u);
  view.groundUp = frameVec(6u);
  view.orthographic = frame[21] != 0u;
  view.heightsPerUnit = frame[22];
  const uint at = uint(gl_InstanceIndex) * kInstanceWords;
  view.stretchScaleSeconds = word(at + 26u);  // the particle's own (frame[23] is unused)
  const uint minW = frame[40];
  BillboardInput p;
  p.position = uvec3(word(at), word(at + 1u), word(at + 2u));
  p.velocity = uvec3(word(at + 3u), word(at + 4u), word(at + 5u));
  p.halfSize = uvec2(word(at + 6u), word(at + 7u));
  p.orientation = uvec4(word(at + 8u), word(at + 9u), word(at + 10u), word(at + 11u));
  p.emitterRotation = uvec4(word(at + 12u), word(at + 13u), word(at + 14u), word(at + 15u));
  const uint mode = word(at + 25u);
  const uint flags = word(at + 27u);
  const bool ribbon = (flags & 4u) != 0u;
  const Mat3 basis = particleBasis(view, ribbon ? 0u : mode, p);
  const uint corner = kCornerOf[gl_VertexIndex];
  bool drawn = ribbon || (xLt(kZero, p.halfSize.x) && xLt(kZero, p.halfSize.y));
  const uint kHalf = 0x3f000000u;  // 0.5
  const uint width = frame[41];
  const uint height = frame[42];
  uvec4 clip = uvec4(0u);
  uvec4 sx, sy;  // the corners on the screen, as facing_quads.cpp's projectCorner puts them
  vec3 corners[4];
  for (uint c = 0u; c < 4u; ++c) {
    const uvec3 world = ribbon ? uvec3(word(at + 3u * c), word(at + 3u * c + 1u), word(at + 3u * c + 2u))
                               : billboardCorner(basis, p.position, c);
    corners[c] = uintBitsToFloat(world);
    const uvec4 k = clipOf(world);
    drawn = drawn && xLt(minW, k.w) && bFinite(k.x) && bFinite(k.y);
    if (c == corner) clip = k;
    sx[c] = xMul(xAdd(xMul(xDiv(k.x, k.w), kHalf), kHalf), width);
    sy[c] = xMul(xSub(kHalf, xMul(xDiv(k.y, k.w), kHalf)), height);
  }
  // A one-sided card with its back to the eye (corners 0, 1, 2 counter-clockwise on the y-down
  // screen: a positive doubled area, as the software renderer tests it).
  if ((flags & 2u) != 0u &&
      xLt(kZero, xSub(xMul(xSub(sx.y, sx.x), xSub(sy.z, sy.x)), xMul(xSub(sx.z, sx.x), xSub(sy.y, sy.x)))))
    drawn = false;
  const uint minX = xMin(xMin(sx.x, sx.y), xMin(sx.z, sx.w));
  const uint maxX = xMax(xMax(sx.x, sx.y), xMax(sx.z, sx.w));
  const uint minY = xMin(xMin(sy.x, sy.y), xMin(sy.z, sy.w));
  const uint maxY = xMax(xMax(sy.x, sy.y), xMax(sy.z, sy.w));
  vec4 color = uintBitsToFloat(uvec4(word(at + 16u), word(at + 17u), word(at + 18u), word(at + 19u)));
  vec4 next = uintBitsToFloat(uvec4(word(at + 28u), word(at + 29u), word(at + 30u), word(at + 31u)));
  float weight = 1.0;  // a sub-pixel quad's coverage: its area
  const float s = (corner == 1u || corner == 2u) ? 1.0 : 0.0;
  const float t = corner >= 2u ? 1.0 : 0.0;
  outQuad = vec2(s, t);
  outAffine = vec2(s, t);
  const vec4 f = uintBitsToFloat(clip);
  // Mote's NDC has y up and z in [−1, 1] (glm's); Vulkan's y runs down, and z is put mid-range
  // (no depth test here).
  gl_Position = drawn ? vec4(f.x, -f.y, 0.5 * f.w, f.w) : vec4(2.0, 2.0, 0.5, 1.0);
  if (drawn && xLt(xSub(maxX, minX), kOne) && xLt(xSub(maxY, minY), kOne)) {
    // Under a pixel, as the software rasterizer draws it: the pixel holding the bounds' centre,
    // sampled at the cell's centre, its colour weighted by the quad's area (at most 1).
    const float cx = uintBitsToFloat(xMul(xAdd(minX, maxX), kHalf));
    const float cy = uintBitsToFloat(xMul(xAdd(minY, maxY), kHalf));
    const float area = uintBitsToFloat(xMul(
        kHalf, xAbs(xSub(xMul(xSub(sx.z, sx.x), xSub(sy.w, sy.y)),
                        xMul(xSub(sx.w, sx.y), xSub(sy.z, sy.x))))));
    const vec2 size = vec2(uintBitsToFloat(width), uintBitsToFloat(height));
    const vec2 pixel = floor(vec2(cx, cy)) + vec2(s, t);
    gl_Position = vec4(pixel / size * 2.0 - 1.0, 0.5, 1.0);
    outQuad = vec2(0.5);
    outAffine = vec2(0.5);
    next.z = 0.0;  // the software renderer samples the cell's centre of the first frame alone
    weight = min(area, 1.0);
  }
  outLit = vec4[4](vec4(0.0), vec4(0.0), vec4(0.0), vec4(0.0));
  if ((flags & 32u) != 0u && drawn) {
    const vec3 centre = uintBitsToFloat(p.position);
    const vec3 eye = uintBitsToFloat(view.eye);
    const vec3 forward = uintBitsToFloat(view.forward);
    litCorners(corners, centre, view.orthographic ? -forward : eye - centre, forward, color, outLit);
  }
  outColor = color;
  outCell = uintBitsToFloat(uvec4(word(at + 20u), word(at + 21u), word(at + 22u), word(at + 23u)));
  outTexture = word(at + 24u);
  outNext = next;
  outWeights = vec2(weight, uintBitsToFloat(word(at + 35u)));
  outStyle = uvec4(flags, word(at + 32u), word(at + 33u), word(at + 34u));
}
