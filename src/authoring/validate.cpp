// SPDX-License-Identifier: MIT
// Semantic validation of an EffectDesc, a pure function. Two passes: the generic one walks the
// reflect.h table (finite numbers, bounds, min <= max, ordered curve keys, list and string sizes);
// the specific one checks what spans fields (unique names, references, sheets, capacities).
#include "validate.h"

#include "json.h"
#include "reflect.h"

#include <mote/authoring/effect_json.h>
#include <mote/core/builtin_meshes.h>
#include <mote/core/builtin_sprites.h>
#include <mote/core/suggest.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>

namespace mote::authoring {
namespace {

using reflect::Domain;
using reflect::FieldInfo;

// A float as the file would spell it (shortest round-trip form).
std::string num(float v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return json::formatFloat(v);
}

// A bound: an integer when it is one ("1048576", not "1.048576e+06").
std::string bound(double v) {
  if (std::trunc(v) == v && std::fabs(v) < 1e19) {
    return v < 0 ? "-" + std::to_string(static_cast<std::uint64_t>(-v))
                 : std::to_string(static_cast<std::uint64_t>(v));
  }
  char buffer[32];
  const auto r = std::to_chars(buffer, buffer + sizeof buffer, v);
  return std::string(buffer, r.ptr);
}

class Validator {
 public:
  explicit Validator(std::vector<Diagnostic>& out) : out_(out) {}

  void run(const EffectDesc& effect, bool withLints) {
    reflect::Reflect<EffectDesc>::fields(*this, effect);
    checkEffect(effect);
    // Lints about a whole emitter only once the effect has no errors: while it is broken they
    // would drown the errors (a half-written emitter "never spawns").
    if (withLints && !hasErrors(out_)) out_.insert(out_.end(), lints_.begin(), lints_.end());
  }

  template <class T>
  void operator()(const T& member, const FieldInfo& info) {
    Scope scope(*this, info.key);
    check(member, info);
  }

 private:
  class Scope {
   public:
    Scope(Validator& v, std::string_view key) : v_(v), size_(v.pointer_.size()) {
      json::appendPointerSegment(v_.pointer_, key);
    }
    Scope(Validator& v, std::size_t index) : v_(v), size_(v.pointer_.size()) {
      v_.pointer_ += '/';
      v_.pointer_ += std::to_string(index);
    }
    ~Scope() { v_.pointer_.resize(size_); }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    Validator& v_;
    std::size_t size_;
  };

  void error(std::string message) {
    out_.push_back(Diagnostic{Severity::Error, pointer_, std::move(message), {}, 0, 0});
  }
  void warning(std::string message) {
    out_.push_back(Diagnostic{Severity::Warning, pointer_, std::move(message), {}, 0, 0});
  }

  // --- generic checks
  // ------------------------------------------------------------------------------

  void checkNumber(double v, const std::string& shown, const FieldInfo& info) {
    if (!std::isfinite(v)) {
      error("must be finite (got " + shown + ")");
    } else if (v < info.min) {
      error("must be >= " + bound(info.min) + " (got " + shown + ")");
    } else if (v > info.max) {
      error("must be <= " + bound(info.max) + " (got " + shown + ")");
    }
  }

  void check(bool, const FieldInfo&) {}

  void check(const std::string& s, const FieldInfo& info) {
    if (s.size() > info.maxLength) {
      error("is " + std::to_string(s.size()) + " bytes long; at most " +
            std::to_string(info.maxLength) + " are allowed");
    }
  }

  // Floats are compared in float with the bounds rounded to float, so a file that writes a bound
  // exactly ("0.001", "1e30") is within it. (Not as double((float)bound): GCC 12 -O2 drops that
  // round trip when it vectorises the pair of bounds.)
  void check(float v, const FieldInfo& info) {
    if (!std::isfinite(v)) {
      error("must be finite (got " + num(v) + ")");
    } else if (v < static_cast<float>(info.min)) {
      error("must be >= " + bound(info.min) + " (got " + num(v) + ")");
    } else if (v > static_cast<float>(info.max)) {
      error("must be <= " + bound(info.max) + " (got " + num(v) + ")");
    }
  }

  template <class Int>
  requires std::is_integral_v<Int>
  void check(Int v, const FieldInfo& info) {
    checkNumber(static_cast<double>(v), std::to_string(v), info);
  }

  template <reflect::ReflectedEnum E>
  void check(E v, const FieldInfo&) {
    if (reflect::enumName(v).empty()) error("is not a valid value");
  }

  template <std::size_t N>
  void check(const std::array<float, N>& v, const FieldInfo& info) {
    for (std::size_t i = 0; i < N; ++i) {
      Scope scope(*this, i);
      check(v[i], info);
    }
  }

  bool checkCount(std::size_t count, const FieldInfo& info) {
    if (info.maxItems > 0 && count > info.maxItems) {
      error("has " + std::to_string(count) + " items; at most " + std::to_string(info.maxItems) +
            " are allowed");
      return false;
    }
    return true;
  }

  void check(const std::vector<float>& v, const FieldInfo& info) {
    if (!checkCount(v.size(), info)) return;
    for (std::size_t i = 0; i < v.size(); ++i) {
      Scope scope(*this, i);
      check(v[i], info);
    }
  }

  // The writer's short form is a number when min == max, [min, max] otherwise.
  void check(const Range& r, const FieldInfo& info) {
    if (r.min == r.max) {
      check(r.min, info);
      return;
    }
    {
      Scope scope(*this, std::size_t{0});
      check(r.min, info);
    }
    {
      Scope scope(*this, std::size_t{1});
      check(r.max, info);
    }
    if (r.min > r.max) error("min " + num(r.min) + " is greater than max " + num(r.max));
  }

  void check(const ScalarParam& p, const FieldInfo& info) {
    if (p.overEmitterTime.keys.empty() && p.rangeScaleOverEmitterTime.keys.empty()) {
      check(p.range, info);
      return;
    }
    // With a curve the range is a jitter added to it: the field's bounds apply to the curve's
    // values (the runtime clamps the sum), the jitter need only be finite and ordered, and its
    // scale's keys finite and within ±1e5.
    {
      Scope scope(*this, "range");
      check(p.range, FieldInfo{});
    }
    {
      Scope scope(*this, "over_emitter_time");
      check(p.overEmitterTime, FieldInfo{.key = {},
                                         .doc = {},
                                         .min = info.min,
                                         .max = info.max,
                                         .domain = Domain::EmitterTime,
                                         .maxItems = kMaxCurveKeys});
    }
    Scope scope(*this, "range_scale_over_emitter_time");
    check(p.rangeScaleOverEmitterTime, FieldInfo{.key = {},
                                                 .doc = {},
                                                 .min = -1e5,
                                                 .max = 1e5,
                                                 .domain = Domain::EmitterTime,
                                                 .maxItems = kMaxCurveKeys});
  }

  void check(const ColorParam& p, const FieldInfo& info) {
    if (p.overEmitterTime.keys.empty() && p.a == p.b) {
      checkColor(p.a, info);
      return;
    }
    reflect::Reflect<ColorParam>::fields(*this, p);
  }

  void checkColor(const Rgba& c, const FieldInfo&) {
    for (std::size_t i = 0; i < 4; ++i) {
      Scope scope(*this, i);
      check(c[i], FieldInfo{.key = {}, .doc = {}, .min = 0.0});
    }
  }

  void checkKeyTime(float time, float previous, std::size_t index, Domain domain) {
    if (!std::isfinite(time)) {
      error("key time must be finite (got " + num(time) + ")");
    } else if (index > 0 && time < previous) {
      error("key time " + num(time) + " is before the previous key's " + num(previous) +
            " (keys must be in time order)");
    } else if (domain == Domain::OverLife && (time < 0.0f || time > 1.0f)) {
      error("over-life key time must be in [0, 1] (got " + num(time) + ")");
    } else if (domain == Domain::EmitterTime && time < 0.0f) {
      error("emitter-time key time must be >= 0 (got " + num(time) + ")");
    } else if (domain == Domain::EffectTime && time < 0.0f) {
      error("effect-time key time must be >= 0 (got " + num(time) + ")");
    }
  }

  void check(const std::vector<CurveKey>& keys, const FieldInfo& info) {
    if (!checkCount(keys.size(), info)) return;
    for (std::size_t i = 0; i < keys.size(); ++i) {
      Scope scope(*this, i);
      checkKeyTime(keys[i].time, i > 0 ? keys[i - 1].time : 0.0f, i, domain_);
      Scope value(*this, std::size_t{1});
      check(keys[i].value, valueBounds_);
    }
  }

  void check(const std::vector<GradientKey>& keys, const FieldInfo& info) {
    if (!checkCount(keys.size(), info)) return;
    for (std::size_t i = 0; i < keys.size(); ++i) {
      Scope scope(*this, i);
      checkKeyTime(keys[i].time, i > 0 ? keys[i - 1].time : 0.0f, i, domain_);
      Scope color(*this, std::size_t{1});
      checkColor(keys[i].color, info);
    }
  }

  void check(const std::vector<Vec3Key>& keys, const FieldInfo& info) {
    if (!checkCount(keys.size(), info)) return;
    const FieldInfo bounds{.key = {}, .doc = {}, .min = info.min, .max = info.max};
    for (std::size_t i = 0; i < keys.size(); ++i) {
      Scope scope(*this, i);
      checkKeyTime(keys[i].time, i > 0 ? keys[i - 1].time : 0.0f, i, info.domain);
      Scope value(*this, std::size_t{1});
      check(keys[i].value, bounds);
    }
  }

  // Curves and gradients pass their field's domain down to their keys.
  template <class C>
  requires std::is_same_v<C, Curve> || std::is_same_v<C, Gradient>
  void check(const C& curve, const FieldInfo& info) {
    const Domain saved = std::exchange(domain_, info.domain);
    const FieldInfo savedBounds = std::exchange(
        valueBounds_, FieldInfo{.key = {}, .doc = {}, .min = info.min, .max = info.max});
    if (info.required && curve.keys.empty()) {
      Scope scope(*this, "keys");
      error("needs at least one key");
    }
    reflect::Reflect<C>::fields(*this, curve);
    valueBounds_ = savedBounds;
    domain_ = saved;
  }

  template <reflect::ReflectedStruct T>
  requires(!std::is_same_v<T, Curve> && !std::is_same_v<T, Gradient>) void check(const T& s,
                                                                                 const FieldInfo&) {
    reflect::Reflect<T>::fields(*this, s);
  }

  template <reflect::ReflectedStruct T>
  void check(const std::vector<T>& items, const FieldInfo& info) {
    if (!checkCount(items.size(), info)) return;
    for (std::size_t i = 0; i < items.size(); ++i) {
      Scope scope(*this, i);
      check(items[i], info);
    }
  }

  template <reflect::ModuleVariant M>
  void check(const std::vector<M>& modules, const FieldInfo& info) {
    if (!checkCount(modules.size(), info)) return;
    for (std::size_t i = 0; i < modules.size(); ++i) {
      Scope scope(*this, i);
      std::visit([&](const auto& m) { check(m, info); }, modules[i]);
    }
  }

  template <class V>
  void check(const std::map<std::string, V>& m, const FieldInfo& info) {
    if (info.maxItems > 0 && m.size() > info.maxItems) {
      error("has " + std::to_string(m.size()) + " entries; at most " +
            std::to_string(info.maxItems) + " are allowed");
      return;
    }
    for (const auto& [key, value] : m) {
      Scope scope(*this, key);
      if (key.empty()) error("an empty name");
      if constexpr (std::is_same_v<V, std::vector<float>>) {
        check(value,
              FieldInfo{.key = {}, .doc = {}, .min = info.min, .max = info.max, .maxItems = 16});
      }
    }
  }

  // --- cross-field checks
  // --------------------------------------------------------------------------

  static bool isIdentifier(const std::string& s) {
    if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
    for (const char c : s) {
      const bool ok =
          (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
      if (!ok) return false;
    }
    return true;
  }

  static std::uint32_t components(FieldType type) { return static_cast<std::uint32_t>(type) + 1; }

  // Unique, non-empty names across a list; `identifier` also asks for [A-Za-z_][A-Za-z0-9_]*.
  template <class T, class NameOf>
  void checkNames(std::string_view listKey, const std::vector<T>& items, NameOf nameOf,
                  std::string_view nameKey, bool identifier) {
    Scope list(*this, listKey);
    std::set<std::string_view> seen;
    for (std::size_t i = 0; i < items.size(); ++i) {
      Scope item(*this, i);
      Scope field(*this, nameKey);
      const std::string& name = nameOf(items[i]);
      if (name.empty()) {
        error("must not be empty");
      } else if (identifier && !isIdentifier(name)) {
        error("\"" + name +
              "\" is not a valid field name (letters, digits and _, not starting "
              "with a digit)");
      } else if (!seen.insert(name).second) {
        error("duplicate name \"" + name + "\"");
      }
    }
  }

  void checkFieldDecls(std::string_view listKey, const std::vector<FieldDecl>& fields) {
    checkNames(
        listKey, fields, [](const FieldDecl& f) -> const std::string& { return f.name; }, "name",
        true);
    Scope list(*this, listKey);
    for (std::size_t i = 0; i < fields.size(); ++i) {
      Scope item(*this, i);
      const std::size_t n = fields[i].value.size();
      if (n != 0 && n != components(fields[i].type)) {
        Scope value(*this, "value");
        error("has " + std::to_string(n) + " numbers; a " +
              std::string(reflect::enumName(fields[i].type)) + " needs " +
              std::to_string(components(fields[i].type)));
      }
    }
  }

  // A name that must be one of `names`, with a suggestion when it is not.
  void checkReference(const std::string& name, const std::vector<std::string_view>& names,
                      std::string_view what) {
    for (const std::string_view n : names)
      if (n == name) return;
    std::string message = "no " + std::string(what) + " named \"" + name + "\"";
    const std::string_view suggestion = closestMatch(name, names);
    if (!suggestion.empty()) message += " (did you mean \"" + std::string(suggestion) + "\"?)";
    error(std::move(message));
  }

  // An emitter's or pivot's `parent` — empty, or one of the pivots listed before (`earlier`) — and
  // its motion, whose keys lie within a period.
  template <class T>
  void checkPlacement(const T& x, const std::vector<std::string_view>& earlier) {
    if (!x.parent.empty()) {
      Scope scope(*this, "parent");
      checkReference(x.parent, earlier, "pivot listed before it");
    }
    const Motion& motion = x.motion;
    if (!(motion.period > 0.0f)) return;
    for (const auto* track : {&motion.position, &motion.rotation}) {
      if (!track->empty() && track->back().time > motion.period) {
        Scope scope(*this, "motion");
        Scope list(*this, track == &motion.position ? "position" : "rotation");
        Scope last(*this, track->size() - 1);
        error("key time " + num(track->back().time) + " is beyond the motion's period " +
              num(motion.period) + " s");
      }
    }
  }

  // Names of vec3 fields a position_field/target_field may use.
  std::vector<std::string_view> vec3Fields(const EffectDesc& effect, const Emitter& e) const {
    std::vector<std::string_view> names;
    for (const FieldDecl& f : e.emitterFields)
      if (f.type == FieldType::Float3) names.push_back(f.name);
    for (const FieldDecl& f : effect.globalFields)
      if (f.type == FieldType::Float3) names.push_back(f.name);
    return names;
  }

  // The structure of a graph of emitter `e`: the INIT graph (`init`) or an UPDATE graph. A modules
  // node's modules are checked as the modules they are (INIT modules only in the INIT graph).
  void checkGraph(const NodeGraph& graph, const Emitter& e, bool init,
                  const std::vector<std::string_view>& positionFields,
                  const std::vector<std::string_view>& emitters) {
    checkNames(
        "nodes", graph.nodes, [](const GraphNode& n) -> const std::string& { return n.id; }, "id",
        false);
    std::vector<std::string_view> ids;
    for (const GraphNode& node : graph.nodes)
      ids.push_back(node.id);
    Scope list(*this, "nodes");
    for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
      Scope item(*this, i);
      const GraphNode& node = graph.nodes[i];
      if (node.op.empty()) {
        Scope op(*this, "op");
        error("must not be empty");
      }
      if (node.op == "modules" || !node.modules.empty()) {
        Scope modules(*this, "modules");
        if (node.op != "modules") {
          error("only a node with op \"modules\" holds modules (this one is \"" + node.op + "\")");
        } else if (node.modules.empty()) {
          error("a modules node needs at least one module");
        }
        for (std::size_t m = 0; m < node.modules.size(); ++m) {
          Scope module(*this, m);
          checkNodeModule(e, node.modules[m], init, positionFields, emitters);
        }
      }
      // A curve or gradient belongs to the node that evaluates it.
      for (const auto& [key, keys, op] :
           {std::tuple{"curve", node.curve.keys.size(), "curve"},
            std::tuple{"gradient", node.gradient.keys.size(), "gradient"}}) {
        if (node.op == op && keys == 0) {
          Scope member(*this, key);
          error(std::string("a ") + op + " node needs \"" + key + "\" with at least one key");
        } else if (node.op != op && keys != 0) {
          Scope member(*this, key);
          error(std::string("only a node with op \"") + op + "\" has a " + key +
                " (this one is \"" + node.op + "\")");
        }
      }
      Scope inputs(*this, "inputs");
      for (const auto& [port, source] : node.inputs) {
        Scope input(*this, port);
        const std::string from = source.substr(0, source.find('.'));
        if (from.empty()) {
          error("must name a node output: \"node\" or \"node.port\"");
        } else {
          checkReference(from, ids, "node");
        }
      }
    }
  }

  void checkNodeModule(const Emitter& e, const NodeModule& m, bool init,
                       const std::vector<std::string_view>& positionFields,
                       const std::vector<std::string_view>& emitters) {
    const std::string_view type = std::visit([](const auto& x) { return x.kType; }, m);
    UpdateModule update;
    InitModule initModule;
    if (const UpdateModule* u = moduleAs(m, update)) {
      if (init) {
        Scope t(*this, "type");
        error("\"" + std::string(type) +
              "\" is an update module; the INIT graph's modules nodes hold INIT modules");
      } else if (std::holds_alternative<GraphModule>(*u)) {
        Scope t(*this, "type");
        error("a modules node cannot hold a graph module (graphs do not nest)");
      } else {
        checkUpdateModule(e, *u, positionFields, emitters);
      }
    } else if (const InitModule* in = moduleAs(m, initModule)) {
      if (!init) {
        Scope t(*this, "type");
        error("\"" + std::string(type) +
              "\" is an INIT module; it belongs in a modules node of init.graph");
      } else {
        checkInitModule(e, *in);
      }
    }
  }

  // The semantic checks of one INIT module of a modules node (those of the init members it
  // stands for).
  void checkInitModule(const Emitter& e, const InitModule& m) {
    if (const auto* v = std::get_if<InitVelocityModule>(&m)) checkVelocity(v->velocity);
    if (const auto* o = std::get_if<InitOrientationModule>(&m); o != nullptr && !o->random)
      checkDirection(o->axis, "axis");
    if (const auto* s = std::get_if<InitShapeModule>(&m)) checkShape(s->shape);
    if (const auto* f = std::get_if<InitFieldModule>(&m)) checkFieldInit(e, f->value);
  }

  void checkVelocity(const InitVelocity& v) {
    if (v.kind == VelocityKind::Cone || v.kind == VelocityKind::Direction)
      checkDirection(v.direction, "direction");
    if (v.kind != VelocityKind::Cone && !v.spreadOverEmitterTime.keys.empty()) {
      Scope spread(*this, "spread_over_emitter_time");
      warning("ignored: the velocity is not a cone");
    }
  }

  void checkShape(const SpawnShape& shape) {
    if (shape.innerRadius > shape.radius) {
      Scope inner(*this, "inner_radius");
      error("inner_radius " + num(shape.innerRadius) + " is greater than radius " +
            num(shape.radius));
    }
    if (shape.kind != ShapeKind::Rect && shape.kind != ShapeKind::Box &&
        !shape.sizeOverEmitterTime.empty()) {
      Scope size(*this, "size_over_emitter_time");
      warning("ignored: the shape is neither rect nor box");
    }
  }

  void checkFieldInit(const Emitter& e, const FieldInit& init) {
    const FieldDecl* decl = nullptr;
    for (const FieldDecl& f : e.particleFields)
      if (f.name == init.field) decl = &f;
    if (decl == nullptr) {
      std::vector<std::string_view> particleFields;
      for (const FieldDecl& f : e.particleFields)
        particleFields.push_back(f.name);
      Scope field(*this, "field");
      checkReference(init.field, particleFields, "particle field");
      return;
    }
    const std::uint32_t n = components(decl->type);
    if (init.min.size() != n) {
      Scope min(*this, "min");
      error("has " + std::to_string(init.min.size()) + " numbers; field \"" + init.field +
            "\" has " + std::to_string(n));
    }
    if (!init.max.empty() && init.max.size() != n) {
      Scope max(*this, "max");
      error("has " + std::to_string(init.max.size()) + " numbers; field \"" + init.field +
            "\" has " + std::to_string(n));
    }
    if (init.max.size() == init.min.size()) {
      for (std::size_t c = 0; c < init.min.size(); ++c) {
        if (init.min[c] > init.max[c]) {
          Scope max(*this, "max");
          Scope comp(*this, c);
          error("max " + num(init.max[c]) + " is less than min " + num(init.min[c]));
        }
      }
    }
  }

  // The semantic checks of an update list.
  void checkUpdateModules(const Emitter& e, const std::vector<UpdateModule>& modules,
                          const std::vector<std::string_view>& positionFields,
                          const std::vector<std::string_view>& emitters) {
    for (std::size_t i = 0; i < modules.size(); ++i) {
      Scope item(*this, i);
      checkUpdateModule(e, modules[i], positionFields, emitters);
    }
  }

  void checkUpdateModule(const Emitter& e, const UpdateModule& m,
                         const std::vector<std::string_view>& positionFields,
                         const std::vector<std::string_view>& emitters) {
    const auto positionField = [&](const std::string& name) {
      if (name.empty()) return;
      Scope field(*this, "position_field");
      checkReference(name, positionFields, "vec3 emitter or global field");
    };
    if (const auto* a = std::get_if<AttractorModule>(&m)) positionField(a->positionField);
    if (const auto* v = std::get_if<VortexModule>(&m)) checkDirection(v->axis, "axis");
    if (const auto* k = std::get_if<KillModule>(&m);
        k != nullptr && k->condition == KillCondition::Plane) {
      checkDirection(k->normal, "normal");
    }
    if (const auto* t = std::get_if<TargetModule>(&m)) positionField(t->positionField);
    if (const auto* c = std::get_if<CollisionModule>(&m)) {
      {
        Scope colliders(*this, "colliders");
        if (c->colliders.empty()) error("needs at least one collider");
        for (std::size_t j = 0; j < c->colliders.size(); ++j) {
          if (c->colliders[j].kind != ColliderKind::Plane) continue;
          Scope collider(*this, j);
          checkDirection(c->colliders[j].normal, "normal");
        }
      }
      if (!c->spawnEmitter.empty()) {
        Scope spawn(*this, "spawn_emitter");
        if (c->spawnEmitter == e.name) {
          error("an emitter cannot spawn into itself");
        } else {
          checkReference(c->spawnEmitter, emitters, "emitter");
        }
      }
      if (!c->bounceOverEmitterTime.keys.empty() && c->response != CollisionResponse::Bounce) {
        Scope bounce(*this, "bounce_over_emitter_time");
        warning("ignored: the response is not bounce");
      }
    }
    if (const auto* g = std::get_if<GraphModule>(&m)) {
      Scope graph(*this, "graph");
      if (g->graph.nodes.empty()) {
        Scope nodes(*this, "nodes");
        error("needs at least one node");
      }
      checkGraph(g->graph, e, false, positionFields, emitters);
    }
  }

  void checkSheet(const SpriteSheet& sheet) {
    if (sheet.columns < 1 || sheet.rows < 1) return;  // already an error of its own
    const std::uint64_t cells = std::uint64_t{sheet.columns} * sheet.rows;
    Scope s(*this, "sheet");
    if (!sheet.fpsOverEmitterTime.keys.empty() && sheet.playback != SheetPlayback::Fps) {
      Scope fps(*this, "fps_over_emitter_time");
      warning("ignored: the sheet plays over life, not at a frame rate");
    }
    if (cells == 1) {
      for (const auto& [curve, key] :
           {std::pair{&sheet.frameBeginOverEmitterTime, "frame_begin_over_emitter_time"},
            std::pair{&sheet.frameEndOverEmitterTime, "frame_end_over_emitter_time"}}) {
        if (curve->keys.empty()) continue;
        Scope f(*this, key);
        warning("ignored: a one-cell sheet has one frame");
      }
    }
    if (sheet.frameBegin >= cells) {
      Scope f(*this, "frame_begin");
      error("frame " + std::to_string(sheet.frameBegin) + " is outside the " +
            std::to_string(cells) + "-cell sheet");
    }
    if (sheet.frameEnd >= 0) {
      Scope f(*this, "frame_end");
      if (static_cast<std::uint64_t>(sheet.frameEnd) >= cells) {
        error("frame " + std::to_string(sheet.frameEnd) + " is outside the " +
              std::to_string(cells) + "-cell sheet");
      } else if (static_cast<std::uint32_t>(sheet.frameEnd) < sheet.frameBegin) {
        error("frame_end " + std::to_string(sheet.frameEnd) + " is before frame_begin " +
              std::to_string(sheet.frameBegin));
      }
    }
  }

  void checkTexture(const std::string& texture) {
    Scope t(*this, "texture");
    if (texture.empty()) return;  // none: the soft circle for sprites, untextured meshes
    checkBuiltinName(texture, kBuiltinSpriteNames, "sprite");  // a file: the renderer opens it
  }

  // A "builtin:<name>" URI must name one of `names`; anything else is a file path.
  void checkBuiltinName(const std::string& uri, std::span<const std::string_view> names,
                        std::string_view kind) {
    if (!uri.starts_with(kBuiltinSpriteUriPrefix)) return;
    const std::string_view name = std::string_view(uri).substr(kBuiltinSpriteUriPrefix.size());
    for (const std::string_view n : names)
      if (n == name) return;
    std::string message = "unknown built-in " + std::string(kind) + " \"" + uri + "\"";
    const std::string_view suggestion = closestMatch(name, names);
    if (!suggestion.empty()) {
      message += " (did you mean \"";
      message += kBuiltinSpriteUriPrefix;
      message += suggestion;
      message += "\"?)";
    }
    error(std::move(message));
  }

  // A direction the runtime normalises must not be the zero vector.
  void checkDirection(const Vec3& v, std::string_view key) {
    if (v[0] == 0.0f && v[1] == 0.0f && v[2] == 0.0f) {
      Scope scope(*this, key);
      error("must not be [0, 0, 0] (it is a direction)");
    }
  }

  // True when some collision module of the effect spawns into the emitter named `name`.
  static bool isSpawnTarget(const EffectDesc& effect, const std::string& name) {
    bool target = false;
    for (const Emitter& e : effect.emitters) {
      forEachUpdateModule(e.update, [&](const UpdateModule& m) {
        if (const auto* c = std::get_if<CollisionModule>(&m))
          target = target || c->spawnEmitter == name;
      });
      for (const ParticleEvent& event : e.events)
        target = target || event.spawn == name;
    }
    return target;
  }

  // What an event or a trail passes that its target's update modules overwrite every tick: a
  // colour or size over-life curve in set mode.
  void checkInheritance(const EffectDesc& effect, const std::string& targetName, bool inheritColor,
                        bool inheritSize) {
    const auto target = std::find_if(effect.emitters.begin(), effect.emitters.end(),
                                     [&](const Emitter& t) { return t.name == targetName; });
    if (target == effect.emitters.end()) return;
    bool setsColor = false;
    bool setsSize = false;
    forEachUpdateModule(target->update, [&](const UpdateModule& m) {
      if (const auto* c = std::get_if<ColorOverLifeModule>(&m))
        setsColor = setsColor || c->mode == CurveMode::Set;
      if (const auto* s = std::get_if<SizeOverLifeModule>(&m))
        setsSize = setsSize || s->mode == CurveMode::Set;
    });
    if (inheritColor && setsColor) {
      Scope key(*this, "inherit_color");
      warning("lost: " + targetName +
              "'s color_over_life sets the colour every tick (use mode multiply to keep it)");
    }
    if (inheritSize && setsSize) {
      Scope key(*this, "inherit_size");
      warning("lost: " + targetName +
              "'s size_over_life sets the size every tick (use mode multiply to keep it)");
    }
  }

  // An emitter's particle events: each names another emitter (or only reports); a collision event
  // needs a collision module to fire.
  void checkParticleEvents(const EffectDesc& effect, const Emitter& e,
                           const std::vector<std::string_view>& emitters) {
    if (e.events.empty()) return;
    Scope events(*this, "events");
    bool collides = false;
    forEachUpdateModule(e.update, [&](const UpdateModule& m) {
      collides = collides || std::holds_alternative<CollisionModule>(m);
    });
    for (std::size_t i = 0; i < e.events.size(); ++i) {
      const ParticleEvent& event = e.events[i];
      Scope at(*this, i);
      if (event.on == ParticleEventKind::Collision && !collides) {
        Scope on(*this, "on");
        warning("ignored: the emitter has no collision module");
      }
      checkInheritance(effect, event.spawn, event.inheritColor, event.inheritSize);
      Scope spawn(*this, "spawn");
      if (event.spawn.empty()) {
        if (!event.report) error("names no emitter (and the event does not report)");
      } else if (event.spawn == e.name) {
        error("an emitter cannot spawn into itself");
      } else {
        checkReference(event.spawn, emitters, "emitter");
      }
    }
  }

  // An emitter whose spawn source is another's particles (a trail): a continuous rate per second
  // or per metre, no schedule of its own (checkEmitter: simulated in world space).
  void checkTrail(const EffectDesc& effect, const Emitter& e,
                  const std::vector<std::string_view>& emitters) {
    const Emission& s = e.spawn;
    {
      Scope source(*this, "source");
      if (s.source == e.name) {
        error("an emitter cannot be its own trail source");
      } else {
        checkReference(s.source, emitters, "emitter");
      }
      // Its particles carry their source particles' ids: nothing else may spawn into it.
      if (isSpawnTarget(effect, e.name))
        error(
            "a particle event or collision spawns into this trail; only its source's particles "
            "may");
    }
    checkInheritance(effect, e.name, s.inheritColor, s.inheritSize);
    const Emission plain;
    const auto notWith = [&](bool set, std::string_view key) {
      if (!set) return;
      Scope at(*this, key);
      error("a trail (spawn.source) takes rate and metric only: its source's particles emit it");
    };
    notWith(s.mode != EmissionMode::Continuous, "mode");
    notWith(!s.rateOverTime.keys.empty(), "rate_over_time");
    notWith(!s.bursts.empty(), "bursts");
    notWith(s.delay != plain.delay, "delay");
    notWith(s.duration != plain.duration, "duration");
    notWith(s.loop, "loop");
  }

  void checkEmitter(const EffectDesc& effect, const Emitter& e,
                    const std::vector<std::string_view>& materials,
                    const std::vector<std::string_view>& emitters) {
    if (!e.material.empty()) {
      Scope m(*this, "material");
      checkReference(e.material, materials, "material");
    }
    checkFieldDecls("particle_fields", e.particleFields);
    checkFieldDecls("emitter_fields", e.emitterFields);
    checkParticleEvents(effect, e, emitters);
    const std::vector<std::string_view> positionFields = vec3Fields(effect, e);
    if (!e.spawn.source.empty() && e.space != SimulationSpace::World) {
      Scope space(*this, "space");
      error("a trail (spawn.source) simulates in world space: it is laid along its source's path");
    }

    {
      Scope spawn(*this, "spawn");
      if (!e.spawn.source.empty()) checkTrail(effect, e, emitters);
      if (e.spawn.source.empty() &&
          (e.spawn.inheritVelocity != 0.0f || e.spawn.inheritColor || e.spawn.inheritSize)) {
        warning("ignored: inherit_* apply to a trail (spawn.source)");
      }
      if (e.spawn.metric == SpawnMetric::PerDistance && e.spawn.mode != EmissionMode::Continuous) {
        Scope metric(*this, "metric");
        error("per_distance applies to continuous emission only");
      }
      if (!e.spawn.eventTimes.empty() && e.spawn.mode != EmissionMode::EventBurst) {
        Scope times(*this, "event_times");
        warning("ignored: the emitter is not event_burst");
      }
      if (e.spawn.eventName != Emission{}.eventName && e.spawn.mode != EmissionMode::EventBurst) {
        Scope name(*this, "event_name");
        warning("ignored: the emitter is not event_burst");
      }
      if (e.spawn.loop && e.spawn.duration == 0.0f) {
        Scope loop(*this, "loop");
        error("loop needs a duration > 0 (the period it repeats)");
      }
      // (A negative or non-finite rate is an error of its own.)
      const bool hasRate =
          !(e.spawn.rate <= 0.0f) || e.spawn.rate < 0.0f || !e.spawn.rateOverTime.keys.empty();
      const bool hasEvents = e.spawn.mode == EmissionMode::EventBurst;  // host events may fire it
      if (!hasRate && e.spawn.bursts.empty() && !hasEvents && !isSpawnTarget(effect, e.name)) {
        lint(
            "the emitter never spawns (rate 0, no rate_over_time, no bursts, no collision "
            "spawns into it)");
      }
      for (std::size_t i = 1; i < e.spawn.eventTimes.size(); ++i) {
        if (e.spawn.eventTimes[i] < e.spawn.eventTimes[i - 1]) {
          Scope times(*this, "event_times");
          Scope item(*this, i);
          error("event times must be in order");
          break;
        }
      }
    }
    {
      Scope init(*this, "init");
      {
        Scope velocity(*this, "velocity");
        checkVelocity(e.init.velocity);
      }
      if (!e.init.randomOrientation) checkDirection(e.init.orientationAxis, "orientation_axis");
      {
        Scope list(*this, "fields");
        for (std::size_t i = 0; i < e.init.fields.size(); ++i) {
          Scope item(*this, i);
          checkFieldInit(e, e.init.fields[i]);
        }
      }
      if (!e.init.graph.nodes.empty()) {
        Scope graph(*this, "graph");
        checkGraph(e.init.graph, e, true, positionFields, emitters);
      }
    }
    {
      Scope shape(*this, "shape");
      checkShape(e.shape);
    }
    {
      Scope update(*this, "update");
      checkUpdateModules(e, e.update, positionFields, emitters);
    }
    {
      Scope render(*this, "render");
      if (e.render.mode == RenderMode::Mesh && e.render.mesh.empty()) {
        Scope mesh(*this, "mesh");
        error("mesh mode needs a mesh name");
      } else if (!e.render.mesh.empty()) {
        Scope mesh(*this, "mesh");
        checkBuiltinName(e.render.mesh, kBuiltinMeshNames, "mesh");
      }
      if (!e.render.beam.targetField.empty()) {
        Scope beam(*this, "beam");
        Scope field(*this, "target_field");
        checkReference(e.render.beam.targetField, positionFields, "vec3 emitter or global field");
      }
      if ((e.render.mode == RenderMode::Beam) != (e.spawn.mode == EmissionMode::BeamContinuous)) {
        Scope mode(*this, "mode");
        warning("beam rendering and beam_continuous emission are meant to go together");
      }
    }
  }

  void lint(std::string message) {
    lints_.push_back(Diagnostic{Severity::Warning, pointer_, std::move(message), {}, 0, 0});
  }

  void checkEffect(const EffectDesc& effect) {
    if (effect.emitters.empty()) {
      Scope emitters(*this, "emitters");
      error("an effect needs at least one emitter");
    }
    checkFieldDecls("global_fields", effect.globalFields);
    checkNames(
        "materials", effect.materials,
        [](const Material& m) -> const std::string& { return m.name; }, "name", false);
    checkNames(
        "emitters", effect.emitters, [](const Emitter& e) -> const std::string& { return e.name; },
        "name", false);
    std::vector<std::string_view> materials;
    {
      Scope list(*this, "materials");
      for (std::size_t i = 0; i < effect.materials.size(); ++i) {
        Scope item(*this, i);
        materials.push_back(effect.materials[i].name);
        checkTexture(effect.materials[i].texture);
        checkSheet(effect.materials[i].sheet);
      }
    }
    checkNames(
        "pivots", effect.pivots, [](const Pivot& p) -> const std::string& { return p.name; },
        "name", false);
    std::vector<std::string_view> pivots;
    {
      Scope list(*this, "pivots");
      for (std::size_t i = 0; i < effect.pivots.size(); ++i) {
        Scope item(*this, i);
        checkPlacement(effect.pivots[i], pivots);
        pivots.push_back(effect.pivots[i].name);
      }
    }
    std::vector<std::string_view> emitters;
    for (const Emitter& e : effect.emitters)
      emitters.push_back(e.name);
    std::uint64_t total = 0;
    Scope list(*this, "emitters");
    for (std::size_t i = 0; i < effect.emitters.size(); ++i) {
      Scope item(*this, i);
      checkPlacement(effect.emitters[i], pivots);
      checkEmitter(effect, effect.emitters[i], materials, emitters);
      total += effect.emitters[i].maxParticles;
    }
    if (total > kMaxParticlesPerEffect) {
      error("the emitters' max_particles add up to " + std::to_string(total) + "; at most " +
            std::to_string(kMaxParticlesPerEffect) + " per effect");
    }
  }

  std::vector<Diagnostic>& out_;
  std::string pointer_;
  Domain domain_ = Domain::None;
  FieldInfo valueBounds_;  // bounds of the current curve's values
  std::vector<Diagnostic> lints_;
};

}  // namespace

std::vector<Diagnostic> validateEffect(const EffectDesc& effect, bool withLints) {
  std::vector<Diagnostic> out;
  Validator(out).run(effect, withLints);
  return out;
}

std::vector<Diagnostic> validateEffect(const EffectDesc& effect) {
  return validateEffect(effect, true);
}

}  // namespace mote::authoring
