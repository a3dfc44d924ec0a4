// SPDX-License-Identifier: MIT
// Tests of the billboard basis: hand-computed corners of every mode, winding, the quaternion,
// fallbacks, and a seeded sweep of orthonormality and the bounds radius.
#include <mote/core/alloc_watch.h>
#include <mote/core/prng.h>
#include <mote/render/billboard.h>
#include <mote/render/camera.h>

#include <glm/geometric.hpp>
#include <glm/gtc/quaternion.hpp>
#include <glm/mat3x3.hpp>
#include <glm/mat4x4.hpp>
#include <glm/matrix.hpp>
#include <glm/vec4.hpp>
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstddef>
#include <limits>

namespace mote::render {
namespace {

constexpr float kPi = 3.14159265358979f;
constexpr float kTolerance = 1e-6f;

constexpr std::array<BillboardMode, kBillboardModeCount> kAllModes{
    BillboardMode::Billboard,       BillboardMode::Stretched,     BillboardMode::Vertical,
    BillboardMode::Horizontal,      BillboardMode::FacingWorld,   BillboardMode::BillboardLocalZ,
    BillboardMode::BillboardWorldZ, BillboardMode::AlignedWorldZ, BillboardMode::VelocityAligned};

using Corners = std::array<glm::vec3, 4>;

// 90-degree vertical field of view (tan(fovY/2) = 1), square, placed with lookAt.
Camera perspectiveAt(glm::vec3 eye, glm::vec3 target, glm::vec3 worldUp) {
  Result<Camera> made = Camera::perspective(kPi / 2.0f, 1.0f, 0.1f, 100.0f);
  EXPECT_TRUE(made.ok()) << made.status().toString();
  Camera camera = made.ok() ? std::move(made).takeValue() : Camera{};
  const Status placed = camera.lookAt(eye, target, worldUp);
  EXPECT_TRUE(placed.ok()) << placed.toString();
  return camera;
}

Camera frontCamera() {
  return perspectiveAt(glm::vec3(0.0f, 0.0f, 5.0f), glm::vec3(0.0f), glm::vec3(0.0f, 1.0f, 0.0f));
}

// Eye (0, 3, 4) looking at the origin: forward (0, -0.6, -0.8), right +X, up (0, 0.8, -0.6).
Camera tiltedCamera() {
  return perspectiveAt(glm::vec3(0.0f, 3.0f, 4.0f), glm::vec3(0.0f), glm::vec3(0.0f, 1.0f, 0.0f));
}

BillboardInput unitSprite(glm::vec3 velocity = glm::vec3(0.0f)) {
  BillboardInput input;
  input.position = glm::vec3(0.0f);
  input.velocity = velocity;
  input.halfSize = glm::vec2(1.0f, 1.0f);
  return input;
}

void expectVec3Near(glm::vec3 actual, glm::vec3 expected, float tolerance) {
  EXPECT_NEAR(actual.x, expected.x, tolerance);
  EXPECT_NEAR(actual.y, expected.y, tolerance);
  EXPECT_NEAR(actual.z, expected.z, tolerance);
}

void expectCornersNear(const Corners& actual, const Corners& expected, float tolerance) {
  for (std::size_t i = 0; i < 4; ++i) {
    SCOPED_TRACE(::testing::Message() << "corner " << i);
    expectVec3Near(actual[i], expected[i], tolerance);
  }
}

void expectCornersEqual(const Corners& actual, const Corners& expected) {
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(actual[i].x, expected[i].x) << "corner " << i;
    EXPECT_EQ(actual[i].y, expected[i].y) << "corner " << i;
    EXPECT_EQ(actual[i].z, expected[i].z) << "corner " << i;
  }
}

bool finite(glm::vec3 v) {
  return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z);
}

// Corners of a frame (right, up) for unit half extents, in kBillboardCornerSigns order.
Corners cornersOf(glm::vec3 right, glm::vec3 up) {
  return {-right - up, right - up, right + up, -right + up};
}

glm::vec2 screen(const Camera& camera, glm::vec3 world) {
  const glm::vec4 clip = camera.projectionMatrix() * camera.viewMatrix() * glm::vec4(world, 1.0f);
  return glm::vec2(clip.x / clip.w, clip.y / clip.w);
}

float signedArea(const std::array<glm::vec2, 4>& p) {
  float twice = 0.0f;
  for (std::size_t i = 0; i < 4; ++i) {
    const glm::vec2 a = p[i];
    const glm::vec2 b = p[(i + 1) % 4];
    twice += a.x * b.y - b.x * a.y;
  }
  return 0.5f * twice;
}

glm::quat axisAngle(glm::vec3 axis, float radians) {
  return glm::angleAxis(radians, axis);
}

TEST(BillboardTest, CornersOfEveryModeFromTheFront) {
  const Camera camera = frontCamera();
  // Velocity (3, 0, 0) at depth 5 with tan(fovY/2) = 1: 3 / 10 = 0.3 viewport heights per
  // second; blur length 10 s gives stretch 1 + 3 = 4.
  const BillboardView view = BillboardView::fromCamera(camera, glm::vec3(0.0f, 1.0f, 0.0f), 10.0f);
  const BillboardInput input = unitSprite(glm::vec3(3.0f, 0.0f, 0.0f));
  const glm::vec3 x(1.0f, 0.0f, 0.0f);
  const glm::vec3 y(0.0f, 1.0f, 0.0f);
  const glm::vec3 z(0.0f, 0.0f, 1.0f);
  const Corners identity = cornersOf(x, y);
  const Corners flat = cornersOf(x, -z);  // (+X, -Z): lying down, facing +Y

  EXPECT_NEAR(particleStretch(view, BillboardMode::Stretched, input), 4.0f, 1e-5f);
  expectCornersNear(billboardCorners(view, BillboardMode::Billboard, input), identity, kTolerance);
  // Stretched: up = screen velocity +X, right = cross(+X, +Z) = -Y, up scaled by 4.
  expectCornersNear(billboardCorners(view, BillboardMode::Stretched, input),
                    Corners{glm::vec3(-4.0f, 1.0f, 0.0f), glm::vec3(-4.0f, -1.0f, 0.0f),
                            glm::vec3(4.0f, -1.0f, 0.0f), glm::vec3(4.0f, 1.0f, 0.0f)},
                    4e-6f);
  expectCornersNear(billboardCorners(view, BillboardMode::Vertical, input), identity, kTolerance);
  expectCornersNear(billboardCorners(view, BillboardMode::Horizontal, input), flat, kTolerance);
  expectCornersNear(billboardCorners(view, BillboardMode::FacingWorld, input), identity,
                    kTolerance);
  expectCornersNear(billboardCorners(view, BillboardMode::BillboardLocalZ, input), identity,
                    kTolerance);
  expectCornersNear(billboardCorners(view, BillboardMode::BillboardWorldZ, input), flat,
                    kTolerance);
  expectCornersNear(billboardCorners(view, BillboardMode::AlignedWorldZ, input), identity,
                    kTolerance);
  // VelocityAligned: up = +X, normal toward the eye = +Z, right = cross(+X, +Z) = -Y.
  expectCornersNear(billboardCorners(view, BillboardMode::VelocityAligned, input), cornersOf(-y, x),
                    kTolerance);
}

TEST(BillboardTest, CornersOfEveryModeFromATiltedCamera) {
  const Camera camera = tiltedCamera();
  const BillboardView view = BillboardView::fromCamera(camera, glm::vec3(0.0f, 1.0f, 0.0f), 10.0f);
  const BillboardView viewZUp =
      BillboardView::fromCamera(camera, glm::vec3(0.0f, 0.0f, 1.0f), 10.0f);
  const BillboardInput input = unitSprite(glm::vec3(3.0f, 0.0f, 0.0f));
  const glm::vec3 x(1.0f, 0.0f, 0.0f);
  const glm::vec3 y(0.0f, 1.0f, 0.0f);
  const glm::vec3 z(0.0f, 0.0f, 1.0f);
  const glm::vec3 camUp(0.0f, 0.8f, -0.6f);
  const glm::vec3 toEye(0.0f, 0.6f, 0.8f);

  expectCornersNear(billboardCorners(view, BillboardMode::Billboard, input), cornersOf(x, camUp),
                    kTolerance);
  // Depth 5 again, the velocity along the camera's right: stretch 4 along +X; right =
  // cross(+X, toEye) = (0, -0.8, 0.6).
  const glm::vec3 stretchedRight(0.0f, -0.8f, 0.6f);
  expectCornersNear(billboardCorners(view, BillboardMode::Stretched, input),
                    Corners{-stretchedRight - 4.0f * x, stretchedRight - 4.0f * x,
                            stretchedRight + 4.0f * x, -stretchedRight + 4.0f * x},
                    4e-6f);
  // Vertical: +Y up, toEye flattened to +Z.
  expectCornersNear(billboardCorners(view, BillboardMode::Vertical, input), cornersOf(x, y),
                    kTolerance);
  expectCornersNear(billboardCorners(view, BillboardMode::Horizontal, input), cornersOf(x, -z),
                    kTolerance);
  expectCornersNear(billboardCorners(view, BillboardMode::FacingWorld, input), cornersOf(x, y),
                    kTolerance);
  // Emitter turned 90 degrees about +X: local Y = +Z, local Z = -Y.
  BillboardInput turnedEmitter = input;
  turnedEmitter.emitterRotation = axisAngle(x, kPi / 2.0f);
  expectCornersNear(billboardCorners(view, BillboardMode::BillboardLocalZ, turnedEmitter),
                    cornersOf(x, z), kTolerance);
  expectCornersNear(billboardCorners(view, BillboardMode::BillboardWorldZ, input), cornersOf(x, -z),
                    kTolerance);
  expectCornersNear(billboardCorners(viewZUp, BillboardMode::BillboardWorldZ, input),
                    cornersOf(x, y), kTolerance);
  expectCornersNear(billboardCorners(view, BillboardMode::AlignedWorldZ, input), cornersOf(x, y),
                    kTolerance);
  // World up +Z: toEye flattened to +Y, right = cross(+Z, +Y) = -X.
  expectCornersNear(billboardCorners(viewZUp, BillboardMode::AlignedWorldZ, input),
                    cornersOf(-x, z), kTolerance);
  // VelocityAligned: up = +X, normal = toEye, right = cross(+X, toEye) = (0, -0.8, 0.6).
  expectCornersNear(billboardCorners(view, BillboardMode::VelocityAligned, input),
                    cornersOf(stretchedRight, x), kTolerance);
  expectVec3Near(particleBasis(view, BillboardMode::VelocityAligned, input)[2], toEye, kTolerance);
  expectVec3Near(particleBasis(view, BillboardMode::Billboard, input)[2], toEye, kTolerance);
}

TEST(BillboardTest, BillboardFacesTheEyeAndWindsCounterClockwiseOnScreen) {
  for (const Camera& camera : {frontCamera(), tiltedCamera()}) {
    const BillboardView view = BillboardView::fromCamera(camera);
    BillboardInput input = unitSprite();
    input.position = glm::vec3(0.3f, -0.2f, 0.1f);
    input.halfSize = glm::vec2(0.5f, 0.25f);
    const glm::mat3 basis = particleBasis(view, BillboardMode::Billboard, input);
    EXPECT_GT(glm::dot(basis[2], camera.position - input.position), 0.0f);
    const Corners c = billboardCorners(view, BillboardMode::Billboard, input);
    const float area = signedArea(
        {screen(camera, c[0]), screen(camera, c[1]), screen(camera, c[2]), screen(camera, c[3])});
    EXPECT_GT(area, 0.0f);
  }
}

TEST(BillboardTest, EveryModeWindsCounterClockwiseSeenFromItsNormal) {
  const BillboardView view = BillboardView::fromCamera(tiltedCamera(), glm::vec3(0.0f, 0.0f, 1.0f));
  BillboardInput input = unitSprite(glm::vec3(0.4f, 1.0f, -0.3f));
  input.orientation = axisAngle(glm::normalize(glm::vec3(1.0f, 2.0f, 3.0f)), 0.7f);
  input.emitterRotation = axisAngle(glm::normalize(glm::vec3(-1.0f, 0.5f, 2.0f)), 2.1f);
  for (const BillboardMode mode : kAllModes) {
    const glm::mat3 basis = particleBasis(view, mode, input);
    const Corners c = billboardCorners(view, mode, input);
    // The polygon's vector area points along the normal: counter-clockwise seen from the front.
    const glm::vec3 area =
        glm::cross(c[1] - c[0], c[2] - c[0]) + glm::cross(c[2] - c[0], c[3] - c[0]);
    EXPECT_GT(glm::dot(area, basis[2]), 0.0f) << "mode " << static_cast<int>(mode);
  }
}

TEST(BillboardTest, QuarterTurnAboutZRollsTheBillboardOnScreen) {
  const Camera camera = frontCamera();
  const BillboardView view = BillboardView::fromCamera(camera);
  BillboardInput input = unitSprite();
  input.halfSize = glm::vec2(0.5f, 1.0f);
  const Corners plain = billboardCorners(view, BillboardMode::Billboard, input);
  input.orientation = axisAngle(glm::vec3(0.0f, 0.0f, 1.0f), kPi / 2.0f);
  const Corners rolled = billboardCorners(view, BillboardMode::Billboard, input);
  // A counter-clockwise quarter turn on screen maps (sx, sy) to (-sy, sx).
  for (std::size_t i = 0; i < 4; ++i) {
    const glm::vec2 before = screen(camera, plain[i]);
    const glm::vec2 after = screen(camera, rolled[i]);
    EXPECT_NEAR(after.x, -before.y, 1e-6f) << "corner " << i;
    EXPECT_NEAR(after.y, before.x, 1e-6f) << "corner " << i;
  }
  // In the world: the sprite's right is now +Y and its up -X.
  expectCornersNear(rolled,
                    Corners{glm::vec3(1.0f, -0.5f, 0.0f), glm::vec3(1.0f, 0.5f, 0.0f),
                            glm::vec3(-1.0f, 0.5f, 0.0f), glm::vec3(-1.0f, -0.5f, 0.0f)},
                    kTolerance);
}

TEST(BillboardTest, NonUnitQuaternionIsNormalisedAtDraw) {
  const BillboardView view = BillboardView::fromCamera(tiltedCamera());
  BillboardInput unit = unitSprite(glm::vec3(1.0f, 2.0f, 0.5f));
  unit.orientation = axisAngle(glm::normalize(glm::vec3(0.3f, -1.0f, 0.4f)), 1.3f);
  BillboardInput scaled = unit;
  scaled.orientation = glm::quat(3.0f * unit.orientation.w, 3.0f * unit.orientation.x,
                                 3.0f * unit.orientation.y, 3.0f * unit.orientation.z);
  for (const BillboardMode mode : kAllModes) {
    SCOPED_TRACE(::testing::Message() << "mode " << static_cast<int>(mode));
    expectCornersNear(billboardCorners(view, mode, scaled), billboardCorners(view, mode, unit),
                      kTolerance);
  }
}

TEST(BillboardTest, ZeroAndNonFiniteQuaternionsReadAsIdentity) {
  const BillboardView view = BillboardView::fromCamera(tiltedCamera());
  const BillboardInput identity = unitSprite(glm::vec3(1.0f, 2.0f, 0.5f));
  BillboardInput zero = identity;
  zero.orientation = glm::quat(0.0f, 0.0f, 0.0f, 0.0f);
  zero.emitterRotation = glm::quat(0.0f, 0.0f, 0.0f, 0.0f);
  BillboardInput nan = identity;
  nan.orientation.y = std::numeric_limits<float>::quiet_NaN();
  for (const BillboardMode mode : kAllModes) {
    SCOPED_TRACE(::testing::Message() << "mode " << static_cast<int>(mode));
    expectCornersEqual(billboardCorners(view, mode, zero), billboardCorners(view, mode, identity));
    expectCornersEqual(billboardCorners(view, mode, nan), billboardCorners(view, mode, identity));
  }
  const glm::quat q = normalizedOrientation(glm::quat(0.0f, 0.0f, 0.0f, 0.0f));
  EXPECT_EQ(q.w, 1.0f);
  EXPECT_EQ(q.x, 0.0f);
  EXPECT_EQ(q.y, 0.0f);
  EXPECT_EQ(q.z, 0.0f);
  // Tiny and huge quaternions normalise without underflow or overflow.
  const glm::quat tiny = normalizedOrientation(glm::quat(0.0f, 0.0f, 0.0f, 1e-30f));
  EXPECT_NEAR(tiny.z, 1.0f, 1e-7f);
  const glm::quat huge = normalizedOrientation(glm::quat(3e38f, 3e38f, 0.0f, 0.0f));
  EXPECT_NEAR(huge.w, std::sqrt(0.5f), 1e-7f);
  EXPECT_NEAR(huge.x, std::sqrt(0.5f), 1e-7f);
}

// Each degenerate input: finite corners equal to Billboard's (bit for bit: the same frame).
void expectFallsBackToBillboard(const BillboardView& view, BillboardMode mode,
                                const BillboardInput& input) {
  const Corners fallback = billboardCorners(view, mode, input);
  for (const glm::vec3& corner : fallback)
    EXPECT_TRUE(finite(corner));
  expectCornersEqual(fallback, billboardCorners(view, BillboardMode::Billboard, input));
  EXPECT_EQ(particleStretch(view, mode, input), 1.0f);
}

TEST(BillboardTest, StretchedFallsBackToBillboardAtRest) {
  const BillboardView view =
      BillboardView::fromCamera(frontCamera(), glm::vec3(0.0f, 1.0f, 0.0f), 10.0f);
  SCOPED_TRACE("zero velocity");
  expectFallsBackToBillboard(view, BillboardMode::Stretched, unitSprite());
  SCOPED_TRACE("velocity along the view axis");
  expectFallsBackToBillboard(view, BillboardMode::Stretched, unitSprite(glm::vec3(0, 0, -2.0f)));
  SCOPED_TRACE("off-axis velocity along the line of sight");
  BillboardInput radial = unitSprite();
  radial.position = glm::vec3(1.0f, 2.0f, 0.0f);
  radial.velocity = 3.0f * (radial.position - glm::vec3(0.0f, 0.0f, 5.0f));
  expectFallsBackToBillboard(view, BillboardMode::Stretched, radial);
  SCOPED_TRACE("particle behind the eye");
  BillboardInput behind = unitSprite(glm::vec3(1.0f, 0.0f, 0.0f));
  behind.position = glm::vec3(0.0f, 0.0f, 9.0f);
  expectFallsBackToBillboard(view, BillboardMode::Stretched, behind);
  SCOPED_TRACE("particle on the eye");
  BillboardInput onEye = unitSprite(glm::vec3(1.0f, 0.0f, 0.0f));
  onEye.position = glm::vec3(0.0f, 0.0f, 5.0f);
  expectFallsBackToBillboard(view, BillboardMode::Stretched, onEye);
}

TEST(BillboardTest, StretchIsCappedAndOffWithoutBlurLength) {
  const BillboardView view =
      BillboardView::fromCamera(frontCamera(), glm::vec3(0.0f, 1.0f, 0.0f), 10.0f);
  const BillboardInput fast = unitSprite(glm::vec3(3e30f, 0.0f, 0.0f));
  EXPECT_EQ(particleStretch(view, BillboardMode::Stretched, fast), kBillboardMaxStretch);
  for (const glm::vec3& corner : billboardCorners(view, BillboardMode::Stretched, fast)) {
    EXPECT_TRUE(finite(corner));
  }
  const BillboardView noBlur = BillboardView::fromCamera(frontCamera(), glm::vec3(0, 1.0f, 0), 0);
  EXPECT_EQ(particleStretch(noBlur, BillboardMode::Stretched, fast), 1.0f);
  // Every other mode ignores the velocity's length.
  for (const BillboardMode mode : kAllModes) {
    if (mode != BillboardMode::Stretched) {
      EXPECT_EQ(particleStretch(view, mode, fast), 1.0f);
    }
  }
}

TEST(BillboardTest, OrthographicScreenVelocityIsDepthIndependent) {
  Result<Camera> made = Camera::orthographic(2.0f, 1.0f, 0.1f, 100.0f);
  ASSERT_TRUE(made.ok());
  Camera camera = std::move(made).takeValue();
  ASSERT_TRUE(camera.lookAt(glm::vec3(0, 0, 5.0f), glm::vec3(0.0f), glm::vec3(0, 1.0f, 0)).ok());
  const BillboardView view = BillboardView::fromCamera(camera, glm::vec3(0, 1.0f, 0), 1.0f);
  // 2 units per second over a visible height of 4: 0.5 heights per second at any depth.
  for (const float z : {0.0f, -20.0f}) {
    BillboardInput input = unitSprite(glm::vec3(0.0f, 2.0f, 7.0f));
    input.position = glm::vec3(0.0f, 0.0f, z);
    EXPECT_NEAR(particleStretch(view, BillboardMode::Stretched, input), 1.5f, 1e-6f);
  }
  // Straight along the view: at rest.
  expectFallsBackToBillboard(view, BillboardMode::Stretched, unitSprite(glm::vec3(0, 0, 4.0f)));
}

TEST(BillboardTest, AxisLockedModesFallBackToBillboard) {
  const BillboardView front = BillboardView::fromCamera(frontCamera());
  SCOPED_TRACE("VelocityAligned, zero velocity");
  expectFallsBackToBillboard(front, BillboardMode::VelocityAligned, unitSprite());
  SCOPED_TRACE("VelocityAligned, velocity toward the eye");
  expectFallsBackToBillboard(front, BillboardMode::VelocityAligned,
                             unitSprite(glm::vec3(0.0f, 0.0f, 4.0f)));
  SCOPED_TRACE("VelocityAligned, off-axis velocity along the line of sight");
  BillboardInput radial = unitSprite();
  radial.position = glm::vec3(1.0f, 2.0f, 0.0f);
  radial.velocity = -0.5f * (radial.position - glm::vec3(0.0f, 0.0f, 5.0f));
  expectFallsBackToBillboard(front, BillboardMode::VelocityAligned, radial);

  // Looking straight down: world up (+Y) is parallel to the line of sight.
  const Camera down =
      perspectiveAt(glm::vec3(0.0f, 5.0f, 0.0f), glm::vec3(0.0f), glm::vec3(0.0f, 0.0f, -1.0f));
  const BillboardView downView = BillboardView::fromCamera(down);
  SCOPED_TRACE("Vertical, looking straight down");
  expectFallsBackToBillboard(downView, BillboardMode::Vertical, unitSprite());
  SCOPED_TRACE("AlignedWorldZ, looking straight down");
  expectFallsBackToBillboard(downView, BillboardMode::AlignedWorldZ, unitSprite());
  // Looking straight up along +Z with world up +Z.
  const Camera up =
      perspectiveAt(glm::vec3(0.0f, 0.0f, -5.0f), glm::vec3(0.0f), glm::vec3(0.0f, 1.0f, 0.0f));
  SCOPED_TRACE("AlignedWorldZ (+Z up), looking straight up");
  expectFallsBackToBillboard(BillboardView::fromCamera(up, glm::vec3(0.0f, 0.0f, 1.0f)),
                             BillboardMode::AlignedWorldZ, unitSprite());
}

TEST(BillboardTest, ParticleOnTheEyeFacesAlongTheView) {
  const Camera camera = frontCamera();
  const BillboardView view = BillboardView::fromCamera(camera);
  BillboardInput input = unitSprite(glm::vec3(1.0f, 0.0f, 0.0f));
  input.position = camera.position;
  for (const BillboardMode mode : kAllModes) {
    for (const glm::vec3& corner : billboardCorners(view, mode, input))
      EXPECT_TRUE(finite(corner));
  }
  // Vertical takes -forward (+Z) for the missing eye direction: the identity frame.
  const glm::mat3 frame = billboardFrame(view, BillboardMode::Vertical, input);
  expectVec3Near(frame[2], glm::vec3(0.0f, 0.0f, 1.0f), kTolerance);
}

TEST(BillboardTest, GroundAxesForOtherWorldUps) {
  const Camera camera = frontCamera();
  // worldUp +X (|x| >= sqrt(1/2)): groundUp = -Z, groundRight = cross(-Z, +X) = -Y.
  const BillboardView xUp = BillboardView::fromCamera(camera, glm::vec3(2.0f, 0.0f, 0.0f));
  expectVec3Near(xUp.worldUp, glm::vec3(1.0f, 0.0f, 0.0f), kTolerance);
  expectVec3Near(xUp.groundUp, glm::vec3(0.0f, 0.0f, -1.0f), kTolerance);
  expectVec3Near(xUp.groundRight, glm::vec3(0.0f, -1.0f, 0.0f), kTolerance);
  const glm::mat3 frame = billboardFrame(xUp, BillboardMode::BillboardWorldZ, unitSprite());
  EXPECT_NEAR(glm::determinant(frame), 1.0f, 1e-6f);
}

TEST(BillboardTest, RadiusOfTheBounds) {
  EXPECT_NEAR(particleBillboardRadius(glm::vec2(1.0f, 1.0f), 1.0f), std::sqrt(2.0f), 1e-4f);
  EXPECT_GE(particleBillboardRadius(glm::vec2(1.0f, 1.0f), 1.0f), std::sqrt(2.0f));
  EXPECT_NEAR(particleBillboardRadius(glm::vec2(0.5f, 2.0f), 3.0f), std::sqrt(2.0f) * 6.0f, 1e-3f);
  // A stretch below 1 never shrinks the bound under the unstretched quad.
  EXPECT_GE(particleBillboardRadius(glm::vec2(1.0f, 1.0f), 0.5f), std::sqrt(2.0f));
}

TEST(BillboardTest, NothingAllocates) {
  if (!allocationWatchInstalled()) GTEST_SKIP() << "the allocation watch is not linked";
  const Camera camera = tiltedCamera();
  BillboardInput input = unitSprite(glm::vec3(1.0f, 2.0f, 3.0f));
  input.orientation = axisAngle(glm::vec3(0.0f, 0.0f, 1.0f), 0.3f);
  float sum = 0.0f;
  AllocationScope scope;
  const BillboardView view = BillboardView::fromCamera(camera, glm::vec3(0.0f, 0.0f, 1.0f), 2.0f);
  for (const BillboardMode mode : kAllModes) {
    for (const glm::vec3& corner : billboardCorners(view, mode, input))
      sum += corner.x;
    sum += particleBillboardRadius(input.halfSize, particleStretch(view, mode, input));
  }
  EXPECT_EQ(scope.allocations(), 0u);
  EXPECT_TRUE(std::isfinite(sum));
}

float uniform(Prng& prng, float lo, float hi) {
  const float u = static_cast<float>(prng.nextTap24()) / static_cast<float>(Prng::kTapRange);
  return lo + (hi - lo) * u;
}

glm::vec3 uniformVec3(Prng& prng, float lo, float hi) {
  const float x = uniform(prng, lo, hi);
  const float y = uniform(prng, lo, hi);
  const float z = uniform(prng, lo, hi);
  return glm::vec3(x, y, z);
}

float maxDeviationFromIdentity(const glm::mat3& m) {
  const glm::mat3 gram = glm::transpose(m) * m;
  float worst = 0.0f;
  for (int c = 0; c < 3; ++c) {
    for (int r = 0; r < 3; ++r) {
      const float expected = c == r ? 1.0f : 0.0f;
      worst = std::fmax(worst, std::fabs(gram[c][r] - expected));
    }
  }
  return worst;
}

TEST(BillboardTest, SeededSweepOrthonormalFramesAndCornersInsideTheRadius) {
  Prng prng(0xB111B0A2Dull);
  int camerasBuilt = 0;
  for (int iteration = 0; iteration < 1000; ++iteration) {
    const bool ortho = prng.nextRange(0, 4) == 0;
    Result<Camera> made = ortho ? Camera::orthographic(uniform(prng, 0.5f, 20.0f),
                                                       uniform(prng, 0.5f, 2.0f), -50.0f, 50.0f)
                                : Camera::perspective(uniform(prng, 0.2f, 2.8f),
                                                      uniform(prng, 0.5f, 2.0f), 0.05f, 500.0f);
    ASSERT_TRUE(made.ok());
    Camera camera = std::move(made).takeValue();
    const glm::vec3 eye = uniformVec3(prng, -20.0f, 20.0f);
    const glm::vec3 target = uniformVec3(prng, -5.0f, 5.0f);
    const glm::vec3 lookUp = uniformVec3(prng, -1.0f, 1.0f);
    if (!camera.lookAt(eye, target, lookUp).ok()) continue;
    ++camerasBuilt;
    glm::vec3 worldUp = uniformVec3(prng, -1.0f, 1.0f);
    if (prng.nextRange(0, 2) == 0) worldUp = glm::vec3(0.0f, 1.0f, 0.0f);
    if (glm::dot(worldUp, worldUp) < 1e-4f) worldUp = glm::vec3(0.0f, 0.0f, 1.0f);
    const BillboardView view =
        BillboardView::fromCamera(camera, worldUp, uniform(prng, 0.0f, 20.0f));

    BillboardInput input;
    input.position = uniformVec3(prng, -10.0f, 10.0f);
    const float speedScale = prng.nextRange(0, 3) == 0 ? 1000.0f : 5.0f;
    input.velocity = uniformVec3(prng, -speedScale, speedScale);
    if (prng.nextRange(0, 10) == 0) input.velocity = glm::vec3(0.0f);
    input.halfSize = glm::vec2(uniform(prng, 0.01f, 3.0f), uniform(prng, 0.01f, 3.0f));
    const float qw = uniform(prng, -2.0f, 2.0f);
    const glm::vec3 qv = uniformVec3(prng, -2.0f, 2.0f);
    input.orientation = glm::quat(qw, qv.x, qv.y, qv.z);
    if (prng.nextRange(0, 10) == 0) input.orientation = glm::quat(0.0f, 0.0f, 0.0f, 0.0f);
    const float ew = uniform(prng, -1.0f, 1.0f);
    const glm::vec3 ev = uniformVec3(prng, -1.0f, 1.0f);
    input.emitterRotation = glm::quat(ew, ev.x, ev.y, ev.z);

    for (const BillboardMode mode : kAllModes) {
      SCOPED_TRACE(::testing::Message()
                   << "iteration " << iteration << " mode " << static_cast<int>(mode));
      const glm::mat3 frame = billboardFrame(view, mode, input);
      ASSERT_LT(maxDeviationFromIdentity(frame), 1e-5f);
      ASSERT_NEAR(glm::determinant(frame), 1.0f, 1e-5f);
      const glm::mat3 turned = frame * glm::mat3_cast(normalizedOrientation(input.orientation));
      ASSERT_LT(maxDeviationFromIdentity(turned), 1e-5f);
      ASSERT_NEAR(glm::determinant(turned), 1.0f, 1e-5f);

      const float stretch = particleStretch(view, mode, input);
      ASSERT_GE(stretch, 1.0f);
      ASSERT_LE(stretch, kBillboardMaxStretch);
      const glm::mat3 basis = particleBasis(view, mode, input);
      ASSERT_NEAR(glm::length(basis[0]), input.halfSize.x, 1e-5f * input.halfSize.x);
      ASSERT_NEAR(glm::length(basis[1]), input.halfSize.y * stretch,
                  1e-5f * input.halfSize.y * stretch);
      ASSERT_NEAR(glm::length(basis[2]), 1.0f, 1e-5f);

      const float radius = particleBillboardRadius(input.halfSize, stretch);
      for (const glm::vec3& corner : billboardCorners(view, mode, input)) {
        ASSERT_TRUE(finite(corner));
        // Offsets are measured in float against a centre of up to 10: allow that rounding.
        ASSERT_LE(glm::length(corner - input.position), radius + 4e-6f);
      }
    }
  }
  EXPECT_GT(camerasBuilt, 900);
}

}  // namespace
}  // namespace mote::render
