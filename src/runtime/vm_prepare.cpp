// SPDX-License-Identifier: MIT
// PreparedProgram::prepare: a verified program decoded into the batched VM's execution form, and
// the prepare-time analysis behind it (stream operands, run-invariant values, uniform ops).
#include "vm_detail.h"

#include <mote/bytecode/isa.h>
#include <mote/runtime/vm.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <span>
#include <vector>

namespace mote {

using bytecode::Opcode;
using bytecode::Section;
using vm_detail::kScratchRows;

namespace {

// Whether the stream-operand choices in `ops` compute exactly what the program says. Simulates
// the section twice over value identities: as the program means it (the reference: an op reads
// all its sources, then writes its destination) and as the VM will run it (rows read streams in
// place, elementwise ops lane by lane, results written into streams early, stores skipped).
// Every value the VM reads must be the one the program reads, and the streams must end equal.
bool streamOperandsExact(const std::vector<PreparedProgram::Op>& ops, std::uint32_t rows,
                         std::uint32_t words) {
  constexpr std::int64_t kOwn = -1;
  struct PhysicalRow {
    std::int64_t word = kOwn;  // read in place from this particle word, or its own storage
    std::uint64_t value = 0;
  };
  std::vector<std::uint64_t> meantRow(rows, 0);
  std::vector<PhysicalRow> row(rows);
  std::vector<std::uint64_t> meantWord(words);
  std::vector<std::uint64_t> word(words);
  for (std::uint32_t w = 0; w < words; ++w)
    meantWord[w] = word[w] = 1 + w;
  const auto fresh = [&](std::size_t k, std::uint32_t c) { return 1 + words + 4 * k + c; };
  const auto physical = [&](std::uint32_t r) {
    return row[r].word == kOwn ? row[r].value : word[static_cast<std::size_t>(row[r].word)];
  };
  for (std::size_t k = 0; k < ops.size(); ++k) {
    const PreparedProgram::Op& op = ops[k];
    const bytecode::OpInfo& info = bytecode::opInfo(op.op);
    const std::uint32_t dw = bytecode::dstWidth(info.width, op.width);
    // What each source lane means (read before anything is written).
    std::array<std::array<std::uint64_t, 4>, 3> meant{};
    std::array<std::uint32_t, 3> widths{};
    for (std::uint32_t slot = 0; slot < 3; ++slot) {
      widths[slot] = bytecode::sourceWidth(info.sources[slot], op.width);
      for (std::uint32_t c = 0; c < widths[slot]; ++c)
        meant[slot][c] = meantRow[op.src[slot].rows[c]];
    }
    const auto readsOk = [&](std::uint32_t slot, std::uint32_t c) {
      return physical(op.src[slot].rows[c]) == meant[slot][c];
    };
    switch (op.op) {
      case Opcode::LoadField:
        for (std::uint32_t c = 0; c < op.width; ++c) {
          const std::uint32_t w = op.index + c;
          if (!op.inPlace && word[w] != meantWord[w]) return false;
          meantRow[op.dst + c] = meantWord[w];
          row[op.dst + c] = op.inPlace ? PhysicalRow{w, 0} : PhysicalRow{kOwn, word[w]};
        }
        break;
      case Opcode::StoreField:
        for (std::uint32_t c = 0; c < op.width; ++c) {
          const std::uint32_t w = op.index + c;
          meantWord[w] = meant[1][c];
          if (op.inPlace) continue;  // checked when the words are next read, or at the end
          if (!readsOk(1, c)) return false;
          word[w] = physical(op.src[1].rows[c]);
        }
        break;
      default:
        if (bytecode::isElementwise(op.op) && !op.viaScratch) {
          // Lane by lane: lane c reads its sources, then writes its result — into its own row,
          // or into the stream, whose words the dst rows read only after the last lane.
          const bool direct = op.directWord != PreparedProgram::kNoWord;
          for (std::uint32_t c = 0; c < op.width; ++c) {
            for (std::uint32_t slot = 0; slot < 3; ++slot)
              if (widths[slot] > 0 && !readsOk(slot, c)) return false;
            if (direct) {
              word[op.directWord + c] = fresh(k, c);
            } else {
              meantRow[op.dst + c] = fresh(k, c);
              row[op.dst + c] = PhysicalRow{kOwn, fresh(k, c)};
            }
          }
          for (std::uint32_t c = 0; direct && c < op.width; ++c) {
            meantRow[op.dst + c] = fresh(k, c);
            row[op.dst + c] = PhysicalRow{op.directWord + c, 0};
          }
        } else {
          if (op.directWord != PreparedProgram::kNoWord) return false;
          for (std::uint32_t slot = 0; slot < 3; ++slot)
            for (std::uint32_t c = 0; c < widths[slot]; ++c)
              if (!readsOk(slot, c)) return false;
          for (std::uint32_t c = 0; c < dw; ++c) {
            meantRow[op.dst + c] = fresh(k, c);
            row[op.dst + c] = PhysicalRow{kOwn, fresh(k, c)};
          }
        }
        break;
    }
  }
  return word == meantWord;
}

// Chooses the stream operands of one section: each candidate is kept when the whole section still
// simulates exactly with it. A store's producer writes the stream first, then loads read in place.
void chooseStreamOperands(std::vector<PreparedProgram::Op>& ops, std::uint32_t rows,
                          std::uint32_t words) {
  for (std::size_t j = 0; j < ops.size(); ++j) {
    PreparedProgram::Op& store = ops[j];
    if (store.op != Opcode::StoreField || store.src[1].immediate) continue;
    const std::uint32_t base = store.src[1].rows[0];
    bool identity = true;
    for (std::uint32_t c = 0; c < store.width; ++c)
      identity = identity && store.src[1].rows[c] == base + c;
    if (!identity) continue;
    // The last op before the store that writes any of its rows.
    std::size_t k = j;
    while (k-- > 0) {
      const PreparedProgram::Op& p = ops[k];
      const std::uint32_t dw = bytecode::dstWidth(bytecode::opInfo(p.op).width, p.width);
      if (dw > 0 && p.dst < base + store.width && base < p.dst + dw) break;
    }
    if (k >= j) continue;  // wrapped: no producer in this section
    PreparedProgram::Op& producer = ops[k];
    if (!bytecode::isElementwise(producer.op) || producer.directWord != PreparedProgram::kNoWord ||
        producer.dst != base || producer.width != store.width)
      continue;
    // Written into the stream, a producer that needed scratch for its rows may not: its rows
    // switch to the stream after the last lane (Interpreter::finishRows).
    const bool viaScratch = producer.viaScratch;
    producer.directWord = store.index;
    producer.viaScratch = false;
    store.inPlace = true;
    if (!streamOperandsExact(ops, rows, words)) {
      producer.directWord = PreparedProgram::kNoWord;
      producer.viaScratch = viaScratch;
      store.inPlace = false;
    }
  }
  for (PreparedProgram::Op& load : ops) {
    if (load.op != Opcode::LoadField) continue;
    load.inPlace = true;
    if (!streamOperandsExact(ops, rows, words)) load.inPlace = false;
  }
}

// The builtins an op's result depends on (bit b: builtin b), given `depends` per row: kVaries
// once anything per-particle flows in (a row the section has not written yet holds the last
// batch's values: kVaries). Loads of constants, emitter fields and globals depend on nothing;
// elementwise ops (unless they write a stream) and the ops of tracksUniformSources (CROSS,
// QUAT_MUL, QUAT_ROTATE) on their sources. Immediates are read as such, not as rows.
std::uint32_t resultDepends(const PreparedProgram::Op& op,
                            const std::vector<std::uint32_t>& depends) {
  constexpr std::uint32_t kVaries = PreparedProgram::kVaries;
  const bytecode::OpInfo& info = bytecode::opInfo(op.op);
  std::uint32_t mask = 0;
  for (std::uint32_t slot = 0; slot < 3; ++slot) {
    if (op.src[slot].immediate) continue;
    // Index and unused operands read no rows: their width is 0.
    for (std::uint32_t c = 0; c < bytecode::sourceWidth(info.sources[slot], op.width); ++c) {
      const std::uint32_t row = op.src[slot].rows[c];
      mask = depends[row] == kVaries || mask == kVaries ? kVaries : mask | depends[row];
    }
  }
  switch (op.op) {
    case Opcode::LoadConst:
    case Opcode::LoadEmitter:
    case Opcode::LoadGlobal:
      return 0;
    case Opcode::LoadBuiltin:
      return static_cast<bytecode::Builtin>(op.index) == bytecode::Builtin::ParticleId
                 ? kVaries
                 : 1u << op.index;
    default:
      if (vm_detail::tracksUniformSources(op.op)) return mask;
      return bytecode::isElementwise(op.op) && op.directWord == PreparedProgram::kNoWord ? mask
                                                                                         : kVaries;
  }
}

// Gives each op whose result is the same for every particle of a run (resultDepends not kVaries)
// rows of its own from `base` (at most `room` of them, in order) and points the later readers of
// its register rows there. Nothing else writes those rows, so the value survives the run's
// batches: markUniformOps lets the VM compute it in the first batch only. Returns the rows used.
std::uint32_t hoistUniformOps(std::vector<PreparedProgram::Op>& ops, std::uint32_t registers,
                              std::uint32_t base, std::uint32_t room) {
  constexpr std::uint32_t kVaries = PreparedProgram::kVaries;
  std::vector<std::uint32_t> depends(std::size_t{base} + room, kVaries);
  std::vector<std::uint16_t> alias(registers);  // the row holding each register row's value
  for (std::uint32_t r = 0; r < registers; ++r)
    alias[r] = static_cast<std::uint16_t>(r);
  std::uint32_t used = 0;
  for (PreparedProgram::Op& op : ops) {
    const bytecode::OpInfo& info = bytecode::opInfo(op.op);
    for (std::uint32_t slot = 0; slot < 3; ++slot) {
      const bytecode::SourceRule rule = info.sources[slot];
      if (op.src[slot].immediate || rule == bytecode::SourceRule::Unused ||
          rule == bytecode::SourceRule::Index)
        continue;
      for (std::uint16_t& row : op.src[slot].rows)
        if (row < registers) row = alias[row];
    }
    const std::uint32_t dw = bytecode::dstWidth(info.width, op.width);
    if (dw == 0) continue;
    const std::uint32_t mask = resultDepends(op, depends);
    const bool hoist = mask != kVaries && used + dw <= room && op.dst + dw <= registers;
    for (std::uint32_t c = 0; c < dw; ++c) {
      const std::uint32_t row = hoist ? base + used + c : op.dst + c;
      if (op.dst + c < registers) alias[op.dst + c] = static_cast<std::uint16_t>(row);
      depends[row] = mask;
    }
    if (hoist) {
      op.dst = static_cast<std::uint16_t>(base + used);
      used += dw;
    }
  }
  return used;
}

// Sets uniformUnless on the ops of tracksUniformSources (CROSS, QUAT_MUL, QUAT_ROTATE) whose
// sources depend only on immediates, constants, emitter fields, globals and builtins
// (resultDepends), and hoistUnless on the ops hoistUniformOps gave rows of their own from `hoisted`
// that still write those rows.
void markUniformOps(std::vector<PreparedProgram::Op>& ops, std::uint32_t rows,
                    std::uint32_t hoisted) {
  constexpr std::uint32_t kVaries = PreparedProgram::kVaries;
  std::vector<std::uint32_t> depends(rows, kVaries);
  for (PreparedProgram::Op& op : ops) {
    const std::uint32_t mask = resultDepends(op, depends);
    if (vm_detail::tracksUniformSources(op.op)) op.uniformUnless = mask;
    const std::uint32_t dw = bytecode::dstWidth(bytecode::opInfo(op.op).width, op.width);
    if (dw > 0 && op.dst >= hoisted && op.directWord == PreparedProgram::kNoWord && !op.viaScratch)
      op.hoistUnless = mask;
    for (std::uint32_t c = 0; c < dw; ++c)
      depends[op.dst + c] = mask;
  }
}

}  // namespace

PreparedProgram PreparedProgram::prepare(const bytecode::VerifiedProgram& verified) {
  const bytecode::Program& p = verified.program();
  PreparedProgram out;
  out.registerCount_ = p.registerCount;
  out.particleWords_ = p.particleWords;
  out.constants_ = p.constants;
  for (const std::array<float, 4>& c : p.constants)
    out.constantLanes_.insert(out.constantLanes_.end(), c.begin(), c.end());
  const std::uint32_t scratch = p.registerCount;
  std::vector<std::uint32_t> immediates;       // bit patterns, in row order after the scratch rows
  std::vector<std::uint32_t>* used = nullptr;  // the section's, indices into immediates
  const auto immediateRow = [&](std::uint32_t bits) {
    std::uint32_t k = 0;
    while (k < immediates.size() && immediates[k] != bits)
      ++k;
    if (k == immediates.size()) immediates.push_back(bits);
    if (std::find(used->begin(), used->end(), k) == used->end()) used->push_back(k);
    return static_cast<std::uint16_t>(scratch + kScratchRows + k);
  };
  for (const Section s : {Section::Init, Section::Update}) {
    std::vector<Op>& ops = s == Section::Init ? out.init_ : out.update_;
    used = &out.sectionImmediates_[s == Section::Init ? 0 : 1];
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
      if (bytecode::opInfo(in.op).sources[2] == bytecode::SourceRule::Index) op.index2 = in.src[2];
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
      ops.push_back(op);
    }
  }
  out.immediates_ = std::move(immediates);
  // Run-invariant values get rows of their own past the immediates (as many as keep a program
  // within BatchVm's default rows); the sections run apart, so they share them.
  const std::uint32_t hoistBase = out.rowsNeeded();
  const std::uint32_t room =
      std::min(vm_detail::kMostHoistedRows,
               BatchVm::kDefaultRows - std::min(BatchVm::kDefaultRows, hoistBase));
  for (const Section s : {Section::Init, Section::Update}) {
    std::vector<Op>& ops = s == Section::Init ? out.init_ : out.update_;
    out.hoistedRows_ =
        std::max(out.hoistedRows_, hoistUniformOps(ops, p.registerCount, hoistBase, room));
    // Componentwise ops write dst row c after reading lane c of every source, so a later
    // lane reading a row an earlier one wrote has to go through scratch.
    for (Op& op : ops) {
      op.viaScratch = false;
      const bytecode::OpInfo& info = bytecode::opInfo(op.op);
      for (std::uint32_t c = 0; c < op.width; ++c) {
        for (std::uint32_t later = c + 1; later < op.width; ++later) {
          for (std::uint32_t slot = 0; slot < 3; ++slot) {
            const bytecode::SourceRule rule = info.sources[slot];
            if (rule == bytecode::SourceRule::Unused || rule == bytecode::SourceRule::Index)
              continue;
            if (!op.src[slot].immediate && op.src[slot].rows[later] == op.dst + c)
              op.viaScratch = true;
          }
        }
      }
    }
  }
  // Words INIT reads before writing, or never writes.
  std::vector<std::uint8_t> stored(p.particleWords, 0);
  std::vector<std::uint8_t> zero(p.particleWords, 0);
  for (const Op& op : out.init_) {
    if (op.op != Opcode::LoadField && op.op != Opcode::StoreField) continue;
    for (std::uint32_t w = op.index; w < op.index + op.width; ++w) {
      if (op.op == Opcode::LoadField && stored[w] == 0) zero[w] = 1;
      if (op.op == Opcode::StoreField) stored[w] = 1;
    }
  }
  for (std::uint32_t w = 0; w < p.particleWords; ++w)
    if (zero[w] != 0 || stored[w] == 0) out.initZeroWords_.push_back(w);
  for (const Section s : {Section::Init, Section::Update})
    chooseStreamOperands(s == Section::Init ? out.init_ : out.update_, out.rowsNeeded(),
                         p.particleWords);
  for (const Section s : {Section::Init, Section::Update})
    markUniformOps(s == Section::Init ? out.init_ : out.update_, out.rowsNeeded(), hoistBase);
  return out;
}

}  // namespace mote
