// SPDX-License-Identifier: MIT
// The JSON Schema and the Markdown field reference, both generated from the reflect.h table (the
// one the reader and writer use), with defaults taken from the structs' member initialisers.
#include "effect_write.h"
#include "json.h"
#include "reflect.h"

#include <mote/authoring/effect_json.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <set>
#include <string>

namespace mote::authoring {
namespace {

using json::Value;
using reflect::FieldInfo;

Value str(std::string_view s) {
  return Value::makeString(std::string(s));
}

Value bound(double v) {
  char buffer[32];
  const auto r = std::to_chars(buffer, buffer + sizeof buffer, v);
  return Value::makeNumber(std::string(buffer, r.ptr));
}

Value typed(std::string_view type) {
  Value v = Value::makeObject();
  v.add("type", str(type));
  return v;
}

Value ref(std::string_view name) {
  Value v = Value::makeObject();
  v.add("$ref", str("#/$defs/" + std::string(name)));
  return v;
}

Value oneOf(std::vector<Value> alternatives) {
  Value list = Value::makeArray();
  list.items = std::move(alternatives);
  Value v = Value::makeObject();
  v.add("oneOf", std::move(list));
  return v;
}

void addBounds(Value& schema, const FieldInfo& info) {
  if (std::isfinite(info.min)) schema.add("minimum", bound(info.min));
  if (std::isfinite(info.max)) schema.add("maximum", bound(info.max));
}

Value numberSchema(const FieldInfo& info) {
  Value v = typed("number");
  addBounds(v, info);
  return v;
}

Value numberArray(const FieldInfo& info, std::size_t minItems, std::size_t maxItems) {
  Value v = typed("array");
  v.add("items", numberSchema(info));
  if (minItems > 0) v.add("minItems", bound(static_cast<double>(minItems)));
  v.add("maxItems", bound(static_cast<double>(maxItems)));
  return v;
}

class SchemaBuilder {
 public:
  SchemaBuilder() : defs_(Value::makeObject()) {}

  Value root() {
    Value properties = Value::makeObject();
    Value format = Value::makeObject();
    format.add("const", str(kEffectFormat));
    format.add("description", str("The format and its version."));
    properties.add("format", std::move(format));
    Value required = Value::makeArray();
    required.items.push_back(str("format"));
    Value body = objectBody<EffectDesc>(std::move(properties), std::move(required));

    Value out = Value::makeObject();
    out.add("$schema", str("https://json-schema.org/draft/2020-12/schema"));
    out.add("title", str("Mote effect (" + std::string(kEffectFormat) + ")"));
    for (json::Member& m : body.members)
      out.members.push_back(std::move(m));
    out.add("$defs", std::move(defs_));
    return out;
  }

  // Field visitor: one property per field.
  struct Properties {
    SchemaBuilder& builder;
    Value& properties;
    Value& required;
    template <class T>
    void operator()(const T& defaultValue, const FieldInfo& info) {
      Value schema = builder.schemaOf(defaultValue, info);
      std::string description(info.doc);
      if (!info.unit.empty()) description += " Unit: " + std::string(info.unit) + ".";
      Value withDoc = Value::makeObject();
      withDoc.add("description", str(description));
      if (!info.required) {
        Value d = to_json::toJson(defaultValue);
        if (d.kind != json::Kind::Object && !(d.kind == json::Kind::Array && d.items.empty())) {
          withDoc.add("default", std::move(d));
        }
      }
      // A $ref or oneOf schema keeps its keyword; annotations go beside it.
      for (json::Member& m : schema.members)
        withDoc.members.push_back(std::move(m));
      properties.add(std::string(info.key), std::move(withDoc));
      if (info.required) required.items.push_back(str(info.key));
    }
  };

  template <reflect::ReflectedStruct T>
  Value objectBody(Value properties, Value required) {
    Properties visitor{*this, properties, required};
    const T defaults{};
    reflect::Reflect<T>::fields(visitor, defaults);
    Value body = typed("object");
    body.add("description", str(reflect::Reflect<T>::kDoc));
    body.add("properties", std::move(properties));
    if (!required.items.empty()) body.add("required", std::move(required));
    body.add("additionalProperties", Value::makeBool(false));
    return body;
  }

  template <reflect::ReflectedStruct T>
  Value refTo() {
    const std::string_view name = reflect::Reflect<T>::kName;
    if (done_.insert(name).second) {
      Value properties = Value::makeObject();
      Value required = Value::makeArray();
      if constexpr (reflect::TaggedModule<T>) {
        Value tag = Value::makeObject();
        tag.add("const", str(T::kType));
        properties.add("type", std::move(tag));
        required.items.push_back(str("type"));
      }
      Value body = objectBody<T>(std::move(properties), std::move(required));
      defs_.add(std::string(name), std::move(body));
    }
    return ref(name);
  }

  template <reflect::ReflectedEnum E>
  Value refTo() {
    const std::string_view name = reflect::EnumTraits<E>::kName;
    if (done_.insert(name).second) {
      Value values = Value::makeArray();
      for (const auto& entry : reflect::EnumTraits<E>::kValues)
        values.items.push_back(str(entry.name));
      Value body = typed("string");
      body.add("enum", std::move(values));
      defs_.add(std::string(name), std::move(body));
    }
    return ref(name);
  }

  // --- per type
  // ------------------------------------------------------------------------------------

  Value schemaOf(bool, const FieldInfo&) { return typed("boolean"); }
  Value schemaOf(const std::string&, const FieldInfo& info) {
    Value v = typed("string");
    v.add("maxLength", bound(info.maxLength));
    return v;
  }
  Value schemaOf(float, const FieldInfo& info) { return numberSchema(info); }
  template <class Int>
  requires std::is_integral_v<Int> Value schemaOf(Int, const FieldInfo& info) {
    Value v = typed("integer");
    FieldInfo limits = info;
    limits.min = std::max(info.min, static_cast<double>(std::numeric_limits<Int>::min()));
    limits.max = std::min(info.max, static_cast<double>(std::numeric_limits<Int>::max()));
    addBounds(v, limits);
    return v;
  }
  template <reflect::ReflectedEnum E>
  Value schemaOf(E, const FieldInfo&) {
    return refTo<E>();
  }
  template <std::size_t N>
  Value schemaOf(const std::array<float, N>&, const FieldInfo& info) {
    return numberArray(info, N, N);
  }
  Value schemaOf(const std::vector<float>&, const FieldInfo& info) {
    return numberArray(info, 0, info.maxItems);
  }
  Value schemaOf(const Range&, const FieldInfo& info) {
    return oneOf({numberSchema(info), numberArray(info, 2, 2)});
  }
  Value schemaOf(const ScalarParam&, const FieldInfo& info) {
    return oneOf({numberSchema(info), numberArray(info, 2, 2), refTo<ScalarParam>()});
  }
  Value schemaOf(const ColorParam&, const FieldInfo& info) {
    return oneOf({numberArray(info, 4, 4), refTo<ColorParam>()});
  }
  Value schemaOf(const std::vector<CurveKey>&, const FieldInfo& info) {
    Value v = typed("array");
    v.add("items", numberArray(FieldInfo{}, 2, 2));
    v.add("maxItems", bound(info.maxItems));
    return v;
  }
  Value schemaOf(const std::vector<GradientKey>&, const FieldInfo& info) {
    return arrayKeys(numberArray(FieldInfo{.key = {}, .doc = {}, .min = 0.0}, 4, 4), info);
  }
  Value schemaOf(const std::vector<Vec3Key>&, const FieldInfo& info) {
    return arrayKeys(
        numberArray(FieldInfo{.key = {}, .doc = {}, .min = info.min, .max = info.max}, 3, 3), info);
  }
  // [time, value] keys whose value is `valueSchema`.
  Value arrayKeys(Value valueSchema, const FieldInfo& info) {
    Value prefix = Value::makeArray();
    prefix.items.push_back(typed("number"));
    prefix.items.push_back(std::move(valueSchema));
    Value key = typed("array");
    key.add("prefixItems", std::move(prefix));
    key.add("minItems", bound(2));
    key.add("maxItems", bound(2));
    Value v = typed("array");
    v.add("items", std::move(key));
    v.add("maxItems", bound(info.maxItems));
    return v;
  }
  template <reflect::ReflectedStruct T>
  Value schemaOf(const T&, const FieldInfo&) {
    return refTo<T>();
  }
  template <reflect::ReflectedStruct T>
  Value schemaOf(const std::vector<T>&, const FieldInfo& info) {
    Value v = typed("array");
    v.add("items", refTo<T>());
    v.add("maxItems", bound(info.maxItems));
    return v;
  }
  template <reflect::ModuleVariant M>
  Value schemaOf(const std::vector<M>&, const FieldInfo& info) {
    const std::string_view name = std::is_same_v<M, UpdateModule> ? "UpdateModule" : "NodeModule";
    if (done_.insert(name).second) {
      std::vector<Value> alternatives;
      addModules<M>(alternatives, std::make_index_sequence<std::variant_size_v<M>>());
      Value body = oneOf(std::move(alternatives));
      body.add("description", str(std::is_same_v<M, UpdateModule>
                                      ? "An update module, chosen by its \"type\"."
                                      : "An update or INIT module, chosen by its \"type\"."));
      defs_.add(std::string(name), std::move(body));
    }
    Value v = typed("array");
    v.add("items", ref(name));
    v.add("maxItems", bound(info.maxItems));
    return v;
  }
  template <class M, std::size_t... I>
  void addModules(std::vector<Value>& out, std::index_sequence<I...>) {
    (out.push_back(refTo<std::variant_alternative_t<I, M>>()), ...);
  }
  Value schemaOf(const std::map<std::string, std::string>&, const FieldInfo& info) {
    Value v = typed("object");
    v.add("additionalProperties", typed("string"));
    v.add("maxProperties", bound(info.maxItems));
    return v;
  }
  Value schemaOf(const std::map<std::string, std::vector<float>>&, const FieldInfo& info) {
    Value v = typed("object");
    v.add("additionalProperties", oneOf({numberSchema(info), numberArray(info, 0, 16)}));
    v.add("maxProperties", bound(info.maxItems));
    return v;
  }

 private:
  Value defs_;
  std::set<std::string_view> done_;
};

// -------------------------------------------------------------------------------------------------
// The Markdown reference

std::string anchor(std::string_view name) {
  std::string out;
  for (const char c : name)
    out += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return out;
}

std::string link(std::string_view name) {
  return "[" + std::string(name) + "](#" + anchor(name) + ")";
}

std::string limitText(const FieldInfo& info) {
  std::string out;
  const auto text = [](double v) {
    char buffer[32];
    const auto r = std::to_chars(buffer, buffer + sizeof buffer, v);
    return std::string(buffer, r.ptr);
  };
  if (std::isfinite(info.min) && std::isfinite(info.max)) {
    out = "[" + text(info.min) + ", " + text(info.max) + "]";
  } else if (std::isfinite(info.min)) {
    out = "≥ " + text(info.min);
  } else if (std::isfinite(info.max)) {
    out = "≤ " + text(info.max);
  }
  if (info.maxItems > 0) {
    if (!out.empty()) out += "; ";
    out += "≤ " + std::to_string(info.maxItems) + " items";
  }
  return out;
}

class ReferenceBuilder {
 public:
  std::string run() {
    section<EffectDesc>();
    return out_;
  }

  struct Rows {
    ReferenceBuilder& builder;
    std::string& table;
    template <class T>
    void operator()(const T& defaultValue, const FieldInfo& info) {
      std::string defaultText = "*required*";
      if (!info.required) {
        const Value d = to_json::toJson(defaultValue);
        if ((d.kind == json::Kind::Array && d.items.empty()) ||
            (d.kind == json::Kind::Object && d.members.empty()) ||
            (d.kind == json::Kind::String && d.text.empty())) {
          defaultText = "—";
        } else if (d.kind == json::Kind::Object) {
          defaultText = "see " + builder.typeOf(defaultValue);
        } else {
          std::string text = json::write(d);
          text.pop_back();  // the newline
          defaultText = "`" + text + "`";
        }
      }
      table += "| `" + std::string(info.key) + "` | " + builder.typeOf(defaultValue) + " | " +
               std::string(info.unit.empty() ? "" : info.unit) + " | " + defaultText + " | " +
               limitText(info) + " | " + std::string(info.doc) + " |\n";
      builder.queue(defaultValue);
    }
  };

  template <reflect::ReflectedStruct T>
  void section() {
    const std::string_view name = reflect::Reflect<T>::kName;
    if (!done_.insert(name).second) return;
    std::string table;
    pending_.clear();
    out_ += "### " + std::string(name) + "\n\n";
    if constexpr (reflect::TaggedModule<T>) {
      out_ += std::string(detail::kIsAlternative<T, InitModule> ? "INIT module" : "Update module") +
              " `\"type\": \"" + std::string(T::kType) + "\"`. ";
    }
    out_ += std::string(reflect::Reflect<T>::kDoc) + "\n\n";
    table += "| Field | Type | Unit | Default | Limits | Meaning |\n";
    table += "|---|---|---|---|---|---|\n";
    if constexpr (std::is_same_v<T, EffectDesc>) {
      table += "| `format` | string | | *required* | | Always `\"" + std::string(kEffectFormat) +
               "\"`: the format and its version. |\n";
    }
    Rows rows{*this, table};
    const T defaults{};
    std::vector<void (*)(ReferenceBuilder&)> mine;
    reflect::Reflect<T>::fields(rows, defaults);
    mine.swap(pending_);
    out_ += table + "\n";
    for (const auto next : mine)
      next(*this);
  }

  // Sections for the struct types a table mentions, written after it (depth first).
  template <class T>
  void queue(const T&) {
    if constexpr (reflect::ReflectedStruct<T>) {
      pending_.push_back([](ReferenceBuilder& b) { b.section<T>(); });
    }
  }
  template <reflect::ReflectedStruct T>
  void queue(const std::vector<T>&) {
    pending_.push_back([](ReferenceBuilder& b) { b.section<T>(); });
  }
  template <reflect::ModuleVariant M>
  void queue(const std::vector<M>&) {
    pending_.push_back([](ReferenceBuilder& b) {
      b.moduleSections<M>(std::make_index_sequence<std::variant_size_v<M>>());
    });
  }
  template <class M, std::size_t... I>
  void moduleSections(std::index_sequence<I...>) {
    (section<std::variant_alternative_t<I, M>>(), ...);
  }

  std::string typeOf(bool) { return "boolean"; }
  std::string typeOf(const std::string&) { return "string"; }
  std::string typeOf(float) { return "number"; }
  template <class Int>
  requires std::is_integral_v<Int> std::string typeOf(Int) { return "integer"; }
  template <reflect::ReflectedEnum E>
  std::string typeOf(E) {
    std::string out = "one of ";
    bool first = true;
    for (const auto& entry : reflect::EnumTraits<E>::kValues) {
      out += (first ? "`\"" : ", `\"") + std::string(entry.name) + "\"`";
      first = false;
    }
    return out;
  }
  std::string typeOf(const Vec3&) { return "[x, y, z]"; }
  std::string typeOf(const Rgba&) { return "[r, g, b, a]"; }
  std::string typeOf(const std::vector<float>&) { return "[number, …]"; }
  std::string typeOf(const Range&) { return "number or [min, max]"; }
  std::string typeOf(const ScalarParam&) { return link("ScalarParam"); }
  std::string typeOf(const ColorParam&) { return link("ColorParam"); }
  std::string typeOf(const std::vector<CurveKey>&) { return "[[time, value], …]"; }
  std::string typeOf(const std::vector<GradientKey>&) { return "[[time, [r, g, b, a]], …]"; }
  std::string typeOf(const std::vector<Vec3Key>&) { return "[[time, [x, y, z]], …]"; }
  template <reflect::ReflectedStruct T>
  std::string typeOf(const T&) {
    return link(reflect::Reflect<T>::kName);
  }
  template <reflect::ReflectedStruct T>
  std::string typeOf(const std::vector<T>&) {
    return "[" + link(reflect::Reflect<T>::kName) + ", …]";
  }
  std::string typeOf(const std::vector<UpdateModule>&) { return "[update module, …]"; }
  std::string typeOf(const std::vector<NodeModule>&) { return "[update or INIT module, …]"; }
  std::string typeOf(const std::map<std::string, std::string>&) { return "{name: string}"; }
  std::string typeOf(const std::map<std::string, std::vector<float>>&) {
    return "{name: number or [number, …]}";
  }

 private:
  std::string out_;
  std::set<std::string_view> done_;
  std::vector<void (*)(ReferenceBuilder&)> pending_;
};

}  // namespace

std::string effectJsonSchema() {
  return json::write(SchemaBuilder().root());
}

std::string effectFieldReference() {
  return ReferenceBuilder().run();
}

}  // namespace mote::authoring
