// SPDX-License-Identifier: MIT
// The .motefx binary format (docs/motefx.md): a 32-byte header — magic, version, flags, payload
// size, XXH3-64 of the payload — then the payload, a fixed sequence of little-endian fields. Each
// struct's layout is written once, as a function that visits its fields in file order with a
// visitor that writes them (Writer), reads them with bounds checks (Reader) or sums their smallest
// encoded size (MinBytes); older layouts are read the same way and upgraded one step at a time.
#include <mote/bytecode/compiled_effect.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <array>
#include <bit>
#include <cmath>
#include <concepts>
#include <cstring>
#include <string>
#include <type_traits>

namespace mote::bytecode {
namespace {

constexpr std::uint32_t kMaxNames = 1u << 16;  // bytes per string
constexpr std::uint32_t kMaxEmittersInFile = 256;
constexpr std::uint32_t kMaxMaterialsInFile = 256;
constexpr std::uint32_t kMaxListItems = 1u << 16;
constexpr std::size_t kHeaderBytes = 32;

// `M` is `T` or `const T` (the writer visits const values, the reader mutable ones).
template <class M, class T>
concept Of = std::same_as<std::remove_const_t<M>, T>;

// -------------------------------------------------------------------------------------------------
// The visitors. Each has field(value, what) for every scalar type of the format and
// list(items, what, limit, visitItem) for a u32 count followed by the items; `what` names the
// value in the reader's errors.

/// The smallest number of bytes a value can take (strings and lists empty): with it, the reader
/// refuses a count whose items cannot fit in the bytes left before it allocates anything.
struct MinBytes {
  std::size_t bytes = 0;
  void field(const bool&, const char*) { bytes += 1; }
  void field(const std::uint32_t&, const char*) { bytes += 4; }
  void field(const std::int32_t&, const char*) { bytes += 4; }
  void field(const std::uint64_t&, const char*) { bytes += 8; }
  void field(const float&, const char*) { bytes += 4; }
  void field(const std::string&, const char*) { bytes += 4; }
  template <std::size_t N>
  void field(const std::array<float, N>&, const char*) {
    bytes += 4 * N;
  }
  template <class E>
  requires std::is_enum_v<E>
  void field(const E&, const char*) { bytes += 1; }
  template <class T, class Fn>
  void list(const std::vector<T>&, const char*, std::uint32_t, Fn&&) {
    bytes += 4;
  }
};

template <class T, class Fn>
std::size_t minItemBytes(Fn& visitItem) {
  MinBytes counter;
  T item{};
  visitItem(counter, item);
  return counter.bytes;
}

class Writer {
 public:
  std::vector<std::uint8_t> bytes;

  void u32(std::uint32_t v) {
    for (int i = 0; i < 4; ++i)
      bytes.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
  }
  void u64(std::uint64_t v) {
    u32(static_cast<std::uint32_t>(v));
    u32(static_cast<std::uint32_t>(v >> 32));
  }

  void field(const bool& v, const char*) { bytes.push_back(v ? 1 : 0); }
  void field(const std::uint32_t& v, const char*) { u32(v); }
  void field(const std::int32_t& v, const char*) { u32(static_cast<std::uint32_t>(v)); }
  void field(const std::uint64_t& v, const char*) { u64(v); }
  void field(const float& v, const char*) { u32(std::bit_cast<std::uint32_t>(v)); }
  void field(const std::string& s, const char*) {
    u32(static_cast<std::uint32_t>(s.size()));
    bytes.insert(bytes.end(), s.begin(), s.end());
  }
  template <std::size_t N>
  void field(const std::array<float, N>& a, const char* what) {
    for (const float& v : a)
      field(v, what);
  }
  template <class E>
  requires std::is_enum_v<E>
  void field(const E& e, const char*) { bytes.push_back(static_cast<std::uint8_t>(e)); }
  template <class T, class Fn>
  void list(const std::vector<T>& items, const char*, std::uint32_t, Fn&& visitItem) {
    u32(static_cast<std::uint32_t>(items.size()));
    for (const T& item : items)
      visitItem(*this, item);
  }
};

class Reader {
 public:
  explicit Reader(std::span<const std::uint8_t> bytes, std::size_t base)
      : bytes_(bytes), base_(base) {}

  const Status& status() const { return status_; }
  bool ok() const { return status_.ok(); }
  bool atEnd() const { return at_ == bytes_.size(); }
  std::size_t offset() const { return base_ + at_; }

  std::uint32_t u32(const char* what) {
    if (!need(4, what)) return 0;
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i)
      v |= std::uint32_t{bytes_[at_ + static_cast<std::size_t>(i)]} << (8 * i);
    at_ += 4;
    return v;
  }
  std::uint64_t u64(const char* what) {
    const std::uint64_t lo = u32(what);
    return lo | std::uint64_t{u32(what)} << 32;
  }

  void field(bool& v, const char* what) {
    const std::size_t start = at_;
    const std::uint8_t b = u8(what);
    if (b > 1) failAt(start, std::string(what) + ": not a boolean (" + std::to_string(b) + ")");
    v = b == 1;
  }
  void field(std::uint32_t& v, const char* what) { v = u32(what); }
  void field(std::int32_t& v, const char* what) { v = static_cast<std::int32_t>(u32(what)); }
  void field(std::uint64_t& v, const char* what) { v = u64(what); }
  void field(float& v, const char* what) { v = std::bit_cast<float>(u32(what)); }
  void field(std::string& s, const char* what) {
    const std::uint32_t n = count(what, kMaxNames, 1);
    if (!ok()) return;
    s.assign(reinterpret_cast<const char*>(bytes_.data() + at_), n);
    at_ += n;
  }
  template <std::size_t N>
  void field(std::array<float, N>& a, const char* what) {
    for (float& v : a)
      field(v, what);
  }
  /// Enumerators are numbered 0..enumeratorCount-1 (mote/core/effect_enums.h).
  template <class E>
  requires std::is_enum_v<E>
  void field(E& e, const char* what) {
    const std::uint8_t count = enumeratorCount(E{});
    const std::size_t start = at_;
    const std::uint8_t v = u8(what);
    if (v >= count)
      failAt(start, std::string(what) + ": value " + std::to_string(v) + " out of range");
    e = static_cast<E>(v < count ? v : 0);
  }
  template <class T, class Fn>
  void list(std::vector<T>& items, const char* what, std::uint32_t limit, Fn&& visitItem) {
    const std::uint32_t n = count(what, limit, minItemBytes<T>(visitItem));
    items.reserve(n);  // count() bounds n by the bytes left
    for (std::uint32_t i = 0; i < n && ok(); ++i) {
      T item{};
      visitItem(*this, item);
      items.push_back(std::move(item));
    }
  }

 private:
  void failAt(std::size_t at, const std::string& what) {
    if (status_.ok()) status_ = parseError("offset " + std::to_string(base_ + at) + ": " + what);
  }
  bool need(std::size_t n, const char* what) {
    if (!ok()) return false;
    if (bytes_.size() - at_ < n) {
      failAt(at_, std::string("truncated ") + what);
      return false;
    }
    return true;
  }
  std::uint8_t u8(const char* what) {
    if (!need(1, what)) return 0;
    return bytes_[at_++];
  }
  /// A count of items of at least `minItemBytes` each, bounded by `limit` and what is left.
  std::uint32_t count(const char* what, std::uint32_t limit, std::size_t minItemBytes) {
    const std::size_t start = at_;
    const std::uint32_t n = u32(what);
    if (!ok()) return 0;
    if (n > limit) {
      failAt(start, std::string(what) + ": " + std::to_string(n) + " items; at most " +
                        std::to_string(limit));
      return 0;
    }
    if (minItemBytes > 0 && n > (bytes_.size() - at_) / minItemBytes) {
      failAt(start, std::string("truncated ") + what);
      return 0;
    }
    return n;
  }

  std::span<const std::uint8_t> bytes_;
  std::size_t base_;
  std::size_t at_ = 0;
  Status status_;
};

// -------------------------------------------------------------------------------------------------
// The layout of version 4, the current one: one function per struct, its fields in file order.

template <class V, class T>
void visitWords(V& v, T& words, const char* what) {
  v.list(words, what, kMaxInstructionsPerSection * kWordsPerInstruction,
         [what](auto& w, auto& word) { w.field(word, what); });
}

template <class V, Of<Program> P>
void visitProgram(V& v, P& p) {
  visitWords(v, p.init, "init section");
  visitWords(v, p.update, "update section");
  v.list(p.constants, "constants", kMaxConstants, [](auto& w, auto& c) { w.field(c, "constant"); });
  v.list(p.particleFields, "particle fields", kMaxParticleWords, [](auto& w, auto& f) {
    w.field(f.name, "field name");
    w.field(f.offset, "field offset");
    w.field(f.width, "field width");
  });
  v.field(p.particleWords, "particle words");
  v.field(p.emitterWords, "emitter words");
  v.list(p.globals, "global imports", kMaxGlobalImports, [](auto& w, auto& g) {
    w.field(g.name, "global name");
    w.field(g.width, "global width");
  });
  v.field(p.registerCount, "register count");
}

template <class V, Of<GlobalFieldDecl> G>
void visitGlobalField(V& v, G& g) {
  v.field(g.name, "global name");
  v.field(g.width, "global width");
  v.field(g.value, "global value");
}

// A material's fields before and after the ones version 3 dropped (visitMaterialV2).
template <class V, Of<CompiledMaterial> M>
void visitMaterialGrid(V& v, M& m) {
  v.field(m.name, "material name");
  v.field(m.texture, "texture");
  v.field(m.blend, "blend");
  v.field(m.alphaCutoff, "alpha cutoff");
  v.field(m.columns, "sheet columns");
  v.field(m.rows, "sheet rows");
}
template <class V, Of<CompiledMaterial> M>
void visitMaterialLook(V& v, M& m) {
  v.field(m.frameBlend, "frame blend");
  v.field(m.softDistanceMeters, "soft distance");
  v.field(m.lit, "lit");
  v.field(m.doubleSided, "double sided");
  v.field(m.ambientTint, "ambient tint");
}
template <class V, Of<CompiledMaterial> M>
void visitMaterial(V& v, M& m) {
  visitMaterialGrid(v, m);
  v.field(m.frameBegin, "frame begin");
  visitMaterialLook(v, m);
}

template <class V, Of<CompiledEmission> S>
void visitEmission(V& v, S& s) {
  v.field(s.mode, "emission mode");
  v.field(s.metric, "spawn metric");
  v.field(s.rate, "rate");
  v.field(s.rateInterp, "rate interp");
  v.list(s.rateKeys, "rate keys", kMaxListItems, [](auto& w, auto& k) { w.field(k, "rate key"); });
  v.list(s.bursts, "bursts", kMaxListItems, [](auto& w, auto& b) {
    w.field(b.timeSeconds, "burst time");
    w.field(b.count, "burst count");
    w.field(b.repeatIntervalSeconds, "burst interval");
    w.field(b.repeatCount, "burst repeats");
  });
  v.field(s.delaySeconds, "delay");
  v.field(s.durationSeconds, "duration");
  v.field(s.loop, "loop");
  v.field(s.eventName, "event name");
  v.list(s.eventTimesSeconds, "event times", kMaxListItems,
         [](auto& w, auto& t) { w.field(t, "event time"); });
}

template <class V, Of<CompiledRender> R>
void visitRender(V& v, R& r) {
  v.field(r.mode, "render mode");
  v.field(r.sortOrder, "sort order");
  v.field(r.sort, "sort");
  v.field(r.stretchScaleSeconds, "stretch scale");
  v.field(r.deadspaceRadians, "deadspace");
  v.field(r.beamTargetMeters, "beam target");
  v.field(r.beamTargetFieldWord, "beam target field");
  v.field(r.beamSubdivisions, "beam subdivisions");
  v.field(r.beamRadiusMeters, "beam radius");
  v.field(r.beamRoughness, "beam roughness");
  v.field(r.beamUpdateIntervalSeconds, "beam interval");
  v.field(r.beamWidthMeters, "beam width");
  v.field(r.mesh, "mesh");
  v.field(r.chainWidthMeters, "chain width");
}

template <class V, Of<CompiledForceEvent> F>
void visitForceEvent(V& v, F& f) {
  v.field(f.radiusMeters, "force event");
  v.field(f.durationSeconds, "force event");
  v.field(f.strengthMetersPerSecond, "force event");
}

template <class V, Of<ParticleChannels> C>
void visitChannels(V& v, C& c) {
  for (auto* channel : {&c.position, &c.velocity, &c.age, &c.lifetime, &c.size, &c.color,
                        &c.rotation, &c.orientation, &c.frame})
    v.field(*channel, "channel");
}

// An emitter's fields in three runs, which version 2 separates by the fields v3 dropped
// (visitEmitterV2).
template <class V, Of<CompiledEmitter> E>
void visitEmitterIdentity(V& v, E& em) {
  v.field(em.name, "emitter name");
  v.field(em.material, "material");
  v.field(em.maxParticles, "max particles");
  v.field(em.seed, "seed");
  v.field(em.space, "space");
}
template <class V, Of<CompiledEmitter> E>
void visitEmitterBehaviour(V& v, E& em) {
  v.field(em.prewarmSeconds, "prewarm");
  v.field(em.cull, "cull");
  v.field(em.maxCatchupSeconds, "max catch-up");
  v.field(em.positionMeters, "position");
  v.field(em.rotationQuaternion, "rotation");
  visitEmission(v, em.emission);
  visitRender(v, em.render);
  visitForceEvent(v, em.forceEvent);
  v.list(em.emitterFields, "emitter fields", kMaxEmitterWords, [](auto& w, auto& f) {
    w.field(f.name, "emitter field name");
    w.field(f.offset, "emitter field offset");
    w.field(f.width, "emitter field width");
  });
  v.list(em.emitterFieldValues, "emitter field values", kMaxEmitterWords,
         [](auto& w, auto& value) { w.field(value, "emitter field value"); });
  visitChannels(v, em.channels);
}
template <class V, Of<CompiledMotion> M>
void visitMotion(V& v, M& m) {
  const auto key = [](auto& w, auto& k) {
    w.field(k.timeSeconds, "motion key time");
    w.field(k.value, "motion key value");
  };
  v.list(m.position, "position keys", kMaxMotionKeys, key);
  v.list(m.rotation, "rotation keys", kMaxMotionKeys, key);
  v.field(m.periodSeconds, "motion period");
}

// Version 3's emitter is version 4's without the motion and parent frames at its end; version 6's
// is version 7's without the trail source at its end.
template <class V, Of<CompiledEmitter> E>
void visitEmitterV3(V& v, E& em) {
  visitEmitterIdentity(v, em);
  visitEmitterBehaviour(v, em);
  visitProgram(v, em.program);
}
template <class V, Of<CompiledEmitter> E>
void visitEmitterV6(V& v, E& em) {
  visitEmitterV3(v, em);
  visitMotion(v, em.motion);
  v.list(em.parents, "parent frames", kMaxFrameChain, [](auto& w, auto& f) {
    w.field(f.positionMeters, "frame position");
    w.field(f.rotationQuaternion, "frame rotation");
    visitMotion(w, f.motion);
  });
}
template <class V, Of<CompiledEmitter> E>
void visitEmitter(V& v, E& em) {
  visitEmitterV6(v, em);
  v.field(em.emission.sourceEmitter, "spawn source");
  v.field(em.emission.sourceInheritVelocity, "source velocity");
}

// An effect whose emitters `visitEmitterOf` visits (visitEmitter, or visitEmitterV3).
template <class V, Of<CompiledEffect> E, class VisitEmitter>
void visitEffectWith(V& v, E& e, VisitEmitter visitEmitterOf) {
  v.field(e.name, "effect name");
  v.list(e.globals, "global fields", kMaxGlobalImports,
         [](auto& w, auto& g) { visitGlobalField(w, g); });
  v.list(e.materials, "materials", kMaxMaterialsInFile,
         [](auto& w, auto& m) { visitMaterial(w, m); });
  v.list(e.emitters, "emitters", kMaxEmittersInFile, visitEmitterOf);
}
template <class V, Of<CompiledEffect> E>
void visitEffect(V& v, E& e) {
  visitEffectWith(v, e, [](auto& w, auto& em) { visitEmitter(w, em); });
}

// -------------------------------------------------------------------------------------------------
// The layout of versions 1 and 2: version 3's with the fields it dropped in their places. Only the
// reader visits it; upgradeV2ToV3 carries the rest over.

struct MaterialV2 {
  CompiledMaterial material;
  bool playOverLife = false;
  float fps = 0.0f;
  std::int32_t frameEnd = -1;
  bool randomStart = false;
  bool loop = true;
};

struct EmitterV2 {
  CompiledEmitter emitter;
  float velocityInheritance = 0.0f;
  float maxSize = 0.0f;
};

struct EffectV2 {
  std::string name;
  std::vector<GlobalFieldDecl> globals;
  std::vector<MaterialV2> materials;
  std::vector<EmitterV2> emitters;
};

template <class V>
void visitMaterialV2(V& r, MaterialV2& m) {
  visitMaterialGrid(r, m.material);
  r.field(m.playOverLife, "sheet playback");
  r.field(m.fps, "sheet fps");
  r.field(m.material.frameBegin, "frame begin");
  r.field(m.frameEnd, "frame end");
  r.field(m.randomStart, "random start");
  r.field(m.loop, "sheet loop");
  visitMaterialLook(r, m.material);
}

template <class V>
void visitEmitterV2(V& r, EmitterV2& em) {
  visitEmitterIdentity(r, em.emitter);
  r.field(em.velocityInheritance, "velocity inheritance");
  visitEmitterBehaviour(r, em.emitter);
  r.field(em.maxSize, "max size");
  visitProgram(r, em.emitter.program);
}

void visitEffectV2(Reader& r, EffectV2& e) {
  r.field(e.name, "effect name");
  r.list(e.globals, "global fields", kMaxGlobalImports,
         [](auto& w, auto& g) { visitGlobalField(w, g); });
  r.list(e.materials, "materials", kMaxMaterialsInFile,
         [](auto& w, auto& m) { visitMaterialV2(w, m); });
  r.list(e.emitters, "emitters", kMaxEmittersInFile,
         [](auto& w, auto& em) { visitEmitterV2(w, em); });
}

// A motion's keys: finite, in time order, rotations of non-zero length; a finite period.
Status checkMotion(const CompiledMotion& m, const std::string& where) {
  if (!std::isfinite(m.periodSeconds) || m.periodSeconds < 0.0f)
    return parseError(where + "motion period " + std::to_string(m.periodSeconds));
  for (const std::vector<MotionKey>* track : {&m.position, &m.rotation}) {
    const char* what = track == &m.position ? "position" : "rotation";
    for (std::size_t k = 0; k < track->size(); ++k) {
      const MotionKey& key = (*track)[k];
      const auto& v = key.value;
      const bool finite = std::isfinite(key.timeSeconds) && std::isfinite(v[0]) &&
                          std::isfinite(v[1]) && std::isfinite(v[2]) && std::isfinite(v[3]);
      const bool ordered = k == 0 || key.timeSeconds >= (*track)[k - 1].timeSeconds;
      const bool turns =
          track == &m.position || v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3] > 1e-12f;
      if (!finite || !ordered || !turns) {
        return parseError(where + what + " key " + std::to_string(k) +
                          (!finite    ? " is not finite"
                           : !ordered ? " is before the one before it"
                                      : " is a zero quaternion"));
      }
    }
  }
  return {};
}

// Cross-field checks a file must pass besides program verification.
Status checkEffect(const CompiledEffect& e) {
  for (const GlobalFieldDecl& g : e.globals) {
    if (g.width < 1 || g.width > kMaxWidth) {
      return parseError("global field " + g.name + " is " + std::to_string(g.width) +
                        " wide; widths are 1..4");
    }
  }
  for (const CompiledMaterial& m : e.materials) {
    if (m.columns < 1 || m.rows < 1 || m.columns > 256 || m.rows > 256) {
      return parseError("material " + m.name + ": a " + std::to_string(m.columns) + "x" +
                        std::to_string(m.rows) + " sprite sheet (1..256 each way)");
    }
  }
  for (const CompiledEmitter& em : e.emitters) {
    const std::string where = "emitter " + em.name + ": ";
    if (em.render.beamTargetFieldWord < -1 ||
        (em.render.beamTargetFieldWord >= 0 &&
         static_cast<std::uint64_t>(em.render.beamTargetFieldWord) + 3 > em.program.emitterWords)) {
      return parseError(where + "the beam target field at word " +
                        std::to_string(em.render.beamTargetFieldWord) +
                        " is outside the emitter words");
    }
    if (em.material < -1 || em.material >= static_cast<std::int32_t>(e.materials.size())) {
      return parseError(where + "material " + std::to_string(em.material) + " does not exist");
    }
    if (em.emitterFieldValues.size() != em.program.emitterWords) {
      return parseError(where + std::to_string(em.emitterFieldValues.size()) +
                        " emitter field values for " + std::to_string(em.program.emitterWords) +
                        " words");
    }
    for (const FieldSlot& f : em.emitterFields) {
      if (f.width < 1 || f.width > kMaxWidth ||
          std::uint64_t{f.offset} + f.width > em.program.emitterWords) {
        return parseError(where + "emitter field " + f.name + " is outside the emitter words");
      }
    }
    const ParticleChannels& c = em.channels;
    const std::pair<std::int32_t, std::uint32_t> channels[] = {
        {c.position, 3}, {c.velocity, 3}, {c.age, 1},         {c.lifetime, 1}, {c.size, 2},
        {c.color, 4},    {c.rotation, 1}, {c.orientation, 4}, {c.frame, 1}};
    for (const auto& [offset, width] : channels) {
      if (offset < -1 ||
          (offset >= 0 && static_cast<std::uint64_t>(offset) + width > em.program.particleWords)) {
        return parseError(where + "a particle channel at word " + std::to_string(offset) +
                          " is outside the " + std::to_string(em.program.particleWords) +
                          "-word layout");
      }
    }
    // SPAWN targets are emitters of this effect; a TRAIL's target has this one as its source.
    const auto self = static_cast<std::int32_t>(&em - e.emitters.data());
    const std::int32_t source = em.emission.sourceEmitter;
    if (source != -1 &&
        (source < 0 || static_cast<std::size_t>(source) >= e.emitters.size() || source == self)) {
      return parseError(where + "its trail source, emitter " + std::to_string(source) +
                        ", is not another emitter of the " + std::to_string(e.emitters.size()));
    }
    if (source != -1 && em.space != SimulationSpace::World) {
      return parseError(where + "a trail (its source is emitter " + std::to_string(source) +
                        ") simulates in world space");
    }
    for (const std::vector<std::uint32_t>* code : {&em.program.init, &em.program.update}) {
      for (std::size_t at = 0; at + kWordsPerInstruction <= code->size();
           at += kWordsPerInstruction) {
        const std::uint32_t op = (*code)[at] & 0xFFu;
        if (op != static_cast<std::uint32_t>(Opcode::Spawn) &&
            op != static_cast<std::uint32_t>(Opcode::SpawnInherit) &&
            op != static_cast<std::uint32_t>(Opcode::Trail))
          continue;
        // SPAWN names its target in s0, SPAWNI and TRAIL in dst.
        const std::uint32_t target =
            op == static_cast<std::uint32_t>(Opcode::Spawn) ? (*code)[at + 1] : (*code)[at] >> 24;
        if (target >= e.emitters.size() || &e.emitters[target] == &em) {
          return parseError(where + "spawns into emitter " + std::to_string(target) +
                            " (not another emitter of the " + std::to_string(e.emitters.size()) +
                            ")");
        }
        if (op == static_cast<std::uint32_t>(Opcode::Trail) &&
            e.emitters[target].emission.sourceEmitter != self) {
          return parseError(where + "trails into emitter " + std::to_string(target) +
                            ", whose trail source is not this emitter");
        }
      }
    }
    MOTE_RETURN_IF_ERROR(checkMotion(em.motion, where));
    for (std::size_t f = 0; f < em.parents.size(); ++f)
      MOTE_RETURN_IF_ERROR(
          checkMotion(em.parents[f].motion, where + "parent frame " + std::to_string(f) + ": "));
    if (em.maxParticles < 1 || em.maxParticles > (1u << 20)) {
      return parseError(where + "max particles " + std::to_string(em.maxParticles) +
                        " is not in [1, 1048576]");
    }
  }
  return {};
}

// The opcodes a version step added: a file of an older version cannot hold them, and one that
// does is refused like any other opcode unknown to its version. v2 added CURVE (a v1 program's
// curves are arithmetic, docs/compiler.md, and stay so: they verify and run unchanged, only slower
// than CURVE); v5 added COLLIDE; v6 added SPAWNI, the builtins it feeds (source_velocity,
// source_size, source_color) and REPORT; v7 added TRAIL (with the trail source in the layout).
// Every other step changed the layout, not what a program may hold.
struct OpcodeSince {
  Opcode opcode;
  std::uint32_t version;
};
constexpr std::array kOpcodesSince{OpcodeSince{Opcode::Curve, 2}, OpcodeSince{Opcode::Collide, 5},
                                   OpcodeSince{Opcode::SpawnInherit, 6},
                                   OpcodeSince{Opcode::Report, 6}, OpcodeSince{Opcode::Trail, 7}};
constexpr std::uint32_t kBuiltinsBeforeV6 = static_cast<std::uint32_t>(Builtin::SourceVelocity);

Status refuseLaterOpcodes(std::uint32_t version, const CompiledEmitter& em) {
  for (const Section s : {Section::Init, Section::Update}) {
    const std::span<const std::uint32_t> code = em.program.section(s);
    for (std::size_t at = 0; at + kWordsPerInstruction <= code.size(); at += kWordsPerInstruction) {
      const std::string where = "emitter " + em.name + ": " +
                                (s == Section::Init ? "init[" : "update[") +
                                std::to_string(at / kWordsPerInstruction) + "]: ";
      const std::uint32_t op = code[at] & 0xFFu;
      if (version < 6 && op == static_cast<std::uint32_t>(Opcode::LoadBuiltin) &&
          code[at + 1] >= kBuiltinsBeforeV6 && code[at + 1] < kBuiltinCount) {
        return parseError(where + "builtin " + std::string(kBuiltinInfos[code[at + 1]].name) +
                          " in a version " + std::to_string(version) + " file (it is version 6)");
      }
      for (const OpcodeSince& since : kOpcodesSince) {
        if (op != static_cast<std::uint32_t>(since.opcode) || version >= since.version) continue;
        return parseError(where + "opcode " + std::to_string(op) + " (" +
                          std::string(opInfo(since.opcode).mnemonic) + ") in a version " +
                          std::to_string(version) + " file (" +
                          std::string(opInfo(since.opcode).mnemonic) + " is version " +
                          std::to_string(since.version) + ")");
      }
    }
  }
  return {};
}

// Version 2 → 3. Version 3 drops the fields no runtime or renderer reads: the emitter's velocity
// inheritance (compiled into INIT) and max size, and the material's sheet playback, fps, frame end,
// random start and loop (compiled into the program that writes the frame channel). Every other
// field, and every program, carries over unchanged, so a v2 effect runs the same in v3.
CompiledEffect upgradeV2ToV3(EffectV2&& old) {
  CompiledEffect effect;
  effect.name = std::move(old.name);
  effect.globals = std::move(old.globals);
  for (MaterialV2& m : old.materials)
    effect.materials.push_back(std::move(m.material));
  for (EmitterV2& em : old.emitters)
    effect.emitters.push_back(std::move(em.emitter));
  return effect;
}

// The payload of a file of `version`: read in that version's layout, then upgraded one step at a
// time to the current one. The one place that knows old versions.
Result<CompiledEffect> readPayload(std::uint32_t version, std::span<const std::uint8_t> payload) {
  Reader r(payload, kHeaderBytes);
  const auto finish = [&r]() -> Status {
    if (!r.ok()) return r.status();
    if (!r.atEnd()) {
      return parseError("offset " + std::to_string(r.offset()) +
                        ": trailing bytes after the last emitter");
    }
    return {};
  };
  const auto opcodesOf = [version](const CompiledEffect& effect) -> Status {
    for (const CompiledEmitter& em : effect.emitters)
      MOTE_RETURN_IF_ERROR(refuseLaterOpcodes(version, em));
    return {};
  };
  if (version == 7) {
    CompiledEffect effect;
    visitEffect(r, effect);
    MOTE_RETURN_IF_ERROR(finish());
    MOTE_RETURN_IF_ERROR(opcodesOf(effect));
    return effect;
  }
  if (version >= 4) {
    // Versions 4 to 6 share a layout (5 adds COLLIDE, 6 SPAWNI and REPORT); 6 → 7 adds each
    // emitter's trail source: an emitter of an older file has none, what the defaults say.
    CompiledEffect effect;
    visitEffectWith(r, effect, [](auto& w, auto& em) { visitEmitterV6(w, em); });
    MOTE_RETURN_IF_ERROR(finish());
    MOTE_RETURN_IF_ERROR(opcodesOf(effect));
    return effect;
  }
  if (version == 3) {
    // Version 3 → 4 adds each emitter's motion and parent frames: a v3 emitter has none (it
    // stands still in its effect), which is what the fields' defaults say.
    CompiledEffect effect;
    visitEffectWith(r, effect, [](auto& w, auto& em) { visitEmitterV3(w, em); });
    MOTE_RETURN_IF_ERROR(finish());
    MOTE_RETURN_IF_ERROR(opcodesOf(effect));
    return effect;
  }
  EffectV2 old;  // versions 1 and 2 share a layout (2 adds CURVE)
  visitEffectV2(r, old);
  MOTE_RETURN_IF_ERROR(finish());
  for (const EmitterV2& em : old.emitters)
    MOTE_RETURN_IF_ERROR(refuseLaterOpcodes(version, em.emitter));
  return upgradeV2ToV3(std::move(old));
}

}  // namespace

std::uint64_t contentHash(const Program& p) {
  Writer w;
  visitProgram(w, p);
  return XXH3_64bits(w.bytes.data(), w.bytes.size());
}

std::vector<std::uint8_t> saveMotefx(const CompiledEffect& effect) {
  Writer payload;
  visitEffect(payload, effect);
  Writer out;
  out.bytes.assign(kMotefxMagic.begin(), kMotefxMagic.end());
  out.u32(kMotefxVersion);
  out.u32(0);  // flags
  out.u64(payload.bytes.size());
  out.u64(XXH3_64bits(payload.bytes.data(), payload.bytes.size()));
  out.bytes.insert(out.bytes.end(), payload.bytes.begin(), payload.bytes.end());
  return out.bytes;
}

Result<CompiledEffect> loadMotefx(std::span<const std::uint8_t> bytes) {
  if (bytes.size() > kMaxMotefxBytes) {
    return parseError("larger than " + std::to_string(kMaxMotefxBytes) + " bytes");
  }
  if (bytes.size() < kHeaderBytes) return parseError("offset 0: truncated header");
  if (!std::equal(kMotefxMagic.begin(), kMotefxMagic.end(), bytes.begin())) {
    return parseError("offset 0: not a .motefx file (bad magic)");
  }
  Reader header(bytes.subspan(8, kHeaderBytes - 8), 8);
  const std::uint32_t version = header.u32("version");
  const std::uint32_t flags = header.u32("flags");
  const std::uint64_t size = header.u64("payload size");
  const std::uint64_t checksum = header.u64("checksum");
  if (version < kMotefxOldestVersion || version > kMotefxVersion) {
    return parseError("offset 8: unsupported .motefx version " + std::to_string(version) +
                      " (this build reads versions " + std::to_string(kMotefxOldestVersion) +
                      " to " + std::to_string(kMotefxVersion) + ")");
  }
  if (flags != 0) return parseError("offset 12: unknown flags " + std::to_string(flags));
  if (size != bytes.size() - kHeaderBytes) {
    return parseError("offset 16: payload size " + std::to_string(size) + " but " +
                      std::to_string(bytes.size() - kHeaderBytes) + " bytes follow the header");
  }
  const std::span<const std::uint8_t> payload = bytes.subspan(kHeaderBytes);
  if (XXH3_64bits(payload.data(), payload.size()) != checksum) {
    return parseError("offset 24: checksum mismatch (the file is damaged)");
  }
  Result<CompiledEffect> effect = readPayload(version, payload);
  if (!effect.ok()) return effect.status();
  MOTE_RETURN_IF_ERROR(checkEffect(*effect));
  for (CompiledEmitter& em : effect->emitters) {
    Result<VerifiedProgram> verified = verify(em.program);
    if (!verified.ok())
      return parseError("emitter " + em.name + ": " + verified.status().message());
  }
  return effect;
}

}  // namespace mote::bytecode
