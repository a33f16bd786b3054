# Runs one command-line test (lynx_cli_test, cmake/lynx_test.cmake): the command after "--", then checks both its
# exit status and its output (stdout and stderr together, as ctest's PASS_REGULAR_EXPRESSION reads them, with the
# same regular-expression engine):
#
#   cmake -DLYNX_EXIT=CODE -DLYNX_MATCH=REGEX [-DLYNX_OR_EXIT=CODE -DLYNX_OR_MATCH=REGEX] -P cli_test_run.cmake -- COMMAND...
#
# It passes when the command exits CODE and its output matches REGEX, or, where a second outcome is given (a test
# whose outcome depends on the machine, e.g. whether a GPU is visible), exits that outcome's CODE with output
# matching its REGEX. The output is printed either way, then one line saying what was expected and what came.
cmake_minimum_required(VERSION 3.24)  # the project's policies (quoted arguments are never variable names)
if(NOT DEFINED LYNX_EXIT OR NOT DEFINED LYNX_MATCH)
  message(FATAL_ERROR "cli_test_run.cmake: give -DLYNX_EXIT=CODE and -DLYNX_MATCH=REGEX")
endif()

set(command)
set(after_separator FALSE)
math(EXPR last "${CMAKE_ARGC} - 1")
foreach(i RANGE ${last})
  set(argument "${CMAKE_ARGV${i}}")
  if(after_separator)
    if(argument MATCHES ";")
      message(FATAL_ERROR "cli_test_run.cmake: an argument holds a semicolon, which a CMake list cannot keep: ${argument}")
    endif()
    list(APPEND command "${argument}")
  elseif(argument STREQUAL "--")
    set(after_separator TRUE)
  endif()
endforeach()
if(NOT command)
  message(FATAL_ERROR "cli_test_run.cmake: no command after --")
endif()

execute_process(COMMAND ${command} RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE output)
message("${output}")

# `status` is the exit code, or a text such as "Segmentation fault" when a signal ended the command.
set(passed FALSE)
if("${status}" STREQUAL "${LYNX_EXIT}" AND "${output}" MATCHES "${LYNX_MATCH}")
  set(passed TRUE)
endif()
set(expected "exit ${LYNX_EXIT} with output matching /${LYNX_MATCH}/")
if(DEFINED LYNX_OR_EXIT)
  if("${status}" STREQUAL "${LYNX_OR_EXIT}" AND "${output}" MATCHES "${LYNX_OR_MATCH}")
    set(passed TRUE)
  endif()
  string(APPEND expected ", or exit ${LYNX_OR_EXIT} with output matching /${LYNX_OR_MATCH}/")
endif()
if(passed)
  message("cli test passed: exit ${status}, output as expected")
else()
  set(matched "does not match")
  if("${output}" MATCHES "${LYNX_MATCH}")
    set(matched "matches")
  endif()
  message(FATAL_ERROR "cli test failed: the command ended with \"${status}\" and its output ${matched} /${LYNX_MATCH}/; "
                      "expected ${expected}")
endif()
