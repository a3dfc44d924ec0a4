// SPDX-License-Identifier: MIT
// Model files by case-insensitive name and textures along a search path (mdl_texture.h).
#include "mdl_texture.h"

#include "mdl_tables.h"

#include <mote/core/file.h>

#include <filesystem>

namespace mote::nwn::detail {

const std::string* DirectoryIndex::find(const std::string& lowerName) {
  if (!listed_) {
    listed_ = true;
    std::error_code ec;
    for (std::filesystem::directory_iterator it(directory_, ec), end; !ec && it != end;
         it.increment(ec)) {
      files_.emplace(lowerCopy(it->path().filename().string()),
                     std::filesystem::absolute(it->path(), ec).string());
    }
  }
  const auto it = files_.find(lowerName);
  return it == files_.end() ? nullptr : &it->second;
}

SearchPath::SearchPath(const std::vector<std::string>& directories) {
  for (const std::string& directory : directories)
    if (!directory.empty()) directories_.emplace_back(directory);
}

std::string SearchPath::describe() const {
  std::string out;
  for (const DirectoryIndex& d : directories_)
    out += (out.empty() ? "" : ", ") + d.directory();
  return out;
}

const std::string* SearchPath::find(std::initializer_list<std::string> lowerNames) {
  for (DirectoryIndex& d : directories_)
    for (const std::string& name : lowerNames)
      if (const std::string* path = d.find(name)) return path;
  return nullptr;
}

const FoundTexture& TextureFinder::find(const std::string& name,
                                        std::vector<authoring::Diagnostic>& diagnostics) {
  const std::string key = lowerCopy(name);
  if (const auto it = found_.find(key); it != found_.end()) return it->second;
  FoundTexture& found = found_[key];
  if (const std::string* path = path_.find({key + ".png", key + ".tga", key + ".dds"}))
    found.path = *path;
  if (const std::string* path = path_.find({key + ".txi"})) found.txiPath = *path;
  if (!found.txiPath.empty()) {
    const Result<std::vector<std::uint8_t>> bytes = readFile(found.txiPath, kMaxTxiFileBytes);
    if (!bytes.ok()) {
      diagnostics.push_back({authoring::Severity::Warning,
                             {},
                             "cannot read it (" + bytes.status().message() + "); ignored",
                             found.txiPath,
                             0,
                             0});
    } else {
      const std::string_view text(reinterpret_cast<const char*>(bytes->data()), bytes->size());
      TxiParseResult parsed = parseTxi(text, found.txiPath);
      found.txi = parsed.txi;
      diagnostics.insert(diagnostics.end(), parsed.diagnostics.begin(), parsed.diagnostics.end());
    }
  }
  return found;
}

}  // namespace mote::nwn::detail
