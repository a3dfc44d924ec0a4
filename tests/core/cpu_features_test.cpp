// SPDX-License-Identifier: MIT
// cpuFeatures(): one detection, consistent with itself and with what this build was compiled for.
#include <mote/core/cpu_features.h>

#include <gtest/gtest.h>

#include <string>

namespace mote {
namespace {

TEST(CpuFeatures, DetectedOnceAndConsistent) {
  const CpuFeatures& f = cpuFeatures();
  EXPECT_EQ(&f, &cpuFeatures());  // one detection, the same object every call
#if defined(__x86_64__)
  EXPECT_TRUE(f.sse2);  // baseline on x86-64
#endif
#if defined(__AVX2__)
  EXPECT_TRUE(f.avx2);  // a build for AVX2 runs only where the CPU has it
#endif
  // Each wider set implies the narrower ones on every x86-64 processor made.
  EXPECT_TRUE(!f.avx512f || f.avx2);
  EXPECT_TRUE(!(f.avx512bw || f.avx512vl) || f.avx512f);
  EXPECT_TRUE(!f.avx2 || f.sse41);
  EXPECT_TRUE(!f.sse41 || f.sse2);
}

TEST(CpuFeatures, WidestVectorIsaNamesTheWidestSet) {
  const CpuFeatures& f = cpuFeatures();
  const std::string isa = widestVectorIsa();
  const std::string expected = f.avx512f ? "AVX-512"
                               : f.avx2  ? "AVX2"
                               : f.sse41 ? "SSE4.1"
                               : f.sse2  ? "SSE2"
                                         : "none";
  EXPECT_EQ(isa, expected);
}

}  // namespace
}  // namespace mote
