// SPDX-License-Identifier: MIT
// The batched VM's interpreter, compiled once per SIMD target: each instruction of a section runs
// over a batch of particles through the row kernels of vm_kernels-inl.h. Highway's per-target
// header convention: vm.cpp includes it once per target (foreach_target), and the guard toggles
// with HWY_TARGET_TOGGLE.
#if defined(MOTE_RUNTIME_VM_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef MOTE_RUNTIME_VM_INL_H_
#undef MOTE_RUNTIME_VM_INL_H_
#else
#define MOTE_RUNTIME_VM_INL_H_
#endif

#include "vm_detail.h"
#include "vm_kernels-inl.h"

#include <mote/bytecode/reference.h>
#include <mote/bytecode/semantics.h>
#include <mote/core/assert.h>
#include <mote/runtime/vm.h>

#include <hwy/highway.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>

HWY_BEFORE_NAMESPACE();
namespace mote {
namespace HWY_NAMESPACE {
namespace {

namespace hn = hwy::HWY_NAMESPACE;

using bytecode::Builtin;
using bytecode::OpClass;
using bytecode::Opcode;
using bytecode::semantics::Lanes;
using vm_detail::RunArgs;

class Interpreter {
 public:
  explicit Interpreter(const RunArgs& args)
      : program_(*args.program),
        section_(args.section),
        ctx_(*args.ctx),
        streams_(args.streams),
        rows_(args.rows),
        src_(args.rowSources),
        scratch_(args.program->registerCount()),
        ids_(args.ids),
        bits_(args.bits),
        curve_(args.curveRows) {
    for (std::uint32_t b = 0; b < bytecode::kBuiltinCount; ++b)
      if (ctx_.laneBuiltins[b][0] != nullptr) perParticleBuiltins_ |= 1u << b;
  }

  void runBatch(std::uint32_t first, std::uint32_t n, std::uint8_t* killed) {
    first_ = first;
    n_ = n;
    killed_ = killed;
    idsLoaded_ = false;
    // Immediate rows keep the sources run() gave them; registers start as their own rows.
    for (std::uint32_t r = 0; r < scratch_; ++r)
      src_[r] = own(r);
    for (const PreparedProgram::Op& op : program_.section(section_))
      step(op);
    firstBatch_ = false;
  }

 private:
  float* own(std::uint32_t row) const { return rows_ + std::size_t{row} * kBatchLanes; }
  float* stream(std::uint32_t word) const { return streams_[word] + first_; }
  const float* read(const PreparedProgram::Source& s, std::uint32_t lane) const {
    return src_[s.rows[lane]];
  }

  void fill(std::uint32_t row, float v) {
    float* d = own(row);
    std::uint32_t i = 0;
    if constexpr (kSimd) {
      const Tag t;
      const std::uint32_t step = static_cast<std::uint32_t>(hn::Lanes(t));
      const auto vv = hn::Set(t, v);
      for (; i + step <= n_; i += step)
        hn::StoreU(vv, t, d + i);
    }
    for (; i < n_; ++i)
      d[i] = v;
    src_[row] = d;
  }

  // Where lane c of an elementwise op's result goes.
  float* target(const PreparedProgram::Op& op, std::uint32_t c) const {
    if (op.viaScratch) return own(scratch_ + c);
    if (op.directWord != PreparedProgram::kNoWord) return stream(op.directWord + c);
    return own(op.dst + c);
  }
  // Lane c written into its own row: later lanes read it there. A result written into a stream
  // takes over its rows only once every lane is done (finishRows), so later lanes still read
  // the rows' old values — what lets `fma.3 r0, r5, r0.xxxx, r2` write a stream without scratch.
  void finish(const PreparedProgram::Op& op, std::uint32_t c, float* written) {
    if (!op.viaScratch && op.directWord == PreparedProgram::kNoWord) src_[op.dst + c] = written;
  }
  // After the last lane: the dst rows read the stream the op wrote, or get the scratch rows' copy.
  void finishRows(const PreparedProgram::Op& op) {
    if (op.directWord != PreparedProgram::kNoWord) {
      for (std::uint32_t c = 0; c < op.width; ++c)
        src_[op.dst + c] = stream(op.directWord + c);
      return;
    }
    if (!op.viaScratch) return;
    for (std::uint32_t c = 0; c < op.width; ++c) {
      std::memcpy(own(op.dst + c), own(scratch_ + c), n_ * sizeof(float));
      src_[op.dst + c] = own(op.dst + c);
    }
  }

  template <bool kVector, class F>
  void map1(const PreparedProgram::Op& op, F f) {
    for (std::uint32_t c = 0; c < op.width; ++c) {
      float* d = target(op, c);
      lanes1<kVector>(f, n_, d, read(op.src[0], c));
      finish(op, c, d);
    }
    finishRows(op);
  }
  template <bool kVector, class F>
  void map2(const PreparedProgram::Op& op, F f) {
    for (std::uint32_t c = 0; c < op.width; ++c) {
      float* d = target(op, c);
      lanes2<kVector>(f, n_, d, read(op.src[0], c), read(op.src[1], c));
      finish(op, c, d);
    }
    finishRows(op);
  }
  template <bool kVector, class F>
  void map3(const PreparedProgram::Op& op, F f) {
    for (std::uint32_t c = 0; c < op.width; ++c) {
      float* d = target(op, c);
      lanes3<kVector>(f, n_, d, read(op.src[0], c), read(op.src[1], c), read(op.src[2], c));
      finish(op, c, d);
    }
    finishRows(op);
  }

  void kill(const float* a) {
    std::uint32_t i = 0;
    if constexpr (kSimd) {
      const Tag d;
      const std::uint32_t step = static_cast<std::uint32_t>(hn::Lanes(d));
      for (; i + step <= n_; i += step) {
        if (hn::AllTrue(d, hn::Eq(hn::LoadU(d, a + i), hn::Zero(d)))) continue;
        for (std::uint32_t j = i; j < i + step; ++j)
          if (a[j] != 0.0f) killed_[j] = 1;
      }
    }
    for (; i < n_; ++i)
      if (a[i] != 0.0f) killed_[i] = 1;
  }

  // The batch's particle ids (the random counter; 0 without ids), zero past n to whole vectors.
  const std::uint32_t* ids() {
    if (!idsLoaded_) {
      if (ctx_.particleIds != nullptr) {
        std::memcpy(ids_, ctx_.particleIds + first_, n_ * sizeof(std::uint32_t));
        std::fill(ids_ + n_, ids_ + vectorCount(), 0u);
      } else {
        std::fill_n(ids_, vectorCount(), 0u);
      }
      idsLoaded_ = true;
    }
    return ids_;
  }
  Philox philox(const PreparedProgram::Op& op) const {
    return Philox(ctx_.seed, bytecode::randomStream(section_, ctx_.tick, op.index));
  }
  // Particles rounded up to whole vectors: the draws run past n into the rows' spare lanes.
  std::uint32_t vectorCount() const {
    const std::uint32_t step = static_cast<std::uint32_t>(hn::Lanes(TagU()));
    return (n_ + step - 1) / step * step;
  }

  // RAND_UNIFORM: lane c is unitFloatFromU32(word c). Written whole vectors at a time into own
  // rows (kBatchLanes long; random ops never write streams).
  void randUniform(const PreparedProgram::Op& op) {
    MOTE_ASSERT(op.directWord == PreparedProgram::kNoWord, "BatchVm: a random op into a stream");
    const TagU du;
    const Tag d;
    const std::uint32_t step = static_cast<std::uint32_t>(hn::Lanes(du));
    const Philox draw = philox(op);
    const std::uint32_t* id = ids();
    const std::uint32_t end = vectorCount();
    std::array<float*, 4> out{};
    for (std::uint32_t c = 0; c < op.width; ++c)
      out[c] = target(op, c);
    for (std::uint32_t i = 0; i < end; i += step) {
      const std::array<VecU, 4> bits = draw(hn::LoadU(du, id + i));
      for (std::uint32_t c = 0; c < op.width; ++c)
        hn::StoreU(unitFloat(bits[c]), d, out[c] + i);
    }
    for (std::uint32_t c = 0; c < op.width; ++c)
      finish(op, c, out[c]);
    finishRows(op);
  }

  // RAND_RANGE: lo + (hi - lo) * u, as explicit vector ops (no contraction into an FMA). The
  // sources may be streams read in place: the last partial vector is read through a copy.
  void randRange(const PreparedProgram::Op& op) {
    MOTE_ASSERT(op.directWord == PreparedProgram::kNoWord, "BatchVm: a random op into a stream");
    const TagU du;
    const Tag d;
    const std::uint32_t step = static_cast<std::uint32_t>(hn::Lanes(du));
    const Philox draw = philox(op);
    const std::uint32_t* id = ids();
    const std::uint32_t end = vectorCount();
    const std::uint32_t w = op.width;
    std::array<const float*, 4> lo{};
    std::array<const float*, 4> hi{};
    std::array<float*, 4> out{};
    for (std::uint32_t c = 0; c < w; ++c) {
      lo[c] = read(op.src[1], c);
      hi[c] = read(op.src[2], c);
      out[c] = target(op, c);
    }
    for (std::uint32_t i = 0; i < end; i += step) {
      const std::array<VecU, 4> bits = draw(hn::LoadU(du, id + i));
      const std::uint32_t valid = std::min(step, n_ - i);
      const auto load = [&](const float* p) {
        if (valid == step) return hn::LoadU(d, p);
        alignas(64) std::array<float, HWY_MAX_BYTES / sizeof(float)> part{};
        std::memcpy(part.data(), p, valid * sizeof(float));
        return hn::LoadU(d, part.data());
      };
      for (std::uint32_t c = 0; c < w; ++c) {
        const auto l = load(lo[c] + i);
        const auto h = load(hi[c] + i);
        hn::StoreU(hn::Add(l, hn::Mul(hn::Sub(h, l), unitFloat(bits[c]))), d, out[c] + i);
      }
    }
    for (std::uint32_t c = 0; c < w; ++c)
      finish(op, c, out[c]);
    finishRows(op);
  }

  // The random shapes: the draws here, the disk's and the cone's formulas per particle in
  // vm_detail. The unit vector and the ball point (semantics.h's unitVector and ballPoint) start
  // alike: z = 1 - 2u, phi = (2π)u and rho = sqrt(fmax(0, 1 - z·z)) are computed here in vectors,
  // in the same order (1 - z·z is never negative or NaN, so Max is fmax), into dst rows 2, 1 and
  // 0, then sin phi and cos phi (SinCosLanes); the unit vector is finished here, the ball point's
  // cube root stays per particle.
  void randShape(const PreparedProgram::Op& op) {
    const TagU du;
    const Tag d;
    const std::uint32_t step = static_cast<std::uint32_t>(hn::Lanes(du));
    const Philox draw = philox(op);
    const std::uint32_t* id = ids();
    const std::uint32_t end = vectorCount();
    const bool sphere = op.op == Opcode::RandUnitVector || op.op == Opcode::RandSphere;
    const auto one = hn::Set(d, 1.0f);
    for (std::uint32_t i = 0; i < end; i += step) {
      const std::array<VecU, 4> bits = draw(hn::LoadU(du, id + i));
      if (!sphere) {
        for (std::uint32_t k = 0; k < 4; ++k)
          hn::StoreU(bits[k], du, bits_ + std::size_t{k} * kBatchLanes + i);
        continue;
      }
      const auto z = hn::Sub(one, hn::Mul(hn::Set(d, 2.0f), unitFloat(bits[0])));
      const auto phi = hn::Mul(hn::Set(d, 2.0f * bytecode::semantics::kPi), unitFloat(bits[1]));
      const auto rho = hn::Sqrt(hn::Max(hn::Zero(d), hn::Sub(one, hn::Mul(z, z))));
      hn::StoreU(rho, d, own(op.dst) + i);
      hn::StoreU(phi, d, own(op.dst + 1) + i);
      hn::StoreU(z, d, own(op.dst + 2) + i);
      hn::StoreU(bits[2], du, bits_ + std::size_t{2} * kBatchLanes + i);
    }
    if (sphere) {  // sin phi over phi's row, cos phi into the curve rows' first
      float* const phi = own(op.dst + 1);
      SinCosLanes(phi, phi, curve_, n_);
    }
    if (op.op == Opcode::RandUnitVector) {  // (rho cos phi, rho sin phi, z): whole vectors of rows
      float* const rho = own(op.dst);
      float* const sinPhi = own(op.dst + 1);
      for (std::uint32_t i = 0; i < n_; i += step) {
        const auto r = hn::LoadU(d, rho + i);
        hn::StoreU(hn::Mul(r, hn::LoadU(d, curve_ + i)), d, rho + i);
        hn::StoreU(hn::Mul(r, hn::LoadU(d, sinPhi + i)), d, sinPhi + i);
      }
      for (std::uint32_t c = 0; c < 3; ++c)
        src_[op.dst + c] = own(op.dst + c);
      return;
    }
    vm_detail::randomShapes({&ctx_, section_, first_, n_, rows_, src_}, op, bits_, curve_);
  }

  // CROSS, QMUL and QROT across lanes: the reference's cross product and semantics.h's quatMul /
  // quatRotate with the same IEEE operations
  // in the same order — explicit vector ops, so nothing is contracted into an FMA and every lane
  // matches the reference bit for bit (the zero terms of the pure quaternion (v, 0) included:
  // they fix the signs of zeros). Each vector's sources are loaded before its results are stored,
  // so dst may overlap a source; a partial last vector goes through copies.
  void quaternion(const PreparedProgram::Op& op) {
    using V = hn::Vec<Tag>;
    const Tag d;
    const std::uint32_t step = static_cast<std::uint32_t>(hn::Lanes(d));
    const bool rotate = op.op == Opcode::QuatRotate;
    const bool cross = op.op == Opcode::Cross;
    const std::uint32_t aWidth = cross ? 3 : 4;
    const std::uint32_t bWidth = rotate || cross ? 3 : 4;
    std::array<const float*, 4> a{};
    std::array<const float*, 4> b{};
    std::array<float*, 4> out{};
    for (std::uint32_t c = 0; c < aWidth; ++c)
      a[c] = read(op.src[0], c);
    for (std::uint32_t c = 0; c < bWidth; ++c)
      b[c] = read(op.src[1], c);
    for (std::uint32_t c = 0; c < op.width; ++c)
      out[c] = target(op, c);
    // quatMul(x, y) of semantics.h, term by term.
    const auto mul = [](const std::array<V, 4>& x, const std::array<V, 4>& y) {
      return std::array<V, 4>{
          hn::Sub(hn::Add(hn::Add(hn::Mul(x[3], y[0]), hn::Mul(x[0], y[3])), hn::Mul(x[1], y[2])),
                  hn::Mul(x[2], y[1])),
          hn::Add(hn::Add(hn::Sub(hn::Mul(x[3], y[1]), hn::Mul(x[0], y[2])), hn::Mul(x[1], y[3])),
                  hn::Mul(x[2], y[0])),
          hn::Add(hn::Sub(hn::Add(hn::Mul(x[3], y[2]), hn::Mul(x[0], y[1])), hn::Mul(x[1], y[0])),
                  hn::Mul(x[2], y[3])),
          hn::Sub(hn::Sub(hn::Sub(hn::Mul(x[3], y[3]), hn::Mul(x[0], y[0])), hn::Mul(x[1], y[1])),
                  hn::Mul(x[2], y[2]))};
    };
    alignas(64) std::array<float, HWY_MAX_BYTES / sizeof(float)> part{};
    for (std::uint32_t i = 0; i < n_; i += step) {
      const std::uint32_t valid = std::min(step, n_ - i);
      const auto load = [&](const float* p) {
        if (valid == step) return hn::LoadU(d, p + i);
        part.fill(0.0f);
        std::memcpy(part.data(), p + i, valid * sizeof(float));
        return hn::LoadU(d, part.data());
      };
      std::array<V, 4> x{};
      std::array<V, 4> y{};
      for (std::uint32_t c = 0; c < 4; ++c)
        x[c] = c < aWidth ? load(a[c]) : hn::Zero(d);
      for (std::uint32_t c = 0; c < 4; ++c)
        y[c] = c < bWidth ? load(b[c]) : hn::Zero(d);
      std::array<V, 4> r{};
      if (cross) {
        r[0] = hn::Sub(hn::Mul(x[1], y[2]), hn::Mul(x[2], y[1]));
        r[1] = hn::Sub(hn::Mul(x[2], y[0]), hn::Mul(x[0], y[2]));
        r[2] = hn::Sub(hn::Mul(x[0], y[1]), hn::Mul(x[1], y[0]));
      } else if (rotate) {
        const V norm = hn::Sqrt(
            hn::Add(hn::Add(hn::Add(hn::Mul(x[0], x[0]), hn::Mul(x[1], x[1])), hn::Mul(x[2], x[2])),
                    hn::Mul(x[3], x[3])));
        std::array<V, 4> unit{};
        for (std::uint32_t c = 0; c < 4; ++c)
          unit[c] = hn::Div(x[c], norm);
        const std::array<V, 4> conj{hn::Neg(unit[0]), hn::Neg(unit[1]), hn::Neg(unit[2]), unit[3]};
        r = mul(mul(unit, y), conj);
        const auto zero = hn::Eq(norm, hn::Zero(d));  // a zero quaternion leaves v unchanged
        for (std::uint32_t c = 0; c < 3; ++c)
          r[c] = hn::IfThenElse(zero, y[c], r[c]);
      } else {
        r = mul(x, y);
      }
      for (std::uint32_t c = 0; c < op.width; ++c) {
        if (valid == step) {
          hn::StoreU(r[c], d, out[c] + i);
        } else {
          hn::StoreU(r[c], d, part.data());
          std::memcpy(out[c] + i, part.data(), valid * sizeof(float));
        }
      }
    }
    for (std::uint32_t c = 0; c < op.width; ++c)
      finish(op, c, out[c]);
    finishRows(op);
  }

  // DOT and LEN: the sum in the reference's order; the last lane's pass writes dst (lane i of
  // every source is read before dst[i] is written, so dst may be a source).
  void dot(const PreparedProgram::Op& op) {
    const bool isDot = op.op == Opcode::Dot;
    const PreparedProgram::Source& sa = op.src[0];
    const PreparedProgram::Source& sb = op.src[isDot ? 1 : 0];
    const std::uint32_t w = op.width;
    float* acc = own(scratch_);
    float* out = own(op.dst);
    for (std::uint32_t c = 0; c < w; ++c) {
      const float* a = read(sa, c);
      const float* b = read(sb, c);
      const bool last = c + 1 == w;
      float* d = last ? out : acc;
      if (c == 0) {
        if (last && !isDot) {
          lanes2<kSimd>(SqrtOfProduct{}, n_, d, a, b);
        } else {
          lanes2<kSimd>(MulOp{}, n_, d, a, b);
        }
      } else if (last && !isDot) {
        lanes3<kSimd>(AccumulateSqrt{}, n_, d, acc, a, b);
      } else {
        lanes3<kSimd>(Accumulate{}, n_, d, acc, a, b);
      }
    }
    src_[op.dst] = out;
  }
  void normalize(const PreparedProgram::Op& op) {
    const std::uint32_t w = op.width;
    float* len = own(scratch_ + 3);
    lanes2<kSimd>(MulOp{}, n_, len, read(op.src[0], 0), read(op.src[0], 0));
    for (std::uint32_t c = 1; c < w; ++c)
      lanes3<kSimd>(Accumulate{}, n_, len, len, read(op.src[0], c), read(op.src[0], c));
    lanes1<kSimd>(SqrtOp{}, n_, len, len);
    if (!op.viaScratch) {
      for (std::uint32_t c = 0; c < w; ++c) {
        float* d = own(op.dst + c);
        lanes2<kSimd>(NormalizeLane{}, n_, d, read(op.src[0], c), len);
        src_[op.dst + c] = d;
      }
      return;
    }
    // A later lane reads a row an earlier one writes: per particle, all lanes read first.
    std::array<const float*, 4> a{};
    for (std::uint32_t c = 0; c < w; ++c)
      a[c] = read(op.src[0], c);
    for (std::uint32_t i = 0; i < n_; ++i) {
      Lanes v{};
      for (std::uint32_t c = 0; c < w; ++c)
        v[c] = a[c][i];
      for (std::uint32_t c = 0; c < w; ++c)
        own(op.dst + c)[i] = NormalizeLane{}(v[c], len[i]);
    }
    for (std::uint32_t c = 0; c < w; ++c)
      src_[op.dst + c] = own(op.dst + c);
  }

  void curl(const PreparedProgram::Op& op) {
    const Tag d;
    const std::uint32_t step = static_cast<std::uint32_t>(hn::Lanes(d));
    std::array<const float*, 3> a{};
    for (std::uint32_t c = 0; c < 3; ++c)
      a[c] = read(op.src[0], c);
    const float* f = read(op.src[1], 0);
    std::array<float*, 3> out{};
    for (std::uint32_t c = 0; c < 3; ++c)
      out[c] = target(op, c);
    const VecF limit = hn::Set(d, 536870912.0f);  // 2^29: every lattice cell well inside ±2^30
    alignas(64) std::array<float, 3 * HWY_MAX_BYTES / sizeof(float)> part{};
    for (std::uint32_t i = 0; i < n_; i += step) {
      const std::uint32_t valid = std::min(step, n_ - i);
      const auto load = [&](const float* row, std::uint32_t slot) {
        if (valid == step) return hn::LoadU(d, row + i);
        float* lanes = part.data() + std::size_t{slot} * step;
        std::fill_n(lanes, step, 0.0f);
        std::memcpy(lanes, row + i, valid * sizeof(float));
        return hn::LoadU(d, lanes);
      };
      const VecF scale = load(f, 0);
      std::array<VecF, 3> p{};
      auto inside = hn::Eq(scale, scale);  // all true
      for (std::uint32_t c = 0; c < 3; ++c) {
        p[c] = hn::Mul(load(a[c], c), scale);
        inside = hn::And(inside, hn::Lt(hn::Abs(p[c]), limit));  // false for NaN
      }
      if (!hn::AllTrue(d, inside)) {
        for (std::uint32_t l = i; l < i + valid; ++l) {
          const float s = f[l];
          const std::array<float, 3> c =
              bytecode::curlNoise({a[0][l] * s, a[1][l] * s, a[2][l] * s});
          for (std::uint32_t k = 0; k < 3; ++k)
            part[std::size_t{k} * step + (l - i)] = c[k];
        }
        for (std::uint32_t k = 0; k < 3; ++k)
          std::memcpy(out[k] + i, part.data() + std::size_t{k} * step, valid * sizeof(float));
        continue;
      }
      const std::array<VecF, 3> r = curlNoise(p);
      for (std::uint32_t c = 0; c < 3; ++c) {
        if (valid == step) {
          hn::StoreU(r[c], d, out[c] + i);
        } else {
          hn::StoreU(r[c], d, part.data());
          std::memcpy(out[c] + i, part.data(), valid * sizeof(float));
        }
      }
    }
    for (std::uint32_t c = 0; c < 3; ++c)
      finish(op, c, out[c]);
    finishRows(op);
  }

  // CURVE a vector at a time: semantics.h's formulas as explicit vector ops (gathers from the
  // pool, compare + select for saturate, so nothing is contracted and no branch depends on t),
  // then fma(delta, s, start) into dst (two keys: curveTwoKeys). A vector with a lane where
  // curveSegment would scan back (a linear segment before it still below 1 at t, or a jump just
  // before it) takes vm_detail::curveSegments, lane for lane. Each vector reads t before it writes
  // dst, so dst may be t's row. Up to this many keys the search is a select per key, past it
  // dependent gathers: on this machine (AVX2 target) selects measured faster up to 32 keys
  // (docs/performance-history.md).
  static constexpr std::uint32_t kCurveSelectKeys = 32;

  // curveTwoKeys' loop for a width of W lanes: whole vectors straight from t's row to dst's, then
  // the partial vector through copies.
  template <std::uint32_t W, class P>
  void curveTwoKeysRun(const float* tRow, hn::Vec<Tag> firstTime,
                       const std::array<hn::Vec<Tag>, 4>& start,
                       const std::array<hn::Vec<Tag>, 4>& delta, const std::array<float*, 4>& out,
                       P parameter) {
    using V = hn::Vec<Tag>;
    const Tag d;
    const std::uint32_t step = static_cast<std::uint32_t>(hn::Lanes(d));
    std::uint32_t i = 0;
    if constexpr (kFusedFma) {
      const std::array<V, 4> s0 = start;
      const std::array<V, 4> d0 = delta;
      for (; i + step <= n_; i += step) {
        const V t = hn::LoadU(d, tRow + i);
        const V s = parameter(hn::IfThenElse(hn::Eq(t, t), t, firstTime));
        for (std::uint32_t c = 0; c < W; ++c)
          hn::StoreU(hn::MulAdd(d0[c], s, s0[c]), d, out[c] + i);
      }
    }
    for (; i < n_; i += step) {
      const std::uint32_t valid = std::min(step, n_ - i);
      const V s = parameter(curveTime(tRow, i, valid, firstTime));
      for (std::uint32_t c = 0; c < W; ++c)
        curveStore(out[c] + i, valid, delta[c], s, start[c]);
    }
  }

  // Two keys (the common case): one segment, so no search and no scan back, and the loop
  // invariants of curveParameter computed once — the same operations on the same values.
  void curveTwoKeys(const PreparedProgram::Op& op) {
    using V = hn::Vec<Tag>;
    const Tag d;
    const std::uint32_t w = op.width;
    const auto interp =
        static_cast<bytecode::CurveTableInterp>(op.index2 >> bytecode::kCurveInterpShift);
    const float* pool = program_.constantLanes() + std::size_t{op.index} * 4;
    const auto valueRun = static_cast<std::int32_t>(4 * bytecode::curveRunEntries(2, 1));
    const auto deltaRun = valueRun + static_cast<std::int32_t>(4 * bytecode::curveRunEntries(2, w));
    const V a = hn::Set(d, pool[0]);
    const V b = hn::Set(d, pool[1]);
    const V inv = hn::Div(hn::Set(d, 1.0f), hn::Sub(b, a));
    std::array<V, 4> start;
    std::array<V, 4> delta;
    std::array<float*, 4> out{};
    for (std::uint32_t c = 0; c < w; ++c) {
      start[c] = hn::Set(d, pool[valueRun + static_cast<std::int32_t>(c)]);
      delta[c] = hn::Set(d, pool[deltaRun + static_cast<std::int32_t>(c)]);
      out[c] = own(op.dst + c);
    }
    const float* tRow = read(op.src[1], 0);
    const auto each = [&](auto parameter) {
      switch (w) {
        case 1:
          return curveTwoKeysRun<1>(tRow, a, start, delta, out, parameter);
        case 2:
          return curveTwoKeysRun<2>(tRow, a, start, delta, out, parameter);
        case 3:
          return curveTwoKeysRun<3>(tRow, a, start, delta, out, parameter);
        default:
          return curveTwoKeysRun<4>(tRow, a, start, delta, out, parameter);
      }
    };
    if (interp == bytecode::CurveTableInterp::Linear && pool[0] < pool[1]) {
      each([&](V t) { return linearParameter(a, t, inv); });
    } else {
      each([&](V t) { return curveParameter(interp, a, b, t, inv); });
    }
    for (std::uint32_t c = 0; c < w; ++c)
      src_[op.dst + c] = out[c];
  }

  void curveVectors(const PreparedProgram::Op& op, std::uint32_t keys) {
    using V = hn::Vec<Tag>;
    using DI = hn::RebindToSigned<Tag>;
    using VI = hn::Vec<DI>;
    const Tag d;
    const DI di;
    const std::uint32_t step = static_cast<std::uint32_t>(hn::Lanes(d));
    const std::uint32_t w = op.width;
    const auto interp =
        static_cast<bytecode::CurveTableInterp>(op.index2 >> bytecode::kCurveInterpShift);
    const float* pool = program_.constantLanes() + std::size_t{op.index} * 4;
    // Float offsets into `pool` of the value and delta runs (isa.h, "CURVE").
    const auto valueRun = static_cast<std::int32_t>(4 * bytecode::curveRunEntries(keys, 1));
    const auto deltaRun =
        valueRun + static_cast<std::int32_t>(4 * bytecode::curveRunEntries(keys, w));
    const V one = hn::Set(d, 1.0f);
    const auto parameter = [&](V a, V b, V t) {
      return curveParameter(interp, a, b, t, hn::Div(one, hn::Sub(b, a)));
    };
    const float* tRow = read(op.src[1], 0);
    std::array<float*, 4> out{};
    for (std::uint32_t c = 0; c < w; ++c)
      out[c] = own(op.dst + c);
    const V firstTime = hn::Set(d, pool[0]);
    const VI oneI = hn::Set(di, 1);
    float* rows = curve_;  // curveSegments' rows, for the vectors that need it
    for (std::uint32_t i = 0; i < n_; i += step) {
      const std::uint32_t valid = std::min(step, n_ - i);
      const V t = curveTime(tRow, i, valid, firstTime);
      VI j = hn::Zero(di);
      V s;
      // Left uninitialised on purpose: value-initialising them costs a memset per vector; lanes
      // c < w are always set below.
      std::array<V, 4> start;
      std::array<V, 4> delta;
      bool late = false;
      if (keys <= kCurveSelectKeys) {
        // Few keys: the search as a select per key (times are non-decreasing, so the last key
        // at or before t wins, as in the binary search) — cheaper than dependent gathers.
        V a = firstTime;
        V b = hn::Set(d, pool[1]);
        V before = firstTime;
        for (std::uint32_t c = 0; c < w; ++c) {
          start[c] = hn::Set(d, pool[valueRun + static_cast<std::int32_t>(c)]);
          delta[c] = hn::Set(d, pool[deltaRun + static_cast<std::int32_t>(c)]);
        }
        auto past = hn::Lt(t, t);  // all false: segment 0
        for (std::uint32_t m = 1; m + 1 < keys; ++m) {
          const auto here = hn::Le(hn::Set(d, pool[m]), t);
          before = hn::IfThenElse(here, hn::Set(d, pool[m - 1]), before);
          a = hn::IfThenElse(here, hn::Set(d, pool[m]), a);
          b = hn::IfThenElse(here, hn::Set(d, pool[m + 1]), b);
          for (std::uint32_t c = 0; c < w; ++c) {
            const auto item = static_cast<std::int32_t>(w == 1 ? m : 4 * m + c);
            start[c] = hn::IfThenElse(here, hn::Set(d, pool[valueRun + item]), start[c]);
            delta[c] = hn::IfThenElse(here, hn::Set(d, pool[deltaRun + item]), delta[c]);
          }
          past = hn::Or(past, here);
        }
        s = parameter(a, b, t);
        if (interp == bytecode::CurveTableInterp::Linear) {
          // curveSegment's scan back: the previous segment unsaturated, or a jump just before a.
          const auto scan =
              hn::And(past, hn::Or(hn::Lt(parameter(before, a, t), one), hn::Eq(before, a)));
          late = !hn::AllFalse(d, scan);
        }
      } else {
        for (std::uint32_t m = keys - 1; m > 1;) {
          const std::uint32_t half = m / 2;
          const VI candidate = hn::Add(j, hn::Set(di, static_cast<std::int32_t>(half)));
          j = hn::IfThenElse(hn::RebindMask(di, hn::Le(hn::GatherIndex(d, pool, candidate), t)),
                             candidate, j);
          m -= half;
        }
        const V a = hn::GatherIndex(d, pool, j);
        const V b = hn::GatherIndex(d, pool, hn::Add(j, oneI));
        s = parameter(a, b, t);
        for (std::uint32_t c = 0; c < w; ++c) {
          const VI item =
              w == 1 ? j : hn::Add(hn::ShiftLeft<2>(j), hn::Set(di, static_cast<std::int32_t>(c)));
          start[c] = hn::GatherIndex(d, pool, hn::Add(item, hn::Set(di, valueRun)));
          delta[c] = hn::GatherIndex(d, pool, hn::Add(item, hn::Set(di, deltaRun)));
        }
        if (interp == bytecode::CurveTableInterp::Linear) {
          // curveSegment's scan back: the previous segment unsaturated, or a jump just before a.
          const V before = hn::GatherIndex(d, pool, hn::Max(hn::Sub(j, oneI), hn::Zero(di)));
          const auto scan = hn::And(
              hn::Gt(j, hn::Zero(di)),
              hn::RebindMask(di, hn::Or(hn::Lt(parameter(before, a, t), one), hn::Eq(before, a))));
          late = !hn::AllFalse(di, scan);
        }
      }
      if (late) {
        vm_detail::curveSegments({&ctx_, section_, first_, n_, rows_, src_}, op,
                                 program_.constants(), rows, i, i + valid);
        s = hn::LoadU(d, rows + i);
        for (std::uint32_t c = 0; c < w; ++c) {
          start[c] = hn::LoadU(d, rows + std::size_t{1 + c} * kBatchLanes + i);
          delta[c] = hn::LoadU(d, rows + std::size_t{5 + c} * kBatchLanes + i);
        }
      }
      for (std::uint32_t c = 0; c < w; ++c)
        curveStore(out[c] + i, valid, delta[c], s, start[c]);
    }
    for (std::uint32_t c = 0; c < w; ++c)
      src_[op.dst + c] = out[c];
  }

  // CURVE: the vector kernel above, or on the scalar target the search per particle
  // (vm_detail::curveSegments) and the lerp as FMA's kernel. A single key is its value.
  void curve(const PreparedProgram::Op& op) {
    const std::uint32_t keys = op.index2 & 0xFFFFu;
    if (keys == 1) {
      const bytecode::semantics::CurveTable table{program_.constants().data() + op.index, 1,
                                                  op.width, bytecode::CurveTableInterp::Linear};
      for (std::uint32_t c = 0; c < op.width; ++c)
        fill(op.dst + c, table.value(0, c));
      return;
    }
    if constexpr (kSimd) {
      if (keys == 2) {
        curveTwoKeys(op);
      } else {
        curveVectors(op, keys);
      }
    } else {
      float* rows = curve_;
      vm_detail::curveSegments({&ctx_, section_, first_, n_, rows_, src_}, op, program_.constants(),
                               rows, 0, n_);
      for (std::uint32_t c = 0; c < op.width; ++c) {
        float* d = own(op.dst + c);
        lanes3<kFusedFma>(FmaOp{}, n_, d, rows + std::size_t{5 + c} * kBatchLanes, rows,
                          rows + std::size_t{1 + c} * kBatchLanes);
        src_[op.dst + c] = d;
      }
    }
  }

  // An op whose sources hold one value for the whole batch (the emitter's rotation applied to an
  // immediate, say): computed for the first vector, then that lane copied to the others. Every
  // lane would compute the same bits from the same inputs.
  void step(const PreparedProgram::Op& op) {
    // A run-invariant value in rows of its own: the first batch's still holds.
    if (!firstBatch_ && op.hoistUnless != PreparedProgram::kVaries &&
        (op.hoistUnless & perParticleBuiltins_) == 0)
      return;
    if (op.uniformUnless == PreparedProgram::kVaries ||
        (op.uniformUnless & perParticleBuiltins_) != 0) {
      compute(op);
      return;
    }
    const std::uint32_t n = n_;
    n_ = std::min(n_, static_cast<std::uint32_t>(hn::Lanes(Tag())));
    compute(op);
    n_ = n;
    for (std::uint32_t c = 0; c < op.width; ++c)
      fill(op.dst + c, src_[op.dst + c][0]);
  }

  // The dispatch: every opcode has a case (no default, so -Wswitch, an error here, names one
  // without), and a label that sends an op to code for a class states the class (ofClass,
  // vm_detail::perParticle): it does not compile for an opcode of another class.
  void compute(const PreparedProgram::Op& op) {
    const std::uint32_t w = op.width;
    switch (op.op) {
      case Opcode::Nop:
        break;
      case Opcode::Mov:
        map1<kSimd>(op, MovOp{});
        break;
      case Opcode::LoadConst:
        for (std::uint32_t c = 0; c < w; ++c)
          fill(op.dst + c, program_.constants()[op.index][c]);
        break;
      case Opcode::LoadField:
        for (std::uint32_t c = 0; c < w; ++c) {
          if (op.inPlace) {
            src_[op.dst + c] = stream(op.index + c);
          } else {
            std::memcpy(own(op.dst + c), stream(op.index + c), n_ * sizeof(float));
            src_[op.dst + c] = own(op.dst + c);
          }
        }
        break;
      case Opcode::StoreField:
        if (op.inPlace) break;  // the producer wrote the stream
        for (std::uint32_t c = 0; c < w; ++c) {
          const float* from = read(op.src[1], c);
          float* to = stream(op.index + c);
          if (from != to) std::memcpy(to, from, n_ * sizeof(float));
        }
        break;
      case Opcode::LoadBuiltin: {
        const auto& perLane = ctx_.laneBuiltins[op.index];
        if (perLane[0] != nullptr) {
          for (std::uint32_t c = 0; c < w; ++c)
            src_[op.dst + c] = perLane[c] + first_;  // read in place, never written
        } else if (static_cast<Builtin>(op.index) == Builtin::ParticleId &&
                   ctx_.particleIds != nullptr) {
          float* d = own(op.dst);
          for (std::uint32_t i = 0; i < n_; ++i)
            d[i] = static_cast<float>(ctx_.particleIds[first_ + i]);
          src_[op.dst] = d;
        } else {
          for (std::uint32_t c = 0; c < w; ++c)
            fill(op.dst + c, ctx_.builtins[op.index][c]);
        }
        break;
      }
      case Opcode::LoadEmitter:
        for (std::uint32_t c = 0; c < w; ++c)
          fill(op.dst + c, ctx_.emitterWords[op.index + c]);
        break;
      case Opcode::LoadGlobal:
        for (std::uint32_t c = 0; c < w; ++c)
          fill(op.dst + c, ctx_.globals[op.index][c]);
        break;
      case Opcode::Add:
        map2<kSimd>(op, AddOp{});
        break;
      case Opcode::Sub:
        map2<kSimd>(op, SubOp{});
        break;
      case Opcode::Mul:
        map2<kSimd>(op, MulOp{});
        break;
      case Opcode::Div:
        map2<kSimd>(op, DivOp{});
        break;
      case Opcode::Fma:
        map3<kFusedFma>(op, FmaOp{});
        break;
      case Opcode::Min:
        map2<kSimd>(op, MinOp{});
        break;
      case Opcode::Max:
        map2<kSimd>(op, MaxOp{});
        break;
      case Opcode::Abs:
        map1<kSimd>(op, AbsOp{});
        break;
      case Opcode::Neg:
        map1<kSimd>(op, NegOp{});
        break;
      case Opcode::Floor:
        map1<kSimd>(op, FloorOp{});
        break;
      case Opcode::Fract:
        map1<kSimd>(op, FractOp{});
        break;
      case Opcode::Mod:
        map2<kSimd>(op, ModOp{});
        break;
      case Opcode::Sqrt:
        map1<kSimd>(op, SqrtOp{});
        break;
      case Opcode::Rsqrt:
        map1<kSimd>(op, RsqrtOp{});
        break;
      case Opcode::Sin:
      case Opcode::Cos:
        for (std::uint32_t c = 0; c < op.width; ++c) {
          float* d = target(op, c);
          const bool sine = op.op == Opcode::Sin;
          SinCosLanes(read(op.src[0], c), sine ? d : nullptr, sine ? nullptr : d, n_);
          finish(op, c, d);
        }
        finishRows(op);
        break;
      case Opcode::Exp:
        map1<false>(op, ExpOp{});
        break;
      case Opcode::Log:
        map1<false>(op, LogOp{});
        break;
      case Opcode::Pow:
        map2<false>(op, PowOp{});
        break;
      case Opcode::Lerp:
        map3<kSimd>(op, LerpOp{});
        break;
      case Opcode::Smoothstep:
        map3<kSimd>(op, SmoothstepOp{});
        break;
      case Opcode::Clamp:
        map3<kSimd>(op, ClampOp{});
        break;
      case Opcode::Saturate:
        map1<kSimd>(op, SaturateOp{});
        break;
      case Opcode::CmpLt:
        map2<kSimd>(op, CmpLtOp{});
        break;
      case Opcode::CmpLe:
        map2<kSimd>(op, CmpLeOp{});
        break;
      case Opcode::CmpEq:
        map2<kSimd>(op, CmpEqOp{});
        break;
      case Opcode::CmpNe:
        map2<kSimd>(op, CmpNeOp{});
        break;
      case Opcode::Select:
        map3<kSimd>(op, SelectOp{});
        break;
      case Opcode::Dot:
      case Opcode::Length:
        dot(op);
        break;
      case Opcode::Normalize:
        normalize(op);
        break;
      case Opcode::Kill:
        kill(read(op.src[0], 0));
        break;
      case Opcode::RandUniform:
        randUniform(op);
        break;
      case Opcode::RandRange:
        randRange(op);
        break;
      case bytecode::ofClass(OpClass::RandomShape, Opcode::RandUnitVector):
      case bytecode::ofClass(OpClass::RandomShape, Opcode::RandSphere):
      case bytecode::ofClass(OpClass::RandomShape, Opcode::RandDisk):
      case bytecode::ofClass(OpClass::RandomShape, Opcode::RandCone):
        randShape(op);
        break;
      case Opcode::Curve:
        curve(op);
        break;
      case vm_detail::perParticle(Opcode::Cross):
      case vm_detail::perParticle(Opcode::QuatMul):
      case vm_detail::perParticle(Opcode::QuatRotate):
      case vm_detail::perParticle(Opcode::CurlNoise):
        // Lane-mixing ops in vectors where the target has them, else one particle at a time.
        if constexpr (kSimd) {
          if (op.op == Opcode::CurlNoise) {
            curl(op);
          } else {
            quaternion(op);
          }
        } else {
          vm_detail::runPerParticle({&ctx_, section_, first_, n_, rows_, src_}, op);
        }
        break;
      case vm_detail::perParticle(Opcode::QuatFromAxisAngle):
      case vm_detail::perParticle(Opcode::QuatIntegrate):
      case vm_detail::perParticle(Opcode::SampleWind):
      case vm_detail::perParticle(Opcode::Spawn):
      case vm_detail::perParticle(Opcode::SpawnInherit):
      case vm_detail::perParticle(Opcode::Trail):
      case vm_detail::perParticle(Opcode::Report):
      case vm_detail::perParticle(Opcode::Collide):
        vm_detail::runPerParticle({&ctx_, section_, first_, n_, rows_, src_}, op);
        break;
    }
  }

  const PreparedProgram& program_;
  bytecode::Section section_;
  const VmContext& ctx_;
  float* const* streams_;
  float* rows_;
  const float** src_;
  std::uint32_t scratch_;
  std::uint32_t perParticleBuiltins_ = 0;  // bit b: builtin b has per-particle lanes in this run
  bool firstBatch_ = true;                 // the run's first batch: hoisted ops run
  std::uint32_t first_ = 0;
  std::uint32_t n_ = 0;
  std::uint8_t* killed_ = nullptr;
  bool idsLoaded_ = false;
  std::uint32_t* ids_;
  std::uint32_t* bits_;  // word k at k * kBatchLanes
  float* curve_;         // curveSegments' rows
};

}  // namespace

void RunBatches(const RunArgs& args) {
  Interpreter interpreter(args);
  for (std::uint32_t done = 0; done < args.count; done += kBatchLanes) {
    const std::uint32_t lanes = std::min(kBatchLanes, args.count - done);
    interpreter.runBatch(args.first + done, lanes, args.killed + done);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace mote
HWY_AFTER_NAMESPACE();

#endif  // MOTE_RUNTIME_VM_INL_H_
