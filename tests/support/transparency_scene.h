// SPDX-License-Identifier: MIT
// The transparency modes' scene (tests/golden/render/transparency_*.png): drawn by the software
// renderer's golden tests (tests/render/transparency_test.cpp) and held to the same goldens by the
// GPU renderer's (tests/gpu/renderer_agreement_test.cpp).
#pragma once

#include <string>

namespace mote::test {

// Two emitters of eight still smoke puffs each on the diagonals of a 2 m square seen from the
// front: red (`sort_order` 0) from back left to front right, blue (1) from front left to back
// right, so each is in front of the other on one side. `blend` is both materials' blend.
inline std::string crossing(const std::string& blend = "alpha", int redOrder = 0,
                            int blueOrder = 1) {
  const auto emitter = [&](const char* name, const char* material, const char* from, const char* to,
                           int order) {
    return std::string(R"({"name": ")") + name + R"(", "material": ")" + material +
           R"(", "spawn": {"rate": 0, "bursts": [{"time": 0, "count": 8}]},
      "shape": {"kind": "line", "end": )" +
           to + R"(}, "position": )" + from +
           R"(, "init": {"lifetime": 10, "size": 1.0, "color": )" +
           (material[0] == 'r' ? "[1, 0.25, 0.1, 0.85]" : "[0.15, 0.35, 1, 0.85]") +
           R"(}, "render": {"sort_order": )" + std::to_string(order) + "}}";
  };
  const std::string material = R"(", "texture": "builtin:smoke", "blend": ")" + blend + "\"}";
  return R"({"format": "mote.effect/1", "name": "crossing", "materials": [{"name": "red)" +
         material + R"(, {"name": "blue)" + material + R"(], "emitters": [)" +
         emitter("red", "red", "[-1.5, 0.8, -1.5]", "[3, 0, 3]", redOrder) + ", " +
         emitter("blue", "blue", "[-1.5, 0.8, 1.5]", "[3, 0, -3]", blueOrder) + "]}";
}

}  // namespace mote::test
