// SPDX-License-Identifier: MIT
// The instruction widths an opcode's row allows (for tests that build one instance per width).
#pragma once

#include <mote/bytecode/isa.h>

#include <cstdint>
#include <vector>

namespace mote::test {

inline std::vector<std::uint32_t> legalWidths(const bytecode::OpInfo& info) {
  using bytecode::SourceRule;
  using bytecode::WidthRule;
  switch (info.width) {
    case WidthRule::NoDst:
      // Only a value source gives a NoDst opcode a width (stf); nop, kill and spawn are 1 wide.
      for (const SourceRule r : info.sources)
        if (r == SourceRule::Value) return {1, 2, 3, 4};
      return {1};
    case WidthRule::Any:
    case WidthRule::Reduce:
      return {1, 2, 3, 4};
    case WidthRule::Fixed1:
    case WidthRule::DstIndex:
      return {1};
    case WidthRule::Fixed3:
      return {3};
    case WidthRule::Fixed4:
      return {4};
  }
  return {};
}

}  // namespace mote::test
