// SPDX-License-Identifier: MIT
// CPU feature detection through the compiler's cpuid builtins (GCC and clang).
#include <mote/core/cpu_features.h>

namespace mote {
namespace {

CpuFeatures detect() noexcept {
  CpuFeatures f;
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  f.sse2 = __builtin_cpu_supports("sse2") != 0;
  f.sse41 = __builtin_cpu_supports("sse4.1") != 0;
  f.avx2 = __builtin_cpu_supports("avx2") != 0;
  f.fma = __builtin_cpu_supports("fma") != 0;
  f.avx512f = __builtin_cpu_supports("avx512f") != 0;
  f.avx512bw = __builtin_cpu_supports("avx512bw") != 0;
  f.avx512vl = __builtin_cpu_supports("avx512vl") != 0;
#endif
  return f;
}

}  // namespace

const CpuFeatures& cpuFeatures() noexcept {
  static const CpuFeatures features = detect();
  return features;
}

const char* widestVectorIsa() noexcept {
  const CpuFeatures& f = cpuFeatures();
  if (f.avx512f) return "AVX-512";
  if (f.avx2) return "AVX2";
  if (f.sse41) return "SSE4.1";
  if (f.sse2) return "SSE2";
  return "none";
}

}  // namespace mote
