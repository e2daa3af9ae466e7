# gs_expose(TARGET ENTRY... [EXCEPT HEADER...]): TARGET's public headers. Each ENTRY, relative to
# src/, is a folder (all its *.h) or one header; EXCEPT leaves headers out. They are linked into
# <build>/views/TARGET/ under their src/-relative paths, TARGET's PUBLIC (INTERFACE) include
# directory: `#include "analysis/waits/characterize.h"` reads the same, but only resolves in
# targets that link the library owning it.
function(gs_expose target)
  cmake_parse_arguments(X "" "" "EXCEPT" ${ARGN})
  set(view ${CMAKE_BINARY_DIR}/views/${target})
  file(REMOVE_RECURSE ${view})  # headers a target no longer exposes must not linger
  set(headers)
  foreach(entry ${X_UNPARSED_ARGUMENTS})
    if(IS_DIRECTORY ${GS_SRC}/${entry})
      file(GLOB found RELATIVE ${GS_SRC} CONFIGURE_DEPENDS ${GS_SRC}/${entry}/*.h)
      list(APPEND headers ${found})
    elseif(EXISTS ${GS_SRC}/${entry})
      list(APPEND headers ${entry})
    else()
      message(FATAL_ERROR "gs_expose(${target}): no header or folder src/${entry}")
    endif()
  endforeach()
  if(X_EXCEPT)
    list(REMOVE_ITEM headers ${X_EXCEPT})
  endif()
  foreach(h ${headers})
    get_filename_component(dir ${view}/${h} DIRECTORY)
    file(MAKE_DIRECTORY ${dir})
    file(CREATE_LINK ${GS_SRC}/${h} ${view}/${h} SYMBOLIC)
  endforeach()
  get_target_property(type ${target} TYPE)
  # The build tree's view only: an exported target (grainscope::mpi) carries no headers of it.
  if(type STREQUAL "INTERFACE_LIBRARY")
    target_include_directories(${target} INTERFACE $<BUILD_INTERFACE:${view}>)
  else()
    target_include_directories(${target} PUBLIC $<BUILD_INTERFACE:${view}>)
  endif()
endfunction()
