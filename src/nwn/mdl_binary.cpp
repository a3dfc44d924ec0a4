// SPDX-License-Identifier: MIT
// The binary MDL reader. A compiled model is a 12-byte file header (0, the raw data's offset after
// the model data, its size), the model data — headers, nodes, arrays and controller floats that
// point at each other by offsets from the model data's start — and the raw data (mesh vertex
// arrays, by offsets from its start). Every offset and count is checked against the bytes before
// it is followed; the node trees are walked with an explicit stack, each node once. Layouts:
// niv/nwn-tools `_NwnLib/NwnMdlNodes.h` and `NwnMdlGeometry.h` (MDL_EMITTERS.md [S1]).
#include "mdl_binary.h"

#include "mdl_tables.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace mote::nwn::detail {
namespace {

using authoring::Diagnostic;
using authoring::Severity;

constexpr std::size_t kFileHeaderBytes = 12;

// Offsets inside each structure (relative to its start in the model data).
namespace geometry {  // CNwnMdlGeometryHeader: the model's and each animation's first 0x70 bytes
constexpr std::uint32_t kName = 0x08;    // char[64]
constexpr std::uint32_t kRoot = 0x48;    // the root node
constexpr std::uint32_t kArray1 = 0x50;  // an array the game fills at load (empty in files)
constexpr std::uint32_t kType = 0x6C;    // u8: 2 model, 5 animation
}  // namespace geometry
namespace model {                                // CNwnMdlModel
constexpr std::uint32_t kClassification = 0x72;  // u8
constexpr std::uint32_t kAnimations = 0x78;      // array of animation offsets
constexpr std::uint32_t kAnimationScale = 0xA4;  // f32
constexpr std::uint32_t kSupermodel = 0xA8;      // char[64]
constexpr std::uint32_t kSize = 0xE8;
constexpr std::uint8_t kType = 2;
}  // namespace model
namespace animation {  // CNwnMdlAnimation
constexpr std::uint32_t kLength = 0x70;
constexpr std::uint32_t kTransTime = 0x74;
constexpr std::uint32_t kAnimRoot = 0x78;  // char[64]
constexpr std::uint32_t kEvents = 0xB8;    // array of {f32 time, char[32] name}
constexpr std::uint32_t kSize = 0xC4;
constexpr std::uint32_t kEventSize = 36;
constexpr std::uint8_t kType = 5;
}  // namespace animation
namespace node {                                 // CNwnMdlNodeHeader
constexpr std::uint32_t kName = 0x20;            // char[32]
constexpr std::uint32_t kChildren = 0x48;        // array of node offsets
constexpr std::uint32_t kControllerKeys = 0x54;  // array of 12-byte NwnMdlControllerKey
constexpr std::uint32_t kControllerData = 0x60;  // array of f32
constexpr std::uint32_t kFlags = 0x6C;           // u32: what the node has (its type)
constexpr std::uint32_t kSize = 0x70;
constexpr std::uint32_t kKeySize = 12;
}  // namespace node
namespace emitter {  // CNwnMdlEmitterNode
constexpr std::uint32_t kDeadSpace = 0x70;
constexpr std::uint32_t kBlastRadius = 0x74;
constexpr std::uint32_t kBlastLength = 0x78;
constexpr std::uint32_t kXGrid = 0x7C;
constexpr std::uint32_t kYGrid = 0x80;
constexpr std::uint32_t kSpawnType = 0x84;
constexpr std::uint32_t kUpdate = 0x88;      // char[32]
constexpr std::uint32_t kRender = 0xA8;      // char[32]
constexpr std::uint32_t kBlend = 0xC8;       // char[32]
constexpr std::uint32_t kTexture = 0xE8;     // char[64]
constexpr std::uint32_t kChunkName = 0x128;  // char[16]
constexpr std::uint32_t kTwoSidedTex = 0x138;
constexpr std::uint32_t kLoop = 0x13C;
constexpr std::uint32_t kRenderOrder = 0x140;  // u16
constexpr std::uint32_t kFlags = 0x144;
constexpr std::uint32_t kSize = 0x148;
}  // namespace emitter
namespace reference {                      // CNwnMdlReferenceNode
constexpr std::uint32_t kRefModel = 0x70;  // char[64]
constexpr std::uint32_t kReattachable = 0xB0;
constexpr std::uint32_t kSize = 0xB4;
}  // namespace reference
namespace mesh {                               // CNwnMdlMeshHeader
constexpr std::uint32_t kFaces = 0x78;         // array of 32-byte NwnMdlFace
constexpr std::uint32_t kRender = 0xDC;        // u32
constexpr std::uint32_t kBitmap = 0xE8;        // char[64], the first of four textures
constexpr std::uint32_t kVerts = 0x22C;        // raw data offset of f32[3] × vertex count
constexpr std::uint32_t kVertexCount = 0x230;  // u16
constexpr std::uint32_t kTVerts = 0x234;       // raw data offset of f32[2] × vertex count
constexpr std::uint32_t kSize = 0x270;
constexpr std::uint32_t kFaceSize = 32;
constexpr std::uint32_t kFaceVertices = 0x1A;  // u16[3]
constexpr std::uint32_t kNoData = 0xFFFFFFFF;  // a raw data offset that points nowhere
}  // namespace mesh

// Node flags (NwnMdlNF) → the ASCII node types.
struct NodeKind {
  std::uint32_t flags;
  MdlNodeType type;
  std::string_view name;
};
constexpr std::array<NodeKind, 10> kNodeKinds{{
    {0x001, MdlNodeType::Dummy, "dummy"},
    {0x003, MdlNodeType::Light, "light"},
    {0x005, MdlNodeType::Emitter, "emitter"},
    {0x009, MdlNodeType::Camera, "camera"},
    {0x011, MdlNodeType::Reference, "reference"},
    {0x021, MdlNodeType::Trimesh, "trimesh"},
    {0x061, MdlNodeType::Skin, "skin"},
    {0x0A1, MdlNodeType::Animmesh, "animmesh"},
    {0x121, MdlNodeType::Danglymesh, "danglymesh"},
    {0x221, MdlNodeType::Aabb, "aabb"},
}};

// The emitter flag bits (m_ulEmitterFlags), as the ASCII flag names.
constexpr std::array<std::string_view, 11> kEmitterFlags{
    "p2p",     "p2p_sel",    "affectedbywind", "m_istinted", "bounce",      "random",
    "inherit", "inheritvel", "inherit_local",  "splat",      "inherit_part"};

// Emitter controller ids both compilers write (NwnMdlCT), and the mid/percent ids on which they
// differ (MDL_EMITTERS.md §5).
struct ControllerId {
  std::int32_t id;
  std::string_view name;
};
constexpr std::array<ControllerId, 34> kEmitterControllers{{
    {80, "alphaend"},
    {84, "alphastart"},
    {88, "birthrate"},
    {92, "bounce_co"},
    {96, "colorend"},
    {108, "colorstart"},
    {120, "combinetime"},
    {124, "drag"},
    {128, "fps"},
    {132, "frameend"},
    {136, "framestart"},
    {140, "grav"},
    {144, "lifeexp"},
    {148, "mass"},
    {152, "p2p_bezier2"},
    {156, "p2p_bezier3"},
    {160, "particlerot"},
    {164, "randvel"},
    {168, "sizestart"},
    {172, "sizeend"},
    {176, "sizestart_y"},
    {180, "sizeend_y"},
    {184, "spread"},
    {188, "threshold"},
    {192, "velocity"},
    {196, "xsize"},
    {200, "ysize"},
    {204, "blurlength"},
    {208, "lightningdelay"},
    {212, "lightningradius"},
    {216, "lightningscale"},
    {220, "lightningsubdiv"},
    {228, "detonate"},
    {448, "alphamid"},  // BioWare's compiler (nwnmdlcomp: 464)
}};
constexpr std::array<ControllerId, 9> kMidControllers{{
    {452, "colormid"},      // BioWare
    {465, "percentmid"},    // BioWare
    {466, "percentend"},    // BioWare
    {472, "sizemid_y"},     // BioWare
    {480, "percentstart"},  // nwnmdlcomp
    {481, "percentmid"},    // nwnmdlcomp
    {482, "percentend"},    // nwnmdlcomp
    {484, "sizemid"},       // nwnmdlcomp
    {488, "sizemid_y"},     // nwnmdlcomp
}};

// The most controller keys (rows) a file's nodes may hold together, and the most nodes all its
// trees may hold together: a bound on the work and memory of a hostile file whose nodes share
// their arrays (a real creature model holds ~10^5 keys and a few thousand nodes).
constexpr std::uint64_t kMaxKeysPerFile = std::uint64_t{1} << 21;
constexpr std::uint64_t kMaxNodesPerFile = std::uint64_t{kMaxMdlNodes} * 4;
constexpr std::uint32_t kMaxControllersPerNode = 4096;

std::string hexOffset(std::uint64_t offset) {
  char buffer[24];
  const auto r = std::to_chars(buffer, buffer + sizeof buffer, offset, 16);
  return "0x" + std::string(buffer, r.ptr);
}

std::string floatText(float v) {
  char buffer[32];
  const auto r = std::to_chars(buffer, buffer + sizeof buffer, v);
  return std::string(buffer, r.ptr);
}

// A quaternion (x y z w, as the compilers store orientations) as the ASCII axis-angle (x y z
// angle, radians): the identity is 0 0 0 0.
std::array<float, 4> axisAngle(const std::array<float, 4>& q) {
  const auto x = static_cast<double>(q[0]), y = static_cast<double>(q[1]),
             z = static_cast<double>(q[2]), w = static_cast<double>(q[3]);
  const double s = std::sqrt(x * x + y * y + z * z);
  if (s <= 1e-6) return {0.0f, 0.0f, 0.0f, 0.0f};
  return {static_cast<float>(x / s), static_cast<float>(y / s), static_cast<float>(z / s),
          static_cast<float>(2.0 * std::atan2(s, w))};
}

class Reader {
 public:
  Reader(std::string_view bytes, std::string_view file, const MdlParseOptions& options)
      : bytes_(bytes), file_(file), options_(options) {}

  MdlParseResult run() {
    MdlParseResult result;
    result.model.file = file_;
    readModel(result.model);
    result.diagnostics = std::move(diagnostics_);
    return result;
  }

 private:
  struct Array {
    std::uint32_t offset = 0;
    std::uint32_t count = 0;
  };
  enum class Compiler : std::uint8_t { Unknown, BioWare, Nwnmdlcomp };

  std::string_view bytes_;
  std::string file_;
  MdlParseOptions options_;
  std::string_view model_;  // the model data
  std::string_view raw_;    // the raw data
  std::uint64_t rawStart_ = 0;
  std::vector<Diagnostic> diagnostics_;
  bool failed_ = false;
  Compiler compiler_ = Compiler::Unknown;
  std::uint64_t nodesRead_ = 0;
  std::uint64_t keysRead_ = 0;
  std::map<std::string, MdlNodeType> geometryTypes_;  // lower-case name → type (first wins)

  // --- Diagnostics: the first error ends the read (every later read returns zeros) -------------

  void fail(std::uint64_t fileOffset, const std::string& message) {
    if (failed_) return;
    failed_ = true;
    diagnostics_.push_back(Diagnostic{
        Severity::Error, {}, "offset " + hexOffset(fileOffset) + ": " + message, file_, 0, 0});
  }
  void warn(std::uint64_t fileOffset, const std::string& message) {
    diagnostics_.push_back(Diagnostic{
        Severity::Warning, {}, "offset " + hexOffset(fileOffset) + ": " + message, file_, 0, 0});
  }
  static std::uint64_t at(std::uint64_t modelOffset) { return kFileHeaderBytes + modelOffset; }

  // --- Reads from the model data, checked --------------------------------------------------------

  bool inModel(std::uint64_t offset, std::uint64_t size, std::string_view what) {
    if (failed_) return false;
    if (offset + size > model_.size()) {
      fail(at(offset), std::string(what) + " (" + std::to_string(size) +
                           " bytes) lies past the end of the model data (" +
                           std::to_string(model_.size()) + " bytes)");
      return false;
    }
    return true;
  }
  static std::uint32_t le32(const char* p) {
    std::uint32_t v = 0;
    for (int i = 3; i >= 0; --i)
      v = v << 8 | static_cast<unsigned char>(p[i]);
    return v;
  }
  std::uint32_t u32(std::uint64_t offset, std::string_view what) {
    return inModel(offset, 4, what) ? le32(model_.data() + offset) : 0;
  }
  std::uint16_t u16(std::uint64_t offset, std::string_view what) {
    if (!inModel(offset, 2, what)) return 0;
    const auto* p = reinterpret_cast<const unsigned char*>(model_.data() + offset);
    return static_cast<std::uint16_t>(p[0] | p[1] << 8);
  }
  std::uint8_t u8(std::uint64_t offset, std::string_view what) {
    return inModel(offset, 1, what) ? static_cast<std::uint8_t>(model_[offset]) : 0;
  }
  float f32(std::uint64_t offset, std::string_view what) {
    const std::uint32_t bits = u32(offset, what);
    float v = 0.0f;
    std::memcpy(&v, &bits, sizeof v);
    if (!std::isfinite(v)) {
      fail(at(offset), std::string(what) + " is not a finite number");
      return 0.0f;
    }
    return v;
  }
  // A char[size] field: the text up to its first NUL (printable ASCII only).
  std::string text(std::uint64_t offset, std::uint32_t size, std::string_view what) {
    if (!inModel(offset, size, what)) return {};
    const std::string_view field = model_.substr(offset, size);
    const std::string_view value = field.substr(0, std::min(field.find('\0'), field.size()));
    for (const char c : value) {
      const auto u = static_cast<unsigned char>(c);
      if (u < 0x20 || u >= 0x7F) {
        fail(at(offset), std::string(what) + " is not text (byte " + std::to_string(u) + ")");
        return {};
      }
    }
    return std::string(value);
  }
  // A CNwnArray {offset, count, allocated}: its elements must lie in the model data. An empty
  // array tells the compiler apart (CleanModels' fingerprint: nwnmdlcomp writes offset 0).
  Array array(std::uint64_t offset, std::uint32_t elementSize, std::uint64_t maxCount,
              std::string_view what) {
    Array a{u32(offset, what), u32(offset + 4, what)};
    if (failed_) return {};
    if (a.count == 0) {
      if (compiler_ == Compiler::Unknown)
        compiler_ = a.offset == 0 ? Compiler::Nwnmdlcomp : Compiler::BioWare;
      return {};
    }
    if (a.count > maxCount) {
      fail(at(offset), std::string(what) + ": " + std::to_string(a.count) + " entries (at most " +
                           std::to_string(maxCount) + ")");
      return {};
    }
    if (!inModel(a.offset, std::uint64_t{a.count} * elementSize, what)) return {};
    return a;
  }

  // --- The model ---------------------------------------------------------------------------------

  void readModel(MdlModel& out) {
    if (bytes_.size() < kFileHeaderBytes) {
      fail(0, "a binary model starts with a " + std::to_string(kFileHeaderBytes) +
                  "-byte header; the file has " + std::to_string(bytes_.size()) + " bytes");
      return;
    }
    if (le32(bytes_.data()) != 0) {
      fail(0,
           "not a binary model (its first word is not 0) and not an ASCII one (it holds NUL "
           "bytes)");
      return;
    }
    const std::uint64_t rawOffset = le32(bytes_.data() + 4);
    const std::uint64_t rawSize = le32(bytes_.data() + 8);
    if (kFileHeaderBytes + rawOffset + rawSize > bytes_.size()) {
      fail(4, "the header gives " + std::to_string(rawOffset) + " bytes of model data and " +
                  std::to_string(rawSize) + " of raw data; the file holds " +
                  std::to_string(bytes_.size() - kFileHeaderBytes) + " (truncated?)");
      return;
    }
    model_ = bytes_.substr(kFileHeaderBytes, rawOffset);
    rawStart_ = kFileHeaderBytes + rawOffset;
    raw_ = bytes_.substr(rawStart_, rawSize);
    if (!inModel(0, model::kSize, "the model header")) return;
    if (const std::uint8_t type = u8(geometry::kType, "the model header"); type != model::kType) {
      fail(at(geometry::kType), "not a model header (geometry type " + std::to_string(type) +
                                    "; a model's is " + std::to_string(model::kType) + ")");
      return;
    }
    // The compiler's fingerprint, from an array the game fills at load (empty in every file).
    if (u32(geometry::kArray1 + 4, "the model header") == 0)
      compiler_ = u32(geometry::kArray1, "the model header") == 0 ? Compiler::Nwnmdlcomp
                                                                  : Compiler::BioWare;
    out.name = text(geometry::kName, 64, "the model name");
    out.supermodel = text(model::kSupermodel, 64, "the supermodel name");
    if (lowerCopy(out.supermodel) == "null") out.supermodel.clear();
    out.classification = classification(u8(model::kClassification, "the classification"));
    out.animationScale = f32(model::kAnimationScale, "the animation scale");
    readTree(u32(geometry::kRoot, "the root node"), nullptr, out.nodes);
    for (const MdlNode& n : out.nodes)
      geometryTypes_.emplace(lowerCopy(n.name), n.type);
    const Array animations = array(model::kAnimations, 4, kMaxMdlAnimations, "the animation list");
    for (std::uint32_t i = 0; i < animations.count && !failed_; ++i) {
      MdlAnimation anim;
      readAnimation(u32(animations.offset + 4ull * i, "an animation offset"), anim);
      out.animations.push_back(std::move(anim));
    }
  }

  static std::string classification(std::uint8_t value) {
    switch (value) {
      case 0x01:
        return "effect";
      case 0x02:
        return "tile";
      case 0x04:
        return "character";
      case 0x08:
        return "door";
      default:
        return value == 0 ? std::string() : "classification " + std::to_string(value);
    }
  }

  void readAnimation(std::uint32_t offset, MdlAnimation& anim) {
    if (!inModel(offset, animation::kSize, "an animation header")) return;
    if (const std::uint8_t type = u8(offset + geometry::kType, "an animation header");
        type != animation::kType) {
      fail(at(offset + geometry::kType), "not an animation header (geometry type " +
                                             std::to_string(type) + "; an animation's is " +
                                             std::to_string(animation::kType) + ")");
      return;
    }
    anim.name = text(offset + geometry::kName, 64, "an animation name");
    anim.length = f32(offset + animation::kLength, "an animation's length");
    anim.transtime = f32(offset + animation::kTransTime, "an animation's transtime");
    anim.animroot = text(offset + animation::kAnimRoot, 64, "an animation's animroot");
    const Array events = array(offset + animation::kEvents, animation::kEventSize,
                               kMaxMdlEventsPerAnimation, "an animation's events");
    for (std::uint32_t i = 0; i < events.count && !failed_; ++i) {
      const std::uint64_t e = events.offset + std::uint64_t{i} * animation::kEventSize;
      MdlEvent event;
      event.time = f32(e, "an event's time");
      event.name = lowerCopy(text(e + 4, 32, "an event's name"));
      anim.events.push_back(std::move(event));
    }
    readTree(u32(offset + geometry::kRoot, "an animation's root node"), &geometryTypes_,
             anim.nodes);
  }

  // --- Node trees --------------------------------------------------------------------------------

  // The tree under `root` in pre-order (parents before children, children in their order): the
  // ASCII file order. Offset 0 is no tree.
  void readTree(std::uint32_t root, const std::map<std::string, MdlNodeType>* geometry,
                std::vector<MdlNode>& out) {
    struct Pending {
      std::uint32_t offset;
      std::size_t parent;  // index in `out`; SIZE_MAX for the root
    };
    if (root == 0 || failed_) return;
    std::vector<Pending> stack{{root, SIZE_MAX}};
    std::set<std::uint32_t> seen{root};
    while (!stack.empty() && !failed_) {
      const Pending p = stack.back();
      stack.pop_back();
      if (++nodesRead_ > kMaxNodesPerFile) {
        fail(at(p.offset), "more than " + std::to_string(kMaxNodesPerFile) + " nodes");
        return;
      }
      MdlNode n = readNode(p.offset, geometry);
      if (p.parent != SIZE_MAX) n.parent = out[p.parent].name;
      const Array children = array(p.offset + node::kChildren, 4, kMaxMdlNodes, "a child list");
      for (std::uint32_t i = children.count; i-- > 0 && !failed_;) {
        const std::uint64_t slot = children.offset + 4ull * i;
        const std::uint32_t child = u32(slot, "a child offset");
        if (failed_) break;
        if (child == 0 || !seen.insert(child).second) {
          fail(at(slot), child == 0 ? "a child offset is 0"
                                    : "node " + hexOffset(at(child)) +
                                          " is reached twice (a cycle or a shared node)");
          break;
        }
        stack.push_back({child, out.size()});
      }
      out.push_back(std::move(n));
    }
  }

  MdlNode readNode(std::uint32_t offset, const std::map<std::string, MdlNodeType>* geometry) {
    MdlNode n;
    if (!inModel(offset, node::kSize, "a node header")) return n;
    n.name = text(offset + node::kName, 32, "a node name");
    const std::uint32_t flags = u32(offset + node::kFlags, "a node's flags");
    const auto kind = std::find_if(kNodeKinds.begin(), kNodeKinds.end(),
                                   [&](const NodeKind& k) { return k.flags == flags; });
    if (kind != kNodeKinds.end()) {
      n.type = kind->type;
      n.typeName = kind->name;
    } else {
      n.type = MdlNodeType::Other;
      n.typeName = "flags " + hexOffset(flags);
      warn(at(offset + node::kFlags), "node '" + n.name + "' has unknown type flags " +
                                          hexOffset(flags) + "; kept as a dummy");
    }
    // An animation node is read as its geometry namesake's type (as the ASCII parser does).
    MdlNodeType type = n.type;
    if (geometry != nullptr) {
      if (const auto it = geometry->find(lowerCopy(n.name)); it != geometry->end())
        type = it->second;
    } else if (n.type == MdlNodeType::Emitter) {
      readEmitter(offset, n);
    } else if (n.type == MdlNodeType::Reference) {
      readReference(offset, n);
    } else if (options_.meshes && isMeshType(n.type)) {
      readMesh(offset, n);
    }
    readControllers(offset, type, n);
    return n;
  }

  void property(MdlNode& n, std::string_view name, std::string value) {
    MdlProperty p;
    p.name = std::string(name);
    p.values.push_back(std::move(value));
    n.properties.push_back(std::move(p));
  }

  void readEmitter(std::uint32_t o, MdlNode& n) {
    if (!inModel(o, emitter::kSize, "an emitter node")) return;
    property(n, "deadspace", floatText(f32(o + emitter::kDeadSpace, "deadspace")));
    property(n, "blastradius", floatText(f32(o + emitter::kBlastRadius, "blastRadius")));
    property(n, "blastlength", floatText(f32(o + emitter::kBlastLength, "blastLength")));
    property(n, "xgrid", std::to_string(u32(o + emitter::kXGrid, "xgrid")));
    property(n, "ygrid", std::to_string(u32(o + emitter::kYGrid, "ygrid")));
    property(n, "spawntype",
             std::to_string(static_cast<std::int32_t>(u32(o + emitter::kSpawnType, "spawntype"))));
    for (const auto& [name, offset, size] :
         {std::tuple<std::string_view, std::uint32_t, std::uint32_t>{"update", emitter::kUpdate,
                                                                     32},
          {"render", emitter::kRender, 32},
          {"blend", emitter::kBlend, 32},
          {"texture", emitter::kTexture, 64},
          {"chunkname", emitter::kChunkName, 16}}) {
      std::string value = text(o + offset, size, name);
      if (!value.empty()) property(n, name, std::move(value));
    }
    property(n, "twosidedtex", std::to_string(u32(o + emitter::kTwoSidedTex, "twosidedtex")));
    property(n, "loop", std::to_string(u32(o + emitter::kLoop, "loop")));
    property(n, "renderorder", std::to_string(u16(o + emitter::kRenderOrder, "renderorder")));
    const std::uint32_t flags = u32(o + emitter::kFlags, "the emitter flags");
    for (std::size_t bit = 0; bit < kEmitterFlags.size(); ++bit)
      if ((flags >> bit & 1u) != 0) property(n, kEmitterFlags[bit], "1");
    if ((flags >> kEmitterFlags.size()) != 0)
      warn(at(o + emitter::kFlags),
           "emitter '" + n.name + "' sets unknown flag bits " +
               hexOffset(flags >> kEmitterFlags.size() << kEmitterFlags.size()) + "; ignored");
  }

  void readReference(std::uint32_t o, MdlNode& n) {
    if (!inModel(o, reference::kSize, "a reference node")) return;
    std::string model = text(o + reference::kRefModel, 64, "refModel");
    if (!model.empty()) property(n, "refmodel", std::move(model));
    property(n, "reattachable", std::to_string(u32(o + reference::kReattachable, "reattachable")));
  }

  // A mesh's faces, vertices and first texture's coordinates (one per vertex: a face's texture
  // vertices are its vertices).
  void readMesh(std::uint32_t o, MdlNode& n) {
    if (!inModel(o, mesh::kSize, "a mesh node")) return;
    MdlMeshLists& m = n.mesh;
    m.render = u32(o + mesh::kRender, "a mesh's render flag") != 0;
    m.bitmap = text(o + mesh::kBitmap, 64, "a mesh's bitmap");
    const std::uint32_t count = u16(o + mesh::kVertexCount, "a mesh's vertex count");
    const std::uint32_t verts = u32(o + mesh::kVerts, "a mesh's vertex offset");
    const std::uint32_t tverts = u32(o + mesh::kTVerts, "a mesh's texture vertex offset");
    const Array faces =
        array(o + mesh::kFaces, mesh::kFaceSize, kMaxMdlMeshListRows, "a face list");
    if (failed_) return;
    if (count > 0 && !inRaw(verts, std::uint64_t{count} * 12, at(o + mesh::kVerts), "vertices"))
      return;
    const bool textured = count > 0 && tverts != mesh::kNoData;
    if (textured &&
        !inRaw(tverts, std::uint64_t{count} * 8, at(o + mesh::kTVerts), "texture vertices"))
      return;
    for (std::uint32_t i = 0; i < count && !failed_; ++i) {
      std::array<float, 3> v{};
      for (std::size_t c = 0; c < 3; ++c)
        v[c] = rawF32(verts + 12ull * i + 4 * c, "a vertex");
      m.verts.push_back(v);
      if (!textured) continue;
      std::array<float, 2> t{};
      for (std::size_t c = 0; c < 2; ++c)
        t[c] = rawF32(tverts + 8ull * i + 4 * c, "a texture vertex");
      m.tverts.push_back(t);
    }
    for (std::uint32_t i = 0; i < faces.count && !failed_; ++i) {
      MdlFace f;
      for (std::size_t c = 0; c < 3; ++c) {
        f.verts[c] =
            u16(faces.offset + std::uint64_t{i} * mesh::kFaceSize + mesh::kFaceVertices + 2 * c,
                "a face");
        f.tverts[c] = textured ? f.verts[c] : 0;
      }
      m.faces.push_back(f);
    }
    if (count > 0 || faces.count > 0) m.line = 1;  // the node has lists (no line in a binary)
  }

  bool inRaw(std::uint64_t offset, std::uint64_t size, std::uint64_t from, std::string_view what) {
    if (failed_) return false;
    if (offset + size > raw_.size()) {
      fail(from, std::string(what) + " (" + std::to_string(size) + " bytes at raw offset " +
                     hexOffset(offset) + ") lie past the end of the raw data (" +
                     std::to_string(raw_.size()) + " bytes)");
      return false;
    }
    return true;
  }
  float rawF32(std::uint64_t offset, std::string_view what) {
    const std::uint32_t bits = le32(raw_.data() + offset);  // checked by inRaw
    float v = 0.0f;
    std::memcpy(&v, &bits, sizeof v);
    if (!std::isfinite(v)) {
      fail(rawStart_ + offset, std::string(what) + " is not a finite number");
      return 0.0f;
    }
    return v;
  }

  // --- Controllers -------------------------------------------------------------------------------

  std::string_view controllerName(std::int32_t id, MdlNodeType type, std::uint32_t columns) const {
    switch (id) {
      case 8:
        return "position";
      case 20:
        return "orientation";
      case 36:
        return "scale";
      default:
        break;
    }
    if (type != MdlNodeType::Emitter) return {};  // lights' and meshes' ids mean other things
    for (const ControllerId& c : kEmitterControllers)
      if (c.id == id) return c.name;
    for (const ControllerId& c : kMidControllers)
      if (c.id == id) return c.name;
    // 464 and 468 mean different controllers to the two compilers: 468 is nwnmdlcomp's colorMid
    // (three columns) or BioWare's sizeMid (one); 464 goes by the compiler's fingerprint.
    if (id == 468) return columns == 3 ? "colormid" : "sizemid";
    if (id == 464) return compiler_ == Compiler::Nwnmdlcomp ? "alphamid" : "percentstart";
    return {};
  }

  void readControllers(std::uint32_t o, MdlNodeType type, MdlNode& n) {
    const Array keys = array(o + node::kControllerKeys, node::kKeySize, kMaxControllersPerNode,
                             "a controller list");
    const Array data = array(o + node::kControllerData, 4, 0xFFFFFFFFu, "a controller data list");
    const bool close = type == MdlNodeType::Emitter || type == MdlNodeType::Reference;
    for (std::uint32_t i = 0; i < keys.count && !failed_; ++i) {
      const std::uint64_t k = keys.offset + std::uint64_t{i} * node::kKeySize;
      const auto id = static_cast<std::int32_t>(u32(k, "a controller"));
      const auto rows = static_cast<std::int16_t>(u16(k + 4, "a controller"));
      const auto keyAt = static_cast<std::int16_t>(u16(k + 6, "a controller"));
      const auto dataAt = static_cast<std::int16_t>(u16(k + 8, "a controller"));
      const auto columnsByte = static_cast<std::int8_t>(u8(k + 10, "a controller"));
      if (failed_) return;
      const bool bezier = columnsByte != -1 && (columnsByte & 0x10) != 0;
      const std::uint32_t stored =
          columnsByte == -1 ? 0u : static_cast<std::uint32_t>(columnsByte & 0x0F);
      const std::string_view name = controllerName(id, type, bezier ? stored / 3 : stored);
      const ControllerInfo* info = name.empty() ? nullptr : findController(name);
      if (info == nullptr) {
        if (close)
          warn(at(k),
               "unknown controller id " + std::to_string(id) + " on '" + n.name + "'; ignored");
        continue;
      }
      if (!close && !info->everyNode) continue;
      if (rows < 0 || keyAt < 0 || dataAt < 0) {
        fail(at(k), "controller '" + std::string(name) + "' of '" + n.name +
                        "' has a negative row count or offset");
        return;
      }
      if (stored != info->columns && !(bezier && stored == 3u * info->columns)) {
        warn(at(k), "controller '" + std::string(name) + "' of '" + n.name + "' has " +
                        std::to_string(stored) + " values a key (it needs " +
                        std::to_string(info->columns) + "); ignored");
        continue;
      }
      const std::uint64_t need = std::max(std::uint64_t(keyAt) + std::uint64_t(rows),
                                          std::uint64_t(dataAt) + std::uint64_t(rows) * stored);
      if (need > data.count) {
        fail(at(k), "controller '" + std::string(name) + "' of '" + n.name + "' reads " +
                        std::to_string(need) + " floats of a data list of " +
                        std::to_string(data.count));
        return;
      }
      if (rows == 0) continue;
      keysRead_ += static_cast<std::uint64_t>(rows);
      if (keysRead_ > kMaxKeysPerFile) {
        fail(at(k), "more than " + std::to_string(kMaxKeysPerFile) + " controller keys");
        return;
      }
      MdlTrack track;
      track.name = std::string(name);
      track.columns = info->columns;
      track.bezier = bezier;
      for (std::int16_t r = 0; r < rows && !failed_; ++r) {
        MdlKey key;
        key.time =
            f32(data.offset + 4ull * (std::uint64_t(keyAt) + std::uint64_t(r)), "a key time");
        const std::uint64_t values =
            data.offset + 4ull * (std::uint64_t(dataAt) + std::uint64_t(r) * stored);
        for (std::size_t c = 0; c < info->columns; ++c)
          key.value[c] = f32(values + 4 * c, "a key value");
        if (name == "orientation") key.value = axisAngle(key.value);
        track.keys.push_back(key);
      }
      if (failed_) return;
      // What nwnmdlcomp's decompiler writes as a key list rather than a value.
      track.keyed = rows > 1 || track.keys[0].time != 0.0f || bezier || info->columns == 0;
      const auto same = std::find_if(n.tracks.begin(), n.tracks.end(),
                                     [&](const MdlTrack& t) { return t.name == track.name; });
      if (same != n.tracks.end()) {
        *same = std::move(track);
      } else {
        n.tracks.push_back(std::move(track));
      }
    }
  }
};

}  // namespace

MdlParseResult parseBinaryMdl(std::string_view bytes, std::string_view fileName,
                              const MdlParseOptions& options) {
  return Reader(bytes, fileName, options).run();
}

}  // namespace mote::nwn::detail
