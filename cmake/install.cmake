# What `cmake --install build --prefix P` puts where, besides the recording library's own rules
# (src/record/CMakeLists.txt: libgrainscope, its headers, the CMake package, grainscope.pc), and
# the Debian package CPack makes of it (`make package`, issue 23).
#
#   P/bin/grainscope                       the CLI (finds the wrapper libraries in P/lib*)
#   P/lib*/libgrainscope-{mpi,pthread,omp}.so   the wrapper libraries; grainscope::mpi in the package
#   P/share/man/man1/grainscope*.1         man pages generated from --help
#   P/share/doc/grainscope/                README, docs/
include(GNUInstallDirs)

# Installed binaries find libgrainscope beside them (wrappers) or in ../lib (the CLI does not link
# it, the examples do), wherever the prefix is: no LD_LIBRARY_PATH.
install(TARGETS grainscope RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
foreach(wrapper gs_mpi gs_pthread gs_omp)
  if(TARGET ${wrapper})
    set_target_properties(${wrapper} PROPERTIES INSTALL_RPATH "$ORIGIN")
  endif()
endforeach()
if(TARGET gs_mpi)
  # A program may also link it (before -lmpi) instead of preloading it: grainscope::mpi.
  set_target_properties(gs_mpi PROPERTIES EXPORT_NAME mpi)
  install(TARGETS gs_mpi EXPORT grainscopeTargets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()
foreach(wrapper gs_pthread gs_omp)
  if(TARGET ${wrapper})
    install(TARGETS ${wrapper} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  endif()
endforeach()
# The build tree's targets for its own package (src/record/CMakeLists.txt: GS_BUILD_PACKAGE_DIR).
export(EXPORT grainscopeTargets NAMESPACE grainscope:: FILE ${GS_BUILD_PACKAGE_DIR}/grainscopeTargets.cmake)

# Man pages: `grainscope --help` and each subcommand's, as roff (cmake/man_pages.cmake), made
# after the CLI is built; not in the sanitizer and fuzz builds, whose CLI is not for installing.
if(NOT GRAINSCOPE_SANITIZE AND NOT GRAINSCOPE_TSAN AND NOT GRAINSCOPE_FUZZ)
set(gs_subcommands info report taskgraph gantt critpath replay compensate waits convert schedule predict record
    html dump)
set(gs_man_dir ${CMAKE_BINARY_DIR}/man)
set(gs_man_pages ${gs_man_dir}/grainscope.1)
foreach(sub ${gs_subcommands})
  list(APPEND gs_man_pages ${gs_man_dir}/grainscope-${sub}.1)
endforeach()
add_custom_command(OUTPUT ${gs_man_pages}
  COMMAND ${CMAKE_COMMAND} -DCLI=$<TARGET_FILE:grainscope> -DOUT=${gs_man_dir} "-DSUBCOMMANDS=${gs_subcommands}"
          -DVERSION=${PROJECT_VERSION} -P ${PROJECT_SOURCE_DIR}/cmake/man_pages.cmake
  DEPENDS grainscope ${PROJECT_SOURCE_DIR}/cmake/man_pages.cmake
  COMMENT "Generating the man pages from --help"
  VERBATIM)
add_custom_target(gs_man_pages ALL DEPENDS ${gs_man_pages})
install(FILES ${gs_man_pages} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
endif()
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR})

# ---- Debian package: make package -> build/grainscope_<version>_amd64.deb ----------------------
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME grainscope)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "grainscope developers <grainscope@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "measure and explain the performance of parallel programs")
string(CONCAT CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "grainscope records cheap timestamped events of threaded, OpenMP and MPI programs (or reads\n"
    "traces of Score-P/OTF2, PyTorch/Kineto and others) and explains them: profiles, Gantt charts,\n"
    "critical paths, wait states, replay, overhead compensation and scheduling projections.")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # grainscope_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
# Dependencies from the binaries' shared libraries (dpkg-shlibdeps); the package's own libraries
# are found in the staging tree.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_STRIP_FILES ON)
include(CPack)
