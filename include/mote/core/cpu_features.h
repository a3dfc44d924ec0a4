// SPDX-License-Identifier: MIT
// The processor's SIMD features, detected once: the one check behind every hand-dispatched kernel.
#pragma once

namespace mote {

/// What the processor running this program supports (x86-64; every field false elsewhere). Kernels
/// built for a wider instruction set (a file compiled with -mavx2) run only where the matching
/// field is true; Highway's own dispatch (the VM, bounds, spawn times) decides for itself.
struct CpuFeatures {
  bool sse2 = false;  ///< baseline on x86-64
  bool sse41 = false;
  bool avx2 = false;
  bool fma = false;
  bool avx512f = false;  ///< AVX-512 Foundation
  bool avx512bw = false;
  bool avx512vl = false;
};

/// The features of this processor, detected on the first call. Thread safety: any thread (the
/// detection is a function-local static). Complexity: O(1) after the first call. Allocates: never.
const CpuFeatures& cpuFeatures() noexcept;

/// The widest vector instruction set cpuFeatures() reports, as text: "AVX-512", "AVX2", "SSE4.1",
/// "SSE2" or "none" (what `mote info` and the benchmarks print beside their figures).
const char* widestVectorIsa() noexcept;

}  // namespace mote
