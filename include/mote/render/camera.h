// SPDX-License-Identifier: MIT
// Camera and Viewport: perspective, orthographic and isometric 2.5D views, their matrices and
// basis.
#pragma once

#include <mote/core/status.h>

#include <glm/mat4x4.hpp>
#include <glm/vec3.hpp>

#include <cstdint>

namespace mote::render {

/// The render target in pixels. Both sides must be at least 1 (Viewport::validate).
struct Viewport {
  std::uint32_t width = 0;
  std::uint32_t height = 0;

  /// InvalidArgument naming "Viewport.width" / "Viewport.height" when a side is zero.
  Status validate() const;
  /// width / height, the aspect a camera needs for square pixels. Requires a valid viewport.
  float aspect() const noexcept { return static_cast<float>(width) / static_cast<float>(height); }
};

enum class Projection : std::uint8_t {
  Perspective,   ///< pinhole: size falls off as 1 / depth
  Orthographic,  ///< parallel rays: size independent of depth (isometric cameras too)
};

/// A camera as a plain value: a pose (position plus an orthonormal, right-handed basis) and a
/// projection.
///
/// Conventions (fixed for all of Mote's render layer):
///   - World and view space are right-handed. The view matrix maps `right` to +X, `up` to +Y and
///     `forward` to -Z: the camera looks down -Z in view space (OpenGL / glm convention), so
///     right = cross(forward, up).
///   - The projection matrices map the visible depth range to NDC z in [-1, 1]: a point on the
///     near plane goes to -1, one on the far plane to +1 (glm's `_NO` variants; a Vulkan backend
///     remaps). Clip w equals eyeZ = dot(p - position, forward) for perspective cameras.
///   - nearZ / farZ are distances along `forward` from `position`, in world units (metres).
///
/// Build one with the named constructors (they validate), then place it with lookAt(). Fields are
/// public so a game may animate them; validate() checks any hand-edited value.
/// Thread safety: a value type; distinct objects on distinct threads, const access shared freely.
/// Allocates: never, except the message of an error Status.
struct Camera {
  Projection projection = Projection::Perspective;

  glm::vec3 position{0.0f, 0.0f, 0.0f};
  glm::vec3 forward{0.0f, 0.0f, -1.0f};  ///< unit; the view direction
  glm::vec3 right{1.0f, 0.0f, 0.0f};     ///< unit; cross(forward, up)
  glm::vec3 up{0.0f, 1.0f, 0.0f};        ///< unit; cross(right, forward)

  /// Perspective only: full vertical field of view, radians, in (0, pi).
  float fovYRadians = 1.0471975512f;  // 60 degrees
  /// Orthographic only: half the visible height in world units, > 0.
  float orthoHalfHeight = 1.0f;
  /// Visible width / visible height, > 0. Keep it equal to Viewport::aspect() for square pixels.
  float aspect = 1.0f;
  /// Perspective: 0 < nearZ < farZ. Orthographic: nearZ < farZ (nearZ may be <= 0).
  float nearZ = 0.1f;
  float farZ = 1000.0f;

  /// The isometric orientation chosen for Mote: "true isometric" — the view direction is the cube
  /// diagonal -(1, 1, 1)/sqrt(3): yaw 45 degrees between the two ground axes and a downward pitch
  /// of atan(1/sqrt(2)) = asin(1/sqrt(3)) ~ 35.2644 degrees. All three world axes are foreshortened
  /// by the same factor sqrt(2/3) and drawn 120 degrees apart, so a unit step along x, y or height
  /// reads the same on screen; that symmetry is what laige's iso depth key (x + y against height,
  /// equal weights) assumes. The 2:1 "pixel-art" dimetric (pitch 30 degrees) only buys integer
  /// pixel slopes, which a float renderer does not need.
  static constexpr float kIsoYawRadians = 0.785398163397f;    // pi / 4
  static constexpr float kIsoPitchRadians = 0.615479708670f;  // atan(1 / sqrt(2))

  /// A perspective camera at the origin looking down -Z (world +Y up). Validates the parameters.
  static Result<Camera> perspective(float fovYRadians, float aspect, float nearZ, float farZ);
  /// An orthographic camera at the origin looking down -Z. Validates the parameters.
  static Result<Camera> orthographic(float halfHeight, float aspect, float nearZ, float farZ);
  /// An orthographic camera with the isometric orientation above (kIsoYawRadians,
  /// kIsoPitchRadians): the eye sits at target + distance * (1, 1, 1)/sqrt(3) and looks at
  /// `target`. `worldUp` is the world's vertical axis, +Y or +Z (for +Z the ground is the x/y
  /// plane, as in laige); the diagonal is symmetric, so the angles are the same for both.
  /// InvalidArgument when any value is invalid or worldUp is not +Y/+Z.
  static Result<Camera> isometric(glm::vec3 target, float distance, float halfHeight, float aspect,
                                  float nearZ, float farZ,
                                  glm::vec3 worldUp = glm::vec3(0.0f, 1.0f, 0.0f));

  /// Places the camera at `eye` looking at `target`; `worldUp` picks the roll (up is the component
  /// of worldUp orthogonal to the view direction). InvalidArgument, leaving the camera unchanged,
  /// when a value is non-finite, eye == target, or worldUp is zero or parallel to the view.
  Status lookAt(glm::vec3 eye, glm::vec3 target, glm::vec3 worldUp);

  /// Ok, or InvalidArgument with a message naming the first bad field ("Camera.fovYRadians ...").
  /// Checks: every value finite; forward/right/up unit length, orthogonal and right-handed (1e-3
  /// tolerance); aspect > 0; perspective: fovYRadians in (0, pi), 0 < nearZ < farZ; orthographic:
  /// orthoHalfHeight > 0, nearZ < farZ. Complexity: O(1).
  Status validate() const;

  /// World-to-view matrix (see the conventions above). Requires a valid camera. O(1).
  glm::mat4 viewMatrix() const noexcept;
  /// View-to-clip matrix, NDC z in [-1, 1]. Requires a valid camera. O(1).
  glm::mat4 projectionMatrix() const noexcept;
  /// Half the visible width / height at depth 1 (perspective: aspect * tan(fovY/2), tan(fovY/2)) or
  /// everywhere (orthographic: aspect * orthoHalfHeight, orthoHalfHeight). Uses trig; O(1).
  float halfWidthExtent() const noexcept;
  float halfHeightExtent() const noexcept;
};

}  // namespace mote::render
