// SPDX-License-Identifier: MIT
// The checked-in JSON Schema and field reference are what the reader's field table generates (so
// their names, enums, bounds and required lists agree with the loader), and the schema is sound.
#include "json.h"
#include "support/generated_docs.h"
#include "support/source_dir.h"

#include <mote/authoring/effect_json.h>

#include <gtest/gtest.h>

#include <functional>
#include <string>

namespace mote::authoring {
namespace {

using test::readText;

constexpr const char* kRegenerate = "; regenerate with scripts/update-effect-docs";

TEST(EffectSchema, CheckedInSchemaIsTheGeneratedOne) {
  EXPECT_EQ(readText(mote::test::sourcePath("docs/schema/mote.effect.schema.json")),
            effectJsonSchema())
      << "docs/schema/mote.effect.schema.json is stale" << kRegenerate;
}

TEST(EffectSchema, DocsCarryTheGeneratedFieldReference) {
  EXPECT_EQ(
      test::generatedSection(mote::test::sourcePath("docs/effect-format.md"), "FIELD REFERENCE"),
      "\n" + effectFieldReference())
      << "docs/effect-format.md's field reference is stale" << kRegenerate;
}

// Walks every schema object of the document.
void forEachSchema(const json::Value& v, const std::function<void(const json::Value&)>& f) {
  if (v.kind == json::Kind::Object) {
    f(v);
    for (const json::Member& m : v.members)
      forEachSchema(m.value, f);
  } else if (v.kind == json::Kind::Array) {
    for (const json::Value& item : v.items)
      forEachSchema(item, f);
  }
}

TEST(EffectSchema, IsSoundDraft202012) {
  json::Value schema;
  json::ParseError error;
  ASSERT_TRUE(json::parse(effectJsonSchema(), schema, error)) << error.message;
  ASSERT_NE(schema.find("$schema"), nullptr);
  EXPECT_EQ(schema.find("$schema")->text, "https://json-schema.org/draft/2020-12/schema");
  const json::Value* defs = schema.find("$defs");
  ASSERT_NE(defs, nullptr);
  std::size_t refs = 0;
  std::size_t objects = 0;
  forEachSchema(schema, [&](const json::Value& s) {
    if (const json::Value* ref = s.find("$ref")) {
      ++refs;
      ASSERT_TRUE(ref->text.starts_with("#/$defs/")) << ref->text;
      EXPECT_NE(defs->find(ref->text.substr(8)), nullptr) << "dangling " << ref->text;
    }
    const json::Value* properties = s.find("properties");
    if (properties == nullptr || properties->kind != json::Kind::Object) return;
    ++objects;
    const json::Value* extra = s.find("additionalProperties");
    ASSERT_NE(extra, nullptr) << "objects are closed: unknown fields are errors";
    EXPECT_EQ(extra->kind, json::Kind::Bool);
    EXPECT_FALSE(extra->boolean);
    if (const json::Value* required = s.find("required")) {
      for (const json::Value& name : required->items)
        EXPECT_NE(properties->find(name.text), nullptr)
            << "required but not a property: " << name.text;
    }
  });
  EXPECT_GT(refs, 40u);
  EXPECT_GT(objects, 30u);
  // Every module is an alternative of UpdateModule and pins its "type".
  const json::Value* modules = defs->find("UpdateModule");
  ASSERT_NE(modules, nullptr);
  EXPECT_EQ(modules->find("oneOf")->items.size(), std::variant_size_v<UpdateModule>);
  const json::Value* gravity = defs->find("GravityModule");
  ASSERT_NE(gravity, nullptr);
  EXPECT_EQ(gravity->find("properties")->find("type")->find("const")->text, "gravity");
}

TEST(EffectSchema, EnumsAndFieldsMatchWhatTheLoaderAccepts) {
  json::Value schema;
  json::ParseError error;
  ASSERT_TRUE(json::parse(effectJsonSchema(), schema, error));
  const json::Value& blend = *schema.find("$defs")->find("BlendMode")->find("enum");
  ASSERT_EQ(blend.items.size(), 4u);
  for (const json::Value& value : blend.items) {
    const EffectLoadResult r =
        parseEffect(R"({"format": "mote.effect/1", "materials": [{"name": "m", "blend": ")" +
                    value.text + R"("}], "emitters": [{"name": "a", "material": "m"}]})");
    EXPECT_TRUE(r.ok()) << value.text;
  }
  // Every Emitter property is a field the loader knows (an unknown one would be an error).
  const json::Value& emitter = *schema.find("$defs")->find("Emitter")->find("properties");
  for (const json::Member& m : emitter.members) {
    const EffectLoadResult r = parseEffect(
        R"({"format": "mote.effect/1", "emitters": [{"name": "a", ")" + m.key + R"(": 12345}]})");
    for (const Diagnostic& d : r.diagnostics)
      EXPECT_EQ(d.message.find("unknown field"), std::string::npos) << m.key;
  }
}

}  // namespace
}  // namespace mote::authoring
