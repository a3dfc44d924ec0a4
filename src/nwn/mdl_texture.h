// SPDX-License-Identifier: MIT
// Finding an NWN model's files the way the game names them: directories indexed by lower-case
// file name (resource names are case-insensitive, file systems mostly are not), and textures with
// their TXI files along a search path.
#pragma once

#include <mote/authoring/diagnostic.h>
#include <mote/nwn/mdl.h>

#include <initializer_list>
#include <map>
#include <string>
#include <vector>

namespace mote::nwn::detail {

/// The files of one directory by lower-case name, each with its absolute path; listed on first
/// use. An unreadable directory has no files.
class DirectoryIndex {
 public:
  explicit DirectoryIndex(std::string directory) : directory_(std::move(directory)) {}
  /// The absolute path of the file whose lower-cased name is `lowerName`, or null.
  const std::string* find(const std::string& lowerName);
  const std::string& directory() const { return directory_; }

 private:
  std::string directory_;
  std::map<std::string, std::string> files_;
  bool listed_ = false;
};

/// Directories searched in order for a file by lower-case name.
class SearchPath {
 public:
  explicit SearchPath(const std::vector<std::string>& directories);
  bool empty() const { return directories_.empty(); }
  /// The directories, comma-separated (for messages).
  std::string describe() const;
  /// The first directory's file among `lowerNames` (in a directory, the first name it has wins);
  /// null when no directory has any.
  const std::string* find(std::initializer_list<std::string> lowerNames);

 private:
  std::vector<DirectoryIndex> directories_;
};

/// A texture as the search path has it: its file and its TXI (empty paths: not found).
struct FoundTexture {
  std::string path;
  std::string txiPath;
  Txi txi;
};

/// Textures along a search path: in each directory in turn <name>.png, else .tga, else .dds; the
/// first directory with one wins; <name>.txi likewise. Each name is looked up (and its TXI read
/// and parsed) once.
class TextureFinder {
 public:
  explicit TextureFinder(const std::vector<std::string>& searchPath) : path_(searchPath) {}
  bool empty() const { return path_.empty(); }
  std::string describe() const { return path_.describe(); }
  /// The texture `name`; the TXI's warnings (or why it could not be read) go to `diagnostics`
  /// the first time a name is looked up.
  const FoundTexture& find(const std::string& name,
                           std::vector<authoring::Diagnostic>& diagnostics);

 private:
  SearchPath path_;
  std::map<std::string, FoundTexture> found_;  // lower-case name → what was found
};

}  // namespace mote::nwn::detail
