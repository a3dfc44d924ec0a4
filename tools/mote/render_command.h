// SPDX-License-Identifier: MIT
// `mote render`: simulate an effect and draw it with the software renderer into PNG, APNG, GIF, a
// numbered PNG sequence or (through the ffmpeg CLI) MP4 / WebM.
#pragma once

#include "host_world.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mote::cli {

struct RenderCommandOptions {
  std::string input;
  std::string output;
  std::uint32_t frames = 60;
  double fps = 20.0;
  std::string size = "640x360";
  std::string camera = "front";  ///< orbit, front, top, iso
  double distance = 0.0;         ///< 0: frame the effect's measured bounds
  std::uint64_t seed = 0;
  std::uint32_t threads = 0;  ///< 0: the machine's
  std::string background = "0b0b12";
  bool ground = true;
  double time = 0.0;  ///< seconds into the effect of the first frame
  /// > 0: the effect travels a horizontal circle of this radius (m) about its start, one turn per
  /// 4 s, facing along its motion — for trails and per-metre emitters. 0: it stands still.
  double circle = 0.0;
  bool dither = false;
  std::string animation;  ///< .mdl input: the animation that drives the effect
  std::string play;       ///< .mdl input: "once" or "loop"; empty: by the animation's name
  /// .mdl input: folders where NWN textures are looked up (after the model's own, before
  /// MOTE_NWN_TEXTURE_PATH's).
  std::vector<std::string> textureDirectories;
  /// .mdl input: folders where supermodels and chunk models are looked up (after the model's own).
  std::vector<std::string> modelDirectories;
  std::string toneMap = "aces";          ///< aces, reinhard, none
  double bloom = 0.0;                    ///< bloom strength, [0, 16]; 0: off
  std::string transparency = "emitter";  ///< emitter, sorted, oit
  /// dir:x,y,z:r,g,b or point:x,y,z:r,g,b:radius; any replace the default lights.
  std::vector<std::string> lights;
  std::string ambient;  ///< r,g,b (linear); empty: the default
  /// --gpu: simulate on the GPU and draw what is read back with the software renderer (the GPU
  /// renderer is a later issue's).
  bool gpu = false;
  /// --debug: draw each emitter's axes, bounds box and velocity rays and the effect's colliders
  /// over the particles (render::drawDebugOverlay).
  bool debug = false;
  /// --hide NAME (repeatable) and --solo NAME: emitters left out of the drawing (hiddenEmitters);
  /// the simulation runs them all. The software renderer's only.
  std::vector<std::string> hide;
  std::string solo;
  /// --heightfield, --sdf and their placement: the world colliders of kind "host" meet, the
  /// heightfield drawn as terrain (in place of the ground grid).
  HostWorldOptions hostWorld;
};

/// Returns 0 on success, 1 (with a message on stderr) on any error.
int runRender(const RenderCommandOptions& options);

}  // namespace mote::cli
