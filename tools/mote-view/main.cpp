// SPDX-License-Identifier: MIT
// mote-view FILE: the interactive viewer (docs/viewer.md). An SDL2 window shows the software
// renderer's frame in a streaming texture, Dear ImGui's panels over it; the effect file's folder
// is watched and a saved change is reloaded in place, keeping the camera and the effect time.
#include "effect_commands.h"
#include "host_world_options.h"
#include "imgui_sdl_draw.h"
#include "inspect.h"
#include "scene_state.h"

#include <mote/render/image.h>
#include <mote/runtime/world.h>

#include <CLI/CLI.hpp>
#include <fmt/core.h>
#include <glm/geometric.hpp>
#include <glm/trigonometric.hpp>

#include <SDL.h>
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <imgui.h>
#include <imgui_impl_sdl.h>
#include <memory>
#include <optional>
#include <string>
#include <sys/inotify.h>
#include <unistd.h>
#include <vector>

namespace mote::view {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kPanelWidth = 340;  // the panels' column, left of the scene

double secondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// The camera the mouse moves: an orbit about a target. Until the user moves it, the view is
// `mote render`'s default camera exactly.
struct Orbit {
  glm::vec3 target{0.0f};
  float yaw = 0.0f;    // about +Y; 0 looks from +Z
  float pitch = 0.0f;  // above the horizon
  float distance = 1.0f;
  bool moved = false;  // false: the scene's default camera

  void preset(const SceneState& scene, std::string_view name) {
    const glm::vec3 d = glm::normalize(cli::cameraDirection(name));
    target = scene.framing().center;
    yaw = std::atan2(d.x, d.z);
    pitch = std::asin(std::clamp(d.y, -1.0f, 1.0f));
    distance = cli::cameraDistance(scene.options(), scene.framing(), scene.aspect());
  }

  /// A preset the user chose: the orbit leaves the default camera.
  void jump(const SceneState& scene, std::string_view name) {
    preset(scene, name);
    moved = true;
  }

  Result<render::Camera> camera(const SceneState& scene) const {
    if (!moved) return scene.defaultCamera();
    const glm::vec3 d(std::cos(pitch) * std::sin(yaw), std::sin(pitch),
                      std::cos(pitch) * std::cos(yaw));
    return cli::lookingAt(target + d * distance, target, distance, scene.framing(), scene.aspect());
  }
};

// inotify on the effect file's folder: editors save by writing a new file and renaming it over
// the old, so the folder is watched, and a close-after-write or a rename onto the name counts.
class FolderWatch {
 public:
  explicit FolderWatch(const std::string& file) {
    const std::filesystem::path path(file);
    name_ = path.filename().string();
    fd_ = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (fd_ < 0) return;
    const std::string folder = path.has_parent_path() ? path.parent_path().string() : ".";
    if (inotify_add_watch(fd_, folder.c_str(), IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE) < 0) {
      close(fd_);
      fd_ = -1;
    }
  }
  ~FolderWatch() {
    if (fd_ >= 0) close(fd_);
  }
  FolderWatch(const FolderWatch&) = delete;
  FolderWatch& operator=(const FolderWatch&) = delete;

  bool watching() const noexcept { return fd_ >= 0; }

  /// True when the file changed since the last call (reads every pending event; never blocks).
  bool changed() {
    if (fd_ < 0) return false;
    bool hit = false;
    alignas(inotify_event) std::array<char, 4096> buffer;
    for (;;) {
      const ssize_t n = read(fd_, buffer.data(), buffer.size());
      if (n <= 0) break;
      for (ssize_t at = 0; at < n;) {
        const auto* e = reinterpret_cast<const inotify_event*>(buffer.data() + at);
        if (e->len > 0 && name_ == e->name) hit = true;
        at += static_cast<ssize_t>(sizeof(inotify_event) + e->len);
      }
    }
    return hit;
  }

 private:
  int fd_ = -1;
  std::string name_;
};

struct ViewOptions {
  cli::RenderCommandOptions scene;
  std::string screenshot;  // --screenshot: the scene at --time, written as PNG
  bool quit = false;       // --quit: exit after the screenshot
  double quitAfter = 0.0;  // --quit-after: end an interactive run after this much wall time
  std::string windowShot;  // --window-screenshot: the whole window, UI included, at the end
  std::optional<glm::vec2> pickAt;  // --pick X,Y: click the scene pixel (X, Y) on the first frame
  double length = 10.0;             // the timeline's length, s
  bool paused = false;
};

// The scripted path: the frame at --time written as `mote render --frames 1` writes it.
int screenshotOnly(const ViewOptions& v) {
  std::vector<std::string> messages;
  cli::RenderCommandOptions o = v.scene;
  o.frames = 1;  // framed as `mote render --time T --frames 1` frames it
  std::unique_ptr<SceneState> scene = SceneState::load(o, messages);
  if (scene == nullptr) return 1;
  Result<render::Camera> camera = scene->defaultCamera();
  render::Image image;
  Status drawn = camera.ok() ? scene->draw(*camera, image) : camera.status();
  if (drawn.ok()) drawn = cli::makeParentFolder(v.screenshot);
  if (drawn.ok()) drawn = render::writePng(image, v.screenshot);
  if (!drawn.ok()) {
    fmt::print(stderr, "mote-view: {}\n", drawn.message());
    return 1;
  }
  fmt::print("{}: the scene at {:.3f} s, {}x{}\n", v.screenshot, scene->time(), image.width(),
             image.height());
  return 0;
}

// What the window shows now, UI included, as PNG.
Status writeWindow(SDL_Renderer* renderer, const std::string& path) {
  int width = 0;
  int height = 0;
  if (SDL_GetRendererOutputSize(renderer, &width, &height) != 0)
    return Status(StatusCode::Internal, SDL_GetError());
  Result<render::Image> image =
      render::Image::create(static_cast<std::uint32_t>(width), static_cast<std::uint32_t>(height));
  if (!image.ok()) return image.status();
  if (SDL_RenderReadPixels(renderer, nullptr, SDL_PIXELFORMAT_ABGR8888, image->pixels().data(),
                           static_cast<int>(image->stride())) != 0)
    return Status(StatusCode::Internal, SDL_GetError());
  MOTE_RETURN_IF_ERROR(cli::makeParentFolder(path));
  return render::writePng(*image, path);
}

// The window's SDL objects, released in order.
struct Window {
  SDL_Window* window = nullptr;
  SDL_Renderer* renderer = nullptr;
  SDL_Texture* texture = nullptr;
  ~Window() {
    if (texture != nullptr) SDL_DestroyTexture(texture);
    if (renderer != nullptr) SDL_DestroyRenderer(renderer);
    if (window != nullptr) SDL_DestroyWindow(window);
    SDL_Quit();
  }
};

class Viewer {
 public:
  Viewer(ViewOptions options, std::unique_ptr<SceneState> scene, std::vector<std::string> warnings)
      : v_(std::move(options)),
        scene_(std::move(scene)),
        watch_(v_.scene.input),
        warnings_(std::move(warnings)) {
    paused_ = v_.paused;
    orbit_.preset(*scene_, v_.scene.camera == "top" ? "top" : "front");
    ground_ = v_.scene.ground;
    transparency_ = v_.scene.transparency == "sorted" ? 1 : v_.scene.transparency == "oit" ? 2 : 0;
    cli::parseHexColor(v_.scene.background, background_);  // checked by the scene's load
  }

  int run();

 private:
  void reload();
  void handle(const SDL_Event& e);
  void panels();
  void stylePanel();
  void particlePanel();
  void emitterToggles(std::uint32_t i);
  Status step(double wallSeconds);
  void markPicked();
  void pickAt(glm::vec2 scenePixel);
  void capture(bool gif);
  void restyle();

  ViewOptions v_;
  std::unique_ptr<SceneState> scene_;
  FolderWatch watch_;
  Orbit orbit_;
  render::Image image_;
  std::vector<std::string> errors_;  // the last failed reload's diagnostics
  std::vector<float> liveHistory_ = std::vector<float>(240, 0.0f);
  std::size_t historyAt_ = 0;
  bool paused_ = false;
  bool loop_ = true;
  bool quitting_ = false;
  float speed_ = 1.0f;
  float viewHeight_ = 360.0f;  // the scene's pixels, for panning
  float sceneWidth_ = 640.0f;
  double tickMs_ = 0.0;
  double drawMs_ = 0.0;
  std::string note_;                      // a one-line message (screenshot written, …)
  std::vector<std::string> warnings_;     // the loaded effect's warnings (NWN importer, compiler)
  std::optional<render::Camera> camera_;  // the frame's camera
  std::optional<PickedParticle> picked_;
  std::optional<ParticleReadout> readout_;
  int downX_ = 0;  // where the left button went down, to tell a click from a drag
  int downY_ = 0;
  bool dragged_ = false;
  bool ground_ = true;
  int transparency_ = 0;               // emitter, sorted, oit
  std::array<float, 3> background_{};  // sRGB
};

void Viewer::reload() {
  const Clock::time_point started = Clock::now();
  std::vector<std::string> messages;
  // The running scene's options (its look as changed in the panel) at its time; its framing
  // and renderer kept.
  cli::RenderCommandOptions o = scene_->options();
  o.time = scene_->time();
  std::unique_ptr<SceneState> next = SceneState::load(o, messages, scene_.get());
  if (next == nullptr) {
    errors_ = std::move(messages);  // the running effect stays
    return;
  }
  next->adoptRenderer(*scene_);
  scene_ = std::move(next);
  errors_.clear();
  warnings_ = std::move(messages);
  picked_.reset();
  fmt::print(stderr, "reloaded {} in {:.0f} ms\n", v_.scene.input, secondsSince(started) * 1e3);
}

Status Viewer::step(double wallSeconds) {
  if (paused_) return {};
  double dt = std::min(wallSeconds, 0.1) * static_cast<double>(speed_);
  if (scene_->time() + dt > v_.length) {
    if (!loop_) {
      paused_ = true;
      dt = std::max(0.0, v_.length - scene_->time());
    } else {
      return scene_->seek(0.0);
    }
  }
  return scene_->advance(dt);
}

void Viewer::handle(const SDL_Event& e) {
  ImGuiIO& io = ImGui::GetIO();
  if (e.type == SDL_QUIT) quitting_ = true;
  if (e.type == SDL_KEYDOWN && !io.WantCaptureKeyboard) {
    switch (e.key.keysym.sym) {
      case SDLK_SPACE:
        paused_ = !paused_;
        break;
      case SDLK_PERIOD:
        paused_ = true;
        if (Status s = scene_->advance(1.0 / 60.0); !s.ok()) errors_ = {s.message()};
        break;
      case SDLK_r:
        if (Status s = scene_->seek(0.0); !s.ok()) errors_ = {s.message()};
        break;
      case SDLK_f:
        orbit_.moved = false;
        break;
      case SDLK_1:
        orbit_.jump(*scene_, "front");
        break;
      case SDLK_2:
        orbit_.jump(*scene_, "top");
        break;
      case SDLK_3:
        orbit_.jump(*scene_, "iso");
        break;
      case SDLK_p:
        capture(false);
        break;
      case SDLK_g:
        capture(true);
        break;
      case SDLK_ESCAPE:
        quitting_ = true;
        break;
      default:
        break;
    }
  }
  if (io.WantCaptureMouse) return;
  if (e.type == SDL_MOUSEBUTTONDOWN && e.button.button == SDL_BUTTON_LEFT) {
    downX_ = e.button.x;
    downY_ = e.button.y;
    dragged_ = false;
  }
  if (e.type == SDL_MOUSEBUTTONUP && e.button.button == SDL_BUTTON_LEFT && !dragged_ && camera_) {
    // A click (no drag): pick the particle under it, or none.
    Result<const ParticleWorld*> world = scene_->world();
    if (world.ok()) {
      const glm::vec2 at(static_cast<float>(e.button.x - kPanelWidth),
                         static_cast<float>(e.button.y));
      pickAt(at);
    }
  }
  if (e.type == SDL_MOUSEMOTION && e.motion.state != 0) {
    if (std::abs(e.motion.x - downX_) + std::abs(e.motion.y - downY_) > 3) dragged_ = true;
    if (!dragged_ && (e.motion.state & SDL_BUTTON_LMASK) != 0) return;
    orbit_.moved = true;
    const auto dx = static_cast<float>(e.motion.xrel);
    const auto dy = static_cast<float>(e.motion.yrel);
    if ((e.motion.state & SDL_BUTTON_LMASK) != 0) {
      orbit_.yaw -= dx * 0.01f;
      orbit_.pitch = std::clamp(orbit_.pitch + dy * 0.01f, -1.5f, 1.5f);
    } else {
      // Pan in the view plane, a pixel a pixel at the target's distance.
      const float scale = orbit_.distance * 2.0f * std::tan(cli::kCameraFovY * 0.5f) / viewHeight_;
      const glm::vec3 right(std::cos(orbit_.yaw), 0.0f, -std::sin(orbit_.yaw));
      orbit_.target += (-dx * right + dy * glm::vec3(0.0f, 1.0f, 0.0f)) * scale;
    }
  }
  if (e.type == SDL_MOUSEWHEEL) {
    orbit_.moved = true;
    orbit_.distance *= std::pow(0.9f, static_cast<float>(e.wheel.y));
    orbit_.distance = std::clamp(orbit_.distance, 0.05f, 1.0e4f);
  }
}

// Emitter `i`'s drawing toggles in the emitter list: shown or hidden, and solo (it alone drawn;
// pressed again, all). The simulation is not changed; a reload keeps them by name.
void Viewer::emitterToggles(std::uint32_t i) {
  const std::string& name = scene_->effect().emitters[i].name;
  std::vector<std::string> hide = scene_->options().hide;
  std::string solo = scene_->options().solo;
  bool shown = std::find(hide.begin(), hide.end(), name) == hide.end();
  ImGui::PushID(static_cast<int>(i));
  bool changed = ImGui::Checkbox("##show", &shown);
  if (changed) {
    if (shown)
      std::erase(hide, name);
    else
      hide.push_back(name);
  }
  ImGui::SameLine();
  const bool soloed = solo == name;
  if (ImGui::SmallButton(soloed ? "S*" : "S")) {
    solo = soloed ? std::string() : name;
    changed = true;
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("solo: draw %s alone", name.c_str());
  ImGui::PopID();
  if (changed) {
    if (Status st = scene_->setHidden(hide, solo); !st.ok()) errors_ = {st.message()};
  }
}

void Viewer::stylePanel() {
  bool changed = ImGui::Checkbox("ground", &ground_);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(90.0f);
  changed |= ImGui::Combo("order", &transparency_, "emitter\0sorted\0oit\0");
  changed |= ImGui::ColorEdit3("background", background_.data(), ImGuiColorEditFlags_NoInputs);
  if (changed) restyle();
  ImGui::SameLine();
  bool overlay = scene_->options().debug;
  if (ImGui::Checkbox("overlay", &overlay)) scene_->setOverlay(overlay);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "emitter axes, bounds boxes, velocity rays and colliders (mote render --debug)");
}

void Viewer::restyle() {
  cli::RenderCommandOptions o = scene_->options();
  o.ground = ground_;
  o.transparency = transparency_ == 1 ? "sorted" : transparency_ == 2 ? "oit" : "emitter";
  const auto byte = [](float c) {
    return static_cast<unsigned>(std::lround(std::clamp(c, 0.0f, 1.0f) * 255.0f));
  };
  o.background = fmt::format("{:02x}{:02x}{:02x}", byte(background_[0]), byte(background_[1]),
                             byte(background_[2]));
  if (Status s = scene_->restyle(o); !s.ok()) errors_ = {s.message()};
}

void Viewer::particlePanel() {
  if (!picked_) return;
  ImGui::SetNextWindowPos(ImVec2(sceneWidth_ + static_cast<float>(kPanelWidth) - 300.0f, 8.0f),
                          ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(ImVec2(292.0f, 0.0f), ImGuiCond_FirstUseEver);
  bool open = true;
  ImGui::Begin("Particle", &open);
  if (!readout_) {
    ImGui::TextUnformatted("it died");
  } else {
    for (const std::string& line : readout_->lines)
      ImGui::TextUnformatted(line.c_str());
  }
  ImGui::End();
  if (!open) picked_.reset();
}

// Picks the particle nearest the scene pixel (within 12 px), or none; says which on stderr.
void Viewer::pickAt(glm::vec2 scenePixel) {
  Result<const ParticleWorld*> world = scene_->world();
  if (!world.ok() || !camera_) return;
  picked_ = pickParticle(**world, scene_->placed(),
                         static_cast<std::uint32_t>(scene_->effect().emitters.size()), *camera_,
                         scenePixel, glm::uvec2(image_.width(), image_.height()), 12.0f);
  markPicked();
  if (!readout_) {
    fmt::print(stderr, "picked nothing at {:.0f},{:.0f}\n", scenePixel.x, scenePixel.y);
    return;
  }
  fmt::print(stderr, "picked {}\n", readout_->lines.front());
  for (std::size_t i = 1; i < readout_->lines.size(); ++i)
    fmt::print(stderr, "  {}\n", readout_->lines[i]);
}

// The picked particle read now, and a ring drawn round it in the scene.
void Viewer::markPicked() {
  readout_.reset();
  if (!picked_ || !camera_) return;
  Result<const ParticleWorld*> world = scene_->world();
  if (!world.ok()) return;
  readout_ = readParticle(**world, scene_->placed(), *picked_, *camera_,
                          glm::uvec2(image_.width(), image_.height()));
  if (!readout_ || !readout_->onScreen) return;
  const render::Rgba8 yellow{255, 220, 40, 255};
  for (int a = 0; a < 64; ++a) {
    const float t = 6.2831853f * static_cast<float>(a) / 64.0f;
    const long x = std::lround(readout_->pixel.x + 7.0f * std::cos(t));
    const long y = std::lround(readout_->pixel.y + 7.0f * std::sin(t));
    if (x >= 0 && y >= 0 && x < static_cast<long>(image_.width()) &&
        y < static_cast<long>(image_.height()))
      image_.setPixel(static_cast<std::uint32_t>(x), static_cast<std::uint32_t>(y), yellow);
  }
}

// P: the scene as PNG; G: 3 s from now as a GIF at 20 frames a second (the effect is advanced
// through them and paused after). Into out/ under the working directory.
void Viewer::capture(bool gif) {
  if (!camera_) return;
  const std::string stem = std::filesystem::path(v_.scene.input).stem().string();
  const long ms = std::lround(scene_->time() * 1000.0);
  const std::string path = fmt::format("out/{}-{}ms.{}", stem, ms, gif ? "gif" : "png");
  Status s = cli::makeParentFolder(path);
  if (s.ok() && !gif) {
    render::Image shot;
    s = scene_->draw(*camera_, shot);
    if (s.ok()) s = render::writePng(shot, path);
  } else if (s.ok()) {
    paused_ = true;
    constexpr std::uint32_t kFrames = 60;
    std::vector<render::Image> frames(kFrames);
    for (std::uint32_t f = 0; f < kFrames && s.ok(); ++f) {
      if (f > 0) s = scene_->advance(1.0 / 20.0);
      if (s.ok()) s = scene_->draw(*camera_, frames[f]);
    }
    render::GifOptions options;
    options.delayCentiseconds = 5;
    if (s.ok()) s = render::writeGif(frames, path, options);
  }
  note_ = s.ok() ? "wrote " + path : s.message();
  fmt::print(stderr, "{}\n", note_);
}

void Viewer::panels() {
  // The panel column left of the scene.
  ImGui::SetNextWindowPos(ImVec2(0, 0));
  ImGui::SetNextWindowSize(ImVec2(static_cast<float>(kPanelWidth), viewHeight_));
  ImGui::Begin("Mote", nullptr,
               ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse);
  ImGui::TextUnformatted(v_.scene.input.c_str());
  if (ImGui::Button(paused_ ? "Play" : "Pause")) paused_ = !paused_;
  ImGui::SameLine();
  if (ImGui::Button("Step")) {
    paused_ = true;
    if (Status s = scene_->advance(1.0 / 60.0); !s.ok()) errors_ = {s.message()};
  }
  ImGui::SameLine();
  if (ImGui::Button("Restart")) {
    if (Status s = scene_->seek(0.0); !s.ok()) errors_ = {s.message()};
  }
  ImGui::SameLine();
  ImGui::Checkbox("Loop", &loop_);
  auto time = static_cast<float>(scene_->time());
  if (ImGui::SliderFloat("time (s)", &time, 0.0f, static_cast<float>(v_.length), "%.3f")) {
    if (Status s = scene_->seek(static_cast<double>(time)); !s.ok()) errors_ = {s.message()};
  }
  ImGui::SliderFloat("speed", &speed_, 0.1f, 4.0f, "%.1fx");
  ImGui::Separator();
  if (ImGui::Button("Front")) orbit_.jump(*scene_, "front");
  ImGui::SameLine();
  if (ImGui::Button("Top")) orbit_.jump(*scene_, "top");
  ImGui::SameLine();
  if (ImGui::Button("Iso")) orbit_.jump(*scene_, "iso");
  ImGui::SameLine();
  if (ImGui::Button("Frame (F)")) orbit_.moved = false;
  ImGui::Separator();
  ImGui::Text("tick %.2f ms   draw %.2f ms", tickMs_, drawMs_);
  Result<const ParticleWorld*> world = scene_->world();
  std::uint32_t live = 0;
  if (world.ok() &&
      ImGui::BeginTable("emitters", 6, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit)) {
    ImGui::TableSetupColumn("show");
    ImGui::TableSetupColumn("emitter");
    ImGui::TableSetupColumn("live");
    ImGui::TableSetupColumn("cap");
    ImGui::TableSetupColumn("spawned");
    ImGui::TableSetupColumn("dropped");
    ImGui::TableHeadersRow();
    const auto& emitters = scene_->effect().emitters;
    for (std::uint32_t i = 0; i < emitters.size(); ++i) {
      const Result<EmitterStats> st =
          (*world)->emitterStats((*world)->emitter(scene_->placed(), i));
      if (!st.ok()) continue;
      live += st->live;
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      emitterToggles(i);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(emitters[i].name.c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%u", st->live);
      ImGui::TableNextColumn();
      ImGui::Text("%u", st->capacity);
      ImGui::TableNextColumn();
      ImGui::Text("%llu", static_cast<unsigned long long>(st->spawned));
      ImGui::TableNextColumn();
      ImGui::Text("%llu", static_cast<unsigned long long>(st->dropped));
    }
    ImGui::EndTable();
  }
  liveHistory_[historyAt_] = static_cast<float>(live);
  historyAt_ = (historyAt_ + 1) % liveHistory_.size();
  ImGui::PlotLines("live", liveHistory_.data(), static_cast<int>(liveHistory_.size()),
                   static_cast<int>(historyAt_), nullptr, 0.0f, FLT_MAX, ImVec2(0, 48));
  stylePanel();
  if (ImGui::Button("Screenshot (P)")) capture(false);
  ImGui::SameLine();
  if (ImGui::Button("Record 3 s GIF (G)")) capture(true);
  if (!watch_.watching()) ImGui::TextUnformatted("(the folder is not watched: no hot reload)");
  if (!note_.empty()) ImGui::TextWrapped("%s", note_.c_str());
  if (!warnings_.empty() &&
      ImGui::CollapsingHeader(fmt::format("{} warning(s)###warnings", warnings_.size()).c_str())) {
    for (const std::string& line : warnings_)
      ImGui::TextWrapped("%s", line.c_str());
  }
  ImGui::End();
  particlePanel();
  if (!errors_.empty()) {
    ImGui::SetNextWindowPos(ImVec2(static_cast<float>(kPanelWidth) + 8.0f, 8.0f),
                            ImGuiCond_FirstUseEver);
    ImGui::SetNextWindowSize(ImVec2(std::min(520.0f, sceneWidth_ - 16.0f), 0.0f),
                             ImGuiCond_FirstUseEver);
    ImGui::Begin("Errors (the running effect is kept)");
    for (const std::string& line : errors_)
      ImGui::TextWrapped("%s", line.c_str());
    ImGui::End();
  }
}

int Viewer::run() {
  Window w;
  render::Image probe;
  Result<render::Camera> first = orbit_.camera(*scene_);
  if (!first.ok() || !scene_->draw(*first, probe).ok()) {
    fmt::print(stderr, "mote-view: cannot draw the first frame\n");
    return 1;
  }
  const int sw = static_cast<int>(probe.width());
  const int sh = static_cast<int>(probe.height());
  viewHeight_ = static_cast<float>(sh);
  sceneWidth_ = static_cast<float>(sw);
  w.window = SDL_CreateWindow(("mote-view — " + v_.scene.input).c_str(), SDL_WINDOWPOS_CENTERED,
                              SDL_WINDOWPOS_CENTERED, kPanelWidth + sw, sh, 0);
  if (w.window == nullptr) {
    fmt::print(stderr, "mote-view: no window: {}\n", SDL_GetError());
    return 1;
  }
  w.renderer = SDL_CreateRenderer(w.window, -1, SDL_RENDERER_SOFTWARE);
  if (w.renderer == nullptr) {
    fmt::print(stderr, "mote-view: no renderer: {}\n", SDL_GetError());
    return 1;
  }
  w.texture =
      SDL_CreateTexture(w.renderer, SDL_PIXELFORMAT_ABGR8888, SDL_TEXTUREACCESS_STREAMING, sw, sh);
  if (w.texture == nullptr) {
    fmt::print(stderr, "mote-view: no texture: {}\n", SDL_GetError());
    return 1;
  }
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;  // no imgui.ini left in the user's folder
  ImGui::StyleColorsDark();
  ImGui_ImplSDL2_InitForSDLRenderer(w.window);
  ImguiSdlDraw ui;
  if (!ui.init(w.renderer)) {
    fmt::print(stderr, "mote-view: no font texture: {}\n", SDL_GetError());
    return 1;
  }

  if (watch_.watching()) fmt::print(stderr, "watching {} for changes\n", v_.scene.input);
  const Clock::time_point started = Clock::now();
  Clock::time_point last = started;
  int status = 0;
  while (!quitting_) {
    SDL_Event e;
    while (SDL_PollEvent(&e) != 0) {
      ImGui_ImplSDL2_ProcessEvent(&e);
      handle(e);
    }
    if (watch_.changed()) reload();
    const double wall = secondsSince(last);
    last = Clock::now();
    const Clock::time_point t0 = Clock::now();
    if (Status s = step(wall); !s.ok()) errors_ = {s.message()};
    tickMs_ = secondsSince(t0) * 1e3;
    const Clock::time_point t1 = Clock::now();
    Result<render::Camera> camera = orbit_.camera(*scene_);
    if (camera.ok()) {
      camera_ = *camera;
      if (Status s = scene_->draw(*camera, image_); !s.ok()) errors_ = {s.message()};
      if (v_.pickAt) {
        pickAt(*v_.pickAt);
        v_.pickAt.reset();
      }
      markPicked();
    }
    drawMs_ = secondsSince(t1) * 1e3;
    if (!image_.empty() && static_cast<int>(image_.width()) == sw &&
        static_cast<int>(image_.height()) == sh)
      SDL_UpdateTexture(w.texture, nullptr, image_.pixels().data(),
                        static_cast<int>(image_.stride()));
    ImGui_ImplSDL2_NewFrame();
    ImGui::NewFrame();
    panels();
    ImGui::Render();
    SDL_RenderClear(w.renderer);
    const SDL_Rect sceneRect{kPanelWidth, 0, sw, sh};
    SDL_RenderCopy(w.renderer, w.texture, nullptr, &sceneRect);
    ui.draw(ImGui::GetDrawData());
    if (v_.quitAfter > 0.0 && secondsSince(started) >= v_.quitAfter) quitting_ = true;
    if (quitting_ && !v_.windowShot.empty()) {
      if (Status s = writeWindow(w.renderer, v_.windowShot); !s.ok()) {
        fmt::print(stderr, "mote-view: {}\n", s.message());
        status = 1;
      }
    }
    SDL_RenderPresent(w.renderer);
    SDL_Delay(1);
  }
  ImGui_ImplSDL2_Shutdown();
  ImGui::DestroyContext();
  return status;
}

}  // namespace
}  // namespace mote::view

int main(int argc, char** argv) {
  using mote::view::ViewOptions;
  CLI::App app{"mote-view: play, inspect and hot-reload a Mote effect (docs/viewer.md)"};
  ViewOptions v;
  mote::cli::RenderCommandOptions& o = v.scene;
  o.size = "960x540";
  app.add_option("file", o.input, "The effect: .json, .motefx or NWN .mdl")->required();
  app.add_option("--size", o.size, "The scene's size, WxH (the window's at start)");
  app.add_option("--time", o.time, "Effect time to start at, s")->check(CLI::Range(0.0, 3600.0));
  app.add_option("--length", v.length, "The timeline's length, s")->check(CLI::Range(0.1, 3600.0));
  app.add_option("--camera", o.camera, "front, top, iso or orbit: the default camera");
  app.add_option("--distance", o.distance,
                 "The default camera's distance, m (default: frame the measured bounds)")
      ->check(CLI::Range(0.0, 1e5));
  app.add_option("--transparency", o.transparency, "emitter, sorted or oit");
  app.add_option("--background", o.background, "Background colour, hex");
  app.add_flag(
      "--no-ground", [&](std::int64_t) { o.ground = false; }, "No ground plane");
  app.add_option("--circle", o.circle, "Move the effect on a circle of this radius, m")
      ->check(CLI::Range(0.0, 1000.0));
  app.add_option("--seed", o.seed, "The effect's seed");
  app.add_option("--hide", o.hide, "Leave this emitter out of the drawing (it still runs)")
      ->allow_extra_args(false);
  app.add_option("--solo", o.solo, "Draw this emitter alone (the others still run)");
  app.add_flag("--debug", o.debug,
               "Draw emitter axes, bounds boxes, velocity rays and colliders over the particles");
  app.add_option("--threads", o.threads, "Worker threads (0: the machine's)");
  app.add_option("--animation", o.animation, ".mdl input: the animation that drives the effect");
  app.add_option("--play", o.play,
                 ".mdl input: play the animation once or loop it (default: by its name)")
      ->check(CLI::IsMember({"once", "loop"}));
  app.add_option("--texture-dir", o.textureDirectories,
                 ".mdl input: a folder where NWN textures are found (repeatable; after the "
                 "model's own, before MOTE_NWN_TEXTURE_PATH)")
      ->allow_extra_args(false);
  app.add_option("--model-dir", o.modelDirectories,
                 ".mdl input: a folder where supermodels and chunk models are found (repeatable; "
                 "after the model's own)")
      ->allow_extra_args(false);
  mote::cli::addHostWorldOptions(app, o.hostWorld);
  app.add_option("--screenshot", v.screenshot,
                 "Write the scene at --time as PNG (as mote render --frames 1 writes it)");
  app.add_flag("--quit", v.quit, "With --screenshot: exit after writing it, no window");
  app.add_option("--quit-after", v.quitAfter, "End an interactive run after this many seconds")
      ->check(CLI::Range(0.0, 86400.0));
  app.add_flag("--paused", v.paused, "Start paused");
  std::string pick;
  app.add_option("--pick", pick, "X,Y: pick the particle nearest that scene pixel at the start");
  app.add_option("--window-screenshot", v.windowShot,
                 "With --quit-after: the whole window, UI included, as PNG at the end");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 1;
  }
  if (!pick.empty()) {
    glm::vec2 at(0.0f);
    char tail = 0;
    if (std::sscanf(pick.c_str(), "%f,%f%c", &at.x, &at.y, &tail) != 2) {
      fmt::print(stderr, "mote-view: --pick must be X,Y (got '{}')\n", pick);
      return 1;
    }
    v.pickAt = at;
  }
  if (!v.screenshot.empty()) {
    const int written = mote::view::screenshotOnly(v);
    if (written != 0 || v.quit) return written;
  } else if (v.quit) {
    fmt::print(stderr, "mote-view: --quit needs --screenshot\n");
    return 1;
  }
  std::vector<std::string> messages;
  std::unique_ptr<mote::view::SceneState> scene = mote::view::SceneState::load(o, messages);
  if (scene == nullptr) return 1;
  if (SDL_Init(SDL_INIT_VIDEO) != 0) {
    fmt::print(stderr, "mote-view: SDL cannot start its video: {}\n", SDL_GetError());
    return 1;
  }
  mote::view::Viewer viewer(std::move(v), std::move(scene), std::move(messages));
  return viewer.run();
}
