# lynxsim: the two quick-start commands and a few conveniences.
#   make demo   install missing packages, build, run the default TTFT-vs-bandwidth experiment
#   make test   install missing packages, build, run every test (ctest)
#   make bench  build and run the benchmarks (figures printed as ratios to a baseline of the same run)
BUILD ?= build
JOBS  ?= $(shell nproc)
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=Release

.PHONY: deps data build demo test bench clean

deps:
	./scripts/install-deps.sh

# Data from other projects (traces, model, text, calibration) is read from the data folder, never committed;
# get-data.sh downloads only what that folder lacks (nothing on machines that have ../shared/data).
data:
	./scripts/get-data.sh --quiet

build: deps
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j $(JOBS)

demo: build data
	./scripts/demo.sh $(BUILD)

test: build data
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

bench: build
	./scripts/bench.sh $(BUILD)

clean:
	rm -rf $(BUILD)
