// SPDX-License-Identifier: MIT
// The benchmark workloads shared by bench/runtime_bench.cpp (Google Benchmark) and `mote bench`:
// the "standard effect" as an effect file, on the VM alone, and as a hand-written SoA kernel doing
// the same update; the simple sprite effect; the world-sized variants. Header-only so both binaries
// compile the very same kernel.
#pragma once

#include <mote/bytecode/compiled_effect.h>
#include <mote/runtime/vm.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mote::bench {

inline constexpr float kBenchDt = 1.0f / 60.0f;

/// The VM and native standard benchmarks restore their particles' first state every this many
/// updates (2 simulated seconds, the shortest lifetime), inside the timed calls, both alike. Left
/// to run, drag takes the x and z velocities below 2^-126 after ~21,000 updates, and denormal
/// arithmetic (tens of times slower on x86) inflated whichever side had run longer: the native
/// kernel at 10,000 particles measured 12.6 ns a particle against 3.8 ns at 100,000.
inline constexpr std::uint32_t kRestartUpdates = 120;

/// Age and kill, gravity, drag, colour and size over life, spin, integration.
inline constexpr std::string_view kStandardEffect =
    R"({"format": "mote.effect/1", "emitters": [{"name": "standard",
  "max_particles": 1048576, "spawn": {"rate": 1},
  "init": {"lifetime": [2, 4], "velocity": {"kind": "sphere", "speed": [1, 2]}, "size": [0.1, 0.2],
           "spin": [-90, 90], "color": [1, 0.5, 0.2, 1]},
  "update": [{"type": "gravity"}, {"type": "drag", "coefficient": 0.5},
    {"type": "color_over_life", "gradient": {"keys": [[0, [1, 1, 1, 1]], [1, [1, 0.2, 0.1, 0]]]}},
    {"type": "size_over_life", "x": {"keys": [[0, 1], [1, 2]]}}]}]})";

/// The simple sprite: position, velocity, age and a size curve (engines' "hello particles").
inline constexpr std::string_view kSpriteEffect =
    R"({"format": "mote.effect/1", "emitters": [{"name": "sprite",
  "max_particles": 4096, "spawn": {"rate": 0, "bursts": [{"time": 0, "count": 4096}]},
  "init": {"lifetime": 4, "immortal": true, "velocity": {"kind": "sphere", "speed": [1, 2]},
           "size": 0.1},
  "update": [{"type": "size_over_life", "x": {"keys": [[0, 1], [1, 2]]}}]}]})";

/// The standard effect for a ParticleWorld holding `n` particles: one burst of n, long-lived, so
/// every tick updates all of them.
inline std::string standardWorldEffect(std::uint32_t n) {
  const std::string count = std::to_string(n);
  return R"({"format": "mote.effect/1", "emitters": [{"name": "standard", "max_particles": )" +
         count + R"(, "spawn": {"rate": 0, "bursts": [{"time": 0, "count": )" + count + R"(}]},
  "init": {"lifetime": 1000, "velocity": {"kind": "sphere", "speed": [1, 2]}, "size": [0.1, 0.2],
           "spin": [-90, 90], "color": [1, 0.5, 0.2, 1]},
  "update": [{"type": "gravity"}, {"type": "drag", "coefficient": 0.5},
    {"type": "color_over_life", "gradient": {"keys": [[0, [1, 1, 1, 1]], [1, [1, 0.2, 0.1, 0]]]}},
    {"type": "size_over_life", "x": {"keys": [[0, 1], [1, 2]]}}]}]})";
}

/// Spawn cost: `n` particles born every 1/60 s tick that die within a millisecond.
inline std::string spawnEffect(std::uint32_t n) {
  return R"({"format": "mote.effect/1", "emitters": [{"name": "spawn", "max_particles": )" +
         std::to_string(n) + R"(, "spawn": {"rate": )" + std::to_string(n * 60.0) + R"(},
  "init": {"lifetime": 0.001, "velocity": {"kind": "sphere", "speed": [1, 2]}, "size": [0.1, 0.2],
           "color": [1, 0.5, 0.2, 1]}}]})";
}

/// rollnw's benchmark emitter (jd28/rollnw benchmarks/particles.cpp, make_benchmark_emitter):
/// `count` particles in one burst at 0 s, speed 2 m/s, size 1 m, lifetime `lifetime` (rollnw: 4 s),
/// with the JSON members `extra` added. bench/compare runs the two side by side.
inline std::string peerEmitter(std::string_view name, std::uint32_t count,
                               std::string_view lifetime, std::string_view extra) {
  const std::string n = std::to_string(count);
  return R"({"name": ")" + std::string(name) + R"(", "max_particles": )" + n +
         R"(, "spawn": {"rate": 0, "bursts": [{"time": 0, "count": )" + n + R"(}]},
  "init": {"lifetime": )" +
         std::string(lifetime) + R"(, "velocity": {"kind": "sphere", "speed": 2}, "size": 1})" +
         (extra.empty() ? "" : ", " + std::string(extra)) + "}";
}

/// rollnw's size curve over life (size_x from 1 to 1.5).
inline constexpr std::string_view kPeerSizeCurve =
    R"("update": [{"type": "size_over_life", "x": {"keys": [[0, 1], [1, 1.5]]}}])";

/// particles_tick_single_emitter: one emitter of `n` with the size curve.
inline std::string peerSingleEffect(std::uint32_t n) {
  return R"({"format": "mote.effect/1", "emitters": [)" +
         peerEmitter("single", n, "4", kPeerSizeCurve) + "]}";
}

/// particles_tick_mixed_emitters: `n` particles over five emitters — the size curve, point gravity
/// and a Bezier flight toward (0, 0, 4), a linked chain on that flight, and mesh particles.
inline std::string peerMixedEffect(std::uint32_t n) {
  const std::uint32_t share = n / 5;
  const std::string gravity =
      R"("update": [{"type": "target", "mode": "gravity", "position": [0, 0, 4], "gravity": 4}])";
  const std::string bezier =
      R"("update": [{"type": "target", "mode": "bezier", "position": [0, 0, 4]}])";
  return R"({"format": "mote.effect/1", "emitters": [)" +
         peerEmitter("basic", share + n % 5, "4", kPeerSizeCurve) + ", " +
         peerEmitter("gravity", share, "4", gravity) + ", " +
         peerEmitter("bezier", share, "4", bezier) + ", " +
         peerEmitter("chain", share, "4", bezier + R"(, "render": {"mode": "linked_chain"})") +
         ", " +
         peerEmitter("mesh", share, "4", R"("render": {"mode": "mesh", "mesh": "builtin:shard"})") +
         "]}";
}

/// particles_tick_high_churn: `n` particles of which about half die in the third tick (rollnw kills
/// every other one): born together in the first tick, aged 2/60 s after the second, their lifetimes
/// uniform in [0.035, 0.065] s, so those below 3/60 s die in the third.
inline std::string peerChurnEffect(std::uint32_t n) {
  return R"({"format": "mote.effect/1", "emitters": [)" +
         peerEmitter("churn", n, "[0.035, 0.065]", kPeerSizeCurve) + "]}";
}

/// particles_burst_spawn: a burst of `n` spawned and ticked once.
inline std::string peerBurstEffect(std::uint32_t n) {
  return R"({"format": "mote.effect/1", "emitters": [)" + peerEmitter("burst", n, "4", "") + "]}";
}

/// The standard effect's update written by hand over SoA arrays (what the VM is measured against).
struct NativeStandard {
  explicit NativeStandard(std::size_t n)
      : age(n, 0.0f),
        life(n, 3.0f),
        px(n, 0.0f),
        py(n, 0.0f),
        pz(n, 0.0f),
        vx(n, 1.0f),
        vy(n, 1.0f),
        vz(n, 1.0f),
        r(n),
        g(n),
        b(n),
        a(n),
        r0(n, 1.0f),
        g0(n, 0.5f),
        b0(n, 0.2f),
        a0(n, 1.0f),
        sx(n),
        sy(n),
        sx0(n, 0.1f),
        sy0(n, 0.1f),
        rot(n, 0.0f),
        spin(n, 1.0f),
        killed(n, 0) {}
  void update(float dt) {
    if (++updates % kRestartUpdates == 0) restart();
    step(dt);
  }
  // Restrict-qualified locals: the streams do not overlap. GCC 12 still keeps the loop scalar (its
  // vectoriser counts the selects as control flow), so the VM's vectors race a scalar loop here.
  // Out of line, so its code does not depend on the caller's.
  [[gnu::noinline]] void step(float dt) {
    const std::size_t n = age.size();
    float* __restrict pAge = age.data();
    const float* __restrict pLife = life.data();
    std::uint8_t* __restrict pKilled = killed.data();
    float* __restrict pVx = vx.data();
    float* __restrict pVy = vy.data();
    float* __restrict pVz = vz.data();
    float* __restrict pR = r.data();
    float* __restrict pG = g.data();
    float* __restrict pB = b.data();
    float* __restrict pA = a.data();
    const float* __restrict pR0 = r0.data();
    const float* __restrict pG0 = g0.data();
    const float* __restrict pB0 = b0.data();
    const float* __restrict pA0 = a0.data();
    float* __restrict pSx = sx.data();
    float* __restrict pSy = sy.data();
    const float* __restrict pSx0 = sx0.data();
    const float* __restrict pSy0 = sy0.data();
    float* __restrict pRot = rot.data();
    const float* __restrict pSpin = spin.data();
    float* __restrict pPx = px.data();
    float* __restrict pPy = py.data();
    float* __restrict pPz = pz.data();
    for (std::size_t i = 0; i < n; ++i) {
      const float ag = pAge[i] + dt;
      pAge[i] = ag;
      pKilled[i] = static_cast<std::uint8_t>(pKilled[i] | (pLife[i] < ag ? 1 : 0));
      const float t = std::min(std::max(ag / pLife[i], 0.0f), 1.0f);
      float y = pVy[i] + -9.81f * dt;
      const float k = -0.5f * dt;
      const float x = pVx[i] + pVx[i] * k;
      y = y + y * k;
      const float z = pVz[i] + pVz[i] * k;
      pVx[i] = x;
      pVy[i] = y;
      pVz[i] = z;
      pR[i] = pR0[i] * 1.0f;
      pG[i] = pG0[i] * (1.0f - 0.8f * t);
      pB[i] = pB0[i] * (1.0f - 0.9f * t);
      pA[i] = pA0[i] * (1.0f - t);
      pSx[i] = pSx0[i] * (1.0f + t);
      pSy[i] = pSy0[i] * (1.0f + t);
      pRot[i] += pSpin[i] * dt;
      pPx[i] += x * dt;
      pPy[i] += y * dt;
      pPz[i] += z * dt;
    }
  }
  // The state the constructor set (the streams it gave other values keep theirs).
  void restart() {
    for (std::vector<float>* v : {&age, &px, &py, &pz, &rot})
      std::fill(v->begin(), v->end(), 0.0f);
    for (std::vector<float>* v : {&vx, &vy, &vz})
      std::fill(v->begin(), v->end(), 1.0f);
    std::fill(killed.begin(), killed.end(), std::uint8_t{0});
  }
  std::vector<float> age, life, px, py, pz, vx, vy, vz, r, g, b, a, r0, g0, b0, a0, sx, sy, sx0,
      sy0, rot, spin;
  std::vector<std::uint8_t> killed;
  std::uint32_t updates = 0;
};

// The standard effect's UPDATE on the VM over n particles (no world around it).
struct VmStandard {
  bool setUp(const bytecode::CompiledEmitter& emitter, std::uint32_t n) {
    Result<bytecode::VerifiedProgram> verified = bytecode::verify(emitter.program);
    if (!verified.ok()) return false;
    prepared = PreparedProgram::prepare(verified.value());
    Result<BatchVm> created = BatchVm::create();
    if (!created.ok()) return false;
    vm.emplace(std::move(created.value()));
    count = n;
    words.assign(emitter.program.particleWords, std::vector<float>(n, 0.0f));
    for (auto& w : words)
      streams.push_back(w.data());
    ids.resize(n);
    for (std::uint32_t i = 0; i < n; ++i)
      ids[i] = i;
    killed.assign(n, 0);
    context.particleIds = ids.data();
    context.builtins[static_cast<std::size_t>(bytecode::Builtin::EmitterRotation)] = {0, 0, 0, 1};
    context.builtins[static_cast<std::size_t>(bytecode::Builtin::Dt)] = {kBenchDt, 0, 0, 0};
    vm->run(prepared, bytecode::Section::Init, streams, 0, n, context, killed);
    initial = words;
    return true;
  }
  void update() {
    if (++updates % kRestartUpdates == 0) {  // INIT's state again
      for (std::size_t w = 0; w < words.size(); ++w)
        std::copy(initial[w].begin(), initial[w].end(), words[w].begin());
      std::fill(killed.begin(), killed.end(), std::uint8_t{0});
    }
    vm->run(prepared, bytecode::Section::Update, streams, 0, count, context, killed);
  }
  std::uint32_t count = 0;
  PreparedProgram prepared;
  std::optional<BatchVm> vm;
  std::vector<std::vector<float>> words;
  std::vector<std::vector<float>> initial;
  std::uint32_t updates = 0;
  std::vector<float*> streams;
  std::vector<std::uint32_t> ids;
  std::vector<std::uint8_t> killed;
  VmContext context;
};

}  // namespace mote::bench
