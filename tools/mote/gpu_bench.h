// SPDX-License-Identifier: MIT
// `mote bench --gpu`: the GPU world's figures (docs/performance.md, "The GPU world"): rows
// gpu/standard/N (N = 10^5, 10^6, 10^7: every particle updated each tick) and gpu/spawn/N (N born
// and freed each tick), in exact mode and, as gpu/…-fast/N, in fast mode, each against the same
// effect on one CPU core; and gpu/draw/CASE/MODE — the GPU renderer drawing a GPU world's pool in
// place (bonfire at 1280x720; 10^5, 10^6 and 10^7 billboards at 1920x1080) in each transparency
// mode, against the software renderer on one core. Timed by the GPU's timestamps around the frame.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace mote::cli {

struct GpuBenchResult {
  std::string name;  ///< gpu/standard/N, gpu/spawn/N, gpu/standard-fast/N, …
  std::string device;
  std::string mode;  ///< "exact" or "fast"
  std::uint64_t particles = 0;
  double nsPerParticle = 0.0;          ///< the GPU frame's time per particle
  double baselineNsPerParticle = 0.0;  ///< one CPU core's tick of the same effect per particle
  /// Bytes each particle's record moves a tick: read and written whole at the pool's stride, plus
  /// the simulation order's entry read and the alive list's written.
  double bytesPerParticle = 0.0;
  std::string skipped;  ///< why the case did not run (a pool past the device's limits)
  /// gpu/draw/… rows: the frame's overdraw (the drawn quads' screen area over the viewport's,
  /// measured on the host from the particles read back); 0 for the other rows.
  double overdraw = 0.0;
};

/// Every case, the median frame of at least `repetitions` ticks and `minSeconds` each; a case past
/// `maxParticles`, or whose frame would take more than 2 s judged by the smaller one, is a row that
/// says why it was skipped. Empty (with the reason on stderr) when no GPU world can run at all.
std::vector<GpuBenchResult> runGpuBenches(double minSeconds, int repetitions,
                                          std::uint64_t maxParticles);

/// Prints the rows (one JSON array with `json`); 1 when there are none.
int printGpuBenches(const std::vector<GpuBenchResult>& results, bool json);

}  // namespace mote::cli
