// SPDX-License-Identifier: MIT
// The effect-file subcommands of the mote tool.
#pragma once

#include <mote/core/status.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mote::cli {

/// `mote validate FILE...`: diagnostics on stderr, one summary line per valid file on stdout.
/// Returns 0 when every file is valid (warnings allowed unless `warningsAreErrors`), else 1.
int runValidate(const std::vector<std::string>& files, bool warningsAreErrors);

/// `mote schema [--reference | --node-reference]`: the effect format's JSON Schema, its Markdown
/// field reference, or the node library's Markdown node reference.
int runSchema(bool reference, bool nodeReference);

/// `mote format FILE... [--check]`: rewrite each valid file in canonical form (or, with --check,
/// report the files that are not canonical). Returns 1 on invalid or non-canonical files.
int runFormat(const std::vector<std::string>& files, bool check);

}  // namespace mote::cli

namespace mote::authoring {
struct Collider;
}  // namespace mote::authoring

namespace mote::bytecode {
struct CompiledEffect;
}

namespace mote::cli {

/// Creates the folder an output file is written into (and its parents), if any is missing.
/// IoError "cannot create DIR: why".
Status makeParentFolder(const std::string& path);

/// True when `s` ends with `suffix`.
bool endsWith(const std::string& s, std::string_view suffix);

/// How an NWN .mdl input is imported (`--animation`, `--texture-dir`).
struct MdlOptions {
  std::string animation;  ///< empty: the importer's default (impact, duration, first)
  /// Where textures are looked up after the model's own folder (--texture-dir, repeatable); the
  /// MOTE_NWN_TEXTURE_PATH list follows them.
  std::vector<std::string> textureDirectories;
  /// Where supermodels and chunk models are looked up after the model's own folder (--model-dir,
  /// repeatable).
  std::vector<std::string> modelDirectories;
  std::string play;  ///< "once" or "loop" (--play); empty: by the animation's name
};

/// True when `path` names an NWN ASCII model (.mdl, any case).
bool isMdlPath(const std::string& path);

/// Loads a .motefx, compiles an effect .json, or imports and compiles an NWN .mdl; prints
/// diagnostics on stderr (.mdl ones as "file:line: warning: …"). False on failure. `colliders`,
/// when given, receives the authored effect's collision shapes (none from a .motefx, whose
/// bytecode inlines them). `messages`, when given, receives each diagnostic line printed too.
bool loadCompiledEffect(const std::string& input, bytecode::CompiledEffect& out,
                        const MdlOptions& mdl = {},
                        std::vector<authoring::Collider>* colliders = nullptr,
                        std::vector<std::string>* messages = nullptr);

/// `mote import-mdl MODEL.mdl -o effect.json [--animation A] [--texture-dir DIR]`, or with
/// `listAnimations` the model's animations on stdout. Warnings go to stderr as
/// "file:line: warning: …"; returns 1 on any error (a located message on stderr).
int runImportMdl(const std::string& input, const std::string& output, const MdlOptions& mdl,
                 bool listAnimations);

/// `mote compile FILE.json [-o FILE.motefx]`: compile an effect; diagnostics on stderr.
int runCompile(const std::string& input, const std::string& output);

/// `mote disasm FILE`: the programs of a .motefx (or of an effect .json, compiled first).
int runDisasm(const std::string& input);

/// `mote info FILE`: emitters, layouts, program sizes and registers of a .motefx or effect .json.
int runEffectInfo(const std::string& input);

struct SimulateOptions {
  std::string input;
  std::uint32_t ticks = 600;
  double dt = 1.0 / 60.0;
  std::uint32_t threads = 1;
  std::uint64_t seed = 0;
  bool hashOnly = false;  ///< `mote hash`: print the state hash and nothing else
  /// `mote hash --order id|storage`: the particle order the hash visits (ParticleWorld::stateHash:
  /// false is HashOrder::Storage, true HashOrder::Id, the GPU's order).
  bool hashInIdOrder = false;
  /// `--gpu`: simulate on the GPU (gpu::ParticleWorld), read back for the hash and the summary.
  bool gpu = false;
  /// `mote run --events`: print each tick's host events (ParticleWorld::events), a line each.
  bool events = false;
};

/// `mote run FILE --ticks N` (stats per emitter at the end, a line per simulated second) and
/// `mote hash FILE --ticks N [--order storage|id]` (the state hash): simulate the effect at the
/// origin in a ParticleWorld. Returns 1 (with a message) when the file or the world cannot be made.
int runSimulate(const SimulateOptions& options);

}  // namespace mote::cli
