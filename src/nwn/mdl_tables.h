// SPDX-License-Identifier: MIT
// The MDL vocabulary the parser knows (MDL_EMITTERS.md §4): controllers with their column counts,
// header attributes and flags, exporter UI fields, known typos, junk and KotOR-only fields.
#pragma once

#include <mote/nwn/mdl.h>

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <system_error>

namespace mote::nwn {

inline char asciiLower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

inline std::string lowerCopy(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    c = asciiLower(c);
  return out;
}

inline bool isDigit(char c) {
  return c >= '0' && c <= '9';
}

/// True when the token looks like the start of a number ("1", "-0.5", ".5", "+2", "-.5").
inline bool startsNumber(std::string_view t) {
  if (t.empty()) return false;
  if (isDigit(t[0])) return true;
  if (t[0] != '-' && t[0] != '+' && t[0] != '.') return false;
  if (t.size() > 1 && isDigit(t[1])) return true;
  return t[0] != '.' && t.size() > 2 && t[1] == '.' && isDigit(t[2]);
}

/// A finite float written in full (no trailing characters); a leading '+' is accepted.
inline bool parseFloat(std::string_view t, float& out) {
  if (!t.empty() && t[0] == '+') t.remove_prefix(1);
  if (t.empty()) return false;
  float v = 0.0f;
  const auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || p != t.data() + t.size() || !std::isfinite(v)) return false;
  out = v;
  return true;
}

struct ControllerInfo {
  std::string_view name;
  std::uint8_t columns;
  bool everyNode;  ///< read on every node type (transforms), not just emitters and references
};

inline constexpr std::array<ControllerInfo, 43> kControllers{{
    {"position", 3, true},
    {"orientation", 4, true},
    {"scale", 1, true},
    {"birthrate", 1, false},
    {"lifeexp", 1, false},
    {"velocity", 1, false},
    {"randvel", 1, false},
    {"spread", 1, false},
    {"mass", 1, false},
    {"particlerot", 1, false},
    {"colorstart", 3, false},
    {"colormid", 3, false},
    {"colorend", 3, false},
    {"alphastart", 1, false},
    {"alphamid", 1, false},
    {"alphaend", 1, false},
    {"sizestart", 1, false},
    {"sizemid", 1, false},
    {"sizeend", 1, false},
    {"sizestart_y", 1, false},
    {"sizemid_y", 1, false},
    {"sizeend_y", 1, false},
    {"xsize", 1, false},
    {"ysize", 1, false},
    {"fps", 1, false},
    {"framestart", 1, false},
    {"frameend", 1, false},
    {"bounce_co", 1, false},
    {"blurlength", 1, false},
    {"grav", 1, false},
    {"drag", 1, false},
    {"threshold", 1, false},
    {"combinetime", 1, false},
    {"p2p_bezier2", 1, false},
    {"p2p_bezier3", 1, false},
    {"lightningdelay", 1, false},
    {"lightningradius", 1, false},
    {"lightningscale", 1, false},
    {"lightningsubdiv", 1, false},
    {"detonate", 0, false},
    {"percentstart", 1, false},
    {"percentmid", 1, false},
    {"percentend", 1, false},
}};

inline const ControllerInfo* findController(std::string_view lowerName) {
  for (const ControllerInfo& c : kControllers)
    if (c.name == lowerName) return &c;
  return nullptr;
}

struct KeySuffix {
  bool keyed = false;
  bool bezier = false;
  bool doubled = false;  ///< "birthratekeykey" (a known exporter glitch)
  std::string base;
};

/// Strips "key" / "bezierkey" (repeatedly: "keykey" is a known glitch) from a lower-case keyword.
inline KeySuffix splitKeySuffix(std::string_view kw) {
  KeySuffix out;
  int strips = 0;
  for (;;) {
    if (kw.size() > 9 && kw.ends_with("bezierkey")) {
      kw.remove_suffix(9);
      out.bezier = true;
    } else if (kw.size() > 3 && kw.ends_with("key")) {
      kw.remove_suffix(3);
    } else {
      break;
    }
    ++strips;
  }
  out.keyed = strips > 0;
  out.doubled = strips > 1;
  out.base = std::string(kw);
  return out;
}

enum class FieldKind : std::uint8_t {
  Attribute,  ///< header attribute (binary emitter header)
  Flag,       ///< one of the 11 flag bits
  Ui,         ///< exporter UI field, not compiled (warned when lowered, except p2p_type)
  Reference,  ///< refModel, reattachable
  Junk,       ///< meaningless exporter lines: warned, not kept
  Kotor,      ///< KotOR emitter fields: warned, not kept
  Silent,     ///< fields of every node that emitters do not use (wirecolor): not kept
};

struct FieldInfo {
  std::string_view name;
  FieldKind kind;
  const char* canonical;
  const char* typoOf = nullptr;  ///< a known typo: read as this field
};

inline constexpr std::array<FieldInfo, 55> kFields{{
    {"update", FieldKind::Attribute, "update"},
    {"render", FieldKind::Attribute, "render"},
    {"blend", FieldKind::Attribute, "blend"},
    {"texture", FieldKind::Attribute, "texture"},
    {"chunkname", FieldKind::Attribute, "chunkname"},
    {"xgrid", FieldKind::Attribute, "xgrid"},
    {"ygrid", FieldKind::Attribute, "ygrid"},
    {"spawntype", FieldKind::Attribute, "spawntype"},
    {"loop", FieldKind::Attribute, "loop"},
    {"deadspace", FieldKind::Attribute, "deadspace"},
    {"twosidedtex", FieldKind::Attribute, "twosidedtex"},
    {"renderorder", FieldKind::Attribute, "renderorder"},
    {"blastradius", FieldKind::Attribute, "blastradius"},
    {"blastlength", FieldKind::Attribute, "blastlength"},
    {"p2p", FieldKind::Flag, "p2p"},
    {"p2p_sel", FieldKind::Flag, "p2p_sel"},
    {"affectedbywind", FieldKind::Flag, "affectedbywind"},
    {"m_istinted", FieldKind::Flag, "m_istinted"},
    {"bounce", FieldKind::Flag, "bounce"},
    {"random", FieldKind::Flag, "random"},
    {"inherit", FieldKind::Flag, "inherit"},
    {"inheritvel", FieldKind::Flag, "inheritvel"},
    {"inherit_local", FieldKind::Flag, "inherit_local"},
    {"splat", FieldKind::Flag, "splat"},
    {"inherit_part", FieldKind::Flag, "inherit_part"},
    {"update_sel", FieldKind::Ui, "update_sel"},
    {"render_sel", FieldKind::Ui, "render_sel"},
    {"blend_sel", FieldKind::Ui, "blend_sel"},
    {"spawntype_sel", FieldKind::Ui, "spawntype_sel"},
    {"p2p_type", FieldKind::Ui, "p2p_type"},
    {"opacity", FieldKind::Ui, "opacity"},
    {"iconsize", FieldKind::Ui, "iconsize"},
    {"lockaxes", FieldKind::Ui, "lockaxes"},
    {"chunky", FieldKind::Ui, "chunky"},
    {"refmodel", FieldKind::Reference, "refmodel"},
    {"reattachable", FieldKind::Reference, "reattachable"},
    {"twosidedtext", FieldKind::Attribute, "twosidedtex", "twosidedtex"},
    {"m_istnited", FieldKind::Flag, "m_istinted", "m_istinted"},
    {"cone_angle_manipulator", FieldKind::Junk, ""},
    {"gizmo", FieldKind::Junk, ""},
    {"dummy", FieldKind::Junk, ""},
    {"wirecolor", FieldKind::Silent, ""},
    {"numbranches", FieldKind::Kotor, ""},
    {"num_branches", FieldKind::Kotor, ""},
    {"controlptsmoothing", FieldKind::Kotor, ""},
    {"frame_blending", FieldKind::Kotor, ""},
    {"depth_texture", FieldKind::Kotor, ""},
    {"lightningzigzag", FieldKind::Kotor, ""},
    {"targetsize", FieldKind::Kotor, ""},
    {"numcontrolpts", FieldKind::Kotor, ""},
    {"controlptradius", FieldKind::Kotor, ""},
    {"controlptdelay", FieldKind::Kotor, ""},
    {"tangentspread", FieldKind::Kotor, ""},
    {"tangentlength", FieldKind::Kotor, ""},
    {"randomvelx", FieldKind::Kotor, ""},
}};

inline const FieldInfo* findField(std::string_view lowerName) {
  for (const FieldInfo& f : kFields)
    if (f.name == lowerName) return &f;
  return nullptr;
}

/// Node types whose `verts`/`tverts`/`faces` lists a chunk mesh is made of.
inline bool isMeshType(MdlNodeType type) {
  return type == MdlNodeType::Trimesh || type == MdlNodeType::Danglymesh ||
         type == MdlNodeType::Skin || type == MdlNodeType::Animmesh;
}

inline MdlNodeType nodeType(std::string_view lowerName) {
  struct Entry {
    std::string_view name;
    MdlNodeType type;
  };
  static constexpr std::array<Entry, 11> kTypes{{
      {"dummy", MdlNodeType::Dummy},
      {"trimesh", MdlNodeType::Trimesh},
      {"danglymesh", MdlNodeType::Danglymesh},
      {"skin", MdlNodeType::Skin},
      {"animmesh", MdlNodeType::Animmesh},
      {"aabb", MdlNodeType::Aabb},
      {"light", MdlNodeType::Light},
      {"emitter", MdlNodeType::Emitter},
      {"reference", MdlNodeType::Reference},
      {"patch", MdlNodeType::Patch},
      {"camera", MdlNodeType::Camera},
  }};
  for (const Entry& e : kTypes)
    if (e.name == lowerName) return e.type;
  return MdlNodeType::Other;
}

}  // namespace mote::nwn
