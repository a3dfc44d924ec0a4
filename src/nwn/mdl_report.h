// SPDX-License-Identifier: MIT
// Where the importer's warnings and errors go: one file's diagnostics, each with its line.
#pragma once

#include <mote/authoring/diagnostic.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace mote::nwn::detail {

/// Appends diagnostics about `file` to `out` (which must outlive it).
struct Reporter {
  std::vector<authoring::Diagnostic>* out = nullptr;
  std::string file;

  void warn(std::uint32_t line, std::string message) const {
    add(authoring::Severity::Warning, line, std::move(message));
  }
  void error(std::uint32_t line, std::string message) const {
    add(authoring::Severity::Error, line, std::move(message));
  }
  void add(authoring::Severity severity, std::uint32_t line, std::string message) const {
    out->push_back(authoring::Diagnostic{severity, {}, std::move(message), file, line, 0});
  }
};

/// `first` followed by `then` (the parser's diagnostics before the lowering's or the mesh's).
inline void prependDiagnostics(std::vector<authoring::Diagnostic>& then,
                               std::vector<authoring::Diagnostic>&& first) {
  then.insert(then.begin(), std::make_move_iterator(first.begin()),
              std::make_move_iterator(first.end()));
}

}  // namespace mote::nwn::detail
