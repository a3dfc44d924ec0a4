// SPDX-License-Identifier: MIT
// EffectDesc values → JSON values, one overload per field type of the reflect.h table; shared by
// the writer and the schema/docs generator (which shows defaults as JSON).
#pragma once

#include "json.h"
#include "reflect.h"

#include <mote/authoring/effect.h>
#include <mote/core/assert.h>

#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

namespace mote::authoring::to_json {

using json::Value;
using reflect::FieldInfo;

inline Value number(float v) {
  MOTE_ASSERT(std::isfinite(v), "saveEffect: a non-finite float (validate the effect first)");
  return Value::makeNumber(std::isfinite(v) ? json::formatFloat(v) : std::string("0"));
}

template <class Int>
requires std::is_integral_v<Int>
inline Value integer(Int v) {
  return Value::makeNumber(std::to_string(v));
}

inline Value toJson(bool v) {
  return Value::makeBool(v);
}
inline Value toJson(const std::string& v) {
  return Value::makeString(v);
}
inline Value toJson(float v) {
  return number(v);
}
template <class Int>
requires std::is_integral_v<Int>
inline Value toJson(Int v) {
  return integer(v);
}

template <reflect::ReflectedEnum E>
inline Value toJson(E v) {
  return Value::makeString(std::string(reflect::enumName(v)));
}

template <std::size_t N>
inline Value toJson(const std::array<float, N>& v) {
  Value out = Value::makeArray();
  for (const float x : v)
    out.items.push_back(number(x));
  return out;
}

inline Value toJson(const std::vector<float>& v) {
  Value out = Value::makeArray();
  for (const float x : v)
    out.items.push_back(number(x));
  return out;
}

inline Value toJson(const Range& r) {
  if (r.min == r.max && std::signbit(r.min) == std::signbit(r.max)) return number(r.min);
  Value out = Value::makeArray();
  out.items.push_back(number(r.min));
  out.items.push_back(number(r.max));
  return out;
}

inline Value toJson(const std::vector<CurveKey>& keys) {
  Value out = Value::makeArray();
  for (const CurveKey& k : keys) {
    Value pair = Value::makeArray();
    pair.items.push_back(number(k.time));
    pair.items.push_back(number(k.value));
    out.items.push_back(std::move(pair));
  }
  return out;
}

// Keys written [time, [numbers…]]: gradients and motion tracks.
template <class K, std::size_t N>
Value arrayKeysToJson(const std::vector<K>& keys, std::array<float, N> K::*value) {
  Value out = Value::makeArray();
  for (const K& k : keys) {
    Value pair = Value::makeArray();
    pair.items.push_back(number(k.time));
    pair.items.push_back(toJson(k.*value));
    out.items.push_back(std::move(pair));
  }
  return out;
}

inline Value toJson(const std::vector<GradientKey>& keys) {
  return arrayKeysToJson(keys, &GradientKey::color);
}

inline Value toJson(const std::vector<Vec3Key>& keys) {
  return arrayKeysToJson(keys, &Vec3Key::value);
}

inline Value toJson(const std::map<std::string, std::string>& m) {
  Value out = Value::makeObject();
  for (const auto& [key, value] : m)
    out.add(key, Value::makeString(value));
  return out;
}

inline Value toJson(const std::map<std::string, std::vector<float>>& m) {
  Value out = Value::makeObject();
  for (const auto& [key, values] : m)
    out.add(key, values.size() == 1 ? number(values[0]) : toJson(values));
  return out;
}

template <reflect::ReflectedStruct T>
inline Value toJson(const T& s);

// A keyless curve is an absent one: written as the default (and so left out).
inline Value toJson(const Curve& c) {
  return toJson<Curve>(c.keys.empty() ? Curve{} : c);
}

inline Value toJson(const Gradient& g) {
  return toJson<Gradient>(g.keys.empty() ? Gradient{} : g);
}

inline Value toJson(const ScalarParam& p) {
  if (p.overEmitterTime.keys.empty() && p.rangeScaleOverEmitterTime.keys.empty())
    return toJson(p.range);
  return toJson<ScalarParam>(p);
}

inline Value toJson(const ColorParam& p) {
  if (p.overEmitterTime.keys.empty() && p.a == p.b) return toJson(p.a);
  return toJson<ColorParam>(p);
}

template <reflect::ReflectedStruct T>
inline Value toJson(const std::vector<T>& items) {
  Value out = Value::makeArray();
  for (const T& item : items)
    out.items.push_back(toJson(item));
  return out;
}

template <reflect::ModuleVariant M>
inline Value toJson(const std::vector<M>& modules);

// Every field of a struct, in table order, with whether it is required.
struct FieldWriter {
  Value& object;
  std::vector<bool>& required;  // written even at the default
  template <class T>
  void operator()(const T& member, const FieldInfo& info) {
    object.add(std::string(info.key), toJson(member));
    required.push_back(info.required || info.alwaysWritten);
  }
};

template <reflect::ReflectedStruct T>
inline Value toJson(const T& s) {
  Value full = Value::makeObject();
  std::vector<bool> required;
  FieldWriter writer{full, required};
  reflect::Reflect<T>::fields(writer, s);

  Value defaults = Value::makeObject();
  std::vector<bool> unused;
  FieldWriter defaultWriter{defaults, unused};
  const T defaultValue{};
  reflect::Reflect<T>::fields(defaultWriter, defaultValue);

  Value out = Value::makeObject();
  for (std::size_t i = 0; i < full.members.size(); ++i) {
    if (required[i] || !(full.members[i].value == defaults.members[i].value)) {
      out.members.push_back(std::move(full.members[i]));
    }
  }
  return out;
}

template <reflect::ModuleVariant M>
inline Value toJson(const std::vector<M>& modules) {
  Value out = Value::makeArray();
  for (const M& module : modules) {
    std::visit(
        [&](const auto& m) {
          Value fields = toJson(m);
          Value tagged = Value::makeObject();
          tagged.add("type", Value::makeString(std::string(std::decay_t<decltype(m)>::kType)));
          for (json::Member& member : fields.members)
            tagged.members.push_back(std::move(member));
          out.items.push_back(std::move(tagged));
        },
        module);
  }
  return out;
}

}  // namespace mote::authoring::to_json

namespace mote::authoring {

/// The canonical document of `effect` ("format" first, then the fields).
json::Value effectToJson(const EffectDesc& effect);

}  // namespace mote::authoring
