// SPDX-License-Identifier: MIT
// Camera and Viewport: validation, lookAt, the isometric orientation and the matrices.
#include <mote/render/camera.h>

#include <glm/geometric.hpp>
#include <glm/gtc/matrix_transform.hpp>

#include <cmath>
#include <string>

namespace mote::render {
namespace {

constexpr float kPi = 3.14159265358979f;
// Tolerance of the basis checks: lookAt produces unit vectors to ~1e-7, hand-animated bases drift.
constexpr float kBasisTolerance = 1e-3f;

std::string num(float v) {
  return std::to_string(static_cast<double>(v));
}

bool finite3(glm::vec3 v) {
  return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z);
}

Status checkFinite(glm::vec3 v, const char* field) {
  if (finite3(v)) return {};
  return invalidArgument(std::string(field) + " is not finite");
}

Status checkFinite(float v, const char* field) {
  if (std::isfinite(v)) return {};
  return invalidArgument(std::string(field) + " is not finite");
}

Status checkUnit(glm::vec3 v, const char* field) {
  if (std::fabs(glm::length(v) - 1.0f) <= kBasisTolerance) return {};
  return invalidArgument(std::string(field) + " is not a unit vector (length " +
                         num(glm::length(v)) + ")");
}

}  // namespace

Status Viewport::validate() const {
  if (width == 0) return invalidArgument("Viewport.width must be at least 1 pixel, got 0");
  if (height == 0) return invalidArgument("Viewport.height must be at least 1 pixel, got 0");
  return {};
}

Status Camera::validate() const {
  MOTE_RETURN_IF_ERROR(checkFinite(position, "Camera.position"));
  MOTE_RETURN_IF_ERROR(checkFinite(forward, "Camera.forward"));
  MOTE_RETURN_IF_ERROR(checkFinite(right, "Camera.right"));
  MOTE_RETURN_IF_ERROR(checkFinite(up, "Camera.up"));
  MOTE_RETURN_IF_ERROR(checkFinite(fovYRadians, "Camera.fovYRadians"));
  MOTE_RETURN_IF_ERROR(checkFinite(orthoHalfHeight, "Camera.orthoHalfHeight"));
  MOTE_RETURN_IF_ERROR(checkFinite(aspect, "Camera.aspect"));
  MOTE_RETURN_IF_ERROR(checkFinite(nearZ, "Camera.nearZ"));
  MOTE_RETURN_IF_ERROR(checkFinite(farZ, "Camera.farZ"));
  MOTE_RETURN_IF_ERROR(checkUnit(forward, "Camera.forward"));
  MOTE_RETURN_IF_ERROR(checkUnit(right, "Camera.right"));
  MOTE_RETURN_IF_ERROR(checkUnit(up, "Camera.up"));
  if (std::fabs(glm::dot(forward, right)) > kBasisTolerance ||
      std::fabs(glm::dot(forward, up)) > kBasisTolerance ||
      std::fabs(glm::dot(right, up)) > kBasisTolerance) {
    return invalidArgument("Camera.forward/right/up are not orthogonal");
  }
  if (glm::dot(glm::cross(forward, up), right) <= 0.0f) {
    return invalidArgument("Camera.right must be cross(forward, up) (the basis is left-handed)");
  }
  if (!(aspect > 0.0f)) return invalidArgument("Camera.aspect must be > 0, got " + num(aspect));
  if (projection == Projection::Perspective) {
    if (!(fovYRadians > 0.0f && fovYRadians < kPi)) {
      return invalidArgument("Camera.fovYRadians must be in (0, pi), got " + num(fovYRadians));
    }
    if (!(nearZ > 0.0f)) {
      return invalidArgument("Camera.nearZ must be > 0 for a perspective camera, got " +
                             num(nearZ));
    }
  } else if (!(orthoHalfHeight > 0.0f)) {
    return invalidArgument("Camera.orthoHalfHeight must be > 0, got " + num(orthoHalfHeight));
  }
  if (!(farZ > nearZ)) {
    return invalidArgument("Camera.farZ must be > Camera.nearZ, got nearZ " + num(nearZ) +
                           ", farZ " + num(farZ));
  }
  return {};
}

Result<Camera> Camera::perspective(float fovYRadians, float aspect, float nearZ, float farZ) {
  Camera cam;
  cam.projection = Projection::Perspective;
  cam.fovYRadians = fovYRadians;
  cam.aspect = aspect;
  cam.nearZ = nearZ;
  cam.farZ = farZ;
  MOTE_RETURN_IF_ERROR(cam.validate());
  return cam;
}

Result<Camera> Camera::orthographic(float halfHeight, float aspect, float nearZ, float farZ) {
  Camera cam;
  cam.projection = Projection::Orthographic;
  cam.orthoHalfHeight = halfHeight;
  cam.aspect = aspect;
  cam.nearZ = nearZ;
  cam.farZ = farZ;
  MOTE_RETURN_IF_ERROR(cam.validate());
  return cam;
}

Result<Camera> Camera::isometric(glm::vec3 target, float distance, float halfHeight, float aspect,
                                 float nearZ, float farZ, glm::vec3 worldUp) {
  Result<Camera> made = orthographic(halfHeight, aspect, nearZ, farZ);
  if (!made.ok()) return std::move(made).status();
  if (!std::isfinite(distance) || !(distance > 0.0f)) {
    return invalidArgument("Camera.isometric distance must be finite and > 0, got " +
                           num(distance));
  }
  const bool yUp = worldUp == glm::vec3(0.0f, 1.0f, 0.0f);
  const bool zUp = worldUp == glm::vec3(0.0f, 0.0f, 1.0f);
  if (!yUp && !zUp) return invalidArgument("Camera.isometric worldUp must be +Y or +Z");
  // The eye direction of kIsoYawRadians / kIsoPitchRadians: (cos p sin y, sin p, cos p cos y) with
  // cos p = sqrt(2/3), sin p = 1/sqrt(3), sin y = cos y = 1/sqrt(2) is exactly (1, 1, 1)/sqrt(3).
  const float k = 1.0f / std::sqrt(3.0f);
  const glm::vec3 toEye(k, k, k);
  Camera cam = std::move(made).takeValue();
  MOTE_RETURN_IF_ERROR(cam.lookAt(target + toEye * distance, target, worldUp));
  return cam;
}

Status Camera::lookAt(glm::vec3 eye, glm::vec3 target, glm::vec3 worldUp) {
  MOTE_RETURN_IF_ERROR(checkFinite(eye, "lookAt eye"));
  MOTE_RETURN_IF_ERROR(checkFinite(target, "lookAt target"));
  MOTE_RETURN_IF_ERROR(checkFinite(worldUp, "lookAt worldUp"));
  const glm::vec3 view = target - eye;
  const float viewLength = glm::length(view);
  if (!(viewLength > 0.0f) || !std::isfinite(viewLength)) {
    return invalidArgument("lookAt eye and target must differ (and be within float range)");
  }
  const glm::vec3 fwd = view / viewLength;
  const glm::vec3 side = glm::cross(fwd, worldUp);
  const float sideLength = glm::length(side);
  // sin(angle between view and worldUp) * |worldUp| below 1e-6: the roll is undefined.
  if (!(sideLength > 1e-6f * glm::length(worldUp)) || !(sideLength > 0.0f)) {
    return invalidArgument("lookAt worldUp is zero or parallel to the view direction");
  }
  position = eye;
  forward = fwd;
  right = side / sideLength;
  up = glm::cross(right, forward);
  return {};
}

float Camera::halfHeightExtent() const noexcept {
  return projection == Projection::Perspective ? std::tan(0.5f * fovYRadians) : orthoHalfHeight;
}

float Camera::halfWidthExtent() const noexcept {
  return aspect * halfHeightExtent();
}

glm::mat4 Camera::viewMatrix() const noexcept {
  // Rows right, up, -forward; translation -basis . position (glm matrices are column-major).
  glm::mat4 m(1.0f);
  m[0][0] = right.x;
  m[1][0] = right.y;
  m[2][0] = right.z;
  m[0][1] = up.x;
  m[1][1] = up.y;
  m[2][1] = up.z;
  m[0][2] = -forward.x;
  m[1][2] = -forward.y;
  m[2][2] = -forward.z;
  m[3][0] = -glm::dot(right, position);
  m[3][1] = -glm::dot(up, position);
  m[3][2] = glm::dot(forward, position);
  return m;
}

glm::mat4 Camera::projectionMatrix() const noexcept {
  if (projection == Projection::Perspective) {
    return glm::perspectiveRH_NO(fovYRadians, aspect, nearZ, farZ);
  }
  const float halfW = halfWidthExtent();
  return glm::orthoRH_NO(-halfW, halfW, -orthoHalfHeight, orthoHalfHeight, nearZ, farZ);
}

}  // namespace mote::render
