// SPDX-License-Identifier: MIT
// The billboard basis (meep "Orientation"): offset = F(mode, view, velocity) · Q · (corner·size,
// stretch), the nine projection modes, their corners and the bounds radius.
#pragma once

#include <mote/render/camera.h>

#include <glm/gtc/quaternion.hpp>
#include <glm/mat3x3.hpp>
#include <glm/vec2.hpp>
#include <glm/vec3.hpp>

#include <array>
#include <cstdint>

namespace mote::render {

/// How a view sees a particle: the frame F, a proper rotation (det +1) whose columns are the
/// sprite's right, its up and its face normal (the side the mode shows). Every frame shows the
/// sprite the way round Billboard does from its front: seen from the side its normal points to,
/// with `up` up on the screen, `right` is to the right — never the mirror image.
///
/// Notation: R, U, Fw are the camera's right, up and forward; E is the unit direction from the
/// particle toward the viewer: normalize(eye - position) for a perspective camera (-Fw when the
/// particle sits on the eye), -Fw for an orthographic one. W is BillboardView::worldUp.
/// "axis-locked about A" is the frame (cross(A, N), A, N) with N = normalize(E - (E·A)·A): up
/// along A, the face turned toward the viewer as far as the axis allows.
///
/// The three NWN modes follow shared/nwn/MDL_EMITTERS.md (rollnw's ParticleRenderMode):
/// Billboard_to_World_Z is the ground decal (a flat card, one-sided in NWN, `twosidedtex`),
/// Billboard_to_Local_Z the same card in the emitter's own plane, Aligned_to_World_Z the
/// upright quad locked to world Z ("vertical shafts and rings"). NWN's world Z is Mote's W.
///
/// Fallbacks: where a frame is undefined it is Billboard's, exactly, and never NaN:
///   - Stretched: no screen velocity — zero or non-finite velocity, or velocity along the line of
///     sight (the unit screen-velocity numerator below kBillboardParallelSine; on the view axis
///     that is the sine of the angle) — or a perspective particle not in front of the eye
///     (depth <= 0, the eye itself included); the stretch is then exactly 1;
///   - Vertical / AlignedWorldZ / VelocityAligned: the axis is non-finite or shorter than
///     kBillboardMinLength (VelocityAligned at rest), or within kBillboardParallelSine of E
///     (looking straight down or up the axis).
/// BillboardLocalZ has no fallback: a zero or non-finite emitterRotation reads as identity.
enum class BillboardMode : std::uint8_t {
  Billboard,        ///< (R, U, -Fw): the camera's axes; the quad lies in the view plane
  Stretched,        ///< (cross(S, -Fw), S, -Fw), S = the world direction of the screen velocity
                    ///< (S = a·R + b·U); elongated by particleStretch along S
  Vertical,         ///< axis-locked about world +Y (meep VERTICAL; independent of W)
  Horizontal,       ///< (+X, -Z, +Y): flat, facing world +Y (meep HORIZONTAL; independent of W)
  FacingWorld,      ///< (+X, +Y, +Z): the world's axes (meep FACING_WORLD)
  BillboardLocalZ,  ///< the emitter's axes (Re·X, Re·Y, Re·Z), Re = BillboardInput::
                    ///< emitterRotation: flat in the emitter's local XY plane, facing local +Z
  BillboardWorldZ,  ///< (groundRight, groundUp, W): flat, facing W (see BillboardView); with W =
                    ///< +Y it equals Horizontal, with W = +Z it is (+X, +Y, +Z)
  AlignedWorldZ,    ///< axis-locked about W: upright along W, turned about it toward the viewer;
                    ///< with W = +Y it equals Vertical
  VelocityAligned,  ///< axis-locked about the 3D velocity: up along v, face toward the viewer
};

/// Number of BillboardMode values.
inline constexpr int kBillboardModeCount = 9;

/// Shortest axis (velocity, W) the axis-locked modes accept, in world units (per second).
inline constexpr float kBillboardMinLength = 1e-12f;
/// Sine of the smallest angle between an axis (or a velocity) and the line of sight for which a
/// frame is still built; below it the mode falls back to Billboard's frame.
inline constexpr float kBillboardParallelSine = 1e-5f;
/// Upper bound of particleStretch: a streak longer than this many sprite heights only happens for
/// a particle crossing the eye plane, where the projection itself breaks down.
inline constexpr float kBillboardMaxStretch = 1024.0f;
/// Relative slack of particleBillboardRadius over sqrt(2)·size·stretch, so that float rounding in
/// the basis can never put a corner outside it (2^-16).
inline constexpr float kBillboardRadiusSlack = 1.0f + 1.0f / 65536.0f;

/// The corner signs, in drawing order: counter-clockwise from bottom-left, (-1,-1), (1,-1),
/// (1,1), (-1,1) in (right, up). Seen from the front (from where the normal points) the quad
/// winds counter-clockwise; two triangles are corners (0,1,2) and (0,2,3).
inline constexpr std::array<glm::vec2, 4> kBillboardCornerSigns{
    glm::vec2(-1.0f, -1.0f), glm::vec2(1.0f, -1.0f), glm::vec2(1.0f, 1.0f), glm::vec2(-1.0f, 1.0f)};

/// What one particle brings to the basis. All values must be finite.
struct BillboardInput {
  glm::vec3 position{0.0f, 0.0f, 0.0f};  ///< world position of the sprite's centre
  glm::vec3 velocity{0.0f, 0.0f, 0.0f};  ///< world units per second (Stretched, VelocityAligned)
  /// Half extents in world units: the quad spans [-x, x] along its right and [-y·stretch,
  /// y·stretch] along its up (meep's corner·size with corners at ±1).
  glm::vec2 halfSize{0.5f, 0.5f};
  /// The particle's own turn Q, applied inside the frame (a turn about +Z is a roll on the
  /// screen for Billboard). glm stores (x, y, z, w) and constructs glm::quat(w, x, y, z).
  /// Normalised at draw; the zero quaternion (a channel nobody wrote) reads as no turn.
  glm::quat orientation{1.0f, 0.0f, 0.0f, 0.0f};
  /// BillboardLocalZ only: the emitter's world rotation (its local axes are the columns of its
  /// matrix). Normalised like `orientation`; zero reads as identity.
  glm::quat emitterRotation{1.0f, 0.0f, 0.0f, 0.0f};
};

/// What the modes need from a view, built once per frame (and per view) with fromCamera; read-only
/// afterwards and shareable between threads. Thread safety: a value type. Allocates: never.
struct BillboardView {
  glm::vec3 eye{0.0f, 0.0f, 0.0f};
  glm::vec3 forward{0.0f, 0.0f, -1.0f};  ///< unit view direction
  glm::vec3 right{1.0f, 0.0f, 0.0f};     ///< unit screen right
  glm::vec3 up{0.0f, 1.0f, 0.0f};        ///< unit screen up
  bool orthographic = false;
  /// Viewport heights per world unit of view-plane displacement at depth 1 (perspective:
  /// 1 / (2 tan(fovY/2))) or at any depth (orthographic: 1 / (2 orthoHalfHeight)).
  float heightsPerUnit = 0.5f;
  /// Unit world up axis ("world Z" of the NWN modes). Mote's 3D default is +Y; laige-style
  /// ground-on-x/y worlds pass +Z.
  glm::vec3 worldUp{0.0f, 1.0f, 0.0f};
  /// BillboardWorldZ's in-plane axes: groundRight = world +X made orthogonal to worldUp (world -Z
  /// instead when |worldUp.x| >= sqrt(1/2), then groundUp = normalize(-Z + worldUp.z·worldUp) and
  /// groundRight = cross(groundUp, worldUp)); groundUp = cross(worldUp, groundRight).
  glm::vec3 groundRight{1.0f, 0.0f, 0.0f};
  glm::vec3 groundUp{0.0f, 0.0f, -1.0f};
  /// Stretched's blur length, seconds: stretch = 1 + |v_screen| · stretchScaleSeconds with
  /// v_screen in viewport heights per second. 1 is meep's `1 + |v_screen|`; 0 turns stretching
  /// off (the direction still follows the screen velocity).
  float stretchScaleSeconds = 1.0f;

  /// Snapshot of a valid camera (asserted). `worldUp` must be non-zero (asserted; it is
  /// normalised, +Y is used in a build without asserts); `stretchScaleSeconds` >= 0. Screen
  /// velocity assumes square pixels (camera.aspect equal to the viewport's aspect), so it needs no
  /// viewport. Complexity: O(1), one tan(). Allocates: never.
  static BillboardView fromCamera(const Camera& camera,
                                  glm::vec3 worldUp = glm::vec3(0.0f, 1.0f, 0.0f),
                                  float stretchScaleSeconds = 1.0f);
};

/// A quaternion normalised for drawing: q / |q|, computed with a max-component prescale so that
/// tiny and large values neither underflow nor overflow; the zero quaternion and one with a NaN or
/// infinite component return identity. Thread safety: pure. O(1). Allocates: never.
glm::quat normalizedOrientation(glm::quat q) noexcept;

/// The mode's frame F alone (columns right, up, normal; a rotation, det +1), without Q or size.
/// Thread safety: pure. O(1). Allocates: never.
glm::mat3 billboardFrame(const BillboardView& view, BillboardMode mode,
                         const BillboardInput& input) noexcept;

/// True when the mode's frame F is the same for every particle of an emitter in a given view
/// (Billboard, Horizontal, FacingWorld, BillboardLocalZ, BillboardWorldZ): it depends on neither
/// position nor velocity, so one billboardFrame() serves them all. Pure; O(1). Allocates: never.
bool billboardFrameIsUniform(BillboardMode mode) noexcept;

/// Stretched: min(1 + |v_screen| · view.stretchScaleSeconds, kBillboardMaxStretch), where
/// v_screen is the time derivative of the particle's projected position in viewport heights per
/// second (exact derivative of the projection, not a finite difference); exactly 1 at rest (see
/// the fallbacks on BillboardMode). Every other mode: 1. Thread safety: pure. O(1). Allocates:
/// never.
float particleStretch(const BillboardView& view, BillboardMode mode,
                      const BillboardInput& input) noexcept;

/// meep's `particle_basis`: F · R(normalizedOrientation(Q)) with its first column scaled by
/// halfSize.x and its second by halfSize.y · particleStretch. Columns: right·halfSize.x,
/// up·halfSize.y·stretch, unit normal. The corner offsets (col0·sx + col1·sy for the corner signs)
/// and the shading normal (col2) both come from it, so they cannot disagree.
/// Thread safety: pure. O(1). Allocates: never.
glm::mat3 particleBasis(const BillboardView& view, BillboardMode mode,
                        const BillboardInput& input) noexcept;

/// The four world-space corners position + basis·(sign, 0) in kBillboardCornerSigns order
/// (counter-clockwise seen from the front). Thread safety: pure. O(1). Allocates: never.
std::array<glm::vec3, 4> billboardCorners(const BillboardView& view, BillboardMode mode,
                                          const BillboardInput& input) noexcept;

/// The bounds helper (meep `particle_billboard_radius`): a distance from the particle's centre
/// that no corner offset exceeds in any mode, orientation or view:
/// sqrt(2) · max(|halfSize.x|, |halfSize.y|) · max(stretch, 1) · kBillboardRadiusSlack.
/// (The basis is a rotation, so a corner lies at |(halfSize.x, halfSize.y·stretch)|.) Pass
/// particleStretch for a Stretched particle in a given view, 1 otherwise. Thread safety: pure.
/// O(1). Allocates: never.
float particleBillboardRadius(glm::vec2 halfSize, float stretch) noexcept;

}  // namespace mote::render
