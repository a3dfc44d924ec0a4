// SPDX-License-Identifier: MIT
// What the MDL fuzz targets check on every input (mdl_parse_fuzz, mdl_binary_fuzz): the importer
// returns diagnostics or a model — never crashes, hangs, leaks or reads out of bounds (ASan + UBSan
// in the asan preset). Every model that parses is lowered (with its default animation and with its
// last one), and every effect the importer returns must pass authoring::validateEffect: the
// lowering clamps every value into range, so a validation error is an importer bug (abort, which
// libFuzzer reports). The same bytes are read as a chunk model too (the mesh lists and the mesh
// builder): a mesh that loads must index only its own vertices, all finite.
#pragma once

#include <mote/authoring/effect_json.h>
#include <mote/nwn/mdl.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace mote_fuzz {

inline void checkDiagnostics(const std::vector<mote::authoring::Diagnostic>& diagnostics) {
  for (const mote::authoring::Diagnostic& d : diagnostics) {
    if (d.message.empty()) std::abort();  // every diagnostic says what is wrong
    (void)mote::nwn::formatMdlDiagnostic(d);
  }
}

inline void lower(const mote::nwn::MdlModel& model, const std::string& animation) {
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

inline void checkChunkMesh(std::string_view text) {
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

/// The whole importer on `bytes`: as a chunk model, then parsed and lowered.
inline void fuzzMdl(std::string_view bytes) {
  checkChunkMesh(bytes);
  const mote::nwn::MdlParseResult parsed = mote::nwn::parseMdl(bytes, "fuzz.mdl");
  checkDiagnostics(parsed.diagnostics);
  if (!parsed.ok()) return;
  lower(parsed.model, {});
  if (parsed.model.animations.size() > 1) lower(parsed.model, parsed.model.animations.back().name);
}

}  // namespace mote_fuzz
