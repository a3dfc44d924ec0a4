// SPDX-License-Identifier: MIT
// What `mote render` and `mote-view` share (docs/viewer.md, "One clock"): the render options made
// into renderer settings, the effect's clock and its path, its framing and the default cameras —
// so the frame mote-view shows at effect time T is the frame `mote render --time T` writes.
// Single-threaded use; each call allocates what it returns.
#pragma once

#include "framing.h"
#include "host_world.h"
#include "render_command.h"
#include "simulation.h"

#include <mote/authoring/effect.h>
#include <mote/core/status.h>
#include <mote/render/camera.h>
#include <mote/render/debug_overlay.h>
#include <mote/render/particle_renderer.h>
#include <mote/render/render_packet.h>

#include <glm/vec3.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mote::cli {

/// "x,y,z" → three finite floats; false otherwise.
bool parseTriple(const std::string& text, std::array<float, 3>& out);

/// "rrggbb" or "#rrggbb" → sRGB components in [0, 1]; false when it is not six hex digits.
bool parseHexColor(const std::string& text, std::array<float, 3>& srgb);

/// Particle k (< view.live, the layout has a position) in world space: local and
/// emitter-attached layouts hold it in emitter space.
glm::vec3 particleWorldPosition(const EmitterView& view, std::uint32_t k);

/// The options' picture: its size and the renderer settings (viewport, background, ground, tone
/// map and bloom, transparency, lights, the host's mesh loader, the effect's folder for textures;
/// `jobs` is the caller's). The error names the option ("--size must be WxH …").
struct SceneSettings {
  std::uint32_t width = 0;
  std::uint32_t height = 0;
  render::RendererOptions renderer;
};
Result<SceneSettings> sceneSettings(const RenderCommandOptions& o);

/// The effect's transform `t` seconds into the clip: at the origin, or on the --circle path
/// (starting at (r, 0, 0), counter-clockwise seen from above, turned to face along the motion).
Transform transformAt(const RenderCommandOptions& o, double t);

/// The clip's clock: advances the world by `seconds` in `clockSteps(seconds)` equal steps (the
/// runtime's one clock, as ParticleWorld::seek), moving the effect along its path before each.
struct Clock {
  Simulation& sim;
  EffectHandle effect;
  const RenderCommandOptions& options;
  double now = 0.0;

  Status advance(double seconds);
  /// Restarts the effect and advances it to `time`: the frame at effect time `time`.
  Status seek(double time);
};

/// Where the effect is over the frames `mote render` would draw (options.time, frames, fps): the
/// weighted extent of the particles' positions (framing.h). Leaves the effect advanced: restart it.
Result<Framing> measure(Simulation& sim, EffectHandle effect, const RenderCommandOptions& o,
                        std::size_t emitterCount);

/// The default cameras' vertical field of view (radians, ~40°).
inline constexpr float kCameraFovY = 0.7f;
/// The direction from the framed centre towards the eye of a preset: front (slightly above), top,
/// iso (the diagonal); not normalised.
glm::vec3 cameraDirection(std::string_view preset);
/// How far the default camera stands from the framed centre (`--distance`, else what fits the
/// framing's sphere in the picture).
float cameraDistance(const RenderCommandOptions& o, const Framing& framing, float aspect);
/// A perspective camera at `eye` looking at `target`, `distance` away, its clip planes sized for
/// `framing` — what every perspective default camera is.
Result<render::Camera> lookingAt(glm::vec3 eye, glm::vec3 target, float distance,
                                 const Framing& framing, float aspect);

/// The camera of frame `frame` for `o.camera` (orbit, front, top, iso) framing `framing`.
Result<render::Camera> makeCamera(const RenderCommandOptions& o, const Framing& framing,
                                  float aspect, std::uint32_t frame);

/// The effect's authored colliders as the debug overlay draws them.
std::vector<render::DebugCollider> debugColliders(const std::vector<authoring::Collider>& authored);

/// The emitters of `effect` that --hide and --solo leave out of the drawing (the simulation runs
/// them all): one flag per emitter, true for hidden — each named in `hide`, and, with `solo`, every
/// emitter but that one. NotFound names an emitter the effect lacks.
Result<std::vector<bool>> hiddenEmitters(const bytecode::CompiledEffect& effect,
                                         const std::vector<std::string>& hide,
                                         const std::string& solo);

/// `packets` (a RenderPacketBuilder's of `world`) less those of effect `placed`'s emitters
/// flagged in `hidden`, in order, into `out` (cleared; reserve it to keep frames allocation-free).
void visiblePackets(const ParticleWorld& world, EffectHandle placed,
                    const std::vector<bool>& hidden, std::span<const render::RenderPacket> packets,
                    std::vector<render::RenderPacket>& out);

/// What a software frame of `mote render` and mote-view draws besides the world: the hidden
/// emitters left out, and the debug overlay (`overlay` non-null: --debug).
struct FrameExtras {
  EffectHandle placed;
  const std::vector<bool>* hidden = nullptr;  ///< one flag per emitter of `placed`; null: none
  const render::DebugOverlayOptions* overlay = nullptr;
  std::span<const SceneTriangle> scene;  ///< opaque scene triangles (the host world's terrain)
};

/// Scratch a frame with extras reuses (made once, so steady frames allocate nothing).
struct FrameScratch {
  std::optional<render::RenderPacketBuilder> packets;
  std::vector<render::RenderPacket> shown;
};

/// `world` under `camera` into `image` with `renderer`: render() itself when `extras` asks for
/// nothing, else the kept packets prepared, the scene's triangles and the overlay drawn (errors
/// prefixed "--debug: "), rasterized. `jobs` builds the packets (null: this thread).
Status drawFrame(render::ParticleRenderer& renderer, const ParticleWorld& world,
                 const render::Camera& camera, const FrameExtras& extras, FrameScratch& scratch,
                 render::Image& image, JobSystem* jobs = nullptr);

}  // namespace mote::cli
