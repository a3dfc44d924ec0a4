// SPDX-License-Identifier: MIT
// `mote bench --gpu`: the GPU world on the standard effect and on spawning, timed by the GPU's own
// timestamps, beside the same effect on one CPU core (docs/performance.md, "The GPU world").
#include "gpu_bench.h"

#include "runtime_bench.h"
#include "standard_effect.h"

#include <mote/runtime/world.h>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <vector>

#if MOTE_HAVE_GPU
#include <mote/gpu/context.h>
#include <mote/gpu/world.h>
#endif

namespace mote::cli {

#if MOTE_HAVE_GPU
namespace {

constexpr float kDt = bench::kBenchDt;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

// Ticks until `minSeconds` of wall time and at least `repetitions` ticks have passed; the median
// of what `sample` says each tick took.
template <typename Tick>
double medianOfTicks(double minSeconds, int repetitions, Tick&& tick) {
  using Clock = std::chrono::steady_clock;
  std::vector<double> samples;
  const auto t0 = Clock::now();
  while (static_cast<int>(samples.size()) < repetitions ||
         std::chrono::duration<double>(Clock::now() - t0).count() < minSeconds) {
    const std::optional<double> s = tick();
    if (!s) return -1.0;
    samples.push_back(*s);
    if (samples.size() >= 1000) break;
  }
  return median(std::move(samples));
}

// One CPU core's seconds a tick, the median.
double cpuSecondsPerTick(const bytecode::CompiledEffect& effect, bool settle, double minSeconds,
                         int repetitions) {
  Result<std::unique_ptr<ParticleWorld>> world = ParticleWorld::create(worldDescFor(effect));
  if (!world.ok() || !(*world)->addEffect(effect).ok()) return -1.0;
  if (settle) (*world)->tick(kDt);  // the burst
  return medianOfTicks(minSeconds, repetitions, [&]() -> std::optional<double> {
    const auto t0 = std::chrono::steady_clock::now();
    (*world)->tick(kDt);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  });
}

struct GpuCase {
  std::string family;  // "standard" or "spawn"
  std::uint32_t n = 0;
};

}  // namespace

std::vector<GpuBenchResult> runGpuBenches(double minSeconds, int repetitions,
                                          std::uint64_t maxParticles) {
  std::vector<GpuBenchResult> out;
  for (const bool fast : {false, true}) {
    gpu::ContextDesc desc;
    desc.fastMode = fast;
    desc.submitTimeoutMs = 120000;  // a large burst on a slow device (lavapipe) is not a hang
    Result<std::unique_ptr<gpu::Context>> made = gpu::Context::create(desc);
    if (!made.ok()) {
      fmt::print(stderr, "mote bench --gpu: {}\n", made.status().toString());
      return {};
    }
    gpu::Context& context = **made;
    if (!fast && context.selfTest().mode != gpu::Mode::Exact) continue;  // fast is measured next
    if (context.device().timestampPeriod <= 0.0f) {
      fmt::print(stderr, "mote bench --gpu: '{}' writes no timestamps on its compute queue\n",
                 context.device().name);
      return {};
    }
    const std::string mode = gpu::modeName(context.selfTest().mode);
    // A case whose frame would outlast this, judged from the family's last measured frame, is
    // skipped and says so: CPU implementations (lavapipe) take seconds per frame at 10^6.
    constexpr double kFrameBudgetSeconds = 2.0;
    std::map<std::string, std::pair<std::uint32_t, double>> measured;  // family → (n, s a frame)
    for (const GpuCase& c :
         {GpuCase{"standard", 100000}, GpuCase{"standard", 1000000}, GpuCase{"standard", 10000000},
          GpuCase{"spawn", 100000}, GpuCase{"spawn", 1000000}}) {
      GpuBenchResult r;
      r.name = fmt::format("gpu/{}{}/{}", c.family, fast ? "-fast" : "", c.n);
      r.mode = mode;
      r.device = context.device().name;
      r.particles = c.n;
      const bool standard = c.family == "standard";
      if (c.n > maxParticles) {
        r.skipped = fmt::format("more particles than --particles {}", maxParticles);
        out.push_back(std::move(r));
        continue;
      }
      if (const auto last = measured.find(c.family); last != measured.end()) {
        const double predicted = last->second.second * c.n / last->second.first;
        if (predicted > kFrameBudgetSeconds) {
          r.skipped =
              fmt::format("a frame would take about {:.0f} s on this device ({} took {:.2f} s)",
                          predicted, last->second.first, last->second.second);
          out.push_back(std::move(r));
          continue;
        }
      }
      const std::optional<bytecode::CompiledEffect> effect =
          compileBenchEffect(standard ? bench::standardWorldEffect(c.n) : bench::spawnEffect(c.n));
      if (!effect) {
        fmt::print(stderr, "mote bench --gpu: cannot compile the {} effect\n", c.family);
        return {};
      }
      Result<std::unique_ptr<gpu::ParticleWorld>> world =
          gpu::ParticleWorld::create(context, gpu::worldDescFor(*effect));
      if (world.ok()) {
        if (const Result<EffectHandle> placed = (*world)->addEffect(*effect); !placed.ok())
          world = placed.status();
      }
      if (!world.ok()) {
        r.skipped = world.status().message();
        out.push_back(std::move(r));
        continue;
      }
      gpu::ParticleWorld& w = **world;
      // The standard effect's burst first: every later tick updates all n.
      if (standard) {
        if (const Status ticked = w.tick(kDt); !ticked.ok()) {
          fmt::print(stderr, "mote bench --gpu: {}: {}\n", r.name, ticked.toString());
          return {};
        }
      }
      // Words each particle's record moves a tick: the record read and written whole at its
      // stride (the floor the issue states), plus the order read and the alive list written.
      r.bytesPerParticle = 2.0 * 4.0 * (3.0 + effect->emitters[0].program.particleWords) + 8.0;
      const double gpuSeconds =
          medianOfTicks(minSeconds, repetitions, [&]() -> std::optional<double> {
            if (!w.tick(kDt).ok()) return std::nullopt;
            const Result<WorldStats> s = w.readStats();
            if (!s.ok()) return std::nullopt;
            return s->simulateSeconds;
          });
      if (gpuSeconds < 0.0) {
        fmt::print(stderr, "mote bench --gpu: {}: {}\n", r.name, w.readStats().status().toString());
        return {};
      }
      r.nsPerParticle = gpuSeconds * 1e9 / c.n;
      measured[c.family] = {c.n, gpuSeconds};
      const double cpu = cpuSecondsPerTick(*effect, standard, minSeconds, repetitions);
      r.baselineNsPerParticle = cpu > 0.0 ? cpu * 1e9 / c.n : 0.0;
      out.push_back(std::move(r));
    }
  }
  return out;
}

#else
std::vector<GpuBenchResult> runGpuBenches(double /*minSeconds*/, int /*repetitions*/,
                                          std::uint64_t /*maxParticles*/) {
  fmt::print(stderr,
             "mote: error: this build has no GPU backend (configure with -DMOTE_GPU=ON after "
             "scripts/bootstrap installs the Vulkan packages)\n");
  return {};
}
#endif

int printGpuBenches(const std::vector<GpuBenchResult>& results, bool json) {
  if (json) fmt::print("[");
  for (std::size_t i = 0; i < results.size(); ++i) {
    const GpuBenchResult& r = results[i];
    if (json) {
      fmt::print(
          "{}\n  {{\"name\": \"{}\", \"particles\": {}, \"device\": \"{}\", \"mode\": \"{}\"",
          i == 0 ? "" : ",", r.name, r.particles, r.device, r.mode);
      if (!r.skipped.empty()) {
        fmt::print(", \"skipped\": \"{}\"}}", r.skipped);
        continue;
      }
      fmt::print(", \"ns_per_particle\": {:.4f}, \"bytes_per_particle\": {:.0f}", r.nsPerParticle,
                 r.bytesPerParticle);
      if (r.baselineNsPerParticle > 0.0) {
        fmt::print(", \"baseline_ns_per_particle\": {:.4f}, \"ratio\": {:.4f}",
                   r.baselineNsPerParticle, r.nsPerParticle / r.baselineNsPerParticle);
      }
      fmt::print("}}");
    } else if (!r.skipped.empty()) {
      fmt::print("  {:<28} skipped: {}\n", r.name, r.skipped);
    } else {
      fmt::print(
          "  {:<28} {:10.4f} ns/particle  {:4.0f} B/particle  (one CPU core {:.3f}: {:.1f}x)\n",
          r.name, r.nsPerParticle, r.bytesPerParticle, r.baselineNsPerParticle,
          r.nsPerParticle > 0.0 ? r.baselineNsPerParticle / r.nsPerParticle : 0.0);
    }
  }
  if (json) fmt::print("\n]\n");
  return results.empty() ? 1 : 0;
}

}  // namespace mote::cli
