// SPDX-License-Identifier: MIT
// The batched VM against a hand-written C++ kernel doing the same "standard effect" update
// (age and kill, gravity, drag, colour and size over life, spin, integration), SoA, at 10k, 100k
// and 1M particles. Compare the two in one run; docs/performance.md records the figures.
#include <mote/authoring/effect_json.h>
#include <mote/compiler/compiler.h>
#include <mote/runtime/vm.h>

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdlib>
#include <vector>

namespace {

constexpr std::string_view kStandard =
    R"({"format": "mote.effect/1", "emitters": [{"name": "standard",
  "max_particles": 1048576, "spawn": {"rate": 1},
  "init": {"lifetime": [2, 4], "velocity": {"kind": "sphere", "speed": [1, 2]}, "size": [0.1, 0.2],
           "spin": [-90, 90], "color": [1, 0.5, 0.2, 1]},
  "update": [{"type": "gravity"}, {"type": "drag", "coefficient": 0.5},
    {"type": "color_over_life", "gradient": {"keys": [[0, [1, 1, 1, 1]], [1, [1, 0.2, 0.1, 0]]]}},
    {"type": "size_over_life", "x": {"keys": [[0, 1], [1, 2]]}}]}]})";

struct VmFixture {
  explicit VmFixture(std::uint32_t n) : count(n) {
    const mote::authoring::EffectLoadResult loaded = mote::authoring::parseEffect(kStandard);
    mote::compiler::CompileResult compiled = mote::compiler::compileEffect(loaded.effect);
    if (!compiled.ok()) std::abort();
    emitter = compiled.effect.emitters[0];
    mote::Result<mote::bytecode::VerifiedProgram> verified =
        mote::bytecode::verify(emitter.program);
    if (!verified.ok()) std::abort();
    prepared = mote::PreparedProgram::prepare(*verified);
    words.assign(emitter.program.particleWords, std::vector<float>(n, 0.0f));
    for (auto& w : words)
      streams.push_back(w.data());
    ids.resize(n);
    for (std::uint32_t i = 0; i < n; ++i)
      ids[i] = i;
    killed.assign(n, 0);
    context.particleIds = ids.data();
    context.builtins[static_cast<std::size_t>(mote::bytecode::Builtin::EmitterRotation)] = {0, 0, 0,
                                                                                            1};
    context.builtins[static_cast<std::size_t>(mote::bytecode::Builtin::Dt)] = {1.0f / 60.0f, 0, 0,
                                                                               0};
    vm.emplace(std::move(mote::BatchVm::create()).takeValue());
    vm->run(prepared, mote::bytecode::Section::Init, streams, 0, n, context, killed);
  }
  std::uint32_t count;
  mote::bytecode::CompiledEmitter emitter;
  mote::PreparedProgram prepared;
  std::vector<std::vector<float>> words;
  std::vector<float*> streams;
  std::vector<std::uint32_t> ids;
  std::vector<std::uint8_t> killed;
  mote::VmContext context;
  std::optional<mote::BatchVm> vm;
};

void BM_StandardVm(benchmark::State& state) {
  VmFixture f(static_cast<std::uint32_t>(state.range(0)));
  for (auto _ : state) {
    f.vm->run(f.prepared, mote::bytecode::Section::Update, f.streams, 0, f.count, f.context,
              f.killed);
    benchmark::DoNotOptimize(f.words[0].data());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_StandardVm)->Name("standard/vm")->Arg(10000)->Arg(100000)->Arg(1000000);

// The same update written by hand over SoA arrays.
struct Native {
  explicit Native(std::size_t n)
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
    const std::size_t n = age.size();
    for (std::size_t i = 0; i < n; ++i) {
      const float ag = age[i] + dt;
      age[i] = ag;
      killed[i] = life[i] < ag ? 1 : killed[i];
      float t = ag / life[i];
      t = t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t);
      float y = vy[i] + -9.81f * dt;
      const float k = -0.5f * dt;
      const float x = vx[i] + vx[i] * k;
      y = y + y * k;
      const float z = vz[i] + vz[i] * k;
      vx[i] = x;
      vy[i] = y;
      vz[i] = z;
      r[i] = r0[i] * 1.0f;
      g[i] = g0[i] * (1.0f - 0.8f * t);
      b[i] = b0[i] * (1.0f - 0.9f * t);
      a[i] = a0[i] * (1.0f - t);
      sx[i] = sx0[i] * (1.0f + t);
      sy[i] = sy0[i] * (1.0f + t);
      rot[i] += spin[i] * dt;
      px[i] += x * dt;
      py[i] += y * dt;
      pz[i] += z * dt;
    }
  }
  std::vector<float> age, life, px, py, pz, vx, vy, vz, r, g, b, a, r0, g0, b0, a0, sx, sy, sx0,
      sy0, rot, spin;
  std::vector<std::uint8_t> killed;
};

void BM_StandardNative(benchmark::State& state) {
  Native n(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    n.update(1.0f / 60.0f);
    benchmark::DoNotOptimize(n.px.data());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_StandardNative)->Name("standard/native")->Arg(10000)->Arg(100000)->Arg(1000000);

}  // namespace
