// SPDX-License-Identifier: MIT
// The GPU VM against the reference executor, bit for bit (any NaN matching any NaN): every opcode
// at every legal width, with swizzled, immediate and in-place operands and special values (±0,
// ±inf, NaN, subnormals, huge) among the inputs; both register files; and the meta-test that the
// shader knows every opcode of MOTE_ISA_OPCODES by its number.
#include "gpu_test.h"
#include "support/opcode_instances.h"
#include "support/source_dir.h"

#include <mote/bytecode/isa.h>
#include <mote/bytecode/reference.h>
#include <mote/core/file.h>
#include <mote/gpu/vm_cases.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace mote {
namespace {

using namespace bytecode;
using test::GpuTest;

constexpr std::uint32_t kCases = 48;

struct SpawnLog {
  std::vector<gpu::VmSpawn> spawns;
  std::vector<gpu::VmReport> reports;
};

void recordReport(ReportKind kind, std::uint32_t tag, const std::array<float, 3>& at,
                  const std::array<float, 3>& velocity, std::uint32_t /*source*/, void* user) {
  static_cast<SpawnLog*>(user)->reports.push_back(
      {static_cast<std::uint32_t>(kind), tag, at, velocity});
}

void record(std::uint32_t target, std::uint32_t count, const std::array<float, 3>& at,
            const Inheritance& inherit, std::uint32_t /*source*/, void* user) {
  static_cast<SpawnLog*>(user)->spawns.push_back({target, count, at, inherit});
}

bool sameBits(float a, float b) {
  return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b) ||
         (std::isnan(a) && std::isnan(b));
}

// Every case of every instance of every opcode on the GPU and the reference; returns the instances.
std::size_t expectEveryOpcodeMatches(gpu::Context& context, gpu::RegisterFile file) {
  std::mt19937 rng(2027);
  std::size_t instances = 0;
  for (const OpInfo& info : kOpInfos) {
    for (const std::uint32_t width : test::widthsOf(info)) {
      for (const bool inPlace : {false, true}) {
        const Program program = test::instance(info, width, inPlace, rng);
        Result<VerifiedProgram> verified = verify(program);
        EXPECT_TRUE(verified.ok()) << info.mnemonic << "." << width;
        if (!verified.ok()) return instances;
        std::vector<gpu::VmCase> cases(kCases);
        for (std::uint32_t i = 0; i < kCases; ++i) {
          gpu::VmCase& c = cases[i];
          c.particle.resize(test::kInstanceWords);
          for (std::uint32_t w = 0; w < test::kInstanceWords; ++w)
            c.particle[w] = w < 12 ? test::randomInput(rng) : -7.0f;
          for (std::uint32_t b = 0; b < kBuiltinCount; ++b)
            c.builtins[b] = {0.25f * static_cast<float>(b + 1), -1.0f, 2.0f, 0.5f};
          c.builtins[static_cast<std::size_t>(Builtin::ParticleId)][0] =
              static_cast<float>(7 * i + 1);
          c.emitterWords = {0.5f, -1.5f, 2.5f, 4.0f};
          c.globals = {{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}, {13, 14, 15, 16}};
          c.seed = 0x9900000063ull + i % 3;
          c.randomCounter = 7 * i + 1 + (std::uint64_t{i % 2} << 33);
          c.tick = 5 + (std::uint64_t{i % 4} << 31);
        }
        Result<std::vector<gpu::VmCaseResult>> got =
            gpu::runCases(context, *verified, Section::Update, cases, file);
        EXPECT_TRUE(got.ok()) << got.status().toString();
        if (!got.ok()) return instances;
        ++instances;
        for (std::uint32_t i = 0; i < kCases; ++i) {
          const gpu::VmCase& c = cases[i];
          std::vector<float> particle = c.particle;
          SpawnLog log;
          ReferenceContext rc;
          rc.builtins = c.builtins;
          rc.emitterWords = c.emitterWords;
          rc.globals = c.globals;
          rc.seed = c.seed;
          rc.randomCounter = c.randomCounter;
          rc.tick = c.tick;
          rc.wind = &gpu::caseWind;
          rc.spawn = &record;
          rc.spawnUser = &log;
          rc.report = &recordReport;
          rc.reportUser = &log;
          const bool killed = runReference(*verified, Section::Update, particle, rc);
          const gpu::VmCaseResult& g = (*got)[i];
          const std::string where = std::string(info.mnemonic) + "." + std::to_string(width) +
                                    (inPlace ? " in place" : "") + " case " + std::to_string(i);
          EXPECT_EQ(g.killed, killed) << where;
          for (std::uint32_t w = 0; w < test::kInstanceWords; ++w) {
            EXPECT_TRUE(sameBits(g.particle[w], particle[w]))
                << where << " word " << w << ": gpu " << g.particle[w] << " (0x" << std::hex
                << std::bit_cast<std::uint32_t>(g.particle[w]) << ") reference " << particle[w]
                << " (0x" << std::bit_cast<std::uint32_t>(particle[w]) << std::dec << ")";
            if (!sameBits(g.particle[w], particle[w])) return instances;
          }
          EXPECT_EQ(g.spawnCount, log.spawns.size()) << where;
          for (std::size_t s = 0; s < std::min(g.spawns.size(), log.spawns.size()); ++s) {
            EXPECT_EQ(g.spawns[s].target, log.spawns[s].target) << where;
            EXPECT_EQ(g.spawns[s].count, log.spawns[s].count) << where;
            const Inheritance& gi = g.spawns[s].inherit;
            const Inheritance& ri = log.spawns[s].inherit;
            for (std::size_t k = 0; k < 3; ++k) {
              EXPECT_TRUE(sameBits(g.spawns[s].position[k], log.spawns[s].position[k])) << where;
              EXPECT_TRUE(sameBits(gi.velocity[k], ri.velocity[k])) << where;
            }
            EXPECT_TRUE(sameBits(gi.size, ri.size)) << where;
            for (std::size_t k = 0; k < 4; ++k)
              EXPECT_TRUE(sameBits(gi.color[k], ri.color[k])) << where;
            for (std::size_t k = 0; k < 3; ++k)
              EXPECT_TRUE(sameBits(gi.from[k], ri.from[k])) << where;
            EXPECT_EQ(gi.trail, ri.trail) << where;
          }
          EXPECT_EQ(g.reportCount, log.reports.size()) << where;
          for (std::size_t s = 0; s < std::min(g.reports.size(), log.reports.size()); ++s) {
            EXPECT_EQ(g.reports[s].kind, log.reports[s].kind) << where;
            EXPECT_EQ(g.reports[s].tag, log.reports[s].tag) << where;
            for (std::size_t k = 0; k < 3; ++k) {
              EXPECT_TRUE(sameBits(g.reports[s].position[k], log.reports[s].position[k])) << where;
              EXPECT_TRUE(sameBits(g.reports[s].velocity[k], log.reports[s].velocity[k])) << where;
            }
          }
        }
      }
    }
  }
  return instances;
}

class GpuVm : public GpuTest {};

TEST_F(GpuVm, EveryOpcodeMatchesTheReferenceBitForBit) {
  if (context()->selfTest().mode != gpu::Mode::Exact)
    GTEST_SKIP() << "the device runs in fast mode (" << context()->selfTest().reason
                 << "): no parity is promised";
  EXPECT_GT(expectEveryOpcodeMatches(*context(), gpu::RegisterFile::Auto), 250u);
}

TEST_F(GpuVm, TheWideRegisterFileMatchesToo) {
  if (context()->selfTest().mode != gpu::Mode::Exact)
    GTEST_SKIP() << "the device runs in fast mode: no parity is promised";
  EXPECT_GT(expectEveryOpcodeMatches(*context(), gpu::RegisterFile::Wide), 250u);
}

// The interpreter names every opcode by the number MOTE_ISA_OPCODES gives it
// ("const uint OP_<MNEMONIC> = <code>u;" in vm.glsl), and each is dispatched or elementwise.
TEST(GpuVmSource, KnowsEveryOpcodeByItsNumber) {
  Result<std::vector<std::uint8_t>> bytes =
      readFile(test::sourcePath("src/gpu/shaders/vm.glsl"), 1u << 20);
  ASSERT_TRUE(bytes.ok()) << bytes.status().toString();
  const std::string text(bytes->begin(), bytes->end());
  const std::string* source = &text;
  for (const OpInfo& info : kOpInfos) {
    std::string name(info.mnemonic);
    std::transform(name.begin(), name.end(), name.begin(),
                   [](char ch) { return static_cast<char>(std::toupper(ch)); });
    const std::string line =
        "const uint OP_" + name + " = " + std::to_string(static_cast<unsigned>(info.opcode)) + "u;";
    EXPECT_NE(source->find(line), std::string::npos) << "vm.glsl lacks: " << line;
    const bool dispatched = source->find("case OP_" + name + ":") != std::string::npos;
    EXPECT_TRUE(dispatched) << "vm.glsl has no case for " << info.mnemonic;
  }
}

}  // namespace
}  // namespace mote
