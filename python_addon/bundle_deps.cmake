# Copies every shared library LIB needs, except the C/C++ runtime every Linux has, into OUT (named by the name
# LIB's dependencies ask for, symlinks resolved) and writes OUT/load_order.txt: the bundled libraries, each after
# the ones it needs. python_addon/skinkit/_bundle.py loads them in that order before LIB, so the dynamic linker
# finds every needed library already loaded and never looks in the system's folders.
# Usage: cmake -DLIB=<libskinkit.so> -DOUT=<dir> -P bundle_deps.cmake
cmake_minimum_required(VERSION 3.18)
# The C runtime (glibc's libraries and the loader) and the C++ runtime: present on every Linux desktop.
set(RUNTIME "^(ld-linux-x86-64\\.so\\.2|linux-vdso\\.so\\.1|libc\\.so\\.6|libm\\.so\\.6|libpthread\\.so\\.0|libdl\\.so\\.2|librt\\.so\\.1|libstdc\\+\\+\\.so\\.6|libgcc_s\\.so\\.1)$")

file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT})
file(GET_RUNTIME_DEPENDENCIES LIBRARIES ${LIB}
  RESOLVED_DEPENDENCIES_VAR deps UNRESOLVED_DEPENDENCIES_VAR missing
  PRE_EXCLUDE_REGEXES "${RUNTIME}")
if(missing)
  message(FATAL_ERROR "bundle: unresolved dependencies of ${LIB}: ${missing}")
endif()

function(needed_of file out)
  execute_process(COMMAND readelf -d ${file} OUTPUT_VARIABLE dyn RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "bundle: readelf -d ${file} failed")
  endif()
  string(REGEX MATCHALL "\\(NEEDED\\)[^\n]*\\[[^]\n]+\\]" lines "${dyn}")
  set(names "")
  foreach(l IN LISTS lines)
    string(REGEX REPLACE ".*\\[([^]]+)\\]" "\\1" n "${l}")
    list(APPEND names ${n})
  endforeach()
  set(${out} ${names} PARENT_SCOPE)
endfunction()

set(bundled "")
foreach(dep IN LISTS deps)
  get_filename_component(name ${dep} NAME)
  if(name MATCHES "${RUNTIME}")
    continue()
  endif()
  file(REAL_PATH ${dep} real)
  file(COPY_FILE ${real} ${OUT}/${name})
  list(APPEND bundled ${name})
endforeach()

# Depth-first topological order over the bundle (dependencies first).
set(order "")
function(visit name)
  if(name IN_LIST order OR NOT name IN_LIST bundled)
    return()
  endif()
  if(name IN_LIST visiting)
    message(FATAL_ERROR "bundle: dependency cycle through ${name}")
  endif()
  list(APPEND visiting ${name})
  set(visiting ${visiting} PARENT_SCOPE)
  needed_of(${OUT}/${name} needs)
  foreach(n IN LISTS needs)
    visit(${n})
  endforeach()
  list(APPEND order ${name})
  set(order ${order} PARENT_SCOPE)
endfunction()
list(SORT bundled)
foreach(name IN LISTS bundled)
  visit(${name})
endforeach()
list(JOIN order "\n" text)
file(WRITE ${OUT}/load_order.txt "${text}\n")
list(LENGTH order count)
message(STATUS "bundled ${count} libraries into ${OUT}")
