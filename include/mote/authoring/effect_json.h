// SPDX-License-Identifier: MIT
// The versioned JSON effect format, "format": "mote.effect/1" (docs/effect-format.md), and the
// semantic validator.
//
// Reading is strict: unknown fields are errors with a "did you mean", wrong types and malformed
// JSON are errors at their line:column, and the validator's findings carry the position of the
// value they name. All diagnostics of one pass are reported together. Writing is canonical: fields
// in a fixed order, defaults left out, floats in their shortest round-trip form — so
// parse(save(e)) == e for every valid e, and save(parse(save(e))) == save(e) byte for byte.
//
// Thread safety: all functions are reentrant; distinct calls may run on distinct threads.
// Allocation: everything here allocates (authoring code, never on a hot path).
#pragma once

#include <mote/authoring/diagnostic.h>
#include <mote/authoring/effect.h>
#include <mote/core/status.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace mote::authoring {

/// Effect files larger than this are refused before parsing.
inline constexpr std::size_t kMaxEffectFileBytes = std::size_t{8} << 20;

struct EffectLoadResult {
  EffectDesc effect;  ///< what could be read; meaningful only when ok()
  std::vector<Diagnostic> diagnostics;
  [[nodiscard]] bool ok() const { return !hasErrors(diagnostics); }
};

/// Parses and validates an effect from `text`. `fileName` only labels diagnostics.
/// O(size of the text). Never throws; never crashes on any input.
[[nodiscard]] EffectLoadResult parseEffect(std::string_view text, std::string_view fileName = {});

/// Reads `path` (at most kMaxEffectFileBytes) and parses it; an unreadable file is one diagnostic.
[[nodiscard]] EffectLoadResult loadEffectFile(const std::string& path);

/// The canonical JSON text of `effect`, ending in a newline. Requires a valid effect (asserted in
/// debug builds that every float is finite).
[[nodiscard]] std::string saveEffect(const EffectDesc& effect);

/// Writes saveEffect(effect) to `path` atomically (temporary file + rename).
[[nodiscard]] Status saveEffectFile(const EffectDesc& effect, const std::string& path);

/// Semantic checks on a model however it was made (JSON, importer, code): ranges, min <= max,
/// ordered curve keys, finite values, unique names, references to materials, emitters and fields,
/// capacities. Returns every finding; pointers name the offending value as the JSON would.
[[nodiscard]] std::vector<Diagnostic> validateEffect(const EffectDesc& effect);

/// The JSON Schema (2020-12) of the format, generated from the same field table the reader and
/// writer use (docs/schema/mote.effect.schema.json is this text).
[[nodiscard]] std::string effectJsonSchema();

/// The field reference of docs/effect-format.md (Markdown tables: field, type, unit, default,
/// meaning), generated from the same field table.
[[nodiscard]] std::string effectFieldReference();

}  // namespace mote::authoring
