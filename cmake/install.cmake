# What `cmake --install build --prefix P` puts where, besides the recording library's own rules
# (src/record/CMakeLists.txt: libgrainscope, its headers, the CMake package, grainscope.pc), and
# the Debian packages CPack makes of it (`make package`, issue 23; split in issue 33). LIBDIR is
# lib/<multiarch triplet> on Debian (lib/x86_64-linux-gnu; the top CMakeLists.txt says why), lib
# elsewhere.
#
#   P/bin/grainscope                        the CLI (finds the wrapper libraries in P/LIBDIR)
#   P/LIBDIR/libgrainscope.so.0{,.1.0}, .so  the recording library (soname, file, -dev link)
#   P/LIBDIR/libgrainscope-mpi.so.0{,.1.0}, .so   the MPI wrappers; grainscope::mpi in the CMake
#                                           package (grainscopeMpiTargets.cmake)
#   P/LIBDIR/libgrainscope-{pthread,omp}.so.0{,.1.0}   preloaded or loaded by libomp, never linked:
#                                           no -dev link
#   P/LIBDIR/cmake/grainscope/, P/LIBDIR/pkgconfig/grainscope.pc
#   P/lib/python3/dist-packages/grainscope/ the Python module (src/python)
#   P/share/man/man1/grainscope*.1.gz       man pages: --help plus cmake/man/<page>.man
#   P/share/doc/grainscope/                 README, docs/
#
# Debian packages (CPack components; every install without a COMPONENT is `grainscope`):
#   grainscope          CLI, libgrainscope and its headers/CMake/pkg-config files, the pthread and
#                       OpenMP wrappers, man pages, docs; Suggests the two others
#   grainscope-mpi      libgrainscope-mpi and the grainscope-mpi command (Depends: Open MPI's library, grainscope)
#   python3-grainscope  the Python module (Depends: python3, python3-numpy, python3-pandas)

# Installed binaries find libgrainscope beside them (wrappers) or in ../lib (the CLI does not link
# it, the examples do), wherever the prefix is: no LD_LIBRARY_PATH. Every wrapper has a soname,
# which is the name `grainscope record` looks for (src/cli/cmd_record.cc).
install(TARGETS grainscope RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
foreach(wrapper gs_mpi gs_pthread gs_omp)
  if(TARGET ${wrapper})
    set_target_properties(${wrapper} PROPERTIES INSTALL_RPATH "$ORIGIN"
                          VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR})
  endif()
endforeach()
if(TARGET gs_mpi)
  # A program may also link it (before -lmpi) instead of preloading it: grainscope::mpi, in its
  # own export set so that the CMake package works without the grainscope-mpi package.
  set_target_properties(gs_mpi PROPERTIES EXPORT_NAME mpi)
  install(TARGETS gs_mpi EXPORT grainscopeMpiTargets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT mpi)
  install(EXPORT grainscopeMpiTargets NAMESPACE grainscope:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/grainscope
          COMPONENT mpi)
  export(EXPORT grainscopeMpiTargets NAMESPACE grainscope:: FILE ${GS_BUILD_PACKAGE_DIR}/grainscopeMpiTargets.cmake)
endif()
if(TARGET grainscope-mpi)  # the analysis on MPI ranks (src/scale/), with the MPI wrapper's package
  install(TARGETS grainscope-mpi RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT mpi)
endif()
foreach(wrapper gs_pthread gs_omp)
  if(TARGET ${wrapper})
    install(TARGETS ${wrapper} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} NAMELINK_SKIP)
  endif()
endforeach()
# The build tree's targets for its own package (src/record/CMakeLists.txt: GS_BUILD_PACKAGE_DIR).
export(EXPORT grainscopeTargets NAMESPACE grainscope:: FILE ${GS_BUILD_PACKAGE_DIR}/grainscopeTargets.cmake)

# Man pages: each command's --help as a man page, with the sections --help lacks written in
# cmake/man/<page>.man (cmake/man_pages.cmake), made after the CLI is built; not in the sanitizer
# and fuzz builds, whose CLI is not for installing.
if(NOT GRAINSCOPE_SANITIZE AND NOT GRAINSCOPE_TSAN AND NOT GRAINSCOPE_FUZZ)
set(gs_subcommands info report taskgraph gantt critpath replay compensate waits convert schedule predict record
    html dump)
set(gs_man_dir ${CMAKE_BINARY_DIR}/man)
set(gs_man_pages "")
set(gs_man_sources "")
set(gs_man_gz "")
foreach(page grainscope ${gs_subcommands})
  if(NOT page STREQUAL "grainscope")
    set(page grainscope-${page})
  endif()
  list(APPEND gs_man_pages ${gs_man_dir}/${page}.1 ${gs_man_dir}/${page}.1.gz)
  list(APPEND gs_man_gz ${gs_man_dir}/${page}.1.gz)
  list(APPEND gs_man_sources ${PROJECT_SOURCE_DIR}/cmake/man/${page}.man)
endforeach()
add_custom_command(OUTPUT ${gs_man_pages}
  COMMAND ${CMAKE_COMMAND} -DCLI=$<TARGET_FILE:grainscope> -DOUT=${gs_man_dir} -DPAGES=${PROJECT_SOURCE_DIR}/cmake/man
          "-DSUBCOMMANDS=${gs_subcommands}" -DVERSION=${PROJECT_VERSION} -P ${PROJECT_SOURCE_DIR}/cmake/man_pages.cmake
  DEPENDS grainscope ${PROJECT_SOURCE_DIR}/cmake/man_pages.cmake ${gs_man_sources}
  COMMENT "Generating the man pages from --help and cmake/man/"
  VERBATIM)
add_custom_target(gs_man_pages ALL DEPENDS ${gs_man_pages})
install(FILES ${gs_man_gz} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
if(GRAINSCOPE_BUILD_TESTS)
  # Each page formats without warnings, has its NAME line and sections, and the ENVIRONMENT of
  # grainscope(1) and grainscope-record(1) names every GRAINSCOPE_ variable the sources read.
  find_package(Python3 REQUIRED COMPONENTS Interpreter)
  add_test(NAME man_pages COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/man/check_man_pages.py
           ${gs_man_dir} ${PROJECT_SOURCE_DIR})
  set_tests_properties(man_pages PROPERTIES SKIP_RETURN_CODE 77 LABELS man)
endif()
endif()
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR})

# ---- Debian packages: make package -> build/<package>_<version>_<arch>.deb, one per component ----
# A user without MPI or Python installs `grainscope` alone: the MPI wrappers and the Python module,
# with their heavy dependencies (Open MPI; numpy, pandas), are packages of their own.
set(CPACK_GENERATOR DEB)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_PACKAGE_NAME grainscope)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "grainscope developers <grainscope@localhost>")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # <package>_<version>_<arch>.deb
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
# Dependencies from the binaries' shared libraries (dpkg-shlibdeps), per package. libgrainscope,
# which libgrainscope-mpi links, is in the sibling package grainscope: dpkg-shlibdeps finds it in
# that component's staging tree (it runs in <staging>/<component>), and that dependency is named
# below (dpkg-shlibdeps has no shlibs file for it: --ignore-missing-info).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ../grainscope/usr/${CMAKE_INSTALL_LIBDIR})
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_GRAINSCOPE_PACKAGE_NAME grainscope)
set(CPACK_DEBIAN_GRAINSCOPE_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_GRAINSCOPE_PACKAGE_SUGGESTS "grainscope-mpi, python3-grainscope")
# Control-file descriptions: a summary line, then lines under 80 characters (Debian policy 5.6.13).
string(CONCAT CPACK_DEBIAN_GRAINSCOPE_DESCRIPTION
    "measure and explain the performance of parallel programs\n"
    "grainscope records cheap timestamped events of threaded, OpenMP and MPI\n"
    "programs (or reads traces of Score-P/OTF2, PyTorch/Kineto and others) and\n"
    "explains them: profiles, Gantt charts, critical paths, wait states, replay,\n"
    "overhead compensation and scheduling projections.\n"
    "This package has the grainscope command, the recording library libgrainscope\n"
    "with its headers, CMake package and pkg-config file, and the recorders of\n"
    "threads and OpenMP programs.")
set(CPACK_DEBIAN_MPI_PACKAGE_NAME grainscope-mpi)
set(CPACK_DEBIAN_MPI_PACKAGE_SECTION devel)
# libgrainscope-mpi links libgrainscope (package grainscope); `grainscope record -np N` runs mpirun.
set(CPACK_DEBIAN_MPI_PACKAGE_DEPENDS "grainscope (= ${PROJECT_VERSION})")
set(CPACK_DEBIAN_MPI_PACKAGE_RECOMMENDS "openmpi-bin")
string(CONCAT CPACK_DEBIAN_MPI_DESCRIPTION
    "grainscope's recorder of MPI programs\n"
    "libgrainscope-mpi wraps MPI's calls (PMPI, C and Fortran bindings) and\n"
    "records them for grainscope: preloaded by `grainscope record -np N`, or\n"
    "linked (CMake target grainscope::mpi). The grainscope-mpi command analyses\n"
    "an OTF2 trace on N MPI ranks, each reading a share of its locations.")
set(CPACK_DEBIAN_PYTHON_PACKAGE_NAME python3-grainscope)
set(CPACK_DEBIAN_PYTHON_PACKAGE_SECTION python)
set(CPACK_DEBIAN_PYTHON_PACKAGE_DEPENDS "${GS_PYTHON_DEB_DEPENDS}")  # src/python/CMakeLists.txt
string(CONCAT CPACK_DEBIAN_PYTHON_DESCRIPTION
    "Python module of grainscope, the parallel-program trace analyser\n"
    "`import grainscope` reads a trace in any format grainscope reads and gives\n"
    "its events, messages and locations as pandas DataFrames, and every grainscope\n"
    "command's results.")

# What Debian asks of every package besides its files: /usr/share/doc/<package>/changelog.gz (a
# native package's Debian changelog, gzip -9n; dated by SOURCE_DATE_EPOCH when set), and for the
# packages with shared libraries the ldconfig trigger (CPack's own postinst calls ldconfig too).
set(gs_deb_packages grainscope grainscope)
if(TARGET gs_mpi)
  list(APPEND gs_deb_packages mpi grainscope-mpi)
endif()
if(TARGET gs_python)
  list(APPEND gs_deb_packages python python3-grainscope)
endif()
string(TIMESTAMP gs_changelog_date "%a, %d %b %Y %H:%M:%S +0000" UTC)
file(WRITE ${CMAKE_BINARY_DIR}/deb/triggers "activate-noawait ldconfig\n")
while(gs_deb_packages)
  list(POP_FRONT gs_deb_packages component package)
  set(dir ${CMAKE_BINARY_DIR}/deb/${package})
  file(WRITE ${dir}/changelog
       "${package} (${PROJECT_VERSION}) unstable; urgency=medium\n\n"
       "  * Built from the grainscope sources with CPack (make package).\n\n"
       " -- ${CPACK_PACKAGE_CONTACT}  ${gs_changelog_date}\n")
  execute_process(COMMAND gzip -9nf ${dir}/changelog RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "gzip -9nf ${dir}/changelog failed (${rc})")
  endif()
  install(FILES ${dir}/changelog.gz DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/${package} COMPONENT ${component})
endwhile()
set(CPACK_DEBIAN_GRAINSCOPE_PACKAGE_CONTROL_EXTRA ${CMAKE_BINARY_DIR}/deb/triggers)
set(CPACK_DEBIAN_MPI_PACKAGE_CONTROL_EXTRA ${CMAKE_BINARY_DIR}/deb/triggers)
include(CPack)
