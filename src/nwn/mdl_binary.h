// SPDX-License-Identifier: MIT
// The binary (compiled) MDL reader: the layout BioWare's compiler and Torlack's nwnmdlcomp write
// (MDL_EMITTERS.md §4 and its source [S1], niv/nwn-tools `_NwnLib/NwnMdlNodes.h` and
// `NwnMdlGeometry.h`), read into the MdlModel the ASCII parser builds.
#pragma once

#include <mote/nwn/mdl.h>

#include <string_view>

namespace mote::nwn::detail {

/// True when `bytes` is a binary model: its first byte is 0 (a compiled model starts with a
/// 32-bit zero; ASCII models never hold NUL bytes).
[[nodiscard]] inline bool isBinaryMdl(std::string_view bytes) {
  return !bytes.empty() && bytes[0] == '\0';
}

/// Reads a binary model (docs/nwn-import.md, "Binary models"). Errors (a truncated file, an offset
/// or count outside the file, a cycle in the node tree, a name that is not text, a value that is
/// not finite) name the byte offset where the reader found them; the model is then not usable.
/// Complexity: O(bytes). Allocates: the model and the diagnostics, never ahead of what the bytes
/// hold.
[[nodiscard]] MdlParseResult parseBinaryMdl(std::string_view bytes, std::string_view fileName,
                                            const MdlParseOptions& options);

}  // namespace mote::nwn::detail
