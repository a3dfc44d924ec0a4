// SPDX-License-Identifier: MIT
// Lowering of MDL emitter nodes to EffectDesc (docs/nwn-import.md is the field-by-field account;
// MDL_EMITTERS.md §4, §6 and §7 the semantics it follows). Everything NWN-specific lives here
// (rollnw seed, "Decision Rule").
#include "mdl_playback.h"
#include "mdl_report.h"
#include "mdl_tables.h"
#include "mdl_texture.h"
#include "mdl_track.h"
#include "mdl_transform.h"

#include <mote/authoring/effect_json.h>
#include <mote/nwn/mdl.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <system_error>
#include <utility>

namespace mote::nwn {
namespace {

using namespace authoring;
using detail::SortedTrack;

constexpr float kRadiansToDegrees = 57.2957795f;

bool equalsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (asciiLower(a[i]) != asciiLower(b[i])) return false;
  return true;
}

using detail::clampVec;
using detail::eulerYXZ;
using detail::kMaxParticlesPerImportedEmitter;
using detail::Quat;
using detail::toMote;
using detail::Xform;

// A float for messages ("%g": 3, 0.5, 4e+19), never a cast that could overflow.
std::string shown(float v) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", static_cast<double>(v));
  return text;
}

class Lowerer {
 public:
  Lowerer(const MdlModel& model, const ImportOptions& options, ImportResult& result)
      : model_(model),
        options_(options),
        result_(result),
        textures_(options.textureSearchPath),
        models_(options.modelSearchPath) {}

  void run() {
    if (!chooseAnimation()) return;
    choosePlayback();
    indexNodes();
    collectDetonations();
    if (!model_.supermodel.empty() && options_.supermodels.empty() &&
        options_.modelSearchPath.empty()) {
      warn(0, "the supermodel '" + model_.supermodel +
                  "' is not loaded (no model search path): animations the model inherits from it "
                  "are not available");
    }
    EffectDesc& effect = result_.effect;
    effect.name = model_.name.empty() ? "nwn_model" : model_.name.substr(0, kMaxNameLength);
    effect.description = "Imported from the NWN model " + effect.name +
                         (anim_ != nullptr ? " (animation " + anim_->name + ")" : "");
    for (std::size_t i = 0; i < model_.nodes.size(); ++i) {
      if (model_.nodes[i].type != MdlNodeType::Emitter) continue;
      if (effect.emitters.size() >= kMaxEmitters) {
        warn(model_.nodes[i].line, "more than " + std::to_string(kMaxEmitters) +
                                       " emitters; this one and the rest are dropped");
        break;
      }
      lowerEmitter(i);
    }
    if (effect.emitters.empty()) {
      error(0, "the model has no emitter nodes: nothing to import");
      return;
    }
    if (length_ > 0.0f) detail::playEmission(effect, length_, loop_ > 0.0f, report_);
    if (texturesMissingWithoutDirectory_ > 0) {
      warn(0, std::to_string(texturesMissingWithoutDirectory_) +
                  " texture(s) drawn with builtin:soft_circle (no texture search path was given)");
    }
    // The lowering keeps every value in range; a validation error here is an importer bug.
    for (Diagnostic& d : validateEffect(effect)) {
      d.message = (d.pointer.empty() ? "" : d.pointer + ": ") + d.message;
      d.pointer.clear();
      d.file = model_.file;
      if (d.severity == Severity::Error) d.message = "the imported effect is invalid: " + d.message;
      result_.diagnostics.push_back(std::move(d));
    }
  }

 private:
  const MdlModel& model_;
  const ImportOptions& options_;
  ImportResult& result_;
  const MdlAnimation* anim_ = nullptr;
  float length_ = 0.0f;          // of anim_, s; 0: no animation, or one without a length
  float loop_ = 0.0f;            // length_ when anim_ loops, else 0
  float animationScale_ = 1.0f;  // inherited animations' translations scale by it
  std::map<std::string, std::size_t> geometryIndex_;      // lower-case name → node
  std::map<std::string, const MdlNode*> animationNodes_;  // lower-case name → node of anim_
  std::vector<Xform> local_;
  std::vector<Xform> world_;
  std::vector<std::size_t> parent_;  // SIZE_MAX: root
  std::vector<bool> moves_;          // the node or an ancestor has position/orientation keys
  std::vector<std::string> pivots_;  // the pivot made for the node; empty: none yet
  std::set<std::string> usedPivotNames_;
  std::vector<float> eventDetonations_;
  std::set<std::string> usedNames_;
  std::set<std::string> warnedTextures_;
  detail::TextureFinder textures_;
  detail::SearchPath models_;
  std::map<std::string, std::size_t> chunks_;  // lower-case chunk name → result_.chunks
  std::uint32_t texturesMissingWithoutDirectory_ = 0;
  detail::Reporter report_{&result_.diagnostics, model_.file};
  static constexpr std::size_t kRoot = detail::kRootNode;

  void warn(std::uint32_t line, std::string message) { report_.warn(line, std::move(message)); }
  void error(std::uint32_t line, std::string message) { report_.error(line, std::move(message)); }

  bool chooseAnimation() {
    std::string wanted = options_.animation;
    if (wanted.empty()) wanted = defaultAnimation(model_);
    if (wanted.empty()) return true;
    for (const MdlAnimation& a : model_.animations) {
      if (equalsIgnoreCase(a.name, wanted)) {
        anim_ = &a;
        result_.animation = a.name;
        for (const MdlNode& n : a.nodes)
          animationNodes_[lowerCopy(n.name)] = &n;
        return true;
      }
    }
    std::string names;
    for (const MdlAnimation& a : model_.animations)
      names += (names.empty() ? "" : ", ") + a.name;
    error(0, "no animation '" + wanted +
                 "' in the model (it has: " + (names.empty() ? std::string("none") : names) + ")");
    return false;
  }

  // Whether the animation loops (ImportOptions::play, else its name) and for how long it plays;
  // the model's animation scale.
  void choosePlayback() {
    if (anim_ == nullptr) return;
    const float scale = model_.animationScale;
    if (scale > 0.0f && std::isfinite(scale)) {
      animationScale_ = scale;
    } else if (!anim_->inheritedFrom.empty()) {
      warn(0, "setanimationscale " + shown(scale) + " is not a positive number; 1 is used");
    }
    const bool loops = options_.play == AnimationPlay::Loop ||
                       (options_.play == AnimationPlay::Auto && animationLoops(anim_->name));
    if (!(anim_->length > 0.0f) || !std::isfinite(anim_->length)) {
      warn(anim_->line, "animation '" + anim_->name + "' has no length; it plays once and its " +
                            "keys hold their end values");
      return;
    }
    length_ = std::min(anim_->length, 1e6f);
    loop_ = loops ? length_ : 0.0f;
    result_.length = length_;
    result_.looping = loops;
  }

  const MdlNode* animationNode(const MdlNode& geometry) const {
    const auto it = animationNodes_.find(lowerCopy(geometry.name));
    return it == animationNodes_.end() ? nullptr : it->second;
  }

  // The track that drives a controller: the animation's keys when it has them, else the geometry's.
  // An animation inherited from a supermodel moves the model's nodes by its translations times
  // the model's animation scale (a smaller creature on its family's animations; rollnw's
  // inherited_animation_translation_scale); the model's own animations are not scaled.
  SortedTrack track(const MdlNode& node, std::string_view name) const {
    if (const MdlNode* a = animationNode(node)) {
      if (const MdlTrack* t = a->track(name); t != nullptr && !t->keys.empty()) {
        SortedTrack sorted = detail::sortTrack(t);
        if (name == "position" && !anim_->inheritedFrom.empty() && animationScale_ != 1.0f) {
          for (MdlKey& k : sorted.keys)
            for (std::size_t c = 0; c < 3; ++c)
              k.value[c] *= animationScale_;
        }
        return sorted;
      }
    }
    return detail::sortTrack(node.track(name));
  }

  // Static value of a controller at animation time 0 (or `fallback` when absent).
  float value(const MdlNode& node, std::string_view name, float fallback, std::size_t column = 0) {
    const SortedTrack t = track(node, name);
    return t.present() ? t.eval(0.0f, column) : fallback;
  }

  // A controller sampled at each particle's birth: its value at 0 s clamped to [lo, hi] (0 when
  // absent), and when keyed `curve` gets its keys (clamped likewise).
  float keyed(const MdlNode& node, std::string_view name, float lo, float hi, Curve& curve) {
    const auto clamped = [lo, hi](float v) { return std::clamp(v, lo, hi); };
    if (const SortedTrack keys = track(node, name); keys.keyed)
      curve = emitterCurve(keys, 0, node.name + " " + std::string(name), clamped);
    return clamped(value(node, name, 0.0f));
  }

  // A controller EffectDesc has no time curve for: its value at 0 s, and a warning when keyed.
  float unanimated(const MdlNode& node, std::string_view name, float fallback) {
    const SortedTrack t = track(node, name);
    if (!t.present()) return fallback;
    if (t.keyed) {
      warn(t.line, "'" + std::string(name) + "' keys of '" + node.name +
                       "' cannot be represented (EffectDesc has no time curve for it); its value "
                       "at 0 s is used");
    }
    return t.eval(0.0f, 0);
  }

  void indexNodes() {
    const std::size_t n = model_.nodes.size();
    local_.resize(n);
    world_.resize(n);
    moves_.assign(n, false);
    pivots_.assign(n, std::string());
    detail::NodeHierarchy hierarchy = detail::indexHierarchy(model_, result_.diagnostics);
    geometryIndex_ = std::move(hierarchy.byName);
    parent_ = std::move(hierarchy.parent);
    for (std::size_t i = 0; i < n; ++i) {
      const MdlNode& node = model_.nodes[i];
      const SortedTrack pos = track(node, "position");
      const SortedTrack ori = track(node, "orientation");
      // Emitters ignore `scale` (a particle's size is its own).
      const Xform x = detail::localXform(pos, ori, SortedTrack{});
      local_[i] = x;
      world_[i] = parent_[i] == kRoot ? x : detail::compose(world_[parent_[i]], x);
      // A node moves with its own keys or its parent's (parents come first: parent_[i] < i).
      moves_[i] = pos.keyed || ori.keyed || (parent_[i] != kRoot && moves_[parent_[i]]);
    }
    // An inherited animation is written for every model of its family: nodes this one lacks are
    // expected.
    if (anim_ != nullptr && anim_->inheritedFrom.empty()) {
      for (const MdlNode& a : anim_->nodes)
        if (geometryIndex_.find(lowerCopy(a.name)) == geometryIndex_.end())
          warn(a.line, "animation node '" + a.name + "' matches no geometry node; ignored");
    }
  }

  void collectDetonations() {
    if (anim_ == nullptr) return;
    for (const MdlEvent& e : anim_->events) {
      if (e.name == "detonate") {
        eventDetonations_.push_back(std::max(0.0f, e.time));
      } else {
        warn(e.line, "event '" + e.name + "' has no meaning for emitters; ignored");
      }
    }
    std::sort(eventDetonations_.begin(), eventDetonations_.end());
  }

  // The first `node reference` child of geometry node `index`, or kRoot.
  std::size_t referenceChild(std::size_t index) const {
    for (std::size_t i = 0; i < model_.nodes.size(); ++i)
      if (parent_[i] == index && model_.nodes[i].type == MdlNodeType::Reference) return i;
    return kRoot;
  }

  // Whether the pivots of `index`'s ancestors that do not exist yet fit kMaxPivots.
  bool pivotsFit(std::size_t index) const {
    std::size_t needed = 0;
    for (std::size_t a = parent_[index]; a != kRoot && pivots_[a].empty(); a = parent_[a])
      ++needed;
    return result_.effect.pivots.size() + needed <= authoring::kMaxPivots;
  }

  // The pivot of geometry node `index` (made, after its ancestors' pivots, on first use).
  std::string pivotFor(std::size_t index) {
    if (!pivots_[index].empty()) return pivots_[index];
    authoring::Pivot p;
    if (parent_[index] != kRoot) p.parent = pivotFor(parent_[index]);
    const MdlNode& node = model_.nodes[index];
    p.name = uniqueName(node.name, usedPivotNames_);
    bool outOfRange = false;
    p.position = clampVec(toMote(local_[index].position), 1e6f, outOfRange);
    p.rotation = clampVec(eulerYXZ(toMote(local_[index].rotation)), 3600.0f, outOfRange);
    p.motion = motionOf(node, outOfRange);
    if (outOfRange) {
      warn(node.line,
           "the position of '" + node.name + "' is not finite or beyond ±1000 km; clamped");
    }
    result_.effect.pivots.push_back(std::move(p));
    pivots_[index] = result_.effect.pivots.back().name;
    return pivots_[index];
  }

  // A node's position and orientation keys (the chosen animation's, else the geometry's) as
  // Motion keys, wrapped at the animation's length when it loops.
  authoring::Motion motionOf(const MdlNode& node, bool& outOfRange) {
    return detail::motionKeys(track(node, "position"), track(node, "orientation"), loop_, node.name,
                              report_, outOfRange);
  }

  std::string uniqueName(const std::string& raw) { return uniqueName(raw, usedNames_); }

  // `raw` with what is not a letter, digit or _ replaced, made unique among `used`.
  static std::string uniqueName(const std::string& raw, std::set<std::string>& used) {
    std::string name;
    for (const char c : raw) {
      const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || isDigit(c) || c == '_';
      name += ok ? c : '_';
    }
    if (name.empty() || isDigit(name[0])) name.insert(0, "e_");
    if (name.size() > 100) name.resize(100);
    std::string candidate = name;
    for (int n = 2; !used.insert(lowerCopy(candidate)).second; ++n)
      candidate = name + "_" + std::to_string(n);
    return candidate;
  }

  // Property helpers: raw tokens read as numbers, flags and strings.
  std::string text(const MdlNode& node, std::string_view name, std::string fallback = {}) {
    const MdlProperty* p = node.property(name);
    if (p == nullptr || p->values.empty()) return fallback;
    if (p->values.size() > 1)
      warn(p->line, "extra values after '" + std::string(name) + " " + p->values[0] + "'; ignored");
    return p->values[0];
  }
  float number(const MdlNode& node, std::string_view name, float fallback) {
    const MdlProperty* p = node.property(name);
    if (p == nullptr || p->values.empty()) return fallback;
    float v = fallback;
    if (!parseFloat(p->values[0], v)) {
      warn(p->line, "'" + std::string(name) + "' needs a number (got '" + p->values[0] +
                        "'); the default is used");
      return fallback;
    }
    return v;
  }
  bool flag(const MdlNode& node, std::string_view name) {
    const MdlProperty* p = node.property(name);
    if (p == nullptr || p->values.empty()) return false;
    const std::string v = lowerCopy(p->values[0]);
    if (v == "true") return true;
    if (v == "false") return false;
    float f = 0.0f;
    if (!parseFloat(v, f)) {
      warn(p->line, "'" + std::string(name) + "' needs 0/1 or true/false (got '" + p->values[0] +
                        "'); read as 0");
      return false;
    }
    return f != 0.0f;  // any non-zero value sets the bit (nwnmdlcomp)
  }

  // An emitter-time curve from a track: keys before 0 s collapse to one key at 0; at most
  // kMaxCurveKeys keys (the rest are dropped with a warning). `map` converts each value.
  template <class Map>
  Curve emitterCurve(const SortedTrack& t, std::size_t column, const std::string& what, Map map) {
    Curve c;
    bool before = false;
    for (const MdlKey& k : t.keys) {
      if (k.time < 0.0f) {
        before = true;
        continue;
      }
      if (before) {
        c.keys.push_back({0.0f, map(t.eval(0.0f, column))});
        before = false;
      }
      c.keys.push_back({k.time, map(k.value[column])});
    }
    if (c.keys.empty()) c.keys.push_back({0.0f, map(t.eval(0.0f, column))});
    capKeys(c.keys, t.line, what);
    return c;
  }

  // At most kMaxCurveKeys keys (the rest dropped with a warning naming `what`).
  template <class Key>
  void capKeys(std::vector<Key>& keys, std::uint32_t line, const std::string& what) {
    if (keys.size() <= kMaxCurveKeys) return;
    warn(line, "'" + what + "' has " + std::to_string(keys.size()) + " keys; the first " +
                   std::to_string(kMaxCurveKeys) + " are kept");
    keys.resize(kMaxCurveKeys);
  }

  // Birthrate keys: negative values are a "hard stop" (smpco_shout); the rate is their positive
  // part, so a zero key is inserted where a segment crosses zero and negatives become 0.
  Curve rateCurve(const SortedTrack& t, const std::string& emitterName) {
    std::vector<MdlKey> keys;
    for (std::size_t i = 0; i < t.keys.size(); ++i) {
      if (i > 0) {
        const MdlKey& a = t.keys[i - 1];
        const MdlKey& b = t.keys[i];
        if ((a.value[0] > 0.0f && b.value[0] < 0.0f) || (a.value[0] < 0.0f && b.value[0] > 0.0f)) {
          MdlKey z;
          z.time = a.time + (b.time - a.time) * (a.value[0] / (a.value[0] - b.value[0]));
          keys.push_back(z);
        }
      }
      keys.push_back(t.keys[i]);
    }
    SortedTrack crossed = t;
    crossed.keys = std::move(keys);
    return emitterCurve(crossed, 0, emitterName + " birthrate",
                        [](float v) { return std::clamp(v, 0.0f, 1e7f); });
  }

  // The texture `name` along the search path (recorded in result_.textures the first time);
  // null, with one warning per name, when it is found nowhere.
  const detail::FoundTexture* lookUpTexture(const std::string& name, std::uint32_t line) {
    const std::string key = lowerCopy(name);
    const bool first = warnedTextures_.insert(key).second;
    if (textures_.empty()) {
      if (first) {
        ++texturesMissingWithoutDirectory_;
        result_.textures.push_back({name, {}, {}});
      }
      return nullptr;
    }
    const detail::FoundTexture& found = textures_.find(name, result_.diagnostics);
    if (first) {
      result_.textures.push_back({name, found.path, found.txiPath});
      if (found.path.empty()) {
        warn(line, "texture '" + name + "' is not in " + textures_.describe() + " as " + name +
                       ".png, .tga or .dds; builtin:soft_circle is drawn instead");
      }
    }
    return found.path.empty() ? nullptr : &found;
  }

  // What a texture's TXI says that the emitter does not: an additive or punch-through texture
  // under an emitter with the default `blend Normal` draws that way; a `proceduretype cycle`
  // texture animates as a numx × numy sheet at its fps unless the emitter has a grid of its own.
  void applyTxi(const detail::FoundTexture& texture, const MdlNode& node, bool emitterBlends,
                Material& m) {
    const Txi& txi = texture.txi;
    const BlendMode wanted = txi.blending == "additive"       ? BlendMode::Additive
                             : txi.blending == "punchthrough" ? BlendMode::Cutout
                                                              : BlendMode::Alpha;
    if (!emitterBlends) {
      m.blend = wanted;
    } else if (!txi.blending.empty() && wanted != m.blend) {
      warn(node.line, "'" + node.name + "' blends by its own `blend`; its texture's TXI blending " +
                          txi.blending + " is not used");
    }
    if (txi.procedureType.empty()) return;
    if (txi.procedureType != "cycle") {
      warn(node.line, "'" + node.name + "': the TXI procedure type " + txi.procedureType +
                          " of its texture is not drawn for particles; ignored");
      return;
    }
    if (txi.numx * txi.numy < 2) return;
    SpriteSheet& s = m.sheet;
    if (s.columns * s.rows > 1) {
      warn(node.line, "'" + node.name + "' has an xgrid × ygrid sheet of its own; its texture's " +
                          "TXI cycle of " + std::to_string(txi.numx) + " × " +
                          std::to_string(txi.numy) + " frames is not used");
      return;
    }
    s.columns = txi.numx;
    s.rows = txi.numy;
    s.frameBegin = 0;
    s.frameEnd = -1;
    s.fps = txi.fps;
    s.playback = txi.fps > 0.0f ? SheetPlayback::Fps : SheetPlayback::OverLife;
    s.loop = true;
  }

  // The mesh of chunk `name`: <name>.mdl from the model directory (its absolute path, like a
  // texture's, so the effect file can be written anywhere), else the built-in shard with one
  // warning per name saying what was looked for where. Each chunk is loaded once.
  std::string lookUpChunk(const std::string& name, std::uint32_t line) {
    const std::string key = lowerCopy(name);
    if (const auto it = chunks_.find(key); it != chunks_.end())
      return result_.chunks[it->second].mesh;
    ImportedChunk chunk{name, std::string(kBuiltinShardMeshName),
                        builtinShardMesh().triangleCount()};
    const std::string file = name + ".mdl";
    const std::string instead = "; builtin:shard is drawn instead";
    const std::string* path = models_.find({key + ".mdl"});
    if (models_.empty()) {
      warn(line, "chunk model '" + name + "' is not loaded: no model search path to look for " +
                     file + " in (ImportOptions::modelSearchPath)" + instead);
    } else if (path == nullptr) {
      warn(line, "chunk model '" + name + "' is not in " + models_.describe() + " as " + file +
                     " (any case)" + instead);
    } else if (path->size() > kMaxPathLength) {
      warn(line, "chunk model '" + name + "' has a path longer than " +
                     std::to_string(kMaxPathLength) + " bytes" + instead);
    } else {
      ChunkMeshResult loaded = loadChunkMesh(*path);
      const auto failed =
          std::find_if(loaded.diagnostics.begin(), loaded.diagnostics.end(),
                       [](const Diagnostic& d) { return d.severity == Severity::Error; });
      if (failed != loaded.diagnostics.end()) {
        warn(line, "chunk model '" + name + "' does not load (" + formatMdlDiagnostic(*failed) +
                       ")" + instead);
      } else if (loaded.mesh.triangleCount() == 0) {
        warn(line, "chunk model '" + name + "' (" + *path +
                       ") has no triangles (no drawn trimesh, danglymesh, skin or animmesh "
                       "faces)" +
                       instead);
      } else {
        // Its warnings keep their own file and line.
        for (Diagnostic& d : loaded.diagnostics)
          result_.diagnostics.push_back(std::move(d));
        chunk.mesh = *path;
        chunk.triangles = loaded.mesh.triangleCount();
      }
    }
    chunks_.emplace(key, result_.chunks.size());
    result_.chunks.push_back(chunk);
    return chunk.mesh;
  }

  void warnUiFields(const MdlNode& node) {
    for (const MdlProperty& p : node.properties) {
      const FieldInfo* f = findField(p.name);
      if (f == nullptr || f->kind != FieldKind::Ui || p.name == "p2p_type") continue;
      warn(p.line,
           "'" + p.name + "' is an exporter UI field the game never sees (not compiled); ignored");
    }
    if (node.property("inherit_part") != nullptr && flag(node, "inherit_part")) {
      warn(node.property("inherit_part")->line,
           "inherit_part has no documented meaning (MDL_EMITTERS.md §7.7); ignored");
    }
  }

  void lowerEmitter(std::size_t index);
  void lowerEmission(const MdlNode& node, Emitter& e, const std::string& update);
  void lowerAppearance(const MdlNode& node, Emitter& e, Material& m, bool invisible);
  void lowerSheet(const MdlNode& node, Material& m);
};

void Lowerer::lowerEmitter(std::size_t index) {
  const MdlNode& node = model_.nodes[index];
  warnUiFields(node);
  Emitter e;
  Material m;
  e.name = uniqueName(node.name);
  m.name = e.name;
  e.material = m.name;
  e.seed = result_.effect.emitters.size() + 1;

  // A moving emitter hangs from its ancestors as pivots, each with its keys; one that does not move
  // is placed at its transform in the model.
  bool moves = moves_[index];
  if (moves && !pivotsFit(index)) {
    moves = false;
    warn(node.line, "'" + node.name + "' moves, but its ancestors would make more than " +
                        std::to_string(authoring::kMaxPivots) +
                        " pivots; it is placed at its 0 s transform");
  }
  const Xform& w = moves ? local_[index] : world_[index];
  bool outOfRange = false;
  e.position = clampVec(toMote(w.position), 1e6f, outOfRange);
  e.rotation = clampVec(eulerYXZ(toMote(w.rotation)), 3600.0f, outOfRange);
  if (moves) {
    if (parent_[index] != kRoot) e.parent = pivotFor(parent_[index]);
    e.motion = motionOf(node, outOfRange);
  }
  if (outOfRange) {
    warn(node.line,
         "the position of '" + node.name + "' is not finite or beyond ±1000 km; clamped");
  }

  // Update mode (§7.1–7.4).
  std::string update = lowerCopy(text(node, "update", "Fountain"));
  if (update != "fountain" && update != "single" && update != "explosion" &&
      update != "lightning") {
    const MdlProperty* p = node.property("update");
    warn(p != nullptr ? p->line : node.line,
         "unknown update mode '" + update + "'; Fountain is used");
    update = "fountain";
  }
  lowerEmission(node, e, update);

  // Simulation space (§7.7): inherit_local wins over inherit, as in rollnw.
  if (flag(node, "inherit_local")) {
    e.space = SimulationSpace::SpawnAttached;
  } else if (flag(node, "inherit")) {
    e.space = SimulationSpace::EmitterAttached;
  }
  if (flag(node, "inheritvel")) e.velocityInheritance = 1.0f;

  // Spawn region: xsize × ysize cm in the emitter's local XY plane (Mote's local XZ); keyed, the
  // region a newborn gets follows emitter time (sampled at the keys of both tracks).
  const SortedTrack xTrack = track(node, "xsize"), yTrack = track(node, "ysize");
  const auto extent = [](const SortedTrack& t, const detail::Sample& at) {
    if (!t.present()) return 0.0f;
    const float cm = at.left ? t.evalLeft(at.time, 0) : t.eval(at.time, 0);
    return std::min(std::fabs(cm) * 0.01f, 1e5f);
  };
  if (xTrack.keyed || yTrack.keyed) {
    e.shape.kind = ShapeKind::Rect;
    for (const detail::Sample& at : detail::keyTimes({&xTrack, &yTrack}))
      e.shape.sizeOverEmitterTime.push_back(
          {at.time, {extent(xTrack, at), 0.0f, extent(yTrack, at)}});
    capKeys(e.shape.sizeOverEmitterTime, xTrack.keyed ? xTrack.line : yTrack.line,
            node.name + " xsize/ysize");
  } else {
    const float xs = extent(xTrack, {}), ys = extent(yTrack, {});
    if (xs > 0.0f || ys > 0.0f) {
      e.shape.kind = ShapeKind::Rect;
      e.shape.size = {xs, 0.0f, ys};
    }
  }

  // Texture, chunk, blend, render mode.
  const std::string texture = text(node, "texture", "NULL");
  const std::string chunk = text(node, "chunkname");
  const bool hasChunk = !chunk.empty() && lowerCopy(chunk) != "null";
  const bool invisible = !hasChunk && (texture.empty() || lowerCopy(texture) == "null");
  const std::uint32_t textureLine =
      node.property("texture") != nullptr ? node.property("texture")->line : node.line;
  const detail::FoundTexture* found =
      !invisible && !hasChunk ? lookUpTexture(texture, textureLine) : nullptr;
  m.texture = found != nullptr ? found->path : invisible || hasChunk ? "" : "builtin:soft_circle";

  const std::string blend = lowerCopy(text(node, "blend", "Normal"));
  if (blend == "lighten") {
    m.blend = BlendMode::Additive;
  } else if (blend == "punch-through" || blend == "punch_through" || blend == "punchthrough") {
    m.blend = BlendMode::Cutout;
  } else if (blend != "normal") {
    warn(node.property("blend")->line, "unknown blend '" + blend + "'; Normal (alpha) is used");
  }
  m.doubleSided = flag(node, "twosidedtex");
  m.ambientTint = flag(node, "m_istinted");
  lowerSheet(node, m);
  if (found != nullptr) applyTxi(*found, node, blend != "normal", m);

  const std::string render = lowerCopy(text(node, "render", "Normal"));
  struct RenderName {
    std::string_view name;
    RenderMode mode;
  };
  static constexpr std::array<RenderName, 7> kRenders{{
      {"normal", RenderMode::Billboard},
      {"linked", RenderMode::LinkedChain},
      {"billboard_to_local_z", RenderMode::BillboardLocalZ},
      {"billboard_to_world_z", RenderMode::BillboardWorldZ},
      {"aligned_to_world_z", RenderMode::AlignedWorldZ},
      {"aligned_to_particle_dir", RenderMode::VelocityAligned},
      {"motion_blur", RenderMode::Stretched},
  }};
  bool knownRender = false;
  for (const RenderName& r : kRenders) {
    if (r.name == render) {
      e.render.mode = r.mode;
      knownRender = true;
    }
  }
  if (!knownRender)
    warn(node.property("render")->line, "unknown render mode '" + render + "'; Normal is used");
  e.render.sortOrder =
      static_cast<std::int32_t>(std::clamp(number(node, "renderorder", 0.0f), -1e6f, 1e6f));
  e.render.deadspace =
      std::clamp(std::fabs(number(node, "deadspace", 0.0f)) * kRadiansToDegrees, 0.0f, 90.0f);
  e.render.stretchScale = std::clamp(unanimated(node, "blurlength", 0.1f), 0.0f, 100.0f);
  const float sizeStart0 = std::clamp(value(node, "sizestart", 0.0f), 0.0f, 1e4f);
  e.render.chainWidth = sizeStart0;

  const std::size_t ref = referenceChild(index);
  bool targetOutOfRange = false;
  const Vec3 target = ref == kRoot ? Vec3{0.0f, 1.0f, 0.0f}
                                   : clampVec(toMote(local_[ref].position), 1e5f, targetOutOfRange);
  if (targetOutOfRange) {
    warn(model_.nodes[ref].line,
         "the reference '" + model_.nodes[ref].name + "' is not finite or beyond ±100 km; clamped");
  }
  if (update == "lightning") {
    // §7.4: a bolt to the reference child, whatever the p2p flag says.
    e.render.mode = RenderMode::Beam;
    if (ref == kRoot) {
      warn(node.line, "Lightning emitter '" + node.name +
                          "' has no reference child; the bolt ends 1 m along its axis");
    }
    BeamParams& b = e.render.beam;
    b.target = target;
    b.width = sizeStart0;
    b.radius = std::clamp(unanimated(node, "lightningradius", 0.0f), 0.0f, 1e4f);
    b.roughness = std::clamp(unanimated(node, "lightningscale", 0.5f), 0.0f, 1.0f);
    b.updateInterval = std::clamp(unanimated(node, "lightningdelay", 0.0f), 0.0f, 1e4f);
    b.subdivisions = static_cast<std::uint32_t>(
        std::clamp(std::round(unanimated(node, "lightningsubdiv", 4.0f)), 0.0f, 10.0f));
  } else if (hasChunk) {
    e.render.mode = RenderMode::Mesh;
    e.render.mesh = lookUpChunk(chunk, node.property("chunkname")->line);
    m.lit = true;  // a chunk is a model's mesh: lit by the scene, as the game lights trimeshes
  }

  // Point-to-point targeting (§7.5).
  if (flag(node, "p2p") && update != "lightning") {
    if (ref == kRoot) {
      warn(node.property("p2p")->line,
           "p2p emitter '" + node.name + "' has no reference child; targeting is left out");
    } else {
      TargetModule t;
      const std::string type = lowerCopy(text(node, "p2p_type"));
      if (type == "bezier") {
        t.mode = TargetMode::Bezier;
      } else if (type == "gravity") {
        t.mode = TargetMode::Gravity;
      } else {
        if (!type.empty())
          warn(node.property("p2p_type")->line, "unknown p2p_type '" + type + "'; p2p_sel decides");
        t.mode = number(node, "p2p_sel", 0.0f) == 1.0f ? TargetMode::Bezier : TargetMode::Gravity;
      }
      t.position = target;
      // Keyed: each particle follows the values of its birth.
      t.gravity = keyed(node, "grav", -1e5f, 1e5f, t.gravityOverEmitterTime);
      t.drag = keyed(node, "drag", 0.0f, 1e4f, t.dragOverEmitterTime);
      t.killRadius = keyed(node, "threshold", 0.0f, 1e5f, t.killRadiusOverEmitterTime);
      t.travelTime = keyed(node, "combinetime", 0.0f, 1e5f, t.travelTimeOverEmitterTime);
      t.sourceTangent = keyed(node, "p2p_bezier2", -1e5f, 1e5f, t.sourceTangentOverEmitterTime);
      t.targetTangent = keyed(node, "p2p_bezier3", -1e5f, 1e5f, t.targetTangentOverEmitterTime);
      e.update.push_back(t);
    }
  }

  // Forces: mass is a world-down acceleration (keyed: each particle's at its birth); wind; the
  // walkmesh stands in as the ground plane.
  Curve massKeys;
  const float mass = keyed(node, "mass", -1e5f, 1e5f, massKeys);
  if (!massKeys.keys.empty()) {
    e.update.insert(e.update.begin(), GravityModule{{0.0f, -1.0f, 0.0f}, false, massKeys});
  } else if (mass != 0.0f) {
    e.update.insert(e.update.begin(), GravityModule{{0.0f, -mass, 0.0f}, false, {}});
  }
  if (flag(node, "affectedbywind")) e.update.push_back(WindModule{});
  const bool bounce = flag(node, "bounce");
  const bool splat = flag(node, "splat");
  if (bounce || splat) {
    CollisionModule c;
    c.colliders.push_back(Collider{});  // the ground plane y = 0, normal +Y
    c.response = splat ? CollisionResponse::Splat : CollisionResponse::Bounce;
    // Keyed bounce_co: each particle bounces with the coefficient of its birth.
    c.bounce = keyed(node, "bounce_co", 0.0f, 10.0f, c.bounceOverEmitterTime);
    if (splat) c.bounceOverEmitterTime = {};
    e.update.push_back(c);
  }
  const float blastRadius = number(node, "blastradius", 0.0f);
  if (blastRadius > 0.0f) {
    e.forceEvent.radius = std::min(blastRadius, 1e5f);
    e.forceEvent.duration = std::clamp(number(node, "blastlength", 0.0f), 0.0f, 1e5f);
  }

  lowerAppearance(node, e, m, invisible);

  // Capacity: the peak rate over the lifetime, with room to spare.
  const float life = detail::lifetimeBound(e);
  float peakRate = e.spawn.rate;
  for (const CurveKey& k : e.spawn.rateOverTime.keys)
    peakRate = std::max(peakRate, k.value);
  double estimate = 16.0;
  switch (e.spawn.mode) {
    case EmissionMode::Continuous:
    case EmissionMode::BeamContinuous:
      estimate += static_cast<double>(peakRate) * std::min(30.0, static_cast<double>(life)) *
                  (e.spawn.metric == SpawnMetric::PerDistance ? 10.0 : 1.25);
      break;
    case EmissionMode::SingleShot:
      estimate += e.spawn.loop
                      ? std::min(1e6, static_cast<double>(life) /
                                          std::max(1e-3, static_cast<double>(e.spawn.duration)))
                      : 1.0;
      break;
    case EmissionMode::EventBurst:
      estimate += static_cast<double>(e.spawn.rate) *
                  static_cast<double>(std::max<std::size_t>(1, e.spawn.eventTimes.size()));
      for (const Burst& b : e.spawn.bursts)
        estimate += b.count;
      break;
  }
  e.maxParticles = static_cast<std::uint32_t>(
      std::clamp(std::ceil(estimate), 16.0, static_cast<double>(kMaxParticlesPerImportedEmitter)));

  result_.effect.materials.push_back(std::move(m));
  result_.effect.emitters.push_back(std::move(e));
}

void Lowerer::lowerEmission(const MdlNode& node, Emitter& e, const std::string& update) {
  const SortedTrack birth = track(node, "birthrate");
  if (birth.wasUnsorted) warn(birth.line, "birthrate keys are out of time order; sorted");
  const float rate0 = birth.present() ? birth.eval(0.0f, 0) : 0.0f;
  const float spawnType = number(node, "spawntype", 0.0f);
  const auto spawnTypeLine = [&] {
    const MdlProperty* p = node.property("spawntype");
    return p != nullptr ? p->line : node.line;
  };
  if (spawnType != 0.0f && spawnType != 1.0f)
    warn(spawnTypeLine(),
         "spawntype " + text(node, "spawntype") + " is neither 0 nor 1; 0 is used");

  if (update == "fountain" || update == "lightning") {
    e.spawn.mode = update == "fountain" ? EmissionMode::Continuous : EmissionMode::BeamContinuous;
    e.spawn.rate = std::clamp(rate0, 0.0f, 1e7f);
    if (birth.keyed) e.spawn.rateOverTime = rateCurve(birth, node.name);
    if (spawnType == 1.0f) {
      if (update == "fountain") {
        e.spawn.metric = SpawnMetric::PerDistance;
      } else {
        warn(spawnTypeLine(), "spawntype 1 (per metre) on a Lightning emitter; ignored");
      }
    }
    return;
  }
  if (update == "single") {
    // One particle; with loop, again every 1/birthrate s (else every lifeExp s, else 1 s: rollnw).
    e.spawn.mode = EmissionMode::SingleShot;
    e.spawn.rate = 1.0f;
    if (spawnType == 1.0f)
      warn(spawnTypeLine(), "spawntype 1 (per metre) on a Single emitter; ignored");
    if (number(node, "loop", 0.0f) != 0.0f) {
      const float life = value(node, "lifeexp", 0.0f);
      e.spawn.loop = true;
      e.spawn.duration = rate0 > 0.0f ? 1.0f / rate0 : (life > 0.0f ? life : 1.0f);
      e.spawn.duration = std::clamp(e.spawn.duration, 1e-3f, 1e6f);
    }
    return;
  }
  // Explosion (§7.3): a burst of birthrate(t) particles at every detonation; the host's
  // "detonate" event fires rate = birthrate at 0 s. spawntype means nothing for a burst.
  e.spawn.mode = EmissionMode::EventBurst;
  e.spawn.eventName = "detonate";
  e.spawn.rate = std::clamp(std::round(rate0), 0.0f, 1e7f);
  std::vector<float> times;
  std::uint32_t line = node.line;
  const MdlNode* a = animationNode(node);
  const MdlTrack* own = a != nullptr ? a->track("detonate") : nullptr;
  if (own != nullptr && !own->keys.empty()) {
    for (const MdlKey& k : own->keys)
      times.push_back(std::max(0.0f, k.time));
    std::sort(times.begin(), times.end());
    line = own->line;
  } else {
    times = eventDetonations_;
  }
  if (times.empty()) {
    warn(node.line, "Explosion emitter '" + node.name + "' has no detonation in " +
                        (anim_ != nullptr ? "animation '" + anim_->name + "'" : "the model") +
                        "; it detonates once at 0 s (a guess, so that it shows)");
    times.push_back(0.0f);
  }
  if (times.back() > 1e6f) {
    warn(line, "detonations later than 1e6 s are dropped");
    times.erase(std::upper_bound(times.begin(), times.end(), 1e6f), times.end());
    if (times.empty()) times.push_back(0.0f);
  }
  const std::size_t cap = kMaxBursts;  // also the cap on event_times
  if (times.size() > cap) {
    warn(line, std::to_string(times.size()) + " detonations; the first " + std::to_string(cap) +
                   " are kept");
    times.resize(cap);
  }
  if (!birth.keyed) {
    e.spawn.eventTimes = times;  // same-time detonations add up: each fires a burst
    return;
  }
  // Keyed birthrate: each detonation's burst is the rate at that moment.
  for (const float t : times) {
    const float count = std::clamp(std::round(birth.eval(t, 0)), 0.0f, 1e6f);
    if (count > 0.0f)
      e.spawn.bursts.push_back(Burst{t, static_cast<std::uint32_t>(count), 0.0f, 0});
  }
}

void Lowerer::lowerSheet(const MdlNode& node, Material& m) {
  SpriteSheet& s = m.sheet;
  const auto grid = [&](std::string_view name) {
    const float v = number(node, name, 1.0f);
    if (v > 256.0f) warn(node.property(name)->line, std::string(name) + " above 256; 256 is used");
    return static_cast<std::uint32_t>(std::clamp(std::round(v), 1.0f, 256.0f));  // 0 means 1
  };
  s.columns = grid("xgrid");
  s.rows = grid("ygrid");
  const std::uint32_t cells = s.columns * s.rows;
  const SortedTrack fsTrack = track(node, "framestart");
  const SortedTrack feTrack = track(node, "frameend");
  float fs = std::round(value(node, "framestart", 0.0f));  // at 0 s
  float fe = std::round(value(node, "frameend", 0.0f));
  const float last = static_cast<float>(cells - 1);
  if (fs == 0.0f && fe == 0.0f && cells > 1) {
    s.frameBegin = 0;
    s.frameEnd = -1;  // 0..0 on a multi-cell sheet: the whole sheet (rollnw)
  } else {
    if (fs < 0.0f || fs > last || fe < 0.0f || fe > last) {
      warn(fsTrack.present() ? fsTrack.line : (feTrack.present() ? feTrack.line : node.line),
           "frames " + shown(fs) + ".." + shown(fe) + " are outside the " +
               std::to_string(s.columns) + "x" + std::to_string(s.rows) + " sheet; clamped to 0.." +
               std::to_string(cells - 1));
      fs = std::clamp(fs, 0.0f, last);
      fe = std::clamp(fe, 0.0f, last);
    }
    if (fe < fs) {
      warn(feTrack.present() ? feTrack.line : node.line,
           "frameEnd is before frameStart; frameStart alone is shown");
      fe = fs;
    }
    s.frameBegin = static_cast<std::uint32_t>(fs);
    s.frameEnd = static_cast<std::int32_t>(fe);
  }
  // Keyed frames: each particle plays the range of its birth (clamped into the sheet).
  if (fsTrack.keyed) (void)keyed(node, "framestart", 0.0f, last, s.frameBeginOverEmitterTime);
  if (feTrack.keyed) (void)keyed(node, "frameend", 0.0f, last, s.frameEndOverEmitterTime);
  // Keyed fps: each particle plays at the rate of its birth.
  s.fps = keyed(node, "fps", 0.0f, 1000.0f, s.fpsOverEmitterTime);
  s.playback = s.fps > 0.0f || !s.fpsOverEmitterTime.keys.empty() ? SheetPlayback::Fps
                                                                  : SheetPlayback::OverLife;
  s.randomStart = flag(node, "random");
}

void Lowerer::lowerAppearance(const MdlNode& node, Emitter& e, Material& m, bool invisible) {
  (void)m;
  InitModules& init = e.init;
  // Lifetime: seconds; negative is immortal.
  const SortedTrack life = track(node, "lifeexp");
  if (!life.keyed) {
    const float l = life.present() ? life.eval(0.0f, 0) : 0.0f;
    if (l < 0.0f) {
      init.immortal = true;
      init.lifetime.range = {1.0f, 1.0f};
    } else {
      if (l < 1e-3f)
        warn(life.present() ? life.line : node.line,
             "lifeExp " + std::to_string(l) + " s: particles live 1 ms (the shortest life)");
      init.lifetime.range = {std::clamp(l, 1e-3f, 1e5f), std::clamp(l, 1e-3f, 1e5f)};
    }
  } else {
    bool negative = false;
    for (const MdlKey& k : life.keys)
      negative = negative || k.value[0] < 0.0f;
    if (negative)
      warn(life.line, "negative lifeExp keys (immortal) cannot vary per spawn; clamped to 1 ms");
    init.lifetime.range = {0.0f, 0.0f};
    init.lifetime.overEmitterTime = emitterCurve(
        life, 0, node.name + " lifeExp", [](float v) { return std::clamp(v, 1e-3f, 1e5f); });
  }

  // Velocity: along local +Z (NWN) = +Y (Mote), within the spread cone.
  const SortedTrack spreadTrack = track(node, "spread");
  float widest = 0.0f;
  for (const MdlKey& k : spreadTrack.keys)
    widest = std::max(widest, std::fabs(k.value[0]));
  if (widest > 6.2832f) {
    warn(spreadTrack.line, "spread " + std::to_string(widest) +
                               " is above 2π: it is in radians (degrees leaking in?); read as a "
                               "full sphere");
  }
  // §8.1: spread is the full aperture, so the cone's half-angle is spread / 2; keyed, the cone a
  // newborn gets follows emitter time (a cone of 180° is the whole sphere).
  const auto halfAngle = [](float spread) {
    return std::min(180.0f, std::fabs(spread) * 0.5f * kRadiansToDegrees);
  };
  init.velocity.direction = {0.0f, 1.0f, 0.0f};
  if (spreadTrack.keyed) {
    init.velocity.kind = VelocityKind::Cone;
    init.velocity.spreadOverEmitterTime =
        emitterCurve(spreadTrack, 0, node.name + " spread", halfAngle);
  } else {
    const float half = halfAngle(spreadTrack.present() ? spreadTrack.eval(0.0f, 0) : 0.0f);
    init.velocity.kind = half >= 180.0f ? VelocityKind::Sphere : VelocityKind::Cone;
    init.velocity.spread = half >= 180.0f ? 0.0f : half;
  }
  // Speed: velocity + u · randvel, u uniform in [0, 1]; either keyed follows emitter time.
  const SortedTrack vel = track(node, "velocity");
  const SortedTrack randTrack = track(node, "randvel");
  const float randvel = randTrack.present() ? randTrack.eval(0.0f, 0) : 0.0f;
  const float v0 = vel.present() ? vel.eval(0.0f, 0) : 0.0f;
  const auto speedValue = [](float v) { return std::clamp(v, -1e5f, 1e5f); };
  if (randTrack.keyed) {
    init.velocity.speed.overEmitterTime =
        vel.keyed ? emitterCurve(vel, 0, node.name + " velocity", speedValue)
                  : Curve{Interp::Linear, {{0.0f, speedValue(v0)}}};
    init.velocity.speed.range = {0.0f, 1.0f};
    init.velocity.speed.rangeScaleOverEmitterTime =
        emitterCurve(randTrack, 0, node.name + " randvel", speedValue);
  } else if (vel.keyed) {
    init.velocity.speed.overEmitterTime = emitterCurve(vel, 0, node.name + " velocity", speedValue);
    init.velocity.speed.range = {std::min(0.0f, randvel), std::max(0.0f, randvel)};
  } else {
    const float a = std::clamp(v0, -1e5f, 1e5f);
    const float b = std::clamp(v0 + randvel, -1e5f, 1e5f);
    init.velocity.speed.range = {std::min(a, b), std::max(a, b)};
  }
  init.velocity.speed.range.min = std::clamp(init.velocity.speed.range.min, -1e5f, 1e5f);
  init.velocity.speed.range.max = std::clamp(init.velocity.speed.range.max, -1e5f, 1e5f);

  // Spin: particleRot in revolutions per second (§8.2, rollnw) → degrees per second.
  const SortedTrack rot = track(node, "particlerot");
  if (rot.keyed) {
    init.spin.overEmitterTime = emitterCurve(rot, 0, node.name + " particleRot", [](float v) {
      return std::clamp(v * 360.0f, -1e6f, 1e6f);
    });
  } else if (rot.present()) {
    const float s = std::clamp(rot.eval(0.0f, 0) * 360.0f, -1e6f, 1e6f);
    init.spin.range = {s, s};
  }

  // Start/mid/end: spawn value × over-life multiplier (§7.12).
  float p[3] = {std::clamp(unanimated(node, "percentstart", 0.0f), 0.0f, 1.0f),
                std::clamp(unanimated(node, "percentmid", 0.5f), 0.0f, 1.0f),
                std::clamp(unanimated(node, "percentend", 1.0f), 0.0f, 1.0f)};
  if (p[1] < p[0] || p[2] < p[1]) {
    warn(node.line, "percentStart/Mid/End are not in order; each is raised to the one before");
    p[1] = std::max(p[1], p[0]);
    p[2] = std::max(p[2], p[1]);
  }
  const auto overLife = [&](const std::array<float, 3>& shape, float lo, float hi) {
    Curve c;
    for (std::size_t i = 0; i < 3; ++i)
      c.keys.push_back({p[i], std::clamp(shape[i], lo, hi)});
    return c;
  };
  const auto isFlat = [](const std::array<float, 3>& s) {
    return s[0] == 1.0f && s[1] == 1.0f && s[2] == 1.0f;
  };

  // Colour (rgb) and alpha share one set of spawn times.
  const SortedTrack cS = track(node, "colorstart"), cM = track(node, "colormid"),
                    cE = track(node, "colorend");
  const SortedTrack aS = track(node, "alphastart"), aM = track(node, "alphamid"),
                    aE = track(node, "alphaend");
  std::vector<detail::Sample> colorTimes = detail::keyTimes({&cS, &cM, &cE, &aS, &aM, &aE});
  std::array<detail::Staged, 4> channels;
  const auto stageColor = [&] {
    for (std::size_t c = 0; c < 3; ++c)
      channels[c] = detail::stage(cS, cM, cE, c, 1.0f, colorTimes);
    channels[3] = detail::stage(aS, aM, aE, 0, 1.0f, colorTimes);
  };
  stageColor();
  // Keys may go negative (vdr_rooted): clamp when evaluating, so add the zero crossings first.
  if (std::vector<detail::Sample> crossed = detail::withZeroCrossings(
          colorTimes,
          {&channels[0].factor, &channels[1].factor, &channels[2].factor, &channels[3].factor});
      crossed.size() != colorTimes.size()) {
    colorTimes = std::move(crossed);
    stageColor();
  }
  bool exact = true;
  for (const detail::Staged& s : channels)
    exact = exact && s.exact;
  if (!exact) {
    warn(node.line, "the colour/alpha keys of '" + node.name +
                        "' change start, mid and end in different proportions, which EffectDesc "
                        "cannot represent (a spawn value × one over-life curve); approximated");
  }
  if (invisible) channels[3].factor.assign(colorTimes.size(), 0.0f);  // texture NULL: invisible
  if (colorTimes.size() == 1) {
    Rgba c{};
    for (std::size_t i = 0; i < 4; ++i)
      c[i] = std::clamp(channels[i].factor[0], 0.0f, 1e4f);
    init.color.a = c;
    init.color.b = c;
  } else {
    init.color.a = {1, 1, 1, 1};
    init.color.b = {1, 1, 1, 1};
    for (std::size_t k = 0; k < colorTimes.size() && k < kMaxCurveKeys; ++k) {
      GradientKey g;
      g.time = colorTimes[k].time;
      for (std::size_t i = 0; i < 4; ++i)
        g.color[i] = std::clamp(channels[i].factor[k], 0.0f, 1e4f);
      init.color.overEmitterTime.keys.push_back(g);
    }
  }
  if (!(isFlat(channels[0].shape) && isFlat(channels[1].shape) && isFlat(channels[2].shape))) {
    ColorOverLifeModule col;
    col.mode = CurveMode::Multiply;
    for (std::size_t i = 0; i < 3; ++i) {
      GradientKey g;
      g.time = p[i];
      for (std::size_t c = 0; c < 3; ++c)
        g.color[c] = std::clamp(channels[c].shape[i], 0.0f, 1e4f);
      g.color[3] = 1.0f;
      col.gradient.keys.push_back(g);
    }
    e.update.push_back(col);
  }
  if (!isFlat(channels[3].shape)) {
    AlphaOverLifeModule al;
    al.mode = CurveMode::Multiply;
    al.curve = overLife(channels[3].shape, -1e4f, 1e4f);  // clamped to 0..1 when evaluated
    e.update.push_back(al);
  }

  // Size (m): x from sizeStart/Mid/End, y from the _y set when any of it is non-zero.
  const SortedTrack sS = track(node, "sizestart"), sM = track(node, "sizemid"),
                    sE = track(node, "sizeend");
  const SortedTrack yS = track(node, "sizestart_y"), yM = track(node, "sizemid_y"),
                    yE = track(node, "sizeend_y");
  const auto sizeParam = [&](const detail::Staged& st, const std::vector<detail::Sample>& times) {
    ScalarParam sp;
    if (times.size() == 1) {
      const float v = std::clamp(st.factor[0], 0.0f, 1e5f);
      sp.range = {v, v};
    } else {
      for (std::size_t k = 0; k < times.size() && k < kMaxCurveKeys; ++k)
        sp.overEmitterTime.keys.push_back({times[k].time, std::clamp(st.factor[k], 0.0f, 1e5f)});
    }
    return sp;
  };
  const std::vector<detail::Sample> sizeTimes = detail::keyTimes({&sS, &sM, &sE});
  const detail::Staged sx = detail::stage(sS, sM, sE, 0, 0.0f, sizeTimes);
  init.size = sizeParam(sx, sizeTimes);
  bool sizeExact = sx.exact;
  SizeOverLifeModule size;
  size.mode = CurveMode::Multiply;
  if (!isFlat(sx.shape)) size.x = overLife(sx.shape, 0.0f, 1e5f);
  const auto nonZero = [](const SortedTrack& t) {
    for (const MdlKey& k : t.keys)
      if (k.value[0] != 0.0f) return true;
    return false;
  };
  if (nonZero(yS) || nonZero(yM) || nonZero(yE)) {
    const std::vector<detail::Sample> yTimes = detail::keyTimes({&yS, &yM, &yE});
    const detail::Staged sy = detail::stage(yS, yM, yE, 0, 0.0f, yTimes);
    sizeExact = sizeExact && sy.exact;
    init.separateSizeY = true;
    init.sizeY = sizeParam(sy, yTimes);
    if (!isFlat(sy.shape)) {
      size.y = overLife(sy.shape, 0.0f, 1e5f);
      if (size.x.keys.empty()) size.x = overLife({1.0f, 1.0f, 1.0f}, 0.0f, 1e5f);
    } else if (!size.x.keys.empty()) {
      size.y = overLife({1.0f, 1.0f, 1.0f}, 0.0f, 1e5f);
    }
  }
  if (!sizeExact) {
    warn(node.line, "the size keys of '" + node.name +
                        "' change start, mid and end in different proportions, which EffectDesc "
                        "cannot represent; approximated");
  }
  if (!size.x.keys.empty() || !size.y.keys.empty()) e.update.push_back(size);
  const bool sized =
      std::any_of(sx.factor.begin(), sx.factor.end(), [](float f) { return f > 0.0f; });
  if (!sized && !invisible) {
    warn(node.line, "the particles of '" + node.name +
                        "' have size 0 (sizeStart/sizeEnd absent or 0), so they cannot be seen");
  }
}

}  // namespace

std::string defaultAnimation(const MdlModel& model) {
  for (const std::string_view preferred : {"impact", "duration"})
    for (const MdlAnimation& a : model.animations)
      if (equalsIgnoreCase(a.name, preferred)) return a.name;
  return model.animations.empty() ? std::string() : model.animations.front().name;
}

ImportResult importMdl(const MdlModel& model, const ImportOptions& options) {
  ImportResult result;
  if (options.supermodels.empty()) {
    Lowerer(model, options, result).run();
  } else {
    const MdlModel inherited = withInheritedAnimations(model, options.supermodels);
    Lowerer(inherited, options, result).run();
  }
  return result;
}

ImportResult importMdlFile(const std::string& path, const ImportOptions& options) {
  MdlParseResult parsed = loadMdlFile(path);
  if (!parsed.ok()) {
    ImportResult result;
    result.diagnostics = std::move(parsed.diagnostics);
    return result;
  }
  ImportOptions withDirectory = options;
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  const std::string directory = parent.empty() ? "." : parent.string();
  withDirectory.modelSearchPath.insert(withDirectory.modelSearchPath.begin(), directory);
  withDirectory.textureSearchPath.insert(withDirectory.textureSearchPath.begin(), directory);
  SupermodelChain chain;
  if (withDirectory.supermodels.empty()) {
    chain = loadSupermodels(parsed.model, withDirectory.modelSearchPath);
    withDirectory.supermodels = std::move(chain.models);
  }
  ImportResult result = importMdl(parsed.model, withDirectory);
  detail::prependDiagnostics(result.diagnostics, std::move(chain.diagnostics));
  detail::prependDiagnostics(result.diagnostics, std::move(parsed.diagnostics));
  return result;
}

}  // namespace mote::nwn
