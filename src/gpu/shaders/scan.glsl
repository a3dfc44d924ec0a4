// SPDX-License-Identifier: MIT
// The prefix scan's shared pieces (scan_blocks.comp, scan_partials.comp, scan_add.comp): a
// reduce-then-scan in three passes, so no workgroup ever waits on another's progress (lavapipe and
// some GPUs give no forward-progress guarantee between workgroups; a decoupled look-back would
// spin). Counts are u32 and their sum fits in u32 (spawn counts: at most the pool's capacity).
#ifndef MOTE_SCAN_GLSL
#define MOTE_SCAN_GLSL

const uint kScanBlock = 256u;  // elements (and invocations) per workgroup

shared uint gScan[kScanBlock];

// The inclusive scan of `value` over the workgroup (Hillis–Steele in shared memory; every
// invocation of the workgroup must call it).
uint workgroupInclusiveScan(uint value) {
  const uint i = gl_LocalInvocationID.x;
  gScan[i] = value;
  barrier();
  for (uint offset = 1u; offset < kScanBlock; offset <<= 1) {
    const uint add = i >= offset ? gScan[i - offset] : 0u;
    barrier();
    gScan[i] += add;
    barrier();
  }
  return gScan[i];
}

#endif  // MOTE_SCAN_GLSL
