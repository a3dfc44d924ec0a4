// SPDX-License-Identifier: MIT
// The CLI's GPU commands (mote_gpu; docs/gpu.md). Without the backend in the build they exit 1
// saying so.
#pragma once

namespace mote::cli {

/// `mote info --gpu`: every Vulkan device, the one chosen, its limits, and the self-test's mode.
int runGpuInfo();

}  // namespace mote::cli
