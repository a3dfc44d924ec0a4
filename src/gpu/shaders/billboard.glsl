// SPDX-License-Identifier: MIT
// The billboard basis of src/render/billboard.cpp on the GPU (meep "Orientation"): the frames of
// the nine projection modes, Stretched's screen-velocity stretch, the per-particle quaternion
// normalised at draw, and a quad's four corners — the same operations in the same order, on
// exact.glsl's arithmetic, so in exact mode every corner is the CPU's bit for bit (glm's
// formulas spelled out: dot is (x + y) + z, normalize is v · (1 / sqrt(dot(v, v))), mat3_cast and
// the matrix product as glm writes them). The constants come from the CPU's headers through
// billboard_constants.glsl (gen_shader_constants.cpp writes it).
//
// Floats travel as uint bit patterns (exact.glsl), a vec3 as a uvec3, a mat3 as three uvec3
// columns.
#ifndef MOTE_BILLBOARD_GLSL
#define MOTE_BILLBOARD_GLSL

#include "billboard_constants.glsl"
#include "exact.glsl"

// The modes, in render::BillboardMode's order.
const uint kModeBillboard = 0u;
const uint kModeStretched = 1u;
const uint kModeVertical = 2u;
const uint kModeHorizontal = 3u;
const uint kModeFacingWorld = 4u;
const uint kModeBillboardLocalZ = 5u;
const uint kModeBillboardWorldZ = 6u;
const uint kModeAlignedWorldZ = 7u;
const uint kModeVelocityAligned = 8u;

// render::BillboardView, its floats as bits.
struct BillboardView {
  uvec3 eye;
  uvec3 forward;
  uvec3 right;
  uvec3 up;
  bool orthographic;
  uint heightsPerUnit;
  uvec3 worldUp;
  uvec3 groundRight;
  uvec3 groundUp;
  uint stretchScaleSeconds;
};

// render::BillboardInput; the quaternions as (x, y, z, w).
struct BillboardInput {
  uvec3 position;
  uvec3 velocity;
  uvec2 halfSize;
  uvec4 orientation;
  uvec4 emitterRotation;
};

struct Mat3 {
  uvec3 c0, c1, c2;
};

uvec3 bAdd(uvec3 a, uvec3 b) { return uvec3(xAdd(a.x, b.x), xAdd(a.y, b.y), xAdd(a.z, b.z)); }
uvec3 bSub(uvec3 a, uvec3 b) { return uvec3(xSub(a.x, b.x), xSub(a.y, b.y), xSub(a.z, b.z)); }
uvec3 bScale(uvec3 v, uint s) { return uvec3(xMul(v.x, s), xMul(v.y, s), xMul(v.z, s)); }
uvec3 bDivide(uvec3 v, uint s) { return uvec3(xDiv(v.x, s), xDiv(v.y, s), xDiv(v.z, s)); }
uvec3 bNeg(uvec3 v) { return v ^ uvec3(kSignBit); }
uint bDot(uvec3 a, uvec3 b) {
  return xAdd(xAdd(xMul(a.x, b.x), xMul(a.y, b.y)), xMul(a.z, b.z));
}
uvec3 bCross(uvec3 x, uvec3 y) {
  return uvec3(xSub(xMul(x.y, y.z), xMul(y.y, x.z)), xSub(xMul(x.z, y.x), xMul(y.z, x.x)),
               xSub(xMul(x.x, y.y), xMul(y.x, x.y)));
}
uvec3 bNormalize(uvec3 v) { return bScale(v, xDiv(kOne, xSqrt(bDot(v, v)))); }
bool bFinite(uint a) { return (a & 0x7f800000u) != 0x7f800000u; }
uint bMaxAbs(uvec3 v) { return xMax(xMax(xAbs(v.x), xAbs(v.y)), xAbs(v.z)); }

// billboard.cpp's normalizeScaled: false (out untouched) below minLength or not finite.
bool normalizeScaled(uvec3 v, uint minLength, inout uvec3 outV, inout uint outLength) {
  if (!bFinite(v.x) || !bFinite(v.y) || !bFinite(v.z)) return false;
  const uint m = bMaxAbs(v);
  if (!xLt(minLength, m)) return false;
  const uvec3 w = bDivide(v, m);
  const uint wLength = xSqrt(bDot(w, w));
  outV = bDivide(w, wLength);
  outLength = xMul(m, wLength);
  return true;
}

Mat3 billboardAxes(BillboardView view) { return Mat3(view.right, view.up, bNeg(view.forward)); }

uvec3 towardViewer(BillboardView view, uvec3 position) {
  uvec3 e = bNeg(view.forward);
  if (!view.orthographic) {
    uvec3 toEye = e;
    uint unused = 0u;
    if (normalizeScaled(bSub(view.eye, position), kZero, toEye, unused)) e = toEye;
  }
  return e;
}

Mat3 axisLockedFrame(BillboardView view, uvec3 axis, uvec3 position) {
  uvec3 a = axis;
  uint unused = 0u;
  if (!normalizeScaled(axis, kBillboardMinLength, a, unused)) return billboardAxes(view);
  const uvec3 e = towardViewer(view, position);
  const uvec3 across = bSub(e, bScale(a, bDot(e, a)));
  if (!xLt(kBillboardParallelSineSquared, bDot(across, across))) return billboardAxes(view);
  const uvec3 n = bNormalize(across);
  return Mat3(bCross(a, n), a, n);
}

// Stretched's screen motion: moving, the world direction of the screen velocity and the stretch.
bool screenMotion(BillboardView view, BillboardInput particle, out uvec3 direction,
                  out uint stretch) {
  direction = uvec3(0u);
  stretch = kOne;
  uvec3 vUnit = uvec3(0u);
  uint speed = 0u;
  if (!normalizeScaled(particle.velocity, kZero, vUnit, speed)) return false;
  const uint vx = bDot(vUnit, view.right);
  const uint vy = bDot(vUnit, view.up);
  uint sx = vx;
  uint sy = vy;
  uint heightsPerSecondPerUnit = view.heightsPerUnit;
  if (!view.orthographic) {
    uvec3 dUnit = uvec3(0u);
    uint eyeDistance = 0u;
    if (!normalizeScaled(bSub(particle.position, view.eye), kZero, dUnit, eyeDistance)) return false;
    const uint x = bDot(dUnit, view.right);
    const uint y = bDot(dUnit, view.up);
    const uint z = bDot(dUnit, view.forward);
    if (!xLt(kZero, z)) return false;
    const uint vz = bDot(vUnit, view.forward);
    sx = xSub(xMul(vx, z), xMul(x, vz));
    sy = xSub(xMul(vy, z), xMul(y, vz));
    heightsPerSecondPerUnit = xDiv(view.heightsPerUnit, xMul(xMul(eyeDistance, z), z));
  }
  const uint planar = xSqrt(xAdd(xMul(sx, sx), xMul(sy, sy)));
  if (!xLt(kBillboardParallelSine, planar)) return false;
  direction = bNormalize(
      bAdd(bScale(view.right, xDiv(sx, planar)), bScale(view.up, xDiv(sy, planar))));
  const uint screenSpeed = xMul(xMul(planar, speed), heightsPerSecondPerUnit);
  const uint extra =
      xLt(kZero, view.stretchScaleSeconds) ? xMul(screenSpeed, view.stretchScaleSeconds) : kZero;
  stretch = xLt(extra, xSub(kBillboardMaxStretch, kOne)) ? xAdd(kOne, extra)
                                                         : kBillboardMaxStretch;
  return true;
}

// billboard.cpp's normalizedOrientation on (x, y, z, w): the zero or a non-finite quaternion
// reads as no turn.
uvec4 normalizedOrientation(uvec4 q) {
  const bool isFinite = bFinite(q.x) && bFinite(q.y) && bFinite(q.z) && bFinite(q.w);
  const uint m = xMax(xMax(xAbs(q.x), xAbs(q.y)), xMax(xAbs(q.z), xAbs(q.w)));
  if (!isFinite || !xLt(kZero, m)) return uvec4(kZero, kZero, kZero, kOne);
  const uvec4 s = uvec4(xDiv(q.x, m), xDiv(q.y, m), xDiv(q.z, m), xDiv(q.w, m));
  // glm's quaternion dot: (w·w + x·x) + (y·y + z·z).
  const uint dot4 = xAdd(xAdd(xMul(s.w, s.w), xMul(s.x, s.x)), xAdd(xMul(s.y, s.y), xMul(s.z, s.z)));
  const uint len = xSqrt(dot4);
  return uvec4(xDiv(s.x, len), xDiv(s.y, len), xDiv(s.z, len), xDiv(s.w, len));
}

// glm::mat3_cast of a unit quaternion (x, y, z, w).
Mat3 mat3Cast(uvec4 q) {
  const uint two = 0x40000000u;
  const uint qxx = xMul(q.x, q.x), qyy = xMul(q.y, q.y), qzz = xMul(q.z, q.z);
  const uint qxz = xMul(q.x, q.z), qxy = xMul(q.x, q.y), qyz = xMul(q.y, q.z);
  const uint qwx = xMul(q.w, q.x), qwy = xMul(q.w, q.y), qwz = xMul(q.w, q.z);
  return Mat3(uvec3(xSub(kOne, xMul(two, xAdd(qyy, qzz))), xMul(two, xAdd(qxy, qwz)),
                    xMul(two, xSub(qxz, qwy))),
              uvec3(xMul(two, xSub(qxy, qwz)), xSub(kOne, xMul(two, xAdd(qxx, qzz))),
                    xMul(two, xAdd(qyz, qwx))),
              uvec3(xMul(two, xAdd(qxz, qwy)), xMul(two, xSub(qyz, qwx)),
                    xSub(kOne, xMul(two, xAdd(qxx, qyy)))));
}

// glm's a · v for a mat3: ((a[0]·v.x + a[1]·v.y) + a[2]·v.z), per row.
uvec3 mat3TimesVec(Mat3 a, uvec3 v) {
  return bAdd(bAdd(bScale(a.c0, v.x), bScale(a.c1, v.y)), bScale(a.c2, v.z));
}

// glm's a · b for mat3s: column j is a · b[j].
Mat3 mat3Times(Mat3 a, Mat3 b) {
  return Mat3(mat3TimesVec(a, b.c0), mat3TimesVec(a, b.c1), mat3TimesVec(a, b.c2));
}

// The frame of `mode` and, for Stretched, its stretch (billboard.cpp's frameAndStretch).
struct Frame {
  Mat3 axes;
  uint stretch;
};

Frame frameAndStretch(BillboardView view, uint mode, BillboardInput particle) {
  Frame f = Frame(billboardAxes(view), kOne);  // kModeBillboard, and Stretched at rest
  if (mode == kModeStretched) {
    uvec3 direction;
    uint s;
    if (screenMotion(view, particle, direction, s)) {
      const uvec3 n = bNeg(view.forward);
      f = Frame(Mat3(bCross(direction, n), direction, n), s);
    }
  } else if (mode == kModeVertical) {
    f.axes = axisLockedFrame(view, uvec3(kZero, kOne, kZero), particle.position);
  } else if (mode == kModeHorizontal) {
    f.axes = Mat3(uvec3(kOne, kZero, kZero), uvec3(kZero, kZero, kOne ^ kSignBit),
                  uvec3(kZero, kOne, kZero));
  } else if (mode == kModeFacingWorld) {
    f.axes = Mat3(uvec3(kOne, kZero, kZero), uvec3(kZero, kOne, kZero), uvec3(kZero, kZero, kOne));
  } else if (mode == kModeBillboardLocalZ) {
    f.axes = mat3Cast(normalizedOrientation(particle.emitterRotation));
  } else if (mode == kModeBillboardWorldZ) {
    f.axes = Mat3(view.groundRight, view.groundUp, view.worldUp);
  } else if (mode == kModeAlignedWorldZ) {
    f.axes = axisLockedFrame(view, view.worldUp, particle.position);
  } else if (mode == kModeVelocityAligned) {
    f.axes = axisLockedFrame(view, particle.velocity, particle.position);
  }
  return f;
}

// render::particleBasis: the frame turned by the particle's quaternion, its right scaled by the
// half width and its up by the half height times the stretch.
Mat3 particleBasis(BillboardView view, uint mode, BillboardInput particle) {
  const Frame frame = frameAndStretch(view, mode, particle);
  const Mat3 turned = mat3Times(frame.axes, mat3Cast(normalizedOrientation(particle.orientation)));
  return Mat3(bScale(turned.c0, particle.halfSize.x),
              bScale(turned.c1, xMul(particle.halfSize.y, frame.stretch)), turned.c2);
}

// render::billboardCorners' corner `corner` (billboard order: (−1, −1), (1, −1), (1, 1), (−1, 1)).
uvec3 billboardCorner(Mat3 basis, uvec3 position, uint corner) {
  const uint sx = (corner == 1u || corner == 2u) ? kOne : kOne ^ kSignBit;
  const uint sy = corner >= 2u ? kOne : kOne ^ kSignBit;
  return bAdd(position, bAdd(bScale(basis.c0, sx), bScale(basis.c1, sy)));
}

#endif  // MOTE_BILLBOARD_GLSL
