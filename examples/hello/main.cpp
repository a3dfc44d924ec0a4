// SPDX-License-Identifier: MIT
// Hello, Mote: load an effect, simulate two seconds of it and write one frame as a PNG.
//   hello EFFECT.json|EFFECT.motefx OUT.png
#include <mote/authoring/effect_json.h>
#include <mote/bytecode/compiled_effect.h>
#include <mote/compiler/compiler.h>
#include <mote/core/file.h>
#include <mote/render/camera.h>
#include <mote/render/image.h>
#include <mote/render/particle_renderer.h>
#include <mote/runtime/world.h>

#include <cstdio>
#include <string>

namespace {

int fail(const std::string& what) {
  std::fprintf(stderr, "hello: %s\n", what.c_str());
  return 1;
}

// A .motefx file is already bytecode (what a shipped game loads); a .json effect is compiled here.
mote::Result<mote::bytecode::CompiledEffect> loadEffect(const std::string& path) {
  if (path.ends_with(".motefx")) {
    auto bytes = mote::readFile(path, mote::bytecode::kMaxMotefxBytes);
    if (!bytes.ok()) return bytes.status();
    return mote::bytecode::loadMotefx(bytes.value());
  }
  const mote::authoring::EffectLoadResult desc = mote::authoring::loadEffectFile(path);
  mote::compiler::CompileResult compiled;
  if (desc.ok()) compiled = mote::compiler::compileEffect(desc.effect);
  for (const auto& d : desc.ok() ? compiled.diagnostics : desc.diagnostics)
    std::fprintf(stderr, "%s\n", mote::authoring::formatDiagnostic(d).c_str());
  if (!desc.ok() || !compiled.ok()) return mote::invalidArgument(path + ": not a valid effect");
  return std::move(compiled.effect);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) return fail("usage: hello EFFECT.json|EFFECT.motefx OUT.png");
  auto effect = loadEffect(argv[1]);
  if (!effect.ok()) return fail(effect.status().toString());

  // A world sized for one instance of this effect, ticked on the calling thread at 60 Hz.
  auto world = mote::ParticleWorld::create(mote::worldDescFor(effect.value()));
  if (!world.ok()) return fail(world.status().toString());
  auto placed = world.value()->addEffect(effect.value());
  if (!placed.ok()) return fail(placed.status().toString());
  for (int tick = 0; tick < 120; ++tick)
    world.value()->tick(1.0f / 60.0f);

  // A camera 4.5 m back and 1.6 m up, looking at a point 1.2 m above the effect's origin.
  const mote::render::Viewport viewport{640, 360};
  auto camera = mote::render::Camera::perspective(0.9f, viewport.aspect(), 0.1f, 100.0f);
  if (!camera.ok()) return fail(camera.status().toString());
  if (auto s = camera.value().lookAt({0.0f, 1.6f, 4.5f}, {0.0f, 1.2f, 0.0f}, {0.0f, 1.0f, 0.0f});
      !s.ok())
    return fail(s.toString());

  mote::render::RendererOptions options;
  options.viewport = viewport;
  options.ground = true;
  auto renderer = mote::render::ParticleRenderer::create(options);
  if (!renderer.ok()) return fail(renderer.status().toString());
  mote::render::Image frame;
  if (auto s = renderer.value().render(*world.value(), camera.value(), frame); !s.ok())
    return fail(s.toString());
  if (auto s = mote::render::writePng(frame, argv[2]); !s.ok()) return fail(s.toString());

  const mote::WorldStats& stats = world.value()->stats();
  std::printf("hello: %llu particles after %llu ticks, %u drawn -> %s\n",
              static_cast<unsigned long long>(stats.live),
              static_cast<unsigned long long>(stats.tick), renderer.value().stats().quads, argv[2]);
  return 0;
}
