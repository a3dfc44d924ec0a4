# SPDX-License-Identifier: MIT
# The layer dependency rules of ARCHITECTURE.md §2, checked when the build is configured: a target
# that links a layer it may not depend on fails configuration with a message naming both.

# mote_layer_allow(<target> <allowed dependency>...) records what a layer target may link.
function(mote_layer_allow target)
  set_property(GLOBAL PROPERTY MOTE_LAYER_ALLOWED_${target} ${ARGN})
  set_property(GLOBAL APPEND PROPERTY MOTE_LAYER_TARGETS ${target})
endfunction()

# std only (threads are part of std); the build-flag interface target is not a dependency.
mote_layer_allow(mote_core Threads::Threads)
mote_layer_allow(mote_authoring mote_core nlohmann_json::nlohmann_json)
# mote_bytecode (ISA, programs, verifier, reference executor) sits between the compiler, which
# emits programs, and the runtime, which runs them: neither depends on the other.
mote_layer_allow(mote_bytecode mote_core)
mote_layer_allow(mote_compiler mote_core mote_authoring mote_bytecode)
# The VM's SIMD kernels use Highway (ARCHITECTURE §13), linked privately.
mote_layer_allow(mote_runtime mote_core mote_bytecode hwy::hwy)
mote_layer_allow(mote_render mote_core mote_runtime glm::glm PNG::PNG GIF::GIF)
mote_layer_allow(mote_lockstep mote_core mote_render)
mote_layer_allow(mote_import_nwn mote_core mote_authoring)

function(mote_check_layer_dependencies)
  get_property(targets GLOBAL PROPERTY MOTE_LAYER_TARGETS)
  foreach(target IN LISTS targets)
    if(NOT TARGET ${target})
      continue()
    endif()
    get_property(allowed GLOBAL PROPERTY MOTE_LAYER_ALLOWED_${target})
    get_target_property(direct ${target} LINK_LIBRARIES)
    get_target_property(iface ${target} INTERFACE_LINK_LIBRARIES)
    foreach(dep IN LISTS direct iface)
      if(NOT dep OR dep MATCHES "NOTFOUND$" OR dep MATCHES "mote_build_flags")
        continue()
      endif()
      string(REGEX REPLACE "^\\$<LINK_ONLY:(.*)>$" "\\1" dep "${dep}")
      if(NOT dep IN_LIST allowed)
        message(FATAL_ERROR
          "Layer rule broken: ${target} links '${dep}', but ARCHITECTURE.md §2 allows only: ${allowed}")
      endif()
    endforeach()
  endforeach()
endfunction()
