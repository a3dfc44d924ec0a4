// SPDX-License-Identifier: MIT
// The batched VM. Every operand is a row of kBatchLanes floats read through a per-batch table of
// row sources (a register row, an immediate's row filled once per run, or a particle stream read
// in place), so each instruction is a loop over particles. The loops are compiled once per SIMD
// target (Highway's foreach_target: this file is included again for each) and the best target
// for the CPU is picked at run time. Vector ops are used only where they are exact: the formulas
// are the reference executor's, written for one lane, so results match it bit for bit.
#include "simd_targets.h"  // before Highway

#include <mote/bytecode/reference.h>
#include <mote/bytecode/semantics.h>
#include <mote/core/assert.h>
#include <mote/core/counter_rng.h>
#include <mote/runtime/vm.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <new>
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "vm.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#ifndef MOTE_RUNTIME_VM_SHARED
#define MOTE_RUNTIME_VM_SHARED
namespace mote::vm_detail {

// Rows past the program's registers: 4 scratch rows, then one per distinct immediate.
constexpr std::uint32_t kScratchRows = 4;
// Rows for values the same for every particle of a run (PreparedProgram::Op::hoistUnless): at
// most this many, and only while a program stays within BatchVm::create()'s default rows.
constexpr std::uint32_t kMostHoistedRows = 64;

// One run() call, as the per-target code sees it.
struct RunArgs {
  const PreparedProgram* program;
  bytecode::Section section;
  float* const* streams;
  std::uint32_t first;
  std::uint32_t count;
  const VmContext* ctx;
  std::uint8_t* killed;
  float* rows;               // row r at rows + r * kBatchLanes
  const float** rowSources;  // where row r is read from in the current batch
  // The VM's lane buffers, allocated with it so a run sets up nothing: the batch's particle ids
  // (kBatchLanes), Philox words (word k at k * kBatchLanes, 4 words) and curveSegments' rows.
  std::uint32_t* ids;
  std::uint32_t* bits;
  float* curveRows;
};

// The batch being run, as the per-particle ops see it.
struct BatchState {
  const VmContext* ctx;
  bytecode::Section section;
  std::uint32_t first;
  std::uint32_t n;
  float* rows;
  const float** rowSources;
};

// The ops that mix lanes (quaternions, noise, wind, spawn), one particle at a time.
// Compiled once, for the baseline target like the reference executor, not per SIMD target: GCC 12
// turns the alternating +/- of a Hamilton product into vfmsubadd when FMA is available, despite
// -ffp-contract=off, which breaks parity with the reference.
void runPerParticle(const BatchState& batch, const PreparedProgram::Op& op);

// RAND_SPHERE, RAND_DISK and RAND_CONE from the batch's Philox words (word k of particle i at
// bits[k * kBatchLanes + i], drawn by the per-target code): the reference's formulas, one particle
// at a time, compiled once like runPerParticle. For RAND_SPHERE the per-target code has already
// computed rho, sin phi and z into dst rows 0..2 and cos phi into `cosines` (and left only the
// third word in bits); RAND_UNIT_VECTOR it finishes itself.
void randomShapes(const BatchState& batch, const PreparedProgram::Op& op, const std::uint32_t* bits,
                  const float* cosines);

// CURVE's per-particle part, compiled once like runPerParticle: semantics.h's segment search for
// particles [begin, end) of the batch, into rows of `out` (kBatchLanes floats each): row 0 the
// segment parameter s, rows 1 + c the running sum where the segment starts (lane c), rows 5 + c
// the segment's delta. The caller finishes with fma(delta, s, start). Needs 2 or more keys.
void curveSegments(const BatchState& batch, const PreparedProgram::Op& op,
                   const std::vector<std::array<float, 4>>& constants, float* out,
                   std::uint32_t begin, std::uint32_t end);
inline constexpr std::uint32_t kCurveRows = 9;

// Ops that compute lane c of dst from lane c of their sources, particle by particle: they may read
// streams in place and write their result straight into a stream.
constexpr bool isElementwise(bytecode::Opcode op) {
  using bytecode::Opcode;
  switch (op) {
    case Opcode::Mov:
    case Opcode::Add:
    case Opcode::Sub:
    case Opcode::Mul:
    case Opcode::Div:
    case Opcode::Fma:
    case Opcode::Min:
    case Opcode::Max:
    case Opcode::Abs:
    case Opcode::Neg:
    case Opcode::Floor:
    case Opcode::Fract:
    case Opcode::Mod:
    case Opcode::Sqrt:
    case Opcode::Rsqrt:
    case Opcode::Sin:
    case Opcode::Cos:
    case Opcode::Exp:
    case Opcode::Log:
    case Opcode::Pow:
    case Opcode::Lerp:
    case Opcode::Smoothstep:
    case Opcode::Clamp:
    case Opcode::Saturate:
    case Opcode::CmpLt:
    case Opcode::CmpLe:
    case Opcode::CmpEq:
    case Opcode::CmpNe:
    case Opcode::Select:
      return true;
    default:
      return false;
  }
}

}  // namespace mote::vm_detail
#endif  // MOTE_RUNTIME_VM_SHARED

HWY_BEFORE_NAMESPACE();
namespace mote {
namespace HWY_NAMESPACE {
namespace {

namespace hn = hwy::HWY_NAMESPACE;

using bytecode::Builtin;
using bytecode::Opcode;
using bytecode::semantics::Lanes;
using vm_detail::kScratchRows;
using vm_detail::RunArgs;

// Vector kernels on the x86 SIMD targets only (SSE4 and up: roundps gives an exact floor); the
// scalar target (EMU128) runs the same formulas one lane at a time. Highway's MulAdd is two
// roundings below AVX2, so FMA is a vector op only where the hardware fuses it.
constexpr bool kSimd = HWY_ARCH_X86 && HWY_TARGET <= HWY_SSE4;
constexpr bool kFusedFma = HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2;

using Tag = hn::ScalableTag<float>;

// dst[i] = f(a[i], ...) for i < n: whole vectors, then single lanes for the rest (a partial batch
// whose rows are streams read in place must not be read or written past n). `f` has a vector
// overload f(d, va, ...) and a lane overload f(a, ...) computing the same thing. dst may be one
// of the sources (lane i is read before it is written).
template <bool kVector, class F>
HWY_INLINE void lanes1(F f, std::uint32_t n, float* dst, const float* a) {
  std::uint32_t i = 0;
  if constexpr (kVector) {
    const Tag d;
    const std::uint32_t step = static_cast<std::uint32_t>(hn::Lanes(d));
    for (; i + 2 * step <= n; i += 2 * step) {  // two vectors an iteration: half the loop's cost
      hn::StoreU(f(d, hn::LoadU(d, a + i)), d, dst + i);
      const std::uint32_t j = i + step;
      hn::StoreU(f(d, hn::LoadU(d, a + j)), d, dst + j);
    }
    for (; i + step <= n; i += step)
      hn::StoreU(f(d, hn::LoadU(d, a + i)), d, dst + i);
  }
  for (; i < n; ++i)
    dst[i] = f(a[i]);
}

template <bool kVector, class F>
HWY_INLINE void lanes2(F f, std::uint32_t n, float* dst, const float* a, const float* b) {
  std::uint32_t i = 0;
  if constexpr (kVector) {
    const Tag d;
    const std::uint32_t step = static_cast<std::uint32_t>(hn::Lanes(d));
    for (; i + 2 * step <= n; i += 2 * step) {  // two vectors an iteration: half the loop's cost
      hn::StoreU(f(d, hn::LoadU(d, a + i), hn::LoadU(d, b + i)), d, dst + i);
      const std::uint32_t j = i + step;
      hn::StoreU(f(d, hn::LoadU(d, a + j), hn::LoadU(d, b + j)), d, dst + j);
    }
    for (; i + step <= n; i += step)
      hn::StoreU(f(d, hn::LoadU(d, a + i), hn::LoadU(d, b + i)), d, dst + i);
  }
  for (; i < n; ++i)
    dst[i] = f(a[i], b[i]);
}

template <bool kVector, class F>
HWY_INLINE void lanes3(F f, std::uint32_t n, float* dst, const float* a, const float* b,
                       const float* c) {
  std::uint32_t i = 0;
  if constexpr (kVector) {
    const Tag d;
    const std::uint32_t step = static_cast<std::uint32_t>(hn::Lanes(d));
    for (; i + 2 * step <= n; i += 2 * step) {  // two vectors an iteration: half the loop's cost
      hn::StoreU(f(d, hn::LoadU(d, a + i), hn::LoadU(d, b + i), hn::LoadU(d, c + i)), d, dst + i);
      const std::uint32_t j = i + step;
      hn::StoreU(f(d, hn::LoadU(d, a + j), hn::LoadU(d, b + j), hn::LoadU(d, c + j)), d, dst + j);
    }
    for (; i + step <= n; i += step)
      hn::StoreU(f(d, hn::LoadU(d, a + i), hn::LoadU(d, b + i), hn::LoadU(d, c + i)), d, dst + i);
  }
  for (; i < n; ++i)
    dst[i] = f(a[i], b[i], c[i]);
}

// The elementwise opcodes, each as a vector and a lane overload of the reference's formula. Only
// exact vector ops: compare + select for min/max/clamp (x86 minps would match, Highway's scalar
// Min would not), !(a == b) for CMP_NE (Highway's != is ordered: false for NaN).
struct MovOp {
  template <class D, class V>
  HWY_INLINE V operator()(D, V a) const {
    return a;
  }
  HWY_INLINE float operator()(float a) const { return a; }
};
struct AddOp {
  template <class D, class V>
  HWY_INLINE V operator()(D, V a, V b) const {
    return hn::Add(a, b);
  }
  HWY_INLINE float operator()(float a, float b) const { return a + b; }
};
struct SubOp {
  template <class D, class V>
  HWY_INLINE V operator()(D, V a, V b) const {
    return hn::Sub(a, b);
  }
  HWY_INLINE float operator()(float a, float b) const { return a - b; }
};
struct MulOp {
  template <class D, class V>
  HWY_INLINE V operator()(D, V a, V b) const {
    return hn::Mul(a, b);
  }
  HWY_INLINE float operator()(float a, float b) const { return a * b; }
};
struct DivOp {
  template <class D, class V>
  HWY_INLINE V operator()(D, V a, V b) const {
    return hn::Div(a, b);
  }
  HWY_INLINE float operator()(float a, float b) const { return a / b; }
};
struct FmaOp {
  template <class D, class V>
  HWY_INLINE V operator()(D, V a, V b, V c) const {
    return hn::MulAdd(a, b, c);
  }
  HWY_INLINE float operator()(float a, float b, float c) const { return std::fma(a, b, c); }
};
struct MinOp {
  template <class D, class V>
  HWY_INLINE V operator()(D, V a, V b) const {
    return hn::IfThenElse(hn::Lt(b, a), b, a);
  }
  HWY_INLINE float operator()(float a, float b) const { return b < a ? b : a; }
};
struct MaxOp {
  template <class D, class V>
  HWY_INLINE V operator()(D, V a, V b) const {
    return hn::IfThenElse(hn::Lt(a, b), b, a);
  }
  HWY_INLINE float operator()(float a, float b) const { return a < b ? b : a; }
};
struct AbsOp {
  template <class D, class V>
  HWY_INLINE V operator()(D, V a) const {
    return hn::Abs(a);
  }
  HWY_INLINE float operator()(float a) const { return std::fabs(a); }
};
struct NegOp {
  template <class D, class V>
  HWY_INLINE V operator()(D, V a) const {
    return hn::Neg(a);
  }
  HWY_INLINE float operator()(float a) const { return -a; }
};
struct FloorOp {
  template <class D, class V>
  HWY_INLINE V operator()(D, V a) const {
    return hn::Floor(a);
  }
  HWY_INLINE float operator()(float a) const { return std::floor(a); }
};
struct FractOp {
  template <class D, class V>
  HWY_INLINE V operator()(D, V a) const {
    return hn::Sub(a, hn::Floor(a));
  }
  HWY_INLINE float operator()(float a) const { return a - std::floor(a); }
};
struct ModOp {
  template <class D, class V>
  HWY_INLINE V operator()(D, V a, V b) const {
    return hn::Sub(a, hn::Mul(b, hn::Floor(hn::Div(a, b))));
  }
  HWY_INLINE float operator()(float a, float b) const { return a - b * std::floor(a / b); }
};
struct SqrtOp {
  template <class D, class V>
  HWY_INLINE V operator()(D, V a) const {
    return hn::Sqrt(a);
  }
  HWY_INLINE float operator()(float a) const { return std::sqrt(a); }
};
struct RsqrtOp {  // a division, not the approximate rsqrt instruction
  template <class D, class V>
  HWY_INLINE V operator()(D d, V a) const {
    return hn::Div(hn::Set(d, 1.0f), hn::Sqrt(a));
  }
  HWY_INLINE float operator()(float a) const { return 1.0f / std::sqrt(a); }
};
struct LerpOp {
  template <class D, class V>
  HWY_INLINE V operator()(D, V a, V b, V c) const {
    return hn::Add(a, hn::Mul(hn::Sub(b, a), c));
  }
  HWY_INLINE float operator()(float a, float b, float c) const { return a + (b - a) * c; }
};
struct SmoothstepOp {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V e0, V e1, V x) const {
    const V zero = hn::Zero(d);
    const V one = hn::Set(d, 1.0f);
    V t = hn::Div(hn::Sub(x, e0), hn::Sub(e1, e0));
    t = hn::IfThenElse(hn::Lt(t, zero), zero, hn::IfThenElse(hn::Gt(t, one), one, t));
    return hn::Mul(hn::Mul(t, t), hn::Sub(hn::Set(d, 3.0f), hn::Mul(hn::Set(d, 2.0f), t)));
  }
  HWY_INLINE float operator()(float e0, float e1, float x) const {
    float t = (x - e0) / (e1 - e0);
    t = t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t);
    return t * t * (3.0f - 2.0f * t);
  }
};
struct ClampOp {
  template <class D, class V>
  HWY_INLINE V operator()(D, V x, V lo, V hi) const {
    const V m = hn::IfThenElse(hn::Lt(x, lo), lo, x);
    return hn::IfThenElse(hn::Lt(hi, m), hi, m);
  }
  HWY_INLINE float operator()(float x, float lo, float hi) const {
    const float m = x < lo ? lo : x;
    return hi < m ? hi : m;
  }
};
struct SaturateOp {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V x) const {
    const V zero = hn::Zero(d);
    const V one = hn::Set(d, 1.0f);
    const V m = hn::IfThenElse(hn::Lt(x, zero), zero, x);
    return hn::IfThenElse(hn::Lt(one, m), one, m);
  }
  HWY_INLINE float operator()(float x) const {
    const float m = x < 0.0f ? 0.0f : x;
    return 1.0f < m ? 1.0f : m;
  }
};
struct CmpLtOp {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V a, V b) const {
    return hn::IfThenElseZero(hn::Lt(a, b), hn::Set(d, 1.0f));
  }
  HWY_INLINE float operator()(float a, float b) const { return a < b ? 1.0f : 0.0f; }
};
struct CmpLeOp {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V a, V b) const {
    return hn::IfThenElseZero(hn::Le(a, b), hn::Set(d, 1.0f));
  }
  HWY_INLINE float operator()(float a, float b) const { return a <= b ? 1.0f : 0.0f; }
};
struct CmpEqOp {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V a, V b) const {
    return hn::IfThenElseZero(hn::Eq(a, b), hn::Set(d, 1.0f));
  }
  HWY_INLINE float operator()(float a, float b) const { return a == b ? 1.0f : 0.0f; }
};
struct CmpNeOp {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V a, V b) const {
    return hn::IfThenZeroElse(hn::Eq(a, b), hn::Set(d, 1.0f));
  }
  HWY_INLINE float operator()(float a, float b) const { return a != b ? 1.0f : 0.0f; }
};
struct SelectOp {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V c, V a, V b) const {
    return hn::IfThenElse(hn::Eq(c, hn::Zero(d)), b, a);
  }
  HWY_INLINE float operator()(float c, float a, float b) const { return c != 0.0f ? a : b; }
};
// semantics::sinCos over x[0, n): its operations lane by lane in double vectors (semantics.h's
// trig constants and order; explicit vector ops, nothing contracted), the last partial vector
// through a zero-padded copy, lanes past trig::kReduceLimit (and inf, NaN) through sinCosLarge.
// Writes sinOut and cosOut where not null; either may be x itself.
void SinCosLanes(const float* x, float* sinOut, float* cosOut, std::uint32_t n) {
  namespace trig = bytecode::semantics::trig;
#if HWY_HAVE_FLOAT64
  using D = hn::ScalableTag<double>;
  using V = hn::Vec<D>;
  const D d;
  const hn::Rebind<float, D> df;
  const hn::RebindToUnsigned<D> du;
  const auto step = static_cast<std::uint32_t>(hn::Lanes(d));
  const V twoOverPi = hn::Set(d, trig::kTwoOverPi);
  const V shift = hn::Set(d, trig::kRoundShift);
  const V one = hn::Set(d, 1.0);
  const auto oneU = hn::Set(du, 1u);
  const auto twoU = hn::Set(du, 2u);
  const auto limit = hn::Set(df, trig::kReduceLimit);
  // Lanes [i, i + step) from `in` into `s` and `c` (either null).
  const auto block = [&](const float* in, float* s, float* c) {
    const auto xf = hn::LoadU(df, in);
    const V xd = hn::PromoteTo(d, xf);
    const V shifted = hn::Add(hn::Mul(xd, twoOverPi), shift);
    const V q = hn::Sub(shifted, shift);
    const V r = hn::Sub(hn::Sub(hn::Sub(xd, hn::Mul(q, hn::Set(d, trig::kHalfPi[0]))),
                                hn::Mul(q, hn::Set(d, trig::kHalfPi[1]))),
                        hn::Mul(q, hn::Set(d, trig::kHalfPi[2])));
    const V r2 = hn::Mul(r, r);
    V ps = hn::Set(d, trig::kSin[5]);
    for (std::size_t k = 5; k-- > 0;)
      ps = hn::Add(hn::Set(d, trig::kSin[k]), hn::Mul(r2, ps));
    V pc = hn::Set(d, trig::kCos[6]);
    for (std::size_t k = 6; k-- > 0;)
      pc = hn::Add(hn::Set(d, trig::kCos[k]), hn::Mul(r2, pc));
    const V sinR = hn::Mul(r, hn::Add(one, hn::Mul(r2, ps)));
    const V cosR = hn::Add(one, hn::Mul(r2, pc));
    const auto quadrant = hn::BitCast(du, shifted);
    const auto odd = hn::RebindMask(d, hn::Ne(hn::And(quadrant, oneU), hn::Zero(du)));
    const auto negSin = hn::RebindMask(d, hn::Ne(hn::And(quadrant, twoU), hn::Zero(du)));
    const auto negCos =
        hn::RebindMask(d, hn::Ne(hn::And(hn::Add(quadrant, oneU), twoU), hn::Zero(du)));
    const auto large = hn::Not(hn::Le(hn::Abs(xf), limit));  // NaN too
    HWY_ALIGN float kept[hn::MaxLanes(df)];
    const bool anyLarge = !hn::AllFalse(df, large);
    if (anyLarge) hn::Store(xf, df, kept);  // before the stores: s or c may be `in`
    if (s != nullptr) {
      const V v = hn::IfThenElse(odd, cosR, sinR);
      hn::StoreU(hn::DemoteTo(df, hn::IfThenElse(negSin, hn::Neg(v), v)), df, s);
    }
    if (c != nullptr) {
      const V v = hn::IfThenElse(odd, sinR, cosR);
      hn::StoreU(hn::DemoteTo(df, hn::IfThenElse(negCos, hn::Neg(v), v)), df, c);
    }
    if (!anyLarge) return;
    for (std::uint32_t k = 0; k < step; ++k) {
      if (std::fabs(kept[k]) <= trig::kReduceLimit) continue;
      const bytecode::semantics::SinCos big = bytecode::semantics::sinCosLarge(kept[k]);
      if (s != nullptr) s[k] = big.sin;
      if (c != nullptr) c[k] = big.cos;
    }
  };
  std::uint32_t i = 0;
  for (; i + step <= n; i += step)
    block(x + i, sinOut == nullptr ? nullptr : sinOut + i,
          cosOut == nullptr ? nullptr : cosOut + i);
  if (i == n) return;
  HWY_ALIGN float in[hn::MaxLanes(df)] = {};
  HWY_ALIGN float s[hn::MaxLanes(df)];
  HWY_ALIGN float c[hn::MaxLanes(df)];
  std::memcpy(in, x + i, (n - i) * sizeof(float));
  block(in, s, c);
  if (sinOut != nullptr) std::memcpy(sinOut + i, s, (n - i) * sizeof(float));
  if (cosOut != nullptr) std::memcpy(cosOut + i, c, (n - i) * sizeof(float));
#else
  for (std::uint32_t i = 0; i < n; ++i) {
    const bytecode::semantics::SinCos v = bytecode::semantics::sinCos(x[i]);
    if (sinOut != nullptr) sinOut[i] = v.sin;
    if (cosOut != nullptr) cosOut[i] = v.cos;
  }
#endif
}

// libm, one lane at a time (the reference calls the same functions).
struct ExpOp {
  HWY_INLINE float operator()(float a) const { return std::exp(a); }
};
struct LogOp {
  HWY_INLINE float operator()(float a) const { return std::log(a); }
};
struct PowOp {
  HWY_INLINE float operator()(float a, float b) const { return std::pow(a, b); }
};

// Philox4x32-10 with SIMD lanes as particles: counterRandom4(seed, stream, id) for the u32 ids
// in `id`, the seed and stream the same in every lane. The 32x32->64 multiplies are MulEven of the
// even lanes and of the odd lanes shifted down, so every target (EMU128 too) is exact.
using TagU = hn::ScalableTag<std::uint32_t>;
using VecU = hn::Vec<TagU>;

struct Philox {
  std::array<std::uint32_t, 10> key0{};  // the key of each round
  std::array<std::uint32_t, 10> key1{};
  std::uint32_t stream0 = 0;  // counter words 2 and 3: the stream's halves
  std::uint32_t stream1 = 0;

  Philox(std::uint64_t seed, std::uint64_t stream)
      : stream0(static_cast<std::uint32_t>(stream)),
        stream1(static_cast<std::uint32_t>(stream >> 32)) {
    std::uint32_t k0 = static_cast<std::uint32_t>(seed);
    std::uint32_t k1 = static_cast<std::uint32_t>(seed >> 32);
    for (std::size_t round = 0; round < 10; ++round) {
      key0[round] = k0;
      key1[round] = k1;
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
  }

  // hi:lo = a * m per lane (m the same in every lane).
  static HWY_INLINE void mulWide(VecU a, VecU m, VecU& hi, VecU& lo) {
    const TagU du;
#if HWY_TARGET == HWY_SCALAR  // one lane: no even/odd pairs to widen into
    const std::uint64_t p = std::uint64_t{hn::GetLane(a)} * hn::GetLane(m);
    hi = hn::Set(du, static_cast<std::uint32_t>(p >> 32));
    lo = hn::Set(du, static_cast<std::uint32_t>(p));
#else
    const hn::RepartitionToWide<TagU> dw;
    const auto even = hn::MulEven(a, m);
    const auto odd = hn::MulEven(hn::BitCast(du, hn::ShiftRight<32>(hn::BitCast(dw, a))), m);
    hi = hn::OddEven(hn::BitCast(du, odd), hn::BitCast(du, hn::ShiftRight<32>(even)));
    lo = hn::OddEven(hn::BitCast(du, hn::ShiftLeft<32>(odd)), hn::BitCast(du, even));
#endif
  }

  // The four words of each lane's draw (the counter's high id word is 0: ids are u32).
  HWY_INLINE std::array<VecU, 4> operator()(VecU id) const {
    const TagU du;
    const VecU mul0 = hn::Set(du, 0xD2511F53u);
    const VecU mul1 = hn::Set(du, 0xCD9E8D57u);
    VecU c0 = id;
    VecU c1 = hn::Zero(du);
    VecU c2 = hn::Set(du, stream0);
    VecU c3 = hn::Set(du, stream1);
    for (std::size_t round = 0; round < 10; ++round) {
      VecU hi0;
      VecU lo0;
      VecU hi1;
      VecU lo1;
      mulWide(c0, mul0, hi0, lo0);
      mulWide(c2, mul1, hi1, lo1);
      c0 = hn::Xor(hn::Xor(hi1, c1), hn::Set(du, key0[round]));
      c1 = lo1;
      c2 = hn::Xor(hn::Xor(hi0, c3), hn::Set(du, key1[round]));
      c3 = lo0;
    }
    return {c0, c1, c2, c3};
  }
};

// unitFloatFromU32 per lane: the top 24 bits (exact in a float) times 2^-24.
HWY_INLINE hn::Vec<Tag> unitFloat(VecU bits) {
  const Tag d;
  const hn::RebindToSigned<Tag> di;
  return hn::Mul(hn::ConvertTo(d, hn::BitCast(di, hn::ShiftRight<8>(bits))),
                 hn::Set(d, 1.0f / 16777216.0f));
}

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
  struct SqrtOfProduct {
    template <class D, class V>
    HWY_INLINE V operator()(D, V a, V b) const {
      return hn::Sqrt(hn::Mul(a, b));
    }
    HWY_INLINE float operator()(float a, float b) const { return std::sqrt(a * b); }
  };
  struct Accumulate {
    template <class D, class V>
    HWY_INLINE V operator()(D, V acc, V a, V b) const {
      return hn::Add(acc, hn::Mul(a, b));
    }
    HWY_INLINE float operator()(float acc, float a, float b) const { return acc + a * b; }
  };
  struct AccumulateSqrt {
    template <class D, class V>
    HWY_INLINE V operator()(D, V acc, V a, V b) const {
      return hn::Sqrt(hn::Add(acc, hn::Mul(a, b)));
    }
    HWY_INLINE float operator()(float acc, float a, float b) const {
      return std::sqrt(acc + a * b);
    }
  };
  struct NormalizeLane {
    template <class D, class V>
    HWY_INLINE V operator()(D d, V a, V len) const {
      return hn::IfThenElseZero(hn::Gt(len, hn::Zero(d)), hn::Div(a, len));
    }
    HWY_INLINE float operator()(float a, float len) const { return len > 0.0f ? a / len : 0.0f; }
  };

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

  // CURL: bytecode::curlNoise (reference.cpp) across lanes — the same float and integer
  // operations in its order: floor, the lattice hash, Perlin's twelve gradients, fade, the lerps
  // and the central differences. Vectors with a point that is not finite or lies beyond ±2^29
  // (where the reference wraps cells through fmod) run bytecode::curlNoise lane by lane.
  using VecF = hn::Vec<Tag>;
  using TagI = hn::RebindToSigned<Tag>;

  static VecF fade(VecF t) {
    const Tag d;
    return hn::Mul(hn::Mul(hn::Mul(t, t), t),
                   hn::Add(hn::Mul(t, hn::Sub(hn::Mul(t, hn::Set(d, 6.0f)), hn::Set(d, 15.0f))),
                           hn::Set(d, 10.0f)));
  }
  static VecF lerp(VecF a, VecF b, VecF t) { return hn::Add(a, hn::Mul(hn::Sub(b, a), t)); }

  // gradient(hash3(cell), x, y, z) of reference.cpp: h % 12 picks the pair of offsets (x, y),
  // (x, z) or (y, z) and their signs; −a + b is (−a) + b and a − b is a + (−b), bit for bit.
  static VecF gradient(VecU cx, VecU cy, VecU cz, VecF x, VecF y, VecF z) {
    const TagU du;
    const Tag d;
    const TagI di;
    VecU h = hn::Xor(
        hn::Xor(hn::Mul(cx, hn::Set(du, 0x8DA6B343u)), hn::Mul(cy, hn::Set(du, 0xD8163841u))),
        hn::Mul(cz, hn::Set(du, 0xCB1AB31Fu)));
    h = hn::Xor(h, hn::ShiftRight<16>(h));
    h = hn::Mul(h, hn::Set(du, 0x7FEB352Du));
    h = hn::Xor(h, hn::ShiftRight<15>(h));
    h = hn::Mul(h, hn::Set(du, 0x846CA68Bu));
    h = hn::Xor(h, hn::ShiftRight<16>(h));
    VecU hi;
    VecU lo;
    Philox::mulWide(h, hn::Set(du, 0xAAAAAAABu), hi, lo);  // h / 12 = (h · ⌈2^35 / 12⌉) >> 35
    const VecU m = hn::Sub(h, hn::Mul(hn::ShiftRight<3>(hi), hn::Set(du, 12u)));
    const auto mi = hn::BitCast(di, m);
    const VecF first = hn::IfThenElse(hn::RebindMask(d, hn::Gt(mi, hn::Set(di, 7))), y, x);
    const VecF second = hn::IfThenElse(hn::RebindMask(d, hn::Gt(mi, hn::Set(di, 3))), z, y);
    const VecU signBit = hn::Set(du, 0x80000000u);
    const VecF a = hn::BitCast(d, hn::Xor(hn::BitCast(du, first), hn::ShiftLeft<31>(m)));
    const VecF b =
        hn::BitCast(d, hn::Xor(hn::BitCast(du, second), hn::And(hn::ShiftLeft<30>(m), signBit)));
    return hn::Add(a, b);
  }

  static VecF noise(VecF x, VecF y, VecF z) {
    const Tag d;
    const TagU du;
    const TagI di;
    const VecF fx = hn::Floor(x);
    const VecF fy = hn::Floor(y);
    const VecF fz = hn::Floor(z);
    const auto ix = hn::ConvertTo(di, fx);
    const auto iy = hn::ConvertTo(di, fy);
    const auto iz = hn::ConvertTo(di, fz);
    const VecF dx = hn::Sub(x, fx);
    const VecF dy = hn::Sub(y, fy);
    const VecF dz = hn::Sub(z, fz);
    const VecF u = fade(dx);
    const VecF v = fade(dy);
    const VecF w = fade(dz);
    const auto g = [&](std::int32_t ox, std::int32_t oy, std::int32_t oz) {
      return gradient(hn::BitCast(du, hn::Add(ix, hn::Set(di, ox))),
                      hn::BitCast(du, hn::Add(iy, hn::Set(di, oy))),
                      hn::BitCast(du, hn::Add(iz, hn::Set(di, oz))),
                      hn::Sub(dx, hn::Set(d, static_cast<float>(ox))),
                      hn::Sub(dy, hn::Set(d, static_cast<float>(oy))),
                      hn::Sub(dz, hn::Set(d, static_cast<float>(oz))));
    };
    const VecF x00 = lerp(g(0, 0, 0), g(1, 0, 0), u);
    const VecF x10 = lerp(g(0, 1, 0), g(1, 1, 0), u);
    const VecF x01 = lerp(g(0, 0, 1), g(1, 0, 1), u);
    const VecF x11 = lerp(g(0, 1, 1), g(1, 1, 1), u);
    return lerp(lerp(x00, x10, v), lerp(x01, x11, v), w);
  }

  static std::array<VecF, 3> curlNoise(const std::array<VecF, 3>& p) {
    const Tag d;
    constexpr float kH = 1.0f / 128.0f;
    const auto psi = [&](int component, VecF x, VecF y, VecF z) {
      if (component == 0) return noise(x, y, z);
      if (component == 1) return noise(hn::Add(x, hn::Set(d, 31.4f)), y, z);
      return noise(x, hn::Add(y, hn::Set(d, 27.1f)), z);
    };
    const auto diff = [&](int component, int axis) {
      std::array<VecF, 3> e{};
      for (int c = 0; c < 3; ++c)
        e[static_cast<std::size_t>(c)] = hn::Set(d, c == axis ? kH : 0.0f);
      return hn::Mul(
          hn::Sub(psi(component, hn::Add(p[0], e[0]), hn::Add(p[1], e[1]), hn::Add(p[2], e[2])),
                  psi(component, hn::Sub(p[0], e[0]), hn::Sub(p[1], e[1]), hn::Sub(p[2], e[2]))),
          hn::Set(d, 64.0f));
    };
    return {hn::Sub(diff(2, 1), diff(1, 2)), hn::Sub(diff(0, 2), diff(2, 0)),
            hn::Sub(diff(1, 0), diff(0, 1))};
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
  // (docs/performance.md).
  static constexpr std::uint32_t kCurveSelectKeys = 32;

  // CurveTable::segmentParameter for segment [a, b] at t; inv is 1 / (b − a) (linear only).
  static hn::Vec<Tag> curveParameter(bytecode::CurveTableInterp interp, hn::Vec<Tag> a,
                                     hn::Vec<Tag> b, hn::Vec<Tag> t, hn::Vec<Tag> inv) {
    using V = hn::Vec<Tag>;
    const Tag d;
    const V zero = hn::Zero(d);
    const V one = hn::Set(d, 1.0f);
    const V stepS = hn::IfThenElse(hn::Le(b, t), one, zero);
    if (interp == bytecode::CurveTableInterp::Step) return stepS;
    V s;
    if (interp == bytecode::CurveTableInterp::Smooth) {
      V u = hn::Div(hn::Sub(t, a), hn::Sub(b, a));
      u = hn::IfThenElse(hn::Lt(u, zero), zero, hn::IfThenElse(hn::Gt(u, one), one, u));
      s = hn::Mul(hn::Mul(u, u), hn::Sub(hn::Set(d, 3.0f), hn::Mul(hn::Set(d, 2.0f), u)));
    } else {
      s = linearParameter(a, t, inv);
    }
    return hn::IfThenElse(hn::Lt(a, b), s, stepS);
  }
  // The linear segment's saturate((t − a) · inv), where a < b.
  static hn::Vec<Tag> linearParameter(hn::Vec<Tag> a, hn::Vec<Tag> t, hn::Vec<Tag> inv) {
    const Tag d;
    const hn::Vec<Tag> zero = hn::Zero(d);
    const hn::Vec<Tag> one = hn::Set(d, 1.0f);
    const hn::Vec<Tag> u = hn::Mul(hn::Sub(t, a), inv);
    const hn::Vec<Tag> m = hn::IfThenElse(hn::Lt(u, zero), zero, u);
    return hn::IfThenElse(hn::Lt(one, m), one, m);
  }
  // CURVE's t for the vector at i (`valid` lanes of it, the rest 0): NaN reads as the first key's
  // time.
  static hn::Vec<Tag> curveTime(const float* tRow, std::uint32_t i, std::uint32_t valid,
                                hn::Vec<Tag> firstTime) {
    const Tag d;
    hn::Vec<Tag> t;
    if (valid == hn::Lanes(d)) {
      t = hn::LoadU(d, tRow + i);
    } else {
      alignas(64) std::array<float, HWY_MAX_BYTES / sizeof(float)> part{};
      std::memcpy(part.data(), tRow + i, valid * sizeof(float));
      t = hn::LoadU(d, part.data());
    }
    return hn::IfThenElse(hn::Eq(t, t), t, firstTime);
  }
  // fma(delta, s, start) into `valid` lanes at out.
  static void curveStore(float* out, std::uint32_t valid, hn::Vec<Tag> delta, hn::Vec<Tag> s,
                         hn::Vec<Tag> start) {
    const Tag d;
    const std::uint32_t step = static_cast<std::uint32_t>(hn::Lanes(d));
    alignas(64) std::array<float, 3 * HWY_MAX_BYTES / sizeof(float)> lanes;
    if constexpr (kFusedFma) {
      if (valid == step) {
        hn::StoreU(hn::MulAdd(delta, s, start), d, out);
        return;
      }
      hn::StoreU(hn::MulAdd(delta, s, start), d, lanes.data());
    } else {  // Highway's MulAdd rounds twice below AVX2: one lane at a time, as FMA does
      hn::StoreU(delta, d, lanes.data());
      hn::StoreU(s, d, lanes.data() + step);
      hn::StoreU(start, d, lanes.data() + 2 * step);
      for (std::uint32_t l = 0; l < valid; ++l)
        lanes[l] = std::fma(lanes[l], lanes[step + l], lanes[2 * step + l]);
    }
    std::memcpy(out, lanes.data(), valid * sizeof(float));
  }

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
      case Opcode::RandUnitVector:
      case Opcode::RandSphere:
      case Opcode::RandDisk:
      case Opcode::RandCone:
        randShape(op);
        break;
      case Opcode::Curve:
        curve(op);
        break;
      case Opcode::Cross:
      case Opcode::QuatMul:
      case Opcode::QuatRotate:
      case Opcode::CurlNoise:
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
      default:
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

#if HWY_ONCE
namespace mote {

HWY_EXPORT(RunBatches);

namespace vm_detail {
namespace {

using bytecode::Builtin;
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
    case Opcode::RandSphere: {
      // The per-target code left rho, sin phi and z in dst rows 0, 1 and 2 and cos phi in
      // `cosines`: finish ballPoint (r = cbrt of the third word) as semantics.h does.
      std::array<float*, 3> d{};
      for (std::uint32_t c = 0; c < 3; ++c) {
        d[c] = batch.rows + std::size_t{op.dst + c} * kBatchLanes;
        batch.rowSources[op.dst + c] = d[c];
      }
      for (std::uint32_t i = 0; i < batch.n; ++i) {
        const float r = std::cbrt(unitFloatFromU32(bits[2 * kBatchLanes + i]));
        const float rho = d[0][i];
        d[0][i] = r * rho * cosines[i];
        d[1][i] = r * rho * d[1][i];
        d[2][i] = r * d[2][i];
      }
      break;
    }
    case Opcode::RandDisk:
      eachShape(batch, op, bits,
                [](const Words& b, std::uint32_t) { return bytecode::semantics::diskPoint(b); });
      break;
    case Opcode::RandCone: {
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

// The ops that mix lanes, one particle at a time: gather its sources, compute as the reference
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
  const bool spawns = op.op == Opcode::Spawn;
  if (spawns && ctx.spawn == nullptr) return;
  for (std::uint32_t i = 0; i < batch.n; ++i) {
    if (spawns && !(s[1][0][i] >= 1.0f)) continue;
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
      case Opcode::Cross: {
        const Lanes a = get(0, 3);
        const Lanes b = get(1, 3);
        put({a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0], 0.0f},
            3);
        break;
      }
      case Opcode::CurlNoise: {
        const Lanes a = get(0, 3);
        const float f = get(1, 1)[0];
        const std::array<float, 3> c = bytecode::curlNoise({a[0] * f, a[1] * f, a[2] * f});
        put({c[0], c[1], c[2], 0.0f}, 3);
        break;
      }
      case Opcode::QuatFromAxisAngle: {
        const Lanes axis = get(0, 3);
        put(bytecode::semantics::quatAxisAngle(axis[0], axis[1], axis[2], get(1, 1)[0]), 4);
        break;
      }
      case Opcode::QuatMul:
        put(bytecode::semantics::quatMul(get(0, 4), get(1, 4)), 4);
        break;
      case Opcode::QuatRotate:
        put(bytecode::semantics::quatRotate(get(0, 4), get(1, 3)), 3);
        break;
      case Opcode::QuatIntegrate: {
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
      case Opcode::SampleWind: {
        const Lanes pos = get(0, 3);
        std::array<float, 3> wind{0.0f, 0.0f, 0.0f};
        if (ctx.wind != nullptr) wind = ctx.wind({pos[0], pos[1], pos[2]}, ctx.windUser);
        put({wind[0], wind[1], wind[2], 0.0f}, 3);
        break;
      }
      case Opcode::Spawn: {
        const float spawnCount = std::floor(get(1, 1)[0]);
        if (!(spawnCount >= 1.0f) || ctx.spawn == nullptr) break;
        constexpr float kMaxCount = 1048576.0f;
        const Lanes at = get(2, 3);
        ctx.spawn(op.index,
                  static_cast<std::uint32_t>(spawnCount < kMaxCount ? spawnCount : kMaxCount),
                  {at[0], at[1], at[2]}, ctx.spawnUser);
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

}  // namespace vm_detail

using bytecode::Opcode;
using bytecode::Section;
using vm_detail::kScratchRows;

namespace {

// Whether the stream-operand choices in `ops` compute exactly what the program says. Simulates
// the section twice over value identities: as the program means it (the reference: an op reads
// all its sources, then writes its destination) and as the VM will run it (rows read streams in
// place, elementwise ops lane by lane, results written into streams early, stores skipped).
// Every value the VM reads must be the one the program reads, and the streams must end equal.
bool streamOperandsExact(const std::vector<PreparedProgram::Op>& ops, std::uint32_t rows,
                         std::uint32_t words) {
  constexpr std::int64_t kOwn = -1;
  struct PhysicalRow {
    std::int64_t word = kOwn;  // read in place from this particle word, or its own storage
    std::uint64_t value = 0;
  };
  std::vector<std::uint64_t> meantRow(rows, 0);
  std::vector<PhysicalRow> row(rows);
  std::vector<std::uint64_t> meantWord(words);
  std::vector<std::uint64_t> word(words);
  for (std::uint32_t w = 0; w < words; ++w)
    meantWord[w] = word[w] = 1 + w;
  const auto fresh = [&](std::size_t k, std::uint32_t c) { return 1 + words + 4 * k + c; };
  const auto physical = [&](std::uint32_t r) {
    return row[r].word == kOwn ? row[r].value : word[static_cast<std::size_t>(row[r].word)];
  };
  for (std::size_t k = 0; k < ops.size(); ++k) {
    const PreparedProgram::Op& op = ops[k];
    const bytecode::OpInfo& info = bytecode::opInfo(op.op);
    const std::uint32_t dw = bytecode::dstWidth(info.width, op.width);
    // What each source lane means (read before anything is written).
    std::array<std::array<std::uint64_t, 4>, 3> meant{};
    std::array<std::uint32_t, 3> widths{};
    for (std::uint32_t slot = 0; slot < 3; ++slot) {
      widths[slot] = bytecode::sourceWidth(info.sources[slot], op.width);
      for (std::uint32_t c = 0; c < widths[slot]; ++c)
        meant[slot][c] = meantRow[op.src[slot].rows[c]];
    }
    const auto readsOk = [&](std::uint32_t slot, std::uint32_t c) {
      return physical(op.src[slot].rows[c]) == meant[slot][c];
    };
    switch (op.op) {
      case Opcode::LoadField:
        for (std::uint32_t c = 0; c < op.width; ++c) {
          const std::uint32_t w = op.index + c;
          if (!op.inPlace && word[w] != meantWord[w]) return false;
          meantRow[op.dst + c] = meantWord[w];
          row[op.dst + c] = op.inPlace ? PhysicalRow{w, 0} : PhysicalRow{kOwn, word[w]};
        }
        break;
      case Opcode::StoreField:
        for (std::uint32_t c = 0; c < op.width; ++c) {
          const std::uint32_t w = op.index + c;
          meantWord[w] = meant[1][c];
          if (op.inPlace) continue;  // checked when the words are next read, or at the end
          if (!readsOk(1, c)) return false;
          word[w] = physical(op.src[1].rows[c]);
        }
        break;
      default:
        if (vm_detail::isElementwise(op.op) && !op.viaScratch) {
          // Lane by lane: lane c reads its sources, then writes its result — into its own row,
          // or into the stream, whose words the dst rows read only after the last lane.
          const bool direct = op.directWord != PreparedProgram::kNoWord;
          for (std::uint32_t c = 0; c < op.width; ++c) {
            for (std::uint32_t slot = 0; slot < 3; ++slot)
              if (widths[slot] > 0 && !readsOk(slot, c)) return false;
            if (direct) {
              word[op.directWord + c] = fresh(k, c);
            } else {
              meantRow[op.dst + c] = fresh(k, c);
              row[op.dst + c] = PhysicalRow{kOwn, fresh(k, c)};
            }
          }
          for (std::uint32_t c = 0; direct && c < op.width; ++c) {
            meantRow[op.dst + c] = fresh(k, c);
            row[op.dst + c] = PhysicalRow{op.directWord + c, 0};
          }
        } else {
          if (op.directWord != PreparedProgram::kNoWord) return false;
          for (std::uint32_t slot = 0; slot < 3; ++slot)
            for (std::uint32_t c = 0; c < widths[slot]; ++c)
              if (!readsOk(slot, c)) return false;
          for (std::uint32_t c = 0; c < dw; ++c) {
            meantRow[op.dst + c] = fresh(k, c);
            row[op.dst + c] = PhysicalRow{kOwn, fresh(k, c)};
          }
        }
        break;
    }
  }
  return word == meantWord;
}

// Chooses the stream operands of one section: each candidate is kept when the whole section still
// simulates exactly with it. A store's producer writes the stream first, then loads read in place.
void chooseStreamOperands(std::vector<PreparedProgram::Op>& ops, std::uint32_t rows,
                          std::uint32_t words) {
  for (std::size_t j = 0; j < ops.size(); ++j) {
    PreparedProgram::Op& store = ops[j];
    if (store.op != Opcode::StoreField || store.src[1].immediate) continue;
    const std::uint32_t base = store.src[1].rows[0];
    bool identity = true;
    for (std::uint32_t c = 0; c < store.width; ++c)
      identity = identity && store.src[1].rows[c] == base + c;
    if (!identity) continue;
    // The last op before the store that writes any of its rows.
    std::size_t k = j;
    while (k-- > 0) {
      const PreparedProgram::Op& p = ops[k];
      const std::uint32_t dw = bytecode::dstWidth(bytecode::opInfo(p.op).width, p.width);
      if (dw > 0 && p.dst < base + store.width && base < p.dst + dw) break;
    }
    if (k >= j) continue;  // wrapped: no producer in this section
    PreparedProgram::Op& producer = ops[k];
    if (!vm_detail::isElementwise(producer.op) || producer.directWord != PreparedProgram::kNoWord ||
        producer.dst != base || producer.width != store.width)
      continue;
    // Written into the stream, a producer that needed scratch for its rows may not: its rows
    // switch to the stream after the last lane (Interpreter::finishRows).
    const bool viaScratch = producer.viaScratch;
    producer.directWord = store.index;
    producer.viaScratch = false;
    store.inPlace = true;
    if (!streamOperandsExact(ops, rows, words)) {
      producer.directWord = PreparedProgram::kNoWord;
      producer.viaScratch = viaScratch;
      store.inPlace = false;
    }
  }
  for (PreparedProgram::Op& load : ops) {
    if (load.op != Opcode::LoadField) continue;
    load.inPlace = true;
    if (!streamOperandsExact(ops, rows, words)) load.inPlace = false;
  }
}

// The builtins an op's result depends on (bit b: builtin b), given `depends` per row: kVaries
// once anything per-particle flows in (a row the section has not written yet holds the last
// batch's values: kVaries). Loads of constants, emitter fields and globals depend on nothing;
// elementwise ops (unless they write a stream), CROSS, QUAT_MUL and QUAT_ROTATE on their sources.
// Immediates are read as such, not as rows.
std::uint32_t resultDepends(const PreparedProgram::Op& op,
                            const std::vector<std::uint32_t>& depends) {
  constexpr std::uint32_t kVaries = PreparedProgram::kVaries;
  const bytecode::OpInfo& info = bytecode::opInfo(op.op);
  std::uint32_t mask = 0;
  for (std::uint32_t slot = 0; slot < 3; ++slot) {
    if (op.src[slot].immediate) continue;
    // Index and unused operands read no rows: their width is 0.
    for (std::uint32_t c = 0; c < bytecode::sourceWidth(info.sources[slot], op.width); ++c) {
      const std::uint32_t row = op.src[slot].rows[c];
      mask = depends[row] == kVaries || mask == kVaries ? kVaries : mask | depends[row];
    }
  }
  switch (op.op) {
    case Opcode::LoadConst:
    case Opcode::LoadEmitter:
    case Opcode::LoadGlobal:
      return 0;
    case Opcode::LoadBuiltin:
      return static_cast<bytecode::Builtin>(op.index) == bytecode::Builtin::ParticleId
                 ? kVaries
                 : 1u << op.index;
    case Opcode::Cross:
    case Opcode::QuatMul:
    case Opcode::QuatRotate:
      return mask;
    default:
      return vm_detail::isElementwise(op.op) && op.directWord == PreparedProgram::kNoWord ? mask
                                                                                          : kVaries;
  }
}

// Gives each op whose result is the same for every particle of a run (resultDepends not kVaries)
// rows of its own from `base` (at most `room` of them, in order) and points the later readers of
// its register rows there. Nothing else writes those rows, so the value survives the run's
// batches: markUniformOps lets the VM compute it in the first batch only. Returns the rows used.
std::uint32_t hoistUniformOps(std::vector<PreparedProgram::Op>& ops, std::uint32_t registers,
                              std::uint32_t base, std::uint32_t room) {
  constexpr std::uint32_t kVaries = PreparedProgram::kVaries;
  std::vector<std::uint32_t> depends(std::size_t{base} + room, kVaries);
  std::vector<std::uint16_t> alias(registers);  // the row holding each register row's value
  for (std::uint32_t r = 0; r < registers; ++r)
    alias[r] = static_cast<std::uint16_t>(r);
  std::uint32_t used = 0;
  for (PreparedProgram::Op& op : ops) {
    const bytecode::OpInfo& info = bytecode::opInfo(op.op);
    for (std::uint32_t slot = 0; slot < 3; ++slot) {
      const bytecode::SourceRule rule = info.sources[slot];
      if (op.src[slot].immediate || rule == bytecode::SourceRule::Unused ||
          rule == bytecode::SourceRule::Index)
        continue;
      for (std::uint16_t& row : op.src[slot].rows)
        if (row < registers) row = alias[row];
    }
    const std::uint32_t dw = bytecode::dstWidth(info.width, op.width);
    if (dw == 0) continue;
    const std::uint32_t mask = resultDepends(op, depends);
    const bool hoist = mask != kVaries && used + dw <= room && op.dst + dw <= registers;
    for (std::uint32_t c = 0; c < dw; ++c) {
      const std::uint32_t row = hoist ? base + used + c : op.dst + c;
      if (op.dst + c < registers) alias[op.dst + c] = static_cast<std::uint16_t>(row);
      depends[row] = mask;
    }
    if (hoist) {
      op.dst = static_cast<std::uint16_t>(base + used);
      used += dw;
    }
  }
  return used;
}

// Sets uniformUnless on the CROSS/QUAT_MUL/QUAT_ROTATE ops whose sources depend only on
// immediates, constants, emitter fields, globals and builtins (resultDepends), and hoistUnless on
// the ops hoistUniformOps gave rows of their own from `hoisted` that still write those rows.
void markUniformOps(std::vector<PreparedProgram::Op>& ops, std::uint32_t rows,
                    std::uint32_t hoisted) {
  constexpr std::uint32_t kVaries = PreparedProgram::kVaries;
  std::vector<std::uint32_t> depends(rows, kVaries);
  for (PreparedProgram::Op& op : ops) {
    const std::uint32_t mask = resultDepends(op, depends);
    if (op.op == Opcode::Cross || op.op == Opcode::QuatMul || op.op == Opcode::QuatRotate)
      op.uniformUnless = mask;
    const std::uint32_t dw = bytecode::dstWidth(bytecode::opInfo(op.op).width, op.width);
    if (dw > 0 && op.dst >= hoisted && op.directWord == PreparedProgram::kNoWord && !op.viaScratch)
      op.hoistUnless = mask;
    for (std::uint32_t c = 0; c < dw; ++c)
      depends[op.dst + c] = mask;
  }
}

}  // namespace

PreparedProgram PreparedProgram::prepare(const bytecode::VerifiedProgram& verified) {
  const bytecode::Program& p = verified.program();
  PreparedProgram out;
  out.registerCount_ = p.registerCount;
  out.particleWords_ = p.particleWords;
  out.constants_ = p.constants;
  for (const std::array<float, 4>& c : p.constants)
    out.constantLanes_.insert(out.constantLanes_.end(), c.begin(), c.end());
  const std::uint32_t scratch = p.registerCount;
  std::vector<std::uint32_t> immediates;       // bit patterns, in row order after the scratch rows
  std::vector<std::uint32_t>* used = nullptr;  // the section's, indices into immediates
  const auto immediateRow = [&](std::uint32_t bits) {
    std::uint32_t k = 0;
    while (k < immediates.size() && immediates[k] != bits)
      ++k;
    if (k == immediates.size()) immediates.push_back(bits);
    if (std::find(used->begin(), used->end(), k) == used->end()) used->push_back(k);
    return static_cast<std::uint16_t>(scratch + kScratchRows + k);
  };
  for (const Section s : {Section::Init, Section::Update}) {
    std::vector<Op>& ops = s == Section::Init ? out.init_ : out.update_;
    used = &out.sectionImmediates_[s == Section::Init ? 0 : 1];
    const std::span<const std::uint32_t> code = p.section(s);
    for (std::size_t at = 0; at < code.size(); at += bytecode::kWordsPerInstruction) {
      std::uint32_t raw = 0;
      std::array<std::uint32_t, 3> kinds{};
      const bytecode::Instruction in = bytecode::decodeRaw(code.data() + at, raw, kinds);
      Op op;
      op.op = in.op;
      op.width = static_cast<std::uint8_t>(in.width);
      op.dst = static_cast<std::uint16_t>(in.dst);
      op.index = in.src[0];
      if (bytecode::opInfo(in.op).sources[2] == bytecode::SourceRule::Index) op.index2 = in.src[2];
      for (std::uint32_t slot = 0; slot < 3; ++slot) {
        Source& src = op.src[slot];
        if (in.kinds[slot] == bytecode::OperandKind::Imm) {
          src.immediate = true;
          src.value = std::bit_cast<float>(in.src[slot]);
          src.rows.fill(immediateRow(in.src[slot]));
        } else if (in.kinds[slot] == bytecode::OperandKind::Reg) {
          const std::uint32_t base = in.src[slot] & 0xFFu;
          for (std::uint32_t lane = 0; lane < 4; ++lane)
            src.rows[lane] =
                static_cast<std::uint16_t>(base + ((in.src[slot] >> (8 + 2 * lane)) & 3u));
        }
      }
      ops.push_back(op);
    }
  }
  out.immediates_ = std::move(immediates);
  // Run-invariant values get rows of their own past the immediates (as many as keep a program
  // within BatchVm's default rows); the sections run apart, so they share them.
  const std::uint32_t hoistBase = out.rowsNeeded();
  const std::uint32_t room =
      std::min(vm_detail::kMostHoistedRows,
               BatchVm::kDefaultRows - std::min(BatchVm::kDefaultRows, hoistBase));
  for (const Section s : {Section::Init, Section::Update}) {
    std::vector<Op>& ops = s == Section::Init ? out.init_ : out.update_;
    out.hoistedRows_ =
        std::max(out.hoistedRows_, hoistUniformOps(ops, p.registerCount, hoistBase, room));
    // Componentwise ops write dst row c after reading lane c of every source, so a later
    // lane reading a row an earlier one wrote has to go through scratch.
    for (Op& op : ops) {
      op.viaScratch = false;
      const bytecode::OpInfo& info = bytecode::opInfo(op.op);
      for (std::uint32_t c = 0; c < op.width; ++c) {
        for (std::uint32_t later = c + 1; later < op.width; ++later) {
          for (std::uint32_t slot = 0; slot < 3; ++slot) {
            const bytecode::SourceRule rule = info.sources[slot];
            if (rule == bytecode::SourceRule::Unused || rule == bytecode::SourceRule::Index)
              continue;
            if (!op.src[slot].immediate && op.src[slot].rows[later] == op.dst + c)
              op.viaScratch = true;
          }
        }
      }
    }
  }
  // Words INIT reads before writing, or never writes.
  std::vector<std::uint8_t> stored(p.particleWords, 0);
  std::vector<std::uint8_t> zero(p.particleWords, 0);
  for (const Op& op : out.init_) {
    if (op.op != Opcode::LoadField && op.op != Opcode::StoreField) continue;
    for (std::uint32_t w = op.index; w < op.index + op.width; ++w) {
      if (op.op == Opcode::LoadField && stored[w] == 0) zero[w] = 1;
      if (op.op == Opcode::StoreField) stored[w] = 1;
    }
  }
  for (std::uint32_t w = 0; w < p.particleWords; ++w)
    if (zero[w] != 0 || stored[w] == 0) out.initZeroWords_.push_back(w);
  for (const Section s : {Section::Init, Section::Update})
    chooseStreamOperands(s == Section::Init ? out.init_ : out.update_, out.rowsNeeded(),
                         p.particleWords);
  for (const Section s : {Section::Init, Section::Update})
    markUniformOps(s == Section::Init ? out.init_ : out.update_, out.rowsNeeded(), hoistBase);
  return out;
}

Result<BatchVm> BatchVm::create(std::uint32_t maxRows) {
  if (maxRows < kScratchRows + 1 || maxRows > 1u << 16) {
    return invalidArgument("BatchVm rows must be in [5, 65536] (got " + std::to_string(maxRows) +
                           ")");
  }
  return BatchVm(maxRows);
}

namespace {
constexpr std::align_val_t kRowAlignment{64};  // one cache line, one AVX-512 vector
}  // namespace

void BatchVm::AlignedFree::operator()(float* p) const noexcept {
  ::operator delete[](p, kRowAlignment);
}

BatchVm::BatchVm(std::uint32_t maxRows)
    : maxRows_(maxRows),
      registers_(static_cast<float*>(
          ::operator new[](std::size_t{maxRows} * kBatchLanes * sizeof(float), kRowAlignment))),
      rowSources_(new const float*[maxRows]()),
      laneWords_(new std::uint32_t[std::size_t{kLaneWordRows} * kBatchLanes]()),
      curveRows_(new float[std::size_t{vm_detail::kCurveRows} * kBatchLanes]()) {
  std::fill_n(registers_.get(), std::size_t{maxRows} * kBatchLanes, 0.0f);
}

void BatchVm::run(const PreparedProgram& program, Section section, std::span<float* const> streams,
                  std::uint32_t first, std::uint32_t count, const VmContext& context,
                  std::span<std::uint8_t> killed) {
  MOTE_ASSERT(program.rowsNeeded() <= maxRows_, "BatchVm::run: the program needs more rows");
  MOTE_ASSERT(streams.size() >= program.particleWords(), "BatchVm::run: missing particle streams");
  MOTE_ASSERT(killed.size() >= count, "BatchVm::run: killed span too small");
  // The section's immediate rows: filled once, never written by instructions — as far as a batch of
  // this run reaches, in whole vectors of the widest target (the random ops run to the end of a
  // vector).
  float* const rows = registers_.get();
  const std::uint32_t immBase = program.registerCount() + kScratchRows;
  const std::uint32_t reach = std::min(kBatchLanes, (count + 15) / 16 * 16);
  for (const std::uint32_t k : program.sectionImmediates(section)) {
    const std::uint32_t r = immBase + k;
    float* row = rows + std::size_t{r} * kBatchLanes;
    std::fill(row, row + reach, std::bit_cast<float>(program.immediates()[k]));
    rowSources_[r] = row;
  }
  std::uint32_t* const ids = laneWords_.get();
  const vm_detail::RunArgs args{&program,
                                section,
                                streams.data(),
                                first,
                                count,
                                &context,
                                killed.data(),
                                rows,
                                rowSources_.get(),
                                ids,
                                ids + kBatchLanes,
                                curveRows_.get()};
  HWY_DYNAMIC_DISPATCH(RunBatches)(args);
}

}  // namespace mote
#endif  // HWY_ONCE
