// SPDX-License-Identifier: MIT
// runCases: the GPU VM over independent cases (shaders/vm_ops.glsl lays out the buffers).
#include "context_impl.h"
#include "device_memory.h"
#include "kernel.h"
#include "self_test.h"
#include "shaders.h"

#include <mote/gpu/vm_cases.h>

#include <fmt/format.h>

#include <bit>

namespace mote::gpu {
namespace {

constexpr std::uint32_t kBuiltinWords = 4 * bytecode::kBuiltinCount;
constexpr std::uint32_t kFixedContextWords = 64;
constexpr std::uint32_t kSpawnWords = 17;  // vm_ops.glsl's record of a request
constexpr std::uint32_t kReportWords = 8;  // and of a report
constexpr std::uint32_t kReportsAt = 2 + kSpawnWords * kMaxCaseSpawns;
constexpr std::uint32_t kResultWords = kReportsAt + 1 + kReportWords * kMaxCaseSpawns;
constexpr std::uint32_t kWideSlots = 256;
constexpr std::uint32_t kGroup = 64;
static_assert(kBuiltinWords + 8 == kFixedContextWords, "vm_ops.glsl's fixed context");

std::uint32_t bits(float v) {
  return std::bit_cast<std::uint32_t>(v);
}
void putU64(std::vector<std::uint32_t>& out, std::uint64_t v) {
  out.push_back(static_cast<std::uint32_t>(v));
  out.push_back(static_cast<std::uint32_t>(v >> 32));
}

}  // namespace

std::array<float, 3> caseWind(const std::array<float, 3>& p, void* /*user*/) {
  return {p[0] * 0.5f, p[1] - 1.0f, 2.0f};
}

Result<std::vector<VmCaseResult>> runCases(Context& context,
                                           const bytecode::VerifiedProgram& verified,
                                           bytecode::Section section, std::span<const VmCase> cases,
                                           RegisterFile file) {
  const bytecode::Program& p = verified.program();
  const std::span<const std::uint32_t> code = p.section(section);
  const auto count = static_cast<std::uint32_t>(cases.size());
  if (count == 0) return std::vector<VmCaseResult>{};
  const std::uint32_t particleWords = std::max<std::uint32_t>(p.particleWords, 1);
  const std::uint32_t emitterWords = p.emitterWords;
  const auto globalCount = static_cast<std::uint32_t>(p.globals.size());
  const std::uint32_t contextWords = kFixedContextWords + emitterWords + 4 * globalCount;

  std::vector<std::uint32_t> programWords(code.begin(), code.end());
  const auto constantsAt = static_cast<std::uint32_t>(programWords.size());
  for (const auto& c : p.constants)
    for (const float v : c)
      programWords.push_back(bits(v));

  std::vector<std::uint32_t> particles;
  std::vector<std::uint32_t> contexts;
  particles.reserve(std::size_t{count} * particleWords);
  contexts.reserve(std::size_t{count} * contextWords);
  for (std::uint32_t i = 0; i < count; ++i) {
    const VmCase& c = cases[i];
    if (c.particle.size() < p.particleWords || c.emitterWords.size() < emitterWords ||
        c.globals.size() < globalCount)
      return Status(StatusCode::InvalidArgument,
                    fmt::format("runCases: case {} has {} particle words, {} emitter words and {} "
                                "globals; the program addresses {}, {} and {}",
                                i, c.particle.size(), c.emitterWords.size(), c.globals.size(),
                                p.particleWords, emitterWords, globalCount));
    for (std::uint32_t w = 0; w < particleWords; ++w)
      particles.push_back(w < c.particle.size() ? bits(c.particle[w]) : 0u);
    for (const auto& b : c.builtins)
      for (const float v : b)
        contexts.push_back(bits(v));
    putU64(contexts, c.seed);
    putU64(contexts, c.randomCounter);
    putU64(contexts, c.tick);
    contexts.push_back(section == bytecode::Section::Update ? 1u : 0u);
    contexts.push_back(0u);
    for (std::uint32_t w = 0; w < emitterWords; ++w)
      contexts.push_back(bits(c.emitterWords[w]));
    for (std::uint32_t g = 0; g < globalCount; ++g)
      for (const float v : c.globals[g])
        contexts.push_back(bits(v));
  }

  const bool wide = file == RegisterFile::Wide || p.registerCount > kFastRegisterSlots;
  const bool fp64 = hasFp64Shaders(context.device());
  Result<Kernel*> kernel =
      context.impl().kernel(context, wide ? "vm_ops_wide" : "vm_ops", vmOpsShader(wide).pick(fp64),
                            wide ? 5 : 4, 28, context.selfTest().flags);
  if (!kernel.ok()) return std::move(kernel).status();

  const auto buffer = [&](std::uint64_t words, const char* name) {
    return Buffer::create(context, words * 4, name);
  };
  Result<Buffer> programBuffer = buffer(programWords.size(), "runCases: the program");
  Result<Buffer> particleBuffer = buffer(particles.size(), "runCases: the particles");
  Result<Buffer> contextBuffer = buffer(contexts.size(), "runCases: the contexts");
  Result<Buffer> resultBuffer =
      buffer(std::uint64_t{count} * kResultWords, "runCases: the results");
  Result<Buffer> registerBuffer =
      buffer(wide ? std::uint64_t{count} * kWideSlots : 4, "runCases: the wide register file");
  for (const Result<Buffer>* b :
       {&programBuffer, &particleBuffer, &contextBuffer, &resultBuffer, &registerBuffer})
    if (!b->ok()) return b->status();
  MOTE_RETURN_IF_ERROR(programBuffer->upload(programWords));
  MOTE_RETURN_IF_ERROR(particleBuffer->upload(particles));
  MOTE_RETURN_IF_ERROR(contextBuffer->upload(contexts));
  if (wide) {
    (*kernel)->bind(
        {&*programBuffer, &*particleBuffer, &*contextBuffer, &*resultBuffer, &*registerBuffer});
  } else {
    (*kernel)->bind({&*programBuffer, &*particleBuffer, &*contextBuffer, &*resultBuffer});
  }
  const std::uint32_t push[] = {count,        static_cast<std::uint32_t>(code.size() / 4),
                                constantsAt,  particleWords,
                                contextWords, emitterWords,
                                count};
  MOTE_RETURN_IF_ERROR(context.impl().submit(
      [&](VkCommandBuffer cmd) { (*kernel)->record(cmd, push, (count + kGroup - 1) / kGroup); }));

  std::vector<std::uint32_t> resultWords(std::size_t{count} * kResultWords);
  MOTE_RETURN_IF_ERROR(particleBuffer->download(particles));
  MOTE_RETURN_IF_ERROR(resultBuffer->download(resultWords));
  std::vector<VmCaseResult> out(count);
  for (std::uint32_t i = 0; i < count; ++i) {
    VmCaseResult& r = out[i];
    r.particle.resize(p.particleWords);
    for (std::uint32_t w = 0; w < p.particleWords; ++w)
      r.particle[w] = std::bit_cast<float>(particles[std::size_t{i} * particleWords + w]);
    const std::uint32_t* at = resultWords.data() + std::size_t{i} * kResultWords;
    r.killed = at[0] != 0;
    r.spawnCount = at[1];
    for (std::uint32_t s = 0; s < std::min(r.spawnCount, kMaxCaseSpawns); ++s) {
      const std::uint32_t* q = at + 2 + kSpawnWords * s;
      const auto f = [&](std::uint32_t k) { return std::bit_cast<float>(q[k]); };
      r.spawns.push_back({q[0],
                          q[1],
                          {f(2), f(3), f(4)},
                          {{f(5), f(6), f(7)},
                           f(8),
                           {f(9), f(10), f(11), f(12)},
                           {f(13), f(14), f(15)},
                           q[16] != 0}});
    }
    r.reportCount = at[kReportsAt];
    for (std::uint32_t s = 0; s < std::min(r.reportCount, kMaxCaseSpawns); ++s) {
      const std::uint32_t* q = at + kReportsAt + 1 + kReportWords * s;
      const auto f = [&](std::uint32_t k) { return std::bit_cast<float>(q[k]); };
      r.reports.push_back({q[0], q[1], {f(2), f(3), f(4)}, {f(5), f(6), f(7)}});
    }
  }
  return out;
}

}  // namespace mote::gpu
