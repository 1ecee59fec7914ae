# cmake -DSOURCE=<this folder> -DBINARY=<scratch build folder> -DGENERATOR=<generator> -P run.cmake
# Configures and builds the stale-variant project and prints what the build said; the test passes
# when that names the patch, the hunk and the base (PASS_REGULAR_EXPRESSION).
file(REMOVE_RECURSE "${BINARY}")
execute_process(COMMAND "${CMAKE_COMMAND}" -S "${SOURCE}" -B "${BINARY}" -G "${GENERATOR}"
                RESULT_VARIABLE configured OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT configured EQUAL 0)
  message(FATAL_ERROR "configure failed: ${out}${err}")
endif()
execute_process(COMMAND "${CMAKE_COMMAND}" --build "${BINARY}"
                RESULT_VARIABLE built OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("build exit status ${built}:\n${out}${err}")
if(built EQUAL 0)
  message(FATAL_ERROR "the stale variant was built")
endif()
