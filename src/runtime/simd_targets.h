// SPDX-License-Identifier: MIT
// The SIMD targets the runtime's Highway code (vm.cpp, bounds.cpp) is compiled for. One set for
// every file: Highway's dispatch tables are indexed through inline functions that must agree
// across translation units (a file compiling other targets broke the debug build's dispatch).
// SSSE3 lacks an exact vector floor and AVX3_DL adds nothing for float lanes: not compiled.
// Include before any Highway header.
#pragma once

#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS (HWY_SSSE3 | HWY_AVX3_DL)
#endif
