# cudalab_add_lab(): one call registers everything a lab needs. For lab NN-name it expects
#   labs/NN-name/<source>           student skeleton (+ name.h, the interface)
#   solutions/NN-name/<source>      reference solution, same interface
#   grader/labs/NN-name/grade_*.cpp graded checks (Catch2, GRADED_CHECK)
#   grader/labs/NN-name/test_*.cpp  host unit tests (CPU reference, parsers, ...)
#   grader/labs/NN-name/run_*.cpp   the runner (cxxopts CLI), with --bench
#   grader/labs/NN-name/variants/   submissions the grader must judge right: answer.cu, a plain
#                                   correct answer (full credit), and *.patch, each a unified diff
#                                   against answer.cu (or the skeleton) led by the verdict the grade
#                                   must reach (grader/grade/variant.h, docs/adding-a-lab.md)
#   grader/labs/NN-name/*.cpp|*.cu  support code (CPU reference, baseline kernels); code shared by
#                                   several labs lives in grader/support/<topic> and comes in
#                                   through LIBRARIES
#   docs/labs/NN-name.md            the docs page
# In the student release (scripts/make-release) solutions/ is absent and prebuilt/NN-name/ holds
# the reference and the solution compiled (reference.o, solution.o, solution_ptx.o: the
# solution's PTX embedded); variants/ is absent too, and no variant grader or test is made.
# With PTX, each candidate is also compiled to PTX for the technique checks ([technique] tag).
# and makes:
#   labNN-<name>                 the runner (student's code and the reference)
#   labNN-grader-student|solution|variant-<x>   graders, each linking one candidate
#                                + the reference (+ labNN_<role>_ptx, the candidate's PTX, with PTX)
#   labNN-host-tests             host unit tests
#   labNN-student-link-check     links the student's file alone (no reference, no vendor library)
# with CTest entries labelled labNN/<student|solution>/<check tag>, labNN/variant (one per
# variant: the grade command on it, held against its verdict by cudalab-variant; labNN/cheat for
# a variant named cheat-*, a submission that attacks the grader), labNN/host,
# labNN/<role>/sanitize.
#
# Several implementations in one binary (docs/design.md, section 3): each implementation file is
# compiled once per role with -DCUDALAB_IMPL=candidate|reference into its own object library;
# the lab header declares everything inside namespace labNN::CUDALAB_IMPL (common/include/cudalab/impl.h).

# The student release (scripts/make-release) has no solutions/ but prebuilt/: the reference and the
# solution of each lab compiled by the full repository's build, with prebuilt/prebuilt.cmake saying
# how (CUDALAB_PREBUILT_CUDA_VERSION, CUDALAB_PREBUILT_SASS: the architectures with machine code,
# CUDALAB_PREBUILT_PTX: the one with PTX, which newer GPUs compile when they load it).
if(NOT IS_DIRECTORY "${PROJECT_SOURCE_DIR}/solutions"
   AND EXISTS "${PROJECT_SOURCE_DIR}/prebuilt/prebuilt.cmake")
  include("${PROJECT_SOURCE_DIR}/prebuilt/prebuilt.cmake")
  string(REGEX MATCH "^[0-9]+" _built_major "${CUDALAB_PREBUILT_CUDA_VERSION}")
  string(REGEX MATCH "^[0-9]+" _this_major "${CMAKE_CUDA_COMPILER_VERSION}")
  # Objects made by one major version of nvcc do not link with another's (scripts/check-toolkit
  # says so in one line before ./cudalab configures; this is for a configure by hand).
  if(NOT _built_major STREQUAL _this_major AND NOT CUDALAB_ALLOW_OTHER_TOOLKIT)
    message(FATAL_ERROR "The reference was compiled with CUDA ${CUDALAB_PREBUILT_CUDA_VERSION}, "
                        "this toolkit is ${CMAKE_CUDA_COMPILER_VERSION}: use a CUDA "
                        "${_built_major}.x toolkit, or ask for a release made with CUDA "
                        "${_this_major}.x (docs/setup.md, \"Which CUDA\"); "
                        "-DCUDALAB_ALLOW_OTHER_TOOLKIT=ON tries anyway")
  endif()
  # A GPU runs machine code of its own major version and an equal or lower minor, or PTX of an
  # equal or lower version.
  set(_archs "${CMAKE_CUDA_ARCHITECTURES}")
  if(_archs STREQUAL "native")
    set(_archs "${CMAKE_CUDA_ARCHITECTURES_NATIVE}")
  endif()
  foreach(_arch IN LISTS _archs)
    string(REGEX MATCH "^[0-9]+" _arch "${_arch}")
    if(NOT _arch)
      continue()
    endif()
    set(_runs FALSE)
    foreach(_sass IN LISTS CUDALAB_PREBUILT_SASS)
      math(EXPR _sass_major "${_sass} / 10")
      math(EXPR _arch_major "${_arch} / 10")
      if(_sass_major EQUAL _arch_major AND NOT _sass GREATER _arch)
        set(_runs TRUE)
      endif()
    endforeach()
    if(CUDALAB_PREBUILT_PTX AND NOT CUDALAB_PREBUILT_PTX GREATER _arch)
      set(_runs TRUE)
    endif()
    if(NOT _runs)
      message(WARNING "The prebuilt reference has no code that runs on sm_${_arch} (machine code "
                      "for ${CUDALAB_PREBUILT_SASS}, PTX for ${CUDALAB_PREBUILT_PTX}): ask for a "
                      "release made for it")
    endif()
  endforeach()
  message(STATUS "Reference: prebuilt (CUDA ${CUDALAB_PREBUILT_CUDA_VERSION}; sm ${CUDALAB_PREBUILT_SASS}, "
                 "PTX ${CUDALAB_PREBUILT_PTX})")
endif()

set_property(GLOBAL PROPERTY CUDALAB_LABS "")
set_property(GLOBAL PROPERTY CUDALAB_VARIANTS "")
include(${CMAKE_CURRENT_LIST_DIR}/Variants.cmake)

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

# Sources whose speed at run time does not matter and whose compile is among the longest: Catch2's
# runners, the grade command (it starts processes and reads their records), the variant tool, the
# labs' runners' command-line and output code (the kernels and references they time are built as
# before) and the host unit tests. Built at -O0, which takes about two thirds of -O1's time and
# half of -O3's (on a 2-core machine: Catch2's runner 14.5 s against 20.8 s at -O1 and 27.7 s
# at -O3, the grade command's grade.cpp 11.6 s against 16.8 s), so a first grade from a fresh
# clone, and CI, wait less. -O0 comes after the build type's -O3 on the command line, so it is the
# one that counts.
function(cudalab_quick_build)
  if(ARGN)
    set_source_files_properties(${ARGN} DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}
      PROPERTIES COMPILE_OPTIONS -O0)
  endif()
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
  # NVTX_DISABLE: thrust and CUB leave out their NVTX ranges, whose loader of a profiling tool
  # (dlopen) the grade command's audit of a student's object would reject (grader/grade/audit.h).
  target_compile_definitions(${target} PRIVATE CUDALAB_IMPL=${role} NVTX_DISABLE)
  target_include_directories(${target} PRIVATE ${include_dir})
  target_link_libraries(${target} PRIVATE cudalab_common)
  cudalab_cuda_options(${target})
endfunction()

# A prebuilt implementation of the student release (scripts/make-release): an object file compiled
# by the full repository's build, for the architectures the presets name, imported as an object
# library so that $<TARGET_OBJECTS:...> takes it as it takes a compiled one.
function(_cudalab_prebuilt_object target file)
  if(NOT EXISTS "${file}")
    message(FATAL_ERROR "missing ${file}: the student release ships the reference compiled, and "
                        "this file of it is gone (get the release again)")
  endif()
  add_library(${target} OBJECT IMPORTED GLOBAL)
  set_target_properties(${target} PROPERTIES IMPORTED_OBJECTS "${file}")
endfunction()

# Test labels are paths, one per test: "lab01/solution/correctness", "lab01/variant",
# "common/host". (catch_discover_tests flattens its PROPERTIES, so a test it discovers can carry
# only one label.) ctest -L takes a regular expression: -L lab01, -L solution, -L sanitize.
function(cudalab_discover_tests exe prefix label)
  catch_discover_tests(${exe} TEST_PREFIX "${prefix}" PROPERTIES LABELS "${label}" ${ARGN})
endfunction()

# Where a test that runs on a GPU runs. A timed one (`how` ALONE) must not share its GPU; the
# others share. With one GPU (or none), a timed test runs serially (RUN_SERIAL) and the others in
# parallel (ctest -j; the test presets' jobs). With several (CUDALAB_CTEST_GPUS, the top
# CMakeLists.txt), CTest's resource allocation hands out the GPUs: each has
# CUDALAB_CTEST_GPU_SLOTS slots, a timed test takes them all, another one; CTest says which GPU
# in CTEST_RESOURCE_GROUP_0_GPUS, and the programs make it their CUDA_VISIBLE_DEVICES
# (cudalab::use_ctest_gpu). `how` SERIAL: alone on the machine whatever the GPUs (it builds).
#   _cudalab_gpu_properties(<out> ALONE|SHARED|SERIAL)   <out>: a list for set_tests_properties
function(_cudalab_gpu_properties out how)
  set(properties "")
  if(CUDALAB_CTEST_GPUS GREATER 1)
    set(slots 1)
    if(NOT how STREQUAL "SHARED")
      set(slots ${CUDALAB_CTEST_GPU_SLOTS})
    endif()
    list(APPEND properties RESOURCE_GROUPS "gpus:${slots}")
    if(how STREQUAL "SERIAL")
      list(APPEND properties RUN_SERIAL TRUE)
    endif()
  elseif(NOT how STREQUAL "SHARED")
    list(APPEND properties RUN_SERIAL TRUE)
  endif()
  set(${out} "${properties}" PARENT_SCOPE)
endfunction()

# Timed checks ([perf], [selfcheck]) have their GPU to themselves; the others share.
function(_cudalab_discover exe prefix label)
  foreach(tag IN LISTS ARGN)
    set(how SHARED)
    if(tag STREQUAL "perf" OR tag STREQUAL "selfcheck")
      set(how ALONE)
    endif()
    _cudalab_gpu_properties(gpu ${how})
    catch_discover_tests(${exe}
      TEST_SPEC "[${tag}]"
      TEST_PREFIX "${prefix}"
      PROPERTIES LABELS "${label}/${tag}"
                 SKIP_REGULAR_EXPRESSION "SKIPPED: "
                 TIMEOUT 300
                 ${gpu})
  endforeach()
endfunction()

# A command under compute-sanitizer <tool>, with exact-size allocations (no guard zones, which
# would absorb out-of-bounds accesses before memcheck could see them) and the graders' sanitizer
# inputs (CUDALAB_SANITIZE=1: the smallest that run every path). Nothing is timed: these run in
# parallel with other untimed tests.
#   cudalab_sanitizer_test(<test> <tool> <labels> [CLEAN] COMMAND <program> <args>...)
# CLEAN: any hazard report fails the test (racecheck reports a missing barrier as a warning with
# exit code 0). Without a device the program says "no CUDA device", and the test is skipped.
function(cudalab_sanitizer_test test tool labels)
  cmake_parse_arguments(ARG "CLEAN" "" "COMMAND" ${ARGN})
  if(CUDALAB_COMPUTE_SANITIZER)
    # The grade command's options (grader/grade/grade.cpp): device frames only, 16 hazards shown.
    add_test(NAME ${test} COMMAND ${CUDALAB_COMPUTE_SANITIZER} --tool ${tool} --error-exitcode 86
             --show-backtrace device --print-limit 16 ${ARG_COMMAND})
  else()
    add_test(NAME ${test} COMMAND ${CMAKE_COMMAND} -E echo "SKIPPED: compute-sanitizer not found")
  endif()
  _cudalab_gpu_properties(gpu SHARED)
  set_tests_properties(${test} PROPERTIES LABELS "${labels}"
    ENVIRONMENT "CUDALAB_GUARD_BYTES=0;CUDALAB_SANITIZE=1"
    SKIP_REGULAR_EXPRESSION "no CUDA device;SKIPPED: compute-sanitizer not found"
    TIMEOUT 600 ${gpu})
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
  # The student release (./cudalab release) has no solutions/: its reference and solution come
  # compiled, from prebuilt/NN-name/ (_cudalab_prebuilt_object).
  set(prebuilt_dir "${root}/prebuilt/${name}")
  set(prebuilt FALSE)
  if(NOT IS_DIRECTORY "${root}/solutions/${name}" AND IS_DIRECTORY "${prebuilt_dir}")
    set(prebuilt TRUE)
  endif()
  set(solution_dir "${root}/solutions/${name}")
  if(prebuilt)
    set(solution_dir "${prebuilt_dir}")
  endif()
  foreach(dir "${interface_dir}" "${solution_dir}" "${grader_dir}")
    if(NOT IS_DIRECTORY "${dir}")
      message(FATAL_ERROR "cudalab_add_lab(${name}): missing folder ${dir}")
    endif()
  endforeach()

  # Implementations, one object library per role.
  _cudalab_impl_object(${lab}_student "${interface_dir}/${ARG_SOURCE}" candidate "${interface_dir}")
  # What the compiler says of the student's file, also kept in labNN-student-compile.txt: the
  # grade command shows it first when the file does not compile (cmake/capture-compile.sh).
  set_target_properties(${lab}_student PROPERTIES CUDA_COMPILER_LAUNCHER
    "bash;${root}/cmake/capture-compile.sh;${PROJECT_BINARY_DIR}/${lab}-student-compile.txt")
  if(prebuilt)
    _cudalab_prebuilt_object(${lab}_solution "${prebuilt_dir}/solution.o")
    _cudalab_prebuilt_object(${lab}_reference "${prebuilt_dir}/reference.o")
    _cudalab_prebuilt_object(${lab}_solution_embedded_ptx "${prebuilt_dir}/solution_ptx.o")
  else()
    _cudalab_impl_object(${lab}_solution "${root}/solutions/${name}/${ARG_SOURCE}" candidate "${interface_dir}")
    _cudalab_impl_object(${lab}_reference "${root}/solutions/${name}/${ARG_SOURCE}" reference "${interface_dir}")
  endif()
  # Variants: the plain answer as it is, each patch applied to its base in the build tree. The
  # student release has none: no variant graders, no variant tests.
  set(variants_dir "${grader_dir}/variants")
  set(variants "")
  set(link_rejected "")
  set(untimed "")
  set(with_variants TRUE)
  if(prebuilt AND NOT IS_DIRECTORY "${variants_dir}")
    set(with_variants FALSE)
  endif()
  if(with_variants)
    if(NOT EXISTS "${variants_dir}/answer.cu")
      message(FATAL_ERROR "cudalab_add_lab(${name}): missing ${variants_dir}/answer.cu (a plain correct answer)")
    endif()
    _cudalab_impl_object(${lab}_variant_answer "${variants_dir}/answer.cu" candidate "${interface_dir}")
    set(variants answer)
    # With CUDALAB_CPU_ONLY_VARIANTS (the ci preset: CI has no GPU), only the variants whose
    # verdict a machine without a GPU can reach are built: the plain answer (for its link check),
    # the cheats not marked "Judged: gpu" (those the audit or the link stops), those whose link
    # must fail, and those run on a technique check (the PTX rules) unless marked. The others'
    # tests say SKIPPED, as their GPU checks would; a built one of which nothing decisive is seen
    # there (no expected failure, no points bound a grade could break) fails its test
    # (cudalab-variant --cpu-judged), so the marks stay true.
    set(cpu_judged answer)
    set(technique_checks "")
    file(GLOB check_sources "${grader_dir}/grade_*.cpp")
    foreach(check_source IN LISTS check_sources)
      file(STRINGS "${check_source}" check_lines REGEX "GRADED_CHECK\\(\"[^\"]+\", \"[^\"]*\\[technique\\]")
      foreach(check_line IN LISTS check_lines)
        if(check_line MATCHES "GRADED_CHECK\\(\"([^\"]+)\"")
          list(APPEND technique_checks "${CMAKE_MATCH_1}")
        endif()
      endforeach()
    endforeach()
    file(GLOB patches CONFIGURE_DEPENDS "${variants_dir}/*.patch")
    foreach(patch IN LISTS patches)
      get_filename_component(variant "${patch}" NAME)
      string(REGEX REPLACE "\\.patch$" "" variant "${variant}")
      if(NOT variant MATCHES "^[a-z0-9]+(-[a-z0-9]+)*$" OR variant STREQUAL "answer")
        message(FATAL_ERROR "${patch}: a variant's name is lower-case words joined by '-' (not 'answer')")
      endif()
      # Of the header, the build reads Base, Link, Run and Judged (cudalab-variant reads the rest); an
      # edited variant re-runs the configure step, so a change to them is seen.
      set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${patch}")
      file(STRINGS "${patch}" header REGEX "^(Base|Link|Run|Judged): ")
      set(base "${variants_dir}/answer.cu")
      if("${header}" MATCHES "(^|;)Base: skeleton")
        # The skeleton as committed, not the working file the student edits (cmake/Variants.cmake).
        # A variant that does not apply to it is left out, not made: the build goes on, and the
        # variant's test fails saying why.
        cudalab_skeleton_base(base "${interface_dir}/${ARG_SOURCE}"
                              "${CMAKE_CURRENT_BINARY_DIR}/variants/${name}/skeleton/${ARG_SOURCE}")
        cudalab_variant_problem(problem "${patch}" "${base}")
        if(problem)
          file(RELATIVE_PATH patch_shown "${root}" "${patch}")
          string(CONCAT problem "${patch_shown} does not apply to ${base_SHOWN}: ${problem}. "
                 ${base_WHY} "; grading is not affected. Maintainers: remake the variant "
                 "(docs/adding-a-lab.md, \"Variants\")")
          message(NOTICE "${lab}: variant ${variant} left out: ${problem}")
          add_test(NAME ${lab}/variant/${variant}
                   COMMAND "${CMAKE_COMMAND}" -E echo "variant left out: ${problem}")
          set_tests_properties(${lab}/variant/${variant} PROPERTIES
            LABELS "${lab}/variant" FAIL_REGULAR_EXPRESSION "variant left out")
          continue()
        endif()
      endif()
      if("${header}" MATCHES "(^|;)Link: rejected")
        list(APPEND link_rejected ${variant})
      endif()
      # The checks its Run line selects ("" for all), and whether a technique check is among them
      # (by its tag or its name).
      set(run "")
      set(has_run FALSE)
      if("${header}" MATCHES "(^|;)Run: ([^;]*)")
        set(run "${CMAKE_MATCH_2}")
        set(has_run TRUE)
      endif()
      set(runs_technique FALSE)
      if(run MATCHES "\\[technique\\]")
        set(runs_technique TRUE)
      endif()
      foreach(check IN LISTS technique_checks)
        string(FIND "${run}" "${check}" at)
        if(at GREATER -1)
          set(runs_technique TRUE)
        endif()
      endforeach()
      set(judged_here ${runs_technique})
      if(variant MATCHES "^cheat-" OR "${header}" MATCHES "(^|;)Link: rejected")
        set(judged_here TRUE)
      endif()
      # "Judged: gpu": its verdict needs a GPU (what a kernel executed), whatever else it is.
      if("${header}" MATCHES "(^|;)Judged: gpu")
        set(judged_here FALSE)
      endif()
      if(judged_here)
        list(APPEND cpu_judged ${variant})
      endif()
      # A variant whose Run selects no performance check times nothing, and none that a technique
      # check reads the GPU's own count in (device-wide: it must have the GPU to itself,
      # docs/grading.md, "The judge's own count"; without a GPU there is no count): its test may
      # share the GPU.
      if(has_run AND NOT run MATCHES "perf" AND
         NOT (runs_technique AND CUDALAB_CTEST_GPUS GREATER 0))
        list(APPEND untimed ${variant})
      endif()
      string(REPLACE "-" "_" role "${variant}")
      set(source "${CMAKE_CURRENT_BINARY_DIR}/variants/${name}/${variant}.cu")
      cudalab_variant_source("${source}" "${patch}" "${base}")
      _cudalab_impl_object(${lab}_variant_${role} "${source}" candidate "${interface_dir}")
      list(APPEND variants ${variant})
    endforeach()
  endif()

  # Support code shared by the grader, the runner and the host tests.
  file(GLOB support CONFIGURE_DEPENDS "${grader_dir}/*.cpp" "${grader_dir}/*.cu")
  list(FILTER support EXCLUDE REGEX "/((grade|test|run)_[^/]*|remote\\.cpp)$")
  if(NOT support)  # a lab may have no support code of its own
    set(support "${root}/grader/framework/empty.cpp")
  endif()
  add_library(${lab}_support STATIC ${support})
  target_include_directories(${lab}_support PUBLIC "${interface_dir}" "${grader_dir}")
  target_link_libraries(${lab}_support PUBLIC cudalab_common cudalab_grader_framework
                                              cudalab_launch_trace ${ARG_LIBRARIES})
  cudalab_cuda_options(${lab}_support)

  # Graded checks, compiled once, linked against each candidate.
  file(GLOB grade_sources CONFIGURE_DEPENDS "${grader_dir}/grade_*.cpp")
  add_library(${lab}_checks OBJECT ${grade_sources})
  target_link_libraries(${lab}_checks PRIVATE ${lab}_support)
  cudalab_warnings(${lab}_checks)

  # The candidate in a process of its own (docs/design.md, section 8) where the lab has a
  # remote.cpp: each candidate becomes a library with the lab's dispatch, which cudalab-serve
  # loads, and the grader links stubs in its place (labNN::candidate calls one cudalab-serve);
  # the reference runs the same way, the solution's library in a second cudalab-serve
  # (labNN::reference), so that both are timed alike and no implementation runs in the grader.
  set(remote FALSE)
  if(EXISTS "${grader_dir}/remote.cpp")
    set(remote TRUE)
    foreach(stub_role candidate reference)
      add_library(${lab}_remote_${stub_role} OBJECT "${grader_dir}/remote.cpp")
      target_compile_definitions(${lab}_remote_${stub_role} PRIVATE CUDALAB_IMPL=${stub_role})
      if(stub_role STREQUAL "reference")
        # Functions only the reference's process serves (lab 09's forced kernels) are stubbed
        # in labNN::reference alone.
        target_compile_definitions(${lab}_remote_${stub_role} PRIVATE CUDALAB_REMOTE_REFERENCE=1)
      endif()
      target_include_directories(${lab}_remote_${stub_role} PRIVATE "${interface_dir}")
      target_link_libraries(${lab}_remote_${stub_role} PRIVATE cudalab_grader_framework)
      cudalab_warnings(${lab}_remote_${stub_role})
    endforeach()
    add_library(${lab}_remote_dispatch OBJECT "${grader_dir}/remote.cpp")
    target_compile_definitions(${lab}_remote_dispatch PRIVATE CUDALAB_IMPL=candidate CUDALAB_SERVE=1)
    target_include_directories(${lab}_remote_dispatch PRIVATE "${interface_dir}"
                               "${root}/grader/framework")
    target_link_libraries(${lab}_remote_dispatch PRIVATE cudalab_common)
    cudalab_warnings(${lab}_remote_dispatch)
  endif()

  set(roles student solution)
  foreach(variant IN LISTS variants)
    string(REPLACE "-" "_" role "${variant}")
    list(APPEND roles variant_${role})
  endforeach()
  foreach(role IN LISTS roles)
    string(REPLACE "_" "-" role_dash "${role}")
    set(exe ${lab}-grader-${role_dash})
    # Technique checks read the candidate's PTX (grader/framework/technique.h), embedded in the
    # grader: with PTX, each candidate file is also compiled to PTX, once per architecture of the
    # build (a GPU runs code made with the same __CUDA_ARCH__, so `#if __CUDA_ARCH__` cannot show
    # the checks other code than runs), and cmake/EmbedPtx.cmake writes the text into a source of
    # the grader. Nothing is read from a file at run time, where the candidate's code could have
    # rewritten it.
    set(info "${CMAKE_CURRENT_BINARY_DIR}/${lab}_${role}_candidate.cpp")
    set(embed_ptx ${ARG_PTX})
    if(prebuilt AND role STREQUAL "solution")
      # The release: the solution's PTX comes embedded and compiled, as the full repository's
      # build made it (prebuilt/NN-name/solution_ptx.o).
      set(info "$<TARGET_OBJECTS:${lab}_solution_embedded_ptx>")
      set(embed_ptx FALSE)
    elseif(ARG_PTX)
      set(ptx_archs "")
      set(build_archs "${CMAKE_CUDA_ARCHITECTURES}")
      if(build_archs STREQUAL "native")
        set(build_archs "${CMAKE_CUDA_ARCHITECTURES_NATIVE}")
      elseif(build_archs STREQUAL "all")
        set(build_archs "${CMAKE_CUDA_ARCHITECTURES_ALL}")
      elseif(build_archs STREQUAL "all-major")
        set(build_archs "${CMAKE_CUDA_ARCHITECTURES_ALL_MAJOR}")
      endif()
      foreach(arch IN LISTS build_archs)
        string(REGEX REPLACE "-(real|virtual)$" "" arch "${arch}")
        if(arch MATCHES "^[0-9]+[a-z]?$")
          list(APPEND ptx_archs ${arch})
        endif()
      endforeach()
      list(REMOVE_DUPLICATES ptx_archs)
      if(NOT ptx_archs)
        set(ptx_archs 75)
      endif()
      set(ptx_targets "")
      set(ptx_args "")
      set(ptx_files "")
      list(LENGTH ptx_archs ptx_count)
      set(index 0)
      foreach(arch IN LISTS ptx_archs)
        set(ptx_target ${lab}_${role}_ptx_${arch})
        add_library(${ptx_target} OBJECT $<TARGET_PROPERTY:${lab}_${role},SOURCES>)
        set_target_properties(${ptx_target} PROPERTIES CUDA_PTX_COMPILATION ON
                              CUDA_ARCHITECTURES ${arch}-virtual)
        # The object's own definitions, include folders and options: the same code as runs.
        target_compile_definitions(${ptx_target} PRIVATE
                                   $<TARGET_PROPERTY:${lab}_${role},COMPILE_DEFINITIONS>)
        target_include_directories(${ptx_target} PRIVATE
                                   $<TARGET_PROPERTY:${lab}_${role},INCLUDE_DIRECTORIES>)
        target_compile_options(${ptx_target} PRIVATE
                               $<TARGET_PROPERTY:${lab}_${role},COMPILE_OPTIONS>)
        target_link_libraries(${ptx_target} PRIVATE cudalab_common)
        list(APPEND ptx_targets ${ptx_target})
        list(APPEND ptx_args "-DPTX${index}=$<TARGET_OBJECTS:${ptx_target}>")
        list(APPEND ptx_files "$<TARGET_OBJECTS:${ptx_target}>")
        math(EXPR index "${index} + 1")
      endforeach()
      add_custom_command(OUTPUT "${info}"
        COMMAND "${CMAKE_COMMAND}" "-DOUTPUT=${info}" -DCOUNT=${ptx_count} ${ptx_args}
                -P "${root}/cmake/EmbedPtx.cmake"
        DEPENDS ${ptx_targets} ${ptx_files} "${root}/cmake/EmbedPtx.cmake"
        COMMENT "Embedding the PTX of ${lab}'s ${role_dash} candidate"
        VERBATIM)
      add_custom_target(${lab}_${role}_ptx DEPENDS "${info}")
    else()
      file(GENERATE OUTPUT "${info}" CONTENT
        "// Generated by cudalab_add_lab: this lab has no technique checks, so no PTX.\n#include \"technique.h\"\nnamespace cudalab::grade {\nstd::vector<PtxModuleText> candidate_ptx_modules() { return {}; }\n}  // namespace cudalab::grade\n")
    endif()
    if(remote)
      set(library ${lab}-candidate-${role_dash})
      add_library(${library} MODULE $<TARGET_OBJECTS:${lab}_${role}>
                                    $<TARGET_OBJECTS:${lab}_remote_dispatch>)
      target_link_libraries(${library} PRIVATE cudalab_common)
      # No relocatable device code here: no device link step for the library.
      set_target_properties(${library} PROPERTIES CUDA_RESOLVE_DEVICE_SYMBOLS OFF)
      set(paths "${CMAKE_CURRENT_BINARY_DIR}/${lab}_${role}_remote.cpp")
      file(GENERATE OUTPUT "${paths}" CONTENT
        "// Generated by cudalab_add_lab: where this grader's candidate and reference processes come from.\nextern \"C\" const char* cudalab_candidate_server() { return \"$<TARGET_FILE:cudalab-serve>\"; }\nextern \"C\" const char* cudalab_candidate_library() { return \"$<TARGET_FILE:${library}>\"; }\nextern \"C\" const char* cudalab_reference_library() { return \"$<TARGET_FILE:${lab}-candidate-solution>\"; }\n")
      add_executable(${exe} $<TARGET_OBJECTS:${lab}_checks> $<TARGET_OBJECTS:${lab}_remote_candidate>
                            $<TARGET_OBJECTS:${lab}_remote_reference> "${info}" "${paths}")
      add_dependencies(${exe} cudalab-serve ${library} ${lab}-candidate-solution)
    else()
      add_executable(${exe} $<TARGET_OBJECTS:${lab}_checks> $<TARGET_OBJECTS:${lab}_${role}>
                            $<TARGET_OBJECTS:${lab}_reference> "${info}")
    endif()
    # No symbol table: a candidate that looked the reference up in its own executable (through
    # /proc/self/exe or the program headers) finds nothing to call.
    target_link_options(${exe} PRIVATE "LINKER:--strip-all")
    if(embed_ptx)
      add_dependencies(${exe} ${lab}_${role}_ptx)
    endif()
    target_link_libraries(${exe} PRIVATE ${lab}_support cudalab_grader_main)
    set_target_properties(${exe} PROPERTIES CUDA_RESOLVE_DEVICE_SYMBOLS ON)
    # A variant a CPU cannot judge, in a build that makes only those: defined, not built.
    string(REGEX REPLACE "^variant_" "" variant_of_role "${role}")
    string(REPLACE "_" "-" variant_of_role "${variant_of_role}")
    if(CUDALAB_CPU_ONLY_VARIANTS AND role MATCHES "^variant_" AND
       NOT variant_of_role IN_LIST cpu_judged)
      set(left_out ${exe} ${lab}_${role})
      if(remote)
        list(APPEND left_out ${library})
      endif()
      if(embed_ptx)
        list(APPEND left_out ${ptx_targets})
      endif()
      set_target_properties(${left_out} PROPERTIES EXCLUDE_FROM_ALL TRUE)
    endif()
  endforeach()

  # The student's file links on its own, against the support library and the CUDA runtime only:
  # calling the reference solution or a vendor library (cuBLAS, cuDNN, ...) fails this link.
  add_executable(${lab}-student-link-check $<TARGET_OBJECTS:${lab}_student>
                                           "${root}/grader/framework/link_check_main.cpp")
  target_link_libraries(${lab}-student-link-check PRIVATE cudalab_common)
  set_target_properties(${lab}-student-link-check PROPERTIES CUDA_RESOLVE_DEVICE_SYMBOLS ON)

  # The link check of the plain answer (it must link) and of each variant with "Link: rejected"
  # (left out of the build: it must fail to link; its test tries the link, as a student's build
  # would). The other variants need none: the grade command skips the check when there is none.
  foreach(variant IN LISTS variants)
    string(REPLACE "-" "_" role "${variant}")
    set(variant_source "${CMAKE_CURRENT_BINARY_DIR}/variants/${name}/${variant}.cu")
    if(variant STREQUAL "answer")
      set(variant_source "${variants_dir}/answer.cu")
    endif()
    set(link_check "")
    if(variant STREQUAL "answer" OR variant IN_LIST link_rejected)
      set(link_check ${lab}-variant-${variant}-link-check)
      add_executable(${link_check} $<TARGET_OBJECTS:${lab}_variant_${role}>
                                   "${root}/grader/framework/link_check_main.cpp")
      target_link_libraries(${link_check} PRIVATE cudalab_common)
      set_target_properties(${link_check} PROPERTIES CUDA_RESOLVE_DEVICE_SYMBOLS ON)
      if(variant IN_LIST link_rejected)
        set_target_properties(${link_check} PROPERTIES EXCLUDE_FROM_ALL TRUE)
      endif()
    endif()
    set(link_check_file "")
    set(link_args "")
    if(link_check)
      set(link_check_file "$<TARGET_FILE:${link_check}>")
    endif()
    if(variant IN_LIST link_rejected)
      set(link_args --link-check "${link_check_file}" --build-dir "${PROJECT_BINARY_DIR}"
                    --link-target ${link_check})
    endif()
    set_property(GLOBAL APPEND PROPERTY CUDALAB_VARIANTS
      "${id}\t${variant}\t$<TARGET_FILE:${lab}-grader-variant-${variant}>\t${link_check_file}\t${variant_source}\t$<TARGET_OBJECTS:${lab}_variant_${role}>")

    # The grade command on the variant, held against the verdict in its header.
    set(file_args "")
    if(NOT variant STREQUAL "answer")
      set(file_args --file "${variants_dir}/${variant}.patch")
    endif()
    if(CUDALAB_CPU_ONLY_VARIANTS AND NOT variant IN_LIST cpu_judged)
      add_test(NAME ${lab}/variant/${variant}
               COMMAND "${CMAKE_COMMAND}" -E echo
                       "SKIPPED: ${variant}'s verdict needs a GPU, and this build makes only the variants a CPU can judge (CUDALAB_CPU_ONLY_VARIANTS)")
    else()
      # Built where no GPU is: something decisive of its verdict must be seen there (the answer
      # excepted, built for its link check), or it is marked "Judged: gpu" and left out.
      set(cpu_args "")
      if(CUDALAB_CPU_ONLY_VARIANTS AND NOT variant STREQUAL "answer")
        set(cpu_args --cpu-judged)
      endif()
      add_test(NAME ${lab}/variant/${variant}
               COMMAND cudalab-variant check --grade $<TARGET_FILE:cudalab-grade> --lab ${id}
                       --variant ${variant} ${file_args} ${link_args} ${cpu_args})
    endif()
    # A cheat (cheat-*.patch) attacks the grader rather than making a mistake: its own label, so
    # that the cheats suite runs alone (ctest -L cheat).
    set(variant_label "${lab}/variant")
    if(variant MATCHES "^cheat-")
      set(variant_label "${lab}/cheat")
    endif()
    set_tests_properties(${lab}/variant/${variant} PROPERTIES
      LABELS "${variant_label}"
      SKIP_REGULAR_EXPRESSION "SKIPPED: "
      TIMEOUT 1800)
    # Timed checks must not share the GPU, and a link attempt runs the build (alone).
    set(how SHARED)
    if(variant IN_LIST link_rejected)
      set(how SERIAL)
    elseif(NOT variant IN_LIST untimed)
      set(how ALONE)
    endif()
    _cudalab_gpu_properties(gpu ${how})
    if(gpu)
      set_tests_properties(${lab}/variant/${variant} PROPERTIES ${gpu})
    endif()
  endforeach()

  # The lab page's "Common mistakes" section must say what the variants' headers say.
  if(EXISTS "${root}/docs/labs/${name}.md" AND with_variants)
    add_test(NAME ${lab}/host/common-mistakes
             COMMAND cudalab-variant mistakes "${variants_dir}" --page "${root}/docs/labs/${name}.md")
    set_tests_properties(${lab}/host/common-mistakes PROPERTIES LABELS "${lab}/host/docs")
  endif()

  # CTest entries. The solution must pass everything (and the timing self-check); the student's
  # graders are labelled "student" and left out of the default test preset: a fresh skeleton fails.
  _cudalab_discover(${lab}-grader-solution "${lab}/solution/" "${lab}/solution" ${ARG_TAGS} selfcheck)
  # Listing a grader's checks runs it at build time: the batch's workers (CUDALAB_STUDENT_TESTS
  # OFF) build untrusted files and register no student test, so no student code runs then.
  if(CUDALAB_STUDENT_TESTS)
    _cudalab_discover(${lab}-grader-student "${lab}/student/" "${lab}/student" ${ARG_TAGS})
  endif()

  # Sanitizer gate: the correctness checks under compute-sanitizer (but the [large] ones:
  # racecheck on 2^26 elements takes minutes).
  set(sanitized_roles solution)
  if(CUDALAB_STUDENT_TESTS)
    list(PREPEND sanitized_roles student)
  endif()
  foreach(role IN LISTS sanitized_roles)
    foreach(tool IN LISTS ARG_SANITIZE)
      cudalab_sanitizer_test(${lab}/${role}/sanitize-${tool} ${tool} "${lab}/${role}/sanitize" CLEAN
        COMMAND $<TARGET_FILE:${lab}-grader-${role}> "[correctness]~[large]~[host]")
    endforeach()
  endforeach()

  # Host unit tests.
  file(GLOB host_tests CONFIGURE_DEPENDS "${grader_dir}/test_*.cpp")
  if(host_tests)
    add_executable(${lab}-host-tests ${host_tests})
    cudalab_quick_build(${host_tests})
    target_link_libraries(${lab}-host-tests PRIVATE ${lab}_support cudalab_catch_main)
    cudalab_warnings(${lab}-host-tests)
    cudalab_discover_tests(${lab}-host-tests "${lab}/host/" "${lab}/host")
  endif()

  # The runner.
  file(GLOB runner CONFIGURE_DEPENDS "${grader_dir}/run_*.cpp")
  if(runner)
    add_executable(${lab}-${short} ${runner} $<TARGET_OBJECTS:${lab}_student>
                                   $<TARGET_OBJECTS:${lab}_reference>)
    cudalab_quick_build(${runner})
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
  # The grade command's audit of the student's object reads its includes from Ninja's dependency
  # log (ninja -t deps); with another generator that rule is skipped.
  set(deps_tool "")
  if(CMAKE_GENERATOR STREQUAL "Ninja")
    set(deps_tool "${CMAKE_MAKE_PROGRAM}")
  endif()
  set_property(GLOBAL APPEND PROPERTY CUDALAB_LABS
    "${id}\t${short}\t$<TARGET_FILE:${lab}-grader-student>\t$<TARGET_FILE:${lab}-grader-solution>\t${tools}\t$<TARGET_FILE:${lab}-student-link-check>\t${deps_tool}\t${interface_dir}\t${root}/common/include\t${interface_dir}/${ARG_SOURCE}\t$<TARGET_OBJECTS:${lab}_student>")
endfunction()

# Writes the manifests the grade command reads: one line per lab,
# id <tab> name <tab> student grader <tab> solution grader <tab> sanitizer tools <tab> link check
# <tab> ninja (or nothing) <tab> lab folder <tab> common/include <tab> student source <tab> student
# object(s), and one line per variant, lab id <tab> variant <tab> grader <tab> link check (or
# nothing) <tab> source <tab> object(s); the last four columns of a lab and the last two of a
# variant are for the audit of the candidate's object (grader/grade/audit.h).
function(cudalab_finish_labs)
  get_property(labs GLOBAL PROPERTY CUDALAB_LABS)
  string(JOIN "\n" content ${labs})
  file(GENERATE OUTPUT "${PROJECT_BINARY_DIR}/cudalab-labs.tsv" CONTENT "${content}\n")
  get_property(variants GLOBAL PROPERTY CUDALAB_VARIANTS)
  string(JOIN "\n" content ${variants})
  file(GENERATE OUTPUT "${PROJECT_BINARY_DIR}/cudalab-variants.tsv" CONTENT "${content}\n")
endfunction()
