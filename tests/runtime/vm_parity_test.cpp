// SPDX-License-Identifier: MIT
// Parity: the batched VM and the reference executor agree bit for bit (any NaN matching any NaN)
// on every opcode, at every legal width, with swizzled, immediate and in-place operands, over
// batches that are full and partial, with special values (±0, ±inf, NaN, denormals) among the
// inputs — on every SIMD target this CPU has, and with stream operands (fields read in place,
// results written straight into streams) in the orders where they would be wrong.
#include "support/opcode_instances.h"
#include "vm_detail.h"

#include <mote/bytecode/assembler.h>
#include <mote/bytecode/reference.h>
#include <mote/bytecode/semantics.h>
#include <mote/runtime/vm.h>

#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <bit>
#include <cmath>
#include <limits>
#include <optional>
#include <random>
#include <string_view>
#include <utility>
#include <vector>

namespace mote {
namespace {

using namespace bytecode;
using test::instance;
using test::kInstanceWords;
using test::randomInput;
using test::widthsOf;

constexpr std::uint32_t kWords = kInstanceWords;
constexpr std::uint32_t kParticles = kBatchLanes + 44;  // one full batch and a partial one

struct SpawnRecord {
  std::uint32_t particle;
  std::uint32_t target;
  std::uint32_t count;
  std::array<float, 3> at;
  Inheritance inherit;
  bool operator==(const SpawnRecord&) const = default;
};

struct SpawnLog {
  std::uint32_t particle = 0;
  std::vector<SpawnRecord> records;
};

void record(std::uint32_t target, std::uint32_t count, const std::array<float, 3>& at,
            const Inheritance& inherit, std::uint32_t source, void* user) {
  auto* log = static_cast<SpawnLog*>(user);
  log->records.push_back({source, target, count, at, inherit});
}

std::array<float, 3> wind(const std::array<float, 3>& p, void*) {
  return {p[1] * 0.5f, -p[0], p[2] + 1.0f};
}

// A host world that hits every cast moving down, part-way and from inside when it starts below
// y = 0, so COLLIDE's result differs from particle to particle.
class Slope final : public CollisionProvider {
 public:
  void cast(std::span<const CollisionCast> casts, std::span<CollisionHit> hits) const override {
    for (std::size_t i = 0; i < casts.size(); ++i) {
      const CollisionCast& c = casts[i];
      hits[i] = {};
      if (!(c.to[1] < c.from[1])) continue;
      hits[i].hit = true;
      hits[i].normal = {0.6f, 0.8f, 0.0f};
      hits[i].distance = (c.from[1] - c.to[1]) * 0.25f + c.radius;
      hits[i].penetration = c.from[1] < 0.0f ? -c.from[1] : 0.0f;
    }
  }
};

// Runs every opcode instance through the VM (on whichever SIMD target is chosen now) and the
// reference; returns the number of cases.
std::size_t expectEveryOpcodeMatches() {
  std::mt19937 rng(2026);
  Result<BatchVm> created = BatchVm::create();
  EXPECT_TRUE(created.ok());
  BatchVm vm = std::move(created).takeValue();
  std::size_t cases = 0;
  for (const OpInfo& info : kOpInfos) {
    for (const std::uint32_t width : widthsOf(info)) {
      for (const bool inPlace : {false, true}) {
        Program program = instance(info, width, inPlace, rng);
        Result<VerifiedProgram> verified = verify(program);
        EXPECT_TRUE(verified.ok())
            << info.mnemonic << "." << width << ": " << verified.status().toString();
        if (!verified.ok()) return cases;
        const PreparedProgram prepared = PreparedProgram::prepare(*verified);
        ++cases;
        // Inputs, SoA for the VM and AoS for the reference.
        std::vector<std::vector<float>> soa(kWords, std::vector<float>(kParticles));
        for (std::uint32_t w = 0; w < kWords; ++w)
          for (std::uint32_t i = 0; i < kParticles; ++i)
            soa[w][i] = w < 12 ? randomInput(rng) : -7.0f;
        std::vector<float*> streams;
        for (auto& s : soa)
          streams.push_back(s.data());
        std::vector<std::uint32_t> ids(kParticles);
        for (std::uint32_t i = 0; i < kParticles; ++i)
          ids[i] = 7 * i + 1;
        const std::vector<float> emitter{0.5f, -1.5f, 2.5f, 4.0f};
        const std::vector<std::array<float, 4>> globals{
            {1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}, {13, 14, 15, 16}};
        SpawnLog vmLog;
        SpawnLog refLog;
        VmContext vc;
        ReferenceContext rc;
        for (std::uint32_t b = 0; b < kBuiltinCount; ++b) {
          vc.builtins[b] = rc.builtins[b] = {0.25f * static_cast<float>(b + 1), -1.0f, 2.0f, 0.5f};
        }
        vc.particleIds = ids.data();
        vc.emitterWords = rc.emitterWords = emitter;
        vc.globals = rc.globals = globals;
        vc.seed = rc.seed = 99;
        vc.tick = rc.tick = 5;
        vc.wind = rc.wind = &wind;
        const Slope slope;
        vc.collision = rc.collision = &slope;
        vc.spawn = rc.spawn = &record;
        vc.spawnUser = &vmLog;
        rc.spawnUser = &refLog;
        std::vector<std::vector<float>> aos(kParticles, std::vector<float>(kWords));
        for (std::uint32_t i = 0; i < kParticles; ++i)
          for (std::uint32_t w = 0; w < kWords; ++w)
            aos[i][w] = soa[w][i];
        std::vector<std::uint8_t> killed(kParticles, 0);
        vm.run(prepared, Section::Update, streams, 0, kParticles, vc, killed);
        // The VM reports spawns in particle order within a batch: attribute them for comparison.
        std::vector<std::uint8_t> refKilled(kParticles, 0);
        for (std::uint32_t i = 0; i < kParticles; ++i) {
          rc.randomCounter = ids[i];
          rc.builtins[static_cast<std::size_t>(Builtin::ParticleId)][0] =
              static_cast<float>(ids[i]);
          refLog.particle = i;
          refKilled[i] = runReference(*verified, Section::Update, aos[i], rc) ? 1 : 0;
        }
        for (std::uint32_t i = 0; i < kParticles; ++i) {
          EXPECT_EQ(killed[i], refKilled[i]) << info.mnemonic << "." << width << " particle " << i;
          if (killed[i] != refKilled[i]) return cases;
          for (std::uint32_t w = 0; w < kWords; ++w) {
            // Bit for bit, except which NaN: x86 propagates the first NaN operand, and the
            // vectoriser may commute an addition.
            if (std::isnan(soa[w][i]) && std::isnan(aos[i][w])) continue;
            EXPECT_EQ(std::bit_cast<std::uint32_t>(soa[w][i]),
                      std::bit_cast<std::uint32_t>(aos[i][w]))
                << info.mnemonic << "." << width << (inPlace ? " in place" : "") << " particle "
                << i << " word " << w << ": vm " << soa[w][i] << " reference " << aos[i][w];
            if (std::bit_cast<std::uint32_t>(soa[w][i]) != std::bit_cast<std::uint32_t>(aos[i][w]))
              return cases;
          }
        }
        EXPECT_EQ(vmLog.records.size(), refLog.records.size()) << info.mnemonic;
        if (vmLog.records.size() != refLog.records.size()) return cases;
        for (std::size_t k = 0; k < vmLog.records.size(); ++k) {
          EXPECT_EQ(vmLog.records[k].particle, refLog.records[k].particle) << "the source's id";
          EXPECT_EQ(vmLog.records[k].target, refLog.records[k].target);
          EXPECT_EQ(vmLog.records[k].count, refLog.records[k].count);
          using Bits3 = std::array<std::uint32_t, 3>;
          EXPECT_EQ(std::bit_cast<Bits3>(vmLog.records[k].at),
                    std::bit_cast<Bits3>(refLog.records[k].at));
        }
      }
    }
  }
  return cases;
}

TEST(VmParity, EveryOpcodeMatchesTheReferenceBitForBit) {
  EXPECT_GT(expectEveryOpcodeMatches(), 300u);
}

// The same on each SIMD target the CPU supports (SSE4, AVX2, AVX-512 where present) and the
// scalar one, forced through Highway's dispatch.
TEST(VmParity, EveryOpcodeMatchesOnEverySimdTarget) {
  std::vector<std::int64_t> targets = hwy::SupportedAndGeneratedTargets();
  for (const std::int64_t target : targets) {
    SCOPED_TRACE(hwy::TargetName(target));
    hwy::SetSupportedTargetsForTest(target);
    EXPECT_GT(expectEveryOpcodeMatches(), 300u);
  }
  hwy::SetSupportedTargetsForTest(0);
  EXPECT_FALSE(targets.empty());
}

// `text` assembled, verified and prepared; none (the failure recorded) when it does not assemble or
// does not verify.
std::optional<PreparedProgram> prepareText(std::string_view text) {
  Result<Program> assembled = assemble(text);
  EXPECT_TRUE(assembled.ok()) << assembled.status().toString();
  if (!assembled.ok()) return std::nullopt;
  Result<VerifiedProgram> verified = verify(*assembled);
  EXPECT_TRUE(verified.ok()) << verified.status().toString();
  if (!verified.ok()) return std::nullopt;
  return PreparedProgram::prepare(*verified);
}

// UPDATE of `prepared` on the VM over particles [first, size) of `soa` (one vector per word), with
// no context.
void runUpdateRange(const PreparedProgram& prepared, std::vector<std::vector<float>>& soa,
                    std::uint32_t first) {
  std::vector<float*> streams;
  for (auto& word : soa)
    streams.push_back(word.data());
  Result<BatchVm> vm = BatchVm::create();
  const auto count = static_cast<std::uint32_t>(soa[0].size());
  std::vector<std::uint8_t> killed(count, 0);
  vm->run(prepared, Section::Update, streams, first, count - first, VmContext{}, killed);
}

// The same over all kParticles particles.
void runUpdate(const PreparedProgram& prepared, std::vector<std::vector<float>>& soa) {
  runUpdateRange(prepared, soa, 0);
}

// Runs `text` (UPDATE) over kParticles random particles in the VM and the reference and expects
// identical words. Returns the prepared program for a look at its stream operands.
PreparedProgram expectSameAsReference(std::string_view text) {
  Result<Program> assembled = assemble(text);
  EXPECT_TRUE(assembled.ok()) << assembled.status().toString();
  Result<VerifiedProgram> verified = verify(*assembled);
  EXPECT_TRUE(verified.ok()) << verified.status().toString();
  const PreparedProgram prepared = PreparedProgram::prepare(*verified);
  const std::uint32_t words = assembled->particleWords;
  std::mt19937 rng(7);
  std::vector<std::vector<float>> soa(words, std::vector<float>(kParticles));
  for (auto& word : soa)
    for (float& v : word)
      v = std::uniform_real_distribution<float>(-4.0f, 4.0f)(rng);
  std::vector<std::vector<float>> aos(kParticles, std::vector<float>(words));
  for (std::uint32_t i = 0; i < kParticles; ++i)
    for (std::uint32_t w = 0; w < words; ++w)
      aos[i][w] = soa[w][i];
  runUpdate(prepared, soa);
  for (std::uint32_t i = 0; i < kParticles; ++i) {
    runReference(*verified, Section::Update, aos[i], ReferenceContext{});
    for (std::uint32_t w = 0; w < words; ++w) {
      EXPECT_EQ(std::bit_cast<std::uint32_t>(soa[w][i]), std::bit_cast<std::uint32_t>(aos[i][w]))
          << "particle " << i << " word " << w << "\n"
          << text;
      if (soa[w][i] != aos[i][w]) return prepared;
    }
  }
  return prepared;
}

// Every random opcode over many particles, bit for bit against the reference: ids across the
// u32 range (≥ 2^24, the top bit set, repeats), a seed and a tick whose high words are non-zero
// (the key's and the stream's upper halves), draws in both sections, full and partial batches,
// a range starting mid-array, and no ids at all — on every SIMD target.
constexpr std::string_view kRandomOps = R"(.registers 32
.particle 48
.init
  ldf.4 r0, #0
  ldf.4 r4, #4
  rand.1 r8, #0
  rand.2 r9, #1
  rand.3 r11, #2
  rand.4 r14, #65535
  stf.4 #8, r8
  stf.4 #12, r12
  stf.2 #16, r16
  randr.1 r8, #3, r0, r4
  randr.2 r9, #4, r0.yx, 2.5
  randr.3 r11, #5, -1, r4.zzw
  randr.4 r14, #6, r0.wzyx, r4
  randr.4 r0, #7, r0, r0.yzwx
  stf.4 #18, r8
  stf.4 #22, r12
  stf.2 #26, r16
  stf.4 #28, r0
  randdir.3 r8, #8
  randball.3 r11, #9
  randdisk.3 r14, #10
  randcone.3 r17, #11, r4.y
  randcone.3 r4, #12, r4.z
  stf.3 #32, r8
  stf.3 #35, r11
  stf.3 #38, r14
  stf.3 #41, r17
  stf.3 #44, r4
)";

std::size_t expectRandomOpsMatch() {
  Result<Program> assembled = assemble(kRandomOps);
  EXPECT_TRUE(assembled.ok()) << assembled.status().toString();
  if (!assembled.ok()) return 0;
  // The same code as UPDATE: its draws come from other streams.
  assembled->update = assembled->init;
  Result<VerifiedProgram> verified = verify(*assembled);
  EXPECT_TRUE(verified.ok()) << verified.status().toString();
  if (!verified.ok()) return 0;
  const PreparedProgram prepared = PreparedProgram::prepare(*verified);
  const std::uint32_t words = assembled->particleWords;
  constexpr std::uint32_t kCount = 1500;  // five full batches and a partial one
  std::mt19937 rng(314);
  std::vector<std::uint32_t> ids(kCount);
  for (std::uint32_t i = 0; i < kCount; ++i) {
    switch (i % 5) {
      case 0:
        ids[i] = i;
        break;
      case 1:
        ids[i] = (1u << 24) + i;
        break;
      case 2:
        ids[i] = 0xFFFFFFFFu - i;
        break;
      default:
        ids[i] = static_cast<std::uint32_t>(rng());
    }
  }
  ids[7] = ids[3];  // two particles with one id draw the same numbers
  Result<BatchVm> vm = BatchVm::create();
  EXPECT_TRUE(vm.ok());
  std::size_t cases = 0;
  for (const Section section : {Section::Init, Section::Update}) {
    for (const bool withIds : {true, false}) {
      for (const std::uint32_t first : {0u, 37u}) {
        std::vector<std::vector<float>> soa(words, std::vector<float>(kCount, -7.0f));
        for (std::uint32_t w = 0; w < 8; ++w)
          for (float& v : soa[w])
            v = w == 5 || w == 6 ? std::uniform_real_distribution<float>(0.0f, 3.0f)(rng)
                                 : randomInput(rng);
        std::vector<std::vector<float>> aos(kCount, std::vector<float>(words));
        for (std::uint32_t i = 0; i < kCount; ++i)
          for (std::uint32_t w = 0; w < words; ++w)
            aos[i][w] = soa[w][i];
        std::vector<float*> streams;
        for (auto& word : soa)
          streams.push_back(word.data());
        VmContext vc;
        ReferenceContext rc;
        vc.particleIds = withIds ? ids.data() : nullptr;
        vc.seed = rc.seed = 0xF00DFACE12345678ull;
        vc.tick = rc.tick = (std::uint64_t{1} << 40) + 12345;  // stream high word non-zero
        std::vector<std::uint8_t> killed(kCount, 0);
        vm->run(prepared, section, streams, first, kCount - first, vc, killed);
        ++cases;
        for (std::uint32_t i = first; i < kCount; ++i) {
          rc.randomCounter = withIds ? ids[i] : 0;
          runReference(*verified, section, aos[i], rc);
          for (std::uint32_t w = 0; w < words; ++w) {
            if (std::isnan(soa[w][i]) && std::isnan(aos[i][w])) continue;
            EXPECT_EQ(std::bit_cast<std::uint32_t>(soa[w][i]),
                      std::bit_cast<std::uint32_t>(aos[i][w]))
                << (section == Section::Init ? "init" : "update") << (withIds ? "" : " no ids")
                << " first " << first << " particle " << i << " word " << w << ": vm " << soa[w][i]
                << " reference " << aos[i][w];
            if (std::bit_cast<std::uint32_t>(soa[w][i]) != std::bit_cast<std::uint32_t>(aos[i][w]))
              return cases;
          }
        }
      }
    }
  }
  return cases;
}

TEST(VmParity, RandomOpcodesMatchOverManyParticlesOnEverySimdTarget) {
  std::vector<std::int64_t> targets = hwy::SupportedAndGeneratedTargets();
  for (const std::int64_t target : targets) {
    SCOPED_TRACE(hwy::TargetName(target));
    hwy::SetSupportedTargetsForTest(target);
    EXPECT_EQ(expectRandomOpsMatch(), 8u);
  }
  hwy::SetSupportedTargetsForTest(0);
  EXPECT_EQ(expectRandomOpsMatch(), 8u);
  EXPECT_FALSE(targets.empty());
}

// CROSS, QUAT_MUL and QUAT_ROTATE on sources that hold one value for the whole batch (builtins,
// constants, immediates, chains of them) are computed once and broadcast: bit for bit what the
// reference computes per particle, with awkward values (a non-unit rotation, -0, a zero
// quaternion, inf), beside the same ops on a per-particle builtin and on fields — full and
// partial batches, on every SIMD target.
constexpr std::string_view kUniformOps = R"(.registers 24
.particle 30
.const 0.5 -0 3 -2
.const 0 0 0 0
.const 1e30 inf -1 0.25
.init
  ldb.4 r0, #6
  ldb.3 r4, #3
  ldc.4 r8, #0
  qrot.3 r12, r0, 0
  qrot.3 r15, r0, r8
  stf.3 #0, r12
  stf.3 #3, r15
  qmul.4 r12, r0, r8
  qmul.4 r16, r12, r0.wzyx
  stf.4 #6, r12
  stf.4 #10, r16
  ldc.4 r12, #1
  qrot.3 r16, r12, r8
  cross.3 r19, r8, r0
  stf.3 #14, r16
  stf.3 #17, r19
  qrot.3 r12, r0, r4
  ldc.4 r16, #2
  cross.3 r19, r16, r4
  stf.3 #20, r12
  stf.3 #23, r19
  ldf.4 r12, #26
  qmul.4 r12, r12, r0
  stf.4 #26, r12
)";

// Runs `text`'s `section` in the VM over the particles of `soa` (word by word) with `vc`, and in
// the reference particle by particle, each per-particle builtin of `vc` giving that particle's
// value; compares every word bit for bit. Returns 1 when every word matches.
std::size_t expectRunMatchesReference(std::string_view text, Section section,
                                      std::vector<std::vector<float>> soa, const VmContext& vc) {
  Result<Program> assembled = assemble(text);
  EXPECT_TRUE(assembled.ok()) << assembled.status().toString();
  if (!assembled.ok()) return 0;
  Result<VerifiedProgram> verified = verify(*assembled);
  EXPECT_TRUE(verified.ok()) << verified.status().toString();
  if (!verified.ok()) return 0;
  const PreparedProgram prepared = PreparedProgram::prepare(*verified);
  const std::uint32_t words = assembled->particleWords;
  EXPECT_EQ(soa.size(), words);
  if (soa.size() != words) return 0;
  const auto count = static_cast<std::uint32_t>(soa[0].size());
  std::vector<float*> streams;
  for (auto& word : soa)
    streams.push_back(word.data());
  std::vector<std::vector<float>> aos(count, std::vector<float>(words));
  for (std::uint32_t i = 0; i < count; ++i)
    for (std::uint32_t w = 0; w < words; ++w)
      aos[i][w] = soa[w][i];
  std::vector<std::uint8_t> killed(count, 0);
  Result<BatchVm> vm = BatchVm::create();
  EXPECT_TRUE(vm.ok());
  vm->run(prepared, section, streams, 0, count, vc, killed);
  for (std::uint32_t i = 0; i < count; ++i) {
    ReferenceContext rc;
    rc.builtins = vc.builtins;
    for (std::size_t b = 0; b < kBuiltinCount; ++b)
      for (std::size_t c = 0; c < 4; ++c)
        if (vc.laneBuiltins[b][c] != nullptr) rc.builtins[b][c] = vc.laneBuiltins[b][c][i];
    runReference(*verified, section, aos[i], rc);
    for (std::uint32_t w = 0; w < words; ++w) {
      if (std::isnan(soa[w][i]) && std::isnan(aos[i][w])) continue;
      EXPECT_EQ(std::bit_cast<std::uint32_t>(soa[w][i]), std::bit_cast<std::uint32_t>(aos[i][w]))
          << "particle " << i << " word " << w << ": vm " << soa[w][i] << " reference "
          << aos[i][w];
      if (std::bit_cast<std::uint32_t>(soa[w][i]) != std::bit_cast<std::uint32_t>(aos[i][w]))
        return 0;
    }
  }
  return 1;
}

std::size_t expectUniformOpsMatch(bool perParticlePosition) {
  constexpr std::uint32_t kCount = 300;
  std::mt19937 rng(271);
  std::vector<std::vector<float>> soa(30, std::vector<float>(kCount, 0.0f));
  for (std::uint32_t w = 26; w < 30; ++w)
    for (float& v : soa[w])
      v = randomInput(rng);
  std::vector<std::vector<float>> position(3, std::vector<float>(kCount));
  for (auto& lane : position)
    for (float& v : lane)
      v = randomInput(rng);
  VmContext vc;
  vc.builtins[static_cast<std::size_t>(Builtin::EmitterRotation)] = {0.3f, -0.0f, 1.5f, 0.7f};
  vc.builtins[static_cast<std::size_t>(Builtin::EmitterPosition)] = {1.0f, -2.0f, 0.5f, 0.0f};
  if (perParticlePosition) {
    for (std::uint32_t c = 0; c < 3; ++c)
      vc.laneBuiltins[static_cast<std::size_t>(Builtin::EmitterPosition)][c] = position[c].data();
  }
  return expectRunMatchesReference(kUniformOps, Section::Init, std::move(soa), vc);
}

// Runs check() once with each SIMD target the build has and the CPU runs, then restores the
// best one.
template <class Check>
void onEverySimdTarget(Check check) {
  const std::vector<std::int64_t> targets = hwy::SupportedAndGeneratedTargets();
  for (const std::int64_t target : targets) {
    SCOPED_TRACE(hwy::TargetName(target));
    hwy::SetSupportedTargetsForTest(target);
    check();
  }
  hwy::SetSupportedTargetsForTest(0);
  EXPECT_FALSE(targets.empty());
}

// sin and cos (semantics.h's sinCos in double vectors) for angles of every kind: every exponent,
// the floats nearest multiples of π/2, both sides of the reduction limit, huge, ±0, ±inf, NaN;
// from a stream and in place, over full and partial batches and vectors — on every SIMD target,
// bit for bit against the scalar formula.
constexpr std::string_view kTrigOps = R"(.registers 8
.particle 4
.update
  ldf.1 r0, #0
  sin.1 r1, r0
  cos.1 r2, r0
  stf.1 #1, r1
  stf.1 #2, r2
  sin.1 r0, r0
  cos.1 r0, r0
  stf.1 #3, r0
)";

TEST(VmParity, SinAndCosMatchTheScalarFormulaForEveryKindOfAngleOnEverySimdTarget) {
  const std::optional<PreparedProgram> program = prepareText(kTrigOps);
  ASSERT_TRUE(program.has_value());
  const PreparedProgram& prepared = *program;
  constexpr std::uint32_t kCount = 2 * kBatchLanes + 13;
  std::mt19937 rng(99);
  std::vector<float> angles(kCount);
  const float limit = semantics::trig::kReduceLimit;
  for (std::uint32_t i = 0; i < kCount; ++i) {
    switch (i % 6) {
      case 0:  // any bit pattern: every exponent, and now and then inf or NaN
        angles[i] = std::bit_cast<float>(static_cast<std::uint32_t>(rng()));
        break;
      case 1:
        angles[i] = static_cast<float>(static_cast<double>(rng() % 700000) * 1.5707963267948966);
        break;
      case 2:
        angles[i] = std::nextafter(limit, rng() % 2 == 0 ? 0.0f : 2.0f * limit);
        break;
      default:
        angles[i] = std::uniform_real_distribution<float>(-10.0f, 10.0f)(rng);
    }
  }
  angles[5] = -0.0f;
  angles[11] = std::numeric_limits<float>::infinity();
  angles[17] = -std::numeric_limits<float>::quiet_NaN();
  angles[23] = 3.4e38f;
  angles[29] = -limit;
  onEverySimdTarget([&] {
    for (const std::uint32_t first : {0u, 5u}) {
      std::vector<std::vector<float>> soa(4, std::vector<float>(kCount, -7.0f));
      soa[0] = angles;
      runUpdateRange(prepared, soa, first);
      for (std::uint32_t i = first; i < kCount; ++i) {
        const semantics::SinCos want = semantics::sinCos(angles[i]);
        const float wantCosOfSin = semantics::cosine(want.sin);
        const auto same = [](float a, float b) {
          return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b) ||
                 (std::isnan(a) && std::isnan(b));
        };
        ASSERT_TRUE(same(soa[1][i], want.sin)) << std::hexfloat << angles[i] << " -> " << soa[1][i];
        ASSERT_TRUE(same(soa[2][i], want.cos)) << std::hexfloat << angles[i] << " -> " << soa[2][i];
        ASSERT_TRUE(same(soa[3][i], wantCosOfSin)) << std::hexfloat << angles[i];
      }
    }
  });
}

// NaN in every operand position of the ops whose NaN results the ISA states (isa.h's semantics,
// docs/isa.md "Accuracy"): min, max, clamp, sat, smooth, the compares, sel, exp, log and pow,
// over every triple of nine operands (quiet NaNs of both signs and another payload, ±0, ±inf,
// numbers) — the reference against the stated rule, and the VM on every SIMD target against the
// reference (any NaN matching any NaN: the payload is not part of the semantics).
constexpr std::string_view kNanOps = R"(.registers 8
.particle 16
.update
  ldf.1 r0, #0
  ldf.1 r1, #1
  ldf.1 r2, #2
  min.1 r3, r0, r1
  stf.1 #3, r3
  max.1 r3, r0, r1
  stf.1 #4, r3
  clamp.1 r3, r0, r1, r2
  stf.1 #5, r3
  sat.1 r3, r0
  stf.1 #6, r3
  lt.1 r3, r0, r1
  stf.1 #7, r3
  le.1 r3, r0, r1
  stf.1 #8, r3
  eq.1 r3, r0, r1
  stf.1 #9, r3
  ne.1 r3, r0, r1
  stf.1 #10, r3
  sel.1 r3, r0, r1, r2
  stf.1 #11, r3
  smooth.1 r3, r0, r1, r2
  stf.1 #12, r3
  exp.1 r3, r0
  stf.1 #13, r3
  log.1 r3, r0
  stf.1 #14, r3
  pow.1 r3, r0, r1
  stf.1 #15, r3
)";

TEST(VmParity, NanOperandsGiveTheIsaResultsOnEverySimdTarget) {
  const std::optional<PreparedProgram> program = prepareText(kNanOps);
  ASSERT_TRUE(program.has_value());
  const Result<VerifiedProgram> verified = verify(assemble(kNanOps).value());
  ASSERT_TRUE(verified.ok());
  constexpr float kInf = std::numeric_limits<float>::infinity();
  const std::array<float, 9> values{std::numeric_limits<float>::quiet_NaN(),
                                    -std::numeric_limits<float>::quiet_NaN(),
                                    std::bit_cast<float>(0x7FC01234u),
                                    0.0f,
                                    -0.0f,
                                    1.0f,
                                    -2.5f,
                                    kInf,
                                    -kInf};
  constexpr std::uint32_t kCount = 9 * 9 * 9;
  std::vector<std::vector<float>> inputs(16, std::vector<float>(kCount, -7.0f));
  for (std::uint32_t i = 0; i < kCount; ++i) {
    inputs[0][i] = values[i % 9];
    inputs[1][i] = values[i / 9 % 9];
    inputs[2][i] = values[i / 81];
  }
  // The reference, and each result against the ISA's statement of it.
  std::vector<std::vector<float>> want(kCount, std::vector<float>(16));
  const auto same = [](float x, float y) {
    return std::bit_cast<std::uint32_t>(x) == std::bit_cast<std::uint32_t>(y) ||
           (std::isnan(x) && std::isnan(y));
  };
  for (std::uint32_t i = 0; i < kCount; ++i) {
    for (std::uint32_t w = 0; w < 16; ++w)
      want[i][w] = inputs[w][i];
    runReference(*verified, Section::Update, want[i], ReferenceContext{});
    const float a = inputs[0][i];
    const float b = inputs[1][i];
    const float c = inputs[2][i];
    const std::vector<float>& r = want[i];
    const bool anyNan = std::isnan(a) || std::isnan(b);
    SCOPED_TRACE(::testing::Message() << "a " << a << ", b " << b << ", c " << c);
    EXPECT_TRUE(same(r[3], std::isnan(a) ? a : (b < a ? b : a)));  // min: NaN a gives NaN, NaN b a
    EXPECT_TRUE(same(r[4], std::isnan(a) ? a : (a < b ? b : a)));  // max: the same
    // clamp: NaN a gives NaN; a NaN bound is ignored.
    const float lo = std::isnan(b) ? a : (a < b ? b : a);
    EXPECT_TRUE(same(r[5], std::isnan(a) ? a : (std::isnan(c) ? lo : (c < lo ? c : lo))));
    EXPECT_TRUE(std::isnan(a) ? std::isnan(r[6]) : !std::isnan(r[6]));  // sat
    EXPECT_EQ(r[7], anyNan ? 0.0f : (a < b ? 1.0f : 0.0f));
    EXPECT_EQ(r[8], anyNan ? 0.0f : (a <= b ? 1.0f : 0.0f));
    EXPECT_EQ(r[9], anyNan ? 0.0f : (a == b ? 1.0f : 0.0f));
    EXPECT_EQ(r[10], anyNan ? 1.0f : (a != b ? 1.0f : 0.0f));
    EXPECT_TRUE(same(r[11], std::isnan(a) ? b : (a != 0.0f ? b : c)));  // sel: NaN a picks b
    if (anyNan || std::isnan(c)) {
      EXPECT_TRUE(std::isnan(r[12]));  // smooth
    }
    EXPECT_EQ(std::isnan(r[13]), std::isnan(a));              // exp
    EXPECT_EQ(std::isnan(r[14]), std::isnan(a) || a < 0.0f);  // log
    EXPECT_TRUE(same(r[15], semantics::power(a, b)));         // pow
    if (b == 0.0f || a == 1.0f) {
      EXPECT_EQ(r[15], 1.0f);  // even for a NaN a or b
    }
  }
  onEverySimdTarget([&] {
    for (const std::uint32_t first : {0u, 3u}) {
      std::vector<std::vector<float>> soa = inputs;
      runUpdateRange(*program, soa, first);
      for (std::uint32_t i = first; i < kCount; ++i)
        for (std::uint32_t w = 3; w < 16; ++w)
          ASSERT_TRUE(same(soa[w][i], want[i][w])) << "word " << w << " particle " << i << ": vm "
                                                   << soa[w][i] << ", reference " << want[i][w];
    }
  });
}

TEST(VmParity, UniformQuaternionOpsMatchOnEverySimdTarget) {
  onEverySimdTarget([] {
    EXPECT_EQ(expectUniformOpsMatch(false), 1u);
    EXPECT_EQ(expectUniformOpsMatch(true), 1u);
  });
}

// The ops above are found uniform where they are, and only there.
TEST(VmParity, UniformOpsAreMarkedOnlyWhereEveryParticleSharesTheInputs) {
  const std::optional<PreparedProgram> program = prepareText(kUniformOps);
  ASSERT_TRUE(program.has_value());
  const PreparedProgram& prepared = *program;
  std::vector<std::uint32_t> marks;
  for (const PreparedProgram::Op& op : prepared.section(Section::Init)) {
    if (vm_detail::tracksUniformSources(op.op)) marks.push_back(op.uniformUnless);
  }
  constexpr std::uint32_t kRotation = 1u << static_cast<std::uint32_t>(Builtin::EmitterRotation);
  constexpr std::uint32_t kPosition = 1u << static_cast<std::uint32_t>(Builtin::EmitterPosition);
  EXPECT_EQ(marks, (std::vector<std::uint32_t>{kRotation, kRotation, kRotation, kRotation, 0,
                                               kRotation, kRotation | kPosition, kPosition,
                                               PreparedProgram::kVaries}));
}

// Values the same for every particle of a run (loads of builtins and constants, elementwise ops
// on them) get rows of their own and are computed in a run's first batch only: over three
// batches, with dt uniform and per particle, a register that holds such a value, is redefined
// from itself, and is overwritten by a per-particle value reads right in every batch.
constexpr std::string_view kHoistedOps = R"(.registers 8
.particle 6
.const 0.25 -3 7 1e-3
.update
  ldb.1 r0, #0
  ldc.2 r1, #0
  mul.1 r3, r0, r1
  add.1 r3, r3, 1.5
  ldf.1 r4, #0
  add.1 r5, r4, r3
  stf.1 #0, r5
  mov.1 r3, r4
  add.1 r6, r3, r1.y
  stf.1 #1, r6
  mul.2 r1, r1, r0.xx
  add.2 r6, r4.xx, r1
  stf.2 #2, r6
  ldf.1 r7, #4
  mul.1 r0, r7, r0
  stf.1 #4, r0
  stf.1 #5, r3
)";

std::size_t expectHoistedOpsMatch(bool perParticleDt) {
  constexpr std::uint32_t kCount = 2 * kBatchLanes + 452;
  std::mt19937 rng(314);
  std::vector<std::vector<float>> soa(6, std::vector<float>(kCount, 0.0f));
  for (auto& word : soa)
    for (float& v : word)
      v = randomInput(rng);
  std::vector<float> dt(kCount);
  for (float& v : dt)
    v = randomInput(rng);
  VmContext vc;
  vc.builtins[static_cast<std::size_t>(Builtin::Dt)] = {0.0625f, 0.0f, 0.0f, 0.0f};
  if (perParticleDt) vc.laneBuiltins[static_cast<std::size_t>(Builtin::Dt)][0] = dt.data();
  return expectRunMatchesReference(kHoistedOps, Section::Update, std::move(soa), vc);
}

TEST(VmParity, RunInvariantValuesSurviveTheBatchesOnEverySimdTarget) {
  onEverySimdTarget([] {
    EXPECT_EQ(expectHoistedOpsMatch(false), 1u);
    EXPECT_EQ(expectHoistedOpsMatch(true), 1u);
  });
}

// Which ops of kHoistedOps are computed once a run: the loads and the chain on them (unless dt
// is per particle), not the ops that read a particle's words.
TEST(VmParity, RunInvariantOpsAreTheOnesWhoseInputsEveryParticleShares) {
  const std::optional<PreparedProgram> program = prepareText(kHoistedOps);
  ASSERT_TRUE(program.has_value());
  const PreparedProgram& prepared = *program;
  std::vector<std::uint32_t> marks;
  for (const PreparedProgram::Op& op : prepared.section(Section::Update)) {
    if (op.op != Opcode::StoreField) marks.push_back(op.hoistUnless);
  }
  constexpr std::uint32_t kDt = 1u << static_cast<std::uint32_t>(Builtin::Dt);
  constexpr std::uint32_t kVaries = PreparedProgram::kVaries;
  // ldb, ldc, mul, add, ldf, add, mov, add, mul.2, add.2, ldf, mul
  EXPECT_EQ(marks, (std::vector<std::uint32_t>{kDt, 0, kDt, kDt, kVaries, kVaries, kVaries, kVaries,
                                               kDt, kVaries, kVaries, kVaries}));
  EXPECT_EQ(prepared.rowsNeeded(), 8u + 4u + 1u + 7u);  // registers, scratch, 1.5, hoisted rows
}

// A newborn's words that INIT loads before storing, or never stores, are the ones a caller must
// zero; the others INIT overwrites whatever they held.
TEST(VmPrepare, InitZeroWordsAreTheOnesInitCanSee) {
  Result<Program> assembled = assemble(R"(.registers 4
.particle 6
.init
  stf.1 #0, 1
  ldf.1 r0, #1
  stf.1 #1, r0
  ldf.2 r1, #0
  stf.1 #3, r1
  ldf.1 r3, #3
.update
  ldf.1 r0, #5
)");
  ASSERT_TRUE(assembled.ok()) << assembled.status().toString();
  Result<VerifiedProgram> verified = verify(*assembled);
  ASSERT_TRUE(verified.ok()) << verified.status().toString();
  const PreparedProgram prepared = PreparedProgram::prepare(*verified);
  EXPECT_EQ(prepared.initZeroWords(), (std::vector<std::uint32_t>{1, 2, 4, 5}));
}

// CURVE at and around its key times, where the vector search and the per-lane fix-up meet: keys
// whose linear reciprocal rounds short (0.85 · (1 / 0.85) < 1, so just past 0.85 the running sum
// still adds part of segment 0), a jump, and the key times ±1 ulp, NaN and ±inf among the inputs;
// widths 1 to 4, every interpolation, on every SIMD target, bit for bit against the reference.
std::size_t expectCurveMatchesAtKeyTimes(
    const std::vector<std::pair<float, std::array<float, 4>>>& keys) {
  std::vector<float> inputs = {std::numeric_limits<float>::quiet_NaN(),
                               std::numeric_limits<float>::infinity(),
                               -std::numeric_limits<float>::infinity(), -1.0f, 2.0f};
  for (const auto& key : keys) {
    float t = key.first;
    for (int k = 0; k < 4; ++k)
      t = std::nextafter(t, -1.0f);
    for (int k = 0; k < 9; ++k, t = std::nextafter(t, 2.0f))
      inputs.push_back(t);
  }
  std::size_t cases = 0;
  for (const std::uint32_t width : {1u, 2u, 3u, 4u}) {
    for (const CurveTableInterp interp :
         {CurveTableInterp::Linear, CurveTableInterp::Step, CurveTableInterp::Smooth}) {
      Program p;
      p.registerCount = 8;
      p.particleWords = 5;
      p.constants = semantics::curveTableOf(keys, width);
      Instruction load;
      load.op = Opcode::LoadField;
      Instruction curve;
      curve.op = Opcode::Curve;
      curve.width = width;
      curve.dst = 4;
      curve.kinds[1] = OperandKind::Reg;
      curve.src = {0, regWord(0), curveKeysWord(static_cast<std::uint32_t>(keys.size()), interp)};
      Instruction store;
      store.op = Opcode::StoreField;
      store.width = width;
      store.kinds[1] = OperandKind::Reg;
      store.src = {1, regWord(4), 0};
      for (const Instruction& in : {load, curve, store}) {
        const auto words = encode(in);
        p.update.insert(p.update.end(), words.begin(), words.end());
      }
      Result<VerifiedProgram> verified = verify(p);
      EXPECT_TRUE(verified.ok()) << verified.status().toString();
      if (!verified.ok()) return cases;
      const PreparedProgram prepared = PreparedProgram::prepare(*verified);
      std::vector<std::vector<float>> soa(5, std::vector<float>(kParticles, 0.0f));
      for (std::uint32_t i = 0; i < kParticles; ++i)
        soa[0][i] = inputs[i % inputs.size()];
      runUpdate(prepared, soa);
      for (std::uint32_t i = 0; i < kParticles; ++i) {
        std::vector<float> particle(5, 0.0f);
        particle[0] = soa[0][i];
        runReference(*verified, Section::Update, particle, ReferenceContext{});
        for (std::uint32_t c = 0; c < width; ++c) {
          EXPECT_EQ(std::bit_cast<std::uint32_t>(soa[1 + c][i]),
                    std::bit_cast<std::uint32_t>(particle[1 + c]))
              << "curve." << width << " interp " << static_cast<int>(interp) << " t " << particle[0]
              << " lane " << c;
        }
        ++cases;
      }
    }
  }
  return cases;
}

TEST(VmParity, CurveMatchesAtKeyTimesOnEverySimdTarget) {
  // 2 keys (no search), 6 (the VM's select search) and 40 (its gathers), with jumps and a short
  // reciprocal.
  const std::vector<std::pair<float, std::array<float, 4>>> two = {
      {0.15f, {0.0f, 1.0f, -2.0f, 0.5f}}, {0.85f, {3.0f, 0.1f, 7.0f, -0.0f}}};
  const std::vector<std::pair<float, std::array<float, 4>>> jump = {
      {0.5f, {1.0f, 2.0f, 3.0f, 4.0f}}, {0.5f, {-1.0f, 0.25f, 0.0f, 8.0f}}};
  const std::vector<std::pair<float, std::array<float, 4>>> few = {
      {0.0f, {0.0f, 1.0f, -2.0f, 0.5f}},  {0.85f, {3.0f, 0.1f, 7.0f, 1.0f}},
      {0.85f, {-1.0f, 0.2f, 0.3f, 0.0f}}, {0.9f, {2.5f, 1.0f / 3.0f, 5.0f, 0.25f}},
      {0.95f, {0.7f, 0.6f, 0.0f, -0.0f}}, {1.0f, {5.0f, 0.0f, 1.0f, 1.0f}}};
  std::vector<std::pair<float, std::array<float, 4>>> many = few;
  many.back().first = 0.96f;
  for (int k = 0; k < 34; ++k) {
    const float time = k % 5 == 3 ? many.back().first : 0.97f + 0.05f * static_cast<float>(k);
    const float v = static_cast<float>(k) * 0.37f - 3.0f;
    many.push_back({time, {v, -v, v * v, 1.0f / (v + 10.0f)}});
  }
  const std::vector<std::int64_t> targets = hwy::SupportedAndGeneratedTargets();
  for (const std::int64_t target : targets) {
    SCOPED_TRACE(hwy::TargetName(target));
    hwy::SetSupportedTargetsForTest(target);
    for (const auto& keys : {two, jump, few, many})
      EXPECT_EQ(expectCurveMatchesAtKeyTimes(keys), 12u * kParticles);
  }
  hwy::SetSupportedTargetsForTest(0);
  EXPECT_FALSE(targets.empty());
}

// CURL across lanes against the reference: points on and around lattice cells, negative and
// signed zeros, big coordinates on both sides of ±2^29 (past it the VM hands the vector to the
// reference's own code), infinities and NaN, mixed within one vector, on every SIMD target.
TEST(VmParity, CurlNoiseMatchesOnEverySimdTarget) {
  std::vector<float> values = {0.0f,
                               -0.0f,
                               1.0f,
                               -1.0f,
                               0.5f,
                               -2.75f,
                               3.999999f,
                               1e-30f,
                               -7.0078125f,
                               123.456f,
                               -98765.4f,
                               5.36870912e8f,
                               -5.36870912e8f,
                               5.3687088e8f,
                               -5.3687088e8f,
                               2.1e9f,
                               -3e12f,
                               1e30f,
                               std::numeric_limits<float>::infinity(),
                               -std::numeric_limits<float>::infinity(),
                               std::numeric_limits<float>::quiet_NaN()};
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> near(-40.0f, 40.0f);
  while (values.size() < 64)
    values.push_back(near(rng));
  const auto text = [](float scale) {
    return ".registers 8\n.particle 6\n.update\n  ldf.3 r0, #0\n  curl.3 r4, r0, " +
           std::to_string(scale) + "\n  stf.3 #3, r4\n";
  };
  for (const std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
    SCOPED_TRACE(hwy::TargetName(target));
    hwy::SetSupportedTargetsForTest(target);
    for (const float scale : {1.0f, 0.37f}) {
      Result<Program> assembled = assemble(text(scale));
      ASSERT_TRUE(assembled.ok()) << assembled.status().toString();
      Result<VerifiedProgram> verified = verify(*assembled);
      ASSERT_TRUE(verified.ok()) << verified.status().toString();
      const PreparedProgram prepared = PreparedProgram::prepare(*verified);
      std::vector<std::vector<float>> soa(6, std::vector<float>(kParticles, 0.0f));
      for (std::uint32_t i = 0; i < kParticles; ++i) {
        // Mostly ordinary points; every 37th particle takes an edge value on one axis.
        for (std::uint32_t c = 0; c < 3; ++c)
          soa[c][i] = values[(i * (c + 3) + c) % values.size()];
        if (i % 37 != 0) {
          for (std::uint32_t c = 0; c < 3; ++c)
            soa[c][i] = near(rng);
        }
      }
      const std::vector<std::vector<float>> before = soa;
      runUpdate(prepared, soa);
      std::size_t mismatches = 0;
      for (std::uint32_t i = 0; i < kParticles; ++i) {
        std::vector<float> particle(6, 0.0f);
        for (std::uint32_t c = 0; c < 3; ++c)
          particle[c] = before[c][i];
        runReference(*verified, Section::Update, particle, ReferenceContext{});
        for (std::uint32_t c = 3; c < 6; ++c) {
          if (std::bit_cast<std::uint32_t>(soa[c][i]) !=
                  std::bit_cast<std::uint32_t>(particle[c]) &&
              mismatches++ < 5) {
            ADD_FAILURE() << "particle " << i << " lane " << c - 3 << " at (" << before[0][i]
                          << ", " << before[1][i] << ", " << before[2][i] << ") scale " << scale
                          << ": VM " << soa[c][i] << ", reference " << particle[c];
          }
        }
      }
      EXPECT_EQ(mismatches, 0u);
    }
  }
  hwy::SetSupportedTargetsForTest(0);
}

TEST(VmStreamOperands, AreUsedWhereExact) {
  // A load read in place, an op writing its result straight into the stream, the store skipped.
  const PreparedProgram p = expectSameAsReference(R"(.registers 8
.particle 6
.update
  ldf.3 r0, #0
  ldf.3 r3, #3
  fma.3 r0, r3, 0.5, r0
  stf.3 #0, r0
)");
  const auto& ops = p.section(Section::Update);
  ASSERT_EQ(ops.size(), 4u);
  EXPECT_TRUE(ops[0].inPlace);
  EXPECT_TRUE(ops[1].inPlace);
  EXPECT_EQ(ops[2].directWord, 0u);
  EXPECT_TRUE(ops[3].inPlace);
}

TEST(VmStreamOperands, LetAnOpWhoseLanesReadItsOwnRowsWriteTheStream) {
  // Lanes 1 and 2 read r0.x, which lane 0 writes: through scratch rows if the result went to r0,
  // but written into the stream the rows keep their values until the last lane (the integration
  // step of every compiled effect: position += velocity · dt with dt in r0).
  const auto expectDirect = [](std::string_view text, std::size_t at, std::uint32_t word) {
    for (const std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
      SCOPED_TRACE(hwy::TargetName(target));
      hwy::SetSupportedTargetsForTest(target);
      const PreparedProgram p = expectSameAsReference(text);
      const auto& ops = p.section(Section::Update);
      EXPECT_EQ(ops[at].directWord, word);
      EXPECT_FALSE(ops[at].viaScratch);
      EXPECT_TRUE(ops[at + 1].inPlace);
    }
    hwy::SetSupportedTargetsForTest(0);
  };
  expectDirect(R"(.registers 8
.particle 6
.update
  ldf.1 r0, #5
  ldf.3 r2, #0
  ldf.3 r5, #3
  fma.3 r0, r5, r0.xxxx, r2
  stf.3 #0, r0
)",
               3, 0);
  // Lane 1 reads r0.y, lane 2 r0.x, both rows lane 0 and 1 write: kept in the rows until the end.
  expectDirect(R"(.registers 8
.particle 6
.update
  ldf.3 r0, #3
  add.3 r0, r0.xxy, r0
  stf.3 #0, r0
)",
               1, 0);
  // But a later lane must not read a stream word an earlier lane has written: with the op writing
  // word 0, lane 2's r0.x cannot read word 0 in place, so the load is a copy.
  const PreparedProgram p = expectSameAsReference(R"(.registers 8
.particle 4
.update
  ldf.3 r0, #0
  add.3 r0, r0.yzx, 1
  stf.3 #0, r0
)");
  const auto& ops = p.section(Section::Update);
  EXPECT_FALSE(ops[0].inPlace);
  EXPECT_EQ(ops[1].directWord, 0u);
  EXPECT_TRUE(ops[2].inPlace);
}

TEST(VmStreamOperands, KeepTheProgramsOrderOfReadsAndWrites) {
  // A row loaded from a word the program then overwrites keeps the old value.
  expectSameAsReference(R"(.registers 8
.particle 4
.update
  ldf.1 r0, #0
  stf.1 #0, 5
  add.1 r1, r0, 1
  stf.1 #1, r1
)");
  // A load between the op and its store reads the old value.
  expectSameAsReference(R"(.registers 8
.particle 4
.update
  ldf.1 r0, #0
  mul.1 r1, r0, 2
  ldf.1 r2, #0
  stf.1 #0, r1
  stf.1 #1, r2
)");
  // Swizzled lanes read words the op's earlier lanes would already have written.
  expectSameAsReference(R"(.registers 8
.particle 4
.update
  ldf.3 r0, #0
  add.3 r4, r0.zyx, 1
  stf.3 #0, r4
)");
  // A result written into a word, the word overwritten, then the result read again.
  expectSameAsReference(R"(.registers 8
.particle 4
.update
  ldf.1 r0, #1
  add.1 r1, r0, 1
  stf.1 #0, r1
  stf.1 #0, 7
  add.1 r3, r1, r1
  stf.1 #3, r3
)");
  // A row stored back where it came from, and one result stored twice.
  expectSameAsReference(R"(.registers 8
.particle 6
.update
  ldf.2 r0, #0
  stf.2 #0, r0
  stf.2 #2, r0
  mul.2 r2, r0.yx, r0
  stf.2 #4, r2
  stf.2 #0, r2
)");
}

}  // namespace
}  // namespace mote
