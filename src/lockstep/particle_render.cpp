// SPDX-License-Identifier: MIT
// declareParticles for Fpx16_16 and Fp32.
#include <mote/lockstep/particle_render.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <type_traits>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace mote::lockstep {
namespace {

// u8 / 255 for every u8, computed at compile time with the same single IEEE division the contract
// names (one rounding per channel): the declarations beyond the frame's room go through add().
constexpr std::array<float, 256> kUnitFromU8 = [] {
  std::array<float, 256> table{};
  for (std::size_t i = 0; i < table.size(); ++i) {
    table[i] = static_cast<float>(i) / kTintChannelDivisor;
  }
  return table;
}();

// The 8-bit tint of one particle's declaration: its RGB and its faded alpha.
template <SimScalar Backend>
std::array<std::uint8_t, 4> declaredTint8(const Particle<Backend>& p) {
  return {p.tint[0], p.tint[1], p.tint[2], ParticleSystem<Backend>::fadeAlpha(p)};
}

// One particle's sprite as a full SpriteItem (the contract's table), for add().
template <SimScalar Backend>
render::SpriteItem declaredItem(const Particle<Backend>& p, const render::SpriteLook& look,
                                std::int32_t layer) {
  render::SpriteItem item;
  item.pos = {p.pos.x.toFloat(), p.pos.y.toFloat()};
  item.depthKey = isoDepthKey(p.pos, particleDepthToStepHeight(p.depth), layer);
  const float size = p.size.toFloat();
  item.scale = {size, size};
  const std::array<std::uint8_t, 4> tint = declaredTint8(p);
  item.tint = {kUnitFromU8[tint[0]], kUnitFromU8[tint[1]], kUnitFromU8[tint[2]],
               kUnitFromU8[tint[3]]};
  item.uv = look.uv;
  item.atlasId = look.atlasId;
  item.materialId = look.materialId;
  item.blend = look.blend;
  return item;
}

// The reference form of declareRun: one particle at a time, straight from the contract.
template <SimScalar Backend>
void declareRunScalar(const Particle<Backend>* __restrict in, const render::SpriteRunSlots& out,
                      std::uint32_t first, std::int32_t layer) {
  for (std::uint32_t i = first; i < out.count; ++i) {
    const render::SpriteItem item = declaredItem(in[i], render::SpriteLook{}, layer);
    out.posX[i] = item.pos.x;
    out.posY[i] = item.pos.y;
    out.depthKey[i] = item.depthKey;
    out.size[i] = item.scale.x;
    out.tint8[i] = declaredTint8(in[i]);
  }
}

#if defined(__SSE2__)
// Four particles at a time in SSE2 (every x86-64 has it), bit-identical to declareRunScalar
// (ParticleRender.SimdDeclareMatchesTheScalarReference checks random bit patterns and the edges).
// The scalar pass costs ~63 instructions per particle; this one ~20.

// The fields of four consecutive particles, one per lane: three 4×4 transposes of the 40-byte
// records (offsets 0, 16 and 32), which never read past the fourth particle.
struct ParticleLanes {
  __m128i x, y, depth, age, life, size, tint, fadeTicks;
};

static_assert(offsetof(Particle<Fpx16_16>, pos) == 0 && offsetof(Particle<Fpx16_16>, depth) == 8 &&
              offsetof(Particle<Fpx16_16>, age) == 20 && offsetof(Particle<Fpx16_16>, life) == 24 &&
              offsetof(Particle<Fpx16_16>, size) == 28 &&
              offsetof(Particle<Fpx16_16>, tint) == 32 &&
              offsetof(Particle<Fpx16_16>, fadeTicks) == 36);
static_assert(offsetof(Particle<Fp32>, depth) == 8 && offsetof(Particle<Fp32>, size) == 28 &&
              offsetof(Particle<Fp32>, tint) == 32);

inline __m128i load128(const std::uint8_t* p) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
}

inline ParticleLanes loadLanes(const std::uint8_t* p) {
  constexpr std::size_t kStride = 40;
  ParticleLanes l;
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

// min/max of int32 lanes (SSE2 has neither).
inline __m128i select(__m128i mask, __m128i ifTrue, __m128i ifFalse) {
  return _mm_or_si128(_mm_and_si128(mask, ifTrue), _mm_andnot_si128(mask, ifFalse));
}
inline __m128i clampI32(__m128i v, __m128i lo, __m128i hi) {
  v = select(_mm_cmpgt_epi32(v, hi), hi, v);
  return select(_mm_cmplt_epi32(v, lo), lo, v);
}

// roundSmallTiesEven of four floats with |v| <= 2^23 (not NaN): (|v| + 2^23) − 2^23, signed back.
inline __m128i roundSmallTiesEven4(__m128 v) {
  const __m128 sign = _mm_castsi128_ps(_mm_set1_epi32(static_cast<std::int32_t>(0x80000000u)));
  const __m128 big = _mm_set1_ps(0x1p23f);
  const __m128 magnitude = _mm_andnot_ps(sign, v);
  const __m128 rounded = _mm_sub_ps(_mm_add_ps(magnitude, big), big);
  return _mm_cvttps_epi32(_mm_or_ps(rounded, _mm_and_ps(sign, v)));
}

// The iso depth keys of four particles (isoDepthKey ∘ particleDepthToStepHeight), `layerBits` the
// key's clamped layer field, (layer + 512) << 22.
template <SimScalar Backend>
__m128i depthKeys4(const ParticleLanes& l, __m128i layerBits) {
  const __m128i one = _mm_set1_epi32(1);
  if constexpr (std::is_same_v<Backend, Fpx16_16>) {
    // Step height: the raw depth clamped to ±2047.0, then rounded to an integer ties-to-even
    // (roundShiftTiesEven by 16; |raw| < 2^31 − 2^15 so the adds cannot overflow).
    constexpr std::int32_t kLimit = kIsoDepthMaxStepHeight << 16;
    const __m128i d = clampI32(l.depth, _mm_set1_epi32(-kLimit), _mm_set1_epi32(kLimit));
    const __m128i odd = _mm_and_si128(_mm_srai_epi32(d, 16), one);
    const __m128i z =
        _mm_srai_epi32(_mm_add_epi32(_mm_add_epi32(d, _mm_set1_epi32(0x7FFF)), odd), 16);
    // round((x + y) · 16) = roundShiftTiesEven(x.raw + y.raw, 12) without the 33-bit sum: split
    // each raw into (raw >> 12) · 4096 + (raw & 4095) and round the sum of the low parts.
    const __m128i low = _mm_set1_epi32(4095);
    const __m128i high = _mm_add_epi32(_mm_srai_epi32(l.x, 12), _mm_srai_epi32(l.y, 12));
    const __m128i lows = _mm_add_epi32(_mm_and_si128(l.x, low), _mm_and_si128(l.y, low));  // < 2^13
    const __m128i quotientOdd = _mm_and_si128(_mm_add_epi32(high, _mm_srli_epi32(lows, 12)), one);
    const __m128i xy16 = _mm_add_epi32(
        high,
        _mm_srli_epi32(_mm_add_epi32(_mm_add_epi32(lows, _mm_set1_epi32(2047)), quotientOdd), 12));
    // The 22-bit field needs no clamp here: |xy16| <= 2^20 and |z · 16| <= 32,752, so
    // xy16 − z·16 + 2^21 stays inside [2^20 − 32,752, 3·2^20 + 32,752] ⊂ [0, 2^22).
    const __m128i field =
        _mm_add_epi32(_mm_sub_epi32(xy16, _mm_slli_epi32(z, 4)), _mm_set1_epi32(1 << 21));
    return _mm_or_si128(field, layerBits);
  } else {
    // Step height: NaN and above 2047 → 2047, below −2047 → −2047, else rounded ties-to-even.
    const __m128 depth = _mm_castsi128_ps(l.depth);
    const __m128i above = _mm_castps_si128(_mm_cmpnle_ps(depth, _mm_set1_ps(2047.0f)));
    const __m128i below = _mm_castps_si128(_mm_cmplt_ps(depth, _mm_set1_ps(-2047.0f)));
    __m128i z = roundSmallTiesEven4(depth);
    z = select(above, _mm_set1_epi32(kIsoDepthMaxStepHeight), z);
    z = select(below, _mm_set1_epi32(-kIsoDepthMaxStepHeight), z);
    // (x + y) · 16 clamped to ±2^23 and rounded; NaN → 0.
    const __m128 sum =
        _mm_mul_ps(_mm_add_ps(_mm_castsi128_ps(l.x), _mm_castsi128_ps(l.y)), _mm_set1_ps(16.0f));
    const __m128 clamped = _mm_min_ps(_mm_max_ps(sum, _mm_set1_ps(-0x1p23f)), _mm_set1_ps(0x1p23f));
    const __m128i xy16 =
        _mm_and_si128(roundSmallTiesEven4(clamped), _mm_castps_si128(_mm_cmpord_ps(sum, sum)));
    const __m128i field =
        _mm_add_epi32(_mm_sub_epi32(xy16, _mm_slli_epi32(z, 4)), _mm_set1_epi32(1 << 21));
    return _mm_or_si128(clampI32(field, _mm_setzero_si128(), _mm_set1_epi32((1 << 22) - 1)),
                        layerBits);
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

template <SimScalar Backend>
void declareRun(const Particle<Backend>* __restrict in, const render::SpriteRunSlots& out,
                std::int32_t layer) {
  const std::int32_t clampedLayer =
      std::clamp(layer, render::kIsoDepthMinLayer, render::kIsoDepthMaxLayer);
  const __m128i layerBits = _mm_set1_epi32(
      static_cast<std::int32_t>(static_cast<std::uint32_t>(clampedLayer + 512) << 22));
  const __m128i signBit = _mm_set1_epi32(static_cast<std::int32_t>(0x80000000u));
  const auto* const bytes = reinterpret_cast<const std::uint8_t*>(in);
  std::uint32_t i = 0;
  for (; i + 4 <= out.count; i += 4) {
    const ParticleLanes l = loadLanes(bytes + std::size_t{i} * sizeof(Particle<Backend>));
    _mm_storeu_ps(out.posX + i, toFloat4<Backend>(l.x));
    _mm_storeu_ps(out.posY + i, toFloat4<Backend>(l.y));
    _mm_storeu_ps(out.size + i, toFloat4<Backend>(l.size));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out.depthKey + i),
                     depthKeys4<Backend>(l, layerBits));
    std::memcpy(out.tint8 + i, &l.tint, sizeof(l.tint));
    // fadeAlpha differs from tint[3] only while fading: fadeTicks != 0 and life − age <
    // fadeTicks (unsigned; SSE2 compares signed, so both sides flip their sign bit). Those lanes,
    // rare in a frame, take the exact u32 division one by one.
    const __m128i remaining = _mm_sub_epi32(l.life, l.age);
    const __m128i fading = _mm_andnot_si128(
        _mm_cmpeq_epi32(l.fadeTicks, _mm_setzero_si128()),
        _mm_cmplt_epi32(_mm_xor_si128(remaining, signBit), _mm_xor_si128(l.fadeTicks, signBit)));
    if (const int lanes = _mm_movemask_ps(_mm_castsi128_ps(fading)); lanes != 0) [[unlikely]] {
      for (std::uint32_t k = 0; k < 4; ++k)
        if ((lanes >> k) & 1) out.tint8[i + k][3] = ParticleSystem<Backend>::fadeAlpha(in[i + k]);
    }
  }
  declareRunScalar(in, out, i, layer);
}
#else
template <SimScalar Backend>
void declareRun(const Particle<Backend>* __restrict in, const render::SpriteRunSlots& out,
                std::int32_t layer) {
  declareRunScalar(in, out, 0, layer);
}
#endif

}  // namespace

template <SimScalar Backend>
Status declareParticles(render::SpriteBatcher& batcher,
                        std::span<const Particle<Backend>> particles,
                        const ParticleDeclareOptions& options) noexcept {
  if (particles.empty()) return {};
  render::SpriteLook look;
  look.uv = options.uv;
  look.atlasId = options.atlasId;
  look.materialId = options.materialId;
  look.blend = options.blend;
  // The declarations the frame has room for, written in one tight loop as a run...
  const render::SpriteRunSlots run =
      batcher.claimRun(static_cast<std::uint32_t>(particles.size()), look);
  declareRun(particles.data(), run, options.layer);
  // ...and the rest one by one: the batcher's errors (stopped, closed) and its overflow policy.
  for (std::size_t i = run.count; i < particles.size(); ++i) {
    Status status = batcher.add(declaredItem(particles[i], look, options.layer));
    if (!status.ok()) return status;  // first failure wins
  }
  return {};
}

template <SimScalar Backend>
Status declareParticles(render::SpriteBatcher& batcher, const ParticleSystem<Backend>& system,
                        const ParticleDeclareOptions& options) noexcept {
  return declareParticles(batcher, system.liveParticles(), options);
}

template Status declareParticles(render::SpriteBatcher&, std::span<const Particle<Fpx16_16>>,
                                 const ParticleDeclareOptions&) noexcept;
template Status declareParticles(render::SpriteBatcher&, std::span<const Particle<Fp32>>,
                                 const ParticleDeclareOptions&) noexcept;
template Status declareParticles(render::SpriteBatcher&, const ParticleSystem<Fpx16_16>&,
                                 const ParticleDeclareOptions&) noexcept;
template Status declareParticles(render::SpriteBatcher&, const ParticleSystem<Fp32>&,
                                 const ParticleDeclareOptions&) noexcept;

}  // namespace mote::lockstep
