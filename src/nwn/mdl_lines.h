// SPDX-License-Identifier: MIT
// The line tokeniser of NWN's text formats (ASCII MDL and TXI): lines of whitespace-separated
// tokens, '#' comments.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

namespace mote::nwn::detail {

/// One line split into tokens (views into the text). '#' at the start of a token comments out the
/// rest of the line; '\r' and other control whitespace count as spaces.
struct Line {
  std::uint32_t number = 0;
  std::vector<std::string_view> tokens;
};

inline bool isSpace(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/// Every line of `text`, numbered from 1. Complexity: O(text).
inline std::vector<Line> splitLines(std::string_view text) {
  std::vector<Line> lines;
  std::uint32_t number = 0;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    ++number;
    Line line;
    line.number = number;
    std::size_t i = pos;
    while (i < end) {
      while (i < end && isSpace(text[i]))
        ++i;
      if (i >= end || text[i] == '#') break;
      const std::size_t start = i;
      while (i < end && !isSpace(text[i]))
        ++i;
      line.tokens.push_back(text.substr(start, i - start));
    }
    lines.push_back(std::move(line));
    if (end == text.size()) break;
    pos = end + 1;
  }
  return lines;
}

}  // namespace mote::nwn::detail
