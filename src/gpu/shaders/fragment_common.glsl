// SPDX-License-Identifier: MIT
// What the GPU renderer's fragment stages share (sprite_fragment.glsl, triangle.frag), as the
// software rasterizer's raster_kernel.h shades a fragment: the texture table and texels, bilinear
// sampling clamped to the edge texels (texel centres at (u·width − 0.5, v·height − 0.5),
// premultiplied linear texels), cutout's alpha test and opaque colour, and weighted blended OIT's
// accumulation (blendOit).

// Per texture: its first texel in `texels`, width, height, unused.
layout(std430, binding = 2) readonly buffer Textures { uvec4 textures[]; };
layout(std430, binding = 3) readonly buffer Texels { vec4 texels[]; };

vec4 texel(uvec4 t, int x, int y) {
  const int cx = clamp(x, 0, int(t.y) - 1);
  const int cy = clamp(y, 0, int(t.z) - 1);
  return texels[t.x + uint(cy) * t.y + uint(cx)];
}

vec4 bilinear(uvec4 t, float u, float v) {
  const float x = clamp(u * float(t.y) - 0.5, -1.0, float(t.y));
  const float y = clamp(v * float(t.z) - 0.5, -1.0, float(t.z));
  const float fx = floor(x);
  const float fy = floor(y);
  const int ix = int(fx);
  const int iy = int(fy);
  const float ax = x - fx;
  const float ay = y - fy;
  const vec4 top = mix(texel(t, ix, iy), texel(t, ix + 1, iy), ax);
  const vec4 bottom = mix(texel(t, ix, iy + 1), texel(t, ix + 1, iy + 1), ax);
  return mix(top, bottom, ay);
}

// Cutout: a fragment whose texel alpha times the colour's alpha is below the cutoff (or whose
// texel is empty) is cut; a kept one is the texel's straight colour times the colour's, opaque.
bool cutAway(vec4 tex, vec4 color, float cutoff) {
  return tex.a * color.a < cutoff || tex.a <= 0.0;
}
vec4 cutoutColor(vec4 tex, vec4 color) {
  const float alpha = max(color.a, 1e-6);
  return vec4(tex.rgb / tex.a * color.rgb / alpha, 1.0);
}

// A fragment of premultiplied colour `src` (coverage applied) in an OIT frame: with a depth weight
// above 0 it accumulates, as raster_kernel.h's blendOit — additive ones into the side plane's rgb,
// others into the sums (src · a · weight) and the revealage (times 1 − a, by the pipeline's blend);
// with weight 0 it blends into the frame. The planes it leaves alone get zeros, which their blend
// equations keep as they are.
void writeOit(vec4 src, float weight, bool additive, out vec4 color, out vec4 sums, out vec4 side) {
  color = vec4(0.0);
  sums = vec4(0.0);
  side = vec4(0.0);
  if (!(weight > 0.0)) {
    color = src;
  } else if (additive) {
    side = vec4(src.rgb, 0.0);
  } else {
    sums = src * (src.a * weight);
    side = vec4(0.0, 0.0, 0.0, src.a);
  }
}
