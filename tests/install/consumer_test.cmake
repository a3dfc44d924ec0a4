# SPDX-License-Identifier: MIT
# Installs the build tree into a scratch prefix, then configures, builds and runs two projects against
# it: the consumer (known answers from the lockstep, core and authoring layers) and examples/hello
# (the README's hello-world: compile bonfire.json, tick it, write a PNG).
# Run by CTest: cmake -DBUILD_DIR=... -DSOURCE_DIR=... -DWORK_DIR=... -DCXX_COMPILER=... -P consumer_test.cmake
file(REMOVE_RECURSE "${WORK_DIR}")
execute_process(COMMAND "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${WORK_DIR}/prefix"
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed (${rc})")
endif()

# build_against_install(<name> <source folder>): configures and builds a project against the prefix.
function(build_against_install name source)
  execute_process(COMMAND "${CMAKE_COMMAND}" -S "${source}" -B "${WORK_DIR}/${name}-build" -G Ninja
                          "-DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix" "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "configuring ${name} against the installed package failed (${rc})")
  endif()
  execute_process(COMMAND "${CMAKE_COMMAND}" --build "${WORK_DIR}/${name}-build" RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "building ${name} failed (${rc})")
  endif()
endfunction()

build_against_install(consumer "${SOURCE_DIR}/tests/install/consumer")
execute_process(COMMAND "${WORK_DIR}/consumer-build/consumer" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the consumer ran but its checks failed (${rc})")
endif()

build_against_install(hello "${SOURCE_DIR}/examples/hello")
execute_process(COMMAND "${WORK_DIR}/hello-build/hello" "${SOURCE_DIR}/examples/bonfire.json"
                        "${WORK_DIR}/hello.png"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out)
message(STATUS "${out}")
if(NOT rc EQUAL 0 OR NOT out MATCHES "hello: [1-9][0-9]* particles after 120 ticks, [1-9][0-9]* drawn")
  message(FATAL_ERROR "examples/hello failed (${rc}): ${out}")
endif()
file(READ "${WORK_DIR}/hello.png" signature LIMIT 8 HEX)
if(NOT signature STREQUAL "89504e470d0a1a0a")
  message(FATAL_ERROR "examples/hello wrote no PNG (${WORK_DIR}/hello.png)")
endif()
