# grainscope: the two commands of the README, and a few for developers.
#   make demo   set up, build, record the bundled example and analyse it
#   make test   set up, build, run every test; then again under ASan+UBSan; the recording
#               runtime's tests under TSan; every fuzz target for a few seconds
#   make fuzz-long FUZZ_SECONDS=600   each fuzz target for longer (docs/robustness.md)
#   make package    the Debian packages, build/<package>_<version>_<arch>.deb (cmake/install.cmake)
#   make test-package   those packages installed with apt, checked at /usr, purged (root or sudo)
JOBS ?= $(shell nproc)
BUILD ?= build
ASAN_BUILD ?= build-asan
TSAN_BUILD ?= build-tsan
FUZZ_BUILD ?= build-fuzz
# Seconds per fuzz target: 14 targets x 8 s is the ~1.5 minutes `make test` spends fuzzing.
FUZZ_SECONDS ?= 8
# The threaded code: the recording runtime (its tests include the 8-thread stress test), the
# readers of parts, and every command on four threads (gs_cli_threads_tests).
TSAN_TARGETS = gs_record_tests gs_record_crash_child gs_record_stress_tests gs_onthefly_tests \
  gs_format_gst_tests gs_otf2_tests gs_chrome_tests gs_cli_threads_tests
CMAKE_FLAGS ?=

.PHONY: demo demo-deps demo-build test deps build package test-package asan test-fast test-asan tsan test-tsan fuzz-build fuzz fuzz-long golden-update clean browser-deps

deps:
	@bash scripts/install-deps.sh

# Tests and benchmarks on explicitly: `make demo` may have configured the same tree without them.
build: deps
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGRAINSCOPE_BUILD_TESTS=ON \
	  -DGRAINSCOPE_BUILD_BENCH=ON $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

# The demo needs the CLI and the example only (scripts/demo.sh), and the packages that build them:
# no tests or benchmarks configured (they need GTest, benchmark), no other target built. The same
# tree as `make build`, which builds the rest into it later.
demo-deps:
	@bash scripts/install-deps.sh --demo

demo-build: demo-deps
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGRAINSCOPE_BUILD_TESTS=OFF \
	  -DGRAINSCOPE_BUILD_BENCH=OFF $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS) --target grainscope example_wavefront

demo: demo-build
	@bash scripts/demo.sh $(BUILD)/bin

# The Debian packages (CPack, one per component): $(BUILD)/<package>_<version>_<arch>.deb.
package: build
	@cd $(BUILD) && cpack

# The packages installed into this machine with apt, checked as a user has them (/usr), and purged
# again (ctest record_consumer_apt, src/record/install_test/run.cmake). Root or sudo.
test-package: build
	@GRAINSCOPE_TEST_APT=1 ctest --test-dir $(BUILD) --output-on-failure -R '^record_consumer_apt$$'

# The browser test's playwright-core (tests/browser/package-lock.json), when npm exists; a few
# seconds, and nothing when node_modules is newer than the lock file.
browser-deps:
	@if command -v npm >/dev/null 2>&1; then cd tests/browser && \
	  { [ node_modules/.package-lock.json -nt package-lock.json ] || npm ci --no-audit --no-fund --silent; }; fi

test-fast: build browser-deps
	@ctest --test-dir $(BUILD) -j $(JOBS) --output-on-failure

asan: deps
	@cmake -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DGRAINSCOPE_SANITIZE=ON \
	  -DGRAINSCOPE_BUILD_BENCH=OFF -DGRAINSCOPE_BROWSER_TESTS=OFF $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(ASAN_BUILD) -j $(JOBS)

test-asan: asan
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:handle_segv=0:handle_abort=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --test-dir $(ASAN_BUILD) -j $(JOBS) --output-on-failure

# ThreadSanitizer: only the recording runtime, the readers that read parts on several threads
# (rank directories, OTF2 location batches), every command's parallel parts on four threads
# (CliThreads) and what their tests need, so it stays quick. The crash tests need their own
# SIGSEGV/SIGABRT handlers (handle_segv=0, as for ASan); the stress test runs at a quarter of its
# default size (TSan slows recording and reading ~10x).
tsan: deps
	@cmake -S . -B $(TSAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGRAINSCOPE_TSAN=ON \
	  -DGRAINSCOPE_BUILD_BENCH=OFF $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(TSAN_BUILD) -j $(JOBS) --target $(TSAN_TARGETS)

test-tsan: tsan
	@TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:handle_segv=0:handle_sigbus=0:handle_abort=0 \
	  GRAINSCOPE_STRESS_EVENTS=100000 ctest --test-dir $(TSAN_BUILD) -j $(JOBS) --output-on-failure -R '^(RecordRuntime|Flush/RecordSettings|RecordCrash|SeedCompat|StressRecording|OnTheFly|GstDirectoryReader|Otf2Parallel|Otf2Share|ChromeRankDirectory|CliThreads)\.'

# libFuzzer targets (clang): built in their own directory, run for FUZZ_SECONDS each.
fuzz-build: deps
	@CC=clang CXX=clang++ cmake -S . -B $(FUZZ_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DGRAINSCOPE_FUZZ=ON -DGRAINSCOPE_BUILD_TESTS=OFF -DGRAINSCOPE_BUILD_BENCH=OFF $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(FUZZ_BUILD) -j $(JOBS) --target fuzz_all

fuzz: fuzz-build
	@bash fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

# 600 s per target unless FUZZ_SECONDS=N is given on the command line (which wins).
fuzz-long: FUZZ_SECONDS = 600
fuzz-long: fuzz-build
	@bash fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

test: test-fast test-package test-asan test-tsan fuzz

golden-update: build
	@python3 tests/golden/run_golden.py --grainscope $(BUILD)/bin/grainscope --update
	@git status --short tests/golden

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(TSAN_BUILD) $(FUZZ_BUILD)
