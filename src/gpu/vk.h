// SPDX-License-Identifier: MIT
// Vulkan for mote_gpu's sources: volk's function pointers (loaded at run time) and the checks that
// turn a VkResult into a Status.
#pragma once

#include <mote/core/status.h>

#include <string>
#include <volk.h>

namespace mote::gpu {

/// The VkResult's name ("VK_ERROR_OUT_OF_DEVICE_MEMORY"). Never null.
const char* vkResultName(VkResult result) noexcept;

/// Ok for VK_SUCCESS (and the other non-negative results); otherwise an error naming `what` and the
/// result: OutOfMemory for the two out-of-memory results, DeviceLost for a lost device, Unavailable
/// for a missing layer, extension, feature or driver, Internal for the rest.
Status vkStatus(VkResult result, const std::string& what);

}  // namespace mote::gpu
