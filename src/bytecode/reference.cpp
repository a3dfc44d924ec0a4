// SPDX-License-Identifier: MIT
#include <mote/bytecode/reference.h>
#include <mote/bytecode/semantics.h>
#include <mote/core/assert.h>
#include <mote/core/counter_rng.h>

#include <bit>
#include <cmath>
#include <limits>

namespace mote::bytecode {
namespace {

using Lanes = std::array<float, 4>;

// --- gradient noise ------------------------------------------------------------------------------

std::uint32_t hash3(std::int32_t x, std::int32_t y, std::int32_t z) {
  std::uint32_t h = static_cast<std::uint32_t>(x) * 0x8DA6B343u ^
                    static_cast<std::uint32_t>(y) * 0xD8163841u ^
                    static_cast<std::uint32_t>(z) * 0xCB1AB31Fu;
  h ^= h >> 16;
  h *= 0x7FEB352Du;
  h ^= h >> 15;
  h *= 0x846CA68Bu;
  h ^= h >> 16;
  return h;
}

// Perlin's 12 edge gradients (dot with the offset).
float gradient(std::uint32_t h, float x, float y, float z) {
  switch (h % 12u) {
    case 0:
      return x + y;
    case 1:
      return -x + y;
    case 2:
      return x - y;
    case 3:
      return -x - y;
    case 4:
      return x + z;
    case 5:
      return -x + z;
    case 6:
      return x - z;
    case 7:
      return -x - z;
    case 8:
      return y + z;
    case 9:
      return -y + z;
    case 10:
      return y - z;
    default:
      return -y - z;
  }
}

float fade(float t) {
  return t * t * t * (t * (t * 6.0f - 15.0f) + 10.0f);
}

float lerpf(float a, float b, float t) {
  return a + (b - a) * t;
}

float noise(float x, float y, float z) {
  const float fx = std::floor(x);
  const float fy = std::floor(y);
  const float fz = std::floor(z);
  const std::int32_t ix = semantics::noiseCell(fx);
  const std::int32_t iy = semantics::noiseCell(fy);
  const std::int32_t iz = semantics::noiseCell(fz);
  const float dx = x - fx;
  const float dy = y - fy;
  const float dz = z - fz;
  const float u = fade(dx);
  const float v = fade(dy);
  const float w = fade(dz);
  const auto g = [&](std::int32_t ox, std::int32_t oy, std::int32_t oz) {
    return gradient(hash3(ix + ox, iy + oy, iz + oz), dx - static_cast<float>(ox),
                    dy - static_cast<float>(oy), dz - static_cast<float>(oz));
  };
  const float x00 = lerpf(g(0, 0, 0), g(1, 0, 0), u);
  const float x10 = lerpf(g(0, 1, 0), g(1, 1, 0), u);
  const float x01 = lerpf(g(0, 0, 1), g(1, 0, 1), u);
  const float x11 = lerpf(g(0, 1, 1), g(1, 1, 1), u);
  return lerpf(lerpf(x00, x10, v), lerpf(x01, x11, v), w);
}

}  // namespace

std::array<float, 3> curlNoise(const std::array<float, 3>& p) {
  if (!std::isfinite(p[0]) || !std::isfinite(p[1]) || !std::isfinite(p[2])) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    return {nan, nan, nan};  // no lattice cell for a non-finite point
  }
  constexpr float h = 1.0f / 128.0f;
  constexpr float inv2h = 64.0f;
  // ψ = (n(p), n(p + a), n(p + b))
  const auto psi = [&](int component, float x, float y, float z) {
    if (component == 0) return noise(x, y, z);
    if (component == 1) return noise(x + 31.4f, y, z);
    return noise(x, y + 27.1f, z);
  };
  const auto d = [&](int component, int axis) {
    const float ex = axis == 0 ? h : 0.0f;
    const float ey = axis == 1 ? h : 0.0f;
    const float ez = axis == 2 ? h : 0.0f;
    return (psi(component, p[0] + ex, p[1] + ey, p[2] + ez) -
            psi(component, p[0] - ex, p[1] - ey, p[2] - ez)) *
           inv2h;
  };
  return {d(2, 1) - d(1, 2), d(0, 2) - d(2, 0), d(1, 0) - d(0, 1)};
}

namespace {

using semantics::quatAxisAngle;
using semantics::quatMul;

class Machine {
 public:
  Machine(const Program& p, Section section, std::span<float> particle, const ReferenceContext& ctx)
      : p_(p), section_(section), particle_(particle), ctx_(ctx) {}

  bool run(std::span<const std::uint32_t> code) {
    for (std::size_t at = 0; at < code.size(); at += kWordsPerInstruction)
      step(code.data() + at);
    return killed_;
  }

 private:
  Lanes read(const Instruction& in, std::uint32_t slot, std::uint32_t lanes) const {
    Lanes v{};
    const std::uint32_t word = in.src[slot];
    if (in.kinds[slot] == OperandKind::Imm) {
      v.fill(std::bit_cast<float>(word));
      return v;
    }
    const std::uint32_t base = word & 0xFFu;
    for (std::uint32_t lane = 0; lane < lanes; ++lane)
      v[lane] = r_[base + ((word >> (8 + 2 * lane)) & 3u)];
    return v;
  }

  void write(const Instruction& in, const Lanes& v, std::uint32_t lanes) {
    for (std::uint32_t lane = 0; lane < lanes; ++lane)
      r_[in.dst + lane] = v[lane];
  }

  template <class F>
  void map1(const Instruction& in, F f) {
    const Lanes a = read(in, 0, in.width);
    Lanes out{};
    for (std::uint32_t i = 0; i < in.width; ++i)
      out[i] = f(a[i]);
    write(in, out, in.width);
  }

  template <class F>
  void map2(const Instruction& in, F f) {
    const Lanes a = read(in, 0, in.width);
    const Lanes b = read(in, 1, in.width);
    Lanes out{};
    for (std::uint32_t i = 0; i < in.width; ++i)
      out[i] = f(a[i], b[i]);
    write(in, out, in.width);
  }

  template <class F>
  void map3(const Instruction& in, F f) {
    const Lanes a = read(in, 0, in.width);
    const Lanes b = read(in, 1, in.width);
    const Lanes c = read(in, 2, in.width);
    Lanes out{};
    for (std::uint32_t i = 0; i < in.width; ++i)
      out[i] = f(a[i], b[i], c[i]);
    write(in, out, in.width);
  }

  // The four u32 of the particle's draw `index` in this section and tick (randomStream).
  std::array<std::uint32_t, 4> draw(std::uint32_t index) const {
    return counterRandom4(ctx_.seed, randomStream(section_, ctx_.tick, index), ctx_.randomCounter);
  }

  void step(const std::uint32_t* words) {
    std::uint32_t code = 0;
    std::array<std::uint32_t, 3> kinds{};
    const Instruction in = decodeRaw(words, code, kinds);
    const std::uint32_t w = in.width;
    switch (in.op) {
      case Opcode::Nop:
        return;
      case Opcode::Mov:
        write(in, read(in, 0, w), w);
        return;
      case Opcode::LoadConst:
        write(in, p_.constants[in.src[0]], w);
        return;
      case Opcode::LoadField: {
        Lanes v{};
        for (std::uint32_t i = 0; i < w; ++i)
          v[i] = particle_[in.src[0] + i];
        write(in, v, w);
        return;
      }
      case Opcode::StoreField: {
        const Lanes v = read(in, 1, w);
        for (std::uint32_t i = 0; i < w; ++i)
          particle_[in.src[0] + i] = v[i];
        return;
      }
      case Opcode::LoadBuiltin:
        write(in, ctx_.builtins[in.src[0]], w);
        return;
      case Opcode::LoadEmitter: {
        Lanes v{};
        for (std::uint32_t i = 0; i < w; ++i)
          v[i] = ctx_.emitterWords[in.src[0] + i];
        write(in, v, w);
        return;
      }
      case Opcode::LoadGlobal:
        write(in, ctx_.globals[in.src[0]], w);
        return;
      case Opcode::Add:
        map2(in, [](float a, float b) { return a + b; });
        return;
      case Opcode::Sub:
        map2(in, [](float a, float b) { return a - b; });
        return;
      case Opcode::Mul:
        map2(in, [](float a, float b) { return a * b; });
        return;
      case Opcode::Div:
        map2(in, [](float a, float b) { return a / b; });
        return;
      case Opcode::Fma:
        map3(in, [](float a, float b, float c) { return std::fma(a, b, c); });
        return;
      case Opcode::Min:
        map2(in, [](float a, float b) { return b < a ? b : a; });
        return;
      case Opcode::Max:
        map2(in, [](float a, float b) { return a < b ? b : a; });
        return;
      case Opcode::Abs:
        map1(in, [](float a) { return std::fabs(a); });
        return;
      case Opcode::Neg:
        map1(in, [](float a) { return -a; });
        return;
      case Opcode::Floor:
        map1(in, [](float a) { return std::floor(a); });
        return;
      case Opcode::Fract:
        map1(in, [](float a) { return a - std::floor(a); });
        return;
      case Opcode::Mod:
        map2(in, [](float a, float b) { return a - b * std::floor(a / b); });
        return;
      case Opcode::Sqrt:
        map1(in, [](float a) { return std::sqrt(a); });
        return;
      case Opcode::Rsqrt:
        map1(in, [](float a) { return 1.0f / std::sqrt(a); });
        return;
      case Opcode::Sin:
        map1(in, [](float a) { return semantics::sine(a); });
        return;
      case Opcode::Cos:
        map1(in, [](float a) { return semantics::cosine(a); });
        return;
      case Opcode::Exp:
        map1(in, [](float a) { return semantics::exponential(a); });
        return;
      case Opcode::Log:
        map1(in, [](float a) { return semantics::logarithm(a); });
        return;
      case Opcode::Pow:
        map2(in, [](float a, float b) { return semantics::power(a, b); });
        return;
      case Opcode::Dot: {
        const Lanes a = read(in, 0, w);
        const Lanes b = read(in, 1, w);
        float sum = a[0] * b[0];
        for (std::uint32_t i = 1; i < w; ++i)
          sum += a[i] * b[i];
        write(in, {sum, 0.0f, 0.0f, 0.0f}, 1);
        return;
      }
      case Opcode::Cross: {
        const Lanes a = read(in, 0, 3);
        const Lanes b = read(in, 1, 3);
        write(
            in,
            {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0], 0.0f},
            3);
        return;
      }
      case Opcode::Length: {
        const Lanes a = read(in, 0, w);
        float sum = a[0] * a[0];
        for (std::uint32_t i = 1; i < w; ++i)
          sum += a[i] * a[i];
        write(in, {std::sqrt(sum), 0.0f, 0.0f, 0.0f}, 1);
        return;
      }
      case Opcode::Normalize: {
        const Lanes a = read(in, 0, w);
        float sum = a[0] * a[0];
        for (std::uint32_t i = 1; i < w; ++i)
          sum += a[i] * a[i];
        const float len = std::sqrt(sum);
        Lanes out{};
        for (std::uint32_t i = 0; i < w; ++i)
          out[i] = len > 0.0f ? a[i] / len : 0.0f;
        write(in, out, w);
        return;
      }
      case Opcode::Lerp:
        map3(in, [](float a, float b, float c) { return a + (b - a) * c; });
        return;
      case Opcode::Smoothstep:
        map3(in, [](float e0, float e1, float x) {
          float t = (x - e0) / (e1 - e0);
          t = t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t);
          return t * t * (3.0f - 2.0f * t);
        });
        return;
      case Opcode::Clamp:
        map3(in, [](float x, float lo, float hi) {
          const float m = x < lo ? lo : x;
          return hi < m ? hi : m;
        });
        return;
      case Opcode::Saturate:
        map1(in, [](float x) {
          const float m = x < 0.0f ? 0.0f : x;
          return 1.0f < m ? 1.0f : m;
        });
        return;
      case Opcode::CmpLt:
        map2(in, [](float a, float b) { return a < b ? 1.0f : 0.0f; });
        return;
      case Opcode::CmpLe:
        map2(in, [](float a, float b) { return a <= b ? 1.0f : 0.0f; });
        return;
      case Opcode::CmpEq:
        map2(in, [](float a, float b) { return a == b ? 1.0f : 0.0f; });
        return;
      case Opcode::CmpNe:
        map2(in, [](float a, float b) { return a != b ? 1.0f : 0.0f; });
        return;
      case Opcode::Select:
        map3(in, [](float c, float a, float b) { return c != 0.0f ? a : b; });
        return;
      case Opcode::RandUniform: {
        const auto bits = draw(in.src[0]);
        Lanes out{};
        for (std::uint32_t i = 0; i < w; ++i)
          out[i] = unitFloatFromU32(bits[i]);
        write(in, out, w);
        return;
      }
      case Opcode::RandRange: {
        const auto bits = draw(in.src[0]);
        const Lanes lo = read(in, 1, w);
        const Lanes hi = read(in, 2, w);
        Lanes out{};
        for (std::uint32_t i = 0; i < w; ++i)
          out[i] = lo[i] + (hi[i] - lo[i]) * unitFloatFromU32(bits[i]);
        write(in, out, w);
        return;
      }
      case Opcode::RandUnitVector:
        write(in, semantics::unitVector(draw(in.src[0])), 3);
        return;
      case Opcode::RandSphere:
        write(in, semantics::ballPoint(draw(in.src[0])), 3);
        return;
      case Opcode::RandDisk:
        write(in, semantics::diskPoint(draw(in.src[0])), 3);
        return;
      case Opcode::RandCone:
        write(in, semantics::coneDirection(draw(in.src[0]), read(in, 1, 1)[0]), 3);
        return;
      case Opcode::CurlNoise: {
        const Lanes a = read(in, 0, 3);
        const float f = read(in, 1, 1)[0];
        const std::array<float, 3> c = curlNoise({a[0] * f, a[1] * f, a[2] * f});
        write(in, {c[0], c[1], c[2], 0.0f}, 3);
        return;
      }
      case Opcode::QuatFromAxisAngle: {
        const Lanes axis = read(in, 0, 3);
        write(in, quatAxisAngle(axis[0], axis[1], axis[2], read(in, 1, 1)[0]), 4);
        return;
      }
      case Opcode::QuatMul:
        write(in, quatMul(read(in, 0, 4), read(in, 1, 4)), 4);
        return;
      case Opcode::QuatRotate:
        write(in, semantics::quatRotate(read(in, 0, 4), read(in, 1, 3)), 3);
        return;
      case Opcode::QuatIntegrate: {
        const Lanes q = read(in, 0, 4);
        const Lanes omega = read(in, 1, 3);
        const float rate =
            std::sqrt(omega[0] * omega[0] + omega[1] * omega[1] + omega[2] * omega[2]);
        const float dt = ctx_.builtins[static_cast<std::size_t>(Builtin::Dt)][0];
        write(in, quatMul(quatAxisAngle(omega[0], omega[1], omega[2], rate * dt), q), 4);
        return;
      }
      case Opcode::Kill:
        if (read(in, 0, 1)[0] != 0.0f) killed_ = true;
        return;
      case Opcode::Spawn: {
        const std::uint32_t count = semantics::spawnCount(read(in, 1, 1)[0]);
        if (count == 0 || ctx_.spawn == nullptr) return;
        const Lanes at = read(in, 2, 3);
        ctx_.spawn(in.src[0], count, {at[0], at[1], at[2]}, Inheritance{},
                   static_cast<std::uint32_t>(ctx_.randomCounter), ctx_.spawnUser);
        return;
      }
      case Opcode::Report: {
        const Lanes a = read(in, 0, 4);
        if (!(a[3] >= 1.0f) || ctx_.report == nullptr) return;  // nan and < 1: nothing
        const Lanes b = read(in, 1, 4);
        ctx_.report(static_cast<ReportKind>(in.dst), semantics::reportTag(b[3]), {a[0], a[1], a[2]},
                    {b[0], b[1], b[2]}, static_cast<std::uint32_t>(ctx_.randomCounter),
                    ctx_.reportUser);
        return;
      }
      case Opcode::SpawnInherit: {
        const Lanes a = read(in, 0, 4);
        const std::uint32_t count = semantics::spawnCount(a[3]);
        if (count == 0 || ctx_.spawn == nullptr) return;
        const Lanes b = read(in, 1, 4);
        ctx_.spawn(in.dst, count, {a[0], a[1], a[2]},
                   Inheritance{{b[0], b[1], b[2]}, b[3], read(in, 2, 4)},
                   static_cast<std::uint32_t>(ctx_.randomCounter), ctx_.spawnUser);
        return;
      }
      case Opcode::Trail: {
        const Lanes a = read(in, 0, 4);
        const std::uint32_t count = semantics::spawnCount(a[3]);
        if (count == 0 || ctx_.spawn == nullptr) return;
        const Lanes b = read(in, 1, 4);
        ctx_.spawn(in.dst, count, {a[0], a[1], a[2]}, trailInheritance(b, read(in, 2, 4)),
                   static_cast<std::uint32_t>(ctx_.randomCounter), ctx_.spawnUser);
        return;
      }
      case Opcode::Curve:
        write(in,
              semantics::curve({p_.constants.data() + in.src[0], in.src[2] & 0xFFFFu, w,
                                static_cast<CurveTableInterp>(in.src[2] >> kCurveInterpShift)},
                               read(in, 1, 1)[0]),
              w);
        return;
      case Opcode::Collide: {
        const Lanes from = read(in, 0, 3);
        const Lanes to = read(in, 1, 3);
        const CollisionCast cast{
            {from[0], from[1], from[2]}, {to[0], to[1], to[2]}, read(in, 2, 1)[0]};
        CollisionHit hit;
        if (ctx_.collision != nullptr) ctx_.collision->cast({&cast, 1}, {&hit, 1});
        write(in, collideResult(cast, hit), 4);
        return;
      }
      case Opcode::SampleWind: {
        const Lanes pos = read(in, 0, 3);
        std::array<float, 3> wind{0.0f, 0.0f, 0.0f};
        if (ctx_.wind != nullptr) wind = ctx_.wind({pos[0], pos[1], pos[2]}, ctx_.windUser);
        write(in, {wind[0], wind[1], wind[2], 0.0f}, 3);
        return;
      }
    }
  }

  const Program& p_;
  Section section_;
  std::span<float> particle_;
  const ReferenceContext& ctx_;
  std::array<float, kMaxRegisters> r_{};
  bool killed_ = false;
};

}  // namespace

bool runReference(const VerifiedProgram& verified, Section section, std::span<float> particle,
                  const ReferenceContext& context) {
  const Program& p = verified.program();
  MOTE_ASSERT(particle.size() >= p.particleWords, "runReference: particle span too small");
  MOTE_ASSERT(context.emitterWords.size() >= p.emitterWords, "runReference: emitter words missing");
  MOTE_ASSERT(context.globals.size() >= p.globals.size(), "runReference: global values missing");
  Machine machine(p, section, particle, context);
  return machine.run(p.section(section));
}

}  // namespace mote::bytecode
