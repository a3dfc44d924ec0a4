// SPDX-License-Identifier: MIT
// Fuzzer for the NWN ASCII MDL importer: parseMdl on arbitrary bytes must return diagnostics or a
// model — never crash, hang, leak or read out of bounds (ASan + UBSan in the asan preset). Every
// model that parses is lowered (with its default animation and with its last one), and every
// effect the importer returns must pass authoring::validateEffect: the lowering clamps every value
// into range, so a validation error is an importer bug (abort, which libFuzzer reports). The same
// bytes are read as a chunk model too (the parser's mesh lists and the mesh builder): a mesh that
// loads must index only its own vertices, all finite.
#include <mote/authoring/effect_json.h>
#include <mote/nwn/mdl.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace {

void checkDiagnostics(const std::vector<mote::authoring::Diagnostic>& diagnostics) {
  for (const mote::authoring::Diagnostic& d : diagnostics) {
    if (d.message.empty()) std::abort();  // every diagnostic says what is wrong
    (void)mote::nwn::formatMdlDiagnostic(d);
  }
}

void lower(const mote::nwn::MdlModel& model, const std::string& animation) {
  mote::nwn::ImportOptions options;
  options.animation = animation;
  const mote::nwn::ImportResult imported = mote::nwn::importMdl(model, options);
  checkDiagnostics(imported.diagnostics);
  if (!imported.ok()) return;
  for (const mote::authoring::Diagnostic& d : mote::authoring::validateEffect(imported.effect)) {
    if (d.severity == mote::authoring::Severity::Error) {
      std::fprintf(stderr, "the importer returned an invalid effect: %s\n",
                   mote::authoring::formatDiagnostic(d).c_str());
      std::abort();
    }
  }
}

void checkChunkMesh(std::string_view text) {
  const mote::nwn::ChunkMeshResult loaded = mote::nwn::parseChunkMesh(text, "chunk.mdl");
  checkDiagnostics(loaded.diagnostics);
  if (!loaded.ok()) return;
  const mote::nwn::ChunkMesh& mesh = loaded.mesh;
  if (mesh.positions.size() % 3 != 0 || mesh.uvs.size() != mesh.vertexCount() * 2 ||
      mesh.indices.size() % 3 != 0 || mesh.triangleCount() > mote::nwn::kMaxMdlMeshListRows)
    std::abort();
  for (const std::uint32_t i : mesh.indices)
    if (i >= mesh.vertexCount()) std::abort();
  for (const float p : mesh.positions)
    if (!std::isfinite(p)) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  checkChunkMesh(text);
  const mote::nwn::MdlParseResult parsed = mote::nwn::parseMdl(text, "fuzz.mdl");
  checkDiagnostics(parsed.diagnostics);
  if (!parsed.ok()) return 0;
  lower(parsed.model, {});
  if (parsed.model.animations.size() > 1) lower(parsed.model, parsed.model.animations.back().name);
  return 0;
}
