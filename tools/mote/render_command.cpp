// SPDX-License-Identifier: MIT
#include "render_command.h"

#include "effect_commands.h"
#include "scene.h"

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
  Result<SceneSettings> settings = sceneSettings(o);
  if (!settings.ok()) return fail(settings.status().message());
  const std::uint32_t width = settings->width;
  const std::uint32_t height = settings->height;
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
  if (!loadCompiledEffect(o.input, effect,
                          {o.animation, o.textureDirectories, o.modelDirectories, o.play},
                          &authored))
    return 1;
  const std::vector<render::DebugCollider> colliders = debugColliders(authored);
  const Result<std::vector<bool>> hidden = hiddenEmitters(effect, o.hide, o.solo);
  if (!hidden.ok()) return fail(hidden.status().message());
  const bool filtered = std::find(hidden->begin(), hidden->end(), true) != hidden->end();
  if (filtered && o.gpu)
    return fail("--hide and --solo draw with the software renderer: not with --gpu");

  Result<std::unique_ptr<HostWorld>> host = HostWorld::load(o.hostWorld);
  if (!host.ok()) return fail(host.status().message());

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
  place.collision = (*host)->collision();
  EffectHandle placed;
  Result<std::unique_ptr<Simulation>> made = placeEffect(effect, place, placed);
  if (!made.ok()) return fail(o.input + ": " + made.status().message());
  Simulation& sim = **made;

  // Frame the effect from its measured bounds over the whole clip, then start again.
  const Result<Framing> framing = measure(sim, placed, o, effect.emitters.size());
  if (!framing.ok()) return fail(framing.status().message());
  if (Status s = sim.setTransform(placed, transformAt(o, 0.0)); !s.ok()) return fail(s.message());
  if (Status s = sim.restart(placed); !s.ok()) return fail(s.message());

  render::RendererOptions ro = settings->renderer;
  ro.jobs = pool.get();
  if (!(*host)->terrain().empty()) ro.ground = false;  // the terrain is the ground
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
  render::DebugOverlayOptions overlay;
  overlay.colliders = colliders;
  // --hide, --solo and --debug: the software frame's extras.
  const FrameExtras extras{placed, &*hidden, o.debug ? &overlay : nullptr, (*host)->terrain()};
  FrameScratch scratch;

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
    return drawFrame(*renderer, **world, view, extras, scratch, image, pool.get());
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

  if (const Status folder = makeParentFolder(out); !folder.ok()) return fail(folder.message());
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
