// SPDX-License-Identifier: MIT
// Fuzzer for the Wavefront OBJ mesh reader: parseObj on arbitrary text must return a mesh that
// validates or a clean error naming the source — never crash, leak, hang or read out of bounds
// (ASan + UBSan in the asan preset).
#include <mote/render/mesh.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const mote::Result<mote::render::Mesh> mesh = mote::render::parseObj(text, "fuzz.obj");
  if (!mesh.ok()) {
    if (mesh.status().message().find("fuzz.obj") == std::string_view::npos) std::abort();
    return 0;
  }
  if (!mesh->validate("fuzz.obj").ok()) std::abort();
  return 0;
}
