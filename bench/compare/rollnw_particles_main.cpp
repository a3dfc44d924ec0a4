// SPDX-License-Identifier: MIT
// rollnw's side of bench/compare/rollnw.sh, built against a checkout of jd28/rollnw (never
// vendored): its own benchmarks/particles.cpp, included whole so its fixtures are reachable, and
// a main that runs its benchmarks or, with --count, prints how many live particles each case
// really holds — rollnw caps an emitter at 4,096 and reports the requested count as its items.
#include "benchmarks/particles.cpp"

#include <cstdio>
#include <string_view>

namespace {

std::size_t liveOf(const ParticleBenchmarkTemplate& fixture) {
  return fixture.system.particles.core.age.size();
}

// The burst case's particles after its timed tick (the trigger and one tick, as the case runs).
std::size_t burstLive(const ParticleBenchmarkTemplate& fixture) {
  ParticleSystemInstance system = fixture.system;
  trigger_particle_emitter(system, 0, 1);
  tick_particle_system(system, kParticleBenchmarkDt);
  return system.particles.core.age.size();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string_view(argv[1]) == "--count") {
    for (const uint32_t n : {1024u, 5120u, 10240u}) {
      std::printf("particles_tick_single_emitter/%u %zu\n", n,
                  liveOf(make_single_emitter_template(n)));
      std::printf("particles_tick_mixed_emitters/%u %zu\n", n,
                  liveOf(make_mixed_emitters_template(n)));
      std::printf("particles_tick_high_churn/%u %zu\n", n, liveOf(make_high_churn_template(n)));
      std::printf("particles_burst_spawn/%u %zu\n", n, burstLive(make_burst_spawn_template(n)));
      std::printf("particles_render_packets_single_emitter/%u %zu\n", n,
                  liveOf(make_single_emitter_template(n)));
      std::printf("particles_render_packets_mixed_emitters/%u %zu\n", n,
                  liveOf(make_mixed_emitters_template(n)));
    }
    return 0;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
