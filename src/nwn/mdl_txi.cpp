// SPDX-License-Identifier: MIT
// TXI files (a texture's side file of `keyword value` lines) and texture search paths.
#include "mdl_lines.h"
#include "mdl_report.h"
#include "mdl_tables.h"

#include <mote/nwn/mdl.h>

#include <algorithm>
#include <array>
#include <string>

namespace mote::nwn {
namespace {

// Keywords the game's texture loader and shaders read that mean nothing for a particle sprite:
// read and ignored without a warning (the NWN TXI vocabulary of textures and fonts).
constexpr std::array<std::string_view, 52> kIgnoredKeywords{"alphamean",
                                                            "anglecycle",
                                                            "arturoheight",
                                                            "arturowidth",
                                                            "baselineheight",
                                                            "bumpmapscaling",
                                                            "bumpmaptexture",
                                                            "bumpyshinytexture",
                                                            "candownsample",
                                                            "caretindent",
                                                            "channelscale",
                                                            "channeltranslate",
                                                            "clamp",
                                                            "colorbumpmap",
                                                            "compresstexture",
                                                            "cube",
                                                            "decal",
                                                            "defaultbpp",
                                                            "defaultheight",
                                                            "defaultwidth",
                                                            "distort",
                                                            "distortangle",
                                                            "distortionamplitude",
                                                            "downsamplefactor",
                                                            "downsamplemax",
                                                            "downsamplemin",
                                                            "envmaptexture",
                                                            "filter",
                                                            "fontheight",
                                                            "forcecyclespeed",
                                                            "isbumpmap",
                                                            "isdiffusebumpmap",
                                                            "islightmap",
                                                            "isspecularbumpmap",
                                                            "maxsizehq",
                                                            "maxsizelq",
                                                            "minsizehq",
                                                            "minsizelq",
                                                            "mipmap",
                                                            "numchars",
                                                            "numcharspersheet",
                                                            "spacingb",
                                                            "spacingr",
                                                            "speed",
                                                            "texturewidth",
                                                            "wateralpha",
                                                            "waterheight",
                                                            "waterwidth",
                                                            "xbox_downsample",
                                                            "proceduralinfo",
                                                            "specularbumpmap",
                                                            "bumpyshinymap"};

// Counted lists of rows (a font's character rectangles): `keyword N` followed by N rows.
constexpr std::array<std::string_view, 2> kCountedLists{"upperleftcoords", "lowerrightcoords"};

bool contains(const auto& table, std::string_view key) {
  return std::find(table.begin(), table.end(), key) != table.end();
}

class TxiParser {
 public:
  TxiParser(std::string_view text, std::string_view file, TxiParseResult& out)
      : lines_(detail::splitLines(text)), out_(out), report_{&out.diagnostics, std::string(file)} {}

  void run() {
    for (std::size_t i = 0; i < lines_.size(); ++i) {
      const detail::Line& line = lines_[i];
      if (line.tokens.empty()) continue;
      const std::string key = lowerCopy(line.tokens[0]);
      if (contains(kCountedLists, key)) {
        i = skipRows(i);
        continue;
      }
      if (key == "blending") {
        const std::string v = value(line);
        if (v == "additive" || v == "punchthrough" || v == "default") {
          out_.txi.blending = v;
        } else if (!v.empty()) {
          warn(line, "blending '" + v + "' is not additive, punchthrough or default; ignored");
        }
      } else if (key == "proceduretype") {
        out_.txi.procedureType = value(line);
      } else if (key == "numx" || key == "numy") {
        float n = 1.0f;
        if (number(line, n)) {
          const float kept = std::clamp(std::round(n), 1.0f, 256.0f);
          if (kept != n)
            warn(line, key + " " + std::string(line.tokens[1]) + " is not 1..256; " +
                           std::to_string(static_cast<int>(kept)) + " is used");
          (key == "numx" ? out_.txi.numx : out_.txi.numy) = static_cast<std::uint32_t>(kept);
        }
      } else if (key == "fps") {
        float fps = 0.0f;
        if (number(line, fps)) {
          const float kept = std::clamp(fps, 0.0f, 1000.0f);
          if (kept != fps) warn(line, "fps is not 0..1000; it is clamped");
          out_.txi.fps = kept;
        }
      } else if (!contains(kIgnoredKeywords, key)) {
        warn(line, "unknown TXI keyword '" + std::string(line.tokens[0]) + "'; ignored");
      }
    }
  }

 private:
  std::vector<detail::Line> lines_;
  TxiParseResult& out_;
  detail::Reporter report_;

  void warn(const detail::Line& line, std::string message) {
    report_.warn(line.number, std::move(message));
  }

  // The line's first value, lower-case; empty (with a warning) when it has none.
  std::string value(const detail::Line& line) {
    if (line.tokens.size() < 2) {
      warn(line, "'" + std::string(line.tokens[0]) + "' has no value; ignored");
      return {};
    }
    return lowerCopy(line.tokens[1]);
  }

  bool number(const detail::Line& line, float& out) {
    if (line.tokens.size() < 2 || !parseFloat(line.tokens[1], out)) {
      warn(line, "'" + std::string(line.tokens[0]) + "' needs a number; ignored");
      return false;
    }
    return true;
  }

  // Skips the rows of the counted list at line `at`; returns the index of its last row.
  std::size_t skipRows(std::size_t at) {
    const detail::Line& line = lines_[at];
    float n = 0.0f;
    if (line.tokens.size() < 2 || !parseFloat(line.tokens[1], n) || n < 0.0f ||
        n != std::floor(n)) {
      warn(line, "'" + std::string(line.tokens[0]) + "' needs a row count; ignored");
      return at;
    }
    if (n > static_cast<float>(kMaxTxiListRows)) {
      warn(line, "'" + std::string(line.tokens[0]) + "' counts more than " +
                     std::to_string(kMaxTxiListRows) + " rows; its rows are read as keywords");
      return at;
    }
    const std::size_t rows = static_cast<std::size_t>(n);
    const std::size_t last = std::min(at + rows, lines_.size() - 1);
    if (at + rows > last) warn(line, "the file ends before the list's rows do");
    return last;
  }
};

}  // namespace

TxiParseResult parseTxi(std::string_view text, std::string_view fileName) {
  TxiParseResult result;
  TxiParser(text, fileName, result).run();
  return result;
}

std::vector<std::string> splitSearchPath(std::string_view list) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= list.size()) {
    std::size_t end = list.find_first_of(":;", start);
    if (end == std::string_view::npos) end = list.size();
    if (end > start) out.emplace_back(list.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

}  // namespace mote::nwn
