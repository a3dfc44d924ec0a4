// SPDX-License-Identifier: MIT
// The effect-file subcommands of the mote tool.
#pragma once

#include <string>
#include <vector>

namespace mote::cli {

/// `mote validate FILE...`: diagnostics on stderr, one summary line per valid file on stdout.
/// Returns 0 when every file is valid (warnings allowed unless `warningsAreErrors`), else 1.
int runValidate(const std::vector<std::string>& files, bool warningsAreErrors);

/// `mote schema [--reference]`: the effect format's JSON Schema, or its Markdown field reference.
int runSchema(bool reference);

/// `mote format FILE... [--check]`: rewrite each valid file in canonical form (or, with --check,
/// report the files that are not canonical). Returns 1 on invalid or non-canonical files.
int runFormat(const std::vector<std::string>& files, bool check);

}  // namespace mote::cli
