// SPDX-License-Identifier: MIT
// The span loop on 8 lanes, compiled with -mavx2 (src/render/CMakeLists.txt); called only where
// rasterAvx2Available(). Same IEEE operations per lane as the scalar reference (no FMA: -mavx2
// does not enable it, and contraction is off), so the same bits.
#include "raster_kernel.h"

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

// bilinear() for pixels k and k + 1, their weights each in its half of ax and ay.
inline __m256 bilinearPair(const std::array<float, 4>* texels, const FootprintLanes<F8>& f,
                           std::size_t k, __m256 ax, __m256 ay) {
  const __m256 a = loadTexelPair(texels, f.o00[k], f.o00[k + 1]);
  const __m256 b = loadTexelPair(texels, f.o01[k], f.o01[k + 1]);
  const __m256 c = loadTexelPair(texels, f.o10[k], f.o10[k + 1]);
  const __m256 d = loadTexelPair(texels, f.o11[k], f.o11[k + 1]);
  const __m256 top = _mm256_add_ps(a, _mm256_mul_ps(_mm256_sub_ps(b, a), ax));
  const __m256 bottom = _mm256_add_ps(c, _mm256_mul_ps(_mm256_sub_ps(d, c), ax));
  return _mm256_add_ps(top, _mm256_mul_ps(_mm256_sub_ps(bottom, top), ay));
}

// The per-pixel stage two pixels to a register where both are drawn (blendLane's operations, lane
// for lane), one at a time otherwise and for cutout (its test and divisions are per pixel).
void blendBlockPairs(const SpanQuad& q, const SpanBlock<F8>& block, std::array<float, 4>* pixels) {
  if (q.cutout) {
    blendBlockLanes<F8>(q, block, pixels);
    return;
  }
  const bool blended = q.frameBlend > 0.0f;
  const __m256 axA = _mm256_loadu_ps(block.a.ax.data());
  const __m256 ayA = _mm256_loadu_ps(block.a.ay.data());
  // Frame b's weights are written only where frameBlend > 0.
  const __m256 axB = blended ? _mm256_loadu_ps(block.b.ax.data()) : axA;
  const __m256 ayB = blended ? _mm256_loadu_ps(block.b.ay.data()) : ayA;
  const __m256 fade = _mm256_loadu_ps(block.fade.data());
  const __m256 color = _mm256_broadcast_ps(reinterpret_cast<const __m128*>(q.color.data()));
  const __m256 frameBlend = _mm256_set1_ps(q.frameBlend);
  const __m256 one = _mm256_set1_ps(1.0f);
  // Lane k's value in lanes 0–3, lane k + 1's in 4–7.
  __m256i pair = _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1);
  const __m256i step = _mm256_set1_epi32(2);
  for (std::size_t k = 0; k < 8; k += 2, pair = _mm256_add_epi32(pair, step)) {
    const bool first = block.live[k] != 0;
    const bool second = block.live[k + 1] != 0;
    if (!(first && second)) {
      if (first) blendLane(q, block, k, pixels[k]);
      if (second) blendLane(q, block, k + 1, pixels[k + 1]);
      continue;
    }
    __m256 texel = bilinearPair(q.texels, block.a, k, _mm256_permutevar8x32_ps(axA, pair),
                                _mm256_permutevar8x32_ps(ayA, pair));
    if (blended) {
      const __m256 other = bilinearPair(q.texels, block.b, k, _mm256_permutevar8x32_ps(axB, pair),
                                        _mm256_permutevar8x32_ps(ayB, pair));
      texel = _mm256_add_ps(texel, _mm256_mul_ps(_mm256_sub_ps(other, texel), frameBlend));
    }
    // blendPixel: src = texel·colour, keep = 1 − src.a·coverage, src·coverage + dst·keep.
    const __m256 src = _mm256_mul_ps(texel, color);
    const __m256 coverage = _mm256_permutevar8x32_ps(fade, pair);
    const __m256 keep = _mm256_sub_ps(one, _mm256_mul_ps(_mm256_permute_ps(src, 0xff), coverage));
    float* dst = pixels[k].data();
    const __m256 old = _mm256_loadu_ps(dst);
    _mm256_storeu_ps(dst, _mm256_add_ps(_mm256_mul_ps(src, coverage), _mm256_mul_ps(old, keep)));
  }
}

}  // namespace

void rasterizeSpan8(const SpanQuad& q, float py, RowSpan span, std::array<float, 4>* row,
                    const float* depthRow) noexcept {
  rasterizeSpanLanes<F8, blendBlockPairs>(q, py, span, row, depthRow);
}

}  // namespace mote::render
