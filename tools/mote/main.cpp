// SPDX-License-Identifier: MIT
// The mote command-line tool: entry point and subcommands.
#include "effect_commands.h"
#include "gpu_bench.h"
#include "gpu_commands.h"
#include "host_world_options.h"
#include "render_command.h"
#include "runtime_bench.h"

#include <mote/core/counter_rng.h>
#include <mote/core/cpu_features.h>
#include <mote/core/fnv1a.h>
#include <mote/core/job_system.h>
#include <mote/core/prng.h>
#include <mote/core/version.h>

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

namespace {

std::string compilerName() {
#if defined(__clang__)
  return fmt::format("clang {}.{}.{}", __clang_major__, __clang_minor__, __clang_patchlevel__);
#elif defined(__GNUC__)
  return fmt::format("g++ {}.{}.{}", __GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__);
#else
  return "unknown";
#endif
}

int runInfo() {
  fmt::print("mote {}\n", MOTE_VERSION_STRING);
  fmt::print("  compiler          {}\n", compilerName());
  fmt::print("  asserts           {}\n", MOTE_ASSERTS_ENABLED ? "on" : "off");
  fmt::print("  hardware threads  {}\n", std::max(1u, std::thread::hardware_concurrency()));
  const mote::CpuFeatures& cpu = mote::cpuFeatures();
  fmt::print("  vector ISA        {} (avx2 {}, fma {}, avx512f {}, avx512bw {}, avx512vl {})\n",
             mote::widestVectorIsa(), cpu.avx2, cpu.fma, cpu.avx512f, cpu.avx512bw, cpu.avx512vl);
  // Every layer this tool links (ARCHITECTURE.md §2; tools/mote/CMakeLists.txt).
  fmt::print(
      "  layers            core, authoring (effect format), bytecode (ISA, verifier, .motefx), "
      "compiler, runtime (VM, ParticleWorld), sprite (cameras, images, sprite batcher, "
      "rasterizer), render (particle renderer), nwn (MDL import)\n");
  return 0;
}

// One benchmark: `body(n)` runs n operations and returns a value the optimiser must keep.
struct BenchCase {
  const char* name;
  const char* unit;
  std::uint64_t (*body)(std::uint64_t n);
};

std::uint64_t benchPrngU32(std::uint64_t n) {
  mote::Prng prng(1);
  std::uint64_t sum = 0;
  for (std::uint64_t i = 0; i < n; ++i)
    sum += prng.nextU32();
  return sum;
}

std::uint64_t benchPrngTap24(std::uint64_t n) {
  mote::Prng prng(1);
  std::uint64_t sum = 0;
  for (std::uint64_t i = 0; i < n; ++i)
    sum += prng.nextTap24();
  return sum;
}

std::uint64_t benchCounterRandom(std::uint64_t n) {
  std::uint64_t sum = 0;
  for (std::uint64_t i = 0; i < n; ++i)
    sum += mote::counterRandomU32(42, 7, i);
  return sum;
}

std::uint64_t benchFnv1aByte(std::uint64_t n) {
  std::string data(4096, 'x');
  std::uint64_t h = 0;
  for (std::uint64_t done = 0; done < n; done += data.size()) {
    data[0] = static_cast<char>(h);
    h = mote::fnv1a64(data);
  }
  return h;
}

double medianNsPerOp(const BenchCase& c, double minSeconds, int repetitions, std::uint64_t& sink) {
  using Clock = std::chrono::steady_clock;
  // Calibrate the operation count so one repetition lasts about minSeconds.
  std::uint64_t n = 1024;
  for (;;) {
    const auto t0 = Clock::now();
    sink += c.body(n);
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    if (s >= minSeconds || n >= (1ULL << 40)) break;
    n *= s > 0.0 ? std::clamp<std::uint64_t>(static_cast<std::uint64_t>(minSeconds / s * 1.2) + 1,
                                             2, 10)
                 : 10;
  }
  std::vector<double> samples;
  for (int r = 0; r < repetitions; ++r) {
    const auto t0 = Clock::now();
    sink += c.body(n);
    samples.push_back(std::chrono::duration<double, std::nano>(Clock::now() - t0).count() /
                      static_cast<double>(n));
  }
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

// `mote bench --json`: one JSON array of the runtime cases on stdout (docs/performance.md).
int printRuntimeJson(const std::vector<mote::cli::RuntimeBenchResult>& results) {
  fmt::print("[");
  for (std::size_t i = 0; i < results.size(); ++i) {
    const mote::cli::RuntimeBenchResult& r = results[i];
    fmt::print("{}\n  {{\"name\": \"{}\", \"particles\": {}, \"ns_per_particle\": {:.4f}",
               i == 0 ? "" : ",", r.name, r.particles, r.nsPerParticle);
    if (r.baselineNsPerParticle > 0.0) {
      fmt::print(", \"baseline_ns_per_particle\": {:.4f}, \"ratio\": {:.4f}",
                 r.baselineNsPerParticle, r.nsPerParticle / r.baselineNsPerParticle);
    }
    fmt::print("}}");
  }
  fmt::print("\n]\n");
  return results.empty() ? 1 : 0;
}

int runBench(double minSeconds, int repetitions, bool json) {
  if (json) return printRuntimeJson(mote::cli::runRuntimeBenches(minSeconds, repetitions));
  const BenchCase cases[] = {
      {"prng.nextU32", "draw", &benchPrngU32},
      {"prng.nextTap24", "draw", &benchPrngTap24},
      {"counterRandomU32 (Philox4x32-10)", "draw", &benchCounterRandom},
      {"fnv1a64", "byte", &benchFnv1aByte},
  };
  fmt::print("mote bench: median of {} repetitions, >= {:.2f} s each\n", repetitions, minSeconds);
  std::uint64_t sink = 0;
  for (const BenchCase& c : cases) {
    const double ns = medianNsPerOp(c, minSeconds, repetitions, sink);
    fmt::print("  {:<34} {:8.3f} ns/{}  ({:.0f} M/s)\n", c.name, ns, c.unit, 1e3 / ns);
  }
  // The parallelFor overhead: one dispatch of 16 small chunks on the default pool.
  auto pool = mote::ThreadPool::create(0);
  if (!pool.ok()) {
    fmt::print(stderr, "mote bench: {}\n", pool.status().toString());
    return 1;
  }
  std::vector<std::uint64_t> chunkSums(16);
  using Clock = std::chrono::steady_clock;
  std::vector<double> samples;
  for (int r = 0; r < repetitions; ++r) {
    constexpr int kDispatches = 2000;
    const auto t0 = Clock::now();
    for (int i = 0; i < kDispatches; ++i) {
      mote::parallelFor(**pool, 16 * 64, 64, [&](std::size_t begin, std::size_t end) {
        chunkSums[begin / 64] += end - begin;
      });
    }
    samples.push_back(std::chrono::duration<double, std::nano>(Clock::now() - t0).count() /
                      kDispatches);
  }
  std::sort(samples.begin(), samples.end());
  fmt::print("  {:<34} {:8.0f} ns/dispatch  ({} threads)\n", "parallelFor 16 chunks",
             samples[samples.size() / 2], (*pool)->concurrency());
  for (std::uint64_t s : chunkSums)
    sink += s;
  fmt::print("  (checksum {:016x})\n", sink);
  const std::vector<mote::cli::RuntimeBenchResult> runtime =
      mote::cli::runRuntimeBenches(minSeconds, repetitions);
  for (const mote::cli::RuntimeBenchResult& r : runtime) {
    fmt::print("  {:<34} {:8.3f} ns/particle", r.name, r.nsPerParticle);
    if (r.baselineNsPerParticle > 0.0) {
      fmt::print("  (baseline {:.3f}, ratio {:.2f})", r.baselineNsPerParticle,
                 r.nsPerParticle / r.baselineNsPerParticle);
    }
    fmt::print("\n");
  }
  return runtime.empty() ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"mote: author, compile, simulate and render particle effects"};
  app.set_version_flag("--version", std::string("mote ") + MOTE_VERSION_STRING);
  app.require_subcommand(0, 1);

  std::string infoFile;
  CLI::App* info = app.add_subcommand(
      "info", "Print the build configuration, or the emitters, layouts and programs of FILE");
  info->add_option("file", infoFile, "An effect .json or a compiled .motefx");
  bool infoGpu = false;
  info->add_flag("--gpu", infoGpu,
                 "Print the Vulkan devices, the chosen one's limits and its self-test (exact or "
                 "fast mode, and why)");

  double benchSeconds = 0.1;
  int benchRepetitions = 7;
  CLI::App* bench =
      app.add_subcommand("bench", "Measure Mote's core primitives and the runtime on this machine");
  bench->add_option("--seconds", benchSeconds, "Minimum time of one repetition")
      ->check(CLI::Range(0.001, 60.0));
  bench->add_option("--repetitions", benchRepetitions, "Repetitions; the median is reported")
      ->check(CLI::Range(1, 1000));
  bool benchJson = false;
  bench->add_flag("--json", benchJson,
                  "Print the runtime cases as one JSON array (name, particles, ns_per_particle, "
                  "baseline_ns_per_particle, ratio)");
  std::uint64_t benchParticles = 10000000;
  bench
      ->add_option("--particles", benchParticles,
                   "With --gpu: skip the cases of more particles than this")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 32));
  bool benchGpu = false;
  bench->add_flag("--gpu", benchGpu,
                  "Measure the GPU world instead (gpu/standard/N, gpu/spawn/N, exact and fast "
                  "mode; gpu/draw/CASE/MODE, its pool drawn in place) by the GPU's timestamps, "
                  "beside the same work on one CPU core");

  std::vector<std::string> validateFiles;
  bool validateWerror = false;
  CLI::App* validate = app.add_subcommand(
      "validate", "Check effect files; diagnostics go to stderr, exit 1 if any file is invalid");
  validate->add_option("files", validateFiles, "Effect files (.json)")->required();
  validate->add_flag("--werror", validateWerror, "Treat warnings as errors");

  bool schemaReference = false;
  CLI::App* schema = app.add_subcommand(
      "schema", "Print the effect format's JSON Schema (docs/schema/mote.effect.schema.json)");
  schema->add_flag("--reference", schemaReference,
                   "Print the Markdown field reference instead (docs/effect-format.md)");
  bool schemaNodeReference = false;
  schema->add_flag("--node-reference", schemaNodeReference,
                   "Print the Markdown node reference instead (docs/node-library.md)");

  std::vector<std::string> formatFiles;
  bool formatCheck = false;
  CLI::App* format = app.add_subcommand(
      "format", "Rewrite effect files in canonical form (stable, defaults omitted)");
  format->add_option("files", formatFiles, "Effect files (.json)")->required();
  format->add_flag("--check", formatCheck, "Only report files that are not canonical (exit 1)");

  std::string compileInput;
  std::string compileOutput;
  CLI::App* compile = app.add_subcommand("compile", "Compile an effect .json to a .motefx");
  compile->add_option("file", compileInput, "Effect .json")->required();
  compile->add_option("-o,--output", compileOutput, "Output path (default: FILE with .motefx)");

  std::string disasmInput;
  CLI::App* disasm =
      app.add_subcommand("disasm", "Print the programs of a .motefx or effect .json");
  disasm->add_option("file", disasmInput, "A .motefx or effect .json")->required();

  mote::cli::SimulateOptions runOptions;
  CLI::App* run =
      app.add_subcommand("run", "Simulate an effect (.json or .motefx) and print its statistics");
  mote::cli::SimulateOptions hashOptions;
  hashOptions.hashOnly = true;
  CLI::App* hash = app.add_subcommand(
      "hash", "Simulate an effect and print the state hash (FNV-1a, docs/runtime.md)");
  for (auto [command, options] : {std::pair{run, &runOptions}, std::pair{hash, &hashOptions}}) {
    command
        ->add_option("file", options->input, "An effect .json, a compiled .motefx or an NWN .mdl")
        ->required();
    command->add_option("--ticks", options->ticks, "Ticks to simulate")
        ->check(CLI::Range(0u, 10000000u));
    command->add_option("--dt", options->dt, "Seconds per tick")->check(CLI::Range(1e-6, 1.0));
    command->add_option("--threads", options->threads, "Worker threads (1: the calling thread)")
        ->check(CLI::Range(1u, 256u));
    command->add_option("--seed", options->seed, "Instance seed mixed into every emitter's");
    command->add_flag("--gpu", options->gpu,
                      "Simulate on the GPU (Vulkan; MOTE_GPU_DEVICE picks the device) and read "
                      "the particles back");
  }
  run->add_flag("--events", runOptions.events,
                "Print each tick's host events (events with \"report\": true, report nodes)");
  std::string hashOrder = "storage";
  hash->add_option("--order", hashOrder,
                   "Particle order of the hash: storage (slot order) or id (particle ids, the "
                   "GPU's order)")
      ->check(CLI::IsMember({"storage", "id"}));

  mote::cli::RenderCommandOptions renderOptions;
  CLI::App* renderCommand = app.add_subcommand(
      "render", "Simulate an effect and draw it to GIF, PNG, APNG, a PNG sequence or video");
  renderCommand
      ->add_option("file", renderOptions.input,
                   "An effect .json, a compiled .motefx or an NWN .mdl")
      ->required();
  renderCommand
      ->add_option("-o,--output", renderOptions.output,
                   "out.gif, out.png (one frame; more: APNG), out.apng, frame_%04d.png, out.mp4, "
                   "out.webm")
      ->required();
  renderCommand->add_option("--frames", renderOptions.frames, "Frames to draw")
      ->check(CLI::Range(1u, 10000u));
  renderCommand->add_option("--fps", renderOptions.fps, "Frames per simulated second")
      ->check(CLI::Range(1.0, 240.0));
  renderCommand->add_option("--size", renderOptions.size, "WIDTHxHEIGHT in pixels");
  renderCommand->add_option("--camera", renderOptions.camera, "orbit, front, top or iso");
  renderCommand
      ->add_option("--distance", renderOptions.distance,
                   "Camera distance in metres (default: frame the measured bounds)")
      ->check(CLI::Range(0.0, 1e5));
  renderCommand->add_option("--seed", renderOptions.seed, "Instance seed");
  renderCommand->add_option("--threads", renderOptions.threads, "Threads (0: all cores)")
      ->check(CLI::Range(0u, 256u));
  renderCommand->add_option("--background", renderOptions.background, "Hex sRGB colour");
  renderCommand->add_flag("--ground,!--no-ground", renderOptions.ground,
                          "Draw a grid on the ground plane (default on)");
  renderCommand->add_option("--time", renderOptions.time, "Seconds into the effect of frame 0")
      ->check(CLI::Range(0.0, 3600.0));
  renderCommand->add_flag("--dither", renderOptions.dither, "Dither GIF output");
  renderCommand->add_option("--tonemap", renderOptions.toneMap,
                            "aces (default), reinhard or none: how colours above 1 become light");
  renderCommand->add_option("--bloom", renderOptions.bloom,
                            "Bloom strength in [0, 16] (0, the default: off)");
  renderCommand->add_option("--light", renderOptions.lights,
                            "dir:x,y,z:r,g,b (toward the light) or point:x,y,z:r,g,b:radius, for "
                            "lit materials; repeat for more; any replace the default key and back "
                            "lights");
  renderCommand->add_option("--ambient", renderOptions.ambient,
                            "r,g,b: the scene's ambient light (linear; default 0.2,0.21,0.25)");
  renderCommand->add_option("--transparency", renderOptions.transparency,
                            "emitter (default: emitters by sort_order), sorted (all particles by "
                            "depth) or oit (weighted blended order-independent)");
  renderCommand->add_flag("--gpu", renderOptions.gpu,
                          "Simulate and draw on the GPU (Vulkan): the GPU renderer draws the "
                          "particles read back (no mesh particles yet)");
  renderCommand->add_flag("--debug", renderOptions.debug,
                          "Draw emitter axes (RGB), bounds boxes (yellow), velocity rays (cyan) "
                          "and colliders (magenta) over the particles");
  renderCommand
      ->add_option("--hide", renderOptions.hide,
                   "Leave this emitter out of the drawing (it still runs); repeatable")
      ->allow_extra_args(false);
  renderCommand->add_option("--solo", renderOptions.solo,
                            "Draw this emitter alone (the others still run)");
  mote::cli::addHostWorldOptions(*renderCommand, renderOptions.hostWorld);
  renderCommand
      ->add_option("--circle", renderOptions.circle,
                   "Move the effect on a horizontal circle of this radius, m (one turn per 4 s)")
      ->check(CLI::Range(0.0, 1e4));

  renderCommand->add_option("--animation", renderOptions.animation,
                            ".mdl input: the animation whose keys and events drive the effect");
  renderCommand
      ->add_option("--play", renderOptions.play,
                   ".mdl input: play the animation once or loop it (default: by its name — "
                   "duration and resting states loop)")
      ->check(CLI::IsMember({"once", "loop"}));
  renderCommand
      ->add_option("--texture-dir", renderOptions.textureDirectories,
                   ".mdl input: a folder holding the model's textures (.png, .tga or .dds); "
                   "repeatable, searched after the model's own, before MOTE_NWN_TEXTURE_PATH")
      ->allow_extra_args(false);
  renderCommand
      ->add_option("--model-dir", renderOptions.modelDirectories,
                   ".mdl input: a folder where supermodels and chunk models are looked up; "
                   "repeatable, searched after the model's own")
      ->allow_extra_args(false);

  std::string importInput;
  std::string importOutput;
  mote::cli::MdlOptions importOptions;
  bool importList = false;
  CLI::App* importMdl = app.add_subcommand(
      "import-mdl", "Import the emitters of an NWN ASCII model (.mdl) as an effect .json");
  importMdl->add_option("file", importInput, "An NWN ASCII model (.mdl)")->required();
  importMdl->add_option("-o,--output", importOutput, "The effect .json to write");
  importMdl->add_option("--animation", importOptions.animation,
                        "The animation whose keys and events drive the effect (default: impact, "
                        "else duration, else the first)");
  importMdl
      ->add_option("--play", importOptions.play,
                   "Play the animation once or loop it (default: by its name — duration and "
                   "resting states loop)")
      ->check(CLI::IsMember({"once", "loop"}));
  importMdl
      ->add_option("--texture-dir", importOptions.textureDirectories,
                   "A folder where the model's textures are looked up as <name>.png, .tga or "
                   ".dds (and <name>.txi); repeatable, searched after the model's own, before "
                   "MOTE_NWN_TEXTURE_PATH")
      ->allow_extra_args(false);
  importMdl
      ->add_option("--model-dir", importOptions.modelDirectories,
                   "A folder where supermodels and chunk models are looked up as <name>.mdl; "
                   "repeatable, searched after the model's own")
      ->allow_extra_args(false);
  importMdl->add_flag("--list-animations", importList, "List the model's animations and exit");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    (void)app.exit(e);  // prints the error and the usage hint
    return 1;
  }

  if (*info && infoGpu) return mote::cli::runGpuInfo();
  if (*info) return infoFile.empty() ? runInfo() : mote::cli::runEffectInfo(infoFile);
  if (*compile) return mote::cli::runCompile(compileInput, compileOutput);
  if (*disasm) return mote::cli::runDisasm(disasmInput);
  if (*bench && benchGpu) {
    return mote::cli::printGpuBenches(
        mote::cli::runGpuBenches(benchSeconds, benchRepetitions, benchParticles), benchJson);
  }
  if (*bench) return runBench(benchSeconds, benchRepetitions, benchJson);
  if (*run) return mote::cli::runSimulate(runOptions);
  if (*renderCommand) return mote::cli::runRender(renderOptions);
  if (*importMdl)
    return mote::cli::runImportMdl(importInput, importOutput, importOptions, importList);
  if (*hash) {
    // The GPU allocates slots with atomics: its particles read back in id order, and the CPU's
    // hash to compare with is --order id.
    hashOptions.hashInIdOrder = hashOrder == "id" || hashOptions.gpu;
    return mote::cli::runSimulate(hashOptions);
  }
  if (*validate) return mote::cli::runValidate(validateFiles, validateWerror);
  if (*schema) return mote::cli::runSchema(schemaReference, schemaNodeReference);
  if (*format) return mote::cli::runFormat(formatFiles, formatCheck);
  fmt::print("{}", app.help());
  return 0;
}
