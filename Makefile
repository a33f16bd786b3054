# lynxsim: the two quick-start commands and a few conveniences.
#   make demo   install missing packages, build the simulator (build-demo/), run the default TTFT-vs-bandwidth experiment
#   make test   install missing packages, build, run every test (ctest)
#   make bench  build and run the benchmarks (figures printed as ratios to a baseline of the same run)
#   make figures  recompute every table of figures in README.md and fail with a diff where one differs
#                 (scripts/figures.sh; `scripts/figures.sh build` rewrites them)
#   make accuracy  rebuild and regenerate the committed accuracy file models/accuracy/stories260k.json
#   make golden  rerun the golden cases (tests/golden/) and rewrite their expected summary.json and requests.json
#   make asan-test  build the test suite with AddressSanitizer + UndefinedBehaviorSanitizer (build-asan/) and run it
#   make fuzz   build the libFuzzer harnesses with clang (build-fuzz/) and run each for FUZZ_SECONDS (default 600)
# demo, test, bench and the targets built on `build` compile the per-event code with a GCC profile trained on the
# golden cases (scripts/pgo-build.sh; outputs identical to a plain cmake build, the simulator 2-5% faster).
BUILD ?= build
JOBS  ?= $(shell nproc)
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=Release

.PHONY: deps data build demo test figures bench accuracy golden asan-build asan-test fuzz-build fuzz fuzz-short clean

deps:
	./scripts/install-deps.sh

# Data from other projects (traces, model, text, calibration) is read from the data folder, never committed;
# get-data.sh downloads only what that folder lacks (nothing on machines that have ../shared/data).
data:
	./scripts/get-data.sh --quiet

# Built with profile-guided optimisation of the per-event code, trained on the golden cases (scripts/pgo-build.sh,
# cmake/profile_guided.cmake): the training needs the data folder's trace.
build: deps data
	./scripts/pgo-build.sh $(BUILD) $(JOBS) all $(CMAKE_FLAGS)

# The demo builds the simulator alone (no tests, no CUDA kernels: the simulator reads the committed kernel cost
# tables, not the kernels) in its own folder, so the first result comes after the shortest build.
DEMO_BUILD ?= build-demo
demo: deps data
	./scripts/pgo-build.sh $(DEMO_BUILD) $(JOBS) lynxsim $(CMAKE_FLAGS) -DLYNX_CUDA=OFF
	./scripts/demo.sh $(DEMO_BUILD)

test: build data
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# README.md's tables of figures (each between `<!-- figures:NAME -->` markers) recomputed from the code, sweeps
# included (about 1 min on 2 cores); a table that differs is printed as a diff and fails. Tables of wall-clock
# measurements are marked as such and not compared. ctest's cli:readme-figures-fast checks the fast tables alone.
figures: build data
	./scripts/figures.sh --check --jobs $(JOBS) $(BUILD)

bench: build
	./scripts/bench.sh $(BUILD)

accuracy: build
	./scripts/accuracy.sh $(BUILD)

# The golden tests' expectations (tests/golden/README.md): a commit that runs this says in its message why the
# numbers moved. Builds only what the cases need.
golden: deps data
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j $(JOBS) --target lynxsim golden_compare
	./scripts/golden.sh $(BUILD)

# Sanitized test suite (CI runs it after `make test`). CUDA off: the sanitizers do not see device code, and the
# CUDA runtime's own allocations are reported as leaks. The environment it runs in is in scripts/asan-test.sh.
# Built with clang: it compiles the sanitized suite in half GCC's time, and its UBSan also checks float-to-int
# conversions (GCC's -fsanitize=undefined leaves out float-cast-overflow); `make asan-test ASAN_CXX=g++` for GCC's.
ASAN_BUILD ?= build-asan
ASAN_CXX ?= clang++
ASAN_CXXFLAGS = -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
# Both clang builds are unity builds (CMake's CMAKE_UNITY_BUILD: each target's sources compiled 8 to a file), which
# halves their compile time: the sanitizers' instrumentation and the JSON and doctest templates are compiled once per
# 8 files instead of once per file. Every file compiles alone too (the GCC builds are not unity builds).
UNITY ?= -DCMAKE_UNITY_BUILD=ON
asan-build: deps
	./scripts/install-deps.sh --clang
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_CXX_COMPILER=$(ASAN_CXX) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLYNX_CUDA=OFF $(UNITY) \
	  -DCMAKE_CXX_FLAGS="$(ASAN_CXXFLAGS)" -DCMAKE_EXE_LINKER_FLAGS="$(ASAN_CXXFLAGS)" \
	  -DCMAKE_MODULE_LINKER_FLAGS="$(ASAN_CXXFLAGS)"
	cmake --build $(ASAN_BUILD) -j $(JOBS)

asan-test: asan-build data
	./scripts/asan-test.sh $(ASAN_BUILD) $(JOBS)

# libFuzzer harnesses (fuzz/README.md): clang only, in their own build directory.
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 600
fuzz-build:
	./scripts/install-deps.sh --clang
	cmake -S . -B $(FUZZ_BUILD) -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLYNX_CUDA=OFF \
	  -DLYNX_FUZZ=ON $(UNITY)
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target lynx_fuzzers

fuzz: fuzz-build
	./fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

# The short run CI does: each harness for 20 s, from a fixed random seed.
fuzz-short: fuzz-build
	FUZZ_SEED=1 ./fuzz/run.sh $(FUZZ_BUILD) 20

clean:
	rm -rf $(BUILD) $(DEMO_BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
