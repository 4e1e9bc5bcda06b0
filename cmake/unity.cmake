# Unity builds (issue 9): the sources of a folder compile EMBER_UNITY_BATCH at a time, as one generated unit that
# includes them, so the headers are parsed and the shared templates instantiated once per batch instead of once
# per file (src/ops: 45% less CPU). File-local names (anonymous namespaces, macros) must therefore be unique within
# a folder; configure with -DEMBER_UNITY_BATCH=1000 (one unit per folder) to see every clash at once.
set(EMBER_UNITY_BATCH 8 CACHE STRING "Sources per unity unit (1: each file alone)")

# Sets out_var to the units (generated under unity/ in the build tree) that compile `sources`.
function(ember_unity_units out_var sources)
  if(EMBER_UNITY_BATCH LESS_EQUAL 1)
    set(${out_var} ${sources} PARENT_SCOPE)
    return()
  endif()
  set(units)
  list(LENGTH sources count)
  set(start 0)
  while(start LESS count)
    list(SUBLIST sources ${start} ${EMBER_UNITY_BATCH} batch)
    list(GET batch 0 first)
    file(RELATIVE_PATH name ${PROJECT_SOURCE_DIR} ${first})
    string(MAKE_C_IDENTIFIER "${name}" name)  # src/ops/amp.cpp -> src_ops_amp_cpp
    list(TRANSFORM batch REPLACE "(.+)" "#include \"\\1\"\n")
    string(JOIN "" content ${batch})
    set(unit ${PROJECT_BINARY_DIR}/unity/${name}.cpp)
    file(CONFIGURE OUTPUT ${unit} CONTENT "${content}" @ONLY)  # rewritten only when the batch changes
    list(APPEND units ${unit})
    math(EXPR start "${start} + ${EMBER_UNITY_BATCH}")
  endwhile()
  set(${out_var} ${units} PARENT_SCOPE)
endfunction()
