// SPDX-License-Identifier: MIT
// The compiler's private lowering of one emitter into its INIT and UPDATE programs
// (docs/compiler.md).
#pragma once

#include "ir.h"

#include <mote/authoring/diagnostic.h>
#include <mote/authoring/effect.h>
#include <mote/bytecode/compiled_effect.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace mote::compiler {

struct NodeLowering;

inline constexpr float kDegrees = 3.14159265358979323846f / 180.0f;

// The particle layout, allocated on demand: only fields some section touches exist.
class Layout {
 public:
  std::uint32_t field(const std::string& name, std::uint32_t width) {
    const auto it = offsets_.find(name);
    if (it != offsets_.end()) return it->second;
    const std::uint32_t offset = words_;
    offsets_[name] = offset;
    slots_.push_back(bytecode::FieldSlot{name, offset, width});
    words_ += width;
    return offset;
  }
  std::int32_t find(const std::string& name) const {
    const auto it = offsets_.find(name);
    return it == offsets_.end() ? -1 : static_cast<std::int32_t>(it->second);
  }
  std::uint32_t words() const { return words_; }
  const std::vector<bytecode::FieldSlot>& slots() const { return slots_; }
  /// Drops the fields named in `names`, closing up the rest in order; returns each old word's new
  /// offset (UINT32_MAX for a dropped word).
  std::vector<std::uint32_t> remove(const std::vector<std::string>& names) {
    std::vector<std::uint32_t> moved(words_, UINT32_MAX);
    std::vector<bytecode::FieldSlot> kept;
    offsets_.clear();
    std::uint32_t words = 0;
    for (const bytecode::FieldSlot& slot : slots_) {
      if (std::find(names.begin(), names.end(), slot.name) != names.end()) continue;
      for (std::uint32_t i = 0; i < slot.width; ++i)
        moved[slot.offset + i] = words + i;
      offsets_[slot.name] = words;
      kept.push_back(bytecode::FieldSlot{slot.name, words, slot.width});
      words += slot.width;
    }
    slots_ = std::move(kept);
    words_ = words;
    return moved;
  }

 private:
  std::map<std::string, std::uint32_t> offsets_;
  std::vector<bytecode::FieldSlot> slots_;
  std::uint32_t words_ = 0;
};

// One emitter's compilation: its modules and graphs lowered through two builders (INIT, UPDATE),
// optimised, emitted and verified into a CompiledEmitter. The member functions live in
// lower.cpp (the driver and the shared values), lower_init.cpp (INIT), lower_update.cpp (UPDATE
// modules) and lower_graph.cpp (node graphs).
class EmitterCompiler {
 public:
  EmitterCompiler(const authoring::EffectDesc& effect, const authoring::Emitter& emitter,
                  std::size_t index, std::vector<authoring::Diagnostic>& diagnostics)
      : effect_(effect), e_(emitter), index_(index), diagnostics_(diagnostics) {}

  // Lowers, optimises and verifies the emitter into `out`; false after an error (reported into
  // the diagnostics given to the constructor).
  bool compile(bytecode::CompiledEmitter& out);

  // --- lower_graph.cpp: the lowering functions of the node table's rows (node_table.cpp)
  void lowerModulesNode(NodeLowering& n);
  void lowerConstantNode(NodeLowering& n);
  void lowerCurveNode(NodeLowering& n);
  void lowerGradientNode(NodeLowering& n);
  void lowerFieldGetNode(NodeLowering& n);
  void lowerFieldSetNode(NodeLowering& n);
  void lowerEmitterFieldNode(NodeLowering& n);
  void lowerGlobalFieldNode(NodeLowering& n);
  void lowerBuiltinNode(NodeLowering& n);
  void lowerNamedBuiltinNode(NodeLowering& n);
  void lowerNormalizedAgeNode(NodeLowering& n);
  void lowerKillNode(NodeLowering& n);
  void lowerSpawnNode(NodeLowering& n);
  void lowerReportNode(NodeLowering& n);
  void lowerIsaNode(NodeLowering& n);

 private:
  friend struct NodeLowering;

  // The emitter's frame for INIT: newborns of world-space emitters are placed and aimed through
  // the emitter's transform; local-space ones stay in its frame.
  struct InitFrame {
    Value rotation;
    Value origin;
    bool world = false;
  };

  // The running state of one UPDATE section: this tick's age, normalised age and dt, and the
  // particle values the modules carry in registers between their loads and the final stores.
  struct Running {
    Value dt, age, t;
    Value p, v, color, size, spin;
    bool colorChanged = false;
    bool sizeChanged = false;
    bool positionSet = false;
  };

  static std::uint32_t widthOf(authoring::FieldType t) { return static_cast<std::uint32_t>(t) + 1; }
  static bool isZero(const authoring::ScalarParam& p) {
    return p.range.min == 0.0f && p.range.max == 0.0f && p.overEmitterTime.keys.empty();
  }

  // --- lower.cpp: diagnostics, fields, curves, spawn-time values
  std::string pointer(std::string_view suffix) const;
  void error(std::string_view at, std::string message);
  void emitterFields();
  Value namedField(Builder& b, const std::string& name, std::uint32_t width,
                   bool globalOnly = false);
  Value load(Builder& b, const std::string& name, std::uint32_t width);
  void store(Builder& b, const std::string& name, Value v);
  Value evalKeys(Builder& b, authoring::Interp interp,
                 const std::vector<std::pair<float, Lanes>>& keys, std::uint32_t width, Value x);
  Value evalCurve(Builder& b, const authoring::Curve& c, Value x);
  Value evalGradient(Builder& b, const authoring::Gradient& g, Value x);
  // Vector keys (spawn shape extents), linear, the end values held outside.
  Value evalVec3Keys(Builder& b, const std::vector<authoring::Vec3Key>& keys, Value x);
  Value sample(Builder& b, const authoring::ScalarParam& p, float scale = 1.0f);
  Value sampleColor(Builder& b, const authoring::ColorParam& p);
  const authoring::SpriteSheet* animatedSheet() const;
  static float framesPlayed(const authoring::SpriteSheet& s);
  /// Whether the sheet's frame range follows emitter time (each particle's own, frameRange).
  static bool keyedFrameRange(const authoring::SpriteSheet& s) {
    return !s.frameBeginOverEmitterTime.keys.empty() || !s.frameEndOverEmitterTime.keys.empty();
  }
  /// The frames a particle plays when the sheet's range follows emitter time: its first frame and
  /// how many, from its birth samples (spawnSample).
  struct FrameRange {
    Value begin;
    Value count;
  };
  FrameRange frameRange(Builder& b, const authoring::SpriteSheet& s);

  // --- lower_init.cpp: INIT
  Value spawnPoint(Builder& b, const authoring::SpawnShape& s);
  Value radius(Builder& b, const authoring::SpawnShape& s, int dims);
  Lanes quatFromY(const authoring::Vec3& dir);
  InitFrame initFrame(Builder& b) const;
  void lowerInit();
  void lowerInitModule(Builder& b, const authoring::InitModule& m);
  void initLifetime(Builder& b, const authoring::ScalarParam& lifetime);
  Value initPosition(Builder& b, const authoring::SpawnShape& shape, const InitFrame& frame);
  void initVelocity(Builder& b, const authoring::InitVelocity& v, Value local,
                    const InitFrame& frame);
  void initSize(Builder& b, const authoring::ScalarParam& x, const authoring::ScalarParam* y);
  void initColor(Builder& b, const authoring::ColorParam& c);
  void initRotation(Builder& b, const authoring::ScalarParam& degrees);
  void initSpin(Builder& b, const authoring::ScalarParam& degreesPerSecond);
  void initMass(Builder& b, const authoring::ScalarParam& mass);
  void initOrientation(Builder& b, const authoring::Vec3& axis, const authoring::ScalarParam& angle,
                       bool random);
  void initField(Builder& b, const authoring::FieldInit& f);
  void frameInit(Builder& b);

  // --- lower_fold.cpp: spawn-constant fields out of the layout
  void foldSpawnConstants();

  // --- lower_update.cpp: UPDATE modules
  void scanNeeds();
  Value targetPoint(Builder& b, const authoring::Vec3& local, const std::string& field);
  /// The particle's sample of `curve` (one of spawnSampled_), stored by INIT at its birth.
  Value spawnSample(Builder& b, const authoring::Curve& curve);
  /// `constant`, or the particle's sample of `curve` when it has keys.
  Value sampledOr(Builder& b, float constant, const authoring::Curve& curve);
  void lowerUpdate();
  void flushRunning(Builder& b);
  void reloadRunning(Builder& b);
  void lowerModuleNode(Builder& b, const std::vector<authoring::NodeModule>& modules);
  void lowerModule(Builder& b, const authoring::UpdateModule& m);
  void collide(Builder& b, const authoring::CollisionModule& c, Value& p, Value& v);
  std::uint32_t emitterIndex(const std::string& name) const;
  void spawnWhere(Builder& b, std::uint32_t target, std::uint32_t count, Value fired, Value point,
                  const authoring::ParticleEvent* event = nullptr, Value velocity = {});
  void spawnInherit(Builder& b, std::uint32_t target, Value count, Value point, Value velocity,
                    Value size, Value color);
  Value passedSize(Builder& b, bool passes);
  Value passedColor(Builder& b, bool passes);
  void trail(Builder& b, std::uint32_t target, Value start);
  void fireEvent(Builder& b, std::size_t index, Value fired, Value point, Value velocity);
  static Operand xyzw(Builder& b, Value xyz, Value w);
  void report(Builder& b, bytecode::ReportKind kind, Value tag, Value fired, Value point,
              Value velocity);
  void killIf(Builder& b, const authoring::KillModule& k, Value age, Value p, Value v);
  void frameUpdate(Builder& b, Value age, Value t);

  // --- lower_graph.cpp: node graphs
  void lowerGraph(Builder& b, const authoring::NodeGraph& graph, const std::string& at);
  void unknownNode(const std::string& op, const std::string& where);
  std::uint32_t particleFieldWidth(NodeLowering& n, const std::string& field, std::string& storage);
  Value curveInput(NodeLowering& n);
  void lowerFieldDeclNode(NodeLowering& n, const std::vector<authoring::FieldDecl>& fields,
                          std::string_view kind, bool global);

  const authoring::EffectDesc& effect_;
  const authoring::Emitter& e_;
  std::size_t index_;
  std::vector<authoring::Diagnostic>& diagnostics_;
  Builder init_;
  Builder update_;
  Layout layout_;
  std::vector<bytecode::FieldSlot> emitterFieldSlots_;
  std::vector<float> emitterFieldValues_;
  std::uint32_t emitterWords_ = 0;
  std::vector<bytecode::GlobalImport> globals_;
  Running run_;
  bool failed_ = false;
  bool needsColor0_ = false;
  bool needsSize0_ = false;
  bool needsSpin_ = false;
  bool needsMass_ = false;
  // What particle events of other emitters pass to this one's newborns (their source_* builtins).
  bool inheritsVelocity_ = false;
  bool inheritsColor_ = false;
  bool inheritsSize_ = false;
  /// Update-module parameters sampled at each particle's birth and kept in a field of its own
  /// ("spawn_sample.<index>"): their emitter-time curves, in scanNeeds' order.
  std::vector<const authoring::Curve*> spawnSampled_;
  bool needsOrigin_ = false;
};

}  // namespace mote::compiler
