# cudalab_add_lab(): one call registers everything a lab needs. For lab NN-name it expects
#   labs/NN-name/<source>           student skeleton (+ name.h, the interface)
#   solutions/NN-name/<source>      reference solution, same interface
#   grader/labs/NN-name/grade_*.cpp graded checks (Catch2, GRADED_CHECK)
#   grader/labs/NN-name/test_*.cpp  host unit tests (CPU reference, parsers, ...)
#   grader/labs/NN-name/run_*.cpp   the runner (cxxopts CLI), with --bench
#   grader/labs/NN-name/broken/*.cu broken variants; each names the reason it must be rejected
#                                   in a line "// EXPECT-REJECT: <regex>" and the checks to run in
#                                   "// CHECKS: <Catch2 test spec>"; a variant the sanitizer gate
#                                   must catch adds "// SANITIZER-REJECT: <tool> <regex>"; one
#                                   the student link check must reject has "// LINK-REJECT: <regex>"
#   grader/labs/NN-name/passing/*.cu  plain correct answers the grader must give full marks
#                                   (they keep the performance thresholds honest)
#   grader/labs/NN-name/*.cpp|*.cu  support code (CPU reference, baseline kernels); code shared by
#                                   several labs lives in grader/support/<topic> and comes in
#                                   through LIBRARIES
#   docs/labs/NN-name.md            the docs page
# With PTX, each candidate is also compiled to PTX for the technique checks ([technique] tag).
# and makes:
#   labNN-<name>                 the runner (student's code and the reference)
#   labNN-grader-student|solution|broken-<x>|passing-<x>   graders, each linking one candidate
#                                + the reference (+ labNN_<role>_ptx, the candidate's PTX, with PTX)
#   labNN-host-tests             host unit tests
#   labNN-student-link-check     links the student's file alone (no reference, no vendor library)
# with CTest entries labelled labNN/<student|solution>/<check tag>, labNN/broken, labNN/host,
# labNN/<role>/sanitize.
#
# Several implementations in one binary (docs/design.md, section 3): each implementation file is
# compiled once per role with -DCUDALAB_IMPL=candidate|reference into its own object library;
# the lab header declares everything inside namespace labNN::CUDALAB_IMPL (common/include/cudalab/impl.h).

set_property(GLOBAL PROPERTY CUDALAB_LABS "")

function(cudalab_warnings target)
  set(cxx_warnings -Wall -Wextra -Wshadow)
  set(cuda_warnings -Xcompiler=-Wall,-Wextra)
  if(CUDALAB_WERROR)
    list(APPEND cxx_warnings -Werror)
    list(APPEND cuda_warnings -Werror=all-warnings -Xcompiler=-Werror)
  endif()
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:${cxx_warnings}>
    $<$<COMPILE_LANGUAGE:CUDA>:${cuda_warnings}>)
endfunction()

function(cudalab_cuda_options target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CUDA>:-lineinfo>
    $<$<AND:$<COMPILE_LANGUAGE:CUDA>,$<BOOL:${CUDALAB_DEVICE_DEBUG}>>:-G>)
  cudalab_warnings(${target})
endfunction()

# One implementation file compiled for one role.
function(_cudalab_impl_object target source role include_dir)
  add_library(${target} OBJECT ${source})
  target_compile_definitions(${target} PRIVATE CUDALAB_IMPL=${role})
  target_include_directories(${target} PRIVATE ${include_dir})
  target_link_libraries(${target} PRIVATE cudalab_common)
  cudalab_cuda_options(${target})
endfunction()

# Test labels are paths, one per test: "lab01/solution/correctness", "lab01/broken",
# "common/host". (catch_discover_tests flattens its PROPERTIES, so a test it discovers can carry
# only one label.) ctest -L takes a regular expression: -L lab01, -L solution, -L sanitize.
function(cudalab_discover_tests exe prefix label)
  catch_discover_tests(${exe} TEST_PREFIX "${prefix}" PROPERTIES LABELS "${label}" ${ARGN})
endfunction()

function(_cudalab_discover exe prefix label)
  foreach(tag IN LISTS ARGN)
    catch_discover_tests(${exe}
      TEST_SPEC "[${tag}]"
      TEST_PREFIX "${prefix}"
      PROPERTIES LABELS "${label}/${tag}"
                 SKIP_REGULAR_EXPRESSION "SKIPPED: "
                 RUN_SERIAL TRUE  # timings must not share the GPU
                 TIMEOUT 300)
  endforeach()
endfunction()

# A command under compute-sanitizer <tool>, with exact-size allocations (no guard zones, which
# would absorb out-of-bounds accesses before memcheck could see them):
#   cudalab_sanitizer_test(<test> <tool> <labels> [CLEAN] COMMAND <program> <args>...)
# CLEAN: any hazard report fails the test (racecheck reports a missing barrier as a warning with
# exit code 0). Without a device the program says "no CUDA device", and the test is skipped.
function(cudalab_sanitizer_test test tool labels)
  cmake_parse_arguments(ARG "CLEAN" "" "COMMAND" ${ARGN})
  if(CUDALAB_COMPUTE_SANITIZER)
    add_test(NAME ${test} COMMAND ${CUDALAB_COMPUTE_SANITIZER} --tool ${tool} --error-exitcode 86
             ${ARG_COMMAND})
  else()
    add_test(NAME ${test} COMMAND ${CMAKE_COMMAND} -E echo "SKIPPED: compute-sanitizer not found")
  endif()
  set_tests_properties(${test} PROPERTIES LABELS "${labels}"
    ENVIRONMENT "CUDALAB_GUARD_BYTES=0"
    SKIP_REGULAR_EXPRESSION "no CUDA device;SKIPPED: compute-sanitizer not found"
    RUN_SERIAL TRUE
    TIMEOUT 600)
  if(ARG_CLEAN)
    set_tests_properties(${test} PROPERTIES
      FAIL_REGULAR_EXPRESSION "=========[^\n]*Race reported;=========[^\n]*SUMMARY: [1-9]")
  endif()
endfunction()

function(cudalab_add_lab name)
  cmake_parse_arguments(ARG "PTX" "SOURCE" "SANITIZE;TAGS;LIBRARIES" ${ARGN})
  if(NOT ARG_SOURCE)
    message(FATAL_ERROR "cudalab_add_lab(${name}): SOURCE is required")
  endif()
  if(NOT ARG_TAGS)
    set(ARG_TAGS correctness perf)
  endif()
  string(SUBSTRING "${name}" 0 2 id)
  string(SUBSTRING "${name}" 3 -1 short)
  set(lab "lab${id}")
  set(root "${PROJECT_SOURCE_DIR}")
  set(interface_dir "${root}/labs/${name}")
  set(grader_dir "${root}/grader/labs/${name}")
  foreach(dir "${interface_dir}" "${root}/solutions/${name}" "${grader_dir}")
    if(NOT IS_DIRECTORY "${dir}")
      message(FATAL_ERROR "cudalab_add_lab(${name}): missing folder ${dir}")
    endif()
  endforeach()

  # Implementations, one object library per role.
  _cudalab_impl_object(${lab}_student "${interface_dir}/${ARG_SOURCE}" candidate "${interface_dir}")
  _cudalab_impl_object(${lab}_solution "${root}/solutions/${name}/${ARG_SOURCE}" candidate "${interface_dir}")
  _cudalab_impl_object(${lab}_reference "${root}/solutions/${name}/${ARG_SOURCE}" reference "${interface_dir}")
  file(GLOB broken_sources CONFIGURE_DEPENDS "${grader_dir}/broken/*.cu")
  # Variants that must fail the student link check ("// LINK-REJECT: <regex>") get no grader.
  set(link_reject_sources "")
  foreach(src IN LISTS broken_sources)
    file(STRINGS "${src}" link_reject REGEX "^// LINK-REJECT: ")
    if(link_reject)
      list(APPEND link_reject_sources "${src}")
    endif()
  endforeach()
  foreach(src IN LISTS link_reject_sources)
    list(REMOVE_ITEM broken_sources "${src}")
  endforeach()
  foreach(src IN LISTS broken_sources link_reject_sources)
    get_filename_component(stem "${src}" NAME_WE)
    _cudalab_impl_object(${lab}_broken_${stem} "${src}" candidate "${interface_dir}")
  endforeach()
  file(GLOB passing_sources CONFIGURE_DEPENDS "${grader_dir}/passing/*.cu")
  foreach(src IN LISTS passing_sources)
    get_filename_component(stem "${src}" NAME_WE)
    _cudalab_impl_object(${lab}_passing_${stem} "${src}" candidate "${interface_dir}")
  endforeach()

  # Support code shared by the grader, the runner and the host tests.
  file(GLOB support CONFIGURE_DEPENDS "${grader_dir}/*.cpp" "${grader_dir}/*.cu")
  list(FILTER support EXCLUDE REGEX "/(grade|test|run)_[^/]*$")
  if(NOT support)  # a lab may have no support code of its own
    set(support "${root}/grader/framework/empty.cpp")
  endif()
  add_library(${lab}_support STATIC ${support})
  target_include_directories(${lab}_support PUBLIC "${interface_dir}" "${grader_dir}")
  target_link_libraries(${lab}_support PUBLIC cudalab_common cudalab_grader_framework ${ARG_LIBRARIES})
  cudalab_cuda_options(${lab}_support)

  # Graded checks, compiled once, linked against each candidate.
  file(GLOB grade_sources CONFIGURE_DEPENDS "${grader_dir}/grade_*.cpp")
  add_library(${lab}_checks OBJECT ${grade_sources})
  target_link_libraries(${lab}_checks PRIVATE ${lab}_support)
  cudalab_warnings(${lab}_checks)

  set(roles student solution)
  foreach(src IN LISTS broken_sources)
    get_filename_component(stem "${src}" NAME_WE)
    list(APPEND roles broken_${stem})
  endforeach()
  foreach(src IN LISTS passing_sources)
    get_filename_component(stem "${src}" NAME_WE)
    list(APPEND roles passing_${stem})
  endforeach()
  foreach(role IN LISTS roles)
    string(REPLACE "_" "-" role_dash "${role}")
    set(exe ${lab}-grader-${role_dash})
    # Technique checks read the candidate's PTX (grader/framework/technique.h): with PTX, each
    # candidate file is also compiled to PTX and the grader learns where it is.
    set(ptx_path "")
    if(ARG_PTX)
      add_library(${lab}_${role}_ptx OBJECT $<TARGET_PROPERTY:${lab}_${role},SOURCES>)
      set_target_properties(${lab}_${role}_ptx PROPERTIES CUDA_PTX_COMPILATION ON
                            CUDA_ARCHITECTURES 75-virtual)
      target_compile_definitions(${lab}_${role}_ptx PRIVATE CUDALAB_IMPL=candidate)
      target_include_directories(${lab}_${role}_ptx PRIVATE "${interface_dir}")
      target_link_libraries(${lab}_${role}_ptx PRIVATE cudalab_common)
      set(ptx_path "$<TARGET_OBJECTS:${lab}_${role}_ptx>")
    endif()
    set(info "${CMAKE_CURRENT_BINARY_DIR}/${lab}_${role}_candidate.cpp")
    file(GENERATE OUTPUT "${info}" CONTENT
      "// Generated by cudalab_add_lab: where this grader's candidate PTX is.\n#include \"technique.h\"\nnamespace cudalab::grade {\nconst char* const kCandidatePtxPath = \"${ptx_path}\";\n}\n")
    add_executable(${exe} $<TARGET_OBJECTS:${lab}_checks> $<TARGET_OBJECTS:${lab}_${role}>
                          $<TARGET_OBJECTS:${lab}_reference> "${info}")
    if(ARG_PTX)
      add_dependencies(${exe} ${lab}_${role}_ptx)
    endif()
    target_link_libraries(${exe} PRIVATE ${lab}_support cudalab_grader_main)
    set_target_properties(${exe} PROPERTIES CUDA_RESOLVE_DEVICE_SYMBOLS ON)
  endforeach()

  # The student's file links on its own, against the support library and the CUDA runtime only:
  # calling the reference solution or a vendor library (cuBLAS, cuDNN, ...) fails this link.
  add_executable(${lab}-student-link-check $<TARGET_OBJECTS:${lab}_student>
                                           "${root}/grader/framework/link_check_main.cpp")
  target_link_libraries(${lab}-student-link-check PRIVATE cudalab_common)
  set_target_properties(${lab}-student-link-check PROPERTIES CUDA_RESOLVE_DEVICE_SYMBOLS ON)

  # Variants the link check must reject: the target is left out of the build; the test builds it
  # and passes only if the link fails with the expected message.
  foreach(src IN LISTS link_reject_sources)
    get_filename_component(stem "${src}" NAME_WE)
    string(REPLACE "_" "-" stem_dash "${stem}")
    file(STRINGS "${src}" expect REGEX "^// LINK-REJECT: ")
    string(REPLACE "// LINK-REJECT: " "" expect "${expect}")
    add_executable(${lab}-broken-${stem_dash}-link-check EXCLUDE_FROM_ALL
      $<TARGET_OBJECTS:${lab}_broken_${stem}> "${root}/grader/framework/link_check_main.cpp")
    target_link_libraries(${lab}-broken-${stem_dash}-link-check PRIVATE cudalab_common)
    set_target_properties(${lab}-broken-${stem_dash}-link-check PROPERTIES CUDA_RESOLVE_DEVICE_SYMBOLS ON)
    add_test(NAME ${lab}/broken/${stem_dash}
             COMMAND ${CMAKE_COMMAND} --build "${PROJECT_BINARY_DIR}" --target ${lab}-broken-${stem_dash}-link-check)
    set_tests_properties(${lab}/broken/${stem_dash} PROPERTIES
      LABELS "${lab}/broken" PASS_REGULAR_EXPRESSION "${expect}" TIMEOUT 300)
  endforeach()

  # CTest entries. The solution must pass everything (and the timing self-check); the student's
  # graders are labelled "student" and left out of the default test preset: a fresh skeleton fails.
  _cudalab_discover(${lab}-grader-solution "${lab}/solution/" "${lab}/solution" ${ARG_TAGS} selfcheck)
  _cudalab_discover(${lab}-grader-student "${lab}/student/" "${lab}/student" ${ARG_TAGS})

  foreach(src IN LISTS broken_sources)
    get_filename_component(stem "${src}" NAME_WE)
    string(REPLACE "_" "-" stem_dash "${stem}")
    file(STRINGS "${src}" expect REGEX "^// EXPECT-REJECT: ")
    file(STRINGS "${src}" checks REGEX "^// CHECKS: ")
    file(STRINGS "${src}" sanitizer_reject REGEX "^// SANITIZER-REJECT: ")
    if(NOT checks OR NOT (expect OR sanitizer_reject))
      message(FATAL_ERROR "${src}: needs '// CHECKS: <spec>' and '// EXPECT-REJECT: <regex>' "
                          "and/or '// SANITIZER-REJECT: <tool> <regex>' lines")
    endif()
    string(REPLACE "// CHECKS: " "" checks "${checks}")
    if(expect)
      string(REPLACE "// EXPECT-REJECT: " "" expect "${expect}")
      add_test(NAME ${lab}/broken/${stem_dash} COMMAND ${lab}-grader-broken-${stem_dash} "${checks}")
      # Passes only if the grader rejected the variant for the reason it was built for.
      set_tests_properties(${lab}/broken/${stem_dash} PROPERTIES
        LABELS "${lab}/broken"
        PASS_REGULAR_EXPRESSION "${expect}"
        SKIP_REGULAR_EXPRESSION "SKIPPED: "
        RUN_SERIAL TRUE
        TIMEOUT 300)
    endif()
    if(sanitizer_reject)
      string(REGEX REPLACE "^// SANITIZER-REJECT: ([a-z]+) (.*)$" "\\1;\\2" sanitizer_reject "${sanitizer_reject}")
      list(GET sanitizer_reject 0 tool)
      list(GET sanitizer_reject 1 regex)
      cudalab_sanitizer_test(${lab}/broken/${stem_dash}-${tool} ${tool} "${lab}/broken/sanitize"
        COMMAND $<TARGET_FILE:${lab}-grader-broken-${stem_dash}> "${checks}")
      set_tests_properties(${lab}/broken/${stem_dash}-${tool} PROPERTIES PASS_REGULAR_EXPRESSION "${regex}")
    endif()
  endforeach()

  # Plain correct answers: every graded check must pass (exit code 0).
  foreach(src IN LISTS passing_sources)
    get_filename_component(stem "${src}" NAME_WE)
    string(REPLACE "_" "-" stem_dash "${stem}")
    add_test(NAME ${lab}/passing/${stem_dash} COMMAND ${lab}-grader-passing-${stem_dash} "~[selfcheck]")
    set_tests_properties(${lab}/passing/${stem_dash} PROPERTIES
      LABELS "${lab}/passing"
      ENVIRONMENT "CUDALAB_REQUIRE_FULL_CREDIT=1"
      SKIP_REGULAR_EXPRESSION "SKIPPED: "
      RUN_SERIAL TRUE
      TIMEOUT 300)
  endforeach()

  # Sanitizer gate: the correctness checks under compute-sanitizer (but the [large] ones:
  # racecheck on 2^26 elements takes minutes).
  foreach(role student solution)
    foreach(tool IN LISTS ARG_SANITIZE)
      cudalab_sanitizer_test(${lab}/${role}/sanitize-${tool} ${tool} "${lab}/${role}/sanitize" CLEAN
        COMMAND $<TARGET_FILE:${lab}-grader-${role}> "[correctness]~[large]")
    endforeach()
  endforeach()

  # Host unit tests.
  file(GLOB host_tests CONFIGURE_DEPENDS "${grader_dir}/test_*.cpp")
  if(host_tests)
    add_executable(${lab}-host-tests ${host_tests})
    target_link_libraries(${lab}-host-tests PRIVATE ${lab}_support cudalab_catch_main)
    cudalab_warnings(${lab}-host-tests)
    cudalab_discover_tests(${lab}-host-tests "${lab}/host/" "${lab}/host")
  endif()

  # The runner.
  file(GLOB runner CONFIGURE_DEPENDS "${grader_dir}/run_*.cpp")
  if(runner)
    add_executable(${lab}-${short} ${runner} $<TARGET_OBJECTS:${lab}_student>
                                   $<TARGET_OBJECTS:${lab}_reference>)
    target_link_libraries(${lab}-${short} PRIVATE ${lab}_support cxxopts::cxxopts)
    cudalab_warnings(${lab}-${short})
    set(runner_target ${lab}-${short})
    # Bad input must give one line and exit code 2 (tests listed in grader/labs/<name>/cli_tests.txt).
    set(cli_tests "${grader_dir}/cli_tests.txt")
    if(EXISTS "${cli_tests}")
      add_test(NAME ${lab}/host/runner-bad-input
               COMMAND bash "${root}/grader/tests/expect_usage_errors.sh"
                       $<TARGET_FILE:${runner_target}> "${cli_tests}")
      set_tests_properties(${lab}/host/runner-bad-input PROPERTIES LABELS "${lab}/host/cli")
    endif()
  endif()

  string(JOIN "," tools ${ARG_SANITIZE})
  set_property(GLOBAL APPEND PROPERTY CUDALAB_LABS
    "${id}\t${short}\t$<TARGET_FILE:${lab}-grader-student>\t$<TARGET_FILE:${lab}-grader-solution>\t${tools}\t$<TARGET_FILE:${lab}-student-link-check>")
endfunction()

# Writes the lab manifest the grade command reads: one line per lab,
# id <tab> name <tab> student grader <tab> solution grader <tab> sanitizer tools <tab> link check.
function(cudalab_finish_labs)
  get_property(labs GLOBAL PROPERTY CUDALAB_LABS)
  string(JOIN "\n" content ${labs})
  file(GENERATE OUTPUT "${PROJECT_BINARY_DIR}/cudalab-labs.tsv" CONTENT "${content}\n")
endfunction()
