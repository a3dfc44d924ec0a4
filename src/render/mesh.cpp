// SPDX-License-Identifier: MIT
// Meshes (mote/render/mesh.h): validation, the built-in meshes, and a hardened Wavefront OBJ reader
// (fuzzed by fuzz/obj_load_fuzz).
#include <mote/core/builtin_meshes.h>
#include <mote/core/builtin_sprites.h>
#include <mote/core/file.h>
#include <mote/render/mesh.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <string>
#include <tuple>

namespace mote::render {
namespace {

bool allFinite(const std::vector<float>& values) {
  return std::all_of(values.begin(), values.end(), [](float v) { return std::isfinite(v); });
}

// The face normal (b − a) × (c − a) of triangle `t`, unnormalised (its length is twice the area).
std::array<float, 3> faceCross(const Mesh& m, std::size_t t) {
  const auto at = [&](std::size_t corner, std::size_t axis) {
    return m.positions[std::size_t{m.indices[t * 3 + corner]} * 3 + axis];
  };
  const float e1[3] = {at(1, 0) - at(0, 0), at(1, 1) - at(0, 1), at(1, 2) - at(0, 2)};
  const float e2[3] = {at(2, 0) - at(0, 0), at(2, 1) - at(0, 1), at(2, 2) - at(0, 2)};
  return {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
          e1[0] * e2[1] - e1[1] * e2[0]};
}

// One OBJ line's words, split on spaces and tabs.
class Words {
 public:
  explicit Words(std::string_view line) : line_(line) {}
  bool next(std::string_view& word) {
    while (at_ < line_.size() && (line_[at_] == ' ' || line_[at_] == '\t'))
      ++at_;
    if (at_ >= line_.size()) return false;
    const std::size_t from = at_;
    while (at_ < line_.size() && line_[at_] != ' ' && line_[at_] != '\t')
      ++at_;
    word = line_.substr(from, at_ - from);
    return true;
  }

 private:
  std::string_view line_;
  std::size_t at_ = 0;
};

bool parseFloat(std::string_view word, float& out) {
  if (word.size() > 1 && word.front() == '+') word.remove_prefix(1);
  const char* end = word.data() + word.size();
  const auto [ptr, ec] = std::from_chars(word.data(), end, out);
  return ec == std::errc() && ptr == end && std::isfinite(out);
}

bool parseIndex(std::string_view word, std::int64_t& out) {
  if (word.empty()) return false;
  const char* end = word.data() + word.size();
  const auto [ptr, ec] = std::from_chars(word.data(), end, out);
  return ec == std::errc() && ptr == end;
}

}  // namespace

Status Mesh::validate(std::string_view source) const {
  const auto fail = [&](const std::string& what) {
    return invalidArgument(std::string(source) + ": " + what);
  };
  if (positions.size() % 3 != 0) return fail("the position count is not a multiple of 3");
  if (indices.size() % 3 != 0) return fail("the index count is not a multiple of 3");
  if (indices.empty()) return fail("the mesh has no triangle");
  if (vertexCount() > kMaxMeshVertices)
    return fail("more than " + std::to_string(kMaxMeshVertices) + " vertices");
  if (triangleCount() > kMaxMeshTriangles)
    return fail("more than " + std::to_string(kMaxMeshTriangles) + " triangles");
  if (!normals.empty() && normals.size() != positions.size())
    return fail("the normals are not one per vertex");
  if (!uvs.empty() && uvs.size() != vertexCount() * 2)
    return fail("the texture coordinates are not one pair per vertex");
  for (const std::uint32_t i : indices)
    if (i >= vertexCount()) return fail("index " + std::to_string(i) + " is out of range");
  if (!allFinite(positions) || !allFinite(normals) || !allFinite(uvs))
    return fail("a value is not finite");
  return {};
}

Result<Mesh> builtinMesh(std::string_view uri) {
  if (!uri.starts_with(kBuiltinSpriteUriPrefix))
    return invalidArgument("'" + std::string(uri) + "' is not a builtin: mesh");
  const std::string_view name = uri.substr(kBuiltinSpriteUriPrefix.size());
  const BuiltinMeshGeometry* g = builtinMeshGeometry(name);
  if (g == nullptr) {
    std::string valid;
    for (const std::string_view n : kBuiltinMeshNames)
      valid += std::string(valid.empty() ? "" : ", ") + "builtin:" + std::string(n);
    return notFound("unknown built-in mesh \"" + std::string(uri) + "\"; valid: " + valid);
  }
  Mesh m;
  m.positions.assign(g->positions.begin(), g->positions.end());
  m.normals.assign(g->normals.begin(), g->normals.end());
  m.uvs.assign(g->uvs.begin(), g->uvs.end());
  m.indices.assign(g->indices.begin(), g->indices.end());
  return m;
}

Result<Mesh> parseObj(std::string_view text, std::string_view source) {
  std::vector<float> v, vt, vn;
  Mesh mesh;
  // A corner (v, vt, vn), zero-based; −1 for an absent vt or vn.
  using Corner = std::tuple<std::int64_t, std::int64_t, std::int64_t>;
  std::map<Corner, std::uint32_t> vertexOf;
  std::vector<Corner> corners;
  bool anyUv = false;
  bool anyNormal = false;
  bool allNormals = true;
  std::uint32_t lineNumber = 0;
  std::vector<std::uint32_t> face;
  const auto fail = [&](const std::string& what) {
    return parseError(std::string(source) + ":" + std::to_string(lineNumber) + ": " + what,
                      SourceLocation{std::string(source), lineNumber, 0, {}});
  };
  // A one-based or negative (relative) OBJ index into `count` items → zero-based; −1 if invalid.
  const auto resolve = [](std::int64_t index, std::size_t count) -> std::int64_t {
    const auto n = static_cast<std::int64_t>(count);
    if (index > 0 && index <= n) return index - 1;
    if (index < 0 && -index <= n) return n + index;
    return -1;
  };
  std::size_t begin = 0;
  while (begin <= text.size()) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(begin, end - begin);
    begin = end + 1;
    ++lineNumber;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (const std::size_t hash = line.find('#'); hash != std::string_view::npos)
      line = line.substr(0, hash);
    Words words(line);
    std::string_view keyword;
    if (!words.next(keyword)) continue;
    if (keyword == "v" || keyword == "vn" || keyword == "vt") {
      std::vector<float>& into = keyword == "v" ? v : (keyword == "vn" ? vn : vt);
      const std::size_t need = keyword == "vt" ? 1 : 3;  // vt: u, then optional v
      const std::size_t keep = keyword == "vt" ? 2 : 3;  // stored per item
      const std::size_t most = keyword == "vn" ? 3 : 4;  // v x y z [w], vt u [v [w]]
      float values[4] = {0.0f, 0.0f, 0.0f, 0.0f};
      std::size_t count = 0;
      std::string_view word;
      while (words.next(word)) {
        if (count == most) return fail("'" + std::string(keyword) + "' has too many numbers");
        if (!parseFloat(word, values[count]))
          return fail("'" + std::string(word) + "' is not a finite number");
        ++count;
      }
      if (count < need)
        return fail("'" + std::string(keyword) + "' needs " + std::to_string(need) + " number(s)");
      if (into.size() / keep >= kMaxMeshVertices)
        return fail("more than " + std::to_string(kMaxMeshVertices) + " '" + std::string(keyword) +
                    "' entries");
      into.insert(into.end(), values, values + keep);
      continue;
    }
    if (keyword != "f") continue;  // o, g, s, usemtl, mtllib, l, p, …
    face.clear();
    std::string_view word;
    while (words.next(word)) {
      // v, v/vt, v//vn or v/vt/vn.
      std::int64_t parts[3] = {0, 0, 0};
      bool given[3] = {false, false, false};
      std::size_t part = 0;
      std::size_t from = 0;
      for (std::size_t k = 0; k <= word.size(); ++k) {
        if (k < word.size() && word[k] != '/') continue;
        if (part == 3) return fail("corner '" + std::string(word) + "' has too many parts");
        const std::string_view piece = word.substr(from, k - from);
        if (!piece.empty()) {
          if (!parseIndex(piece, parts[part]))
            return fail("'" + std::string(piece) + "' is not an index");
          given[part] = true;
        } else if (part == 0) {
          return fail("corner '" + std::string(word) + "' has no position index");
        }
        ++part;
        from = k + 1;
      }
      const std::int64_t pv = resolve(parts[0], v.size() / 3);
      const std::int64_t pt = given[1] ? resolve(parts[1], vt.size() / 2) : -1;
      const std::int64_t pn = given[2] ? resolve(parts[2], vn.size() / 3) : -1;
      if (pv < 0 || (given[1] && pt < 0) || (given[2] && pn < 0))
        return fail("corner '" + std::string(word) + "' refers past what is defined");
      const Corner corner{pv, pt, pn};
      auto found = vertexOf.find(corner);
      if (found == vertexOf.end()) {
        if (corners.size() >= kMaxMeshVertices)
          return fail("more than " + std::to_string(kMaxMeshVertices) + " vertices");
        found = vertexOf.emplace(corner, static_cast<std::uint32_t>(corners.size())).first;
        corners.push_back(corner);
        anyUv = anyUv || pt >= 0;
        anyNormal = anyNormal || pn >= 0;
        allNormals = allNormals && pn >= 0;
      }
      if (face.size() >= 256) return fail("a face with more than 256 corners");
      face.push_back(found->second);
    }
    if (face.size() < 3) return fail("a face needs at least 3 corners");
    if (mesh.indices.size() / 3 + (face.size() - 2) > kMaxMeshTriangles)
      return fail("more than " + std::to_string(kMaxMeshTriangles) + " triangles");
    for (std::size_t k = 1; k + 1 < face.size(); ++k)
      mesh.indices.insert(mesh.indices.end(), {face[0], face[k], face[k + 1]});
  }
  if (mesh.indices.empty())
    return parseError(std::string(source) + ": no face: the file holds no mesh",
                      SourceLocation{std::string(source), 0, 0, {}});
  for (const auto& [pv, pt, pn] : corners) {
    const auto p = static_cast<std::size_t>(pv) * 3;
    mesh.positions.insert(mesh.positions.end(), {v[p], v[p + 1], v[p + 2]});
    if (anyUv) {
      const auto t = static_cast<std::size_t>(pt) * 2;
      mesh.uvs.insert(mesh.uvs.end(), {pt >= 0 ? vt[t] : 0.0f, pt >= 0 ? 1.0f - vt[t + 1] : 0.0f});
    }
    if (anyNormal) {
      float n[3] = {0.0f, 0.0f, 0.0f};
      if (pn >= 0) {
        const auto q = static_cast<std::size_t>(pn) * 3;
        const float length =
            std::sqrt(vn[q] * vn[q] + vn[q + 1] * vn[q + 1] + vn[q + 2] * vn[q + 2]);
        if (length > 0.0f && std::isfinite(length)) {
          for (std::size_t a = 0; a < 3; ++a)
            n[a] = vn[q + a] / length;
        }
      }
      mesh.normals.insert(mesh.normals.end(), n, n + 3);
    }
  }
  if (anyNormal && !allNormals) {
    // Corners without a normal: the area-weighted normals of the faces at their position.
    std::vector<float> sums(v.size(), 0.0f);
    for (std::size_t t = 0; t < mesh.triangleCount(); ++t) {
      const std::array<float, 3> c = faceCross(mesh, t);
      for (std::size_t k = 0; k < 3; ++k) {
        const auto p = static_cast<std::size_t>(std::get<0>(corners[mesh.indices[t * 3 + k]])) * 3;
        for (std::size_t a = 0; a < 3; ++a)
          sums[p + a] += c[a];
      }
    }
    for (std::size_t i = 0; i < corners.size(); ++i) {
      if (std::get<2>(corners[i]) >= 0) continue;
      const auto p = static_cast<std::size_t>(std::get<0>(corners[i])) * 3;
      const float length =
          std::sqrt(sums[p] * sums[p] + sums[p + 1] * sums[p + 1] + sums[p + 2] * sums[p + 2]);
      for (std::size_t a = 0; a < 3; ++a)
        mesh.normals[i * 3 + a] =
            length > 0.0f && std::isfinite(length) ? sums[p + a] / length : 0.0f;
    }
  }
  if (Status s = mesh.validate(source); !s.ok()) return parseError(s.message());
  return mesh;
}

Result<Mesh> loadObj(const std::string& path) {
  Result<std::vector<std::uint8_t>> bytes = readFile(path, std::size_t{256} << 20);
  if (!bytes.ok()) return bytes.status();
  const std::vector<std::uint8_t>& b = bytes.value();
  return parseObj(std::string_view(reinterpret_cast<const char*>(b.data()), b.size()), path);
}

}  // namespace mote::render
