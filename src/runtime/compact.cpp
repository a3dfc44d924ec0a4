// SPDX-License-Identifier: MIT
// compactInOrder: one vector of particles at a time, the survivors' mask is read once and every
// stream's lanes are compressed by it (Highway's foreach_target: this file is included again for
// each target; the best one is picked at run time). A vector-wide store writes past the survivors
// into lanes already read, never into the next vector, so one pass in place is safe.

#include "simd_targets.h"  // before Highway

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "compact.cpp"
#include "compact.h"

#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <array>

HWY_BEFORE_NAMESPACE();
namespace mote::runtime_detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_ARCH_X86 && HWY_TARGET != HWY_EMU128 && HWY_TARGET != HWY_SCALAR
// On x86 a vector of (at most) eight particles is compressed by a lane permute (vpermd) whose
// indices come from a table of the 256 masks. Not Highway 1.0's Compress: on AVX2 it keeps the
// same table in a function-local constexpr array that GCC copies onto the stack at every call
// (~15 ns a vector, twenty times the permute), and AVX-512's vcompressps measured slower than the
// permute on Zen 5 (5.3 against 3.4 µs for 4,096 particles of 13 words, half of them killed).
constexpr std::size_t kVectorLanes = 8;

// For each mask of up to eight lanes, the indices of its set lanes in ascending order, four bits a
// lane; the unused lanes 0, so a four-lane mask never names a lane past 3.
constexpr std::array<std::uint32_t, 256> kCompressIndices = [] {
  std::array<std::uint32_t, 256> table{};
  for (std::uint32_t mask = 0; mask < 256; ++mask) {
    std::uint32_t packed = 0;
    std::uint32_t lane = 0;
    for (std::uint32_t bit = 0; bit < 8; ++bit) {
      if ((mask >> bit & 1u) != 0) packed |= bit << (4 * lane++);
    }
    table[mask] = packed;
  }
  return table;
}();

// Moves the lanes of a vector that `keep` selects to its front, in order.
template <class DU>
class Compressor {
 public:
  Compressor(DU du, hn::Mask<DU> keep) {
    std::uint8_t bits[8] = {};
    hn::StoreMaskBits(du, keep, bits);
    const auto shifts = hn::ShiftLeft<2>(hn::Iota(du, 0));
    indices_ = hn::And(hn::Shr(hn::Set(du, kCompressIndices[bits[0]]), shifts), hn::Set(du, 15u));
  }
  template <class D>
  hn::Vec<D> operator()(D d, hn::Vec<D> v) const {
    return hn::TableLookupLanes(v, hn::IndicesFromVec(d, indices_));
  }

 private:
  hn::Vec<DU> indices_;
};
#else
constexpr std::size_t kVectorLanes = kCompactLanes;

template <class DU>
class Compressor {
 public:
  Compressor(DU /* du */, hn::Mask<DU> keep) : keep_(keep) {}
  template <class D>
  hn::Vec<D> operator()(D d, hn::Vec<D> v) const {
    return hn::Compress(v, hn::RebindMask(d, keep_));
  }

 private:
  hn::Mask<DU> keep_;
};
#endif

std::uint32_t CompactVectors(const CompactInput& in) {
  using D = hn::CappedTag<float, kVectorLanes>;
  const D d;
  const hn::RebindToUnsigned<D> du;
  const hn::Rebind<std::uint8_t, D> d8;
  const auto step = static_cast<std::uint32_t>(hn::Lanes(d));
  float* const* const streams = in.streams.data();
  const std::size_t words = in.streams.size();
  std::uint32_t* const ids = in.ids;
  std::uint32_t* const sources = in.sources;
  const std::uint8_t* const killed = in.killed;
  std::uint32_t i =
      in.first - in.first % step;  // lanes before `first` survive: compressed in place
  std::uint32_t to = i;
  for (; i < in.count; i += step) {
    auto keep = hn::Eq(hn::PromoteTo(du, hn::LoadU(d8, killed + i)), hn::Zero(du));
    if (in.count - i < step) keep = hn::And(keep, hn::FirstN(du, in.count - i));
    const Compressor<decltype(du)> compress(du, keep);
    for (std::size_t w = 0; w < words; ++w) {
      float* const s = streams[w];
      hn::StoreU(compress(d, hn::LoadU(d, s + i)), d, s + to);
    }
    hn::StoreU(compress(du, hn::LoadU(du, ids + i)), du, ids + to);
    if (sources != nullptr) hn::StoreU(compress(du, hn::LoadU(du, sources + i)), du, sources + to);
    to += static_cast<std::uint32_t>(hn::CountTrue(du, keep));
  }
  return to;
}

}  // namespace HWY_NAMESPACE
}  // namespace mote::runtime_detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace mote::runtime_detail {

HWY_EXPORT(CompactVectors);

std::uint32_t compactInOrder(const CompactInput& in) noexcept {
  if (in.first >= in.count) return in.count;
  return HWY_DYNAMIC_DISPATCH(CompactVectors)(in);
}

}  // namespace mote::runtime_detail
#endif  // HWY_ONCE
