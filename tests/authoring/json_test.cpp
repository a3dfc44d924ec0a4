// SPDX-License-Identifier: MIT
// The strict JSON reader and the canonical writer behind the effect format.
#include "json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace mote::authoring::json {
namespace {

Value parseOk(std::string_view text) {
  Value v;
  ParseError error;
  EXPECT_TRUE(parse(text, v, error)) << error.message;
  return v;
}

ParseError parseFail(std::string_view text, const Limits& limits = {}) {
  Value v;
  ParseError error;
  EXPECT_FALSE(parse(text, v, error, limits)) << text;
  return error;
}

TEST(Json, ReadsEveryKindWithPositions) {
  const Value v =
      parseOk("{\n  \"a\": [1, -2.5e3, true, null],\n  \"b\": \"x\\u00e9\\ud83d\\ude00\"\n}");
  ASSERT_EQ(v.kind, Kind::Object);
  ASSERT_EQ(v.members.size(), 2u);
  EXPECT_EQ(v.members[0].keyPosition.line, 2u);
  EXPECT_EQ(v.members[0].keyPosition.column, 3u);
  const Value& a = v.members[0].value;
  ASSERT_EQ(a.items.size(), 4u);
  EXPECT_EQ(a.position.line, 2u);
  EXPECT_EQ(a.position.column, 8u);
  EXPECT_EQ(a.items[1].number, -2500.0);
  EXPECT_EQ(a.items[1].text, "-2.5e3");
  EXPECT_EQ(a.items[1].position.column, 12u);
  EXPECT_TRUE(a.items[0].isInteger());
  EXPECT_FALSE(a.items[1].isInteger());
  EXPECT_TRUE(a.items[2].boolean);
  EXPECT_EQ(a.items[3].kind, Kind::Null);
  EXPECT_EQ(v.members[1].value.text, "x\xC3\xA9\xF0\x9F\x98\x80");
}

TEST(Json, ColumnsCountCodePointsNotBytes) {
  const Value v = parseOk("{\"\xC3\xA9\xC3\xA9\": 1}");
  EXPECT_EQ(v.members[0].value.position.column, 8u);
}

TEST(Json, RejectsWithPositionAndReason) {
  struct Case {
    const char* text;
    std::uint32_t line, column;
    const char* message;
  };
  const Case cases[] = {
      {"{\"a\": 1,}", 1, 9, "unexpected '}' after ',' (a trailing comma?)"},
      {"[1, 2,]", 1, 7, "unexpected ']' (a trailing comma?)"},
      {"{\"a\": 1 \"b\": 2}", 1, 9, "expected '}' or ',' in the object, found '\"'"},
      {"{\"a\": NaN}", 1, 7, "'NaN' is not JSON: numbers must be finite (write a finite value)"},
      {"[-Infinity]", 1, 2,
       "'-Infinity' is not JSON: numbers must be finite (write a finite value)"},
      {"[1e999]", 1, 2, "number 1e999 is out of range (numbers must be finite doubles)"},
      {"[01]", 1, 2, "numbers may not have leading zeros"},
      {"{\"a\": 1, \"a\": 2}", 1, 10, "duplicate key \"a\" (first at 1:2)"},
      {"{'a': 1}", 1, 2, "JSON strings use double quotes"},
      {"['a']", 1, 2, "JSON strings use double quotes"},
      {"[\"a\nb\"]", 1, 4, "unterminated string (newline inside a string)"},
      {"[\"\\x\"]", 1, 3, "invalid escape '\\x'"},
      {"[\"\\ud800\"]", 1, 3, "unpaired high surrogate in \\u escape"},
      {"[\"\xFF\"]", 1, 3, "invalid UTF-8 (byte 0xff)"},
      {"[\"\xC0\xAF\"]", 1, 3, "invalid UTF-8 (byte 0xc0)"},
      {"\xEF\xBB\xBF{}", 1, 1,
       "a byte order mark is not allowed (save the file as UTF-8 without BOM)"},
      {"{} x", 1, 4, "unexpected text after the JSON document"},
      {"", 1, 1, "unexpected end of input (expected a value)"},
      {"// c\n{}", 1, 1, "JSON has no comments"},
      {"{\"a\": 1, // c\n}", 1, 10, "JSON has no comments"},
      {"{\"a\": 1 /* c */}", 1, 9, "JSON has no comments"},
      {"[-nan]", 1, 2, "'-nan' is not JSON: numbers must be finite (write a finite value)"},
      {"[-]", 1, 2, "expected a digit after '-'"},
      {"[tru]", 1, 2, "unexpected character 't'"},
      {"[truex]", 1, 6, "unexpected character 'x'"},
  };
  for (const Case& c : cases) {
    const ParseError e = parseFail(c.text);
    EXPECT_EQ(e.message, c.message) << c.text;
    EXPECT_EQ(e.position.line, c.line) << c.text;
    EXPECT_EQ(e.position.column, c.column) << c.text;
  }
}

TEST(Json, DepthAndValueLimitsStopHostileInput) {
  const std::string deep(100000, '[');
  EXPECT_EQ(parseFail(deep).message, "nested deeper than 64 levels");
  const ParseError e = parseFail("[1, 2, 3, 4]", Limits{.maxDepth = 64, .maxValues = 3});
  EXPECT_EQ(e.message, "more than 3 JSON values");
}

TEST(Json, TinyNumbersUnderflowToZeroButHugeOnesFail) {
  const Value v = parseOk("[1e-400, -1e-400, 4.9e-324]");
  EXPECT_EQ(v.items[0].number, 0.0);
  EXPECT_TRUE(std::signbit(v.items[1].number));
  EXPECT_GT(v.items[2].number, 0.0);
  EXPECT_EQ(parseFail("[-1.5e400]").message,
            "number -1.5e400 is out of range (numbers must be finite doubles)");
}

TEST(Json, FormatFloatIsShortestAndRoundTrips) {
  EXPECT_EQ(formatFloat(0.1f), "0.1");
  EXPECT_EQ(formatFloat(1.0f), "1");
  EXPECT_EQ(formatFloat(-0.0f), "-0");
  EXPECT_EQ(formatFloat(1e20f), "1e+20");
  EXPECT_EQ(formatFloat(3.4028235e38f), "3.4028235e+38");
  for (const float f : {0.3f, 1.0f / 3.0f, 9.81f, 1e-7f, 123456.79f}) {
    const Value v = parseOk("[" + formatFloat(f) + "]");
    EXPECT_EQ(static_cast<float>(v.items[0].number), f);
  }
}

TEST(Json, WriterIsCanonical) {
  const Value v = parseOk(
      R"({"b": {"x": 1, "y": [1, 2]}, "a": [[0, 1], [1, 0]], "c": {"nested": {"z": true}}, )"
      R"("s": "q\"\\\n\u0001"})");
  EXPECT_EQ(write(v),
            "{\n"
            "  \"b\": {\"x\": 1, \"y\": [1, 2]},\n"
            "  \"a\": [[0, 1], [1, 0]],\n"
            "  \"c\": {\n"
            "    \"nested\": {\"z\": true}\n"
            "  },\n"
            "  \"s\": \"q\\\"\\\\\\n\\u0001\"\n"
            "}\n");
  // Too long for one line: one item per line.
  std::string longArray = "[";
  for (int i = 0; i < 40; ++i)
    longArray += (i ? ", " : "") + std::to_string(1000 + i);
  longArray += "]";
  const std::string written = write(parseOk(longArray));
  EXPECT_EQ(written.substr(0, 10), "[\n  1000,\n");
  // Writing is a fixed point.
  EXPECT_EQ(write(parseOk(write(v))), write(v));
}

TEST(Json, LocateFindsTheDeepestExistingValue) {
  const Value v = parseOk(R"({"a": [{"b/c": 1, "d~e": 2}]})");
  EXPECT_EQ(locate(v, "/a/0/b~1c").value->number, 1.0);
  EXPECT_EQ(locate(v, "/a/0/d~0e").value->number, 2.0);
  const Located missing = locate(v, "/a/0/missing/deeper");
  EXPECT_EQ(missing.value, &v.members[0].value.items[0]);
  EXPECT_EQ(missing.pointer, "/a/0/missing/deeper");
  EXPECT_EQ(locate(v, "/a/7").value, &v.members[0].value);
  EXPECT_EQ(locate(v, "").value, &v);
  std::string pointer;
  appendPointerSegment(pointer, "b/c~");
  EXPECT_EQ(pointer, "/b~1c~0");
}

TEST(Json, LocateStepsIntoTheLongFormsTheWriterShortens) {
  // The validator names "/size/0" (the writer's short form); this file wrote {"range": [...]}.
  const Value v = parseOk(R"({"size": {"range": [-1, 2]}, "color": {"from": [1, -1, 1, 1]}})");
  const Located size = locate(v, "/size/0");
  EXPECT_EQ(size.pointer, "/size/range/0");
  EXPECT_EQ(size.value->number, -1.0);
  const Located color = locate(v, "/color/1");
  EXPECT_EQ(color.pointer, "/color/from/1");
  EXPECT_EQ(color.value->number, -1.0);
}

}  // namespace
}  // namespace mote::authoring::json
