#!/usr/bin/env bash
# The GPU check of the CUDA kernels in one go, for a session that is lent an H200 (the `device` tool; about 3-5
# minutes of device time). Three steps:
#
# 1. Here, on the machine without a GPU (a few minutes of CPU):
#      scripts/gpu-check.sh prepare
#    builds build-gpu/ for sm_90 only with the CUDA runtime linked statically, so that bench/bench_kernels and
#    tests/test_kernels_cuda need nothing the GPU machine lacks, and copies the header-only libraries they include
#    (nlohmann/json, doctest) to .gpu-deps/ for the fallback build there.
# 2. On the lent machine, from the repository root (device tool `run`):
#      command:  scripts/gpu-check.sh run
#      carry:    ["build-gpu/bench/bench_kernels", "build-gpu/tests/test_kernels_cuda", ".gpu-deps"]
#      timeout_s: 540
#    It runs the CUDA-vs-CPU tests (every kernel against the CPU reference on the parameter grid) and the
#    benchmark (1 GiB of bf16 K+V per case), and leaves in $OUT: env.txt, cuda-tests.txt, bench.txt, h200.json.
#    If the carried programs do not run there, it compiles them with nvcc first (about a minute on 16 cores).
# 3. Here: copy <files_at>/h200.json to kernels/costs/h200.json, read bench.txt's targets, commit.
#
#    scripts/gpu-check.sh build-direct [DIR]   only the fallback compile (checks it here, without a GPU)
set -uo pipefail
cd "$(dirname "$0")/.."
mode=${1:-run}

direct_build() {  # $1: output dir. Compiles bench_kernels and test_kernels_cuda with nvcc and g++, no CMake.
  local dir=$1 cuda=${CUDA_HOME:-/usr/local/cuda} jobs
  jobs=$(nproc 2>/dev/null || echo 4)
  local nvcc=$cuda/bin/nvcc
  command -v nvcc >/dev/null 2>&1 && nvcc=$(command -v nvcc)
  mkdir -p "$dir/obj"
  local inc="-I. -I.gpu-deps/include -I$cuda/include"
  local cxx="g++ -std=c++20 -O3 -DNDEBUG -ffp-contract=off -DLYNX_HAVE_CUDA $inc"
  local cu="$nvcc -std=c++17 -O3 -DNDEBUG -gencode=arch=compute_90,code=[sm_90,compute_90] --prec-div=true --prec-sqrt=true -DLYNX_HAVE_CUDA $inc"
  local sources=(common/error.cpp common/json_reader.cpp common/atomic_file.cpp kernels/kv_format.cpp
                 kernels/kv_codec.cpp kernels/codec_loops.cpp kernels/attention_reference.cpp kernels/cost_table.cpp
                 kernels/kernel_bench.cpp kernels/cuda/device_memory.cpp kernels/cuda/kernel_bench_cuda.cpp
                 bench/bench_kernels.cpp tests/kernels_cuda/cuda_test_main.cpp tests/kernels_cuda/test_kv_cuda.cpp
                 tests/kernels_cuda/test_attention_cuda.cpp)
  local pids=() f o
  for f in "${sources[@]}"; do
    o=$dir/obj/$(echo "$f" | tr / _).o
    if [ "$f" = kernels/codec_loops.cpp ]; then $cxx -DLYNX_CODEC_AVX2 -c "$f" -o "$o" & else $cxx -c "$f" -o "$o" & fi
    pids+=($!)
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do sleep 0.2; done
  done
  $cxx -mavx2 -c kernels/codec_loops_avx2.cpp -o "$dir/obj/avx2.o" & pids+=($!)
  $cu -c kernels/cuda/kv_codec_cuda.cu -o "$dir/obj/kv_codec_cuda.o" & pids+=($!)
  $cu -c kernels/cuda/attention_cuda.cu -o "$dir/obj/attention_cuda.o" & pids+=($!)
  local failed=0
  for p in "${pids[@]}"; do wait "$p" || failed=1; done
  [ $failed -eq 0 ] || { echo "gpu-check: direct build failed"; return 1; }
  local lib=("$dir"/obj/common_*.o "$dir"/obj/kernels_*.o "$dir/obj/avx2.o" "$dir/obj/kv_codec_cuda.o"
             "$dir/obj/attention_cuda.o")
  local link="-L$cuda/lib64 -lcudart_static -ldl -lrt -lpthread"
  mkdir -p "$dir/bench" "$dir/tests"
  g++ -o "$dir/bench/bench_kernels" "$dir/obj/bench_bench_kernels.cpp.o" "${lib[@]}" $link &&
    g++ -o "$dir/tests/test_kernels_cuda" "$dir"/obj/tests_kernels_cuda_*.o "${lib[@]}" $link
}

case "$mode" in
  prepare)
    cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DLYNX_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 || exit 1
    cmake --build build-gpu -j "${JOBS:-1}" --target bench_kernels test_kernels_cuda || exit 1
    mkdir -p .gpu-deps/include
    cp -r /usr/include/nlohmann /usr/include/doctest .gpu-deps/include/
    ls -l build-gpu/bench/bench_kernels build-gpu/tests/test_kernels_cuda
    du -sh .gpu-deps
    ;;
  build-direct)
    direct_build "${2:-build-direct}"
    ;;
  run)
    out=${OUT:-gpu-check-out}
    mkdir -p "$out"
    { date -u; nvidia-smi; nvcc --version 2>/dev/null || /usr/local/cuda/bin/nvcc --version; uname -a; } > "$out/env.txt" 2>&1
    bin=build-gpu
    if ! "$bin/tests/test_kernels_cuda" --list-test-cases > /dev/null 2>&1 ||
       ! "$bin/bench/bench_kernels" --device cpu --quick --format bf16 > /dev/null 2>&1; then
      echo "gpu-check: the carried programs do not run here; compiling them with nvcc"
      bin=/tmp/gpu-check-build
      direct_build "$bin" 2>&1 | tail -n 30 || exit 1
    fi
    (command -v cuobjdump >/dev/null && cuobjdump --list-elf "$bin/bench/bench_kernels") >> "$out/env.txt" 2>&1
    echo "== CUDA kernels vs the CPU reference"
    start=$(date +%s)
    "$bin/tests/test_kernels_cuda" --duration=true 2>&1 | tee "$out/cuda-tests.txt"
    tests_rc=${PIPESTATUS[0]}
    echo "gpu-check: tests exit code $tests_rc (0 = passed, 77 = skipped: no GPU) in $(( $(date +%s) - start )) s"
    echo "== kernel benchmark"
    "$bin/bench/bench_kernels" --device cuda --out "$out/h200.json" 2>&1 | tee "$out/bench.txt"
    bench_rc=${PIPESTATUS[0]}
    echo "gpu-check: tests rc $tests_rc, benchmark rc $bench_rc"
    [ "$tests_rc" -eq 0 ] && [ "$bench_rc" -eq 0 ]
    ;;
  *)
    echo "usage: scripts/gpu-check.sh prepare | run | build-direct [DIR]" >&2
    exit 2
    ;;
esac
