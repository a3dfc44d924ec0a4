// SPDX-License-Identifier: MIT
// A small strict JSON document model (RFC 8259) that remembers where every value and key came
// from, for diagnostics that name file:line:column. nlohmann/json reports no positions of values,
// takes the last of duplicate keys silently and throws; this reader does neither and never
// recurses deeper than its limit, so it is safe on hostile input (fuzz/effect_json_fuzz.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mote::authoring::json {

enum class Kind : std::uint8_t { Null, Bool, Number, String, Array, Object };

/// 1-based line and column (columns count code points; a tab is one). {0, 0}: unknown.
struct Position {
  std::uint32_t line = 0;
  std::uint32_t column = 0;
};

struct Member;

struct Value {
  Kind kind = Kind::Null;
  Position position;
  bool boolean = false;
  double number = 0.0;
  /// String: the decoded text. Number: the lexeme exactly as written (integers keep every digit).
  std::string text;
  std::vector<Value> items;     ///< Array
  std::vector<Member> members;  ///< Object, in document order (keys unique)

  static Value makeBool(bool b);
  static Value makeNumber(std::string lexeme);  ///< `lexeme` must be a JSON number
  static Value makeString(std::string s);
  static Value makeArray();
  static Value makeObject();

  /// The member named `key`, or null. O(members).
  const Value* find(std::string_view key) const;
  /// Appends a member (the caller keeps keys unique).
  void add(std::string key, Value value);
  bool isInteger() const;  ///< a Number written without fraction or exponent
  std::string_view kindName() const;
  bool operator==(const Value& other) const;  ///< structural (positions ignored)
};

struct Member {
  std::string key;
  Position keyPosition;
  Value value;
};

struct Limits {
  std::size_t maxDepth = 64;
  std::size_t maxValues = std::size_t{1} << 20;
};

struct ParseError {
  Position position;
  std::string message;
};

/// Parses one JSON document (UTF-8; a leading BOM is an error, as RFC 8259 allows). On failure
/// returns false with the first error. O(n); allocates the tree.
[[nodiscard]] bool parse(std::string_view text, Value& out, ParseError& error,
                         const Limits& limits = {});

/// Canonical text: 2-space indentation, members in their stored order; arrays of scalars (or of
/// arrays of scalars) and objects whose members are such values go on one line when that line fits
/// in 100 columns; "\n" at the end.
[[nodiscard]] std::string write(const Value& value);

/// Shortest decimal that reads back as exactly `v` (v finite), JSON-valid ("1", "0.1", "-0",
/// "1e+20"). Allocates the string.
std::string formatFloat(float v);

/// Appends `s` as a quoted JSON string (escaping quotes, backslashes and control characters).
void appendQuoted(std::string& out, std::string_view s);

/// Appends a JSON-pointer segment ("/" + key with "~" → "~0" and "/" → "~1").
void appendPointerSegment(std::string& pointer, std::string_view key);

struct Located {
  const Value* value;   ///< the deepest value on the path that exists in the document
  std::string pointer;  ///< the pointer as the document spells it
};

/// The deepest value of `root` on `pointer`'s path (the root itself for ""), for a pointer in the
/// writer's canonical spelling: where the document wrote the
/// long object form of a value the writer shortens ({"range": …} for a number or [min, max],
/// {"from": …} for [r, g, b, a]), the path steps into that member — so the pointer returned names
/// what the file has. Segments past the deepest existing value are kept as they are.
Located locate(const Value& root, std::string_view pointer);

}  // namespace mote::authoring::json
