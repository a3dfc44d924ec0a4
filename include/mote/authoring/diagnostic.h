// SPDX-License-Identifier: MIT
// Diagnostics from loaders and validators: what is wrong and exactly where (file, line:column and
// the JSON pointer of the value).
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace mote::authoring {

enum class Severity : std::uint8_t { Error, Warning };

struct Diagnostic {
  Severity severity = Severity::Error;
  std::string pointer;  ///< JSON pointer of the value ("" for the document or a syntax error)
  std::string message;
  std::string file;          ///< may be empty (text parsed from memory)
  std::uint32_t line = 0;    ///< 1-based; 0: unknown
  std::uint32_t column = 0;  ///< 1-based code points; 0: unknown
  bool operator==(const Diagnostic&) const = default;
};

/// "file:line:column: error: /pointer: message", leaving out what is unknown, e.g.
/// "bonfire.json:14:9: error: /emitters/2/spawn/rate: must be >= 0 (got -3)".
[[nodiscard]] std::string formatDiagnostic(const Diagnostic& diagnostic);

/// True when any diagnostic is an error.
[[nodiscard]] bool hasErrors(std::span<const Diagnostic> diagnostics);

}  // namespace mote::authoring
