// SPDX-License-Identifier: MIT
// The span loop on 8 lanes, compiled with -mavx2 (src/render/CMakeLists.txt); called only where
// rasterAvx2Available(). Same IEEE operations per lane as the scalar reference (no FMA: -mavx2
// does not enable it, and contraction is off), so the same bits.
#include "raster_kernel.h"

#include <algorithm>
#include <cmath>
#include <immintrin.h>

namespace mote::render {
namespace {

// Two pixels' texels in one register: lanes 0–3 pixel k's, 4–7 pixel k + 1's.
inline __m256 loadTexelPair(const std::array<float, 4>* texels, std::uint32_t offset0,
                            std::uint32_t offset1) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(texels);
  return _mm256_insertf128_ps(
      _mm256_castps128_ps256(_mm_loadu_ps(reinterpret_cast<const float*>(bytes + offset0))),
      _mm_loadu_ps(reinterpret_cast<const float*>(bytes + offset1)), 1);
}

// bilinear() for pixels k and k + 1, their weights each in its half of ax and ay. kShared: the
// quad is magnified enough that the two mostly share their four texels, and where they do (the
// same o00 and o11 — an offset row·rowBytes + x·16 with x·16 < rowBytes names its row and column,
// so o01 and o10 agree too) each texel is one broadcast load instead of two loads and an insert.
template <bool kShared>
inline __m256 bilinearPair(const std::array<float, 4>* texels, const FootprintLanes<F8>& f,
                           std::size_t k, __m256 ax, __m256 ay) {
  __m256 a, b, c, d;
  if (kShared && f.o00[k] == f.o00[k + 1] && f.o11[k] == f.o11[k + 1]) {
    const auto* bytes = reinterpret_cast<const unsigned char*>(texels);
    a = _mm256_broadcast_ps(reinterpret_cast<const __m128*>(bytes + f.o00[k]));
    b = _mm256_broadcast_ps(reinterpret_cast<const __m128*>(bytes + f.o01[k]));
    c = _mm256_broadcast_ps(reinterpret_cast<const __m128*>(bytes + f.o10[k]));
    d = _mm256_broadcast_ps(reinterpret_cast<const __m128*>(bytes + f.o11[k]));
  } else {
    a = loadTexelPair(texels, f.o00[k], f.o00[k + 1]);
    b = loadTexelPair(texels, f.o01[k], f.o01[k + 1]);
    c = loadTexelPair(texels, f.o10[k], f.o10[k + 1]);
    d = loadTexelPair(texels, f.o11[k], f.o11[k + 1]);
  }
  const __m256 top = _mm256_add_ps(a, _mm256_mul_ps(_mm256_sub_ps(b, a), ax));
  const __m256 bottom = _mm256_add_ps(c, _mm256_mul_ps(_mm256_sub_ps(d, c), ax));
  return _mm256_add_ps(top, _mm256_mul_ps(_mm256_sub_ps(bottom, top), ay));
}

// blendLane for block pixels k and k + 1 in one register, lane for lane the same operations;
// pair holds k in lanes 0–3 and k + 1 in 4–7 (the permutation that spreads their weights).
template <bool kShared, bool kBlended, bool kSoft>
[[gnu::always_inline]] inline void blendPair(const SpanQuad& q, const SpanBlock<F8>& block,
                                             std::size_t k, __m256i pair, __m256 color,
                                             std::array<float, 4>* pixels) {
  const __m256 ax = _mm256_permutevar8x32_ps(_mm256_loadu_ps(block.a.ax.data()), pair);
  const __m256 ay = _mm256_permutevar8x32_ps(_mm256_loadu_ps(block.a.ay.data()), pair);
  __m256 texel = bilinearPair<kShared>(q.texels, block.a, k, ax, ay);
  if constexpr (kBlended) {
    const __m256 bx = _mm256_permutevar8x32_ps(_mm256_loadu_ps(block.b.ax.data()), pair);
    const __m256 by = _mm256_permutevar8x32_ps(_mm256_loadu_ps(block.b.ay.data()), pair);
    const __m256 other = bilinearPair<kShared>(q.texels, block.b, k, bx, by);
    texel = _mm256_add_ps(texel,
                          _mm256_mul_ps(_mm256_sub_ps(other, texel), _mm256_set1_ps(q.frameBlend)));
  }
  // blendPixel: src = texel·colour, keep = 1 − src.a·coverage, src·coverage + dst·keep.
  // Without soft fade the coverage is 1, and x·1 is x exactly (src, a product, is never a
  // signalling NaN), so those two products are left out.
  __m256 src = _mm256_mul_ps(texel, color);
  __m256 alpha = _mm256_permute_ps(src, 0xff);
  if constexpr (kSoft) {
    const __m256 coverage = _mm256_permutevar8x32_ps(_mm256_loadu_ps(block.fade.data()), pair);
    alpha = _mm256_mul_ps(alpha, coverage);
    src = _mm256_mul_ps(src, coverage);
  }
  const __m256 keep = _mm256_sub_ps(_mm256_set1_ps(1.0f), alpha);
  float* dst = pixels[k].data();
  _mm256_storeu_ps(dst, _mm256_add_ps(src, _mm256_mul_ps(_mm256_loadu_ps(dst), keep)));
}

// The per-pixel stage two pixels to a register where both are drawn, one at a time otherwise,
// for cutout (its test and divisions are per pixel) and for OIT accumulation.
template <bool kShared>
struct BlendPairs {
  template <bool kBlended, bool kSoft>
  [[gnu::always_inline]] static void run(const SpanQuad& q, const SpanBlock<F8>& block,
                                         std::array<float, 4>* pixels) {
    if (q.cutout || q.oitPlane != 0) {
      BlendEachLane::run<kBlended, kSoft>(q, block, pixels);
      return;
    }
    const __m256 color = _mm256_broadcast_ps(reinterpret_cast<const __m128*>(q.color.data()));
    if (block.live == SpanBlock<F8>::kAll) {  // the common case: no tests
      blendPair<kShared, kBlended, kSoft>(q, block, 0, _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1),
                                          color, pixels);
      blendPair<kShared, kBlended, kSoft>(q, block, 2, _mm256_setr_epi32(2, 2, 2, 2, 3, 3, 3, 3),
                                          color, pixels);
      blendPair<kShared, kBlended, kSoft>(q, block, 4, _mm256_setr_epi32(4, 4, 4, 4, 5, 5, 5, 5),
                                          color, pixels);
      blendPair<kShared, kBlended, kSoft>(q, block, 6, _mm256_setr_epi32(6, 6, 6, 6, 7, 7, 7, 7),
                                          color, pixels);
      return;
    }
    __m256i pair = _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1);
    for (std::size_t k = 0; k < 8; k += 2, pair = _mm256_add_epi32(pair, _mm256_set1_epi32(2))) {
      const std::uint32_t both = (block.live >> k) & 3u;
      if (both == 3u) {
        blendPair<kShared, kBlended, kSoft>(q, block, k, pair, color, pixels);
        continue;
      }
      if ((both & 1u) != 0) blendLane<kBlended>(q, block, k, pixels[k]);
      if ((both & 2u) != 0) blendLane<kBlended>(q, block, k + 1, pixels[k + 1]);
    }
  }
};

}  // namespace

void rasterizeSpan8(const SpanQuad& q, float py, RowSpan span, std::array<float, 4>* row,
                    const float* depthRow) noexcept {
  // Texels a pixel step along the row crosses, in each triangle: at most 1/8 (8 pixels or more
  // to a texel), neighbours mostly share their footprint and the test for it is predictable.
  const auto across = [&q](const SpanAffine& f) {
    return std::max(std::fabs(f.dsdx) * q.du * static_cast<float>(q.width),
                    std::fabs(f.dtdx) * q.dv * static_cast<float>(q.height));
  };
  if (std::max(across(q.lower), across(q.upper)) <= 0.125f) {
    rasterizeSpanLanes<F8, BlendPairs<true>>(q, py, span, row, depthRow);
  } else {
    rasterizeSpanLanes<F8, BlendPairs<false>>(q, py, span, row, depthRow);
  }
}

}  // namespace mote::render
