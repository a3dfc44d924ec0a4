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
#include <mote/gpu/renderer.h>
#include <mote/gpu/world.h>
#include <mote/render/billboard.h>
#include <mote/render/particle_instance.h>
#include <mote/render/particle_renderer.h>
#include <mote/render/render_packet.h>

#include <glm/geometric.hpp>
#include <glm/mat4x4.hpp>
#include <glm/vec4.hpp>

#include <cmath>
#include <fstream>
#include <sstream>
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

// A GPU world sized for `effect`, with it placed.
Result<std::unique_ptr<gpu::ParticleWorld>> placedWorld(gpu::Context& context,
                                                        const bytecode::CompiledEffect& effect) {
  Result<std::unique_ptr<gpu::ParticleWorld>> world =
      gpu::ParticleWorld::create(context, gpu::worldDescFor(effect));
  if (!world.ok()) return world;
  if (const Result<EffectHandle> placed = (*world)->addEffect(effect); !placed.ok())
    return placed.status();
  return world;
}

struct GpuCase {
  std::string family;  // "standard" or "spawn"
  std::uint32_t n = 0;
};

// ---- gpu/draw/… --------------------------------------------------------------------------------

// n still billboards filling a 16 x 9 x 4 m box: translucent soft circles 4–8 cm across.
std::string billboardField(std::uint32_t n) {
  const std::string count = std::to_string(n);
  return R"({"format": "mote.effect/1", "materials": [{"name": "dot", "texture": "builtin:soft_circle"}],
  "emitters": [{"name": "field", "material": "dot", "max_particles": )" +
         count + R"(, "spawn": {"rate": 0, "bursts": [{"time": 0, "count": )" + count + R"(}]},
  "shape": {"kind": "box", "size": [16, 9, 4]}, "position": [0, 4.5, 0],
  "init": {"lifetime": 1000, "size": [0.04, 0.08], "color": [1, 0.6, 0.3, 0.35]}}]})";
}

// A camera that frames the box [lo, hi] as `mote render` frames an effect (from the front, a
// little above).
render::Camera frameBox(const glm::vec3& lo, const glm::vec3& hi, float aspect) {
  const glm::vec3 centre = (lo + hi) * 0.5f;
  const float radius = std::max(0.5f, glm::length(hi - lo) * 0.5f);
  const float fovY = 0.7f;
  const float distance = radius / std::sin(fovY * 0.5f) / std::min(1.0f, aspect) * 0.8f;
  render::Camera camera =
      render::Camera::perspective(fovY, aspect, std::max(0.01f, distance * 0.01f),
                                  distance + radius * 4.0f + 10.0f)
          .value();
  (void)camera.lookAt(centre + glm::normalize(glm::vec3(0.0f, 0.18f, 1.0f)) * distance, centre,
                      {0.0f, 1.0f, 0.0f});
  return camera;
}

// The area of the convex polygon `p` (screen pixels) inside [0, w] x [0, h]
// (Sutherland–Hodgman against each edge, then the shoelace formula).
double clippedArea(std::vector<glm::vec2> p, float w, float h) {
  const auto clip = [&](auto inside, auto cross) {
    std::vector<glm::vec2> out;
    for (std::size_t k = 0; k < p.size(); ++k) {
      const glm::vec2 a = p[k];
      const glm::vec2 b = p[(k + 1) % p.size()];
      if (inside(a)) out.push_back(a);
      if (inside(a) != inside(b)) out.push_back(cross(a, b));
    }
    p = std::move(out);
  };
  const auto atX = [](float x) {
    return [x](glm::vec2 a, glm::vec2 b) { return a + (b - a) * ((x - a.x) / (b.x - a.x)); };
  };
  const auto atY = [](float y) {
    return [y](glm::vec2 a, glm::vec2 b) { return a + (b - a) * ((y - a.y) / (b.y - a.y)); };
  };
  clip([](glm::vec2 a) { return a.x >= 0.0f; }, atX(0.0f));
  clip([w](glm::vec2 a) { return a.x <= w; }, atX(w));
  clip([](glm::vec2 a) { return a.y >= 0.0f; }, atY(0.0f));
  clip([h](glm::vec2 a) { return a.y <= h; }, atY(h));
  double area = 0.0;
  for (std::size_t k = 0; k < p.size(); ++k) {
    const glm::vec2 a = p[k];
    const glm::vec2 b = p[(k + 1) % p.size()];
    area += static_cast<double>(a.x) * static_cast<double>(b.y) -
            static_cast<double>(b.x) * static_cast<double>(a.y);
  }
  return std::fabs(area) * 0.5;
}

// The frame's overdraw: the screen area of every billboard the renderer draws (corners from the
// software renderer's own per-particle functions), clipped to the viewport, over its area.
double overdrawOf(const ParticleWorld& world, const render::Camera& camera, render::Viewport vp) {
  Result<render::RenderPacketBuilder> builder = render::RenderPacketBuilder::create(4096);
  if (!builder.ok()) return 0.0;
  builder->build(world);
  const glm::mat4 viewProjection = camera.projectionMatrix() * camera.viewMatrix();
  const render::BillboardView view =
      render::BillboardView::fromCamera(camera, glm::vec3(0.0f, 1.0f, 0.0f), 0.0f);
  const auto w = static_cast<float>(vp.width);
  const auto h = static_cast<float>(vp.height);
  double covered = 0.0;
  std::vector<glm::vec2> quad(4);
  for (const render::RenderPacket& p : builder->packets()) {
    if (!p.position.present() || p.mode > bytecode::RenderMode::VelocityAligned) continue;
    const render::BillboardMode mode = render::packetBillboardMode(p);
    for (std::uint32_t i = 0; i < p.count; ++i) {
      const std::array<float, 4> color = render::particlePremultipliedColor(p, i);
      if (p.blend != bytecode::BlendMode::Additive && !(color[3] > 0.0f)) continue;
      const render::BillboardInput in = render::particleBillboardInput(p, i);
      render::BillboardView own = view;
      own.stretchScaleSeconds =
          render::particleStretchSeconds(camera, p.description->render.stretchScaleSeconds, in);
      const std::array<glm::vec3, 4> corners = render::billboardCorners(own, mode, in);
      bool visible = true;
      for (std::size_t c = 0; c < 4; ++c) {
        const glm::vec4 k = viewProjection * glm::vec4(corners[c], 1.0f);
        visible = visible && k.w > camera.nearZ * 0.5f;
        quad[c] = {(k.x / k.w * 0.5f + 0.5f) * w, (0.5f - k.y / k.w * 0.5f) * h};
      }
      if (visible) covered += clippedArea(quad, w, h);
    }
  }
  return covered / (static_cast<double>(w) * static_cast<double>(h));
}

// One draw case: an effect simulated on the GPU for `ticks`, then drawn from its pool in each
// transparency mode at `viewport`; the median GPU frame of at least `repetitions` frames and
// `minSeconds`, against the software renderer's frame on one core.
struct DrawCase {
  std::string name;
  std::string json;  // empty: the case is skipped with `missing`
  std::string missing;
  std::uint32_t ticks = 1;
  render::Viewport viewport;
  std::uint64_t particles = 0;  // for the budget and --particles
};

void runDrawCases(gpu::Context& context, double minSeconds, int repetitions,
                  std::uint64_t maxParticles, std::vector<GpuBenchResult>& out) {
  std::vector<DrawCase> cases;
  {
    DrawCase bonfire{"bonfire-720p", "", "", 120, {1280, 720}, 200};
    std::ifstream file("examples/bonfire.json");
    if (file) {
      std::stringstream text;
      text << file.rdbuf();
      bonfire.json = text.str();
    } else {
      bonfire.missing = "examples/bonfire.json not found (run from the repository root)";
    }
    cases.push_back(bonfire);
  }
  for (const std::uint32_t n : {100000u, 1000000u, 10000000u})
    cases.push_back(
        {fmt::format("billboards-{}-1080p", n), billboardField(n), "", 1, {1920, 1080}, n});
  constexpr double kFrameBudgetSeconds = 2.0;
  std::map<std::string, double> secondsPerParticle;   // mode → the last billboard case's
  std::map<std::string, double> softwarePerParticle;  // the same, the software renderer's
  const std::array<std::pair<render::Transparency, const char*>, 3> modes{
      std::pair{render::Transparency::Emitter, "emitter"},
      std::pair{render::Transparency::Sorted, "sorted"},
      std::pair{render::Transparency::Oit, "oit"}};
  for (const DrawCase& c : cases) {
    const auto row = [&](const char* mode) {
      GpuBenchResult r;
      r.name = fmt::format("gpu/draw/{}/{}", c.name, mode);
      r.mode = gpu::modeName(context.selfTest().mode);
      r.device = context.device().name;
      r.particles = c.particles;
      return r;
    };
    const auto skipAll = [&](const std::string& why) {
      for (const auto& [transparency, mode] : modes) {
        GpuBenchResult r = row(mode);
        r.skipped = why;
        out.push_back(std::move(r));
      }
    };
    if (c.json.empty()) {
      skipAll(c.missing);
      continue;
    }
    if (c.particles > maxParticles) {
      skipAll(fmt::format("more particles than --particles {}", maxParticles));
      continue;
    }
    if (const auto last = secondsPerParticle.find("emitter"); last != secondsPerParticle.end()) {
      const double predicted = last->second * static_cast<double>(c.particles);
      if (predicted > kFrameBudgetSeconds) {
        skipAll(fmt::format("a frame would take about {:.0f} s on this device", predicted));
        continue;
      }
    }
    const std::optional<bytecode::CompiledEffect> effect = compileBenchEffect(c.json);
    if (!effect) {
      skipAll("the effect does not compile");
      continue;
    }
    Result<std::unique_ptr<gpu::ParticleWorld>> world = placedWorld(context, *effect);
    if (!world.ok()) {
      skipAll(world.status().message());
      continue;
    }
    gpu::ParticleWorld& w = **world;
    bool ticked = true;
    for (std::uint32_t t = 0; t < c.ticks && ticked; ++t)
      ticked = w.tick(kDt).ok();
    if (!ticked || !w.readParticles().ok()) {
      skipAll("the simulation failed: " + w.readStats().status().toString());
      continue;
    }
    // Frame every live particle's box.
    glm::vec3 lo(INFINITY), hi(-INFINITY);
    std::vector<EmitterHandle> handles(64);
    const std::uint32_t emitters = w.host().emitters(handles);
    std::uint64_t live = 0;
    for (std::uint32_t e = 0; e < std::min<std::uint32_t>(emitters, 64); ++e) {
      const Result<EmitterView> v = w.host().view(handles[e]);
      if (!v.ok() || !v->bounds.known) continue;
      live += v->live;
      for (int k = 0; k < 3; ++k) {
        lo[k] = std::min(lo[k], v->bounds.min[static_cast<std::size_t>(k)]);
        hi[k] = std::max(hi[k], v->bounds.max[static_cast<std::size_t>(k)]);
      }
    }
    if (live == 0) {
      skipAll("no live particles to draw");
      continue;
    }
    const float aspect =
        static_cast<float>(c.viewport.width) / static_cast<float>(c.viewport.height);
    const render::Camera camera = frameBox(lo, hi, aspect);
    const double overdraw = overdrawOf(w.host(), camera, c.viewport);
    for (const auto& [transparency, mode] : modes) {
      GpuBenchResult r = row(mode);
      r.particles = live;
      r.overdraw = overdraw;
      gpu::RendererDesc desc;
      desc.viewport = c.viewport;
      desc.ground = true;
      desc.transparency = transparency;
      Result<std::unique_ptr<gpu::Renderer>> renderer = gpu::Renderer::create(context, desc);
      if (!renderer.ok()) {
        r.skipped = renderer.status().message();
        out.push_back(std::move(r));
        continue;
      }
      render::Image image;
      bool inPlace = true;
      const double seconds = medianOfTicks(minSeconds, repetitions, [&]() -> std::optional<double> {
        if (!(*renderer)->render(w, camera, image).ok()) return std::nullopt;
        inPlace = inPlace && (*renderer)->drewInPlace();
        return (*renderer)->lastFrameGpuSeconds();
      });
      if (seconds <= 0.0 || !inPlace) {
        r.skipped = seconds <= 0.0 ? "the frame failed or wrote no timestamps"
                                   : "not drawn in place (an emitter this path does not draw)";
        out.push_back(std::move(r));
        continue;
      }
      r.nsPerParticle = seconds * 1e9 / static_cast<double>(live);
      // The billboard cases' cost a particle predicts the next (larger) one's.
      if (c.name.starts_with("billboards"))
        secondsPerParticle[mode] = seconds / static_cast<double>(live);
      // The software renderer on one core, the same particles and camera; left unmeasured where
      // its frame would outlast the budget (10^7 quads take seconds on one core).
      if (const auto last = softwarePerParticle.find(mode);
          last != softwarePerParticle.end() &&
          last->second * static_cast<double>(live) > kFrameBudgetSeconds) {
        out.push_back(std::move(r));
        continue;
      }
      render::RendererOptions options;
      options.viewport = c.viewport;
      options.ground = true;
      options.transparency = transparency;
      if (Result<render::ParticleRenderer> software = render::ParticleRenderer::create(options);
          software.ok()) {
        const double cpu = medianOfTicks(minSeconds, repetitions, [&]() -> std::optional<double> {
          const auto t0 = std::chrono::steady_clock::now();
          if (!software->render(w.host(), camera, image).ok()) return std::nullopt;
          return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        });
        r.baselineNsPerParticle = cpu > 0.0 ? cpu * 1e9 / static_cast<double>(live) : 0.0;
        if (c.name.starts_with("billboards") && cpu > 0.0)
          softwarePerParticle[mode] = cpu / static_cast<double>(live);
      }
      out.push_back(std::move(r));
    }
  }
}

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
      Result<std::unique_ptr<gpu::ParticleWorld>> world = placedWorld(context, *effect);
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
    if (fast) runDrawCases(context, minSeconds, repetitions, maxParticles, out);
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
      if (r.overdraw > 0.0) fmt::print(", \"overdraw\": {:.3f}", r.overdraw);
      if (r.baselineNsPerParticle > 0.0) {
        fmt::print(", \"baseline_ns_per_particle\": {:.4f}, \"ratio\": {:.4f}",
                   r.baselineNsPerParticle, r.nsPerParticle / r.baselineNsPerParticle);
      }
      fmt::print("}}");
    } else if (!r.skipped.empty()) {
      fmt::print("  {:<28} skipped: {}\n", r.name, r.skipped);
    } else if (r.overdraw > 0.0 && r.baselineNsPerParticle <= 0.0) {
      fmt::print(
          "  {:<44} {:10.4f} ns/particle  overdraw {:6.2f}  (software renderer not measured: its "
          "frame would outlast 2 s)\n",
          r.name, r.nsPerParticle, r.overdraw);
    } else if (r.overdraw > 0.0) {
      fmt::print(
          "  {:<44} {:10.4f} ns/particle  overdraw {:6.2f}  (software renderer, one core {:.3f}: "
          "{:.1f}x)\n",
          r.name, r.nsPerParticle, r.overdraw, r.baselineNsPerParticle,
          r.nsPerParticle > 0.0 ? r.baselineNsPerParticle / r.nsPerParticle : 0.0);
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
