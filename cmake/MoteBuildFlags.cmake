# SPDX-License-Identifier: MIT
# Compile flags shared by every Mote target, carried by one interface target instead of global
# CMAKE_CXX_FLAGS edits. Targets get it through mote_configure_target().

add_library(mote_build_flags INTERFACE)

target_compile_features(mote_build_flags INTERFACE cxx_std_20)

if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  # -Wconversion is on: Mote converts between fixed point, floats, 24-bit taps and packed keys, and a
  # silent narrowing there is exactly the bug that breaks determinism. -Wsign-conversion stays off:
  # with size_t spans against int indices it flags mostly noise and pushes casts everywhere.
  target_compile_options(mote_build_flags INTERFACE
    -Wall -Wextra -Wpedantic -Wshadow -Wconversion
    -Wnon-virtual-dtor -Wold-style-cast -Wcast-align -Woverloaded-virtual
    -Wdouble-promotion -Wformat=2 -Wimplicit-fallthrough
    # Determinism (ARCHITECTURE §4.3): no fused multiply-add that the scalar reference lacks.
    -ffp-contract=off
    # Debug information names files relative to the source tree, so two checkouts in different
    # folders compile to the same objects and share the compiler cache.
    "-fdebug-prefix-map=${PROJECT_SOURCE_DIR}=.")
  if(MOTE_WARNINGS_AS_ERRORS)
    target_compile_options(mote_build_flags INTERFACE -Werror)
  endif()
  # GCC 12 at -O3 reports -Wrestrict on std::string concatenation inside libstdc++
  # (char_traits.h memcpy, GCC PR 105651): false positives in code that is correct.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    target_compile_options(mote_build_flags INTERFACE -Wno-restrict)
  endif()
endif()

if(MOTE_ENABLE_ASSERTS)
  target_compile_definitions(mote_build_flags INTERFACE MOTE_ENABLE_ASSERTS=1)
endif()

if(MOTE_SANITIZE)
  string(REPLACE ";" "," _mote_sanitizers "${MOTE_SANITIZE}")
  target_compile_options(mote_build_flags INTERFACE
    -fsanitize=${_mote_sanitizers} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  target_link_options(mote_build_flags INTERFACE -fsanitize=${_mote_sanitizers})
  # A sanitizer's report needs file and line, which line tables give: full debug information would
  # add a quarter to the compile time of the sanitizer presets for variables nobody inspects there.
  target_compile_options(mote_build_flags INTERFACE "$<$<CONFIG:RelWithDebInfo>:-g1>")
endif()

# Fuzz builds instrument every Mote library for coverage, so libFuzzer is guided through the
# parsers themselves and not only through the fuzz targets' own files.
if(MOTE_BUILD_FUZZERS)
  target_compile_options(mote_build_flags INTERFACE -fsanitize=fuzzer-no-link)
endif()

# Applies the shared flags to a target without leaking them into exported usage requirements.
function(mote_configure_target target)
  target_link_libraries(${target} PRIVATE $<BUILD_INTERFACE:mote_build_flags>)
  set_target_properties(${target} PROPERTIES CXX_EXTENSIONS OFF)
endfunction()
