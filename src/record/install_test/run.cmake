# ctest record_install_consumer: install grainscope into a scratch prefix, build consumer.c
# against it twice (find_package and pkg-config), run both, read their traces with the CLI.
# Arguments: BUILD_DIR SOURCE_DIR WORK_DIR GENERATOR CLI
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})

# 1. CMake package
run(${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/build -G ${GENERATOR} -DCMAKE_PREFIX_PATH=${prefix})
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
set(ENV{GRAINSCOPE_TRACE} ${WORK_DIR}/cmake.gst)
run(${WORK_DIR}/build/consumer)
run(${CLI} info ${WORK_DIR}/cmake.gst)
string(FIND "${last_output}" "gst" found)
if(found EQUAL -1)
  message(FATAL_ERROR "grainscope info did not report a gst trace:\n${last_output}")
endif()

# 2. pkg-config
find_program(PKG_CONFIG pkg-config REQUIRED)
set(ENV{PKG_CONFIG_PATH} ${prefix}/lib/pkgconfig:${prefix}/lib/x86_64-linux-gnu/pkgconfig)
run(${PKG_CONFIG} --cflags --libs grainscope)
string(STRIP "${last_output}" flags)
separate_arguments(flags UNIX_COMMAND "${flags}")
file(GLOB libdirs ${prefix}/lib ${prefix}/lib/*-linux-gnu)
run(cc ${SOURCE_DIR}/consumer.c -o ${WORK_DIR}/consumer_pc ${flags} -Wl,-rpath,${prefix}/lib)
set(ENV{GRAINSCOPE_TRACE} ${WORK_DIR}/pc.gst)
run(${WORK_DIR}/consumer_pc)
run(${CLI} info ${WORK_DIR}/pc.gst)
message(STATUS "installed package works with find_package and pkg-config")
