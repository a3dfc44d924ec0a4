// SPDX-License-Identifier: MIT
// The kernels of declareParticles' run: scalar (the contract, one particle at a time), SSE2 (four
// at a time; every x86-64 has it) and AVX2 (eight, chosen at run time). All three write the same
// bits; DeclareRun.KernelsMatchTheContractOnEveryBitPattern checks random bit patterns and edges.
//
// Instructions per particle (callgrind, g++ 12 -O2, 10,000 particles): scalar ~63 (Fpx16_16),
// SSE2 ~26, AVX2 ~14. The loads are transposes of the 40-byte AoS records into lanes.
#include "declare_run.h"

#include <mote/core/cpu_features.h>

#include <algorithm>
#include <cstring>
#include <type_traits>

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>
#define MOTE_DECLARE_X86 1
#endif

namespace mote::lockstep::detail {
namespace {

static_assert(offsetof(Particle<Fpx16_16>, pos) == 0 && offsetof(Particle<Fpx16_16>, depth) == 8 &&
                  offsetof(Particle<Fpx16_16>, age) == 20 &&
                  offsetof(Particle<Fpx16_16>, life) == 24 &&
                  offsetof(Particle<Fpx16_16>, size) == 28 &&
                  offsetof(Particle<Fpx16_16>, tint) == 32 &&
                  offsetof(Particle<Fpx16_16>, fadeTicks) == 36 && sizeof(Particle<Fpx16_16>) == 40,
              "the kernels' transposes assume laige's 40-byte layout");
static_assert(offsetof(Particle<Fp32>, depth) == 8 && offsetof(Particle<Fp32>, age) == 20 &&
              offsetof(Particle<Fp32>, size) == 28 && offsetof(Particle<Fp32>, tint) == 32 &&
              offsetof(Particle<Fp32>, fadeTicks) == 36 && sizeof(Particle<Fp32>) == 40);
constexpr std::size_t kStride = 40;

template <SimScalar Backend>
void declareRunScalar(const Particle<Backend>* __restrict in, const render::SpriteRunSlots& out,
                      std::uint32_t first, std::int32_t layer) {
  for (std::uint32_t i = first; i < out.count; ++i) {
    const DeclaredEntry e = declaredEntry(in[i], layer);
    out.posX[i] = e.x;
    out.posY[i] = e.y;
    out.depthKey[i] = e.depthKey;
    out.size[i] = e.size;
    out.tint8[i] = e.tint8;
  }
}

// The key's layer field, (clamp(layer) + 512) << 22, as isoDepthKey packs it.
std::uint32_t layerBits(std::int32_t layer) {
  return static_cast<std::uint32_t>(
             std::clamp(layer, render::kIsoDepthMinLayer, render::kIsoDepthMaxLayer) + 512)
         << 22;
}

// Exact facts the vector key arithmetic relies on (see the kernels).
constexpr std::int32_t kFpxDepthLimitRaw = kIsoDepthMaxStepHeight << 16;
constexpr std::int32_t kFieldBias = 1 << 21;
constexpr std::int32_t kFieldMax = (1 << 22) - 1;

#if defined(MOTE_DECLARE_X86)

// ---------------------------------------------------------------------------------------------
// SSE2: four particles

struct Lanes4 {
  __m128i x, y, depth, age, life, size, tint, fadeTicks;
};

inline __m128i load128(const std::uint8_t* p) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
}

// Three 4×4 transposes of the records at offsets 0, 16 and 32; nothing past the fourth particle
// is read.
inline Lanes4 loadLanes4(const std::uint8_t* p) {
  Lanes4 l;
  {  // x y depth vx
    const __m128i a0 = load128(p), a1 = load128(p + kStride);
    const __m128i a2 = load128(p + 2 * kStride), a3 = load128(p + 3 * kStride);
    const __m128i xy01 = _mm_unpacklo_epi32(a0, a1), xy23 = _mm_unpacklo_epi32(a2, a3);
    l.x = _mm_unpacklo_epi64(xy01, xy23);
    l.y = _mm_unpackhi_epi64(xy01, xy23);
    l.depth = _mm_unpacklo_epi64(_mm_unpackhi_epi32(a0, a1), _mm_unpackhi_epi32(a2, a3));
  }
  {  // vy age life size
    const __m128i b0 = load128(p + 16), b1 = load128(p + kStride + 16);
    const __m128i b2 = load128(p + 2 * kStride + 16), b3 = load128(p + 3 * kStride + 16);
    const __m128i ls01 = _mm_unpackhi_epi32(b0, b1), ls23 = _mm_unpackhi_epi32(b2, b3);
    l.age = _mm_unpackhi_epi64(_mm_unpacklo_epi32(b0, b1), _mm_unpacklo_epi32(b2, b3));
    l.life = _mm_unpacklo_epi64(ls01, ls23);
    l.size = _mm_unpackhi_epi64(ls01, ls23);
  }
  {  // tint fadeTicks
    const auto load64 = [](const std::uint8_t* q) {
      return _mm_loadl_epi64(reinterpret_cast<const __m128i*>(q));
    };
    const __m128i c01 = _mm_unpacklo_epi32(load64(p + 32), load64(p + kStride + 32));
    const __m128i c23 =
        _mm_unpacklo_epi32(load64(p + 2 * kStride + 32), load64(p + 3 * kStride + 32));
    l.tint = _mm_unpacklo_epi64(c01, c23);
    l.fadeTicks = _mm_unpackhi_epi64(c01, c23);
  }
  return l;
}

// SSE2 has no int32 min/max.
inline __m128i select4(__m128i mask, __m128i ifTrue, __m128i ifFalse) {
  return _mm_or_si128(_mm_and_si128(mask, ifTrue), _mm_andnot_si128(mask, ifFalse));
}
inline __m128i clamp4(__m128i v, __m128i lo, __m128i hi) {
  v = select4(_mm_cmpgt_epi32(v, hi), hi, v);
  return select4(_mm_cmplt_epi32(v, lo), lo, v);
}

// roundSmallTiesEven of four floats with |v| <= 2^23 (not NaN): (|v| + 2^23) − 2^23, signed back.
inline __m128i roundSmall4(__m128 v) {
  const __m128 sign = _mm_castsi128_ps(_mm_set1_epi32(static_cast<std::int32_t>(0x80000000u)));
  const __m128 big = _mm_set1_ps(0x1p23f);
  const __m128 rounded = _mm_sub_ps(_mm_add_ps(_mm_andnot_ps(sign, v), big), big);
  return _mm_cvttps_epi32(_mm_or_ps(rounded, _mm_and_ps(sign, v)));
}

// The iso depth keys (isoDepthKey ∘ particleDepthToStepHeight) of four particles.
template <SimScalar Backend>
__m128i depthKeys4(const Lanes4& l, __m128i layer) {
  const __m128i one = _mm_set1_epi32(1);
  if constexpr (std::is_same_v<Backend, Fpx16_16>) {
    // Step height: the raw depth clamped to ±2047.0, then roundShiftTiesEven by 16 (the clamped
    // raw is below 2^27, so the adds cannot overflow).
    const __m128i d =
        clamp4(l.depth, _mm_set1_epi32(-kFpxDepthLimitRaw), _mm_set1_epi32(kFpxDepthLimitRaw));
    const __m128i odd = _mm_and_si128(_mm_srai_epi32(d, 16), one);
    const __m128i z =
        _mm_srai_epi32(_mm_add_epi32(_mm_add_epi32(d, _mm_set1_epi32(0x7FFF)), odd), 16);
    // round((x + y) · 16) = roundShiftTiesEven(x.raw + y.raw, 12) without the 33-bit sum: each
    // raw is (raw >> 12) · 4096 + (raw & 4095), and the low parts (sum < 2^13) carry the rounding.
    const __m128i lowMask = _mm_set1_epi32(4095);
    const __m128i high = _mm_add_epi32(_mm_srai_epi32(l.x, 12), _mm_srai_epi32(l.y, 12));
    const __m128i low = _mm_add_epi32(_mm_and_si128(l.x, lowMask), _mm_and_si128(l.y, lowMask));
    const __m128i odd12 = _mm_and_si128(_mm_add_epi32(high, _mm_srli_epi32(low, 12)), one);
    const __m128i xy16 = _mm_add_epi32(
        high, _mm_srli_epi32(_mm_add_epi32(_mm_add_epi32(low, _mm_set1_epi32(2047)), odd12), 12));
    // No clamp of the 22-bit field: |xy16| <= 2^20 and |z · 16| <= 32,752, so
    // xy16 − z·16 + 2^21 lies in [2^20 − 32,752, 3·2^20 + 32,752] ⊂ [0, 2^22).
    const __m128i field =
        _mm_add_epi32(_mm_sub_epi32(xy16, _mm_slli_epi32(z, 4)), _mm_set1_epi32(kFieldBias));
    return _mm_or_si128(field, layer);
  } else {
    // Step height: NaN and above 2047 → 2047, below −2047 → −2047, else rounded ties-to-even.
    const __m128 depth = _mm_castsi128_ps(l.depth);
    const __m128i above = _mm_castps_si128(_mm_cmpnle_ps(depth, _mm_set1_ps(2047.0f)));
    const __m128i below = _mm_castps_si128(_mm_cmplt_ps(depth, _mm_set1_ps(-2047.0f)));
    __m128i z = roundSmall4(depth);
    z = select4(above, _mm_set1_epi32(kIsoDepthMaxStepHeight), z);
    z = select4(below, _mm_set1_epi32(-kIsoDepthMaxStepHeight), z);
    // (x + y) · 16 clamped to ±2^23 and rounded; NaN → 0.
    const __m128 sum =
        _mm_mul_ps(_mm_add_ps(_mm_castsi128_ps(l.x), _mm_castsi128_ps(l.y)), _mm_set1_ps(16.0f));
    const __m128 clamped = _mm_min_ps(_mm_max_ps(sum, _mm_set1_ps(-0x1p23f)), _mm_set1_ps(0x1p23f));
    const __m128i xy16 =
        _mm_and_si128(roundSmall4(clamped), _mm_castps_si128(_mm_cmpord_ps(sum, sum)));
    const __m128i field =
        _mm_add_epi32(_mm_sub_epi32(xy16, _mm_slli_epi32(z, 4)), _mm_set1_epi32(kFieldBias));
    return _mm_or_si128(clamp4(field, _mm_setzero_si128(), _mm_set1_epi32(kFieldMax)), layer);
  }
}

template <SimScalar Backend>
__m128 toFloat4(__m128i raw) {
  if constexpr (std::is_same_v<Backend, Fpx16_16>) {
    return _mm_mul_ps(_mm_cvtepi32_ps(raw), _mm_set1_ps(0x1p-16f));  // Fpx16_16::toFloat
  } else {
    return _mm_castsi128_ps(raw);
  }
}

// fadeAlpha differs from tint[3] only while a particle fades: fadeTicks != 0 and life − age <
// fadeTicks (unsigned: both sides flip their sign bit for the signed compare). The mask of those
// lanes; they take the exact u32 division one by one (few particles fade in a frame).
inline int fadingLanes4(const Lanes4& l) {
  const __m128i sign = _mm_set1_epi32(static_cast<std::int32_t>(0x80000000u));
  const __m128i remaining = _mm_sub_epi32(l.life, l.age);
  const __m128i fading = _mm_andnot_si128(
      _mm_cmpeq_epi32(l.fadeTicks, _mm_setzero_si128()),
      _mm_cmplt_epi32(_mm_xor_si128(remaining, sign), _mm_xor_si128(l.fadeTicks, sign)));
  return _mm_movemask_ps(_mm_castsi128_ps(fading));
}

template <SimScalar Backend>
void fixFadingAlphas(const Particle<Backend>* in, const render::SpriteRunSlots& out,
                     std::uint32_t first, int lanes) {
  for (std::uint32_t k = 0; lanes != 0; ++k, lanes >>= 1)
    if ((lanes & 1) != 0)
      out.tint8[first + k][3] = ParticleSystem<Backend>::fadeAlpha(in[first + k]);
}

template <SimScalar Backend>
void declareRunSse2(const Particle<Backend>* __restrict in, const render::SpriteRunSlots& out,
                    std::int32_t layer) {
  const __m128i layer4 = _mm_set1_epi32(static_cast<std::int32_t>(layerBits(layer)));
  const auto* const bytes = reinterpret_cast<const std::uint8_t*>(in);
  std::uint32_t i = 0;
  for (; i + 4 <= out.count; i += 4) {
    const Lanes4 l = loadLanes4(bytes + std::size_t{i} * kStride);
    _mm_storeu_ps(out.posX + i, toFloat4<Backend>(l.x));
    _mm_storeu_ps(out.posY + i, toFloat4<Backend>(l.y));
    _mm_storeu_ps(out.size + i, toFloat4<Backend>(l.size));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out.depthKey + i), depthKeys4<Backend>(l, layer4));
    std::memcpy(out.tint8 + i, &l.tint, sizeof(l.tint));
    if (const int lanes = fadingLanes4(l); lanes != 0) [[unlikely]]
      fixFadingAlphas(in, out, i, lanes);
  }
  declareRunScalar(in, out, i, layer);
}

// ---------------------------------------------------------------------------------------------
// AVX2: eight particles. The same arithmetic as SSE2 on 256-bit lanes (see depthKeys4 for why
// each step is exact); AVX2 has the int32 min/max and blends SSE2 lacks.

#define MOTE_AVX2 __attribute__((target("avx2")))

struct Lanes8 {
  __m256i x, y, depth, age, life, size, tint, fadeTicks;
};

// Per particle one 32-byte load at offset 8 (depth vx vy age life size tint fadeTicks, ending at
// the record's end) transposed 8×8, and x y from 8-byte loads; nothing past the eighth particle
// is read.
MOTE_AVX2 inline __m256i row8(const std::uint8_t* q) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q + 8));
}

// Two particles' (x, y): four dwords.
MOTE_AVX2 inline __m128i xyPair(const std::uint8_t* a, const std::uint8_t* b) {
  return _mm_castps_si128(
      _mm_loadh_pi(_mm_castsi128_ps(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(a))),
                   reinterpret_cast<const __m64*>(b)));
}

MOTE_AVX2 inline Lanes8 loadLanes8(const std::uint8_t* p) {
  const __m256i r0 = row8(p), r1 = row8(p + kStride), r2 = row8(p + 2 * kStride),
                r3 = row8(p + 3 * kStride), r4 = row8(p + 4 * kStride), r5 = row8(p + 5 * kStride),
                r6 = row8(p + 6 * kStride), r7 = row8(p + 7 * kStride);
  // [d0 d1 vx0 vx1 | l0 l1 s0 s1] and [vy0 vy1 a0 a1 | t0 t1 f0 f1], per pair of rows.
  const __m256i lo01 = _mm256_unpacklo_epi32(r0, r1), hi01 = _mm256_unpackhi_epi32(r0, r1);
  const __m256i lo23 = _mm256_unpacklo_epi32(r2, r3), hi23 = _mm256_unpackhi_epi32(r2, r3);
  const __m256i lo45 = _mm256_unpacklo_epi32(r4, r5), hi45 = _mm256_unpackhi_epi32(r4, r5);
  const __m256i lo67 = _mm256_unpacklo_epi32(r6, r7), hi67 = _mm256_unpackhi_epi32(r6, r7);
  // [d0..3 | l0..3], [vx | s0..3], [vy | t0..3], [a0..3 | f0..3] for particles 0–3 and 4–7.
  const __m256i dl0 = _mm256_unpacklo_epi64(lo01, lo23), dl1 = _mm256_unpacklo_epi64(lo45, lo67);
  const __m256i vs0 = _mm256_unpackhi_epi64(lo01, lo23), vs1 = _mm256_unpackhi_epi64(lo45, lo67);
  const __m256i vt0 = _mm256_unpacklo_epi64(hi01, hi23), vt1 = _mm256_unpacklo_epi64(hi45, hi67);
  const __m256i af0 = _mm256_unpackhi_epi64(hi01, hi23), af1 = _mm256_unpackhi_epi64(hi45, hi67);
  Lanes8 l;
  l.depth = _mm256_permute2x128_si256(dl0, dl1, 0x20);
  l.life = _mm256_permute2x128_si256(dl0, dl1, 0x31);
  l.size = _mm256_permute2x128_si256(vs0, vs1, 0x31);
  l.tint = _mm256_permute2x128_si256(vt0, vt1, 0x31);
  l.age = _mm256_permute2x128_si256(af0, af1, 0x20);
  l.fadeTicks = _mm256_permute2x128_si256(af0, af1, 0x31);
  // x y: (x0 y0 x1 y1 | x4 y4 x5 y5) and (x2 y2 x3 y3 | x6 y6 x7 y7), then even and odd dwords.
  const __m256 xy0 = _mm256_castsi256_ps(_mm256_inserti128_si256(
      _mm256_castsi128_si256(xyPair(p, p + kStride)), xyPair(p + 4 * kStride, p + 5 * kStride), 1));
  const __m256 xy1 = _mm256_castsi256_ps(
      _mm256_inserti128_si256(_mm256_castsi128_si256(xyPair(p + 2 * kStride, p + 3 * kStride)),
                              xyPair(p + 6 * kStride, p + 7 * kStride), 1));
  l.x = _mm256_castps_si256(_mm256_shuffle_ps(xy0, xy1, 0x88));
  l.y = _mm256_castps_si256(_mm256_shuffle_ps(xy0, xy1, 0xDD));
  return l;
}

MOTE_AVX2 inline __m256i roundSmall8(__m256 v) {
  const __m256 sign =
      _mm256_castsi256_ps(_mm256_set1_epi32(static_cast<std::int32_t>(0x80000000u)));
  const __m256 big = _mm256_set1_ps(0x1p23f);
  const __m256 rounded = _mm256_sub_ps(_mm256_add_ps(_mm256_andnot_ps(sign, v), big), big);
  return _mm256_cvttps_epi32(_mm256_or_ps(rounded, _mm256_and_ps(sign, v)));
}

template <SimScalar Backend>
MOTE_AVX2 __m256i depthKeys8(const Lanes8& l, __m256i layer) {
  const __m256i one = _mm256_set1_epi32(1);
  if constexpr (std::is_same_v<Backend, Fpx16_16>) {
    const __m256i d =
        _mm256_min_epi32(_mm256_max_epi32(l.depth, _mm256_set1_epi32(-kFpxDepthLimitRaw)),
                         _mm256_set1_epi32(kFpxDepthLimitRaw));
    const __m256i odd = _mm256_and_si256(_mm256_srai_epi32(d, 16), one);
    const __m256i z = _mm256_srai_epi32(
        _mm256_add_epi32(_mm256_add_epi32(d, _mm256_set1_epi32(0x7FFF)), odd), 16);
    const __m256i lowMask = _mm256_set1_epi32(4095);
    const __m256i high = _mm256_add_epi32(_mm256_srai_epi32(l.x, 12), _mm256_srai_epi32(l.y, 12));
    const __m256i low =
        _mm256_add_epi32(_mm256_and_si256(l.x, lowMask), _mm256_and_si256(l.y, lowMask));
    const __m256i odd12 = _mm256_and_si256(_mm256_add_epi32(high, _mm256_srli_epi32(low, 12)), one);
    const __m256i xy16 = _mm256_add_epi32(
        high, _mm256_srli_epi32(
                  _mm256_add_epi32(_mm256_add_epi32(low, _mm256_set1_epi32(2047)), odd12), 12));
    const __m256i field = _mm256_add_epi32(_mm256_sub_epi32(xy16, _mm256_slli_epi32(z, 4)),
                                           _mm256_set1_epi32(kFieldBias));
    return _mm256_or_si256(field, layer);
  } else {
    const __m256 depth = _mm256_castsi256_ps(l.depth);
    const __m256 above = _mm256_cmp_ps(depth, _mm256_set1_ps(2047.0f), _CMP_NLE_UQ);  // NaN too
    const __m256 below = _mm256_cmp_ps(depth, _mm256_set1_ps(-2047.0f), _CMP_LT_OQ);
    __m256i z = roundSmall8(depth);
    z = _mm256_castps_si256(
        _mm256_blendv_ps(_mm256_castsi256_ps(z),
                         _mm256_castsi256_ps(_mm256_set1_epi32(kIsoDepthMaxStepHeight)), above));
    z = _mm256_castps_si256(
        _mm256_blendv_ps(_mm256_castsi256_ps(z),
                         _mm256_castsi256_ps(_mm256_set1_epi32(-kIsoDepthMaxStepHeight)), below));
    const __m256 sum = _mm256_mul_ps(
        _mm256_add_ps(_mm256_castsi256_ps(l.x), _mm256_castsi256_ps(l.y)), _mm256_set1_ps(16.0f));
    const __m256 clamped =
        _mm256_min_ps(_mm256_max_ps(sum, _mm256_set1_ps(-0x1p23f)), _mm256_set1_ps(0x1p23f));
    const __m256i xy16 = _mm256_and_si256(roundSmall8(clamped),
                                          _mm256_castps_si256(_mm256_cmp_ps(sum, sum, _CMP_ORD_Q)));
    const __m256i field = _mm256_add_epi32(_mm256_sub_epi32(xy16, _mm256_slli_epi32(z, 4)),
                                           _mm256_set1_epi32(kFieldBias));
    return _mm256_or_si256(_mm256_min_epi32(_mm256_max_epi32(field, _mm256_setzero_si256()),
                                            _mm256_set1_epi32(kFieldMax)),
                           layer);
  }
}

template <SimScalar Backend>
MOTE_AVX2 __m256 toFloat8(__m256i raw) {
  if constexpr (std::is_same_v<Backend, Fpx16_16>) {
    return _mm256_mul_ps(_mm256_cvtepi32_ps(raw), _mm256_set1_ps(0x1p-16f));
  } else {
    return _mm256_castsi256_ps(raw);
  }
}

MOTE_AVX2 inline int fadingLanes8(const Lanes8& l) {
  const __m256i sign = _mm256_set1_epi32(static_cast<std::int32_t>(0x80000000u));
  const __m256i remaining = _mm256_sub_epi32(l.life, l.age);
  const __m256i fading = _mm256_andnot_si256(
      _mm256_cmpeq_epi32(l.fadeTicks, _mm256_setzero_si256()),
      _mm256_cmpgt_epi32(_mm256_xor_si256(l.fadeTicks, sign), _mm256_xor_si256(remaining, sign)));
  return _mm256_movemask_ps(_mm256_castsi256_ps(fading));
}

template <SimScalar Backend>
MOTE_AVX2 void declareRunAvx2(const Particle<Backend>* __restrict in,
                              const render::SpriteRunSlots& out, std::int32_t layer) {
  const __m256i layer8 = _mm256_set1_epi32(static_cast<std::int32_t>(layerBits(layer)));
  const auto* const bytes = reinterpret_cast<const std::uint8_t*>(in);
  std::uint32_t i = 0;
  for (; i + 8 <= out.count; i += 8) {
    const Lanes8 l = loadLanes8(bytes + std::size_t{i} * kStride);
    _mm256_storeu_ps(out.posX + i, toFloat8<Backend>(l.x));
    _mm256_storeu_ps(out.posY + i, toFloat8<Backend>(l.y));
    _mm256_storeu_ps(out.size + i, toFloat8<Backend>(l.size));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out.depthKey + i),
                        depthKeys8<Backend>(l, layer8));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out.tint8 + i), l.tint);
    if (const int lanes = fadingLanes8(l); lanes != 0) [[unlikely]]
      fixFadingAlphas(in, out, i, lanes);
  }
  declareRunScalar(in, out, i, layer);
}

#undef MOTE_AVX2

#endif  // MOTE_DECLARE_X86

}  // namespace

bool declareIsaAvailable(DeclareIsa isa) noexcept {
  switch (isa) {
    case DeclareIsa::Scalar:
      return true;
#if defined(MOTE_DECLARE_X86)
    case DeclareIsa::Sse2:
      return true;
    case DeclareIsa::Avx2:
      return cpuFeatures().avx2;
#else
    case DeclareIsa::Sse2:
    case DeclareIsa::Avx2:
      return false;
#endif
  }
  return false;
}

DeclareIsa bestDeclareIsa() noexcept {
  static const DeclareIsa best = declareIsaAvailable(DeclareIsa::Avx2)   ? DeclareIsa::Avx2
                                 : declareIsaAvailable(DeclareIsa::Sse2) ? DeclareIsa::Sse2
                                                                         : DeclareIsa::Scalar;
  return best;
}

template <SimScalar Backend>
void declareRun(const Particle<Backend>* in, const render::SpriteRunSlots& out, std::int32_t layer,
                DeclareIsa isa) noexcept {
#if defined(MOTE_DECLARE_X86)
  if (isa == DeclareIsa::Avx2) return declareRunAvx2(in, out, layer);
  if (isa == DeclareIsa::Sse2) return declareRunSse2(in, out, layer);
#endif
  (void)isa;
  declareRunScalar(in, out, 0, layer);
}

template void declareRun(const Particle<Fpx16_16>*, const render::SpriteRunSlots&, std::int32_t,
                         DeclareIsa) noexcept;
template void declareRun(const Particle<Fp32>*, const render::SpriteRunSlots&, std::int32_t,
                         DeclareIsa) noexcept;

}  // namespace mote::lockstep::detail
