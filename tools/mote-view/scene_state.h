// SPDX-License-Identifier: MIT
// mote-view's model (docs/viewer.md): one effect loaded, placed in a world of its own and drawn
// by the software renderer, at an effect time reached by the clock `mote render` uses — so the
// frame it shows at time T is the frame `mote render --time T` writes. No SDL here: the window
// (main.cpp) drives it, and the scripted screenshot uses it alone. Single-threaded; loading
// allocates, a steady frame allocates nothing in the runtime (the renderer's own buffers grow
// once).
#pragma once

#include "render_command.h"
#include "scene.h"

#include <mote/bytecode/compiled_effect.h>
#include <mote/core/job_system.h>
#include <mote/render/debug_overlay.h>
#include <mote/render/image.h>
#include <mote/render/particle_renderer.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mote::view {

/// An effect loaded and placed, with its framing and renderer.
class SceneState {
 public:
  /// Loads `options.input` (.json, .motefx, .mdl), places it and measures its framing over the
  /// clip `mote render` would draw (options.time, frames, fps), then rewinds it to options.time.
  /// The diagnostics (also printed on stderr) come back in `messages`: warnings on success,
  /// the errors on failure (null comes back).
  /// A reload passes the running scene as `previous`: its framing is kept instead of measured
  /// (measuring simulates the whole clip), and no renderer is made — adoptRenderer() takes over
  /// the previous one once the reload has succeeded.
  static std::unique_ptr<SceneState> load(const cli::RenderCommandOptions& options,
                                          std::vector<std::string>& messages,
                                          SceneState* previous = nullptr);

  /// The frame at effect time `time` (restart, then the one clock's steps).
  Status seek(double time);
  /// Takes over `previous`'s renderer, its look and its workers (creating a renderer costs ~0.3
  /// s; its texture cache is by name, so the reloaded effect draws the same files); `previous`
  /// can no longer draw.
  void adoptRenderer(SceneState& previous);
  /// Advances the effect time by `seconds` (≥ 0).
  Status advance(double seconds);
  double time() const noexcept { return clock_->now; }

  /// Draws the world at its current time into `image` with `camera` (sized to the options' size),
  /// without the hidden emitters.
  Status draw(const render::Camera& camera, render::Image& image);
  /// The emitters left out of the drawing (cli::hiddenEmitters: `hide`, and with `solo` every
  /// other one); the simulation is not changed. NotFound names an emitter the effect lacks (the
  /// hidden ones are then as before). load() applies the options' --hide and --solo.
  Status setHidden(const std::vector<std::string>& hide, const std::string& solo);
  const std::vector<bool>& hidden() const noexcept { return hidden_; }
  /// Draws the debug overlay (`mote render --debug`'s: emitter axes, bounds, velocity rays,
  /// colliders) over the particles, or not.
  void setOverlay(bool on) noexcept { options_.debug = on; }
  /// Draws with other renderer options (ground, background, transparency…: `options` but its
  /// input, size and time); the effect and its time are kept. The error names the option.
  Status restyle(const cli::RenderCommandOptions& options);
  /// `mote render`'s camera for frame 0 of its clip.
  Result<render::Camera> defaultCamera() const;

  const cli::RenderCommandOptions& options() const noexcept { return options_; }
  const cli::Framing& framing() const noexcept { return framing_; }
  const bytecode::CompiledEffect& effect() const noexcept { return effect_; }
  Result<const ParticleWorld*> world() { return sim_->world(); }
  EffectHandle placed() const noexcept { return placed_; }
  float aspect() const noexcept;

 private:
  SceneState() = default;

  cli::RenderCommandOptions options_;
  bytecode::CompiledEffect effect_;
  std::unique_ptr<ThreadPool> pool_;      // the simulation's workers
  std::unique_ptr<ThreadPool> drawPool_;  // an adopted renderer's, when not pool_
  std::unique_ptr<cli::HostWorld> host_;  // --heightfield/--sdf: what sim_ collides with
  std::unique_ptr<cli::Simulation> sim_;
  EffectHandle placed_;
  std::optional<cli::Clock> clock_;
  cli::Framing framing_;
  cli::SceneSettings settings_;
  std::optional<render::ParticleRenderer> renderer_;
  std::vector<bool> hidden_;  // one flag per emitter
  std::vector<render::DebugCollider> colliders_;
  render::DebugOverlayOptions overlay_;
  cli::FrameScratch scratch_;
};

}  // namespace mote::view
