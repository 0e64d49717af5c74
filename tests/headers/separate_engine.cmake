# ctest -R separate_engine: what LAZYVIEW_SEPARATE_ENGINE leaves out of a translation unit.
#   SEPARATE: the object of separate_use.cpp built with LAZYVIEW_SEPARATE_ENGINE; it must define
#             none of the engine's functions and must call its entry (run_plain) from outside.
#   INLINE:   the same source built header-only; it must define them, which shows the patterns
#             below still name the engine's functions (a rename would otherwise pass unseen).
#   NM:       the nm to read them with.
set(_engine " [TtWwVv] [^\n]*lazyview::(run_engine|run_nest|make_engine_plan|detail::run_plain|detail::run_engine_setup|detail::run_general_plan|kernels::[a-z_]+)[<(]")

function(_symbols obj out)
  execute_process(COMMAND ${NM} -C ${obj} OUTPUT_VARIABLE _text RESULT_VARIABLE _rc)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "${NM} -C ${obj} failed (${_rc})")
  endif()
  set(${out} "${_text}" PARENT_SCOPE)
endfunction()

_symbols(${SEPARATE} _sep)
string(REGEX MATCHALL "${_engine}" _defined "${_sep}")
if(_defined)
  list(LENGTH _defined _n)
  list(GET _defined 0 _first)
  string(SUBSTRING "${_first}" 0 160 _first)
  message(FATAL_ERROR "built with LAZYVIEW_SEPARATE_ENGINE, ${SEPARATE} still compiles the engine: "
                      "${_n} of its functions, the first:${_first}")
endif()
if(NOT _sep MATCHES " U lazyview::detail::run_plain\\(")
  message(FATAL_ERROR "built with LAZYVIEW_SEPARATE_ENGINE, ${SEPARATE} does not call lazyview::detail::run_plain")
endif()

_symbols(${INLINE} _inl)
foreach(_fn lazyview::run_engine lazyview::detail::run_plain lazyview::kernels::)
  string(REGEX MATCH " [TtWwVv] [^\n]*${_fn}" _hit "${_inl}")
  if(NOT _hit)
    message(FATAL_ERROR "header-only, ${INLINE} defines no ${_fn}: the check above no longer names the engine")
  endif()
endforeach()
message(STATUS "separate_engine: the engine stays out of a LAZYVIEW_SEPARATE_ENGINE translation unit")
