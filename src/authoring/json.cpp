// SPDX-License-Identifier: MIT
#include "json.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <system_error>

namespace mote::authoring::json {

namespace {

// The double nearest a JSON number lexeme; ±HUGE_VAL when it overflows a double, ±0 when it is too
// small for one. Locale-independent (std::from_chars), unlike strtod.
double numberFromLexeme(std::string_view lexeme) {
  double value = 0.0;
  const auto [end, ec] = std::from_chars(lexeme.data(), lexeme.data() + lexeme.size(), value);
  if (ec != std::errc::result_out_of_range) return value;
  // Out of range one way or the other: the decimal exponent of the first significant digit tells.
  const bool negative = lexeme.starts_with('-');
  long exponent = 0;
  const std::size_t e = lexeme.find_first_of("eE");
  if (e != std::string_view::npos) {
    std::string_view digits = lexeme.substr(e + 1);
    const bool negativeExponent = digits.starts_with('-');
    if (digits.starts_with('-') || digits.starts_with('+')) digits.remove_prefix(1);
    for (const char c : digits) {
      exponent = exponent * 10 + (c - '0');
      if (exponent > 100000) break;
    }
    if (negativeExponent) exponent = -exponent;
  }
  const std::string_view mantissa = lexeme.substr(negative ? 1 : 0, e - (negative ? 1 : 0));
  const std::size_t point = mantissa.find('.');
  const std::size_t intDigits = point == std::string_view::npos ? mantissa.size() : point;
  const std::size_t firstSignificant = mantissa.find_first_of("123456789");
  const long position = firstSignificant < intDigits
                            ? static_cast<long>(intDigits - firstSignificant) - 1
                            : -static_cast<long>(firstSignificant - intDigits);
  const double magnitude = exponent + position > 0 ? HUGE_VAL : 0.0;
  return negative ? -magnitude : magnitude;
}

}  // namespace

Value Value::makeBool(bool b) {
  Value v;
  v.kind = Kind::Bool;
  v.boolean = b;
  return v;
}

Value Value::makeNumber(std::string lexeme) {
  Value v;
  v.kind = Kind::Number;
  v.number = numberFromLexeme(lexeme);
  v.text = std::move(lexeme);
  return v;
}

Value Value::makeString(std::string s) {
  Value v;
  v.kind = Kind::String;
  v.text = std::move(s);
  return v;
}

Value Value::makeArray() {
  Value v;
  v.kind = Kind::Array;
  return v;
}

Value Value::makeObject() {
  Value v;
  v.kind = Kind::Object;
  return v;
}

const Value* Value::find(std::string_view key) const {
  for (const Member& m : members)
    if (m.key == key) return &m.value;
  return nullptr;
}

void Value::add(std::string key, Value value) {
  members.push_back(Member{std::move(key), {}, std::move(value)});
}

bool Value::isInteger() const {
  return kind == Kind::Number && text.find_first_of(".eE") == std::string::npos;
}

std::string_view Value::kindName() const {
  switch (kind) {
    case Kind::Null:
      return "null";
    case Kind::Bool:
      return "a boolean";
    case Kind::Number:
      return "a number";
    case Kind::String:
      return "a string";
    case Kind::Array:
      return "an array";
    case Kind::Object:
      return "an object";
  }
  return "a value";
}

bool Value::operator==(const Value& other) const {
  if (kind != other.kind) return false;
  switch (kind) {
    case Kind::Null:
      return true;
    case Kind::Bool:
      return boolean == other.boolean;
    case Kind::Number:
    case Kind::String:
      return text == other.text;
    case Kind::Array:
      return items == other.items;
    case Kind::Object:
      if (members.size() != other.members.size()) return false;
      for (std::size_t i = 0; i < members.size(); ++i) {
        if (members[i].key != other.members[i].key || !(members[i].value == other.members[i].value))
          return false;
      }
      return true;
  }
  return false;
}

// -------------------------------------------------------------------------------------------------
// Reader

namespace {

class Parser {
 public:
  Parser(std::string_view text, const Limits& limits) : text_(text), limits_(limits) {}

  bool run(Value& out, ParseError& error) {
    skipSpace();
    if (!parseValue(out, 0)) {
      error = std::move(error_);
      return false;
    }
    skipSpace();
    if (at_ < text_.size()) {
      fail("unexpected text after the JSON document");
      error = std::move(error_);
      return false;
    }
    return true;
  }

 private:
  bool fail(std::string message) {
    if (error_.message.empty()) error_ = ParseError{here(), std::move(message)};
    return false;
  }

  bool failAt(Position position, std::string message) {
    if (error_.message.empty()) error_ = ParseError{position, std::move(message)};
    return false;
  }

  Position here() const { return Position{line_, column_}; }

  // Advances one byte, keeping line and column (columns count UTF-8 lead bytes).
  void advance() {
    const unsigned char c = static_cast<unsigned char>(text_[at_++]);
    if (c == '\n') {
      ++line_;
      column_ = 1;
    } else if ((c & 0xC0) != 0x80) {
      ++column_;
    }
  }

  void skipSpace() {
    while (at_ < text_.size()) {
      const char c = text_[at_];
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
      advance();
    }
  }

  bool parseValue(Value& out, std::size_t depth) {
    if (++values_ > limits_.maxValues) {
      return fail("more than " + std::to_string(limits_.maxValues) + " JSON values");
    }
    out.position = here();
    if (at_ >= text_.size()) return fail("unexpected end of input (expected a value)");
    const char c = text_[at_];
    switch (c) {
      case '{':
        return parseObject(out, depth);
      case '[':
        return parseArray(out, depth);
      case '"':
        out.kind = Kind::String;
        return parseString(out.text);
      case 't':
        out.kind = Kind::Bool;
        out.boolean = true;
        return literal("true");
      case 'f':
        out.kind = Kind::Bool;
        out.boolean = false;
        return literal("false");
      case 'n':
        out.kind = Kind::Null;
        return literal("null");
      default:
        if (c == '-' || (c >= '0' && c <= '9')) return parseNumber(out);
        return failAtToken();
    }
  }

  // An unexpected token: name the non-JSON spellings people reach for.
  bool failAtToken() {
    const std::string_view rest = text_.substr(at_);
    for (std::string_view word :
         {"NaN", "Infinity", "-Infinity", "-NaN", "inf", "nan", "-inf", "-nan"}) {
      if (rest.starts_with(word)) {
        return fail("'" + std::string(word) +
                    "' is not JSON: numbers must be finite (write a finite value)");
      }
    }
    if (rest.starts_with("'")) return fail("JSON strings use double quotes");
    if (at_ == 0 && rest.starts_with("\xEF\xBB\xBF")) {
      return fail("a byte order mark is not allowed (save the file as UTF-8 without BOM)");
    }
    if (rest.starts_with("//") || rest.starts_with("/*")) return fail("JSON has no comments");
    if (rest.starts_with("-")) return fail("expected a digit after '-'");
    if (rest.starts_with("]") || rest.starts_with("}")) {
      return fail("unexpected '" + std::string(1, rest[0]) + "' (a trailing comma?)");
    }
    return fail(describeByte("unexpected character"));
  }

  std::string describeByte(std::string_view what) const {
    const unsigned char c = static_cast<unsigned char>(text_[at_]);
    if (c >= 0x20 && c < 0x7F) return std::string(what) + " '" + static_cast<char>(c) + "'";
    static constexpr char kHex[] = "0123456789abcdef";
    std::string s(what);
    s += " (byte 0x";
    s += kHex[c >> 4];
    s += kHex[c & 15];
    s += ')';
    return s;
  }

  bool literal(std::string_view word) {
    if (text_.substr(at_, word.size()) != word) return failAtToken();
    for (std::size_t i = 0; i < word.size(); ++i)
      advance();
    if (at_ < text_.size() && std::isalnum(static_cast<unsigned char>(text_[at_]))) {
      return fail(describeByte("unexpected character"));
    }
    return true;
  }

  bool isCommentHere() const {
    const std::string_view rest = text_.substr(at_);
    return rest.starts_with("//") || rest.starts_with("/*");
  }

  bool expect(char c, std::string_view context) {
    skipSpace();
    if (at_ < text_.size() && text_[at_] == c) {
      advance();
      return true;
    }
    if (isCommentHere()) return fail("JSON has no comments");
    if (at_ >= text_.size()) {
      return fail("unexpected end of input (expected '" + std::string(1, c) + "' " +
                  std::string(context) + ")");
    }
    return fail(
        describeByte("expected '" + std::string(1, c) + "' " + std::string(context) + ", found"));
  }

  bool parseObject(Value& out, std::size_t depth) {
    if (depth >= limits_.maxDepth) {
      return fail("nested deeper than " + std::to_string(limits_.maxDepth) + " levels");
    }
    out.kind = Kind::Object;
    advance();  // '{'
    skipSpace();
    if (at_ < text_.size() && text_[at_] == '}') {
      advance();
      return true;
    }
    while (true) {
      skipSpace();
      if (at_ >= text_.size()) return fail("unexpected end of input (expected a key)");
      if (text_[at_] != '"') {
        if (text_[at_] == '}') return fail("unexpected '}' after ',' (a trailing comma?)");
        if (text_[at_] == '\'') return fail("JSON strings use double quotes");
        if (isCommentHere()) return fail("JSON has no comments");
        return fail(describeByte("expected a quoted key, found"));
      }
      Member member;
      member.keyPosition = here();
      if (!parseString(member.key)) return false;
      for (const Member& m : out.members) {
        if (m.key == member.key) {
          error_ =
              ParseError{member.keyPosition, "duplicate key \"" + member.key + "\" (first at " +
                                                 std::to_string(m.keyPosition.line) + ":" +
                                                 std::to_string(m.keyPosition.column) + ")"};
          return false;
        }
      }
      if (!expect(':', "after the key")) return false;
      skipSpace();
      if (!parseValue(member.value, depth + 1)) return false;
      out.members.push_back(std::move(member));
      skipSpace();
      if (at_ < text_.size() && text_[at_] == ',') {
        advance();
        continue;
      }
      return expect('}', "or ',' in the object");
    }
  }

  bool parseArray(Value& out, std::size_t depth) {
    if (depth >= limits_.maxDepth) {
      return fail("nested deeper than " + std::to_string(limits_.maxDepth) + " levels");
    }
    out.kind = Kind::Array;
    advance();  // '['
    skipSpace();
    if (at_ < text_.size() && text_[at_] == ']') {
      advance();
      return true;
    }
    while (true) {
      skipSpace();
      Value item;
      if (!parseValue(item, depth + 1)) return false;
      out.items.push_back(std::move(item));
      skipSpace();
      if (at_ < text_.size() && text_[at_] == ',') {
        advance();
        continue;
      }
      return expect(']', "or ',' in the array");
    }
  }

  static int hexDigit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }

  bool readHex4(std::uint32_t& out, Position escape) {
    if (text_.size() - at_ < 4) return failAt(escape, "truncated \\u escape");
    out = 0;
    for (int i = 0; i < 4; ++i) {
      const int d = hexDigit(text_[at_]);
      if (d < 0) return failAt(escape, "invalid \\u escape (expected 4 hex digits)");
      out = out * 16 + static_cast<std::uint32_t>(d);
      advance();
    }
    return true;
  }

  static void appendUtf8(std::string& out, std::uint32_t cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  // Validates one UTF-8 sequence starting at at_ (RFC 3629: no overlongs, no surrogates, ≤
  // U+10FFFF) and copies it.
  bool copyUtf8(std::string& out) {
    const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text_[at_ + i]); };
    const unsigned char c = byte(0);
    std::size_t length = 0;
    std::uint32_t cp = 0;
    if (c >= 0xC2 && c <= 0xDF) {
      length = 2;
      cp = c & 0x1Fu;
    } else if (c >= 0xE0 && c <= 0xEF) {
      length = 3;
      cp = c & 0x0Fu;
    } else if (c >= 0xF0 && c <= 0xF4) {
      length = 4;
      cp = c & 0x07u;
    } else {
      return fail(describeByte("invalid UTF-8"));
    }
    if (text_.size() - at_ < length) return fail("truncated UTF-8 sequence");
    for (std::size_t i = 1; i < length; ++i) {
      if ((byte(i) & 0xC0) != 0x80) return fail("invalid UTF-8 continuation byte");
      cp = (cp << 6) | (byte(i) & 0x3Fu);
    }
    if ((length == 3 && cp < 0x800) || (length == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp <= 0xDFFF)) {
      return fail("invalid UTF-8 (overlong, surrogate or beyond U+10FFFF)");
    }
    out.append(text_.substr(at_, length));
    for (std::size_t i = 0; i < length; ++i)
      advance();
    return true;
  }

  bool parseString(std::string& out) {
    advance();  // '"'
    while (true) {
      if (at_ >= text_.size()) return fail("unterminated string");
      const char c = text_[at_];
      if (c == '"') {
        advance();
        return true;
      }
      if (static_cast<unsigned char>(c) < 0x20) {
        return fail(c == '\n' ? "unterminated string (newline inside a string)"
                              : describeByte("control character inside a string"));
      }
      if (c == '\\') {
        const Position escape = here();
        advance();
        if (at_ >= text_.size()) return fail("unterminated string");
        const char e = text_[at_];
        advance();
        switch (e) {
          case '"':
            out += '"';
            break;
          case '\\':
            out += '\\';
            break;
          case '/':
            out += '/';
            break;
          case 'b':
            out += '\b';
            break;
          case 'f':
            out += '\f';
            break;
          case 'n':
            out += '\n';
            break;
          case 'r':
            out += '\r';
            break;
          case 't':
            out += '\t';
            break;
          case 'u': {
            std::uint32_t cp = 0;
            if (!readHex4(cp, escape)) return false;
            if (cp >= 0xDC00 && cp <= 0xDFFF) {
              return failAt(escape, "unpaired low surrogate in \\u escape");
            }
            if (cp >= 0xD800 && cp <= 0xDBFF) {
              if (text_.substr(at_, 2) != "\\u") {
                return failAt(escape, "unpaired high surrogate in \\u escape");
              }
              advance();
              advance();
              std::uint32_t low = 0;
              if (!readHex4(low, escape)) return false;
              if (low < 0xDC00 || low > 0xDFFF) {
                return failAt(escape, "unpaired high surrogate in \\u escape");
              }
              cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
            }
            appendUtf8(out, cp);
            break;
          }
          default:
            return failAt(escape, "invalid escape '\\" + std::string(1, e) + "'");
        }
        continue;
      }
      if (static_cast<unsigned char>(c) >= 0x80) {
        if (!copyUtf8(out)) return false;
        continue;
      }
      out += c;
      advance();
    }
  }

  bool digits() {
    if (at_ >= text_.size() || text_[at_] < '0' || text_[at_] > '9') {
      return fail(at_ >= text_.size() ? "unexpected end of input in a number"
                                      : describeByte("expected a digit, found"));
    }
    while (at_ < text_.size() && text_[at_] >= '0' && text_[at_] <= '9')
      advance();
    return true;
  }

  bool parseNumber(Value& out) {
    const std::size_t start = at_;
    if (text_[at_] == '-') {
      if (at_ + 1 >= text_.size() || text_[at_ + 1] < '0' || text_[at_ + 1] > '9') {
        return failAtToken();  // "-Infinity", "-nan", a lone '-'
      }
      advance();
    }
    if (at_ < text_.size() && text_[at_] == '0') {
      advance();
      if (at_ < text_.size() && text_[at_] >= '0' && text_[at_] <= '9') {
        return failAt(out.position, "numbers may not have leading zeros");
      }
    } else if (!digits()) {
      return false;
    }
    if (at_ < text_.size() && text_[at_] == '.') {
      advance();
      if (!digits()) return false;
    }
    if (at_ < text_.size() && (text_[at_] == 'e' || text_[at_] == 'E')) {
      advance();
      if (at_ < text_.size() && (text_[at_] == '+' || text_[at_] == '-')) advance();
      if (!digits()) return false;
    }
    out.kind = Kind::Number;
    out.text.assign(text_.substr(start, at_ - start));
    out.number = numberFromLexeme(out.text);
    if (!std::isfinite(out.number)) {
      error_ = ParseError{
          out.position, "number " + out.text + " is out of range (numbers must be finite doubles)"};
      return false;
    }
    return true;
  }

  std::string_view text_;
  Limits limits_;
  std::size_t at_ = 0;
  std::uint32_t line_ = 1;
  std::uint32_t column_ = 1;
  std::size_t values_ = 0;
  ParseError error_;
};

}  // namespace

bool parse(std::string_view text, Value& out, ParseError& error, const Limits& limits) {
  out = Value{};
  Parser parser(text, limits);
  return parser.run(out, error);
}

// -------------------------------------------------------------------------------------------------
// Writer

std::string formatFloat(float v) {
  char buffer[32];
  const std::to_chars_result r = std::to_chars(buffer, buffer + sizeof buffer, v);
  return std::string(buffer, r.ptr);
}

void appendQuoted(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  for (const char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += "\\u00";
          out += kHex[(c >> 4) & 15];
          out += kHex[c & 15];
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

void appendPointerSegment(std::string& pointer, std::string_view key) {
  pointer += '/';
  for (const char c : key) {
    if (c == '~') {
      pointer += "~0";
    } else if (c == '/') {
      pointer += "~1";
    } else {
      pointer += c;
    }
  }
}

namespace {

constexpr std::size_t kLineWidth = 100;

// Scalars, and empty arrays and objects, are written the same wherever they are.
bool isScalar(const Value& v) {
  if (v.kind == Kind::Array) return v.items.empty();
  if (v.kind == Kind::Object) return v.members.empty();
  return true;
}

bool isFlatObject(const Value& v);

// What may go on one line (when the line fits): scalars, arrays of them, arrays of such arrays,
// and objects whose members are all of those — two levels of nesting at most.
bool isFlat(const Value& v, int level) {
  if (isScalar(v)) return true;
  if (level > 1) return false;
  if (v.kind == Kind::Object) return level == 1 && isFlatObject(v);
  for (const Value& item : v.items)
    if (!isFlat(item, level + 1)) return false;
  return true;
}

bool isFlatObject(const Value& v) {
  if (v.kind != Kind::Object || v.members.empty()) return false;
  for (const Member& m : v.members)
    if (!isFlat(m.value, 0)) return false;
  return true;
}

void writeInline(const Value& v, std::string& out) {
  switch (v.kind) {
    case Kind::Null:
      out += "null";
      break;
    case Kind::Bool:
      out += v.boolean ? "true" : "false";
      break;
    case Kind::Number:
      out += v.text;
      break;
    case Kind::String:
      appendQuoted(out, v.text);
      break;
    case Kind::Array:
      out += '[';
      for (std::size_t i = 0; i < v.items.size(); ++i) {
        if (i > 0) out += ", ";
        writeInline(v.items[i], out);
      }
      out += ']';
      break;
    case Kind::Object:
      out += '{';
      for (std::size_t i = 0; i < v.members.size(); ++i) {
        if (i > 0) out += ", ";
        appendQuoted(out, v.members[i].key);
        out += ": ";
        writeInline(v.members[i].value, out);
      }
      out += '}';
      break;
  }
}

void writeValue(const Value& v, std::string& out, std::size_t indent, std::size_t column) {
  if (isScalar(v)) {
    writeInline(v, out);
    return;
  }
  if ((v.kind == Kind::Array && isFlat(v, 0)) || isFlatObject(v)) {
    std::string line;
    writeInline(v, line);
    if (column + line.size() <= kLineWidth) {
      out += line;
      return;
    }
  }
  const std::string pad(indent + 2, ' ');
  if (v.kind == Kind::Array) {
    out += "[\n";
    for (std::size_t i = 0; i < v.items.size(); ++i) {
      out += pad;
      writeValue(v.items[i], out, indent + 2, pad.size());
      out += i + 1 < v.items.size() ? ",\n" : "\n";
    }
    out.append(indent, ' ');
    out += ']';
    return;
  }
  out += "{\n";
  for (std::size_t i = 0; i < v.members.size(); ++i) {
    const std::size_t lineStart = out.size();
    out += pad;
    appendQuoted(out, v.members[i].key);
    out += ": ";
    writeValue(v.members[i].value, out, indent + 2, out.size() - lineStart);
    out += i + 1 < v.members.size() ? ",\n" : "\n";
  }
  out.append(indent, ' ');
  out += '}';
}

}  // namespace

std::string write(const Value& value) {
  std::string out;
  writeValue(value, out, 0, 0);
  out += '\n';
  return out;
}

namespace {

std::string unescapeSegment(std::string_view raw) {
  std::string key;
  for (std::size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] == '~' && i + 1 < raw.size()) {
      key += raw[i + 1] == '1' ? '/' : '~';
      ++i;
    } else {
      key += raw[i];
    }
  }
  return key;
}

const Value* child(const Value& at, const std::string& key) {
  if (at.kind == Kind::Object) return at.find(key);
  if (at.kind == Kind::Array) {
    std::size_t index = 0;
    const auto [p, ec] = std::from_chars(key.data(), key.data() + key.size(), index);
    if (ec == std::errc() && p == key.data() + key.size() && index < at.items.size()) {
      return &at.items[index];
    }
  }
  return nullptr;
}

}  // namespace

Located locate(const Value& root, std::string_view pointer) {
  Located out{&root, {}};
  bool found = true;
  while (!pointer.empty() && pointer[0] == '/') {
    pointer.remove_prefix(1);
    const std::size_t end = pointer.find('/');
    const std::string_view raw = pointer.substr(0, end);
    pointer.remove_prefix(end == std::string_view::npos ? pointer.size() : end);
    const std::string key = unescapeSegment(raw);
    const Value* next = found ? child(*out.value, key) : nullptr;
    if (next == nullptr && found && out.value->kind == Kind::Object) {
      for (const char* form : {"range", "from"}) {
        const Value* inner = out.value->find(form);
        if (inner != nullptr && child(*inner, key) != nullptr) {
          out.pointer += '/';
          out.pointer += form;
          out.value = inner;
          next = child(*inner, key);
          break;
        }
      }
    }
    out.pointer += '/';
    out.pointer += raw;
    if (next == nullptr) {
      found = false;
    } else {
      out.value = next;
    }
  }
  return out;
}

}  // namespace mote::authoring::json
