# SPDX-License-Identifier: MIT
# The layer dependency rules of ARCHITECTURE.md §2, checked when the build is configured: a target
# that links a layer it may not depend on — directly, or through any chain of links — fails
# configuration with a message naming the chain.

# mote_layer_allow(<target> <allowed dependency>...) records what a layer target may link directly.
# What it may reach through others is the closure of these lists.
function(mote_layer_allow target)
  set_property(GLOBAL PROPERTY MOTE_LAYER_ALLOWED_${target} ${ARGN})
  set_property(GLOBAL APPEND PROPERTY MOTE_LAYER_TARGETS ${target})
endfunction()

# mote_layer_forbid(<target> <dependency>...) names what a layer must never reach by any path, even
# if a change to the allowed lists above would let it (the lockstep layer never runs the VM).
function(mote_layer_forbid target)
  set_property(GLOBAL PROPERTY MOTE_LAYER_FORBIDDEN_${target} ${ARGN})
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
# The sprite layer: cameras, the billboard basis, depth keys, the sprite batcher, images and the
# rasterizer, with no VM, so that the lockstep layer can draw without it.
mote_layer_allow(mote_sprite mote_core glm::glm PNG::PNG GIF::GIF)
mote_layer_allow(mote_render mote_core mote_runtime mote_sprite glm::glm PNG::PNG GIF::GIF)
mote_layer_allow(mote_lockstep mote_core mote_sprite)
mote_layer_forbid(mote_lockstep mote_runtime mote_render hwy::hwy)
mote_layer_allow(mote_nwn mote_core mote_authoring)
# The Vulkan backend runs verified bytecode; volk (compiled from Debian's source) loads Vulkan.
mote_layer_allow(mote_gpu mote_core mote_bytecode mote_sprite mote_render mote_runtime mote_volk
  Vulkan::Headers fmt::fmt-header-only)
mote_layer_allow(mote_volk Vulkan::Headers dl)

# The links of `target` as written (direct and interface), without generator-expression wrappers.
function(_mote_layer_links target out)
  set(links "")
  if(TARGET ${target})
    get_target_property(imported ${target} IMPORTED)
    get_target_property(type ${target} TYPE)
    set(props INTERFACE_LINK_LIBRARIES)
    if(NOT imported AND NOT type STREQUAL "INTERFACE_LIBRARY")
      list(APPEND props LINK_LIBRARIES)
    endif()
    foreach(prop IN LISTS props)
      get_target_property(values ${target} ${prop})
      foreach(dep IN LISTS values)
        if(NOT dep OR dep MATCHES "NOTFOUND$" OR dep MATCHES "mote_build_flags")
          continue()
        endif()
        string(REGEX REPLACE "^\\$<LINK_ONLY:(.*)>$" "\\1" dep "${dep}")
        if(dep MATCHES "^\\$<" OR dep MATCHES "^-")
          continue()  # a generator expression or a linker flag: no target to follow
        endif()
        # An alias (mote::core) stands for the target it names.
        if(TARGET ${dep})
          get_target_property(aliased ${dep} ALIASED_TARGET)
          if(aliased)
            set(dep ${aliased})
          endif()
        endif()
        list(APPEND links ${dep})
      endforeach()
    endforeach()
  endif()
  list(REMOVE_DUPLICATES links)
  set(${out} ${links} PARENT_SCOPE)
endfunction()

# The closure of the allowed lists from `target`: every layer it may reach.
function(_mote_layer_allowed_closure target out)
  set(reach "")
  set(queue ${target})
  while(queue)
    list(POP_FRONT queue current)
    get_property(allowed GLOBAL PROPERTY MOTE_LAYER_ALLOWED_${current})
    foreach(dep IN LISTS allowed)
      if(NOT dep IN_LIST reach)
        list(APPEND reach ${dep})
        list(APPEND queue ${dep})
      endif()
    endforeach()
  endwhile()
  set(${out} ${reach} PARENT_SCOPE)
endfunction()

function(mote_check_layer_dependencies)
  get_property(layers GLOBAL PROPERTY MOTE_LAYER_TARGETS)
  foreach(target IN LISTS layers)
    if(NOT TARGET ${target})
      continue()
    endif()
    get_property(allowed GLOBAL PROPERTY MOTE_LAYER_ALLOWED_${target})
    get_property(forbidden GLOBAL PROPERTY MOTE_LAYER_FORBIDDEN_${target})
    _mote_layer_allowed_closure(${target} may_reach)
    _mote_layer_links(${target} direct)
    foreach(dep IN LISTS direct)
      if(NOT dep IN_LIST allowed)
        message(FATAL_ERROR
          "Layer rule broken: ${target} links '${dep}', but ARCHITECTURE.md §2 allows only: ${allowed}")
      endif()
    endforeach()
    # Breadth-first over the real links, remembering how each target was reached.
    set(seen ${direct})
    set(queue ${direct})
    foreach(dep IN LISTS direct)
      set(path_${dep} "${target} -> ${dep}")
    endforeach()
    while(queue)
      list(POP_FRONT queue current)
      set(path "${path_${current}}")
      if(current IN_LIST forbidden OR
         (current IN_LIST layers AND NOT current IN_LIST may_reach))
        message(FATAL_ERROR
          "Layer rule broken: ${target} reaches '${current}' (${path}), but ARCHITECTURE.md §2 "
          "lets it reach only: ${may_reach}")
      endif()
      _mote_layer_links(${current} next)
      foreach(dep IN LISTS next)
        if(NOT dep IN_LIST seen)
          list(APPEND seen ${dep})
          list(APPEND queue ${dep})
          set(path_${dep} "${path} -> ${dep}")
        endif()
      endforeach()
    endwhile()
  endforeach()
endfunction()
