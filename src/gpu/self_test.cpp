// SPDX-License-Identifier: MIT
// The device self-test: exact.glsl's operations on known answers (the host's correctly rounded IEEE
// results), with the device's own instructions and then with the emulation of those it got wrong.
// Exact mode needs every case right; the flags it ends with specialise every VM pipeline.
#include "self_test.h"

#include "context_impl.h"
#include "kernel.h"
#include "shaders.h"

#include <mote/core/counter_rng.h>

#include <fmt/format.h>

#include <array>
#include <bit>
#include <cmath>
#include <vector>

namespace mote::gpu {
namespace {

// The order of self_test.comp's results: float operations, then (fp64 builds only) the double
// operations of the newborns' spawn times (frame.glsl), each double result two words.
constexpr std::array<std::string_view, 18> kOps{"add",   "sub",  "mul",  "div",  "fma", "sqrt",
                                                "floor", "min",  "max",  "lt",   "le",  "eq",
                                                "dadd",  "dsub", "dmul", "ddiv", "dlt", "d2f"};
constexpr std::size_t kFloatOps = 12;
// Result words of each operation, and where they start.
constexpr std::uint32_t resultWords(std::size_t op) {
  return op >= kFloatOps && op < kFloatOps + 4 ? 2 : 1;
}
constexpr std::uint32_t kResultWords = 22;
constexpr std::uint32_t kAdd = 0;
constexpr std::uint32_t kSub = 1;
constexpr std::uint32_t kMul = 2;
constexpr std::uint32_t kDiv = 3;
constexpr std::uint32_t kFma = 4;
constexpr std::uint32_t kSqrt = 5;
constexpr std::uint32_t kRandomCases = 1u << 14;

float f(std::uint32_t bits) {
  return std::bit_cast<float>(bits);
}
std::uint32_t u(float v) {
  return std::bit_cast<std::uint32_t>(v);
}

// The values a device gets wrong first: zeros, subnormals, the ends of the normal range,
// infinities, NaN, and ordinary numbers beside them.
constexpr std::array<std::uint32_t, 22> kEdges{
    0x00000000u, 0x80000000u, 0x00000001u, 0x80000001u, 0x007fffffu, 0x807fffffu,
    0x00800000u, 0x80800000u, 0x3f800000u, 0xbf800000u, 0x3fc00000u, 0x40400000u,
    0x3eaaaaabu, 0x7f7fffffu, 0xff7fffffu, 0x7f800000u, 0xff800000u, 0x7fc00000u,
    0x1f800000u, 0x5f800000u, 0x00400000u, 0x34000000u};

std::vector<std::uint32_t> operands() {
  std::vector<std::uint32_t> out;
  for (const std::uint32_t a : kEdges)
    for (const std::uint32_t b : kEdges)
      for (const std::uint32_t c : {kEdges[0], kEdges[2], kEdges[8], kEdges[15], kEdges[17]})
        out.insert(out.end(), {a, b, c});
  // Random bit patterns, and random operands of nearby exponents, where fma's and division's
  // roundings are closest to a tie.
  for (std::uint32_t i = 0; i < kRandomCases; ++i) {
    const std::array<std::uint32_t, 4> r = counterRandom4(0x5e1f7e57u, 1, i);
    if (i % 2 == 0) {
      out.insert(out.end(), {r[0], r[1], r[2]});
    } else {
      const auto near = [](std::uint32_t bits) { return (bits & 0x807fffffu) | 0x3f000000u; };
      out.insert(out.end(), {near(r[0]), near(r[1]), near(r[2]) ^ (r[3] & 0x80000000u)});
    }
  }
  return out;
}

float isaMin(float a, float b) {
  return b < a ? b : a;
}
float isaMax(float a, float b) {
  return a < b ? b : a;
}

double d(std::uint32_t hi, std::uint32_t lo) {
  return std::bit_cast<double>(std::uint64_t{hi} << 32 | lo);
}

std::array<std::uint32_t, kResultWords> expected(std::uint32_t ab, std::uint32_t bb,
                                                 std::uint32_t cb) {
  const float a = f(ab);
  const float b = f(bb);
  const float c = f(cb);
  const double da = d(ab, bb);  // self_test.comp's doubles
  const double db = d(bb, cb);
  const auto words = [](double v) {
    const auto bits = std::bit_cast<std::uint64_t>(v);
    return std::array<std::uint32_t, 2>{static_cast<std::uint32_t>(bits),
                                        static_cast<std::uint32_t>(bits >> 32)};
  };
  const auto sum = words(da + db);
  const auto difference = words(da - db);
  const auto product = words(da * db);
  const auto quotient = words(da / db);
  return {u(a + b),
          u(a - b),
          u(a * b),
          u(a / b),
          u(std::fma(a, b, c)),
          u(std::sqrt(a)),
          u(std::floor(a)),
          u(isaMin(a, b)),
          u(isaMax(a, b)),
          u(a < b ? 1.0f : 0.0f),
          u(a <= b ? 1.0f : 0.0f),
          u(a == b ? 1.0f : 0.0f),
          sum[0],
          sum[1],
          difference[0],
          difference[1],
          product[0],
          product[1],
          quotient[0],
          quotient[1],
          da < db ? 1u : 0u,
          u(static_cast<float>(da))};
}

// Operation `op`'s result at `got` against `want` (resultWords(op) words each).
bool same(std::size_t op, const std::uint32_t* got, const std::uint32_t* want) {
  // A NaN's payload is not part of the semantics.
  if (resultWords(op) == 2) {
    const auto nan = [](const std::uint32_t* v) {
      const std::uint32_t hi = v[1] & 0x7fffffffu;
      return hi > 0x7ff00000u || (hi == 0x7ff00000u && v[0] != 0);
    };
    return (got[0] == want[0] && got[1] == want[1]) || (nan(got) && nan(want));
  }
  const auto nan = [](std::uint32_t v) { return (v & 0x7fffffffu) > 0x7f800000u; };
  return *got == *want || (nan(*got) && nan(*want));
}

struct Tally {
  std::array<std::uint32_t, kOps.size()> wrong{};
  std::array<std::string, kOps.size()> first;
};

// Runs the self-test shader with `flags`; counts the wrong cases per operation.
Result<Tally> run(Context& context, bool fp64, std::uint32_t flags,
                  const std::vector<std::uint32_t>& in, const Buffer& operandBuffer,
                  const Buffer& resultBuffer) {
  Result<Kernel*> kernel =
      context.impl().kernel(context, "self_test", selfTestShader().pick(fp64), 2, 4, flags);
  if (!kernel.ok()) return std::move(kernel).status();
  (*kernel)->bind({&operandBuffer, &resultBuffer});
  const auto cases = static_cast<std::uint32_t>(in.size() / 3);
  const std::uint32_t push[] = {cases};
  MOTE_RETURN_IF_ERROR(context.impl().submit(
      [&](VkCommandBuffer cmd) { (*kernel)->record(cmd, push, (cases + 63) / 64); }));
  std::vector<std::uint32_t> got(std::size_t{cases} * kResultWords);
  MOTE_RETURN_IF_ERROR(resultBuffer.download(got));
  Tally t;
  const std::size_t ops = fp64 ? kOps.size() : kFloatOps;  // the fast build has no doubles
  for (std::uint32_t i = 0; i < cases; ++i) {
    const auto want = expected(in[3 * i], in[3 * i + 1], in[3 * i + 2]);
    std::uint32_t at = 0;
    for (std::size_t op = 0; op < ops; at += resultWords(op), ++op) {
      const std::uint32_t* g = got.data() + std::size_t{i} * kResultWords + at;
      if (same(op, g, want.data() + at)) continue;
      if (t.wrong[op]++ == 0) {
        const bool wide = resultWords(op) == 2;
        t.first[op] = fmt::format(
            "a {:08x} b {:08x} c {:08x}: {:08x}{}, not {:08x}{}", in[3 * i], in[3 * i + 1],
            in[3 * i + 2], wide ? g[1] : g[0], wide ? fmt::format("{:08x}", g[0]) : "",
            wide ? want[at + 1] : want[at], wide ? fmt::format("{:08x}", want[at]) : "");
      }
    }
  }
  return t;
}

}  // namespace

const char* modeName(Mode mode) noexcept {
  return mode == Mode::Exact ? "exact" : "fast";
}

Result<SelfTest> runSelfTest(Context& context) {
  const DeviceInfo& d = context.device();
  const bool fp64 = hasFp64Shaders(d);
  const std::vector<std::uint32_t> in = operands();
  SelfTest t;
  t.cases = static_cast<std::uint32_t>(in.size() / 3);
  Result<Buffer> operandBuffer = Buffer::create(context, in.size() * 4, "the self-test's operands");
  if (!operandBuffer.ok()) return std::move(operandBuffer).status();
  MOTE_RETURN_IF_ERROR(operandBuffer->upload(in));
  Result<Buffer> resultBuffer =
      Buffer::create(context, std::uint64_t{t.cases} * kResultWords * 4, "the self-test's results");
  if (!resultBuffer.ok()) return std::move(resultBuffer).status();

  auto native = run(context, fp64, 0, in, *operandBuffer, *resultBuffer);
  if (!native.ok()) return std::move(native).status();
  for (std::size_t op = 0; op < (fp64 ? kOps.size() : kFloatOps); ++op)
    t.ops.push_back({kOps[op], native->wrong[op], native->wrong[op], false, native->first[op]});
  if (!fp64) {
    t.mode = Mode::Fast;
    t.reason = context.impl().desc.fastMode
                   ? std::string("fast mode asked for (ContextDesc::fastMode): fp64 not used")
                   : fmt::format(
                         "the device has no {} (shaderFloat64 and shaderInt64 are what the "
                         "emulation of inexact operations needs)",
                         !d.float64 ? "fp64" : "int64");
    return t;
  }
  // Emulate what the device's own instructions got wrong: fma, division and square root whole;
  // add, sub and mul (which Vulkan rounds correctly) where an operand or the result is zero,
  // subnormal, infinite or NaN — the cases a device may flush or guess.
  std::uint32_t flags = 0;
  if (native->wrong[kAdd] != 0 || native->wrong[kSub] != 0 || native->wrong[kMul] != 0)
    flags |= kGuardFlag;
  if (native->wrong[kFma] != 0) flags |= kEmulateFmaFlag;
  if (native->wrong[kDiv] != 0) flags |= kEmulateDivFlag;
  if (native->wrong[kSqrt] != 0) flags |= kEmulateSqrtFlag;
  auto exact = run(context, fp64, flags, in, *operandBuffer, *resultBuffer);
  if (!exact.ok()) return std::move(exact).status();
  std::string wrongOps;
  std::string emulated;
  for (std::size_t op = 0; op < kOps.size(); ++op) {
    SelfTestOp& o = t.ops[op];
    o.wrong = exact->wrong[op];
    o.firstWrong = exact->first[op];
    o.emulated = (op == kFma && (flags & kEmulateFmaFlag) != 0) ||
                 (op == kDiv && (flags & kEmulateDivFlag) != 0) ||
                 (op == kSqrt && (flags & kEmulateSqrtFlag) != 0);
    if (o.wrong != 0)
      wrongOps +=
          fmt::format("{}{} ({} of {})", wrongOps.empty() ? "" : ", ", o.name, o.wrong, t.cases);
    if (o.emulated) emulated += fmt::format("{}{}", emulated.empty() ? "" : ", ", o.name);
  }
  if (!wrongOps.empty()) {
    t.mode = Mode::Fast;
    t.reason = fmt::format("still wrong with fp64 emulation: {}", wrongOps);
    return t;
  }
  t.mode = Mode::Exact;
  t.flags = flags;
  const char* guard = (flags & kGuardFlag) != 0
                          ? "; add, sub and mul redone in fp64 at zeros, subnormals, infinities "
                            "and NaN"
                          : "";
  t.reason = emulated.empty() ? fmt::format("the device's own instructions pass{}", guard)
                              : fmt::format(
                                    "{} emulated in fp64 (the device's own instructions round "
                                    "differently){}",
                                    emulated, guard);
  return t;
}

}  // namespace mote::gpu
