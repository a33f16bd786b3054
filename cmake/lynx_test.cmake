# lynx_add_test(NAME sources... LIBS libs...): one doctest executable, each test case registered with ctest.
include(/usr/lib/cmake/doctest/doctest.cmake OPTIONAL RESULT_VARIABLE LYNX_DOCTEST_CMAKE)
function(lynx_add_test name)
  cmake_parse_arguments(T "" "" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${CMAKE_SOURCE_DIR}/tests/doctest_main.cpp ${T_SOURCES})
  target_link_libraries(${name} PRIVATE doctest::doctest ${T_LIBS})
  target_compile_definitions(${name} PRIVATE LYNX_DATA_DIR="${LYNX_DATA_DIR}"
                                             LYNX_BINARY_DIR="${CMAKE_BINARY_DIR}")
  doctest_discover_tests(${name} TEST_PREFIX "${name}:" WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
endfunction()
