// SPDX-License-Identifier: MIT
// NWN1 MDL import (ARCHITECTURE §11): a tolerant parser for the BioWare exporter, NWMax,
// nwnmdlcomp and CleanModels ASCII dialects, a strict reader of binary (compiled) models, and the
// lowering of a model's emitter nodes to one EffectDesc. docs/nwn-import.md has every field's
// lowering and the decisions taken where the format is undocumented; shared/nwn/MDL_EMITTERS.md is
// the format reference.
//
// Also the geometry of chunk models (`chunkName`, the small models mesh particles instance):
// loadChunkMesh reads a model's trimesh, danglymesh, skin and animmesh nodes into one
// triangle list.
//
// Errors: junk lines, unknown keywords, typos and values the importer cannot represent are
// warnings with file and line; parsing and lowering go on. Only malformed structure (NUL bytes in
// an ASCII file, a node without a name or without `endnode`, an animation without `doneanim`, a
// file with no model; for a chunk mesh also a malformed vertex, texture-vertex or face list; any
// fault of a binary model, at its byte offset) is an error.
// Safe on hostile input: never crashes, never loops without consuming input, and holds memory
// proportional to the input (counted key lists never pre-allocate).
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
/// The most rows a mesh list (`verts`, `tverts`, `faces`) may hold, and the most triangles of a
/// chunk mesh: more is an error (chunk models have tens of faces).
inline constexpr std::uint32_t kMaxMdlMeshListRows = 65536;

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

/// One row of a mesh's `faces` list: `a b c smoothgroup ta tb tc material`, the corners' indices
/// into `verts` and `tverts` (smoothing group and material are not kept).
struct MdlFace {
  std::array<std::uint32_t, 3> verts{0, 0, 0};
  std::array<std::uint32_t, 3> tverts{0, 0, 0};
  std::uint32_t line = 0;
  bool operator==(const MdlFace&) const = default;
};

/// The geometry of a trimesh, danglymesh, skin or animmesh node as written: node-local positions
/// (metres, NWN axes, Z up), texture coordinates (u v; a third column is dropped) and faces.
/// Indices are checked against the lists by buildChunkMesh, not by the parser. Read only when
/// parsing with MdlParseOptions::meshes; empty otherwise.
struct MdlMeshLists {
  std::vector<std::array<float, 3>> verts;
  std::vector<std::array<float, 2>> tverts;
  std::vector<MdlFace> faces;
  std::string bitmap;      ///< the node's texture as written (`bitmap`); empty when absent
  bool render = true;      ///< `render 0`: a mesh the game does not draw (a shadow caster)
  std::uint32_t line = 0;  ///< the first list's line; 0: the node has no lists
  bool operator==(const MdlMeshLists&) const = default;
};

struct MdlNode {
  MdlNodeType type = MdlNodeType::Dummy;
  std::string typeName;  ///< as written
  std::string name;
  std::string parent;  ///< empty for `parent NULL` or no parent line
  std::uint32_t line = 0;
  std::vector<MdlProperty> properties;
  std::vector<MdlTrack> tracks;
  MdlMeshLists mesh;  ///< mesh nodes, when parsed with MdlParseOptions::meshes

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
  /// The supermodel it was inherited from (withInheritedAnimations); empty: the model's own.
  std::string inheritedFrom;
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

struct MdlParseOptions {
  /// Read the `verts`, `tverts` and `faces` lists, `bitmap` and `render` of geometry mesh nodes
  /// into MdlNode::mesh. A list whose rows are not all numbers, whose count is wrong (fewer or
  /// more rows than it says) or above kMaxMdlMeshListRows is then an error at its line. Off (the
  /// emitter import): mesh nodes are skipped quietly, whatever their lists hold.
  bool meshes = false;
};

/// Parses a model: a binary (compiled) model when its first byte is 0 (docs/nwn-import.md, "Binary
/// models": errors name a byte offset, diagnostics have no line), else ASCII MDL text. ASCII
/// keywords and enum values are case-insensitive; CRLF, tabs, free indentation, trailing spaces,
/// `#` comments, counted and `endlist` key lists (and both), `bezierkey`, blank `detonatekey` rows
/// and the junk of MDL_EMITTERS.md §2 are accepted (junk and unknown keywords warn). Complexity:
/// O(text). Allocates: the model and the diagnostics (never ahead of a list's count: memory is
/// proportional to the text).
[[nodiscard]] MdlParseResult parseMdl(std::string_view text, std::string_view fileName = {},
                                      const MdlParseOptions& options = {});

/// Reads `path` (at most kMaxMdlFileBytes; an unreadable or larger file is one error) and parses
/// it.
[[nodiscard]] MdlParseResult loadMdlFile(const std::string& path,
                                         const MdlParseOptions& options = {});

/// "file:line: warning: message" (or "file: error: …" without a line): the diagnostic format of the
/// importer and `mote import-mdl`.
[[nodiscard]] std::string formatMdlDiagnostic(const authoring::Diagnostic& diagnostic);

// -------------------------------------------------------------------------------------------------
// Chunk models: the meshes `chunkName` emitters instance

/// The name EffectDesc uses for builtinShardMesh() (`render.mesh`).
inline constexpr std::string_view kBuiltinShardMeshName = "builtin:shard";

/// An indexed triangle mesh in model space: Mote axes (Y up; NWN's (x, y, z) is (x, z, −y), as
/// for emitters), metres (NWN geometry is in metres already: nothing is scaled but by the nodes'
/// `scale`). Triangles keep the file's winding (NWN front faces are counter-clockwise; the axis
/// change is a rotation, so they still are). A vertex is one (position, texture vertex) pair of a
/// node: corners that share both share the vertex. The value owns its vectors.
struct ChunkMesh {
  std::vector<float> positions;        ///< x y z per vertex (metres)
  std::vector<float> uvs;              ///< u v per vertex, as written (0 0 when a node has none)
  std::vector<std::uint32_t> indices;  ///< three per triangle, each < vertexCount()
  std::string texture;                 ///< the first drawn node's `bitmap`; empty for none/NULL
  std::string source;                  ///< the file read, or kBuiltinShardMeshName

  [[nodiscard]] std::size_t vertexCount() const { return positions.size() / 3; }
  [[nodiscard]] std::size_t triangleCount() const { return indices.size() / 3; }
  bool operator==(const ChunkMesh&) const = default;
};

struct ChunkMeshResult {
  ChunkMesh mesh;  ///< meaningful only when ok(); may hold no triangle (the caller decides)
  /// The parser's warnings and errors, then the mesh's own, with `file` and `line` set.
  std::vector<authoring::Diagnostic> diagnostics;
  [[nodiscard]] bool ok() const { return !authoring::hasErrors(diagnostics); }
};

/// Builds the chunk mesh of a model parsed with MdlParseOptions::meshes: every drawn (not
/// `render 0`) trimesh, danglymesh, skin and animmesh geometry node, its vertices brought into
/// model space by the `position`, `orientation` (axis-angle, radians) and `scale` of the node and
/// its ancestors at 0 s (keys frozen at 0 s; `parent` resolved as for emitters). Errors (at the
/// face's or list's line): a face index outside `verts` or `tverts` (a node without tverts reads
/// 0 0 for every corner), more than kMaxMdlMeshListRows triangles, a vertex that is not finite
/// once transformed. Warnings: nodes with different textures (the first is kept). Animations are
/// ignored. Complexity: O(faces + nodes · log nodes). Allocates: the mesh (at most three vertices
/// per face) and the diagnostics.
[[nodiscard]] ChunkMeshResult buildChunkMesh(const MdlModel& model);

/// parseMdl with MdlParseOptions::meshes, then buildChunkMesh; the parse diagnostics come first.
[[nodiscard]] ChunkMeshResult parseChunkMesh(std::string_view text, std::string_view fileName = {});

/// Reads `path` (at most kMaxMdlFileBytes) and parses it as parseChunkMesh does; mesh.source is
/// `path`. An unreadable file is one error without a line.
[[nodiscard]] ChunkMeshResult loadChunkMesh(const std::string& path);

/// The stand-in for a chunk model that is not there: an irregular tetrahedron (4 vertices, 4
/// outward-facing triangles) about 0.1 m across, centred near the origin, uvs at the corners of
/// the unit square, no texture, source kBuiltinShardMeshName. Deterministic.
/// Allocates: the mesh.
[[nodiscard]] ChunkMesh builtinShardMesh();

// -------------------------------------------------------------------------------------------------
// Lowering to EffectDesc

// -------------------------------------------------------------------------------------------------
// Textures: the search path and TXI files

/// The most bytes of a .txi file the importer reads (real ones are under 4 KiB).
inline constexpr std::size_t kMaxTxiFileBytes = std::size_t{1} << 20;
/// The most rows a counted TXI list (`upperleftcoords N`, a font's) may hold.
inline constexpr std::uint32_t kMaxTxiListRows = 65536;

/// What a texture's .txi file says that the emitter import uses; its other fields are hints to
/// the game's texture loader and shaders (mipmaps, filtering, bump maps, fonts), read and ignored.
struct Txi {
  std::string blending;       ///< `blending`: "additive", "punchthrough" or "default"; empty: unset
  std::string procedureType;  ///< `proceduretype`, lower-case ("cycle": an animated texture)
  std::uint32_t numx = 1;     ///< cells across of an animated texture (1..256)
  std::uint32_t numy = 1;     ///< cells down (1..256)
  float fps = 0.0f;           ///< its frames per second (0..1000)
  bool operator==(const Txi&) const = default;
};

struct TxiParseResult {
  Txi txi;
  /// Warnings with `file` and `line` (unknown keywords, bad values, clamped ranges); a TXI file
  /// is never an error.
  std::vector<authoring::Diagnostic> diagnostics;
};

/// Parses TXI text: `keyword value…` lines, case-insensitive keywords and values, `#` comments,
/// counted coordinate lists (`upperleftcoords N` + N rows) skipped. Never fails; safe on hostile
/// input. Complexity: O(text). Allocates: the diagnostics.
[[nodiscard]] TxiParseResult parseTxi(std::string_view text, std::string_view fileName = {});

/// The directories of a search-path list (MOTE_NWN_TEXTURE_PATH): separated by ':' or ';', empty
/// entries skipped, in order.
[[nodiscard]] std::vector<std::string> splitSearchPath(std::string_view list);

/// A texture the import looked for: where it was found, and its TXI.
struct ImportedTexture {
  std::string name;  ///< the `texture` as written (first spelling)
  std::string path;  ///< the file's absolute path; empty: not found (builtin:soft_circle drawn)
  std::string txi;   ///< the absolute path of its .txi; empty: none
  bool operator==(const ImportedTexture&) const = default;
};

/// How the played animation runs (docs/nwn-import.md, "Time domains and animations").
enum class AnimationPlay : std::uint8_t {
  Auto,  ///< by its name: loops when animationLoops(name), else once
  Once,  ///< continuous emission ends at the animation's length; keys hold their end values
  Loop,  ///< every emission and keyed motion repeats with the animation's length
};

/// Whether the game loops an animation of this name (case-insensitive): a VFX's `duration` and
/// the states an object rests in (`default`, `on`, `off`, `activated`, `deactivated`, `dead`,
/// `closed`, `opened*`, `pause*`, `cpause*`, `walk*`, `run*`). `impact`, `cessation` and other
/// actions play once.
[[nodiscard]] bool animationLoops(std::string_view name);

struct ImportOptions {
  /// The animation whose keys and events drive the effect; empty: defaultAnimation(model).
  std::string animation;
  /// Whether it loops or plays once (Auto: by its name).
  AnimationPlay play = AnimationPlay::Auto;
  /// Where NWN texture names are looked up, in order: in each directory <name>.png, else .tga,
  /// else .dds (any case of the name; the material gets the file's absolute path, which the
  /// renderer reads by its extension); the first directory that has one wins. Its <name>.txi is
  /// looked up along the same path. importMdlFile puts the model's own directory first. A texture
  /// found nowhere is drawn with builtin:soft_circle, with one warning per name.
  std::vector<std::string> textureSearchPath;
  /// Where chunk models (`chunkName X`) and supermodels are looked up as X.mdl (any case of the
  /// name), in order; importMdlFile puts the model's own directory first. Chunks are loaded with
  /// loadChunkMesh: one that is not found, does not load or has no triangle is drawn as
  /// builtinShardMesh() (`render.mesh` "builtin:shard"), with one warning per chunk name.
  std::vector<std::string> modelSearchPath;
  /// The model's supermodels, nearest first (loadSupermodels; importMdlFile loads them along
  /// modelSearchPath): their animations are the model's too, after its own
  /// (withInheritedAnimations). Empty with an empty modelSearchPath while the model names a
  /// supermodel: one warning that its inherited animations are not available.
  std::vector<MdlModel> supermodels;
};

/// The most models a supermodel chain holds (NWN's are a few deep).
inline constexpr std::uint32_t kMaxSupermodelChain = 16;

struct SupermodelChain {
  std::vector<MdlModel> models;  ///< nearest first
  /// Warnings (a supermodel missing, malformed, a cycle, a chain too deep; each ends the chain),
  /// and the warnings of the supermodels' own parses.
  std::vector<authoring::Diagnostic> diagnostics;
};

/// The supermodels of `model`: its `supermodel` read from the first directory of `searchPath`
/// holding <name>.mdl (any case), then that model's, and so on. A supermodel that is not found,
/// does not parse, repeats one already in the chain or is past kMaxSupermodelChain ends the chain
/// with one warning. Complexity: O(the files read). Allocates: the models.
[[nodiscard]] SupermodelChain loadSupermodels(const MdlModel& model,
                                              const std::vector<std::string>& searchPath);

/// `model` with the animations of `supermodels` (nearest first) that it does not have itself
/// appended (names compare case-insensitively; the nearest supermodel's wins), each marked with
/// MdlAnimation::inheritedFrom, their line numbers 0 (they are another file's). Their nodes match
/// the model's geometry by name, as the game's do.
[[nodiscard]] MdlModel withInheritedAnimations(const MdlModel& model,
                                               const std::vector<MdlModel>& supermodels);

/// A chunk model the import looked for: what `render.mesh` became and how many triangles it has.
struct ImportedChunk {
  std::string name;           ///< the `chunkName` as written (first spelling)
  std::string mesh;           ///< the loaded file's absolute path, or kBuiltinShardMeshName
  std::size_t triangles = 0;  ///< of the mesh drawn (4 for the shard)
  bool operator==(const ImportedChunk&) const = default;
};

struct ImportResult {
  authoring::EffectDesc effect;  ///< meaningful only when ok(); passes authoring::validateEffect
  std::string animation;         ///< the animation used; empty when the model has none
  float length = 0.0f;           ///< its length, s (0: none, or it has no length)
  bool looping = false;          ///< it loops (else it plays once)
  std::vector<ImportedChunk> chunks;      ///< one per chunk name (case-insensitive), in file order
  std::vector<ImportedTexture> textures;  ///< one per texture name (case-insensitive), file order
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

/// loadMdlFile, loadSupermodels, then importMdl — with the directory of `path` first on the model
/// and texture search paths; the parse diagnostics come first, then the supermodels'.
[[nodiscard]] ImportResult importMdlFile(const std::string& path,
                                         const ImportOptions& options = {});

}  // namespace mote::nwn
