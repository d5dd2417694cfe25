# Installs the build tree into a scratch prefix, then builds tests/install/consumer.c against it twice:
# with find_package(skinkit) (CMake package) and with pkg-config, and runs both programs.
# Inputs: -DSRC=<source dir> -DBIN=<build dir> -DWORK=<scratch dir>
file(REMOVE_RECURSE ${WORK})
set(PREFIX ${WORK}/prefix)
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "command failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  message(STATUS "${out}")
endfunction()

run(${CMAKE_COMMAND} --install ${BIN} --prefix ${PREFIX})
foreach(f include/skinkit.h)
  if(NOT EXISTS ${PREFIX}/${f})
    message(FATAL_ERROR "install is missing ${f}")
  endif()
endforeach()
file(GLOB_RECURSE pcs ${PREFIX}/*/skinkit.pc)
file(GLOB_RECURSE cfgs ${PREFIX}/*/skinkitConfig.cmake)
if(NOT pcs OR NOT cfgs)
  message(FATAL_ERROR "install is missing skinkit.pc or skinkitConfig.cmake")
endif()

# 1) CMake package
run(${CMAKE_COMMAND} -S ${SRC}/tests/install -B ${WORK}/cmake-consumer -DCMAKE_PREFIX_PATH=${PREFIX})
run(${CMAKE_COMMAND} --build ${WORK}/cmake-consumer)
file(GLOB libdirs LIST_DIRECTORIES true ${PREFIX}/lib*)
set(ENV{LD_LIBRARY_PATH} "${PREFIX}/lib:${PREFIX}/lib64:${PREFIX}/lib/x86_64-linux-gnu")
run(${WORK}/cmake-consumer/consumer)

# 2) pkg-config
list(GET pcs 0 pc)
get_filename_component(pcdir ${pc} DIRECTORY)
set(ENV{PKG_CONFIG_PATH} ${pcdir})
execute_process(COMMAND pkg-config --cflags --libs skinkit OUTPUT_VARIABLE flags RESULT_VARIABLE rc
                OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "pkg-config cannot find skinkit in ${pcdir}")
endif()
separate_arguments(flags UNIX_COMMAND "${flags}")
run(cc -std=c11 -Wall -Wextra -Werror ${SRC}/tests/install/consumer.c ${flags} -o ${WORK}/pkg-consumer)
run(${WORK}/pkg-consumer)
# the CLI, when built, is installed too
if(EXISTS ${BIN}/skinkit)
  run(${PREFIX}/bin/skinkit --version)
endif()
