// SPDX-License-Identifier: MIT
// The interpreter's register file (meep "Two interpreters"): 64 slots in private memory, or with
// MOTE_VM_WIDE 256 slots in a storage buffer, slot-major, for programs that need more. A wide
// includer declares the buffer `wideRegisters` and defines uint vmWideLane() (this invocation's
// lane) and uint vmWideStride() (the lanes of the file) before including this file.
#ifndef MOTE_REGISTERS_GLSL
#define MOTE_REGISTERS_GLSL

#ifdef MOTE_VM_WIDE
const uint kWideSlots = 256u;
uint vmReg(uint slot) { return wideRegisters[(slot & (kWideSlots - 1u)) * vmWideStride() + vmWideLane()]; }
void vmSetReg(uint slot, uint value) {
  wideRegisters[(slot & (kWideSlots - 1u)) * vmWideStride() + vmWideLane()] = value;
}
#else
const uint kFastSlots = 64u;
uint gRegisters[kFastSlots];
uint vmReg(uint slot) { return gRegisters[slot & (kFastSlots - 1u)]; }
void vmSetReg(uint slot, uint value) { gRegisters[slot & (kFastSlots - 1u)] = value; }
#endif

#endif  // MOTE_REGISTERS_GLSL
