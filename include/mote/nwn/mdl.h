// SPDX-License-Identifier: MIT
// NWN1 ASCII MDL import (ARCHITECTURE §11): a tolerant parser for the BioWare exporter, NWMax,
// nwnmdlcomp and CleanModels dialects, and the lowering of a model's emitter nodes to one
// EffectDesc. docs/nwn-import.md has every field's lowering and the decisions taken where the
// format is undocumented; shared/nwn/MDL_EMITTERS.md is the format reference.
//
// Errors: junk lines, unknown keywords, typos and values the importer cannot represent are
// warnings with file and line; parsing and lowering go on. Only malformed structure (a binary
// file, a node without a name or without `endnode`, an animation without `doneanim`, a file with
// no model) is an error. Safe on hostile input: never crashes, never loops without consuming
// input, and holds memory proportional to the input (counted key lists never pre-allocate).
//
// Thread safety: free functions over values; reentrant. Allocation: everything (authoring-time
// code); the results own their strings and vectors.
#pragma once

#include <mote/authoring/diagnostic.h>
#include <mote/authoring/effect.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mote::nwn {

/// The largest file loadMdlFile reads (real models are under 2 MiB).
inline constexpr std::size_t kMaxMdlFileBytes = std::size_t{64} << 20;
/// Parser caps: beyond them items are dropped with one warning (a real model is far below).
inline constexpr std::uint32_t kMaxMdlNodes = 16384;
inline constexpr std::uint32_t kMaxMdlAnimations = 1024;
inline constexpr std::uint32_t kMaxMdlKeysPerTrack = 65536;
inline constexpr std::uint32_t kMaxMdlEventsPerAnimation = 4096;

enum class MdlNodeType : std::uint8_t {
  Dummy,
  Trimesh,
  Danglymesh,
  Skin,
  Animmesh,
  Aabb,
  Light,
  Emitter,
  Reference,
  Patch,
  Camera,
  Other,  ///< an unknown type name (kept, warned)
};

/// One key of a controller track: its time (s) and up to four values (colours and positions use
/// three, orientations four: axis x y z and angle in radians; detonate none).
struct MdlKey {
  float time = 0.0f;
  std::array<float, 4> value{0.0f, 0.0f, 0.0f, 0.0f};
  bool operator==(const MdlKey&) const = default;
};

/// A controller: a static value (`birthrate 10`: one key at time 0, keyed false) or a key list
/// (`birthratekey [N] … [endlist]`, keyed true). Keys are in file order (not sorted).
struct MdlTrack {
  std::string name;  ///< the controller's canonical lower-case name ("colorstart")
  std::uint8_t columns = 1;
  bool keyed = false;
  bool bezier = false;     ///< `bezierkey`: the rows' tangents were read and dropped
  std::uint32_t line = 0;  ///< where it starts
  std::vector<MdlKey> keys;
  bool operator==(const MdlTrack&) const = default;
};

/// A header attribute, flag or exporter field (`update Fountain`, `p2p 1`, `texture spark`): its
/// canonical lower-case name and its raw value tokens.
struct MdlProperty {
  std::string name;
  std::vector<std::string> values;
  std::uint32_t line = 0;
  bool operator==(const MdlProperty&) const = default;
};

struct MdlNode {
  MdlNodeType type = MdlNodeType::Dummy;
  std::string typeName;  ///< as written
  std::string name;
  std::string parent;  ///< empty for `parent NULL` or no parent line
  std::uint32_t line = 0;
  std::vector<MdlProperty> properties;
  std::vector<MdlTrack> tracks;

  /// The last property or track of that canonical name, or null. Complexity: O(properties).
  [[nodiscard]] const MdlProperty* property(std::string_view name) const;
  [[nodiscard]] const MdlTrack* track(std::string_view name) const;
  bool operator==(const MdlNode&) const = default;
};

struct MdlEvent {
  float time = 0.0f;
  std::string name;  ///< lower-case ("detonate")
  std::uint32_t line = 0;
  bool operator==(const MdlEvent&) const = default;
};

/// A `newanim … doneanim` block: its events and, per node (matched to the geometry by name,
/// case-insensitively), the keyed controllers that override the geometry's values while it plays.
struct MdlAnimation {
  std::string name;
  float length = 0.0f;
  float transtime = 0.0f;
  std::string animroot;
  std::uint32_t line = 0;
  std::vector<MdlEvent> events;
  std::vector<MdlNode> nodes;
  bool operator==(const MdlAnimation&) const = default;
};

struct MdlModel {
  std::string file;  ///< for diagnostics
  std::string name;
  std::string supermodel;  ///< empty for NULL or absent
  std::string classification;
  float animationScale = 1.0f;
  std::vector<MdlNode> nodes;  ///< geometry nodes in file order (parents before children)
  std::vector<MdlAnimation> animations;
  bool operator==(const MdlModel&) const = default;
};

struct MdlParseResult {
  MdlModel model;  ///< meaningful only when ok()
  /// Warnings and errors with `file` and `line` set (pointer and column empty).
  std::vector<authoring::Diagnostic> diagnostics;
  [[nodiscard]] bool ok() const { return !authoring::hasErrors(diagnostics); }
};

/// Parses ASCII MDL text. Keywords and enum values are case-insensitive; CRLF, tabs, free
/// indentation, trailing spaces, `#` comments, counted and `endlist` key lists (and both),
/// `bezierkey`, blank `detonatekey` rows and the junk of MDL_EMITTERS.md §2 are accepted (junk and
/// unknown keywords warn). Complexity: O(text). Allocates: the model and the diagnostics.
[[nodiscard]] MdlParseResult parseMdl(std::string_view text, std::string_view fileName = {});

/// Reads `path` (at most kMaxMdlFileBytes; an unreadable or larger file is one error) and parses
/// it.
[[nodiscard]] MdlParseResult loadMdlFile(const std::string& path);

/// "file:line: warning: message" (or "file: error: …" without a line): the diagnostic format of the
/// importer and `mote import-mdl`.
[[nodiscard]] std::string formatMdlDiagnostic(const authoring::Diagnostic& diagnostic);

// -------------------------------------------------------------------------------------------------
// Lowering to EffectDesc

struct ImportOptions {
  /// The animation whose keys and events drive the effect; empty: defaultAnimation(model).
  std::string animation;
  /// Where NWN texture names are looked up as <name>.png, else <name>.tga, else <name>.dds (any
  /// case of the name; the material gets the file's absolute path, which the renderer reads by its
  /// extension); empty: none. A texture not found there is drawn with builtin:soft_circle, with
  /// one warning per name.
  std::string textureDirectory;
};

struct ImportResult {
  authoring::EffectDesc effect;  ///< meaningful only when ok(); passes authoring::validateEffect
  std::string animation;         ///< the animation used; empty when the model has none
  std::vector<authoring::Diagnostic> diagnostics;
  [[nodiscard]] bool ok() const { return !authoring::hasErrors(diagnostics); }
};

/// The animation used when ImportOptions::animation is empty: "impact" if present, else
/// "duration", else the first animation; empty when the model has none (names compare
/// case-insensitively; the model's own spelling is returned).
[[nodiscard]] std::string defaultAnimation(const MdlModel& model);

/// Lowers every emitter node of `model` to one EffectDesc emitter (docs/nwn-import.md). An
/// unknown `options.animation` and a model without emitters are errors (NotFound-like, no line).
/// Complexity: O(model). Allocates: the effect and the diagnostics.
[[nodiscard]] ImportResult importMdl(const MdlModel& model, const ImportOptions& options = {});

/// loadMdlFile, then importMdl; the parse diagnostics come first.
[[nodiscard]] ImportResult importMdlFile(const std::string& path,
                                         const ImportOptions& options = {});

}  // namespace mote::nwn
