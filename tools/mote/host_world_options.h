// SPDX-License-Identifier: MIT
// The command-line options that load a HostWorld (host_world.h): --heightfield, --sdf and their
// placement, the same in `mote render` and `mote-view`.
#pragma once

#include "host_world.h"

#include <CLI/CLI.hpp>

namespace mote::cli {

/// Adds the host-world options to `app`, filling `o`.
inline void addHostWorldOptions(CLI::App& app, HostWorldOptions& o) {
  app.add_option("--heightfield", o.heightfield,
                 "Terrain for colliders of kind host: a greyscale .png (0..255 → 0..1) or raw "
                 "float32 .f32 heights; drawn in place of the ground grid");
  app.add_option("--heightfield-samples", o.heightfieldSamples,
                 "columns,rows of a .f32 heightfield");
  app.add_option("--heightfield-min", o.heightfieldMin,
                 "x,y,z of the heightfield's first sample at height 0 (default -10,0,-10)");
  app.add_option("--heightfield-size", o.heightfieldSize,
                 "x extent, height scale, z extent in metres (default 20,2,20)");
  app.add_option("--sdf", o.sdf,
                 "A signed-distance volume for colliders of kind host: raw float32 distances in "
                 "metres, x fastest, then y, then z");
  app.add_option("--sdf-samples", o.sdfSamples, "nx,ny,nz of the --sdf grid");
  app.add_option("--sdf-min", o.sdfMin, "x,y,z of the volume's first sample (default -1,-1,-1)");
  app.add_option("--sdf-size", o.sdfSize, "the volume's extent in metres (default 2,2,2)");
}

}  // namespace mote::cli
