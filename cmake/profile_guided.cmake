# Profile-guided optimisation (GCC) of the code a simulation runs per event and per request.
#
# Why: the simulator's hot code and SimGrid's together overflow the CPU's 64 KiB first-level instruction cache. Under
# cachegrind, the Mooncake benchmark run misses it 25.5 M times against the bare SimGrid replay's 5.1 M
# (docs/benchmarks.md, "Where the rest of the gap is"), so the simulator's own code costs twice: its instructions,
# and SimGrid's steps slowed by the cache lines they lose. With a profile, GCC inlines and lays out blocks by measured
# counts, so fewer instructions run and fewer lines hold them.
#
# How: scripts/pgo-build.sh, which the Makefile's builds call, does three things:
#   1. configures LYNX_PGO=generate and builds lynxsim with the files listed by lynx_profile_guided instrumented;
#   2. runs the training set (tests/golden: one run of each feature the project pins) into a fresh profile folder;
#   3. configures LYNX_PGO=use and builds again.
# Only the listed files are compiled twice.
#
# What it does not change: a function the training does not run is compiled as it would be without a profile
# (-fprofile-partial-training), so a feature outside the training set is not slowed. The profile changes inlining
# and layout, never floating-point semantics (no -ffast-math, no contraction), so outputs are byte-identical to a
# build without it.
#
# A file edited after its profile was taken keeps building: GCC drops the profile of the functions that changed
# (-Wno-coverage-mismatch), and a file with no profile at all is built as without one (-Wno-missing-profile).
set(LYNX_PGO OFF CACHE STRING "Profile-guided optimisation of the per-event code: OFF, generate or use (GCC)")
set_property(CACHE LYNX_PGO PROPERTY STRINGS OFF generate use)
# Where the training runs write their profile: fixed inside the build folder, where scripts/pgo-build.sh clears it.
set(LYNX_PGO_DIR "${CMAKE_BINARY_DIR}/pgo-profile")

if(NOT LYNX_PGO STREQUAL "OFF")
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU" OR CMAKE_CXX_COMPILER_VERSION VERSION_LESS 10)
    message(WARNING "LYNX_PGO=${LYNX_PGO} needs GCC 10 or later; building without a profile")
    set(LYNX_PGO OFF)
  elseif(NOT LYNX_PGO MATCHES "^(generate|use)$")
    message(FATAL_ERROR "LYNX_PGO must be OFF, generate or use, not '${LYNX_PGO}'")
  endif()
endif()
message(STATUS "lynxsim: profile-guided optimisation ${LYNX_PGO}")

# lynx_profile_guided(TARGET FILE...): FILEs (relative to the calling folder) become part of the static library
# TARGET, compiled in an object library of their own (TARGET_profiled) with the profile's options. Their own target,
# because CMake's Makefile generator recompiles every source of a target when any source's options change; this
# way, switching between generate and use recompiles the listed files alone. They see TARGET's include folders,
# definitions and options.
function(lynx_profile_guided target)
  set(objects ${target}_profiled)
  add_library(${objects} OBJECT ${ARGN})
  target_include_directories(${objects} PRIVATE $<TARGET_PROPERTY:${target},INCLUDE_DIRECTORIES>)
  target_compile_definitions(${objects} PRIVATE $<TARGET_PROPERTY:${target},COMPILE_DEFINITIONS>)
  target_compile_options(${objects} PRIVATE $<TARGET_PROPERTY:${target},COMPILE_OPTIONS>)
  target_link_libraries(${target} PRIVATE ${objects})  # an object library linked directly: its objects join TARGET
  if(LYNX_PGO STREQUAL "generate")
    target_compile_options(${objects} PRIVATE "-fprofile-generate=${LYNX_PGO_DIR}" -fprofile-update=single)
    target_link_options(${target} INTERFACE -fprofile-generate)
  elseif(LYNX_PGO STREQUAL "use")
    target_compile_options(${objects} PRIVATE "-fprofile-use=${LYNX_PGO_DIR}" -fprofile-partial-training
                           -Wno-missing-profile -Wno-coverage-mismatch)
  endif()
endfunction()
