// SPDX-License-Identifier: MIT
// Writing an EffectDesc as canonical "mote.effect/1" JSON: the reflect.h field order, defaults left
// out (a field equal to its struct's default member initialiser), short forms where they say the
// same (a constant range as a number, a plain colour as [r, g, b, a]), floats in their shortest
// round-trip form.
#include "effect_write.h"

#include <mote/authoring/effect_json.h>
#include <mote/core/file.h>

#include <span>
#include <string>

namespace mote::authoring {

using json::Value;
using to_json::toJson;

json::Value effectToJson(const EffectDesc& effect) {
  Value fields = toJson(effect);
  Value root = Value::makeObject();
  root.add("format", Value::makeString(std::string(kEffectFormat)));
  for (json::Member& member : fields.members)
    root.members.push_back(std::move(member));
  return root;
}

std::string saveEffect(const EffectDesc& effect) {
  return json::write(effectToJson(effect));
}

Status saveEffectFile(const EffectDesc& effect, const std::string& path) {
  const std::string text = saveEffect(effect);
  return writeFileAtomically(
      path, std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(text.data()),
                                          text.size()));
}

}  // namespace mote::authoring
