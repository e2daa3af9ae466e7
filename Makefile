# grainscope: the two commands of the README, and a few for developers.
#   make demo   set up, build, record the bundled example and analyse it
#   make test   set up, build, run every test; then again under ASan+UBSan
JOBS ?= $(shell nproc)
BUILD ?= build
ASAN_BUILD ?= build-asan
CMAKE_FLAGS ?=

.PHONY: demo test deps build asan test-fast test-asan golden-update clean browser-deps

deps:
	@bash scripts/install-deps.sh

build: deps
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

demo: build
	@bash scripts/demo.sh $(BUILD)/bin

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

test: test-fast test-asan

golden-update: build
	@python3 tests/golden/run_golden.py --grainscope $(BUILD)/bin/grainscope --update
	@git status --short tests/golden

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
