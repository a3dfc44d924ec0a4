// SPDX-License-Identifier: MIT
// Lit sprites' corner colours in the vertex stage (sprite.vert; a GPU world's pool drawn in place,
// where no host made them): render::litCornerColors (particle_renderer_quads.cpp) and the scene's
// irradiance (render/lighting.cpp) ported to float GLSL, the lights read from the frame's words
// (renderer.cpp's putFrame: their count, the ambient colour, then kLightWords a light: kind (0
// directional, 1 point), vector, colour, radius).

const uint kLightsAt = 49u;
const uint kLightWords = 8u;

float frameFloat(uint k) { return uintBitsToFloat(frame[k]); }
vec3 frameVec3f(uint k) { return vec3(frameFloat(k), frameFloat(k + 1u), frameFloat(k + 2u)); }

// Light `l`'s unit direction toward it from `position` and its strength there (lighting.cpp's
// incoming: a point light fades as (1 − (d / r)²)² to nothing at its radius).
vec4 incoming(uint l, vec3 position) {
  const uint at = kLightsAt + 4u + l * kLightWords;
  const vec3 v = frameVec3f(at + 1u);
  if (frame[at] == 0u) return vec4(normalize(v), 1.0);
  const vec3 to = v - position;
  const float d = length(to);
  const float radius = frameFloat(at + 7u);
  if (!(d > 1e-6) || !(d < radius)) return vec4(0.0);
  const float x = d / radius;
  const float window = 1.0 - x * x;
  return vec4(to / d, window * window);
}

// The direct light on a surface facing `normal` (`behind`: arriving from behind it).
vec3 direct(vec3 position, vec3 normal, bool behind) {
  vec3 sum = vec3(0.0);
  const uint lights = frame[kLightsAt];
  for (uint l = 0u; l < lights; ++l) {
    const vec4 in_ = incoming(l, position);
    const float cosine = dot(normal, in_.xyz) * (behind ? -1.0 : 1.0);
    if (!(cosine > 0.0) || !(in_.w > 0.0)) continue;
    sum += frameVec3f(kLightsAt + 4u + l * kLightWords + 4u) * (cosine * in_.w);
  }
  return sum;
}

// The colour at each corner of a lit sprite of premultiplied colour `premul`: the quad's normal
// turned to the eye, bent out toward the corner, lit, plus the light from behind passed through
// in proportion to 1 − alpha.
void litCorners(vec3 corners[4], vec3 centre, vec3 towardEye, vec3 forward, vec4 premul,
                out vec4 lit[4]) {
  const float kBend = 0.8;
  vec3 n = cross(corners[1] - corners[0], corners[3] - corners[0]);
  const float length_ = length(n);
  n = length_ > 0.0 ? n / length_ : -forward;
  if (dot(n, towardEye) < 0.0) n = -n;
  const float through = 1.0 - clamp(premul.a, 0.0, 1.0);
  const vec3 ambient = frameVec3f(kLightsAt + 1u);
  for (uint k = 0u; k < 4u; ++k) {
    vec3 out3 = corners[k] - centre;
    const float l = length(out3);
    out3 = l > 0.0 ? out3 / l : vec3(0.0);
    const vec3 bent = normalize(n + out3 * kBend);
    const vec3 e = ambient + direct(corners[k], bent, false) + direct(corners[k], bent, true) * through;
    lit[k] = vec4(premul.rgb * e, premul.a);
  }
}
