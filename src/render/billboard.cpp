// SPDX-License-Identifier: MIT
// The billboard basis: frames of the nine projection modes, Stretched's screen-velocity stretch,
// the per-particle quaternion and the bounds radius (meep "Orientation").
#include <mote/core/assert.h>
#include <mote/render/billboard.h>

#include <glm/geometric.hpp>
#include <glm/gtc/quaternion.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace mote::render {
namespace {

float maxAbs(glm::vec3 v) noexcept {
  return std::max(std::max(std::fabs(v.x), std::fabs(v.y)), std::fabs(v.z));
}

// normalize() that cannot overflow, underflow or divide by zero: the vector is first scaled by
// its largest component, so the squared length lies in [1, 3]. False (and `out` untouched) when
// the largest component is below `minLength`, or the vector is not finite.
bool normalizeScaled(glm::vec3 v, float minLength, glm::vec3& out, float* length = nullptr) {
  // std::max drops a NaN operand, so finiteness is tested first.
  if (!std::isfinite(v.x) || !std::isfinite(v.y) || !std::isfinite(v.z)) return false;
  const float m = maxAbs(v);
  if (!(m > minLength)) return false;
  const glm::vec3 w = v / m;
  const float wLength = std::sqrt(glm::dot(w, w));
  out = w / wLength;
  if (length != nullptr) *length = m * wLength;
  return true;
}

glm::mat3 billboardAxes(const BillboardView& view) noexcept {
  return glm::mat3(view.right, view.up, -view.forward);
}

// E: the unit direction from the particle toward the viewer.
glm::vec3 towardViewer(const BillboardView& view, glm::vec3 position) noexcept {
  glm::vec3 e = -view.forward;
  if (!view.orthographic) {
    glm::vec3 toEye;
    if (normalizeScaled(view.eye - position, 0.0f, toEye)) e = toEye;
  }
  return e;
}

// Axis-locked frame (cross(A, N), A, N), N = normalize(E - (E·A)A); Billboard's frame when the
// axis is too short or within kBillboardParallelSine of E.
glm::mat3 axisLockedFrame(const BillboardView& view, glm::vec3 axis, glm::vec3 position) noexcept {
  glm::vec3 a;
  if (!normalizeScaled(axis, kBillboardMinLength, a)) return billboardAxes(view);
  const glm::vec3 e = towardViewer(view, position);
  const glm::vec3 across = e - glm::dot(e, a) * a;
  // |across| = sin(angle(E, A)) for unit E and A.
  if (!(glm::dot(across, across) > kBillboardParallelSine * kBillboardParallelSine)) {
    return billboardAxes(view);
  }
  const glm::vec3 n = glm::normalize(across);
  return glm::mat3(glm::cross(a, n), a, n);
}

// Stretched's screen velocity: its world direction S (in the view plane) and the stretch.
struct ScreenMotion {
  bool moving = false;
  glm::vec3 direction{0.0f, 0.0f, 0.0f};
  float stretch = 1.0f;
};

ScreenMotion screenMotion(const BillboardView& view, const BillboardInput& input) noexcept {
  ScreenMotion motion;
  glm::vec3 vUnit;
  float speed = 0.0f;
  if (!normalizeScaled(input.velocity, 0.0f, vUnit, &speed)) return motion;
  const float vx = glm::dot(vUnit, view.right);
  const float vy = glm::dot(vUnit, view.up);
  // Screen velocity per unit speed, in viewport heights per second (before the unit factors).
  float sx = vx;
  float sy = vy;
  float heightsPerSecondPerUnit = view.heightsPerUnit;
  if (!view.orthographic) {
    // Projected position (x/z, y/z) in view-plane units at depth 1; with d = p - eye its
    // derivative is ((vx z - x vz), (vy z - y vz)) / z^2. Computed on unit d and v so the
    // line-of-sight test below is scale-free.
    glm::vec3 dUnit;
    float distance = 0.0f;
    if (!normalizeScaled(input.position - view.eye, 0.0f, dUnit, &distance)) return motion;
    const float x = glm::dot(dUnit, view.right);
    const float y = glm::dot(dUnit, view.up);
    const float z = glm::dot(dUnit, view.forward);
    if (!(z > 0.0f)) return motion;  // not in front of the eye: no projection to differentiate
    const float vz = glm::dot(vUnit, view.forward);
    sx = vx * z - x * vz;
    sy = vy * z - y * vz;
    heightsPerSecondPerUnit = view.heightsPerUnit / (distance * z * z);
  }
  // |(sx, sy)| is the sine of the angle between v and the line of sight (times z for
  // perspective, which only shrinks it off-axis); below the threshold the direction is noise.
  const float planar = std::sqrt(sx * sx + sy * sy);
  if (!(planar > kBillboardParallelSine)) return motion;
  motion.moving = true;
  motion.direction = glm::normalize((sx / planar) * view.right + (sy / planar) * view.up);
  const float screenSpeed = planar * speed * heightsPerSecondPerUnit;  // heights per second
  const float extra =
      view.stretchScaleSeconds > 0.0f ? screenSpeed * view.stretchScaleSeconds : 0.0f;
  // Also catches an overflow to infinity.
  motion.stretch = extra < kBillboardMaxStretch - 1.0f ? 1.0f + extra : kBillboardMaxStretch;
  return motion;
}

// The frame and, for Stretched, the stretch from one screen-velocity evaluation.
glm::mat3 frameAndStretch(const BillboardView& view, BillboardMode mode,
                          const BillboardInput& input, float& stretch) noexcept {
  stretch = 1.0f;
  switch (mode) {
    case BillboardMode::Billboard:
      return billboardAxes(view);
    case BillboardMode::Stretched: {
      const ScreenMotion motion = screenMotion(view, input);
      if (!motion.moving) return billboardAxes(view);
      stretch = motion.stretch;
      const glm::vec3 n = -view.forward;
      return glm::mat3(glm::cross(motion.direction, n), motion.direction, n);
    }
    case BillboardMode::Vertical:
      return axisLockedFrame(view, glm::vec3(0.0f, 1.0f, 0.0f), input.position);
    case BillboardMode::Horizontal:
      return glm::mat3(glm::vec3(1.0f, 0.0f, 0.0f), glm::vec3(0.0f, 0.0f, -1.0f),
                       glm::vec3(0.0f, 1.0f, 0.0f));
    case BillboardMode::FacingWorld:
      return glm::mat3(1.0f);
    case BillboardMode::BillboardLocalZ:
      return glm::mat3_cast(normalizedOrientation(input.emitterRotation));
    case BillboardMode::BillboardWorldZ:
      return glm::mat3(view.groundRight, view.groundUp, view.worldUp);
    case BillboardMode::AlignedWorldZ:
      return axisLockedFrame(view, view.worldUp, input.position);
    case BillboardMode::VelocityAligned:
      return axisLockedFrame(view, input.velocity, input.position);
  }
  MOTE_ASSERT(false, "unknown BillboardMode");
  return billboardAxes(view);
}

}  // namespace

BillboardView BillboardView::fromCamera(const Camera& camera, glm::vec3 worldUp,
                                        float stretchScaleSeconds) {
  MOTE_ASSERT(camera.validate().ok(), "BillboardView::fromCamera needs a valid camera");
  MOTE_ASSERT(stretchScaleSeconds >= 0.0f, "stretchScaleSeconds must be >= 0");
  BillboardView view;
  view.eye = camera.position;
  view.forward = camera.forward;
  view.right = camera.right;
  view.up = camera.up;
  view.orthographic = camera.projection == Projection::Orthographic;
  view.heightsPerUnit = 0.5f / camera.halfHeightExtent();
  view.stretchScaleSeconds = std::max(stretchScaleSeconds, 0.0f);

  glm::vec3 w(0.0f, 1.0f, 0.0f);
  const bool upOk = normalizeScaled(worldUp, 0.0f, w);
  MOTE_ASSERT(upOk, "BillboardView::fromCamera: worldUp must be non-zero and finite");
  view.worldUp = w;
  if (w.x * w.x < 0.5f) {
    view.groundRight = glm::normalize(glm::vec3(1.0f, 0.0f, 0.0f) - w.x * w);
    view.groundUp = glm::cross(w, view.groundRight);
  } else {
    view.groundUp = glm::normalize(glm::vec3(0.0f, 0.0f, -1.0f) + w.z * w);
    view.groundRight = glm::cross(view.groundUp, w);
  }
  return view;
}

glm::quat normalizedOrientation(glm::quat q) noexcept {
  // std::max drops a NaN operand, so finiteness is tested first.
  const bool isFinite =
      std::isfinite(q.x) && std::isfinite(q.y) && std::isfinite(q.z) && std::isfinite(q.w);
  const float m =
      std::max(std::max(std::fabs(q.x), std::fabs(q.y)), std::max(std::fabs(q.z), std::fabs(q.w)));
  if (!isFinite || !(m > 0.0f)) return glm::quat(1.0f, 0.0f, 0.0f, 0.0f);
  const glm::quat scaled(q.w / m, q.x / m, q.y / m, q.z / m);
  const float length = std::sqrt(glm::dot(scaled, scaled));
  return glm::quat(scaled.w / length, scaled.x / length, scaled.y / length, scaled.z / length);
}

glm::mat3 billboardFrame(const BillboardView& view, BillboardMode mode,
                         const BillboardInput& input) noexcept {
  float stretch = 1.0f;
  return frameAndStretch(view, mode, input, stretch);
}

bool billboardFrameIsUniform(BillboardMode mode) noexcept {
  switch (mode) {
    case BillboardMode::Billboard:
    case BillboardMode::Horizontal:
    case BillboardMode::FacingWorld:
    case BillboardMode::BillboardLocalZ:
    case BillboardMode::BillboardWorldZ:
      return true;
    case BillboardMode::Stretched:
    case BillboardMode::Vertical:
    case BillboardMode::AlignedWorldZ:
    case BillboardMode::VelocityAligned:
      return false;
  }
  return false;
}

float particleStretch(const BillboardView& view, BillboardMode mode,
                      const BillboardInput& input) noexcept {
  return mode == BillboardMode::Stretched ? screenMotion(view, input).stretch : 1.0f;
}

glm::mat3 particleBasis(const BillboardView& view, BillboardMode mode,
                        const BillboardInput& input) noexcept {
  float stretch = 1.0f;
  const glm::mat3 turned = frameAndStretch(view, mode, input, stretch) *
                           glm::mat3_cast(normalizedOrientation(input.orientation));
  return glm::mat3(turned[0] * input.halfSize.x, turned[1] * (input.halfSize.y * stretch),
                   turned[2]);
}

std::array<glm::vec3, 4> billboardCorners(const BillboardView& view, BillboardMode mode,
                                          const BillboardInput& input) noexcept {
  const glm::mat3 basis = particleBasis(view, mode, input);
  std::array<glm::vec3, 4> corners;
  for (std::size_t i = 0; i < corners.size(); ++i) {
    const glm::vec2 sign = kBillboardCornerSigns[i];
    corners[i] = input.position + (basis[0] * sign.x + basis[1] * sign.y);
  }
  return corners;
}

float particleBillboardRadius(glm::vec2 halfSize, float stretch) noexcept {
  constexpr float kSqrt2 = 1.41421356237f;
  const float extent = std::max(std::fabs(halfSize.x), std::fabs(halfSize.y));
  return kSqrt2 * extent * std::max(stretch, 1.0f) * kBillboardRadiusSlack;
}

}  // namespace mote::render
