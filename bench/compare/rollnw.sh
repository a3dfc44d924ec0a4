#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Mote's CPU particle cases side by side with the public NWN runtime rollnw's own benchmark
# (jd28/rollnw benchmarks/particles.cpp), run alternately in one sitting so both see the same
# machine. A tool, not part of CI (docs/performance.md, "Against rollnw").
#
#   ROLLNW_SRC=/path/to/rollnw bench/compare/rollnw.sh
#
# ROLLNW_SRC   a checkout of https://github.com/jd28/rollnw (never vendored here). Only its particle
#              system (lib/nw/render/particle_compile.cpp, particle_system.cpp) and its benchmark
#              file are compiled, at -O3 -march=native, with its own glm, xsimd and Tracy headers
#              (Tracy off), linked with Debian's Google Benchmark.
# MOTE_BUILD   Mote's build folder holding bench/mote_bench_runtime and mote_bench_renderer
#              (default build/release, built here with the release preset when missing).
# ROUNDS       alternating rounds, each side once a round (default 5); the median is reported.
# MIN_TIME     Google Benchmark's --benchmark_min_time per case, in seconds (default 0.2).
# COMPARE_OUT  where the binaries and JSON go (default out/compare).
#
# rollnw reports the particle count it was asked for as its items, but caps an emitter at 4,096;
# its binary here also prints (--count) what each case really holds, and both sides are divided by
# real live particles (spawned ones for the burst). Both restore their fixture under
# PauseTiming before each timed tick, so both carry its overhead (~1.7 µs a tick on a Zen 5).
set -euo pipefail

: "${ROLLNW_SRC:?set ROLLNW_SRC to a checkout of https://github.com/jd28/rollnw}"
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=${COMPARE_OUT:-$root/out/compare}
rounds=${ROUNDS:-5}
min_time=${MIN_TIME:-0.2}
mote_build=${MOTE_BUILD:-$root/build/release}
cxx=${CXX:-g++}

for file in lib/nw/render/particle_compile.cpp lib/nw/render/particle_system.cpp \
            benchmarks/particles.cpp; do
  [[ -f $ROLLNW_SRC/$file ]] || { echo "rollnw.sh: $ROLLNW_SRC/$file: not found" >&2; exit 1; }
done
xsimd=$(ls -d "$ROLLNW_SRC"/external/xsimd-*/include 2>/dev/null | head -n 1)
tracy=$(ls -d "$ROLLNW_SRC"/external/tracy-*/public 2>/dev/null | head -n 1)
[[ -n $xsimd && -n $tracy ]] || {
  echo "rollnw.sh: $ROLLNW_SRC/external lacks xsimd-*/include or tracy-*/public" >&2
  exit 1
}

mkdir -p "$out/obj"
flags=(-std=c++20 -O3 -march=native -DNDEBUG -w -I"$ROLLNW_SRC" -I"$ROLLNW_SRC/lib"
       -isystem "$ROLLNW_SRC/external" -isystem "$xsimd" -isystem "$tracy")
echo "rollnw.sh: building rollnw's particle benchmark ($(git -C "$ROLLNW_SRC" rev-parse --short HEAD 2>/dev/null || echo 'not a git checkout'))"
"$cxx" "${flags[@]}" -c "$ROLLNW_SRC/lib/nw/render/particle_compile.cpp" -o "$out/obj/particle_compile.o"
"$cxx" "${flags[@]}" -c "$ROLLNW_SRC/lib/nw/render/particle_system.cpp" -o "$out/obj/particle_system.o"
"$cxx" "${flags[@]}" -c "$root/bench/compare/rollnw_particles_main.cpp" -o "$out/obj/main.o"
"$cxx" "$out/obj/main.o" "$out/obj/particle_compile.o" "$out/obj/particle_system.o" \
  -o "$out/rollnw_particles" -lbenchmark -lpthread

if [[ ! -x $mote_build/bench/mote_bench_runtime || ! -x $mote_build/bench/mote_bench_renderer ]]; then
  echo "rollnw.sh: building Mote's runtime and renderer benchmarks (release preset)"
  (cd "$root" && cmake --preset release >/dev/null &&
    cmake --build --preset release --target mote_bench_runtime mote_bench_renderer)
  mote_build=$root/build/release
fi

"$out/rollnw_particles" --count > "$out/rollnw_counts.txt"
rollnw_filter='BM_particles_.*/(1024|10240)$'
mote_filter='^particles_'
for ((round = 1; round <= rounds; ++round)); do
  echo "rollnw.sh: round $round of $rounds"
  "$out/rollnw_particles" --benchmark_filter="$rollnw_filter" --benchmark_min_time="$min_time" \
    --benchmark_format=json > "$out/rollnw_$round.json" 2>/dev/null
  "$mote_build/bench/mote_bench_runtime" --benchmark_filter="$mote_filter" \
    --benchmark_min_time="$min_time" --benchmark_format=json > "$out/mote_$round.json" 2>/dev/null
  "$mote_build/bench/mote_bench_renderer" --benchmark_filter="$mote_filter" \
    --benchmark_min_time="$min_time" --benchmark_format=json > "$out/moter_$round.json" 2>/dev/null
done

python3 - "$out" "$rounds" <<'PY'
import json, statistics, subprocess, sys
out, rounds = sys.argv[1], int(sys.argv[2])
counts = {}
for line in open(f"{out}/rollnw_counts.txt"):
    name, live = line.split()
    counts[name] = int(live)
# rollnw case (its argument) -> Mote case holding the same real particles.
pairs = [
    ("particles_tick_single_emitter/1024", "particles_tick_single_emitter/1024"),
    ("particles_tick_single_emitter/10240", "particles_tick_single_emitter/4096"),
    ("particles_tick_mixed_emitters/1024", "particles_tick_mixed_emitters/1024"),
    ("particles_tick_mixed_emitters/10240", "particles_tick_mixed_emitters/10240"),
    ("particles_tick_high_churn/1024", "particles_tick_high_churn/1024"),
    ("particles_tick_high_churn/10240", "particles_tick_high_churn/4096"),
    ("particles_burst_spawn/1024", "particles_burst_spawn/1024"),
    ("particles_burst_spawn/10240", "particles_burst_spawn/4096"),
    ("particles_render_packets_single_emitter/1024", "particles_render_packets_single_emitter/1024"),
    ("particles_render_packets_single_emitter/10240", "particles_render_packets_single_emitter/4096"),
    ("particles_render_packets_mixed_emitters/1024", "particles_render_packets_mixed_emitters/1024"),
    ("particles_render_packets_mixed_emitters/10240", "particles_render_packets_mixed_emitters/10240"),
]
def per_particle(prefixes, name_of, live_of):
    runs = {}
    for r in range(1, rounds + 1):
        for b in (b for p in prefixes for b in json.load(open(f"{out}/{p}_{r}.json"))["benchmarks"]):
            name = name_of(b["name"])
            ns = b["real_time"] * {"ns": 1, "us": 1e3, "ms": 1e6}[b["time_unit"]]
            runs.setdefault(name, []).append(ns / live_of(name, b))
    return {k: statistics.median(v) for k, v in runs.items()}
rollnw = per_particle(["rollnw"], lambda n: n.removeprefix("BM_"), lambda n, b: counts[n])
mote = per_particle(["mote", "moter"], lambda n: n,
                    lambda n, b: b.get("live_particles", b.get("spawned_particles")))
cpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
model = next((l.split(":", 1)[1].strip() for l in cpu.splitlines() if l.startswith("Model name")), "?")
width = "AVX-512" if "avx512f" in cpu else "AVX2" if "avx2" in cpu else "SSE"
print(f"\n{model} ({width}), one thread, median of {rounds} alternating rounds, ns per real particle")
print(f"{'case':<40} {'particles':>9} {'rollnw':>8} {'Mote':>8} {'rollnw/Mote':>12}")
for theirs, ours in pairs:
    key = theirs
    if key not in rollnw or ours not in mote:
        continue
    print(f"{ours.split('/')[0]:<40} {counts[key]:>9} {rollnw[key]:>8.2f} {mote[ours]:>8.2f} "
          f"{rollnw[key] / mote[ours]:>11.1f}x")
PY
