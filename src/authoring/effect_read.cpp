// SPDX-License-Identifier: MIT
// Reading "mote.effect/1" JSON into an EffectDesc: structure and types here (every field through
// the reflect.h table), then the semantic validator, whose pointers are located in the document.
#include "json.h"
#include "reflect.h"
#include "validate.h"

#include <mote/authoring/effect_json.h>
#include <mote/core/file.h>
#include <mote/core/suggest.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace mote::authoring {

namespace {

// Control characters from names in the file (a newline in a key) would break the one line per
// diagnostic contract: they are written as escapes.
void appendPrintable(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (u < 0x20 || u == 0x7F) {
      out += "\\u00";
      out += kHex[u >> 4];
      out += kHex[u & 15];
    } else {
      out += c;
    }
  }
}

}  // namespace

std::string formatDiagnostic(const Diagnostic& d) {
  std::string out;
  if (!d.file.empty()) {
    out += d.file;
    out += ':';
  }
  if (d.line > 0) {
    out += std::to_string(d.line);
    out += ':';
    out += std::to_string(d.column);
    out += ':';
  }
  if (!out.empty()) out += ' ';
  out += d.severity == Severity::Error ? "error: " : "warning: ";
  if (!d.pointer.empty()) {
    appendPrintable(out, d.pointer);
    out += ": ";
  }
  appendPrintable(out, d.message);
  return out;
}

bool hasErrors(std::span<const Diagnostic> diagnostics) {
  for (const Diagnostic& d : diagnostics)
    if (d.severity == Severity::Error) return true;
  return false;
}

namespace {

using json::Kind;
using json::Value;
using reflect::FieldInfo;

// A number as written, for messages: "-3", "1.5".
std::string shown(const Value& v) {
  if (v.kind == Kind::Number) return v.text;
  if (v.kind == Kind::String) {
    std::string s;
    json::appendQuoted(s, v.text.size() > 40 ? v.text.substr(0, 40) + "..." : v.text);
    return s;
  }
  return std::string(v.kindName());
}

class Reader {
 public:
  Reader(std::string_view file, std::vector<Diagnostic>& out) : file_(file), out_(out) {}

  // Reads the document root into `effect`; false when the document is not a mote.effect/1 effect
  // at all (then nothing else is worth reporting).
  bool readRoot(const Value& root, EffectDesc& effect) {
    if (root.kind != Kind::Object) {
      error(root, "an effect file is a JSON object, not " + std::string(root.kindName()));
      return false;
    }
    const Value* format = root.find("format");
    if (format == nullptr) {
      PointerScope scope(pointer_, "format");
      error(root, std::string("missing required field \"format\" (\"") +
                      std::string(kEffectFormat) + "\")");
    } else {
      PointerScope scope(pointer_, "format");
      if (format->kind != Kind::String) {
        error(*format, "must be the string \"" + std::string(kEffectFormat) + "\"");
      } else if (format->text != kEffectFormat) {
        const bool newer = format->text.starts_with("mote.effect/");
        error(*format, (newer ? "unsupported format version " : "unknown format ") +
                           shown(*format) + " (this build reads \"" + std::string(kEffectFormat) +
                           "\")");
        return false;  // a different format: its fields would only add noise
      }
    }
    readStruct(effect, root, "format");
    return true;
  }

  template <class T>
  void operator()(T& member, const FieldInfo& info) {
    seen_.push_back(info.key);
    const Value* value = object_->find(info.key);
    if (value == nullptr) {
      if (info.required) {
        PointerScope scope(pointer_, info.key);
        error(*object_, "missing required field \"" + std::string(info.key) + "\"");
      }
      return;
    }
    PointerScope scope(pointer_, info.key);
    read(member, *value, info);
  }

 private:
  // Appends a segment to the pointer for one scope.
  class PointerScope {
   public:
    PointerScope(std::string& pointer, std::string_view segment)
        : pointer_(pointer), size_(pointer.size()) {
      json::appendPointerSegment(pointer_, segment);
    }
    PointerScope(std::string& pointer, std::size_t index)
        : pointer_(pointer), size_(pointer.size()) {
      pointer_ += '/';
      pointer_ += std::to_string(index);
    }
    ~PointerScope() { pointer_.resize(size_); }
    PointerScope(const PointerScope&) = delete;
    PointerScope& operator=(const PointerScope&) = delete;

   private:
    std::string& pointer_;
    std::size_t size_;
  };

  void error(const Value& at, std::string message) { errorAt(at.position, std::move(message)); }

  void errorAt(json::Position position, std::string message) {
    out_.push_back(Diagnostic{Severity::Error, pointer_, std::move(message), file_, position.line,
                              position.column});
  }

  bool expectKind(const Value& v, Kind kind, std::string_view what) {
    if (v.kind == kind) return true;
    error(v, "must be " + std::string(what) + " (got " + shown(v) + ")");
    return false;
  }

  // Arrays: the kind, then the length bound before anything is read.
  bool expectArray(const Value& v, const FieldInfo& info, std::string_view what) {
    if (!expectKind(v, Kind::Array, what)) return false;
    if (info.maxItems > 0 && v.items.size() > info.maxItems) {
      error(v, "has " + std::to_string(v.items.size()) + " items; at most " +
                   std::to_string(info.maxItems) + " are allowed");
      return false;
    }
    return true;
  }

  template <reflect::ReflectedStruct T>
  void readStruct(T& s, const Value& v, std::string_view extraKey = {}) {
    if (!expectKind(v, Kind::Object, "an object")) return;
    const Value* savedObject = std::exchange(object_, &v);
    std::vector<std::string_view> savedSeen = std::exchange(seen_, {});
    reflect::Reflect<T>::fields(*this, s);
    for (const json::Member& m : v.members) {
      if (m.key == extraKey) continue;
      bool known = false;
      for (const std::string_view k : seen_)
        known = known || k == m.key;
      if (known) continue;
      PointerScope scope(pointer_, m.key);
      std::string message = "unknown field \"" + m.key + "\"";
      std::vector<std::string_view> candidates = seen_;
      if (!extraKey.empty()) candidates.push_back(extraKey);
      const std::string_view suggestion = closestMatch(m.key, candidates);
      if (!suggestion.empty()) message += " (did you mean \"" + std::string(suggestion) + "\"?)";
      errorAt(m.keyPosition, std::move(message));
    }
    seen_ = std::move(savedSeen);
    object_ = savedObject;
  }

  // --- scalars
  // -------------------------------------------------------------------------------------

  void read(bool& out, const Value& v, const FieldInfo&) {
    if (expectKind(v, Kind::Bool, "true or false")) out = v.boolean;
  }

  void read(std::string& out, const Value& v, const FieldInfo& info) {
    if (!expectKind(v, Kind::String, "a string")) return;
    if (v.text.size() > info.maxLength) {
      error(v, "is " + std::to_string(v.text.size()) + " bytes long; at most " +
                   std::to_string(info.maxLength) + " are allowed");
      return;
    }
    out = v.text;
  }

  bool readFloat(float& out, const Value& v) {
    if (!expectKind(v, Kind::Number, "a number")) return false;
    // Doubles from FLT_MAX up to half an ulp above it round to FLT_MAX ("3.4028235e+38" is how
    // FLT_MAX prints); from there on they would round to infinity.
    static const double kFloatOverflow = std::ldexp(2.0 - std::ldexp(1.0, -24), 127);
    if (std::fabs(v.number) >= kFloatOverflow) {
      error(v, "is out of range for a 32-bit float (got " + v.text + ")");
      return false;
    }
    out = static_cast<float>(v.number);
    return true;
  }

  void read(float& out, const Value& v, const FieldInfo&) { readFloat(out, v); }

  // Integers: an integer lexeme, or a number whose value is an exact integer up to 2^53 ("10.0",
  // "1e3"); out-of-range messages quote the field's own limits.
  template <class Int>
  requires std::is_integral_v<Int>
  void read(Int& out, const Value& v, const FieldInfo& info) {
    if (!expectKind(v, Kind::Number, "an integer")) return;
    // The field's limits within the type's, as integers of the type.
    const Int lo = info.min > static_cast<double>(std::numeric_limits<Int>::min())
                       ? static_cast<Int>(info.min)
                       : std::numeric_limits<Int>::min();
    const Int hi = info.max < static_cast<double>(std::numeric_limits<Int>::max())
                       ? static_cast<Int>(info.max)
                       : std::numeric_limits<Int>::max();
    const auto rangeError = [&] {
      error(v, "must be an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                   "] (got " + v.text + ")");
    };
    if (v.isInteger()) {
      Int parsed{};
      const char* begin = v.text.data();
      const char* end = begin + v.text.size();
      const auto [p, ec] = std::from_chars(begin, end, parsed);
      if (ec != std::errc() || p != end || (std::is_unsigned_v<Int> && v.text == "-0")) {
        rangeError();
      } else {
        out = parsed;
      }
      return;
    }
    constexpr double kExact = 9007199254740992.0;  // 2^53
    if (std::trunc(v.number) != v.number || std::fabs(v.number) > kExact) {
      error(v, "must be an integer (got " + v.text + ")");
    } else if (v.number < static_cast<double>(std::numeric_limits<Int>::min()) ||
               v.number > static_cast<double>(std::numeric_limits<Int>::max())) {
      rangeError();
    } else {
      out = static_cast<Int>(v.number);
    }
  }

  template <reflect::ReflectedEnum E>
  void read(E& out, const Value& v, const FieldInfo&) {
    constexpr auto& values = reflect::EnumTraits<E>::kValues;
    std::string expected;
    std::vector<std::string_view> names;
    for (const auto& entry : values) {
      names.push_back(entry.name);
      if (!expected.empty()) expected += ", ";
      expected += entry.name;
    }
    if (!expectKind(v, Kind::String, "one of: " + expected)) return;
    for (const auto& entry : values) {
      if (entry.name == v.text) {
        out = entry.value;
        return;
      }
    }
    std::string message = "unknown value " + shown(v);
    const std::string_view suggestion = closestMatch(v.text, names);
    if (!suggestion.empty()) message += " (did you mean \"" + std::string(suggestion) + "\"?)";
    error(v, message + "; expected one of: " + expected);
  }

  // --- fixed tuples and number lists
  // ----------------------------------------------------------------

  template <std::size_t N>
  bool readFloats(std::array<float, N>& out, const Value& v, std::string_view what) {
    if (!expectKind(v, Kind::Array, what)) return false;
    if (v.items.size() != N) {
      error(v,
            "must be " + std::string(what) + " (got " + std::to_string(v.items.size()) + " items)");
      return false;
    }
    std::array<float, N> values{};
    bool ok = true;
    for (std::size_t i = 0; i < N; ++i) {
      PointerScope scope(pointer_, i);
      ok = readFloat(values[i], v.items[i]) && ok;
    }
    if (ok) out = values;
    return ok;
  }

  void read(Vec3& out, const Value& v, const FieldInfo&) { readFloats(out, v, "[x, y, z]"); }
  void read(Rgba& out, const Value& v, const FieldInfo&) { readFloats(out, v, "[r, g, b, a]"); }

  void read(std::vector<float>& out, const Value& v, const FieldInfo& info) {
    if (!expectArray(v, info, "an array of numbers")) return;
    std::vector<float> values(v.items.size());
    bool ok = true;
    for (std::size_t i = 0; i < values.size(); ++i) {
      PointerScope scope(pointer_, i);
      ok = readFloat(values[i], v.items[i]) && ok;
    }
    if (ok) out = std::move(values);
  }

  // --- value sources
  // --------------------------------------------------------------------------------

  void read(Range& out, const Value& v, const FieldInfo&) {
    if (v.kind == Kind::Number) {
      float x = 0.0f;
      if (readFloat(x, v)) out = Range{x, x};
      return;
    }
    if (v.kind != Kind::Array || v.items.size() != 2) {
      error(v, "must be a number or [min, max] (got " +
                   (v.kind == Kind::Array ? std::to_string(v.items.size()) + " items" : shown(v)) +
                   ")");
      return;
    }
    std::array<float, 2> pair{};
    if (readFloats(pair, v, "[min, max]")) out = Range{pair[0], pair[1]};
  }

  // The object forms start from the struct's own defaults (range 0, white), not the field's.
  void read(ScalarParam& out, const Value& v, const FieldInfo& info) {
    if (v.kind == Kind::Object) {
      out = ScalarParam{};
      readStruct(out, v);
    } else if (v.kind == Kind::Number || v.kind == Kind::Array) {
      out.overEmitterTime = {};
      out.rangeScaleOverEmitterTime = {};
      read(out.range, v, info);
    } else {
      error(v, "must be a number, [min, max] or an object (got " + shown(v) + ")");
    }
  }

  void read(ColorParam& out, const Value& v, const FieldInfo& info) {
    if (v.kind == Kind::Object) {
      out = ColorParam{};
      readStruct(out, v);
    } else if (v.kind == Kind::Array) {
      Rgba c{};
      if (readFloats(c, v, "[r, g, b, a]")) out = ColorParam{c, c, {}};
    } else {
      (void)info;
      error(v, "must be [r, g, b, a] or an object (got " + shown(v) + ")");
    }
  }

  void read(std::vector<CurveKey>& out, const Value& v, const FieldInfo& info) {
    if (!expectArray(v, info, "an array of [time, value] keys")) return;
    std::vector<CurveKey> keys(v.items.size());
    bool ok = true;
    for (std::size_t i = 0; i < keys.size(); ++i) {
      PointerScope scope(pointer_, i);
      std::array<float, 2> pair{};
      ok = readFloats(pair, v.items[i], "[time, value]") && ok;
      keys[i] = CurveKey{pair[0], pair[1]};
    }
    if (ok) out = std::move(keys);
  }

  void read(std::vector<GradientKey>& out, const Value& v, const FieldInfo& info) {
    readArrayKeys(out, v, info, &GradientKey::color, "[r, g, b, a]");
  }

  void read(std::vector<Vec3Key>& out, const Value& v, const FieldInfo& info) {
    readArrayKeys(out, v, info, &Vec3Key::value, "[x, y, z]");
  }

  // Keys written [time, [numbers…]]: gradients and motion tracks.
  template <class K, std::size_t N>
  void readArrayKeys(std::vector<K>& out, const Value& v, const FieldInfo& info,
                     std::array<float, N> K::*value, std::string_view what) {
    const std::string form = "[time, " + std::string(what) + "]";
    if (!expectArray(v, info, "an array of " + form + " keys")) return;
    std::vector<K> keys(v.items.size());
    bool ok = true;
    for (std::size_t i = 0; i < keys.size(); ++i) {
      PointerScope scope(pointer_, i);
      const Value& item = v.items[i];
      if (item.kind != Kind::Array || item.items.size() != 2) {
        error(item, "must be " + form + " (got " + shown(item) + ")");
        ok = false;
        continue;
      }
      {
        PointerScope first(pointer_, std::size_t{0});
        ok = readFloat(keys[i].time, item.items[0]) && ok;
      }
      PointerScope second(pointer_, std::size_t{1});
      ok = readFloats(keys[i].*value, item.items[1], what) && ok;
    }
    if (ok) out = std::move(keys);
  }

  // --- composites
  // -----------------------------------------------------------------------------------

  template <reflect::ReflectedStruct T>
  void read(T& out, const Value& v, const FieldInfo&) {
    readStruct(out, v);
  }

  template <reflect::ReflectedStruct T>
  void read(std::vector<T>& out, const Value& v, const FieldInfo& info) {
    if (!expectArray(v, info, "an array")) return;
    out.assign(v.items.size(), T{});
    for (std::size_t i = 0; i < out.size(); ++i) {
      PointerScope scope(pointer_, i);
      readStruct(out[i], v.items[i]);
    }
  }

  // A list of modules chosen by their "type": the update list, or a modules node's list (update
  // and INIT modules; which graph may hold which is the validator's to say).
  template <reflect::ModuleVariant M>
  void read(std::vector<M>& out, const Value& v, const FieldInfo& info) {
    if (!expectArray(v, info, "an array of modules")) return;
    out.clear();
    out.reserve(v.items.size());
    for (std::size_t i = 0; i < v.items.size(); ++i) {
      PointerScope scope(pointer_, i);
      const Value& item = v.items[i];
      if (!expectKind(item, Kind::Object, "a module object")) continue;
      const Value* type = item.find("type");
      if (type == nullptr) {
        PointerScope typeScope(pointer_, "type");
        error(item, "missing required field \"type\"");
        continue;
      }
      M module;
      {
        PointerScope typeScope(pointer_, "type");
        if (!expectKind(*type, Kind::String, "a module type")) continue;
        if (!emplaceModule(module, type->text)) {
          constexpr auto& types = reflect::kModuleTypesOf<M>;
          std::string expected;
          for (const std::string_view t : types)
            expected += (expected.empty() ? "" : ", ") + std::string(t);
          std::string message = "unknown module type " + shown(*type);
          const std::string_view suggestion = closestMatch(type->text, types);
          if (!suggestion.empty())
            message += " (did you mean \"" + std::string(suggestion) + "\"?)";
          error(*type, message + "; expected one of: " + expected);
          continue;
        }
      }
      std::visit([&](auto& m) { readStruct(m, item, "type"); }, module);
      out.push_back(std::move(module));
    }
  }

  template <class M, std::size_t I = 0>
  static bool emplaceModule(M& module, std::string_view type) {
    if constexpr (I < std::variant_size_v<M>) {
      using Alternative = std::variant_alternative_t<I, M>;
      if (Alternative::kType == type) {
        module.template emplace<I>();
        return true;
      }
      return emplaceModule<M, I + 1>(module, type);
    } else {
      return false;
    }
  }

  void read(std::map<std::string, std::string>& out, const Value& v, const FieldInfo& info) {
    if (!expectKind(v, Kind::Object, "an object of strings")) return;
    if (info.maxItems > 0 && v.members.size() > info.maxItems) {
      error(v, "has " + std::to_string(v.members.size()) + " entries; at most " +
                   std::to_string(info.maxItems) + " are allowed");
      return;
    }
    out.clear();
    for (const json::Member& m : v.members) {
      PointerScope scope(pointer_, m.key);
      if (expectKind(m.value, Kind::String, "a string")) out[m.key] = m.value.text;
    }
  }

  void read(std::map<std::string, std::vector<float>>& out, const Value& v, const FieldInfo& info) {
    if (!expectKind(v, Kind::Object, "an object of numbers")) return;
    if (info.maxItems > 0 && v.members.size() > info.maxItems) {
      error(v, "has " + std::to_string(v.members.size()) + " entries; at most " +
                   std::to_string(info.maxItems) + " are allowed");
      return;
    }
    out.clear();
    const FieldInfo itemInfo{.key = {}, .doc = {}, .maxItems = 16};
    for (const json::Member& m : v.members) {
      PointerScope scope(pointer_, m.key);
      std::vector<float> values;
      if (m.value.kind == Kind::Number) {
        float x = 0.0f;
        if (readFloat(x, m.value)) out[m.key] = {x};
      } else {
        read(values, m.value, itemInfo);
        out[m.key] = std::move(values);
      }
    }
  }

  std::string file_;
  std::vector<Diagnostic>& out_;
  std::string pointer_;
  const Value* object_ = nullptr;
  std::vector<std::string_view> seen_;
};

}  // namespace

EffectLoadResult parseEffect(std::string_view text, std::string_view fileName) {
  EffectLoadResult result;
  const std::string file(fileName);
  if (text.size() > kMaxEffectFileBytes) {
    result.diagnostics.push_back(
        Diagnostic{Severity::Error, "",
                   "larger than " + std::to_string(kMaxEffectFileBytes) + " bytes", file, 0, 0});
    return result;
  }
  json::Value root;
  json::ParseError parseError;
  if (!json::parse(text, root, parseError)) {
    result.diagnostics.push_back(Diagnostic{Severity::Error, "", std::move(parseError.message),
                                            file, parseError.position.line,
                                            parseError.position.column});
    return result;
  }
  Reader reader(file, result.diagnostics);
  if (!reader.readRoot(root, result.effect)) return result;
  const std::size_t structural = result.diagnostics.size();
  // The semantic findings, located in the document — except those on the path of a value that
  // already has a structural error (its content is partly defaults, so they would only echo it).
  for (Diagnostic& d : validateEffect(result.effect, structural == 0)) {
    bool echo = false;
    for (std::size_t i = 0; i < structural && !echo; ++i) {
      const std::string& p = result.diagnostics[i].pointer;
      const auto onPath = [](const std::string& outer, const std::string& inner) {
        return inner.starts_with(outer) &&
               (inner.size() == outer.size() || inner[outer.size()] == '/');
      };
      echo = onPath(p, d.pointer) || onPath(d.pointer, p);
    }
    if (echo) continue;
    const json::Located at = json::locate(root, d.pointer);
    d.pointer = at.pointer;
    d.file = file;
    d.line = at.value->position.line;
    d.column = at.value->position.column;
    result.diagnostics.push_back(std::move(d));
  }
  // In document order (stable: findings at one place keep their order).
  std::stable_sort(result.diagnostics.begin(), result.diagnostics.end(),
                   [](const Diagnostic& a, const Diagnostic& b) {
                     return a.line != b.line ? a.line < b.line : a.column < b.column;
                   });
  return result;
}

EffectLoadResult loadEffectFile(const std::string& path) {
  Result<std::vector<std::uint8_t>> bytes = readFile(path, kMaxEffectFileBytes);
  if (!bytes.ok()) {
    EffectLoadResult result;
    result.diagnostics.push_back(
        Diagnostic{Severity::Error, "", bytes.status().message(), "", 0, 0});
    return result;
  }
  const std::vector<std::uint8_t>& data = *bytes;
  return parseEffect(std::string_view(reinterpret_cast<const char*>(data.data()), data.size()),
                     path);
}

}  // namespace mote::authoring
