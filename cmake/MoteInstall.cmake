# SPDX-License-Identifier: MIT
# install() rules and the exported CMake package: a game does
#   find_package(mote CONFIG REQUIRED)
#   target_link_libraries(game PRIVATE mote::core)
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(MOTE_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/mote")

install(TARGETS mote_core mote_authoring mote_bytecode mote_compiler mote_runtime mote_sprite
  mote_render mote_lockstep mote_nwn
  EXPORT moteTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY "${PROJECT_SOURCE_DIR}/include/mote" DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY "${PROJECT_BINARY_DIR}/generated/include/mote" DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
if(TARGET mote)
  install(TARGETS mote RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
# The Vulkan backend, where it was built (volk is compiled into its own static library beside it).
if(TARGET mote_gpu)
  install(TARGETS mote_gpu mote_volk
    EXPORT moteTargets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  set(MOTE_PACKAGE_HAS_GPU ON)
else()
  set(MOTE_PACKAGE_HAS_GPU OFF)
endif()

install(EXPORT moteTargets NAMESPACE mote:: DESTINATION ${MOTE_INSTALL_CMAKEDIR})
configure_package_config_file(
  "${PROJECT_SOURCE_DIR}/cmake/moteConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/moteConfig.cmake"
  INSTALL_DESTINATION ${MOTE_INSTALL_CMAKEDIR})
write_basic_package_version_file(
  "${PROJECT_BINARY_DIR}/moteConfigVersion.cmake"
  COMPATIBILITY SameMinorVersion)
install(FILES
  "${PROJECT_BINARY_DIR}/moteConfig.cmake"
  "${PROJECT_BINARY_DIR}/moteConfigVersion.cmake"
  DESTINATION ${MOTE_INSTALL_CMAKEDIR})
