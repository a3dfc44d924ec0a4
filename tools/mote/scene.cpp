// SPDX-License-Identifier: MIT
#include "scene.h"

#include "mesh_loader.h"

#include <mote/runtime/world.h>

#include <fmt/core.h>
#include <glm/geometric.hpp>
#include <glm/gtc/quaternion.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>

namespace mote::cli {

bool parseHexColor(const std::string& text, std::array<float, 3>& srgb) {
  std::string hex = text;
  if (!hex.empty() && hex.front() == '#') hex.erase(0, 1);
  if (hex.size() != 6 || hex.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
    return false;
  const unsigned long value = std::stoul(hex, nullptr, 16);
  for (std::size_t c = 0; c < 3; ++c)
    srgb[c] = static_cast<float>((value >> (16 - 8 * c)) & 0xFFu) / 255.0f;
  return true;
}

glm::vec3 particleWorldPosition(const EmitterView& view, std::uint32_t k) {
  const auto p = static_cast<std::size_t>(view.emitter->channels.position);
  glm::vec3 pos(view.streams[p][k], view.streams[p + 1][k], view.streams[p + 2][k]);
  if (bytecode::movesWithEmitter(view.emitter->space)) {
    const glm::quat q(view.transform.rotation[3], view.transform.rotation[0],
                      view.transform.rotation[1], view.transform.rotation[2]);
    const glm::vec3 origin(view.transform.position[0], view.transform.position[1],
                           view.transform.position[2]);
    pos = origin + q * pos;
  }
  return pos;
}

namespace {

bool parseSize(const std::string& text, std::uint32_t& w, std::uint32_t& h) {
  unsigned a = 0;
  unsigned b = 0;
  char tail = 0;
  if (std::sscanf(text.c_str(), "%ux%u%c", &a, &b, &tail) != 2) return false;
  if (a < 16 || b < 16 || a > 8192 || b > 8192) return false;
  w = a;
  h = b;
  return true;
}

bool parseColor(const std::string& text, std::array<float, 3>& linear) {
  if (!parseHexColor(text, linear)) return false;
  for (float& c : linear)
    c = render::srgbToLinear(c);
  return true;
}

// --light dir:x,y,z:r,g,b (x,y,z toward the light) or point:x,y,z:r,g,b:radius.
Result<render::Light> parseLight(const std::string& text) {
  const auto bad = [&](const std::string& why) {
    return invalidArgument("--light '" + text + "': " + why +
                           " (dir:x,y,z:r,g,b or point:x,y,z:r,g,b:radius)");
  };
  std::vector<std::string> parts;
  std::size_t from = 0;
  for (std::size_t at = text.find(':');; at = text.find(':', from)) {
    parts.push_back(text.substr(from, at == std::string::npos ? std::string::npos : at - from));
    if (at == std::string::npos) break;
    from = at + 1;
  }
  render::Light light;
  if (parts[0] == "dir" && parts.size() == 3) {
    light.kind = render::Light::Kind::Directional;
  } else if (parts[0] == "point" && parts.size() == 4) {
    light.kind = render::Light::Kind::Point;
    char tail = 0;
    if (std::sscanf(parts[3].c_str(), "%f%c", &light.radius, &tail) != 1 ||
        !std::isfinite(light.radius) || !(light.radius > 0.0f))
      return bad("the radius must be a number > 0");
  } else {
    return bad("not a light");
  }
  if (!parseTriple(parts[1], light.vector)) return bad("'" + parts[1] + "' is not x,y,z");
  if (!parseTriple(parts[2], light.color)) return bad("'" + parts[2] + "' is not r,g,b");
  return light;
}

}  // namespace

bool parseTriple(const std::string& text, std::array<float, 3>& out) {
  float a = 0.0f;
  float b = 0.0f;
  float c = 0.0f;
  char tail = 0;
  if (std::sscanf(text.c_str(), "%f,%f,%f%c", &a, &b, &c, &tail) != 3) return false;
  if (!std::isfinite(a) || !std::isfinite(b) || !std::isfinite(c)) return false;
  out = {a, b, c};
  return true;
}

Result<SceneSettings> sceneSettings(const RenderCommandOptions& o) {
  SceneSettings out;
  std::uint32_t& width = out.width;
  std::uint32_t& height = out.height;
  if (!parseSize(o.size, width, height))
    return invalidArgument("--size must be WxH with sides in [16, 8192] (got '" + o.size + "')");
  std::array<float, 3> background{};
  if (!parseColor(o.background, background))
    return invalidArgument("--background must be a hex colour like 0b0b12 (got '" + o.background +
                           "')");
  if (o.camera != "orbit" && o.camera != "front" && o.camera != "top" && o.camera != "iso")
    return invalidArgument("--camera must be orbit, front, top or iso (got '" + o.camera + "')");
  render::PostProcess post;
  if (o.toneMap == "aces") {
    post.toneMap = render::ToneMap::Aces;
  } else if (o.toneMap == "reinhard") {
    post.toneMap = render::ToneMap::Reinhard;
  } else if (o.toneMap != "none") {
    return invalidArgument("--tonemap must be aces, reinhard or none (got '" + o.toneMap + "')");
  }
  if (!(o.bloom >= 0.0 && o.bloom <= 16.0))
    return invalidArgument(fmt::format("--bloom must be in [0, 16] (got {})", o.bloom));
  post.bloom = static_cast<float>(o.bloom);
  render::Transparency transparency = render::Transparency::Emitter;
  if (o.transparency == "sorted") {
    transparency = render::Transparency::Sorted;
  } else if (o.transparency == "oit") {
    transparency = render::Transparency::Oit;
  } else if (o.transparency != "emitter") {
    return invalidArgument("--transparency must be emitter, sorted or oit (got '" + o.transparency +
                           "')");
  }
  render::Lighting lighting;
  if (!o.lights.empty()) {
    lighting.lights.clear();
    for (const std::string& text : o.lights) {
      Result<render::Light> light = parseLight(text);
      if (!light.ok()) return invalidArgument(light.status().message());
      lighting.lights.push_back(light.value());
    }
  }
  if (!o.ambient.empty() && !parseTriple(o.ambient, lighting.ambient))
    return invalidArgument("--ambient must be r,g,b (got '" + o.ambient + "')");
  if (Status s = lighting.validate("--light/--ambient"); !s.ok())
    return invalidArgument(s.message());
  // The background is the colour the frame shows where nothing is drawn, whatever the tone map.
  for (float& c : background)
    c = render::inverseToneMapped(post.toneMap, c);
  render::RendererOptions& ro = out.renderer;
  ro.viewport = {width, height};
  ro.background = background;
  ro.ground = o.ground;
  ro.post = post;
  ro.transparency = transparency;
  ro.meshLoader = loadHostMesh;
  ro.lighting = lighting;
  ro.textureDirectory = std::filesystem::path(o.input).parent_path().string();
  return out;
}

std::vector<render::DebugCollider> debugColliders(
    const std::vector<authoring::Collider>& authored) {
  std::vector<render::DebugCollider> colliders;
  for (const authoring::Collider& c : authored) {
    if (c.kind == authoring::ColliderKind::Host) continue;  // the host's world has no gizmo
    render::DebugCollider d;
    d.kind = c.kind == authoring::ColliderKind::Plane    ? render::DebugCollider::Kind::Plane
             : c.kind == authoring::ColliderKind::Sphere ? render::DebugCollider::Kind::Sphere
                                                         : render::DebugCollider::Kind::Box;
    d.position = c.position;
    d.normal = c.normal;
    d.radius = c.radius;
    d.size = c.size;
    colliders.push_back(d);
  }
  return colliders;
}

constexpr double kCircleSeconds = 4.0;  // one turn of --circle

Transform transformAt(const RenderCommandOptions& o, double t) {
  Transform transform;
  if (!(o.circle > 0.0)) return transform;
  const double angle = 6.283185307179586 * t / kCircleSeconds;
  transform.position = {static_cast<float>(o.circle * std::cos(angle)), 0.0f,
                        static_cast<float>(-o.circle * std::sin(angle))};
  // Yaw about +Y so local +Z points along the motion, (-sin, 0, -cos).
  const double yaw = angle + 3.141592653589793;
  transform.rotation = {0.0f, static_cast<float>(std::sin(yaw * 0.5)), 0.0f,
                        static_cast<float>(std::cos(yaw * 0.5))};
  return transform;
}

Status Clock::advance(double seconds) {
  const std::uint32_t steps = clockSteps(seconds);
  for (std::uint32_t s = 0; s < steps; ++s) {
    now += seconds / steps;
    MOTE_RETURN_IF_ERROR(sim.setTransform(effect, transformAt(options, now)));
    MOTE_RETURN_IF_ERROR(sim.tick(static_cast<float>(seconds / steps)));
  }
  return {};
}

Status Clock::seek(double time) {
  now = 0.0;
  MOTE_RETURN_IF_ERROR(sim.setTransform(effect, transformAt(options, 0.0)));
  MOTE_RETURN_IF_ERROR(sim.restart(effect));
  return advance(time);
}

// Where the effect is over the frames to be drawn: on each axis, the span between the 3rd and 97th
// percentile of the particle positions (sampled), each weighted by what it covers of the picture —
// its area (size x · size y) times its opacity —, so a cloud of sparks or flung debris does not
// shrink the fireball it leaves to a dot, and a few strays do not either.
Result<Framing> measure(Simulation& sim, EffectHandle effect, const RenderCommandOptions& o,
                        std::size_t emitterCount) {
  std::array<std::vector<Sample>, 3> samples;
  std::vector<Sample> radii;  // half the larger side of each sampled particle
  const double step = 1.0 / o.fps;
  Clock clock{sim, effect, o};
  MOTE_RETURN_IF_ERROR(clock.advance(o.time));
  for (std::uint32_t f = 0; f < o.frames; ++f) {
    if (f > 0) MOTE_RETURN_IF_ERROR(clock.advance(step));
    Result<const ParticleWorld*> current = sim.world();
    if (!current.ok()) return current.status();
    const ParticleWorld& world = **current;
    for (std::uint32_t i = 0; i < emitterCount; ++i) {
      const Result<EmitterView> v = world.view(world.emitter(effect, i));
      if (!v.ok() || v->live == 0 || v->emitter->channels.position < 0) continue;
      const bytecode::ParticleChannels& channels = v->emitter->channels;
      const std::uint32_t stride = std::max(1u, v->live / 256);
      for (std::uint32_t k = 0; k < v->live; k += stride) {
        const glm::vec3 pos = particleWorldPosition(*v, k);
        float weight = 0.01f;  // no size channel: the renderer's default 0.1 m square
        float radius = 0.05f;
        if (channels.size >= 0) {
          const auto s = static_cast<std::size_t>(channels.size);
          weight = std::fabs(v->streams[s][k] * v->streams[s + 1][k]);
          radius = 0.5f * std::max(std::fabs(v->streams[s][k]), std::fabs(v->streams[s + 1][k]));
        }
        if (channels.color >= 0)
          weight *=
              std::clamp(v->streams[static_cast<std::size_t>(channels.color) + 3][k], 0.0f, 1.0f);
        if (!std::isfinite(pos.x) || !std::isfinite(pos.y) || !std::isfinite(pos.z) ||
            !std::isfinite(weight) || !(weight > 0.0f))
          continue;
        for (glm::length_t c = 0; c < 3; ++c)
          samples[static_cast<std::size_t>(c)].push_back({pos[c], weight});
        radii.push_back({radius, weight});
      }
    }
  }
  return frameSamples(samples, radii);
}

glm::vec3 cameraDirection(std::string_view preset) {
  if (preset == "top") return {0.0f, 1.0f, 0.02f};
  if (preset == "iso") return {1.0f, 1.0f, 1.0f};
  return {0.0f, 0.18f, 1.0f};  // front: slightly above
}

float cameraDistance(const RenderCommandOptions& o, const Framing& framing, float aspect) {
  const float fit = framing.radius / std::sin(kCameraFovY * 0.5f) / std::min(1.0f, aspect);
  return o.distance > 0.0 ? static_cast<float>(o.distance) : fit * 0.95f;
}

Result<render::Camera> lookingAt(glm::vec3 eye, glm::vec3 target, float distance,
                                 const Framing& framing, float aspect) {
  const float farZ = distance + framing.radius * 4.0f + 10.0f;
  const float nearZ = std::max(0.01f, distance * 0.01f);
  Result<render::Camera> camera = render::Camera::perspective(kCameraFovY, aspect, nearZ, farZ);
  if (!camera.ok()) return camera;
  if (Status s = camera->lookAt(eye, target, glm::vec3(0.0f, 1.0f, 0.0f)); !s.ok()) return s;
  return camera;
}

Result<render::Camera> makeCamera(const RenderCommandOptions& o, const Framing& framing,
                                  float aspect, std::uint32_t frame) {
  const float distance = cameraDistance(o, framing, aspect);
  const float farZ = distance + framing.radius * 4.0f + 10.0f;
  const float nearZ = std::max(0.01f, distance * 0.01f);
  if (o.camera == "iso") {
    return render::Camera::isometric(framing.center, distance, framing.radius * 1.05f, aspect,
                                     nearZ, farZ);
  }
  glm::vec3 direction = cameraDirection("front");
  if (o.camera == "top") direction = cameraDirection("top");
  if (o.camera == "orbit") {
    const float angle = 6.2831853f * static_cast<float>(frame) / static_cast<float>(o.frames);
    direction = glm::vec3(std::sin(angle), 0.3f, std::cos(angle));
  }
  const glm::vec3 eye = framing.center + glm::normalize(direction) * distance;
  return lookingAt(eye, framing.center, distance, framing, aspect);
}

Result<std::vector<bool>> hiddenEmitters(const bytecode::CompiledEffect& effect,
                                         const std::vector<std::string>& hide,
                                         const std::string& solo) {
  std::vector<bool> hidden(effect.emitters.size(), false);
  const auto indexOf = [&](const std::string& name, const char* option) -> Result<std::size_t> {
    for (std::size_t i = 0; i < effect.emitters.size(); ++i)
      if (effect.emitters[i].name == name) return i;
    std::string names;
    for (const bytecode::CompiledEmitter& e : effect.emitters)
      names += (names.empty() ? "" : ", ") + e.name;
    return notFound(fmt::format("{} {}: the effect has no emitter of that name (it has: {})",
                                option, name, names));
  };
  for (const std::string& name : hide) {
    Result<std::size_t> i = indexOf(name, "--hide");
    if (!i.ok()) return i.status();
    hidden[*i] = true;
  }
  if (!solo.empty()) {
    Result<std::size_t> kept = indexOf(solo, "--solo");
    if (!kept.ok()) return kept.status();
    for (std::size_t i = 0; i < hidden.size(); ++i)
      hidden[i] = hidden[i] || i != *kept;
  }
  return hidden;
}

void visiblePackets(const ParticleWorld& world, EffectHandle placed,
                    const std::vector<bool>& hidden, std::span<const render::RenderPacket> packets,
                    std::vector<render::RenderPacket>& out) {
  out.clear();
  for (const render::RenderPacket& p : packets) {
    bool shown = true;
    for (std::uint32_t i = 0; i < hidden.size() && shown; ++i)
      shown = !(hidden[i] && world.emitter(placed, i) == p.emitter);
    if (shown) out.push_back(p);
  }
}

Status drawFrame(render::ParticleRenderer& renderer, const ParticleWorld& world,
                 const render::Camera& camera, const FrameExtras& extras, FrameScratch& scratch,
                 render::Image& image, JobSystem* jobs) {
  const bool filtered =
      extras.hidden != nullptr &&
      std::find(extras.hidden->begin(), extras.hidden->end(), true) != extras.hidden->end();
  if (!filtered && extras.overlay == nullptr && extras.scene.empty())
    return renderer.render(world, camera, image);
  if (!scratch.packets) {  // room for the placed effect's emitters (the tools' worlds hold one)
    const auto room = static_cast<std::uint32_t>(
        extras.hidden != nullptr ? std::max<std::size_t>(extras.hidden->size(), 1) : 4096);
    Result<render::RenderPacketBuilder> made = render::RenderPacketBuilder::create(room);
    if (!made.ok()) return made.status();
    scratch.packets.emplace(std::move(made).takeValue());
    scratch.shown.reserve(room);
  }
  scratch.packets->build(world, jobs);
  std::span<const render::RenderPacket> drawn = scratch.packets->packets();
  if (filtered) {
    visiblePackets(world, extras.placed, *extras.hidden, drawn, scratch.shown);
    drawn = scratch.shown;
    MOTE_RETURN_IF_ERROR(renderer.prepare(drawn, camera));
  } else {
    MOTE_RETURN_IF_ERROR(renderer.prepare(world, camera));
  }
  for (const SceneTriangle& t : extras.scene)
    MOTE_RETURN_IF_ERROR(renderer.drawTriangle3D(t.a, t.b, t.c, t.color));
  if (extras.overlay != nullptr) {
    if (Status s = render::drawDebugOverlay(renderer, world, drawn, *extras.overlay); !s.ok())
      return Status(s.code(), "--debug: " + s.message());
  }
  return renderer.rasterize(image);
}

}  // namespace mote::cli
