// SPDX-License-Identifier: MIT
#pragma once

#include <mote/authoring/effect_json.h>

#include <vector>

namespace mote::authoring {

/// validateEffect, with the whole-emitter lints ("never spawns") only when `withLints` (the reader
/// passes false when the file already has structural errors) and the effect has no errors.
std::vector<Diagnostic> validateEffect(const EffectDesc& effect, bool withLints);

}  // namespace mote::authoring
