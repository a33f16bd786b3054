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

# lynx_cli_test(NAME name EXIT code MATCH regex [OR_EXIT code OR_MATCH regex] COMMAND program args...
#               [PROPERTIES prop value...]): a test of a command's exit status and output together. It passes when
# the command exits `code` and its output (stdout and stderr) matches `regex` (ctest's regular expressions), or,
# where the outcome depends on the machine, exits OR_EXIT with output matching OR_MATCH; anything else fails, a
# wrong exit status with the right text included (cmake/cli_test_run.cmake runs it). `program` may be a target
# (lynxsim); no argument may hold a ';' (the command travels as a CMake list; the regular expressions may). lynxsim
# exits 0 on success, 2 on bad input (one "lynxsim: error:" line), 3 on an internal error (app/main.cpp).
set(LYNX_CLI_TEST_RUNNER ${CMAKE_CURRENT_LIST_DIR}/cli_test_run.cmake)
function(lynx_cli_test)
  cmake_parse_arguments(PARSE_ARGV 0 T "" "NAME;EXIT;MATCH;OR_EXIT;OR_MATCH" "COMMAND;PROPERTIES")
  if(NOT T_NAME OR "${T_EXIT}" STREQUAL "" OR "${T_MATCH}" STREQUAL "" OR NOT T_COMMAND)
    message(FATAL_ERROR "lynx_cli_test(${T_NAME}): give NAME, EXIT, MATCH and COMMAND")
  endif()
  if(T_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "lynx_cli_test(${T_NAME}): unexpected arguments ${T_UNPARSED_ARGUMENTS}")
  endif()
  list(POP_FRONT T_COMMAND program)
  if(TARGET ${program})
    set(program $<TARGET_FILE:${program}>)
  endif()
  # Each expression is one quoted argument (never a list: a semicolon in it must not split it).
  if("${T_OR_EXIT}" STREQUAL "")
    add_test(NAME ${T_NAME} COMMAND ${CMAKE_COMMAND} "-DLYNX_EXIT=${T_EXIT}" "-DLYNX_MATCH=${T_MATCH}"
             -P ${LYNX_CLI_TEST_RUNNER} -- ${program} ${T_COMMAND})
  else()
    add_test(NAME ${T_NAME} COMMAND ${CMAKE_COMMAND} "-DLYNX_EXIT=${T_EXIT}" "-DLYNX_MATCH=${T_MATCH}"
             "-DLYNX_OR_EXIT=${T_OR_EXIT}" "-DLYNX_OR_MATCH=${T_OR_MATCH}"
             -P ${LYNX_CLI_TEST_RUNNER} -- ${program} ${T_COMMAND})
  endif()
  if(T_PROPERTIES)
    set_tests_properties(${T_NAME} PROPERTIES ${T_PROPERTIES})
  endif()
endfunction()
