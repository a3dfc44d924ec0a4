// SPDX-License-Identifier: MIT
#include "effect_commands.h"

#include "simulation.h"

#include <mote/authoring/effect_json.h>
#include <mote/compiler/compiler.h>
#include <mote/core/file.h>
#include <mote/core/job_system.h>
#include <mote/runtime/world.h>

#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string_view>

namespace mote::cli {
namespace {

using authoring::EffectLoadResult;
using authoring::Severity;

// One diagnostic line on stderr, and in `sink` when one is given (mote-view's error panel).
void say(std::vector<std::string>* sink, std::string line) {
  fmt::print(stderr, "{}\n", line);
  if (sink != nullptr) sink->push_back(std::move(line));
}

// Prints the diagnostics; true when the file passes.
bool report(const EffectLoadResult& result, bool warningsAreErrors,
            std::vector<std::string>* sink = nullptr) {
  bool pass = result.ok();
  for (const authoring::Diagnostic& d : result.diagnostics) {
    say(sink, authoring::formatDiagnostic(d));
    if (d.severity == Severity::Warning && warningsAreErrors) pass = false;
  }
  return pass;
}

}  // namespace

int runValidate(const std::vector<std::string>& files, bool warningsAreErrors) {
  bool allValid = true;
  for (const std::string& file : files) {
    const EffectLoadResult result = authoring::loadEffectFile(file);
    if (!report(result, warningsAreErrors)) {
      allValid = false;
      continue;
    }
    std::size_t particles = 0;
    for (const authoring::Emitter& e : result.effect.emitters)
      particles += e.maxParticles;
    const std::size_t emitters = result.effect.emitters.size();
    const std::size_t materials = result.effect.materials.size();
    fmt::print("{}: valid ({} emitter{}, {} material{}, up to {} particles)\n", file, emitters,
               emitters == 1 ? "" : "s", materials, materials == 1 ? "" : "s", particles);
  }
  return allValid ? 0 : 1;
}

int runSchema(bool reference, bool nodeReference) {
  if (nodeReference) {
    fmt::print("{}", compiler::nodeLibraryReference());
    return 0;
  }
  fmt::print("{}", reference ? authoring::effectFieldReference() : authoring::effectJsonSchema());
  return 0;
}

int runFormat(const std::vector<std::string>& files, bool check) {
  bool allGood = true;
  for (const std::string& file : files) {
    const EffectLoadResult result = authoring::loadEffectFile(file);
    if (!report(result, false)) {
      allGood = false;
      continue;
    }
    const std::string canonical = authoring::saveEffect(result.effect);
    Result<std::vector<std::uint8_t>> bytes = readFile(file, authoring::kMaxEffectFileBytes);
    const bool same = bytes.ok() && std::string(bytes->begin(), bytes->end()) == canonical;
    if (same) continue;
    if (check) {
      fmt::print(stderr, "{}: not in canonical form (run mote format {})\n", file, file);
      allGood = false;
      continue;
    }
    const Status written = authoring::saveEffectFile(result.effect, file);
    if (!written.ok()) {
      fmt::print(stderr, "error: {}\n", written.message());
      allGood = false;
    } else {
      fmt::print("{}: formatted\n", file);
    }
  }
  return allGood ? 0 : 1;
}

}  // namespace mote::cli

// -------------------------------------------------------------------------------------------------
// Compiled effects

#include <mote/bytecode/assembler.h>
#include <mote/compiler/compiler.h>
#include <mote/nwn/mdl.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace mote::cli {

bool endsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool isMdlPath(const std::string& path) {
  if (path.size() < 4) return false;
  std::string ext = path.substr(path.size() - 4);
  for (char& c : ext)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext == ".mdl";
}

namespace {

// Imports an NWN model, printing its diagnostics; false on an error. Supermodels and chunk models
// are looked up next to the model, then in each --model-dir (ImportOptions::modelSearchPath).
bool importMdlEffect(const std::string& input, const MdlOptions& mdl, authoring::EffectDesc& effect,
                     nwn::ImportResult* summary = nullptr,
                     std::vector<std::string>* sink = nullptr) {
  nwn::ImportOptions options;
  options.animation = mdl.animation;
  if (mdl.play == "once") options.play = nwn::AnimationPlay::Once;
  if (mdl.play == "loop") options.play = nwn::AnimationPlay::Loop;
  options.textureSearchPath = mdl.textureDirectories;
  options.modelSearchPath = mdl.modelDirectories;
  if (const char* list = std::getenv("MOTE_NWN_TEXTURE_PATH"); list != nullptr) {
    for (std::string& directory : nwn::splitSearchPath(list))
      options.textureSearchPath.push_back(std::move(directory));
  }
  nwn::ImportResult imported = nwn::importMdlFile(input, options);
  for (const authoring::Diagnostic& d : imported.diagnostics)
    say(sink, nwn::formatMdlDiagnostic(d));
  if (!imported.ok()) return false;
  effect = std::move(imported.effect);
  if (summary != nullptr) *summary = std::move(imported);
  return true;
}

}  // namespace

Status makeParentFolder(const std::string& path) {
  const auto parent = std::filesystem::path(path).parent_path();
  if (parent.empty()) return {};
  std::error_code ec;
  std::filesystem::create_directories(parent, ec);
  if (ec) return ioError("cannot create " + parent.string() + ": " + ec.message());
  return {};
}

int runImportMdl(const std::string& input, const std::string& output, const MdlOptions& mdl,
                 bool listAnimations) {
  if (listAnimations) {
    const nwn::MdlParseResult parsed = nwn::loadMdlFile(input);
    for (const authoring::Diagnostic& d : parsed.diagnostics)
      fmt::print(stderr, "{}\n", nwn::formatMdlDiagnostic(d));
    if (!parsed.ok()) return 1;
    // The animations it inherits from its supermodels too, as importMdlFile sees them.
    const std::filesystem::path parent = std::filesystem::path(input).parent_path();
    std::vector<std::string> searchPath{parent.empty() ? "." : parent.string()};
    searchPath.insert(searchPath.end(), mdl.modelDirectories.begin(), mdl.modelDirectories.end());
    const nwn::SupermodelChain chain = nwn::loadSupermodels(parsed.model, searchPath);
    for (const authoring::Diagnostic& d : chain.diagnostics)
      fmt::print(stderr, "{}\n", nwn::formatMdlDiagnostic(d));
    const nwn::MdlModel model = nwn::withInheritedAnimations(parsed.model, chain.models);
    const std::string chosen = nwn::defaultAnimation(model);
    if (model.animations.empty()) fmt::print("{}: no animations\n", input);
    for (const nwn::MdlAnimation& a : model.animations) {
      std::size_t detonations = 0;
      for (const nwn::MdlEvent& e : a.events)
        detonations += e.name == "detonate" ? 1 : 0;
      fmt::print("{}  length {:.3f} s{}, {} event{} ({} detonate), {} node{}{}{}\n", a.name,
                 a.length, nwn::animationLoops(a.name) ? " (loops)" : "", a.events.size(),
                 a.events.size() == 1 ? "" : "s", detonations, a.nodes.size(),
                 a.nodes.size() == 1 ? "" : "s",
                 a.inheritedFrom.empty() ? "" : "  (from " + a.inheritedFrom + ")",
                 a.name == chosen ? "  (default)" : "");
    }
    return 0;
  }
  if (output.empty()) {
    fmt::print(stderr, "mote import-mdl: -o effect.json is required (or --list-animations)\n");
    return 1;
  }
  authoring::EffectDesc effect;
  nwn::ImportResult summary;
  if (!importMdlEffect(input, mdl, effect, &summary)) return 1;
  const std::string& animation = summary.animation;
  const std::size_t warnings = summary.diagnostics.size();
  if (const Status made = makeParentFolder(output); !made.ok()) {
    fmt::print(stderr, "error: {}\n", made.message());
    return 1;
  }
  const Status written = authoring::saveEffectFile(effect, output);
  if (!written.ok()) {
    fmt::print(stderr, "error: {}\n", written.message());
    return 1;
  }
  fmt::print("{}: {} emitter{} from {}{}, {} warning{}\n", output, effect.emitters.size(),
             effect.emitters.size() == 1 ? "" : "s", input,
             animation.empty() ? std::string()
             : summary.length > 0.0f
                 ? fmt::format(" (animation {}, {} {:g} s)", animation,
                               summary.looping ? "looping every" : "played once,", summary.length)
                 : " (animation " + animation + ")",
             warnings, warnings == 1 ? "" : "s");
  for (const nwn::ImportedChunk& c : summary.chunks)
    fmt::print("  chunk {}: {} triangle{} ({})\n", c.name, c.triangles, c.triangles == 1 ? "" : "s",
               c.mesh);
  for (const nwn::ImportedTexture& t : summary.textures) {
    fmt::print("  texture {}: {}{}\n", t.name,
               t.path.empty() ? "not found (builtin:soft_circle)" : t.path,
               t.txi.empty() ? "" : ", txi " + t.txi);
  }
  return 0;
}

// Compiles `effect` (read from `input`), printing the compiler's diagnostics against that file.
static bool compileReported(const authoring::EffectDesc& effect, const std::string& input,
                            bytecode::CompiledEffect& out,
                            std::vector<std::string>* sink = nullptr) {
  compiler::CompileResult compiled = compiler::compileEffect(effect);
  for (authoring::Diagnostic& d : compiled.diagnostics) {
    d.file = input;
    say(sink, authoring::formatDiagnostic(d));
  }
  if (!compiled.ok()) return false;
  out = std::move(compiled.effect);
  return true;
}

namespace {
// Every collision module's colliders, emitter by emitter.
void collectColliders(const authoring::EffectDesc& effect, std::vector<authoring::Collider>* out) {
  if (out == nullptr) return;
  out->clear();
  for (const authoring::Emitter& e : effect.emitters) {
    authoring::forEachUpdateModule(e.update, [&](const authoring::UpdateModule& m) {
      if (const auto* c = std::get_if<authoring::CollisionModule>(&m))
        out->insert(out->end(), c->colliders.begin(), c->colliders.end());
    });
  }
}
}  // namespace

bool loadCompiledEffect(const std::string& input, bytecode::CompiledEffect& out,
                        const MdlOptions& mdl, std::vector<authoring::Collider>* colliders,
                        std::vector<std::string>* messages) {
  if (isMdlPath(input)) {
    authoring::EffectDesc effect;
    if (!importMdlEffect(input, mdl, effect, nullptr, messages)) return false;
    collectColliders(effect, colliders);
    return compileReported(effect, input, out, messages);
  }
  if (endsWith(input, ".motefx")) {
    Result<std::vector<std::uint8_t>> bytes = readFile(input, bytecode::kMaxMotefxBytes);
    if (!bytes.ok()) {
      say(messages, fmt::format("error: {}", bytes.status().message()));
      return false;
    }
    Result<bytecode::CompiledEffect> loaded = bytecode::loadMotefx(*bytes);
    if (!loaded.ok()) {
      say(messages, fmt::format("{}: error: {}", input, loaded.status().message()));
      return false;
    }
    out = std::move(loaded).takeValue();
    return true;
  }
  const EffectLoadResult effect = authoring::loadEffectFile(input);
  if (!report(effect, false, messages)) return false;
  collectColliders(effect.effect, colliders);
  return compileReported(effect.effect, input, out, messages);
}

int runCompile(const std::string& input, const std::string& output) {
  bytecode::CompiledEffect effect;
  if (!loadCompiledEffect(input, effect)) return 1;
  std::string path = output;
  if (path.empty()) {
    path = endsWith(input, ".json") ? input.substr(0, input.size() - 5) : input;
    path += ".motefx";
  }
  const std::vector<std::uint8_t> bytes = bytecode::saveMotefx(effect);
  const Status written = writeFileAtomically(path, bytes);
  if (!written.ok()) {
    fmt::print(stderr, "error: {}\n", written.message());
    return 1;
  }
  fmt::print("{}: {} emitter{}, {} bytes\n", path, effect.emitters.size(),
             effect.emitters.size() == 1 ? "" : "s", bytes.size());
  return 0;
}

int runDisasm(const std::string& input) {
  bytecode::CompiledEffect effect;
  if (!loadCompiledEffect(input, effect)) return 1;
  for (const bytecode::CompiledEmitter& e : effect.emitters) {
    fmt::print("; emitter {} (content hash {:016x})\n{}\n", e.name,
               bytecode::contentHash(e.program), bytecode::disassemble(e.program));
  }
  return 0;
}

int runEffectInfo(const std::string& input) {
  bytecode::CompiledEffect effect;
  if (!loadCompiledEffect(input, effect)) return 1;
  const auto plural = [](std::size_t n, std::string_view word) {
    return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s");
  };
  fmt::print("effect {}: {}, {}, {}\n", effect.name.empty() ? "(unnamed)" : effect.name,
             plural(effect.emitters.size(), "emitter"), plural(effect.materials.size(), "material"),
             plural(effect.globals.size(), "global"));
  for (const bytecode::CompiledEmitter& e : effect.emitters) {
    const bytecode::Program& p = e.program;
    fmt::print(
        "  {}: max {} particles, {} words/particle, init {} + update {} instructions, {} "
        "registers, {} constants\n",
        e.name, e.maxParticles, p.particleWords, p.init.size() / 4, p.update.size() / 4,
        p.registerCount, p.constants.size());
    std::string layout;
    for (const bytecode::FieldSlot& f : p.particleFields)
      layout += fmt::format(" {}[{}..{})", f.name, f.offset, f.offset + f.width);
    fmt::print("    layout:{}\n", layout);
  }
  return 0;
}

namespace {

// A host event as a line: time, kind, tag, emitter, particle, where and how fast.
void printEvent(const HostEvent& e, const ParticleWorld& world, EffectHandle placed,
                const bytecode::CompiledEffect& effect) {
  constexpr std::array<std::string_view, bytecode::kReportKinds> kKinds{"birth", "death",
                                                                        "collision", "custom"};
  std::string_view emitter = "?";
  for (std::uint32_t i = 0; i < effect.emitters.size(); ++i)
    if (world.emitter(placed, i) == e.emitter) emitter = effect.emitters[i].name;
  fmt::print(
      "t={:7.3f}s event {} (tag {}) {} particle {} at ({:.3f}, {:.3f}, {:.3f}) moving ({:.3f}, "
      "{:.3f}, {:.3f})\n",
      e.time, kKinds[static_cast<std::size_t>(e.kind)], e.tag, emitter, e.particle, e.position[0],
      e.position[1], e.position[2], e.velocity[0], e.velocity[1], e.velocity[2]);
}

}  // namespace

int runSimulate(const SimulateOptions& options) {
  if (options.events && options.gpu) {
    fmt::print(stderr, "error: --events reads the CPU runtime's event buffer; leave out --gpu\n");
    return 1;
  }
  bytecode::CompiledEffect effect;
  if (!loadCompiledEffect(options.input, effect)) return 1;
  std::unique_ptr<ThreadPool> pool;
  if (!options.gpu && options.threads > 1) {
    Result<std::unique_ptr<ThreadPool>> created = ThreadPool::create(options.threads);
    if (!created.ok()) {
      fmt::print(stderr, "error: {}\n", created.status().message());
      return 1;
    }
    pool = std::move(created.value());
  }
  PlaceOptions place;
  place.gpu = options.gpu;
  place.jobs = pool.get();
  place.seed = options.seed;
  EffectHandle placed;
  Result<std::unique_ptr<Simulation>> made = placeEffect(effect, place, placed);
  if (!made.ok()) {
    fmt::print(stderr, "{}: error: {}\n", options.input, made.status().message());
    return 1;
  }
  Simulation* sim = made->get();
  const auto failed = [](const Status& s) {
    fmt::print(stderr, "error: {}\n", s.message());
    return 1;
  };
  const auto ticksPerSecond =
      static_cast<std::uint32_t>(std::max(1.0, std::round(1.0 / options.dt)));
  for (std::uint32_t t = 1; t <= options.ticks; ++t) {
    if (Status s = sim->tick(static_cast<float>(options.dt)); !s.ok()) return failed(s);
    if (options.events) {
      Result<const ParticleWorld*> world = sim->world();
      if (!world.ok()) return failed(world.status());
      for (const HostEvent& e : (*world)->events())
        printEvent(e, **world, placed, effect);
      if ((*world)->stats().eventsDropped > 0) {
        fmt::print("t={:7.3f}s {} events past the cap (WorldDesc::maxEventsPerEmitter)\n",
                   (*world)->stats().time, (*world)->stats().eventsDropped);
      }
    }
    if (!options.hashOnly && (t % ticksPerSecond == 0 || t == options.ticks)) {
      Result<WorldStats> s = sim->stats();
      if (!s.ok()) return failed(s.status());
      fmt::print("t={:7.3f}s tick {:5}: {} live, {} spawned, {} dropped, {} died\n", s->time, t,
                 s->live, s->spawnedTotal, s->droppedTotal, s->died);
    }
  }
  Result<const ParticleWorld*> world = sim->world();
  if (!world.ok()) return failed(world.status());
  const ParticleWorld& w = **world;
  if (options.hashOnly) {
    fmt::print("{:016x}\n",
               w.stateHash(options.hashInIdOrder ? HashOrder::Id : HashOrder::Storage));
    return 0;
  }
  for (std::uint32_t i = 0; i < effect.emitters.size(); ++i) {
    const Result<EmitterStats> s = w.emitterStats(w.emitter(placed, i));
    if (!s.ok()) continue;
    const Bounds& b = s->bounds;
    std::string bounds = "bounds unknown (empty)";
    if (b.known) {
      bounds = fmt::format("bounds [{:.2f}, {:.2f}, {:.2f}]..[{:.2f}, {:.2f}, {:.2f}]", b.min[0],
                           b.min[1], b.min[2], b.max[0], b.max[1], b.max[2]);
    }
    fmt::print("  {}: {} / {} live, {} spawned, {} dropped, {} died, {}{}\n",
               effect.emitters[i].name, s->live, s->capacity, s->spawned, s->dropped, s->died,
               bounds, s->finished ? ", finished" : "");
  }
  const double seconds = sim->simulateSeconds();
  fmt::print("state hash {:016x}; {:.3f} ms simulating ({:.1f} us/tick, {}{})\n", w.stateHash(),
             seconds * 1e3, seconds * 1e6 / std::max(1u, options.ticks),
             options.gpu ? "GPU" : fmt::format("{} thread", std::max(1u, options.threads)),
             !options.gpu && options.threads > 1 ? "s" : "");
  return 0;
}

}  // namespace mote::cli
