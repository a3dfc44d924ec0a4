// SPDX-License-Identifier: MIT
#include "scene_state.h"

#include "effect_commands.h"

#include <fmt/core.h>

#include <algorithm>
#include <utility>

namespace mote::view {

std::unique_ptr<SceneState> SceneState::load(const cli::RenderCommandOptions& options,
                                             std::vector<std::string>& messages,
                                             SceneState* previous) {
  messages.clear();
  const auto fail = [&](const std::string& message) -> std::unique_ptr<SceneState> {
    fmt::print(stderr, "{}\n", message);
    messages.push_back(message);
    return nullptr;
  };
  std::unique_ptr<SceneState> s(new SceneState());
  s->options_ = options;
  Result<cli::SceneSettings> settings = cli::sceneSettings(options);
  if (!settings.ok()) return fail(settings.status().message());
  s->settings_ = std::move(settings).takeValue();
  std::vector<authoring::Collider> authored;
  if (!cli::loadCompiledEffect(
          options.input, s->effect_,
          {options.animation, options.textureDirectories, options.modelDirectories, options.play},
          &authored, &messages))
    return nullptr;
  s->colliders_ = cli::debugColliders(authored);
  s->overlay_.colliders = s->colliders_;
  Result<std::unique_ptr<ThreadPool>> pool = ThreadPool::create(options.threads);
  if (!pool.ok()) return fail(pool.status().message());
  s->pool_ = std::move(pool).takeValue();
  Result<std::unique_ptr<cli::HostWorld>> host = cli::HostWorld::load(options.hostWorld);
  if (!host.ok()) return fail(host.status().message());
  s->host_ = std::move(host).takeValue();
  cli::PlaceOptions place;
  place.jobs = s->pool_.get();
  place.seed = options.seed;
  place.transform = cli::transformAt(options, 0.0);
  place.collision = s->host_->collision();
  Result<std::unique_ptr<cli::Simulation>> made = cli::placeEffect(s->effect_, place, s->placed_);
  if (!made.ok()) return fail(options.input + ": " + made.status().message());
  s->sim_ = std::move(made).takeValue();
  s->clock_.emplace(cli::Clock{*s->sim_, s->placed_, s->options_});
  s->hidden_.assign(s->effect_.emitters.size(), false);
  std::vector<std::string> hide = options.hide;
  std::string solo = options.solo;
  if (previous != nullptr) {  // a reload keeps the names the effect still has
    const auto lacks = [&](const std::string& name) {
      return std::none_of(s->effect_.emitters.begin(), s->effect_.emitters.end(),
                          [&](const bytecode::CompiledEmitter& e) { return e.name == name; });
    };
    std::erase_if(hide, lacks);
    if (lacks(solo)) solo.clear();
  }
  if (Status h = s->setHidden(hide, solo); !h.ok()) return fail(h.message());
  if (previous != nullptr) {
    s->framing_ = previous->framing_;
  } else {
    const Result<cli::Framing> measured =
        cli::measure(*s->sim_, s->placed_, s->options_, s->effect_.emitters.size());
    if (!measured.ok()) return fail(options.input + ": " + measured.status().message());
    s->framing_ = *measured;
  }
  if (Status r = s->seek(options.time); !r.ok()) return fail(options.input + ": " + r.message());
  if (previous != nullptr) return s;  // the renderer comes with adoptRenderer()
  render::RendererOptions ro = s->settings_.renderer;
  ro.jobs = s->pool_.get();
  if (!s->host_->terrain().empty()) ro.ground = false;  // the terrain is the ground
  Result<render::ParticleRenderer> renderer = render::ParticleRenderer::create(ro);
  if (!renderer.ok()) return fail(options.input + ": " + renderer.status().message());
  s->renderer_.emplace(std::move(renderer).takeValue());
  return s;
}

void SceneState::adoptRenderer(SceneState& previous) {
  renderer_ = std::move(previous.renderer_);
  previous.renderer_.reset();
  settings_ = previous.settings_;
  // The renderer's jobs are the previous scene's workers: they come over with it (its world
  // goes with the previous scene, and never runs on them again).
  drawPool_ =
      previous.drawPool_ != nullptr ? std::move(previous.drawPool_) : std::move(previous.pool_);
}

Status SceneState::restyle(const cli::RenderCommandOptions& options) {
  cli::RenderCommandOptions next = options;
  next.input = options_.input;
  next.size = options_.size;
  next.time = options_.time;
  Result<cli::SceneSettings> settings = cli::sceneSettings(next);
  if (!settings.ok()) return settings.status();
  render::RendererOptions ro = settings->renderer;
  ro.jobs = drawPool_ != nullptr ? drawPool_.get() : pool_.get();
  if (!host_->terrain().empty()) ro.ground = false;
  Result<render::ParticleRenderer> renderer = render::ParticleRenderer::create(ro);
  if (!renderer.ok()) return renderer.status();
  renderer_.emplace(std::move(renderer).takeValue());
  settings_ = std::move(settings).takeValue();
  options_ = std::move(next);
  return {};
}

Status SceneState::seek(double time) {
  return clock_->seek(time);
}

Status SceneState::advance(double seconds) {
  return clock_->advance(seconds);
}

float SceneState::aspect() const noexcept {
  return static_cast<float>(settings_.width) / static_cast<float>(settings_.height);
}

Result<render::Camera> SceneState::defaultCamera() const {
  return cli::makeCamera(options_, framing_, aspect(), 0);
}

Status SceneState::draw(const render::Camera& camera, render::Image& image) {
  Result<const ParticleWorld*> world = sim_->world();
  if (!world.ok()) return world.status();
  const cli::FrameExtras extras{placed_, &hidden_, options_.debug ? &overlay_ : nullptr,
                                host_->terrain()};
  return cli::drawFrame(*renderer_, **world, camera, extras, scratch_, image);
}

Status SceneState::setHidden(const std::vector<std::string>& hide, const std::string& solo) {
  Result<std::vector<bool>> hidden = cli::hiddenEmitters(effect_, hide, solo);
  if (!hidden.ok()) return hidden.status();
  hidden_ = std::move(hidden).takeValue();
  options_.hide = hide;  // a reload keeps them
  options_.solo = solo;
  return {};
}

}  // namespace mote::view
