// SPDX-License-Identifier: MIT
// The depth buffer of the GPU renderer's subpass 0 (renderer.cpp): a fragment's view depth d
// (dot(p − eye, forward), >= the near plane) stored as d · 2^-100 in a D32_SFLOAT buffer cleared to
// 1 — a power-of-two scale, exact for every depth the frame has, so the hardware's LESS test is the
// software rasterizer's `depth < sceneDepth` on the same floats, and any d below 2^100 is inside
// [0, 1].
float encodedDepth(float d) { return d * uintBitsToFloat(0x0d800000u); }  // 2^-100
