# cmake -DSETTINGS=<file> -DCASE=<file.cpp> -DMODE=fail|pass -P run_case.cmake
# Compiles CASE with -fsyntax-only.
# MODE=fail: the compile must fail, every "// expect: <regex>" line at the top of CASE must match
#   one line of the compiler output, and every failed lazyview static_assert in the output must
#   match the first expectation (no second, different diagnostic).
# MODE=pass: the compile must succeed without warnings.
cmake_minimum_required(VERSION 3.25)

foreach(_var SETTINGS CASE MODE)
  if(NOT DEFINED ${_var})
    message(FATAL_ERROR "run_case.cmake: -D${_var}=... is required")
  endif()
endforeach()
include(${SETTINGS})

# Split off the first line of text without CMake list semantics (compiler output holds ';' and
# '['). A function, not a macro: macro arguments would be re-parsed.
function(_first_line text out_line out_rest found)
  string(FIND "${text}" "\n" _nl)
  if(_nl EQUAL -1)
    set(_line "${text}")
    set(_rest "")
  else()
    string(SUBSTRING "${text}" 0 ${_nl} _line)
    math(EXPR _after "${_nl} + 1")
    string(SUBSTRING "${text}" ${_after} -1 _rest)
  endif()
  if("${text}" STREQUAL "")
    set(${found} FALSE PARENT_SCOPE)
  else()
    set(${found} TRUE PARENT_SCOPE)
  endif()
  set(${out_line} "${_line}" PARENT_SCOPE)
  set(${out_rest} "${_rest}" PARENT_SCOPE)
endfunction()

# --- expectations: the leading "// expect: " lines of the case --------------------------------
file(READ "${CASE}" _source)
set(_expect_count 0)
set(_rest "${_source}")
while(TRUE)
  _first_line("${_rest}" _line _rest _found)
  if(NOT _found OR NOT _line MATCHES "^// expect: ")
    break()
  endif()
  string(REGEX REPLACE "^// expect: " "" _re "${_line}")
  string(REGEX REPLACE "[ \t\r]+$" "" _re "${_re}")
  set(_expect_${_expect_count} "${_re}")
  math(EXPR _expect_count "${_expect_count} + 1")
endwhile()

if(MODE STREQUAL "fail" AND _expect_count EQUAL 0)
  message(FATAL_ERROR "${CASE}: no '// expect: <regex>' line at the top of the file")
endif()

# --- the compile ------------------------------------------------------------------------------
separate_arguments(_flags UNIX_COMMAND "${CF_FLAGS}")
set(_command "${CF_COMPILER}" ${CF_STD_FLAG} ${_flags} ${CF_WARNING_FLAGS} ${CF_OPTIONS})
foreach(_def IN LISTS CF_DEFINES)
  list(APPEND _command "-D${_def}")
endforeach()
foreach(_inc IN LISTS CF_INCLUDES)
  # Like CMake itself, leave the compiler's own include dirs (/usr/include) to the compiler.
  if(NOT _inc IN_LIST CF_IMPLICIT_INCLUDES)
    list(APPEND _command "-I${_inc}")
  endif()
endforeach()
list(APPEND _command -fsyntax-only -fdiagnostics-color=never "${CASE}")

execute_process(COMMAND ${_command}
  RESULT_VARIABLE _rc
  OUTPUT_VARIABLE _output
  ERROR_VARIABLE _output)

string(REPLACE ";" " " _command_text "${_command}")
# Print the command and the raw compiler output (unwrapped), then stop with a short reason.
function(_fail reason)
  message("command: ${_command_text}\nexit code: ${_rc}\n--- compiler output ---\n${_output}--- end ---")
  message(FATAL_ERROR "${CASE}: ${reason}")
endfunction()

if(MODE STREQUAL "pass")
  if(NOT _rc EQUAL 0)
    _fail("expected to compile, but it did not")
  endif()
  if(_output MATCHES "warning:")
    _fail("compiled, but with warnings")
  endif()
  message(STATUS "${CASE}: compiles, as expected")
  return()
endif()

if(_rc EQUAL 0)
  _fail("compiled, but it must not")
endif()

# Each regex must match within one line of the output.
set(_missing "")
math(EXPR _last "${_expect_count} - 1")
foreach(_i RANGE ${_last})
  set(_re "${_expect_${_i}}")
  set(_matched FALSE)
  set(_rest "${_output}")
  while(TRUE)
    _first_line("${_rest}" _line _rest _found)
    if(NOT _found)
      break()
    endif()
    if("${_line}" MATCHES "${_re}")
      set(_matched TRUE)
      break()
    endif()
  endwhile()
  if(_matched)
    message(STATUS "matched: ${_re}")
  else()
    string(APPEND _missing "no output line matches: ${_re}\n")
  endif()
endforeach()

# No other lazyview diagnostic may fire: every failed lazyview static_assert in the output must
# match the first expectation (the message), so a case cannot pass while a second, wrong
# diagnostic is printed beside the right one.
set(_stray "")
set(_rest "${_output}")
while(TRUE)
  _first_line("${_rest}" _line _rest _found)
  if(NOT _found)
    break()
  endif()
  if("${_line}" MATCHES "static[_ ]assert(ion)? failed.*lazyview: " AND NOT "${_line}" MATCHES "${_expect_0}")
    string(APPEND _stray "  ${_line}\n")
  endif()
endwhile()
if(NOT _stray STREQUAL "")
  string(APPEND _missing "other lazyview diagnostics fired as well:\n${_stray}")
endif()

if(NOT _missing STREQUAL "")
  _fail("the compile failed, but not as expected:\n${_missing}")
endif()
message(STATUS "${CASE}: rejected with the expected diagnostic")
