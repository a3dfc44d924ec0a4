// SPDX-License-Identifier: MIT
// The batched VM's row kernels, compiled once per SIMD target: the loops over a row's lanes, the
// elementwise formulas as vector and lane overloads, sin/cos, Philox, curl noise and CURVE's vector
// steps. Highway's per-target header (hwy/contrib/math/math-inl.h's convention): vm-inl.h includes
// it once per target, and the guard toggles with HWY_TARGET_TOGGLE.
#if defined(MOTE_RUNTIME_VM_KERNELS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef MOTE_RUNTIME_VM_KERNELS_INL_H_
#undef MOTE_RUNTIME_VM_KERNELS_INL_H_
#else
#define MOTE_RUNTIME_VM_KERNELS_INL_H_
#endif

#include <mote/bytecode/isa.h>
#include <mote/bytecode/semantics.h>

#include <hwy/highway.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>

HWY_BEFORE_NAMESPACE();
namespace mote {
namespace HWY_NAMESPACE {
namespace {

namespace hn = hwy::HWY_NAMESPACE;

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

// semantics.h's own exp, log and pow, one lane at a time (the reference calls the same functions,
// compiled once in src/bytecode/semantics_math.cpp: the same bits at every target).
struct ExpOp {
  HWY_INLINE float operator()(float a) const { return bytecode::semantics::exponential(a); }
};
struct LogOp {
  HWY_INLINE float operator()(float a) const { return bytecode::semantics::logarithm(a); }
};
struct PowOp {
  HWY_INLINE float operator()(float a, float b) const { return bytecode::semantics::power(a, b); }
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

// DOT, LEN and NORM's steps: the sum in the reference's order, lane by lane.
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
  HWY_INLINE float operator()(float acc, float a, float b) const { return std::sqrt(acc + a * b); }
};
struct NormalizeLane {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V a, V len) const {
    return hn::IfThenElseZero(hn::Gt(len, hn::Zero(d)), hn::Div(a, len));
  }
  HWY_INLINE float operator()(float a, float len) const { return len > 0.0f ? a / len : 0.0f; }
};

// CURL: bytecode::curlNoise (reference.cpp) across lanes — the same float and integer
// operations in its order: floor, the lattice hash, Perlin's twelve gradients, fade, the lerps
// and the central differences. Vectors with a point that is not finite or lies beyond ±2^29
// (where the reference wraps cells, semantics::noiseCell) run bytecode::curlNoise lane by lane.
using VecF = hn::Vec<Tag>;
using TagI = hn::RebindToSigned<Tag>;

inline VecF fade(VecF t) {
  const Tag d;
  return hn::Mul(hn::Mul(hn::Mul(t, t), t),
                 hn::Add(hn::Mul(t, hn::Sub(hn::Mul(t, hn::Set(d, 6.0f)), hn::Set(d, 15.0f))),
                         hn::Set(d, 10.0f)));
}
inline VecF lerp(VecF a, VecF b, VecF t) {
  return hn::Add(a, hn::Mul(hn::Sub(b, a), t));
}

// gradient(hash3(cell), x, y, z) of reference.cpp: h % 12 picks the pair of offsets (x, y),
// (x, z) or (y, z) and their signs; −a + b is (−a) + b and a − b is a + (−b), bit for bit.
inline VecF gradient(VecU cx, VecU cy, VecU cz, VecF x, VecF y, VecF z) {
  const TagU du;
  const Tag d;
  const TagI di;
  VecU h =
      hn::Xor(hn::Xor(hn::Mul(cx, hn::Set(du, 0x8DA6B343u)), hn::Mul(cy, hn::Set(du, 0xD8163841u))),
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

inline VecF noise(VecF x, VecF y, VecF z) {
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

inline std::array<VecF, 3> curlNoise(const std::array<VecF, 3>& p) {
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

// CURVE's vector steps (Interpreter::curveTwoKeys and curveVectors).
// The linear segment's saturate((t − a) · inv), where a < b.
inline hn::Vec<Tag> linearParameter(hn::Vec<Tag> a, hn::Vec<Tag> t, hn::Vec<Tag> inv) {
  const Tag d;
  const hn::Vec<Tag> zero = hn::Zero(d);
  const hn::Vec<Tag> one = hn::Set(d, 1.0f);
  const hn::Vec<Tag> u = hn::Mul(hn::Sub(t, a), inv);
  const hn::Vec<Tag> m = hn::IfThenElse(hn::Lt(u, zero), zero, u);
  return hn::IfThenElse(hn::Lt(one, m), one, m);
}

// CurveTable::segmentParameter for segment [a, b] at t; inv is 1 / (b − a) (linear only).
inline hn::Vec<Tag> curveParameter(bytecode::CurveTableInterp interp, hn::Vec<Tag> a,
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

// CURVE's t for the vector at i (`valid` lanes of it, the rest 0): NaN reads as the first key's
// time.
inline hn::Vec<Tag> curveTime(const float* tRow, std::uint32_t i, std::uint32_t valid,
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
inline void curveStore(float* out, std::uint32_t valid, hn::Vec<Tag> delta, hn::Vec<Tag> s,
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

}  // namespace
}  // namespace HWY_NAMESPACE
}  // namespace mote
HWY_AFTER_NAMESPACE();

#endif  // MOTE_RUNTIME_VM_KERNELS_INL_H_
