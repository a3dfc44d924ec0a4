// SPDX-License-Identifier: MIT
// Spawn-constant fields (docs/compiler.md, "Spawn-constant fields"): a particle field that INIT
// sets to one literal and nothing else writes holds that value in every particle all its life,
// so it needs no stream. Its loads become the literal, its store goes, and the layout closes up —
// every tick then moves, updates and compacts fewer words.
#include "lower.h"

#include <array>
#include <bit>
#include <string_view>

namespace mote::compiler {

namespace {

// A field the pass may drop: the compiler's own (no reader outside the program), or a channel
// whose readers (render packets, the GPU's draw) take a missing channel as `absent` — dropped
// only when its literal is that value, so what is drawn does not change.
struct Foldable {
  std::string_view name;
  bool channel = false;
  Lanes absent{};
};

constexpr std::array<Foldable, 10> kFoldable{{
    {"lifetime"},
    {"size0"},
    {"color0"},
    {"spin"},
    {"mass"},
    {"origin"},
    {"frame_offset"},
    {"color", true, {1.0f, 1.0f, 1.0f, 1.0f}},
    {"rotation", true, {0.0f, 0.0f, 0.0f, 0.0f}},
    {"frame", true, {0.0f, 0.0f, 0.0f, 0.0f}},
}};

bool addressesFields(const Node& n) {
  return n.op == Opcode::LoadField || n.op == Opcode::StoreField;
}

}  // namespace

void EmitterCompiler::foldSpawnConstants() {
  std::vector<Node>& init = init_.nodes();
  std::vector<Node>& update = update_.nodes();
  const std::uint32_t words = layout_.words();
  // Per word: the literal of its one INIT store, and whether anything rules folding out.
  std::vector<float> value(words, 0.0f);
  std::vector<std::int64_t> storedAt(words, -1);
  std::vector<bool> ruledOut(words, false);
  for (std::size_t k = 0; k < init.size(); ++k) {
    const Node& n = init[k];
    if (n.dead || n.op != Opcode::StoreField) continue;
    const std::optional<Lanes> lanes = literalLanes(init, n.src[1]);
    for (std::uint32_t i = 0; i < n.width; ++i) {
      const std::uint32_t w = n.src[0].index + i;
      if (storedAt[w] >= 0 || !lanes) ruledOut[w] = true;
      storedAt[w] = static_cast<std::int64_t>(k);
      if (lanes) value[w] = (*lanes)[i];
    }
  }
  for (std::size_t k = 0; k < init.size(); ++k) {  // a load before the store reads 0, not it
    const Node& n = init[k];
    if (n.dead || n.op != Opcode::LoadField) continue;
    for (std::uint32_t i = 0; i < n.width; ++i) {
      const std::uint32_t w = n.src[0].index + i;
      if (storedAt[w] > static_cast<std::int64_t>(k)) ruledOut[w] = true;
    }
  }
  for (const Node& n : update) {
    if (n.dead || n.op != Opcode::StoreField) continue;
    for (std::uint32_t i = 0; i < n.width; ++i)
      ruledOut[n.src[0].index + i] = true;
  }

  // The fields to drop, and which field each word belongs to.
  std::vector<bool> folded(words, false);
  std::vector<std::int32_t> fieldOf(words, -1);
  const std::vector<bytecode::FieldSlot>& slots = layout_.slots();
  for (std::size_t f = 0; f < slots.size(); ++f) {
    const bytecode::FieldSlot& slot = slots[f];
    for (std::uint32_t i = 0; i < slot.width; ++i)
      fieldOf[slot.offset + i] = static_cast<std::int32_t>(f);
    const Foldable* rule = nullptr;
    for (const Foldable& candidate : kFoldable)
      if (candidate.name == slot.name) rule = &candidate;
    if (rule == nullptr) continue;
    bool fold = true;
    for (std::uint32_t i = 0; i < slot.width && fold; ++i) {
      const std::uint32_t w = slot.offset + i;
      fold = storedAt[w] >= 0 && !ruledOut[w] &&
             (!rule->channel || std::bit_cast<std::uint32_t>(value[w]) ==
                                    std::bit_cast<std::uint32_t>(rule->absent[i]));
    }
    for (std::uint32_t i = 0; i < slot.width; ++i)
      folded[slot.offset + i] = fold;
  }
  // A load or store over folded and kept words at once cannot become a literal (or go): keep
  // the folded fields it touches, until no such access is left.
  for (bool changed = true; changed;) {
    changed = false;
    for (const std::vector<Node>* section : {&init, &update}) {
      for (const Node& n : *section) {
        if (n.dead || !addressesFields(n)) continue;
        std::uint32_t count = 0;
        for (std::uint32_t i = 0; i < n.width; ++i)
          count += folded[n.src[0].index + i] ? 1u : 0u;
        if (count == 0 || count == n.width) continue;
        for (std::uint32_t i = 0; i < n.width; ++i) {
          const auto f = static_cast<std::size_t>(fieldOf[n.src[0].index + i]);
          for (std::uint32_t j = 0; j < slots[f].width; ++j)
            folded[slots[f].offset + j] = false;
        }
        changed = true;
      }
    }
  }
  std::vector<std::string> names;
  for (const bytecode::FieldSlot& slot : slots)
    if (slot.width > 0 && folded[slot.offset]) names.push_back(slot.name);
  if (names.empty()) return;

  // Loads of a dropped field read its literal; its INIT store goes; every other access moves to
  // the closed-up layout.
  const std::vector<std::uint32_t> moved = layout_.remove(names);
  for (std::vector<Node>* section : {&init, &update}) {
    for (Node& n : *section) {
      if (!addressesFields(n)) continue;
      const std::uint32_t w = n.src[0].index;
      if (!folded[w]) {
        n.src[0].index = moved[w];
        continue;
      }
      if (n.op == Opcode::StoreField) {
        n.op = Opcode::Nop;
        n.src = {};
        continue;
      }
      n.op = Opcode::LoadConst;
      n.isConstant = true;
      n.src = {};
      for (std::uint32_t i = 0; i < n.width; ++i)
        n.constant[i] = value[w + i];
    }
  }
}

}  // namespace mote::compiler
