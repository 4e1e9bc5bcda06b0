# Unity builds (issue 9): the sources of a folder compile a batch at a time, as one generated unit that includes them,
# so the headers are parsed (through nvcc's four passes, for a .cu) and the shared templates instantiated once per
# batch instead of once per file (src/ops: 45% less CPU; three small .cu files: 11.1 -> 5.2 s). File-local names
# (anonymous namespaces, macros) must therefore be unique within a folder; configure with
# -DEMBER_UNITY_BATCH=1000 -DEMBER_UNITY_BATCH_CUDA=1000 (one unit per folder) to see every clash at once.
set(EMBER_UNITY_BATCH 8 CACHE STRING "C++ sources per unity unit (1: each file alone)")
set(EMBER_UNITY_BATCH_CUDA 3 CACHE STRING "CUDA sources per unity unit (1: each file alone)")

# Sets out_var to the units (generated under unity/ in the build tree, with the sources' extension) that compile
# `sources` `batch` at a time.
function(ember_unity_units out_var batch sources)
  if(batch LESS_EQUAL 1)
    set(${out_var} ${sources} PARENT_SCOPE)
    return()
  endif()
  set(units)
  list(LENGTH sources count)
  set(start 0)
  while(start LESS count)
    list(SUBLIST sources ${start} ${batch} group)
    list(GET group 0 first)
    list(LENGTH group size)
    if(size EQUAL 1)  # a lone source compiles as itself
      list(APPEND units ${first})
      break()
    endif()
    file(RELATIVE_PATH name ${PROJECT_SOURCE_DIR} ${first})
    get_filename_component(extension ${first} LAST_EXT)
    string(MAKE_C_IDENTIFIER "${name}" name)  # src/ops/amp.cpp -> src_ops_amp_cpp
    list(TRANSFORM group REPLACE "(.+)" "#include \"\\1\"\n")
    string(JOIN "" content ${group})
    set(unit ${PROJECT_BINARY_DIR}/unity/${name}${extension})
    file(CONFIGURE OUTPUT ${unit} CONTENT "${content}" @ONLY)  # rewritten only when the batch changes
    list(APPEND units ${unit})
    math(EXPR start "${start} + ${batch}")
  endwhile()
  set(${out_var} ${units} PARENT_SCOPE)
endfunction()
