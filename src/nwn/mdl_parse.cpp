// SPDX-License-Identifier: MIT
// The ASCII MDL parser: a line-oriented state machine over three block kinds (the model, a node,
// an animation). MDL_EMITTERS.md §2–3 is the grammar this accepts.
#include "mdl_binary.h"
#include "mdl_lines.h"
#include "mdl_tables.h"

#include <mote/core/file.h>
#include <mote/nwn/mdl.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <string>
#include <utility>

namespace mote::nwn {
namespace {

using authoring::Diagnostic;
using authoring::Severity;

using detail::Line;
using detail::splitLines;

class Parser {
 public:
  Parser(std::string_view text, std::string_view file, const MdlParseOptions& options)
      : file_(file), lines_(splitLines(text)), options_(options) {}

  MdlParseResult run(std::string_view text) {
    MdlParseResult result;
    result.model.file = file_;
    if (std::count(text.begin(), text.end(), '\0') > 0) {
      error(1, "not an ASCII MDL file: it holds NUL bytes (a binary model starts with one)");
      result.diagnostics = std::move(diagnostics_);
      return result;
    }
    parseModel(result.model);
    result.diagnostics = std::move(diagnostics_);
    return result;
  }

 private:
  std::string file_;
  std::vector<Line> lines_;
  MdlParseOptions options_;
  std::size_t next_ = 0;
  std::vector<Diagnostic> diagnostics_;
  bool sawModel_ = false;
  std::map<std::string, MdlNodeType> geometryTypes_;  // lower-case name → type (first wins)
  std::size_t typesIndexed_ = 0;

  void warn(std::uint32_t line, std::string message) {
    diagnostics_.push_back(Diagnostic{Severity::Warning, {}, std::move(message), file_, line, 0});
  }
  void error(std::uint32_t line, std::string message) {
    diagnostics_.push_back(Diagnostic{Severity::Error, {}, std::move(message), file_, line, 0});
  }

  static std::string joined(const Line& line, std::size_t from) {
    std::string out;
    for (std::size_t i = from; i < line.tokens.size(); ++i) {
      if (!out.empty()) out += ' ';
      out += line.tokens[i];
    }
    return out;
  }

  void parseModel(MdlModel& model) {
    bool inGeometry = false;
    while (next_ < lines_.size()) {
      const Line& line = lines_[next_++];
      if (line.tokens.empty()) continue;
      const std::string kw = lowerCopy(line.tokens[0]);
      if (kw == "newmodel") {
        if (line.tokens.size() > 1) model.name = std::string(line.tokens[1]);
        sawModel_ = true;
      } else if (kw == "setsupermodel") {
        if (line.tokens.size() > 2 && lowerCopy(line.tokens[2]) != "null")
          model.supermodel = std::string(line.tokens[2]);
      } else if (kw == "classification") {
        if (line.tokens.size() > 1) model.classification = std::string(line.tokens[1]);
      } else if (kw == "setanimationscale") {
        float v = 1.0f;
        if (line.tokens.size() > 1 && parseFloat(line.tokens[1], v)) {
          model.animationScale = v;
        } else {
          warn(line.number, "setanimationscale needs a number; ignored");
        }
      } else if (kw == "filedependancy" || kw == "filedependency" || kw == "donemodel") {
        // Nothing the importer needs.
      } else if (kw == "beginmodelgeom") {
        inGeometry = true;
      } else if (kw == "endmodelgeom") {
        if (!inGeometry) warn(line.number, "endmodelgeom without beginmodelgeom; ignored");
        inGeometry = false;
      } else if (kw == "node") {
        sawModel_ = true;
        MdlNode node;
        if (!parseNode(line, node, nullptr)) return;
        if (model.nodes.size() >= kMaxMdlNodes) {
          if (model.nodes.size() == kMaxMdlNodes)
            warn(line.number,
                 "more than " + std::to_string(kMaxMdlNodes) + " nodes; the rest are dropped");
          continue;
        }
        model.nodes.push_back(std::move(node));
      } else if (kw == "newanim") {
        sawModel_ = true;
        MdlAnimation anim;
        anim.line = line.number;
        if (line.tokens.size() > 1) anim.name = std::string(line.tokens[1]);
        if (anim.name.empty()) warn(line.number, "newanim without a name");
        for (; typesIndexed_ < model.nodes.size(); ++typesIndexed_) {
          const MdlNode& g = model.nodes[typesIndexed_];
          geometryTypes_.emplace(lowerCopy(g.name), g.type);
        }
        if (!parseAnimation(anim)) return;
        if (model.animations.size() >= kMaxMdlAnimations) {
          warn(anim.line, "more than " + std::to_string(kMaxMdlAnimations) +
                              " animations; this one is dropped");
          continue;
        }
        model.animations.push_back(std::move(anim));
      } else if (kw == "doneanim") {
        warn(line.number, "doneanim without newanim; ignored");
      } else if (kw == "endnode") {
        warn(line.number, "endnode without node; ignored");
      } else if (kw == "endlist") {
        warn(line.number, "stray endlist; ignored");
      } else {
        warn(line.number, "unknown line '" + joined(line, 0) + "' outside a node; ignored");
      }
    }
    if (!sawModel_)
      error(lines_.empty() ? 1 : 1, "not an ASCII MDL model: no newmodel and no nodes");
  }

  // Reads `node <type> <name>` and its body up to endnode. False on a structural error.
  // `geometry` (animation nodes only): the geometry nodes' types by lower-case name, which decide
  // how closely the animation node is read (its own type is unreliable: nwnmdlcomp writes
  // references as dummy).
  bool parseNode(const Line& header, MdlNode& node,
                 const std::map<std::string, MdlNodeType>* geometry) {
    node.line = header.number;
    if (header.tokens.size() < 3) {
      error(header.number, "node needs a type and a name ('node <type> <name>')");
      return false;
    }
    node.typeName = std::string(header.tokens[1]);
    node.type = nodeType(lowerCopy(header.tokens[1]));
    node.name = std::string(header.tokens[2]);
    if (node.type == MdlNodeType::Other)
      warn(header.number, "unknown node type '" + node.typeName + "'; kept as a dummy");
    if (header.tokens.size() > 3)
      warn(header.number, "extra tokens after the node name: '" + joined(header, 3) + "'; ignored");
    // Only emitters and references are read closely; meshes, lights and the rest carry vertex
    // lists, fields and keys the importer has no use for, skipped quietly (their position and
    // orientation are kept: emitters inherit them).
    MdlNodeType type = node.type;
    if (geometry != nullptr) {
      if (const auto it = geometry->find(lowerCopy(node.name)); it != geometry->end())
        type = it->second;
    }
    const bool close = type == MdlNodeType::Emitter || type == MdlNodeType::Reference;
    const bool mesh = options_.meshes && geometry == nullptr && isMeshType(type);
    while (next_ < lines_.size()) {
      const Line& line = lines_[next_++];
      if (line.tokens.empty()) continue;
      const std::string kw = lowerCopy(line.tokens[0]);
      if (kw == "endnode") {
        if (line.tokens.size() > 1 && close)
          warn(line.number, "extra tokens after endnode; ignored");
        return true;
      }
      if (kw == "node" || kw == "newanim" || kw == "doneanim" || kw == "donemodel" ||
          kw == "endmodelgeom" || kw == "beginmodelgeom") {
        error(line.number, "node '" + node.name + "' (line " + std::to_string(node.line) +
                               ") is not closed: '" + std::string(line.tokens[0]) +
                               "' before its endnode");
        return false;
      }
      if (mesh && meshLine(line, kw, node.mesh)) continue;
      nodeLine(line, kw, node, close);
    }
    error(node.line, "node '" + node.name + "' has no endnode (the file ends inside it)");
    return false;
  }

  void nodeLine(const Line& line, const std::string& kw, MdlNode& node, bool close) {
    if (kw == "parent") {
      if (line.tokens.size() < 2) {
        warn(line.number, "parent without a name; ignored");
        return;
      }
      node.parent =
          lowerCopy(line.tokens[1]) == "null" ? std::string() : std::string(line.tokens[1]);
      return;
    }
    if (kw == "endlist") {
      if (close) warn(line.number, "stray endlist; ignored");
      return;
    }
    if (startsNumber(line.tokens[0])) {
      if (close) warn(line.number, "a key row outside a key list; ignored");
      return;
    }
    // Controllers, static or keyed.
    if (const ControllerInfo* c = findController(kw)) {
      if (!close && !c->everyNode) return;
      staticTrack(line, *c, node);
      return;
    }
    if (const KeySuffix k = splitKeySuffix(kw); k.keyed) {
      if (k.doubled)
        warn(line.number, "'" + std::string(line.tokens[0]) +
                              "': key suffix written twice; read as " + k.base +
                              (k.bezier ? "bezierkey" : "key"));
      if (const ControllerInfo* c = findController(k.base)) {
        MdlTrack track;
        readKeyList(line, *c, k.bezier, track);
        if (close || c->everyNode) addTrack(node, std::move(track));
        return;
      }
      if (close) {
        const FieldInfo* f = findField(k.base);
        if (f != nullptr) {
          warn(line.number, "'" + std::string(line.tokens[0]) +
                                "': a keyed header field, which the game cannot animate; ignored");
        } else {
          warn(line.number, "unknown key list '" + std::string(line.tokens[0]) + "'; ignored");
        }
      }
      skipKeyRows(line);
      return;
    }
    if (!close) return;
    if (const FieldInfo* f = findField(kw)) {
      MdlProperty p;
      p.name = f->canonical;
      p.line = line.number;
      if (f->typoOf != nullptr) {
        warn(line.number, "'" + std::string(line.tokens[0]) + "' is a known exporter typo for '" +
                              f->typoOf + "'; read as that");
        p.name = f->typoOf;
      }
      if (f->kind == FieldKind::Junk) {
        warn(line.number, "ignored exporter line '" + joined(line, 0) + "'");
        return;
      }
      if (f->kind == FieldKind::Kotor) {
        warn(line.number,
             "'" + std::string(line.tokens[0]) + "' is a KotOR emitter field, not NWN1; ignored");
        return;
      }
      if (line.tokens.size() < 2 && f->kind != FieldKind::Silent) {
        warn(line.number, "'" + std::string(line.tokens[0]) + "' has no value; ignored");
        return;
      }
      for (std::size_t i = 1; i < line.tokens.size(); ++i)
        p.values.emplace_back(line.tokens[i]);
      if (f->kind != FieldKind::Silent) node.properties.push_back(std::move(p));
      return;
    }
    warn(line.number, "unknown keyword '" + std::string(line.tokens[0]) + "' in node '" +
                          node.name + "'; ignored");
  }

  // The lines of a mesh node that a chunk mesh needs; false for every other line.
  bool meshLine(const Line& line, const std::string& kw, MdlMeshLists& mesh) {
    if (kw == "bitmap") {
      if (line.tokens.size() > 1) mesh.bitmap = std::string(line.tokens[1]);
      return true;
    }
    if (kw == "render") {
      float v = 1.0f;
      if (line.tokens.size() < 2 || !parseFloat(line.tokens[1], v)) {
        warn(line.number, "a mesh's render needs 0 or 1; read as 1");
        v = 1.0f;
      }
      mesh.render = v != 0.0f;
      return true;
    }
    if (kw != "verts" && kw != "tverts" && kw != "faces") return false;
    if (mesh.line == 0) mesh.line = line.number;
    if (kw == "verts") {
      readMeshList(line, 3, 3, mesh.verts,
                   [](const Line& row, std::array<float, 3>& v) { return readFloats(row, v); });
    } else if (kw == "tverts") {
      readMeshList(line, 2, 3, mesh.tverts,
                   [](const Line& row, std::array<float, 2>& v) { return readFloats(row, v); });
    } else {
      readMeshList(line, 7, 8, mesh.faces, [](const Line& row, MdlFace& f) {
        f.line = row.number;
        for (std::size_t i = 0; i < 3; ++i) {
          if (!parseWhole(row.tokens[i], f.verts[i]) || !parseWhole(row.tokens[4 + i], f.tverts[i]))
            return false;
        }
        return true;
      });
    }
    return true;
  }

  template <std::size_t N>
  static bool readFloats(const Line& row, std::array<float, N>& out) {
    for (std::size_t i = 0; i < N; ++i)
      if (!parseFloat(row.tokens[i], out[i])) return false;
    return true;
  }

  // A whole number written in full ("12"; not "-1", "1.0" or "12x").
  template <class T>
  static bool parseWhole(std::string_view t, T& out) {
    const auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), out);
    return ec == std::errc() && p == t.data() + t.size();
  }

  // A counted mesh list (`verts N` and N rows of `columns` to `allowed` values, an `endlist` after
  // them tolerated). Unlike key lists, a count that lies is an error: a mesh read from fewer or
  // more rows than it says is not the mesh that was written. `read` fills one item from a row,
  // false when a value is not what the list needs. Rows are stored as they are read (never reserved
  // from the count), and at most kMaxMdlMeshListRows. A second list of a name replaces the first.
  template <class T, class Read>
  void readMeshList(const Line& header, std::size_t columns, std::size_t allowed,
                    std::vector<T>& list, Read read) {
    const std::string name = lowerCopy(header.tokens[0]);
    if (!list.empty()) warn(header.number, "a second " + name + " list replaces the first");
    list.clear();
    std::uint64_t count = 0;
    if (header.tokens.size() < 2 || !parseWhole(header.tokens[1], count)) {
      error(header.number, "'" + name + "' needs a row count ('" + name + " N')");
      skipNumberRows();
      return;
    }
    if (header.tokens.size() > 2) warn(header.number, "extra tokens after the row count; ignored");
    if (count > kMaxMdlMeshListRows) {
      error(header.number, "'" + name + " " + std::to_string(count) + "': more than " +
                               std::to_string(kMaxMdlMeshListRows) + " rows");
      skipNumberRows();
      return;
    }
    std::uint64_t rows = 0;
    bool bad = false;
    while (rows < count && next_ < lines_.size()) {
      const Line& line = lines_[next_];
      if (line.tokens.empty()) {
        ++next_;
        continue;
      }
      if (!startsNumber(line.tokens[0])) break;
      ++next_;
      ++rows;
      T item{};
      if (line.tokens.size() < columns || !read(line, item)) {
        if (!bad) {
          error(line.number, "a row of '" + name + "' needs " + std::to_string(columns) +
                                 (name == "faces" ? " indices (a b c group ta tb tc [material])"
                                                  : " finite numbers"));
        }
        bad = true;  // one error per list: the rows after a bad one are as suspect
        continue;
      }
      if (line.tokens.size() > allowed)
        warn(line.number, "extra values in a row of '" + name + "'; ignored");
      list.push_back(item);
    }
    if (rows < count) {
      const std::uint32_t at = next_ < lines_.size() ? lines_[next_].number : header.number;
      error(at, "'" + name + "' (line " + std::to_string(header.number) + ") has " +
                    std::to_string(rows) + " of " + std::to_string(count) + " rows");
      return;
    }
    skipTrailingEndlist();
    std::size_t i = next_;
    while (i < lines_.size() && lines_[i].tokens.empty())
      ++i;
    if (i < lines_.size() && startsNumber(lines_[i].tokens[0])) {
      error(lines_[i].number, "'" + name + "' (line " + std::to_string(header.number) +
                                  ") has more rows than its count " + std::to_string(count));
      next_ = i;
      skipNumberRows();
    }
  }

  void skipNumberRows() {
    while (next_ < lines_.size() &&
           (lines_[next_].tokens.empty() || startsNumber(lines_[next_].tokens[0])))
      ++next_;
  }

  void addTrack(MdlNode& node, MdlTrack track) {
    // A later line for the same controller replaces the earlier one.
    for (MdlTrack& t : node.tracks) {
      if (t.name == track.name) {
        t = std::move(track);
        return;
      }
    }
    node.tracks.push_back(std::move(track));
  }

  void staticTrack(const Line& line, const ControllerInfo& c, MdlNode& node) {
    MdlTrack track;
    track.name = c.name;
    track.columns = c.columns;
    track.line = line.number;
    MdlKey key;
    if (c.columns == 0) {
      // A bare `detonate` (a 0-column controller decompiled without data): nothing to keep.
      if (line.tokens.size() > 1) warn(line.number, "detonate takes no value; ignored");
      return;
    }
    if (line.tokens.size() < 1u + c.columns) {
      warn(line.number, "'" + std::string(line.tokens[0]) + "' needs " + std::to_string(c.columns) +
                            " number" + (c.columns == 1 ? "" : "s") + "; ignored");
      return;
    }
    for (std::size_t i = 0; i < c.columns; ++i) {
      if (!parseFloat(line.tokens[1 + i], key.value[i])) {
        warn(line.number, "'" + std::string(line.tokens[1 + i]) + "' is not a finite number ('" +
                              std::string(line.tokens[0]) + "'); the line is ignored");
        return;
      }
    }
    if (line.tokens.size() > 1u + c.columns)
      warn(line.number, "extra values after '" + std::string(line.tokens[0]) + "'; ignored");
    track.keys.push_back(key);
    addTrack(node, std::move(track));
  }

  // A key list: `NAMEkey [N]`, then N rows (or rows up to `endlist`; both forms at once are fine).
  // Rows are `time v…`; detonate rows may be blank (a detonation at time 0) in counted lists.
  void readKeyList(const Line& header, const ControllerInfo& c, bool bezier, MdlTrack& track) {
    track.name = c.name;
    track.columns = c.columns;
    track.keyed = true;
    track.bezier = bezier;
    track.line = header.number;
    std::uint64_t count = 0;
    bool counted = false;
    if (header.tokens.size() > 1) {
      const std::string_view t = header.tokens[1];
      if (parseWhole(t, count)) {
        counted = true;
      } else {
        warn(header.number, "'" + std::string(t) + "' is not a key count; read up to endlist");
      }
      if (header.tokens.size() > 2)
        warn(header.number, "extra tokens after the key count; ignored");
    }
    const std::size_t columns = c.columns;
    std::uint64_t rows = 0;
    bool dropped = false;
    while (next_ < lines_.size()) {
      if (counted && rows >= count) break;
      const Line& line = lines_[next_];
      if (line.tokens.empty()) {
        ++next_;
        if (counted && columns == 0) {
          ++rows;
          pushKey(track, MdlKey{}, dropped, line.number);
        }
        continue;
      }
      if (!startsNumber(line.tokens[0])) {
        if (lowerCopy(line.tokens[0]) == "endlist") {
          if (counted && rows < count)
            warn(line.number, "endlist after " + std::to_string(rows) + " of " +
                                  std::to_string(count) + " keys");
          ++next_;
          return;
        }
        if (counted) {
          warn(line.number, "key list '" + track.name + "' (line " + std::to_string(header.number) +
                                ") ended after " + std::to_string(rows) + " of " +
                                std::to_string(count) + " keys");
        } else {
          warn(line.number, "key list '" + track.name + "' (line " + std::to_string(header.number) +
                                ") has no endlist");
        }
        return;  // the line is read again as a node line
      }
      ++next_;
      ++rows;
      MdlKey key;
      const std::size_t want = 1 + columns;
      // Bezier rows carry value, in-tangent and out-tangent per column: the value comes first.
      const std::size_t full = bezier ? 1 + 3 * columns : want;
      bool good = line.tokens.size() >= want;
      for (std::size_t i = 0; good && i < want; ++i) {
        float v = 0.0f;
        good = parseFloat(line.tokens[i], v);
        if (i == 0) {
          key.time = v;
        } else {
          key.value[i - 1] = v;
        }
      }
      if (!good) {
        warn(line.number, "key row of '" + track.name + "' needs " + std::to_string(want) +
                              " finite numbers; ignored");
        continue;
      }
      if (line.tokens.size() > full && !(bezier && line.tokens.size() == want))
        warn(line.number, "extra values in a key row of '" + track.name + "'; ignored");
      pushKey(track, key, dropped, line.number);
    }
    if (counted && rows < count) {
      warn(header.number, "key list '" + track.name + "' has " + std::to_string(rows) + " of " +
                              std::to_string(count) + " keys (the file ends)");
    }
    if (counted) skipTrailingEndlist();
  }

  // A counted list may also end with `endlist` (CleanModels writes both): consume it.
  void skipTrailingEndlist() {
    std::size_t i = next_;
    while (i < lines_.size() && lines_[i].tokens.empty())
      ++i;
    if (i < lines_.size() && lowerCopy(lines_[i].tokens[0]) == "endlist") next_ = i + 1;
  }

  void pushKey(MdlTrack& track, const MdlKey& key, bool& dropped, std::uint32_t line) {
    if (track.keys.size() >= kMaxMdlKeysPerTrack) {
      if (!dropped)
        warn(line, "more than " + std::to_string(kMaxMdlKeysPerTrack) + " keys in '" + track.name +
                       "'; the rest are dropped");
      dropped = true;
      return;
    }
    track.keys.push_back(key);
  }

  // Skips the rows of a key list nobody reads (counted or endlist).
  void skipKeyRows(const Line& header) {
    std::uint64_t count = 0;
    bool counted = false;
    if (header.tokens.size() > 1) counted = parseWhole(header.tokens[1], count);
    std::uint64_t rows = 0;
    while (next_ < lines_.size() && !(counted && rows >= count)) {
      const Line& line = lines_[next_];
      if (line.tokens.empty()) {
        ++next_;
        continue;
      }
      if (!startsNumber(line.tokens[0])) {
        if (lowerCopy(line.tokens[0]) == "endlist") ++next_;
        return;
      }
      ++next_;
      ++rows;
    }
    if (counted) skipTrailingEndlist();
  }

  // Reads an animation body up to doneanim. False on a structural error.
  bool parseAnimation(MdlAnimation& anim) {
    bool droppedEvents = false;
    while (next_ < lines_.size()) {
      const Line& line = lines_[next_++];
      if (line.tokens.empty()) continue;
      const std::string kw = lowerCopy(line.tokens[0]);
      if (kw == "doneanim") return true;
      if (kw == "length" || kw == "transtime") {
        float v = 0.0f;
        if (line.tokens.size() < 2 || !parseFloat(line.tokens[1], v) || v < 0.0f) {
          warn(line.number, kw + " needs a number >= 0; ignored");
        } else {
          (kw == "length" ? anim.length : anim.transtime) = v;
        }
      } else if (kw == "animroot") {
        if (line.tokens.size() > 1) anim.animroot = std::string(line.tokens[1]);
      } else if (kw == "event") {
        MdlEvent e;
        e.line = line.number;
        if (line.tokens.size() < 3 || !parseFloat(line.tokens[1], e.time)) {
          warn(line.number, "event needs a time and a name ('event <t> <name>'); ignored");
          continue;
        }
        e.name = lowerCopy(line.tokens[2]);
        if (anim.events.size() >= kMaxMdlEventsPerAnimation) {
          if (!droppedEvents) warn(line.number, "too many events; the rest are dropped");
          droppedEvents = true;
          continue;
        }
        anim.events.push_back(std::move(e));
      } else if (kw == "node") {
        MdlNode node;
        if (!parseNode(line, node, &geometryTypes_)) return false;
        if (anim.nodes.size() < kMaxMdlNodes) anim.nodes.push_back(std::move(node));
      } else if (kw == "newanim" || kw == "donemodel" || kw == "beginmodelgeom") {
        error(line.number, "animation '" + anim.name + "' (line " + std::to_string(anim.line) +
                               ") is not closed: '" + std::string(line.tokens[0]) +
                               "' before its doneanim");
        return false;
      } else if (kw == "endnode") {
        warn(line.number, "endnode without node; ignored");
      } else {
        warn(line.number,
             "unknown line '" + joined(line, 0) + "' in animation '" + anim.name + "'; ignored");
      }
    }
    error(anim.line, "animation '" + anim.name + "' has no doneanim (the file ends inside it)");
    return false;
  }
};

}  // namespace

const MdlProperty* MdlNode::property(std::string_view wanted) const {
  for (auto it = properties.rbegin(); it != properties.rend(); ++it)
    if (it->name == wanted) return &*it;
  return nullptr;
}

const MdlTrack* MdlNode::track(std::string_view wanted) const {
  for (const MdlTrack& t : tracks)
    if (t.name == wanted) return &t;
  return nullptr;
}

MdlParseResult parseMdl(std::string_view text, std::string_view fileName,
                        const MdlParseOptions& options) {
  if (detail::isBinaryMdl(text)) return detail::parseBinaryMdl(text, fileName, options);
  Parser parser(text, fileName, options);
  return parser.run(text);
}

MdlParseResult loadMdlFile(const std::string& path, const MdlParseOptions& options) {
  Result<std::vector<std::uint8_t>> bytes = readFile(path, kMaxMdlFileBytes);
  if (!bytes.ok()) {
    MdlParseResult result;
    result.model.file = path;
    result.diagnostics.push_back(
        Diagnostic{Severity::Error, {}, bytes.status().message(), path, 0, 0});
    return result;
  }
  const std::string_view text(reinterpret_cast<const char*>(bytes->data()), bytes->size());
  return parseMdl(text, path, options);
}

std::string formatMdlDiagnostic(const Diagnostic& d) {
  std::string out = d.file;
  if (d.line > 0) out += ":" + std::to_string(d.line);
  if (!out.empty()) out += ": ";
  out += d.severity == Severity::Error ? "error: " : "warning: ";
  for (const char c : d.message) {
    const auto u = static_cast<unsigned char>(c);
    out += (u < 0x20 || u == 0x7f) ? '?' : c;
  }
  return out;
}

}  // namespace mote::nwn
