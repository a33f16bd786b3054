# lynx_add_test(NAME SOURCES sources... LIBS libs... [MAIN main.cpp] [PROPERTIES prop value...]): one doctest
# executable, each test case registered with ctest. MAIN replaces the plain doctest main; PROPERTIES go on every
# test case (e.g. SKIP_RETURN_CODE 77 for tests that need a GPU).
include(/usr/lib/cmake/doctest/doctest.cmake OPTIONAL RESULT_VARIABLE LYNX_DOCTEST_CMAKE)
function(lynx_add_test name)
  cmake_parse_arguments(T "" "MAIN" "SOURCES;LIBS;PROPERTIES" ${ARGN})
  if(NOT T_MAIN)
    set(T_MAIN ${CMAKE_SOURCE_DIR}/tests/doctest_main.cpp)
  endif()
  add_executable(${name} ${T_MAIN} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE doctest::doctest ${T_LIBS})
  target_compile_definitions(${name} PRIVATE LYNX_SOURCE_DIR="${CMAKE_SOURCE_DIR}"
                                             LYNX_BINARY_DIR="${CMAKE_BINARY_DIR}")
  if(T_PROPERTIES)
    doctest_discover_tests(${name} TEST_PREFIX "${name}:" WORKING_DIRECTORY ${CMAKE_BINARY_DIR}
                           PROPERTIES ${T_PROPERTIES})
  else()
    doctest_discover_tests(${name} TEST_PREFIX "${name}:" WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
  endif()
endfunction()
