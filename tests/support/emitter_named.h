// SPDX-License-Identifier: MIT
// An effect's emitter by name, for tests that check what an importer or the authoring layer made;
// a missing one is a test failure (and a default emitter stands in, so the test goes on).
#pragma once

#include <mote/authoring/effect.h>

#include <gtest/gtest.h>

#include <string>

namespace mote::test {

inline const authoring::Emitter& emitterNamed(const authoring::EffectDesc& effect,
                                              const std::string& name) {
  for (const authoring::Emitter& e : effect.emitters)
    if (e.name == name) return e;
  ADD_FAILURE() << "no emitter " << name;
  static const authoring::Emitter none;
  return none;
}

}  // namespace mote::test
