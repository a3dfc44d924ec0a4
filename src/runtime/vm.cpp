// SPDX-License-Identifier: MIT
// The batched VM. Every operand is a row of kBatchLanes floats (immediates get rows of their own,
// filled once per run), so each instruction is a plain loop over particles; the formulas are the
// reference executor's, written for one lane, so results match it bit for bit.
#include <mote/bytecode/semantics.h>
#include <mote/core/assert.h>
#include <mote/core/counter_rng.h>
#include <mote/runtime/vm.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

namespace mote {

using bytecode::Builtin;
using bytecode::Opcode;
using bytecode::Section;

namespace {

// Rows past the program's registers: 4 scratch rows, then one per distinct immediate.
constexpr std::uint32_t kScratchRows = 4;

}  // namespace

PreparedProgram PreparedProgram::prepare(const bytecode::VerifiedProgram& verified) {
  const bytecode::Program& p = verified.program();
  PreparedProgram out;
  out.registerCount_ = p.registerCount;
  out.particleWords_ = p.particleWords;
  out.constants_ = p.constants;
  const std::uint32_t scratch = p.registerCount;
  std::vector<std::uint32_t> immediates;  // bit patterns, in row order after the scratch rows
  const auto immediateRow = [&](std::uint32_t bits) {
    for (std::size_t i = 0; i < immediates.size(); ++i)
      if (immediates[i] == bits) return static_cast<std::uint16_t>(scratch + kScratchRows + i);
    immediates.push_back(bits);
    return static_cast<std::uint16_t>(scratch + kScratchRows + immediates.size() - 1);
  };
  for (const Section s : {Section::Init, Section::Update}) {
    std::vector<Op>& ops = s == Section::Init ? out.init_ : out.update_;
    const std::span<const std::uint32_t> code = p.section(s);
    for (std::size_t at = 0; at < code.size(); at += bytecode::kWordsPerInstruction) {
      std::uint32_t raw = 0;
      std::array<std::uint32_t, 3> kinds{};
      const bytecode::Instruction in = bytecode::decodeRaw(code.data() + at, raw, kinds);
      Op op;
      op.op = in.op;
      op.width = static_cast<std::uint8_t>(in.width);
      op.dst = static_cast<std::uint16_t>(in.dst);
      op.index = in.src[0];
      for (std::uint32_t slot = 0; slot < 3; ++slot) {
        Source& src = op.src[slot];
        if (in.kinds[slot] == bytecode::OperandKind::Imm) {
          src.immediate = true;
          src.value = std::bit_cast<float>(in.src[slot]);
          src.rows.fill(immediateRow(in.src[slot]));
        } else if (in.kinds[slot] == bytecode::OperandKind::Reg) {
          const std::uint32_t base = in.src[slot] & 0xFFu;
          for (std::uint32_t lane = 0; lane < 4; ++lane)
            src.rows[lane] =
                static_cast<std::uint16_t>(base + ((in.src[slot] >> (8 + 2 * lane)) & 3u));
        }
      }
      // Componentwise ops write dst row c after reading lane c of every source, so a later
      // lane reading a row an earlier one wrote has to go through scratch.
      op.viaScratch = false;
      const bytecode::OpInfo& info = bytecode::opInfo(in.op);
      for (std::uint32_t c = 0; c < in.width; ++c) {
        for (std::uint32_t later = c + 1; later < in.width; ++later) {
          for (std::uint32_t slot = 0; slot < 3; ++slot) {
            const bytecode::SourceRule rule = info.sources[slot];
            if (rule == bytecode::SourceRule::Unused || rule == bytecode::SourceRule::Index)
              continue;
            if (!op.src[slot].immediate && op.src[slot].rows[later] == op.dst + c)
              op.viaScratch = true;
          }
        }
      }
      ops.push_back(op);
    }
  }
  out.immediates_ = std::move(immediates);
  return out;
}

Result<BatchVm> BatchVm::create(std::uint32_t maxRows) {
  if (maxRows < kScratchRows + 1 || maxRows > 1u << 16) {
    return invalidArgument("BatchVm rows must be in [5, 65536] (got " + std::to_string(maxRows) +
                           ")");
  }
  return BatchVm(maxRows);
}

BatchVm::BatchVm(std::uint32_t maxRows)
    : maxRows_(maxRows), registers_(new float[std::size_t{maxRows} * kBatchLanes]()) {}

namespace {

struct Rows {
  float* base;
  float* row(std::uint32_t r) const { return base + std::size_t{r} * kBatchLanes; }
};

template <class F>
void map1(Rows r, const PreparedProgram::Op& op, std::uint32_t n, std::uint32_t scratch, F f) {
  const bool viaScratch = op.viaScratch;
  for (std::uint32_t c = 0; c < op.width; ++c) {
    const float* a = r.row(op.src[0].rows[c]);
    float* d = r.row(viaScratch ? scratch + c : op.dst + c);
    for (std::uint32_t i = 0; i < n; ++i)
      d[i] = f(a[i]);
  }
  if (viaScratch) {
    for (std::uint32_t c = 0; c < op.width; ++c)
      std::memcpy(r.row(op.dst + c), r.row(scratch + c), n * sizeof(float));
  }
}

template <class F>
void map2(Rows r, const PreparedProgram::Op& op, std::uint32_t n, std::uint32_t scratch, F f) {
  const bool viaScratch = op.viaScratch;
  for (std::uint32_t c = 0; c < op.width; ++c) {
    const float* a = r.row(op.src[0].rows[c]);
    const float* b = r.row(op.src[1].rows[c]);
    float* d = r.row(viaScratch ? scratch + c : op.dst + c);
    for (std::uint32_t i = 0; i < n; ++i)
      d[i] = f(a[i], b[i]);
  }
  if (viaScratch) {
    for (std::uint32_t c = 0; c < op.width; ++c)
      std::memcpy(r.row(op.dst + c), r.row(scratch + c), n * sizeof(float));
  }
}

template <class F>
void map3(Rows r, const PreparedProgram::Op& op, std::uint32_t n, std::uint32_t scratch, F f) {
  const bool viaScratch = op.viaScratch;
  for (std::uint32_t c = 0; c < op.width; ++c) {
    const float* a = r.row(op.src[0].rows[c]);
    const float* b = r.row(op.src[1].rows[c]);
    const float* cc = r.row(op.src[2].rows[c]);
    float* d = r.row(viaScratch ? scratch + c : op.dst + c);
    for (std::uint32_t i = 0; i < n; ++i)
      d[i] = f(a[i], b[i], cc[i]);
  }
  if (viaScratch) {
    for (std::uint32_t c = 0; c < op.width; ++c)
      std::memcpy(r.row(op.dst + c), r.row(scratch + c), n * sizeof(float));
  }
}

using bytecode::semantics::Lanes;
using bytecode::semantics::quatAxisAngle;
using bytecode::semantics::quatMul;

}  // namespace

void BatchVm::run(const PreparedProgram& program, Section section, std::span<float* const> streams,
                  std::uint32_t first, std::uint32_t count, const VmContext& context,
                  std::span<std::uint8_t> killed) {
  MOTE_ASSERT(program.rowsNeeded() <= maxRows_, "BatchVm::run: the program needs more rows");
  MOTE_ASSERT(streams.size() >= program.particleWords(), "BatchVm::run: missing particle streams");
  MOTE_ASSERT(killed.size() >= count, "BatchVm::run: killed span too small");
  // Immediate rows: filled once, never written by instructions.
  const Rows r{registers_.get()};
  const std::uint32_t immBase = program.registerCount() + kScratchRows;
  for (std::size_t k = 0; k < program.immediates().size(); ++k) {
    float* row = r.row(immBase + static_cast<std::uint32_t>(k));
    std::fill(row, row + kBatchLanes, std::bit_cast<float>(program.immediates()[k]));
  }
  const auto& code = program.section(section);
  for (std::uint32_t done = 0; done < count; done += kBatchLanes) {
    const std::uint32_t lanes = std::min(kBatchLanes, count - done);
    runBatch(program, section, code, streams, first + done, lanes, context, killed.data() + done);
  }
}

void BatchVm::runBatch(const PreparedProgram& program, Section section,
                       const std::vector<PreparedProgram::Op>& code,
                       std::span<float* const> streams, std::uint32_t first, std::uint32_t n,
                       const VmContext& ctx, std::uint8_t* killed) {
  const Rows r{registers_.get()};
  const std::uint32_t scratch = program.registerCount();
  const auto fill = [&](std::uint32_t row, float v) {
    float* d = r.row(row);
    std::fill(d, d + n, v);
  };
  const auto random = [&](const PreparedProgram::Op& op, std::uint32_t i) {
    const std::uint64_t id = ctx.particleIds != nullptr ? ctx.particleIds[first + i] : 0;
    return counterRandom4(ctx.seed, bytecode::randomStream(section, ctx.tick, op.index), id);
  };
  for (const PreparedProgram::Op& op : code) {
    const std::uint32_t w = op.width;
    switch (op.op) {
      case Opcode::Nop:
        break;
      case Opcode::Mov:
        map1(r, op, n, scratch, [](float a) { return a; });
        break;
      case Opcode::LoadConst:
        for (std::uint32_t c = 0; c < w; ++c)
          fill(op.dst + c, program.constants()[op.index][c]);
        break;
      case Opcode::LoadField:
        for (std::uint32_t c = 0; c < w; ++c)
          std::memcpy(r.row(op.dst + c), streams[op.index + c] + first, n * sizeof(float));
        break;
      case Opcode::StoreField:
        for (std::uint32_t c = 0; c < w; ++c)
          std::memcpy(streams[op.index + c] + first, r.row(op.src[1].rows[c]), n * sizeof(float));
        break;
      case Opcode::LoadBuiltin: {
        const auto b = static_cast<Builtin>(op.index);
        const float* perLane = b == Builtin::SpawnIndex      ? ctx.spawnIndex
                               : b == Builtin::SpawnFraction ? ctx.spawnFraction
                                                             : nullptr;
        if (perLane != nullptr) {
          std::memcpy(r.row(op.dst), perLane + first, n * sizeof(float));
        } else if (b == Builtin::ParticleId && ctx.particleIds != nullptr) {
          float* d = r.row(op.dst);
          for (std::uint32_t i = 0; i < n; ++i)
            d[i] = static_cast<float>(ctx.particleIds[first + i]);
        } else {
          for (std::uint32_t c = 0; c < w; ++c)
            fill(op.dst + c, ctx.builtins[op.index][c]);
        }
        break;
      }
      case Opcode::LoadEmitter:
        for (std::uint32_t c = 0; c < w; ++c)
          fill(op.dst + c, ctx.emitterWords[op.index + c]);
        break;
      case Opcode::LoadGlobal:
        for (std::uint32_t c = 0; c < w; ++c)
          fill(op.dst + c, ctx.globals[op.index][c]);
        break;
      case Opcode::Add:
        map2(r, op, n, scratch, [](float a, float b) { return a + b; });
        break;
      case Opcode::Sub:
        map2(r, op, n, scratch, [](float a, float b) { return a - b; });
        break;
      case Opcode::Mul:
        map2(r, op, n, scratch, [](float a, float b) { return a * b; });
        break;
      case Opcode::Div:
        map2(r, op, n, scratch, [](float a, float b) { return a / b; });
        break;
      case Opcode::Fma:
        map3(r, op, n, scratch, [](float a, float b, float c) { return std::fma(a, b, c); });
        break;
      case Opcode::Min:
        map2(r, op, n, scratch, [](float a, float b) { return b < a ? b : a; });
        break;
      case Opcode::Max:
        map2(r, op, n, scratch, [](float a, float b) { return a < b ? b : a; });
        break;
      case Opcode::Abs:
        map1(r, op, n, scratch, [](float a) { return std::fabs(a); });
        break;
      case Opcode::Neg:
        map1(r, op, n, scratch, [](float a) { return -a; });
        break;
      case Opcode::Floor:
        map1(r, op, n, scratch, [](float a) { return std::floor(a); });
        break;
      case Opcode::Fract:
        map1(r, op, n, scratch, [](float a) { return a - std::floor(a); });
        break;
      case Opcode::Mod:
        map2(r, op, n, scratch, [](float a, float b) { return a - b * std::floor(a / b); });
        break;
      case Opcode::Sqrt:
        map1(r, op, n, scratch, [](float a) { return std::sqrt(a); });
        break;
      case Opcode::Rsqrt:
        map1(r, op, n, scratch, [](float a) { return 1.0f / std::sqrt(a); });
        break;
      case Opcode::Sin:
        map1(r, op, n, scratch, [](float a) { return std::sin(a); });
        break;
      case Opcode::Cos:
        map1(r, op, n, scratch, [](float a) { return std::cos(a); });
        break;
      case Opcode::Exp:
        map1(r, op, n, scratch, [](float a) { return std::exp(a); });
        break;
      case Opcode::Log:
        map1(r, op, n, scratch, [](float a) { return std::log(a); });
        break;
      case Opcode::Pow:
        map2(r, op, n, scratch, [](float a, float b) { return std::pow(a, b); });
        break;
      case Opcode::Lerp:
        map3(r, op, n, scratch, [](float a, float b, float c) { return a + (b - a) * c; });
        break;
      case Opcode::Smoothstep:
        map3(r, op, n, scratch, [](float e0, float e1, float x) {
          float t = (x - e0) / (e1 - e0);
          t = t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t);
          return t * t * (3.0f - 2.0f * t);
        });
        break;
      case Opcode::Clamp:
        map3(r, op, n, scratch, [](float x, float lo, float hi) {
          const float m = x < lo ? lo : x;
          return hi < m ? hi : m;
        });
        break;
      case Opcode::Saturate:
        map1(r, op, n, scratch, [](float x) {
          const float m = x < 0.0f ? 0.0f : x;
          return 1.0f < m ? 1.0f : m;
        });
        break;
      case Opcode::CmpLt:
        map2(r, op, n, scratch, [](float a, float b) { return a < b ? 1.0f : 0.0f; });
        break;
      case Opcode::CmpLe:
        map2(r, op, n, scratch, [](float a, float b) { return a <= b ? 1.0f : 0.0f; });
        break;
      case Opcode::CmpEq:
        map2(r, op, n, scratch, [](float a, float b) { return a == b ? 1.0f : 0.0f; });
        break;
      case Opcode::CmpNe:
        map2(r, op, n, scratch, [](float a, float b) { return a != b ? 1.0f : 0.0f; });
        break;
      case Opcode::Select:
        map3(r, op, n, scratch, [](float c, float a, float b) { return c != 0.0f ? a : b; });
        break;
      case Opcode::Dot:
      case Opcode::Length: {
        const bool dot = op.op == Opcode::Dot;
        float* d = r.row(scratch);
        const float* a0 = r.row(op.src[0].rows[0]);
        const float* b0 = r.row(op.src[dot ? 1 : 0].rows[0]);
        for (std::uint32_t i = 0; i < n; ++i)
          d[i] = a0[i] * b0[i];
        for (std::uint32_t c = 1; c < w; ++c) {
          const float* a = r.row(op.src[0].rows[c]);
          const float* b = r.row(op.src[dot ? 1 : 0].rows[c]);
          for (std::uint32_t i = 0; i < n; ++i)
            d[i] += a[i] * b[i];
        }
        if (!dot) {
          for (std::uint32_t i = 0; i < n; ++i)
            d[i] = std::sqrt(d[i]);
        }
        std::memcpy(r.row(op.dst), d, n * sizeof(float));
        break;
      }
      case Opcode::Normalize: {
        float* len = r.row(scratch + 3);
        const float* a0 = r.row(op.src[0].rows[0]);
        for (std::uint32_t i = 0; i < n; ++i)
          len[i] = a0[i] * a0[i];
        for (std::uint32_t c = 1; c < w; ++c) {
          const float* a = r.row(op.src[0].rows[c]);
          for (std::uint32_t i = 0; i < n; ++i)
            len[i] += a[i] * a[i];
        }
        for (std::uint32_t i = 0; i < n; ++i)
          len[i] = std::sqrt(len[i]);
        const std::uint32_t out = scratch;  // w ≤ 3 rows beside len (scratch + 3)
        if (w < 4) {
          for (std::uint32_t c = 0; c < w; ++c) {
            const float* a = r.row(op.src[0].rows[c]);
            float* d = r.row(out + c);
            for (std::uint32_t i = 0; i < n; ++i)
              d[i] = len[i] > 0.0f ? a[i] / len[i] : 0.0f;
          }
          for (std::uint32_t c = 0; c < w; ++c)
            std::memcpy(r.row(op.dst + c), r.row(out + c), n * sizeof(float));
        } else {
          // Four lanes: per particle, reading all four before writing.
          for (std::uint32_t i = 0; i < n; ++i) {
            Lanes a{};
            for (std::uint32_t c = 0; c < 4; ++c)
              a[c] = r.row(op.src[0].rows[c])[i];
            for (std::uint32_t c = 0; c < 4; ++c)
              r.row(op.dst + c)[i] = len[i] > 0.0f ? a[c] / len[i] : 0.0f;
          }
        }
        break;
      }
      default:
        // The rest mixes lanes in ways per-particle code reads most plainly: gather the sources
        // of each particle, compute as the reference does, write the destination.
        for (std::uint32_t i = 0; i < n; ++i) {
          const auto get = [&](std::uint32_t slot, std::uint32_t lanes) {
            Lanes v{};
            for (std::uint32_t c = 0; c < lanes; ++c)
              v[c] = r.row(op.src[slot].rows[c])[i];
            return v;
          };
          const auto put = [&](const Lanes& v, std::uint32_t lanes) {
            for (std::uint32_t c = 0; c < lanes; ++c)
              r.row(op.dst + c)[i] = v[c];
          };
          switch (op.op) {
            case Opcode::Cross: {
              const Lanes a = get(0, 3);
              const Lanes b = get(1, 3);
              put({a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0],
                   0.0f},
                  3);
              break;
            }
            case Opcode::RandUniform: {
              const auto bits = random(op, i);
              Lanes out{};
              for (std::uint32_t c = 0; c < w; ++c)
                out[c] = unitFloatFromU32(bits[c]);
              put(out, w);
              break;
            }
            case Opcode::RandRange: {
              const auto bits = random(op, i);
              const Lanes lo = get(1, w);
              const Lanes hi = get(2, w);
              Lanes out{};
              for (std::uint32_t c = 0; c < w; ++c)
                out[c] = lo[c] + (hi[c] - lo[c]) * unitFloatFromU32(bits[c]);
              put(out, w);
              break;
            }
            case Opcode::RandUnitVector:
              put(bytecode::semantics::unitVector(random(op, i)), 3);
              break;
            case Opcode::RandSphere:
              put(bytecode::semantics::ballPoint(random(op, i)), 3);
              break;
            case Opcode::RandDisk:
              put(bytecode::semantics::diskPoint(random(op, i)), 3);
              break;
            case Opcode::RandCone:
              put(bytecode::semantics::coneDirection(random(op, i), get(1, 1)[0]), 3);
              break;
            case Opcode::CurlNoise: {
              const Lanes a = get(0, 3);
              const float f = get(1, 1)[0];
              const std::array<float, 3> c = bytecode::curlNoise({a[0] * f, a[1] * f, a[2] * f});
              put({c[0], c[1], c[2], 0.0f}, 3);
              break;
            }
            case Opcode::QuatFromAxisAngle: {
              const Lanes axis = get(0, 3);
              put(quatAxisAngle(axis[0], axis[1], axis[2], get(1, 1)[0]), 4);
              break;
            }
            case Opcode::QuatMul:
              put(quatMul(get(0, 4), get(1, 4)), 4);
              break;
            case Opcode::QuatRotate:
              put(bytecode::semantics::quatRotate(get(0, 4), get(1, 3)), 3);
              break;
            case Opcode::QuatIntegrate: {
              const Lanes q = get(0, 4);
              const Lanes omega = get(1, 3);
              const float rate =
                  std::sqrt(omega[0] * omega[0] + omega[1] * omega[1] + omega[2] * omega[2]);
              const float dt = ctx.builtins[static_cast<std::size_t>(Builtin::Dt)][0];
              put(quatMul(quatAxisAngle(omega[0], omega[1], omega[2], rate * dt), q), 4);
              break;
            }
            case Opcode::Kill:
              if (get(0, 1)[0] != 0.0f) killed[i] = 1;
              break;
            case Opcode::SampleWind: {
              const Lanes pos = get(0, 3);
              std::array<float, 3> wind{0.0f, 0.0f, 0.0f};
              if (ctx.wind != nullptr) wind = ctx.wind({pos[0], pos[1], pos[2]}, ctx.windUser);
              put({wind[0], wind[1], wind[2], 0.0f}, 3);
              break;
            }
            case Opcode::Spawn: {
              const float spawnCount = std::floor(get(1, 1)[0]);
              if (!(spawnCount >= 1.0f) || ctx.spawn == nullptr) break;
              constexpr float kMaxCount = 1048576.0f;
              const Lanes at = get(2, 3);
              ctx.spawn(op.index,
                        static_cast<std::uint32_t>(spawnCount < kMaxCount ? spawnCount : kMaxCount),
                        {at[0], at[1], at[2]}, ctx.spawnUser);
              break;
            }
            default:
              MOTE_ASSERT(false, "BatchVm: an opcode without an implementation");
              break;
          }
        }
        break;
    }
  }
}

}  // namespace mote
