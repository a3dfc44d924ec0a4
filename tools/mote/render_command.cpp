// SPDX-License-Identifier: MIT
#include "render_command.h"

#include "effect_commands.h"
#include "framing.h"
#include "mesh_loader.h"
#include "simulation.h"

#include <mote/authoring/effect.h>
#include <mote/core/job_system.h>
#include <mote/render/debug_overlay.h>
#include <mote/render/particle_renderer.h>
#include <mote/runtime/world.h>

#if MOTE_HAVE_GPU
#include <mote/gpu/context.h>
#include <mote/gpu/renderer.h>
#endif

#include <fmt/core.h>
#include <glm/geometric.hpp>
#include <glm/gtc/quaternion.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <unistd.h>
#include <vector>

namespace mote::cli {
namespace {

constexpr double kMaxStep = 1.0 / 60.0;

bool parseSize(const std::string& text, std::uint32_t& w, std::uint32_t& h) {
  unsigned a = 0;
  unsigned b = 0;
  char tail = 0;
  if (std::sscanf(text.c_str(), "%ux%u%c", &a, &b, &tail) != 2) return false;
  if (a < 16 || b < 16 || a > 8192 || b > 8192) return false;
  w = a;
  h = b;
  return true;
}

bool parseColor(const std::string& text, std::array<float, 3>& linear) {
  std::string hex = text;
  if (!hex.empty() && hex.front() == '#') hex.erase(0, 1);
  if (hex.size() != 6 || hex.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
    return false;
  const unsigned long value = std::stoul(hex, nullptr, 16);
  for (std::size_t c = 0; c < 3; ++c) {
    const float s = static_cast<float>((value >> (16 - 8 * c)) & 0xFFu) / 255.0f;
    linear[static_cast<std::size_t>(c)] = render::srgbToLinear(s);
  }
  return true;
}

// "x,y,z" → three finite floats.
bool parseTriple(const std::string& text, std::array<float, 3>& out) {
  float a = 0.0f;
  float b = 0.0f;
  float c = 0.0f;
  char tail = 0;
  if (std::sscanf(text.c_str(), "%f,%f,%f%c", &a, &b, &c, &tail) != 3) return false;
  if (!std::isfinite(a) || !std::isfinite(b) || !std::isfinite(c)) return false;
  out = {a, b, c};
  return true;
}

// --light dir:x,y,z:r,g,b (x,y,z toward the light) or point:x,y,z:r,g,b:radius.
Result<render::Light> parseLight(const std::string& text) {
  const auto bad = [&](const std::string& why) {
    return invalidArgument("--light '" + text + "': " + why +
                           " (dir:x,y,z:r,g,b or point:x,y,z:r,g,b:radius)");
  };
  std::vector<std::string> parts;
  std::size_t from = 0;
  for (std::size_t at = text.find(':');; at = text.find(':', from)) {
    parts.push_back(text.substr(from, at == std::string::npos ? std::string::npos : at - from));
    if (at == std::string::npos) break;
    from = at + 1;
  }
  render::Light light;
  if (parts[0] == "dir" && parts.size() == 3) {
    light.kind = render::Light::Kind::Directional;
  } else if (parts[0] == "point" && parts.size() == 4) {
    light.kind = render::Light::Kind::Point;
    char tail = 0;
    if (std::sscanf(parts[3].c_str(), "%f%c", &light.radius, &tail) != 1 ||
        !std::isfinite(light.radius) || !(light.radius > 0.0f))
      return bad("the radius must be a number > 0");
  } else {
    return bad("not a light");
  }
  if (!parseTriple(parts[1], light.vector)) return bad("'" + parts[1] + "' is not x,y,z");
  if (!parseTriple(parts[2], light.color)) return bad("'" + parts[2] + "' is not r,g,b");
  return light;
}

constexpr double kCircleSeconds = 4.0;  // one turn of --circle

// The effect's transform `t` seconds into the clip: at the origin, or on the --circle path
// (starting at (r, 0, 0), counter-clockwise seen from above, turned to face along the motion).
Transform transformAt(const RenderCommandOptions& o, double t) {
  Transform transform;
  if (!(o.circle > 0.0)) return transform;
  const double angle = 6.283185307179586 * t / kCircleSeconds;
  transform.position = {static_cast<float>(o.circle * std::cos(angle)), 0.0f,
                        static_cast<float>(-o.circle * std::sin(angle))};
  // Yaw about +Y so local +Z points along the motion, (-sin, 0, -cos).
  const double yaw = angle + 3.141592653589793;
  transform.rotation = {0.0f, static_cast<float>(std::sin(yaw * 0.5)), 0.0f,
                        static_cast<float>(std::cos(yaw * 0.5))};
  return transform;
}

// The clip's clock: advances the world by `seconds` in steps of at most 1/60 s, moving the effect
// along its path before each step.
struct Clock {
  Simulation& sim;
  EffectHandle effect;
  const RenderCommandOptions& options;
  double now = 0.0;

  Status advance(double seconds) {
    if (!(seconds > 0.0)) return {};
    const auto steps = static_cast<std::uint32_t>(std::ceil(seconds / kMaxStep - 1e-9));
    for (std::uint32_t s = 0; s < steps; ++s) {
      now += seconds / steps;
      MOTE_RETURN_IF_ERROR(sim.setTransform(effect, transformAt(options, now)));
      MOTE_RETURN_IF_ERROR(sim.tick(static_cast<float>(seconds / steps)));
    }
    return {};
  }
};

// Where the effect is over the frames to be drawn: on each axis, the span between the 3rd and 97th
// percentile of the particle positions (sampled), each weighted by what it covers of the picture —
// its area (size x · size y) times its opacity —, so a cloud of sparks or flung debris does not
// shrink the fireball it leaves to a dot, and a few strays do not either.
Result<Framing> measure(Simulation& sim, EffectHandle effect, const RenderCommandOptions& o,
                        std::size_t emitterCount) {
  std::array<std::vector<Sample>, 3> samples;
  std::vector<Sample> radii;  // half the larger side of each sampled particle
  const double step = 1.0 / o.fps;
  Clock clock{sim, effect, o};
  MOTE_RETURN_IF_ERROR(clock.advance(o.time));
  for (std::uint32_t f = 0; f < o.frames; ++f) {
    if (f > 0) MOTE_RETURN_IF_ERROR(clock.advance(step));
    Result<const ParticleWorld*> current = sim.world();
    if (!current.ok()) return current.status();
    const ParticleWorld& world = **current;
    for (std::uint32_t i = 0; i < emitterCount; ++i) {
      const Result<EmitterView> v = world.view(world.emitter(effect, i));
      if (!v.ok() || v->live == 0 || v->emitter->channels.position < 0) continue;
      const bytecode::ParticleChannels& channels = v->emitter->channels;
      const auto p = static_cast<std::size_t>(channels.position);
      const bool local = bytecode::movesWithEmitter(v->emitter->space);
      const glm::quat q(v->transform.rotation[3], v->transform.rotation[0],
                        v->transform.rotation[1], v->transform.rotation[2]);
      const glm::vec3 origin(v->transform.position[0], v->transform.position[1],
                             v->transform.position[2]);
      const std::uint32_t stride = std::max(1u, v->live / 256);
      for (std::uint32_t k = 0; k < v->live; k += stride) {
        glm::vec3 pos(v->streams[p][k], v->streams[p + 1][k], v->streams[p + 2][k]);
        if (local) pos = origin + q * pos;
        float weight = 0.01f;  // no size channel: the renderer's default 0.1 m square
        float radius = 0.05f;
        if (channels.size >= 0) {
          const auto s = static_cast<std::size_t>(channels.size);
          weight = std::fabs(v->streams[s][k] * v->streams[s + 1][k]);
          radius = 0.5f * std::max(std::fabs(v->streams[s][k]), std::fabs(v->streams[s + 1][k]));
        }
        if (channels.color >= 0)
          weight *=
              std::clamp(v->streams[static_cast<std::size_t>(channels.color) + 3][k], 0.0f, 1.0f);
        if (!std::isfinite(pos.x) || !std::isfinite(pos.y) || !std::isfinite(pos.z) ||
            !std::isfinite(weight) || !(weight > 0.0f))
          continue;
        for (glm::length_t c = 0; c < 3; ++c)
          samples[static_cast<std::size_t>(c)].push_back({pos[c], weight});
        radii.push_back({radius, weight});
      }
    }
  }
  return frameSamples(samples, radii);
}

Result<render::Camera> makeCamera(const RenderCommandOptions& o, const Framing& framing,
                                  float aspect, std::uint32_t frame) {
  const float fovY = 0.7f;  // ~40 degrees
  const float fit = framing.radius / std::sin(fovY * 0.5f) / std::min(1.0f, aspect);
  const float distance = o.distance > 0.0 ? static_cast<float>(o.distance) : fit * 0.95f;
  const float farZ = distance + framing.radius * 4.0f + 10.0f;
  const float nearZ = std::max(0.01f, distance * 0.01f);
  if (o.camera == "iso") {
    return render::Camera::isometric(framing.center, distance, framing.radius * 1.05f, aspect,
                                     nearZ, farZ);
  }
  Result<render::Camera> camera = render::Camera::perspective(fovY, aspect, nearZ, farZ);
  if (!camera.ok()) return camera;
  glm::vec3 direction(0.0f, 0.18f, 1.0f);  // front: slightly above
  if (o.camera == "top") direction = glm::vec3(0.0f, 1.0f, 0.02f);
  if (o.camera == "orbit") {
    const float angle = 6.2831853f * static_cast<float>(frame) / static_cast<float>(o.frames);
    direction = glm::vec3(std::sin(angle), 0.3f, std::cos(angle));
  }
  const glm::vec3 eye = framing.center + glm::normalize(direction) * distance;
  if (Status s = camera->lookAt(eye, framing.center, glm::vec3(0.0f, 1.0f, 0.0f)); !s.ok())
    return s;
  return camera;
}

Status writeVideo(const std::vector<render::Image>& frames, const std::string& path, double fps) {
  if (std::system("ffmpeg -version > /dev/null 2>&1") != 0) {
    return unsupported("writing " + path +
                       " needs the ffmpeg program, which is not installed (apt-get install "
                       "ffmpeg), or write .gif, .png, .apng or a %04d.png sequence");
  }
  if (path.find('\'') != std::string::npos) return invalidArgument("the output path holds a quote");
  const std::string command = fmt::format(
      "ffmpeg -loglevel error -y -f rawvideo -pix_fmt rgba -s {}x{} -r {} -i - -pix_fmt yuv420p "
      "{} '{}'",
      frames[0].width(), frames[0].height(), fps,
      endsWith(path, ".webm") ? "-c:v libvpx-vp9 -b:v 0 -crf 32" : "-c:v libx264 -crf 20", path);
  FILE* pipe = popen(command.c_str(), "w");
  if (pipe == nullptr) return ioError("cannot start ffmpeg");
  bool ok = true;
  for (const render::Image& f : frames)
    ok = ok && std::fwrite(f.pixels().data(), 1, f.pixels().size(), pipe) == f.pixels().size();
  const int rc = pclose(pipe);
  if (!ok || rc != 0) return ioError("ffmpeg failed writing " + path);
  return {};
}

}  // namespace

int runRender(const RenderCommandOptions& o) {
  const auto fail = [](const std::string& message) {
    fmt::print(stderr, "mote render: {}\n", message);
    return 1;
  };
  std::uint32_t width = 0;
  std::uint32_t height = 0;
  if (!parseSize(o.size, width, height))
    return fail("--size must be WxH with sides in [16, 8192] (got '" + o.size + "')");
  std::array<float, 3> background{};
  if (!parseColor(o.background, background))
    return fail("--background must be a hex colour like 0b0b12 (got '" + o.background + "')");
  if (o.camera != "orbit" && o.camera != "front" && o.camera != "top" && o.camera != "iso")
    return fail("--camera must be orbit, front, top or iso (got '" + o.camera + "')");
  render::PostProcess post;
  if (o.toneMap == "aces") {
    post.toneMap = render::ToneMap::Aces;
  } else if (o.toneMap == "reinhard") {
    post.toneMap = render::ToneMap::Reinhard;
  } else if (o.toneMap != "none") {
    return fail("--tonemap must be aces, reinhard or none (got '" + o.toneMap + "')");
  }
  if (!(o.bloom >= 0.0 && o.bloom <= 16.0))
    return fail(fmt::format("--bloom must be in [0, 16] (got {})", o.bloom));
  post.bloom = static_cast<float>(o.bloom);
  render::Transparency transparency = render::Transparency::Emitter;
  if (o.transparency == "sorted") {
    transparency = render::Transparency::Sorted;
  } else if (o.transparency == "oit") {
    transparency = render::Transparency::Oit;
  } else if (o.transparency != "emitter") {
    return fail("--transparency must be emitter, sorted or oit (got '" + o.transparency + "')");
  }
  render::Lighting lighting;
  if (!o.lights.empty()) {
    lighting.lights.clear();
    for (const std::string& text : o.lights) {
      Result<render::Light> light = parseLight(text);
      if (!light.ok()) return fail(light.status().message());
      lighting.lights.push_back(light.value());
    }
  }
  if (!o.ambient.empty() && !parseTriple(o.ambient, lighting.ambient))
    return fail("--ambient must be r,g,b (got '" + o.ambient + "')");
  if (Status s = lighting.validate("--light/--ambient"); !s.ok()) return fail(s.message());
  // The background is the colour the frame shows where nothing is drawn, whatever the tone map.
  for (float& c : background)
    c = render::inverseToneMapped(post.toneMap, c);
  const std::string& out = o.output;
  enum class Kind { Gif, Png, Apng, Sequence, Video } kind = Kind::Gif;
  if (out.find('%') != std::string::npos) {
    kind = Kind::Sequence;
    if (Result<std::string> p = render::formatSequencePath(out, 0); !p.ok())
      return fail(p.status().message());
  } else if (endsWith(out, ".gif")) {
    kind = Kind::Gif;
  } else if (endsWith(out, ".apng")) {
    kind = Kind::Apng;
  } else if (endsWith(out, ".png")) {
    kind = o.frames == 1 ? Kind::Png : Kind::Apng;
  } else if (endsWith(out, ".mp4") || endsWith(out, ".webm")) {
    kind = Kind::Video;
  } else {
    return fail(
        "the output must end in .gif, .png, .apng, .mp4 or .webm, or hold a %d pattern "
        "(got '" +
        out + "')");
  }
  const std::uint64_t bytes = std::uint64_t{o.frames} * width * height * 4;
  if (bytes > (std::uint64_t{3} << 30))
    return fail(fmt::format("{} frames of {}x{} need {} MiB; render fewer or smaller frames",
                            o.frames, width, height, bytes >> 20));

  bytecode::CompiledEffect effect;
  std::vector<authoring::Collider> authored;
  if (!loadCompiledEffect(o.input, effect, {o.animation, o.textureDirectory}, &authored)) return 1;
  std::vector<render::DebugCollider> colliders;
  for (const authoring::Collider& c : authored) {
    render::DebugCollider d;
    d.kind = c.kind == authoring::ColliderKind::Plane    ? render::DebugCollider::Kind::Plane
             : c.kind == authoring::ColliderKind::Sphere ? render::DebugCollider::Kind::Sphere
                                                         : render::DebugCollider::Kind::Box;
    d.position = c.position;
    d.normal = c.normal;
    d.radius = c.radius;
    d.size = c.size;
    colliders.push_back(d);
  }

  std::unique_ptr<ThreadPool> pool;
  {
    Result<std::unique_ptr<ThreadPool>> created = ThreadPool::create(o.threads);
    if (!created.ok()) return fail(created.status().message());
    pool = std::move(created.value());
  }
  PlaceOptions place;
  place.gpu = o.gpu;
  place.jobs = pool.get();
  place.seed = o.seed;
  place.transform = transformAt(o, 0.0);
  EffectHandle placed;
  Result<std::unique_ptr<Simulation>> made = placeEffect(effect, place, placed);
  if (!made.ok()) return fail(o.input + ": " + made.status().message());
  Simulation& sim = **made;

  // Frame the effect from its measured bounds over the whole clip, then start again.
  const Result<Framing> framing = measure(sim, placed, o, effect.emitters.size());
  if (!framing.ok()) return fail(framing.status().message());
  if (Status s = sim.setTransform(placed, transformAt(o, 0.0)); !s.ok()) return fail(s.message());
  if (Status s = sim.restart(placed); !s.ok()) return fail(s.message());

  render::RendererOptions ro;
  ro.viewport = {width, height};
  ro.background = background;
  ro.ground = o.ground;
  ro.post = post;
  ro.transparency = transparency;
  ro.meshLoader = loadHostMesh;
  ro.lighting = lighting;
  ro.jobs = pool.get();
  ro.textureDirectory = std::filesystem::path(o.input).parent_path().string();
  Result<render::ParticleRenderer> renderer = render::ParticleRenderer::create(ro);
  if (!renderer.ok()) return fail(renderer.status().message());
#if MOTE_HAVE_GPU
  // --gpu: the frames drawn by the GPU renderer on the simulation's device, from the particles read
  // back (the software renderer's options, its draw order: docs/gpu.md, "The GPU renderer").
  std::unique_ptr<gpu::Renderer> gpuRenderer;
  if (gpu::Context* context = sim.gpuContext(); context != nullptr) {
    gpu::RendererDesc desc;
    desc.viewport = ro.viewport;
    desc.background = ro.background;
    desc.ground = ro.ground;
    desc.textureDirectory = ro.textureDirectory;
    desc.lighting = ro.lighting;
    desc.post = ro.post;
    desc.transparency = ro.transparency;
    Result<std::unique_ptr<gpu::Renderer>> drawer = gpu::Renderer::create(*context, desc);
    if (!drawer.ok()) return fail(drawer.status().message());
    gpuRenderer = std::move(drawer.value());
  }
#endif
  // --debug: the overlay's own view of the frame's packets.
  Result<render::RenderPacketBuilder> packets = render::RenderPacketBuilder::create(4096);
  if (!packets.ok()) return fail(packets.status().message());
  render::DebugOverlayOptions overlay;
  overlay.colliders = colliders;

  std::vector<render::Image> frames(o.frames);
  const bool tty = isatty(fileno(stderr)) != 0;
  Clock clock{sim, placed, o};
  if (Status s = clock.advance(o.time); !s.ok()) return fail(s.message());
  const float aspect = static_cast<float>(width) / static_cast<float>(height);
  std::uint32_t inPlace = 0;  // frames the GPU renderer drew from the GPU world's own buffers
  std::string readBack;       // why the others were drawn from the particles read back
  // One frame: --gpu without --debug draws the GPU world's pool where it lives (no readback);
  // the other paths draw the particles (read back from a GPU world).
  const auto draw = [&](const render::Camera& view, render::Image& image) -> Status {
#if MOTE_HAVE_GPU
    if (gpuRenderer != nullptr && !o.debug && sim.gpuWorld() != nullptr) {
      MOTE_RETURN_IF_ERROR(gpuRenderer->render(*sim.gpuWorld(), view, image));
      inPlace += gpuRenderer->drewInPlace() ? 1 : 0;
      if (!gpuRenderer->drewInPlace()) readBack = gpuRenderer->readBackReason();
      return {};
    }
#endif
    Result<const ParticleWorld*> world = sim.world();
    if (!world.ok()) return world.status();
#if MOTE_HAVE_GPU
    if (gpuRenderer != nullptr)
      return o.debug ? gpuRenderer->render(**world, view, image, overlay)
                     : gpuRenderer->render(**world, view, image);
#endif
    if (!o.debug) return renderer->render(**world, view, image);
    MOTE_RETURN_IF_ERROR(renderer->prepare(**world, view));
    packets->build(**world, pool.get());
    if (Status s = render::drawDebugOverlay(*renderer, **world, packets->packets(), overlay);
        !s.ok())
      return Status(s.code(), "--debug: " + s.message());
    return renderer->rasterize(image);
  };
  for (std::uint32_t f = 0; f < o.frames; ++f) {
    if (f > 0) {
      if (Status s = clock.advance(1.0 / o.fps); !s.ok()) return fail(s.message());
    }
    Result<render::Camera> camera = makeCamera(o, *framing, aspect, f);
    if (!camera.ok()) return fail(camera.status().message());
    if (Status s = draw(camera.value(), frames[f]); !s.ok())
      return fail(o.input + ": " + s.message());
    if (tty) {
      const std::uint32_t filled = (f + 1) * 30 / o.frames;
      fmt::print(stderr, "\rrendering [{}{}] {}/{}", std::string(filled, '#'),
                 std::string(30 - filled, ' '), f + 1, o.frames);
    }
  }
  if (tty) fmt::print(stderr, "\n");

  if (const auto parent = std::filesystem::path(out).parent_path(); !parent.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(parent, ec);
    if (ec) return fail("cannot create " + parent.string() + ": " + ec.message());
  }
  Status written;
  switch (kind) {
    case Kind::Gif: {
      render::GifOptions g;
      g.dither = o.dither;
      g.delayCentiseconds =
          static_cast<std::uint16_t>(std::clamp(std::lround(100.0 / o.fps), 2L, 1000L));
      written = render::writeGif(frames, out, g);
      break;
    }
    case Kind::Png:
      written = render::writePng(frames[0], out);
      break;
    case Kind::Apng: {
      render::ApngOptions a;
      a.delayNumerator = 1;
      a.delayDenominator = static_cast<std::uint16_t>(std::clamp(std::lround(o.fps), 1L, 1000L));
      written = render::writeApng(frames, out, a);
      break;
    }
    case Kind::Sequence:
      written = render::writeImageSequence(frames, out);
      break;
    case Kind::Video:
      written = writeVideo(frames, out, o.fps);
      break;
  }
  if (!written.ok()) return fail(written.message());
  if (o.gpu) {
    fmt::print("{}: {} frame{} of {}x{}, drawn on the GPU{}\n", out, o.frames,
               o.frames == 1 ? "" : "s", width, height,
               inPlace == o.frames ? " from its own buffers"
               : inPlace > 0       ? fmt::format(" ({} from its own buffers)", inPlace)
               : !readBack.empty() ? fmt::format(" from the particles read back ({})", readBack)
                                   : "");
    return 0;
  }
  const render::RenderStats& last = renderer->stats();
  fmt::print("{}: {} frame{} of {}x{}, {} quads{} in the last\n", out, o.frames,
             o.frames == 1 ? "" : "s", width, height, last.quads,
             last.triangles > 0 ? fmt::format(" and {} triangles", last.triangles) : "");
  return 0;
}

}  // namespace mote::cli
