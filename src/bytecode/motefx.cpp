// SPDX-License-Identifier: MIT
// The .motefx binary format (docs/motefx.md): a 32-byte header — magic, version, flags, payload
// size, XXH3-64 of the payload — then the payload, a fixed sequence of little-endian fields.
#include <mote/bytecode/compiled_effect.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <bit>
#include <cstring>
#include <string>

namespace mote::bytecode {
namespace {

constexpr std::uint32_t kMaxNames = 1u << 16;  // bytes per string
constexpr std::uint32_t kMaxEmittersInFile = 256;
constexpr std::uint32_t kMaxMaterialsInFile = 256;
constexpr std::uint32_t kMaxListItems = 1u << 16;
constexpr std::size_t kHeaderBytes = 32;

class Writer {
 public:
  std::vector<std::uint8_t> bytes;

  void u8(std::uint8_t v) { bytes.push_back(v); }
  void u32(std::uint32_t v) {
    for (int i = 0; i < 4; ++i)
      bytes.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
  }
  void u64(std::uint64_t v) {
    u32(static_cast<std::uint32_t>(v));
    u32(static_cast<std::uint32_t>(v >> 32));
  }
  void i32(std::int32_t v) { u32(static_cast<std::uint32_t>(v)); }
  void f32(float v) { u32(std::bit_cast<std::uint32_t>(v)); }
  void boolean(bool v) { u8(v ? 1 : 0); }
  void string(const std::string& s) {
    u32(static_cast<std::uint32_t>(s.size()));
    bytes.insert(bytes.end(), s.begin(), s.end());
  }
  template <class E>
  void enumeration(E e) {
    u8(static_cast<std::uint8_t>(e));
  }
  template <std::size_t N>
  void floats(const std::array<float, N>& a) {
    for (const float v : a)
      f32(v);
  }
  void words(const std::vector<std::uint32_t>& w) {
    u32(static_cast<std::uint32_t>(w.size()));
    for (const std::uint32_t v : w)
      u32(v);
  }
};

void writeProgram(Writer& w, const Program& p) {
  w.words(p.init);
  w.words(p.update);
  w.u32(static_cast<std::uint32_t>(p.constants.size()));
  for (const auto& c : p.constants)
    w.floats(c);
  w.u32(static_cast<std::uint32_t>(p.particleFields.size()));
  for (const FieldSlot& f : p.particleFields) {
    w.string(f.name);
    w.u32(f.offset);
    w.u32(f.width);
  }
  w.u32(p.particleWords);
  w.u32(p.emitterWords);
  w.u32(static_cast<std::uint32_t>(p.globals.size()));
  for (const GlobalImport& g : p.globals) {
    w.string(g.name);
    w.u32(g.width);
  }
  w.u32(p.registerCount);
}

class Reader {
 public:
  explicit Reader(std::span<const std::uint8_t> bytes, std::size_t base)
      : bytes_(bytes), base_(base) {}

  const Status& status() const { return status_; }
  bool ok() const { return status_.ok(); }
  bool atEnd() const { return at_ == bytes_.size(); }
  std::size_t offset() const { return base_ + at_; }

  void fail(const std::string& what) { failAt(at_, what); }
  void failAt(std::size_t at, const std::string& what) {
    if (status_.ok()) status_ = parseError("offset " + std::to_string(base_ + at) + ": " + what);
  }

  bool need(std::size_t n, const char* what) {
    if (!ok()) return false;
    if (bytes_.size() - at_ < n) {
      fail(std::string("truncated ") + what);
      return false;
    }
    return true;
  }

  std::uint8_t u8(const char* what) {
    if (!need(1, what)) return 0;
    return bytes_[at_++];
  }
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
  std::int32_t i32(const char* what) { return static_cast<std::int32_t>(u32(what)); }
  float f32(const char* what) { return std::bit_cast<float>(u32(what)); }
  bool boolean(const char* what) {
    const std::size_t start = at_;
    const std::uint8_t v = u8(what);
    if (v > 1) failAt(start, std::string(what) + ": not a boolean (" + std::to_string(v) + ")");
    return v == 1;
  }
  template <class E>
  E enumeration(const char* what, std::uint8_t count) {
    const std::size_t start = at_;
    const std::uint8_t v = u8(what);
    if (v >= count)
      failAt(start, std::string(what) + ": value " + std::to_string(v) + " out of range");
    return static_cast<E>(v < count ? v : 0);
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
  std::string string(const char* what) {
    const std::uint32_t n = count(what, kMaxNames, 1);
    if (!ok()) return {};
    std::string s(reinterpret_cast<const char*>(bytes_.data() + at_), n);
    at_ += n;
    return s;
  }
  template <std::size_t N>
  std::array<float, N> floats(const char* what) {
    std::array<float, N> a{};
    for (float& v : a)
      v = f32(what);
    return a;
  }
  std::vector<std::uint32_t> words(const char* what) {
    const std::uint32_t n = count(what, kMaxInstructionsPerSection * kWordsPerInstruction, 4);
    std::vector<std::uint32_t> w;
    w.reserve(n);
    for (std::uint32_t i = 0; i < n && ok(); ++i)
      w.push_back(u32(what));
    return w;
  }

 private:
  std::span<const std::uint8_t> bytes_;
  std::size_t base_;
  std::size_t at_ = 0;
  Status status_;
};

Program readProgram(Reader& r) {
  Program p;
  p.init = r.words("init section");
  p.update = r.words("update section");
  const std::uint32_t constants = r.count("constants", kMaxConstants, 16);
  for (std::uint32_t i = 0; i < constants && r.ok(); ++i)
    p.constants.push_back(r.floats<4>("constant"));
  const std::uint32_t fields = r.count("particle fields", kMaxParticleWords, 12);
  for (std::uint32_t i = 0; i < fields && r.ok(); ++i) {
    FieldSlot f;
    f.name = r.string("field name");
    f.offset = r.u32("field offset");
    f.width = r.u32("field width");
    p.particleFields.push_back(std::move(f));
  }
  p.particleWords = r.u32("particle words");
  p.emitterWords = r.u32("emitter words");
  const std::uint32_t globals = r.count("global imports", kMaxGlobalImports, 8);
  for (std::uint32_t i = 0; i < globals && r.ok(); ++i) {
    GlobalImport g;
    g.name = r.string("global name");
    g.width = r.u32("global width");
    p.globals.push_back(std::move(g));
  }
  p.registerCount = r.u32("register count");
  return p;
}

void writeEffect(Writer& w, const CompiledEffect& e) {
  w.string(e.name);
  w.u32(static_cast<std::uint32_t>(e.globals.size()));
  for (const GlobalFieldDecl& g : e.globals) {
    w.string(g.name);
    w.u32(g.width);
    w.floats(g.value);
  }
  w.u32(static_cast<std::uint32_t>(e.materials.size()));
  for (const CompiledMaterial& m : e.materials) {
    w.string(m.name);
    w.string(m.texture);
    w.enumeration(m.blend);
    w.f32(m.alphaCutoff);
    w.u32(m.columns);
    w.u32(m.rows);
    w.boolean(
        false);  // sheet playback, fps: compiled into the program; the next version drops them
    w.f32(0.0f);
    w.u32(m.frameBegin);
    w.i32(-1);  // frame end, random start, sheet loop: likewise
    w.boolean(false);
    w.boolean(true);
    w.boolean(m.frameBlend);
    w.f32(m.softDistanceMeters);
    w.boolean(m.lit);
    w.boolean(m.doubleSided);
    w.boolean(m.ambientTint);
  }
  w.u32(static_cast<std::uint32_t>(e.emitters.size()));
  for (const CompiledEmitter& em : e.emitters) {
    w.string(em.name);
    w.i32(em.material);
    w.u32(em.maxParticles);
    w.u64(em.seed);
    w.enumeration(em.space);
    w.f32(0.0f);  // velocity inheritance: compiled into INIT
    w.f32(em.prewarmSeconds);
    w.boolean(em.cull);
    w.f32(em.maxCatchupSeconds);
    w.floats(em.positionMeters);
    w.floats(em.rotationQuaternion);
    const CompiledEmission& s = em.emission;
    w.enumeration(s.mode);
    w.enumeration(s.metric);
    w.f32(s.rate);
    w.enumeration(s.rateInterp);
    w.u32(static_cast<std::uint32_t>(s.rateKeys.size()));
    for (const auto& k : s.rateKeys)
      w.floats(k);
    w.u32(static_cast<std::uint32_t>(s.bursts.size()));
    for (const CompiledBurst& b : s.bursts) {
      w.f32(b.timeSeconds);
      w.u32(b.count);
      w.f32(b.repeatIntervalSeconds);
      w.u32(b.repeatCount);
    }
    w.f32(s.delaySeconds);
    w.f32(s.durationSeconds);
    w.boolean(s.loop);
    w.string(s.eventName);
    w.u32(static_cast<std::uint32_t>(s.eventTimesSeconds.size()));
    for (const float t : s.eventTimesSeconds)
      w.f32(t);
    const CompiledRender& r = em.render;
    w.enumeration(r.mode);
    w.i32(r.sortOrder);
    w.enumeration(r.sort);
    w.f32(r.stretchScaleSeconds);
    w.f32(r.deadspaceRadians);
    w.floats(r.beamTargetMeters);
    w.i32(r.beamTargetFieldWord);
    w.u32(r.beamSubdivisions);
    w.f32(r.beamRadiusMeters);
    w.f32(r.beamRoughness);
    w.f32(r.beamUpdateIntervalSeconds);
    w.f32(r.beamWidthMeters);
    w.string(r.mesh);
    w.f32(r.chainWidthMeters);
    w.f32(em.forceEvent.radiusMeters);
    w.f32(em.forceEvent.durationSeconds);
    w.f32(em.forceEvent.strengthMetersPerSecond);
    w.u32(static_cast<std::uint32_t>(em.emitterFields.size()));
    for (const FieldSlot& f : em.emitterFields) {
      w.string(f.name);
      w.u32(f.offset);
      w.u32(f.width);
    }
    w.u32(static_cast<std::uint32_t>(em.emitterFieldValues.size()));
    for (const float v : em.emitterFieldValues)
      w.f32(v);
    const ParticleChannels& c = em.channels;
    for (const std::int32_t v : {c.position, c.velocity, c.age, c.lifetime, c.size, c.color,
                                 c.rotation, c.orientation, c.frame})
      w.i32(v);
    w.f32(0.0f);  // max size: nothing reads it
    writeProgram(w, em.program);
  }
}

CompiledEffect readEffect(Reader& r) {
  CompiledEffect e;
  e.name = r.string("effect name");
  const std::uint32_t globals = r.count("global fields", kMaxGlobalImports, 24);
  for (std::uint32_t i = 0; i < globals && r.ok(); ++i) {
    GlobalFieldDecl g;
    g.name = r.string("global name");
    g.width = r.u32("global width");
    g.value = r.floats<4>("global value");
    e.globals.push_back(std::move(g));
  }
  const std::uint32_t materials = r.count("materials", kMaxMaterialsInFile, 40);
  for (std::uint32_t i = 0; i < materials && r.ok(); ++i) {
    CompiledMaterial m;
    m.name = r.string("material name");
    m.texture = r.string("texture");
    m.blend = r.enumeration<BlendMode>("blend", 4);
    m.alphaCutoff = r.f32("alpha cutoff");
    m.columns = r.u32("sheet columns");
    m.rows = r.u32("sheet rows");
    r.boolean("sheet playback");
    r.f32("sheet fps");
    m.frameBegin = r.u32("frame begin");
    r.i32("frame end");
    r.boolean("random start");
    r.boolean("sheet loop");
    m.frameBlend = r.boolean("frame blend");
    m.softDistanceMeters = r.f32("soft distance");
    m.lit = r.boolean("lit");
    m.doubleSided = r.boolean("double sided");
    m.ambientTint = r.boolean("ambient tint");
    e.materials.push_back(std::move(m));
  }
  const std::uint32_t emitters = r.count("emitters", kMaxEmittersInFile, 64);
  for (std::uint32_t i = 0; i < emitters && r.ok(); ++i) {
    CompiledEmitter em;
    em.name = r.string("emitter name");
    em.material = r.i32("material");
    em.maxParticles = r.u32("max particles");
    em.seed = r.u64("seed");
    em.space = r.enumeration<SimulationSpace>("space", 4);
    r.f32("velocity inheritance");
    em.prewarmSeconds = r.f32("prewarm");
    em.cull = r.boolean("cull");
    em.maxCatchupSeconds = r.f32("max catch-up");
    em.positionMeters = r.floats<3>("position");
    em.rotationQuaternion = r.floats<4>("rotation");
    CompiledEmission& s = em.emission;
    s.mode = r.enumeration<EmissionMode>("emission mode", 4);
    s.metric = r.enumeration<SpawnMetric>("spawn metric", 2);
    s.rate = r.f32("rate");
    s.rateInterp = r.enumeration<CurveInterp>("rate interp", 3);
    const std::uint32_t keys = r.count("rate keys", kMaxListItems, 8);
    for (std::uint32_t k = 0; k < keys && r.ok(); ++k)
      s.rateKeys.push_back(r.floats<2>("rate key"));
    const std::uint32_t bursts = r.count("bursts", kMaxListItems, 16);
    for (std::uint32_t b = 0; b < bursts && r.ok(); ++b) {
      CompiledBurst burst;
      burst.timeSeconds = r.f32("burst time");
      burst.count = r.u32("burst count");
      burst.repeatIntervalSeconds = r.f32("burst interval");
      burst.repeatCount = r.u32("burst repeats");
      s.bursts.push_back(burst);
    }
    s.delaySeconds = r.f32("delay");
    s.durationSeconds = r.f32("duration");
    s.loop = r.boolean("loop");
    s.eventName = r.string("event name");
    const std::uint32_t events = r.count("event times", kMaxListItems, 4);
    for (std::uint32_t t = 0; t < events && r.ok(); ++t)
      s.eventTimesSeconds.push_back(r.f32("event time"));
    CompiledRender& rd = em.render;
    rd.mode = r.enumeration<RenderMode>("render mode", 12);
    rd.sortOrder = r.i32("sort order");
    rd.sort = r.enumeration<ParticleSort>("sort", 6);
    rd.stretchScaleSeconds = r.f32("stretch scale");
    rd.deadspaceRadians = r.f32("deadspace");
    rd.beamTargetMeters = r.floats<3>("beam target");
    rd.beamTargetFieldWord = r.i32("beam target field");
    rd.beamSubdivisions = r.u32("beam subdivisions");
    rd.beamRadiusMeters = r.f32("beam radius");
    rd.beamRoughness = r.f32("beam roughness");
    rd.beamUpdateIntervalSeconds = r.f32("beam interval");
    rd.beamWidthMeters = r.f32("beam width");
    rd.mesh = r.string("mesh");
    rd.chainWidthMeters = r.f32("chain width");
    em.forceEvent.radiusMeters = r.f32("force event");
    em.forceEvent.durationSeconds = r.f32("force event");
    em.forceEvent.strengthMetersPerSecond = r.f32("force event");
    const std::uint32_t fields = r.count("emitter fields", kMaxEmitterWords, 12);
    for (std::uint32_t f = 0; f < fields && r.ok(); ++f) {
      FieldSlot slot;
      slot.name = r.string("emitter field name");
      slot.offset = r.u32("emitter field offset");
      slot.width = r.u32("emitter field width");
      em.emitterFields.push_back(std::move(slot));
    }
    const std::uint32_t values = r.count("emitter field values", kMaxEmitterWords, 4);
    for (std::uint32_t v = 0; v < values && r.ok(); ++v)
      em.emitterFieldValues.push_back(r.f32("emitter field value"));
    ParticleChannels& c = em.channels;
    for (std::int32_t* channel : {&c.position, &c.velocity, &c.age, &c.lifetime, &c.size, &c.color,
                                  &c.rotation, &c.orientation, &c.frame})
      *channel = r.i32("channel");
    r.f32("max size");
    em.program = readProgram(r);
    e.emitters.push_back(std::move(em));
  }
  return e;
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
    // SPAWN targets are emitters of this effect.
    for (const std::vector<std::uint32_t>* code : {&em.program.init, &em.program.update}) {
      for (std::size_t at = 0; at + kWordsPerInstruction <= code->size();
           at += kWordsPerInstruction) {
        if (((*code)[at] & 0xFFu) == static_cast<std::uint32_t>(Opcode::Spawn) &&
            ((*code)[at + 1] >= e.emitters.size() || &e.emitters[(*code)[at + 1]] == &em)) {
          return parseError(where + "spawns into emitter " + std::to_string((*code)[at + 1]) +
                            " (not another emitter of the " + std::to_string(e.emitters.size()) +
                            ")");
        }
      }
    }
    if (em.maxParticles < 1 || em.maxParticles > (1u << 20)) {
      return parseError(where + "max particles " + std::to_string(em.maxParticles) +
                        " is not in [1, 1048576]");
    }
  }
  return {};
}

// Version 1 → 2. The payload layout is the same (readEffect reads both); what v2 adds is the
// CURVE opcode, which a v1 program cannot hold: a v1 file with one is refused, like any other
// opcode unknown to its version. A v1 program's curves are arithmetic (docs/compiler.md) and stay
// so: they verify and run unchanged in v2, only slower than CURVE.
Status upgradeV1ToV2(const CompiledEffect& effect) {
  for (const CompiledEmitter& em : effect.emitters) {
    for (const Section s : {Section::Init, Section::Update}) {
      const std::span<const std::uint32_t> code = em.program.section(s);
      for (std::size_t at = 0; at + kWordsPerInstruction <= code.size();
           at += kWordsPerInstruction) {
        if ((code[at] & 0xFFu) == static_cast<std::uint32_t>(Opcode::Curve)) {
          return parseError("emitter " + em.name + ": " +
                            (s == Section::Init ? "init[" : "update[") +
                            std::to_string(at / kWordsPerInstruction) +
                            "]: opcode 54 (curve) in a version 1 file (curve is version 2)");
        }
      }
    }
  }
  return {};
}

}  // namespace

std::uint64_t contentHash(const Program& p) {
  Writer w;
  writeProgram(w, p);
  return XXH3_64bits(w.bytes.data(), w.bytes.size());
}

std::vector<std::uint8_t> saveMotefx(const CompiledEffect& effect) {
  Writer payload;
  writeEffect(payload, effect);
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
  Reader r(payload, kHeaderBytes);
  CompiledEffect effect = readEffect(r);
  if (!r.ok()) return r.status();
  if (!r.atEnd()) {
    return parseError("offset " + std::to_string(r.offset()) +
                      ": trailing bytes after the last emitter");
  }
  // The one place that knows old versions: each step's upgrade, applied in turn.
  if (version == 1) MOTE_RETURN_IF_ERROR(upgradeV1ToV2(effect));
  MOTE_RETURN_IF_ERROR(checkEffect(effect));
  for (CompiledEmitter& em : effect.emitters) {
    Result<VerifiedProgram> verified = verify(em.program);
    if (!verified.ok())
      return parseError("emitter " + em.name + ": " + verified.status().message());
  }
  return effect;
}

}  // namespace mote::bytecode
