// SPDX-License-Identifier: MIT
// The batched VM's per-particle ops (lane-mixing ops, host calls, the random shapes' and CURVE's
// per-particle steps), compiled once for the baseline target like the reference executor.
#include "vm_detail.h"

#include <mote/bytecode/reference.h>
#include <mote/bytecode/semantics.h>
#include <mote/core/assert.h>
#include <mote/core/counter_rng.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

namespace mote::vm_detail {
namespace {

using bytecode::Builtin;
using bytecode::OpClass;
using bytecode::Opcode;
using bytecode::semantics::Lanes;

// Runs `shape(words, i)` for each particle of the batch and writes its three lanes to dst.
template <class F>
void eachShape(const BatchState& batch, const PreparedProgram::Op& op, const std::uint32_t* bits,
               F shape) {
  std::array<float*, 3> d{};
  for (std::uint32_t c = 0; c < 3; ++c)
    d[c] = batch.rows + std::size_t{op.dst + c} * kBatchLanes;
  for (std::uint32_t i = 0; i < batch.n; ++i) {
    const std::array<std::uint32_t, 4> words{bits[i], bits[kBatchLanes + i],
                                             bits[2 * kBatchLanes + i], bits[3 * kBatchLanes + i]};
    const Lanes v = shape(words, i);
    for (std::uint32_t c = 0; c < 3; ++c)
      d[c][i] = v[c];
  }
  for (std::uint32_t c = 0; c < 3; ++c)
    batch.rowSources[op.dst + c] = d[c];
}

}  // namespace

void randomShapes(const BatchState& batch, const PreparedProgram::Op& op, const std::uint32_t* bits,
                  const float* cosines) {
  using Words = std::array<std::uint32_t, 4>;
  switch (op.op) {
    case bytecode::ofClass(OpClass::RandomShape, Opcode::RandSphere): {
      // The per-target code left rho, sin phi and z in dst rows 0, 1 and 2 and cos phi in
      // `cosines`: finish ballPoint (r = cbrt of the third word) as semantics.h does.
      std::array<float*, 3> d{};
      for (std::uint32_t c = 0; c < 3; ++c) {
        d[c] = batch.rows + std::size_t{op.dst + c} * kBatchLanes;
        batch.rowSources[op.dst + c] = d[c];
      }
      for (std::uint32_t i = 0; i < batch.n; ++i) {
        const float r = bytecode::semantics::cubeRoot(unitFloatFromU32(bits[2 * kBatchLanes + i]));
        const float rho = d[0][i];
        d[0][i] = r * rho * cosines[i];
        d[1][i] = r * rho * d[1][i];
        d[2][i] = r * d[2][i];
      }
      break;
    }
    case bytecode::ofClass(OpClass::RandomShape, Opcode::RandDisk):
      eachShape(batch, op, bits,
                [](const Words& b, std::uint32_t) { return bytecode::semantics::diskPoint(b); });
      break;
    case bytecode::ofClass(OpClass::RandomShape, Opcode::RandCone): {
      // Read before the particle's lanes are written: the angle may be a lane of dst.
      const float* halfAngle = batch.rowSources[op.src[1].rows[0]];
      eachShape(batch, op, bits, [halfAngle](const Words& b, std::uint32_t i) {
        return bytecode::semantics::coneDirection(b, halfAngle[i]);
      });
      break;
    }
    default:
      MOTE_ASSERT(false, "BatchVm: not a random shape");
      break;
  }
}

void curveSegments(const BatchState& batch, const PreparedProgram::Op& op,
                   const std::vector<std::array<float, 4>>& constants, float* out,
                   std::uint32_t begin, std::uint32_t end) {
  namespace sem = bytecode::semantics;
  const std::uint32_t w = op.width;
  const sem::CurveTable table{
      constants.data() + op.index, op.index2 & 0xFFFFu, w,
      static_cast<bytecode::CurveTableInterp>(op.index2 >> bytecode::kCurveInterpShift)};
  const float* t = batch.rowSources[op.src[1].rows[0]];
  for (std::uint32_t i = begin; i < end; ++i) {
    const sem::CurveSegment seg = sem::curveSegment(table, t[i]);
    out[i] = seg.s;
    for (std::uint32_t c = 0; c < w; ++c) {
      out[std::size_t{1 + c} * kBatchLanes + i] = sem::curveStart(table, seg, c);
      out[std::size_t{5 + c} * kBatchLanes + i] = table.delta(seg.segment, c);
    }
  }
}

// COLLIDE: the batch's casts, kCollisionChunk at a time, to the host's world.
void collide(const BatchState& batch, const PreparedProgram::Op& op,
             const std::array<std::array<const float*, 4>, 3>& s, const std::array<float*, 4>& d) {
  const bytecode::CollisionProvider* world = batch.ctx->collision;
  std::array<bytecode::CollisionCast, bytecode::kCollisionChunk> casts;
  std::array<bytecode::CollisionHit, bytecode::kCollisionChunk> hits;
  for (std::uint32_t first = 0; first < batch.n; first += bytecode::kCollisionChunk) {
    const std::uint32_t n = std::min(bytecode::kCollisionChunk, batch.n - first);
    for (std::uint32_t k = 0; k < n; ++k) {
      const std::uint32_t i = first + k;
      casts[k] = {
          {s[0][0][i], s[0][1][i], s[0][2][i]}, {s[1][0][i], s[1][1][i], s[1][2][i]}, s[2][0][i]};
      hits[k] = {};
    }
    if (world != nullptr) world->cast({casts.data(), n}, {hits.data(), n});
    for (std::uint32_t k = 0; k < n; ++k) {
      const std::array<float, 4> r = bytecode::collideResult(casts[k], hits[k]);
      for (std::uint32_t c = 0; c < 4; ++c)
        d[c][first + k] = r[c];
    }
  }
  for (std::uint32_t c = 0; c < 4; ++c)
    batch.rowSources[op.dst + c] = d[c];
}

// The lane-mixing ops and host calls (runsPerParticle), one particle at a time: gather its
// sources, compute as the reference
// does, write its destination lanes.
void runPerParticle(const BatchState& batch, const PreparedProgram::Op& op) {
  const VmContext& ctx = *batch.ctx;
  std::array<std::array<const float*, 4>, 3> s{};
  for (std::uint32_t slot = 0; slot < 3; ++slot)
    for (std::uint32_t c = 0; c < 4; ++c)
      s[slot][c] = batch.rowSources[op.src[slot].rows[c]];
  const std::uint32_t w = op.width;
  const std::uint32_t dw = bytecode::dstWidth(bytecode::opInfo(op.op).width, w);
  std::array<float*, 4> d{};
  for (std::uint32_t c = 0; c < dw; ++c)
    d[c] = batch.rows + std::size_t{op.dst + c} * kBatchLanes;
  const float* laneDt = ctx.laneBuiltins[static_cast<std::size_t>(Builtin::Dt)][0];
  // No host wind: every particle's sample is zero. No spawn sink, or a count below 1 (floor(c)
  // >= 1 exactly when c >= 1): nothing to call for that particle. Both without the per-particle
  // dispatch below.
  if (op.op == Opcode::SampleWind && ctx.wind == nullptr) {
    for (std::uint32_t c = 0; c < 3; ++c) {
      std::fill_n(d[c], batch.n, 0.0f);
      batch.rowSources[op.dst + c] = d[c];
    }
    return;
  }
  if (op.op == Opcode::Collide) {
    collide(batch, op, s, d);
    return;
  }
  // SPAWN, SPAWNI, TRAIL and REPORT: nothing for a particle whose count (or flag) is below 1 or
  // NaN.
  const bool spawns =
      op.op == Opcode::Spawn || op.op == Opcode::SpawnInherit || op.op == Opcode::Trail;
  const bool reports = op.op == Opcode::Report;
  if ((spawns && ctx.spawn == nullptr) || (reports && ctx.report == nullptr)) return;
  const float* const counts = op.op == Opcode::Spawn ? s[1][0] : s[0][3];
  const auto sourceId = [&](std::uint32_t i) {
    return ctx.particleIds != nullptr ? ctx.particleIds[batch.first + i] : 0u;
  };
  for (std::uint32_t i = 0; i < batch.n; ++i) {
    if ((spawns || reports) && !(counts[i] >= 1.0f)) continue;
    const auto get = [&](std::uint32_t slot, std::uint32_t lanes) {
      Lanes v{};
      for (std::uint32_t c = 0; c < lanes; ++c)
        v[c] = s[slot][c][i];
      return v;
    };
    const auto put = [&](const Lanes& v, std::uint32_t lanes) {
      for (std::uint32_t c = 0; c < lanes; ++c)
        d[c][i] = v[c];
    };
    switch (op.op) {
      case perParticle(Opcode::Cross): {
        const Lanes a = get(0, 3);
        const Lanes b = get(1, 3);
        put({a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0], 0.0f},
            3);
        break;
      }
      case perParticle(Opcode::CurlNoise): {
        const Lanes a = get(0, 3);
        const float f = get(1, 1)[0];
        const std::array<float, 3> c = bytecode::curlNoise({a[0] * f, a[1] * f, a[2] * f});
        put({c[0], c[1], c[2], 0.0f}, 3);
        break;
      }
      case perParticle(Opcode::QuatFromAxisAngle): {
        const Lanes axis = get(0, 3);
        put(bytecode::semantics::quatAxisAngle(axis[0], axis[1], axis[2], get(1, 1)[0]), 4);
        break;
      }
      case perParticle(Opcode::QuatMul):
        put(bytecode::semantics::quatMul(get(0, 4), get(1, 4)), 4);
        break;
      case perParticle(Opcode::QuatRotate):
        put(bytecode::semantics::quatRotate(get(0, 4), get(1, 3)), 3);
        break;
      case perParticle(Opcode::QuatIntegrate): {
        const Lanes q = get(0, 4);
        const Lanes omega = get(1, 3);
        const float rate =
            std::sqrt(omega[0] * omega[0] + omega[1] * omega[1] + omega[2] * omega[2]);
        const float dt = laneDt != nullptr ? laneDt[batch.first + i]
                                           : ctx.builtins[static_cast<std::size_t>(Builtin::Dt)][0];
        put(bytecode::semantics::quatMul(
                bytecode::semantics::quatAxisAngle(omega[0], omega[1], omega[2], rate * dt), q),
            4);
        break;
      }
      case perParticle(Opcode::SampleWind): {
        const Lanes pos = get(0, 3);
        std::array<float, 3> wind{0.0f, 0.0f, 0.0f};
        if (ctx.wind != nullptr) wind = ctx.wind({pos[0], pos[1], pos[2]}, ctx.windUser);
        put({wind[0], wind[1], wind[2], 0.0f}, 3);
        break;
      }
      case perParticle(Opcode::Spawn): {
        const Lanes at = get(2, 3);
        ctx.spawn(op.index, bytecode::semantics::spawnCount(get(1, 1)[0]), {at[0], at[1], at[2]},
                  bytecode::Inheritance{}, sourceId(i), ctx.spawnUser);
        break;
      }
      case perParticle(Opcode::Report): {
        const Lanes a = get(0, 3);
        const Lanes b = get(1, 4);
        ctx.report(static_cast<bytecode::ReportKind>(op.dst), bytecode::semantics::reportTag(b[3]),
                   {a[0], a[1], a[2]}, {b[0], b[1], b[2]}, sourceId(i), ctx.reportUser);
        break;
      }
      case perParticle(Opcode::SpawnInherit): {
        const Lanes a = get(0, 4);
        const Lanes b = get(1, 4);
        ctx.spawn(op.dst, bytecode::semantics::spawnCount(a[3]), {a[0], a[1], a[2]},
                  bytecode::Inheritance{{b[0], b[1], b[2]}, b[3], get(2, 4)}, sourceId(i),
                  ctx.spawnUser);
        break;
      }
      case perParticle(Opcode::Trail): {
        const Lanes a = get(0, 4);
        ctx.spawn(op.dst, bytecode::semantics::spawnCount(a[3]), {a[0], a[1], a[2]},
                  bytecode::trailInheritance(get(1, 4), get(2, 4)), sourceId(i), ctx.spawnUser);
        break;
      }
      default:
        MOTE_ASSERT(false, "BatchVm: an opcode without an implementation");
        break;
    }
  }
  for (std::uint32_t c = 0; c < dw; ++c)
    batch.rowSources[op.dst + c] = d[c];
}

}  // namespace mote::vm_detail
