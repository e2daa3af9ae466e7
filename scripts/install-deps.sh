#!/usr/bin/env bash
# Installs the Debian packages grainscope needs, and only those that are missing.
#   install-deps.sh          everything: build, every test, fuzzing, packaging (make test)
#   install-deps.sh --demo   what `make demo` builds and runs: the CLI and the example (tests,
#                            benchmarks, MPI, OpenMP, Python and the browser test not built)
# Runs as root here; elsewhere it uses sudo. Every package is listed in README.md with its reason.
set -euo pipefail

demo_packages=(
  # build: the CLI, the recording library and the example; python3 runs the demo's summary too
  cmake ninja-build g++ pkg-config python3
  libcli11-dev        # command-line parsing of the grainscope CLI
  libfmt-dev          # text formatting of reports
  nlohmann-json3-dev  # JSON output (--format json) and JSON inputs
  libsimdjson-dev     # the Chrome/Kineto reader parses each trace event with simdjson's On-Demand API
  libzstd-dev         # per-block compression in the native .gst format
  zlib1g-dev          # the Charm++ Projections reader: its per-PE logs are gzip files
  libsqlite3-dev      # the Nsight Systems reader: its exports are SQLite databases
  libopen-trace-format2-dev  # the OTF2 reader/writer, part of the CLI
)
packages=(
  "${demo_packages[@]}"
  clang
  libclang-rt-dev     # libFuzzer and the clang sanitizer runtimes (make fuzz)
  dpkg-dev            # make package: dpkg-shlibdeps gives the Debian packages their dependencies
  man-db              # the man pages' checks (ctest man_pages; make test-package: man grainscope-record)
  otf2-tools          # otf2-print for the OTF2 round-trip tests
  # MPI tracing: the PMPI wrapper library (src/mpi) is built against Open MPI, and its tests run
  # small C and Fortran MPI programs under mpirun; gfortran for the Fortran bindings' tests
  libopenmpi-dev openmpi-bin gfortran
  # OpenMP tracing: the OMPT tool (src/omp) needs LLVM's omp-tools.h and its tests an OpenMP
  # program built with clang -fopenmp against LLVM's libomp (GCC's libgomp has no OMPT)
  libomp-dev
  # the Python module (src/python): pybind11 to build it for Debian's python3, numpy and pandas
  # for its DataFrames, pytest for its tests
  pybind11-dev python3-numpy python3-pandas python3-pytest
  # tests and benchmarks
  libgtest-dev libgmock-dev libbenchmark-dev
  # the browser test of the HTML report (tests/browser): headless chromium, driven by npm's
  # playwright-core (pinned in tests/browser/package-lock.json; it never downloads a browser)
  chromium
)
if [ "${1:-}" = "--demo" ]; then
  packages=("${demo_packages[@]}")
elif [ $# -gt 0 ]; then
  echo "usage: install-deps.sh [--demo]" >&2
  exit 2
else
  # node and npm run the browser test; a node installed some other way (nodesource, nvm) is fine too.
  if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then packages+=(nodejs npm); fi
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing missing Debian packages: ${missing[*]}" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
