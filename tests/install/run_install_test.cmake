# cmake -DLAZYVIEW_BUILD_DIR=... -DCONSUMER_SOURCE_DIR=... -DWORK_DIR=... -DGENERATOR=...
#       -DCXX_COMPILER=... [-DCXX_FLAGS=...] [-DBUILD_TYPE=...] [-DCONFIG=...] -P run_install_test.cmake
#   1. cmake --install LAZYVIEW_BUILD_DIR --prefix WORK_DIR/prefix
#   2. configure CONSUMER_SOURCE_DIR with CMAKE_PREFIX_PATH=WORK_DIR/prefix (and nothing else
#      pointing at the source tree), build it, run it.
cmake_minimum_required(VERSION 3.25)

foreach(_var LAZYVIEW_BUILD_DIR CONSUMER_SOURCE_DIR WORK_DIR GENERATOR CXX_COMPILER)
  if(NOT DEFINED ${_var})
    message(FATAL_ERROR "run_install_test.cmake: -D${_var}=... is required")
  endif()
endforeach()
if(NOT BUILD_TYPE)
  set(BUILD_TYPE Release)
endif()

function(run_step what)
  message(STATUS "install test: ${what}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
  if(NOT _rc EQUAL 0)
    string(REPLACE ";" " " _cmd "${ARGN}")
    message(FATAL_ERROR "install test: ${what} failed (exit ${_rc})\ncommand: ${_cmd}\n${_out}")
  endif()
  message("${_out}")
endfunction()

set(_prefix ${WORK_DIR}/prefix)
set(_consumer_build ${WORK_DIR}/consumer-build)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

set(_config_arg)
if(CONFIG)
  set(_config_arg --config ${CONFIG})
endif()
run_step("install into ${_prefix}"
  ${CMAKE_COMMAND} --install ${LAZYVIEW_BUILD_DIR} --prefix ${_prefix} ${_config_arg})

if(NOT EXISTS ${_prefix}/include/lazyview/lazyview.hpp)
  message(FATAL_ERROR "install test: ${_prefix}/include/lazyview/lazyview.hpp was not installed")
endif()
file(GLOB_RECURSE _configs ${_prefix}/*/lazyviewConfig.cmake)
if(NOT _configs)
  message(FATAL_ERROR "install test: no lazyviewConfig.cmake under ${_prefix}")
endif()

run_step("configure the consumer"
  ${CMAKE_COMMAND} -S ${CONSUMER_SOURCE_DIR} -B ${_consumer_build}
    -G ${GENERATOR}
    -DCMAKE_BUILD_TYPE=${BUILD_TYPE}
    -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
    "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}"
    -DCMAKE_PREFIX_PATH=${_prefix}
    -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON)
run_step("build the consumer"
  ${CMAKE_COMMAND} --build ${_consumer_build} --config ${BUILD_TYPE})

find_program(_exe lazyview_consumer
  PATHS ${_consumer_build} ${_consumer_build}/${BUILD_TYPE} NO_DEFAULT_PATH REQUIRED)
run_step("run the consumer" ${_exe})
message(STATUS "install test: passed")
