// SPDX-License-Identifier: MIT
// Tests of Camera and Viewport: hand-computed matrix goldens, the isometric angles and validation.
#include <mote/core/prng.h>
#include <mote/render/camera.h>

#include <glm/geometric.hpp>
#include <glm/gtc/matrix_transform.hpp>
#include <glm/mat4x4.hpp>
#include <glm/vec4.hpp>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

namespace mote::render {
namespace {

constexpr float kPi = 3.14159265358979f;

Camera makePerspective(float fovY, float aspect, float nearZ, float farZ) {
  Result<Camera> made = Camera::perspective(fovY, aspect, nearZ, farZ);
  EXPECT_TRUE(made.ok()) << made.status().toString();
  return made.ok() ? std::move(made).takeValue() : Camera{};
}

Camera makeOrthographic(float halfHeight, float aspect, float nearZ, float farZ) {
  Result<Camera> made = Camera::orthographic(halfHeight, aspect, nearZ, farZ);
  EXPECT_TRUE(made.ok()) << made.status().toString();
  return made.ok() ? std::move(made).takeValue() : Camera{};
}

glm::vec3 ndc(const Camera& cam, glm::vec3 world) {
  const glm::vec4 clip = cam.projectionMatrix() * cam.viewMatrix() * glm::vec4(world, 1.0f);
  return glm::vec3(clip) / clip.w;
}

void expectVec3Near(glm::vec3 actual, glm::vec3 expected, float tolerance) {
  EXPECT_NEAR(actual.x, expected.x, tolerance);
  EXPECT_NEAR(actual.y, expected.y, tolerance);
  EXPECT_NEAR(actual.z, expected.z, tolerance);
}

// The error is InvalidArgument and its message names `field`.
void expectInvalid(const Status& status, const std::string& field) {
  EXPECT_EQ(status.code(), StatusCode::InvalidArgument) << status.toString();
  EXPECT_NE(status.message().find(field), std::string::npos)
      << "message '" << status.message() << "' does not name " << field;
}

TEST(CameraTest, ViewMatrixMapsTargetToMinusDistanceOnZ) {
  Camera cam = makePerspective(kPi / 2.0f, 1.0f, 1.0f, 100.0f);
  ASSERT_TRUE(cam.lookAt({0.0f, 0.0f, 5.0f}, {0.0f, 0.0f, 0.0f}, {0.0f, 1.0f, 0.0f}).ok());
  const glm::vec4 origin = cam.viewMatrix() * glm::vec4(0.0f, 0.0f, 0.0f, 1.0f);
  EXPECT_FLOAT_EQ(origin.x, 0.0f);
  EXPECT_FLOAT_EQ(origin.y, 0.0f);
  EXPECT_FLOAT_EQ(origin.z, -5.0f);
  EXPECT_FLOAT_EQ(origin.w, 1.0f);
  // World +X is screen right, +Y screen up for this camera.
  const glm::vec4 px = cam.viewMatrix() * glm::vec4(1.0f, 2.0f, 0.0f, 1.0f);
  EXPECT_FLOAT_EQ(px.x, 1.0f);
  EXPECT_FLOAT_EQ(px.y, 2.0f);
  expectVec3Near(cam.forward, {0.0f, 0.0f, -1.0f}, 0.0f);
  expectVec3Near(cam.right, {1.0f, 0.0f, 0.0f}, 0.0f);
  expectVec3Near(cam.up, {0.0f, 1.0f, 0.0f}, 0.0f);
}

TEST(CameraTest, PerspectiveNearPlaneIsNdcMinusOneAndFarPlaneIsPlusOne) {
  Camera cam = makePerspective(kPi / 2.0f, 1.0f, 1.0f, 100.0f);
  ASSERT_TRUE(cam.lookAt({0.0f, 0.0f, 5.0f}, {0.0f, 0.0f, 0.0f}, {0.0f, 1.0f, 0.0f}).ok());
  EXPECT_NEAR(ndc(cam, {0.0f, 0.0f, 4.0f}).z, -1.0f, 1e-6f);
  EXPECT_NEAR(ndc(cam, {0.0f, 0.0f, -95.0f}).z, 1.0f, 1e-5f);
  // 90 degrees vertical, aspect 1: at depth 2 the frustum's corner is (2, 2).
  const glm::vec3 corner = ndc(cam, {2.0f, 2.0f, 3.0f});
  EXPECT_NEAR(corner.x, 1.0f, 1e-6f);
  EXPECT_NEAR(corner.y, 1.0f, 1e-6f);
  // Clip w is the eye depth.
  const glm::vec4 clip =
      cam.projectionMatrix() * cam.viewMatrix() * glm::vec4(0.5f, -0.25f, -3.0f, 1.0f);
  EXPECT_FLOAT_EQ(clip.w, 8.0f);
}

TEST(CameraTest, OrthographicMapsExtentsToNdcCube) {
  Camera cam = makeOrthographic(4.0f, 2.0f, -10.0f, 30.0f);
  // At the origin looking down -Z: depth = -z.
  const glm::vec3 a = ndc(cam, {8.0f, 4.0f, 10.0f});  // depth -10: the near plane
  EXPECT_NEAR(a.x, 1.0f, 1e-6f);
  EXPECT_NEAR(a.y, 1.0f, 1e-6f);
  EXPECT_NEAR(a.z, -1.0f, 1e-6f);
  const glm::vec3 b = ndc(cam, {-8.0f, -4.0f, -30.0f});  // depth 30: the far plane
  EXPECT_NEAR(b.x, -1.0f, 1e-6f);
  EXPECT_NEAR(b.y, -1.0f, 1e-6f);
  EXPECT_NEAR(b.z, 1.0f, 1e-6f);
  EXPECT_FLOAT_EQ(cam.halfWidthExtent(), 8.0f);
  EXPECT_FLOAT_EQ(cam.halfHeightExtent(), 4.0f);
}

TEST(CameraTest, ViewMatrixAgreesWithGlmLookAt) {
  Prng prng(7);
  const auto uniform = [&prng](float lo, float hi) {
    return lo + (hi - lo) * static_cast<float>(prng.nextTap24()) * (1.0f / 16777216.0f);
  };
  int checked = 0;
  for (int i = 0; i < 200; ++i) {
    const glm::vec3 eye(uniform(-50, 50), uniform(-50, 50), uniform(-50, 50));
    const glm::vec3 target(uniform(-50, 50), uniform(-50, 50), uniform(-50, 50));
    const glm::vec3 worldUp(uniform(-1, 1), uniform(-1, 1), uniform(-1, 1));
    Camera cam;
    if (!cam.lookAt(eye, target, worldUp).ok()) continue;
    ASSERT_TRUE(cam.validate().ok()) << cam.validate().toString();
    const glm::mat4 ours = cam.viewMatrix();
    const glm::mat4 theirs = glm::lookAtRH(eye, target, worldUp);
    for (int c = 0; c < 4; ++c) {
      for (int r = 0; r < 4; ++r) {
        EXPECT_NEAR(ours[c][r], theirs[c][r], 1e-5f * (1.0f + std::fabs(theirs[c][r])));
      }
    }
    ++checked;
  }
  EXPECT_GT(checked, 190);
}

TEST(CameraTest, IsometricBasisHasTheDocumentedAngles) {
  EXPECT_NEAR(Camera::kIsoYawRadians, std::atan(1.0f), 1e-7f);
  EXPECT_NEAR(Camera::kIsoPitchRadians, std::atan(1.0f / std::sqrt(2.0f)), 1e-7f);
  EXPECT_NEAR(Camera::kIsoPitchRadians, std::asin(1.0f / std::sqrt(3.0f)), 1e-6f);

  const glm::vec3 target(3.0f, -1.0f, 2.0f);
  Result<Camera> made = Camera::isometric(target, 20.0f, 10.0f, 16.0f / 9.0f, 0.1f, 100.0f);
  ASSERT_TRUE(made.ok()) << made.status().toString();
  const Camera& cam = *made;
  EXPECT_EQ(cam.projection, Projection::Orthographic);
  const float k3 = 1.0f / std::sqrt(3.0f);
  const float k2 = 1.0f / std::sqrt(2.0f);
  const float k6 = 1.0f / std::sqrt(6.0f);
  expectVec3Near(cam.forward, {-k3, -k3, -k3}, 1e-6f);
  expectVec3Near(cam.right, {k2, 0.0f, -k2}, 1e-6f);
  expectVec3Near(cam.up, {-k6, 2.0f * k6, -k6}, 1e-6f);
  expectVec3Near(cam.position, target + glm::vec3(k3, k3, k3) * 20.0f, 1e-5f);
  // Pitch below the horizon and yaw between the two ground axes (+X and +Z for a Y-up world).
  EXPECT_NEAR(std::asin(-cam.forward.y), Camera::kIsoPitchRadians, 1e-6f);
  EXPECT_NEAR(std::atan2(-cam.forward.x, -cam.forward.z), Camera::kIsoYawRadians, 1e-6f);
  // True isometric: every world axis keeps sqrt(2/3) of its length on screen.
  for (const glm::vec3 axis : {glm::vec3(1, 0, 0), glm::vec3(0, 1, 0), glm::vec3(0, 0, 1)}) {
    const float onScreen = std::hypot(glm::dot(axis, cam.right), glm::dot(axis, cam.up));
    EXPECT_NEAR(onScreen, std::sqrt(2.0f / 3.0f), 1e-6f);
  }
}

TEST(CameraTest, IsometricZUpUsesTheSameDiagonal) {
  Result<Camera> made =
      Camera::isometric({0.0f, 0.0f, 0.0f}, 10.0f, 5.0f, 1.0f, 0.1f, 50.0f, {0.0f, 0.0f, 1.0f});
  ASSERT_TRUE(made.ok()) << made.status().toString();
  const float k3 = 1.0f / std::sqrt(3.0f);
  const float k2 = 1.0f / std::sqrt(2.0f);
  expectVec3Near(made->forward, {-k3, -k3, -k3}, 1e-6f);
  expectVec3Near(made->right, {-k2, k2, 0.0f}, 1e-6f);
  EXPECT_NEAR(std::asin(-made->forward.z), Camera::kIsoPitchRadians, 1e-6f);
  EXPECT_GT(made->up.z, 0.0f);
}

TEST(CameraTest, ViewportValidation) {
  EXPECT_TRUE((Viewport{640, 480}).validate().ok());
  expectInvalid((Viewport{0, 480}).validate(), "Viewport.width");
  expectInvalid((Viewport{640, 0}).validate(), "Viewport.height");
  EXPECT_FLOAT_EQ((Viewport{1920, 1080}).aspect(), 16.0f / 9.0f);
}

TEST(CameraTest, FactoriesRejectBadParameters) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  expectInvalid(Camera::perspective(0.0f, 1.0f, 0.1f, 10.0f).status(), "Camera.fovYRadians");
  expectInvalid(Camera::perspective(kPi, 1.0f, 0.1f, 10.0f).status(), "Camera.fovYRadians");
  expectInvalid(Camera::perspective(-1.0f, 1.0f, 0.1f, 10.0f).status(), "Camera.fovYRadians");
  expectInvalid(Camera::perspective(nan, 1.0f, 0.1f, 10.0f).status(), "Camera.fovYRadians");
  expectInvalid(Camera::perspective(1.0f, 1.0f, 0.0f, 10.0f).status(), "Camera.nearZ");
  expectInvalid(Camera::perspective(1.0f, 1.0f, -1.0f, 10.0f).status(), "Camera.nearZ");
  expectInvalid(Camera::perspective(1.0f, 1.0f, 1.0f, 1.0f).status(), "Camera.farZ");
  expectInvalid(Camera::perspective(1.0f, 1.0f, 2.0f, 1.0f).status(), "Camera.farZ");
  expectInvalid(Camera::perspective(1.0f, 1.0f, 0.1f, inf).status(), "Camera.farZ");
  expectInvalid(Camera::perspective(1.0f, 0.0f, 0.1f, 10.0f).status(), "Camera.aspect");
  expectInvalid(Camera::orthographic(0.0f, 1.0f, 0.1f, 10.0f).status(), "Camera.orthoHalfHeight");
  expectInvalid(Camera::orthographic(1.0f, 1.0f, 5.0f, 5.0f).status(), "Camera.farZ");
  // An orthographic camera may start behind its position.
  EXPECT_TRUE(Camera::orthographic(1.0f, 1.0f, -5.0f, 5.0f).ok());
  expectInvalid(Camera::isometric({0, 0, 0}, 0.0f, 1.0f, 1.0f, 0.1f, 10.0f).status(), "distance");
  expectInvalid(Camera::isometric({0, 0, 0}, 5.0f, 1.0f, 1.0f, 0.1f, 10.0f, {1, 0, 0}).status(),
                "worldUp");
}

TEST(CameraTest, ValidateRejectsBadFields) {
  const Camera good = makePerspective(1.0f, 1.5f, 0.1f, 100.0f);
  ASSERT_TRUE(good.validate().ok());

  Camera cam = good;
  cam.position.y = std::numeric_limits<float>::infinity();
  expectInvalid(cam.validate(), "Camera.position");

  cam = good;
  cam.forward = {0.0f, 0.0f, -2.0f};
  expectInvalid(cam.validate(), "Camera.forward");

  cam = good;
  cam.up = {0.0f, 0.0f, -1.0f};  // unit, but equal to forward
  expectInvalid(cam.validate(), "orthogonal");

  cam = good;
  cam.right = -cam.right;
  expectInvalid(cam.validate(), "Camera.right");
}

TEST(CameraTest, LookAtRejectsDegeneratePosesAndKeepsTheCamera) {
  Camera cam = makePerspective(1.0f, 1.0f, 0.1f, 100.0f);
  const Camera before = cam;
  expectInvalid(cam.lookAt({1, 2, 3}, {1, 2, 3}, {0, 1, 0}), "eye and target");
  expectInvalid(cam.lookAt({0, 0, 0}, {0, 5, 0}, {0, 1, 0}), "worldUp");
  expectInvalid(cam.lookAt({0, 0, 0}, {0, 0, -1}, {0, 0, 0}), "worldUp");
  expectInvalid(cam.lookAt({0, std::numeric_limits<float>::quiet_NaN(), 0}, {0, 0, -1}, {0, 1, 0}),
                "eye");
  EXPECT_EQ(cam.position, before.position);
  EXPECT_EQ(cam.forward, before.forward);
  EXPECT_EQ(cam.right, before.right);
  EXPECT_EQ(cam.up, before.up);
}

TEST(CameraTest, ProjectionMatrixMatchesGlmConventions) {
  const Camera cam = makePerspective(1.2f, 1.5f, 0.25f, 80.0f);
  const glm::mat4 expected = glm::perspectiveRH_NO(1.2f, 1.5f, 0.25f, 80.0f);
  const glm::mat4 actual = cam.projectionMatrix();
  for (int c = 0; c < 4; ++c) {
    for (int r = 0; r < 4; ++r)
      EXPECT_FLOAT_EQ(actual[c][r], expected[c][r]);
  }
  EXPECT_NEAR(cam.halfHeightExtent(), std::tan(0.6f), 1e-6f);
  EXPECT_NEAR(cam.halfWidthExtent(), 1.5f * std::tan(0.6f), 1e-6f);
}

}  // namespace
}  // namespace mote::render
