// SPDX-License-Identifier: MIT
#include "gpu_commands.h"

#include <fmt/format.h>

#if MOTE_HAVE_GPU
#include <mote/gpu/context.h>
#endif

namespace mote::cli {

#if MOTE_HAVE_GPU
int runGpuInfo() {
  Result<std::vector<gpu::DeviceInfo>> devices = gpu::listDevices();
  if (!devices.ok()) {
    fmt::print(stderr, "mote: error: GPU unavailable: {}\n", devices.status().message());
    return 1;
  }
  fmt::print("Vulkan devices:\n");
  for (const gpu::DeviceInfo& d : *devices)
    fmt::print("  {}: {} ({}){}\n", d.index, d.name, gpu::deviceTypeName(d.type),
               d.usable ? "" : " — not usable: no compute queue or older than Vulkan 1.2");
  Result<std::unique_ptr<gpu::Context>> context = gpu::Context::create();
  if (!context.ok()) {
    fmt::print(stderr, "mote: error: {}\n", context.status().toString());
    return 1;
  }
  const gpu::Context& c = **context;
  fmt::print("chosen (MOTE_GPU_DEVICE overrides: an index or part of a name):\n{}",
             gpu::describe(c.device()));
  const gpu::SelfTest& t = c.selfTest();
  fmt::print("mode: {} — {}\n", gpu::modeName(t.mode), t.reason);
  fmt::print("self-test: {} operand triples per operation\n", t.cases);
  for (const gpu::SelfTestOp& op : t.ops)
    fmt::print("  {:<6} device's own: {:>5} wrong   {}: {} wrong{}{}\n", op.name, op.nativeWrong,
               gpu::modeName(t.mode), op.wrong, op.emulated ? " (emulated in fp64)" : "",
               op.wrong != 0 ? " — first: " + op.firstWrong : "");
  return 0;
}
#else
int runGpuInfo() {
  fmt::print(stderr,
             "mote: error: this build has no GPU backend (configure with -DMOTE_GPU=ON after "
             "scripts/bootstrap installs the Vulkan packages)\n");
  return 1;
}
#endif

}  // namespace mote::cli
